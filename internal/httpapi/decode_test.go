package httpapi_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

// TestDecodeJSON checks the strict decoder behind the spec's validation.
func TestDecodeJSON(t *testing.T) {
	for _, tt := range []struct {
		name   string
		body   string
		code   string // "" for success
		field  string
		detail string
	}{
		{name: "OK", body: `{"targets":["go"],"profile":"smoke"}`},
		{name: "UnknownField", body: `{"targets":["go"],"colour":"red"}`, code: bench.EINVALID, field: "colour", detail: "unknown field"},
		{name: "UnknownFieldInProfile", body: `{"profile":{"colour":"red"}}`, code: bench.EINVALID, field: "colour", detail: "unknown field"},
		{name: "Malformed", body: `{"targets":[}`, code: bench.EINVALID, detail: "offset 13"},
		{name: "Truncated", body: `{"targets":[`, code: bench.EINVALID, detail: "malformed JSON"},
		{name: "Trailing", body: `{} []`, code: bench.EINVALID, detail: "offset 2"},
		{name: "Empty", body: ``, code: bench.EINVALID, detail: "empty"},
		{name: "WrongType", body: `{"limits":{"cpus":"two"}}`, code: bench.EINVALID, field: "limits.cpus", detail: "must be a number"},
		{name: "NotAnObject", body: `[1]`, code: bench.EINVALID, detail: "must be an object"},
		{name: "BadDuration", body: `{"workload":{"timeout":"soon"}}`, code: bench.EINVALID, detail: `invalid duration "soon"`},
		{name: "NumericDuration", body: `{"workload":{"timeout":30}}`, code: bench.EINVALID, detail: "duration must be a string"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var spec bench.RunSpec
			err := httpapi.DecodeJSON(httptest.NewRequest("POST", "/runs", strings.NewReader(tt.body)), &spec)
			if got, want := bench.ErrorCode(err), tt.code; got != want {
				t.Fatalf("code = %q, want %q (err %v)", got, want, err)
			}
			if err == nil {
				return
			}
			be := err.(*bench.Error)
			if got, want := be.Field, tt.field; got != want {
				t.Errorf("field = %q, want %q (%v)", got, want, err)
			}
			if !strings.Contains(be.Message, tt.detail) {
				t.Errorf("message = %q, want it to contain %q", be.Message, tt.detail)
			}
		})
	}
}
