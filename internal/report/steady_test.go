package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

func TestWriteReport_StatesTheCut(t *testing.T) {
	var out strings.Builder
	if err := report.WriteReport(&out, analyzed(report.Source{Run: analysistest.SteadyRun(t)}, analysis.ReportOptions{}), "table"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go: all 30 s", "java-platform: first 6 s cut, 24 s kept", "java-virtual: not steady: throughput +"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestWriteReport_HTMLShadesTheCut(t *testing.T) {
	var out strings.Builder
	if err := report.WriteReport(&out, analyzed(report.Source{Run: analysistest.SteadyRun(t)}, analysis.ReportOptions{}), "html"); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, want := range []string{"<title>java-platform: transient (cut)</title>", "<title>java-virtual: not steady</title>"} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML report lacks a band %q", want)
		}
	}
	if strings.Contains(page, "<title>go: transient") {
		t.Errorf("HTML report shades a transient of go, which had none")
	}
}

func TestWriteRun_WarmupUntilSteady(t *testing.T) {
	run := analysistest.SteadyRun(t)
	run.Spec.Warmup = bench.Warmup{UntilSteady: true, Window: bench.Duration(10 * time.Second), MaxDuration: bench.Duration(2 * time.Minute)}
	jit, after := 3100.0, 200.0
	run.Targets[1].WarmupSteady = &bench.WarmupSteady{Seconds: 18.3, Steady: true, MaxDuration: bench.Duration(2 * time.Minute), JITMs: &jit, JITMsMeasured: &after}
	var out strings.Builder
	if err := report.WriteRun(&out, run, summary(run), "table"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"until steady at the first stage's load (over 10s, at most 2m0s)",
		"steady after 18.3 s; JIT 3.1 s, then 0.2 s in the measured part"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run lacks %q:\n%s", want, out.String())
		}
	}
}
