package api_test

import (
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/report"
)

// formatKinds are the kinds of internal/report the operations that take a
// format parameter write, by operationId.
var formatKinds = map[string]report.Kind{
	"getReport": report.KindReport,
}

// TestSpecFormats checks that every operation taking a format enumerates
// the registry's formats of its kind, and answers in their media types, so
// that the document and the registry cannot drift apart. The enum's order
// is the document's to choose.
func TestSpecFormats(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	seen := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			param := op.Parameters.GetByInAndName(openapi3.ParameterInQuery, "format")
			if param == nil {
				continue
			}
			seen++
			kind, ok := formatKinds[op.OperationID]
			if !ok {
				t.Errorf("%s %s (%s) takes a format: add its kind to formatKinds", method, path, op.OperationID)
				continue
			}
			var names, mediaTypes []string
			for _, f := range report.Formats(kind) {
				names, mediaTypes = append(names, f.Name), append(mediaTypes, f.MediaType)
			}
			var enum []string
			for _, v := range param.Schema.Value.Enum {
				enum = append(enum, v.(string))
			}
			if !sameSet(enum, names) {
				t.Errorf("%s: format enumerates %v, the registry %v", op.OperationID, enum, names)
			}
			var answered []string
			for mediaType := range op.Responses.Value("200").Value.Content {
				answered = append(answered, mediaType)
			}
			if !sameSet(answered, mediaTypes) {
				t.Errorf("%s: 200 answers %v, the registry's formats are %v", op.OperationID, answered, mediaTypes)
			}
		}
	}
	if seen != len(formatKinds) {
		t.Errorf("%d operations take a format, formatKinds names %d", seen, len(formatKinds))
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
