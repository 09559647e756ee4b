package stats

import "math"

// CV is the coefficient of variation of values in percent: their sample
// standard deviation over the absolute value of their mean. ok is false
// with fewer than two values or a zero mean.
func CV(values []float64) (cv float64, ok bool) {
	if len(values) < 2 {
		return 0, false
	}
	mean := 0.0
	for _, v := range values {
		mean += v
	}
	mean /= float64(len(values))
	if mean == 0 {
		return 0, false
	}
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss/float64(len(values)-1)) * 100 / math.Abs(mean), true
}
