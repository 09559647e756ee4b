package stats_test

import (
	"math"
	"testing"

	"github.com/threadbench/threadbench/internal/stats"
)

// steady is 30 per-second throughputs in 10 batches of 3, each batch
// (m-1, m, m+1) for m = 98, 99, 100, 101, 102, twice over.
//
// By hand: the batch means are m, their mean is 100, their deviations
// -2..2 twice give Σd² = 20, so s = √(20/9) = 1.490712 and
// s/√10 = 0.4714045. t(0.975, 9) = 2.2621572, so the half-width is
// 1.0663911 and the 95% interval [98.933609, 101.066391].
var steady = []float64{
	97, 98, 99, 98, 99, 100, 99, 100, 101, 100, 101, 102, 101, 102, 103,
	97, 98, 99, 98, 99, 100, 99, 100, 101, 100, 101, 102, 101, 102, 103,
}

func TestBatchMeans(t *testing.T) {
	const m = stats.MethodBatchMeans
	steadyWant := stats.Summary{Center: 100, Lo: 98.93360888674408, Hi: 101.06639111325592, HasInterval: true,
		N: 30, Batches: 10, Confidence: 0.95, Method: m}
	tests := []struct {
		name       string
		values     []float64
		batches    int
		confidence float64
		want       stats.Summary
	}{
		{"steady stage", steady, 10, 0.95, steadyWant},
		// Zero batches and zero confidence mean 10 and 0.95.
		{"defaults", steady, 0, 0, steadyWant},
		// 25 values in 10 batches: boundaries i×25/10 give sizes
		// 2,3,2,3,... so no value is dropped. The batch means
		// 1.5, 4, 6.5, ..., 24 step by 2.5: centre 12.75 (the plain
		// mean is 13: batches weigh equally), s = 2.5 × sd(1..10) =
		// 7.5691259, s/√10 = 2.3935678, half-width × 2.2621572 =
		// 5.4146265.
		{"uneven batches", seq(1, 25), 10, 0.95, stats.Summary{Center: 12.75, Lo: 7.335373525829578, Hi: 18.164626474170422, HasInterval: true,
			N: 25, Batches: 10, Confidence: 0.95, Method: m}},
		// 7 values for 10 batches: one value a batch. Mean 11,
		// deviations -1,1,0,2,-2,-1,1, Σd² = 12, s = √2, s/√7 =
		// 0.5345225, t(0.975, 6) = 2.4469119, half-width 1.3079294.
		{"fewer values than batches", []float64{10, 12, 11, 13, 9, 10, 12}, 10, 0.95, stats.Summary{Center: 11, Lo: 9.692070599625533, Hi: 12.307929400374467, HasInterval: true,
			N: 7, Batches: 7, Confidence: 0.95, Method: m,
			Warnings: []string{"only 7 values: used 7 batches of one value instead of 10"}}},
		// A flat series is certain: a zero-width interval, not none.
		{"constant", []float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, 10, 0.95, stats.Summary{Center: 5, Lo: 5, Hi: 5, HasInterval: true,
			N: 10, Batches: 10, Confidence: 0.95, Method: m}},
		// Under five batches t is too wide to mean anything: the mean alone.
		{"4 values", []float64{1, 2, 3, 6}, 10, 0.95, stats.Summary{Center: 3, Lo: 3, Hi: 3, N: 4, Confidence: 0.95, Method: m,
			Warnings: []string{"need >= 5 values for a batch-means interval, have 4"}}},
		{"3 batches asked", steady, 3, 0.95, stats.Summary{Center: 100, Lo: 100, Hi: 100, N: 30, Confidence: 0.95, Method: m,
			Warnings: []string{"need >= 5 batches for a batch-means interval, asked for 3"}}},
		{"one value", []float64{7}, 10, 0.95, stats.Summary{Center: 7, Lo: 7, Hi: 7, N: 1, Confidence: 0.95, Method: m,
			Warnings: []string{"need >= 5 values for a batch-means interval, have 1"}}},
		{"no values", nil, 10, 0.95, stats.Summary{Confidence: 0.95, Method: m,
			Warnings: []string{"need >= 5 values for a batch-means interval, have 0"}}},
		// t(1, k-1) is infinite: refuse rather than print ±Inf.
		{"confidence 1", steady, 10, 1, stats.Summary{Center: 100, Lo: 100, Hi: 100, N: 30, Confidence: 1, Method: m,
			Warnings: []string{"confidence level 1 must be below 1"}}},
		{"NaN dropped", append([]float64{math.NaN()}, steady...), 10, 0.95, stats.Summary{Center: 100, Lo: 98.93360888674408, Hi: 101.06639111325592, HasInterval: true,
			N: 30, Batches: 10, Confidence: 0.95, Method: m, Warnings: []string{"dropped 1 non-finite value(s)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSummary(t, stats.BatchMeans(tt.values, tt.batches, tt.confidence), tt.want)
		})
	}
}
