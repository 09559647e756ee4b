package telemetry_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/telemetry"
)

func TestObserve(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := telemetry.New(reg, func() int { return 3 }, func() bool { return true })
	t0 := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	for _, ev := range []bench.Event{
		{Type: bench.EventTarget, RunID: "r1", Target: "go", Phase: "building", Time: t0},
		{Type: bench.EventTarget, RunID: "r1", Target: "go", Phase: "starting", Time: t0.Add(2 * time.Second)},
		{Type: bench.EventTarget, RunID: "r1", Target: "go", Phase: "checking", Time: t0.Add(2500 * time.Millisecond)},
		{Type: bench.EventSecond, RunID: "r1", Target: "go", Second: &bench.Bucket{Stats: bench.Stats{Requests: 120}}},
		{Type: bench.EventSecond, RunID: "r1", Target: "go", Second: &bench.Bucket{Stats: bench.Stats{Requests: 80}}},
		{Type: bench.EventRun, RunID: "r1", RunStatus: bench.RunRunning},
		{Type: bench.EventRun, RunID: "r1", RunStatus: bench.RunSucceeded},
	} {
		m.Observe(ev)
	}
	want := `
# HELP threadbench_requests_sent_total Measured requests sent to targets, by target.
# TYPE threadbench_requests_sent_total counter
threadbench_requests_sent_total{target="go"} 200
# HELP threadbench_queue_length Runs waiting in the queue, not counting the running one.
# TYPE threadbench_queue_length gauge
threadbench_queue_length 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "threadbench_requests_sent_total", "threadbench_queue_length"); err != nil {
		t.Error(err)
	}
	runs := `
# HELP threadbench_runs_total Runs that reached a final status since the daemon started, by status.
# TYPE threadbench_runs_total counter
threadbench_runs_total{status="canceled"} 0
threadbench_runs_total{status="failed"} 0
threadbench_runs_total{status="interrupted"} 0
threadbench_runs_total{status="succeeded"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(runs), "threadbench_runs_total"); err != nil {
		t.Error(err) // running is not a final status and is not counted
	}
	if got := histogramSum(t, reg, "threadbench_target_build_seconds"); got != 2 {
		t.Errorf("build seconds = %v, want 2", got)
	}
	if got := histogramSum(t, reg, "threadbench_target_start_seconds"); got != 0.5 {
		t.Errorf("start seconds = %v, want 0.5", got)
	}
}

func histogramSum(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetHistogram().GetSampleSum()
		}
	}
	t.Fatalf("no %s", name)
	return 0
}
