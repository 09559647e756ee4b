package analysis

import (
	"fmt"
	"math"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/stats"
)

// Figure names and units of the MetricDeltas Compare produces.
const (
	MetricThroughput = "throughput"
	MetricP50        = "p50"
	MetricP90        = "p90"
	MetricP95        = "p95"
	MetricP99        = "p99"
	MetricMax        = "max"
	MetricErrorRate  = "errorRate"

	UnitReqPerSec  = "req/s"
	UnitMs         = "ms"
	UnitPercent    = "%"
	UnitThreads    = "threads"
	UnitGoroutines = "goroutines"
	UnitMiB        = "MiB"
	UnitSeconds    = "s"
	UnitPauses     = "pauses"
	UnitClients    = "clients" // a load model's level, in the closed model
)

// CompareOptions tune Compare.
type CompareOptions struct {
	// NoiseThreshold is the smallest change, in percent, that a verdict
	// calls better or worse: the least a user cares about. Zero or less
	// means bench.DefaultNoiseThreshold.
	NoiseThreshold float64
}

// Compare compares every label (target, or case) present in both runs, or,
// when each run has one label and they differ, those two: the whole attack, each stage when the two profiles have the same shape, and
// resource use. Latency percentiles are recomputed from the stored
// histograms. A figure is better or worse only when the two runs differ
// significantly (stats.Verdict: Mann-Whitney U at alpha 0.05 on per-round
// values, or on batch means of per-second values when either run has one
// round) and by at least the noise threshold; otherwise there is no
// significant difference. Differences that make the comparison doubtful
// (specs, environments, failed targets, missing histograms) are compared
// anyway and listed in Warnings.
func Compare(base, head *bench.Run, opts CompareOptions) bench.Comparison {
	threshold := opts.NoiseThreshold
	if threshold <= 0 {
		threshold = bench.DefaultNoiseThreshold
	}
	c := bench.Comparison{
		Base:           refOf(base),
		Head:           refOf(head),
		NoiseThreshold: threshold,
		Alpha:          stats.DefaultAlpha,
		Targets:        []bench.TargetComparison{},
	}
	c.Warnings = runWarnings(base, head)
	withStages, why := stagesComparable(base, head)
	if !withStages {
		c.Warnings = append(c.Warnings, "stages were not compared: "+why)
	}
	n := &notes{}
	ba, ha := newAnalysis(base, ReportOptions{MinEffect: threshold}), newAnalysis(head, ReportOptions{MinEffect: threshold})
	if bs, hs, ok := onlySubjects(ba, ha); ok {
		// One target each, not the same: the question is how they differ.
		c.Warnings = append(c.Warnings, fmt.Sprintf("each run has one target: %s (base) is compared with %s (head)", bs.info.Label, hs.info.Label))
		tc := targetComparer{target: bs.info.Label + " -> " + hs.info.Label, threshold: threshold, notes: n,
			base: side{"base", ba, bs, resultsOf(base, bs.info.Label)},
			head: side{"head", ha, hs, resultsOf(head, hs.info.Label)}}
		c.Targets = append(c.Targets, tc.compare(withStages))
		c.Warnings = append(c.Warnings, n.lines()...)
		return c
	}
	for _, bs := range ba.subjects {
		hs := ha.subject(bs.info.Label)
		if hs == nil {
			c.OnlyInBase = append(c.OnlyInBase, bs.info.Label)
			continue
		}
		tc := targetComparer{target: bs.info.Label, threshold: threshold, notes: n,
			base: side{"base", ba, bs, resultsOf(base, bs.info.Label)},
			head: side{"head", ha, hs, resultsOf(head, hs.info.Label)}}
		c.Targets = append(c.Targets, tc.compare(withStages))
	}
	for _, hs := range ha.subjects {
		if ba.subject(hs.info.Label) == nil {
			c.OnlyInHead = append(c.OnlyInHead, hs.info.Label)
		}
	}
	c.Warnings = append(c.Warnings, n.lines()...)
	return c
}

// onlySubjects returns the one label of each run when each has exactly
// one and they differ, such as a run of java-platform against one of
// java-virtual.
func onlySubjects(base, head *analysis) (*subject, *subject, bool) {
	if len(base.subjects) != 1 || len(head.subjects) != 1 || base.subjects[0].info.Label == head.subjects[0].info.Label {
		return nil, nil, false
	}
	return base.subjects[0], head.subjects[0], true
}

// resultsOf returns every round of a label in a run.
func resultsOf(r *bench.Run, label string) []*bench.TargetResult {
	var out []*bench.TargetResult
	for i := range r.Targets {
		if r.Targets[i].Label() == label {
			out = append(out, &r.Targets[i])
		}
	}
	return out
}

func refOf(r *bench.Run) bench.RunRef {
	return bench.RunRef{ID: r.ID, Name: r.Name, Status: r.Status, CreatedAt: r.CreatedAt}
}

// delta compares one figure, from its value in each run and the samples
// its test rests on. Change is relative, in percent, except from a zero
// base, where a relative change would be infinite: there it is the
// absolute difference in the figure's unit (percentage points for
// percentages).
func (tc targetComparer) delta(name, unit string, base, head float64, higherIsBetter bool, baseSamples, headSamples []float64, kind string) bench.MetricDelta {
	d := bench.MetricDelta{Name: name, Unit: unit, Base: base, Head: head, HigherIsBetter: higherIsBetter}
	if base == 0 {
		d.Change = head - base
	} else {
		// Multiplying before dividing keeps exact inputs exact, so that a
		// change of exactly the threshold is not under it by rounding.
		d.Change = (head - base) * 100 / math.Abs(base)
	}
	_, test, _ := stats.Verdict(baseSamples, headSamples, higherIsBetter, 0, tc.base.a.alpha)
	sig := toSignificance(test, kind)
	d.Test = &sig
	within := withinEffect(d.Change, base, head, unit, tc.threshold)
	d.Verdict = decide(test, baseSamples, headSamples, base, head, higherIsBetter, within)
	return d
}

// withinEffect reports whether a figure moved by less than the minimum
// effect (percent): from a zero base, a percentage by its points, and any
// other figure by not moving at all.
func withinEffect(change, base, head float64, unit string, minEffect float64) bool {
	if base == 0 && unit != UnitPercent {
		return head == 0
	}
	return math.Abs(change) < minEffect
}

// WorseByEffect reports whether a compared figure moved the worse way by
// at least the minimum effect, whatever its test says: what a verdict of
// worse needs besides a significant test.
func WorseByEffect(d bench.MetricDelta, minEffect float64) bool {
	if d.Head == d.Base || (d.Head > d.Base) == d.HigherIsBetter {
		return false
	}
	return !withinEffect(d.Change, d.Base, d.Head, d.Unit, minEffect)
}

// decide is a verdict: better or worse only when the test is significant,
// the figures moved by at least the minimum effect (within is false), and
// the values the test rests on moved the same way as the figures.
func decide(test stats.Test, baseSamples, headSamples []float64, base, head float64, higherIsBetter, within bool) string {
	if !test.Significant || within || head == base {
		return bench.VerdictNoDifference
	}
	up := head > base
	if samplesUp := medianOf(headSamples) > medianOf(baseSamples); samplesUp != up {
		return bench.VerdictNoDifference
	}
	if up == higherIsBetter {
		return bench.VerdictBetter
	}
	return bench.VerdictWorse
}

// Regressions lists every figure of c, whole attack, stages and resources,
// that got significantly worse (its test significant at the comparison's
// alpha) by more than pct percent (percentage points for a percentage from
// a zero base; any worsening for other figures from a zero base), e.g. "go
// p99 +12.3% (105.2 ms -> 118.1 ms; p < 0.001, n = 10+10)". pct is the
// caller's own tolerance, apart from the noise threshold.
func Regressions(c bench.Comparison, pct float64) []string {
	var found []string
	for _, t := range c.Targets {
		found = appendRegressions(found, t.Target, t.Metrics, pct)
		for _, s := range t.Stages {
			found = appendRegressions(found, t.Target+" "+StageLabel(s.Index, s.Name), s.Metrics, pct)
		}
		found = appendRegressions(found, t.Target, t.Resources, pct)
	}
	return found
}

func appendRegressions(found []string, scope string, deltas []bench.MetricDelta, pct float64) []string {
	for _, d := range deltas {
		if isRegression(d, pct) {
			found = append(found, DeltaString(scope, d))
		}
	}
	return found
}

// DeltaString says how a compared figure moved, with the test behind its
// verdict: "go p99 +12.3% (105.2 ms -> 118.1 ms; p < 0.001, n = 10+10)".
func DeltaString(scope string, d bench.MetricDelta) string {
	s := fmt.Sprintf("%s %s %s (%s -> %s", scope, d.Name, Change(d), ValueWithUnit(d.Base, d.Unit), ValueWithUnit(d.Head, d.Unit))
	if d.Test != nil {
		s += "; " + TestString(*d.Test)
	}
	return s + ")"
}

func isRegression(d bench.MetricDelta, pct float64) bool {
	if d.Test == nil || !d.Test.Significant || d.Head == d.Base || (d.Head > d.Base) == d.HigherIsBetter {
		return false
	}
	if d.Base == 0 && d.Unit != UnitPercent {
		return true
	}
	return math.Abs(d.Change) > pct
}
