package stats_test

import (
	"testing"

	"github.com/threadbench/threadbench/internal/stats"
)

func TestVerdict(t *testing.T) {
	low := seq(100, 105)  // median 102.5
	high := seq(110, 115) // median 112.5
	tests := []struct {
		name           string
		base, head     []float64
		higherIsBetter bool
		minEffectPct   float64
		wantVerdict    string
		wantChange     float64
		wantTest       stats.Test
	}{
		// 112.5/102.5 - 1 = +9.76%, p = 2/924.
		{"throughput up", low, high, true, 5, stats.Better, 9.75609756097561,
			stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true}},
		{"latency up", low, high, false, 5, stats.Worse, 9.75609756097561,
			stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true}},
		// 102.5/112.5 - 1 = -8.89%.
		{"latency down", high, low, false, 5, stats.Better, -8.888888888888889,
			stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true}},
		{"throughput down", high, low, true, 5, stats.Worse, -8.888888888888889,
			stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true}},
		// Significant, but 101.25/100.25 - 1 = +1.0% is under the 5%
		// a reader should act on.
		{"significant but small", []float64{100, 100.1, 100.2, 100.3, 100.4, 100.5}, []float64{101, 101.1, 101.2, 101.3, 101.4, 101.5}, true, 5,
			stats.NoDifference, 0.997506234413965, stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true}},
		// The same with no effect floor counts.
		{"small with no floor", []float64{100, 100.1, 100.2, 100.3, 100.4, 100.5}, []float64{101, 101.1, 101.2, 101.3, 101.4, 101.5}, true, 0,
			stats.Better, 0.997506234413965, stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true}},
		// Doubled, but 3+3 cannot be significant: 201/101 - 1 = +99%.
		{"3 rounds each", seq(100, 102), seq(200, 202), true, 5, stats.NoDifference, 99.00990099009901,
			stats.Test{P: 0.1, NA: 3, NB: 3, Alpha: 0.05, Warnings: []string{"need >= 4 samples to detect a difference at alpha level 0.05"}}},
		{"identical", low, low, true, 5, stats.NoDifference, 0, stats.Test{P: 1, NA: 6, NB: 6, Alpha: 0.05}},
		{"no head", low, nil, true, 5, stats.NoDifference, 0,
			stats.Test{P: 1, NA: 6, NB: 0, Alpha: 0.05, Warnings: []string{"no test: need values on both sides, have 6+0"}}},
		// Error rate from 0: significant, but no relative size.
		{"from zero", []float64{0, 0, 0, 0, 0, 0}, seq(1, 6), false, 5, stats.NoDifference, 0,
			stats.Test{P: 2.0 / 924, NA: 6, NB: 6, Alpha: 0.05, Significant: true, Warnings: []string{"base median is 0: relative change undefined"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verdict, test, change := stats.Verdict(tt.base, tt.head, tt.higherIsBetter, tt.minEffectPct, 0.05)
			if verdict != tt.wantVerdict || !near(change, tt.wantChange) {
				t.Errorf("Verdict = %q, %+.4f%%, want %q, %+.4f%%", verdict, change, tt.wantVerdict, tt.wantChange)
			}
			checkTest(t, test, tt.wantTest)
		})
	}
}

// TestVerdictWording pins the line a report prints.
func TestVerdictWording(t *testing.T) {
	verdict, test, _ := stats.Verdict(seq(100, 102), seq(200, 202), true, 5, 0.05)
	if got, want := verdict+" ("+test.String()+")", "no significant difference (p = 0.1, n = 3+3)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
