package load

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// result is a request sent at 0 that took latency, answered with code.
func result(code int, latency time.Duration, errMsg string) outcome {
	return outcome{code: code, done: latency, err: errMsg}
}

// percentile is HDR's rank rule on a sorted slice, in ms.
func percentile(sorted []time.Duration, q float64) float64 {
	rank := int(q/100*float64(len(sorted)) + 0.5)
	rank = max(1, min(rank, len(sorted)))
	return float64(sorted[rank-1].Microseconds()) / 1000
}

func TestAggregateLatency(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	agg := NewAggregate(0, false)
	var lat []time.Duration
	for range 10000 {
		d := time.Duration(1e6+rng.ExpFloat64()*20e6) * time.Nanosecond // 1 ms + a tail
		lat = append(lat, d)
		agg.add(result(200, d, ""))
	}
	slices.Sort(lat)
	got := agg.stats(10*time.Second, 0, 0, 0).Latency
	for _, c := range []struct {
		name string
		got  float64
		q    float64
	}{{"p50", got.P50, 50}, {"p90", got.P90, 90}, {"p95", got.P95, 95}, {"p99", got.P99, 99}, {"p99.9", got.P999, 99.9}, {"max", got.Max, 100}} {
		want := percentile(lat, c.q)
		if math.Abs(c.got-want) > want*0.001+0.001 {
			t.Errorf("%s = %.3f ms, want %.3f ms (0.1%%)", c.name, c.got, want)
		}
	}
	if want := float64(lat[0].Microseconds()) / 1000; math.Abs(got.Min-want) > want*0.001+0.001 {
		t.Errorf("min = %.3f ms, want %.3f ms", got.Min, want)
	}
}

// In the open model latency runs from the scheduled time and service time
// from the actual send; a request that waited 40 ms for a connection shows
// the wait in one and not the other.
func TestAggregateIntendedAndServiceTime(t *testing.T) {
	agg := NewAggregate(0, true)
	agg.add(outcome{code: 200, intended: 0, sent: 40 * time.Millisecond, done: 42 * time.Millisecond})
	st := agg.stats(time.Second, 1, 0, 0)
	if math.Abs(st.Latency.Max-42) > 0.05 || st.ServiceTime == nil || math.Abs(st.ServiceTime.Max-2) > 0.01 {
		t.Fatalf("latency %+v, service time %+v; want 42 ms from the schedule, 2 ms from the send", st.Latency, st.ServiceTime)
	}
	if closed := NewAggregate(0, false).stats(time.Second, 0, 0, 0); closed.ServiceTime != nil {
		t.Error("a closed-model aggregate reports a service time apart from its latency")
	}
}

func TestAggregateCounts(t *testing.T) {
	agg := NewAggregate(0, false)
	for _, o := range []outcome{
		result(200, time.Millisecond, ""),
		result(200, time.Millisecond, ""),
		result(204, time.Millisecond, ""),
		result(500, time.Millisecond, "500 Internal Server Error"),
		result(503, time.Millisecond, "503 Service Unavailable"),
		result(0, 30*time.Second, "context deadline exceeded"),
		result(500, time.Millisecond, "500 Internal Server Error"),
		{code: 0, err: DroppedError, dropped: true},
	} {
		agg.add(o)
	}
	// 3 successes were sent in the window, 5 completed in it (two sent before).
	st := agg.stats(2*time.Second, 5, 900, 300)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Requests", st.Requests, int64(8)},
		{"Successes (2xx only)", st.Successes, int64(3)},
		{"Completed", st.Completed, int64(5)},
		{"Dropped", st.Dropped, int64(1)},
		{"OfferedRate", st.OfferedRate, 4.0},
		{"Throughput (completions / window)", st.Throughput, 2.5},
		{"Bytes", [2]int64{st.BytesIn, st.BytesOut}, [2]int64{900, 300}},
		{"StatusCodes", fmt.Sprint(st.StatusCodes), "map[0:2 200:2 204:1 500:2 503:1]"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	wantErrs := []bench.ErrorCount{
		{Message: "500 Internal Server Error", Count: 2},
		{Message: "503 Service Unavailable", Count: 1},
		{Message: "context deadline exceeded", Count: 1},
		{Message: DroppedError, Count: 1},
	}
	if !slices.Equal(st.Errors, wantErrs) {
		t.Errorf("Errors = %+v, want %+v", st.Errors, wantErrs)
	}
	if st.Latency.Max != 1 {
		t.Errorf("max latency %v ms, want 1: requests without an answer (timed out, dropped) have no latency", st.Latency.Max)
	}
}

func TestAggregateErrorCap(t *testing.T) {
	agg := NewAggregate(3, false)
	for i := range 10 {
		for range 10 - i { // message i happens 10-i times
			agg.add(result(0, time.Millisecond, fmt.Sprintf("error %d", i)))
		}
	}
	agg.add(result(0, time.Millisecond, "error 0")) // a kept message keeps counting
	errs := agg.stats(time.Second, 0, 0, 0).Errors
	want := []bench.ErrorCount{
		{Message: "error 0", Count: 11},
		{Message: "error 1", Count: 9},
		{Message: "error 2", Count: 8},
		{Message: OtherErrors, Count: 7 + 6 + 5 + 4 + 3 + 2 + 1},
	}
	if !slices.Equal(errs, want) {
		t.Errorf("Errors = %+v, want %+v", errs, want)
	}
}

func TestAggregateHistogramAndReset(t *testing.T) {
	agg := NewAggregate(0, true)
	agg.add(outcome{code: 200, sent: time.Millisecond, done: 3 * time.Millisecond})
	agg.add(outcome{code: 200, sent: time.Millisecond, done: 5 * time.Millisecond})
	st := agg.withHistograms(agg.stats(time.Second, 2, 0, 0))
	for name, enc := range map[string]string{"latency": st.Histogram, "service time": st.ServiceHistogram} {
		h, err := hdr.Decode(enc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, want := h.TotalCount(), int64(2); got != want {
			t.Errorf("%s histogram holds %d values, want %d", name, got, want)
		}
	}
	agg.reset()
	if st := agg.stats(time.Second, 0, 0, 0); st.Requests != 0 || st.Latency.Max != 0 || st.Errors != nil || st.StatusCodes != nil || st.ServiceTime != nil {
		t.Errorf("after reset: %+v", st)
	}
}

// BenchmarkAggregate measures recording one outcome, both histograms.
func BenchmarkAggregate(b *testing.B) {
	agg := NewAggregate(0, true)
	results := make([]outcome, 1024)
	for i := range results {
		results[i] = outcome{code: 200, sent: 10 * time.Microsecond, done: time.Duration(1+i) * 137 * time.Microsecond}
	}
	results[7] = result(500, time.Millisecond, "500 Internal Server Error")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		agg.add(results[i%len(results)])
	}
}
