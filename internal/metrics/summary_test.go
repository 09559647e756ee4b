package metrics_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

// stage is a measured stage from start to start+length seconds.
func stage(index int, start, length float64, successes int64) bench.StageResult {
	return bench.StageResult{
		Index:       index,
		StartOffset: bench.Duration(start * float64(time.Second)),
		Duration:    bench.Duration(length * float64(time.Second)),
		Stats:       bench.Stats{Requests: successes, Successes: successes, Completed: successes},
	}
}

// series samples f once a second from t = from to t = to.
func series(name string, labels map[string]string, from, to int, f func(t float64) float64) bench.Series {
	s := bench.Series{Name: name, Labels: labels}
	for t := from; t <= to; t++ {
		s.Points = append(s.Points, bench.Point{T: float64(t), V: f(float64(t))})
	}
	return s
}

func constant(v float64) func(float64) float64 { return func(float64) float64 { return v } }

// testSources map series as the built-in catalog does (TestCatalogSources
// checks the catalog's own against real expositions).
var testSources = metrics.Sources{
	Threads: []bench.FigureSource{
		{Figure: bench.ThreadPlatform, Series: []bench.SeriesRef{{Name: "jvm_threads_live_threads"}, {Name: "go_threads"}}},
		{Figure: bench.ThreadVirtual, Series: []bench.SeriesRef{
			{Name: metrics.InflightRequests, Label: "thread", Value: "virtual"},
			{Name: "jvm_threads_virtual_live_threads"},
		}},
		{Figure: bench.ThreadGoroutine, Series: []bench.SeriesRef{{Name: "go_goroutines"}}},
	},
}

func TestSummarize(t *testing.T) {
	warm := stage(-1, -4, 4, 400)
	warm.Warmup = true
	stages := []bench.StageResult{stage(0, 0, 5, 1000), stage(1, 5, 5, 4000)}
	tests := []struct {
		name     string
		series   []bench.Series
		failures []float64
		warmup   *bench.StageResult
		want     []bench.StageResources
	}{
		{
			// Threads ramp from 10 by 2 a second: stage 0 sees t=0..4,
			// stage 1 sees t=5..9; the warm-up t=-4..-1.
			name:   "Go: peaks and means of gauges inside each window",
			series: []bench.Series{series("go_threads", nil, -5, 10, func(t float64) float64 { return 10 + 2*t })},
			warmup: &warm,
			want: []bench.StageResources{
				{Stage: -1, Warmup: true, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 8, Mean: 5}}},
				{Stage: 0, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 18, Mean: 14}}},
				{Stage: 1, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 28, Mean: 24}}},
			},
		},
		{
			// Virtual threads are the requests in flight on them; the
			// platform label and Micrometer's live virtual threads (which
			// leave parked ones out) are not read.
			name: "Java virtual: in-flight requests on virtual threads",
			series: []bench.Series{
				series("jvm_threads_live_threads", nil, 0, 9, constant(20)),
				series(metrics.InflightRequests, map[string]string{"thread": "platform"}, 0, 9, constant(3)),
				series(metrics.InflightRequests, map[string]string{"thread": "virtual"}, 0, 9, func(t float64) float64 { return 100 * t }),
				series("jvm_threads_virtual_live_threads", map[string]string{"scheduling_status": "mounted"}, 0, 9, constant(1)),
			},
			want: []bench.StageResources{
				{Stage: 0, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 20, Mean: 20}, bench.ThreadVirtual: {Peak: 400, Mean: 200}}, Scheduler: map[string]bench.Gauge{bench.SchedulerMounted: {Peak: 1, Mean: 1}}},
				{Stage: 1, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 20, Mean: 20}, bench.ThreadVirtual: {Peak: 900, Mean: 700}}, Scheduler: map[string]bench.Gauge{bench.SchedulerMounted: {Peak: 1, Mean: 1}}},
			},
		},
		{
			// A Tomcat pool: the virtual label says 0 throughout, which
			// is the answer, not a reason to fall back.
			name: "Java platform: no requests on virtual threads",
			series: []bench.Series{
				series("jvm_threads_live_threads", nil, 0, 9, constant(220)),
				series(metrics.InflightRequests, map[string]string{"thread": "platform"}, 0, 9, constant(200)),
				series(metrics.InflightRequests, map[string]string{"thread": "virtual"}, 0, 9, constant(0)),
				series("jvm_threads_virtual_live_threads", map[string]string{"scheduling_status": "mounted"}, 0, 9, constant(1)),
			},
			want: []bench.StageResources{
				{Stage: 0, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 220, Mean: 220}, bench.ThreadVirtual: {}}, Scheduler: map[string]bench.Gauge{bench.SchedulerMounted: {Peak: 1, Mean: 1}}},
				{Stage: 1, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 220, Mean: 220}, bench.ThreadVirtual: {}}, Scheduler: map[string]bench.Gauge{bench.SchedulerMounted: {Peak: 1, Mean: 1}}},
			},
		},
		{
			// Goroutines in flight are not virtual threads; go_goroutines
			// stays the goroutine count.
			name: "Go: in-flight goroutines leave virtual threads alone",
			series: []bench.Series{
				series("go_threads", nil, 0, 9, constant(6)),
				series("go_goroutines", nil, 0, 9, constant(310)),
				series(metrics.InflightRequests, map[string]string{"thread": "goroutine"}, 0, 9, constant(300)),
			},
			want: []bench.StageResources{
				{Stage: 0, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 6, Mean: 6}, bench.ThreadGoroutine: {Peak: 310, Mean: 310}}},
				{Stage: 1, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 6, Mean: 6}, bench.ThreadGoroutine: {Peak: 310, Mean: 310}}},
			},
		},
		{
			// A target without the in-flight gauge: the JVM's live threads
			// win over go_threads (a JVM has none, but the order is what
			// decides); virtual threads fall back to Micrometer's live
			// virtual threads, their scheduling statuses summed.
			name: "Java without the in-flight gauge: platform and live virtual threads",
			series: []bench.Series{
				series("jvm_threads_live_threads", nil, 0, 9, constant(20)),
				series("jvm_threads_virtual_live_threads", map[string]string{"scheduling_status": "mounted"}, 0, 9, constant(2)),
				series("jvm_threads_virtual_live_threads", map[string]string{"scheduling_status": "queued"}, 0, 9, func(t float64) float64 { return t }),
			},
			want: []bench.StageResources{
				{Stage: 0, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 20, Mean: 20}, bench.ThreadVirtual: {Peak: 6, Mean: 4}},
					Scheduler: map[string]bench.Gauge{bench.SchedulerMounted: {Peak: 2, Mean: 2}, bench.SchedulerQueued: {Peak: 4, Mean: 2}}},
				{Stage: 1, Threads: map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 20, Mean: 20}, bench.ThreadVirtual: {Peak: 11, Mean: 9}},
					Scheduler: map[string]bench.Gauge{bench.SchedulerMounted: {Peak: 2, Mean: 2}, bench.SchedulerQueued: {Peak: 9, Mean: 7}}},
			},
		},
		{
			// 0.5 CPU-seconds a second: 2.5 s per stage over 1,000 and
			// 4,000 successes.
			name: "CPU per 1k successes from the container's counter",
			series: []bench.Series{
				series(metrics.ContainerCPUSeconds, nil, -1, 11, func(t float64) float64 { return 100 + 0.5*t }),
				series("process_cpu_seconds_total", nil, -1, 11, func(t float64) float64 { return 7 * t }), // ignored
			},
			want: []bench.StageResources{{Stage: 0, CPUSecondsPer1k: 2.5}, {Stage: 1, CPUSecondsPer1k: 0.625}},
		},
		{
			name:   "CPU per 1k from Micrometer's nanoseconds without the container's counter",
			series: []bench.Series{series("process_cpu_time_ns_total", nil, 0, 10, func(t float64) float64 { return 1e9 * t })},
			want:   []bench.StageResources{{Stage: 0, CPUSecondsPer1k: 5}, {Stage: 1, CPUSecondsPer1k: 1.25}},
		},
		{
			name:   "CPU per 1k from the process without the container's counter",
			series: []bench.Series{series("process_cpu_seconds_total", nil, 0, 10, func(t float64) float64 { return 2 * t })},
			want:   []bench.StageResources{{Stage: 0, CPUSecondsPer1k: 10}, {Stage: 1, CPUSecondsPer1k: 2.5}},
		},
		{
			// Samples at t=-0.6, 0.4, ... : the counter is interpolated at
			// the edges, so each stage still gets exactly 5 seconds' worth.
			name: "counters interpolated at window edges",
			series: []bench.Series{{Name: "go_gc_duration_seconds_count", Points: []bench.Point{
				{T: -0.6, V: 0}, {T: 0.4, V: 10}, {T: 4.4, V: 50}, {T: 5.4, V: 60}, {T: 10.4, V: 110},
			}}},
			want: []bench.StageResources{{Stage: 0, GCPauses: 50}, {Stage: 1, GCPauses: 50}},
		},
		{
			name: "GC pauses and seconds, working set peak, scrape failures",
			series: []bench.Series{
				series("jvm_gc_pause_seconds_count", nil, 0, 10, func(t float64) float64 { return math.Floor(t / 2) }),
				series("jvm_gc_pause_seconds_sum", nil, 0, 10, func(t float64) float64 { return 0.25 * t }),
				series(metrics.ContainerMemoryWorkingSet, nil, 0, 10, func(t float64) float64 { return 1e6 * (10 - t) }),
			},
			failures: []float64{0.5, 4.99, 5, 12},
			want: []bench.StageResources{
				{Stage: 0, Memory: map[string]bench.Gauge{bench.MemoryWorkingSet: {Peak: 10e6, Mean: 8e6}}, GCPauses: 2, GCPauseSeconds: 1.25, ScrapeFailures: 2},
				{Stage: 1, Memory: map[string]bench.Gauge{bench.MemoryWorkingSet: {Peak: 5e6, Mean: 3e6}}, GCPauses: 3, GCPauseSeconds: 1.25, ScrapeFailures: 1},
			},
		},
		{
			name:   "no samples: zeros",
			series: []bench.Series{series("go_goroutines", nil, 20, 30, constant(5))},
			want:   []bench.StageResources{{Stage: 0}, {Stage: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := metrics.Summarize(tt.series, testSources, tt.failures, tt.warmup, stages)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestSummarize_CPUPerCompleted divides a window's CPU by the responses
// completed in it: a backlog sent before the stage and answered in it cost
// the stage's CPU, requests sent in it and answered after it did not.
func TestSummarize_CPUPerCompleted(t *testing.T) {
	s := []bench.Series{series(metrics.ContainerCPUSeconds, nil, 0, 10, func(t float64) float64 { return t })}
	st := stage(0, 0, 5, 250)
	st.Stats.Completed = 500
	got := metrics.Summarize(s, testSources, nil, nil, []bench.StageResult{st})
	if got[0].CPUSecondsPer1k != 10 {
		t.Errorf("5 CPU s over 500 completed (250 sent) = %v s per 1k, want 10", got[0].CPUSecondsPer1k)
	}
}

func TestSummarize_NoSuccesses(t *testing.T) {
	s := []bench.Series{series("process_cpu_seconds_total", nil, 0, 10, func(t float64) float64 { return t })}
	got := metrics.Summarize(s, testSources, nil, nil, []bench.StageResult{stage(0, 0, 5, 0)})
	if got[0].CPUSecondsPer1k != 0 {
		t.Errorf("CPU per 1k with no successes = %v, want 0", got[0].CPUSecondsPer1k)
	}
}

// Pinned events and time come from the Java target's JFR counters, as
// deltas over each stage.
func TestSummarize_Pinned(t *testing.T) {
	series := []bench.Series{
		series("threadbench_virtual_pinned_total", nil, 0, 10, func(t float64) float64 { return 3 * t }),
		series("threadbench_virtual_pinned_seconds_sum", nil, 0, 10, func(t float64) float64 { return 0.5 * t }),
	}
	got := metrics.Summarize(series, testSources, nil, nil, []bench.StageResult{stage(0, 0, 5, 10), stage(1, 5, 5, 10)})
	for i, r := range got {
		if r.Pinned != 15 || r.PinnedSeconds != 2.5 {
			t.Errorf("stage %d: pinned %v events, %v s; want 15 and 2.5", i, r.Pinned, r.PinnedSeconds)
		}
	}
}

// A summary's mean per stage, each stage its own: what its sum grew by
// over what its count grew by (100 a second, at one figure in the first
// stage and another in the second), 0 where the target exposes none: the
// wake-up probe's lateness and the pool's hold (HikariCP's usage timer).
func TestSummarize_MeanOfASummary(t *testing.T) {
	for _, tt := range []struct {
		name           string
		count, seconds string
		first, second  float64 // ms, each stage's
		of             func(bench.StageResources) float64
	}{
		{"wake delay", metrics.WakeDelayCount, metrics.WakeDelaySeconds, 0.5, 4, func(r bench.StageResources) float64 { return r.WakeDelayMs }},
		{"pool usage", metrics.PoolUsageCount, metrics.PoolUsageSeconds, 100, 108, func(r bench.StageResources) float64 { return r.PoolUsageMs }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sum := func(t float64) float64 { return (tt.first*min(t, 5) + tt.second*max(0, t-5)) * 100 / 1000 }
			series := []bench.Series{
				series(tt.count, nil, 0, 10, func(t float64) float64 { return 100 * t }),
				series(tt.seconds, nil, 0, 10, sum),
			}
			got := metrics.Summarize(series, testSources, nil, nil, []bench.StageResult{stage(0, 0, 5, 10), stage(1, 5, 5, 10)})
			for i, want := range []float64{tt.first, tt.second} {
				if math.Abs(tt.of(got[i])-want) > 1e-9 {
					t.Errorf("stage %d: %v ms, want %v", i, tt.of(got[i]), want)
				}
			}
			if none := metrics.Summarize(nil, testSources, nil, nil, []bench.StageResult{stage(0, 0, 5, 10)}); tt.of(none[0]) != 0 {
				t.Errorf("a target without the series: %v ms, want 0", tt.of(none[0]))
			}
		})
	}
}
