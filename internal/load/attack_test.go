package load_test

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/load"
)

const body = `{"target":"test","endpoint":"heavy","durationMs":5,"thread":"goroutine 1"}`

// server is a target stand-in on 127.0.0.1 that sleeps a little per
// request and records how many requests are in flight at most.
type server struct {
	*httptest.Server
	sleep    time.Duration
	byPath   map[string]time.Duration // a path's own delay, instead of sleep
	inFlight atomic.Int64
	mu       sync.Mutex
	peak     int64
	paths    map[string]int
}

func newServer(t *testing.T, sleep time.Duration) *server {
	s := &server{sleep: sleep, paths: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	s.mu.Lock()
	s.peak = max(s.peak, n)
	s.paths[r.URL.RequestURI()]++
	s.mu.Unlock()
	delay := s.sleep
	if d, ok := s.byPath[r.URL.Path]; ok {
		delay = d
	}
	select {
	case <-time.After(delay):
	case <-r.Context().Done():
		return
	}
	if r.URL.Path == "/api/cpu" {
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

func (s *server) peakInFlight() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

func workload(reqs ...bench.Request) bench.Workload {
	return bench.Workload{Requests: reqs, Timeout: bench.Duration(5 * time.Second)}
}

var heavy5 = bench.Request{Endpoint: "heavy", Params: map[string]string{"duration": "5"}, Weight: 1}

// recorder is an Observer that keeps what it is told.
type recorder struct {
	stages  []bench.StageResult
	seconds []bench.Bucket
	at      []time.Time // when each second was reported
	t0      time.Time
}

func (r *recorder) observer() bench.Observer {
	return bench.Observer{
		Stage:  func(s bench.StageResult) { r.stages = append(r.stages, s) },
		Second: func(b bench.Bucket) { r.seconds, r.at = append(r.seconds, b), append(r.at, time.Now()) },
		Start:  func(t0 time.Time) { r.t0 = t0 },
	}
}

func TestEngineOpen(t *testing.T) {
	srv := newServer(t, 5*time.Millisecond)
	plan := bench.Plan{
		Workload: workload(heavy5, bench.Request{Endpoint: "light", Weight: 1}),
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Name: "a", Duration: sec(1), Rate: 100}, {Name: "b", Duration: sec(1), Rate: 100}}},
		Warmup:   bench.Warmup{Duration: sec(0.5), Rate: 40},
	}
	var rec recorder
	begin := time.Now()
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, rec.observer())
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	t.Logf("took %s; total %d requests (want 200), warm-up %d (want 20)", took, res.Total.Requests, res.Warmup.Stats.Requests)

	if got, want := float64(res.Total.Requests), 200.0; math.Abs(got-want) > want*0.02 {
		t.Errorf("total %0.f requests, want %.0f within 2%%", got, want)
	}
	if got, want := float64(res.Warmup.Stats.Requests), 20.0; math.Abs(got-want) > 1 {
		t.Errorf("warm-up %0.f requests, want %.0f", got, want)
	}
	if got, want := len(res.Stages), 2; got != want {
		t.Fatalf("%d stages, want %d", got, want)
	}
	for _, s := range res.Stages {
		if s.Stats.Requests == 0 || s.Stats.Successes != s.Stats.Requests || s.Stats.Histogram == "" {
			t.Errorf("stage %d: %d requests, %d successes, histogram %t", s.Index, s.Stats.Requests, s.Stats.Successes, s.Stats.Histogram != "")
		}
		if s.Model != bench.ModelOpen || s.Rate != 100 {
			t.Errorf("stage %d: model %s rate %g", s.Index, s.Model, s.Rate)
		}
	}
	// Bytes are on the wire: each response's body and its headers.
	if got, bodies := res.Total.BytesIn, res.Total.Requests*int64(len(body)); got < bodies || got > 3*bodies {
		t.Errorf("BytesIn = %d, want the bodies' %d plus headers", got, bodies)
	}
	if res.Total.BytesOut < res.Total.Requests*int64(len("GET /api/light HTTP/1.1\r\n")) {
		t.Errorf("BytesOut = %d for %d requests, want at least their request lines", res.Total.BytesOut, res.Total.Requests)
	}
	if got := res.Total.Latency.P50; got < 5 || got > 100 {
		t.Errorf("p50 = %.1f ms, want at least the handler's 5 ms", got)
	}
	if got, want := res.T0.Sub(begin), 500*time.Millisecond; got < want || got > want+50*time.Millisecond {
		t.Errorf("t0 is %s after the start, want %s (the warm-up)", got, want)
	}
	if !rec.t0.Equal(res.T0) {
		t.Errorf("Observer.Start got %s, Result.T0 %s", rec.t0, res.T0)
	}
	checkMerge(t, res)
	checkSeconds(t, res, 2)
	checkStageEvents(t, rec.stages, true, 2)
	if len(rec.seconds) != len(res.Seconds) {
		t.Errorf("observer saw %d seconds, result has %d", len(rec.seconds), len(res.Seconds))
	}
	// seconds are reported live, as they complete, not all at the end
	if len(rec.at) > 0 && !rec.at[0].Before(res.T0.Add(2*time.Second)) {
		t.Errorf("second 0 reported at t=%s, after the attack ended", rec.at[0].Sub(res.T0))
	}
	for _, b := range res.Seconds {
		if math.Abs(b.Scheduled-100) > 0.01 {
			t.Errorf("second %d scheduled %g requests, want 100", b.Second, b.Scheduled)
		}
	}
	if got, want := srv.paths["/api/heavy?duration=5"], srv.paths["/api/light"]; math.Abs(float64(got-want)) > 1 {
		t.Errorf("mix sent %d heavy and %d light, want half each", got, want)
	}
}

// checkMerge checks the stages' histograms add up to the total's.
func checkMerge(t *testing.T, res *bench.AttackResult) {
	t.Helper()
	var encoded []string
	var requests int64
	for _, s := range res.Stages {
		encoded = append(encoded, s.Stats.Histogram)
		requests += s.Stats.Requests
	}
	merged, err := hdr.Merge(encoded...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := merged.TotalCount(), res.Total.Requests; got != want || requests != want {
		t.Errorf("stage histograms hold %d, stage counts %d, total %d", got, requests, want)
	}
}

// checkSeconds checks the buckets cover the profile and add up to the total.
func checkSeconds(t *testing.T, res *bench.AttackResult, want int) {
	t.Helper()
	if got := len(res.Seconds); got != want {
		t.Fatalf("%d seconds, want %d", got, want)
	}
	var sum int64
	for i, b := range res.Seconds {
		// A second with answers keeps its histogram: a stage's steady part
		// merges those of its seconds.
		if b.Second != i || (b.Stats.Histogram == "") != (b.Stats.Successes == 0) {
			t.Errorf("bucket %d: second %d, %d successes, histogram kept %t", i, b.Second, b.Stats.Successes, b.Stats.Histogram != "")
		}
		sum += b.Stats.Requests
	}
	if sum != res.Total.Requests {
		t.Errorf("seconds add up to %d requests, total is %d", sum, res.Total.Requests)
	}
}

func checkStageEvents(t *testing.T, events []bench.StageResult, warmup bool, stages int) {
	t.Helper()
	want := stages
	if warmup {
		want++
	}
	if len(events) != want {
		t.Fatalf("%d stage events, want %d", len(events), want)
	}
	if warmup && (!events[0].Warmup || events[0].StartOffset >= 0) {
		t.Errorf("first stage event %+v, want the warm-up before t0", events[0])
	}
	for i, ev := range events[len(events)-stages:] {
		if ev.Index != i || ev.Warmup || ev.Stats.Requests != 0 {
			t.Errorf("stage event %d: %+v", i, ev)
		}
	}
}

func TestEngineClosed(t *testing.T) {
	srv := newServer(t, 20*time.Millisecond)
	plan := bench.Plan{
		Workload: workload(heavy5),
		Profile:  bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(1), Concurrency: 10}}},
		Warmup:   bench.Warmup{Duration: sec(0.3), Rate: 20},
	}
	var rec recorder
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, rec.observer())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Stages[0]
	t.Logf("closed, 10 in flight for 1 s against 20 ms: %d requests (%.0f/s), peak in flight %d", s.Stats.Requests, s.Stats.Throughput, srv.peakInFlight())
	if s.Model != bench.ModelClosed || s.Concurrency != 10 {
		t.Errorf("stage model %s concurrency %d", s.Model, s.Concurrency)
	}
	if got := srv.peakInFlight(); got != 10 {
		t.Errorf("peak in flight %d, want exactly 10", got)
	}
	// 10 clients, 20 ms each: 500 req/s at most; well below would mean clients idle.
	if got := s.Stats.Requests; got < 250 || got > 500 {
		t.Errorf("%d requests, want 250..500 (10 clients x 1 s / 20 ms)", got)
	}
	if res.Warmup == nil || res.Warmup.Stats.Requests == 0 {
		t.Errorf("warm-up sent nothing: %+v", res.Warmup)
	}
	checkSeconds(t, res, 1)
	checkStageEvents(t, rec.stages, true, 1)
}

func TestEngineClosedRamp(t *testing.T) {
	srv := newServer(t, 10*time.Millisecond)
	plan := bench.Plan{
		Workload: workload(heavy5),
		Profile: bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{
			{Duration: sec(1), Concurrency: 2},
			{Duration: sec(2), Concurrency: 20, Ramp: true}, // steps 2 -> 20: 7, then 16
		}},
		Warmup: bench.Warmup{Disabled: true},
	}
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.peakInFlight(); got != 16 {
		t.Errorf("peak in flight %d, want 16 (the ramp's second step)", got)
	}
	first, second := res.Seconds[1].Stats.Throughput, res.Seconds[2].Stats.Throughput
	t.Logf("ramp seconds: %.0f/s at 7 clients, %.0f/s at 16", first, second)
	if second < first*1.5 {
		t.Errorf("throughput %.0f/s then %.0f/s: the ramp did not step up", first, second)
	}
	if res.Warmup != nil {
		t.Errorf("warm-up reported though disabled")
	}
}

func TestEngineErrors(t *testing.T) {
	srv := newServer(t, time.Millisecond)
	plan := bench.Plan{
		Workload: workload(bench.Request{Endpoint: "cpu", Weight: 1}),
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(0.5), Rate: 40}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Total
	if st.Requests == 0 || st.Successes != 0 || st.StatusCodes["500"] != st.Requests {
		t.Errorf("requests %d successes %d codes %v, want all 500", st.Requests, st.Successes, st.StatusCodes)
	}
	if len(st.Errors) != 1 || st.Errors[0].Message != "500 Internal Server Error" || st.Errors[0].Count != st.Requests {
		t.Errorf("errors %+v", st.Errors)
	}

	// nothing listens: every request fails fast, the attack still runs its course
	srv.Close()
	res, err = load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total.Requests == 0 || res.Total.Successes != 0 || res.Total.StatusCodes["0"] != res.Total.Requests {
		t.Errorf("against a closed port: %+v", res.Total)
	}
}

func TestEngineCancel(t *testing.T) {
	for _, model := range []bench.Model{bench.ModelOpen, bench.ModelClosed} {
		t.Run(string(model), func(t *testing.T) {
			srv := newServer(t, 3*time.Second) // requests outlive the cancellation
			stage := bench.Stage{Duration: sec(60), Rate: 50}
			if model == bench.ModelClosed {
				stage = bench.Stage{Duration: sec(60), Concurrency: 20}
			}
			plan := bench.Plan{
				Workload: bench.Workload{Requests: []bench.Request{heavy5}, Timeout: bench.Duration(30 * time.Second)},
				Profile:  bench.Profile{Model: model, Stages: []bench.Stage{stage}},
				Warmup:   bench.Warmup{Duration: sec(0.2), Rate: 10},
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(700*time.Millisecond, cancel)
			begin := time.Now()
			res, err := load.NewEngine().Run(ctx, srv.URL, plan, bench.Observer{})
			took := time.Since(begin) - 700*time.Millisecond
			t.Logf("returned %s after the cancellation", took)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if took > time.Second {
				t.Errorf("returned %s after the cancellation, want within 1s", took)
			}
			if res == nil || len(res.Stages) != 1 {
				t.Fatalf("result %+v, want the stage measured so far", res)
			}
			if el := res.Stages[0].Stats.Elapsed.D(); el < 400*time.Millisecond || el > 600*time.Millisecond {
				t.Errorf("stage elapsed %s, want about 500ms", el)
			}
		})
	}
}

func TestEngineRejectsBadPlan(t *testing.T) {
	zeroStage := bench.Plan{
		Workload: workload(heavy5),
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Rate: 5}}},
	}
	for name, plan := range map[string]bench.Plan{"empty": {}, "zero-length stage": zeroStage} {
		_, err := load.NewEngine().Run(context.Background(), "http://127.0.0.1:1", plan, bench.Observer{})
		if got, want := bench.ErrorCode(err), bench.EINVALID; got != want {
			t.Errorf("%s plan: code %q, want %q", name, got, want)
		}
	}
}

func TestEngineBucketWidth(t *testing.T) {
	srv := newServer(t, time.Millisecond)
	plan := bench.Plan{
		Workload: workload(heavy5),
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(1), Rate: 50}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
	res, err := load.NewEngine(load.WithBucket(250*time.Millisecond)).Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	checkSeconds(t, res, 4)
	for _, b := range res.Seconds {
		if got := b.Stats.Elapsed.D(); got != 250*time.Millisecond {
			t.Errorf("bucket %d elapsed %s", b.Second, got)
		}
	}
}

// The open model opens its connections before the clock starts, so that a
// rate that steps up takes connections already open instead of opening
// them under load: the target has accepted every one by the first request
// of the step up (the 11th: 0.5 s at 20 req/s before it), and no more than
// the plan's. Counted at the first request itself, the check raced the
// server's accept loop, which runs the ConnState hook: on a CPU the
// hypervisor took a third of, the first connection's request was served
// with 3 of the 8 primed connections through it (AMD EPYC, 2026-12-01).
func TestOpenConnectionsArePrimed(t *testing.T) {
	const conns = 8
	var mu sync.Mutex
	var accepted, served int
	var acceptedBefore int
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if served++; served == 11 {
			acceptedBefore = accepted
		}
		mu.Unlock()
		_, _ = w.Write([]byte(body))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			accepted++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	plan := bench.Plan{
		Workload: workload(bench.Request{Endpoint: "light", Weight: 1}),
		Profile:  bench.Profile{Model: bench.ModelOpen, Connections: conns, Stages: []bench.Stage{{Duration: sec(0.5), Rate: 20}, {Duration: sec(0.5), Rate: 400}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d requests; %d connections accepted, %d by the step up's first request", res.Total.Requests, accepted, acceptedBefore)
	if acceptedBefore != conns || accepted != conns {
		t.Errorf("%d connections accepted by the step up's first request, %d in all; want all %d by then", acceptedBefore, accepted, conns)
	}
}

// A plan's start is asked once the engine is prepared, and the clock
// starts at the time it gives, not when the engine is ready: nothing
// reaches the target before it.
func TestEngineStartsAtTheStartTime(t *testing.T) {
	srv := newServer(t, 0)
	var first atomic.Int64 // unix nanoseconds of the first request
	handle := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first.CompareAndSwap(0, time.Now().UnixNano())
		handle.ServeHTTP(w, r)
	})
	var asked, start time.Time
	plan := bench.Plan{
		Workload: workload(bench.Request{Endpoint: "light", Weight: 1}),
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(0.5), Rate: 100}}},
		Warmup:   bench.Warmup{Duration: sec(0.2), Rate: 50},
		Start: func(context.Context) (time.Time, error) {
			asked = time.Now()
			start = asked.Add(300 * time.Millisecond)
			return start, nil
		},
	}
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Unix(0, first.Load()); asked.IsZero() || got.Before(start) {
		t.Errorf("first request at %s, before the start %s", got.Format(time.StampMicro), start.Format(time.StampMicro))
	}
	if want := start.Add(200 * time.Millisecond); !res.T0.Equal(want) {
		t.Errorf("t0 %s, want the start plus the warm-up, %s", res.T0.Format(time.StampMicro), want.Format(time.StampMicro))
	}
}

// An engine told to start at a time already past, or not told at all,
// sends nothing and says why.
func TestEngineLateForItsStartSendsNothing(t *testing.T) {
	srv := newServer(t, 0)
	for _, tt := range []struct {
		name  string
		start func(context.Context) (time.Time, error)
		want  string
	}{
		{"Past", func(context.Context) (time.Time, error) { return time.Now().Add(-time.Millisecond), nil }, "could not start in time"},
		{"Refused", func(context.Context) (time.Time, error) { return time.Time{}, errors.New("called off") }, "called off"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan := bench.Plan{
				Workload: workload(bench.Request{Endpoint: "light", Weight: 1}),
				Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(0.5), Rate: 100}}},
				Warmup:   bench.Warmup{Disabled: true},
				Start:    tt.start,
			}
			res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || res != nil {
				t.Errorf("result %v, error %v; want no result and %q", res, err, tt.want)
			}
		})
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.paths) != 0 {
		t.Errorf("the target saw %v", srv.paths)
	}
}
