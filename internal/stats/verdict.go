package stats

import "math"

// Verdicts, as reports print them.
const (
	Better       = "better"                    // Better: significant, large enough, in the good direction
	Worse        = "worse"                     // Worse: significant, large enough, in the bad direction
	NoDifference = "no significant difference" // NoDifference: not significant, or below the minimum effect
)

// undefinedChange warns that a change from 0 has no relative size.
const undefinedChange = "base median is 0: relative change undefined"

// Verdict compares head with base, two sets of per-round values of one
// metric. It returns Better or Worse only when Compare finds the samples
// significantly different at alpha AND the medians differ by at least
// minEffectPct percent (zero or less: any size); otherwise NoDifference.
// Both gates matter: with many rounds a 0.5% shift can be significant yet
// below the noise a reader should act on, and a large change between a few
// rounds may be chance.
//
// change is the relative change of the medians in percent,
// (median(head)/median(base) - 1) × 100; it is 0, with a warning in the
// test, when the base median is 0. higherIsBetter says which direction of
// change is Better (throughput: true; latency: false).
func Verdict(base, head []float64, higherIsBetter bool, minEffectPct, alpha float64) (verdict string, test Test, change float64) {
	test = Compare(base, head, alpha)
	if test.NA == 0 || test.NB == 0 {
		return NoDifference, test, 0
	}
	baseMedian, headMedian := Median(base, 0).Center, Median(head, 0).Center
	if baseMedian == 0 {
		if headMedian != 0 {
			test.Warnings = append(test.Warnings, undefinedChange)
		}
		return NoDifference, test, 0
	}
	change = (headMedian/baseMedian - 1) * 100
	if !test.Significant || math.Abs(change) < minEffectPct {
		return NoDifference, test, change
	}
	if (change > 0) == higherIsBetter {
		return Better, test, change
	}
	return Worse, test, change
}
