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
	DefaultStartRate       = 50.0
	DefaultMinRate         = 1.0
	DefaultMaxRate         = 100_000.0
)

// Config says what a search looks for and how long it may take. Zero
// fields take the defaults above.
type Config struct {
	Objective bench.Objective
	// Precision is the relative width, (failed - passed) / failed, at which
	// bisection stops.
	Precision float64
	// Confirmations is how many full-length trials must pass at the answer.
	Confirmations   int
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
	c = c.withDefaults()
	return c.TrialDuration + time.Duration(c.Confirmations)*(c.ConfirmDuration+c.Settle)
}

// Validate checks a configuration (defaults applied) before anything
// starts; the error names the field at fault.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case len(c.Objective.Terms) == 0:
		return bench.FieldErrorf("objective", "empty: a search needs an objective such as p99<=250ms")
	case c.Precision <= 0 || c.Precision >= 1:
		return bench.FieldErrorf("precision", "%g is not a relative width between 0 and 1 (0.02 is 2%%)", c.Precision)
	case c.Confirmations < 1:
		return bench.FieldErrorf("confirmations", "%d: at least one confirmation is needed", c.Confirmations)
	case c.TrialDuration < 0 || c.ConfirmDuration < 0 || c.Settle < 0:
		return bench.FieldErrorf("trialDuration", "trial durations and the settle period cannot be negative")
	case c.MinRate <= 0 || c.StartRate < c.MinRate || c.MaxRate < c.StartRate:
		return bench.FieldErrorf("startRate", "%g req/s is not between the minimum %g and the maximum %g", c.StartRate, c.MinRate, c.MaxRate)
	case c.Budget < c.MinBudget():
		return bench.FieldErrorf("budget", "%s is below one trial of the search (a %s trial and %d confirmations of %s, with %s pauses: %s)",
			c.Budget, c.TrialDuration, c.Confirmations, c.ConfirmDuration, c.Settle, c.MinBudget())
	}
	return nil
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
