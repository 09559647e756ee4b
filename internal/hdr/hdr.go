// Package hdr keeps latency distributions as HDR histograms in microseconds,
// and writes them as HdrHistogram's V2 compressed encoding (base64 text) so
// that stored results can be merged and their percentiles recomputed later.
package hdr

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/bench"
)

// Histogram geometry: every histogram of the project uses the same one, so
// that encoded histograms of any stage or run merge without loss.
const (
	Lowest       = 1                              // µs
	MaxTrackable = int64(10 * time.Minute / 1000) // µs; above any request timeout we allow
	SigFigs      = 3                              // relative precision 0.1%
)

// New returns an empty latency histogram: 1 µs to 10 minutes, 3 significant
// figures.
func New() *hdrhistogram.Histogram {
	return hdrhistogram.New(Lowest, MaxTrackable, SigFigs)
}

// Record adds one latency, clamped into the histogram's range so that a
// request that outlived its timeout by a hair still counts.
func Record(h *hdrhistogram.Histogram, latency time.Duration) {
	us := latency.Microseconds()
	if us < Lowest {
		us = Lowest
	} else if max := h.HighestTrackableValue(); us > max {
		us = max
	}
	_ = h.RecordValue(us) // in range by construction
}

// Encode returns h in the V2 compressed encoding, as base64 text.
func Encode(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// Decode reads a histogram written by Encode.
func Decode(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// Merge decodes the encoded histograms and adds them into one new histogram.
// Empty strings are skipped, so stages without a histogram merge as empty.
func Merge(encoded ...string) (*hdrhistogram.Histogram, error) {
	total := New()
	for i, s := range encoded {
		if s == "" {
			continue
		}
		h, err := Decode(s)
		if err != nil {
			return nil, fmt.Errorf("histogram %d: %w", i, err)
		}
		if dropped := total.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("histogram %d: %d values outside 1µs..%dµs", i, dropped, MaxTrackable)
		}
	}
	return total, nil
}

// Summarize returns h's distribution in milliseconds. An empty histogram
// gives the zero Latency.
func Summarize(h *hdrhistogram.Histogram) bench.Latency {
	if h.TotalCount() == 0 {
		return bench.Latency{}
	}
	q := h.ValueAtPercentilesSlice([]float64{50, 90, 95, 99, 99.9})
	return bench.Latency{
		Min:  ms(h.Min()),
		Mean: h.Mean() / 1000,
		P50:  ms(q[0]),
		P90:  ms(q[1]),
		P95:  ms(q[2]),
		P99:  ms(q[3]),
		P999: ms(q[4]),
		Max:  ms(h.Max()),
	}
}

func ms(us int64) float64 { return float64(us) / 1000 }

// AddFanout adds the fan-outs of another window to dst: their counts, and
// their calls' histograms merged, with the summaries taken from them. A
// histogram that cannot be read leaves dst without one: no figure rather
// than one of part of the calls.
func AddFanout(dst *bench.FanoutStats, src bench.FanoutStats) {
	calls, done := dst.Responses > 0 || dst.CallHistogram != "", dst.Responses > 0 || dst.DoneHistogram != ""
	dst.Merge(src)
	dst.CallHistogram, dst.Call = mergeFanout(dst.CallHistogram, src.CallHistogram, calls)
	dst.DoneHistogram, dst.Done = mergeFanout(dst.DoneHistogram, src.DoneHistogram, done)
}

// mergeFanout merges an encoded histogram into another: a missing one
// where the other window had fan-outs (had) taints the sum.
func mergeFanout(a, b string, had bool) (string, *bench.Latency) {
	if b == "" || (a == "" && had) {
		return "", nil
	}
	h, err := Merge(a, b)
	if err != nil {
		return "", nil
	}
	enc, err := Encode(h)
	if err != nil {
		return "", nil
	}
	lat := Summarize(h)
	return enc, &lat
}
