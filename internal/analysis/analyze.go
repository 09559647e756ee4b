package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/scalability"
	"github.com/threadbench/threadbench/internal/stats"
	"github.com/threadbench/threadbench/internal/units"
)

// ReportOptions tune Analyze.
type ReportOptions struct {
	// MinEffect is the smallest relative difference, in percent, that a
	// verdict calls better or worse: the least a user cares about.
	// bench.DefaultNoiseThreshold when zero or less.
	MinEffect float64
	// MaxErrors is the share of a window's requests (0..1) that may fail
	// for a verdict to be drawn from it: a subject whose errors exceed it
	// in a scope is left out of that scope's ranks and pairs, as one that
	// was not steady is (its fast failures would read as speed).
	// bench.DefaultMaxErrors when zero or less.
	MaxErrors float64
}

// Latency notes, by load model.
const (
	latencyNoteOpen = "Open model: latency runs from each request's scheduled send time (coordinated omission corrected), " +
		"so waiting for a free connection counts; throughput counts successful responses in each window (a hold stage's " +
		"each over the time it was in flight), and a request's latency stays with the window it was scheduled in."
	latencyNoteClosed = "Closed model: latency runs from when a client sends a request to its response; throughput counts " +
		"successful responses in each window (a hold stage's each over the time it was in flight, which clients in step " +
		"do not alias), and a request's latency stays with the window it was sent in."
)

// analysis is the state of one Analyze call.
type analysis struct {
	run       *bench.Run
	est       estimator
	alpha     float64
	minEffect float64
	maxErrors float64 // ReportOptions.MaxErrors
	subjects  []*subject
	stages    []scopeDef
	notes     *notes
	search    *bench.SearchReport // a capacity run's searches, once laid out
}

// Analyze computes the report of a run from what it stores: every label
// (target or case) side by side for the whole attack and per stage, each
// figure with its interval, ranks, the pairs users ask about, bounds and
// findings. Latency percentiles are recomputed from the stored histograms.
func Analyze(r *bench.Run, opts ReportOptions) bench.Report {
	a := newAnalysis(r, opts)
	rep := a.header()
	var scopes []*scopeData
	for _, sc := range a.scopeDefs() {
		if d := a.scope(sc); len(d.subs) > 0 {
			scopes = append(scopes, d)
			rep.Scopes = append(rep.Scopes, d.out)
		}
	}
	rep.Searches = a.searches()
	rep.Findings = a.findings(scopes)
	a.methodNotes(scopes)
	rep.Notes = a.notes.lines()
	rep.Capacity, rep.Scalability = CapacityTable(r), scalability.FitRun(r)
	a.variants(&rep, scopes)
	rep.Why = a.why(rep)
	rep.Findings = append(rep.Findings, whyFindings(rep.Why)...)
	return rep
}

// newAnalysis prepares the analysis of a run: its subjects and stages.
func newAnalysis(r *bench.Run, opts ReportOptions) *analysis {
	if opts.MinEffect <= 0 {
		opts.MinEffect = bench.DefaultNoiseThreshold
	}
	if opts.MaxErrors <= 0 {
		opts.MaxErrors = bench.DefaultMaxErrors
	}
	return &analysis{run: r, est: estimator{confidence: stats.DefaultConfidence}, alpha: stats.DefaultAlpha,
		minEffect: opts.MinEffect, maxErrors: opts.MaxErrors, subjects: subjectsOf(r), stages: stageScopes(r), notes: &notes{}}
}

// subject returns the subject of a label, or nil.
func (a *analysis) subject(label string) *subject {
	for _, s := range a.subjects {
		if s.info.Label == label {
			return s
		}
	}
	return nil
}

// stageScope returns the scope of stage index, or false when no result
// measured it.
func (a *analysis) stageScope(index int) (scopeDef, bool) {
	for _, sc := range a.stages {
		if *sc.stage == index {
			return sc, true
		}
	}
	return scopeDef{}, false
}

func (a *analysis) header() bench.Report {
	r := a.run
	rep := bench.Report{
		Run: refOf(r), Profile: fmt.Sprintf("%s (%s model): %s", units.OrDash(r.Spec.Profile.Name), r.Spec.Profile.LoadModel().Name(), DescribeStages(r.Spec.Profile)),
		Model: r.Spec.Profile.LoadModel().Name(), Workload: DescribeWorkload(EffectiveWorkload(r.Spec)),
		Limits: DescribeLimits(r.Spec.Limits) + " per target", Environment: r.Environment,
		Rounds: r.Spec.Rounds(), Confidence: a.est.confidence, Alpha: a.alpha, MinEffect: a.minEffect,
		Subjects: []bench.ReportSubject{}, Scopes: []bench.ReportScope{}, Findings: []bench.Finding{},
	}
	if c := r.Spec.Capacity; c != nil {
		rep.Profile = DescribeSearch(*c)
	}
	rep.Method = fmt.Sprintf("median of %d rounds; Mann-Whitney U on per-round values", rep.Rounds)
	if rep.Rounds < 2 {
		rep.Method = "one round: within-run intervals (batch means of per-second values of a stage's steady part); Mann-Whitney U on batch means"
	}
	rep.LatencyNote = latencyNoteOpen
	if !r.Spec.Profile.LoadModel().ScheduledLatency() {
		rep.LatencyNote = latencyNoteClosed
	}
	for _, s := range a.subjects {
		rep.Subjects = append(rep.Subjects, s.info)
	}
	return rep
}

// scopeDefs are the scopes a report sets its subjects side by side in:
// the whole attack, then each stage; in a capacity run, the trials more
// than one target ran at the same rate (see searchScopes).
func (a *analysis) scopeDefs() []scopeDef {
	if searched(a.run) {
		return a.searchScopes()
	}
	return append([]scopeDef{wholeScope(a.run, a.stages)}, a.stages...)
}

// stageScopes lists the measured stages of the run in index order, with
// the load the spec gave them; none in a capacity run, whose stages are
// trials at rates of each target's own.
func stageScopes(r *bench.Run) []scopeDef {
	if searched(r) {
		return nil
	}
	var indexes []int
	byIndex := map[int]bench.StageResult{}
	for i := range r.Targets {
		for _, s := range MeasuredStages(&r.Targets[i]) {
			if _, ok := byIndex[s.Index]; !ok {
				indexes = append(indexes, s.Index)
				byIndex[s.Index] = s
			}
		}
	}
	slices.Sort(indexes)
	scopes := make([]scopeDef, len(indexes))
	for i, idx := range indexes {
		scopes[i] = stageScope(r.Spec.Profile, byIndex[idx])
	}
	return scopes
}

func stageScope(p bench.Profile, s bench.StageResult) scopeDef {
	index := s.Index
	sc := scopeDef{stage: &index, name: StageLabel(s.Index, s.Name), stageName: s.Name, model: s.LoadModel(), concurrency: s.Concurrency,
		rate: s.Rate, duration: s.Duration, from: s.Concurrency}
	if s.Model == "" { // a stage that names no model is its profile's
		sc.model = p.LoadModel()
	}
	if s.Index >= 0 && s.Index < len(p.Stages) && p.Stages[s.Index].Ramp {
		sc.ramp, sc.from = true, 0
		if s.Index > 0 {
			sc.from = p.Stages[s.Index-1].Concurrency
		}
	}
	return sc
}

func wholeScope(r *bench.Run, stages []scopeDef) scopeDef {
	sc := scopeDef{name: ScopeWholeName, model: r.Spec.Profile.LoadModel(), duration: r.Spec.Profile.Duration()}
	if len(stages) == 1 {
		sc.ramp, sc.concurrency, sc.from, sc.rate = stages[0].ramp, stages[0].concurrency, stages[0].from, stages[0].rate
	}
	return sc
}

// ScopeWholeName names the scope that covers every measured stage together.
const ScopeWholeName = "whole attack"

// load describes the load a scope offered: "closed, 400 clients",
// "closed, ramp 300 -> 500 clients", "open, 200 req/s".
func (sc scopeDef) load(stages int) string {
	name := sc.model.Name()
	if sc.stage == nil && sc.trial == nil && stages != 1 {
		return fmt.Sprintf("%s, %d stages", name, stages)
	}
	level := ValueWithUnit(sc.level(), sc.model.Unit())
	switch {
	case sc.ramp && !sc.model.RateLevel(): // the clients it started from are known
		return fmt.Sprintf("%s, ramp %d -> %s", name, sc.from, level)
	case sc.ramp:
		return fmt.Sprintf("%s, ramp to %s", name, level)
	}
	return fmt.Sprintf("%s, %s", name, level)
}

// level is the load the scope offered, in its model's unit.
func (sc scopeDef) level() float64 {
	return sc.model.Level(bench.Stage{Rate: sc.rate, Concurrency: sc.concurrency})
}

// scopeData is one scope as analysed: its subjects' windows and the
// scope's part of the report.
type scopeData struct {
	def  scopeDef
	subs []*scopeSubject
	out  bench.ReportScope
}

// scope analyses one scope for every subject that measured it.
func (a *analysis) scope(sc scopeDef) *scopeData {
	d := &scopeData{def: sc, out: bench.ReportScope{Stage: sc.stage, Name: sc.name, Load: sc.load(len(a.stages)),
		Duration: sc.duration, Results: []bench.SubjectResult{}}}
	for _, s := range a.subjects {
		if ss := a.subjectIn(s, sc); ss != nil {
			d.subs = append(d.subs, ss)
			d.out.Results = append(d.out.Results, ss.result)
		}
	}
	// A subject still in a transient has no figure to rank: it is left out
	// of the ranks and pairs, and a finding says why.
	d.out.Ranks = a.ranks(judgedSubjects(d.subs))
	d.out.Pairs = a.pairs(judgedSubjects(d.subs))
	d.out.Bounds = a.bounds(d)
	return d
}

// sentByVegeta says whether vegeta's attacker sent any stage of the run.
func (a *analysis) sentByVegeta() bool {
	for _, s := range a.subjects {
		for _, t := range s.rounds {
			for _, st := range t.Stages {
				if st.Generator != nil && st.Generator.Engine == bench.LoadEngineVegeta {
					return true
				}
			}
		}
	}
	return false
}

// methodNotes says what the intervals and tests could not rest on.
func (a *analysis) methodNotes(scopes []*scopeData) {
	if a.run.Spec.Rounds() < 2 {
		a.notes.addLine("One round: intervals are within-run (batch means of per-second values of a stage's steady part) " +
			"and tests compare batch means; neither includes run-to-run variation. Repeat the run (--repeat) for that.")
	}
	if slices.ContainsFunc(scopes, func(d *scopeData) bool { return AnyCut(d.out) }) {
		a.notes.addLine("Steady part: a hold stage's figures come from the seconds after its transient, found by MSER on its " +
			"per-second throughput and p50 (a single deviant second is no transient); a stage still trending after the cut " +
			"is not steady, and neither ranked nor paired.")
	}
	var ramps []string
	for _, d := range scopes[min(1, len(scopes)):] {
		if d.def.ramp {
			ramps = append(ramps, d.def.name)
		}
	}
	if len(ramps) > 0 && a.run.Spec.Rounds() < 2 {
		a.notes.addLine("Ramps (" + strings.Join(ramps, ", ") + ") have no steady part: no within-run interval, " +
			"and tests across a changing load can rarely find a difference.")
	}
	if a.sentByVegeta() {
		a.notes.addLine("Load engine vegeta: its latency is stamped at the actual send, as vegeta measures it, so a generator " +
			"that sends late shows in the send lag and the generator-bound flag, not in the latency (threadbench's own engine " +
			"measures from the scheduled send).")
	}
	for _, s := range a.subjects {
		for _, t := range s.rounds {
			if len(t.Seconds) == 0 {
				a.notes.addLine(t.Key() + ": no per-second figures stored: no within-run interval or test")
			}
		}
		if len(s.rounds) == 0 {
			a.notes.addLine(s.info.Label + ": nothing measured")
		}
	}
}
