package database

import (
	"github.com/threadbench/threadbench/internal/bench"
)

// Summarize summarises a recording's series per stage, the warm-up (when
// not nil) first, over each stage's [StartOffset, StartOffset+Duration)
// window on the attack's clock: the connections by state, the waits by
// kind and the locks as the peak and the mean over the stage's samples (a
// wait missing from a sample counts 0 in it), the rates as the mean of
// their points. Samples are the instants inside the window at which any
// gauge has a point; a stage without any has only its index.
func Summarize(series []bench.Series, warmup *bench.StageResult, stages []bench.StageResult) []bench.DatabaseStage {
	all := stages
	if warmup != nil {
		all = append([]bench.StageResult{*warmup}, stages...)
	}
	out := make([]bench.DatabaseStage, 0, len(all))
	for _, s := range all {
		out = append(out, summarizeStage(series, s))
	}
	return out
}

// summarizeStage summarises the series over one stage.
func summarizeStage(series []bench.Series, s bench.StageResult) bench.DatabaseStage {
	w := stageWindow(s)
	st := bench.DatabaseStage{Stage: s.Index, Warmup: s.Warmup, Samples: sampleCount(series, w)}
	if st.Samples == 0 {
		return st
	}
	st.Connections = gaugesBy(series, SeriesConnections, LabelState, w, st.Samples)
	st.Waits = gaugesBy(series, SeriesWaits, LabelWait, w, st.Samples)
	st.Locks = gaugesBy(series, SeriesLocks, "", w, st.Samples)[""]
	st.TransactionsPerSec = meanOf(series, SeriesTransactions, w)
	st.RowsPerSec = meanOf(series, SeriesRows, w)
	st.Executing = meanOf(series, SeriesExecuting, w)
	return st
}

// window is a stage's span on the attack's clock, in seconds.
type window struct{ start, end float64 }

func (w window) contains(t float64) bool { return t >= w.start && t < w.end }

func stageWindow(s bench.StageResult) window {
	start := s.StartOffset.D().Seconds()
	return window{start, start + s.Duration.D().Seconds()}
}

// isGauge reports whether a series is read at every sample.
func isGauge(name string) bool {
	return name == SeriesConnections || name == SeriesWaits || name == SeriesLocks
}

// sampleCount is how many instants inside w the gauges have points at.
func sampleCount(series []bench.Series, w window) int {
	at := map[float64]bool{}
	for _, s := range series {
		if !isGauge(s.Name) {
			continue
		}
		for _, p := range s.Points {
			if w.contains(p.T) {
				at[p.T] = true
			}
		}
	}
	return len(at)
}

// gaugesBy summarises the series of a name by their label's value (""
// when label is ""), over samples instants: the peak of the points inside
// w, and their sum over samples. A key without points in w is left out.
func gaugesBy(series []bench.Series, name, label string, w window, samples int) map[string]bench.Gauge {
	sums, peaks := map[string]float64{}, map[string]float64{}
	for _, s := range series {
		if s.Name != name {
			continue
		}
		key := s.Labels[label]
		for _, p := range s.Points {
			if !w.contains(p.T) {
				continue
			}
			if _, ok := peaks[key]; !ok || p.V > peaks[key] {
				peaks[key] = p.V
			}
			sums[key] += p.V
		}
	}
	if len(peaks) == 0 {
		return nil
	}
	out := make(map[string]bench.Gauge, len(peaks))
	for key, peak := range peaks {
		out[key] = bench.Gauge{Peak: peak, Mean: sums[key] / float64(samples)}
	}
	return out
}

// meanOf is the mean of the points of the series of a name inside w, 0
// without any.
func meanOf(series []bench.Series, name string, w window) float64 {
	var sum float64
	var n int
	for _, s := range series {
		if s.Name != name {
			continue
		}
		for _, p := range s.Points {
			if w.contains(p.T) {
				sum += p.V
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
