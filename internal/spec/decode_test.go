package spec_test

import (
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
)

// The one decoder reads YAML and JSON alike: each row is written both ways
// and must fail on the same field, saying the same thing, with its line.
func TestDecodeSpecFaults(t *testing.T) {
	for _, tt := range []struct {
		name       string
		yaml, json string
		field      string
		says       string
		line       int
	}{
		{"unknown top-level field", "targets: [go]\nthreads: 5\n", "{\"targets\": [\"go\"],\n\"threads\": 5}",
			"threads", "unknown field; known fields: ", 2},
		{"unknown nested field", "profile:\n  stages:\n    - duration: 5s\n      rat: 2\n", `{"profile": {"stages": [{"duration": "5s", "rat": 2}]}}`,
			"profile.stages[0].rat", "unknown field", 0},
		{"number as a string", "limits:\n  cpus: two\n", `{"limits": {"cpus": "two"}}`, "limits.cpus", "must be a number", 0},
		{"bare duration", "warmup:\n  duration: 30\n", `{"warmup": {"duration": 30}}`, "warmup.duration", `must be a string such as "30s"`, 0},
		{"bad duration", "workload:\n  timeout: soon\n", `{"workload": {"timeout": "soon"}}`, "workload.timeout", `invalid duration "soon"`, 0},
		{"integer overflow", "profile:\n  stages:\n    - concurrency: 9223372036854775808\n",
			`{"profile": {"stages": [{"concurrency": 9223372036854775808}]}}`, "profile.stages[0].concurrency", "must be an integer from", 0},
		{"fraction for an integer", "java:\n  tomcatMaxThreads: 1.5\n", `{"java": {"tomcatMaxThreads": 1.5}}`, "java.tomcatMaxThreads", "must be an integer", 0},
		{"infinite rate", "profile:\n  stages:\n    - rate: .inf\n", `{"profile": {"stages": [{"rate": 1e400}]}}`, "profile.stages[0].rate", "finite", 0},
		{"list for an object", "limits: [1]\n", `{"limits": [1]}`, "limits", "must be an object, got a list", 0},
		{"object for a list", "targets: {go: 1}\n", `{"targets": {"go": 1}}`, "targets", "must be a list, got an object", 0},
		{"number for a string", "name: 5\n", `{"name": 5}`, "name", "must be a string", 0},
		{"nested param", "workload:\n  requests:\n    - endpoint: heavy\n      params: {duration: [1]}\n",
			`{"workload": {"requests": [{"endpoint": "heavy", "params": {"duration": [1]}}]}}`, "workload.requests[0].params.duration", "string or an integer", 0},
		// A label or a parameter is text or an integer: not a boolean, not a
		// fraction (schemathesis: a label of false was taken as "false").
		{"boolean label", "labels: {ok: false}\n", `{"labels": {"ok": false}}`, "labels.ok", "must be a string or an integer, got false", 0},
		{"fraction param", "workload:\n  requests:\n    - endpoint: heavy\n      params: {duration: 1.5}\n",
			`{"workload": {"requests": [{"endpoint": "heavy", "params": {"duration": 1.5}}]}}`, "workload.requests[0].params.duration", "string or an integer, got 1.5", 0},
		{"profile neither name nor object", "profile: 5\n", `{"profile": 5}`, "profile", "built-in profile's name or a profile object", 0},
	} {
		for format, doc := range map[string]string{"yaml": tt.yaml, "json": tt.json} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				_, err := spec.Decode([]byte(doc), "spec."+format)
				var e *bench.Error
				if !asError(err, &e) {
					t.Fatalf("DecodeSpec = %v, want a *bench.Error", err)
				}
				if e.Code != bench.EINVALID || e.Field != tt.field || !strings.Contains(e.Message, tt.says) {
					t.Errorf("got %s %q %q, want field %q saying %q", e.Code, e.Field, e.Message, tt.field, tt.says)
				}
				if !strings.Contains(e.Message, "spec."+format+" line") {
					t.Errorf("message %q does not say where", e.Message)
				}
				if tt.line > 0 && !strings.Contains(e.Message, "line "+string(rune('0'+tt.line))) {
					t.Errorf("message %q, want line %d", e.Message, tt.line)
				}
			})
		}
	}
}

func TestDecodeSpecDocuments(t *testing.T) {
	for _, tt := range []struct {
		name, doc, says string
	}{
		{"empty", "", "empty document"},
		{"only a comment", "# nothing\n", "empty document"},
		{"malformed JSON", `{"targets": [}`, "not valid JSON at offset"},
		{"trailing JSON", `{"targets": []} {}`, "offset"},
		{"malformed YAML", "targets: [go\n", "not valid YAML"},
		{"duplicate JSON key", `{"name": "a", "name": "b"}`, `"name" appears twice`},
		{"duplicate YAML key", "name: a\nname: b\n", `"name" appears twice`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := spec.Decode([]byte(tt.doc), "x")
			if bench.ErrorCode(err) != bench.EINVALID || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("DecodeSpec = %v, want EINVALID saying %q", err, tt.says)
			}
		})
	}
}

// Both formats give the same spec; numbers in query parameters become
// their text, JSON's escapes and tab indentation are JSON's, and YAML's
// anchors resolve.
func TestDecodeSpecSameFromBothFormats(t *testing.T) {
	yamlDoc := `name: café / bar
targets: [go, java-virtual@21]
profile:
  model: closed
  stages:
    - &s {duration: 1m30s, concurrency: 50, ramp: true}
    - *s
workload:
  requests:
    - {endpoint: heavy, params: {duration: 500}, weight: 2}
  timeout: 5s
warmup: {disabled: true}
limits: {cpus: 1.5, memoryMiB: 512}
java: {gc: ZGC, heapPercent: .5}
`
	jsonDoc := "{\n\t\"name\": \"caf\\u00e9 \\/ bar\",\n\t\"targets\": [\"go\", \"java-virtual@21\"],\n" +
		"\t\"profile\": {\"model\": \"closed\", \"stages\": [{\"duration\": \"1m30s\", \"concurrency\": 50, \"ramp\": true}, {\"duration\": \"1m30s\", \"concurrency\": 50, \"ramp\": true}]},\n" +
		"\t\"workload\": {\"requests\": [{\"endpoint\": \"heavy\", \"params\": {\"duration\": 500}, \"weight\": 2}], \"timeout\": \"5s\"},\n" +
		"\t\"warmup\": {\"disabled\": true}, \"limits\": {\"cpus\": 1.5, \"memoryMiB\": 512}, \"java\": {\"gc\": \"ZGC\", \"heapPercent\": 0.5}\n}"
	fromYAML, err := spec.Decode([]byte(yamlDoc), "spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := spec.Decode([]byte(jsonDoc), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []bench.RunSpec{fromYAML, fromJSON} {
		if s.Name != "café / bar" || len(s.Profile.Stages) != 2 || s.Profile.Stages[1].Duration.D() != 90*time.Second ||
			s.Workload.Requests[0].Params["duration"] != "500" || s.Limits.CPUs != 1.5 || !s.Warmup.Disabled || s.Java.GC != "ZGC" || s.Java.HeapPercent != 0.5 {
			t.Errorf("decoded %+v", s)
		}
	}
	if a, b := describeSpec(fromYAML), describeSpec(fromJSON); a != b {
		t.Errorf("the formats decode differently:\nyaml %s\njson %s", a, b)
	}
}

func describeSpec(s bench.RunSpec) string {
	var b strings.Builder
	for _, st := range s.Profile.Stages {
		b.WriteString(st.Duration.String() + " ")
	}
	b.WriteString(s.Name + " " + strings.Join(s.Targets, ",") + " " + s.Workload.Requests[0].Path() + " " + s.Workload.Timeout.String())
	return b.String()
}

func TestDecodeProfileByName(t *testing.T) {
	rs, err := spec.Decode([]byte(`{"targets":["go"],"profile":"smoke"}`), "body")
	if err != nil || rs.Profile.Name != "smoke" || len(rs.Profile.Stages) != 0 {
		t.Fatalf("profile by name: %+v, %v", rs.Profile, err)
	}
}

// Runs stored before resources were keyed by kind still read.
func TestStageResourcesLegacyDocument(t *testing.T) {
	var r bench.StageResources
	doc := `{"stage":1,"peakPlatformThreads":210,"meanPlatformThreads":200,"peakGoroutines":45,"peakWorkingSetBytes":1048576,"peakThreadStackBytes":2048,"cpuSecondsPer1k":0.3}`
	if err := jsonUnmarshal(doc, &r); err != nil {
		t.Fatal(err)
	}
	if r.Thread(bench.ThreadPlatform) != (bench.Gauge{Peak: 210, Mean: 200}) || r.Thread(bench.ThreadGoroutine).Peak != 45 ||
		r.MemoryGauge(bench.MemoryWorkingSet).Peak != 1<<20 || r.MemoryGauge(bench.MemoryThreadStacks).Peak != 2048 ||
		r.CPUSecondsPer1k != 0.3 || r.Stage != 1 {
		t.Errorf("legacy document read as %+v", r)
	}
	if _, ok := r.Threads[bench.ThreadVirtual]; ok {
		t.Error("a figure the legacy document did not have appeared")
	}
}

// null means "left out" only where a value may be missing; booleans are
// true or false, not numbers or words.
func TestDecodeNullAndBooleans(t *testing.T) {
	for _, tt := range []struct{ doc, field, says string }{
		{`{"name": null}`, "name", "must not be null"},
		{`{"warmup": {"disabled": 1}}`, "warmup.disabled", "true or false"},
		{`{"warmup": {"disabled": "true"}}`, "warmup.disabled", "true or false"},
		{"warmup:\n  disabled: yes\n", "warmup.disabled", "true or false"},
		{`{"profile": {"stages": [{"duration": "5s", "rate": null}]}}`, "profile.stages[0].rate", "must not be null"},
	} {
		_, err := spec.Decode([]byte(tt.doc), "x")
		var e *bench.Error
		if !asError(err, &e) || e.Field != tt.field || !strings.Contains(e.Message, tt.says) {
			t.Errorf("%s: %v, want %s saying %q", tt.doc, err, tt.field, tt.says)
		}
	}
	for _, doc := range []string{`{"targets": null}`, `{"workload": {"requests": null}}`, `{"downstream": null}`, "targets:\n"} {
		if _, err := spec.Decode([]byte(doc), "x"); err == nil || !strings.Contains(err.Error(), "must not be null") {
			t.Errorf("%q: %v, want null refused", doc, err)
		}
	}
}
