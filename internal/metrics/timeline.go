package metrics

import (
	"maps"
	"slices"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// timeline keeps samples by series with the instant they were taken, so that
// they can be placed on the attack's clock whenever its zero becomes known.
// The instants are kept once, each series' samples naming theirs by index:
// a sample is 12 bytes where an instant of its own made it 32, and every
// series of a target grows by one each sampling through a long run.
type timeline struct {
	tracks   map[string]*track
	instants []time.Time // in the order taken
}

// track is one series' samples in the order they were taken.
type track struct {
	name   string
	labels map[string]string
	at     []int32 // indices into timeline.instants
	values []float64
}

func newTimeline() *timeline {
	return &timeline{tracks: map[string]*track{}}
}

// add records samples taken at one instant.
func (tl *timeline) add(at time.Time, samples []Sample) {
	if len(samples) == 0 {
		return
	}
	if n := len(tl.instants); n == 0 || !tl.instants[n-1].Equal(at) {
		tl.instants = append(tl.instants, at)
	}
	i := int32(len(tl.instants) - 1)
	for _, s := range samples {
		k := s.key()
		tr, ok := tl.tracks[k]
		if !ok {
			tr = &track{name: s.Name, labels: s.Labels}
			tl.tracks[k] = tr
		}
		tr.at = append(tr.at, i)
		tr.values = append(tr.values, s.Value)
	}
}

// latest is the latest sample of the series of a name, summed over their
// labels, taken at the earliest of their latest instants.
func (tl *timeline) latest(name string) (at time.Time, value float64, ok bool) {
	for _, tr := range tl.tracks {
		if tr.name != name || len(tr.at) == 0 || tl.shadowed(tr) {
			continue
		}
		last := len(tr.at) - 1
		if taken := tl.instants[tr.at[last]]; !ok || taken.Before(at) {
			at = taken
		}
		value += tr.values[last]
		ok = true
	}
	return at, value, ok
}

// series returns every series, sorted by name and labels, with T in seconds
// since t0; those a scrape shadows are left out.
func (tl *timeline) series(t0 time.Time) []bench.Series {
	out := make([]bench.Series, 0, len(tl.tracks))
	for _, k := range slices.Sorted(maps.Keys(tl.tracks)) {
		tr := tl.tracks[k]
		if tl.shadowed(tr) {
			continue
		}
		points := make([]bench.Point, len(tr.at))
		for i, at := range tr.at {
			points[i] = bench.Point{T: offset(tl.instants[at], t0), V: tr.values[i]}
		}
		out = append(out, bench.Series{Name: tr.name, Labels: tr.labels, Points: points})
	}
	return out
}

// shadowed reports whether tr was read from the JVM's perf counters and a
// scrape gave the same series (the same name and other labels): the
// scrape's wins, whole. Mixing the two in one series would not do: the
// same counter starts at the JVM's start in one and at Micrometer's in the
// other (GC pauses), and a heap is summed over pools in one and over
// generations in the other.
func (tl *timeline) shadowed(tr *track) bool {
	if tr.labels[SourceLabel] != SourcePerfData {
		return false
	}
	_, scraped := tl.tracks[scrapedKey(tr.name, tr.labels)]
	return scraped
}

// has reports whether the timeline holds every one of series (by name and
// labels) with at least one sample.
func (tl *timeline) has(series []Sample) bool {
	for _, s := range series {
		if _, ok := tl.tracks[s.key()]; !ok {
			return false
		}
	}
	return true
}

// scrapedKey is the key of the series a scrape would give under name and
// labels: theirs without SourceLabel.
func scrapedKey(name string, labels map[string]string) string {
	s := Sample{Name: name, Labels: maps.Clone(labels)}
	delete(s.Labels, SourceLabel)
	return s.key()
}

// offset is at on the clock whose zero is t0, in seconds.
func offset(at, t0 time.Time) float64 {
	return at.Sub(t0).Seconds()
}
