package report_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// warming is n seconds rising linearly from lo to hi over the first
// knee seconds, then at hi with the fixture's wobble.
func warming(lo, hi float64, knee, n int) []float64 {
	values := around(hi, n)
	for i := range knee {
		values[i] = lo + (hi-lo)*float64(i)/float64(knee)
	}
	return values
}

// steadyRun is the run, one round: go flat at 2,400 req/s;
// java-platform warming up for 6 s of 30 then flat; java-virtual still
// climbing at the end of its stage.
func steadyRun(t *testing.T) *bench.Run {
	climbing := make([]float64, 30)
	for i := range climbing {
		climbing[i] = 1300 + 40*float64(i)
	}
	return craftedRun(t, 50, heavy20,
		crafted{bench.TargetGo, nil, around(2400, 30), 10, 30},
		crafted{bench.TargetJavaPlatform, nil, warming(1500, 2400, 6, 30), 10, 30},
		crafted{bench.TargetJavaVirtual, nil, climbing, 10, 30})
}

// heavy20 is the workload: 50 clients on it are bound at 2,500 req/s.
var heavy20 = []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "20"}, Weight: 1}}

func TestAnalyze_SteadyPart(t *testing.T) {
	rep := report.Analyze(steadyRun(t), report.ReportOptions{})
	stage := rep.Scopes[1]
	parts := map[string]bench.SteadyPart{}
	for _, res := range stage.Results {
		if len(res.Steady) != 1 {
			t.Fatalf("%s: %d steady parts, want 1", res.Label, len(res.Steady))
		}
		parts[res.Label] = res.Steady[0]
	}
	if got := parts[bench.TargetGo]; !got.Steady || got.Cut != 0 {
		t.Errorf("go: %+v, want steady, nothing cut", got)
	}
	if got := parts[bench.TargetJavaPlatform]; !got.Steady || got.Cut < 5 || got.Cut > 7 {
		t.Errorf("java-platform: %+v, want steady, 6 ± 1 s cut", got)
	}
	if got := parts[bench.TargetJavaVirtual]; got.Steady || got.Figure != "throughput" || got.Trend <= 0 {
		t.Errorf("java-virtual: %+v, want not steady, throughput trending up", got)
	}
	// java-platform's figure is its steady seconds': about 2,400, where
	// the whole stage's mean is pulled down by the warm-up.
	if got := figureOf(t, stage, bench.TargetJavaPlatform).Throughput.Value; got < 2350 || got > 2450 {
		t.Errorf("java-platform throughput = %.1f, want the steady 2400 ± 50", got)
	}
}

func TestAnalyze_NotSteadyNoVerdict(t *testing.T) {
	rep := report.Analyze(steadyRun(t), report.ReportOptions{})
	for _, sc := range rep.Scopes {
		for _, r := range sc.Ranks {
			if slices.ContainsFunc(r.Entries, func(e bench.RankEntry) bool { return e.Label == bench.TargetJavaVirtual }) {
				t.Errorf("%s: java-virtual ranked in %s, but it is not steady", sc.Name, r.Figure)
			}
		}
		for _, p := range sc.Pairs {
			if p.A == bench.TargetJavaVirtual || p.B == bench.TargetJavaVirtual {
				t.Errorf("%s: pair %s vs %s drawn from a stage that is not steady", sc.Name, p.A, p.B)
			}
		}
	}
	hasFinding(t, rep, "java-virtual is not steady in stage 1", "throughput +", "no ranking or pair verdict")
	lacksFinding(t, rep, "java-virtual is better")
	lacksFinding(t, rep, "java-virtual is worse")
	hasFinding(t, rep, "Throughput, whole attack: java-platform 2402.0 req/s ≈ go 2400.0")
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, "Steady part: ") }) {
		t.Errorf("notes = %q, want the steady part's method", rep.Notes)
	}
}

func TestWriteReport_StatesTheCut(t *testing.T) {
	var out strings.Builder
	if err := report.WriteReport(&out, report.Source{Run: steadyRun(t)}, "table", report.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go: all 30 s", "java-platform: first 6 s cut, 24 s kept", "java-virtual: not steady: throughput +"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func figureOf(t *testing.T, sc bench.ReportScope, label string) bench.Figures {
	t.Helper()
	for _, res := range sc.Results {
		if res.Label == label {
			return res.Figures
		}
	}
	t.Fatalf("%s: no result for %s", sc.Name, label)
	return bench.Figures{}
}

func TestAnalyze_RunToRunCV(t *testing.T) {
	// Four rounds: java-virtual at 2,000 ± 2%, java-platform at 1,000 ± 10%.
	virtual, platform := []float64{1960, 2000, 2040, 2000}, []float64{900, 1000, 1100, 1000}
	var run *bench.Run
	for round := range virtual {
		r := craftedRun(t, 50, heavy20,
			crafted{bench.TargetJavaPlatform, nil, around(platform[round], 20), 10, 30},
			crafted{bench.TargetJavaVirtual, nil, around(virtual[round], 20), 10, 30})
		for i := range r.Targets {
			r.Targets[i].Round = round
		}
		if run == nil {
			run = r
			continue
		}
		run.Targets = append(run.Targets, r.Targets...)
	}
	run.Spec.Repeat = len(virtual)
	rep := report.Analyze(run, report.ReportOptions{})
	pf := rep.Scopes[1].Pairs[0].Figures[0]
	if pf.CVA == nil || pf.CVB == nil {
		t.Fatalf("pair %+v: no run-to-run CV", pf)
	}
	if got, want := *pf.CVA, 1.63; got < want-0.01 || got > want+0.01 {
		t.Errorf("java-virtual run-to-run CV = %.2f%%, want %.2f%%", got, want)
	}
	if got, want := *pf.CVB, 8.16; got < want-0.01 || got > want+0.01 {
		t.Errorf("java-platform run-to-run CV = %.2f%%, want %.2f%%", got, want)
	}
	hasFinding(t, rep, "java-virtual is better than java-platform in throughput", "run-to-run CV 1.6% and 8.2%")
}

func TestWriteReport_HTMLShadesTheCut(t *testing.T) {
	var out strings.Builder
	if err := report.WriteReport(&out, report.Source{Run: steadyRun(t)}, "html", report.ReportOptions{}); err != nil {
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

func TestAnalyze_WarmupUntilSteady(t *testing.T) {
	run := steadyRun(t)
	jit := 3100.0
	run.Targets[0].WarmupSteady = &bench.WarmupSteady{Seconds: 10.2, Steady: true, MaxDuration: bench.Duration(2 * time.Minute)}
	run.Targets[2].WarmupSteady = &bench.WarmupSteady{Seconds: 120.1, Steady: false, MaxDuration: bench.Duration(2 * time.Minute),
		Figure: "throughput", Trend: 0.8, JITMs: &jit}
	rep := report.Analyze(run, report.ReportOptions{})
	hasFinding(t, rep, "Warm-up until steady: go 10.2 s; java-virtual 120.1 s (JIT 3.1 s) (maximum hit, throughput still +0.8 %/s).")
}

func TestWriteRun_WarmupUntilSteady(t *testing.T) {
	run := steadyRun(t)
	run.Spec.Warmup = bench.Warmup{UntilSteady: true, Window: bench.Duration(10 * time.Second), MaxDuration: bench.Duration(2 * time.Minute)}
	jit, after := 3100.0, 200.0
	run.Targets[1].WarmupSteady = &bench.WarmupSteady{Seconds: 18.3, Steady: true, MaxDuration: bench.Duration(2 * time.Minute), JITMs: &jit, JITMsMeasured: &after}
	var out strings.Builder
	if err := report.WriteRun(&out, run, "table"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"until steady at the first stage's load (over 10s, at most 2m0s)",
		"steady after 18.3 s; JIT 3.1 s, then 0.2 s in the measured part"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run lacks %q:\n%s", want, out.String())
		}
	}
}
