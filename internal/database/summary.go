package database

import (
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
)

// Summarize summarises a recording's series per stage, the warm-up (when
// not nil) first, over each stage's [StartOffset, StartOffset+Duration)
// window on the attack's clock: the connections by state, the waits by
// kind and the locks as the peak and the mean over the stage's samples (a
// wait missing from a sample counts 0 in it), the rates as the mean of
// their points weighted by the time each covers (rateOf). Samples are the
// instants inside the window at which any gauge has a point; a stage
// without any has only its index.
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
	st.TransactionsPerSec = rateOf(series, SeriesTransactions, w)
	st.RowsPerSec = rateOf(series, SeriesRows, w)
	st.Executing = rateOf(series, SeriesExecuting, w)
	st.StatementsPerSec = rateOf(series, SeriesStatements, w)
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

// rateOf is the rate over w of the series of a name, each point a rate
// over the interval since the point before it: the mean of the points
// inside w, each weighted by that interval (for a series' first point, the
// interval since the sample before it, the gauges' instants being the
// samples'; 1 s without one), so that a sample a loaded machine took
// late, and the short interval after it, count for the time they cover (a
// 3 s stage's rates over 2.5 s and 0.5 s are not worth the same); 0
// without any.
func rateOf(series []bench.Series, name string, w window) float64 {
	var instants []float64
	for _, s := range series {
		if isGauge(s.Name) {
			for _, p := range s.Points {
				instants = append(instants, p.T)
			}
		}
	}
	slices.Sort(instants)
	var sum, weights float64
	for _, s := range series {
		if s.Name != name {
			continue
		}
		for k, p := range s.Points {
			if !w.contains(p.T) {
				continue
			}
			weight := 1.0
			if k > 0 {
				weight = p.T - s.Points[k-1].T
			} else if i, _ := slices.BinarySearch(instants, p.T); i > 0 {
				weight = p.T - instants[i-1]
			}
			sum += p.V * weight
			weights += weight
		}
	}
	if weights <= 0 {
		return 0
	}
	return sum / weights
}
