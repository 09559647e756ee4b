package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

const scopeWhole = "the whole attack"

// targetComparer compares one label (a target, or a case) across two runs:
// the figures of its rounds in each. Remarks about missing data go to
// notes, shared by all targets of a comparison.
type targetComparer struct {
	target     string
	threshold  float64
	notes      *notes
	base, head side
}

// side is one run of a comparison: its analysis and the label's subject.
type side struct {
	name string // "base" or "head"
	a    *analysis
	s    *subject
	all  []*bench.TargetResult // every round of the label, measured or not
}

func (tc targetComparer) compare(withStages bool) bench.TargetComparison {
	for _, sd := range []side{tc.base, tc.head} {
		for _, t := range sd.all {
			tc.statusWarning(sd.name, t)
			tc.flagWarnings(sd.name, t)
		}
	}
	out := bench.TargetComparison{Target: tc.target}
	if searched(tc.base.a.run) || searched(tc.head.a.run) {
		return tc.answers(out)
	}
	out.Metrics = tc.figures(scopeWhole, tc.scopeOf(tc.base, nil), tc.scopeOf(tc.head, nil))
	if out.Metrics == nil {
		out.Metrics = []bench.MetricDelta{}
	}
	if withStages {
		out.Stages = tc.stages()
	}
	out.Resources = tc.resources()
	return out
}

// answers compares two capacity searches by their answers only: a whole
// search averages trials at every rate it tried, and its trial i is at
// another rate than the other's.
func (tc targetComparer) answers(out bench.TargetComparison) bench.TargetComparison {
	out.Metrics = []bench.MetricDelta{}
	if d, ok := tc.capacity(); ok {
		out.Metrics = append(out.Metrics, d)
	}
	return out
}

// capacity compares two capacity searches' answers: the highest rate each
// confirmed, tested on the throughput of their confirmations. Only when
// both runs searched under the same objective; a warning says why not.
func (tc targetComparer) capacity() (bench.MetricDelta, bool) {
	base, head := firstCapacity(tc.base.all), firstCapacity(tc.head.all)
	switch {
	case base == nil && head == nil:
		return bench.MetricDelta{}, false
	case base == nil || head == nil:
		tc.notes.addLine(fmt.Sprintf("%s: only one run is a capacity search; its answer is not compared", tc.target))
		return bench.MetricDelta{}, false
	case base.Objective != head.Objective:
		tc.notes.addLine(fmt.Sprintf("%s: the capacity searches had different objectives (%s; %s); their answers are not compared", tc.target, base.Objective, head.Objective))
		return bench.MetricDelta{}, false
	}
	return tc.delta("capacity", UnitReqPerSec, base.Rate, head.Rate, true, confirmedThroughputs(base), confirmedThroughputs(head), samplesConfirmations), true
}

// firstCapacity returns the first round's capacity answer, nil for none.
func firstCapacity(rounds []*bench.TargetResult) *bench.CapacityResult {
	for _, t := range rounds {
		if t.Capacity != nil {
			return t.Capacity
		}
	}
	return nil
}

// confirmedThroughputs are what the confirmations at the answer served.
func confirmedThroughputs(c *bench.CapacityResult) []float64 {
	var out []float64
	for _, t := range c.Confirmations {
		out = append(out, t.Throughput)
	}
	return out
}

func (tc targetComparer) statusWarning(side string, t *bench.TargetResult) {
	if t.Status == bench.TargetSucceeded {
		return
	}
	msg := fmt.Sprintf("%s %s in the %s run", t.Key(), t.Status, side)
	if t.Status != bench.TargetFailed {
		msg = fmt.Sprintf("%s did not finish in the %s run (%s)", t.Key(), side, t.Status)
	}
	if t.Error != "" {
		msg += ": " + t.Error
	}
	tc.notes.addLine(msg)
}

// flagWarnings lists the stages whose figures may not be the target's
// alone (generator-bound, disturbed), with the figures that say so.
func (tc targetComparer) flagWarnings(side string, t *bench.TargetResult) {
	for _, s := range MeasuredStages(t) {
		for _, f := range s.Flags {
			tc.notes.addLine(fmt.Sprintf("%s %s in the %s run: %s (%s)", t.Key(), StageLabel(s.Index, s.Name), side, f.Kind, f.Reason))
		}
	}
}

// scopeOf returns a side's rounds in the whole attack (stage nil) or one
// stage, or nil when no round measured it.
func (tc targetComparer) scopeOf(sd side, stage *int) *scopeSubject {
	sc := wholeScope(sd.a.run, sd.a.stages)
	if stage != nil {
		var ok bool
		if sc, ok = sd.a.stageScope(*stage); !ok {
			return nil
		}
	}
	return sd.a.subjectIn(sd.s, sc)
}

// Measured is a set of requests of one scope (the whole attack or a stage)
// with the histograms its percentiles are recomputed from.
type Measured struct {
	Stats      bench.Stats
	Histograms []string // nil when the latencies were kept without one
}

// WholeAttack returns the target's total, with its histogram or, failing
// that, the histograms of all its measured stages.
func WholeAttack(t *bench.TargetResult) Measured {
	if t.Total == nil {
		return Measured{}
	}
	m := Measured{Stats: *t.Total}
	if t.Total.Histogram != "" {
		m.Histograms = []string{t.Total.Histogram}
		return m
	}
	stages := MeasuredStages(t)
	for _, s := range stages {
		if s.Stats.Histogram == "" {
			return m
		}
		m.Histograms = append(m.Histograms, s.Stats.Histogram)
	}
	return m
}

// StageMeasured is a stage's figures as measured, with its histogram when stored.
func StageMeasured(s bench.StageResult) Measured {
	m := Measured{Stats: s.Stats}
	if s.Stats.Histogram != "" {
		m.Histograms = []string{s.Stats.Histogram}
	}
	return m
}

// MeasuredStages returns the target's stages without warm-up, by index.
func MeasuredStages(t *bench.TargetResult) []bench.StageResult {
	var stages []bench.StageResult
	for _, s := range t.Stages {
		if !s.Warmup {
			stages = append(stages, s)
		}
	}
	sort.SliceStable(stages, func(i, j int) bool { return stages[i].Index < stages[j].Index })
	return stages
}

// comparedFigures are the figures compare sets side by side, in order.
var comparedFigures = []figure{figThroughput, figP50, figP90, figP95, figP99, figMax, figErrorRate}

// figures compares throughput, latency percentiles and error rate of one
// scope, or returns nil when either run measured no request in it.
func (tc targetComparer) figures(scope string, base, head *scopeSubject) []bench.MetricDelta {
	if base == nil || head == nil {
		side := "base and head runs"
		if base != nil {
			side = "head run"
		} else if head != nil {
			side = "base run"
		}
		tc.notes.add(fmt.Sprintf("%s: no requests measured in the %s for %%s; not compared", escape(tc.target), side), scope)
		return nil
	}
	tc.latencyNotes("base", scope, base)
	tc.latencyNotes("head", scope, head)
	kind := samplesKind(base, head)
	deltas := make([]bench.MetricDelta, len(comparedFigures))
	for i, f := range comparedFigures {
		deltas[i] = tc.delta(f.name, f.unit, base.values[f.name], head.values[f.name], f.higherIsBetter,
			base.samples(f, kind), head.samples(f, kind), kind)
	}
	return deltas
}

// latencyNotes notes the rounds whose percentiles come from the stored
// summary: no histogram was kept, or it could not be read.
func (tc targetComparer) latencyNotes(side, scope string, ss *scopeSubject) {
	for _, p := range ss.plains {
		switch {
		case p.histErr != nil:
			tc.notes.add(fmt.Sprintf("%s: unreadable latency histogram in the %s run for %%s (%s); stored percentiles used",
				escape(tc.target), side, escape(p.histErr.Error())), scope)
		case p.storedLatency && p.Requests > p.Errors:
			tc.notes.add(fmt.Sprintf("%s: no latency histogram in the %s run for %%s; stored percentiles used", escape(tc.target), side), scope)
		}
	}
}

// stages compares the stages both runs measured, pairing them by index. A
// target that failed part-way measured fewer stages; the rest are noted.
func (tc targetComparer) stages() []bench.StageComparison {
	var out []bench.StageComparison
	for _, sc := range tc.base.a.stages {
		base := tc.scopeOf(tc.base, sc.stage)
		if base == nil {
			continue
		}
		head := tc.scopeOf(tc.head, sc.stage)
		if head == nil {
			tc.notes.add(fmt.Sprintf("%s: %%s not measured in the head run; not compared", escape(tc.target)), sc.name)
			continue
		}
		if metrics := tc.figures(sc.name, base, head); metrics != nil {
			out = append(out, bench.StageComparison{Index: *sc.stage, Name: sc.stageName, Metrics: metrics})
		}
	}
	for _, sc := range tc.head.a.stages {
		if tc.scopeOf(tc.head, sc.stage) != nil && tc.scopeOf(tc.base, sc.stage) == nil {
			tc.notes.add(fmt.Sprintf("%s: %%s not measured in the base run; not compared", escape(tc.target)), sc.name)
		}
	}
	return out
}

// ErrorRate returns the percentage of requests that did not succeed, or 0
// with no requests.
func ErrorRate(s bench.Stats) float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.Requests-s.Successes) * 100 / float64(s.Requests)
}

// escape protects text from fmt when it becomes part of a format.
func escape(s string) string { return strings.ReplaceAll(s, "%", "%%") }
