package web_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/web"
)

// control is one form control as app.js reads it: the JSON path it sets
// and the type of its value.
type control struct{ field, kind string }

var (
	controlTag = regexp.MustCompile(`<(?:input|select|textarea)\b[^>]*\bdata-field="([^"]+)"[^>]*>`)
	typeAttr   = regexp.MustCompile(`\bdata-type="([^"]+)"`)
	boxAttr    = regexp.MustCompile(`\bdata-field-box="([^"]+)"`)
)

func formControls(t *testing.T, body string) []control {
	t.Helper()
	var out []control
	for _, m := range controlTag.FindAllStringSubmatch(body, -1) {
		c := control{field: m[1], kind: "string"}
		if tm := typeAttr.FindStringSubmatch(m[0]); tm != nil {
			c.kind = tm[1]
		}
		out = append(out, c)
		if strings.HasSuffix(c.field, ".concurrency") && strings.Contains(m[0], "data-stage-value") {
			// app.js renames the stage's value for the open model.
			out = append(out, control{field: strings.TrimSuffix(c.field, ".concurrency") + ".rate", kind: c.kind})
		}
	}
	if len(out) < 20 {
		t.Fatalf("the form has %d controls, want every part of a spec", len(out))
	}
	return out
}

// sample is a value of the control's type that the strict decoder takes.
func sample(c control) any {
	switch c.kind {
	case "number", "int":
		return 1
	case "bool":
		return true
	case "list":
		return []string{"go"}
	case "params":
		return map[string]string{"duration": "10"}
	}
	for suffix, v := range map[string]string{"duration": "5s", "maxDuration": "5s", "budget": "5m", "timeout": "5s", "endpoint": "heavy", "model": "closed",
		"profile.name": "smoke", "experiment.name": "seed-000", "gc": "G1"} {
		if strings.HasSuffix(c.field, suffix) {
			return v
		}
	}
	return "x"
}

// setPath sets a JSON path ("a.b[0].c") in a document of maps and slices.
func setPath(doc map[string]any, path string, v any) {
	keys := regexp.MustCompile(`[^.[\]]+`).FindAllString(path, -1)
	var cur any = doc
	for i, k := range keys {
		last := i == len(keys)-1
		next := func() any {
			if _, err := strconv.Atoi(keys[min(i+1, len(keys)-1)]); err == nil && !last {
				return []any{}
			}
			return map[string]any{}
		}
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[k] = v
				return
			}
			if c[k] == nil {
				c[k] = next()
			}
			if s, ok := c[k].([]any); ok {
				n, _ := strconv.Atoi(keys[i+1])
				for len(s) <= n {
					s = append(s, map[string]any{})
				}
				c[k] = s
			}
			cur = c[k]
		case []any:
			n, _ := strconv.Atoi(k)
			cur = c[n]
		}
	}
}

// TestNewRunFormSpeaksTheAPI reads every control of the form and sends a
// value to the JSON path it names through the domain's strict decoder,
// which refuses any field a spec does not have: the form cannot drift from
// the API, and the API's field errors name the controls' paths.
func TestNewRunFormSpeaksTheAPI(t *testing.T) {
	e := newEnv(t)
	p := e.get(t, "/ui/parts/new")
	if p.status != http.StatusOK {
		t.Fatalf("status %d\n%s", p.status, p.body)
	}
	doc := map[string]any{}
	paths := map[string]bool{}
	for _, c := range formControls(t, p.body) {
		setPath(doc, c.field, sample(c))
		paths[c.field] = true
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := spec.Decode(b, "the form")
	if err != nil {
		t.Fatalf("the form's fields are not a spec's: %v\n%s", err, b)
	}
	if rs.Profile.Stages[0].Duration.D().Seconds() != 5 || rs.Workload.Requests[0].Params["duration"] != "10" || rs.Experiment == nil {
		t.Errorf("decoded %+v: the form's values did not land where they should", rs)
	}
	for _, want := range []string{"name", "repeat", "targets", "profile.name", "profile.scale", "profile.model",
		"profile.stages[0].duration", "profile.stages[0].concurrency", "profile.stages[0].ramp",
		"experiment.name", "experiment.scale", "experiment.part",
		"workload.requests[0].endpoint", "workload.requests[0].params", "workload.requests[0].uri", "workload.requests[0].weight", "workload.timeout",
		"warmup.duration", "warmup.rate", "warmup.disabled", "warmup.maxDuration", "warmup.fraction", "capacity.objective", "capacity.budget", "limits.cpus", "limits.memoryMiB",
		"java.tomcatMaxThreads", "java.virtualParallelism", "java.heapPercent", "java.gc", "database.kind", "database.pool", "database.init"} {
		if !paths[want] {
			t.Errorf("the form has no control for %s", want)
		}
	}
	// Every box an error may land in names a part of the spec.
	for _, m := range boxAttr.FindAllStringSubmatch(p.body, -1) {
		covered := false
		for path := range paths {
			covered = covered || path == m[1] || strings.HasPrefix(path, m[1]+".") || strings.HasPrefix(path, m[1]+"[")
		}
		if !covered {
			t.Errorf("data-field-box %q covers no control", m[1])
		}
	}
}

func TestNewRunFormOffersTheCatalogs(t *testing.T) {
	e := newEnv(t)
	p := e.get(t, "/ui/parts/new")
	for _, name := range builtin.ProfileNames() {
		p.mustContain(t, `<option value="`+name+`">`)
	}
	for _, x := range builtin.Experiments() {
		p.mustContain(t, `<option value="`+x.Name+`">`)
	}
	for _, ep := range bench.EndpointNames() {
		p.mustContain(t, `<option value="`+ep+`">`)
	}
	for _, target := range catalog {
		if target.OnlyNamed { // offered, not checked: a run names it
			p.mustContain(t, `value="`+target.Name+`">`)
			p.mustNotContain(t, `value="`+target.Name+`" checked>`)
			continue
		}
		p.mustContain(t, `value="`+target.Name+`" checked>`)
	}
	// The defaults the API applies, shown where a field is empty.
	p.mustContain(t, `placeholder="2m0s"`, `placeholder="until steady"`, `placeholder="30s"`, `placeholder="1024"`, `placeholder="200"`,
		"novalidate", `data-spec="/runs"`)
	p.mustNotContain(t, "method=\"post\"", "method=post", "action=")
}

// A service of one's own in the daemon's configuration is offered in each
// of its variants, each a target of its own; a built-in Java target by its
// name (its JDK is a choice with a default).
func TestNewRunFormOffersOwnServiceVariants(t *testing.T) {
	own := bench.TargetInfo{Name: "orders", Kind: "java", ThreadModel: "platform, virtual", Description: "your own jar orders.jar",
		Variant: bench.VariantOwn, Variants: []string{"platform", "virtual"}, DefaultVariant: "platform"}
	java := bench.TargetInfo{Name: bench.TargetJavaVirtual, Kind: "java", ThreadModel: "virtual", Description: "virtual threads",
		Variant: "jdk", Variants: []string{"25", "21"}, DefaultVariant: "25"}
	pages, err := web.New(web.Config{Store: store.NewDB(filepath.Join(t.TempDir(), "h.db")),
		Compare: func(base, head *bench.Run, _ float64) bench.Comparison { return bench.Comparison{} },
		Targets: []bench.TargetInfo{java, own}, Profiles: builtin.Profiles(), Experiments: builtin.Experiments(), Endpoints: bench.Endpoints(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	pages.ServeHTTP(rec, httptest.NewRequest("GET", "/ui/parts/new", nil))
	body := rec.Body.String()
	for _, want := range []string{`value="orders@platform" checked>`, `value="orders@virtual" checked>`, `value="java-virtual" checked>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	if strings.Contains(body, `value="orders" checked>`) || strings.Contains(body, `value="java-virtual@21"`) {
		t.Errorf("the form offers a service by its name or a JDK as a target")
	}
}
