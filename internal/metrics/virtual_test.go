package metrics_test

import (
	"reflect"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

// A service of one's own with Micrometer's VirtualThreadMetrics: its pins
// and failed submits as deltas over each stage, and on JDK 24 and later
// the scheduler's parallelism, pool size and queue as gauges.
func TestSummarize_VirtualThreadMetrics(t *testing.T) {
	got := metrics.Summarize([]bench.Series{
		series("jvm_threads_virtual_pinned_seconds_count", nil, 0, 10, func(t float64) float64 { return 4 * t }),
		series("jvm_threads_virtual_pinned_seconds_sum", nil, 0, 10, func(t float64) float64 { return 0.1 * t }),
		series("jvm_threads_virtual_submit_failed_total", nil, 0, 10, func(t float64) float64 { return float64(int(t) / 5) }),
		series("jvm_threads_virtual_parallelism", nil, 0, 10, constant(1)),
		series("jvm_threads_virtual_pool_size_threads", nil, 0, 10, func(t float64) float64 { return 1 + float64(int(t)/5) }),
		series("jvm_threads_virtual_live_threads", map[string]string{"scheduling_status": "queued"}, 0, 10, func(t float64) float64 { return 10 * t }),
	}, testSources, nil, nil, []bench.StageResult{stage(0, 0, 5, 10), stage(1, 5, 5, 10)})
	for i, r := range got {
		if r.Pinned != 20 || r.PinnedSeconds != 0.5 || r.SubmitFailed != 1 {
			t.Errorf("stage %d: %v pins, %v s, %v failed submits; want 20, 0.5 and 1", i, r.Pinned, r.PinnedSeconds, r.SubmitFailed)
		}
	}
	want := map[string]bench.Gauge{bench.SchedulerParallelism: {Peak: 1, Mean: 1}, bench.SchedulerPoolSize: {Peak: 2, Mean: 2}, bench.SchedulerQueued: {Peak: 90, Mean: 70}}
	if !reflect.DeepEqual(got[1].Scheduler, want) {
		t.Errorf("stage 2's scheduler = %v, want %v", got[1].Scheduler, want)
	}
}

// The built-in Java target counts its pins itself (at a lower threshold)
// and through Micrometer: its own count is the one taken, never the sum.
func TestSummarize_PinnedCountedOnce(t *testing.T) {
	got := metrics.Summarize([]bench.Series{
		series("threadbench_virtual_pinned_total", nil, 0, 10, func(t float64) float64 { return 3 * t }),
		series("jvm_threads_virtual_pinned_seconds_count", nil, 0, 10, func(t float64) float64 { return t }),
	}, testSources, nil, nil, []bench.StageResult{stage(0, 0, 5, 10)})
	if got[0].Pinned != 15 {
		t.Errorf("pinned %v, want the target's own 15", got[0].Pinned)
	}
}
