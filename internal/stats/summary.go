package stats

import (
	"fmt"
	"math"

	"golang.org/x/perf/benchmath"
)

// Defaults used when a caller passes zero or less, so that a zero-valued
// option means "the usual".
const (
	DefaultConfidence = 0.95 // confidence level of intervals
	DefaultAlpha      = 0.05 // significance level of tests
)

// Method names, as reports print them.
const (
	MethodMedian      = "median (distribution-free)"
	MethodBatchMeans  = "batch means (within-run)"
	MethodMannWhitney = "Mann-Whitney U"
)

// Summary is a centre of a set of values with its confidence interval.
//
// When the values are too few for an interval at the requested confidence,
// HasInterval is false, Lo and Hi equal Center, and Warnings says how many
// values an interval needs: a missing interval is stated, not invented, and
// the struct never holds NaN or ±Inf, so it always encodes to JSON.
type Summary struct {
	Center      float64 `json:"center"`
	Lo          float64 `json:"lo"`
	Hi          float64 `json:"hi"`
	HasInterval bool    `json:"hasInterval"`
	N           int     `json:"n"`                 // values used
	Batches     int     `json:"batches,omitempty"` // BatchMeans only: batches the values were cut into
	// Confidence is the level the interval achieves. A median interval is
	// bounded by order statistics, so its level is at least the requested one
	// (e.g. 0.979 for 10 values at 0.95); without an interval it is the
	// requested level.
	Confidence float64  `json:"confidence"`
	Method     string   `json:"method"`
	Warnings   []string `json:"warnings,omitempty"`
}

// Median returns the median of values with benchmath's distribution-free
// confidence interval at the given level (zero or less means
// DefaultConfidence). values is not modified.
//
// A 95% interval needs at least 6 values; with fewer, Median returns the
// median alone with benchmath's warning ("need >= 6 samples for confidence
// interval at level 0.95").
func Median(values []float64, confidence float64) Summary {
	confidence = orDefault(confidence, DefaultConfidence)
	values, warnings := finite(values)
	if len(values) == 0 {
		return noInterval(0, 0, confidence, MethodMedian, append(warnings, "no values"))
	}
	thresholds := benchmath.DefaultThresholds
	sample := benchmath.NewSample(values, &thresholds) // sorts finite's copy
	s := benchmath.AssumeNothing.Summary(sample, confidence)
	warnings = append(warnings, messages(s.Warnings)...)
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return noInterval(s.Center, len(values), confidence, MethodMedian, warnings)
	}
	return Summary{Center: s.Center, Lo: s.Lo, Hi: s.Hi, HasInterval: true, N: len(values),
		Confidence: s.Confidence, Method: MethodMedian, Warnings: warnings}
}

// noInterval is a Summary that has a centre but no interval.
func noInterval(center float64, n int, confidence float64, method string, warnings []string) Summary {
	return Summary{Center: center, Lo: center, Hi: center, N: n,
		Confidence: confidence, Method: method, Warnings: warnings}
}

// finite returns a copy of the finite values, in order, and a warning if
// it dropped any: one NaN would otherwise poison every figure and break JSON
// encoding. It always copies because benchmath.NewSample sorts in place and
// the caller's order matters (BatchMeans needs time order).
func finite(values []float64) ([]float64, []string) {
	kept := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			kept = append(kept, v)
		}
	}
	if dropped := len(values) - len(kept); dropped > 0 {
		return kept, []string{fmt.Sprintf("dropped %d non-finite value(s)", dropped)}
	}
	return kept, nil
}

// messages turns benchmath's warnings into the strings reports print.
func messages(errs []error) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}

// orDefault returns v, or def when v is zero or less.
func orDefault(v, def float64) float64 {
	if v <= 0 {
		return def
	}
	return v
}
