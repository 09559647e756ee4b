package metrics

import "github.com/threadbench/threadbench/internal/bench"

// What a JVM says about its virtual threads, where it exposes Micrometer's
// VirtualThreadMetrics (micrometer-java21; Spring Boot binds it on its own):
// JFR's pinned and submit-failed events, streamed in-process, and on JDK
// 24 and later the scheduler's own figures (VirtualThreadSchedulerMXBean).
// The built-in Java target counts its pins itself too, at a lower
// threshold: its own count comes first.
var (
	virtualPinned        = []counter{{OwnVirtualPinned, 1}, {VirtualPinned, 1}}
	virtualPinnedSeconds = []counter{{OwnVirtualPinnedSecond, 1}, {VirtualPinnedSeconds, 1}}
	virtualSubmitFailed  = []counter{{VirtualSubmitFailed, 1}}
	schedulerSources     = []bench.FigureSource{
		{Figure: bench.SchedulerParallelism, Series: []bench.SeriesRef{{Name: VirtualParallelism}}},
		{Figure: bench.SchedulerPoolSize, Series: []bench.SeriesRef{{Name: VirtualPoolSize}}},
		{Figure: bench.SchedulerMounted, Series: []bench.SeriesRef{{Name: JVMThreadsVirtualLive, Label: "scheduling_status", Value: "mounted"}}},
		{Figure: bench.SchedulerQueued, Series: []bench.SeriesRef{{Name: JVMThreadsVirtualLive, Label: "scheduling_status", Value: "queued"}}},
	}
)

// firstDelta is what the first counter with data in w grew by: a target
// that counts a thing twice, under two names, is counted once.
func firstDelta(byName map[string][]bench.Point, counters []counter, w window) float64 {
	for _, c := range counters {
		if d, ok := delta(byName[c.name], w); ok {
			return d * c.scale
		}
	}
	return 0
}
