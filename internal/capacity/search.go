// Package capacity finds the highest arrival rate a target sustains within
// an objective, the way FD.io CSIT's MLRsearch finds a packet rate: short
// trials bracket the answer (doubling up from a start rate), bisection
// narrows the bracket to a relative width, and the lower edge is confirmed
// at full trial length, several times. By default the objective is judged
// over the confirmations' time pooled (their latency histograms merged, as
// MLRsearch judges a load over the sum of its trials against a goal
// duration), so that a rare pause counts in proportion to how often it
// happens; asked (MustPass), over each confirmation's window, that many of
// them passing. Trials run through a TrialFunc, so the search knows
// nothing of targets or load generators.
//
// Like MLRsearch, the search plans its budget so that confirming fits: a
// short trial runs only when the budget left holds it and the
// confirmations after it at what trials really cost here (each trial's
// wall time against its nominal length, measured by this search), with one
// confirmation more where the budget allows, so that a first confirmation
// that fails leaves a whole round for the rate below it. After a failed
// round the search trusts full-length trials only; and when a step below a
// failed round has failed too and the budget holds one round more only,
// that last round goes to half the lowest rate that failed: a lower bound
// confirmed is worth more than a nearer rate that may fail again.
package capacity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Phase says what a trial was for.
type Phase = bench.CapacityPhase

// The phases of a search.
const (
	PhaseBracket Phase = "bracket" // short, doubling to find a failing rate
	PhaseBisect  Phase = "bisect"  // short, halving the bracket
	PhaseConfirm Phase = "confirm" // full length, repeated at the answer
)

// Trial is one constant-rate attack the search asks for.
type Trial struct {
	Phase    Phase         `json:"phase"`
	Rate     float64       `json:"rate"` // requests per second
	Duration time.Duration `json:"duration"`
	// WarmAt, when above 0, asks for the target to be warmed up until
	// steady (its JVM's compiler quiet) at this rate before the trial: a
	// warm-up the budget does not pay (Outcome.Warmup). See warmAt.
	WarmAt float64 `json:"warmAt,omitempty"`
}

// Outcome is what a trial measured.
type Outcome struct {
	Stats bench.Stats
	// GeneratorBound says why the load generator may have limited the
	// trial (its CPU used up, requests sent late); empty when it did not.
	GeneratorBound string
	// SendLag is the generator's 99th percentile lag from a request's
	// scheduled time to its sending, ms.
	SendLag float64
	// Warmup is how long the trial warmed the target up before it (the
	// first trial's warm-up, or a restarted target's start and warm-up):
	// not the search's time, it is neither charged to the budget nor taken
	// for the trial's overhead.
	Warmup time.Duration
	// Died says how the target died in the trial (a crash, running out of
	// memory), empty when it did not: the trial failed, whatever its
	// figures, and the target is started again before the next one.
	Died string
	// Pauses are what the target's collection-pause counters showed as
	// the trial ran (a JVM's jvm_gc_pause_seconds, read each second), a
	// reading at a time; empty when it reports none. The search sizes its
	// rounds to the readings of long stops (coverPauses).
	Pauses []Pause
	// Disturbed says what took the machine's CPUs from generator and
	// target alike during the trial (the hypervisor's steal past
	// bench.StealBound); empty when nothing did. A failure so disturbed
	// is asked again (see trial), unless the target died in it.
	Disturbed string
	// LastSecond is what the target answered in the trial's last full
	// second, per second; 0 where unknown. A target that answers its
	// rate by then has caught up (see caughtUp).
	LastSecond float64
	// Warmed says how the warm-up a trial asked for (Trial.WarmAt) ended:
	// at what rate, how long, and whether the compiler went quiet.
	Warmed string
	// Compiling says what a JVM's compiler did in the trial when it took
	// more of the target's CPU than a warm-up allows to end
	// (steady.CompilerBusy); empty when it did not, or the target has no
	// compiler to read. A failure so marked at a rate the target had not
	// been offered is asked again (see firstMet).
	Compiling string
}

// TrialFunc runs one trial.
type TrialFunc func(ctx context.Context, t Trial) (Outcome, error)

// Stop says what ended a search.
type Stop string

// Why a search stopped.
const (
	StopPrecision Stop = "precision"       // the bracket is as narrow as asked, its lower edge confirmed
	StopBudget    Stop = "budget"          // the time budget is spent
	StopGenerator Stop = "generator-bound" // the load generator, not the target, was the limit
	StopMaxRate   Stop = "max-rate"        // the highest rate allowed passed: the target carries more
	StopNoPass    Stop = "no-pass"         // even the lowest rate allowed failed
)

// Step is one trial as the search judged it: the trial as the run
// document keeps it (its Stage its number in the search, from 0; a
// GeneratorBound trial is neither a pass nor a fail of the target, one
// that passed all the same passed, see judge; a Disturbed one failed and
// was asked again), and how long it ran.
type Step struct {
	bench.CapacityTrial
	Duration time.Duration `json:"duration"`

	stats      bench.Stats // what it measured, for pooling
	died       string      // how the target died in it, if it did
	lastSecond float64     // Outcome.LastSecond
	compiling  string      // Outcome.Compiling
}

// Trial is the trial the step ran.
func (s Step) Trial() Trial {
	return Trial{Phase: s.Phase, Rate: s.Rate, Duration: s.Duration, WarmAt: s.WarmAt}
}

// Result is the answer of a search.
type Result struct {
	// Rate is the highest rate whose confirmations passed MustPass of the
	// Asked; 0 when no rate was confirmed.
	Rate float64 `json:"rate"`
	// Confirmations are the full-length trials at Rate, for their spread,
	// each with its verdict.
	Confirmations []Step `json:"confirmations,omitempty"`
	MustPass      int    `json:"mustPass"`
	Asked         int    `json:"asked"`
	// Failed is the next rate up that failed, and what failed; nil when
	// none did.
	Failed *Step `json:"failed,omitempty"`
	// Width is the bracket's final relative width, (failed - rate) / failed.
	Width  float64       `json:"width,omitempty"`
	Stop   Stop          `json:"stop"`
	Reason string        `json:"reason"` // a sentence saying why it stopped
	Steps  []Step        `json:"steps"`  // every trial, in order
	Spent  time.Duration `json:"spent"`
	// Rule is how the confirmations were judged, and RuleNote why not as
	// asked (windows without histograms to pool); GoalDuration the time
	// the pooled rule judges over.
	Rule         Rule          `json:"rule"`
	RuleNote     string        `json:"ruleNote,omitempty"`
	GoalDuration time.Duration `json:"goalDuration"`
	// Pooled is the objective over the confirmations at Rate pooled;
	// nil where they carried no histograms.
	Pooled *bench.CapacityPooled `json:"pooled,omitempty"`
	// Unconfirmed says why Rate is not confirmed when it is not: the
	// budget ended after it passed, and it is the highest rate that did,
	// a lower confidence (see search.unconfirmed).
	Unconfirmed string `json:"unconfirmed,omitempty"`
	// PauseNote says how the target's recurring pauses lengthened the
	// rounds (PausePeriods of them pooled), or that the budget could not,
	// or that it stopped too few times to size them to (unsizedNote);
	// empty when the target did not pause long enough to matter.
	PauseNote string `json:"pauseNote,omitempty"`
}

// stopped ends a search early for a reason other than an error.
type stopped struct {
	stop   Stop
	reason string
}

func (s *stopped) Error() string { return string(s.stop) + ": " + s.reason }

// Search finds the highest rate within cfg's objective, running trials
// through run. It fails before any trial on a bad configuration (an
// *bench.Error naming the field) and on an error of run or ctx; every other
// ending is a Result that says why it stopped.
func Search(ctx context.Context, cfg Config, run TrialFunc) (*Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &search{cfg: cfg, run: run, start: cfg.Now(), cost: cost{cfg: cfg}, asked: cfg}
	res, err := s.find(ctx)
	if err != nil {
		return nil, err
	}
	res.Steps, res.Spent = s.steps, s.spent()
	res.MustPass, res.Asked = cfg.MustPass, cfg.Confirmations
	res.Rule, res.GoalDuration, res.PauseNote = cfg.Rule, s.cfg.goal(), cmp.Or(s.noteAt(res.Rate)+s.answerStopsNote(res), s.unsizedNote())
	if cfg.Rule == RulePooled && s.unpooled {
		res.Rule, res.RuleNote = RuleWindows, fmt.Sprintf("the trials carried no latency histograms to pool: %d of %d windows had to pass each", cfg.MustPass, cfg.Confirmations)
	}
	return res, nil
}

type search struct {
	cfg   Config
	run   TrialFunc
	start time.Time
	// warm is the warm-up the trials ran (the first one's), which the
	// budget does not pay for.
	warm  time.Duration
	cost  cost
	steps []Step
	// failed are the rates whose confirmations failed, in order, and
	// overshot how far each broke the objective (overshoot).
	failed   []float64
	overshot []float64
	// bracketCut is set when the budget ended the bracket before any rate
	// failed: the answer is then a lower bound.
	bracketCut bool
	// distrustServed is set when a trial aimed by towards passed: the
	// upper edge's served figure read low, and the aim is the middle until
	// another rate fails.
	distrustServed bool
	// unpooled is set when a trial measured latencies without a
	// histogram: windows cannot be pooled, and are judged one by one.
	unpooled bool
	// climbed is set when a round held at a rate a short trial had
	// failed: the rounds go on up, doubling, until one fails.
	climbed bool
	// warmAsked are the cold edges asked again.
	warmAsked map[float64]bool
	// warmedUp is set once a cold failure had the target warmed up until
	// steady before it was asked again (warmAt): once is enough.
	warmedUp bool
	// pauses are the target's pauses the trials saw, and pauseNote what
	// the rounds did about them (coverPauses).
	pauses    pauses
	pauseNote string
	// pauseNotes are the notes by the rate of the round each was made for
	// (pauses that come with the requests size each round to its rate).
	pauseNotes map[float64]string
	// asked is the configuration as given, before coverPauses sized the
	// rounds, and sized the period it last sized them to.
	asked Config
	sized time.Duration
}

// find brackets and bisects with short trials while the budget keeps
// back what confirming needs, then confirms.
func (s *search) find(ctx context.Context) (*Result, error) {
	lo, hi, err := s.bracket(ctx)
	for err == nil {
		if lo, hi, err = s.bisect(ctx, lo, hi); err != nil || !s.coldEdge(lo, hi) {
			break
		}
		lo, hi, err = s.edgeAgain(ctx, lo, hi)
	}
	if err != nil {
		return s.unanswered(err, lo, hi)
	}
	return s.conclude(ctx, lo, hi)
}

// conclude confirms the lower edge at full length and answers. A round
// that fails (too few confirmations passed) shows that short trials pass
// more than the target carries at length there: its last failure becomes
// the upper edge, and the search goes on at full length only, from below
// what the target served in it (see below), until a round passes. From a
// confirmed rate, rounds between it and the failure above narrow the
// bracket while it is wider than asked and the budget holds a whole round.
func (s *search) conclude(ctx context.Context, lo, hi *Step) (*Result, error) {
	var best []Step // the confirmations of the highest rate that passed them all
	for rate := lo.Rate; ; {
		confirms, err := s.confirm(ctx, rate)
		if err != nil {
			if len(best) == 0 && len(confirms) == 0 {
				if err := s.lastShorts(ctx, err, rate); err != nil {
					return nil, err
				}
			}
			return s.cut(err, best, confirms, lo, hi)
		}
		held := s.held(confirms)
		if held {
			best = confirms
			if hi != nil && hi.Rate <= rate { // a short trial's failure, which held at length
				hi, s.climbed = s.lowestFailureAbove(rate), true
			}
		} else {
			hi = s.roundFailure(confirms)
			s.failed = append(s.failed, rate)
			s.overshot = append(s.overshot, s.overshoot(confirms))
		}
		s.distrustServed = held
		next, err := s.nextRound(best, hi)
		if err != nil {
			return s.unanswered(err, lo, hi)
		}
		if next == 0 {
			return s.answer(best, hi), nil
		}
		rate = next
	}
}

// lastShorts runs short trials from rate down, while the budget holds
// one, until one passes, when the budget (stop) holds no round at rate and
// no rate has passed below every round that failed: a search whose only
// pass was a short trial at a rate that then failed at length would answer
// 0 (java-platform: a 3 s trial passed at its pool's bound, 1,000 req/s,
// the round there failed 3 of 5 windows on a machine whose hypervisor
// took 7-16 % of the CPUs, and 34 s left held no round of 37 s). A short
// pass below the failures is then the answer, said to be unconfirmed (see
// unconfirmed). A stop other than the budget's is left as it is.
func (s *search) lastShorts(ctx context.Context, stop error, rate float64) error {
	var st *stopped
	if !errors.As(stop, &st) || st.stop != StopBudget || s.unconfirmed(st, nil) != nil {
		return nil
	}
	for k := 1; rate >= s.cfg.MinRate && s.left() >= s.cost.shortTrial(); k++ {
		step, err := s.trial(ctx, Trial{Phase: PhaseBisect, Rate: rate, Duration: s.cfg.trialDuration()})
		if errors.As(err, &st) {
			return nil // the stop's own trial stands as the cut reads it
		}
		if err != nil || step.Pass {
			return err
		}
		rate = s.below(step, k)
	}
	return nil
}

// nextRound is the rate of the next round of confirmations, 0 when the
// search is done: under a failed round with none confirmed yet, the rate
// below it; above a confirmed one, towards the failure above. (Rounds fail in a
// row only before a rate is confirmed: once one is, every rate tried is
// above it.)
func (s *search) nextRound(best []Step, hi *Step) (float64, error) {
	if len(best) == 0 {
		rate := s.below(hi, len(s.failed))
		switch aim := s.aimBelow(); {
		case aim > 0:
			rate = min(rate, aim)
		case len(s.failed) > 1 && s.lastRound():
			rate = min(rate, slices.Min(s.failed)/2)
		}
		if rate < s.cfg.MinRate {
			return 0, &stopped{StopNoPass, fmt.Sprintf("every rate down to %.2f req/s failed the objective", s.cfg.MinRate)}
		}
		return rate, nil
	}
	rate, roundLeft := best[0].Rate, s.left() >= s.cost.round(s.cfg.Confirmations)
	switch {
	case !roundLeft || s.atCeiling(rate):
		return 0, nil
	case hi == nil && s.climbed && rate < s.top():
		return min(2*rate, s.top()), nil
	case hi == nil:
		return 0, nil
	case s.wide(rate, hi.Rate):
		return s.towards(rate, hi), nil
	case s.shortEdge(hi):
		return hi.Rate, nil
	}
	return 0, nil
}

// shortEdge reports whether the upper edge hi is a short trial's failure
// that the pooled rule has yet to judge at full length: a short trial
// holding one pause of the target fails at any rate, and the bracket's
// edge it drew is a question for a round, as MLRsearch asks of an upper
// bound at the final trial duration.
func (s *search) shortEdge(hi *Step) bool {
	return s.pooling() && hi != nil && hi.Phase != PhaseConfirm
}

// aimBelow is the rate at which the lowest failed round's requests would
// have broken the objective no more than it allows, were the share that
// broke it in proportion to the rate: so it is where the target pauses
// long enough to break the objective and its pauses come with its
// requests (withTheRate: a JVM's full collections of what its requests
// allocate; java-virtual paused every 27 s at 1,500 req/s, every 13 s at
// 3,000), each pause breaking the requests that meet it. Pooled rounds
// only, never below half the failed rate; 0 when there is no such round,
// or the target does not so pause (a target offered more than it carries
// breaks a share that grows far faster than the rate, and a step of the
// precision is the way down).
func (s *search) aimBelow() float64 {
	if !s.pauses.breaking(s.cfg.Objective) || !s.pauses.withTheRate(s.cfg.Objective) || !s.pooling() || len(s.failed) == 0 {
		return 0
	}
	i := slices.Index(s.failed, slices.Min(s.failed))
	if s.overshot[i] <= 1 {
		return 0
	}
	return max(s.failed[i]/s.overshot[i], s.failed[i]/2)
}

// lastRound reports whether the budget left holds one round of
// confirmations but not two: the next round is the search's last. (The
// rounds after a failed one step down from it, each step twice the last
// (below); two failed rounds in a row show that the edge is further down
// than the steps reach, as when the target fails at length by rare events
// whose frequency grows with the rate. See nextRound.)
func (s *search) lastRound() bool {
	return s.left() < 2*s.cost.round(s.cfg.Confirmations)
}

// held reports whether a round of confirmations passed: pooled, every
// window run and the objective met over their time together; window by
// window, as many passed as asked.
func (s *search) held(confirms []Step) bool {
	if s.pooling() {
		return len(confirms) >= s.cfg.Confirmations && s.pool(confirms).Pass
	}
	return passes(confirms) >= s.cfg.MustPass
}

// undecided reports whether a round can still go either way: pooled,
// until its every window ran (a window that failed may be one pause in
// its goal's time); window by window, while too few passed yet and enough
// are left to run for them to.
func (s *search) undecided(confirms []Step) bool {
	if s.pooling() {
		return len(confirms) < s.cfg.Confirmations && !s.lost(confirms)
	}
	p := passes(confirms)
	return p < s.cfg.MustPass && s.cfg.MustPass-p <= s.cfg.Confirmations-len(confirms)
}

// keptUp reports whether a failed bracket trial failed on its latency
// alone: it served what the trial that passed below it served, scaled to
// its rate, within the precision (the first trial, with nothing below it,
// is given the doubt), as a target meeting a rate for the first time does
// (its JIT compiling, its pools growing), or it caught up by its end
// (caughtUp). A target offered more than it carries serves less, to the
// end: java-virtual offered 1,600 req/s after 800 served 1,344 of the
// 1,492 the scale expects, and is not asked again.
func (s *search) keptUp(st, lo *Step) bool {
	if !s.pooling() || st.died != "" || st.GeneratorBound != "" {
		return false
	}
	return lo == nil || st.Throughput >= lo.Throughput*st.Rate/lo.Rate*(1-s.cfg.Precision) || s.caughtUp(st)
}

// firstMet reports whether a failed bracket trial was the first at a
// rate above every rate the target had been offered, its JVM's compiler
// busy in it (Outcome.Compiling): the trial was the target's warm-up at
// that rate, whatever it served, and is asked once more. A JVM meeting a
// rate cold serves less than asked to the end, as an overloaded target
// does: java-virtual, warmed up at 50 req/s and bracketed to 800, served
// 600, 1,157, 1,032 and 858 of its first 1,600 req/s in four searches of
// five, its JIT compiling 2.1-3.0 s of the 3 s trial on its one CPU; in
// three the bisection spent five or six trials under it before 1,600
// passed when asked again, in the fourth the search answered 816 (AMD
// EPYC, 2026-12-01). A target whose compiler is quiet (Go; a JVM
// compiled) is not asked again. A trial at the rate asked again because
// the machine was disturbed (steal) judged nothing: the one after it is
// still the first.
func (s *search) firstMet(st *Step) bool {
	if st.Phase != PhaseBracket || st.compiling == "" || st.died != "" || st.GeneratorBound != "" {
		return false
	}
	return !slices.ContainsFunc(s.steps[:st.Stage], func(o Step) bool { return o.Rate >= st.Rate && o.Disturbed == "" })
}

// caughtUp reports whether a trial's target answered its rate, within the
// precision, in the trial's last second: it fell behind at first and had
// caught up by then, as a target meeting a rate for the first time does,
// where an overloaded one falls further behind to the end. java-virtual
// offered 800 req/s for the first time answered 623, 684, then 837 a
// second (714.7 over the trial, 89 %, p99 483 ms); the search took it for
// overloaded, bisected five trials under it, and passed 800 when it asked
// again (AMD EPYC, 2026-12-01).
func (s *search) caughtUp(st *Step) bool {
	return st.lastSecond > 0 && st.lastSecond >= st.Rate*(1-s.cfg.Precision)
}

// pooling reports whether rates are judged by their confirmations' time
// pooled: asked, and no trial has measured latencies without a histogram
// to merge.
func (s *search) pooling() bool { return s.cfg.Rule == RulePooled && !s.unpooled }

// roundFailure is a failed round's upper edge: window by window, its last
// failing confirmation; pooled, its last window judged as the pool was
// (which may have passed on its own), with what the pool served.
func (s *search) roundFailure(confirms []Step) *Step {
	if !s.pooling() {
		return lastFailure(confirms)
	}
	p := s.pool(confirms)
	edge := confirms[len(confirms)-1]
	edge.Pass, edge.Violations = false, nil
	windows := "windows"
	if p.Windows == 1 {
		windows = "window"
	}
	over := fmt.Sprintf("pooled over %d %s, %s", p.Windows, windows, p.Duration)
	if len(confirms) < s.cfg.Confirmations { // lost early: the windows left could not have made it pass
		over += fmt.Sprintf(", lost before its %d windows: the rest could not have made it hold", s.cfg.Confirmations)
	}
	for _, v := range p.Violations {
		if len(confirms) < s.cfg.Confirmations && strings.Contains(v, "short of the") {
			continue
		}
		edge.Violations = append(edge.Violations, fmt.Sprintf("%s (%s)", v, over))
	}
	edge.Throughput = pooledThroughput(confirms)
	return &edge
}

// passes counts the confirmations that passed.
func passes(confirms []Step) int {
	n := 0
	for _, c := range confirms {
		if c.Pass {
			n++
		}
	}
	return n
}

// lastFailure is a failed round's last failing confirmation, its upper
// edge.
func lastFailure(confirms []Step) *Step {
	for i := len(confirms) - 1; i >= 0; i-- {
		if !confirms[i].Pass {
			return &confirms[i]
		}
	}
	return nil
}

// towards is the next rate to try in the bracket from lo to hi: its
// middle, or lower where hi served less. Offered more than it carries, a
// target serves what it carries, so the edge lies near what hi served
// (MLRsearch's use of the measured forwarding rate): java-platform offered
// twice its pool's bound serves about the bound, and the next trial goes
// there rather than to one and a half times it. Never nearer lo than the
// precision, so that every trial narrows the bracket by as much; and once
// a trial so aimed has passed, the figure read low (a target starved for
// a moment by other work serves less than it carries) and the middle is
// the aim until another rate fails.
func (s *search) towards(lo float64, hi *Step) float64 {
	mid := min((lo+hi.Rate)/2, s.top())
	if s.distrustServed {
		return mid
	}
	return min(mid, max(hi.Throughput, lo*(1+s.cfg.Precision)))
}

// below is the rate to confirm under the k-th failed round in a row: the
// failed rate less a step that starts at the precision and doubles with
// each failed round, as MLRsearch widens its step when a lower bound
// proves invalid, and no more than the target served in the failed round
// (offered more than it carries, a target serves what it carries, and
// what it served within the trial's window reads a little low, by the
// latency over the trial's length: a rate that should hold at length, not
// a short trial's luckier figure). Never below half the failed rate.
func (s *search) below(failed *Step, k int) float64 {
	step := min(s.cfg.Precision*math.Pow(2, float64(k-1)), 0.5)
	return max(min(failed.Rate*(1-step), failed.Throughput), failed.Rate/2)
}

// percent writes a bracket's width wider than asked, in percent, with
// the decimals that tell it from the precision asked ("2.02", not "2.0").
func (s *search) percent(width float64) string {
	for decimals := 1; decimals < 4; decimals++ {
		if w := fmt.Sprintf("%.*f", decimals, width*100); w != fmt.Sprintf("%.*f", decimals, s.cfg.Precision*100) {
			return w
		}
	}
	return fmt.Sprintf("%.4f", width*100)
}

// wide reports whether the bracket [lo, hi] is wider than asked.
func (s *search) wide(lo, hi float64) bool {
	return (hi-lo)/hi > s.cfg.Precision*(1+1e-9)
}

// cut answers a search that stopped while confirming: the confirmed rate
// stands, if one was; else a rate whose confirmations all passed before
// the budget ended them (see partial); else none.
func (s *search) cut(err error, best, confirms []Step, lo, hi *Step) (*Result, error) {
	var st *stopped
	if !errors.As(err, &st) {
		return nil, err
	}
	if len(best) > 0 {
		res := s.answer(best, hi)
		if st.stop != StopBudget {
			res.Stop, res.Reason = st.stop, st.reason
		}
		return res, nil
	}
	if res := s.partial(confirms, st, hi); res != nil {
		return res, nil
	}
	if res := s.unconfirmed(st, confirms); res != nil {
		return res, nil
	}
	return s.unanswered(err, lo, hi)
}

// partial answers a search whose budget ended the confirmations at a
// rate after some ran, when they passed as many as asked already or every
// one of them passed: that rate is the answer, and the reason says how
// many of those asked for ran. Nil otherwise.
func (s *search) partial(confirms []Step, st *stopped, hi *Step) *Result {
	p := passes(confirms)
	if s.pooling() || len(confirms) == 0 || st.stop != StopBudget || (p < s.cfg.MustPass && p < len(confirms)) {
		return nil
	}
	res := s.answer(confirms, hi)
	res.Stop = StopBudget
	each := "each of which passed"
	if p < len(confirms) {
		each = fmt.Sprintf("%d of which passed, as many as asked", p)
	}
	res.Reason = fmt.Sprintf("the time budget (%s) ran out after %d of %d confirmations at %.0f req/s, %s",
		s.cfg.budget(), len(confirms), s.cfg.Confirmations, confirms[0].Rate, each)
	return res
}

// unanswered is the result of a search stopped before any rate was
// confirmed, err saying why; lo is the highest short pass, if any.
func (s *search) unanswered(err error, lo, hi *Step) (*Result, error) {
	var st *stopped
	if !errors.As(err, &st) {
		return nil, err
	}
	if res := s.unconfirmed(st, nil); res != nil {
		return res, nil
	}
	res := &Result{Failed: hi, Stop: st.stop, Reason: st.reason}
	if lo != nil && st.stop != StopNoPass {
		res.Reason += fmt.Sprintf(" (%.0f req/s passed a short trial, unconfirmed)", lo.Rate)
	}
	return res, nil
}

// answer builds the result of a search whose highest confirmed rate is
// best's, hi being the lowest failure above it.
func (s *search) answer(best []Step, hi *Step) *Result {
	rate := best[0].Rate
	res := &Result{Rate: rate, Confirmations: best, Failed: hi, Pooled: s.pool(best)}
	if hi != nil {
		res.Width = (hi.Rate - rate) / hi.Rate
	}
	switch {
	case s.atCeiling(rate):
		res.Width = 0
		res.Stop, res.Reason = StopPrecision, fmt.Sprintf("held to %s, %.0f req/s, which passed its confirmations: no steady state carries more than the bound (a rate above it queues the excess, too slowly for a short trial to show), so no rate above it was tried",
			s.cfg.CeilingWhat, s.cfg.Ceiling)
	case hi == nil && s.climbed && rate < s.top():
		res.Stop, res.Reason = StopBudget, fmt.Sprintf("the time budget (%s) ended before a rate failed at full length: the target carries at least %.0f req/s (a short trial had failed below it, by a pause)", s.cfg.budget(), rate)
	case s.shortEdge(hi) && !s.wide(rate, hi.Rate):
		res.Stop, res.Reason = StopBudget, fmt.Sprintf("the time budget (%s) ended before the upper edge, %.0f req/s (a short trial failed there), was judged at full length", s.cfg.budget(), hi.Rate)
	case hi == nil && s.bracketCut:
		res.Stop, res.Reason = StopBudget, fmt.Sprintf("the time budget (%s) ended the bracket before a rate failed: the target carries at least %.0f req/s", s.cfg.budget(), rate)
	case hi == nil:
		res.Stop, res.Reason = StopMaxRate, fmt.Sprintf("%.0f req/s, the highest rate allowed, passed: the target carries more", rate)
	case s.wide(rate, hi.Rate):
		res.Stop, res.Reason = StopBudget, fmt.Sprintf("the time budget (%s) ended the bisection at a bracket %s%% wide (asked %.1f%%)",
			s.cfg.budget(), s.percent(res.Width), s.cfg.Precision*100)
	default:
		res.Stop, res.Reason = StopPrecision, fmt.Sprintf("the bracket is %.1f%% wide (asked %.1f%%)", res.Width*100, s.cfg.Precision*100)
	}
	return res
}

// coldEdge reports whether the upper edge the bisection closed in on, up
// to the precision, is a bracket trial's failure that was asked once,
// every bisection below it having passed: the first trial at a rate twice the last, which a target
// can fail while it adapts to it (its JIT compiling, its pools growing),
// serving less than asked as an overloaded one does. java-virtual failed
// 800 req/s so (685 served, p99 657 ms) after 400, its bisection passed
// 600 to 788, and a round at 800 held: the search had spent its budget
// below a rate the target carried, and answered 800 where others found
// 1,500. Asked again warm, the edge stands or the bracket goes on.
func (s *search) coldEdge(lo, hi *Step) bool {
	return lo != nil && hi != nil && hi.Phase == PhaseBracket && !s.warmAsked[hi.Rate] && !s.wide(lo.Rate, hi.Rate)
}

// edgeAgain asks the cold edge hi again after the bisection below it: a
// failure stands (and the bisection is done), a pass doubles on from it.
func (s *search) edgeAgain(ctx context.Context, lo, hi *Step) (*Step, *Step, error) {
	if s.warmAsked == nil {
		s.warmAsked = map[float64]bool{}
	}
	s.warmAsked[hi.Rate] = true
	step, err := s.short(ctx, PhaseBracket, hi.Rate)
	switch {
	case err != nil || step == nil:
		return lo, hi, err
	case !step.Pass:
		return lo, step, nil
	}
	if step.Rate >= s.top() {
		return step, nil, nil
	}
	return s.bracketFrom(ctx, min(2*step.Rate, s.top()), step)
}

// bracket doubles up from the start rate until a short trial fails, or
// halves down until one passes. lo is the highest pass, hi the lowest
// failure; hi is nil when nothing failed below the maximum rate, or the
// budget ended the doubling first.
func (s *search) bracket(ctx context.Context) (lo, hi *Step, err error) {
	return s.bracketFrom(ctx, min(s.cfg.StartRate, s.top()), nil)
}

// bracketFrom doubles up from rate, lo being the highest pass below it
// (nil: none yet), as bracket does.
func (s *search) bracketFrom(ctx context.Context, rate float64, lo *Step) (*Step, *Step, error) {
	for {
		step, err := s.askedAgain(ctx, PhaseBracket, rate, lo)
		switch {
		case err != nil:
			return lo, nil, err
		case step == nil:
			s.bracketCut = true
			return lo, nil, nil
		case !step.Pass && lo == nil:
			return s.passBelow(ctx, step)
		case !step.Pass:
			return lo, step, nil
		}
		if lo = step; rate >= s.top() {
			return lo, nil, nil
		}
		rate = min(2*rate, s.top())
	}
}

// top is the highest rate a trial may ask: the maximum allowed, or the
// target's ceiling when it has a lower one.
func (s *search) top() float64 {
	if c := s.cfg.Ceiling; c > 0 && c < s.cfg.MaxRate {
		return c
	}
	return s.cfg.MaxRate
}

// atCeiling reports whether rate is at the target's ceiling: nothing
// above it is worth a trial.
func (s *search) atCeiling(rate float64) bool {
	return s.cfg.Ceiling > 0 && rate >= s.cfg.Ceiling
}

// passBelow halves down from a failed short trial until one passes; hi
// is the lowest failure on the way.
func (s *search) passBelow(ctx context.Context, failed *Step) (lo, hi *Step, err error) {
	hi = failed
	for rate := failed.Rate / 2; ; rate /= 2 {
		if rate < s.cfg.MinRate {
			return nil, hi, &stopped{StopNoPass, fmt.Sprintf("every rate down to %.2f req/s failed the objective", s.cfg.MinRate)}
		}
		step, err := s.short(ctx, PhaseBracket, rate)
		switch {
		case err != nil:
			return nil, hi, err
		case step == nil:
			return nil, hi, s.tooSmall()
		case step.Pass:
			return step, hi, nil
		}
		hi = step
	}
}

// bisect narrows [lo, hi] with short trials (see towards) until it is
// within the precision, or the budget holds no more short trials beside
// what confirming needs.
func (s *search) bisect(ctx context.Context, lo, hi *Step) (*Step, *Step, error) {
	for hi != nil && !s.atCeiling(lo.Rate) && s.wide(lo.Rate, hi.Rate) {
		step, err := s.askedAgain(ctx, PhaseBisect, s.towards(lo.Rate, hi), lo)
		if err != nil || step == nil {
			return lo, hi, err
		}
		if step.Pass {
			lo = step
		} else {
			hi = step
		}
		s.distrustServed = step.Pass
	}
	return lo, hi, nil
}

// confirm runs the full-length trials at rate, every one asked while the
// round may still pass, none once it cannot (too few are left to make up
// the passes asked); it returns those it ran, also when the budget ends
// them early.
func (s *search) confirm(ctx context.Context, rate float64) ([]Step, error) {
	var confirms []Step
	s.coverPauses(rate)
	if s.pooling() && s.left() < s.cost.round(s.cfg.Confirmations) {
		return nil, s.outOfTime() // a round cut short judges nothing: plan whole ones
	}
	for len(confirms) < s.cfg.Confirmations && (s.held(confirms) || s.undecided(confirms)) {
		if s.left() < s.cost.confirmation() {
			return confirms, s.outOfTime()
		}
		step, err := s.trial(ctx, Trial{Phase: PhaseConfirm, Rate: rate, Duration: s.cfg.confirmDuration()})
		if err != nil {
			return confirms, err
		}
		confirms = append(confirms, *step)
	}
	return confirms, nil
}

// outOfTime says why the budget holds no further confirmation, with the
// figures: the rounds that failed and what a confirmation costs here.
func (s *search) outOfTime() *stopped {
	if len(s.failed) == 0 {
		return s.tooSmall()
	}
	rates := make([]string, len(s.failed))
	for i, r := range s.failed {
		rates[i] = fmt.Sprintf("%.0f", r)
	}
	return &stopped{StopBudget, fmt.Sprintf("the time budget (%s) ran out before a rate passed its confirmations: they failed at %s req/s, and %s left holds no further one (%s)",
		s.cfg.budget(), strings.Join(rates, ", "), max(s.left(), 0).Round(100*time.Millisecond), s.costs())}
}

// askedAgain runs a short trial of phase at rate, lo being the highest
// that passed below it (nil: none yet), once more when it failed on its
// latency alone (keptUp): the second decides. A target offered more than
// it carries serves less, and is not asked again.
//
// In the bracket, a target meets a rate for the first time (its JIT
// compiling, its pools growing, a pause), and one 3 s window, a tenth of
// the goal's time, would otherwise halve the answer (java-platform warmed
// at 50 req/s failed 1,000 then 500 req/s and carries 1,000; java-virtual
// failed 800 once in three of five searches and carries about 1,500). In
// the bisection, a 3 s window that holds one of the target's pauses fails
// at any rate, and the bisection below such a failure spends the budget
// under it: java-virtual failed a bisection trial at 1,016 req/s (p99
// 300.8 ms) and, in another search, at 1,200 (409 ms), served what it was
// offered both times, passed every rate just under them, and held its
// rounds there at a p99 of 206-221 ms; it answered 1,016 and 1,200 with
// no budget left to climb, where another search confirmed 1,550.
func (s *search) askedAgain(ctx context.Context, phase Phase, rate float64, lo *Step) (*Step, error) {
	step, err := s.short(ctx, phase, rate)
	if err != nil || step == nil || step.Pass {
		return step, err
	}
	cold := s.firstMet(step)
	if !cold && !s.keptUp(step, lo) {
		return step, nil
	}
	warm := 0.0
	if cold {
		s.steps[step.Stage].Cold = step.compiling
		warm = s.warmAt(lo)
	}
	second, err := s.warmShort(ctx, phase, rate, warm)
	if err != nil || second == nil {
		return step, err
	}
	return second, nil
}

// short runs a short trial, or returns nil when it would eat the time kept
// back for confirming (see reserve). The first trial always runs: Validate
// made room for it.
func (s *search) short(ctx context.Context, phase Phase, rate float64) (*Step, error) {
	return s.warmShort(ctx, phase, rate, 0)
}

// warmShort is short, the target warmed up at warm first when it is
// above 0 (Trial.WarmAt).
func (s *search) warmShort(ctx context.Context, phase Phase, rate, warm float64) (*Step, error) {
	if len(s.steps) > 0 && s.left() < s.cost.shortTrial()+s.reserve(phase) {
		return nil, nil
	}
	return s.trial(ctx, Trial{Phase: phase, Rate: rate, Duration: s.cfg.trialDuration(), WarmAt: warm})
}

// warmAt is the rate to warm the target up at before a cold failure
// (firstMet) is asked again: the highest that passed below it, lo, once
// in a search; 0 (no warm-up) when none passed yet or the target was
// warmed so already. A JVM whose compiler is busy is a moving target: the
// first trial at a rate fails, and so does the second (java-virtual,
// warmed up 10 s at 50 req/s, failed 800 twice, then 1,600 twice, 1,200
// and 1,400 once each, its JIT compiling 47 s of CPU time over the next
// 90 s at 800 req/s); warmed up 90 s at 800 req/s first, it passed 50 to
// 1,600 at the first trial each (AMD EPYC, 2026-12-01). The warm-up ends
// when the run's own test says the target is steady and its compiler is
// quiet (at most bench.DefaultWarmupMaxDuration), and the budget does not
// pay for it, as it does not for the first.
func (s *search) warmAt(lo *Step) float64 {
	if lo == nil || s.warmedUp {
		return 0
	}
	s.warmedUp = true
	return lo.Rate
}

// disturbedRetries is how many times a trial that failed while the
// machine was disturbed is asked again before its failure stands.
const disturbedRetries = 2

// generatorRetries is how many times a trial the load generator limited is
// asked again before the search stops on it.
const generatorRetries = 1

// trial runs one trial after the settle period, judges it, learns what it
// cost beyond its nominal length and keeps it. A failure in a trial the
// machine's hypervisor took the CPUs from (steal) says nothing of the
// target: it is kept, marked disturbed, and the trial asked again, up to
// disturbedRetries times while the budget has room for it; the last
// one's verdict stands. A trial the load generator limited (neither a
// pass nor a fail, see judge) is asked again generatorRetries times: a
// generator that shares its machine can lag for a moment (a build beside
// it sent three searches' generators 6-18 ms late, here); one that lags
// again is the limit, and the search stops on it.
func (s *search) trial(ctx context.Context, t Trial) (*Step, error) {
	disturbed, bound := 0, 0
	for ; ; t.WarmAt = 0 { // a trial asked again is warm already
		step, err := s.trialOnce(ctx, t)
		switch {
		case err != nil:
			return nil, err
		case step.GeneratorBound != "":
			if bound == generatorRetries || !s.roomToAskAgain(t) {
				return nil, &stopped{StopGenerator, fmt.Sprintf("the load generator is the limit at %.0f req/s (%s), not the target", t.Rate, step.GeneratorBound)}
			}
			bound++
		case step.Pass || step.Disturbed == "":
			return step, nil
		case disturbed == disturbedRetries || !s.roomToAskAgain(t):
			s.steps[step.Stage].Disturbed, step.Disturbed = "", ""
			return step, nil
		default:
			disturbed++
		}
	}
}

// trialOnce runs a trial once: see trial.
func (s *search) trialOnce(ctx context.Context, t Trial) (*Step, error) {
	began, nominal := s.cfg.Now(), t.Duration
	if len(s.steps) > 0 {
		if err := s.cfg.Wait(ctx, s.cfg.settle()); err != nil {
			return nil, err
		}
		nominal += s.cfg.settle()
	}
	out, err := s.run(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("trial at %.0f req/s: %w", t.Rate, err)
	}
	s.warm += out.Warmup
	s.pauses.add(began.Sub(s.start)+nominal-t.Duration, t, out)
	if out.Stats.Histogram == "" && out.Stats.Latency != (bench.Latency{}) {
		s.unpooled = true
	}
	step := judge(t, out, s.cfg.Objective)
	if !step.Pass && step.GeneratorBound == "" && out.Died == "" { // steal kills no target: a death is its own
		step.Disturbed = out.Disturbed
	}
	s.cost.observe(t, step.Pass, s.cfg.Now().Sub(began)-nominal-out.Warmup)
	step.Stage = len(s.steps)
	s.steps = append(s.steps, step)
	return &step, nil
}

// judge says whether a trial met the objective; one the target died in
// did not, whatever its figures. Latency runs from each
// request's scheduled time, so a late generator's lag is inside it: it can
// make a trial fail, never pass. A trial that passed with the generator
// bound passed. One that failed so is the target's failure only when the
// lag cannot explain it: some bound is broken by more than the lag (or is
// not a latency). Otherwise it says nothing of the target and is marked
// neither pass nor fail (no violations), which stops the search.
func judge(t Trial, out Outcome, o bench.Objective) Step {
	counted := everyRequest(out.Stats)
	step := Step{CapacityTrial: bench.CapacityTrial{Phase: t.Phase, Rate: t.Rate, Throughput: out.Stats.Throughput, P99: counted.Latency.P99},
		Duration: t.Duration, stats: out.Stats, died: out.Died, lastSecond: out.LastSecond, compiling: out.Compiling}
	step.WarmAt, step.Warmed = t.WarmAt, out.Warmed
	if out.Died != "" {
		step.Violations = []string{"the target died: " + out.Died}
		return step
	}
	violations := o.Check(counted)
	for _, v := range violations {
		step.Violations = append(step.Violations, v.String())
	}
	step.Pass = len(violations) == 0
	switch {
	case out.GeneratorBound == "":
	case step.Pass || !lagExplains(violations, out.SendLag):
		step.GeneratorNote = out.GeneratorBound
	default:
		step.GeneratorBound, step.Violations = out.GeneratorBound, nil
	}
	return step
}

// lagExplains reports whether a generator's send lag (ms) could account
// for every violation: each a latency over its bound by no more than it.
func lagExplains(violations []bench.Violation, lag float64) bool {
	for _, v := range violations {
		if !v.Term.Metric.IsLatency() || v.Got-lag > v.Term.Max {
			return false
		}
	}
	return true
}
