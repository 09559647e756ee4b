package bench_test

import (
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// A warm-up until steady holds the first stage's end load, or a share of
// it: a rate never below the least a spec may ask, clients at least one.
func TestWarmupSteadyStage(t *testing.T) {
	longest := bench.Duration(time.Minute)
	open := bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: bench.Duration(time.Second), Rate: 400, Ramp: true}, {Rate: 9}}}
	closed := bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: bench.Duration(time.Second), Concurrency: 50}}}
	for _, tt := range []struct {
		p        bench.Profile
		fraction float64
		rate     float64
		clients  int
	}{
		{open, 0, 400, 0}, {open, 1, 400, 0}, {open, 0.25, 100, 0}, {open, 1e-9, bench.MinRate, 0},
		{closed, 0, 0, 50}, {closed, 0.5, 0, 25}, {closed, 0.001, 0, 1},
	} {
		st := bench.Warmup{UntilSteady: true, MaxDuration: longest, Fraction: tt.fraction}.SteadyStage(tt.p)
		if st.Rate != tt.rate || st.Concurrency != tt.clients || st.Ramp || st.Duration != longest || st.Name != bench.WarmupName {
			t.Errorf("%s at %g: %+v, want rate %g, %d clients, held %s", tt.p.Model, tt.fraction, st, tt.rate, tt.clients, longest)
		}
	}
}
