package builtin_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
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
	builtins := builtin.Profiles()
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
	p, err := builtin.LookupProfile("seed-k6", 0)
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
	p, err := builtin.LookupProfile("ramp", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Duration().D(), 9*time.Minute; got != want {
		t.Errorf("ramp at scale 1 lasts %s, want %s (the seed's 1m+2m+3m+2m+1m)", got, want)
	}
	if got, want := p.Scale, 1.0; got != want {
		t.Errorf("Scale = %g, want %g", got, want)
	}
	p, err = builtin.LookupProfile("steps", 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Stages[0].Duration.D(), 5*time.Second; got != want {
		t.Errorf("steps at scale 0.5: first stage %s, want %s", got, want)
	}
	// changing a returned profile does not change the built-in
	p.Workload.Requests[0].Params["duration"] = "1"
	again, _ := builtin.LookupProfile("steps", 0)
	if got := again.Workload.Requests[0].Params["duration"]; got == "1" {
		t.Error("LookupProfile returns shared maps")
	}

	_, err = builtin.LookupProfile("nope", 0)
	if got, want := bench.ErrorCode(err), bench.ENOTFOUND; got != want {
		t.Errorf("unknown profile: code %q, want %q", got, want)
	}
	if err != nil && !strings.Contains(err.Error(), "seed-k6") {
		t.Errorf("unknown profile error does not list the names: %v", err)
	}
	_, err = builtin.LookupProfile("smoke", -1)
	if got, want := bench.ErrorCode(err), bench.EINVALID; got != want {
		t.Errorf("negative scale: code %q, want %q", got, want)
	}
}
