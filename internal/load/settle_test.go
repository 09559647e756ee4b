package load

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/steady"
)

// slowTransport answers every request after delay, without the network,
// and keeps when each was in flight.
type slowTransport struct {
	delay time.Duration
	mu    sync.Mutex
	spans [][2]time.Time
}

func (t *slowTransport) RoundTrip(_ *fasthttp.HostClient, _ *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	start := time.Now()
	time.Sleep(t.delay)
	resp.SetStatusCode(fasthttp.StatusOK)
	resp.SetBodyRaw([]byte(`{}`))
	t.mu.Lock()
	t.spans = append(t.spans, [2]time.Time{start, time.Now()})
	t.mu.Unlock()
	return false, nil
}

// inFlightAt is how many requests were in flight at instant at.
func (t *slowTransport) inFlightAt(at time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, s := range t.spans {
		if !s[0].After(at) && s[1].After(at) {
			n++
		}
	}
	return n
}

func (t *slowTransport) sent() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.spans)
}

// settleAfter is a plan's Settled that says yes at warm-up second n (from
// 0), and keeps the seconds it was asked about.
type settleAfter struct {
	n     int
	mu    sync.Mutex
	asked []bench.Bucket
}

func (s *settleAfter) settled(b bench.Bucket) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, b)
	return b.Second == s.n
}

// observed keeps an attack's observer calls.
type observed struct {
	mu      sync.Mutex
	starts  []time.Time
	stages  []bench.StageResult
	seconds []time.Time // when each measured second was reported
}

func (o *observed) observer() bench.Observer {
	return bench.Observer{
		Start:  func(t0 time.Time) { o.mu.Lock(); o.starts = append(o.starts, t0); o.mu.Unlock() },
		Stage:  func(s bench.StageResult) { o.mu.Lock(); o.stages = append(o.stages, s); o.mu.Unlock() },
		Second: func(bench.Bucket) { o.mu.Lock(); o.seconds = append(o.seconds, time.Now()); o.mu.Unlock() },
	}
}

func settlingEngine(t *testing.T, delay time.Duration) (*Engine, *slowTransport, string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})) // an address; never asked
	t.Cleanup(srv.Close)
	tr := &slowTransport{delay: delay}
	e := NewEngine()
	e.transport = tr
	return e, tr, srv.URL
}

func untilSteady(max time.Duration, fraction float64) bench.Warmup {
	return bench.Warmup{UntilSteady: true, MaxDuration: bench.Duration(max), Window: bench.Duration(5 * time.Second), Fraction: fraction}
}

// TestWarmupCutClosed: 8 closed clients on 200 ms requests warm up until
// the third warm-up second settles, then the 2 s stage starts at once, sent
// by the same clients: all 8 still in flight at the cut, nothing
// abandoned, every latency real time, and the first measured second as
// full as the others.
func TestWarmupCutClosed(t *testing.T) {
	e, tr, url := settlingEngine(t, 200*time.Millisecond)
	settle := &settleAfter{n: 2}
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Weight: 1}}, Timeout: sec(5)},
		Profile:  bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Name: "c8", Duration: sec(2), Concurrency: 8}}},
		Warmup:   untilSteady(20*time.Second, 0), Settled: settle.settled,
	}
	var obs observed
	began := time.Now()
	res, err := e.Run(context.Background(), url, plan, obs.observer())
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	w := res.Warmup
	if w == nil || !w.Warmup || w.Concurrency != 8 || w.Model != bench.ModelClosed || w.StartOffset != -w.Duration {
		t.Fatalf("warm-up stage %+v, want 8 closed clients ending at t0", w)
	}
	// Settled was asked about seconds 0, 1 and 2, each complete; the cut
	// followed within a tick of the last answer back.
	if len(settle.asked) != 3 || settle.asked[2].Second != 2 || settle.asked[2].Stats.Elapsed.D() != time.Second {
		t.Fatalf("Settled asked about %+v, want seconds 0 to 2", settle.asked)
	}
	if tput := settle.asked[1].Stats.Throughput; tput < 36 || tput > 41 {
		t.Errorf("warm-up second 1: %.1f req/s, want about 40 (8 clients, 200 ms)", tput)
	}
	if d := w.Duration.D(); d < 3*time.Second || d > 3500*time.Millisecond {
		t.Errorf("warm-up lasted %v, want 3 s and the last second's answers (200 ms)", d)
	}
	if took > w.Duration.D()+3*time.Second {
		t.Errorf("the attack took %v: the profile did not start at the cut (warm-up %v)", took, w.Duration.D())
	}
	if got := tr.inFlightAt(res.T0); got != 8 {
		t.Errorf("%d requests in flight at the cut, want all 8 clients' (none drained, none restarted)", got)
	}
	if got, want := int(w.Stats.Requests+res.Total.Requests), tr.sent(); got != want {
		t.Errorf("%d requests filed (warm-up and profile), %d sent: a request was abandoned", got, want)
	}
	// A clock moved by the cut would be off by the 17 s of warm-up left.
	for _, st := range []bench.Stats{w.Stats, res.Total} {
		if st.Latency.Min < 199 || st.Latency.Max > 1000 {
			t.Errorf("latency %.1f to %.1f ms, want 200 ms each: real time across the cut", st.Latency.Min, st.Latency.Max)
		}
	}
	// The first second read as the steady part reads it (answers spread
	// over their flight): its completions alias with the clients' 200 ms
	// cycle, 32 where the cut fell a little before the clients' next sends
	// (a clean clone's run, the measuring part).
	if len(res.Seconds) != 2 || steady.Rate(res.Seconds[0].Stats) < 36 {
		t.Errorf("measured seconds %+v, want 2, the first not cold (about 40 req/s)", res.Seconds)
	}
	if len(obs.starts) != 1 || !obs.starts[0].Equal(res.T0) || len(obs.stages) != 2 || !obs.stages[0].Warmup || obs.stages[1].Index != 0 {
		t.Errorf("observer: starts %v (t0 %v), stages %+v; want one start at t0, the warm-up then stage 0", obs.starts, res.T0, obs.stages)
	}
}

// TestWarmupCutWakesClients: a closed warm-up at half the first stage's
// clients keeps the other half waiting until the warm-up's maximum; the cut
// wakes them, and the stage has all its clients at once.
func TestWarmupCutWakesClients(t *testing.T) {
	e, tr, url := settlingEngine(t, 100*time.Millisecond)
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Weight: 1}}, Timeout: sec(5)},
		Profile:  bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(1), Concurrency: 8}}},
		Warmup:   untilSteady(20*time.Second, 0.5), Settled: (&settleAfter{n: 0}).settled,
	}
	res, err := e.Run(context.Background(), url, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Warmup; w == nil || w.Concurrency != 4 || w.Duration.D() > 1500*time.Millisecond {
		t.Fatalf("warm-up %+v, want 4 clients for about a second", w)
	}
	if before, after := tr.inFlightAt(res.T0.Add(-50*time.Millisecond)), tr.inFlightAt(res.T0.Add(50*time.Millisecond)); before != 4 || after != 8 {
		t.Errorf("%d requests in flight just before the cut, %d just after; want 4, then all 8 clients", before, after)
	}
}

// TestWarmupCutOpen: the open model warms up at half the first stage's
// rate; when it settles the schedule runs on at the stage's rate from the
// cut, every request due in a measured second counted in it (each second
// reported as soon as it is over, not at the end), none lost or doubled.
func TestWarmupCutOpen(t *testing.T) {
	e, tr, url := settlingEngine(t, 20*time.Millisecond)
	settle := &settleAfter{n: 1}
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: 1}}, Timeout: sec(5)},
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Name: "r100", Duration: sec(3), Rate: 100}}},
		Warmup:   untilSteady(20*time.Second, 0.5), Settled: settle.settled,
	}
	var obs observed
	o := obs.observer()
	var mu sync.Mutex
	var due []time.Time // the measured requests' scheduled times, in the order they came back
	o.Response = func(r bench.Response) { mu.Lock(); due = append(due, r.Timestamp); mu.Unlock() }
	res, err := e.Run(context.Background(), url, plan, o)
	ended := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	w := res.Warmup
	if w == nil || w.Rate != 50 || w.Model != bench.ModelOpen || w.Duration.D() < 2*time.Second || w.Duration.D() > 2500*time.Millisecond {
		t.Fatalf("warm-up stage %+v, want 50 req/s for about 2 s", w)
	}
	if tput := settle.asked[0].Stats.Throughput; tput < 49 || tput > 51 {
		t.Errorf("warm-up second 0: %.1f req/s, want 50", tput)
	}
	if got, want := float64(w.Stats.Requests), 50*w.Duration.D().Seconds(); got < want-1 || got > want+1 {
		t.Errorf("warm-up: %.0f requests, want %.1f ± 1 (50 req/s until the cut)", got, want)
	}
	if got := res.Total.Requests; got < 299 || got > 301 {
		t.Errorf("profile: %d requests, want 300 ± 1", got)
	}
	if got, want := int(w.Stats.Requests+res.Total.Requests), tr.sent(); got != want {
		t.Errorf("%d requests filed, %d sent", got, want)
	}
	for _, b := range res.Seconds {
		if b.Stats.Requests < 99 || b.Stats.Requests > 101 || b.Scheduled < 99 || b.Scheduled > 101 {
			t.Errorf("second %d: %d requests, %.1f scheduled; want 100 each", b.Second, b.Stats.Requests, b.Scheduled)
		}
	}
	// Each second is reported once its requests are back: the first long
	// before the end (it would wait for the end if its count were the old
	// schedule's).
	if len(obs.seconds) != 3 || ended.Sub(obs.seconds[0]) < 1500*time.Millisecond {
		t.Errorf("seconds reported at %v, attack ended %v: want the first 2 s before the end", obs.seconds, ended)
	}
	// From the cut on, the stage's schedule: its first request due within
	// one interval of t0, each 10 ms after the one before.
	slices.SortFunc(due, time.Time.Compare)
	if len(due) == 0 || due[0].Before(res.T0) || due[0].Sub(res.T0) > 10*time.Millisecond {
		t.Fatalf("first measured request due at %v from t0, want within the first 10 ms", due[0].Sub(res.T0))
	}
	for i := 1; i < len(due); i++ {
		if gap := due[i].Sub(due[i-1]); gap < 9*time.Millisecond || gap > 11*time.Millisecond {
			t.Fatalf("requests %d and %d due %v apart, want 10 ms", i-1, i, gap)
		}
	}
}

// TestWarmupRunsToItsMaximum: a warm-up that never settles runs to its
// maximum, then the stage follows as laid out.
func TestWarmupRunsToItsMaximum(t *testing.T) {
	e, _, url := settlingEngine(t, 50*time.Millisecond)
	settle := &settleAfter{n: -1}
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Weight: 1}}, Timeout: sec(5)},
		Profile:  bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(1), Concurrency: 4}}},
		Warmup:   untilSteady(3*time.Second, 0), Settled: settle.settled,
	}
	res, err := e.Run(context.Background(), url, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Warmup; w == nil || w.Duration.D() != 3*time.Second || w.Stats.Elapsed.D() != 3*time.Second {
		t.Fatalf("warm-up %+v, want its 3 s maximum", w)
	}
	if len(settle.asked) != 3 || len(res.Seconds) != 1 || res.Seconds[0].Stats.Throughput < 70 {
		t.Errorf("asked about %d warm-up seconds, %d measured %+v; want 3, then one full second at about 80 req/s", len(settle.asked), len(res.Seconds), res.Seconds)
	}
}

// TestCutWarmup: a cut asked for at 2.49 s ends an open warm-up at 50
// req/s just after its next request (number 125, due at 2.5 s): the
// schedules before and after agree on every request up to it, and the
// stages follow at once.
func TestCutWarmup(t *testing.T) {
	profile := bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(2), Rate: 100}, {Duration: sec(1), Rate: 200, Ramp: true}}}
	tt := newTimetable(bench.Plan{Profile: profile, Warmup: untilSteady(10*time.Second, 0.5)})
	before := tt.load()
	after := tt.cut(2490 * time.Millisecond)
	if after == nil || tt.load() != after || tt.online() {
		t.Fatal("cut published nothing")
	}
	select {
	case <-before.replaced:
	default:
		t.Error("the old schedule's readers were not woken")
	}
	at := after.warm
	if at <= 2500*time.Millisecond || at > 2500*time.Millisecond+time.Microsecond {
		t.Fatalf("cut at %v, want just after 2.5 s", at)
	}
	if after.end != at+3*time.Second || after.openEnd != after.end || tt.warm != 0 || tt.openEnd != before.openEnd {
		t.Errorf("after the cut: end %v, open end %v (timetable %v, %v); want %v, the end", after.end, after.openEnd, tt.warm, tt.openEnd, at+3*time.Second)
	}
	for k := range uint64(126) {
		b, _ := before.due(k)
		a, _ := after.due(k)
		if a != b || a >= at {
			t.Fatalf("request %d due at %v after the cut, %v before; want the same, before the cut", k, a, b)
		}
	}
	if d, ok := after.due(126); !ok || d < at || d > at+10*time.Millisecond {
		t.Errorf("the first request after the cut is due at %v, want within 10 ms of %v", d, at)
	}
	if got, want := after.hits, 125+200+150.0; math.Abs(got-want) > 1e-3 { // the rates' integral
		t.Errorf("%g requests in all, want %g", got, want)
	}
	if tt.cut(at+time.Second) != nil {
		t.Error("a second cut was made")
	}
}

// TestRecorderCut: a cut re-derives what the recorder took from the
// warm-up's end: t0, the open model's counts per second and the observer's
// calls to come. The warm-up at 50.25 req/s, asked to end at 2.505 s, ends
// just after its next request due (number 126, at 2.5075 s): the 100.5
// req/s stage then puts 100 requests in its first second, where the
// schedule before the cut (a warm-up of 20.013 s, 1005.65 requests) put 101.
func TestRecorderCut(t *testing.T) {
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: 1}}},
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(3), Rate: 100.5}}},
		Warmup:   untilSteady(20013*time.Millisecond, 0.5),
		Settled:  func(bench.Bucket) bool { return true },
	}
	tt := newTimetable(plan)
	var started []time.Time
	obs := bench.Observer{Start: func(t0 time.Time) { started = append(started, t0) }, Stage: func(bench.StageResult) {}}
	began := time.Now()
	r := newRecorder(plan, tt, newRequestSet("http://127.0.0.1:1", plan.Workload), obs, recorderConfig{bucket: time.Second, open: true, wire: newWire()}, began)
	if got := r.expected[0]; got != 101 {
		t.Fatalf("before the cut: %d requests expected in the first second, want 101", got)
	}
	fire(r.tick(0, false)) // the warm-up's start
	r.cut(2505 * time.Millisecond)
	sc := tt.load()
	requests, rate := 126.0, 50.25
	due := time.Duration(requests / rate * float64(time.Second))
	if d := sc.warm - due; d < 0 || d > time.Microsecond || !r.t0.Equal(began.Add(sc.warm)) {
		t.Fatalf("cut at %v, t0 %v; want just after %v, began + it", sc.warm, r.t0.Sub(began), due)
	}
	for b, want := range []int64{100, 101, 100} {
		start, end := r.bucketSpan(b)
		if got := r.expected[b]; got != want || got != int64(sc.firstDue(sc.warm+end)-sc.firstDue(sc.warm+start)) {
			t.Errorf("second %d: %d requests expected, want %d, the cut schedule's", b, got, want)
		}
	}
	fire(r.tick(sc.warm, false))
	if len(started) != 1 || !started[0].Equal(r.t0) {
		t.Errorf("Start told %v, want once at the new t0 %v", started, r.t0)
	}
}

func fire(calls []func()) {
	for _, call := range calls {
		call()
	}
}
