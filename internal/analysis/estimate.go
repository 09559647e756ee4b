package analysis

import (
	"math"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/stats"
	"github.com/threadbench/threadbench/internal/steady"
)

// figure is one request figure a report estimates, ranks and tests: how to
// read it from a round's figures and, when it has one, from a second's.
type figure struct {
	name, unit     string
	higherIsBetter bool
	of             func(Plain) float64
	perSecond      func(bench.Stats) (float64, bool) // nil: no per-second value stands for it
}

// The request figures. Extremes (min, p99.9, max) have no per-second
// stand-in: a second's maximum says little about a stage's.
var (
	figThroughput = figure{MetricThroughput, UnitReqPerSec, true,
		func(p Plain) float64 { return p.Throughput },
		func(s bench.Stats) (float64, bool) { return steady.Rate(s), true }}
	figErrorRate = figure{MetricErrorRate, UnitPercent, false,
		func(p Plain) float64 { return p.ErrorRate },
		func(s bench.Stats) (float64, bool) { return ErrorRate(s), s.Requests > 0 }}
	figMin  = latencyFigure("min", func(l bench.Latency) float64 { return l.Min }, false)
	figMean = latencyFigure(metricMean, func(l bench.Latency) float64 { return l.Mean }, true)
	figP50  = latencyFigure(MetricP50, func(l bench.Latency) float64 { return l.P50 }, true)
	figP90  = latencyFigure(MetricP90, func(l bench.Latency) float64 { return l.P90 }, true)
	figP95  = latencyFigure(MetricP95, func(l bench.Latency) float64 { return l.P95 }, true)
	figP99  = latencyFigure(MetricP99, func(l bench.Latency) float64 { return l.P99 }, true)
	figP999 = latencyFigure("p99.9", func(l bench.Latency) float64 { return l.P999 }, false)
	figMax  = latencyFigure(MetricMax, func(l bench.Latency) float64 { return l.Max }, false)
)

const metricMean = "mean"

func latencyFigure(name string, pick func(bench.Latency) float64, perSecond bool) figure {
	f := figure{name: name, unit: UnitMs, of: func(p Plain) float64 { return pick(p.Latency) }}
	if perSecond {
		f.perSecond = func(s bench.Stats) (float64, bool) { return pick(s.Latency), s.Successes > 0 }
	}
	return f
}

// estimator makes estimates and samples at a report's confidence level.
type estimator struct {
	confidence float64
}

// estimate is a figure over the rounds of a subject: the median with its
// interval with two rounds or more, else the one round's figure with a
// within-run interval when the window has a steady part.
func (e estimator) estimate(values []float64, steady []bench.Bucket, perSecond func(bench.Stats) (float64, bool)) bench.Estimate {
	switch {
	case len(values) == 0:
		return bench.Estimate{}
	case len(values) >= 2:
		return e.overRounds(values)
	}
	est := bench.Estimate{Value: values[0]}
	if perSecond == nil || steady == nil {
		return est
	}
	s := stats.BatchMeans(secondValues(steady, perSecond), 0, e.confidence)
	if s.HasInterval {
		half := (s.Hi - s.Lo) / 2
		est.CI = &bench.Interval{Lo: math.Max(0, values[0]-half), Hi: values[0] + half,
			Level: s.Confidence, Method: bench.IntervalWithinRun, N: s.N}
	}
	return est
}

// overRounds is the median of per-round values with benchmath's
// distribution-free interval or, with too few rounds for one at the level
// asked, the range of the rounds at the level that range achieves.
func (e estimator) overRounds(values []float64) bench.Estimate {
	s := stats.Median(values, e.confidence)
	est := bench.Estimate{Value: s.Center}
	if s.HasInterval {
		est.CI = &bench.Interval{Lo: s.Lo, Hi: s.Hi, Level: s.Confidence, Method: bench.IntervalMedian, N: s.N}
		return est
	}
	lo, hi := slices.Min(values), slices.Max(values)
	if hi > lo {
		est.CI = &bench.Interval{Lo: lo, Hi: hi, Level: 1 - math.Pow(2, 1-float64(len(values))),
			Method: bench.IntervalRange, N: len(values)}
	}
	return est
}

// secondValues returns a figure's value in each second that has one.
func secondValues(seconds []bench.Bucket, perSecond func(bench.Stats) (float64, bool)) []float64 {
	var values []float64
	for _, b := range seconds {
		if v, ok := perSecond(b.Stats); ok {
			values = append(values, v)
		}
	}
	return values
}

// Samples kinds of a test.
const (
	samplesRounds        = "rounds"
	samplesWithinRun     = "within-run batch means"
	samplesConfirmations = "confirmations"
)

// batchCount is how many batch means stand for a round's per-second values
// in a test: stats.DefaultBatches, fewer when the seconds are fewer.
func batchCount(n int) int { return min(stats.DefaultBatches, n) }

// batched cuts values into k consecutive batches of sizes differing by at
// most one and returns their means, as stats.BatchMeans does.
func batched(values []float64, k int) []float64 {
	n := len(values)
	means := make([]float64, k)
	for i := range means {
		part := values[i*n/k : (i+1)*n/k]
		sum := 0.0
		for _, v := range part {
			sum += v
		}
		means[i] = sum / float64(len(part))
	}
	return means
}

// toSignificance turns a stats test into the report's words.
func toSignificance(t stats.Test, samples string) bench.Significance {
	return bench.Significance{P: t.P, NA: t.NA, NB: t.NB, Alpha: t.Alpha, Significant: t.Significant,
		Method: t.Method, Samples: samples, Warnings: t.Warnings}
}

// TestString quotes a test as the report prints it: "p = 0.43, n = 10+10".
func TestString(s bench.Significance) string {
	return stats.Test{P: s.P, NA: s.NA, NB: s.NB}.String()
}
