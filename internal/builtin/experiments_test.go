package builtin_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
)

// Seed 001's arithmetic: 200 workers serve one wave of 200 before a 5 s
// timeout, so 200 of 1,000 unbounded calls succeed; a pool of 100 gets
// them all in 10 waves of 3 s.
func TestFanoutModel(t *testing.T) {
	s, tmo := 3*time.Second, 5*time.Second
	for _, tt := range []struct {
		name    string
		model   builtin.FanoutModel
		success float64
		took    time.Duration
	}{
		{"seed: unbounded, 200 workers", builtin.FanoutModel{Calls: 1000, Mode: bench.ModeVirtual, Workers: 200, Service: s, Timeout: tmo}, 0.2, tmo},
		{"seed: unbounded, 400 workers", builtin.FanoutModel{Calls: 1000, Mode: bench.ModeGoroutines, Workers: 400, Service: s, Timeout: tmo}, 0.4, tmo},
		{"seed: pool(100)", builtin.FanoutModel{Calls: 1000, Limit: 100, Mode: bench.ModePool, Workers: 200, Service: s, Timeout: tmo}, 1, 30 * time.Second},
		{"seed: semaphore(100)", builtin.FanoutModel{Calls: 1000, Limit: 100, Mode: bench.ModeSemaphore, Workers: 200, Service: s, Timeout: tmo}, 1, 30 * time.Second},
		{"issue's test: 200 calls, 40 workers, 1.6 s", builtin.FanoutModel{Calls: 200, Mode: bench.ModeUnbounded, Workers: 40, Service: time.Second, Timeout: 1600 * time.Millisecond}, 0.2, 1600 * time.Millisecond},
		{"a timeout of two waves lets two waves through", builtin.FanoutModel{Calls: 1000, Mode: bench.ModeVirtual, Workers: 200, Service: s, Timeout: 7 * time.Second}, 0.4, 7 * time.Second},
		{"fewer calls than workers", builtin.FanoutModel{Calls: 100, Mode: bench.ModeVirtual, Workers: 200, Service: s, Timeout: tmo}, 1, s},
		{"a pool wider than the callee", builtin.FanoutModel{Calls: 1000, Limit: 500, Mode: bench.ModePool, Workers: 200, Service: s, Timeout: tmo}, 0.4, 2 * tmo},
	} {
		success, took := tt.model.Expect()
		if math.Abs(success-tt.success) > 1e-9 || took != tt.took {
			t.Errorf("%s: %.3f in %s, want %.3f in %s", tt.name, success, took, tt.success, tt.took)
		}
	}
}

func TestLookupExperiment(t *testing.T) {
	if _, err := builtin.LookupExperiment("seed-002"); err != nil {
		t.Fatal(err)
	}
	_, err := builtin.LookupExperiment("nope")
	if bench.ErrorCode(err) != bench.ENOTFOUND || !strings.Contains(err.Error(), "seed-004") {
		t.Errorf("unknown experiment: %v, want not found listing the names", err)
	}
}
