package load_test

import (
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
)

func TestMixProportions(t *testing.T) {
	tests := []struct {
		name    string
		weights []int
	}{
		{"one request", []int{1}},            // always the same
		{"even", []int{1, 1}},                // the seed mix
		{"skewed", []int{5, 1, 2}},           // 5:1:2
		{"default weight", []int{0, 3}},      // 0 counts as 1 (ApplyDefaults' default)
		{"many", []int{7, 3, 1, 1, 4, 2, 2}}, // odd total
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w bench.Workload
			total := 0
			for _, n := range tt.weights {
				w.Requests = append(w.Requests, bench.Request{Endpoint: "light", Weight: n})
				total += max(n, 1)
			}
			mix := load.NewMix(w)
			const rounds = 50
			counts := make([]int, len(tt.weights))
			window := make([]int, len(tt.weights))
			for i := range rounds * total {
				k := mix.Next()
				counts[k]++
				window[k]++
				if (i+1)%total == 0 { // every window of sum(weights) picks is exact
					for j, n := range tt.weights {
						if got, want := window[j], max(n, 1); got != want {
							t.Fatalf("window ending at pick %d: request %d picked %d times, want %d", i, j, got, want)
						}
					}
					clear(window)
				}
			}
			for j, n := range tt.weights {
				if got, want := counts[j], rounds*max(n, 1); got != want {
					t.Errorf("request %d picked %d times, want %d", j, got, want)
				}
			}
		})
	}
}

func TestMixSpreads(t *testing.T) {
	// smooth round-robin interleaves: 1:1 alternates instead of running in blocks.
	mix := load.NewMix(bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Weight: 2}, {Endpoint: "light", Weight: 2}}})
	prev := mix.Next()
	for range 10 {
		next := mix.Next()
		if next == prev {
			t.Fatalf("picked request %d twice in a row", next)
		}
		prev = next
	}
}
