package report

import (
	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

// figureLabel names a figure for humans, with its unit: "p99 (ms)".
func figureLabel(d bench.MetricDelta) string {
	label, ok := figureLabels[d.Name]
	if !ok {
		label = analysis.FigureLabelOf(d.Name)
	}
	if label == "" {
		label = d.Name
	}
	switch d.Unit {
	case analysis.UnitThreads, analysis.UnitGoroutines, analysis.UnitPauses:
		return label // a count: the label says of what
	}
	return label + " (" + d.Unit + ")"
}

var figureLabels = map[string]string{
	analysis.MetricErrorRate:   "error rate",
	analysis.ResCPUPer1k:       "CPU per 1k requests",
	analysis.ResGCPauses:       "GC pauses",
	analysis.ResGCPauseSeconds: "GC pause time",
}
