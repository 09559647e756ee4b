package report_test

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// A capacity run's report opens with its answer, in every text format and
// in the JSON report.
func TestReportShowsCapacity(t *testing.T) {
	run := analysistest.BaseRun(t)
	for i := range run.Targets {
		run.Targets[i].Capacity = &bench.CapacityResult{Objective: "p99<=300ms", Rate: 490 * float64(i+1), Stop: "precision",
			Confirmations: []bench.CapacityTrial{{Throughput: 489 * float64(i+1)}},
			Failed:        &bench.CapacityTrial{Rate: 500 * float64(i+1), Violations: []string{"p99 412ms > 300ms"}}}
	}
	for _, format := range []string{report.FormatTable, report.FormatMarkdown, report.FormatHTML, report.FormatJSON} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WriteReport(&buf, report.Source{Run: run}, format, analysis.ReportOptions{}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, want := range []string{"p99<=300ms", run.Targets[0].Key() + " carries 490 req/s within", "p99 412ms > 300ms"} {
				if format == report.FormatHTML {
					want = html.EscapeString(want)
				}
				if format == report.FormatJSON {
					want = strings.ReplaceAll(want, ">", `\u003e`)
					want = strings.ReplaceAll(want, "<", `\u003c`)
				}
				if !strings.Contains(out, want) {
					t.Errorf("%s report lacks %q", format, want)
				}
			}
		})
	}
}

// A closed-model sweep's report fits the USL per target and says so.
func TestReportShowsScalability(t *testing.T) {
	usl := func(n float64) float64 { return 10 * n / (1 + 0.05*(n-1) + 0.0002*n*(n-1)) }
	run := &bench.Run{ID: "r1", Status: bench.RunSucceeded, Spec: bench.RunSpec{Targets: []string{"java-platform"},
		Profile: bench.Profile{Model: bench.ModelClosed}}}
	tr := bench.TargetResult{Target: "java-platform", Status: bench.TargetSucceeded}
	for i, n := range []int{25, 50, 100, 200, 400, 800} {
		tr.Stages = append(tr.Stages, bench.StageResult{Index: i, Model: bench.ModelClosed, Concurrency: n,
			Stats: bench.Stats{Requests: 1000, Successes: 1000, Throughput: usl(float64(n))}})
	}
	run.Targets = []bench.TargetResult{tr}
	var buf bytes.Buffer
	if err := report.WriteReport(&buf, report.Source{Run: run}, report.FormatTable, analysis.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Scalability (Universal Scalability Law)", "java-platform: contention σ 0.0500, coherency κ 0.000200",
		"peaks at N* 69 clients", "usable"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
	// the HTML report draws the points beside the curve
	buf.Reset()
	if err := report.WriteReport(&buf, report.Source{Run: run}, report.FormatHTML, analysis.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-chart="usl-0"`, "java-platform measured", "java-platform USL fit", "clients"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}
