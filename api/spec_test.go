package api_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
)

// TestSpecIsValid loads the embedded document and validates it, examples
// included, so that a broken contract fails here rather than at start-up.
func TestSpecIsValid(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if got, want := doc.OpenAPI, "3.0.3"; got != want {
		t.Errorf("openapi = %q, want %q", got, want)
	}
}

// TestSpecProblemResponses checks that every operation lists its errors as
// problem documents, including the 500 every handler can answer.
func TestSpecProblemResponses(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Responses.Value("500") == nil {
				t.Errorf("%s %s: no 500 response", method, path)
			}
			for status, resp := range op.Responses.Map() {
				if status[0] != '4' && status[0] != '5' {
					continue
				}
				if resp.Value.Content.Get("application/problem+json") == nil {
					t.Errorf("%s %s %s: not application/problem+json", method, path, status)
				}
			}
		}
	}
}

// TestSpecVocabulary checks that the document's enumerations are the
// domain's own: one endpoint table, one list of phases, one registry of
// load models.
func TestSpecVocabulary(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	schemas := doc.Components.Schemas
	var phases []string
	for _, p := range bench.Phases {
		phases = append(phases, string(p))
	}
	for _, tc := range []struct {
		name string
		enum []any
		want []string
	}{
		{"Request.endpoint", schemas["Request"].Value.Properties["endpoint"].Value.Enum, bench.EndpointNames()},
		{"Event.phase", schemas["Event"].Value.Properties["phase"].Value.Enum, phases},
		{"RunStatus", schemas["RunStatus"].Value.Enum, statuses()},
		{"Model", schemas["Model"].Value.Enum, models()},
	} {
		got := make([]string, len(tc.enum))
		for i, v := range tc.enum {
			got[i] = fmt.Sprint(v)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s enumerates %v, the domain %v", tc.name, got, tc.want)
		}
	}
}

func models() []string {
	var out []string
	for _, m := range bench.ModelNames() {
		out = append(out, string(m))
	}
	return out
}

func statuses() []string {
	var out []string
	for _, s := range bench.RunStatuses {
		out = append(out, string(s))
	}
	return out
}
