package vegeta_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/load/vegeta"
)

// server answers after a delay and counts the requests in flight at most
// (from request number skip+1 on) and by method.
type server struct {
	*httptest.Server
	delay    time.Duration
	inFlight atomic.Int64
	mu       sync.Mutex
	skip     int
	peak     int64
	served   int
}

func newServer(t *testing.T, delay time.Duration) *server {
	s := &server{delay: delay}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		s.mu.Lock()
		if s.served++; s.served > s.skip {
			s.peak = max(s.peak, n)
		}
		s.mu.Unlock()
		time.Sleep(s.delay)
		if r.URL.Path == "/api/cpu" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func sec(s float64) bench.Duration { return bench.Duration(s * float64(time.Second)) }

var light = bench.Request{Endpoint: "light", Weight: 1}

// openPlan is an open plan of 200 req/s, then a ramp to 400, after a
// warm-up. The tests of seconds on it, or on rates as low, call
// t.Parallel: they overlap, a few per cent of a CPU each, asleep for the
// rest (one after another they took 31 s).
func openPlan(reqs ...bench.Request) bench.Plan {
	return bench.Plan{
		Workload: bench.Workload{Requests: reqs, Timeout: sec(5)},
		Profile: bench.Profile{Model: bench.ModelOpen, Engine: bench.LoadEngineVegeta, Stages: []bench.Stage{
			{Name: "hold", Duration: sec(1), Rate: 200},
			{Name: "ramp", Duration: sec(1), Rate: 400, Ramp: true},
		}},
		Warmup: bench.Warmup{Duration: sec(0.5), Rate: 100},
	}
}

// TestOpenFollowsTheSchedule: vegeta sends exactly the schedule's requests
// (200 in the hold, 300 in the ramp from 200 to 400, 50 in the warm-up kept
// apart), filed by the same recorder as load's own engine, each window
// saying which engine sent it.
func TestOpenFollowsTheSchedule(t *testing.T) {
	t.Parallel() // at most 400 req/s, asleep: see openPlan
	srv := newServer(t, time.Millisecond)
	var seconds []bench.Bucket
	var mu sync.Mutex
	obs := bench.Observer{Second: func(b bench.Bucket) { mu.Lock(); seconds = append(seconds, b); mu.Unlock() }}
	res, err := vegeta.NewEngine(load.NewEngine()).Run(context.Background(), srv.URL, openPlan(light), obs)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{200, 300} {
		st := res.Stages[i]
		if got := st.Stats.Requests; got != want {
			t.Errorf("stage %d: %d requests, want %d", i, got, want)
		}
		if got := st.Stats.Successes; got != want {
			t.Errorf("stage %d: %d successes, want %d", i, got, want)
		}
		if got, want := st.Generator.Engine, bench.LoadEngineVegeta; got != want {
			t.Errorf("stage %d: generator engine %q, want %q", i, got, want)
		}
		if st.Stats.ServiceTime == nil {
			t.Errorf("stage %d: no service time in the open model", i)
		}
	}
	if got, want := res.Warmup.Stats.Requests, int64(50); got != want {
		t.Errorf("warm-up: %d requests, want %d", got, want)
	}
	if got, want := res.Total.Requests, int64(500); got != want {
		t.Errorf("total: %d requests, want %d", got, want)
	}
	if got, want := srv.served, 550; got != want {
		t.Errorf("server saw %d requests, want %d", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := len(seconds), 2; got != want {
		t.Fatalf("%d seconds reported, want %d", got, want)
	}
	if got, want := seconds[0].Stats.Requests, int64(200); got != want {
		t.Errorf("second 0: %d requests, want %d", got, want)
	}
	if seconds[1].Stats.BytesOut == 0 || seconds[1].Stats.BytesIn == 0 {
		t.Errorf("second 1: bytes in %d, out %d: the wire is not counted", seconds[1].Stats.BytesIn, seconds[1].Stats.BytesOut)
	}
}

// TestSameFiguresAsOwnEngine: under the same plan both engines send the
// same requests and file them alike, errors worded the same.
func TestSameFiguresAsOwnEngine(t *testing.T) {
	t.Parallel() // at most 400 req/s, asleep: see openPlan
	srv := newServer(t, time.Millisecond)
	cpu := bench.Request{Endpoint: "cpu", Weight: 1}
	plan := openPlan(light, cpu)
	own, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	veg, err := vegeta.NewEngine(load.NewEngine()).Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := veg.Total.Requests, own.Total.Requests; got != want {
		t.Errorf("vegeta sent %d requests, load %d", got, want)
	}
	if got, want := veg.Total.Successes, own.Total.Successes; got != want {
		t.Errorf("vegeta: %d successes, load %d", got, want)
	}
	if got, want := veg.Total.StatusCodes["500"], own.Total.StatusCodes["500"]; got != want || got == 0 {
		t.Errorf("vegeta: %d 500s, load %d", got, want)
	}
	if len(veg.Total.Errors) != 1 || len(own.Total.Errors) != 1 || veg.Total.Errors[0].Message != own.Total.Errors[0].Message {
		t.Errorf("errors differ: vegeta %v, load %v", veg.Total.Errors, own.Total.Errors)
	}
	if got, want := len(veg.Requests), 2; got != want {
		t.Errorf("%d per-request figures, want %d", got, want)
	}
	if own.Stages[0].Generator.Engine != "" {
		t.Errorf("load's own engine says %q", own.Stages[0].Generator.Engine)
	}
}

// TestClosedHoldsTheConcurrency: a closed stage is vegeta's fixed workers,
// never more in flight than the stage's concurrency, after an open warm-up.
func TestClosedHoldsTheConcurrency(t *testing.T) {
	t.Parallel() // at most 400 req/s, asleep: see openPlan
	srv := newServer(t, 10*time.Millisecond)
	// The warm-up is open: its 50 requests leave on schedule, several at
	// once when a busy machine wakes the pacer late, and have all come
	// back before the first closed stage starts (an attack ends when its
	// last result is in). The stages' peak counts from the 51st request
	// on; counted from the first, a clean-clone run saw 5 in flight.
	srv.mu.Lock()
	srv.skip = 50
	srv.mu.Unlock()
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{light}, Timeout: sec(5)},
		Profile: bench.Profile{Model: bench.ModelClosed, Engine: bench.LoadEngineVegeta, Stages: []bench.Stage{
			{Duration: sec(1), Concurrency: 2}, {Duration: sec(1), Concurrency: 4},
		}},
		Warmup: bench.Warmup{Duration: sec(0.5), Rate: 100},
	}
	res, err := vegeta.NewEngine(load.NewEngine()).Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	// the warm-up is open even before a closed profile, paced by the schedule
	if got, want := res.Warmup.Stats.Requests, int64(50); got != want {
		t.Errorf("warm-up: %d requests, want %d", got, want)
	}
	if got := srv.peak; got > 4 {
		t.Errorf("%d requests in flight at most, want at most 4", got)
	}
	// 2 clients at ~10 ms each send ~200 in a second, 4 ~400 (busy machine: a third off)
	for i, want := range []float64{200, 400} {
		if got := float64(res.Stages[i].Stats.Requests); math.Abs(got-want)/want > 0.35 {
			t.Errorf("stage %d: %g requests, want about %g", i, got, want)
		}
	}
	if res.Stages[1].Stats.Requests <= res.Stages[0].Stats.Requests {
		t.Errorf("4 clients sent %d, no more than 2 clients' %d", res.Stages[1].Stats.Requests, res.Stages[0].Stats.Requests)
	}
}

// TestRefusesWhatItCannotSend: a closed ramp is refused before anything is
// sent, naming the field.
func TestRefusesWhatItCannotSend(t *testing.T) {
	srv := newServer(t, 0)
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{light}},
		Profile: bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{
			{Duration: sec(1), Concurrency: 2}, {Duration: sec(1), Concurrency: 4, Ramp: true},
		}},
	}
	_, err := vegeta.NewEngine(load.NewEngine()).Run(context.Background(), srv.URL, plan, bench.Observer{})
	var e *bench.Error
	if !errors.As(err, &e) || e.Field != "profile.stages[1].ramp" {
		t.Fatalf("Run = %v, want an error naming profile.stages[1].ramp", err)
	}
	if srv.served != 0 {
		t.Errorf("%d requests sent before refusing", srv.served)
	}
}

// TestCancel: a cancelled attack returns within a moment with what it
// measured.
func TestCancel(t *testing.T) {
	srv := newServer(t, time.Millisecond)
	plan := openPlan(light)
	plan.Profile.Stages[0].Duration = sec(30)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := vegeta.NewEngine(load.NewEngine()).Run(ctx, srv.URL, plan, bench.Observer{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want the deadline", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s to stop", took)
	}
	if res == nil || res.Warmup == nil || res.Warmup.Stats.Requests == 0 {
		t.Errorf("nothing measured before the cancel: %+v", res)
	}
}

// TestTimeoutWordedAlike: a request the target does not answer in time is
// the same error from either engine.
func TestTimeoutWordedAlike(t *testing.T) {
	t.Parallel() // at most 400 req/s, asleep: see openPlan
	srv := newServer(t, 300*time.Millisecond)
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{light}, Timeout: bench.Duration(100 * time.Millisecond)},
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(1), Rate: 10}}},
	}
	errs := map[string]string{}
	for name, engine := range map[string]bench.Attacker{"own": load.NewEngine(), "vegeta": vegeta.NewEngine(load.NewEngine())} {
		res, err := engine.Run(context.Background(), srv.URL, plan, bench.Observer{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Total.Errors) != 1 || res.Total.Successes != 0 {
			t.Fatalf("%s: errors %+v, %d successes; want every request timed out", name, res.Total.Errors, res.Total.Successes)
		}
		errs[name] = res.Total.Errors[0].Message
	}
	if errs["own"] != errs["vegeta"] {
		t.Errorf("timeouts worded apart: own %q, vegeta %q", errs["own"], errs["vegeta"])
	}
}

// staggered is a server whose answers take 50 to 150 ms, in turn, so that
// clients do not move in step; inFlight says how many requests it held,
// on average, over a stretch of time.
func staggered(t *testing.T) (url string, peak func() int64, inFlight func(from, to time.Time) float64) {
	var mu sync.Mutex
	var n, most, served int64
	var changes []struct {
		at time.Time
		n  int64
	}
	change := func(by int64) {
		mu.Lock()
		defer mu.Unlock()
		n += by
		most = max(most, n)
		changes = append(changes, struct {
			at time.Time
			n  int64
		}{time.Now(), n})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		change(1)
		defer change(-1)
		mu.Lock()
		served++
		delay := time.Duration(50+25*(served%5)) * time.Millisecond
		mu.Unlock()
		time.Sleep(delay)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	peak = func() int64 { mu.Lock(); defer mu.Unlock(); return most }
	inFlight = func(from, to time.Time) float64 {
		mu.Lock()
		defer mu.Unlock()
		var area float64 // requests × seconds
		level, at := int64(0), from
		for _, c := range changes {
			if c.at.After(from) {
				if c.at.After(to) {
					break
				}
				area += float64(level) * c.at.Sub(at).Seconds()
				at = c.at
			}
			level = c.n
		}
		area += float64(level) * to.Sub(at).Seconds()
		return area / to.Sub(from).Seconds()
	}
	return srv.URL, peak, inFlight
}

// TestWarmupUntilSteadyCarriesOn: a closed warm-up until steady at the
// first stage's whole load is one vegeta attack with that stage: when it
// settles, the same workers carry on, the server never sees the clients
// drain and start again, and the first measured second is as full as the
// rest.
func TestWarmupUntilSteadyCarriesOn(t *testing.T) {
	t.Parallel() // at most 400 req/s, asleep: see openPlan
	url, peak, inFlight := staggered(t)
	var asked atomic.Int64
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{light}, Timeout: sec(5)},
		Profile: bench.Profile{Model: bench.ModelClosed, Engine: bench.LoadEngineVegeta, Stages: []bench.Stage{
			{Duration: sec(2), Concurrency: 4},
		}},
		Warmup:  bench.Warmup{UntilSteady: true, MaxDuration: sec(20), Window: sec(5)},
		Settled: func(b bench.Bucket) bool { asked.Add(1); return b.Second == 1 },
	}
	began := time.Now()
	res, err := vegeta.NewEngine(load.NewEngine()).Run(context.Background(), url, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Warmup; w == nil || w.Concurrency != 4 || w.Duration.D() < 2*time.Second || w.Duration.D() > 2500*time.Millisecond {
		t.Fatalf("warm-up %+v, want 4 clients for about 2 s", res.Warmup)
	}
	if asked.Load() != 2 || time.Since(began) > 5*time.Second {
		t.Errorf("asked about %d warm-up seconds, attack took %v; want 2, and the stage at once", asked.Load(), time.Since(began))
	}
	// Draining the warm-up's requests (up to 150 ms) and starting again
	// would leave about 2 in flight on average over the next 200 ms.
	got := inFlight(res.T0, res.T0.Add(200*time.Millisecond))
	t.Logf("%.2f requests in flight on average over the 200 ms after the cut", got)
	if got < 3.5 {
		t.Errorf("%.2f requests in flight on average just after the cut, want the 4 clients going on", got)
	}
	if peak() > 4 || len(res.Seconds) != 2 || res.Seconds[0].Stats.Throughput < 36 {
		t.Errorf("peak %d in flight, seconds %+v; want at most 4, two seconds, the first at about 40 req/s", peak(), res.Seconds)
	}
}

// TestWarmupUntilSteadyOpen: the open schedule paces the warm-up until
// steady and, from the cut, the stage.
func TestWarmupUntilSteadyOpen(t *testing.T) {
	t.Parallel() // at most 400 req/s, asleep: see openPlan
	srv := newServer(t, time.Millisecond)
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{light}, Timeout: sec(5)},
		Profile: bench.Profile{Model: bench.ModelOpen, Engine: bench.LoadEngineVegeta, Stages: []bench.Stage{
			{Duration: sec(2), Rate: 200},
		}},
		Warmup:  bench.Warmup{UntilSteady: true, MaxDuration: sec(20), Window: sec(5), Fraction: 0.5},
		Settled: func(b bench.Bucket) bool { return b.Second == 0 },
	}
	res, err := vegeta.NewEngine(load.NewEngine()).Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Warmup
	if w == nil || w.Rate != 100 || w.Duration.D() > 1500*time.Millisecond {
		t.Fatalf("warm-up %+v, want 100 req/s for about 1 s", w)
	}
	if got := res.Total.Requests; got < 399 || got > 401 {
		t.Errorf("profile: %d requests, want 400 ± 1", got)
	}
	if got, want := int(w.Stats.Requests+res.Total.Requests), srv.served; got != want {
		t.Errorf("%d requests filed, %d served", got, want)
	}
}
