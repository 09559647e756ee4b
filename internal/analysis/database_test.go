package analysis

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/dbpool"
)

func TestPoolSentence(t *testing.T) {
	full := dbpool.Stage{Name: "c20", Size: 10, Active: bench.Gauge{Peak: 10, Mean: 10}, Pending: bench.Gauge{Peak: 90, Mean: 80},
		AcquireMs: 160, Timeouts: 23, Throughput: 500, Bound: 500, HeldMs: 20, DatabaseMs: 17.5, WaitedOf: 80.0 / 90}
	got := poolSentence("orders@virtual", []dbpool.Stage{full})
	for _, want := range []string{"orders@virtual, stage 1 (c20): 89 % of the requests", "one of its 10 connections", "23 gave up waiting", "each held 20.0 ms per request (17.5 ms of it in the database, 2.5 in the service), which allows 500 req/s"} {
		if !strings.Contains(got, want) {
			t.Errorf("sentence %q lacks %q", got, want)
		}
	}
	// Timed by the pool: 18 ms held and 2 handed over make the 20 ms round.
	timed := full
	timed.HeldMs, timed.HeldTimed, timed.HandOverMs = 18, true, 2
	if got, want := poolSentence("orders@virtual", []dbpool.Stage{timed}), "each held 18.0 ms per request (17.5 ms of it in the database, 0.5 in the service), "+
		"and handed over to the next in 2.0 ms, which allows 500 req/s"; !strings.Contains(got, want) {
		t.Errorf("sentence %q lacks %q", got, want)
	}
	if got := poolSentence("go", []dbpool.Stage{{Size: 10, Active: bench.Gauge{Peak: 3, Mean: 2}}}); got != "" {
		t.Errorf("a pool nobody waited for is said: %q", got)
	}
}
