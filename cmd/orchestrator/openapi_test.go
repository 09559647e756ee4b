package main

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/targets"
)

// TestDocumentListsWhatIsValid keeps api/openapi.yaml's lists of valid
// names in step with the code: the built-in profiles, the profiles whose
// model is closed (an iteration needs one), and the built-in catalog's
// targets (a daemon serves its own catalog in their place).
func TestDocumentListsWhatIsValid(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	runSpec := doc.Components.Schemas["RunSpec"].Value
	strs := func(values []any) []string {
		var out []string
		for _, v := range values {
			out = append(out, v.(string))
		}
		return out
	}

	var refs []string
	for _, info := range targets.DefaultCatalog().Infos() {
		refs = append(refs, info.Refs()...)
	}
	if got := strs(runSpec.Properties["targets"].Value.Items.Value.Enum); !slices.Equal(got, refs) {
		t.Errorf("targets enum = %v, want the built-in catalog's %v", got, refs)
	}

	if got, want := strs(runSpec.Properties["profile"].Value.OneOf[0].Value.Enum), builtin.ProfileNames(); !slices.Equal(got, want) {
		t.Errorf("profile enum = %v, want the built-in profiles %v", got, want)
	}

	var closed []string
	for _, p := range builtin.Profiles() {
		if p.Model == bench.ModelClosed {
			closed = append(closed, p.Name)
		}
	}
	iterationBranch := runSpec.AnyOf[1].Value.Properties["profile"].Value.AnyOf[0].Value
	if got := strs(iterationBranch.Enum); !slices.Equal(got, closed) {
		t.Errorf("closed profiles for an iteration = %v, want %v", got, closed)
	}
}

// TestDocumentListsEndpointParams keeps the document's per-endpoint
// parameters in step with the contract's table: each endpoint the API
// takes has exactly its parameters, and each integer's pattern and bounds
// take its minimum and maximum and nothing past them.
func TestDocumentListsEndpointParams(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	request := doc.Components.Schemas["Request"].Value
	seen := map[string]bool{}
	for _, variant := range request.OneOf {
		props := variant.Value.Properties
		if props["endpoint"] == nil {
			continue // a request of one's own, by uri
		}
		params := props["params"].Value
		for _, name := range props["endpoint"].Value.Enum {
			e, ok := bench.LookupEndpoint(name.(string))
			if !ok {
				t.Errorf("the document's endpoint %s is not in the contract", name)
				continue
			}
			seen[e.Name] = true
			if len(e.Params) == 0 {
				if params.MaxProps == nil || *params.MaxProps != 0 {
					t.Errorf("%s takes no parameter, the document allows some", e.Name)
				}
				continue
			}
			if len(params.Properties) != len(e.Params) {
				t.Errorf("%s: the document has %d parameters, the contract %d", e.Name, len(params.Properties), len(e.Params))
			}
			for _, p := range e.Params {
				ref := params.Properties[p.Name]
				if ref == nil {
					t.Errorf("%s: the document lacks %s", e.Name, p.Name)
					continue
				}
				checkIntParam(t, e.Name+"."+p.Name, ref.Value, p)
			}
		}
	}
	for _, name := range bench.EndpointNames() {
		if !seen[name] {
			t.Errorf("the document's requests leave out %s", name)
		}
	}
}

func checkIntParam(t *testing.T, what string, s *openapi3.Schema, p bench.Param) {
	t.Helper()
	if len(p.Values) > 0 {
		var got []string
		for _, v := range s.Enum {
			got = append(got, v.(string))
		}
		if !slices.Equal(got, p.Values) {
			t.Errorf("%s: the document's values %v, the contract's %v", what, got, p.Values)
		}
		return
	}
	str, num := s.AnyOf[0].Value, s.AnyOf[1].Value
	if *num.Min != float64(p.Min) || *num.Max != float64(p.Max) {
		t.Errorf("%s: integer bounds %g..%g, want %d..%d", what, *num.Min, *num.Max, p.Min, p.Max)
	}
	pattern := regexp.MustCompile(str.Pattern)
	for _, v := range []int{p.Min, p.Max, (p.Min + p.Max) / 2} {
		if s := strconv.Itoa(v); !pattern.MatchString(s) || !pattern.MatchString("00"+s) {
			t.Errorf("%s: pattern %s refuses %s", what, str.Pattern, s)
		}
	}
	for _, v := range []int{p.Max + 1, p.Max * 10, p.Min - 1} {
		if s := strconv.Itoa(v); v >= 0 && pattern.MatchString(s) {
			t.Errorf("%s: pattern %s takes %s", what, str.Pattern, s)
		}
	}
	for _, s := range []string{"", "+1", "-1", "1.0", " 1"} {
		if pattern.MatchString(s) {
			t.Errorf("%s: pattern %s takes %q", what, str.Pattern, s)
		}
	}
}

// TestDocumentListsGarbageCollectors keeps the document's java.gc in step
// with the one list of collectors, bench.GarbageCollectors: its pattern is
// the list's names in any case, "GC" optional, or nothing; its words name
// them; and what it takes, Prepare takes.
func TestDocumentListsGarbageCollectors(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	gc := doc.Components.Schemas["JavaOptions"].Value.Properties["gc"].Value
	var names []string
	for _, name := range bench.GarbageCollectors {
		var caseless strings.Builder
		for _, r := range name {
			if lower, upper := strings.ToLower(string(r)), strings.ToUpper(string(r)); lower != upper {
				caseless.WriteString("[" + upper + lower + "]")
			} else {
				caseless.WriteRune(r)
			}
		}
		names = append(names, caseless.String())
	}
	if want := "^$|^(?:" + strings.Join(names, "|") + ")(?:[Gg][Cc])?$"; gc.Pattern != want {
		t.Errorf("java.gc pattern\n %s\nwant, from bench.GarbageCollectors,\n %s", gc.Pattern, want)
	}
	n := len(bench.GarbageCollectors)
	words := strings.Join(bench.GarbageCollectors[:n-1], ", ") + " or " + bench.GarbageCollectors[n-1]
	if !strings.HasPrefix(gc.Description, words+",") || gc.Extensions["x-error"] != "must be "+words {
		t.Errorf("java.gc says %q and %q, want them to name %s", gc.Description, gc.Extensions["x-error"], words)
	}
	pattern := regexp.MustCompile(gc.Pattern)
	for _, name := range bench.GarbageCollectors {
		for _, given := range []string{name, strings.ToLower(name), strings.ToUpper(name) + "GC", name + "gc"} {
			if got, ok := bench.LookupGC(given); !ok || got != name || !pattern.MatchString(given) {
				t.Errorf("%q: LookupGC = %q, %t; the pattern takes it: %t", given, got, ok, pattern.MatchString(given))
			}
		}
	}
	for _, given := range []string{"Epsilon", "gc", "G1 ", "CMS"} {
		if _, ok := bench.LookupGC(given); ok || pattern.MatchString(given) {
			t.Errorf("%q is taken", given)
		}
	}
}

// TestDocumentSaysCapacityMakesItsProfile: the document's rule for a
// profile beside a capacity search (found by schemathesis: a 400 it did
// not predict) says what Prepare does, no more and no less: a spec the
// schema refuses for it Prepare refuses naming profile, and one the schema
// takes Prepare takes.
func TestDocumentSaysCapacityMakesItsProfile(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	runSpec := doc.Components.Schemas["RunSpec"].Value
	catalog := bench.Catalog{Targets: targets.DefaultCatalog().Infos(), Builtins: builtin.Set}
	for _, profile := range []string{
		``, // none
		`"profile": "smoke",`,
		`"profile": {"engine": "vegeta"},`,
		`"profile": {"engine": "vegeta", "connections": 10, "model": "open", "name": "", "scale": 0, "stages": []},`,
		`"profile": {"model": "closed"},`,
		`"profile": {"scale": 1},`,
		`"profile": {"description": "mine"},`,
		`"profile": {"stages": [{"duration": "1s", "rate": 5}]},`,
		`"profile": {"workload": {"requests": [{"endpoint": "light"}]}},`,
		`"profile": {"name": "capacity", "model": "open", "stages": [{"duration": "10s", "rate": 50}]},`,
		`"profile": {"name": "mine", "model": "open", "stages": [{"duration": "10s", "rate": 50}]},`,
	} {
		body := `{"targets": ["go"], ` + profile + ` "capacity": {"objective": "p99<=1s"}, "workload": {"requests": [{"endpoint": "light"}]}}`
		var value any
		if err := json.Unmarshal([]byte(body), &value); err != nil {
			t.Fatal(err)
		}
		schemaErr := runSpec.VisitJSON(value)
		rs, err := spec.Decode([]byte(body), "body")
		if err == nil {
			err = spec.Prepare(&rs, catalog)
		}
		var be *bench.Error
		refusedProfile := errors.As(err, &be) && be.Field == "profile"
		if (schemaErr != nil) != refusedProfile || err != nil && !refusedProfile {
			t.Errorf("%s\n  the schema says %v; Prepare says %v", body, schemaErr, err)
		}
	}
}
