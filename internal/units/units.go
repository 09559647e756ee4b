// Package units writes figures for people, one way everywhere: a figure
// with the decimals it needs (Num), a rate (Rate), milliseconds as a
// rounded duration (Ms), a CPU limit (CPUs), an empty cell (OrDash). Every
// room that writes figures (analysis, capacity, builtin's sheets, report)
// writes them here, so that none climbs above another only to format.
package units

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Num formats a figure with enough decimals to tell small latencies apart
// without cluttering large throughputs.
func Num(v float64) string {
	if math.Abs(v) < 10 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// Rate writes a rate in req/s the way tables show it: whole above 100,
// one decimal below.
func Rate(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// Ms writes a time in ms as a duration, to the microsecond below 1 ms and
// to 0.1 ms above: "268.4ms", "850µs".
func Ms(v float64) string {
	precision := time.Microsecond
	if v >= 1 {
		precision = 100 * time.Microsecond
	}
	return time.Duration(v * float64(time.Millisecond)).Round(precision).String()
}

// CPUs writes a CPU limit: "1 CPU", "1.5 CPUs".
func CPUs(n float64) string {
	if n == 1 {
		return "1 CPU"
	}
	return strconv.FormatFloat(n, 'f', -1, 64) + " CPUs"
}

// OrDash returns s, or "-" when it is empty, so that table cells never vanish.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
