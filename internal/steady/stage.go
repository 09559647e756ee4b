package steady

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/merge"
)

// Figures whose trend a Part names.
const (
	FigureThroughput = "throughput"
	FigureP50        = "p50"
)

// Part is the steady part of a stage's seconds: throughput and p50 second
// by second, each through Detect, joined by Combine. Figure names the
// figure that still trends when the stage is not steady.
type Part struct {
	Result
	Figure string
}

// OfSeconds finds the steady part of a stage's full seconds. Throughput
// is read from each second's CompletedSpread, which closed clients in step
// do not alias, or from its completions in a run recorded before seconds
// kept it. A second without successes has no p50; it counts as the p50 of
// the second before it so that the series keeps its length.
func OfSeconds(seconds []bench.Bucket) Part {
	tput, p50 := Throughputs(seconds), make([]float64, len(seconds))
	for i, b := range seconds {
		p50[i] = b.Stats.Latency.P50
		if b.Stats.Successes == 0 && i > 0 {
			p50[i] = p50[i-1]
		}
	}
	a, b := Detect(tput, Options{}), Detect(p50, Options{})
	p := Part{Result: Combine(a, b)}
	switch {
	case !a.Steady:
		p.Figure = FigureThroughput
	case !b.Steady:
		p.Figure = FigureP50
	}
	return p
}

// Rate is the throughput of a second, or of seconds summed (Stats), as
// the steady-state test and a hold stage's figure read it: the successful
// responses spread over their flight (CompletedSpread) per second of the
// window when it kept them, else its completions per second (a run
// recorded before seconds kept the spread, or a window of no seconds).
// Completions alias: 400 closed clients in step on a 501.5 ms cycle
// answer 800, then 750 in a second their bunch straddles, and a 12 s
// stage of them reads 785 req/s for a target that served 797.6 all along.
func Rate(st bench.Stats) float64 {
	if secs := st.Elapsed.D().Seconds(); st.CompletedSpread > 0 && secs > 0 {
		return st.CompletedSpread / secs
	}
	return st.Throughput
}

// RateOf is the Rate of seconds summed, and false when none of them kept
// a spread (their completions are then the stage's own figure).
func RateOf(seconds []bench.Bucket) (float64, bool) {
	st := counts(seconds)
	return st.Throughput, st.CompletedSpread > 0 && st.Elapsed > 0
}

// Throughputs are the seconds' rates (Rate).
func Throughputs(seconds []bench.Bucket) []float64 {
	out := make([]float64, len(seconds))
	for i, b := range seconds {
		out[i] = Rate(b.Stats)
	}
	return out
}

// FullSeconds leaves out of buckets a last second cut short by the end
// of the attack, whose rates come from a fraction of a second.
func FullSeconds(buckets []bench.Bucket) []bench.Bucket {
	var out []bench.Bucket
	for _, b := range buckets {
		if b.Stats.Elapsed.D() >= 990*time.Millisecond {
			out = append(out, b)
		}
	}
	return out
}

// StageSeconds returns a result's full seconds (FullSeconds) in stage
// index.
func StageSeconds(t *bench.TargetResult, index int) []bench.Bucket {
	var out []bench.Bucket
	for _, b := range FullSeconds(t.Seconds) {
		if b.Stage == index {
			out = append(out, b)
		}
	}
	return out
}

// StageRate is a hold stage's throughput as its report figure reads it:
// over the steady part of its full seconds (OfSeconds), their Rate, the
// seconds summed; false where no second was kept, or where none was cut
// and none kept a spread, when the stage's own figure serves.
func StageRate(seconds []bench.Bucket) (float64, Part, bool) {
	part := OfSeconds(seconds)
	kept := part.Kept(seconds)
	if len(kept) == 0 {
		return 0, part, false
	}
	if part.Start == 0 && part.EndCut == 0 {
		rate, ok := RateOf(kept)
		return rate, part, ok
	}
	return counts(kept).Throughput, part, true
}

// Kept returns the seconds the part keeps: those between the transients
// cut at the start and at the end.
func (p Part) Kept(seconds []bench.Bucket) []bench.Bucket {
	end := max(len(seconds)-p.EndCut, 0)
	return seconds[min(p.Start, end):end]
}

// SpreadFlights is how many mean flights a window of seconds must last
// for its rate to be read from the spread. At each edge of a window the
// responses in flight carry a share of themselves across it, up to one
// each: beside a window of few flights (400 clients queued 3 s each for
// 10 connections, a 5 s stage) those shares outweigh the aliasing the
// spread is there to undo, and its sum can exceed what the target served
// (109.8 req/s from a pool that allows 100). Such a window's rate is its
// completions per second.
const SpreadFlights = 10

// counts adds seconds' counts and bytes, with the rates over their
// elapsed time and the throughput their Rate, or their completions per
// second where the window is shorter than SpreadFlights mean flights.
func counts(seconds []bench.Bucket) bench.Stats {
	var elapsed time.Duration
	var flight, answered float64 // ms summed over the successes, and the successes
	windows := make([]bench.Stats, len(seconds))
	for i, b := range seconds {
		windows[i] = b.Stats
		elapsed += b.Stats.Elapsed.D()
		flight += b.Stats.Latency.Mean * float64(b.Stats.Successes)
		answered += float64(b.Stats.Successes)
	}
	st := merge.Counts(elapsed, windows...)
	if answered > 0 && flight/answered*SpreadFlights > float64(elapsed.Milliseconds()) {
		return st // SetRates: completions per second
	}
	st.Throughput = Rate(st)
	return st
}

// Stats sums seconds into the figures of the window they make: counts
// (counts) and latency from their merged histograms. ok is false when a
// second has no histogram (runs recorded before seconds kept theirs) or
// one cannot be read: the latency is then left zero for the caller to
// take from elsewhere.
func Stats(seconds []bench.Bucket) (st bench.Stats, hists []string, ok bool) {
	ok = len(seconds) > 0
	for _, b := range seconds {
		if b.Stats.Histogram == "" && b.Stats.Successes > 0 {
			ok = false
		}
		hists = append(hists, b.Stats.Histogram)
	}
	st = counts(seconds)
	if !ok {
		return st, nil, false
	}
	h, err := hdr.Merge(hists...)
	if err != nil {
		return st, nil, false
	}
	st.Latency = hdr.Summarize(h)
	st.Histogram, _ = hdr.Encode(h) // encoding into memory does not fail
	return st, hists, true
}
