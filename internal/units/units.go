// Package units writes figures for people, one way everywhere: a figure
// with the decimals it needs (Num), a rate (Rate), milliseconds as a
// rounded duration (Ms), a CPU limit (CPUs), a share as a percentage
// (Percent), a count or limit as it is (Plain), a mean to a tenth
// (OneDecimal), an empty cell (OrDash). Every
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

// Percent writes a share as a percentage, as the why's sentences say it:
// "41 %", "0.5 %".
func Percent(share float64) string {
	if p := share * 100; p < 10 && p != 0 {
		return strconv.FormatFloat(p, 'f', 1, 64) + " %"
	}
	return strconv.FormatFloat(share*100, 'f', 0, 64) + " %"
}

// Plain writes a count or a limit without needless decimals: "10", "2.5".
func Plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// OneDecimal writes a mean to a tenth at most: "190", "38.7".
func OneDecimal(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
