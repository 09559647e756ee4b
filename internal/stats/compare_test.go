package stats_test

import (
	"math"
	"testing"

	"github.com/threadbench/threadbench/internal/stats"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name  string
		a, b  []float64
		alpha float64
		want  stats.Test
	}{
		// Disjoint samples give the smallest p there is: U = 0, reached
		// by 1 of the C(n1+n2, n1) orderings, doubled for two sides.
		{"10+10 apart", seq(1, 10), seq(11, 20), 0.05, stats.Test{P: 2.0 / 184756, NA: 10, NB: 10, Alpha: 0.05, Significant: true}},
		{"6+6 apart", seq(1, 6), seq(7, 12), 0.05, stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true}},
		{"apart the other way", seq(7, 12), seq(1, 6), 0.05, stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true}},
		// Overlap: U = 6, and 30 of the 924 orderings have U ≤ 6, so
		// p = 60/924 = 0.0649.
		{"6+6 overlapping", seq(1, 6), []float64{3.5, 4.5, 5.5, 6.5, 7, 8}, 0.05, stats.Test{P: 60.0 / 924, NA: 6, NB: 6, Alpha: 0.05}},
		// Same values on both sides: U1 = U2, p = 1, nothing to warn.
		{"identical samples", seq(1, 6), seq(1, 6), 0.05, stats.Test{P: 1, NA: 6, NB: 6, Alpha: 0.05}},
		// 3+3 as far apart as can be is 2/20 = 0.1: never below 0.05,
		// which benchmath says.
		{"3+3 apart", seq(1, 3), seq(11, 13), 0.05, stats.Test{P: 0.1, NA: 3, NB: 3, Alpha: 0.05,
			Warnings: []string{"need >= 4 samples to detect a difference at alpha level 0.05"}}},
		// Zero alpha means 0.05.
		{"default alpha", seq(1, 3), seq(11, 13), 0, stats.Test{P: 0.1, NA: 3, NB: 3, Alpha: 0.05,
			Warnings: []string{"need >= 4 samples to detect a difference at alpha level 0.05"}}},
		// At alpha 0.1, p = 0.1 is not below it, and can never be;
		// benchmath is silent (it warns only when P > alpha), we are not.
		{"3+3 at alpha 0.1", seq(1, 3), seq(11, 13), 0.1, stats.Test{P: 0.1, NA: 3, NB: 3, Alpha: 0.1,
			Warnings: []string{"n = 3+3 can never reach p < 0.1: the smallest possible p is 0.1"}}},
		// Lopsided: benchmath warns only when both sides are small, but
		// 1+20 cannot go below 2/21 = 0.095.
		{"1+20", []float64{100}, seq(1, 20), 0.05, stats.Test{P: 2.0 / 21, NA: 1, NB: 20, Alpha: 0.05,
			Warnings: []string{"n = 1+20 can never reach p < 0.05: the smallest possible p is 0.0952"}}},
		// A dropped NaN does not hide that 1+20 cannot be significant.
		{"1+20 with a NaN", []float64{100, math.NaN()}, seq(1, 20), 0.05, stats.Test{P: 2.0 / 21, NA: 1, NB: 20, Alpha: 0.05,
			Warnings: []string{"dropped 1 non-finite value(s)", "n = 1+20 can never reach p < 0.05: the smallest possible p is 0.0952"}}},
		{"all values equal", []float64{5, 5, 5}, []float64{5, 5, 5, 5}, 0.05, stats.Test{P: 1, NA: 3, NB: 4, Alpha: 0.05,
			Warnings: []string{"all samples are equal"}}},
		{"empty side", nil, seq(1, 3), 0.05, stats.Test{P: 1, NA: 0, NB: 3, Alpha: 0.05,
			Warnings: []string{"no test: need values on both sides, have 0+3"}}},
		{"both empty", nil, nil, 0.05, stats.Test{P: 1, Alpha: 0.05,
			Warnings: []string{"no test: need values on both sides, have 0+0"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stats.Compare(tt.a, tt.b, tt.alpha)
			checkTest(t, got, tt.want)
			if got.Method != stats.MethodMannWhitney {
				t.Errorf("Method = %q, want %q", got.Method, stats.MethodMannWhitney)
			}
		})
	}
}

func TestTestString(t *testing.T) {
	tests := []struct {
		name string
		test stats.Test
		want string
	}{
		{"not significant", stats.Test{P: 0.43, NA: 3, NB: 3}, "p = 0.43, n = 3+3"},
		// 2/924 = 0.0021645, rounded to three decimals.
		{"6+6 apart", stats.Test{P: 2.0 / 924, NA: 6, NB: 6}, "p = 0.002, n = 6+6"},
		{"3+3 apart", stats.Test{P: 0.1, NA: 3, NB: 3}, "p = 0.1, n = 3+3"},
		{"p 1", stats.Test{P: 1, NA: 6, NB: 6}, "p = 1, n = 6+6"},
		{"unequal sizes", stats.Test{P: 0.0649, NA: 5, NB: 7}, "p = 0.065, n = 5+7"},
		// Below 0.0005 rounding would print 0: print a bound instead.
		{"tiny p", stats.Test{P: 2.0 / 184756, NA: 10, NB: 10}, "p < 0.001, n = 10+10"},
		{"rounds up to 0.001", stats.Test{P: 0.0005, NA: 9, NB: 9}, "p = 0.001, n = 9+9"},
		{"no test", stats.Test{P: 1, NA: 0, NB: 3}, "no test, n = 0+3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.test.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}
