package merge_test

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/merge"
)

// window is a window of latencies in ms, all answered 200, with a service
// time of half each.
func window(t *testing.T, elapsed time.Duration, ms ...int) bench.Stats {
	t.Helper()
	h, s := hdr.New(), hdr.New()
	for _, v := range ms {
		hdr.Record(h, time.Duration(v)*time.Millisecond)
		hdr.Record(s, time.Duration(v)*time.Millisecond/2)
	}
	st := bench.Stats{Requests: int64(len(ms)), Successes: int64(len(ms)), Completed: int64(len(ms)), Elapsed: bench.Duration(elapsed),
		StatusCodes: map[string]int64{"200": int64(len(ms))}, Latency: hdr.Summarize(h)}
	st.Histogram, _ = hdr.Encode(h)
	st.ServiceHistogram, _ = hdr.Encode(s)
	return st
}

// encoded is an encoded histogram of ms milliseconds.
func encoded(t *testing.T, ms ...int) string {
	t.Helper()
	h := hdr.New()
	for _, v := range ms {
		hdr.Record(h, time.Duration(v)*time.Millisecond)
	}
	s, err := hdr.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Windows of one stretch add their counts, and their latencies are the
// percentiles of every request's, as one histogram of them all has them.
func TestStatsMergesExactly(t *testing.T) {
	a := window(t, 2*time.Second, 1, 2, 3, 4, 100)
	a.Errors = []bench.ErrorCount{{Message: "timeout", Count: 2}}
	a.Requests += 2
	a.StatusCodes["0"] = 2
	a.Fanout = &bench.FanoutStats{Responses: 1, Calls: 4, ElapsedMs: 7, CallHistogram: encoded(t, 1, 2, 3, 4), DoneHistogram: encoded(t, 2, 4, 6, 7)}
	a.CompletedSpread = 4.75
	b := window(t, 2*time.Second, 5, 6, 7, 8, 9, 10, 11)
	b.Errors = []bench.ErrorCount{{Message: "refused", Count: 3}, {Message: "timeout", Count: 1}}
	b.Requests += 4
	b.Fanout = &bench.FanoutStats{Responses: 2, Calls: 1, ElapsedMs: 3, CallHistogram: encoded(t, 3), DoneHistogram: encoded(t, 3)}
	b.CompletedSpread = 7.5
	got, err := merge.Stats(2*time.Second, a, b)
	if err != nil {
		t.Fatal(err)
	}
	all := hdr.New()
	for _, v := range []int{1, 2, 3, 4, 100, 5, 6, 7, 8, 9, 10, 11} {
		hdr.Record(all, time.Duration(v)*time.Millisecond)
	}
	if want := hdr.Summarize(all); got.Latency != want {
		t.Errorf("latency %+v, want the percentiles of every request %+v", got.Latency, want)
	}
	if got.Requests != 18 || got.Successes != 12 || got.Completed != 12 || got.StatusCodes["200"] != 12 || got.StatusCodes["0"] != 2 {
		t.Errorf("counts %d/%d/%d, codes %v", got.Requests, got.Successes, got.Completed, got.StatusCodes)
	}
	if got.CompletedSpread != 12.25 {
		t.Errorf("completions spread %g, want the parts' 4.75 + 7.5", got.CompletedSpread)
	}
	if got.Throughput != 6 || got.OfferedRate != 9 {
		t.Errorf("throughput %g, offered %g: want 6 and 9 req/s over 2 s", got.Throughput, got.OfferedRate)
	}
	if want := []bench.ErrorCount{{Message: "refused", Count: 3}, {Message: "timeout", Count: 3}}; len(got.Errors) != 2 || got.Errors[0] != want[0] || got.Errors[1] != want[1] {
		t.Errorf("errors %+v, want %+v", got.Errors, want)
	}
	if f := got.Fanout; f == nil || f.Responses != 3 || f.Calls != 5 || f.ElapsedMs != 7 {
		t.Errorf("fan-outs %+v", f)
	} else if near := func(got, want float64) bool { return math.Abs(got-want) <= want*0.001 }; f.Call == nil || f.Done == nil ||
		!near(f.Call.P50, 3) || !near(f.Call.Max, 4) || !near(f.Done.Max, 7) || !near(f.Done.Min, 2) {
		t.Errorf("the calls' times %+v and %+v, want the merged histograms' (p50 3, max 4; 2 to 7 ms)", f.Call, f.Done)
	}
	b.Fanout.DoneHistogram = ""
	if got, err := merge.Stats(2*time.Second, a, b); err != nil || got.Fanout.Done != nil || got.Fanout.DoneHistogram != "" || got.Fanout.Call == nil {
		t.Errorf("a window's fan-outs without their done histogram: %v, %+v; want no done figure, the calls' kept", err, got.Fanout)
	}
	if got.ServiceTime == nil || got.ServiceTime.Max < 50 || got.ServiceTime.Max > 50.1 {
		t.Errorf("service time %+v, want the merged service histograms' (max 50 ms)", got.ServiceTime)
	}
	h, err := hdr.Decode(got.Histogram)
	if err != nil || h.TotalCount() != 12 {
		t.Errorf("kept histogram: %v, %d values", err, h.TotalCount())
	}
	a.Histogram = ""
	if _, err := merge.Stats(time.Second, a, b); err == nil {
		t.Error("a window with latencies and no histogram merged")
	}
}

// The merged self-watch is the worst generator's; the flags any
// generator's window had are the merged window's, naming it.
func TestGeneratorsAndFlags(t *testing.T) {
	g := merge.Generators(
		&bench.Generator{CPUs: 2, CPUShare: 0.3, CPUSharePeak: 0.5, Connections: 64, SendLagP99: 1, Late: 2, Dropped: 1, StealShare: 0.08, StealSharePeak: 0.1},
		nil,
		&bench.Generator{CPUs: 4, CPUShare: 0.95, CPUSharePeak: 0.97, Connections: 64, SendLagP99: 9, SendLagMax: 20, Late: 3, StealShare: 0.02, StealSharePeak: 0.2},
	)
	want := bench.Generator{CPUs: 4, CPUShare: 0.95, CPUSharePeak: 0.97, Connections: 128, SendLagP99: 9, SendLagMax: 20, Late: 5, Dropped: 1,
		StealShare: 0.08, StealSharePeak: 0.2}
	if *g != want {
		t.Errorf("merged %+v, want %+v", *g, want)
	}
	flags := merge.Flags([]string{"generator 1/2", "generator 2/2"},
		nil, []bench.Flag{{Kind: bench.FlagGeneratorBound, Reason: "generator CPU 95%"}})
	if len(flags) != 1 || flags[0].Kind != bench.FlagGeneratorBound || flags[0].Reason != "generator 2/2: generator CPU 95%" {
		t.Errorf("flags %+v: want generator-bound, naming generator 2/2", flags)
	}
}

// Two generators' shares of one plan, sent by the real engine against one
// server, merge into the plan's result: every figure adds up to the
// parts', and every percentile is the percentile of their histograms
// summed. Built from the seconds alone (a generator that died), the
// stages count the same requests.
func TestAttackMergesShares(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond)
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: 2}, {Endpoint: "heavy", Weight: 1}}, Timeout: bench.Duration(5 * time.Second)},
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Name: "a", Duration: bench.Duration(time.Second), Rate: 300}, {Name: "b", Duration: bench.Duration(time.Second), Rate: 150}}},
		Warmup:   bench.Warmup{Duration: bench.Duration(300 * time.Millisecond), Rate: 60},
	}
	parts := make([]*bench.AttackResult, 2)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			res, err := load.NewEngine().Run(context.Background(), srv.URL, plan.ShareOf(bench.Share{Index: i, Of: 2}), bench.Observer{})
			if err != nil {
				t.Error(err)
			}
			parts[i] = res
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	names := []string{"generator 1/2", "generator 2/2"}
	got, err := merge.Attack(plan, names, parts...)
	if err != nil {
		t.Fatal(err)
	}
	if got.Total.Requests != parts[0].Total.Requests+parts[1].Total.Requests || got.Total.Requests != 450 {
		t.Errorf("merged %d requests, the generators %d + %d; the plan asks 450", got.Total.Requests, parts[0].Total.Requests, parts[1].Total.Requests)
	}
	if got.Warmup == nil || got.Warmup.Stats.Requests != 18 || got.Warmup.Rate != 60 {
		t.Errorf("warm-up %+v, want 18 requests at 60 req/s", got.Warmup)
	}
	for i, st := range got.Stages {
		if st.Rate != plan.Profile.Stages[i].Rate || st.Stats.Requests != parts[0].Stages[i].Stats.Requests+parts[1].Stages[i].Stats.Requests {
			t.Errorf("stage %d: rate %g, %d requests", i, st.Rate, st.Stats.Requests)
		}
		checkPercentiles(t, st.Stats, parts[0].Stages[i].Stats.Histogram, parts[1].Stages[i].Stats.Histogram)
	}
	checkPercentiles(t, got.Total, parts[0].Total.Histogram, parts[1].Total.Histogram)
	for k, r := range got.Requests {
		if r.Stats.Requests != parts[0].Requests[k].Stats.Requests+parts[1].Requests[k].Stats.Requests {
			t.Errorf("request %s: %d", r.Name, r.Stats.Requests)
		}
	}
	if len(got.Requests) != 2 || got.Requests[0].Stats.Requests != 300 {
		t.Errorf("requests %+v: want 300 light ones of 450 (the mix's two in three)", got.Requests)
	}
	var perSecond int64
	for _, b := range got.Seconds {
		perSecond += b.Stats.Requests
		if b.Scheduled < 149 {
			t.Errorf("second %d: the generators' schedules asked %g requests", b.Second, b.Scheduled)
		}
	}
	if len(got.Seconds) != 2 || perSecond != got.Total.Requests {
		t.Errorf("%d seconds with %d requests, want 2 with %d", len(got.Seconds), perSecond, got.Total.Requests)
	}

	fromSeconds, err := merge.Seconds(plan, parts[0].Seconds, parts[1].Seconds)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range fromSeconds.Stages {
		if want := got.Stages[i].Stats; st.Stats.Requests != want.Requests || st.Stats.Completed != want.Completed || st.Name != plan.Profile.Stages[i].Name {
			t.Errorf("stage %d from seconds: %s, %d requests, %d completed; merged: %d, %d", i, st.Name, st.Stats.Requests, st.Stats.Completed, want.Requests, want.Completed)
		}
	}
	if len(fromSeconds.Stages) != 2 || fromSeconds.Total.Requests != got.Total.Requests {
		t.Errorf("from seconds: %d stages, %d requests", len(fromSeconds.Stages), fromSeconds.Total.Requests)
	}
}

// checkPercentiles checks that a merged window's latency is what the
// parts' histograms summed give.
func checkPercentiles(t *testing.T, st bench.Stats, parts ...string) {
	t.Helper()
	sum := hdr.New()
	for _, p := range parts {
		h, err := hdr.Decode(p)
		if err != nil {
			t.Fatal(err)
		}
		sum.Merge(h)
	}
	want := hdr.Summarize(sum)
	if st.Latency.P50 != want.P50 || st.Latency.P99 != want.P99 || st.Latency.Max != want.Max {
		t.Errorf("p50 %g p99 %g max %g, the summed histograms' %g %g %g", st.Latency.P50, st.Latency.P99, st.Latency.Max, want.P50, want.P99, want.Max)
	}
	if h, err := hdr.Decode(st.Histogram); err != nil || h.TotalCount() != sum.TotalCount() {
		t.Errorf("merged histogram kept: %v, want %d values", err, sum.TotalCount())
	}
}
