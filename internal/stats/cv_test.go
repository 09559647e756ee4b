package stats_test

import (
	"math"
	"testing"

	"github.com/threadbench/threadbench/internal/stats"
)

func TestCV(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   float64
		ok     bool
	}{
		{"no spread", []float64{5, 5, 5}, 0, true},
		// sd of 90, 110 is 14.142; over a mean of 100.
		{"two rounds", []float64{90, 110}, 14.142, true},
		{"one round", []float64{100}, 0, false},
		{"zero mean", []float64{-1, 1}, 0, false},
	}
	for _, tt := range tests {
		got, ok := stats.CV(tt.values)
		if ok != tt.ok || math.Abs(got-tt.want) > 0.001 {
			t.Errorf("%s: CV = %.3f, %v; want %.3f, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
