package capacity

import (
	"fmt"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// overheads are the largest overheads seen on the trials of one length:
// the time a trial took beyond its nominal length and pause.
type overheads struct {
	any, passed  time.Duration
	seen, passes int
}

// largest is the largest overhead seen, among the trials that passed when
// asked and some did; false when none was seen.
func (o overheads) largest(passed bool) (time.Duration, bool) {
	if passed && o.passes > 0 {
		return o.passed, true
	}
	return o.any, o.seen > 0
}

// cost is what a trial really takes on this machine, learnt from the
// trials this search ran: each is a separate attack (connections opened,
// answers in flight drained, the run saved), so it takes longer than its
// nominal length and pause. The largest overhead seen is the estimate, so
// that time kept back with it holds. No figure is assumed: before any
// trial the overhead is taken as nil.
type cost struct {
	cfg            Config
	short, confirm overheads
}

// observe learns one trial's overhead.
func (c *cost) observe(t Trial, pass bool, over time.Duration) {
	o := &c.short
	if t.Phase == PhaseConfirm {
		o = &c.confirm
	}
	over = max(over, 0)
	o.seen++
	o.any = max(o.any, over)
	if pass {
		o.passes++
		o.passed = max(o.passed, over)
	}
}

// shortTrial is what a short trial costs, pause included: any of them may
// fail, so the largest overhead of any short trial.
func (c cost) shortTrial() time.Duration {
	return c.cfg.settle() + c.cfg.trialDuration() + overhead(c.short, c.confirm, false)
}

// confirmation is what a confirmation costs, pause included. It runs at a
// rate that passed, so it is judged by the trials that passed (a failing
// trial may drain a backlog a passing one does not have).
func (c cost) confirmation() time.Duration {
	return c.cfg.settle() + c.cfg.confirmDuration() + overhead(c.confirm, c.short, true)
}

// round is what n confirmations cost.
func (c cost) round(n int) time.Duration { return time.Duration(n) * c.confirmation() }

// overhead estimates a trial's overhead from those of its own length, or
// else from those of the other length as they are: an overhead is what a
// trial costs as a separate attack (setting up, draining, saving), which
// real runs show does not grow with the trial's length (0.3 to 2.4 s over
// 3 s and 10 s trials alike on java-platform).
func overhead(own, other overheads, passed bool) time.Duration {
	if v, ok := own.largest(passed); ok {
		return v
	}
	v, _ := other.largest(passed)
	return v
}

// reserve is the time kept back for confirming before a short trial of
// phase may run, at what confirmations measured here cost. Bracketing keeps
// back a round and one confirmation more, so that a first confirmation
// that fails still leaves a whole round for the rate below it (a bracket is
// worth more than a second round: without it the answer is only a lower
// bound). Bisecting keeps back two rounds, so that a confirmation that
// fails anywhere in its round leaves a whole round below it, as busy
// machines make the later ones fail too. Each falls back to less where the
// budget cannot hold it beside a short trial.
func (s *search) reserve(phase Phase) time.Duration {
	n := s.cfg.Confirmations
	holds := func(k int) bool { return s.cfg.budget() >= s.cost.shortTrial()+s.cost.round(k) }
	switch {
	case phase == PhaseBisect && holds(2*n):
		n *= 2
	case holds(n + 1):
		n++
	}
	return s.cost.round(n)
}

// roomToAskAgain reports whether the budget has room for trial t again:
// a short one with the time kept back for confirming (see reserve), a
// confirmation by itself.
func (s *search) roomToAskAgain(t Trial) bool {
	if t.Phase == PhaseConfirm {
		return s.left() >= s.cost.confirmation()
	}
	return s.left() >= s.cost.shortTrial()+s.reserve(t.Phase)
}

// spent is the time charged to the budget: the search's, less the
// warm-up its first trial ran.
func (s *search) spent() time.Duration {
	return s.cfg.Now().Sub(s.start) - s.warm
}

// left is the time budget not yet spent.
func (s *search) left() time.Duration {
	return s.cfg.budget() - s.spent()
}

// costs says what trials take here, for a reason that blames the budget.
func (s *search) costs() string {
	return fmt.Sprintf("a %s short trial takes %s here and a %s confirmation %s, pauses and measured overhead included",
		s.cfg.trialDuration(), s.cost.shortTrial().Round(100*time.Millisecond),
		s.cfg.confirmDuration(), s.cost.confirmation().Round(100*time.Millisecond))
}

// tooSmall is the stop of a search whose budget holds no short trial and
// round of confirmations at their measured cost.
func (s *search) tooSmall() *stopped {
	need := s.cost.shortTrial() + s.cost.round(s.cfg.Confirmations)
	return &stopped{StopBudget, fmt.Sprintf("the time budget (%s) is too small for this target: one short trial and %d confirmations need %s (%s)",
		s.cfg.budget(), s.cfg.Confirmations, need.Round(100*time.Millisecond), s.costs())}
}

// Shared returns c with the budget of the next target's search in a run
// whose targets are searched one after the other. The run's budget
// (total) pays for searches only, trials and pauses: a target's build,
// start, check and warm-up are not charged, so a slow first start starves
// no one. Each target's share is set when its search starts: what the
// searches before it left of the total (spent is what they spent), shared
// evenly by the targets still to search, this one included, so that time a
// search did not need goes to those after it. A share is never below one
// search's minimum (MinBudget): a target after searches that overran gets
// a search all the same, and the run overruns by that much.
func (c Config) Shared(total, spent time.Duration, targetsLeft int) Config {
	share := ((total - spent) / time.Duration(max(targetsLeft, 1))).Truncate(100 * time.Millisecond)
	c.Budget = bench.Duration(max(share, c.MinBudget()))
	return c
}
