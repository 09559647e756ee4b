package steady_test

import (
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/steady"
)

func TestWatcher(t *testing.T) {
	tests := []struct {
		name   string
		tput   []float64
		window int
		want   int // the seconds fed when it first says steady; -1 never
	}{
		// Flat from the start: steady as soon as the window fills.
		{"flat", noisy(20, 30, 2400, 25), 10, 10},
		// A JIT warm-up of 8 s: steady once the window holds only the flat part.
		{"warming for 8 s", ramp(21, 40, 8, 1300, 2400, 25), 10, 17},
		// Climbing all along: never.
		{"climbing", drift(22, 30, 1500, 0.02, 10), 10, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := steady.NewWatcher(tt.window)
			got := -1
			for i, v := range tt.tput {
				b := bench.Bucket{Second: i, Stats: bench.Stats{Throughput: v, Successes: 1, Elapsed: bench.Duration(1e9),
					Latency: bench.Latency{P50: 20}}}
				if w.Add(b) {
					got = i + 1
					break
				}
			}
			// The knee is found within a second or two of noise.
			if tt.want < 0 && got != -1 || tt.want >= 0 && (got < tt.want || got > tt.want+2) {
				t.Errorf("steady after %d seconds, want %d (-1: never); last window %+v", got, tt.want, w.Last())
			}
		})
	}
}
