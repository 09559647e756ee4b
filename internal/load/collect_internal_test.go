package load

import (
	"net/http"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
)

// BenchmarkCollect measures filing one result the way a run does: slot
// accounting, its stage, its second and the total.
func BenchmarkCollect(b *testing.B) {
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}},
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: bench.Duration(time.Hour), Rate: 1000}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
	e := NewEngine()
	sched := newSchedule(plan.Profile, plan.Warmup)
	began := time.Now().Add(-time.Minute)
	c := newCollector(plan, sched, bench.Observer{}, began, e, newTargeter("http://127.0.0.1", plan.Workload, began, e.bucket))
	results := make([]*vegeta.Result, 1000)
	for i := range results {
		results[i] = &vegeta.Result{Code: 200, Latency: time.Duration(500+i) * time.Microsecond, Headers: http.Header{bytesInHeader: {"90"}}}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := results[i%len(results)]
		r.Timestamp = began.Add(time.Duration(i) * time.Millisecond % time.Hour) // 1000 req/s of attack clock
		c.add(r)
		c.seconds.close(r.Timestamp, false)
	}
}

// TestLateResultPatchesReportedSecond covers a result stamped in a second
// that was already reported: it is added to that second's counts.
func TestLateResultPatchesReportedSecond(t *testing.T) {
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}},
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: bench.Duration(3 * time.Second), Rate: 10}}},
		Warmup:   bench.Warmup{Disabled: true},
	}
	e := NewEngine()
	began := time.Now().Add(-10 * time.Second)
	var reported []bench.Bucket
	c := newCollector(plan, newSchedule(plan.Profile, plan.Warmup), bench.Observer{Second: func(b bench.Bucket) { reported = append(reported, b) }},
		began, e, newTargeter("http://127.0.0.1", plan.Workload, began, e.bucket))
	c.add(&vegeta.Result{Code: 200, Timestamp: began.Add(100 * time.Millisecond), Latency: time.Millisecond})
	c.seconds.close(began.Add(1500*time.Millisecond), false)
	if got, want := len(reported), 1; got != want {
		t.Fatalf("%d seconds reported, want %d", got, want)
	}
	c.add(&vegeta.Result{Code: 503, Error: "503 Service Unavailable", Timestamp: began.Add(900 * time.Millisecond), Latency: time.Millisecond})
	st := c.seconds.done[0].Stats
	if st.Requests != 2 || st.Successes != 1 || st.StatusCodes["503"] != 1 || len(st.Errors) != 1 || st.OfferedRate != 2 {
		t.Errorf("patched second: %+v", st)
	}
}
