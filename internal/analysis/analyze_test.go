package analysis_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
)

var heavy500 = []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "500"}, Weight: 1}}

var platformPool = map[string]string{"javaThreadModel": "platform", "tomcatMaxThreads": "200"}

// hasFinding fails the test unless a finding contains every part.
func hasFinding(t *testing.T, rep bench.Report, parts ...string) {
	t.Helper()
	for _, f := range rep.Findings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(f.Text, p)
		}
		if all {
			return
		}
	}
	var texts []string
	for _, f := range rep.Findings {
		texts = append(texts, f.Text)
	}
	t.Errorf("no finding with %q among:\n%s", parts, strings.Join(texts, "\n"))
}

func lacksFinding(t *testing.T, rep bench.Report, part string) {
	t.Helper()
	for _, f := range rep.Findings {
		if strings.Contains(f.Text, part) {
			t.Errorf("finding %q claims %q", f.Text, part)
		}
	}
}

func boundOf(t *testing.T, sc bench.ReportScope, label, kind string) bench.Bound {
	t.Helper()
	for _, b := range sc.Bounds {
		if b.Label == label && b.Kind == kind {
			return b
		}
	}
	t.Fatalf("no %s bound for %s in %+v", kind, label, sc.Bounds)
	return bench.Bound{}
}

func TestAnalyze_PoolBound(t *testing.T) {
	// 400 clients on heavy?duration=500: Tomcat's 200 threads allow 200 /
	// 0.5 s = 400 req/s, whatever the clients could send; the queue makes
	// each request take about a second.
	r := analysistest.CraftedRun(t, 400, heavy500,
		analysistest.Crafted{Target: bench.TargetJavaPlatform, Settings: platformPool, PerSecond: analysistest.Around(398, 20), Low: 995, High: 1015},
		analysistest.Crafted{Target: bench.TargetGo, Settings: nil, PerSecond: analysistest.Around(790, 20), Low: 500, High: 520})
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	stage := rep.Scopes[1]
	pool := boundOf(t, stage, bench.TargetJavaPlatform, bench.BoundPool)
	if pool.Allowed != 400 || !pool.Binds || pool.Basis != "200 threads ÷ 0.500 s service time" {
		t.Errorf("pool bound = %+v, want 400 req/s from 200 threads ÷ 0.500 s, binding", pool)
	}
	if got := pool.Measured; math.Abs(got-398) > 1e-9 {
		t.Errorf("measured = %v, want 398 beside the bound", got)
	}
	clients := boundOf(t, stage, bench.TargetJavaPlatform, bench.BoundClients)
	if clients.Allowed != 800 || clients.Binds {
		t.Errorf("clients bound = %+v, want 800 req/s, not binding", clients)
	}
	little := boundOf(t, stage, bench.TargetJavaPlatform, bench.BoundLittle)
	if want := 400 / 1.005; math.Abs(little.Allowed-want) > 0.01 {
		t.Errorf("Little's law = %v, want 400 clients ÷ 1.005 s = %v", little.Allowed, want)
	}
	// Go has no pool: its clients bind it.
	if b := boundOf(t, stage, bench.TargetGo, bench.BoundClients); !b.Binds || b.Allowed != 800 {
		t.Errorf("go clients bound = %+v, want 800 binding", b)
	}
	if slices.ContainsFunc(stage.Bounds, func(b bench.Bound) bool { return b.Label == bench.TargetGo && b.Kind == bench.BoundPool }) {
		t.Error("go has a pool bound; goroutines are one per request")
	}
	hasFinding(t, rep, "java-platform is bound by its 200-thread pool in stage 1 (c400): 400.0 req/s allowed (200 threads ÷ 0.500 s service time), 398.0 measured.")
	hasFinding(t, rep, "In stage 1 (c400) only the clients bound go 790.0 req/s (800.0 allowed: 400 clients ÷ (0.500 s service time)).")
}

func TestAnalyze_PoolOfAMixedWorkload(t *testing.T) {
	// Half heavy?duration=500, half light answered in 1 ms or more: the
	// pool serves a request in 0.2505 s on average.
	mix := append(slices.Clone(heavy500), bench.Request{Endpoint: "light", Weight: 1})
	r := analysistest.CraftedRun(t, 400, mix, analysistest.Crafted{Target: bench.TargetJavaPlatform, Settings: platformPool, PerSecond: analysistest.Around(790, 20), Low: 1, High: 1000})
	tr := &r.Targets[0]
	light := analysistest.StatsOf(t, analysistest.Spread{Requests: 100, Seconds: 20, Low: 1, High: 300})
	heavy := analysistest.StatsOf(t, analysistest.Spread{Requests: 100, Seconds: 20, Low: 500, High: 1000})
	tr.Stages[0].Requests = []bench.NamedStats{{Name: "heavy?duration=500", Stats: heavy}, {Name: "light", Stats: light}}
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	pool := boundOf(t, rep.Scopes[1], bench.TargetJavaPlatform, bench.BoundPool)
	if want := 200 / 0.2505; math.Abs(pool.Allowed-want) > 0.01 || pool.Basis != "200 threads ÷ 0.251 s mean service time" {
		t.Errorf("pool bound = %+v, want %v from the mean service time", pool, want)
	}
	if got := rep.Scopes[1].Results[0].Requests; len(got) != 2 || got[0].Name != "heavy?duration=500" || got[1].Figures.Latency.Min.Value != 1 {
		t.Errorf("per-request figures = %+v, want heavy then light (min 1 ms)", got)
	}
}

func TestAnalyze_WithinNoise(t *testing.T) {
	// 0.8% apart, each second scattered by up to ±40%: no claim either way.
	r := analysistest.CraftedRun(t, 200, heavy500,
		analysistest.Crafted{Target: bench.TargetGo, Settings: nil, PerSecond: scattered(400, 20, 7), Low: 500, High: 520},
		analysistest.Crafted{Target: bench.TargetJavaVirtual, Settings: nil, PerSecond: scattered(403.2, 20, 3), Low: 500, High: 520})
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	hasFinding(t, rep, "java-virtual and go differ by", "in throughput", "not a difference this run can show (p = ", "n = 10+10)")
	lacksFinding(t, rep, "better than")
	lacksFinding(t, rep, "worse than")
	r0 := rep.Scopes[0].Ranks[0]
	if r0.Figure != "throughput" || !r0.Entries[1].Same || r0.Entries[1].VsAbove == nil || r0.Entries[1].VsAbove.Significant {
		t.Errorf("throughput rank = %+v, want the two the same, not significantly different", r0)
	}
	for _, p := range rep.Scopes[0].Pairs {
		for _, f := range p.Figures {
			if f.Verdict != bench.VerdictNoDifference {
				t.Errorf("%s vs %s %s: %s, want no significant difference", p.A, p.B, f.Figure, f.Verdict)
			}
		}
	}
}

func TestAnalyze_ClearWinner(t *testing.T) {
	r := analysistest.CraftedRun(t, 400, heavy500,
		analysistest.Crafted{Target: bench.TargetJavaPlatform, Settings: platformPool, PerSecond: analysistest.Around(400, 20), Low: 990, High: 1010},
		analysistest.Crafted{Target: bench.TargetJavaVirtual, Settings: map[string]string{"javaThreadModel": "virtual"}, PerSecond: analysistest.Around(580, 20), Low: 500, High: 600})
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	hasFinding(t, rep, "java-virtual is better than java-platform in throughput: +45.0% (580.0 req/s vs 400.0 req/s; p < 0.001, n = 10+10).")
	hasFinding(t, rep, "Throughput, whole attack: java-virtual 580.0 req/s > java-platform 400.0 (p < 0.001, n = 10+10).")
	rank := rep.Scopes[0].Ranks[0]
	if got := []string{rank.Entries[0].Label, rank.Entries[1].Label}; !slices.Equal(got, []string{bench.TargetJavaVirtual, bench.TargetJavaPlatform}) {
		t.Errorf("throughput order = %v", got)
	}
	if got, want := rank.Entries[1].Relative, 400.0/580; math.Abs(got-want) > 1e-9 || rank.Entries[1].Same {
		t.Errorf("java-platform relative = %v (same %v), want %v and different", got, rank.Entries[1].Same, want)
	}
	// A virtual thread per request: no pool bounds it.
	for _, b := range rep.Scopes[1].Bounds {
		if b.Label == bench.TargetJavaVirtual && b.Kind == bench.BoundPool {
			t.Errorf("java-virtual has a pool bound %+v", b)
		}
	}
}

func TestAnalyze_SignificantButSmall(t *testing.T) {
	// Every second 3% apart: significant, under the 5% minimum effect.
	r := analysistest.CraftedRun(t, 100, heavy500,
		analysistest.Crafted{Target: bench.TargetGo, Settings: nil, PerSecond: analysistest.Around(200, 20), Low: 500, High: 510},
		analysistest.Crafted{Target: bench.TargetJavaVirtual, Settings: nil, PerSecond: analysistest.Around(194, 20), Low: 500, High: 510})
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	hasFinding(t, rep, "java-virtual and go differ by 3.0% in throughput", "significant (p < 0.001, n = 10+10) but under the 5% minimum effect.")
	// A smaller minimum effect makes it a verdict.
	rep = analysis.Analyze(r, analysis.ReportOptions{MinEffect: 2})
	hasFinding(t, rep, "java-virtual is worse than go in throughput: -3.0%")
}

func TestAnalyze_Intervals(t *testing.T) {
	tests := []struct {
		name   string
		rounds []float64
		method string
		level  float64
		lo, hi float64
	}{
		// Six rounds or more: benchmath's interval of the median.
		{"six rounds", []float64{100, 101, 99, 102, 98, 100}, bench.IntervalMedian, 0.96875, 98, 102},
		// Fewer: the range of the rounds, at the level it achieves.
		{"three rounds", []float64{100, 104, 97}, bench.IntervalRange, 0.75, 97, 104},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := roundsRun("rounds", tt.rounds...)
			rep := analysis.Analyze(r, analysis.ReportOptions{})
			e := rep.Scopes[0].Results[0].Figures.Throughput
			if e.CI == nil {
				t.Fatalf("throughput %+v has no interval", e)
			}
			if e.CI.Method != tt.method || math.Abs(e.CI.Level-tt.level) > 1e-9 || e.CI.Lo != tt.lo || e.CI.Hi != tt.hi || e.CI.N != len(tt.rounds) {
				t.Errorf("interval = %+v, want %s %v..%v at %v over %d rounds", *e.CI, tt.method, tt.lo, tt.hi, tt.level, len(tt.rounds))
			}
			if got, want := rep.Subjects[0].Rounds, len(tt.rounds); got != want {
				t.Errorf("rounds = %d, want %d", got, want)
			}
		})
	}
}

func TestAnalyze_WithinRunInterval(t *testing.T) {
	r := analysistest.CraftedRun(t, 100, heavy500, analysistest.Crafted{Target: bench.TargetGo, Settings: nil, PerSecond: analysistest.Around(200, 20), Low: 500, High: 510})
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	e := rep.Scopes[1].Results[0].Figures.Throughput
	if e.CI == nil || e.CI.Method != bench.IntervalWithinRun || e.CI.N != 20 || e.CI.Lo >= e.Value || e.CI.Hi <= e.Value {
		// A flat stage has no transient: all its 20 seconds are steady.
		t.Fatalf("throughput = %+v (%+v), want a within-run interval around it from the 20 steady seconds", e, e.CI)
	}
	if e := rep.Scopes[1].Results[0].Figures.Latency.Max; e.CI != nil {
		t.Errorf("max latency has a within-run interval %+v; a second's maximum stands for nothing", *e.CI)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, "One round: intervals are within-run") }) {
		t.Errorf("notes = %q, want the within-run caveat", rep.Notes)
	}
}

func TestAnalyze_OldRun(t *testing.T) {
	// Stored before per-second buckets, per-request figures and
	// histograms: figures without intervals, nothing claimed.
	r := analysistest.BaseRun(t)
	for i := range r.Targets {
		tr := &r.Targets[i]
		tr.Seconds, tr.Total.Histogram = nil, ""
		for j := range tr.Stages {
			tr.Stages[j].Stats.Histogram = ""
		}
	}
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	for _, sc := range rep.Scopes {
		for _, res := range sc.Results {
			if res.Figures.Throughput.CI != nil {
				t.Errorf("%s %s: an interval without seconds", sc.Name, res.Label)
			}
		}
	}
	lacksFinding(t, rep, "better than")
	lacksFinding(t, rep, "worse than")
	for _, want := range []string{"go: no per-second figures stored", "go: no latency histogram for whole attack"} {
		if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
			t.Errorf("notes = %q, want one starting %q", rep.Notes, want)
		}
	}
}

func TestAnalyze_FailedTargetAndFlags(t *testing.T) {
	r := analysistest.CraftedRun(t, 100, heavy500,
		analysistest.Crafted{Target: bench.TargetGo, Settings: nil, PerSecond: analysistest.Around(200, 20), Low: 500, High: 510},
		analysistest.Crafted{Target: bench.TargetJavaVirtual, Settings: nil, PerSecond: analysistest.Around(190, 20), Low: 500, High: 510})
	r.Targets = append(r.Targets, bench.TargetResult{Target: bench.TargetJavaPlatform, Status: bench.TargetFailed, Error: "never healthy"})
	st := &r.Targets[0].Stages[0]
	st.Flags = []bench.Flag{{Kind: bench.FlagGeneratorBound, Reason: "send lag p99 7.2 ms (limit 5 ms)"}}
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	hasFinding(t, rep, "java-platform failed: never healthy.")
	hasFinding(t, rep, "go, stage 1 (c100): generator-bound (send lag p99 7.2 ms (limit 5 ms))")
	if got := rep.Scopes[1].Results[0].Flags; len(got) != 1 || got[0].Kind != bench.FlagGeneratorBound {
		t.Errorf("flags = %+v, want the stage's generator-bound flag", got)
	}
	if got, want := len(rep.Scopes[0].Results), 2; got != want {
		t.Errorf("%d results in the whole attack, want %d (the failed target measured nothing)", got, want)
	}
}

func TestAnalyze_VegetaNote(t *testing.T) {
	// The note is there when the stored stages say vegeta sent them, and
	// only then.
	r := analysistest.BaseRun(t)
	if rep := analysis.Analyze(r, analysis.ReportOptions{}); slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, "Load engine vegeta") }) {
		t.Errorf("notes = %q: a vegeta note for a run vegeta did not send", rep.Notes)
	}
	st := &r.Targets[0].Stages[0]
	st.Generator = &bench.Generator{Engine: bench.LoadEngineVegeta}
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	if !slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.HasPrefix(n, "Load engine vegeta: its latency is stamped at the actual send")
	}) {
		t.Errorf("notes = %q, want the vegeta latency caveat", rep.Notes)
	}
}

// A service of one's own run in both thread models is paired like
// java-virtual and java-platform: by the thread model each variant
// recorded, not by its name; two variants of one model make no pair.
func TestAnalyze_OwnServiceVariantsPaired(t *testing.T) {
	virtual, platform := map[string]string{"threadModel": "virtual"}, map[string]string{"threadModel": "platform"}
	r := analysistest.CraftedRun(t, 150, []bench.Request{{URI: "/api/orders", Method: "POST", Weight: 1}},
		analysistest.Crafted{Target: "orders@platform", Settings: platform, PerSecond: analysistest.Around(400, 20), Low: 300, High: 400},
		analysistest.Crafted{Target: "orders@virtual", Settings: virtual, PerSecond: analysistest.Around(600, 20), Low: 200, High: 300},
		analysistest.Crafted{Target: "shop@loom", Settings: virtual, PerSecond: analysistest.Around(500, 20), Low: 200, High: 300},
		analysistest.Crafted{Target: "shop@loom-small", Settings: virtual, PerSecond: analysistest.Around(500, 20), Low: 200, High: 300},
		analysistest.Crafted{Target: "shop@classic", Settings: platform, PerSecond: analysistest.Around(500, 20), Low: 200, High: 300})
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	var pairs []string
	for _, p := range rep.Scopes[0].Pairs {
		pairs = append(pairs, p.A+" vs "+p.B)
	}
	if want := []string{"orders@virtual vs orders@platform"}; !slices.Equal(pairs, want) {
		t.Errorf("pairs = %v, want %v", pairs, want)
	}
	hasFinding(t, rep, "orders@virtual is better than orders@platform in throughput")
}
