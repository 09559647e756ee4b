package capacity

import (
	"context"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Defaults of a search: the domain's, for a spec's fields left out, and the
// rates.
const (
	DefaultPrecision       = bench.DefaultCapacityPrecision
	DefaultConfirmations   = bench.DefaultCapacityConfirmations
	DefaultTrialDuration   = time.Duration(bench.DefaultCapacityTrial)
	DefaultConfirmDuration = time.Duration(bench.DefaultCapacityConfirm)
	DefaultSettle          = time.Duration(bench.DefaultCapacitySettle)
	DefaultBudget          = time.Duration(bench.DefaultCapacityBudget)
	DefaultStartRate       = bench.DefaultCapacityStartRate
	DefaultMinRate         = bench.MinCapacityRate
	DefaultMaxRate         = 100_000.0
)

// Rule is how a search judges a rate by its confirmations.
type Rule string

// The rules.
const (
	// RulePooled merges the confirmations' latency histograms and judges
	// the objective over their time together, at least the goal
	// duration: a rare pause counts in proportion to how often it
	// happens, not by which window it fell in (MLRsearch's goal duration,
	// RFC 9971).
	RulePooled Rule = bench.RulePooled
	// RuleWindows asks MustPass of the confirmations to pass each.
	RuleWindows Rule = bench.RuleWindows
)

// DefaultGoalDuration is the time the objective is judged over at a rate
// by default: the default confirmations' own time, 3 × 10 s.
const DefaultGoalDuration = DefaultConfirmations * DefaultConfirmDuration

// Config says what a search looks for and how long it may take: a run's
// capacity spec, its zero fields taking the defaults above, with its
// objective parsed, and what the run knows besides. Its Budget is this
// search's (the spec's is the run's, shared by its targets: FromSpec,
// Shared). Confirmations is how many full-length trials run at the
// answer, and MustPass how many of them must pass each: given, the rule is
// RuleWindows (Confirmations: every one, the strict rule); 0, it is
// RulePooled, and MustPass a majority (bench.MustPassOf) for windows that
// carry no histogram to pool. GoalDuration is the time the pooled rule
// judges the objective over at a rate: the confirmations' time together
// must be as long (more run where Confirmations × ConfirmDuration is
// shorter); 0: that time, and it stays 0 (see goal).
type Config struct {
	bench.CapacitySpec
	// Objective is the spec's, parsed (CapacitySpec.Objective is its
	// text).
	Objective bench.Objective
	// Rule is how a rate's confirmations are judged; "" takes it from
	// MustPass, as above.
	Rule    Rule
	MinRate float64 // below it the search gives up: nothing passes
	// Ceiling is a physical bound the target cannot pass in a steady state
	// (a pool's threads ÷ the service time its requests take at least),
	// named by CeilingWhat; 0 when none is known. No trial goes above it: a
	// rate a little above it can pass a short trial, the queue growing only
	// by the excess, too slowly for the trial's length to show, so trials
	// there would only spend the budget. A ceiling that passes its
	// confirmations is the answer.
	Ceiling     float64
	CeilingWhat string

	// Now and Wait are the clock, replaced by tests that run in virtual
	// time; nil means the real one.
	Now  func() time.Time
	Wait func(ctx context.Context, d time.Duration) error
}

// The spec's durations, as the search reckons with them.
func (c Config) trialDuration() time.Duration   { return c.TrialDuration.D() }
func (c Config) confirmDuration() time.Duration { return c.ConfirmDuration.D() }
func (c Config) settle() time.Duration          { return c.Settle.D() }
func (c Config) budget() time.Duration          { return c.Budget.D() }

func (c Config) withDefaults() Config {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *bench.Duration, d time.Duration) {
		if *v == 0 {
			*v = bench.Duration(d)
		}
	}
	def(&c.Precision, DefaultPrecision)
	def(&c.StartRate, DefaultStartRate)
	def(&c.MinRate, DefaultMinRate)
	def(&c.MaxRate, DefaultMaxRate)
	defDur(&c.TrialDuration, DefaultTrialDuration)
	defDur(&c.ConfirmDuration, DefaultConfirmDuration)
	defDur(&c.Settle, DefaultSettle)
	defDur(&c.Budget, DefaultBudget)
	if c.Rule == "" {
		c.Rule = Rule(c.spec().Rule())
	}
	if c.Confirmations == 0 {
		c.Confirmations = DefaultConfirmations
	}
	if c.Rule == RulePooled {
		c.Confirmations = max(c.Confirmations, c.spec().Windows())
	}
	if c.MustPass == 0 {
		c.MustPass = bench.MustPassOf(c.Confirmations)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Wait == nil {
		c.Wait = sleep
	}
	return c
}

// MinBudget is the least time a search with c's trials needs at their
// nominal lengths: one short trial and the confirmations, with their
// pauses. What trials really take is only known once they run: a search
// whose budget turns out too small for them says so, with the figures.
func (c Config) MinBudget() time.Duration {
	return c.withDefaults().spec().MinBudget().D()
}

// Validate checks a configuration (defaults applied) before anything
// starts, by the rules of a run's capacity spec (bench.CapacitySpec.Check,
// the one place they are written); the error names the field.
func (c Config) Validate() error {
	return c.withDefaults().spec().Check(1)
}

// goal is the time the objective is judged over at a rate: GoalDuration,
// or the confirmations' own time.
func (c Config) goal() time.Duration { return c.spec().Goal().D() }

// spec is the spec the search runs by: its objective as parsed, and no
// MustPass under the pooled rule.
func (c Config) spec() bench.CapacitySpec {
	s := c.CapacitySpec
	s.Objective = c.Objective.String()
	if c.Rule == RulePooled {
		s.MustPass = 0
	}
	return s
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
