package chart

import "math"

// maxYIntervals bounds a value axis to six ticks; stepping the round step
// by at most ×2 at a time keeps it at four or more.
const maxYIntervals = 5

// mantissas are the round steps between ticks, times a power of ten.
var mantissas = [...]float64{1, 2, 2.5, 5}

// step is a round distance between ticks: mantissas[m] × 10^exp. It is kept
// as integers so that ticks are computed as k×step without drifting.
type step struct{ m, exp int }

// stepAtLeast returns the smallest round step not below raw (raw > 0).
func stepAtLeast(raw float64) step {
	s := step{0, int(math.Floor(math.Log10(raw)))}
	for s.value() < raw*(1-1e-9) {
		s = s.next()
	}
	return s
}

// next returns the next larger round step.
func (s step) next() step {
	if s.m+1 < len(mantissas) {
		return step{s.m + 1, s.exp}
	}
	return step{0, s.exp + 1}
}

// value returns the step as a number.
func (s step) value() float64 {
	return s.times(1)
}

// times returns k steps; dividing by a power of ten for small steps keeps
// 3 × 0.1 equal to 0.3.
func (s step) times(k float64) float64 {
	if s.exp >= 0 {
		return k * mantissas[s.m] * math.Pow10(s.exp)
	}
	return k * mantissas[s.m] / math.Pow10(-s.exp)
}

// ticks returns the multiples of s from first to last steps.
func (s step) ticks(first, last float64) []float64 {
	var out []float64
	for k := first; k <= last; k++ {
		out = append(out, s.times(k)+0) // +0 turns -0 into 0
	}
	return out
}

// niceTicks returns four to six round ticks, evenly spaced, from at or below
// lo to at or above hi, and their spacing: the value axis of a chart.
func niceTicks(lo, hi float64) ([]float64, float64) {
	lo, hi = widen(lo, hi)
	for s := stepAtLeast((hi - lo) / maxYIntervals); ; s = s.next() {
		first, last := math.Floor(lo/s.value()), math.Ceil(hi/s.value())
		if last-first <= maxYIntervals {
			return s.ticks(first, last), s.value()
		}
	}
}

// ticksWithin returns round ticks inside [lo, hi], at most maxIntervals+1 of
// them, and their spacing: the time axis, which keeps the data's own span.
func ticksWithin(lo, hi float64, maxIntervals int) ([]float64, float64) {
	lo, hi = widen(lo, hi)
	s := stepAtLeast((hi - lo) / float64(max(1, maxIntervals)))
	return s.ticks(math.Ceil(lo/s.value()), math.Floor(hi/s.value())), s.value()
}

// widen gives an empty or inverted range [lo, hi] some width, so that a
// single value or an all-zero series still gets an axis.
func widen(lo, hi float64) (float64, float64) {
	if hi > lo {
		return lo, hi
	}
	if lo == 0 {
		return 0, 1
	}
	return lo - math.Abs(lo)/2, lo + math.Abs(lo)/2
}

// linear maps the domain [lo, hi] onto the pixel range [from, to].
type linear struct{ lo, hi, from, to float64 }

// at returns the pixel of v.
func (s linear) at(v float64) float64 {
	if s.hi == s.lo {
		return (s.from + s.to) / 2
	}
	return s.from + (v-s.lo)/(s.hi-s.lo)*(s.to-s.from)
}

// clamp bounds v to ±maxMagnitude; see maxMagnitude.
func clamp(v float64) float64 {
	return math.Max(-maxMagnitude, math.Min(maxMagnitude, v))
}

// finite reports whether v is a number that can be drawn.
func finite(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}
