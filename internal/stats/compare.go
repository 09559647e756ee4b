package stats

import (
	"fmt"
	"math"
	"strconv"

	"golang.org/x/perf/benchmath"
)

// Test is the result of testing whether two samples come from the same
// distribution.
type Test struct {
	// P is the p-value of the null hypothesis that both samples come from
	// the same distribution; 1 when no test could be made.
	P           float64 `json:"p"`
	NA          int     `json:"nA"`
	NB          int     `json:"nB"`
	Alpha       float64 `json:"alpha"`
	Significant bool    `json:"significant"` // P < Alpha, and the sizes allow it
	Method      string  `json:"method"`
	// Warnings say why a test could not be made, or could never have been
	// significant with these sample sizes.
	Warnings []string `json:"warnings,omitempty"`
}

// Compare tests whether a and b come from the same distribution with
// benchmath's Mann-Whitney U test (two-sided), at significance level alpha
// (zero or less means DefaultAlpha). a and b are not modified.
//
// Small samples cannot be significant however far apart they are: the
// smallest p for 3+3 values is 0.1. Compare then warns, as benchstat does,
// and Significant is false. With an empty side or only equal values there
// is no test: P is 1 and a warning says why.
func Compare(a, b []float64, alpha float64) Test {
	alpha = orDefault(alpha, DefaultAlpha)
	a, warnA := finite(a)
	b, warnB := finite(b)
	t := Test{P: 1, NA: len(a), NB: len(b), Alpha: alpha, Method: MethodMannWhitney,
		Warnings: append(warnA, warnB...)}
	if len(a) == 0 || len(b) == 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("no test: need values on both sides, have %d+%d", len(a), len(b)))
		return t
	}
	thresholds := benchmath.Thresholds{CompareAlpha: alpha}
	c := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(a, &thresholds), // sorts finite's copies
		benchmath.NewSample(b, &thresholds))
	t.P = c.P
	return decide(t, c.Warnings)
}

// decide sets Significant and adds benchmath's warnings. benchmath warns
// that significance is out of reach only when both samples are small (and
// P > alpha); minP also catches lopsided sizes such as 1+20, whose smallest
// p is 2/21 = 0.095, and p = alpha exactly.
func decide(t Test, benchmathWarnings []error) Test {
	floor := minP(t.NA, t.NB)
	possible := floor < t.Alpha
	t.Significant = possible && t.P < t.Alpha
	t.Warnings = append(t.Warnings, messages(benchmathWarnings)...)
	if !possible && len(benchmathWarnings) == 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf(
			"n = %d+%d can never reach p < %v: the smallest possible p is %.3g", t.NA, t.NB, t.Alpha, floor))
	}
	return t
}

// minP is the smallest two-sided p-value the exact U test can give for
// samples of na and nb values: 2/C(na+nb, na), reached when they do not
// overlap. Ties only make the distribution coarser, so it is a lower bound.
func minP(na, nb int) float64 {
	arrangements := 1.0 // C(na+nb, na), built up as a product
	for i := 1; i <= na; i++ {
		arrangements = arrangements * float64(nb+i) / float64(i)
	}
	return math.Min(1, 2/arrangements)
}

// String prints the test as reports quote it: "p = 0.43, n = 3+3". p is
// rounded to three decimals, and below 0.0005 prints as "p < 0.001", so
// that a tiny p reads as tiny rather than as zero. Without a test it
// prints "no test, n = 0+3".
func (t Test) String() string {
	n := fmt.Sprintf("n = %d+%d", t.NA, t.NB)
	switch {
	case t.NA == 0 || t.NB == 0:
		return "no test, " + n
	case t.P < 0.0005:
		return "p < 0.001, " + n
	}
	return "p = " + strconv.FormatFloat(math.Round(t.P*1000)/1000, 'f', -1, 64) + ", " + n
}
