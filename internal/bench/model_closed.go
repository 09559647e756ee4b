package bench

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
func (closedModel) Clients() bool          { return true }

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
