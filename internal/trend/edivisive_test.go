package trend_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/trend"
)

// noisy returns n values around level with a spread of ±spread (uniform),
// drawn from rng.
func noisy(rng *rand.Rand, n int, level, spread float64) []float64 {
	values := make([]float64, n)
	for i := range values {
		values[i] = level + spread*(2*rng.Float64()-1)
	}
	return values
}

func indexes(splits []trend.Split) []int {
	out := []int{}
	for _, s := range splits {
		out = append(out, s.Index)
	}
	return out
}

func TestSplits(t *testing.T) {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	tests := []struct {
		name   string
		values []float64
		want   []int
	}{
		// Throughput falls by 40% at run 10 of 20: one change point there.
		{"step down", slices.Concat(noisy(rng(), 10, 100, 3), noisy(rng(), 10, 60, 3)), []int{10}},
		// Latency rises at run 6 of 14: one change point there.
		{"step up", slices.Concat(noisy(rng(), 6, 10, 0.5), noisy(rng(), 8, 14, 0.5)), []int{6}},
		// Noise alone: no change point.
		{"no change", noisy(rng(), 20, 100, 5), []int{}},
		// Two steps, down then back up: both found.
		{"two steps", slices.Concat(noisy(rng(), 8, 100, 2), noisy(rng(), 8, 70, 2), noisy(rng(), 8, 100, 2)), []int{8, 16}},
		// Four runs a side, the fewest the smallest series has: found.
		{"eight runs", []float64{40, 41, 39.5, 40.2, 10, 10.3, 9.8, 10.1}, []int{4}},
		// Too few runs to split.
		{"five runs", []float64{1, 1, 1, 9, 9}, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trend.Splits(tt.values, trend.Options{})
			if !slices.Equal(indexes(got), tt.want) {
				t.Fatalf("change points at %v, want %v (%+v)", indexes(got), tt.want, got)
			}
			for _, s := range got {
				if s.PValue > trend.DefaultAlpha {
					t.Errorf("change point %d has p = %g > alpha", s.Index, s.PValue)
				}
			}
		})
	}
}

// TestSplitsFalseAlarms runs the search on series of noise alone: the
// share with a change point is about alpha, the test's level.
func TestSplitsFalseAlarms(t *testing.T) {
	const series = 400
	rng := rand.New(rand.NewPCG(7, 11))
	alarms := 0
	for range series {
		if len(trend.Splits(noisy(rng, 20, 100, 5), trend.Options{Permutations: 199})) > 0 {
			alarms++
		}
	}
	// 400 series at 0.05: 20 expected, standard deviation 4.4.
	rate := float64(alarms) / series
	t.Logf("false alarms in %d of %d series of noise (%.3f) at alpha %g", alarms, series, rate, trend.DefaultAlpha)
	if rate < 0.02 || rate > 0.09 {
		t.Fatalf("false alarms in %d of %d series (%.3f), want about %g", alarms, series, rate, trend.DefaultAlpha)
	}
}

// TestSplitsNotMoved adds runs after a change point, at the new level and
// then past a second change: the first change point stays where it was.
func TestSplitsNotMoved(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		values := slices.Concat(noisy(rng, 6, 100, 4), noisy(rng, 4, 70, 4))
		first := trend.Splits(values, trend.Options{})
		if !slices.Equal(indexes(first), []int{6}) {
			t.Fatalf("seed %d: change points %v, want [6]", seed, indexes(first))
		}
		for _, more := range [][]float64{noisy(rng, 5, 70, 4), noisy(rng, 20, 70, 4), noisy(rng, 10, 120, 4)} {
			values = append(values, more...)
			got := trend.Splits(values, trend.Options{})
			if len(got) == 0 || got[0].Index != 6 {
				t.Fatalf("seed %d, %d runs: change points %v, want the first still at 6", seed, len(values), indexes(got))
			}
		}
	}
}

// TestSplitsDeterministic: the same series gives the same p-values.
func TestSplitsDeterministic(t *testing.T) {
	values := slices.Concat(noisy(rand.New(rand.NewPCG(5, 5)), 8, 10, 2), noisy(rand.New(rand.NewPCG(6, 6)), 8, 12, 2))
	a, b := trend.Splits(values, trend.Options{}), trend.Splits(values, trend.Options{})
	if !slices.Equal(a, b) {
		t.Fatalf("two searches differ: %v and %v", a, b)
	}
}
