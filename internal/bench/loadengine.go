package bench

import "context"

// LoadEngines are the load engines a profile may name, the default first.
var LoadEngines = []string{LoadEngineOwn, LoadEngineVegeta}

// CheckLoadEngine checks that the profile's load engine exists and can
// send the profile as written. vegeta's attacker paces hits in the open
// model and, with a fixed number of workers and no pacing, keeps that many
// requests in flight; it cannot change its workers during an attack nor
// pause between a client's requests, so a closed ramp or an iteration is
// refused rather than approximated.
func CheckLoadEngine(spec *RunSpec) error {
	p := spec.Profile
	switch p.Engine {
	case "", LoadEngineOwn:
		return nil
	case LoadEngineVegeta:
	default:
		return FieldErrorf("profile.engine", "must be %q (the default) or %q, got %q", LoadEngineOwn, LoadEngineVegeta, p.Engine)
	}
	return p.LoadModel().CheckFixedWorkers(p, spec.Workload)
}

// LoadEngineSet is an Attacker that sends each plan with the load engine
// its profile names (LoadEngineOwn when it names none).
type LoadEngineSet map[string]Attacker

var _ Attacker = LoadEngineSet{}

// Run runs the plan on the engine its profile names.
func (s LoadEngineSet) Run(ctx context.Context, baseURL string, plan Plan, obs Observer) (*AttackResult, error) {
	name := plan.Profile.Engine
	if name == "" {
		name = LoadEngineOwn
	}
	a, ok := s[name]
	if !ok {
		return nil, FieldErrorf("profile.engine", "no load engine %q here", name)
	}
	return a.Run(ctx, baseURL, plan, obs)
}
