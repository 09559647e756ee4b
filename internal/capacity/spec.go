package capacity

import (
	"errors"
	"strconv"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// FromSpec reads a run's capacity spec into a search's configuration, its
// budget shared evenly by the run's targets (the share checked before
// anything starts; a run gives each target its share as its search starts,
// see Config.Shared). A bad field is an EINVALID error naming it under
// "capacity.", before anything starts.
func FromSpec(spec bench.CapacitySpec, targets int) (Config, error) {
	targets = max(targets, 1)
	o, err := bench.ParseObjective(spec.Objective)
	if err != nil {
		return Config{}, underCapacity(err, "")
	}
	cfg := Config{CapacitySpec: spec, Objective: o}
	cfg.Budget = bench.Duration(RunBudget(spec, targets) / time.Duration(targets))
	if err := cfg.Validate(); err != nil {
		shared := ""
		if targets > 1 {
			shared = "shared by " + strconv.Itoa(targets) + " targets, "
		}
		return Config{}, underCapacity(err, shared)
	}
	return cfg, nil
}

// RunBudget is the time a run's searches may take together: the spec's
// budget, or the default for each target.
func RunBudget(spec bench.CapacitySpec, targets int) time.Duration {
	if spec.Budget > 0 {
		return spec.Budget.D()
	}
	return DefaultBudget * time.Duration(max(targets, 1))
}

// underCapacity names a configuration error's field as the spec's, under
// "capacity.", saying how the budget was shared when it is about that.
func underCapacity(err error, shared string) error {
	var be *bench.Error
	if !errors.As(err, &be) {
		return err
	}
	msg := be.Message
	if be.Field == "budget" {
		msg = shared + msg
	}
	return &bench.Error{Code: be.Code, Field: "capacity." + be.Field, Message: msg}
}

// Summary is the result as the run document keeps it; a trial's stage is
// its number in the search, the trials being the target's stages in order.
func (r *Result) Summary(objective bench.Objective) *bench.CapacityResult {
	out := &bench.CapacityResult{Objective: objective.String(), Rate: r.Rate, Width: r.Width,
		MustPass: r.MustPass, Asked: r.Asked,
		Stop: string(r.Stop), Reason: r.Reason, Trials: len(r.Steps), Spent: bench.Duration(r.Spent),
		Rule: string(r.Rule), RuleNote: r.RuleNote, GoalDuration: bench.Duration(r.GoalDuration), Pooled: r.Pooled, Unconfirmed: r.Unconfirmed,
		PauseNote: r.PauseNote}
	for _, c := range r.Confirmations {
		out.Confirmations = append(out.Confirmations, c.CapacityTrial)
	}
	if r.Failed != nil {
		f := r.Failed.CapacityTrial
		out.Failed = &f
	}
	for _, s := range r.Steps {
		out.Steps = append(out.Steps, s.CapacityTrial)
	}
	return out
}
