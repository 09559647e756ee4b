package bench_test

import (
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// A plan's shares add up to the plan: the open rates (warm-up included)
// and the closed clients, each client dealt to one generator.
func TestPlanShareOf(t *testing.T) {
	open := bench.Plan{
		Profile: bench.Profile{Model: bench.ModelOpen, Connections: 100, Stages: []bench.Stage{hold(5, 300), ramp(5, 10)}},
		Warmup:  bench.Warmup{Duration: sec(2), Rate: 30},
	}
	for _, n := range []int{1, 3} {
		var rates [2]float64
		var warm float64
		for i := range n {
			s := open.ShareOf(bench.Share{Index: i, Of: n})
			for k, st := range s.Profile.Stages {
				rates[k] += st.Rate
			}
			warm += s.Warmup.Rate
			if got, want := s.Profile.Connections, (100+n-1)/n; got != want {
				t.Errorf("%d shares: %d connections each, want %d", n, got, want)
			}
			if s.Profile.Stages[1].Ramp != true || s.Share.Of != n && n > 1 {
				t.Errorf("%d shares: share %d lost a ramp or its share: %+v", n, i, s)
			}
		}
		if rates[0] < 300-1e-9 || rates[0] > 300+1e-9 || rates[1] < 10-1e-9 || rates[1] > 10+1e-9 || warm < 30-1e-9 || warm > 30+1e-9 {
			t.Errorf("%d shares add up to rates %v and a warm-up at %g, want [300 10] and 30", n, rates, warm)
		}
	}
	closed := bench.Plan{Profile: bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(5), Concurrency: 10}}}}
	var clients []int
	for i := range 4 {
		clients = append(clients, closed.ShareOf(bench.Share{Index: i, Of: 4}).Profile.Stages[0].Concurrency)
	}
	if want := []int{3, 3, 2, 2}; !equalInts(clients, want) {
		t.Errorf("10 clients among 4 generators: %v, want %v", clients, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
