package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

const scopeWhole = "the whole attack"

// targetComparer compares one target across two runs. Remarks about missing
// data go to notes, shared by all targets of a comparison.
type targetComparer struct {
	target    string
	threshold float64
	notes     *notes
}

func (tc targetComparer) compare(base, head *bench.TargetResult, withStages bool) bench.TargetComparison {
	tc.statusWarning("base", base)
	tc.statusWarning("head", head)
	out := bench.TargetComparison{Target: tc.target}
	out.Metrics = tc.figures(scopeWhole, wholeAttack(base), wholeAttack(head))
	if out.Metrics == nil {
		out.Metrics = []bench.MetricDelta{}
	}
	if withStages {
		out.Stages = tc.stages(base, head)
	}
	out.Resources = tc.resources(base, head)
	return out
}

func (tc targetComparer) statusWarning(side string, t *bench.TargetResult) {
	if t.Status == bench.TargetSucceeded {
		return
	}
	msg := fmt.Sprintf("%s %s in the %s run", tc.target, t.Status, side)
	if t.Status != bench.TargetFailed {
		msg = fmt.Sprintf("%s did not finish in the %s run (%s)", tc.target, side, t.Status)
	}
	if t.Error != "" {
		msg += ": " + t.Error
	}
	tc.notes.addLine(msg)
}

// measured is a set of requests of one scope (the whole attack or a stage)
// with the histograms its percentiles are recomputed from.
type measured struct {
	stats      bench.Stats
	histograms []string // nil when the latencies were kept without one
}

// wholeAttack returns the target's total, with its histogram or, failing
// that, the histograms of all its measured stages.
func wholeAttack(t *bench.TargetResult) measured {
	if t.Total == nil {
		return measured{}
	}
	m := measured{stats: *t.Total}
	if t.Total.Histogram != "" {
		m.histograms = []string{t.Total.Histogram}
		return m
	}
	stages := measuredStages(t)
	for _, s := range stages {
		if s.Stats.Histogram == "" {
			return m
		}
		m.histograms = append(m.histograms, s.Stats.Histogram)
	}
	return m
}

func stageMeasured(s bench.StageResult) measured {
	m := measured{stats: s.Stats}
	if s.Stats.Histogram != "" {
		m.histograms = []string{s.Stats.Histogram}
	}
	return m
}

// measuredStages returns the target's stages without warm-up, by index.
func measuredStages(t *bench.TargetResult) []bench.StageResult {
	var stages []bench.StageResult
	for _, s := range t.Stages {
		if !s.Warmup {
			stages = append(stages, s)
		}
	}
	sort.SliceStable(stages, func(i, j int) bool { return stages[i].Index < stages[j].Index })
	return stages
}

// figures compares throughput, latency percentiles and error rate of one
// scope, or returns nil when either run measured no request in it.
func (tc targetComparer) figures(scope string, base, head measured) []bench.MetricDelta {
	if base.stats.Requests == 0 || head.stats.Requests == 0 {
		side := "base and head runs"
		if base.stats.Requests != 0 {
			side = "head run"
		} else if head.stats.Requests != 0 {
			side = "base run"
		}
		tc.notes.add(fmt.Sprintf("%s: no requests measured in the %s for %%s; not compared", tc.target, side), scope)
		return nil
	}
	bl := tc.latency("base", scope, base)
	hl := tc.latency("head", scope, head)
	delta := func(name, unit string, b, h float64, higherIsBetter bool) bench.MetricDelta {
		return newDelta(name, unit, b, h, higherIsBetter, tc.threshold)
	}
	return []bench.MetricDelta{
		delta(metricThroughput, unitReqPerSec, base.stats.Throughput, head.stats.Throughput, true),
		delta(metricP50, unitMs, bl.P50, hl.P50, false),
		delta(metricP90, unitMs, bl.P90, hl.P90, false),
		delta(metricP95, unitMs, bl.P95, hl.P95, false),
		delta(metricP99, unitMs, bl.P99, hl.P99, false),
		delta(metricMax, unitMs, bl.Max, hl.Max, false),
		delta(metricErrorRate, unitPercent, ErrorRate(base.stats), ErrorRate(head.stats), false),
	}
}

// latency recomputes the percentiles of m from its histograms, or falls back
// to the stored summary and notes it.
func (tc targetComparer) latency(side, scope string, m measured) bench.Latency {
	if m.histograms == nil {
		tc.notes.add(fmt.Sprintf("%s: no latency histogram in the %s run for %%s; stored percentiles used", tc.target, side), scope)
		return m.stats.Latency
	}
	h, err := hdr.Merge(m.histograms...)
	if err != nil {
		tc.notes.add(fmt.Sprintf("%s: unreadable latency histogram in the %s run for %%s (%s); stored percentiles used", tc.target, side, escape(err.Error())), scope)
		return m.stats.Latency
	}
	return hdr.Summarize(h)
}

// stages compares the stages both runs measured, pairing them by index. A
// target that failed part-way measured fewer stages; the rest are noted.
func (tc targetComparer) stages(base, head *bench.TargetResult) []bench.StageComparison {
	baseStages, headStages := byIndex(measuredStages(base)), byIndex(measuredStages(head))
	var out []bench.StageComparison
	for _, bs := range measuredStages(base) {
		scope := stageLabel(bs.Index, bs.Name)
		hs, ok := headStages[bs.Index]
		if !ok {
			tc.notes.add(fmt.Sprintf("%s: %%s not measured in the head run; not compared", tc.target), scope)
			continue
		}
		if metrics := tc.figures(scope, stageMeasured(bs), stageMeasured(hs)); metrics != nil {
			out = append(out, bench.StageComparison{Index: bs.Index, Name: bs.Name, Metrics: metrics})
		}
	}
	for _, hs := range measuredStages(head) {
		if _, ok := baseStages[hs.Index]; !ok {
			tc.notes.add(fmt.Sprintf("%s: %%s not measured in the base run; not compared", tc.target), stageLabel(hs.Index, hs.Name))
		}
	}
	return out
}

func byIndex(stages []bench.StageResult) map[int]bench.StageResult {
	m := make(map[int]bench.StageResult, len(stages))
	for _, s := range stages {
		m[s.Index] = s
	}
	return m
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
