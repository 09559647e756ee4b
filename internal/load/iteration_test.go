package load_test

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/load"
)

func sleepStep(min, max time.Duration) bench.Step {
	return bench.Step{Sleep: &bench.Sleep{Min: bench.Duration(min), Max: bench.Duration(max)}}
}

func requestStep(r bench.Request) bench.Step { return bench.Step{Request: &r} }

func iterationPlan(clients int, seconds float64, steps ...bench.Step) bench.Plan {
	return bench.Plan{
		Workload: bench.Workload{Iteration: steps, Timeout: bench.Duration(5 * time.Second)},
		Profile:  bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(seconds), Concurrency: clients}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
}

// A client whose iteration is an instant request and 100 ms of think time
// makes about 10 iterations a second, and its latency holds none of the
// think time.
func TestIterationThinkTimeIsNotLatency(t *testing.T) {
	srv := newServer(t, 0)
	plan := iterationPlan(1, 3, requestStep(bench.Request{Endpoint: "light"}), sleepStep(100*time.Millisecond, 0))
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Total
	t.Logf("iterations %d (%.2f/s), requests %d, latency max %.2f ms", st.Iterations, st.IterationRate, st.Requests, st.Latency.Max)
	if st.IterationRate < 9.3 || st.IterationRate > 10.05 {
		t.Errorf("%.2f iterations/s, want about 10 (a 100 ms sleep and an instant request)", st.IterationRate)
	}
	if st.Latency.Max > 50 {
		t.Errorf("latency max %.1f ms: think time was counted as latency", st.Latency.Max)
	}
	if math.Abs(float64(st.Requests-st.Iterations)) > 1 {
		t.Errorf("%d requests for %d iterations, want one each", st.Requests, st.Iterations)
	}
}

// Seed 000's loop: heavy, light, think. Each request is measured apart,
// requests run at twice the iteration rate, and a uniform think time
// averages its middle.
func TestIterationMixedSteps(t *testing.T) {
	srv := newServer(t, 0)
	heavy := bench.Request{Name: "heavy", Endpoint: "heavy", Params: map[string]string{"duration": "40"}}
	plan := iterationPlan(4, 3, requestStep(heavy), requestStep(bench.Request{Name: "light", Endpoint: "light"}),
		sleepStep(20*time.Millisecond, 80*time.Millisecond))
	// the stand-in server sleeps for every path alike: give heavy its own delay
	srv.sleep = 0
	srv.byPath = map[string]time.Duration{"/api/heavy": 40 * time.Millisecond}
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Total
	if len(res.Requests) != 2 || res.Requests[0].Name != "heavy" || res.Requests[1].Name != "light" {
		t.Fatalf("per-request figures %+v, want heavy and light", res.Requests)
	}
	h, l := res.Requests[0].Stats, res.Requests[1].Stats
	t.Logf("%.1f iterations/s, %.1f req/s; heavy p50 %.1f ms, light p50 %.1f ms", st.IterationRate, st.Throughput, h.Latency.P50, l.Latency.P50)
	// 4 clients x 1 / (40 ms + ~0 + 50 ms mean think time) = about 44 iterations/s
	if st.IterationRate < 38 || st.IterationRate > 46 {
		t.Errorf("%.1f iterations/s, want about 44", st.IterationRate)
	}
	if r := st.Throughput / st.IterationRate; math.Abs(r-2) > 0.1 {
		t.Errorf("%.2f requests per iteration, want 2", r)
	}
	if h.Latency.P50 < 40 || h.Latency.P50 > 60 || l.Latency.P50 > 20 {
		t.Errorf("heavy p50 %.1f ms, light p50 %.1f ms: each request's latency should be its own", h.Latency.P50, l.Latency.P50)
	}
}

// A fan-out's own account of its calls is summed, not thrown away with
// the body: what seed 001's table is made of.
func TestFanoutResponsesAreCounted(t *testing.T) {
	call, done := hdr.New(), hdr.New()
	for i := range 200 {
		hdr.Record(call, time.Duration(1000+i)*time.Millisecond)
		hdr.Record(done, time.Duration(1450+i)*time.Millisecond)
	}
	callHist, _ := hdr.Encode(call)
	doneHist, _ := hdr.Encode(done)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"target":"go","endpoint":"fanout","mode":"unbounded","limit":0,"calls":200,"succeeded":40,"failed":160,` +
			`"failures":{"readTimeout":150,"connectTimeout":10,"refused":0,"other":0},"elapsedMs":1650,"peakConcurrent":200,` +
			`"callHistogram":"` + callHist + `","doneHistogram":"` + doneHist + `","thread":"goroutine 9"}`))
	}))
	defer srv.Close()
	plan := iterationPlan(1, 1, requestStep(bench.Request{Endpoint: "fanout", Params: map[string]string{"calls": "200"}}), sleepStep(300*time.Millisecond, 0))
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Total.Fanout
	if f == nil || f.Responses < 2 || f.Calls != 200*f.Responses || f.Succeeded != 40*f.Responses ||
		f.Failures.ReadTimeout != 150*f.Responses || f.ElapsedMs != 1650 || f.PeakConcurrent != 200 {
		t.Fatalf("fan-out figures %+v", f)
	}
	if r := f.SuccessRatio(); r != 0.2 {
		t.Errorf("success %.2f, want 0.20", r)
	}
	h, err := hdr.Decode(f.CallHistogram)
	if err != nil || h.TotalCount() != f.Calls {
		t.Errorf("the calls' histogram: %v, %d calls, want %d", err, h.TotalCount(), f.Calls)
	}
	if f.Call == nil || f.Done == nil || f.Call.Min < 999 || f.Call.Max > 1200 || f.Done.Min < 1449 || f.Done.Max > 1651 {
		t.Errorf("the calls' times %+v, %+v: want 1.0-1.2 s each, ended 1.45-1.65 s in", f.Call, f.Done)
	}
}

// A think time that outlasts the profile ends with it: an iteration of
// one request and a long sleep (seed 001's one fan-out per case) makes
// its request and the attack still ends on time.
func TestIterationThinkTimeEndsWithTheProfile(t *testing.T) {
	srv := newServer(t, 0)
	plan := iterationPlan(2, 1, requestStep(bench.Request{Endpoint: "light"}), sleepStep(time.Hour, 0))
	began := time.Now()
	res, err := load.NewEngine().Run(context.Background(), srv.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Errorf("the attack took %s; a 1 s profile should end within a moment of 1 s", took)
	}
	if st := res.Total; st.Requests != 2 || st.Iterations != 0 {
		t.Errorf("%d requests, %d iterations; want one request per client and no finished iteration", st.Requests, st.Iterations)
	}
}
