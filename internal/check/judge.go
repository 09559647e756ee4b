package check

import (
	"fmt"
	"slices"
	"strings"

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
	Figures   []string     `json:"figures"`   // the figures judged: JudgedFigures, or those --figures named
}

// judged is the figures the baseline's comparison judges.
func (a Against) judged() []string {
	if len(a.Figures) == 0 {
		return JudgedFigures
	}
	return a.Figures
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
	Target string            `json:"target"`
	Scope  string            `json:"scope"` // ScopeWhole, or a stage: "stage 2 (plateau)"
	Delta  bench.MetricDelta `json:"delta"`
	Failed bool              `json:"failed"`
	// Untested is set on a figure that moved the worse way by at least
	// the minimum effect with too few values for a test: it fails, since a
	// gate cannot call a change it could not test no change.
	Untested bool   `json:"untested,omitempty"`
	Message  string `json:"message"` // "go p99 +25.0% (10.0 ms -> 12.5 ms; p < 0.001, n = 10+10)"
}

// Against is a baseline's comparison with the run, how it was chosen,
// and the figures judged against it (JudgedFigures when empty).
type Against struct {
	Comparison bench.Comparison
	ChosenBy   string
	Figures    []string
}

// Judge judges run against objectives, on the whole-attack figures of its
// report (latency recomputed from the histograms, the median of rounds),
// and, with a baseline, every judged figure of the comparison.
func Judge(run *bench.Run, objectives []Objective, against *Against) Result {
	r := Result{Run: bench.RunRef{ID: run.ID, Name: run.Name, Status: run.Status, CreatedAt: run.CreatedAt},
		Labels: run.Spec.Labels, Objectives: []ObjectiveVerdict{}, Figures: []FigureVerdict{}}
	whole := WholeAttack(analysis.Analyze(run, analysis.ReportOptions{}))
	for _, o := range objectives {
		for _, t := range o.Terms {
			if t.Figure == FigureCapacity {
				r.Objectives = append(r.Objectives, judgeCapacity(o.Target, t, run.Targets))
				continue
			}
			r.Objectives = append(r.Objectives, judgeTerm(o.Target, t, whole))
		}
	}
	if against != nil {
		r.judgeBaseline(*against)
	}
	return r
}

// WholeAttack is the subjects' whole-attack figures by label.
func WholeAttack(rep bench.Report) map[string]bench.Figures {
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

// judgeCapacity judges a capacity term on the search's answer for target
// (its first round's, a search's rounds being one). An answer the search
// could not confirm (the budget ended first) does not pass: a gate takes
// no answer of lower confidence for one.
func judgeCapacity(target string, t Term, results []bench.TargetResult) ObjectiveVerdict {
	v := ObjectiveVerdict{Target: target, Term: t}
	i := slices.IndexFunc(results, func(tr bench.TargetResult) bool { return tr.Label() == target && tr.Capacity != nil })
	if i < 0 {
		v.Unmeasured = true
		v.Message = fmt.Sprintf("%s %s: no capacity found", target, t)
		return v
	}
	c := results[i].Capacity
	v.Measured = c.Rate
	v.Passed = t.holds(c.Rate) && c.Unconfirmed == ""
	v.Message = fmt.Sprintf("%s capacity %s %s %s (%s)", target, analysis.ValueWithUnit(c.Rate, t.Unit),
		t.relation(t.holds(c.Rate)), analysis.ValueWithUnit(t.Bound, t.Unit), c.Objective)
	if c.Unconfirmed != "" {
		v.Message += ", not confirmed: " + c.Unconfirmed
	}
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
	r.Baseline = &BaselineRef{Run: c.Base, ChosenBy: a.ChosenBy, MinEffect: c.NoiseThreshold, Alpha: c.Alpha, Figures: a.judged()}
	r.Warnings = append(r.Warnings, c.Warnings...)
	for _, t := range c.Targets {
		// One stage is the whole attack: judged once. Of several, the
		// stages are tested; the whole attack is not (its seconds are not
		// alike), so it cannot fail untested.
		staged := len(t.Stages) >= 2
		r.judgeScope(t.Target, ScopeWhole, t.Metrics, !staged)
		if !staged {
			continue
		}
		for _, st := range t.Stages {
			r.judgeScope(t.Target, analysis.StageLabel(st.Index, st.Name), st.Metrics, true)
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

// judgeScope adds the judged figures of one target's scope; where tested
// is set the scope's figures are meant to be tested, and one that got
// worse untested fails.
func (r *Result) judgeScope(target, scope string, deltas []bench.MetricDelta, tested bool) {
	where := target
	if scope != ScopeWhole {
		where += " " + scope
	}
	for _, d := range deltas {
		if !slices.Contains(r.Baseline.Figures, d.Name) {
			continue
		}
		f := FigureVerdict{Target: target, Scope: scope, Delta: d, Failed: d.Verdict == bench.VerdictWorse, Message: analysis.DeltaString(where, d)}
		if tested && !f.Tested() && analysis.WorseByEffect(d, r.Baseline.MinEffect) {
			f.Failed, f.Untested = true, true
			f.Message += ": too few values to test it; lengthen the run"
		}
		r.Figures = append(r.Figures, f)
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

// Changed are the figures the comparison calls better or worse, and
// those that failed untested.
func (r Result) Changed() []FigureVerdict {
	var changed []FigureVerdict
	for _, f := range r.Figures {
		if f.Delta.Verdict == bench.VerdictBetter || f.Delta.Verdict == bench.VerdictWorse || f.Untested {
			changed = append(changed, f)
		}
	}
	return changed
}

// FieldFigures is the flag that names the figures judged against a
// baseline, which its errors name.
const FieldFigures = "--figures"

// ParseFigures reads the figures a baseline's comparison judges, a
// comma-separated list of JudgedFigures ("throughput,p99"): on a shared
// CI runner the latency of a short run may move with its neighbours
// while its throughput holds.
func ParseFigures(s string) ([]string, error) {
	var figures []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(JudgedFigures, name) {
			return nil, bench.FieldErrorf(FieldFigures, "%q is not a judged figure: want some of %s", name, strings.Join(JudgedFigures, ", "))
		}
		if slices.Contains(figures, name) {
			return nil, bench.FieldErrorf(FieldFigures, "%q is named twice", name)
		}
		figures = append(figures, name)
	}
	return figures, nil
}
