package report_test

import (
	"bytes"
	"encoding/json"
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
			if err := report.WriteReport(&buf, analyzed(report.Source{Run: run}, analysis.ReportOptions{}), format); err != nil {
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

// A capacity run's report opens with its answer in every format: the
// capacity table and its sentences first, then each target's search trial
// by trial (in HTML with its chart), then why each stopped there, then the
// rest; the run table the
// capacity command prints too. Its time charts are drawn from the trials'
// seconds, with the offered rate stepping trial by trial, and no bars of a
// whole search.
func TestCapacityReportOpensWithTheAnswer(t *testing.T) {
	run := analysistest.SearchRun(t)
	for i := range run.Targets {
		for j := range run.Targets[i].Seconds {
			run.Targets[i].Seconds[j].Scheduled = run.Targets[i].Stages[run.Targets[i].Seconds[j].Stage].Rate
		}
	}
	render := func(format string) string {
		var buf bytes.Buffer
		if err := report.WriteReport(&buf, analyzed(report.Source{Run: run}, analysis.ReportOptions{}), format); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	var runTable bytes.Buffer
	if err := report.WriteRun(&runTable, run, summary(run), report.FormatTable); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, out string
		starts    string
		after     []string // in order, after the start
	}{
		{"table", render(report.FormatTable), "Capacity within p99<=300ms\n===", []string{"go carries 1550 req/s", "The search, trial by trial",
			"go: 13 trials in 1m13s from 50.0 req/s", "java-platform: 11 trials", "Why: what held each target back", "Report of run search", "Findings"}},
		{"markdown", render(report.FormatMarkdown), "## Capacity within p99<=300ms\n", []string{"go carries 1550 req/s", "### The search, trial by trial",
			"**go: 13 trials", "### Report of run search", "### Findings"}},
		{"run table", runTable.String(), "Capacity within p99<=300ms\n===", []string{"The search, trial by trial", "Findings", "run       search",
			"target go: succeeded", "answer (last confirmation)"}},
	} {
		if !strings.HasPrefix(tt.out, tt.starts) {
			t.Errorf("%s starts %q, want the capacity table", tt.name, tt.out[:min(len(tt.out), 80)])
		}
		checkOrder(t, tt.name, tt.out, tt.after)
	}
	page := render(report.FormatHTML)
	checkOrder(t, "html", page, []string{`<section id="capacity">`, "go carries 1550 req/s", `<section id="search">`,
		`data-chart="search-0"`, `data-chart="search-1"`, `data-chart="search-2"`, "go: 13 trials", `<section id="why">`, `<section id="run">`,
		`<section id="findings"`, `data-chart="offered"`, `data-chart="throughput"`})
	for _, lacks := range []string{`data-chart="bars-0-throughput"`, "whole attack", ">stage 1 (bracket"} {
		if strings.Contains(page, lacks) {
			t.Errorf("the page has %q: a whole search's bars or a stage marker of one target's trials", lacks)
		}
	}
	_, offered, _ := strings.Cut(page, `data-chart="offered"`)
	if offered, _, _ = strings.Cut(offered, "</svg>"); strings.Contains(offered, "no data") || !strings.Contains(offered, " s, 1600 req/s</title>") {
		t.Errorf("the offered rate chart does not step to go's 1600 req/s trial")
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(render(report.FormatJSON)), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Searches == nil || len(rep.Searches.Targets) != 3 || rep.Searches.Answers == nil {
		t.Errorf("JSON report's searches %+v", rep.Searches)
	}
}

// checkOrder fails the test unless out holds each part, in order.
func checkOrder(t *testing.T, name, out string, parts []string) {
	t.Helper()
	rest := out
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Errorf("%s: %q missing or out of order (want %q)", name, p, parts)
			return
		}
		rest = rest[i+len(p):]
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
	if err := report.WriteReport(&buf, analyzed(report.Source{Run: run}, analysis.ReportOptions{}), report.FormatTable); err != nil {
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
	if err := report.WriteReport(&buf, analyzed(report.Source{Run: run}, analysis.ReportOptions{}), report.FormatHTML); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-chart="usl-0"`, "java-platform measured", "java-platform USL fit", "clients"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}
