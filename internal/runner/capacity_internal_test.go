package runner

import (
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
)

// Each target's search gets, as it starts, what the searches before it
// left of the run's budget, evenly among the targets from it on: one that
// needed less leaves its time to the others, and nothing but the searches
// (no build, start or warm-up) is charged.
func TestShareBudget(t *testing.T) {
	t.Parallel()
	searched := func(spent time.Duration) bench.TargetResult {
		return bench.TargetResult{Capacity: &bench.CapacityResult{Spent: bench.Duration(spent)}}
	}
	for _, tt := range []struct {
		name    string
		budget  time.Duration
		targets []bench.TargetResult
		want    []time.Duration // each target's share, given those before it
	}{
		{"three on five minutes, each using its share", 5 * time.Minute,
			[]bench.TargetResult{searched(100 * time.Second), searched(100 * time.Second), {}},
			[]time.Duration{100 * time.Second, 100 * time.Second, 100 * time.Second}},
		{"the first needed 40 s, the second failed before its search: the last gets the rest", 5 * time.Minute,
			[]bench.TargetResult{searched(40 * time.Second), {}, {}},
			[]time.Duration{100 * time.Second, 130 * time.Second, 260 * time.Second}},
		{"no budget: the default for each", 0,
			[]bench.TargetResult{searched(capacity.DefaultBudget), {}},
			[]time.Duration{capacity.DefaultBudget, capacity.DefaultBudget}},
	} {
		spec := bench.CapacitySpec{Objective: "p99<=300ms", Budget: bench.Duration(tt.budget)}
		run := &bench.Run{Spec: bench.RunSpec{Capacity: &spec}, Targets: tt.targets}
		cfg, err := capacity.FromSpec(spec, len(run.Targets))
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tt.want {
			if got := shareBudget(cfg, run, &run.Targets[i]).Budget.D(); got != want {
				t.Errorf("%s: target %d gets %s, want %s", tt.name, i, got, want)
			}
		}
	}
}

// A trial's last full second is what its target answered at the end: the
// warm-up's seconds (before 0) and a last second the stage's end cut
// short are not it.
func TestLastFullSecond(t *testing.T) {
	second := func(at int, answered float64, elapsed time.Duration) bench.Bucket {
		return bench.Bucket{Second: at, Stats: bench.Stats{Throughput: answered, Elapsed: bench.Duration(elapsed)}}
	}
	for _, tc := range []struct {
		name    string
		seconds []bench.Bucket
		want    float64
	}{
		{"caught up", []bench.Bucket{second(0, 623, time.Second), second(1, 684, time.Second), second(2, 837, time.Second)}, 837},
		{"cut short", []bench.Bucket{second(0, 623, time.Second), second(1, 684, time.Second), second(2, 90, 100*time.Millisecond)}, 684},
		{"warm-up only", []bench.Bucket{second(-2, 50, time.Second), second(-1, 50, time.Second)}, 0},
		{"none", nil, 0},
	} {
		if got := lastFullSecond(tc.seconds); got != tc.want {
			t.Errorf("%s: %g, want %g", tc.name, got, tc.want)
		}
	}
}
