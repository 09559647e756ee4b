package load_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
)

// A target that falls behind never makes the generator open unbounded
// sockets: past the in-flight limit requests are dropped, counted as failed,
// and kept out of the latency figures.
func TestEngineDropsBeyondMaxInFlight(t *testing.T) {
	srv := newServer(t, 2*time.Second) // far slower than the offered rate
	plan := bench.Plan{
		Workload: workload(bench.Request{Endpoint: "light", Weight: 1}),
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(1), Rate: 200}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
	res, err := load.NewEngine(load.WithMaxInFlight(50)).Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if peak := srv.peakInFlight(); peak > 50 {
		t.Errorf("target saw %d requests in flight, want at most the limit 50", peak)
	}
	total := res.Total
	if total.Requests < 196 || total.Requests > 204 {
		t.Errorf("requests = %d, want the schedule's 200 (dropped ones count as sent)", total.Requests)
	}
	if total.Successes != 50 {
		t.Errorf("successes = %d, want the 50 that fit under the limit", total.Successes)
	}
	var dropped int64
	for _, e := range total.Errors {
		if strings.Contains(e.Message, load.DroppedPrefix) {
			dropped += e.Count
		}
	}
	if dropped != total.Requests-50 {
		t.Errorf("dropped = %d, want %d; errors %v", dropped, total.Requests-50, total.Errors)
	}
	if p50 := total.Latency.P50; p50 < 2000 {
		t.Errorf("p50 = %.1f ms, want >= 2000: dropped requests must not count as fast answers", p50)
	}
}
