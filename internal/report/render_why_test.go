package report_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/flame"
	"github.com/threadbench/threadbench/internal/report"
)

// whyRun is a crafted run of java-platform and java-virtual that recorded
// inside both and kept their stage's samples.
func whyRun(t *testing.T) *bench.Run {
	r := analysistest.CraftedRun(t, 100, []bench.Request{{Endpoint: "cpu", Weight: 1}},
		analysistest.Crafted{Target: bench.TargetJavaPlatform, Settings: map[string]string{"threadModel": "platform"}, PerSecond: analysistest.Around(100, 10), Low: 10, High: 20},
		analysistest.Crafted{Target: bench.TargetJavaVirtual, Settings: map[string]string{"threadModel": "virtual"}, PerSecond: analysistest.Around(100, 10), Low: 10, High: 20})
	zero := 0
	for i := range r.Targets {
		tr := &r.Targets[i]
		tr.Inside = &bench.Inside{Source: bench.ProfileJFR, Why: []bench.Diagnosis{{Target: tr.Key(), Source: bench.ProfileJFR}},
			Files: []bench.Artifact{{Target: tr.Key(), Stage: &zero, Kind: bench.ArtifactFolded, Bytes: 1}}}
	}
	return r
}

// stacks are n distinct stacks, each of its samples, deep enough to make
// a heavy graph and a heavy file.
func stacks(n int) flame.Stacks {
	var b flame.Builder
	for i := range n {
		frames := []string{"java.lang.Thread.run"}
		for d := range 30 {
			frames = append(frames, fmt.Sprintf("com.example.deep.Layer%d.call%d", d, i%(d+1)))
		}
		b.Add(append(frames, fmt.Sprintf("com.example.Work.leaf%d", i)), int64(1+i%7))
	}
	return b.Stacks()
}

// The HTML report draws a flame graph per target, platform before
// virtual, each with its folded stacks to download while they are small;
// a profile of any size keeps the page's weight bounded: the graph's
// boxes capped, large stacks left to the API.
func TestWhyFlamesHTML(t *testing.T) {
	r := whyRun(t)
	small, large := stacks(20), stacks(20000)
	src := report.Source{Run: r, Flames: []report.Flame{
		{Ref: bench.FlameRef{Key: bench.TargetJavaPlatform, Stage: 0}, Stacks: small},
		{Ref: bench.FlameRef{Key: bench.TargetJavaVirtual, Stage: 0}, Stacks: large}}}
	var buf bytes.Buffer
	if err := report.WriteReport(&buf, analyzed(src, analysis.ReportOptions{}), report.FormatHTML); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	graphs := regexp.MustCompile(`(?s)<svg xmlns="http://www.w3.org/2000/svg" class="chart flame" data-chart="flame-\d" role="img" aria-label="([^"]+)".*?</svg>`).FindAllStringSubmatch(page, -1)
	if len(graphs) != 2 || !strings.HasPrefix(graphs[0][1], "java-platform") || !strings.HasPrefix(graphs[1][1], "java-virtual") {
		t.Fatalf("%d flame graphs, want java-platform's then java-virtual's", len(graphs))
	}
	for _, g := range graphs {
		if n := strings.Count(g[0], `<g class="frame"`); n == 0 || n > 1000 {
			t.Errorf("%s: %d boxes, want some and at most 1000", g[1], n)
		}
	}
	if n := strings.Count(page, `href="data:text/plain;charset=utf-8;base64,`); n != 1 {
		t.Errorf("%d folded stacks to download in the page, want the small one only", n)
	}
	if !strings.Contains(page, "are served by the API: targets/java-virtual/stages/0/stacks.folded") {
		t.Error("the large stacks' caption does not say where the API serves them")
	}
	if len(page) > 2<<20 {
		t.Errorf("the page weighs %d bytes, want under 2 MB", len(page))
	}
	// The text formats say where the folded stacks are, and draw nothing.
	buf.Reset()
	if err := report.WriteReport(&buf, analyzed(src, analysis.ReportOptions{}), report.FormatTable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "GET /runs/crafted/targets/java-virtual/stages/0/stacks.folded") || strings.Contains(buf.String(), "<svg") {
		t.Errorf("the table report's why:\n%s", buf.String())
	}
}

// A cause is shown with what it waited for beside its kind, and what to
// try under it.
func TestWhyWaitsAndTry(t *testing.T) {
	r := whyRun(t)
	d := &r.Targets[0].Inside.Why[0]
	d.Causes = []bench.Cause{{Kind: bench.VerdictLockBound, Share: 0.87, Waits: "database connections", Try: "size the pool",
		Sentence: d.Target + ": its request threads waited in com.zaxxer.hikari.pool.HikariPool.getConnection for 87 % of the stage"}}
	var buf bytes.Buffer
	if err := report.WriteReport(&buf, analyzed(report.Source{Run: r}, analysis.ReportOptions{}), report.FormatTable); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"stage 1, lock-bound (database connections): its request threads waited in com.zaxxer.hikari.pool.HikariPool.getConnection for 87 % of the stage",
		"stage 1, what to try (lock-bound): size the pool",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the table report's why does not say %q:\n%s", want, buf.String())
		}
	}
}

// JDK Mission Control's rules are listed beside the why, in every
// format, with where they part from it.
func TestWhyJMC(t *testing.T) {
	r := whyRun(t)
	score := 100.0
	r.Targets[0].Inside.JMC = &bench.JMCAnalysis{Version: "9.1.0", Seconds: 1.2, OK: 40,
		Rules:    []bench.JMCRule{{ID: "JavaBlocking", Severity: "WARNING", Score: &score, Summary: "Threads were blocked on monitors."}},
		Disagree: []string{"JMC warns JavaBlocking (score 100), where no stage's why is lock-bound"}}
	for _, format := range []string{report.FormatTable, report.FormatMarkdown, report.FormatHTML} {
		var buf bytes.Buffer
		if err := report.WriteReport(&buf, analyzed(report.Source{Run: r}, analysis.ReportOptions{}), format); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"JDK Mission Control&#39;s rules (JMC 9.1.0)", "JavaBlocking", "Threads were blocked on monitors.",
			"1 rules found something, 40 nothing, in 1.2 s", "disagrees: JMC warns JavaBlocking (score 100), where no stage&#39;s why is lock-bound"} {
			if format != report.FormatHTML {
				want = strings.ReplaceAll(want, "&#39;", "'")
			}
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%s report does not say %q", format, want)
			}
		}
	}
}

// A virtual variant's why says its virtual threads as the thread dumps
// counted them in the stage that matters; a platform variant's says none.
func TestWhyVirtualThreads(t *testing.T) {
	r := whyRun(t)
	r.Targets[1].Inside.VirtualThreads = []bench.VirtualThreadStage{{Stage: 0, Dumps: 10, PeakAlive: 412, MeanAlive: 398, PeakParked: 405, MeanParked: 391}}
	var buf bytes.Buffer
	if err := report.WriteReport(&buf, analyzed(report.Source{Run: r}, analysis.ReportOptions{}), report.FormatTable); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if want := "virtual threads  398 alive on average (412 at the most), 391 of them parked (98 %), in 10 thread dumps of the stage"; !strings.Contains(text, want) {
		t.Errorf("the report lacks %q:\n%s", want, text)
	}
	if strings.Count(text, "alive on average") != 1 {
		t.Errorf("virtual threads said %d times, want once (java-virtual's)", strings.Count(text, "alive on average"))
	}
}
