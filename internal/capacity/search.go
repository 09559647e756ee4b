// Package capacity finds the highest arrival rate a target sustains within
// an objective, the way FD.io CSIT's MLRsearch finds a packet rate: short
// trials bracket the answer (doubling up from a start rate), bisection
// narrows the bracket to a relative width, and the lower edge is confirmed
// at full trial length, several times, so that the answer is a rate that
// passed every confirmation. Trials run through a TrialFunc, so the search
// knows nothing of targets or load generators.
package capacity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Phase says what a trial was for.
type Phase string

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

// Step is one trial as the search judged it.
type Step struct {
	Trial
	N          int      `json:"n"` // its number in the search, from 0
	Pass       bool     `json:"pass"`
	Throughput float64  `json:"throughput"` // successful responses per second
	P99        float64  `json:"p99"`        // ms
	Violations []string `json:"violations,omitempty"`
	// GeneratorBound is why the generator may have limited the trial. A
	// trial that failed so is neither a pass nor a fail of the target; one
	// that passed all the same passed (see judge).
	GeneratorBound string `json:"generatorBound,omitempty"`
	// GeneratorNote is what the generator did in a trial it did not decide:
	// a pass despite it, or a failure larger than its lag.
	GeneratorNote string `json:"generatorNote,omitempty"`
}

// Result is the answer of a search.
type Result struct {
	// Rate is the highest rate that passed every confirmation; 0 when no
	// rate was confirmed.
	Rate float64 `json:"rate"`
	// Confirmations are the full-length trials at Rate, for their spread.
	Confirmations []Step `json:"confirmations,omitempty"`
	// Failed is the next rate up that failed, and what failed; nil when
	// none did.
	Failed *Step `json:"failed,omitempty"`
	// Width is the bracket's final relative width, (failed - rate) / failed.
	Width  float64       `json:"width,omitempty"`
	Stop   Stop          `json:"stop"`
	Reason string        `json:"reason"` // a sentence saying why it stopped
	Steps  []Step        `json:"steps"`  // every trial, in order
	Spent  time.Duration `json:"spent"`
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
	s := &search{cfg: cfg, run: run, start: cfg.Now()}
	res, err := s.find(ctx)
	if err != nil {
		return nil, err
	}
	res.Steps, res.Spent = s.steps, cfg.Now().Sub(s.start)
	return res, nil
}

type search struct {
	cfg   Config
	run   TrialFunc
	start time.Time
	steps []Step
	// budgetShort is set once a short trial would eat the time the
	// confirmations need: narrowing ends and the bracket is confirmed.
	budgetShort bool
}

// find brackets, bisects and confirms until a lower edge holds.
func (s *search) find(ctx context.Context) (*Result, error) {
	lo, hi, err := s.bracket(ctx)
	for err == nil {
		if lo, hi, err = s.bisect(ctx, lo, hi); err != nil {
			break
		}
		var confirms []Step
		confirms, err = s.confirm(ctx, lo)
		if res := s.partial(confirms, err, lo, hi); res != nil {
			return res, nil
		}
		if err != nil {
			break
		}
		if last := confirms[len(confirms)-1]; !last.Pass {
			// the short trials were lucky: the failed confirmation is the
			// new upper edge, and the search goes on below it
			hi = &last
			lo, err = s.passBelow(ctx, hi.Rate)
			continue
		}
		return s.answer(lo.Rate, confirms, hi), nil
	}
	var st *stopped
	if !errors.As(err, &st) {
		return nil, err
	}
	res := s.answer(0, nil, hi)
	res.Stop, res.Reason = st.stop, st.reason
	if lo != nil && st.stop != StopNoPass {
		res.Reason += fmt.Sprintf(" (%.0f req/s passed a short trial, unconfirmed)", lo.Rate)
	}
	return res, nil
}

// partial answers a search whose budget ended the confirmations at lo
// after some ran and every one of them passed: lo is the answer (the rate
// that passed every confirmation run), and the reason says how many of
// those asked for ran. Nil otherwise.
func (s *search) partial(confirms []Step, err error, lo, hi *Step) *Result {
	var st *stopped
	if len(confirms) == 0 || !errors.As(err, &st) || st.stop != StopBudget || !confirms[len(confirms)-1].Pass {
		return nil
	}
	res := s.answer(lo.Rate, confirms, hi)
	res.Stop = StopBudget
	res.Reason = fmt.Sprintf("the time budget (%s) ran out after %d of %d confirmations at %.0f req/s, each of which passed",
		s.cfg.Budget, len(confirms), s.cfg.Confirmations, lo.Rate)
	return res
}

// answer builds the result of a search whose lower edge rate held (0 when
// none did), hi being the lowest failure above it.
func (s *search) answer(rate float64, confirms []Step, hi *Step) *Result {
	res := &Result{Rate: rate, Confirmations: confirms, Failed: hi}
	if hi != nil && rate > 0 {
		res.Width = (hi.Rate - rate) / hi.Rate
	}
	switch {
	case rate == 0:
	case hi == nil:
		res.Stop, res.Reason = StopMaxRate, fmt.Sprintf("%.0f req/s, the highest rate allowed, passed: the target carries more", rate)
	case s.budgetShort:
		res.Stop, res.Reason = StopBudget, fmt.Sprintf("the time budget (%s) ended the bisection at a bracket %.1f%% wide (asked %.1f%%)",
			s.cfg.Budget, res.Width*100, s.cfg.Precision*100)
	default:
		res.Stop, res.Reason = StopPrecision, fmt.Sprintf("the bracket is %.1f%% wide (asked %.1f%%)", res.Width*100, s.cfg.Precision*100)
	}
	return res
}

// bracket doubles up from the start rate until a short trial fails, or
// halves down until one passes. lo is the highest pass, hi the lowest
// failure; either may be nil (nothing failed below the maximum rate).
func (s *search) bracket(ctx context.Context) (lo, hi *Step, err error) {
	rate := s.cfg.StartRate
	for {
		step, err := s.short(ctx, PhaseBracket, rate)
		if err != nil {
			return lo, nil, err
		}
		if !step.Pass {
			lo, err := s.passBelow(ctx, rate)
			return lo, step, err
		}
		if lo = step; rate >= s.cfg.MaxRate {
			return lo, nil, nil
		}
		rate = min(2*rate, s.cfg.MaxRate)
	}
}

// passBelow halves down from a failing rate until a short trial passes,
// unless an earlier short trial below it passed already.
func (s *search) passBelow(ctx context.Context, failed float64) (*Step, error) {
	if best := s.bestPassBelow(failed); best != nil {
		return best, nil
	}
	for rate := failed / 2; ; rate /= 2 {
		if rate < s.cfg.MinRate {
			return nil, &stopped{StopNoPass, fmt.Sprintf("every rate down to %.2f req/s failed the objective", s.cfg.MinRate)}
		}
		step, err := s.short(ctx, PhaseBracket, rate)
		if err != nil || step.Pass {
			return step, err
		}
	}
}

// bestPassBelow is the highest rate below failed whose short trial passed.
func (s *search) bestPassBelow(failed float64) *Step {
	var best *Step
	for i := range s.steps {
		st := &s.steps[i]
		if st.Pass && st.Phase != PhaseConfirm && st.Rate < failed && (best == nil || st.Rate > best.Rate) {
			best = st
		}
	}
	if best == nil {
		return nil
	}
	b := *best
	return &b
}

// bisect halves [lo, hi] with short trials until it is within the
// precision, or the budget left is the confirmations'.
func (s *search) bisect(ctx context.Context, lo, hi *Step) (*Step, *Step, error) {
	for hi != nil && (hi.Rate-lo.Rate)/hi.Rate > s.cfg.Precision && !s.budgetShort {
		step, err := s.short(ctx, PhaseBisect, (lo.Rate+hi.Rate)/2)
		if err != nil {
			return lo, hi, err
		}
		if step == nil { // no time left for short trials
			break
		}
		if step.Pass {
			lo = step
		} else {
			hi = step
		}
	}
	return lo, hi, nil
}

// confirm runs the full-length trials at lo, stopping at the first that
// fails; it returns those it ran, also when the budget ends them early.
func (s *search) confirm(ctx context.Context, lo *Step) ([]Step, error) {
	var confirms []Step
	for range s.cfg.Confirmations {
		if s.left() < s.cfg.ConfirmDuration {
			return confirms, &stopped{StopBudget, fmt.Sprintf("the time budget (%s) ran out before the confirmations", s.cfg.Budget)}
		}
		step, err := s.trial(ctx, Trial{Phase: PhaseConfirm, Rate: lo.Rate, Duration: s.cfg.ConfirmDuration})
		if err != nil {
			return nil, err
		}
		if confirms = append(confirms, *step); !step.Pass {
			break
		}
	}
	return confirms, nil
}

// short runs a short trial, or returns nil when it would eat the time the
// confirmations need after a bracket was found. Without a bracket (no
// failure seen) the search cannot go on and stops on the budget.
func (s *search) short(ctx context.Context, phase Phase, rate float64) (*Step, error) {
	reserve := time.Duration(s.cfg.Confirmations) * (s.cfg.ConfirmDuration + s.cfg.Settle)
	if s.left() < s.cfg.TrialDuration+s.cfg.Settle+reserve {
		if phase == PhaseBisect {
			s.budgetShort = true
			return nil, nil
		}
		return nil, &stopped{StopBudget, fmt.Sprintf("the time budget (%s) ran out while bracketing, at %.0f req/s", s.cfg.Budget, rate)}
	}
	return s.trial(ctx, Trial{Phase: phase, Rate: rate, Duration: s.cfg.TrialDuration})
}

// trial runs one trial after the settle period, judges it and keeps it.
func (s *search) trial(ctx context.Context, t Trial) (*Step, error) {
	if len(s.steps) > 0 {
		if err := s.cfg.Wait(ctx, s.cfg.Settle); err != nil {
			return nil, err
		}
	}
	out, err := s.run(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("trial at %.0f req/s: %w", t.Rate, err)
	}
	step := judge(t, out, s.cfg.Objective)
	step.N = len(s.steps)
	s.steps = append(s.steps, step)
	if step.GeneratorBound != "" {
		return nil, &stopped{StopGenerator, fmt.Sprintf("the load generator is the limit at %.0f req/s (%s), not the target", t.Rate, step.GeneratorBound)}
	}
	return &step, nil
}

// judge says whether a trial met the objective. Latency runs from each
// request's scheduled time, so a late generator's lag is inside it: it can
// make a trial fail, never pass. A trial that passed with the generator
// bound passed. One that failed so is the target's failure only when the
// lag cannot explain it: some bound is broken by more than the lag (or is
// not a latency). Otherwise it says nothing of the target and is marked
// neither pass nor fail (no violations), which stops the search.
func judge(t Trial, out Outcome, o bench.Objective) Step {
	step := Step{Trial: t, Throughput: out.Stats.Throughput, P99: out.Stats.Latency.P99}
	violations := o.Check(out.Stats)
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

// left is the time budget not yet spent.
func (s *search) left() time.Duration {
	return s.cfg.Budget - s.cfg.Now().Sub(s.start)
}
