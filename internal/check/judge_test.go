package check_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
)

// mustObjective parses an objective the test knows to be good.
func mustObjective(t *testing.T, s string) check.Objective {
	t.Helper()
	o, err := check.ParseObjective(s)
	if err != nil {
		t.Fatalf("ParseObjective(%q): %v", s, err)
	}
	return o
}

// against compares head with base as check does.
func against(base, head *bench.Run, chosenBy string) *check.Against {
	return &check.Against{Comparison: analysis.Compare(base, head, analysis.CompareOptions{}), ChosenBy: chosenBy}
}

// TestJudge_Objectives checks each kind of term against the head run's
// whole attack (go: 150 req/s, p99 about 110 ms, no errors; java-platform:
// 60 failed requests).
func TestJudge_Objectives(t *testing.T) {
	head := analysistest.HeadRun(t)
	tests := []struct {
		objective string
		passed    []bool
		message   string // of the first term
	}{
		// every term holds
		{"go:throughput>=100,p99<=250ms,errors<=1%", []bool{true, true, true}, "go throughput 150.0 req/s >= 100.0 req/s"},
		// throughput below its floor
		{"go:throughput>=500", []bool{false}, "go throughput 150.0 req/s < 500.0 req/s"},
		// a percentile above its ceiling
		{"go:p99<=50ms,p50<=1s", []bool{false, true}, "go p99 110.0 ms > 50.0 ms"},
		// errors above their share
		{"java-platform:errors<=0.1%", []bool{false}, "java-platform errors 1.54% > 0.10%"},
	}
	for _, tt := range tests {
		t.Run(tt.objective, func(t *testing.T) {
			r := check.Judge(head, []check.Objective{mustObjective(t, tt.objective)}, nil)
			var passed []bool
			for _, v := range r.Objectives {
				passed = append(passed, v.Passed)
			}
			if !slices.Equal(passed, tt.passed) {
				t.Errorf("passed %v, want %v (%+v)", passed, tt.passed, r.Objectives)
			}
			if got := r.Objectives[0].Message; got != tt.message {
				t.Errorf("message %q, want %q", got, tt.message)
			}
			if got, want := r.Passed(), !slices.Contains(tt.passed, false); got != want {
				t.Errorf("Passed() = %v, want %v", got, want)
			}
		})
	}
}

// TestJudge_Unmeasured fails a term on a target that measured nothing.
func TestJudge_Unmeasured(t *testing.T) {
	head := analysistest.HeadRun(t)
	head.Targets[0].Total, head.Targets[0].Stages, head.Targets[0].Seconds = nil, nil, nil
	head.Targets[0].Status = bench.TargetFailed
	r := check.Judge(head, []check.Objective{mustObjective(t, "go:p99<=1s")}, nil)
	v := r.Objectives[0]
	if v.Passed || !v.Unmeasured || v.Message != "go p99<=1s: no request measured" {
		t.Errorf("verdict %+v, want a failure for want of requests", v)
	}
}

// TestJudge_Capacity judges a capacity search's answer: confirmed and at
// its floor, below it, and above it but not confirmed (which fails); and a
// target without an answer.
func TestJudge_Capacity(t *testing.T) {
	run := &bench.Run{ID: "r1", Targets: []bench.TargetResult{
		{Target: "go", Capacity: &bench.CapacityResult{Objective: "p99<=300ms", Rate: 1200}},
		{Target: "java-virtual", Capacity: &bench.CapacityResult{Objective: "p99<=300ms", Rate: 900, Unconfirmed: "the budget ended before 900.0 req/s was confirmed"}},
		{Target: "java-platform"},
	}}
	for _, tt := range []struct {
		objective string
		passed    bool
		message   string
	}{
		{"go:capacity>=1200", true, "go capacity 1200.0 req/s >= 1200.0 req/s (p99<=300ms)"},
		{"go:capacity>=1500", false, "go capacity 1200.0 req/s < 1500.0 req/s (p99<=300ms)"},
		{"java-virtual:capacity>=800", false, "java-virtual capacity 900.0 req/s >= 800.0 req/s (p99<=300ms), not confirmed: the budget ended before 900.0 req/s was confirmed"},
		{"java-platform:capacity>=1", false, "java-platform capacity>=1: no capacity found"},
	} {
		v := check.Judge(run, []check.Objective{mustObjective(t, tt.objective)}, nil).Objectives[0]
		if v.Passed != tt.passed || v.Message != tt.message {
			t.Errorf("%s: passed %t %q, want %t %q", tt.objective, v.Passed, v.Message, tt.passed, tt.message)
		}
	}
}

// TestJudge_Baseline checks the comparison's verdicts: the head run's
// Java platform target lost throughput and latency, which fails the
// check; its Go target got faster, which is a change but no failure.
func TestJudge_Baseline(t *testing.T) {
	r := check.Judge(analysistest.HeadRun(t), nil, against(analysistest.BaseRun(t), analysistest.HeadRun(t), "label:branch=main"))
	if r.Passed() {
		t.Fatal("passed; want the java-platform regressions to fail it")
	}
	if r.Baseline == nil || r.Baseline.Run.ID != "run-base" || r.Baseline.ChosenBy != "label:branch=main" || r.Baseline.MinEffect != 5 {
		t.Errorf("baseline %+v", r.Baseline)
	}
	for _, f := range r.Figures {
		if !slices.Contains(check.JudgedFigures, f.Delta.Name) {
			t.Errorf("%s %s %s judged; only %v are", f.Target, f.Scope, f.Delta.Name, check.JudgedFigures)
		}
		if f.Failed != (f.Delta.Verdict == bench.VerdictWorse) {
			t.Errorf("%s %s %s: failed %v with verdict %s", f.Target, f.Scope, f.Delta.Name, f.Failed, f.Delta.Verdict)
		}
		if f.Failed && f.Target != bench.TargetJavaPlatform {
			t.Errorf("%s failed: %s", f.Target, f.Message)
		}
	}
	failures := r.Failures()
	if len(failures) == 0 || !strings.HasPrefix(failures[0], "regression: java-platform stage 2 (plateau) ") {
		t.Errorf("failures %q, want java-platform's plateau first", failures)
	}
	if !slices.ContainsFunc(r.Changed(), func(f check.FigureVerdict) bool { return f.Target == bench.TargetGo }) {
		t.Errorf("changed %+v, want go's better latency among them", r.Changed())
	}
	if !slices.Contains(r.Warnings, "java-virtual ran in the baseline but not in this run: not compared") {
		t.Errorf("warnings %q, want java-virtual named", r.Warnings)
	}
}

// TestJudge_SameRun passes a run against itself: nothing changed.
func TestJudge_SameRun(t *testing.T) {
	base := analysistest.BaseRun(t)
	r := check.Judge(base, []check.Objective{mustObjective(t, "go:throughput>=100")}, against(base, base, "run-base"))
	if !r.Passed() || len(r.Changed()) != 0 || len(r.Figures) == 0 {
		t.Errorf("passed %v, changed %+v, %d figures; want a pass, nothing changed", r.Passed(), r.Changed(), len(r.Figures))
	}
}

// untestedComparison is a comparison of go's throughput from base to head
// req/s whose test had one value a side: too few to test.
func untestedComparison(base, head float64) bench.Comparison {
	d := bench.MetricDelta{Name: analysis.MetricThroughput, Unit: analysis.UnitReqPerSec, Base: base, Head: head,
		Change: (head - base) * 100 / base, HigherIsBetter: true, Verdict: bench.VerdictNoDifference,
		Test: &bench.Significance{P: 1, NA: 1, NB: 1, Alpha: 0.05}}
	return bench.Comparison{NoiseThreshold: 20, Alpha: 0.05,
		Targets: []bench.TargetComparison{{Target: bench.TargetGo, Metrics: []bench.MetricDelta{d}}}}
}

// TestJudge_UntestedWorse fails a figure that lost more than the minimum
// effect with too few values to test it (a gate cannot call that no
// change), and passes one that moved less, or the better way.
func TestJudge_UntestedWorse(t *testing.T) {
	tests := []struct {
		base, head float64
		failed     bool
	}{
		{100, 38, true},   // -62%, beyond the minimum effect of 20%
		{100, 80, true},   // exactly the minimum effect
		{100, 90, false},  // -10%: under it
		{100, 160, false}, // better
	}
	for _, tt := range tests {
		r := check.Judge(analysistest.HeadRun(t), nil, &check.Against{Comparison: untestedComparison(tt.base, tt.head), ChosenBy: "run-base"})
		f := r.Figures[0]
		if f.Failed != tt.failed || f.Untested != tt.failed || r.Passed() == tt.failed {
			t.Errorf("%g -> %g: failed %v, untested %v, passed %v; want failed %v", tt.base, tt.head, f.Failed, f.Untested, r.Passed(), tt.failed)
		}
		if tt.failed && !strings.HasSuffix(f.Message, ": too few values to test it; lengthen the run") {
			t.Errorf("message %q", f.Message)
		}
		if got := len(r.Changed()); got != map[bool]int{true: 1, false: 0}[tt.failed] {
			t.Errorf("%g -> %g: %d changed", tt.base, tt.head, got)
		}
	}
}

// TestJudge_Figures judges only the figures named, and ParseFigures
// refuses what is not a judged figure, naming the flag.
func TestJudge_Figures(t *testing.T) {
	figures, err := check.ParseFigures("throughput, p99")
	if err != nil || !slices.Equal(figures, []string{"throughput", "p99"}) {
		t.Fatalf("ParseFigures: %q, %v", figures, err)
	}
	a := against(analysistest.BaseRun(t), analysistest.HeadRun(t), "run-base")
	a.Figures = figures
	r := check.Judge(analysistest.HeadRun(t), nil, a)
	if len(r.Figures) == 0 || !slices.Equal(r.Baseline.Figures, figures) {
		t.Fatalf("%d figures, baseline %+v", len(r.Figures), r.Baseline)
	}
	for _, f := range r.Figures {
		if !slices.Contains(figures, f.Delta.Name) {
			t.Errorf("%s judged; only %v were named", f.Delta.Name, figures)
		}
	}
	for _, bad := range []string{"max", "throughput,throughput", "", "p99,"} {
		if _, err := check.ParseFigures(bad); err == nil || !strings.Contains(bench.ErrorMessage(err), check.FieldFigures) {
			t.Errorf("ParseFigures(%q): %v, want an error naming %s", bad, err, check.FieldFigures)
		}
	}
}
