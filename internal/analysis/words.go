package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// Value formats a figure in its unit's usual precision, without the unit.
func Value(v float64, unit string) string {
	switch unit {
	case UnitThreads, UnitGoroutines, UnitPauses, UnitClients:
		return fmt.Sprintf("%.0f", v)
	case UnitPercent:
		return fmt.Sprintf("%.2f", v)
	case UnitSeconds:
		return fmt.Sprintf("%.3f", v)
	}
	return units.Num(v)
}

// ValueWithUnit formats a figure followed by its unit: "105.2 ms", "0.50%".
func ValueWithUnit(v float64, unit string) string {
	if unit == UnitPercent {
		return Value(v, unit) + "%"
	}
	return Value(v, unit) + " " + unit
}

// Change formats a delta's change: relative in percent, or, from a zero base
// where a relative change is undefined, the absolute difference in the
// figure's unit (percentage points for percentages).
func Change(d bench.MetricDelta) string {
	if d.Base != 0 {
		return PositiveZero(fmt.Sprintf("%+.1f%%", d.Change))
	}
	if d.Unit == UnitPercent {
		return PositiveZero(fmt.Sprintf("%+.2f pp", d.Change))
	}
	sign := "+"
	if d.Change < 0 {
		sign = "-"
	}
	return sign + ValueWithUnit(math.Abs(d.Change), d.Unit)
}

// PositiveZero turns a change that rounds to nothing from below ("-0.0%")
// into "+0.0%", which is what a reader expects of no change.
func PositiveZero(s string) string {
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:], "0.% p") == "" {
		return "+" + s[1:]
	}
	return s
}

// StageLabel names a stage for humans; indexes are zero-based in documents
// and one-based on screen.
func StageLabel(index int, name string) string {
	if name == "" {
		return fmt.Sprintf("stage %d", index+1)
	}
	return fmt.Sprintf("stage %d (%s)", index+1, name)
}
