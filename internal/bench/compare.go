package bench

import "time"

// DefaultNoiseThreshold is the smallest relative change, in percent, that
// a comparison calls better or worse unless the user sets another: the
// minimum effect a user cares about. A change must also be significant.
const DefaultNoiseThreshold = 5.0

// DefaultMaxErrors is the share of a window's requests that may fail for
// a run's report to draw a ranking or a pair verdict from it, unless the
// user sets another: past it, what is measured is mostly how fast the
// target failed.
const DefaultMaxErrors = 0.01

// CheckMaxErrors refuses a percentage of requests allowed to fail
// outside (0, 100], naming field.
func CheckMaxErrors(field string, percent float64) error {
	if !(percent > 0 && percent <= 100) {
		return FieldErrorf(field, "must be a percentage above 0 and at most 100, got %g", percent)
	}
	return nil
}

// Verdicts of a compared figure: VerdictBetter, VerdictWorse, or
// VerdictNoDifference (report.go). VerdictNoise is what comparisons said
// before they were tested for significance.
const (
	VerdictBetter = "better"
	VerdictWorse  = "worse"
	VerdictNoise  = "within noise"
)

// Comparison is the document `compare` produces: for each target present in
// both runs, its figures side by side, as a change, with a verdict.
type Comparison struct {
	Base           RunRef             `json:"base"`
	Head           RunRef             `json:"head"`
	Warnings       []string           `json:"warnings,omitempty"` // e.g. the specs differ
	NoiseThreshold float64            `json:"noiseThreshold"`     // percent change under which no figure is better or worse
	Alpha          float64            `json:"alpha,omitempty"`    // significance level of the tests
	Targets        []TargetComparison `json:"targets"`
	OnlyInBase     []string           `json:"onlyInBase,omitempty"`
	OnlyInHead     []string           `json:"onlyInHead,omitempty"`
}

// RunRef identifies a compared run.
type RunRef struct {
	ID        string    `json:"id"`
	Name      string    `json:"name,omitempty"`
	Status    RunStatus `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
}

// TargetComparison compares one target across two runs: the whole attack,
// each stage where the profiles match, and resource use.
type TargetComparison struct {
	Target    string            `json:"target"`
	Metrics   []MetricDelta     `json:"metrics"`
	Stages    []StageComparison `json:"stages,omitempty"`
	Resources []MetricDelta     `json:"resources,omitempty"`
}

// StageComparison compares one stage of a target across two runs.
type StageComparison struct {
	Index   int           `json:"index"`
	Name    string        `json:"name,omitempty"`
	Metrics []MetricDelta `json:"metrics"`
}

// MetricDelta is one figure in both runs. Change is the relative change in
// percent, (head - base) / base * 100; Verdict says whether that is better
// or worse, given HigherIsBetter, or no significant difference: Test is the
// test behind it.
type MetricDelta struct {
	Name           string        `json:"name"` // throughput, p50, p90, p95, p99, max, errorRate...
	Unit           string        `json:"unit"` // req/s, ms, %
	Base           float64       `json:"base"`
	Head           float64       `json:"head"`
	Change         float64       `json:"change"`
	HigherIsBetter bool          `json:"higherIsBetter"`
	Verdict        string        `json:"verdict"`
	Test           *Significance `json:"test,omitempty"`
}
