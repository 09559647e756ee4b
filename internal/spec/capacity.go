package spec

import "github.com/threadbench/threadbench/internal/bench"

// resolveCapacity gives a capacity search its profile (the search makes
// its own: its trials replace the one stage Prepare checks and sizes the
// run by, the full-length confirmation at the start rate) and its highest
// rate (the guardrail's, unless lower). A profile of one's own is refused.
func resolveCapacity(spec *bench.RunSpec, g bench.Guardrails) error {
	c := spec.Capacity
	if c == nil {
		return nil
	}
	p := spec.Profile
	// Only the load engine and connections are the caller's; a stored
	// search's profile (its own name) is prepared again as it is.
	model, known := bench.LookupModel(p.Model)
	own := p.Name == "" && p.Description == "" && p.Scale == 0 && len(p.Stages) == 0 && p.Workload == nil && known && model.RateLevel()
	if p.Name != bench.CapacityProfileName && !own {
		return bench.FieldErrorf("profile", "a capacity search makes its own open-model trials: leave the profile out (or give only its engine)")
	}
	if c.MaxRate == 0 {
		c.MaxRate = g.MaxRate
	}
	start := bench.OrDefault(c.StartRate, bench.DefaultCapacityStartRate)
	spec.Profile = bench.Profile{Name: bench.CapacityProfileName, Description: "a capacity search: its trials replace this stage", Model: bench.ModelOpen,
		Stages: []bench.Stage{{Duration: bench.OrDefault(c.ConfirmDuration, bench.DefaultCapacityConfirm), Rate: start}},
		Engine: p.Engine, Connections: p.Connections}
	return nil
}

// checkCapacity checks a capacity spec before the run is queued: the
// guardrails, then its settings (Check, with the budget shared by the
// run's targets and rounds).
func checkCapacity(spec *bench.RunSpec, cat bench.Catalog) error {
	c := spec.Capacity
	if c == nil {
		return nil
	}
	switch {
	case c.MaxRate > cat.Guardrails.MaxRate:
		return bench.FieldErrorf("capacity.maxRate", "%g req/s is above the configured maximum rate %g", c.MaxRate, cat.Guardrails.MaxRate)
	case max(c.TrialDuration, c.ConfirmDuration, c.Settle) > cat.Guardrails.MaxDuration:
		return bench.FieldErrorf("capacity", "a trial or pause is longer than the configured maximum stage %s", cat.Guardrails.MaxDuration)
	case c.GoalDuration > cat.Guardrails.MaxDuration:
		return bench.FieldErrorf("capacity.goalDuration", "%s is longer than the configured maximum run %s: the objective is judged over a rate's confirmations, which cannot last longer", c.GoalDuration, cat.Guardrails.MaxDuration)
	}
	return prefixField(c.Check(len(spec.RunCases())*spec.Rounds()), "capacity.")
}
