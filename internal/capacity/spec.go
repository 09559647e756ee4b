package capacity

import (
	"errors"
	"strconv"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// FromSpec reads a run's capacity spec into a search's configuration, its
// budget shared evenly by the run's targets. A bad field is an EINVALID
// error naming it under "capacity.", before anything starts.
func FromSpec(spec bench.CapacitySpec, targets int) (Config, error) {
	o, err := bench.ParseObjective(spec.Objective)
	if err != nil {
		return Config{}, renameField(err, "capacity.objective")
	}
	cfg := Config{
		Objective: o, Precision: spec.Precision, Confirmations: spec.Confirmations,
		TrialDuration: spec.TrialDuration.D(), ConfirmDuration: spec.ConfirmDuration.D(), Settle: spec.Settle.D(),
		StartRate: spec.StartRate, MaxRate: spec.MaxRate,
	}
	total := spec.Budget.D()
	if total == 0 {
		total = DefaultBudget * time.Duration(max(targets, 1))
	}
	cfg.Budget = total / time.Duration(max(targets, 1))
	if err := cfg.Validate(); err != nil {
		var be *bench.Error
		if errors.As(err, &be) && be.Field == "budget" && targets > 1 {
			be.Message = "shared by " + strconv.Itoa(targets) + " targets, " + be.Message
		}
		return Config{}, renameField(err, "capacity."+fieldOf(err))
	}
	return cfg, nil
}

func fieldOf(err error) string {
	var be *bench.Error
	if errors.As(err, &be) {
		return be.Field
	}
	return ""
}

func renameField(err error, field string) error {
	var be *bench.Error
	if errors.As(err, &be) {
		return &bench.Error{Code: be.Code, Field: field, Message: be.Message}
	}
	return err
}

// Summary is the result as the run document keeps it; a trial's stage is
// its number in the search, the trials being the target's stages in order.
func (r *Result) Summary(objective bench.Objective) *bench.CapacityResult {
	out := &bench.CapacityResult{Objective: objective.String(), Rate: r.Rate, Width: r.Width,
		Stop: string(r.Stop), Reason: r.Reason, Trials: len(r.Steps), Spent: bench.Duration(r.Spent)}
	for _, c := range r.Confirmations {
		out.Confirmations = append(out.Confirmations, c.summary())
	}
	if r.Failed != nil {
		f := r.Failed.summary()
		out.Failed = &f
	}
	return out
}

func (s Step) summary() bench.CapacityTrial {
	return bench.CapacityTrial{Stage: s.N, Phase: string(s.Phase), Rate: s.Rate, Throughput: s.Throughput,
		P99: s.P99, Violations: s.Violations, GeneratorBound: s.GeneratorBound, GeneratorNote: s.GeneratorNote}
}
