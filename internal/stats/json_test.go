package stats_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/threadbench/threadbench/internal/stats"
)

// TestJSONEncodable checks that no result holds NaN or ±Inf, which
// encoding/json refuses, whatever the input: a report must never fail to
// save because a stage had one value.
func TestJSONEncodable(t *testing.T) {
	nonFinite := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	_, verdictTest, _ := stats.Verdict(nil, []float64{1}, true, 5, 0.05)
	_, zeroTest, _ := stats.Verdict([]float64{0}, []float64{1}, true, 5, 0.05)
	results := map[string]any{
		"Median n=0":             stats.Median(nil, 0.95),
		"Median n=1":             stats.Median([]float64{1}, 0.95),
		"Median non-finite only": stats.Median(nonFinite, 0.95),
		"Median confidence 1":    stats.Median(seq(1, 10), 1),
		"BatchMeans n=0":         stats.BatchMeans(nil, 10, 0.95),
		"BatchMeans n=1":         stats.BatchMeans([]float64{1}, 10, 0.95),
		"BatchMeans non-finite":  stats.BatchMeans(nonFinite, 10, 0.95),
		"BatchMeans confidence":  stats.BatchMeans(seq(1, 20), 10, 1),
		"Compare n=0":            stats.Compare(nil, nil, 0.05),
		"Compare n=1":            stats.Compare([]float64{1}, []float64{2}, 0.05),
		"Compare equal":          stats.Compare([]float64{1}, []float64{1}, 0.05),
		"Compare non-finite":     stats.Compare(nonFinite, nonFinite, 0.05),
		"Verdict n=0":            verdictTest,
		"Verdict from zero":      zeroTest,
	}
	for name, result := range results {
		t.Run(name, func(t *testing.T) {
			if _, err := json.Marshal(result); err != nil {
				t.Errorf("json.Marshal(%+v): %v", result, err)
			}
		})
	}
}

// TestJSONFields pins the field names reports and the API will read.
func TestJSONFields(t *testing.T) {
	s, err := json.Marshal(stats.Median([]float64{1}, 0.95))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"center":1,"lo":1,"hi":1,"hasInterval":false,"n":1,"confidence":0.95,"method":"median (distribution-free)","warnings":["need \u003e= 6 samples for confidence interval at level 0.95"]}`
	if got := string(s); got != want {
		t.Errorf("Summary JSON:\n got %s\nwant %s", got, want)
	}
	// A literal: benchmath's p for 3+3 is 0.1 only to within a rounding.
	c, err := json.Marshal(stats.Test{P: 0.1, NA: 3, NB: 3, Alpha: 0.05, Method: stats.MethodMannWhitney,
		Warnings: []string{"need >= 4 samples to detect a difference at alpha level 0.05"}})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"p":0.1,"nA":3,"nB":3,"alpha":0.05,"significant":false,"method":"Mann-Whitney U","warnings":["need \u003e= 4 samples to detect a difference at alpha level 0.05"]}`
	if got := string(c); got != want {
		t.Errorf("Test JSON:\n got %s\nwant %s", got, want)
	}
}
