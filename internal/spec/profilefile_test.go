package spec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadProfileFile(t *testing.T) {
	want := bench.Profile{
		Name:  "mine",
		Model: bench.ModelClosed,
		Stages: []bench.Stage{
			{Duration: sec(5), Concurrency: 10},
			{Name: "up", Duration: sec(90), Concurrency: 100, Ramp: true},
		},
		Workload: &bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "200"}, Weight: 2}}},
	}
	files := map[string]string{
		"mine.yaml": `
name: mine
model: closed
stages:
  - duration: 5s
    concurrency: 10
  - {name: up, duration: 1m30s, concurrency: 100, ramp: true}
workload:
  requests:
    - endpoint: heavy
      params: {duration: 200}
      weight: 2
`,
		"mine.json": `{"name": "mine", "model": "closed",
  "stages": [{"duration": "5s", "concurrency": 10}, {"name": "up", "duration": "1m30s", "concurrency": 100, "ramp": true}],
  "workload": {"requests": [{"endpoint": "heavy", "params": {"duration": "200"}, "weight": 2}]}}`,
		"mine.profile": `{"name": "mine", "model": "closed",
  "stages": [{"duration": "5s", "concurrency": 10}, {"name": "up", "duration": "1m30s", "concurrency": 100, "ramp": true}],
  "workload": {"requests": [{"endpoint": "heavy", "params": {"duration": "200"}, "weight": 2}]}}`,
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			got, err := spec.ReadProfileFile(writeFile(t, name, content))
			if err != nil {
				t.Fatal(err)
			}
			if a, b := describe(got), describe(want); a != b {
				t.Errorf("read\n%s\nwant\n%s", a, b)
			}
		})
	}
}

func describe(p bench.Profile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", p.Name, p.Model)
	for _, st := range p.Stages {
		fmt.Fprintf(&b, "%q %s c=%d rate=%g ramp=%t\n", st.Name, st.Duration, st.Concurrency, st.Rate, st.Ramp)
	}
	if p.Workload != nil {
		for _, r := range p.Workload.Requests {
			fmt.Fprintf(&b, "%s x%d\n", r.Path(), r.Weight)
		}
	}
	return b.String()
}

func TestReadProfileFileErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		field   string // JSON path as a spec names it ("" when the error has none)
	}{
		// unknown top-level field, YAML
		{"unknown field yaml", "p.yaml", "name: x\nstagez: []\n", "profile.stagez"},
		// unknown field in a stage, JSON
		{"unknown stage field json", "p.json", `{"stages": [{"duration": "1s"}, {"duration": "1s", "rat": 5}]}`, "profile.stages[1].rat"},
		// unknown field in a request
		{"unknown request field", "p.yml", "workload:\n  requests:\n    - endpoint: light\n      wieght: 2\n", "profile.workload.requests[0].wieght"},
		// a duration without unit
		{"bare duration", "p.yaml", "stages:\n  - duration: 30\n    rate: 5\n", "profile.stages[0].duration"},
		// not a number
		{"bad rate", "p.json", `{"stages": [{"duration": "1s", "rate": "fast"}]}`, "profile.stages[0].rate"},
		// stages must be a list of objects
		{"stage not an object", "p.yaml", "stages:\n  - 5\n", "profile.stages[0]"},
		// broken syntax names no field
		{"bad json", "p.json", `{"stages": [`, ""},
		// broken YAML
		{"bad yaml", "p.yaml", "stages: [\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file, tt.content)
			_, err := spec.ReadProfileFile(path)
			if got, want := bench.ErrorCode(err), bench.EINVALID; got != want {
				t.Fatalf("code %q, want %q (err %v)", got, want, err)
			}
			var e *bench.Error
			if !asError(err, &e) {
				t.Fatalf("not a *bench.Error: %v", err)
			}
			t.Log(err)
			if e.Field != tt.field {
				t.Errorf("field %q, want %q (err %v)", e.Field, tt.field, err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
	if _, err := spec.ReadProfileFile(filepath.Join(t.TempDir(), "missing.yaml")); bench.ErrorCode(err) != bench.EINVALID {
		t.Errorf("missing file: %v", err)
	}
}
