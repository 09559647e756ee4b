package analysis

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// A pool is the bound only while requests wait for it with every
// connection lent out; then each connection is held size ÷ throughput.
func TestPoolStage(t *testing.T) {
	stage := bench.StageResult{Index: 1, Name: "c20", Stats: bench.Stats{Throughput: 200}}
	for _, tt := range []struct {
		name          string
		pool          map[string]bench.Gauge
		bound, heldMs float64
	}{
		// 5 connections at 200 req/s: 25 ms each, however stale the active gauge's mean.
		{"full, requests waiting", map[string]bench.Gauge{bench.PoolMax: {Peak: 5, Mean: 5}, bench.PoolActive: {Peak: 5, Mean: 3.8}, bench.PoolPending: {Peak: 15, Mean: 12}}, 200, 25},
		// Never full: the mean active connections say how long each was held.
		{"never full", map[string]bench.Gauge{bench.PoolMax: {Peak: 10, Mean: 10}, bench.PoolActive: {Peak: 6, Mean: 4}}, 0, 20},
		// Full at a peak, but nobody waited on average: not the bound.
		{"full once, no wait", map[string]bench.Gauge{bench.PoolMax: {Peak: 5, Mean: 5}, bench.PoolActive: {Peak: 5, Mean: 4}, bench.PoolPending: {Peak: 2, Mean: 0.3}}, 0, 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := poolStage(bench.StageResources{Stage: 1, Pool: tt.pool}, stage)
			if p.Bound != tt.bound || p.HeldMs != tt.heldMs {
				t.Errorf("bound %v held %v ms, want %v and %v", p.Bound, p.HeldMs, tt.bound, tt.heldMs)
			}
		})
	}
}

func TestPoolSentence(t *testing.T) {
	full := PoolStage{Label: "stage 1 (c20)", Size: 10, Active: bench.Gauge{Peak: 10, Mean: 10}, Pending: bench.Gauge{Peak: 90, Mean: 80},
		AcquireMs: 160, Timeouts: 23, Throughput: 500, Bound: 500, HeldMs: 20, WaitedOf: 80.0 / 90}
	got := poolSentence("orders@virtual", []PoolStage{full})
	for _, want := range []string{"orders@virtual, stage 1 (c20): 89 % of the requests", "one of its 10 connections", "23 gave up waiting", "each held 20.0 ms per request, which allows 500 req/s"} {
		if !strings.Contains(got, want) {
			t.Errorf("sentence %q lacks %q", got, want)
		}
	}
	if got := poolSentence("go", []PoolStage{{Label: "stage 1", Size: 10, Active: bench.Gauge{Peak: 3, Mean: 2}}}); got != "" {
		t.Errorf("a pool nobody waited for is said: %q", got)
	}
}
