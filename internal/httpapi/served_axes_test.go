package httpapi_test

import (
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

// A service's variants on several axes are each one value of the served
// document's targets, their commas inside.
func TestServesVariantsOnAxes(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) {
		c.Targets = []bench.TargetInfo{{Name: "mine", Variants: []string{"platform,jdk=21", "virtual,jdk=21"}}}
	})
	resp := e.do(t, "GET", "/openapi.yaml", "")
	doc, err := openapi3.NewLoader().LoadFromData(resp.body)
	if err != nil {
		t.Fatalf("served document: %v", err)
	}
	var refs []string
	for _, v := range doc.Components.Schemas["RunSpec"].Value.Properties["targets"].Value.Items.Value.Enum {
		refs = append(refs, v.(string))
	}
	if want := []string{"mine", "mine@platform,jdk=21", "mine@virtual,jdk=21"}; !slices.Equal(refs, want) {
		t.Errorf("targets enum = %q, want %q", refs, want)
	}
}
