package load

import (
	"math"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/threadbench/threadbench/internal/hdr"
)

// How the open model sizes its connections. A request holds a connection
// for its service time (from the actual send to its answer), so by
// Little's law a rate of λ requests/s keeps n = λ × W of them busy on
// average, W the mean service time, measured during the attack itself
// (the hold). The count in flight varies around n by about its square
// root (a Poisson count; the Go target answers in bursts), so the limit
// is n + 3√n, at least fewestConnections and at most the cap: headroom
// from the rate's own variability, not a factor on a guess. Not λ × p99:
// the Go target's tail is its stalls, and room for a stall's requests is
// room for its backlog, which slowed the target (bench.sh ceiling here:
// 143 to 323 connections from the p99 and the target completed 29,000
// req/s of 36,500 offered, where 64 completed 48,000). The limit is set
// at the end of every interval of at least sizeEvery and minSizingSamples
// answers, for the offered rate then, and raised at once when a request
// finds every connection busy and the rate needs more (a step or a ramp
// up). Before the first interval the hold is guessed: the slowest
// request's duration parameter plus two round trips of the measured
// handshake (expectedLatency); the first interval replaces it.
//
// After that only a calm interval moves the hold: one whose median service
// time is within queueSlack of the calm median (the lowest of the calm
// intervals over the last calmWindow). It moves to the interval's mean,
// but at most doubles, so that one stall does not hand the target
// hundreds of connections. An interval whose median rose beyond that found
// the target slower at everything it does, not just in its tail: it
// queues what it is given, or lost its CPU to something else. Its service
// time is the queue's, and Little's law on it would call for more
// connections, which lengthen the queue, which calls for more (it runs
// away to the cap: a backlog spread over hundreds of connections slowed
// the one-CPU Go target itself, bench.sh ceiling on an Intel Xeon: 492
// connections, 0.59x of wrk's rate completed, p99 7 s; here, after 3 s of
// a CPU hog beside it, 464 connections held it at 20,000-25,000 req/s
// where 16 had carried 45,000). So the hold stays as it was: the backlog
// waits in the generator, its latency still running from its due time,
// the window is flagged connection-bound, and the target works through it
// with the connections it needed when calm. A target that serves side by
// side and only varies (a sleeping endpoint on a busy machine) keeps its
// median, and its hold follows. The calm median is the lowest over a
// window, so that a queue that grows a little each interval is not taken
// for calm.
//
// Held so, a target slower at a higher rate only because it is busier
// (the one-CPU Go target at 48,000 req/s of its 55,000: a median past
// twice the 16,000's) kept the connections of the calm rate: 25, which at
// its busier service time carry 42,000 req/s, and the stage and every one
// after it fell behind (bench.sh ceiling run 9: 0.525 of wrk, where 64
// connections reached 0.920). So while slowed and requests wait for a
// connection, the limit climbs, by what it would take to be sure: a step
// of √limit (at least two) is tried for climbTrial intervals and kept only
// if the target completed more in each of them than in the best of the
// climbBase intervals before it, by at least half the step's share (the
// gain a target bound by the connections alone would show in full; a
// saturated one shows none, and its noise must beat the best of three
// twice running: compared with the one interval before, a target serving 4
// at a time was handed 178 connections a step at a time, its rate's noise
// of a few per cent passing the ever smaller half share of steps from a
// larger limit). A step not kept is taken back, and the climb rests for
// climbRest. The climb's limit holds while the target stays slowed; a
// calm interval ends it. Measured, not guessed: a saturated target is
// never handed more than one step over what it used.
const (
	sizeEvery        = 100 * time.Millisecond
	minSizingSamples = 100
	queueSlack       = 2.0
	calmWindow       = 10 * time.Second
	climbRest        = time.Second
	climbTrial       = 2
	climbBase        = 3
	// climbWaited is the share of an interval's answers that waited for a
	// connection from which the limit climbs.
	climbWaited = 0.01
)

// fewestConnections is the limit's floor: at a low rate n + 3√n is a
// handful, and a moment's jitter of the target would make requests wait.
// (Sixteen carried the one-CPU Go target at 45,000 req/s here.)
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
	hold     time.Duration // the mean service time in use
	calm     []calmMedian  // the medians of the calm intervals within calmWindow
	measured bool          // the guess was replaced

	// the climb while slowed: the limit it reached, the step on trial, when
	// it may step again, and the rates of answers (per second) of the last
	// intervals at the limit in use (at most climbBase)
	climbed   int
	trial     *climbStep
	restUntil time.Duration
	recent    []float64
	recentAt  int

	// the interval being measured
	from    time.Duration
	service *hdrhistogram.Histogram
	waited  int64 // answers that waited for a connection
}

// climbStep is a step of the climb on trial: the limit it was taken from,
// the best rate of answers (per second) of the intervals before it, and
// those of the intervals on trial.
type climbStep struct {
	from  int
	base  float64
	rates []float64
}

// calmMedian is the median service time of a calm interval, and when it
// ended.
type calmMedian struct {
	at, median time.Duration
}

func newConnSizer(s sizing) *connSizer {
	return &connSizer{sizing: s, hold: s.prior, service: newLagHistogram()}
}

// need is the connection limit the offered rate (requests/s) calls for at
// the hold in use: n + 3√n, n = rate × hold, within fewestConnections and
// the cap.
func (s *connSizer) need(rate float64) int {
	if s.fixed {
		return s.cap
	}
	n := rate * s.hold.Seconds()
	return min(max(int(math.Ceil(n+3*math.Sqrt(n))), fewestConnections, s.climbed), s.cap)
}

// observe adds a request answered at now (attack clock) after service,
// and whether it waited for a connection. It reports true at the end of
// an interval: the pool is to call settle.
func (s *connSizer) observe(now, service time.Duration, waited bool) bool {
	if s.fixed {
		return false
	}
	hdr.Record(s.service, service)
	if waited {
		s.waited++
	}
	return now-s.from >= sizeEvery && s.service.TotalCount() >= minSizingSamples
}

// settle ends the interval at now and returns the connection limit for
// what follows at the offered rate, limit the one in use. A calm interval
// moves the hold to its mean, at most doubling it (the first replaces the
// guess), and ends a climb; a slowed one climbs.
func (s *connSizer) settle(now time.Duration, rate float64, limit int) int {
	mean := time.Duration(s.service.Mean() * float64(time.Microsecond))
	median := time.Duration(s.service.ValueAtQuantile(50)) * time.Microsecond
	answers, waited := s.service.TotalCount(), s.waited
	done := float64(answers) / max(now-s.from, time.Millisecond).Seconds()
	s.service.Reset()
	s.from, s.waited = now, 0
	switch calm := s.calmMedian(now); {
	case !s.measured:
		s.hold, s.measured = mean, true
	case float64(median) > float64(calm)*queueSlack:
		// slowed: the hold stays, and the median is not a calm one
		return s.climb(now, rate, limit, done, float64(waited) >= climbWaited*float64(answers))
	default:
		s.hold = min(mean, 2*s.hold)
	}
	s.climbed, s.trial = 0, nil
	s.addCalm(now, median)
	return s.need(rate)
}

// climb is the limit after a slowed interval that answered done requests
// a second at limit, waiting for connections or not: a step on trial for
// climbTrial intervals is kept if each raised done past the best before it
// by half its share, else taken back; and while requests wait, the next
// step is tried once climbBase intervals at the limit are known.
func (s *connSizer) climb(now time.Duration, rate float64, limit int, done float64, waiting bool) int {
	if s.recentAt != limit {
		s.recent, s.recentAt = s.recent[:0], limit
	}
	if t := s.trial; t != nil {
		if t.rates = append(t.rates, done); len(t.rates) < climbTrial {
			return max(limit, s.need(rate))
		}
		s.trial = nil
		if gain := float64(limit-t.from) / float64(t.from); slices.Min(t.rates) < t.base*(1+gain/2) {
			s.climbed, s.restUntil = t.from, now+climbRest
			return s.need(rate)
		}
		s.climbed = limit
		s.recent = append(s.recent[:0], t.rates...)
	} else if s.recent = append(s.recent, done); len(s.recent) > climbBase {
		s.recent = s.recent[1:]
	}
	if need := s.need(rate); !waiting || now < s.restUntil || limit < need || limit >= s.cap || len(s.recent) < climbBase {
		return need // the climb's limit, if it is above the hold's need
	}
	s.trial = &climbStep{from: limit, base: slices.Max(s.recent)}
	return min(limit+max(2, int(math.Ceil(math.Sqrt(float64(limit))))), s.cap)
}

// addCalm keeps the median of a calm interval that ended at now, and
// forgets those older than calmWindow.
func (s *connSizer) addCalm(now, median time.Duration) {
	kept := s.calm[:0]
	for _, c := range s.calm {
		if now-c.at < calmWindow {
			kept = append(kept, c)
		}
	}
	s.calm = append(kept, calmMedian{at: now, median: median})
}

// calmMedian is the lowest median of the calm intervals within calmWindow
// of now, or the last one's when all are older; 0 before the first.
func (s *connSizer) calmMedian(now time.Duration) time.Duration {
	if len(s.calm) == 0 {
		return 0
	}
	low := s.calm[len(s.calm)-1].median
	for _, c := range s.calm {
		if now-c.at < calmWindow {
			low = min(low, c.median)
		}
	}
	return low
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
