package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

func durations(p bench.Profile) []time.Duration {
	var ds []time.Duration
	for _, st := range p.Stages {
		ds = append(ds, st.Duration.D())
	}
	return ds
}

func TestBuiltins(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		model     bench.Model
		durations []time.Duration
		values    []int // rate (open) or concurrency (closed) per stage
		ramps     bool
	}{
		{"smoke", bench.ModelOpen, []time.Duration{10 * s}, []int{50}, false},
		{"ramp", bench.ModelOpen, []time.Duration{6 * s, 12 * s, 18 * s, 12 * s, 6 * s}, []int{100, 300, 500, 300, 0}, true},
		{"steps", bench.ModelClosed, []time.Duration{10 * s, 10 * s, 10 * s, 10 * s, 10 * s, 10 * s}, []int{16, 32, 64, 128, 256, 512}, false},
		{"seed-k6", bench.ModelClosed, []time.Duration{6 * s, 12 * s, 18 * s, 12 * s, 6 * s}, []int{100, 300, 500, 300, 0}, true},
		{"demo-heavy", bench.ModelClosed, []time.Duration{5 * s, 10 * s, 10 * s}, []int{50, 200, 400}, false},
	}
	builtins := bench.Builtins()
	if got, want := len(builtins), len(tests); got != want {
		t.Fatalf("%d built-in profiles, want %d", got, want)
	}
	for i, tt := range tests {
		p := builtins[i]
		if p.Name != tt.name || p.Model != tt.model {
			t.Errorf("built-in %d = %s (%s), want %s (%s)", i, p.Name, p.Model, tt.name, tt.model)
		}
		if got := durations(p); !slices.Equal(got, tt.durations) {
			t.Errorf("%s: stage durations %v, want %v", p.Name, got, tt.durations)
		}
		for j, st := range p.Stages {
			got := int(st.Rate) + st.Concurrency
			if got != tt.values[j] || st.Ramp != tt.ramps {
				t.Errorf("%s stage %d: value %d ramp %t, want %d ramp %t", p.Name, j, got, st.Ramp, tt.values[j], tt.ramps)
			}
		}
		if p.Workload == nil || len(p.Workload.Requests) == 0 {
			t.Errorf("%s has no default workload", p.Name)
		}
	}
}

func TestSeedK6Workload(t *testing.T) {
	p, err := bench.LookupProfile("seed-k6", 0)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range p.Workload.Requests {
		paths = append(paths, r.Path())
	}
	if got, want := strings.Join(paths, " "), "/api/heavy?duration=500 /api/light"; got != want {
		t.Errorf("seed-k6 workload = %s, want %s", got, want)
	}
}

func TestLookupProfile(t *testing.T) {
	p, err := bench.LookupProfile("ramp", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Duration().D(), 9*time.Minute; got != want {
		t.Errorf("ramp at scale 1 lasts %s, want %s (the seed's 1m+2m+3m+2m+1m)", got, want)
	}
	if got, want := p.Scale, 1.0; got != want {
		t.Errorf("Scale = %g, want %g", got, want)
	}
	p, err = bench.LookupProfile("steps", 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Stages[0].Duration.D(), 5*time.Second; got != want {
		t.Errorf("steps at scale 0.5: first stage %s, want %s", got, want)
	}
	// changing a returned profile does not change the built-in
	p.Workload.Requests[0].Params["duration"] = "1"
	again, _ := bench.LookupProfile("steps", 0)
	if got := again.Workload.Requests[0].Params["duration"]; got == "1" {
		t.Error("LookupProfile returns shared maps")
	}

	_, err = bench.LookupProfile("nope", 0)
	if got, want := bench.ErrorCode(err), bench.ENOTFOUND; got != want {
		t.Errorf("unknown profile: code %q, want %q", got, want)
	}
	if err != nil && !strings.Contains(err.Error(), "seed-k6") {
		t.Errorf("unknown profile error does not list the names: %v", err)
	}
	_, err = bench.LookupProfile("smoke", -1)
	if got, want := bench.ErrorCode(err), bench.EINVALID; got != want {
		t.Errorf("negative scale: code %q, want %q", got, want)
	}
}

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
			got, err := bench.ReadProfileFile(writeFile(t, name, content))
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
			_, err := bench.ReadProfileFile(path)
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
	if _, err := bench.ReadProfileFile(filepath.Join(t.TempDir(), "missing.yaml")); bench.ErrorCode(err) != bench.EINVALID {
		t.Errorf("missing file: %v", err)
	}
}
