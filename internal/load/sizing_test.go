package load

import (
	"math"
	"math/rand/v2"
	"slices"
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

// interval records an interval's 100 answers into s and settles it at
// the attack clock `at` for the offered rate: fast of them taking d, the
// others slow. With fast above 50, d is the median.
func interval(s *connSizer, at time.Duration, fast int, d, slow time.Duration, rate float64) int {
	for i := range minSizingSamples {
		took := slow
		if i < fast {
			took = d
		}
		s.observe(at, took, false)
	}
	return s.settle(at, rate, s.need(rate))
}

// The open model's limit: n + 3√n for n = the offered rate times the
// hold, within the floor and the cap.
func TestConnSizerNeed(t *testing.T) {
	s := newConnSizer(sizing{cap: 4096, prior: 2 * time.Millisecond})
	for _, tc := range []struct {
		rate float64
		want int
	}{
		{60000, 153},              // 120 + 3√120
		{8000, 28},                // 16 + 3√16
		{1000, fewestConnections}, // 2 + 3√2 is below the floor
		{4_000_000, 4096},         // the cap
	} {
		if got := s.need(tc.rate); got != tc.want {
			t.Errorf("need(%g) = %d, want %d", tc.rate, got, tc.want)
		}
	}
	fixed := newConnSizer(sizing{fixed: true, cap: 64})
	if fixed.observe(time.Second, time.Millisecond, false) || fixed.need(100000) != 64 || fixed.need(1) != 64 {
		t.Errorf("a named count moved: need %d and %d", fixed.need(100000), fixed.need(1))
	}
}

// An interval closes after sizeEvery and minSizingSamples answers.
func TestConnSizerInterval(t *testing.T) {
	s := newConnSizer(sizing{cap: 4096, prior: 2 * time.Millisecond})
	for range 500 {
		if s.observe(50*time.Millisecond, time.Millisecond, false) {
			t.Fatal("an interval closed after 50 ms")
		}
	}
	if !s.observe(200*time.Millisecond, time.Millisecond, false) {
		t.Error("no interval closed after 200 ms and 501 answers")
	}
	s = newConnSizer(sizing{cap: 4096, prior: 2 * time.Millisecond})
	for range minSizingSamples - 1 {
		if s.observe(time.Second, time.Millisecond, false) {
			t.Fatalf("an interval closed before %d answers", minSizingSamples)
		}
	}
}

// The hold: the first interval's mean replaces the guess; after it a
// calm interval's mean, at most twice the hold before; an interval whose
// median is over twice the calm one leaves it as it was.
func TestConnSizerHold(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name      string
		fast      int
		d, slow   time.Duration
		intervals int
		want      time.Duration // after a first interval at 1 ms, its mean
	}{
		{"faster", 100, 500 * time.Microsecond, 0, 1, 500 * time.Microsecond},
		// 90 at 1 ms and 10 at 4 ms: the mean, 1.3 ms, not the p99
		{"the mean, not the p99", 90, ms, 4 * ms, 1, 1300 * time.Microsecond},
		// one stall doubles the hold: 90 at 1 ms and 10 at 100 ms have a
		// mean of 10.9 ms
		{"a stall", 90, ms, 100 * ms, 1, 2 * ms},
		// a slower target that stays is reached, doubling
		{"slower for good", 90, 1500 * time.Microsecond, 25 * ms, 4, 3850 * time.Microsecond},
		// the median within twice the calm one: the target varies
		{"a median 1.8 times", 100, 1800 * time.Microsecond, 0, 1, 1800 * time.Microsecond},
		// every answer slower, the median too: queued in the target, or
		// starved of its CPU; the hold stays
		{"slowed", 90, 5 * ms, 30 * ms, 3, ms},
		// some answered at once while most queue (the Go target holding
		// thousands of connections): slowed all the same
		{"slowed unfairly", 40, 100 * time.Microsecond, 40 * ms, 3, ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newConnSizer(sizing{cap: 4096, prior: 2 * ms})
			interval(s, time.Second, 100, ms, ms, 10000)
			var limit int
			for i := range tc.intervals {
				limit = interval(s, time.Duration(2+i)*time.Second, tc.fast, tc.d, tc.slow, 10000)
			}
			if math.Abs(float64(s.hold-tc.want)) > 0.02*float64(tc.want) {
				t.Errorf("hold %v, want %v", s.hold, tc.want)
			}
			if want := s.need(10000); limit != want {
				t.Errorf("limit %d, want the need %d", limit, want)
			}
		})
	}
	t.Run("the first interval replaces the guess", func(t *testing.T) {
		s := newConnSizer(sizing{cap: 4096, prior: 2 * ms})
		if got, want := interval(s, time.Second, 100, 50*ms, 50*ms, 2000), 130; got < want-1 || got > want+1 {
			t.Errorf("limit %d, want 2,000/s × 50 ms = 100, + 3√100: %d", got, want)
		}
		s = newConnSizer(sizing{cap: 4096, prior: 52 * ms})
		if got := interval(s, time.Second, 100, 200*time.Microsecond, 200*time.Microsecond, 2000); got != fewestConnections {
			t.Errorf("limit %d for a target answering in 0.2 ms, guessed at 52, want the floor", got)
		}
	})
	t.Run("a queue growing a little each interval is not calm", func(t *testing.T) {
		// medians of 1, 1.5, 1.9 and 2.5 ms, each within twice the one
		// before: the last is not within twice the lowest of the window.
		s := newConnSizer(sizing{cap: 4096, prior: 2 * ms})
		at := time.Second
		for _, median := range []time.Duration{1000, 1500, 1900, 2500} {
			interval(s, at, 100, median*time.Microsecond, 0, 10000)
			at += time.Second
		}
		if got, want := s.hold, 1900*time.Microsecond; math.Abs(float64(got-want)) > 0.02*float64(want) {
			t.Errorf("hold %v, want the 1.9 ms before the last, %v", got, want)
		}
		// calmWindow on, only the last calm median (1.9 ms) is left
		interval(s, at+calmWindow, 100, 2500*time.Microsecond, 0, 10000)
		if got, want := s.hold, 2500*time.Microsecond; math.Abs(float64(got-want)) > 0.02*float64(want) {
			t.Errorf("hold %v once the 1 ms median is older than calmWindow, want %v", got, want)
		}
	})
	t.Run("a cold start does not hold the calm median up", func(t *testing.T) {
		// A JVM's first answers take 200 ms, then 0.1 ms: the calm median
		// falls with them, and a queue at 2 ms medians is not calm.
		s := newConnSizer(sizing{cap: 4096, prior: 2 * ms})
		interval(s, time.Second, 100, 200*ms, 0, 1000)
		interval(s, 2*time.Second, 100, 100*time.Microsecond, 0, 1000)
		interval(s, 3*time.Second, 100, 2*ms, 0, 1000)
		if got, want := s.hold, 100*time.Microsecond; math.Abs(float64(got-want)) > 0.02*float64(want) {
			t.Errorf("hold %v, want the warm 0.1 ms, %v", got, want)
		}
	})
}

// The climb while slowed, against a model target: at limit connections it
// completes min(limit ÷ service, capacity) requests a second, every one
// having waited for a connection (a backlog), each taking service, over
// twice the calm median (0.25 ms at 16,000 req/s): the rate offered
// (48,000) is out of the calm hold's reach.
func TestConnSizerClimb(t *testing.T) {
	const calm, busy = 250 * time.Microsecond, 600 * time.Microsecond
	noise := rand.New(rand.NewPCG(1, 2))
	run := func(capacity float64, waiting bool, intervals int, noisy ...float64) (limits []int, s *connSizer) {
		s = newConnSizer(sizing{cap: 4096, prior: 2 * time.Millisecond})
		at := 100 * time.Millisecond
		limit := interval(s, at, 100, calm, calm, 16000)
		for range intervals {
			at += sizeEvery
			done := min(float64(limit)/busy.Seconds(), capacity)
			for _, n := range noisy { // uniform within ±n of the rate
				done *= 1 + n*(2*noise.Float64()-1)
			}
			for range int(done * sizeEvery.Seconds()) {
				s.observe(at, busy, waiting)
			}
			limit = s.settle(at, 48000, limit)
			limits = append(limits, limit)
		}
		return limits, s
	}
	first := newConnSizer(sizing{cap: 4096, prior: 2 * time.Millisecond})
	start := interval(first, 100*time.Millisecond, 100, calm, calm, 48000) // the calm hold's need at 48,000
	t.Run("bound by its connections", func(t *testing.T) {
		// 55,000 req/s take 55,000 × 0.6 ms = 33 connections: the climb
		// reaches them, and stops within a step past them.
		limits, _ := run(55000, true, 30)
		t.Logf("limits from %d: %v", start, limits)
		last := limits[len(limits)-1]
		if peak := slices.Max(limits); last < 33 || peak > 33+2*int(math.Ceil(math.Sqrt(33))) {
			t.Errorf("limit %d (peak %d), want 33 or more and within two steps of it", last, peak)
		}
	})
	t.Run("saturated", func(t *testing.T) {
		// The target completes no more at any limit: each step is taken
		// back, and the next waits climbRest.
		limits, s := run(float64(start)/busy.Seconds(), true, 30)
		t.Logf("limits from %d: %v", start, limits)
		step := start + max(2, int(math.Ceil(math.Sqrt(float64(start)))))
		if peak, last := slices.Max(limits), limits[len(limits)-1]; peak > step || last != start || s.climbed != start {
			t.Errorf("limits %v, want no more than one step (%d) over %d, and back to it", limits, step, start)
		}
		trials := 0
		for i, l := range limits {
			if l > start && (i == 0 || limits[i-1] == start) {
				trials++
			}
		}
		if want := int(30*sizeEvery/(climbRest+sizeEvery)) + 1; trials > want {
			t.Errorf("%d steps tried in 3 s, want %d at most: one a climbRest", trials, want)
		}
	})
	t.Run("saturated, its rate noisy", func(t *testing.T) {
		// ±6 % from one interval to the next, 60 s: no step is kept, where
		// steps judged on one interval against the one before were kept
		// now and then, and a limit of 59 reached 178.
		limits, _ := run(float64(start)/busy.Seconds(), true, 600, 0.06)
		step := start + max(2, int(math.Ceil(math.Sqrt(float64(start)))))
		if peak := slices.Max(limits); peak > step {
			t.Errorf("limit rose to %d, want no more than one step (%d) over %d", peak, step, start)
		}
	})
	t.Run("no backlog", func(t *testing.T) {
		// Slowed, but nothing waits for a connection: nothing to gain.
		limits, _ := run(55000, false, 10)
		if slices.Max(limits) != start {
			t.Errorf("limits %v, want %d throughout", limits, start)
		}
	})
	t.Run("a calm interval ends the climb", func(t *testing.T) {
		limits, s := run(55000, true, 30)
		at := time.Duration(len(limits)+2) * sizeEvery
		if got := interval(s, at, 100, calm, calm, 48000); got >= limits[len(limits)-1] || s.climbed != 0 {
			t.Errorf("limit %d after a calm interval (climbed %d), want the calm hold's need, under the climb's %d", got, s.climbed, limits[len(limits)-1])
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
// once, and falls by the free tokens at once and by the others as their
// requests come back.
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
	p.setLimitLocked(2) // 5 in flight: three owed
	if got, owed := p.limit.Load(), p.owed.Load(); got != 2 || owed != 3 {
		t.Errorf("limit %d, owed %d with 5 in flight; want 2 and 3", got, owed)
	}
	for range 4 {
		p.release() // three retire, the fourth frees a token
	}
	inFlight(1)           // 1 in flight and 1 taken: the limit 2
	p.setLimitLocked(100) // within the cap
	if got := p.limit.Load(); got != 8 {
		t.Errorf("limit %d, want the cap 8", got)
	}
	inFlight(6)
	// a limit owed and raised again before the requests came back
	p.setLimitLocked(4)
	p.setLimitLocked(6)
	if got, owed := p.limit.Load(), p.owed.Load(); got != 6 || owed != 2 {
		t.Errorf("limit %d, owed %d with 8 in flight; want 6 and 2", got, owed)
	}
}
