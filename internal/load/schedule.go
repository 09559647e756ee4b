package load

import (
	"math"
	"sort"
	"sync/atomic"
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
	// Rounded to the nanosecond, not truncated: a share's requests
	// (bench.Share) reach a time the plan's reach exactly by a sum a hair
	// short of it, and must not fall into the second before.
	return s.start + time.Duration(math.Round(math.Min(tau, s.dur.Seconds())*float64(time.Second)))
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

// schedule is an attack laid out in time: an optional warm-up followed by
// the profile's stages. A fixed warm-up is open, at its rate; a warm-up
// until steady sends the first stage's load (bench.Warmup.SteadyStage),
// closed clients or an open rate as the profile is, laid out at its
// maximum until it is cut. A schedule never changes once published.
type schedule struct {
	segs    []segment
	warm    time.Duration // length of the warm-up; t0 = start + warm
	end     time.Duration // from the attack's start
	openEnd time.Duration // end of the open part: of the last open segment
	hits    float64       // open requests due over the whole schedule
	// offset shifts the open requests' numbers: request k is due when the
	// schedule's request k+offset is. A share of a plan split among
	// generators (bench.Share.Offset) lags by its place among them.
	offset float64
	// replaced is closed when a cut replaces the schedule (a warm-up until
	// steady ended); nil for a schedule nothing replaces.
	replaced chan struct{}
}

// newSchedule lays out warm-up and stages. Ramps start from the previous
// stage's value, 0 before the first stage (the warm-up does not count: it
// is not part of the profile).
func newSchedule(profile bench.Profile, warmup bench.Warmup) *schedule {
	s := &schedule{}
	model := bench.ModelOf(profile.Model)
	// A model of clients keeps them in flight: its stages are not paced
	// (a ramp of clients steps once a second).
	closed := !executionOf(profile.Model).paced()
	switch {
	case warmup.Disabled:
	case warmup.UntilSteady:
		level := model.Level(warmup.SteadyStage(profile))
		s.add(segment{stage: warmupStage, dur: warmup.MaxDuration.D(), closed: closed, from: level, to: level})
		s.replaced = make(chan struct{})
	case warmup.Duration > 0:
		s.add(segment{stage: warmupStage, dur: warmup.Duration.D(), from: warmup.Rate, to: warmup.Rate})
	}
	s.warm = s.end
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
	s.setOpenEnd()
	return s
}

func (s *schedule) add(seg segment) {
	seg.start, seg.hits0 = s.end, s.hits
	s.segs = append(s.segs, seg)
	s.end += seg.dur
	s.hits += seg.hits()
}

func (s *schedule) setOpenEnd() {
	for _, seg := range s.segs {
		if !seg.closed {
			s.openEnd = seg.end()
		}
	}
}

// cutWarmup returns the schedule with its warm-up ended at `at` and every
// later segment moved earlier by what was left of it. Before at the two
// schedules agree: the requests due by then, and their numbers, are the same.
func (s *schedule) cutWarmup(at time.Duration) *schedule {
	cut := &schedule{offset: s.offset}
	for _, seg := range s.segs {
		if seg.stage == warmupStage {
			seg.dur = min(seg.dur, at)
			cut.warm = seg.dur
		}
		cut.add(seg)
	}
	cut.setOpenEnd()
	return cut
}

// cutPoint is where a cut asked for at falls: at itself for closed
// clients; for an open warm-up, just after the next request it has due, so
// that this request, which a worker may already hold (claimed with its due
// time), is the warm-up's last in the schedule after the cut too. (Claims
// armed further ahead, within armHorizon, keep due times that differ from
// the new schedule's by less than that.)
func (s *schedule) cutPoint(at time.Duration) time.Duration {
	if s.segs[0].closed {
		return at
	}
	if due, ok := s.due(s.firstDue(at)); ok {
		return due + time.Nanosecond
	}
	return at
}

// timetable holds an attack's schedule for the workers and the recorder,
// which read it concurrently. It changes at most once: when a warm-up
// until steady settles, cut publishes the schedule with the warm-up ended
// then, and a reader that needs one consistent view loads it once.
type timetable struct {
	cur atomic.Pointer[schedule]
	// warm is the length of a fixed warm-up, known before the clock
	// starts; 0 for a warm-up until steady, whose end only the schedule
	// gives, once cut.
	warm time.Duration
	// openEnd bounds the open part: no open request is due at or after
	// it. It does not move when a cut makes the open part end earlier:
	// due, which reads the schedule, then has no request left to give.
	openEnd time.Duration
}

// newTimetable lays out the plan's warm-up and stages, its share's open
// requests shifted by its offset.
func newTimetable(plan bench.Plan) *timetable {
	s := newSchedule(plan.Profile, plan.Warmup)
	s.offset = plan.Share.Offset()
	tt := &timetable{openEnd: s.openEnd}
	if s.replaced == nil {
		tt.warm = s.warm
	}
	tt.cur.Store(s)
	return tt
}

// load returns the schedule in force.
func (tt *timetable) load() *schedule { return tt.cur.Load() }

// online reports whether the warm-up ends when it settles (until steady)
// and has not been cut yet.
func (tt *timetable) online() bool { return tt.load().replaced != nil }

// cut ends a warm-up until steady at `at` (attack clock), or at the next
// request an open warm-up has due (cutPoint), publishes the schedule that
// follows and wakes the readers waiting on the old one; nil when there is
// nothing to cut (a fixed warm-up, one cut already, or the warm-up's
// maximum reached). Its caller serialises cuts.
func (tt *timetable) cut(at time.Duration) *schedule {
	old := tt.load()
	if old.replaced == nil {
		return nil
	}
	if at = old.cutPoint(at); at <= 0 || at >= old.warm {
		return nil
	}
	cut := old.cutWarmup(at)
	tt.cur.Store(cut)
	close(old.replaced)
	return cut
}

// due returns when the open request numbered k (from 0) is due, by the
// schedule in force (see schedule.due).
func (tt *timetable) due(k uint64) (time.Duration, bool) { return tt.load().due(k) }

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
	hit := float64(k) + s.offset
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
