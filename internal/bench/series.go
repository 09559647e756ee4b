package bench

import "context"

// Point is one sample of a series: T seconds on the attack's clock (t = 0 at
// the first measured request; negative during warm-up) and its value.
type Point struct {
	T float64 `json:"t"`
	V float64 `json:"v"`
}

// Series is one metric of one target over a run, e.g. jvm_threads_live_threads
// or container_memory_working_set_bytes, with the labels that tell it apart.
type Series struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	Points []Point           `json:"points"`
}

// Exposition is a raw Prometheus text exposition kept at the start or end of
// an attack, for anything the curated series lack.
type Exposition struct {
	At   string `json:"at"` // "start" or "end"
	Text string `json:"text"`
}

// SeriesStore keeps the series and raw expositions of a run's targets.
type SeriesStore interface {
	// SaveSeries replaces the series stored for one target of a run.
	SaveSeries(ctx context.Context, runID, target string, series []Series) error
	// FindSeries returns the target's series, all of them when names is empty.
	FindSeries(ctx context.Context, runID, target string, names []string) ([]Series, error)
	// SaveExposition stores a raw exposition for one target of a run.
	SaveExposition(ctx context.Context, runID, target string, e Exposition) error
	// FindExpositions returns the raw expositions of one target of a run.
	FindExpositions(ctx context.Context, runID, target string) ([]Exposition, error)
}
