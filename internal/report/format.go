package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// num formats a figure with enough decimals to tell small latencies apart
// without cluttering large throughputs.
func num(v float64) string {
	if math.Abs(v) < 10 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// value formats a figure in its unit's usual precision, without the unit.
func value(v float64, unit string) string {
	switch unit {
	case unitThreads, unitGoroutines, unitPauses, unitClients:
		return fmt.Sprintf("%.0f", v)
	case unitPercent:
		return fmt.Sprintf("%.2f", v)
	case unitSeconds:
		return fmt.Sprintf("%.3f", v)
	}
	return num(v)
}

// valueWithUnit formats a figure followed by its unit: "105.2 ms", "0.50%".
func valueWithUnit(v float64, unit string) string {
	if unit == unitPercent {
		return value(v, unit) + "%"
	}
	return value(v, unit) + " " + unit
}

// change formats a delta's change: relative in percent, or, from a zero base
// where a relative change is undefined, the absolute difference in the
// figure's unit (percentage points for percentages).
func change(d bench.MetricDelta) string {
	if d.Base != 0 {
		return positiveZero(fmt.Sprintf("%+.1f%%", d.Change))
	}
	if d.Unit == unitPercent {
		return positiveZero(fmt.Sprintf("%+.2f pp", d.Change))
	}
	sign := "+"
	if d.Change < 0 {
		sign = "-"
	}
	return sign + valueWithUnit(math.Abs(d.Change), d.Unit)
}

// positiveZero turns a change that rounds to nothing from below ("-0.0%")
// into "+0.0%", which is what a reader expects of no change.
func positiveZero(s string) string {
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:], "0.% p") == "" {
		return "+" + s[1:]
	}
	return s
}

// figureLabel names a figure for humans, with its unit: "p99 (ms)".
func figureLabel(d bench.MetricDelta) string {
	label, ok := figureLabels[d.Name]
	if !ok {
		label = figureLabelOf(d.Name)
	}
	if label == "" {
		label = d.Name
	}
	switch d.Unit {
	case unitThreads, unitGoroutines, unitPauses:
		return label // a count: the label says of what
	}
	return label + " (" + d.Unit + ")"
}

var figureLabels = map[string]string{
	metricErrorRate:   "error rate",
	resCPUPer1k:       "CPU per 1k requests",
	resGCPauses:       "GC pauses",
	resGCPauseSeconds: "GC pause time",
}

// stageLabel names a stage for humans; indexes are zero-based in documents
// and one-based on screen.
func stageLabel(index int, name string) string {
	if name == "" {
		return fmt.Sprintf("stage %d", index+1)
	}
	return fmt.Sprintf("stage %d (%s)", index+1, name)
}
