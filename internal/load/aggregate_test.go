package load_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/load"
)

// result is a synthetic vegeta result.
func result(code uint16, latency time.Duration, errMsg string, bytesIn uint64) *vegeta.Result {
	return &vegeta.Result{Code: code, Latency: latency, Error: errMsg, BytesIn: bytesIn, Timestamp: time.Now()}
}

// percentile is HDR's rank rule on a sorted slice, in ms.
func percentile(sorted []time.Duration, q float64) float64 {
	rank := int(q/100*float64(len(sorted)) + 0.5)
	rank = max(1, min(rank, len(sorted)))
	return float64(sorted[rank-1].Microseconds()) / 1000
}

func TestAggregateLatency(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	agg := load.NewAggregate(0)
	var lat []time.Duration
	for range 10000 {
		d := time.Duration(1e6+rng.ExpFloat64()*20e6) * time.Nanosecond // 1 ms + a tail
		lat = append(lat, d)
		agg.Add(result(200, d, "", 100))
	}
	slices.Sort(lat)
	got := agg.Stats(10 * time.Second).Latency
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

func TestAggregateCounts(t *testing.T) {
	agg := load.NewAggregate(0)
	resp := result(200, time.Millisecond, "", 0)
	resp.Headers = http.Header{"X-Threadbench-Bytes-In": {"321"}} // the counting transport's figure wins
	agg.Add(resp)
	agg.Add(result(200, time.Millisecond, "", 10))
	agg.Add(result(204, time.Millisecond, "", 0))
	agg.Add(result(500, time.Millisecond, "500 Internal Server Error", 20))
	agg.Add(result(503, time.Millisecond, "503 Service Unavailable", 0))
	agg.Add(result(0, 30*time.Second, "Get \"http://127.0.0.1/api/heavy\": context deadline exceeded", 0))
	agg.Add(result(500, time.Millisecond, "500 Internal Server Error", 20))

	st := agg.Stats(2 * time.Second)
	if got, want := st.Requests, int64(7); got != want {
		t.Errorf("Requests = %d, want %d", got, want)
	}
	if got, want := st.Successes, int64(3); got != want {
		t.Errorf("Successes = %d, want %d (2xx only)", got, want)
	}
	if got, want := st.OfferedRate, 3.5; got != want {
		t.Errorf("OfferedRate = %g, want %g", got, want)
	}
	if got, want := st.Throughput, 1.5; got != want {
		t.Errorf("Throughput = %g, want %g", got, want)
	}
	if got, want := st.BytesIn, int64(321+10+20+20); got != want {
		t.Errorf("BytesIn = %d, want %d", got, want)
	}
	if got, want := fmt.Sprint(st.StatusCodes), "map[0:1 200:2 204:1 500:2 503:1]"; got != want {
		t.Errorf("StatusCodes = %s, want %s", got, want)
	}
	wantErrs := []bench.ErrorCount{
		{Message: "500 Internal Server Error", Count: 2},
		{Message: "503 Service Unavailable", Count: 1},
		{Message: "Get \"http://127.0.0.1/api/heavy\": context deadline exceeded", Count: 1},
	}
	if !slices.Equal(st.Errors, wantErrs) {
		t.Errorf("Errors = %+v, want %+v", st.Errors, wantErrs)
	}
}

func TestAggregateErrorCap(t *testing.T) {
	agg := load.NewAggregate(3)
	for i := range 10 {
		for range 10 - i { // message i happens 10-i times
			agg.Add(result(0, time.Millisecond, fmt.Sprintf("error %d", i), 0))
		}
	}
	agg.Add(result(0, time.Millisecond, "error 0", 0)) // a kept message keeps counting
	errs := agg.Stats(time.Second).Errors
	want := []bench.ErrorCount{
		{Message: "error 0", Count: 11},
		{Message: "error 1", Count: 9},
		{Message: "error 2", Count: 8},
		{Message: load.OtherErrors, Count: 7 + 6 + 5 + 4 + 3 + 2 + 1},
	}
	if !slices.Equal(errs, want) {
		t.Errorf("Errors = %+v, want %+v", errs, want)
	}
}

func TestAggregateHistogramAndReset(t *testing.T) {
	agg := load.NewAggregate(0)
	agg.Add(result(200, 3*time.Millisecond, "", 0))
	agg.Add(result(200, 5*time.Millisecond, "", 0))
	enc, err := agg.EncodedHistogram()
	if err != nil {
		t.Fatal(err)
	}
	h, err := hdr.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h.TotalCount(), int64(2); got != want {
		t.Errorf("histogram holds %d values, want %d", got, want)
	}
	agg.Reset()
	if st := agg.Stats(time.Second); st.Requests != 0 || st.Latency.Max != 0 || st.Errors != nil || st.StatusCodes != nil {
		t.Errorf("after Reset: %+v", st)
	}
}

// BenchmarkAggregate measures recording one result.
func BenchmarkAggregate(b *testing.B) {
	agg := load.NewAggregate(0)
	results := make([]*vegeta.Result, 1024)
	for i := range results {
		results[i] = result(200, time.Duration(1+i)*137*time.Microsecond, "", 90)
		results[i].Headers = http.Header{"X-Threadbench-Bytes-In": {"90"}}
	}
	results[7] = result(500, time.Millisecond, "500 Internal Server Error", 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		agg.Add(results[i%len(results)])
	}
}
