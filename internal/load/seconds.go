package load

import (
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
)

// seconds keeps the per-second buckets of a run. A result is filed under
// the second it was sent in; a second is reported once it is over and every
// request sent in it (as counted by the targeter) has come back, so a live
// view sees complete seconds in order. Each open second has its own
// Aggregate, recycled once the second is summarised.
//
// Counting is by slot: slot 0 is everything before t0 (the warm-up), slot
// b+1 is bucket b. vegeta stamps a request a moment before the targeter
// counts it, so a request can land one slot earlier in the results than in
// the count, never later; comparing running totals (results through slot s
// against sends through slot s) absorbs that. A result that still arrives
// after its second was reported is added to the reported Stats, all but
// its latency.
type seconds struct {
	c       *collector
	width   time.Duration
	n       int // buckets in the profile
	live    map[int]*Aggregate
	pool    []*Aggregate
	recv    []int64 // results per slot
	next    int     // next slot to close
	cumRecv int64   // results in closed slots
	cumSent int64   // sends in closed slots
	done    []bench.Bucket
}

func newSeconds(c *collector, width time.Duration) *seconds {
	profile := c.sched.end - c.sched.warm
	return &seconds{c: c, width: width, n: int((profile + width - 1) / width), live: map[int]*Aggregate{}}
}

func (s *seconds) slotOf(off time.Duration) int {
	if off < 0 {
		return 0
	}
	return min(int(off/s.width), s.n-1) + 1
}

// add files a result sent off from t0.
func (s *seconds) add(r *vegeta.Result, off time.Duration) {
	slot := s.slotOf(off)
	for len(s.recv) <= slot {
		s.recv = append(s.recv, 0)
	}
	s.recv[slot]++
	if slot == 0 {
		return
	}
	b := slot - 1
	if b < len(s.done) {
		patchStats(&s.done[b].Stats, r)
		return
	}
	agg := s.live[b]
	if agg == nil {
		agg = s.get()
		s.live[b] = agg
	}
	agg.Add(r)
}

func (s *seconds) get() *Aggregate {
	if n := len(s.pool); n > 0 {
		agg := s.pool[n-1]
		s.pool = s.pool[:n-1]
		return agg
	}
	return NewAggregate(s.c.maxErrors)
}

func (s *seconds) recvIn(slot int) int64 {
	if slot < len(s.recv) {
		return s.recv[slot]
	}
	return 0
}

// slotEnd returns when a slot's sending time is over.
func (s *seconds) slotEnd(slot int) time.Time {
	profile := s.c.sched.end - s.c.sched.warm
	return s.c.t0.Add(min(time.Duration(slot)*s.width, profile))
}

// nextEnd returns when the next slot to close is over (far ahead when all
// are closed).
func (s *seconds) nextEnd() time.Time {
	if s.next > s.n {
		return s.c.t0.Add(24 * time.Hour)
	}
	return s.slotEnd(s.next)
}

// close reports the seconds that are complete at now; final reports all
// measured ones regardless (the attack is over, every result is in).
func (s *seconds) close(now time.Time, final bool) {
	last := s.n
	if final {
		last = int((s.c.measured() + s.width - 1) / s.width)
	}
	for ; s.next <= last; s.next++ {
		slot := s.next
		if !final && now.Before(s.slotEnd(slot)) {
			return
		}
		recv, sent := s.cumRecv+s.recvIn(slot), s.cumSent+s.c.tgt.sentIn(slot)
		if !final && recv < sent {
			return
		}
		s.cumRecv, s.cumSent = recv, sent
		if slot > 0 {
			s.report(slot-1, final)
		}
	}
}

// report summarises bucket b, keeps it and tells the observer.
func (s *seconds) report(b int, final bool) {
	span := s.c.sched.end - s.c.sched.warm
	if final {
		span = s.c.measured()
	}
	start := time.Duration(b) * s.width
	elapsed := min(s.width, span-start)
	agg := s.live[b]
	delete(s.live, b)
	if agg == nil {
		agg = s.get()
	}
	bucket := bench.Bucket{Second: b, Stage: s.c.stageAt(start), Stats: agg.Stats(elapsed), Scheduled: s.scheduled(start, start+elapsed)}
	agg.Reset()
	s.pool = append(s.pool, agg)
	s.done = append(s.done, bucket)
	if s.c.obs.Second != nil {
		s.c.obs.Second(bucket)
	}
}

// scheduled returns the open requests due between two offsets from t0.
func (s *seconds) scheduled(from, to time.Duration) float64 {
	w := s.c.sched.warm
	return s.c.sched.hitsBy(w+to) - s.c.sched.hitsBy(w+from)
}
