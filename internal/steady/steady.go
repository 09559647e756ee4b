// Package steady finds the steady part of a per-second series (a stage's
// throughput or p50, second by second): where the transient at its start
// ends, or that it has no steady part at all and how fast it trends.
//
// The method is MSER (White's Marginal Standard Error Rule, the transient
// detector of simulation output analysis) on seconds, followed by a slope
// test of what is kept:
//
//   - Each second is already the mean of hundreds or thousands of
//     responses, the role the batches of 5 observations play in MSER-5;
//     batching seconds again would cut only at multiples of 5 s, too coarse
//     for stages of 10 to 60 s (a JIT warm-up ends anywhere). So the batch
//     is one second (MSER-1).
//   - A single deviant second (a GC pause, a scheduler hiccup) inside the
//     series is not a transient: the series is first smoothed by a running
//     median of three, which removes single-second spikes and keeps ramps
//     and knees where they are. Its two ends are left as measured: a first
//     second far below the rest is where a transient lives (a cold start),
//     not an outlier, and Tukey's end-point rule, which smoothed it away,
//     kept a first second of 7 req/s in a stage of 398 (issue 34).
//   - MSER picks the cut d minimising SS(d)/(n-d)², the squared standard
//     error of the mean of what is kept, over d ≤ n/2. MSER tends to
//     overshoot a knee when quiet seconds follow it, so the cut then walks
//     back over the seconds already at the kept level (within 3 standard
//     deviations). A cut is kept only when the cut seconds differ from the
//     rest by more than noise (a z test at 3 standard errors) and by more
//     than MinShift of the mean, so that flat noise loses nothing.
//   - A stage can end in a transient too, a short one: the open model's
//     last second loses the answers that arrive after the end, and the
//     last requests of a stage meet the next stage's load. The last
//     seconds are cut while each lies outside the noise of the seconds
//     before it (3 standard deviations, or MinShift of their mean), and
//     only when what remains does not trend, so that the end of a drift is
//     never cut away to make it look steady. Both cuts together leave at
//     least half the seconds, as MSER's own bound does.
//   - MSER cannot say that nothing is steady (on a slow drift it cuts half
//     and stops): the kept part is then tested for a trend, a least-squares
//     slope significant at 3 standard errors whose change over the kept
//     seconds exceeds MaxDrift of its mean. Such a series is not steady and
//     its trend is reported in percent of the mean per second — the
//     coefficient-of-variation-over-a-window criterion of Georges, Buytaert
//     and Eeckhout (OOPSLA 2007), stated as a slope so that it says which
//     way the series moves.
package steady

import (
	"math"
	"slices"
)

// Defaults of Options.
const (
	// DefaultMinShift is the smallest difference, as a fraction of the
	// steady mean, between the cut seconds and the kept ones that counts as
	// a transient.
	DefaultMinShift = 0.02
	// DefaultMaxDrift is the largest change a trend may make over the kept
	// seconds, as a fraction of their mean, for them to count as steady.
	DefaultMaxDrift = 0.05
	// MinSeconds is the shortest series the detector judges.
	MinSeconds = 5
	// zLimit is how many standard errors a shift or a slope must reach to
	// count (about p < 0.003 on normal noise).
	zLimit = 3
)

// Options tune Detect; zero fields take the defaults.
type Options struct {
	MinShift float64
	MaxDrift float64
}

func (o Options) withDefaults() Options {
	if o.MinShift <= 0 {
		o.MinShift = DefaultMinShift
	}
	if o.MaxDrift <= 0 {
		o.MaxDrift = DefaultMaxDrift
	}
	return o
}

// Result is what Detect found in a series.
type Result struct {
	// Start is the index of the first steady second: the seconds before it
	// are the transient that was cut. 0 when nothing was cut.
	Start int
	// EndCut is how many seconds at the end were a transient and were cut;
	// 0 when nothing was.
	EndCut int
	// Seconds is the length of the series.
	Seconds int
	// Steady is false when the kept seconds still trend: the series has no
	// steady part, and Trend says how fast it moves.
	Steady bool
	// Judged is false when the series was too short (under MinSeconds) to
	// tell: nothing is cut and Steady is true.
	Judged bool
	// Trend is the least-squares slope of the kept seconds in percent of
	// their mean per second ("+4.2 %/s").
	Trend float64
}

// Cut is how many seconds were cut from the start.
func (r Result) Cut() int { return r.Start }

// End is the index after the last steady second.
func (r Result) End() int { return r.Seconds - r.EndCut }

// Detect finds the transients at the start and at the end of a per-second
// series, and whether what is left between them still trends.
func Detect(series []float64, opts Options) Result {
	opts = opts.withDefaults()
	r := Result{Seconds: len(series), Steady: true}
	if len(series) < MinSeconds {
		return r
	}
	r.Judged = true
	smooth := Median3(series)
	most := len(series) / 2 // MSER's bound, for both cuts together
	r.Start = startCut(series, smooth, opts.MinShift, most)
	kept := series[r.Start:]
	r.Trend, r.Steady = trendOf(kept, opts)
	endCut := endCut(kept, smooth[r.Start:], opts.MinShift, most-r.Start)
	if endCut == 0 {
		return r
	}
	// The end is cut only when what remains does not trend: the seconds
	// after a drift's end are not a transient of their own.
	if trend, steady := trendOf(kept[:len(kept)-endCut], opts); steady {
		r.EndCut, r.Trend, r.Steady = endCut, trend, true
	}
	return r
}

// startCut is the transient at the start of a series: MSER's cut over at
// most the first most seconds, walked back over seconds already at the
// level kept, and kept only when it is a shift beyond noise; 0 for none.
func startCut(raw, smooth []float64, minShift float64, most int) int {
	d := mserCut(smooth, most)
	if d == 0 {
		return 0
	}
	d = walkBack(raw, smooth, d, minShift)
	if d > 0 && isShift(raw, smooth, d, minShift) {
		return d
	}
	return 0
}

// trendOf is the relative slope of kept seconds, and false when it is a
// trend: significant at zLimit standard errors and moving them by more
// than MaxDrift of their mean.
func trendOf(kept []float64, opts Options) (trend float64, steady bool) {
	slope, se := Slope(kept)
	drift := math.Abs(slope) * float64(len(kept)-1)
	moving := se >= 0 && math.Abs(slope) > zLimit*se && drift > opts.MaxDrift*math.Abs(mean(kept))
	return Relative(slope, kept), !moving
}

// endCut is the transient at the end of a series: how many of its last
// seconds (smoothed inside, as measured at the very end) each lie outside
// the level and noise of the seconds before them, at most most of them.
func endCut(raw, smooth []float64, minShift float64, most int) int {
	n := 0
	for ; n < most; n++ {
		last := len(raw) - n - 1
		level, tolerance := levelOf(raw[:last], minShift)
		if math.Abs(smooth[last]-level) <= tolerance {
			break
		}
	}
	return n
}

// Combine joins the results of two figures of the same seconds (throughput
// and p50): the later cut at either end, steady only when both are, the
// trend of the one that is not steady (or of a).
func Combine(a, b Result) Result {
	out := a
	out.Start = max(a.Start, b.Start)
	out.EndCut = max(a.EndCut, b.EndCut)
	out.Steady = a.Steady && b.Steady
	out.Judged = a.Judged || b.Judged
	if a.Steady && !b.Steady {
		out.Trend = b.Trend
	}
	return out
}

// mserCut returns the d in [0, most] minimising the MSER statistic
// SS(d)/(n-d)², SS(d) the sum of squared deviations of x[d:] from its mean.
func mserCut(x []float64, most int) int {
	best, bestStat := 0, math.Inf(1)
	for d := 0; d <= min(most, len(x)-1); d++ {
		kept := x[d:]
		stat := sumSquares(kept) / float64(len(kept)*len(kept))
		if stat < bestStat {
			best, bestStat = d, stat
		}
	}
	return best
}

// walkBack moves a cut earlier over the seconds before it that are
// already at the level of what it keeps (within noise, or within minShift
// of its mean). MSER overshoots a knee when a run of quiet seconds after it
// happens to lower the standard error; those seconds are steady all the
// same.
func walkBack(raw, smooth []float64, d int, minShift float64) int {
	m, tolerance := levelOf(raw[d:], minShift)
	for d > 0 && math.Abs(smooth[d-1]-m) <= tolerance {
		d--
	}
	return d
}

// levelOf returns the mean of kept seconds and how far a second may be
// from it and still be at that level: zLimit standard deviations of the
// seconds, or minShift of the mean if more.
func levelOf(kept []float64, minShift float64) (level, tolerance float64) {
	level = mean(kept)
	return level, max(zLimit*stdDev(kept), minShift*math.Abs(level))
}

// isShift reports whether the smoothed seconds before d differ from the
// raw ones after it by more than zLimit standard errors and by more than
// minShift of their mean. The smoothed values are used for the cut so that
// a single deviant second inside it does not make a transient.
func isShift(raw, smooth []float64, d int, minShift float64) bool {
	cut, kept := smooth[:d], raw[d:]
	diff := math.Abs(mean(cut) - mean(kept))
	if diff <= minShift*math.Abs(mean(kept)) {
		return false
	}
	se := stdDev(kept) * math.Sqrt(1/float64(len(cut))+1/float64(len(kept)))
	return diff > zLimit*se
}

func stdDev(x []float64) float64 {
	return math.Sqrt(sumSquares(x) / float64(max(1, len(x)-1)))
}

// Median3 is x smoothed by a running median of three. Its two ends, which
// have one neighbour each, are left as they are: a deviation there is the
// start or the end of a transient, for the cuts to judge, not an outlier
// to smooth away.
func Median3(x []float64) []float64 {
	y := slices.Clone(x)
	for i := 1; i < len(x)-1; i++ {
		y[i] = median3(x[i-1], x[i], x[i+1])
	}
	return y
}

func median3(a, b, c float64) float64 {
	return max(min(a, b), min(max(a, b), c))
}

// Slope is the least-squares slope of x against its index, per step, and
// its standard error; the error is -1 with fewer than three points.
func Slope(x []float64) (slope, stdErr float64) {
	n := float64(len(x))
	if len(x) < 2 {
		return 0, -1
	}
	mx, my := (n-1)/2, mean(x)
	var sxx, sxy float64
	for i, v := range x {
		sxx += (float64(i) - mx) * (float64(i) - mx)
		sxy += (float64(i) - mx) * (v - my)
	}
	slope = sxy / sxx
	if len(x) < 3 {
		return slope, -1
	}
	var sse float64
	for i, v := range x {
		r := v - (my + slope*(float64(i)-mx))
		sse += r * r
	}
	return slope, math.Sqrt(sse / (n - 2) / sxx)
}

// Relative is a slope in percent of x's mean per step; 0 with a zero mean.
func Relative(slope float64, x []float64) float64 {
	m := mean(x)
	if m == 0 {
		return 0
	}
	return slope * 100 / math.Abs(m)
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	return sum / float64(len(x))
}

func sumSquares(x []float64) float64 {
	m := mean(x)
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return ss
}
