package report_test

import (
	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// analyzed is src with its run's analysis, as the report's callers give it.
func analyzed(src report.Source, opts analysis.ReportOptions) report.Source {
	rep := analysis.Analyze(src.Run, opts)
	src.Report = &rep
	return src
}

// summary is the analysis a run's table opens with.
func summary(r *bench.Run) *bench.Report {
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	return &rep
}
