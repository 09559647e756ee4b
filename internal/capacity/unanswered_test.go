package capacity

import (
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// 1,000 requests: 985 answered in 100 ms, 10 in 250 ms, 5 unanswered. The
// answered ones' 99th percentile is 100 ms (985 of 995); over every
// request, the 5 unanswered slower than any, the 99th is the 990th: one of
// the 250 ms ones.
func TestEveryRequestCountsTheUnanswered(t *testing.T) {
	h := hdr.New()
	for range 985 {
		hdr.Record(h, 100*time.Millisecond)
	}
	for range 10 {
		hdr.Record(h, 250*time.Millisecond)
	}
	enc, err := hdr.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	st := bench.Stats{Requests: 1000, Successes: 995, StatusCodes: map[string]int64{"200": 995, "0": 5},
		Latency: hdr.Summarize(h), Histogram: enc}
	if st.Latency.P99 > 101 {
		t.Fatalf("answered p99 %.1f ms, want 100: the fixture no longer shows the difference", st.Latency.P99)
	}
	got := everyRequest(st)
	if math.Abs(got.Latency.P99-250) > 1 {
		t.Errorf("p99 over every request %.1f ms, want 250 (the 990th of 1,000)", got.Latency.P99)
	}
	if math.Abs(got.Latency.P50-100) > 1 {
		t.Errorf("p50 %.1f ms, want 100", got.Latency.P50)
	}
	o, _ := bench.ParseObjective("p99<=200ms")
	if len(o.Check(st)) != 0 || len(o.Check(got)) != 1 {
		t.Errorf("p99<=200ms: answered %v, every request %v; want it met over the answered alone, broken over every request", o.Check(st), o.Check(got))
	}
	st.StatusCodes["0"], st.Requests = 0, 995
	if same := everyRequest(st); same.Latency != st.Latency {
		t.Errorf("nothing unanswered: %+v, want the stored %+v", same.Latency, st.Latency)
	}
}

func TestTrialTimeout(t *testing.T) {
	for _, tt := range []struct {
		objective string
		workload  time.Duration
		want      time.Duration
	}{
		{"p99<=300ms", 0, time.Second},                                 // twice 300 ms, at least a second
		{"p99<=300ms,p50<=2s", 0, 4 * time.Second},                     // the largest bound's
		{"p99<=300ms", 500 * time.Millisecond, 500 * time.Millisecond}, // never above the workload's
		{"p99<=300ms,errors<=1%", 0, bench.DefaultTimeout.D()},         // a timeout is an error: the workload's
		{"errors<=1%", 10 * time.Second, 10 * time.Second},             // no latency bound
	} {
		o, err := bench.ParseObjective(tt.objective)
		if err != nil {
			t.Fatal(err)
		}
		if got := trialTimeout(o, tt.workload); got != tt.want {
			t.Errorf("%s, workload %s: %s, want %s", tt.objective, tt.workload, got, tt.want)
		}
	}
}
