package check

import (
	"fmt"
	"slices"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

// JudgedFigures are the figures of a comparison, whole attack and stage
// by stage, a check fails on when they got worse. The maximum is left
// out (one request decides it), and so are resources (threads, memory),
// which compare shows. Stages count because a whole attack that ramps is
// not tested: its seconds are not alike.
var JudgedFigures = []string{analysis.MetricThroughput, analysis.MetricP50, analysis.MetricP90,
	analysis.MetricP95, analysis.MetricP99, analysis.MetricErrorRate}

// Result is a check's verdict on one run: each objective's term per
// target, and each judged figure against the baseline.
type Result struct {
	Run        bench.RunRef       `json:"run"`
	Labels     map[string]string  `json:"labels,omitempty"`
	Baseline   *BaselineRef       `json:"baseline,omitempty"`
	Objectives []ObjectiveVerdict `json:"objectives"`
	Figures    []FigureVerdict    `json:"figures"`
	// Warnings are what makes the comparison doubtful (its own warnings),
	// and the targets it could not compare.
	Warnings []string `json:"warnings,omitempty"`
}

// BaselineRef is the run a check compared against, how it was chosen,
// and the rules its verdicts follow.
type BaselineRef struct {
	Run       bench.RunRef `json:"run"`
	ChosenBy  string       `json:"chosenBy"`  // the --baseline given: a run ID, or label:KEY=VALUE
	MinEffect float64      `json:"minEffect"` // percent: a smaller change is no change
	Alpha     float64      `json:"alpha"`     // the significance level of the tests
}

// ObjectiveVerdict is one term of an objective on one target: the figure
// measured and whether it holds.
type ObjectiveVerdict struct {
	Target   string  `json:"target"`
	Term     Term    `json:"term"`
	Measured float64 `json:"measured"`
	// Unmeasured is set when the target measured no request: the term
	// then fails.
	Unmeasured bool   `json:"unmeasured,omitempty"`
	Passed     bool   `json:"passed"`
	Message    string `json:"message"` // "go p99 312.4 ms > 250 ms"
}

// FigureVerdict is one judged figure of one target in one scope against
// the baseline: it fails when the comparison calls it worse.
type FigureVerdict struct {
	Target  string            `json:"target"`
	Scope   string            `json:"scope"` // ScopeWhole, or a stage: "stage 2 (plateau)"
	Delta   bench.MetricDelta `json:"delta"`
	Failed  bool              `json:"failed"`
	Message string            `json:"message"` // "go p99 +25.0% (10.0 ms -> 12.5 ms; p < 0.001, n = 10+10)"
}

// Against is a baseline's comparison with the run, and how it was chosen.
type Against struct {
	Comparison bench.Comparison
	ChosenBy   string
}

// Judge judges run against objectives, on the whole-attack figures of its
// report (latency recomputed from the histograms, the median of rounds),
// and, with a baseline, every judged figure of the comparison.
func Judge(run *bench.Run, objectives []Objective, against *Against) Result {
	r := Result{Run: bench.RunRef{ID: run.ID, Name: run.Name, Status: run.Status, CreatedAt: run.CreatedAt},
		Labels: run.Spec.Labels, Objectives: []ObjectiveVerdict{}, Figures: []FigureVerdict{}}
	whole := wholeAttack(analysis.Analyze(run, analysis.ReportOptions{}))
	for _, o := range objectives {
		for _, t := range o.Terms {
			r.Objectives = append(r.Objectives, judgeTerm(o.Target, t, whole))
		}
	}
	if against != nil {
		r.judgeBaseline(*against)
	}
	return r
}

// wholeAttack is the subjects' whole-attack figures by label.
func wholeAttack(rep bench.Report) map[string]bench.Figures {
	figures := map[string]bench.Figures{}
	for _, sc := range rep.Scopes {
		if sc.Stage != nil {
			continue
		}
		for _, res := range sc.Results {
			figures[res.Label] = res.Figures
		}
	}
	return figures
}

func judgeTerm(target string, t Term, whole map[string]bench.Figures) ObjectiveVerdict {
	v := ObjectiveVerdict{Target: target, Term: t}
	f, ok := whole[target]
	if !ok || f.Requests == 0 {
		v.Unmeasured = true
		v.Message = fmt.Sprintf("%s %s: no request measured", target, t)
		return v
	}
	v.Measured = t.measure(f)
	v.Passed = t.holds(v.Measured)
	v.Message = fmt.Sprintf("%s %s %s %s %s", target, t.Figure, analysis.ValueWithUnit(v.Measured, t.Unit),
		t.relation(v.Passed), analysis.ValueWithUnit(t.Bound, t.Unit))
	return v
}

// relation is the sign between a measured figure and the term's bound.
func (t Term) relation(held bool) string {
	switch {
	case t.AtLeast && held:
		return ">="
	case t.AtLeast:
		return "<"
	case held:
		return "<="
	}
	return ">"
}

func (r *Result) judgeBaseline(a Against) {
	c := a.Comparison
	r.Baseline = &BaselineRef{Run: c.Base, ChosenBy: a.ChosenBy, MinEffect: c.NoiseThreshold, Alpha: c.Alpha}
	r.Warnings = append(r.Warnings, c.Warnings...)
	for _, t := range c.Targets {
		r.judgeScope(t.Target, ScopeWhole, t.Metrics)
		if len(t.Stages) < 2 {
			continue // one stage is the whole attack: judged once
		}
		for _, st := range t.Stages {
			r.judgeScope(t.Target, analysis.StageLabel(st.Index, st.Name), st.Metrics)
		}
	}
	for _, label := range c.OnlyInBase {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s ran in the baseline but not in this run: not compared", label))
	}
	for _, label := range c.OnlyInHead {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s is new in this run: nothing to compare it with", label))
	}
}

// ScopeWhole names the whole attack among a figure's scopes.
const ScopeWhole = "whole attack"

// judgeScope adds the judged figures of one target's scope.
func (r *Result) judgeScope(target, scope string, deltas []bench.MetricDelta) {
	where := target
	if scope != ScopeWhole {
		where += " " + scope
	}
	for _, d := range deltas {
		if slices.Contains(JudgedFigures, d.Name) {
			r.Figures = append(r.Figures, FigureVerdict{Target: target, Scope: scope, Delta: d,
				Failed: d.Verdict == bench.VerdictWorse, Message: analysis.DeltaString(where, d)})
		}
	}
}

// Tested reports whether the comparison could test the figure: with too
// few values it is neither better nor worse, whatever it shows.
func (f FigureVerdict) Tested() bool { return f.Delta.Test != nil && analysis.Tested(*f.Delta.Test) }

// Passed reports whether every term held and no figure got worse.
func (r Result) Passed() bool { return len(r.Failures()) == 0 }

// Failures are the messages of the terms that did not hold and the
// figures that got worse, in that order.
func (r Result) Failures() []string {
	var failed []string
	for _, o := range r.Objectives {
		if !o.Passed {
			failed = append(failed, o.Message)
		}
	}
	for _, f := range r.Figures {
		if f.Failed {
			failed = append(failed, "regression: "+f.Message)
		}
	}
	return failed
}

// Changed are the figures the comparison calls better or worse.
func (r Result) Changed() []FigureVerdict {
	var changed []FigureVerdict
	for _, f := range r.Figures {
		if f.Delta.Verdict == bench.VerdictBetter || f.Delta.Verdict == bench.VerdictWorse {
			changed = append(changed, f)
		}
	}
	return changed
}
