package httpapi_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

// TestDecodeSpec checks that request bodies go through the domain's strict
// decoder: every fault names its field, whatever its kind.
func TestDecodeSpec(t *testing.T) {
	for _, tt := range []struct {
		name   string
		body   string
		code   string // "" for success
		field  string
		detail string
	}{
		{name: "OK", body: `{"targets":["go"],"profile":"smoke"}`},
		{name: "UnknownField", body: `{"targets":["go"],"colour":"red"}`, code: bench.EINVALID, field: "colour", detail: "unknown field"},
		{name: "UnknownFieldInProfile", body: `{"profile":{"colour":"red"}}`, code: bench.EINVALID, field: "profile.colour", detail: "unknown field"},
		{name: "Malformed", body: `{"targets":[}`, code: bench.EINVALID, detail: "offset 13"},
		{name: "Truncated", body: `{"targets":[`, code: bench.EINVALID, detail: "not valid JSON"},
		{name: "Trailing", body: `{} []`, code: bench.EINVALID, detail: "offset 4"},
		{name: "Empty", body: ``, code: bench.EINVALID, detail: "empty"},
		{name: "WrongType", body: `{"limits":{"cpus":"two"}}`, code: bench.EINVALID, field: "limits.cpus", detail: "must be a number"},
		{name: "NotAnObject", body: `[1]`, code: bench.EINVALID, detail: "must be an object"},
		{name: "BadDuration", body: `{"workload":{"timeout":"soon"}}`, code: bench.EINVALID, field: "workload.timeout", detail: `invalid duration "soon"`},
		{name: "NumericDuration", body: `{"workload":{"timeout":30}}`, code: bench.EINVALID, field: "workload.timeout", detail: "must be a string"},
		// numbers beyond what the field can hold name the field, never overflow
		{name: "HugeConcurrency", body: `{"profile":{"stages":[{"duration":"1s","concurrency":9223372036854775808}]}}`, code: bench.EINVALID, field: "profile.stages[0].concurrency", detail: "must be an integer from"},
		{name: "InfiniteRate", body: `{"profile":{"stages":[{"duration":"1s","rate":1e400}]}}`, code: bench.EINVALID, field: "profile.stages[0].rate", detail: "finite"},
		{name: "HugeDuration", body: `{"profile":{"stages":[{"duration":"9999999999h"}]}}`, code: bench.EINVALID, field: "profile.stages[0].duration", detail: "invalid duration"},
		{name: "DuplicateKey", body: `{"name":"a","name":"b"}`, code: bench.EINVALID, detail: "appears twice"},
		// null is not a value of any field but those the spec declares nullable
		{name: "NullString", body: `{"targets":["go"],"java":{"gc":null}}`, code: bench.EINVALID, field: "java.gc", detail: "must not be null"},
		{name: "NullObject", body: `{"targets":["go"],"limits":null}`, code: bench.EINVALID, field: "limits", detail: "must not be null"},
		{name: "NullProfile", body: `{"targets":["go"],"profile":null}`, code: bench.EINVALID, field: "profile", detail: "must not be null"},
		{name: "NullItem", body: `{"targets":[null]}`, code: bench.EINVALID, field: "targets[0]", detail: "must not be null"},
		{name: "NullStage", body: `{"profile":{"stages":[{"duration":"1s"},null]}}`, code: bench.EINVALID, field: "profile.stages[1]", detail: "must not be null"},
		{name: "NullParam", body: `{"workload":{"requests":[{"endpoint":"heavy","params":{"duration":null}}]}}`, code: bench.EINVALID,
			field: "workload.requests[0].params.duration", detail: "must not be null"},
		// a boolean is true or false, not 0 or 1 or "true"
		{name: "NumberForBoolean", body: `{"targets":["go"],"warmup":{"disabled":0}}`, code: bench.EINVALID, field: "warmup.disabled", detail: "must be true or false, got 0"},
		{name: "StringForBoolean", body: `{"profile":{"stages":[{"duration":"1s","ramp":"true"}]}}`, code: bench.EINVALID, field: "profile.stages[0].ramp", detail: "must be true or false"},
		// null is never "left out": leave the field out instead
		{name: "NullRequests", body: `{"targets":["go"],"profile":"smoke","workload":{"requests":null}}`, code: bench.EINVALID, field: "workload.requests", detail: "must not be null"},
		{name: "NullUnknownField", body: `{"targets":["go"],"colour":null}`, code: bench.EINVALID, field: "colour", detail: "unknown field"},
		// a service of one's own is defined by the daemon's configuration, never by a request
		{name: "Jar", body: `{"targets":["go"],"jar":"/tmp/app.jar"}`, code: bench.EINVALID, field: "jar", detail: "never taken from a request"},
		{name: "Image", body: `{"targets":["go"],"image":"busybox"}`, code: bench.EINVALID, field: "image", detail: "never taken from a request"},
		{name: "Dockerfile", body: `{"targets":["go"],"dockerfile":"/srv/app"}`, code: bench.EINVALID, field: "dockerfile", detail: "never taken from a request"},
		// a request of one's own with its header, as the CLI sends a vegeta targets file's
		{name: "Header", body: `{"targets":["go"],"workload":{"requests":[{"uri":"/orders","method":"POST","header":{"Content-Type":["application/json"]},"body":"{}"}]}}`},
		{name: "HeaderNotList", body: `{"targets":["go"],"workload":{"requests":[{"uri":"/orders","header":{"Content-Type":"application/json"}}]}}`, code: bench.EINVALID,
			field: "workload.requests[0].header.Content-Type", detail: "must be a list"},
		// labels, the user's own words
		{name: "Labels", body: `{"targets":["go"],"labels":{"branch":"main","build":"81"}}`},
		{name: "TabsAndEscapes", body: "{\n\t\"name\": \"caf\\u00e9 \\/ bar\",\n\t\"targets\": [\"go\"]\n}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/runs", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			_, err := httpapi.DecodeSpec(req)
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
