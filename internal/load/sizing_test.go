package load

import (
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The open model's connections: enough for the highest rate at the
// slowest request's expected latency twice over, the network's part of it
// measured by a handshake when it could be.
func TestOpenConnections(t *testing.T) {
	light := bench.Request{Endpoint: "light", Weight: 1}
	heavy20 := bench.Request{Endpoint: "heavy", Params: map[string]string{"duration": "20"}, Weight: 1}
	plan := func(rate float64, conns int, reqs ...bench.Request) bench.Plan {
		return bench.Plan{
			Workload: bench.Workload{Requests: reqs},
			Profile:  bench.Profile{Model: bench.ModelOpen, Connections: conns, Stages: []bench.Stage{{Duration: bench.Duration(time.Second), Rate: rate}}},
			Warmup:   bench.Warmup{Duration: bench.Duration(time.Second), Rate: 500},
		}
	}
	for _, tc := range []struct {
		name string
		plan bench.Plan
		rtt  time.Duration
		want int
	}{
		// 96,000/s × (2 ms) × 2 + 64: a handshake on loopback is far below 2 ms.
		{"local target", plan(96000, 0, light), 50 * time.Microsecond, 448},
		// 96,000/s × 10 ms × 2 + 64, the guess when nothing was measured.
		{"not measured", plan(96000, 0, light), 0, 1984},
		// 2,000/s × (20 ms slept + 2 ms) × 2 + 64.
		{"slow request", plan(2000, 0, light, heavy20), 50 * time.Microsecond, 152},
		// 2,000/s × (2 × 20 ms) × 2 + 64: a far target's round trips count.
		{"far target", plan(2000, 0, light), 20 * time.Millisecond, 224},
		// The warm-up's rate counts when it is the highest.
		{"warm-up highest", plan(100, 0, light), 50 * time.Microsecond, 66},
		{"the plan's", plan(96000, 300, light), 50 * time.Microsecond, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := NewEngine().openConnections(tc.plan, restLatency(tc.rtt)), min(tc.want, MaxConnections()); got != want {
				t.Errorf("openConnections = %d, want %d", got, want)
			}
		})
	}
}
