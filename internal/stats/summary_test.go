package stats_test

import (
	"math"
	"slices"
	"testing"

	"golang.org/x/perf/benchmath"

	"github.com/threadbench/threadbench/internal/stats"
)

func TestMedian(t *testing.T) {
	const m = stats.MethodMedian
	tests := []struct {
		name       string
		values     []float64
		confidence float64
		want       stats.Summary
	}{
		// Binomial(10, ½): [x2, x9] leaves out P(0 or 1 below) twice,
		// 2 × 11/1024, so it covers 1 - 22/1024 = 0.978515625 ≥ 0.95;
		// [x3, x8] covers only 1 - 2 × 56/1024 = 0.890625.
		{"1..10", seq(1, 10), 0.95, stats.Summary{Center: 5.5, Lo: 2, Hi: 9, HasInterval: true, N: 10, Confidence: 0.978515625, Method: m}},
		// Order does not matter; zero confidence means 0.95.
		{"1..10 shuffled, default level", []float64{7, 3, 10, 1, 5, 9, 2, 8, 4, 6}, 0, stats.Summary{Center: 5.5, Lo: 2, Hi: 9, HasInterval: true, N: 10, Confidence: 0.978515625, Method: m}},
		// Six is the fewest values for 95%: [x1, x6] covers 1 - 2/64.
		// The outlier only widens the interval, the median holds.
		{"6 values with an outlier", []float64{-10, 2, 3, 4, 5, 6}, 0.95, stats.Summary{Center: 3.5, Lo: -10, Hi: 6, HasInterval: true, N: 6, Confidence: 0.96875, Method: m}},
		// Five values cannot make a 95% interval: say so, keep the median.
		{"5 values", seq(1, 5), 0.95, stats.Summary{Center: 3, Lo: 3, Hi: 3, N: 5, Confidence: 0.95, Method: m,
			Warnings: []string{"need >= 6 samples for confidence interval at level 0.95"}}},
		// At 99% it takes eight: 2/256 = 0.0078 ≤ 0.01.
		{"6 values at 99%", seq(1, 6), 0.99, stats.Summary{Center: 3.5, Lo: 3.5, Hi: 3.5, N: 6, Confidence: 0.99, Method: m,
			Warnings: []string{"need >= 8 samples for confidence interval at level 0.99"}}},
		{"one value", []float64{42}, 0.95, stats.Summary{Center: 42, Lo: 42, Hi: 42, N: 1, Confidence: 0.95, Method: m,
			Warnings: []string{"need >= 6 samples for confidence interval at level 0.95"}}},
		{"no values", nil, 0.95, stats.Summary{Confidence: 0.95, Method: m, Warnings: []string{"no values"}}},
		// A NaN would sort anywhere and break JSON: dropped, and said.
		{"NaN and Inf dropped", append(seq(1, 10), math.NaN(), math.Inf(1)), 0.95, stats.Summary{Center: 5.5, Lo: 2, Hi: 9, HasInterval: true, N: 10, Confidence: 0.978515625, Method: m,
			Warnings: []string{"dropped 2 non-finite value(s)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSummary(t, stats.Median(tt.values, tt.confidence), tt.want)
		})
	}
}

// TestMedianIsBenchmaths pins Median to benchstat's own arithmetic.
func TestMedianIsBenchmaths(t *testing.T) {
	values := seq(1, 10)
	want := benchmath.AssumeNothing.Summary(benchmath.NewSample(seq(1, 10), &benchmath.DefaultThresholds), 0.95)
	got := stats.Median(values, 0.95)
	if got.Center != want.Center || got.Lo != want.Lo || got.Hi != want.Hi || got.Confidence != want.Confidence {
		t.Errorf("Median = %v [%v, %v] at %v, benchmath says %v [%v, %v] at %v",
			got.Center, got.Lo, got.Hi, got.Confidence, want.Center, want.Lo, want.Hi, want.Confidence)
	}
}

// TestKeepsOrder checks that the caller's slices are not sorted in place,
// as benchmath.NewSample would: the same values may next go to BatchMeans,
// which needs time order.
func TestKeepsOrder(t *testing.T) {
	values, other := []float64{3, 1, 2, 5, 4, 6}, []float64{9, 7, 8}
	stats.Median(values, 0.95)
	stats.Compare(values, other, 0.05)
	stats.Verdict(other, values, true, 5, 0.05)
	if want := []float64{3, 1, 2, 5, 4, 6}; !slices.Equal(values, want) {
		t.Errorf("values = %v, want %v untouched", values, want)
	}
	if want := []float64{9, 7, 8}; !slices.Equal(other, want) {
		t.Errorf("other = %v, want %v untouched", other, want)
	}
}
