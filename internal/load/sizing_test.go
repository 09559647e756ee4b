package load

import (
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The open model's connections: enough for the highest rate at the
// slowest request's expected latency twice over, the network's part of it
// measured by a handshake when it could be.
func TestOpenConnections(t *testing.T) {
	light := bench.Request{Endpoint: "light", Weight: 1}
	heavy20 := bench.Request{Endpoint: "heavy", Params: map[string]string{"duration": "20"}, Weight: 1}
	plan := func(rate float64, conns int, reqs ...bench.Request) bench.Plan {
		return bench.Plan{
			Workload: bench.Workload{Requests: reqs},
			Profile:  bench.Profile{Model: bench.ModelOpen, Connections: conns, Stages: []bench.Stage{{Duration: bench.Duration(time.Second), Rate: rate}}},
			Warmup:   bench.Warmup{Duration: bench.Duration(time.Second), Rate: 500},
		}
	}
	for _, tc := range []struct {
		name string
		plan bench.Plan
		rtt  time.Duration
		want int
	}{
		// 96,000/s × (2 ms) × 2 + 64: a handshake on loopback is far below 2 ms.
		{"local target", plan(96000, 0, light), 50 * time.Microsecond, 448},
		// 96,000/s × 10 ms × 2 + 64, the guess when nothing was measured.
		{"not measured", plan(96000, 0, light), 0, 1984},
		// 2,000/s × (20 ms slept + 2 ms) × 2 + 64.
		{"slow request", plan(2000, 0, light, heavy20), 50 * time.Microsecond, 152},
		// 2,000/s × (2 × 20 ms) × 2 + 64: a far target's round trips count.
		{"far target", plan(2000, 0, light), 20 * time.Millisecond, 224},
		// The warm-up's rate counts when it is the highest.
		{"warm-up highest", plan(100, 0, light), 50 * time.Microsecond, 66},
		{"the plan's", plan(96000, 300, light), 50 * time.Microsecond, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := NewEngine().openConnections(tc.plan, restLatency(tc.rtt)), min(tc.want, MaxConnections()); got != want {
				t.Errorf("openConnections = %d, want %d", got, want)
			}
		})
	}
}

// service records n answers of d each, at times from `at` on, into s, and
// reports whether an interval closed.
func service(s *connSizer, at time.Duration, n int, d time.Duration, waited bool) bool {
	closed := false
	for range n {
		closed = s.observe(at, d, waited) || closed
	}
	return closed
}

// The open model's limit: Little's law at the p99 service time of the
// last interval that counts, within the floor and the cap.
func TestConnSizer(t *testing.T) {
	free := sizing{cap: 4096, prior: 2 * time.Millisecond}
	t.Run("prior until measured", func(t *testing.T) {
		s := newConnSizer(free)
		// 60,000/s × 2 ms; 1,000/s × 2 ms is below the floor.
		if got, want := s.need(60000), 120; got != want {
			t.Errorf("need(60000) = %d, want %d", got, want)
		}
		if got, want := s.need(1000), fewestConnections; got != want {
			t.Errorf("need(1000) = %d, want the floor %d", got, want)
		}
	})
	t.Run("an interval needs its samples and its time", func(t *testing.T) {
		s := newConnSizer(free)
		if service(s, 50*time.Millisecond, 500, time.Millisecond, false) {
			t.Error("an interval closed after 50 ms")
		}
		if service(s, 200*time.Millisecond, 1, time.Millisecond, false) != true {
			t.Error("no interval closed after 200 ms and 501 answers")
		}
		s2 := newConnSizer(free)
		if service(s2, time.Second, minSizingSamples-1, time.Millisecond, false) {
			t.Errorf("an interval closed after %d answers", minSizingSamples-1)
		}
	})
	t.Run("p99, not the mean", func(t *testing.T) {
		s := newConnSizer(free)
		// 98 at 1 ms and 2 at 4 ms: the p99 is 4 ms, the mean 1.06 ms.
		service(s, 0, 98, time.Millisecond, false)
		service(s, time.Second, 2, 4*time.Millisecond, false)
		if got, want := s.need(60000), 240; got < want-3 || got > want+3 {
			t.Errorf("need(60000) = %d, want 60,000/s × 4 ms = %d", got, want)
		}
	})
	for _, tc := range []struct {
		name          string
		fastest, tail time.Duration // of the second interval, which waited: its min and p99
		want          int           // need(10000) after it
	}{
		// the target answered as fast as before: the waits were the pool's
		{"waited, as fast", 3 * time.Millisecond, 3 * time.Millisecond, 30},
		// 10,000/s × 1 ms: the floor
		{"waited, faster", time.Millisecond, time.Millisecond, fewestConnections},
		// its fastest as before, a longer tail: it serves side by side
		// and varies (a sleep on a busy machine); more connections help
		{"waited, a longer tail", 3 * time.Millisecond, 5 * time.Millisecond, 50},
		// every answer slower, the fastest too: the requests queued in
		// the target; the hold stays
		{"waited, queued", 20 * time.Millisecond, 25 * time.Millisecond, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newConnSizer(free)
			service(s, time.Second, minSizingSamples, 3*time.Millisecond, false)
			service(s, 2*time.Second, minSizingSamples-10, tc.fastest, true)
			service(s, 2*time.Second, 10, tc.tail, true)
			if got := s.need(10000); got < tc.want-1 || got > tc.want+1 {
				t.Errorf("need(10000) = %d, want %d", got, tc.want)
			}
		})
	}
	t.Run("the first measurement counts, waits or not", func(t *testing.T) {
		s := newConnSizer(free)
		service(s, time.Second, minSizingSamples, 50*time.Millisecond, true)
		if got, want := s.need(2000), 100; got < want-1 || got > want+1 {
			t.Errorf("need(2000) = %d, want 2,000/s × 50 ms = %d", got, want)
		}
	})
	t.Run("within the cap", func(t *testing.T) {
		s := newConnSizer(sizing{cap: 50, prior: time.Second})
		if got := s.need(1000); got != 50 {
			t.Errorf("need(1000) = %d, want the cap 50", got)
		}
	})
	t.Run("fixed", func(t *testing.T) {
		s := newConnSizer(sizing{fixed: true, cap: 64})
		if service(s, time.Second, 1000, time.Millisecond, false) || s.need(100000) != 64 || s.need(1) != 64 {
			t.Errorf("a named count moved: need %d and %d", s.need(100000), s.need(1))
		}
	})
}

// The first limit and the primed connections: the highest rate due while
// primed connections are kept, at the prior.
func TestPeakRateWithin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stages []bench.Stage
		warmup bench.Warmup
		want   float64
	}{
		{"hold", []bench.Stage{{Duration: sec(20), Rate: 8000}}, bench.Warmup{Disabled: true}, 8000},
		// a step after primedMaxAge is not counted
		{"late step", []bench.Stage{{Duration: sec(8), Rate: 100}, {Duration: sec(8), Rate: 9000}}, bench.Warmup{Disabled: true}, 100},
		{"early step", []bench.Stage{{Duration: sec(2), Rate: 100}, {Duration: sec(8), Rate: 9000}}, bench.Warmup{Disabled: true}, 9000},
		// a ramp from 0 to 10,000 over 10 s reaches 5,000 at 5 s
		{"ramp", []bench.Stage{{Duration: sec(10), Rate: 10000, Ramp: true}}, bench.Warmup{Disabled: true}, 5000},
		{"warm-up", []bench.Stage{{Duration: sec(10), Rate: 300}}, bench.Warmup{Duration: sec(3), Rate: 500}, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sched := newSchedule(bench.Profile{Model: bench.ModelOpen, Stages: tc.stages}, tc.warmup)
			if got := peakRateWithin(sched, primedMaxAge); math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("peakRateWithin = %g, want %g", got, tc.want)
			}
		})
	}
}

// The pool's tokens: the limit bounds the requests in flight, rises at
// once and falls only by tokens no request holds.
func TestOpenPoolLimit(t *testing.T) {
	p := &openPool{conns: make(chan struct{}, 8)}
	acquire := func() bool {
		select {
		case p.conns <- struct{}{}:
			return true
		default:
			return false
		}
	}
	inFlight := func(want int) {
		t.Helper()
		for i := range want {
			if !acquire() {
				t.Fatalf("token %d of %d refused at limit %d", i+1, want, p.limit.Load())
			}
		}
		if acquire() {
			t.Fatalf("token %d taken at limit %d", want+1, p.limit.Load())
		}
	}
	p.setLimitLocked(3)
	inFlight(3)
	p.setLimitLocked(5) // 3 in flight: two more
	inFlight(2)
	p.setLimitLocked(2) // 5 in flight: nothing to retire yet
	if got := p.limit.Load(); got != 5 {
		t.Errorf("limit %d with 5 in flight, want 5 until they come back", got)
	}
	<-p.conns
	<-p.conns
	<-p.conns // 2 in flight
	p.setLimitLocked(2)
	if got := p.limit.Load(); got != 2 {
		t.Errorf("limit %d, want 2", got)
	}
	inFlight(0)
	p.setLimitLocked(100) // within the cap
	if got := p.limit.Load(); got != 8 {
		t.Errorf("limit %d, want the cap 8", got)
	}
	inFlight(6)
}
