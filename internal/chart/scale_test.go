package chart_test

import (
	"math"
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/chart"
)

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 37, []float64{0, 10, 20, 30, 40}},                       // a round max above the data
		{0, 95, []float64{0, 20, 40, 60, 80, 100}},                  // six ticks at most
		{0, 101, []float64{0, 25, 50, 75, 100, 125}},                // 2.5 steps
		{0, 7, []float64{0, 2, 4, 6, 8}},                            //
		{0, 3, []float64{0, 1, 2, 3}},                               // four ticks at least
		{0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},                 // exact decimals, no 0.6000000000000001
		{0, 0, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},                 // an all-zero series still gets an axis
		{0, 0.003, []float64{0, 0.001, 0.002, 0.003}},               // small values
		{50, 100, []float64{50, 60, 70, 80, 90, 100}},               // a given minimum
		{-12, 40, []float64{-20, 0, 20, 40}},                        // negative values
		{42, 42, []float64{20, 30, 40, 50, 60, 70}},                 // a single value, minimum not at zero
		{0, 1.5e6, []float64{0, 500_000, 1e6, 1.5e6}},               // large values
		{0, 1e300, []float64{0, 2e299, 4e299, 6e299, 8e299, 1e300}}, // the largest drawn
	}
	for _, tt := range tests {
		got, step := chart.NiceTicks(tt.lo, tt.hi)
		if !slices.Equal(got, tt.want) {
			t.Errorf("NiceTicks(%g, %g) = %v, want %v", tt.lo, tt.hi, got, tt.want)
		}
		if n := len(got); n < 4 || n > 6 || step != got[1]-got[0] && math.Abs(step-(got[1]-got[0])) > 1e-9*step {
			t.Errorf("NiceTicks(%g, %g): %d ticks, step %g", tt.lo, tt.hi, n, step)
		}
	}
}

func TestNiceTicks_CoverAndCount(t *testing.T) {
	for hi := 0.013; hi < 1e7; hi *= 1.37 {
		for _, lo := range []float64{0, -hi / 3} {
			ticks, _ := chart.NiceTicks(lo, hi)
			if n := len(ticks); n < 4 || n > 6 || ticks[0] > lo || ticks[n-1] < hi {
				t.Fatalf("NiceTicks(%g, %g) = %v: want 4–6 ticks covering the range", lo, hi, ticks)
			}
		}
	}
}

func TestTicksWithin(t *testing.T) {
	tests := []struct {
		lo, hi       float64
		maxIntervals int
		want         []float64
	}{
		{-30, 270, 9, []float64{0, 50, 100, 150, 200, 250}}, // starts negative
		{0, 600, 9, []float64{0, 100, 200, 300, 400, 500, 600}},
		{0, 19, 9, []float64{0, 2.5, 5, 7.5, 10, 12.5, 15, 17.5}},
		{3, 3, 9, []float64{1.5, 2, 2.5, 3, 3.5, 4, 4.5}}, // a single instant gets some width
		{-60, -1, 4, []float64{-60, -40, -20}},
	}
	for _, tt := range tests {
		got, _ := chart.TicksWithin(tt.lo, tt.hi, tt.maxIntervals)
		if !slices.Equal(got, tt.want) {
			t.Errorf("TicksWithin(%g, %g, %d) = %v, want %v", tt.lo, tt.hi, tt.maxIntervals, got, tt.want)
		}
	}
}

func TestTickLabels(t *testing.T) {
	tests := []struct {
		ticks []float64
		step  float64
		want  []string
	}{
		{[]float64{0, 20, 40}, 20, []string{"0", "20", "40"}},
		{[]float64{0, 2.5, 5}, 2.5, []string{"0", "2.5", "5.0"}},                      // one shared number of decimals
		{[]float64{0, 0.001, 0.002}, 0.001, []string{"0", "0.001", "0.002"}},          //
		{[]float64{0, 2000, 4000, 8000}, 2000, []string{"0", "2000", "4000", "8000"}}, // no suffix under ten thousand
		{[]float64{0, 5000, 10000}, 5000, []string{"0", "5k", "10k"}},
		{[]float64{0, 2.5e6, 5e6, 7.5e7}, 2.5e6, []string{"0", "2.5M", "5.0M", "75.0M"}},
		{[]float64{-1e300, 0, 1e300}, 1e300, []string{"-1e+300", "0", "1e+300"}}, // beyond T: exponents
	}
	for _, tt := range tests {
		if got := chart.TickLabels(tt.ticks, tt.step); !slices.Equal(got, tt.want) {
			t.Errorf("TickLabels(%v, %g) = %q, want %q", tt.ticks, tt.step, got, tt.want)
		}
	}
}
