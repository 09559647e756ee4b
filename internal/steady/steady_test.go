package steady_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/threadbench/threadbench/internal/steady"
)

// noisy returns n seconds of level plus normal noise of sd, seeded.
func noisy(seed uint64, n int, level, sd float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = level + rng.NormFloat64()*sd
	}
	return x
}

// ramp is noisy seconds rising linearly from lo to hi over rampSeconds,
// then flat at hi.
func ramp(seed uint64, n, rampSeconds int, lo, hi, sd float64) []float64 {
	x := noisy(seed, n, 0, sd)
	for i := range x {
		level := hi
		if i < rampSeconds {
			level = lo + (hi-lo)*float64(i)/float64(rampSeconds)
		}
		x[i] += level
	}
	return x
}

// drift is noisy seconds moving by perSecond of level every second.
func drift(seed uint64, n int, level, perSecond, sd float64) []float64 {
	x := noisy(seed, n, 0, sd)
	for i := range x {
		x[i] += level * (1 + perSecond*float64(i))
	}
	return x
}

func withOutlier(x []float64, at int, factor float64) []float64 {
	x[at] *= factor
	return x
}

// coldStart is the stage (java-platform, 400 clients on
// heavy?duration=500 after a warm-up, per-second throughput): the first
// second, 7 req/s, is the cold start of new clients, not an odd second.
var coldStart = []float64{7, 398, 398, 399, 399, 400, 399, 386, 397, 399, 400, 399, 394, 400, 400}

// endingLow is flat noise whose last second loses half its answers, as the
// open model's last second does when the answers to its requests arrive
// after the end.
func endingLow(seed uint64) []float64 {
	x := noisy(seed, 20, 2400, 25)
	x[19] *= 0.5
	return x
}

// sagging is flat noise whose last three seconds fall away.
func sagging(seed uint64) []float64 {
	x := noisy(seed, 24, 2400, 25)
	for i, f := range []float64{0.8, 0.6, 0.4} {
		x[21+i] *= f
	}
	return x
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name      string
		series    []float64
		knee      int // the first steady second; -1 when the series has none
		endCut    int // the seconds cut at the end
		trendSign int // the sign of the trend when not steady
	}{
		// The JIT warm-up of the issue: 1,300 to 2,400 req/s over 8 s, then flat.
		{"ramp then flat", ramp(1, 30, 8, 1300, 2400, 25), 8, 0, 0},
		{"short ramp then flat", ramp(2, 20, 3, 1500, 2400, 25), 3, 0, 0},
		{"ramp then flat, other seed", ramp(3, 40, 12, 800, 2400, 30), 12, 0, 0},
		{"latency falling then flat", ramp(4, 30, 6, 40, 20, 0.4), 6, 0, 0},
		{"flat noise", noisy(5, 30, 2400, 25), 0, 0, 0},
		{"flat noise, other seed", noisy(6, 10, 2400, 40), 0, 0, 0},
		{"flat noise, 60 s", noisy(7, 60, 1000, 30), 0, 0, 0},
		// +1 %/s for 30 s: MSER alone would cut half and call the rest steady.
		{"slow drift up", drift(8, 30, 2000, 0.01, 20), -1, 0, 1},
		{"slow drift down", drift(9, 30, 2000, -0.008, 20), -1, 0, -1},
		// The ramp of the issue over a 10 s stage never flattens long enough.
		{"ramp the whole stage", []float64{1299, 1811, 1869, 1959, 2185, 2252, 2314, 2356, 2349, 2419}, -1, 0, 1},
		{"outlier second in the middle", withOutlier(noisy(10, 30, 2400, 25), 14, 0.3), 0, 0, 0},
		{"outlier second near the start", withOutlier(noisy(14, 30, 2400, 25), 1, 0.3), 0, 0, 0},
		// A deviation at either end is a transient (issue 34: Tukey's
		// end-point rule smoothed these away, and the stage's figure kept them).
		{"low first second", withOutlier(noisy(11, 30, 2400, 25), 0, 0.5), 1, 0, 0},
		{"cold first second of the issue", coldStart, 1, 0, 0},
		{"high last second", withOutlier(noisy(12, 20, 2400, 25), 19, 1.8), 0, 1, 0},
		{"last second losing half its answers", endingLow(15), 0, 1, 0},
		{"last three seconds falling away", sagging(16), 0, 3, 0},
		{"too short to judge", []float64{100, 2000, 2400}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := steady.Detect(tt.series, steady.Options{})
			if got, want := r.Steady, tt.knee >= 0; got != want {
				t.Fatalf("Steady = %v, want %v (cut %d and %d at the end, trend %+.2f %%/s)", got, want, r.Start, r.EndCut, r.Trend)
			}
			if got, want := r.EndCut, tt.endCut; got != want {
				t.Errorf("EndCut = %d, want %d", got, want)
			}
			if tt.knee >= 0 {
				if got, want := r.Start, tt.knee; math.Abs(float64(got-want)) > 1 {
					t.Errorf("Start = %d, want %d ± 1", got, want)
				}
				if tt.knee <= 1 && r.Start != tt.knee {
					t.Errorf("Start = %d, want exactly %d", r.Start, tt.knee)
				}
				return
			}
			if got, want := sign(r.Trend), tt.trendSign; got != want {
				t.Errorf("Trend = %+.2f %%/s, want sign %d", r.Trend, want)
			}
		})
	}
}

func TestDetectTrendValue(t *testing.T) {
	x := drift(13, 30, 2000, 0.01, 1)
	r := steady.Detect(x, steady.Options{})
	// What is kept starts higher than 2000, so its relative slope is a
	// little under 1 %/s: 20 req/s per second over a mean of about 2,200.
	if got, want := r.Trend, 20.0/2000*100; r.Steady || got > want || got < want*0.8 {
		t.Errorf("Steady = %v, Trend = %.3f %%/s, want not steady and within 20%% under %.3f", r.Steady, got, want)
	}
}

func TestDetectFlatNoiseManySeeds(t *testing.T) {
	cut := 0
	for seed := uint64(100); seed < 300; seed++ {
		if r := steady.Detect(noisy(seed, 20, 2400, 40), steady.Options{}); r.Start > 0 || r.EndCut > 0 || !r.Steady {
			cut++
		}
	}
	// At 3 standard errors a false cut (at either end) or flag is rare; 200
	// series may show a few.
	t.Logf("flat: %d of 200", cut)
	if got, limit := cut, 6; got > limit {
		t.Errorf("flat noise cut or flagged in %d of 200 series, want at most %d", got, limit)
	}
}

func TestCombine(t *testing.T) {
	tput := steady.Result{Start: 3, EndCut: 2, Seconds: 20, Steady: true, Judged: true, Trend: 0.1}
	p50 := steady.Result{Start: 5, EndCut: 1, Seconds: 20, Steady: false, Judged: true, Trend: -2}
	got := steady.Combine(tput, p50)
	if got.Start != 5 || got.EndCut != 2 || got.Steady || got.Trend != -2 {
		t.Errorf("Combine = %+v, want start 5, 2 cut at the end, not steady, trend -2", got)
	}
}

func TestMedian3(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		// A spike goes, a ramp stays.
		{"spike", []float64{1, 1, 9, 1, 1}, []float64{1, 1, 1, 1, 1}},
		{"ramp", []float64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 4, 5}},
		// An end has one neighbour: it is left for the cuts to judge.
		{"spike at the start", []float64{9, 1, 1, 1}, []float64{9, 1, 1, 1}},
		{"dip at the end", []float64{1, 1, 1, 0}, []float64{1, 1, 1, 0}},
		{"knee", []float64{1, 2, 3, 3, 3}, []float64{1, 2, 3, 3, 3}},
	}
	for _, tt := range tests {
		got := steady.Median3(tt.in)
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: Median3 = %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
}

func TestSlope(t *testing.T) {
	slope, se := steady.Slope([]float64{1, 3, 5, 7})
	if got, want := slope, 2.0; got != want {
		t.Errorf("Slope = %v, want %v", got, want)
	}
	if got, want := se, 0.0; got != want {
		t.Errorf("stdErr = %v, want %v", got, want)
	}
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func TestDetectRampManySeeds(t *testing.T) {
	off := 0
	for seed := uint64(300); seed < 500; seed++ {
		knee := 4 + int(seed%9)
		r := steady.Detect(ramp(seed, 30, knee, 1300, 2400, 30), steady.Options{})
		if !r.Steady || math.Abs(float64(r.Start-knee)) > 1 {
			off++
		}
	}
	t.Logf("ramp: %d of 200", off)
	if got, limit := off, 6; got > limit {
		t.Errorf("ramp then flat: cut off the knee by more than 1 s (or flagged) in %d of 200 series, want at most %d", got, limit)
	}
}

// TestDetectEndsManySeeds: a first second at a fifth of the level (a cold
// start) and a last second at half of it (answers lost to the end) are cut,
// each exactly, in nearly every series of flat noise.
func TestDetectEndsManySeeds(t *testing.T) {
	off := 0
	for seed := uint64(500); seed < 700; seed++ {
		x := noisy(seed, 20, 2400, 40)
		x[0] *= 0.2
		x[19] *= 0.5
		if r := steady.Detect(x, steady.Options{}); !r.Steady || r.Start != 1 || r.EndCut != 1 {
			off++
		}
	}
	t.Logf("ends: %d of 200", off)
	if got, limit := off, 6; got > limit {
		t.Errorf("a cold first and a short last second not cut exactly in %d of 200 series, want at most %d", got, limit)
	}
}
