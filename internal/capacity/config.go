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

// Config says what a search looks for and how long it may take. Zero
// fields take the defaults above.
type Config struct {
	Objective bench.Objective
	// Precision is the relative width, (failed - passed) / failed, at which
	// bisection stops.
	Precision float64
	// Confirmations is how many full-length trials run at the answer, and
	// MustPass how many of them must pass (0: a majority, see
	// bench.MustPassOf; Confirmations: every one).
	Confirmations   int
	MustPass        int
	TrialDuration   time.Duration // of a bracketing or bisecting trial
	ConfirmDuration time.Duration // of a confirmation
	Settle          time.Duration // the pause between trials
	// Budget is the time the search may take, trials, pauses and what
	// trials take beyond their nominal length included; the first trial's
	// warm-up is not charged to it (see Outcome.Warmup).
	Budget time.Duration
	// StartRate is the first rate tried: a guess, or a known bound such as
	// Little's (threads ÷ service time).
	StartRate float64
	MinRate   float64 // below it the search gives up: nothing passes
	MaxRate   float64 // above it the search does not go
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

func (c Config) withDefaults() Config {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
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
	if c.Confirmations == 0 {
		c.Confirmations = DefaultConfirmations
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

// spec is the configuration as a run's capacity spec says it.
func (c Config) spec() bench.CapacitySpec {
	return bench.CapacitySpec{Objective: c.Objective.String(), Precision: c.Precision, Confirmations: c.Confirmations, MustPass: c.MustPass,
		TrialDuration: bench.Duration(c.TrialDuration), ConfirmDuration: bench.Duration(c.ConfirmDuration),
		Settle: bench.Duration(c.Settle), Budget: bench.Duration(c.Budget), StartRate: c.StartRate, MaxRate: c.MaxRate}
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
