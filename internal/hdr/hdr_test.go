package hdr_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/hdr"
)

// latencies returns n pseudo-random latencies in µs with a long tail, the
// shape real request latencies have.
func latencies(seed uint64, n int) []int64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]int64, n)
	for i := range out {
		out[i] = 200 + int64(rng.ExpFloat64()*5000)
	}
	return out
}

func record(vs []int64) string {
	h := hdr.New()
	for _, v := range vs {
		hdr.Record(h, time.Duration(v)*time.Microsecond)
	}
	s, err := hdr.Encode(h)
	if err != nil {
		panic(err)
	}
	return s
}

// rankValue is the value at a percentile in a sorted slice, by HDR's rule:
// the smallest value whose rank reaches round(q/100 * n).
func rankValue(sorted []int64, q float64) float64 {
	rank := int(q/100*float64(len(sorted)) + 0.5)
	rank = max(1, min(rank, len(sorted)))
	return float64(sorted[rank-1]) / 1000
}

func within(t *testing.T, name string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > want*rel+0.001 {
		t.Errorf("%s = %.3f ms, want %.3f ms within %.2f%%", name, got, want, rel*100)
	}
}

func TestRoundTrip(t *testing.T) {
	vs := latencies(1, 10000)
	h := hdr.New()
	for _, v := range vs {
		hdr.Record(h, time.Duration(v)*time.Microsecond)
	}
	s, err := hdr.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	back, err := hdr.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equals(h) {
		t.Errorf("decoded histogram differs from the original")
	}
	if got, want := hdr.Summarize(back), hdr.Summarize(h); got != want {
		t.Errorf("Summarize(decoded) = %+v, want %+v", got, want)
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	if _, err := hdr.Decode("not a histogram"); err == nil {
		t.Error("Decode(garbage) succeeded")
	}
}

func TestSummarize(t *testing.T) {
	vs := latencies(2, 20000)
	h, err := hdr.Decode(record(vs))
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(vs)
	slices.Sort(sorted)
	var sum float64
	for _, v := range vs {
		sum += float64(v)
	}
	got := hdr.Summarize(h)
	const precision = 0.001 // 3 significant figures
	within(t, "min", got.Min, float64(sorted[0])/1000, precision)
	within(t, "max", got.Max, float64(sorted[len(sorted)-1])/1000, precision)
	within(t, "mean", got.Mean, sum/float64(len(vs))/1000, precision)
	within(t, "p50", got.P50, rankValue(sorted, 50), precision)
	within(t, "p90", got.P90, rankValue(sorted, 90), precision)
	within(t, "p95", got.P95, rankValue(sorted, 95), precision)
	within(t, "p99", got.P99, rankValue(sorted, 99), precision)
	within(t, "p99.9", got.P999, rankValue(sorted, 99.9), precision)
}

func TestSummarizeEmpty(t *testing.T) {
	if got := hdr.Summarize(hdr.New()); got.Max != 0 || got.P50 != 0 || got.Mean != 0 {
		t.Errorf("Summarize(empty) = %+v, want zeros", got)
	}
}

func TestRecordClamps(t *testing.T) {
	h := hdr.New()
	hdr.Record(h, 0)
	hdr.Record(h, time.Hour)
	if got, want := h.TotalCount(), int64(2); got != want {
		t.Fatalf("TotalCount = %d, want %d", got, want)
	}
	if got, want := h.Min(), int64(hdr.Lowest); got != want {
		t.Errorf("Min = %d µs, want %d", got, want)
	}
	if got, want := float64(h.Max()), float64(hdr.MaxTrackable); math.Abs(got-want) > want*0.001 {
		t.Errorf("Max = %.0f µs, want about %.0f", got, want)
	}
}

func TestMerge(t *testing.T) {
	a, b := latencies(3, 5000), latencies(4, 7000)
	merged, err := hdr.Merge(record(a), "", record(b))
	if err != nil {
		t.Fatal(err)
	}
	union, err := hdr.Decode(record(append(slices.Clone(a), b...)))
	if err != nil {
		t.Fatal(err)
	}
	if !merged.Equals(union) {
		t.Errorf("merge of two histograms differs from the histogram of their union")
	}
	if got, want := merged.TotalCount(), int64(len(a)+len(b)); got != want {
		t.Errorf("TotalCount = %d, want %d", got, want)
	}
}

func TestMergeBadInput(t *testing.T) {
	if _, err := hdr.Merge(record([]int64{5}), "%%%"); err == nil {
		t.Error("Merge with a bad histogram succeeded")
	}
}
