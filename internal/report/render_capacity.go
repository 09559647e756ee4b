package report

import (
	"fmt"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/chart"
	"github.com/threadbench/threadbench/internal/scalability"
)

// capacitySections lay out a capacity run's answer and a sweep's USL fits,
// as internal/capacity and internal/scalability found them; none for
// other runs.
func capacitySections(rep bench.Report) []section {
	var sections []section
	if t := rep.Capacity; t != nil {
		sections = append(sections, section{Title: "Capacity within " + t.Objective, ID: "capacity",
			Blocks: []block{capacityBlock(t), {Lines: t.Sentences}}})
	}
	if len(rep.Scalability) > 0 {
		sections = append(sections, section{Title: "Scalability (Universal Scalability Law)", ID: "scalability",
			Blocks: scalabilityBlocks(rep.Scalability)})
	}
	return sections
}

func capacityBlock(t *bench.CapacityTable) block {
	b := block{Header: []string{"target", "req/s", "confirmations served", "first failing", "why", "× best", "stopped on"},
		Right: map[int]bool{1: true, 3: true, 5: true}}
	for _, r := range t.Rows {
		served, failed := "-", "-"
		if r.Rate > 0 {
			served = capacity.Rate(r.ServedLow) + "–" + capacity.Rate(r.ServedHigh)
		}
		if r.FailedRate > 0 {
			failed = capacity.Rate(r.FailedRate)
		}
		b.Rows = append(b.Rows, []string{r.Target, capacity.Rate(r.Rate), served, failed, analysis.OrDash(r.FailedWhy),
			fmt.Sprintf("%.2f", r.Ratio), r.Stop})
		b.Color = append(b.Color, -1)
	}
	return b
}

func scalabilityBlocks(fits []bench.ScalabilityFit) []block {
	b := block{Header: []string{"target", "σ", "κ", "λ req/s", "N*", "X_max req/s", "R²", "fit"},
		Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true}}
	var lines []string
	for _, f := range fits {
		peak, xmax, fit := "none", "unbounded", "usable"
		if f.Peak > 0 {
			peak = fmt.Sprintf("%.0f", f.Peak)
		}
		if f.MaxThroughput > 0 {
			xmax = fmt.Sprintf("%.0f", f.MaxThroughput)
		}
		if f.Poor != "" {
			fit = "too poor"
		}
		b.Rows = append(b.Rows, []string{f.Target, fmt.Sprintf("%.4f", f.Sigma), fmt.Sprintf("%.6f", f.Kappa),
			fmt.Sprintf("%.1f", f.Lambda), peak, xmax, fmt.Sprintf("%.3f", f.R2), fit})
		b.Color = append(b.Color, -1)
		lines = append(lines, f.Sentence)
	}
	return []block{b, {Lines: lines}}
}

// uslCharts draw each sweep's measured throughput beside its fitted USL
// curve, one chart per target.
func uslCharts(rep bench.Report) []chart.LineChart {
	var charts []chart.LineChart
	for i, f := range rep.Scalability {
		measured, fitted := chart.Series{Name: f.Target + " measured"}, chart.Series{Name: f.Target + " USL fit"}
		for _, p := range f.Measured {
			measured.Points = append(measured.Points, chart.Point{X: p.Concurrency, Y: p.Throughput})
		}
		for _, p := range scalability.Curve(f, 100) {
			fitted.Points = append(fitted.Points, chart.Point{X: p.Concurrency, Y: p.Throughput})
		}
		charts = append(charts, chart.LineChart{ID: fmt.Sprintf("usl-%d", i), Title: f.Target + ": throughput by clients, measured and USL fit",
			XLabel: "clients", Unit: "req/s", Series: []chart.Series{measured, fitted}})
	}
	return charts
}
