package bench

// ModelOpen offers requests at a scheduled arrival rate, whether or not
// earlier ones have answered (no coordinated omission).
const ModelOpen Model = "open"

func init() { registerModel(openModel{}) }

// openModel is ModelOpen: a stage's Rate is its arrival rate.
type openModel struct{}

func (openModel) Name() Model            { return ModelOpen }
func (openModel) Unit() string           { return "req/s" }
func (openModel) Level(st Stage) float64 { return st.Rate }
func (openModel) RateLevel() bool        { return true }
func (openModel) ScheduledLatency() bool { return true }
func (openModel) LittleBound() bool      { return false }

// CheckConnections: the open model takes any (the range is checked apart).
func (openModel) CheckConnections(int) error { return nil }

// CheckIteration refuses one: there is no client to repeat it.
func (openModel) CheckIteration() error {
	return FieldErrorf("workload.iteration", "is for the closed model: each client repeats it")
}

// CheckFixedWorkers: fixed workers send any rate.
func (openModel) CheckFixedWorkers(Profile, Workload) error { return nil }

func (openModel) CheckStage(st Stage, field string, g Guardrails) error {
	if st.Concurrency != 0 {
		return FieldErrorf(field+".concurrency", "an open-model stage takes a rate, not a concurrency")
	}
	return CheckRate(st.Rate, field+".rate", g)
}

// ShareOf is the stage at Rate/Of: the shares' schedules interleave into
// the stage's (Share).
func (openModel) ShareOf(st Stage, s Share) Stage {
	if !s.Whole() {
		st.Rate /= float64(s.Of)
	}
	return st
}

// CheckShare: any rate splits.
func (openModel) CheckShare(Stage, string, int) error { return nil }
