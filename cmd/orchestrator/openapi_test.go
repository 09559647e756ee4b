package main

import (
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
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
		refs = append(refs, info.Name)
		for _, v := range info.Variants {
			refs = append(refs, info.Name+"@"+v)
		}
	}
	if got := strs(runSpec.Properties["targets"].Value.Items.Value.Enum); !slices.Equal(got, refs) {
		t.Errorf("targets enum = %v, want the built-in catalog's %v", got, refs)
	}

	if got, want := strs(runSpec.Properties["profile"].Value.OneOf[0].Value.Enum), bench.BuiltinNames(); !slices.Equal(got, want) {
		t.Errorf("profile enum = %v, want the built-in profiles %v", got, want)
	}

	var closed []string
	for _, p := range bench.Builtins() {
		if p.Model == bench.ModelClosed {
			closed = append(closed, p.Name)
		}
	}
	iterationBranch := runSpec.AnyOf[1].Value.Properties["profile"].Value.AnyOf[0].Value
	if got := strs(iterationBranch.Enum); !slices.Equal(got, closed) {
		t.Errorf("closed profiles for an iteration = %v, want %v", got, closed)
	}
}
