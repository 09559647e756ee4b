package httpapi_test

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

// TestRoutesMatchSpec checks that the routes mounted on the router and the
// operations of api/openapi.yaml are the same set.
func TestRoutesMatchSpec(t *testing.T) {
	e := newEnv(t)
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatalf("load spec: %v", err)
	}
	var inSpec []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			inSpec = append(inSpec, method+" "+path)
		}
	}
	mounted := e.api.Routes()
	if missing := difference(inSpec, mounted); len(missing) > 0 {
		t.Errorf("in openapi.yaml, not mounted:\n  %s", strings.Join(missing, "\n  "))
	}
	if extra := difference(mounted, inSpec); len(extra) > 0 {
		t.Errorf("mounted, not in openapi.yaml:\n  %s", strings.Join(extra, "\n  "))
	}
	if len(mounted) == 0 {
		t.Error("no routes mounted")
	}
}

func difference(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func TestNewServerNeedsItsParts(t *testing.T) {
	for _, tt := range []struct {
		name  string
		unset func(*httpapi.Config)
	}{
		{"Runs", func(c *httpapi.Config) { c.Runs = nil }},
		{"Store", func(c *httpapi.Config) { c.Store = nil }},
		{"Compare", func(c *httpapi.Config) { c.Compare = nil }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := newEnv(t).cfg
			tt.unset(&cfg)
			if _, err := httpapi.NewServer(cfg); err == nil {
				t.Errorf("NewServer without %s: no error", tt.name)
			}
		})
	}
}

// TestServesSpec checks that the daemon serves api/openapi.yaml, with its
// own catalog as the values a spec's targets may take, and nothing else
// changed.
func TestServesSpec(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) {
		c.Targets = []bench.TargetInfo{{Name: "go"}, {Name: "mine", Variants: []string{"platform", "virtual"}}}
		c.Engines = []string{"local", "lab"}
		c.HostCPUs, c.HostMemoryMiB = 3, 2048
	})
	resp := e.do(t, "GET", "/openapi.yaml", "")
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Fatalf("status = %d, want %d", got, want)
	}
	if got, want := resp.Header.Get("Content-Type"), "application/yaml"; got != want {
		t.Errorf("Content-Type = %q, want %q", got, want)
	}
	doc, err := openapi3.NewLoader().LoadFromData(resp.body)
	if err != nil {
		t.Fatalf("served document: %v", err)
	}
	var refs []string
	for _, v := range doc.Components.Schemas["RunSpec"].Value.Properties["targets"].Value.Items.Value.Enum {
		refs = append(refs, v.(string))
	}
	if got, want := strings.Join(refs, " "), "go mine mine@platform mine@virtual"; got != want {
		t.Errorf("targets enum = %s, want %s", got, want)
	}
	var engines []string
	for _, v := range doc.Components.Schemas["RunSpec"].Value.Properties["engine"].Value.Enum {
		engines = append(engines, v.(string))
	}
	if got, want := strings.Join(engines, " "), "local lab"; got != want {
		t.Errorf("engine enum = %s, want %s", got, want)
	}
	limits := doc.Components.Schemas["Limits"].Value
	if got, want := *limits.Properties["cpus"].Value.Max, 3.0; got != want {
		t.Errorf("limits.cpus maximum = %g, want %g", got, want)
	}
	if got, want := *limits.Properties["memoryMiB"].Value.Max, 2048.0; got != want {
		t.Errorf("limits.memoryMiB maximum = %g, want %g", got, want)
	}
	served := strings.Split(string(resp.body), "\n")
	static := strings.Split(string(api.Spec), "\n")
	if len(served) != len(static) {
		t.Fatalf("served %d lines, api/openapi.yaml has %d", len(served), len(static))
	}
	for i := range served {
		if served[i] != static[i] && !strings.Contains(static[i-1], "x-served") {
			t.Errorf("line %d changed: %q", i+1, served[i])
		}
	}
}

func TestHealth(t *testing.T) {
	e := newEnv(t)
	e.runs.QueueLengthFn = func() int { return 3 }
	req := e.newRequest(t, "GET", "/healthz", "")
	resp := e.send(t, req)
	conforms(t, req, resp)
	if got, want := decode[api.Health](t, resp), (api.Health{Status: "ok", QueueLength: 3}); got != want {
		t.Errorf("health = %+v, want %+v", got, want)
	}
}

func TestCatalog(t *testing.T) {
	e := newEnv(t)
	t.Run("targets", func(t *testing.T) {
		req := e.newRequest(t, "GET", "/targets", "")
		resp := e.send(t, req)
		conforms(t, req, resp)
		got := decode[api.TargetList](t, resp)
		if len(got.Targets) != 1 || !reflect.DeepEqual(got.Targets[0], e.cfg.Targets[0]) {
			t.Errorf("targets = %+v, want %+v", got.Targets, e.cfg.Targets)
		}
	})
	t.Run("profiles", func(t *testing.T) {
		req := e.newRequest(t, "GET", "/profiles", "")
		resp := e.send(t, req)
		conforms(t, req, resp)
		got := decode[api.ProfileList](t, resp)
		if len(got.Profiles) != 1 || got.Profiles[0].Name != "smoke" || got.Profiles[0].Stages[0].Rate != 50 {
			t.Errorf("profiles = %+v, want %+v", got.Profiles, e.cfg.Profiles)
		}
	})
}

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	runsTotal := prometheus.NewCounter(prometheus.CounterOpts{Name: "threadbench_runs_total", Help: "Runs submitted."})
	reg.MustRegister(runsTotal)
	runsTotal.Add(7)
	e := newEnv(t, func(c *httpapi.Config) { c.Gatherer = reg })
	resp := e.do(t, "GET", "/metrics", "")
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Fatalf("status = %d, want %d", got, want)
	}
	if !strings.Contains(string(resp.body), "threadbench_runs_total 7") {
		t.Errorf("metrics lack the gatherer's counter:\n%s", resp.body)
	}
}

func TestRequestID(t *testing.T) {
	e := newEnv(t)
	e.runs.QueueLengthFn = func() int { return 0 }
	t.Run("KeptFromCaller", func(t *testing.T) {
		req := e.newRequest(t, "GET", "/healthz", "")
		req.Header.Set("X-Request-Id", "abc-123")
		if got, want := e.send(t, req).Header.Get("X-Request-Id"), "abc-123"; got != want {
			t.Errorf("X-Request-Id = %q, want %q", got, want)
		}
		if !strings.Contains(e.logs.String(), "requestId=abc-123") {
			t.Errorf("access log lacks the request ID:\n%s", e.logs)
		}
	})
	t.Run("MadeUpWhenAbsentOrUnreasonable", func(t *testing.T) {
		for _, given := range []string{"", "bad id with spaces", strings.Repeat("x", 200)} {
			req := e.newRequest(t, "GET", "/healthz", "")
			req.Header.Set("X-Request-Id", given)
			got := e.send(t, req).Header.Get("X-Request-Id")
			if got == "" || got == given {
				t.Errorf("given %q: X-Request-Id = %q, want a new one", given, got)
			}
		}
	})
}

func TestAccessLog(t *testing.T) {
	e := newEnv(t)
	e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) { return nil, notFound(id) }
	e.do(t, "GET", "/runs/r404", "")
	logs := e.logs.String()
	for _, want := range []string{`msg="http request"`, "method=GET", "path=/runs/r404", "status=404"} {
		if !strings.Contains(logs, want) {
			t.Errorf("access log lacks %s:\n%s", want, logs)
		}
	}
}
