package stats_test

import (
	"math"
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/stats"
)

// seq returns from, from+1, ..., to.
func seq(from, to float64) []float64 {
	var out []float64
	for v := from; v <= to; v++ {
		out = append(out, v)
	}
	return out
}

// near reports whether got is within 1e-9 of want.
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// checkSummary compares the figures and warnings of a Summary.
func checkSummary(t *testing.T, got, want stats.Summary) {
	t.Helper()
	if !near(got.Center, want.Center) || !near(got.Lo, want.Lo) || !near(got.Hi, want.Hi) {
		t.Errorf("centre [lo, hi] = %v [%v, %v], want %v [%v, %v]", got.Center, got.Lo, got.Hi, want.Center, want.Lo, want.Hi)
	}
	if got.HasInterval != want.HasInterval {
		t.Errorf("HasInterval = %v, want %v", got.HasInterval, want.HasInterval)
	}
	if got.N != want.N || got.Batches != want.Batches {
		t.Errorf("N, Batches = %d, %d, want %d, %d", got.N, got.Batches, want.N, want.Batches)
	}
	if !near(got.Confidence, want.Confidence) {
		t.Errorf("Confidence = %v, want %v", got.Confidence, want.Confidence)
	}
	if got.Method != want.Method {
		t.Errorf("Method = %q, want %q", got.Method, want.Method)
	}
	if !slices.Equal(got.Warnings, want.Warnings) {
		t.Errorf("Warnings = %q, want %q", got.Warnings, want.Warnings)
	}
}

// checkTest compares every field of a Test but Method.
func checkTest(t *testing.T, got, want stats.Test) {
	t.Helper()
	if !near(got.P, want.P) || got.NA != want.NA || got.NB != want.NB || got.Alpha != want.Alpha {
		t.Errorf("p, n, alpha = %v, %d+%d, %v, want %v, %d+%d, %v", got.P, got.NA, got.NB, got.Alpha, want.P, want.NA, want.NB, want.Alpha)
	}
	if got.Significant != want.Significant {
		t.Errorf("Significant = %v, want %v", got.Significant, want.Significant)
	}
	if !slices.Equal(got.Warnings, want.Warnings) {
		t.Errorf("Warnings = %q, want %q", got.Warnings, want.Warnings)
	}
}
