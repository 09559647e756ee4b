package metrics

import (
	"maps"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
)

// counter is a cumulative series and the factor that turns it into the
// summary's unit.
type counter struct {
	name  string
	scale float64
}

// What the summaries read, in order of preference where there is a choice.
var (
	platformThreadGauges = []string{"jvm_threads_live_threads", "go_threads"}
	threadStackGauges    = []string{"jvm_nmt_thread_committed_bytes", "go_memstats_stack_inuse_bytes"}
	cpuCounters          = []counter{
		{"process_cpu_seconds_total", 1},
		{"process_cpu_time_ns_total", 1e-9},
		{ContainerCPUSeconds, 1}, // when the process does not say
	}
	gcCountCounters   = []counter{{"jvm_gc_pause_seconds_count", 1}, {"go_gc_duration_seconds_count", 1}}
	gcSecondsCounters = []counter{{"jvm_gc_pause_seconds_sum", 1}, {"go_gc_duration_seconds_sum", 1}}
)

// Summarize summarises series on the attack's clock per stage, the warm-up
// (when not nil) first: over each stage's [StartOffset, StartOffset+Duration)
// window, the peak and mean of the thread gauges (platform threads, virtual
// threads as requests in flight on them, goroutines) and the peak working
// set from the samples inside it, and from counters interpolated at the window's
// edges the CPU seconds per 1,000 successful requests and the GC pauses.
// scrapeFailures are the instants, on the same clock, of failed scrapes. A
// figure with no data in the window stays zero.
func Summarize(series []bench.Series, scrapeFailures []float64, warmup *bench.StageResult, stages []bench.StageResult) []bench.StageResources {
	byName := combine(series)
	virtual := virtualThreads(series, byName)
	var out []bench.StageResources
	if warmup != nil {
		out = append(out, summarizeStage(byName, virtual, scrapeFailures, *warmup))
	}
	for _, s := range stages {
		out = append(out, summarizeStage(byName, virtual, scrapeFailures, s))
	}
	return out
}

// virtualThreads is the count of virtual threads to summarise: the
// requests in flight on virtual threads when the target says, each holding
// one, parked or not; else the JVM's live virtual threads, which leave the
// parked ones out and so read near zero while hundreds of requests sleep.
func virtualThreads(series []bench.Series, byName map[string][]bench.Point) []bench.Point {
	var inflight []bench.Series
	for _, s := range series {
		if s.Name == InflightRequests && s.Labels["thread"] == "virtual" && len(s.Points) > 0 {
			inflight = append(inflight, s)
		}
	}
	if len(inflight) > 0 {
		return combine(inflight)[InflightRequests]
	}
	return byName["jvm_threads_virtual_live_threads"]
}

// combine sums the series of each name point by point (the labelled series
// of a name are sampled together), giving one series per name.
func combine(series []bench.Series) map[string][]bench.Point {
	sums := map[string]map[float64]float64{}
	for _, s := range series {
		if sums[s.Name] == nil {
			sums[s.Name] = map[float64]float64{}
		}
		for _, p := range s.Points {
			sums[s.Name][p.T] += p.V
		}
	}
	out := make(map[string][]bench.Point, len(sums))
	for name, byT := range sums {
		points := make([]bench.Point, 0, len(byT))
		for _, t := range slices.Sorted(maps.Keys(byT)) {
			points = append(points, bench.Point{T: t, V: byT[t]})
		}
		out[name] = points
	}
	return out
}

// window is a stage's span on the attack's clock, in seconds.
type window struct{ start, end float64 }

func (w window) contains(t float64) bool { return t >= w.start && t < w.end }

func stageWindow(s bench.StageResult) window {
	start := s.StartOffset.D().Seconds()
	return window{start, start + s.Duration.D().Seconds()}
}

func summarizeStage(byName map[string][]bench.Point, virtual []bench.Point, scrapeFailures []float64, s bench.StageResult) bench.StageResources {
	w := stageWindow(s)
	r := bench.StageResources{Stage: s.Index, Warmup: s.Warmup}
	r.PeakPlatformThreads, r.MeanPlatformThreads = peakMean(first(byName, platformThreadGauges), w)
	r.PeakVirtualThreads, r.MeanVirtualThreads = peakMean(virtual, w)
	r.PeakGoroutines, r.MeanGoroutines = peakMean(byName["go_goroutines"], w)
	r.PeakWorkingSetBytes, _ = peakMean(byName[ContainerMemoryWorkingSet], w)
	r.PeakThreadStackBytes, _ = peakMean(first(byName, threadStackGauges), w)
	r.CPUSecondsPer1k = perThousand(cpuSeconds(byName, w), s.Stats.Successes)
	r.GCPauses = sumDeltas(byName, gcCountCounters, w)
	r.GCPauseSeconds = sumDeltas(byName, gcSecondsCounters, w)
	for _, t := range scrapeFailures {
		if w.contains(t) {
			r.ScrapeFailures++
		}
	}
	return r
}

// first returns the points of the first name that has any.
func first(byName map[string][]bench.Point, names []string) []bench.Point {
	for _, n := range names {
		if len(byName[n]) > 0 {
			return byName[n]
		}
	}
	return nil
}

// peakMean is the largest and the mean value of the points inside w.
func peakMean(points []bench.Point, w window) (peak, mean float64) {
	var sum float64
	var n int
	for _, p := range points {
		if w.contains(p.T) {
			peak = max(peak, p.V)
			sum += p.V
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return peak, sum / float64(n)
}

// cpuSeconds is the CPU time used in w by the first counter that covers it.
func cpuSeconds(byName map[string][]bench.Point, w window) float64 {
	for _, c := range cpuCounters {
		if d, ok := delta(byName[c.name], w); ok {
			return d * c.scale
		}
	}
	return 0
}

// sumDeltas adds up what the counters grew by in w; a target exposes one of
// each kind, the sum spares asking which.
func sumDeltas(byName map[string][]bench.Point, counters []counter, w window) float64 {
	var total float64
	for _, c := range counters {
		if d, ok := delta(byName[c.name], w); ok {
			total += d * c.scale
		}
	}
	return total
}

// delta is how much a counter grew over w, its values at the window's edges
// interpolated between samples. It is not ok when no sample falls in or
// around w.
func delta(points []bench.Point, w window) (float64, bool) {
	if len(points) == 0 || points[len(points)-1].T < w.start || points[0].T >= w.end {
		return 0, false
	}
	return max(valueAt(points, w.end)-valueAt(points, w.start), 0), true
}

// valueAt interpolates linearly between the samples around t, and holds the
// first or last value outside them.
func valueAt(points []bench.Point, t float64) float64 {
	i, _ := slices.BinarySearchFunc(points, t, func(p bench.Point, t float64) int {
		switch {
		case p.T < t:
			return -1
		case p.T > t:
			return 1
		}
		return 0
	})
	switch {
	case i == 0:
		return points[0].V
	case i == len(points):
		return points[len(points)-1].V
	}
	a, b := points[i-1], points[i]
	if b.T == t {
		return b.V
	}
	return a.V + (b.V-a.V)*(t-a.T)/(b.T-a.T)
}

// perThousand is seconds per 1,000 successes, or 0 without either.
func perThousand(seconds float64, successes int64) float64 {
	if seconds <= 0 || successes <= 0 {
		return 0
	}
	return seconds / (float64(successes) / 1000)
}
