package load

import (
	"math"
	"sort"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// warmupStage is the index a segment of the warm-up carries.
const warmupStage = -1

// segment is one stretch of an attack's schedule: the warm-up or one stage,
// moving linearly from `from` to `to` (a rate in requests/s in the open
// model, a concurrency in the closed one).
type segment struct {
	stage  int // index in the profile, warmupStage for the warm-up
	start  time.Duration
	dur    time.Duration
	closed bool
	steps  bool    // closed ramp: concurrency changes once a second
	from   float64 // value at start
	to     float64 // value at end
	hits0  float64 // open: requests due before the segment starts
}

func (s segment) end() time.Duration { return s.start + s.dur }

// hits returns the requests the segment schedules: the integral of its rate.
func (s segment) hits() float64 {
	if s.closed {
		return 0
	}
	return (s.from + s.to) / 2 * s.dur.Seconds()
}

// rateAt returns the open rate at t (from the attack's start) in the segment.
func (s segment) rateAt(t time.Duration) float64 {
	if s.closed {
		return 0
	}
	return s.from + (s.to-s.from)*float64(t-s.start)/float64(s.dur)
}

// hitsBy returns the requests due by t, t within the segment.
func (s segment) hitsBy(t time.Duration) float64 {
	if s.closed {
		return s.hits0
	}
	tau := (t - s.start).Seconds()
	slope := (s.to - s.from) / s.dur.Seconds()
	return s.hits0 + s.from*tau + slope*tau*tau/2
}

// dueAt returns when the request numbered k (from 0) is due, k within the
// segment: it solves hitsBy(t) = k, a quadratic in a ramp. The form
// 2Δ / (r0 + sqrt(r0² + 2aΔ)) is the stable root for both signs of the
// slope a and for ramps from 0 (r0 = 0).
func (s segment) dueAt(k float64) time.Duration {
	delta := k - s.hits0
	if delta <= 0 {
		return s.start
	}
	slope := (s.to - s.from) / s.dur.Seconds()
	disc := math.Max(s.from*s.from+2*slope*delta, 0)
	tau := 2 * delta / (s.from + math.Sqrt(disc))
	return s.start + time.Duration(math.Min(tau, s.dur.Seconds())*float64(time.Second))
}

// concurrencyAt returns the closed-model concurrency at t within the
// segment. A ramp steps once a second, each second taking the ramp's value
// at its middle, so that the mean concurrency equals the linear ramp's.
func (s segment) concurrencyAt(t time.Duration) int {
	if !s.steps {
		return int(s.to)
	}
	n := math.Ceil(s.dur.Seconds())
	k := math.Floor((t - s.start).Seconds())
	return int(math.Round(s.from + (s.to-s.from)*(k+0.5)/n))
}

// nextChange returns when the concurrency after t next changes.
func (s segment) nextChange(t time.Duration) time.Duration {
	if !s.steps {
		return s.end()
	}
	next := s.start + (t - s.start).Truncate(time.Second) + time.Second
	return min(next, s.end())
}

// schedule is an attack laid out in time: an optional warm-up (always open)
// followed by the profile's stages.
type schedule struct {
	segs    []segment
	warm    time.Duration // length of the warm-up; t0 = start + warm
	end     time.Duration // from the attack's start
	openEnd time.Duration // end of the open part: end (open) or warm (closed)
	hits    float64       // open requests due over the whole schedule
}

// newSchedule lays out warm-up and stages. Ramps start from the previous
// stage's value, 0 before the first stage (the warm-up does not count: it
// is not part of the profile).
func newSchedule(profile bench.Profile, warmup bench.Warmup) *schedule {
	s := &schedule{}
	if !warmup.Disabled && warmup.Duration > 0 {
		s.add(segment{stage: warmupStage, dur: warmup.Duration.D(), from: warmup.Rate, to: warmup.Rate})
		s.warm = warmup.Duration.D()
	}
	model := bench.ModelOf(profile.Model)
	// A model of clients keeps them in flight: its stages are not paced
	// (a ramp of clients steps once a second).
	closed := model.Clients()
	prev := 0.0
	for i, st := range profile.Stages {
		value := model.Level(st)
		from := value
		if st.Ramp {
			from = prev
		}
		s.add(segment{stage: i, dur: st.Duration.D(), closed: closed, steps: closed && st.Ramp && from != value, from: from, to: value})
		prev = value
	}
	s.openEnd = s.end
	if closed {
		s.openEnd = s.warm
	}
	return s
}

func (s *schedule) add(seg segment) {
	seg.start, seg.hits0 = s.end, s.hits
	s.segs = append(s.segs, seg)
	s.end += seg.dur
	s.hits += seg.hits()
}

// at returns the segment running at t, or nil outside the schedule.
func (s *schedule) at(t time.Duration) *segment {
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].end() > t })
	if i == len(s.segs) || t < 0 {
		return nil
	}
	return &s.segs[i]
}

// due returns when the open request numbered k (from 0) is due, skipping
// stretches with no requests; false when the schedule has no request k.
func (s *schedule) due(k uint64) (time.Duration, bool) {
	hit := float64(k)
	i := sort.Search(len(s.segs), func(i int) bool {
		seg := s.segs[i]
		return seg.hits0+seg.hits() > hit
	})
	if i == len(s.segs) {
		return 0, false
	}
	return s.segs[i].dueAt(hit), true
}

// rate returns the scheduled open rate at t.
func (s *schedule) rate(t time.Duration) float64 {
	if seg := s.at(t); seg != nil {
		return seg.rateAt(t)
	}
	return 0
}

// hitsBy returns the open requests due by t.
func (s *schedule) hitsBy(t time.Duration) float64 {
	switch seg := s.at(t); {
	case seg != nil:
		return seg.hitsBy(t)
	case t >= s.end:
		return s.hits
	}
	return 0
}

// firstDue returns the number of the first open request due at or after t:
// so firstDue(b) - firstDue(a) requests are due in [a, b), counted with the
// same arithmetic workers pace by.
func (s *schedule) firstDue(t time.Duration) uint64 {
	k := uint64(max(math.Ceil(s.hitsBy(t))-2, 0))
	for {
		due, ok := s.due(k)
		if !ok || due >= t || due >= s.openEnd {
			break
		}
		k++
	}
	for k > 0 {
		due, ok := s.due(k - 1)
		if ok && due < t && due < s.openEnd {
			break
		}
		k--
	}
	return k
}
