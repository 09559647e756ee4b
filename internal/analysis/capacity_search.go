package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/steady"
	"github.com/threadbench/threadbench/internal/units"
)

// A capacity run's stages are a search's trials, at rates the search chose
// target by target: stage i of one target is at another rate than stage i
// of the next, and a whole search averages trials at every rate it tried.
// Its report sets the targets side by side only where they are comparable:
// their answers (the rate each confirmed, beside its first failing rate),
// and the trials more than one target ran at the same rate for the same
// length.

// searched reports whether r is a capacity run.
func searched(r *bench.Run) bool {
	return r.Spec.Capacity != nil || slices.ContainsFunc(r.Targets, func(t bench.TargetResult) bool { return t.Capacity != nil })
}

// trialKey is what makes trials of different targets comparable: the
// same offered rate for the same length.
type trialKey struct {
	rate     float64
	duration bench.Duration
}

// first returns a result's first comparable trial at the key.
func (k trialKey) first(t *bench.TargetResult) (bench.StageResult, bool) {
	for _, s := range comparableTrials(t) {
		if s.Rate == k.rate && s.Duration == k.duration {
			return s, true
		}
	}
	return bench.StageResult{}, false
}

// comparableTrials are a result's measured trials that say something of
// the target: those with requests, less those the search found the load
// generator, not the target, limited (its scheduling lag is in their
// latency).
func comparableTrials(t *bench.TargetResult) []bench.StageResult {
	bound := map[int]bool{}
	if t.Capacity != nil {
		for _, step := range t.Capacity.Steps {
			bound[step.Stage] = step.GeneratorBound != "" || step.Disturbed != ""
		}
	}
	var out []bench.StageResult
	for _, s := range MeasuredStages(t) {
		if s.Stats.Requests > 0 && !bound[s.Index] {
			out = append(out, s)
		}
	}
	return out
}

// searchScopes are a search's scopes: the trials more than one subject
// ran at the same rate for the same length, by rising rate, each
// subject's first such trial (see comparableTrials).
func (a *analysis) searchScopes() []scopeDef {
	subjects := map[trialKey]int{}
	for _, s := range a.subjects {
		keys := map[trialKey]bool{}
		for _, t := range s.rounds {
			for _, st := range comparableTrials(t) {
				keys[trialKey{st.Rate, st.Duration}] = true
			}
		}
		for k := range keys {
			subjects[k]++
		}
	}
	var keys []trialKey
	for k, n := range subjects {
		if n > 1 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y trialKey) int {
		if x.rate != y.rate {
			return cmpFloat(x.rate, y.rate)
		}
		return int(x.duration - y.duration)
	})
	scopes := make([]scopeDef, len(keys))
	for i, k := range keys {
		scopes[i] = scopeDef{trial: &k, name: fmt.Sprintf("%s trials at %s req/s", k.duration, units.Rate(k.rate)),
			model: bench.ModelOf(bench.ModelOpen), rate: k.rate, duration: k.duration}
	}
	return scopes
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Searches returns what a report says of r's capacity searches (each
// target's trials, the answers ranked), without analysing the rest of the
// run; nil when r is no capacity run.
func Searches(r *bench.Run) *bench.SearchReport {
	return newAnalysis(r, ReportOptions{}).searches()
}

// searches lays out each label's search (its first round that searched)
// and ranks the answers.
func (a *analysis) searches() *bench.SearchReport {
	if a.search != nil || !searched(a.run) {
		return a.search
	}
	rep := &bench.SearchReport{Targets: []bench.TargetSearch{}}
	for _, s := range a.subjects {
		if t := searchOf(a.run, s.info.Label); t != nil {
			rep.Targets = append(rep.Targets, targetSearch(s.info.Label, t))
		}
	}
	rep.Answers = answersRank(rep.Targets)
	a.search = rep
	return rep
}

// searchOf returns the first round of a label that searched, or nil.
func searchOf(r *bench.Run, label string) *bench.TargetResult {
	for i := range r.Targets {
		if t := &r.Targets[i]; t.Label() == label && t.Capacity != nil {
			return t
		}
	}
	return nil
}

// targetSearch is one result's search, trial by trial, each against the
// objective's figure a chart draws.
func targetSearch(label string, t *bench.TargetResult) bench.TargetSearch {
	c := t.Capacity
	o, _ := bench.ParseObjective(c.Objective) // the search ran under it: it parsed then
	term := drawnTerm(o)
	ts := bench.TargetSearch{Target: label, Figure: string(term.Metric), Unit: UnitMs, Limit: term.Max, Rate: c.Rate,
		Trials: []bench.SearchTrial{}, Start: c.Start, StartFrom: c.StartFrom, Spent: c.Spent}
	scale := 1.0
	if !term.Metric.IsLatency() {
		ts.Unit, ts.Limit, scale = UnitPercent, term.Max*100, 100
	}
	if c.Failed != nil {
		ts.FailedRate = c.Failed.Rate
	}
	for _, step := range stepsOf(t, o) {
		trial := bench.SearchTrial{Stage: step.Stage, Phase: step.Phase, Rate: step.Rate, Throughput: step.Throughput,
			Pass: step.Pass, GeneratorBound: step.GeneratorBound != "", Verdict: verdictWords(step), Value: step.P99}
		if st, ok := stageAt(t, step.Stage); ok {
			trial.Value = term.Value(st.Stats) * scale
		}
		if step.Phase == capacity.PhaseConfirm {
			trial.Steady, trial.TooShort = steadyPartOf(t, step.Stage)
		}
		ts.Trials = append(ts.Trials, trial)
	}
	return ts
}

// drawnTerm is the term of an objective a search's chart draws: its first
// latency bound, else its first.
func drawnTerm(o bench.Objective) bench.Term {
	for _, term := range o.Terms {
		if term.Metric.IsLatency() {
			return term
		}
	}
	if len(o.Terms) == 0 {
		return bench.Term{Metric: bench.MetricP99}
	}
	return o.Terms[0]
}

// stepsOf returns a search's trials as it judged them: as the run kept
// them, or, for a run stored before it kept every trial, each stage judged
// again by the objective (the answer's confirmations and its first failing
// trial as the search judged them).
func stepsOf(t *bench.TargetResult, o bench.Objective) []bench.CapacityTrial {
	c := t.Capacity
	if len(c.Steps) > 0 {
		return c.Steps
	}
	judged := map[int]bench.CapacityTrial{}
	for _, conf := range c.Confirmations {
		conf.Pass = true
		judged[conf.Stage] = conf
	}
	if c.Failed != nil {
		judged[c.Failed.Stage] = *c.Failed
	}
	var steps []bench.CapacityTrial
	for _, st := range MeasuredStages(t) {
		step, ok := judged[st.Index]
		if !ok {
			phase, _, _ := strings.Cut(st.Name, " ")
			step = bench.CapacityTrial{Stage: st.Index, Phase: bench.CapacityPhase(phase), Rate: st.Rate, Throughput: st.Stats.Throughput, P99: st.Stats.Latency.P99}
			for _, v := range o.Check(st.Stats) {
				step.Violations = append(step.Violations, v.String())
			}
			step.Pass = len(step.Violations) == 0
		}
		steps = append(steps, step)
	}
	return steps
}

// stageAt returns a result's measured stage index.
func stageAt(t *bench.TargetResult, index int) (bench.StageResult, bool) {
	for _, st := range t.Stages {
		if st.Index == index && !st.Warmup {
			return st, true
		}
	}
	return bench.StageResult{}, false
}

// verdictWords says how the search judged a trial.
func verdictWords(step bench.CapacityTrial) string {
	var s string
	switch {
	case step.GeneratorBound != "":
		return "generator-bound: " + step.GeneratorBound
	case step.Disturbed != "":
		return "disturbed, asked again: " + step.Disturbed
	case step.Pass:
		s = "pass" + Suffix("; ", step.Warmed)
	default:
		s = "fail: " + strings.Join(step.Violations, ", ") + Suffix("; its first at a new rate, asked again: ", step.Cold) + Suffix("; ", step.Warmed)
	}
	return s + Suffix("; generator: ", step.GeneratorNote)
}

// steadyPartOf checks whether a trial's seconds settled: nil when it kept
// none, or too few to judge (tooShort).
func steadyPartOf(t *bench.TargetResult, index int) (part *bench.SteadyPart, tooShort bool) {
	seconds := SecondsOf(t, index)
	switch {
	case len(seconds) == 0:
		return nil, false
	case len(seconds) < steady.MinSeconds:
		return nil, true
	}
	p := steady.OfSeconds(seconds)
	sp := &bench.SteadyPart{Round: t.Round, Seconds: p.Seconds, Cut: p.Start, CutEnd: p.EndCut, Steady: p.Steady}
	if !p.Steady {
		sp.Figure, sp.Trend = p.Figure, p.Trend
	}
	return sp, false
}

// answersRank ranks the targets that confirmed a rate by it, best first;
// an entry is the same as the one above when their brackets overlap: it
// did not fail at a rate the one above carried. Nil for fewer than two.
func answersRank(targets []bench.TargetSearch) *bench.Rank {
	var answered []bench.TargetSearch
	for _, ts := range targets {
		if ts.Rate > 0 {
			answered = append(answered, ts)
		}
	}
	if len(answered) < 2 {
		return nil
	}
	slices.SortStableFunc(answered, func(x, y bench.TargetSearch) int { return cmpFloat(y.Rate, x.Rate) })
	r := &bench.Rank{Figure: "capacity", Unit: UnitReqPerSec, HigherIsBetter: true}
	for i, ts := range answered {
		e := bench.RankEntry{Label: ts.Target, Place: i + 1, Value: ts.Rate, Relative: ts.Rate / answered[0].Rate}
		if i > 0 {
			e.Same = !(ts.FailedRate > 0 && answered[i-1].Rate >= ts.FailedRate)
		}
		r.Entries = append(r.Entries, e)
	}
	return r
}

// searchFindings are a capacity run's findings after the targets'
// statuses: the warm-up, the answers ranked, whether each confirmation was
// steady, the trials more than one target ran at the highest such rate,
// the errors and flags at the answers.
func (a *analysis) searchFindings(scopes []*scopeData) []bench.Finding {
	var out []bench.Finding
	add := func(kind, text string) {
		if text != "" {
			out = append(out, bench.Finding{Kind: kind, Text: text})
		}
	}
	add(findSteady, a.warmupSentence())
	rep := a.searches()
	add(findThroughput, answersSentence(rep, a.run))
	for _, s := range confirmationSentences(rep) {
		add(findSteady, s)
	}
	if d := busiest(scopes); d != nil {
		for _, f := range []struct{ metric, words string }{{MetricThroughput, "Throughput"}, {MetricP99, "p99 latency"}} {
			if r, ok := RankOf(d.out, f.metric); ok {
				add(findThroughput, fmt.Sprintf("%s, %s, the highest rate more than one target ran: %s.", f.words, d.def.name, rankSentence(r, a.minEffect)))
			}
		}
	}
	add(findErrors, a.answerErrors())
	for _, s := range a.answerFlags() {
		add(findFlag, s)
	}
	return out
}

// answersSentence says the answers ranked: "Capacity within p99<=300ms,
// by the rate each confirmed: go 1550 req/s > java-platform 970 (failed at
// 1000) ≈ ...", > where a target failed at a rate the one before it
// carried, ≈ where their brackets overlap.
func answersSentence(rep *bench.SearchReport, r *bench.Run) string {
	if rep == nil || rep.Answers == nil {
		return ""
	}
	failed := map[string]float64{}
	for _, ts := range rep.Targets {
		failed[ts.Target] = ts.FailedRate
	}
	var b strings.Builder
	for i, e := range rep.Answers.Entries {
		switch {
		case i == 0:
		case e.Same:
			b.WriteString(" ≈ ")
		default:
			b.WriteString(" > ")
		}
		b.WriteString(e.Label + " " + units.Rate(e.Value))
		if i == 0 {
			b.WriteString(" req/s")
		}
		if f := failed[e.Label]; f > 0 {
			b.WriteString(" (failed at " + units.Rate(f) + ")")
		} else {
			b.WriteString(" (no rate failed)")
		}
	}
	return fmt.Sprintf("Capacity within %s, by the rate each confirmed: %s; > where a target failed at a rate the one before it carried, ≈ where their brackets overlap.",
		objectiveOf(r), b.String())
}

// objectiveOf is the objective a capacity run's searches met.
func objectiveOf(r *bench.Run) string {
	for _, t := range r.Targets {
		if t.Capacity != nil {
			return t.Capacity.Objective
		}
	}
	return ""
}

// confirmationSentences say whether the confirmations of each target's
// answer were steady: one sentence for those that all were, one per
// confirmation that was not, or kept too few seconds to tell. (A
// confirmation that failed is overloaded: its latency climbs by nature.)
func confirmationSentences(rep *bench.SearchReport) []string {
	if rep == nil {
		return nil
	}
	var steadyOnes, out []string
	for _, ts := range rep.Targets {
		n, ok := 0, 0
		for _, tr := range ts.Trials {
			if tr.Phase != capacity.PhaseConfirm || !tr.Pass || tr.Rate != ts.Rate {
				continue
			}
			n++
			switch {
			case tr.TooShort:
				out = append(out, fmt.Sprintf("%s's confirmation at %s req/s (trial %d) kept too few seconds for its steadiness to be judged (%d needed): lengthen the confirmations.",
					ts.Target, units.Rate(tr.Rate), tr.Stage+1, steady.MinSeconds))
			case tr.Steady == nil:
				out = append(out, fmt.Sprintf("%s's confirmation at %s req/s (trial %d) kept no per-second figures: its steadiness cannot be checked.",
					ts.Target, units.Rate(tr.Rate), tr.Stage+1))
			case !tr.Steady.Steady:
				out = append(out, fmt.Sprintf("%s's confirmation at %s req/s (trial %d) is not steady (%s): its figures come from a window still moving.",
					ts.Target, units.Rate(tr.Rate), tr.Stage+1, TrendWords(*tr.Steady, false)))
			default:
				ok++
			}
		}
		if n > 0 && ok == n {
			steadyOnes = append(steadyOnes, fmt.Sprintf("%s %d of %d", ts.Target, ok, n))
		}
	}
	if len(steadyOnes) > 0 {
		out = append([]string{"Confirmations steady (their per-second throughput and p50 settled): " + strings.Join(steadyOnes, ", ") + "."}, out...)
	}
	return out
}

// confirmations returns a result's stages that confirmed its answer.
func confirmations(t *bench.TargetResult) []bench.StageResult {
	var out []bench.StageResult
	for _, conf := range t.Capacity.Confirmations {
		if st, ok := stageAt(t, conf.Stage); ok {
			out = append(out, st)
		}
	}
	return out
}

// answerErrors says whether any request of any confirmation failed.
func (a *analysis) answerErrors() string {
	var failed []string
	for _, s := range a.subjects {
		t := searchOf(a.run, s.info.Label)
		if t == nil {
			continue
		}
		var requests, errors int64
		for _, st := range confirmations(t) {
			requests, errors = requests+st.Stats.Requests, errors+st.Stats.Requests-st.Stats.Successes
		}
		if errors > 0 {
			failed = append(failed, fmt.Sprintf("%s %d of %d", s.info.Label, errors, requests))
		}
	}
	if len(failed) == 0 {
		return "No errors at the answers: every request of every confirmation succeeded."
	}
	return "Requests failed in the confirmations: " + strings.Join(failed, ", ") + "."
}

// answerFlags name the confirmations whose figures may not be the
// target's alone (generator-bound, disturbed).
func (a *analysis) answerFlags() []string {
	var out []string
	for _, s := range a.subjects {
		t := searchOf(a.run, s.info.Label)
		if t == nil {
			continue
		}
		for _, st := range confirmations(t) {
			for _, f := range st.Flags {
				out = append(out, fmt.Sprintf("%s's confirmation at %s req/s (trial %d): %s (%s): its figures may measure something other than the target.",
					s.info.Label, units.Rate(st.Rate), st.Index+1, f.Kind, f.Reason))
			}
		}
	}
	return out
}

// DescribeSearch says what a capacity run searched for, for a report's
// header: "capacity search (open model) within p99<=300ms: 3s trials,
// 3 confirmations of 10s (2 to pass), precision 2%, budget 5m0s".
func DescribeSearch(c bench.CapacitySpec) string {
	budget := "the default budget"
	if c.Budget > 0 {
		budget = "budget " + c.Budget.String()
	}
	or := func(v, def bench.Duration) bench.Duration {
		if v == 0 {
			return def
		}
		return v
	}
	confirmations, precision := c.Confirmations, c.Precision
	if confirmations == 0 {
		confirmations = bench.DefaultCapacityConfirmations
	}
	if precision == 0 {
		precision = bench.DefaultCapacityPrecision
	}
	mustPass := c.MustPass
	if mustPass == 0 {
		mustPass = bench.MustPassOf(confirmations)
	}
	return fmt.Sprintf("capacity search (open model) within %s: %s trials, %d confirmations of %s (%d to pass), precision %g%%, %s",
		c.Objective, or(c.TrialDuration, bench.DefaultCapacityTrial), confirmations, or(c.ConfirmDuration, bench.DefaultCapacityConfirm),
		mustPass, precision*100, budget)
}
