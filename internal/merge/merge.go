// Package merge adds up what several load generators measured of one
// attack into the figures a single generator would have reported, without
// approximation: counts, errors, drops, completions, iterations and bytes
// add; latency histograms (per stage, per second, per request) merge, and
// every percentile is recomputed from the merged histogram, never averaged.
// Each generator's self-watch is kept by the caller; the merged window
// carries the worst of them (the highest CPU share and send lags, the sum
// of late and dropped requests), and is flagged for whatever any
// generator's own window was flagged for, naming it.
package merge

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// Stats adds windows that cover the same stretch of time, elapsed long
// (the generators' parts of one stage), or follow each other and together
// last elapsed (one generator's seconds): counts add, latencies come from
// the merged histograms, and the rates are over elapsed. A window that
// answered requests without a histogram cannot be merged exactly, and is
// an error.
func Stats(elapsed time.Duration, windows ...bench.Stats) (bench.Stats, error) {
	st := Counts(elapsed, windows...)
	var hists, services []string
	for i, w := range windows {
		if w.Histogram == "" && w.Latency != (bench.Latency{}) {
			return bench.Stats{}, fmt.Errorf("window %d has latencies but no histogram to merge them from", i)
		}
		hists, services = append(hists, w.Histogram), append(services, w.ServiceHistogram)
	}
	if err := mergeLatency(&st, hists, services); err != nil {
		return bench.Stats{}, err
	}
	return st, nil
}

// Counts adds the windows' counts, codes, errors, bytes and fan-outs, with
// the rates over elapsed, and leaves the latency out.
func Counts(elapsed time.Duration, windows ...bench.Stats) bench.Stats {
	st := bench.Stats{Elapsed: bench.Duration(elapsed)}
	for _, w := range windows {
		addCounts(&st, w)
	}
	st.SetRates()
	return st
}

// addCounts adds a window's counts, codes, errors, bytes and fan-outs.
func addCounts(st *bench.Stats, w bench.Stats) {
	st.Requests += w.Requests
	st.Successes += w.Successes
	st.Completed += w.Completed
	st.CompletedSpread += w.CompletedSpread
	st.Dropped += w.Dropped
	st.Iterations += w.Iterations
	st.BytesIn += w.BytesIn
	st.BytesOut += w.BytesOut
	if len(w.StatusCodes) > 0 && st.StatusCodes == nil {
		st.StatusCodes = map[string]int64{}
	}
	for code, n := range w.StatusCodes {
		st.StatusCodes[code] += n
	}
	st.Errors = Errors(st.Errors, w.Errors)
	if w.Fanout != nil {
		if st.Fanout == nil {
			st.Fanout = &bench.FanoutStats{}
		}
		hdr.AddFanout(st.Fanout, *w.Fanout)
	}
}

// mergeLatency sets the latency and service time from the merged
// histograms, and keeps them encoded.
func mergeLatency(st *bench.Stats, hists, services []string) error {
	h, err := hdr.Merge(hists...)
	if err != nil {
		return err
	}
	st.Latency = hdr.Summarize(h)
	if st.Histogram, err = hdr.Encode(h); err != nil {
		return err
	}
	s, err := hdr.Merge(services...)
	if err != nil || s.TotalCount() == 0 {
		return err
	}
	service := hdr.Summarize(s)
	st.ServiceTime = &service
	st.ServiceHistogram, err = hdr.Encode(s)
	return err
}

// Errors adds two lists of error counts by message, the most frequent
// first (then by message), as a window lists them.
func Errors(a, b []bench.ErrorCount) []bench.ErrorCount {
	counts := map[string]int64{}
	for _, e := range append(slices.Clone(a), b...) {
		counts[e.Message] += e.Count
	}
	if len(counts) == 0 {
		return nil
	}
	out := make([]bench.ErrorCount, 0, len(counts))
	for _, m := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, bench.ErrorCount{Message: m, Count: counts[m]})
	}
	slices.SortStableFunc(out, func(x, y bench.ErrorCount) int { return cmp.Compare(y.Count, x.Count) })
	return out
}

// Generators combines the generators' self-watch over one window: the
// worst of them stands for the window (the CPU share and CPUs of the
// busiest, the highest send lags and steal), late and dropped requests and their
// connections add. Nil parts are skipped; nil when there are none.
func Generators(parts ...*bench.Generator) *bench.Generator {
	var g *bench.Generator
	for _, p := range parts {
		if p == nil {
			continue
		}
		if g == nil {
			c := *p
			g = &c
			continue
		}
		if p.CPUShare > g.CPUShare {
			g.CPUShare, g.CPUs = p.CPUShare, p.CPUs
		}
		g.CPUSharePeak = max(g.CPUSharePeak, p.CPUSharePeak)
		g.StealShare, g.StealSharePeak = max(g.StealShare, p.StealShare), max(g.StealSharePeak, p.StealSharePeak)
		g.SendLagP99, g.SendLagMax = max(g.SendLagP99, p.SendLagP99), max(g.SendLagMax, p.SendLagMax)
		g.SchedulingLagP99, g.ConnectionWaitP99 = max(g.SchedulingLagP99, p.SchedulingLagP99), max(g.ConnectionWaitP99, p.ConnectionWaitP99)
		g.Connections += p.Connections
		g.Late += p.Late
		g.Dropped += p.Dropped
		g.APIRequests += p.APIRequests
	}
	return g
}

// Flags flags a window for whatever any generator's part of it was
// flagged for: one flag per kind, in the order they first appear, whose
// reason gives each generator's own, named.
func Flags(names []string, parts ...[]bench.Flag) []bench.Flag {
	var kinds []string
	reasons := map[string][]string{}
	for i, flags := range parts {
		for _, f := range flags {
			if _, seen := reasons[f.Kind]; !seen {
				kinds = append(kinds, f.Kind)
			}
			reasons[f.Kind] = append(reasons[f.Kind], names[i]+": "+f.Reason)
		}
	}
	var out []bench.Flag
	for _, k := range kinds {
		out = append(out, bench.Flag{Kind: k, Reason: strings.Join(reasons[k], "; ")})
	}
	return out
}
