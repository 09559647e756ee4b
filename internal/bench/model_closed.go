package bench

import "fmt"

// ModelClosed keeps a fixed number of requests in flight; each client sends
// its next request when the previous one answers (k6 VUs, nGrinder vusers).
// Its throughput is an outcome, not an input.
const ModelClosed Model = "closed"

func init() { registerModel(closedModel{}) }

// closedModel is ModelClosed: a stage's Concurrency is its clients.
type closedModel struct{}

func (closedModel) Name() Model            { return ModelClosed }
func (closedModel) Unit() string           { return "clients" }
func (closedModel) Level(st Stage) float64 { return float64(st.Concurrency) }
func (closedModel) RateLevel() bool        { return false }
func (closedModel) ScheduledLatency() bool { return false }
func (closedModel) LittleBound() bool      { return true }
func (closedModel) CheckIteration() error  { return nil }

// CheckConnections refuses a setting: a closed profile has one connection
// per client.
func (closedModel) CheckConnections(connections int) error {
	if connections != 0 {
		return FieldErrorf("profile.connections", "is for the open model; a closed profile has one connection per client")
	}
	return nil
}

// CheckFixedWorkers refuses a ramp (the workers cannot change during an
// attack) and an iteration (no pause between a client's requests).
func (closedModel) CheckFixedWorkers(p Profile, w Workload) error {
	for i, st := range p.Stages {
		if st.Ramp {
			return FieldErrorf(fmt.Sprintf("profile.stages[%d].ramp", i),
				"the vegeta engine cannot ramp a closed profile (its workers are fixed for an attack); hold each stage, or use engine %q", LoadEngineOwn)
		}
	}
	if len(w.Iteration) > 0 {
		return FieldErrorf("workload.iteration", "the vegeta engine sends single requests, not iterations with think times; use engine %q", LoadEngineOwn)
	}
	return nil
}

func (closedModel) CheckStage(st Stage, field string, g Guardrails) error {
	if st.Rate != 0 {
		return FieldErrorf(field+".rate", "a closed-model stage takes a concurrency, not a rate")
	}
	if st.Concurrency < 0 || st.Concurrency > g.MaxConcurrency {
		return FieldErrorf(field+".concurrency", "must be from 1 to %d requests in flight (the configured maximum), got %d", g.MaxConcurrency, st.Concurrency)
	}
	if st.Concurrency == 0 && !st.Ramp {
		return FieldErrorf(field+".concurrency", "must be at least 1 (0 only as the target of a ramp, e.g. ramping down)")
	}
	return nil
}

// ShareOf deals the stage's clients out one by one (Share.ClientsOf).
func (closedModel) ShareOf(st Stage, s Share) Stage {
	st.Concurrency = s.ClientsOf(st.Concurrency)
	return st
}

// CheckShare refuses a held stage with fewer clients than generators:
// one would send nothing.
func (closedModel) CheckShare(st Stage, field string, generators int) error {
	if st.Concurrency < generators && !(st.Ramp && st.Concurrency == 0) {
		return FieldErrorf(field+".concurrency", "%d client(s) cannot be shared among the %d swarm generators (the daemon's configuration): give each at least one", st.Concurrency, generators)
	}
	return nil
}
