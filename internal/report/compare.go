package report

import (
	"fmt"
	"math"

	"github.com/threadbench/threadbench/internal/bench"
)

// Figure names and units of the MetricDeltas Compare produces.
const (
	metricThroughput = "throughput"
	metricP50        = "p50"
	metricP90        = "p90"
	metricP95        = "p95"
	metricP99        = "p99"
	metricMax        = "max"
	metricErrorRate  = "errorRate"

	unitReqPerSec  = "req/s"
	unitMs         = "ms"
	unitPercent    = "%"
	unitThreads    = "threads"
	unitGoroutines = "goroutines"
	unitMiB        = "MiB"
	unitSeconds    = "s"
	unitPauses     = "pauses"
)

// CompareOptions tune Compare.
type CompareOptions struct {
	// NoiseThreshold is the change, in percent, under which a figure is
	// "within noise". Zero or less means bench.DefaultNoiseThreshold.
	NoiseThreshold float64
}

// Compare compares every target present in both runs: the whole attack, each
// stage when the two profiles have the same shape, and resource use. Latency
// percentiles are recomputed from the stored histograms. Differences that make
// the comparison doubtful (specs, environments, failed targets, missing
// histograms) are compared anyway and listed in Warnings.
func Compare(base, head *bench.Run, opts CompareOptions) bench.Comparison {
	threshold := opts.NoiseThreshold
	if threshold <= 0 {
		threshold = bench.DefaultNoiseThreshold
	}
	c := bench.Comparison{
		Base:           refOf(base),
		Head:           refOf(head),
		NoiseThreshold: threshold,
		Targets:        []bench.TargetComparison{},
	}
	c.Warnings = runWarnings(base, head)
	withStages, why := stagesComparable(base, head)
	if !withStages {
		c.Warnings = append(c.Warnings, "stages were not compared: "+why)
	}
	n := &notes{}
	for i := range base.Targets {
		bt := &base.Targets[i]
		ht := head.Target(bt.Key())
		if ht == nil {
			c.OnlyInBase = append(c.OnlyInBase, bt.Key())
			continue
		}
		tc := targetComparer{target: bt.Key(), threshold: threshold, notes: n}
		c.Targets = append(c.Targets, tc.compare(bt, ht, withStages))
	}
	for _, ht := range head.Targets {
		if base.Target(ht.Key()) == nil {
			c.OnlyInHead = append(c.OnlyInHead, ht.Key())
		}
	}
	c.Warnings = append(c.Warnings, n.lines()...)
	return c
}

func refOf(r *bench.Run) bench.RunRef {
	return bench.RunRef{ID: r.ID, Name: r.Name, Status: r.Status, CreatedAt: r.CreatedAt}
}

// newDelta compares one figure. Change is relative, in percent, except from a
// zero base, where a relative change would be infinite: there it is the
// absolute difference in the figure's unit (percentage points for
// percentages).
func newDelta(name, unit string, base, head float64, higherIsBetter bool, threshold float64) bench.MetricDelta {
	d := bench.MetricDelta{Name: name, Unit: unit, Base: base, Head: head, HigherIsBetter: higherIsBetter}
	if base == 0 {
		d.Change = head - base
	} else {
		// Multiplying before dividing keeps exact inputs exact, so that a
		// change of exactly the threshold is not "within noise" by rounding.
		d.Change = (head - base) * 100 / math.Abs(base)
	}
	d.Verdict = verdict(d, threshold)
	return d
}

// verdict says whether a figure got better, worse, or stayed within the noise
// threshold. Percentages from a zero base are judged in percentage points;
// other figures from a zero base change by more than any threshold.
func verdict(d bench.MetricDelta, threshold float64) string {
	within := math.Abs(d.Change) < threshold
	if d.Base == 0 && d.Unit != unitPercent {
		within = d.Head == 0
	}
	switch {
	case within:
		return bench.VerdictNoise
	case (d.Head > d.Base) == d.HigherIsBetter:
		return bench.VerdictBetter
	default:
		return bench.VerdictWorse
	}
}

// Regressions lists every figure of c, whole attack, stages and resources,
// that got worse by more than pct percent (percentage points for a
// percentage from a zero base; any worsening for other figures from a zero
// base), e.g. "go p99 +12.3% (105.2 ms -> 118.1 ms)". It ignores the noise
// threshold: pct is the caller's own tolerance.
func Regressions(c bench.Comparison, pct float64) []string {
	var found []string
	for _, t := range c.Targets {
		found = appendRegressions(found, t.Target, t.Metrics, pct)
		for _, s := range t.Stages {
			found = appendRegressions(found, t.Target+" "+stageLabel(s.Index, s.Name), s.Metrics, pct)
		}
		found = appendRegressions(found, t.Target, t.Resources, pct)
	}
	return found
}

func appendRegressions(found []string, scope string, deltas []bench.MetricDelta, pct float64) []string {
	for _, d := range deltas {
		if isRegression(d, pct) {
			found = append(found, fmt.Sprintf("%s %s %s (%s -> %s)", scope, d.Name, change(d),
				valueWithUnit(d.Base, d.Unit), valueWithUnit(d.Head, d.Unit)))
		}
	}
	return found
}

func isRegression(d bench.MetricDelta, pct float64) bool {
	if d.Head == d.Base || (d.Head > d.Base) == d.HigherIsBetter {
		return false
	}
	if d.Base == 0 && d.Unit != unitPercent {
		return true
	}
	return math.Abs(d.Change) > pct
}
