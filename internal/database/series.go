package database

import (
	"maps"
	"slices"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// buildSeries turns samples, in the order taken, into the recording's
// series on the clock whose zero is t0. Every sample has a point in each
// series of connections, waits (0 where a wait had no session) and locks;
// the rates have one from the second sample on, except across a counter
// that went back (a reset).
func buildSeries(taken []takenSample, t0 time.Time) []bench.Series {
	if len(taken) == 0 {
		return nil
	}
	var out []bench.Series
	for _, state := range connectionStates {
		out = append(out, gaugeSeries(taken, t0, SeriesConnections, LabelState, state, func(s sample) map[string]float64 { return s.connections }))
	}
	for _, wait := range waitKinds(taken) {
		out = append(out, gaugeSeries(taken, t0, SeriesWaits, LabelWait, wait, func(s sample) map[string]float64 { return s.waits }))
	}
	out = append(out,
		rateSeries(taken, t0, SeriesTransactions, func(s sample) float64 { return s.transactions }),
		rateSeries(taken, t0, SeriesRows, func(s sample) float64 { return s.rows }),
		bench.Series{Name: SeriesLocks, Points: points(taken, t0, func(s sample) float64 { return s.locks })},
	)
	// At the instants the counter was read, not those the samples began,
	// each rate over the interval between two reads on the server's clock
	// where it gave it (the point placed on this side's); a sample whose
	// read failed (timed out on a saturated machine) is left out, the rate
	// spanning the reads on either side: the counters count on in between.
	var read []takenSample
	for _, s := range taken {
		if s.timed {
			read = append(read, takenSample{at: s.executedAt, clock: s.serverAt, sample: s.sample})
		}
	}
	if len(read) >= 2 {
		out = append(out,
			rateSeries(read, t0, SeriesExecuting, func(s sample) float64 { return s.executed }),
			rateSeries(read, t0, SeriesStatements, func(s sample) float64 { return s.statements }))
	}
	return out
}

// waitKinds are the waits any sample saw, in order.
func waitKinds(taken []takenSample) []string {
	seen := map[string]bool{}
	for _, s := range taken {
		for k := range s.waits {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// gaugeSeries is the series of one key of a map each sample has.
func gaugeSeries(taken []takenSample, t0 time.Time, name, label, key string, of func(sample) map[string]float64) bench.Series {
	return bench.Series{Name: name, Labels: map[string]string{label: key},
		Points: points(taken, t0, func(s sample) float64 { return of(s)[key] })}
}

// points is one point per sample.
func points(taken []takenSample, t0 time.Time, value func(sample) float64) []bench.Point {
	out := make([]bench.Point, len(taken))
	for i, s := range taken {
		out[i] = bench.Point{T: s.at.Sub(t0).Seconds(), V: value(s.sample)}
	}
	return out
}

// rateSeries is a counter's rate per second between successive samples,
// at the later one: over the interval between them on the clock they were
// read on (clock) where both have it, else between the instants taken.
func rateSeries(taken []takenSample, t0 time.Time, name string, counter func(sample) float64) bench.Series {
	out := bench.Series{Name: name, Points: []bench.Point{}}
	for i := 1; i < len(taken); i++ {
		dt := taken[i].at.Sub(taken[i-1].at).Seconds()
		if a, b := taken[i-1].clock, taken[i].clock; !a.IsZero() && !b.IsZero() {
			dt = b.Sub(a).Seconds()
		}
		dv := counter(taken[i].sample) - counter(taken[i-1].sample)
		if dt <= 0 || dv < 0 {
			continue
		}
		out.Points = append(out.Points, bench.Point{T: taken[i].at.Sub(t0).Seconds(), V: dv / dt})
	}
	return out
}
