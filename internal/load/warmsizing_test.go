package load_test

import (
	"context"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
)

// The open model's connections are capped when the warm-up ends, by its
// measured service time: a request the guess before the clock took for a
// 50 ms one (its duration parameter) answers in well under a millisecond
// here, so 2,000 req/s needs tens of connections, not the 272 made
// (2,000/s × 52 ms × 2 + 64). A profile that names its connections keeps
// them, and a target slower than the guess keeps what was made.
func TestOpenConnectionsFromTheWarmup(t *testing.T) {
	srv := newServer(t, 0)
	srv.byPath = map[string]time.Duration{"/api/heavy": 40 * time.Millisecond}
	guessedSlow := bench.Request{Endpoint: "light", Params: map[string]string{"duration": "50"}, Weight: 1}
	heavy := bench.Request{Endpoint: "heavy", Weight: 1}
	plan := func(req bench.Request, rate float64, conns int) bench.Plan {
		return bench.Plan{
			Workload: workload(req),
			Profile:  bench.Profile{Model: bench.ModelOpen, Connections: conns, Stages: []bench.Stage{{Duration: sec(1), Rate: rate}}},
			Warmup:   bench.Warmup{Duration: sec(0.5), Rate: 400},
		}
	}
	for _, tc := range []struct {
		name     string
		plan     bench.Plan
		min, max int
	}{
		{"fast target", plan(guessedSlow, 2000, 0), 64, 120},
		{"named by the profile", plan(guessedSlow, 2000, 300), 300, 300},
		// 400/s × 2 ms (the guess without a duration, more if the
		// handshake took over a millisecond) × 2 + 64 made, 65 to about
		// 70; the measured 40 ms would want 96: the cap never adds.
		{"slower than the guess", plan(heavy, 400, 0), 65, 90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := load.NewEngine().Run(context.Background(), srv.URL, tc.plan, bench.Observer{})
			if err != nil {
				t.Fatal(err)
			}
			g := res.Stages[0].Generator
			if g == nil {
				t.Fatal("no generator figures")
			}
			t.Logf("%d requests, %d errors; connections %d, server peak in flight %d", res.Total.Requests, res.Total.Requests-res.Total.Successes, g.Connections, srv.peakInFlight())
			if g.Connections < tc.min || g.Connections > tc.max {
				t.Errorf("connections = %d, want %d to %d", g.Connections, tc.min, tc.max)
			}
			if res.Total.Successes != res.Total.Requests {
				t.Errorf("%d of %d requests failed", res.Total.Requests-res.Total.Successes, res.Total.Requests)
			}
		})
	}
}
