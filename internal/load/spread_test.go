package load

import (
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// TestSpreadDoesNotAlias is the pool run's false "not steady": 400 closed
// clients on 500 ms requests, each sending again 1.5 ms after its answer,
// stay in step, a bunch 20 ms wide going round every 501.5 ms. It drifts 3
// ms a second against the clock, so from about the eighth second on it
// straddles a second's boundary: clients in it answer once in that second
// instead of twice, and the second's completions dip while the target
// served as much as ever. CompletedSpread counts each answer over its
// flight: every second, warm-up and measured, gets 400 / 0.5015 s.
func TestSpreadDoesNotAlias(t *testing.T) {
	const (
		clients = 400
		service = 500 * time.Millisecond
		think   = 1500 * time.Microsecond
		first   = 460 * time.Millisecond
		width   = 20 * time.Millisecond
	)
	var warmSeconds []bench.Bucket
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Weight: 1}}},
		Profile:  bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(12), Concurrency: clients}}},
		Warmup:   untilSteady(3*time.Second, 1),
		Settled:  func(b bench.Bucket) bool { warmSeconds = append(warmSeconds, b); return false },
	}
	r := newRecorder(plan, newTimetable(plan), newRequestSet("http://127.0.0.1:1", plan.Workload), bench.Observer{},
		recorderConfig{bucket: time.Second, wire: newWire()}, time.Now())
	end := 15 * time.Second
	var inFlight float64 // each answer's share of its flight before the end
	for i := range clients {
		for sent := first + time.Duration(i)*width/clients; sent < end; sent += service + think {
			r.sending(sent)
			r.record(outcome{intended: sent, sent: sent, done: sent + service, code: 200})
			inFlight += float64(min(sent+service, end)-sent) / float64(service)
		}
	}
	fire(r.tick(end, true))

	want := clients / (service + think).Seconds()
	if len(warmSeconds) != 3 {
		t.Fatalf("%d warm-up seconds judged, want 3", len(warmSeconds))
	}
	var spread float64
	for _, b := range warmSeconds {
		spread += b.Stats.CompletedSpread
		if b.Second == 0 {
			continue // half empty: the clients start at 0.46 s
		}
		if got := b.Stats.CompletedSpread; math.Abs(got-want) > 0.002*want {
			t.Errorf("warm-up second %d: spread %.1f, want %.1f", b.Second, got, want)
		}
	}
	var dip float64
	seconds, err := r.done.all()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range seconds {
		spread += b.Stats.CompletedSpread
		if b.Second == 11 {
			continue // its last answers come after the end
		}
		dip = max(dip, math.Abs(float64(b.Stats.Completed)-want)/want)
		if got := b.Stats.CompletedSpread; math.Abs(got-want) > 0.002*want {
			t.Errorf("second %d: %d completed, spread %.1f; want the spread %.1f within 0.2 %%", b.Second, b.Stats.Completed, got, want)
		}
	}
	if dip < 0.02 {
		t.Fatalf("no second's completions strayed 2 %% from %.1f (%.1f %% at most): the series does not alias, and the test shows nothing", want, 100*dip)
	}
	if math.Abs(spread-inFlight) > 1e-6*inFlight {
		t.Errorf("%.3f answers spread over the seconds, want %.3f: every share of a flight before the end, once", spread, inFlight)
	}
}
