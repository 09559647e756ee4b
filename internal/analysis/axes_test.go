package analysis_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
)

func pairsOf(sc bench.ReportScope) map[string]bench.Pair {
	out := map[string]bench.Pair{}
	for _, p := range sc.Pairs {
		out[p.A+" vs "+p.B] = p
	}
	return out
}

// A service run along two axes is paired along each, within each value
// of the other: virtual against platform threads on each JDK, 25 against
// 21 in each thread model.
func TestAnalyze_AxisPairs(t *testing.T) {
	rep := analysis.Analyze(analysistest.PinningMatrix(t), analysis.ReportOptions{})
	pairs := pairsOf(rep.Scopes[0])
	for name, axis := range map[string]string{
		"orders@virtual,jdk=21 vs orders@platform,jdk=21":  "thread model",
		"orders@virtual,jdk=25 vs orders@platform,jdk=25":  "thread model",
		"orders@platform,jdk=25 vs orders@platform,jdk=21": "JDK",
		"orders@virtual,jdk=25 vs orders@virtual,jdk=21":   "JDK",
	} {
		if p, ok := pairs[name]; !ok || p.Axis != axis {
			t.Errorf("pair %s: %+v, want one along the %s", name, p, axis)
		}
	}
	if len(pairs) != 4 {
		t.Errorf("pairs = %v, want the four one axis apart", slices.Sorted(func(yield func(string) bool) {
			for k := range pairs {
				yield(k)
			}
		}))
	}
	hasFinding(t, rep, "orders@virtual,jdk=21 is worse than orders@platform,jdk=21 in throughput: -85.0%")
	lacksFinding(t, rep, "orders@virtual,jdk=25 is worse than")
	hasFinding(t, rep, "orders: the JDK moved its throughput most (25 vs 21: +2.5% on platform, no difference shown; +600.0% on virtual), "+
		"then the thread model (virtual vs platform: -85.0% on jdk=21; +2.4% on jdk=25, no difference shown).")
}

// The matrix lays the variants out by thread model and JDK, with their
// throughput and p99.
func TestAnalyze_Matrix(t *testing.T) {
	rep := analysis.Analyze(analysistest.PinningMatrix(t), analysis.ReportOptions{})
	if len(rep.Matrices) != 1 {
		t.Fatalf("matrices = %+v, want one", rep.Matrices)
	}
	m := rep.Matrices[0]
	if m.Target != "orders" || m.Rows != "thread model" || m.Columns != "JDK" || !slices.Equal(m.RowValues, []string{"platform", "virtual"}) ||
		!slices.Equal(m.ColumnValues, []string{"21", "25"}) || m.Scope != "whole attack" {
		t.Errorf("matrix %+v, want orders' thread models by JDK over the whole attack", m)
	}
	if c := m.Cells[1][0]; c.Label != "orders@virtual,jdk=21" || c.Throughput < 59 || c.Throughput > 61 || c.P99 < 500 || c.Capacity != nil {
		t.Errorf("virtual on 21: %+v, want about 60 req/s and its p99, no capacity", c)
	}
}

// More axes than two: a matrix per value of the rest; a variant not run
// leaves its cell empty. The built-in Java targets sit on the same axes,
// their thread model their variant.
func TestAnalyze_MatrixOfThreeAxesAndBuiltins(t *testing.T) {
	cell := func(target, model, jdk, pool string, rps float64) analysistest.Crafted {
		return analysistest.Crafted{Target: target, Settings: analysistest.At(model, "variant", model, "jdk", jdk, "pool", pool), PerSecond: analysistest.Around(rps, 20), Low: 10, High: 20}
	}
	r := analysistest.CraftedRun(t, 32, analysistest.Legacy,
		cell("orders@platform,jdk=21,pool=t200", "platform", "21", "t200", 200),
		cell("orders@virtual,jdk=21,pool=t200", "virtual", "21", "t200", 300),
		cell("orders@platform,jdk=25,pool=t200", "platform", "25", "t200", 200),
		cell("orders@platform,jdk=21,pool=t400", "platform", "21", "t400", 400),
		analysistest.Crafted{Target: "java-platform@21", Settings: analysistest.At("platform", "jdk", "21"), PerSecond: analysistest.Around(100, 20), Low: 10, High: 20},
		analysistest.Crafted{Target: "java-virtual@21", Settings: analysistest.At("virtual", "jdk", "21"), PerSecond: analysistest.Around(150, 20), Low: 10, High: 20},
		analysistest.Crafted{Target: "java-virtual@25", Settings: analysistest.At("virtual", "jdk", "25"), PerSecond: analysistest.Around(300, 20), Low: 10, High: 20})
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	var fixed []string
	for _, m := range rep.Matrices {
		fixed = append(fixed, m.Target+" "+m.Fixed)
	}
	if want := []string{"orders pool=t200", "orders pool=t400", "the built-in Java targets "}; !slices.Equal(fixed, want) {
		t.Errorf("matrices %v, want %v", fixed, want)
	}
	if c := rep.Matrices[1].Cells[1][1]; c.Label != "" {
		t.Errorf("virtual on 25 with t400 was not run: %+v", c)
	}
	pairs := pairsOf(rep.Scopes[0])
	for _, want := range []string{"orders@platform,jdk=21,pool=t400 vs orders@platform,jdk=21,pool=t200", "java-virtual@21 vs java-platform@21", "java-virtual@25 vs java-virtual@21"} {
		if _, ok := pairs[want]; !ok {
			t.Errorf("no pair %s in %v", want, rep.Scopes[0].Pairs)
		}
	}
	if p := pairs["orders@platform,jdk=21,pool=t400 vs orders@platform,jdk=21,pool=t200"]; p.Axis != "pool" {
		t.Errorf("pool pair along %q", p.Axis)
	}
	if !slices.ContainsFunc(rep.Findings, func(f bench.Finding) bool {
		return strings.HasPrefix(f.Text, "orders: the pool moved its throughput most (t400 vs t200: +100.0% on platform, jdk=21)")
	}) {
		t.Errorf("findings %v, want the pool named first", rep.Findings)
	}
}

// What each JVM said about its virtual threads, where it said anything:
// pins on 21, none on 25, whose scheduler reports itself.
func TestAnalyze_VirtualThreads(t *testing.T) {
	rep := analysis.Analyze(analysistest.PinningMatrix(t), analysis.ReportOptions{})
	rows := map[string]bench.VirtualThreadRow{}
	for _, r := range rep.VirtualThreads {
		rows[r.Label] = r
	}
	if len(rows) != 4 {
		t.Fatalf("rows %+v, want one per variant", rep.VirtualThreads)
	}
	if r := rows["orders@virtual,jdk=21"]; r.Pinned != 1150 || r.PinnedPerSecond != 0.95 || r.SubmitFailed == nil || *r.SubmitFailed != 0 || r.Parallelism != nil {
		t.Errorf("virtual on 21: %+v, want 1150 pins, 0.95 s pinned a second, 0 failed submits, no scheduler", r)
	}
	if r := rows["orders@virtual,jdk=25"]; r.Pinned != 0 || r.Parallelism == nil || *r.Parallelism != 1 || r.Queued == nil || *r.Queued != 12 {
		t.Errorf("virtual on 25: %+v, want no pins and the scheduler's figures", r)
	}
}

// Where a capacity search ran, each cell has its variant's capacity.
func TestAnalyze_MatrixCapacity(t *testing.T) {
	r := analysistest.PinningMatrix(t)
	for i, rate := range []float64{380, 370, 40, 360} {
		r.Targets[i].Capacity = &bench.CapacityResult{Objective: "p99<=250ms", Rate: rate, Stop: "precision"}
	}
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	if c := rep.Matrices[0].Cells[1][0]; c.Capacity == nil || *c.Capacity != 40 {
		t.Errorf("virtual on 21: %+v, want its capacity of 40 req/s", c)
	}
}

// Two builds of one service are paired along the build, as `run --jar a.jar
// --jar b.jar` asks: the build whose requests wait longer is worse.
func TestAnalyze_BuildPair(t *testing.T) {
	build := func(name string, rps float64, low, high float64) analysistest.Crafted {
		return analysistest.Crafted{Target: "orders@virtual,build=" + name, Settings: analysistest.At("virtual", "build", name),
			PerSecond: analysistest.Around(rps, 20), Low: low, High: high}
	}
	r := analysistest.CraftedRun(t, 2, analysistest.Legacy, build("orders", 32, 55, 60), build("orders-slower", 17, 105, 112))
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	p, ok := pairsOf(rep.Scopes[0])["orders@virtual,build=orders-slower vs orders@virtual,build=orders"]
	if !ok || p.Axis != bench.AxisBuild {
		t.Fatalf("pairs %v, want the slower build against the other along the build", rep.Scopes[0].Pairs)
	}
	for _, pf := range p.Figures {
		if pf.Figure == analysis.MetricThroughput && (pf.Verdict != bench.VerdictWorse || !pf.Test.Significant) {
			t.Errorf("throughput: %s (%+.1f%%), want worse, significant", pf.Verdict, pf.Change)
		}
	}
}

// The Spring Boot axis of a built-in Java target pairs the newer line
// against the older, as the JDK's does, whichever ran first: java-virtual
// (Boot 4.1, run first) against java-virtual@boot=3.5, along "Spring Boot line".
func TestAnalyze_SpringBootPair(t *testing.T) {
	line := func(ref, boot string, rps float64, low, high float64) analysistest.Crafted {
		return analysistest.Crafted{Target: ref, Settings: analysistest.At("virtual", "jdk", "25", "boot", boot),
			PerSecond: analysistest.Around(rps, 20), Low: low, High: high}
	}
	r := analysistest.CraftedRun(t, 2, analysistest.Legacy, line("java-virtual", "4.1", 40, 50, 55), line("java-virtual@boot=3.5", "3.5", 32, 60, 66))
	rep := analysis.Analyze(r, analysis.ReportOptions{})
	p, ok := pairsOf(rep.Scopes[0])["java-virtual vs java-virtual@boot=3.5"]
	if !ok || p.Axis != "Spring Boot line" {
		t.Fatalf("pairs %v, want Spring Boot 4.1 against 3.5 along the Spring Boot line", rep.Scopes[0].Pairs)
	}
	for _, pf := range p.Figures {
		if pf.Figure == analysis.MetricThroughput && (pf.Verdict != bench.VerdictBetter || !pf.Test.Significant) {
			t.Errorf("throughput: %s (%+.1f%%), want better, significant", pf.Verdict, pf.Change)
		}
	}
}
