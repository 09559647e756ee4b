package load

import (
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/hdr"
)

// How the open model sizes its connections. A request holds a connection
// for its service time (from the actual send to its answer), so by
// Little's law a rate of λ requests/s keeps λ × W of them busy, W the mean
// service time. The pool takes W at the service time's 99th percentile
// instead of its mean, measured during the attack itself: if every
// request held its connection as long as the slowest 1 % do, λ × p99
// connections would be busy, so a target that answers as it did never
// makes a request wait; the distance from the mean to the p99 is the
// headroom, and it is the target's own variability, not a factor. The
// limit is set again at the end of every interval of at least sizeEvery
// and minSizingSamples answers, to what the offered rate needs at the p99
// of the last interval that counts, and raised at once when a request
// finds every connection busy and the offered rate needs more than the
// limit (a step or a ramp up), never above the cap.
//
// An interval in which requests waited for a connection counts only if
// its fastest answer was no slower than unqueuedSlack times the fastest
// of the last interval without waits: a target that queues requests
// delays every one of them, the fastest too, while one that serves them
// side by side and only varies (a sleeping endpoint on a busy machine)
// still answers some as fast as ever. Giving a queueing target more
// connections would only spread its queue over them, lengthen its service
// time, and call for more again (Little's law on a service time that
// grows with the connections runs away to the cap): a backlog over
// hundreds of connections slowed the one-CPU Go target itself (bench.sh
// ceiling on an Intel Xeon: 492 connections, 0.59x of wrk's rate
// completed, p99 7 s). Its requests wait in the generator instead, their
// latency still running from their due time, and the window is flagged
// connection-bound. Before the first interval the hold is guessed: the
// slowest request's duration parameter plus two round trips of the
// measured handshake (expectedLatency); the first interval counts
// whatever it saw.
const (
	sizeEvery        = 100 * time.Millisecond
	minSizingSamples = 100
	unqueuedSlack    = 1.5
)

// fewestConnections is the limit's floor: at a low rate λ × p99 is one or
// two, and a moment's jitter of the target would make requests wait.
const fewestConnections = 16

// sizing bounds the open model's connections, as set before the clock.
type sizing struct {
	fixed bool          // the plan or the engine named the count: it does not move
	cap   int           // the most requests in flight at once
	prior time.Duration // how long a request holds a connection, until measured
}

// connSizer is the open model's connection limit following what the
// attack measures. The pool calls it under its lock.
type connSizer struct {
	sizing
	hold     time.Duration // the p99 service time in use
	measured bool          // hold was measured, not the prior
	unqueued time.Duration // the fastest answer of the last interval without waits (or the first)
	from     time.Duration // when the interval being measured began
	service  *hdrhistogram.Histogram
	waited   bool // a request of the interval waited for a connection
}

func newConnSizer(s sizing) *connSizer {
	return &connSizer{sizing: s, hold: s.prior, service: newLagHistogram()}
}

// need is the connection limit the offered rate (requests/s) calls for at
// the hold in use, within fewestConnections and the cap.
func (s *connSizer) need(rate float64) int {
	if s.fixed {
		return s.cap
	}
	n := int(math.Ceil(rate * s.hold.Seconds()))
	return min(max(n, fewestConnections), s.cap)
}

// observe adds the service time of a request answered at now (attack
// clock) and whether it waited for a connection; at the end of an
// interval it takes the interval's p99 as the hold if the interval
// counts, and reports true: the limit is due to be set again.
func (s *connSizer) observe(now, service time.Duration, waited bool) bool {
	if s.fixed {
		return false
	}
	hdr.Record(s.service, service)
	s.waited = s.waited || waited
	if now-s.from < sizeEvery || s.service.TotalCount() < minSizingSamples {
		return false
	}
	p99 := time.Duration(s.service.ValueAtQuantile(99)) * time.Microsecond
	fastest := time.Duration(s.service.Min()) * time.Microsecond
	switch {
	case !s.measured || !s.waited:
		s.hold, s.unqueued, s.measured = p99, fastest, true
	case float64(fastest) <= float64(s.unqueued)*unqueuedSlack:
		s.hold = p99 // waited, but not queued in the target: the pool was short
	}
	s.service.Reset()
	s.from, s.waited = now, false
	return true
}

// peakRateWithin is the highest open rate the schedule offers from its
// start until until: rates are linear within a segment, so the highest is
// at a segment's start or where it, or the span, ends.
func peakRateWithin(sched *schedule, until time.Duration) float64 {
	var peak float64
	for _, seg := range sched.segs {
		if seg.start >= until {
			break
		}
		end := min(seg.end(), until)
		peak = max(peak, seg.rateAt(seg.start), seg.rateAt(end))
	}
	return peak
}
