package stats

import (
	"cmp"
	"fmt"
	"math"
)

// Batch counts for BatchMeans. Ten batches is the usual choice: enough for
// Student's t to be tight (t(0.975, 9) = 2.26), few enough that each batch
// is long compared with the correlation time of per-second values. Under
// five, t(0.975, 3) = 3.18 and the batch means are too few to say anything.
const (
	DefaultBatches = 10
	MinBatches     = 5
)

// BatchMeans returns the mean of values with a batch-means confidence
// interval at the given level (zero or less means DefaultConfidence).
// values are consecutive measurements of one steady stage in time order,
// e.g. per-second throughput; batches is how many consecutive batches to
// cut them into (zero or less means DefaultBatches).
//
// The centre is the mean of the batch means and the interval is
// centre ± t(1-(1-confidence)/2, k-1) × s/√k, where s is the standard
// deviation of the k batch means. Batches are as equal as possible: their
// sizes differ by at most one, so that no value is dropped.
//
// With fewer values than batches, each value is a batch and a warning says
// so; under MinBatches values there is no interval, only the mean.
func BatchMeans(values []float64, batches int, confidence float64) Summary {
	confidence = orDefault(confidence, DefaultConfidence)
	if batches <= 0 {
		batches = DefaultBatches
	}
	values, warnings := finite(values)
	if w := cmp.Or(checkConfidence(confidence), checkBatches(batches, len(values))); w != "" {
		return noInterval(mean(values), len(values), confidence, MethodBatchMeans, append(warnings, w))
	}
	k := min(batches, len(values))
	if k < batches {
		warnings = append(warnings, fmt.Sprintf("only %d values: used %d batches of one value instead of %d", len(values), k, batches))
	}
	s := batchInterval(batchMeans(values, k), confidence)
	s.N, s.Warnings = len(values), warnings
	return s
}

// batchInterval is the Student's t interval over k batch means.
func batchInterval(means []float64, confidence float64) Summary {
	k := float64(len(means))
	center := mean(means)
	halfWidth := TQuantile(1-(1-confidence)/2, k-1) * stddev(means, center) / math.Sqrt(k)
	return Summary{Center: center, Lo: center - halfWidth, Hi: center + halfWidth, HasInterval: true,
		Batches: len(means), Confidence: confidence, Method: MethodBatchMeans}
}

// batchMeans cuts values into k consecutive batches, batch i holding
// values[i*n/k : (i+1)*n/k], and returns each batch's mean.
func batchMeans(values []float64, k int) []float64 {
	n := len(values)
	means := make([]float64, k)
	for i := range means {
		means[i] = mean(values[i*n/k : (i+1)*n/k])
	}
	return means
}

// checkBatches returns a warning if batches requested batches of n values
// cannot make MinBatches batches.
func checkBatches(batches, n int) string {
	switch {
	case batches < MinBatches:
		return fmt.Sprintf("need >= %d batches for a batch-means interval, asked for %d", MinBatches, batches)
	case n < MinBatches:
		return fmt.Sprintf("need >= %d values for a batch-means interval, have %d", MinBatches, n)
	}
	return ""
}

// checkConfidence returns a warning if confidence cannot make an interval:
// at 1 or above the t quantile is infinite.
func checkConfidence(confidence float64) string {
	if confidence >= 1 {
		return fmt.Sprintf("confidence level %v must be below 1", confidence)
	}
	return ""
}

// mean is the arithmetic mean; 0 for no values, so that results stay finite.
func mean(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values))
}

// stddev is the sample standard deviation (n-1 denominator) about center.
func stddev(values []float64, center float64) float64 {
	sumSquares := 0.0
	for _, v := range values {
		sumSquares += (v - center) * (v - center)
	}
	return math.Sqrt(sumSquares / float64(len(values)-1))
}
