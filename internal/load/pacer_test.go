package load

import (
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// ratePacer drives a schedule the way a pacer would: request k goes out
// when the integral of the rate reaches k, at once when running late.
type ratePacer struct{ s *schedule }

func newRatePacer(profile bench.Profile, warmup bench.Warmup) *ratePacer {
	profile.Model = bench.ModelOpen
	return &ratePacer{s: newSchedule(profile, warmup)}
}

func (p *ratePacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	due, ok := p.s.due(hits)
	if !ok || due >= p.s.end {
		return 0, true
	}
	return max(due-elapsed, 0), false
}

func (p *ratePacer) Rate(elapsed time.Duration) float64 { return p.s.rate(elapsed) }
func (p *ratePacer) Hits(elapsed time.Duration) float64 { return p.s.hitsBy(elapsed) }
func (p *ratePacer) Duration() time.Duration            { return p.s.end }

func sec(s float64) bench.Duration { return bench.Duration(s * float64(time.Second)) }

func hold(s, rate float64) bench.Stage { return bench.Stage{Duration: sec(s), Rate: rate} }

func ramp(s, rate float64) bench.Stage { return bench.Stage{Duration: sec(s), Rate: rate, Ramp: true} }

// simulate runs the pacer the way vegeta does, with a perfect clock: wait,
// send, ask again. It returns the send times.
func simulate(t *testing.T, p *ratePacer) []time.Duration {
	t.Helper()
	var sends []time.Duration
	var elapsed time.Duration
	for hits := uint64(0); ; hits++ {
		wait, stop := p.Pace(elapsed, hits)
		if stop {
			return sends
		}
		if wait < 0 {
			t.Fatalf("Pace(%s, %d) waits %s", elapsed, hits, wait)
		}
		elapsed += wait
		sends = append(sends, elapsed)
		if len(sends) > 10_000_000 {
			t.Fatal("pacer never stops")
		}
	}
}

// countIn counts sends in [from, to).
func countIn(sends []time.Duration, from, to time.Duration) int {
	n := 0
	for _, s := range sends {
		if s >= from && s < to {
			n++
		}
	}
	return n
}

func TestRatePacerHitCounts(t *testing.T) {
	tests := []struct {
		name   string
		warmup bench.Warmup
		stages []bench.Stage
		want   []float64 // requests per stage (warm-up first when set): the integral of the rate
	}{
		// smoke: 10 s at 50 req/s.
		{"hold", bench.Warmup{Disabled: true}, []bench.Stage{hold(10, 50)}, []float64{500}},
		// a ramp from 0 starts slowly: 0 -> 200 over 5 s.
		{"ramp from 0", bench.Warmup{Disabled: true}, []bench.Stage{ramp(5, 200)}, []float64{500}},
		// a ramp down to 0 ends on a trickle.
		{"ramp to 0", bench.Warmup{Disabled: true}, []bench.Stage{hold(2, 300), ramp(6, 0)}, []float64{600, 900}},
		// the seed shape at scale 0.1: 100 -> 300 -> 500 -> 300 -> 0.
		{"seed ramps", bench.Warmup{Disabled: true},
			[]bench.Stage{ramp(6, 100), ramp(12, 300), ramp(18, 500), ramp(12, 300), ramp(6, 0)},
			[]float64{300, 2400, 7200, 4800, 900}},
		// a hold at 0 in the middle is skipped, not stalled on.
		{"zero hold", bench.Warmup{Disabled: true}, []bench.Stage{hold(2, 100), hold(3, 0), hold(2, 100)}, []float64{200, 0, 200}},
		// a profile starting at rate 0 waits for the first positive rate.
		{"starts at zero", bench.Warmup{Disabled: true}, []bench.Stage{hold(1, 0), ramp(4, 100)}, []float64{0, 200}},
		// the warm-up is the first segment; the first stage's ramp starts from 0, not from the warm-up rate.
		{"warm-up then ramp", bench.Warmup{Duration: sec(4), Rate: 50}, []bench.Stage{ramp(4, 400)}, []float64{200, 800}},
		// a fractional rate.
		{"slow", bench.Warmup{Disabled: true}, []bench.Stage{hold(20, 2.5)}, []float64{50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newRatePacer(bench.Profile{Stages: tt.stages}, tt.warmup)
			sends := simulate(t, p)
			bounds := []time.Duration{0}
			if !tt.warmup.Disabled {
				bounds = append(bounds, tt.warmup.Duration.D())
			}
			for _, st := range tt.stages {
				bounds = append(bounds, bounds[len(bounds)-1]+st.Duration.D())
			}
			for i, want := range tt.want {
				got := float64(countIn(sends, bounds[i], bounds[i+1]))
				t.Logf("segment %d: %.0f requests, integral %.0f", i, got, want)
				// 0.5%, or one request where the count is small
				if diff := math.Abs(got - want); diff > math.Max(want*0.005, 1) {
					t.Errorf("segment %d: %.0f requests, want %.0f (off by %.2f%%)", i, got, want, diff/want*100)
				}
			}
			if got, want := float64(len(sends)), p.Hits(p.Duration()); math.Abs(got-want) > math.Max(want*0.005, 1) {
				t.Errorf("total %.0f requests, want %.0f", got, want)
			}
		})
	}
}

func TestRatePacerRate(t *testing.T) {
	p := newRatePacer(bench.Profile{Stages: []bench.Stage{ramp(10, 100), hold(5, 100), hold(5, 0), ramp(10, 300), ramp(10, 0)}},
		bench.Warmup{Duration: sec(5), Rate: 20})
	tests := []struct {
		at   float64 // seconds since the attack began
		want float64 // req/s
	}{
		{0, 20},   // warm-up
		{4.9, 20}, // still warm-up
		{5, 0},    // the ramp starts from 0
		{10, 50},  // half-way up
		{17, 100}, // hold
		{22, 0},   // hold at 0
		{25, 0},   // ramp from 0
		{30, 150}, // half-way
		{40, 150}, // half-way down
		{45, 0},   // the end
		{100, 0},  // after the end
	}
	for _, tt := range tests {
		if got := p.Rate(time.Duration(tt.at * float64(time.Second))); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Rate(%gs) = %g, want %g", tt.at, got, tt.want)
		}
	}
}

func TestRatePacerRunningLate(t *testing.T) {
	p := newRatePacer(bench.Profile{Stages: []bench.Stage{hold(10, 100)}}, bench.Warmup{Disabled: true})
	// 3 s in with only 10 requests sent: the generator owes 290, so no wait.
	if wait, stop := p.Pace(3*time.Second, 10); wait != 0 || stop {
		t.Errorf("Pace when late = (%s, %t), want (0, false)", wait, stop)
	}
	// on time: the 301st request is due at 3.01 s.
	if wait, _ := p.Pace(3*time.Second, 301); wait != 10*time.Millisecond {
		t.Errorf("Pace when on time waits %s, want 10ms", wait)
	}
	if _, stop := p.Pace(10*time.Second, 1000); !stop {
		t.Error("Pace after the last request does not stop")
	}
}
