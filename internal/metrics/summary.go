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

// What the summaries read that every runtime has under one name or
// another; the runtime-specific figures come from Sources.
var (
	// The container's counter first: the engine reads it on its own clock
	// whatever the target does. A saturated JVM renders its own counter
	// seconds after it was asked, and a sample filed when asked made a
	// one-CPU target's 5 s stage use 1.43 CPUs.
	cpuCounters = []counter{
		{ContainerCPUSeconds, 1},
		{"process_cpu_seconds_total", 1},
		{"process_cpu_time_ns_total", 1e-9}, // when the engine does not say
	}
	gcCountCounters   = []counter{{JVMGCPauses, 1}, {GoGCPauses, 1}}
	gcSecondsCounters = []counter{{JVMGCPauseSeconds, 1}, {GoGCPauseSeconds, 1}}
)

// Sources map a target's series onto the generic thread and memory
// figures: its catalog entry's Threads and Memory.
type Sources struct {
	Threads []bench.FigureSource
	Memory  []bench.FigureSource
}

// Summarize summarises series on the attack's clock per stage, the warm-up
// (when not nil) first: over each stage's [StartOffset, StartOffset+Duration)
// window, the peak and mean of every thread kind and memory figure sources
// map (plus the container's working set), from the samples inside it, and
// from counters interpolated at the window's edges the CPU seconds per 1,000
// successful requests and the GC pauses. scrapeFailures are the instants, on
// the same clock, of failed scrapes. A figure with no data is left out.
func Summarize(series []bench.Series, sources Sources, scrapeFailures []float64, warmup *bench.StageResult, stages []bench.StageResult) []bench.StageResources {
	byName := combine(series)
	threads := pickAll(series, sources.Threads)
	memory := pickAll(series, sources.Memory)
	memory[bench.MemoryWorkingSet] = byName[ContainerMemoryWorkingSet]
	scheduler := pickAll(series, schedulerSources)
	pool := pickAll(series, poolSources)
	all := stages
	if warmup != nil {
		all = append([]bench.StageResult{*warmup}, stages...)
	}
	out := make([]bench.StageResources, 0, len(all))
	for _, s := range all {
		r := summarizeStage(byName, scrapeFailures, s)
		r.Threads = gauges(threads, stageWindow(s))
		r.Memory = gauges(memory, stageWindow(s))
		r.Scheduler = gauges(scheduler, stageWindow(s))
		summarizePool(&r, byName, pool, stageWindow(s))
		out = append(out, r)
	}
	return out
}

// pickAll returns, per figure, the points of its first source with data.
func pickAll(series []bench.Series, sources []bench.FigureSource) map[string][]bench.Point {
	out := map[string][]bench.Point{}
	for _, src := range sources {
		for _, ref := range src.Series {
			if points := matching(series, ref); len(points) > 0 {
				out[src.Figure] = points
				break
			}
		}
	}
	return out
}

// matching sums, point by point, the series a reference picks.
func matching(series []bench.Series, ref bench.SeriesRef) []bench.Point {
	var picked []bench.Series
	for _, s := range series {
		if s.Name == ref.Name && (ref.Label == "" || s.Labels[ref.Label] == ref.Value) && len(s.Points) > 0 {
			picked = append(picked, s)
		}
	}
	return combine(picked)[ref.Name]
}

// gauges summarises each figure over w; figures without samples in w are
// left out, so that a runtime's table shows only what it has.
func gauges(figures map[string][]bench.Point, w window) map[string]bench.Gauge {
	var out map[string]bench.Gauge
	for name, points := range figures {
		peak, mean, ok := peakMean(points, w)
		if !ok {
			continue
		}
		if out == nil {
			out = map[string]bench.Gauge{}
		}
		out[name] = bench.Gauge{Peak: peak, Mean: mean}
	}
	return out
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

func summarizeStage(byName map[string][]bench.Point, scrapeFailures []float64, s bench.StageResult) bench.StageResources {
	w := stageWindow(s)
	r := bench.StageResources{Stage: s.Index, Warmup: s.Warmup}
	// The CPU used in the window served the responses completed in it, not
	// the requests sent in it: with seconds of latency (a saturated Tomcat,
	// p99 2.7 s in a 5 s stage) 238 were sent and served against 387
	// completed, and per request sent a one-CPU target used 1.56 CPUs.
	r.CPUSecondsPer1k = perThousand(cpuSeconds(byName, w), s.Stats.Completed)
	r.GCPauses = sumDeltas(byName, gcCountCounters, w)
	r.GCPauseSeconds = sumDeltas(byName, gcSecondsCounters, w)
	r.Pinned = firstDelta(byName, virtualPinned, w)
	r.PinnedSeconds = firstDelta(byName, virtualPinnedSeconds, w)
	r.SubmitFailed = firstDelta(byName, virtualSubmitFailed, w)
	r.ServerMs = serverMs(byName, w)
	r.WakeDelayMs = meanMs(byName, WakeDelayCount, WakeDelaySeconds, w)
	for _, t := range scrapeFailures {
		if w.contains(t) {
			r.ScrapeFailures++
		}
	}
	return r
}

// serverMs is the mean time a request served in w spent in the target's
// handlers, in ms: what their time counter grew by over what their count
// grew by; 0 where they are not exposed or served nothing.
func serverMs(byName map[string][]bench.Point, w window) float64 {
	return meanMs(byName, ServerRequestsCount, ServerRequestsSeconds, w)
}

// meanMs is a summary's mean over w, in ms: what its seconds grew by over
// what its count grew by; 0 where it is not exposed or counted nothing.
func meanMs(byName map[string][]bench.Point, count, seconds string, w window) float64 {
	n, okN := delta(byName[count], w)
	s, okS := delta(byName[seconds], w)
	if !okN || !okS || n < 1 {
		return 0
	}
	return s / n * 1000
}

// peakMean is the largest and the mean value of the points inside w, not
// ok when there are none.
func peakMean(points []bench.Point, w window) (peak, mean float64, ok bool) {
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
		return 0, 0, false
	}
	return peak, sum / float64(n), true
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

// perThousand is seconds per 1,000 completed responses, or 0 without
// either.
func perThousand(seconds float64, completed int64) float64 {
	if seconds <= 0 || completed <= 0 {
		return 0
	}
	return seconds / (float64(completed) / 1000)
}
