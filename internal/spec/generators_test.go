package spec_test

import (
	"errors"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
)

// What a plan split among swarm generators cannot send is refused before
// anything starts, naming the field; one generator is refused nothing.
func TestPrepareGenerators(t *testing.T) {
	fixed := bench.Warmup{Duration: sec(2), Rate: 20}
	tests := []struct {
		name  string
		rs    bench.RunSpec
		field string // "" when it passes
	}{
		{"open with a fixed warm-up", func() bench.RunSpec { s := validSpec(); s.Warmup = fixed; return s }(), ""},
		{"until steady (the default)", validSpec(), "warmup.untilSteady"},
		{"no warm-up", func() bench.RunSpec { s := validSpec(); s.Warmup.Disabled = true; return s }(), ""},
		{"closed, two clients each", func() bench.RunSpec {
			s := closedSpec(bench.Stage{Duration: sec(5), Concurrency: 4})
			s.Warmup = fixed
			return s
		}(), ""},
		{"closed ramp down to none", func() bench.RunSpec {
			s := closedSpec(bench.Stage{Duration: sec(5), Concurrency: 4}, bench.Stage{Duration: sec(5), Ramp: true})
			s.Warmup = fixed
			return s
		}(), ""},
		{"closed, a client short", func() bench.RunSpec {
			s := closedSpec(bench.Stage{Duration: sec(5), Concurrency: 4}, bench.Stage{Duration: sec(5), Concurrency: 1})
			s.Warmup = fixed
			return s
		}(), "profile.stages[1].concurrency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testCatalog(bench.DefaultGuardrails)
			c.Generators = 2
			rs := tt.rs
			err := spec.Prepare(&rs, c)
			var be *bench.Error
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.field != "" && (!errors.As(err, &be) || be.Field != tt.field):
				t.Errorf("error %v, want one on %s", err, tt.field)
			}
			c.Generators = 1
			rs = tt.rs
			if err := spec.Prepare(&rs, c); err != nil {
				t.Errorf("one generator: %v", err)
			}
		})
	}
}
