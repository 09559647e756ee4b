package analysis_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
)

// metric returns the named figure of deltas, failing the test when absent.
func metric(t *testing.T, deltas []bench.MetricDelta, name string) bench.MetricDelta {
	t.Helper()
	for _, d := range deltas {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no %s among %d figures", name, len(deltas))
	return bench.MetricDelta{}
}

// target returns the named target of a comparison, failing when absent.
func target(t *testing.T, c bench.Comparison, name string) bench.TargetComparison {
	t.Helper()
	for _, tc := range c.Targets {
		if tc.Target == name {
			return tc
		}
	}
	t.Fatalf("target %s not compared; targets: %+v", name, c.Targets)
	return bench.TargetComparison{}
}

// hasWarning reports whether a warning contains every part.
func hasWarning(c bench.Comparison, parts ...string) bool {
	for _, w := range c.Warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return true
		}
	}
	return false
}

// totalsRun is a run whose go target has only a whole-attack total.
func totalsRun(id string, total bench.Stats) *bench.Run {
	return &bench.Run{ID: id, Status: bench.RunSucceeded, Spec: analysistest.OpenSpec(), Environment: analysistest.Environment(),
		Targets: []bench.TargetResult{{Target: bench.TargetGo, Status: bench.TargetSucceeded, Total: &total}}}
}

// totals is 1000 requests with the given successes and throughput.
func totals(successes int64, throughput float64) bench.Stats {
	return bench.Stats{Requests: 1000, Successes: successes, Throughput: throughput}
}

// holdRun is a run whose go target held one open stage of one second per
// value of perSecond (its throughput in that second), with failed[i]
// requests failing in second i out of 1000 sent; the stage's and the
// whole attack's throughput and error rate are those of all its seconds.
func holdRun(id string, perSecond []float64, failed []int64) *bench.Run {
	spec := analysistest.OpenSpec()
	spec.Profile.Stages = []bench.Stage{{Name: "hold", Duration: bench.Duration(time.Duration(len(perSecond)) * time.Second), Rate: 1000}}
	var total bench.Stats
	var seconds []bench.Bucket
	for i, v := range perSecond {
		st := bench.Stats{Requests: 1000, Successes: 1000, Throughput: v, Elapsed: bench.Duration(time.Second)}
		if failed != nil {
			st.Successes -= failed[i]
		}
		seconds = append(seconds, bench.Bucket{Second: i, Stats: st})
		total.Requests += st.Requests
		total.Successes += st.Successes
		total.Throughput += v / float64(len(perSecond))
	}
	total.Elapsed = spec.Profile.Stages[0].Duration
	stage := bench.StageResult{Name: "hold", Model: bench.ModelOpen, Duration: total.Elapsed, Rate: 1000, Stats: total}
	return &bench.Run{ID: id, Status: bench.RunSucceeded, Spec: spec, Environment: analysistest.Environment(),
		Targets: []bench.TargetResult{{Target: bench.TargetGo, Status: bench.TargetSucceeded, Total: &total,
			Stages: []bench.StageResult{stage}, Seconds: seconds}}}
}

// roundsRun is a run of the go target in len(throughputs) rounds, round i
// with the given whole-attack throughput.
func roundsRun(id string, throughputs ...float64) *bench.Run {
	r := &bench.Run{ID: id, Status: bench.RunSucceeded, Spec: analysistest.OpenSpec(), Environment: analysistest.Environment()}
	r.Spec.Repeat = len(throughputs)
	for i, v := range throughputs {
		total := totals(1000, v)
		r.Targets = append(r.Targets, bench.TargetResult{Target: bench.TargetGo, Round: i, Status: bench.TargetSucceeded, Total: &total})
	}
	return r
}

// scattered returns n values near center scattered by up to ±40% in a
// pseudo-random order that seed varies.
func scattered(center float64, n, seed int) []float64 {
	values := make([]float64, n)
	for i := range values {
		values[i] = center * (1 + 0.4*float64((i*seed)%11-5)/5)
	}
	return values
}

func mean(values []float64) float64 {
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values))
}

// failures returns n seconds each with k failed requests.
func failures(n int, k int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = k
	}
	return out
}

func TestCompare_Verdicts(t *testing.T) {
	tests := []struct {
		name       string
		base, head *bench.Run
		threshold  float64
		figure     string
		verdict    string
		change     float64
		// significant is whether the test alone finds a difference.
		significant bool
	}{
		// Every second of head 10% above base: significant and large enough.
		{"throughput +10%, every second apart, is better", holdRun("a", analysistest.Around(100, 20), nil), holdRun("b", analysistest.Around(110, 20), nil),
			0, "throughput", bench.VerdictBetter, 10, true},
		{"throughput -10%, every second apart, is worse", holdRun("a", analysistest.Around(100, 20), nil), holdRun("b", analysistest.Around(90, 20), nil),
			0, "throughput", bench.VerdictWorse, -10, true},
		// Significant, but smaller than the minimum effect.
		{"throughput +3%, significant, is under the threshold", holdRun("a", analysistest.Around(100, 20), nil), holdRun("b", analysistest.Around(103, 20), nil),
			0, "throughput", bench.VerdictNoDifference, 3, true},
		{"a wider threshold absorbs +10%", holdRun("a", analysistest.Around(100, 20), nil), holdRun("b", analysistest.Around(110, 20), nil),
			20, "throughput", bench.VerdictNoDifference, 10, true},
		// Large enough, but lost in the scatter of the seconds.
		{"throughput +10% within ±40% scatter is no difference", holdRun("a", scattered(100, 20, 7), nil), holdRun("b", scattered(110, 20, 3), nil),
			0, "throughput", bench.VerdictNoDifference, (mean(scattered(110, 20, 3))/mean(scattered(100, 20, 7)) - 1) * 100, false},
		{"unchanged is no difference", holdRun("a", analysistest.Around(100, 20), nil), holdRun("b", analysistest.Around(100, 20), nil),
			0, "throughput", bench.VerdictNoDifference, 0, false},
		// From a zero error rate the change is in percentage points.
		{"errors 0 -> 4.9% is under the threshold in pp", holdRun("a", analysistest.Around(100, 20), nil), holdRun("b", analysistest.Around(100, 20), failures(20, 49)),
			0, "errorRate", bench.VerdictNoDifference, 4.9, true},
		{"errors 0 -> 5% is worse in pp", holdRun("a", analysistest.Around(100, 20), nil), holdRun("b", analysistest.Around(100, 20), failures(20, 50)),
			0, "errorRate", bench.VerdictWorse, 5, true},
		{"errors 0 -> 0 is no difference", holdRun("a", analysistest.Around(100, 20), nil), holdRun("b", analysistest.Around(100, 20), nil),
			0, "errorRate", bench.VerdictNoDifference, 0, false},
		// From a non-zero error rate the change is relative.
		{"errors 2% -> 1% is better", holdRun("a", analysistest.Around(100, 20), failures(20, 20)), holdRun("b", analysistest.Around(100, 20), failures(20, 10)),
			0, "errorRate", bench.VerdictBetter, -50, true},
		// Rounds: three a side can never be significant (smallest p 0.1), six can.
		{"3 rounds +10% cannot be significant", roundsRun("a", 100, 101, 99), roundsRun("b", 110, 111, 109),
			0, "throughput", bench.VerdictNoDifference, 10, false},
		{"6 rounds +10% is better", roundsRun("a", 100, 101, 99, 100, 102, 98), roundsRun("b", 110, 111, 109, 110, 112, 108),
			0, "throughput", bench.VerdictBetter, 10, true},
		// A run with only totals stored (no seconds, one round) has nothing to test.
		{"totals only cannot be tested", totalsRun("a", totals(1000, 100)), totalsRun("b", totals(1000, 150)),
			0, "throughput", bench.VerdictNoDifference, 50, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analysis.Compare(tt.base, tt.head, analysis.CompareOptions{NoiseThreshold: tt.threshold})
			d := metric(t, target(t, c, bench.TargetGo).Metrics, tt.figure)
			if got, want := d.Verdict, tt.verdict; got != want {
				t.Errorf("verdict = %q, want %q (change %v, test %+v)", got, want, d.Change, d.Test)
			}
			if got, want := d.Change, tt.change; math.Abs(got-want) > 1e-6 {
				t.Errorf("change = %v, want %v", got, want)
			}
			if d.Test == nil {
				t.Fatal("no test")
			}
			if got, want := d.Test.Significant, tt.significant; got != want {
				t.Errorf("significant = %v, want %v (%+v)", got, want, *d.Test)
			}
		})
	}
}

func TestCompare_WithItselfIsNoDifference(t *testing.T) {
	r := analysistest.BaseRun(t)
	c := analysis.Compare(r, r, analysis.CompareOptions{})
	for _, tc := range c.Targets {
		for _, d := range append(tc.Metrics, tc.Resources...) {
			if d.Verdict != bench.VerdictNoDifference || d.Test.Significant {
				t.Errorf("%s %s: %s (%+v), want no significant difference", tc.Target, d.Name, d.Verdict, d.Test)
			}
		}
	}
	if got := analysis.Regressions(c, 0); len(got) != 0 {
		t.Errorf("regressions of a run against itself: %q", got)
	}
}

func TestCompare_DefaultThreshold(t *testing.T) {
	c := analysis.Compare(totalsRun("a", totals(1000, 1)), totalsRun("b", totals(1000, 1)), analysis.CompareOptions{})
	if got, want := c.NoiseThreshold, bench.DefaultNoiseThreshold; got != want {
		t.Errorf("NoiseThreshold = %v, want %v", got, want)
	}
}

func TestCompare_DirectionOfEachFigure(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	for _, d := range target(t, c, bench.TargetGo).Metrics {
		if got, want := d.HigherIsBetter, d.Name == "throughput"; got != want {
			t.Errorf("%s: HigherIsBetter = %v, want %v", d.Name, got, want)
		}
	}
	names := []string{}
	for _, d := range target(t, c, bench.TargetGo).Metrics {
		names = append(names, d.Name)
	}
	if got, want := strings.Join(names, " "), "throughput p50 p90 p95 p99 max errorRate"; got != want {
		t.Errorf("figures = %q, want %q", got, want)
	}
}

func TestCompare_PercentilesFromHistogram(t *testing.T) {
	// 1000 successes spread evenly over 10..110 ms: the 990th is 10 + 100*989/999 ms.
	stats := analysistest.StatsOf(t, analysistest.Spread{Requests: 1000, Seconds: 10, Low: 10, High: 110})
	stats.Latency = bench.Latency{P50: 1, P90: 1, P95: 1, P99: 1, Max: 1} // stale summary
	wantP99 := 10 + 100*989.0/999

	c := analysis.Compare(totalsRun("a", stats), totalsRun("b", stats), analysis.CompareOptions{})
	d := metric(t, target(t, c, bench.TargetGo).Metrics, "p99")
	if math.Abs(d.Base-wantP99)/wantP99 > 0.002 {
		t.Errorf("p99 = %v ms, want %v ms within 0.2%% (stale summary says 1 ms)", d.Base, wantP99)
	}
	if hasWarning(c, "latency histogram") {
		t.Errorf("unexpected histogram warning: %q", c.Warnings)
	}
}

func TestCompare_WholeAttackMergedFromStages(t *testing.T) {
	base := analysistest.BaseRun(t)
	gt := &base.Targets[0]
	want := gt.Total.Latency.P99 // the fixture merged the stage histograms itself
	gt.Total.Histogram = ""
	gt.Total.Latency.P99 = 1

	c := analysis.Compare(base, analysistest.HeadRun(t), analysis.CompareOptions{})
	if got := metric(t, target(t, c, bench.TargetGo).Metrics, "p99").Base; got != want {
		t.Errorf("p99 = %v, want %v from the merged stage histograms", got, want)
	}
	if hasWarning(c, "latency histogram") {
		t.Errorf("unexpected histogram warning: %q", c.Warnings)
	}
}

func TestCompare_FallsBackToStoredLatency(t *testing.T) {
	base := analysistest.BaseRun(t)
	gt := &base.Targets[0]
	gt.Total.Histogram = ""
	gt.Stages[0].Stats.Histogram = ""
	gt.Total.Latency.P99 = 123.4

	c := analysis.Compare(base, analysistest.HeadRun(t), analysis.CompareOptions{})
	if got, want := metric(t, target(t, c, bench.TargetGo).Metrics, "p99").Base, 123.4; got != want {
		t.Errorf("p99 = %v, want the stored %v", got, want)
	}
	want := "go: no latency histogram in the base run for the whole attack, stage 1 (ramp); stored percentiles used"
	if !slices.Contains(c.Warnings, want) {
		t.Errorf("warnings = %q, want %q", c.Warnings, want)
	}
}

func TestCompare_UnreadableHistogram(t *testing.T) {
	base := analysistest.BaseRun(t)
	base.Targets[0].Total.Histogram = "not a histogram"
	c := analysis.Compare(base, analysistest.HeadRun(t), analysis.CompareOptions{})
	if !hasWarning(c, "go: unreadable latency histogram in the base run for the whole attack", "stored percentiles used") {
		t.Errorf("warnings = %q, want one about the unreadable histogram", c.Warnings)
	}
}

func TestCompare_Stages(t *testing.T) {
	tests := []struct {
		name       string
		change     func(*bench.Run)
		wantStages int
		warning    string
	}{
		{"same profile: stages compared", func(*bench.Run) {}, 2, ""},
		{"other model: stages skipped", func(r *bench.Run) { r.Spec.Profile.Model = bench.ModelClosed }, 0,
			"stages were not compared: base profile has 2 open stages, head profile has 2 closed stages"},
		{"more stages: stages skipped", func(r *bench.Run) {
			r.Spec.Profile.Stages = append(r.Spec.Profile.Stages, bench.Stage{Duration: bench.Duration(1e9), Rate: 10})
		}, 0, "stages were not compared: base profile has 2 open stages, head profile has 3 open stages"},
		{"head stopped after stage 1", func(r *bench.Run) { r.Targets[0].Stages = r.Targets[0].Stages[:1] }, 1,
			"go: stage 2 (plateau) not measured in the head run; not compared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := analysistest.HeadRun(t)
			tt.change(head)
			c := analysis.Compare(analysistest.BaseRun(t), head, analysis.CompareOptions{})
			stages := target(t, c, bench.TargetGo).Stages
			if got, want := len(stages), tt.wantStages; got != want {
				t.Fatalf("%d stages compared, want %d; warnings %q", got, want, c.Warnings)
			}
			for i, s := range stages {
				if got, want := s.Index, i; got != want {
					t.Errorf("stage %d: Index = %d", i, got)
				}
				if got := len(s.Metrics); got != 7 {
					t.Errorf("stage %d: %d figures, want 7", i, got)
				}
			}
			if tt.warning != "" && !slices.Contains(c.Warnings, tt.warning) {
				t.Errorf("warnings = %q, want %q", c.Warnings, tt.warning)
			}
		})
	}
}

func TestCompare_StagePercentilesAreTheStages(t *testing.T) {
	base, head := analysistest.BaseRun(t), analysistest.HeadRun(t)
	c := analysis.Compare(base, head, analysis.CompareOptions{})
	plateau := target(t, c, bench.TargetJavaPlatform).Stages[1]
	if got, want := plateau.Name, "plateau"; got != want {
		t.Fatalf("stage name = %q, want %q", got, want)
	}
	// The fixture's stored summaries come from the same histograms.
	if got, want := metric(t, plateau.Metrics, "p99").Head, head.Target(bench.TargetJavaPlatform).Stages[1].Stats.Latency.P99; got != want {
		t.Errorf("plateau p99 = %v, want %v", got, want)
	}
	if got, want := metric(t, plateau.Metrics, "errorRate").Head, 60*100.0/3400; math.Abs(got-want) > 1e-9 {
		t.Errorf("plateau errorRate = %v, want %v", got, want)
	}
}

func TestCompare_SpecMismatchWarnings(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*bench.Run)
		warning string
	}{
		{"workload", func(r *bench.Run) { r.Spec.Workload.Requests[0].Params["duration"] = "200" },
			"specs differ in workload: base /api/heavy?duration=100 x1; timeout 30s; head /api/heavy?duration=200 x1; timeout 30s"},
		{"limits", func(r *bench.Run) { r.Spec.Limits.CPUs = 2 },
			"specs differ in limits: base 1 CPU, 1024 MiB; head 2 CPUs, 1024 MiB"},
		{"warm-up", func(r *bench.Run) { r.Spec.Warmup.Disabled = true },
			"specs differ in warm-up: base 10s at 50.0 req/s; head disabled"},
		{"java options", func(r *bench.Run) { r.Spec.Java.HeapPercent = 75 },
			"specs differ in java options: base heapPercent=50 tomcatMaxThreads=200; head heapPercent=75 tomcatMaxThreads=200"},
		{"profile stage", func(r *bench.Run) { r.Spec.Profile.Stages[1].Rate = 300 },
			"specs differ in profile: base open: 10s ramp to 100.0 req/s, 20s at 200.0 req/s; head open: 10s ramp to 100.0 req/s, 20s at 300.0 req/s"},
		{"environment", func(r *bench.Run) { r.Environment.CPUs = 4; r.Environment.Host = "bench-2" },
			"environments differ: host bench-1 vs bench-2, CPUs 2 vs 4"},
		{"run status", func(r *bench.Run) { r.Status = bench.RunFailed; r.Error = "docker went away" },
			"the head run run-base is failed, not succeeded: docker went away"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := analysistest.BaseRun(t)
			tt.change(head)
			c := analysis.Compare(analysistest.BaseRun(t), head, analysis.CompareOptions{})
			if !slices.Contains(c.Warnings, tt.warning) {
				t.Errorf("warnings = %q\nwant %q", c.Warnings, tt.warning)
			}
			if got := len(target(t, c, bench.TargetGo).Metrics); got != 7 {
				t.Errorf("%d figures compared despite the mismatch, want 7", got)
			}
		})
	}
}

func TestCompare_SameSpecNoWarnings(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.BaseRun(t), analysis.CompareOptions{})
	if len(c.Warnings) != 0 {
		t.Errorf("warnings = %q, want none", c.Warnings)
	}
}

func TestCompare_JavaOptionsIgnoredWithoutJava(t *testing.T) {
	base, head := analysistest.BaseRun(t), analysistest.BaseRun(t)
	for _, r := range []*bench.Run{base, head} {
		r.Spec.Targets = []string{bench.TargetGo}
		r.Targets = r.Targets[:1]
	}
	head.Spec.Java.HeapPercent = 75
	c := analysis.Compare(base, head, analysis.CompareOptions{})
	if len(c.Warnings) != 0 {
		t.Errorf("warnings = %q, want none: java options do not matter to go", c.Warnings)
	}
}

func TestCompare_TargetsInOneRunOnly(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	if got, want := strings.Join(c.OnlyInBase, ","), "java-virtual"; got != want {
		t.Errorf("OnlyInBase = %q, want %q", got, want)
	}
	if len(c.OnlyInHead) != 0 {
		t.Errorf("OnlyInHead = %q, want none", c.OnlyInHead)
	}
	var names []string
	for _, tc := range c.Targets {
		names = append(names, tc.Target)
	}
	if got, want := strings.Join(names, ","), "go,java-platform"; got != want {
		t.Errorf("targets = %q, want %q", got, want)
	}

	reversed := analysis.Compare(analysistest.HeadRun(t), analysistest.BaseRun(t), analysis.CompareOptions{})
	if got, want := strings.Join(reversed.OnlyInHead, ","), "java-virtual"; got != want {
		t.Errorf("reversed OnlyInHead = %q, want %q", got, want)
	}
}

func TestCompare_FailedTargets(t *testing.T) {
	tests := []struct {
		name    string
		change  func(base, head *bench.Run)
		warning string
	}{
		{"failed in head", func(_, head *bench.Run) {
			head.Targets[0].Status, head.Targets[0].Error = bench.TargetFailed, "health check timed out"
		}, "go failed in the head run: health check timed out"},
		{"canceled in base", func(base, _ *bench.Run) { base.Targets[0].Status = bench.TargetCanceled },
			"go did not finish in the base run (canceled)"},
		{"nothing measured in head", func(_, head *bench.Run) {
			head.Targets[0].Status, head.Targets[0].Total, head.Targets[0].Stages = bench.TargetFailed, nil, nil
		}, "go: no requests measured in the head run for the whole attack; not compared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, head := analysistest.BaseRun(t), analysistest.HeadRun(t)
			tt.change(base, head)
			c := analysis.Compare(base, head, analysis.CompareOptions{})
			if !slices.Contains(c.Warnings, tt.warning) {
				t.Errorf("warnings = %q\nwant %q", c.Warnings, tt.warning)
			}
		})
	}
}

func TestCompare_Resources(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	goRes := target(t, c, bench.TargetGo).Resources
	// CPU per 1k is weighted by each stage's requests: 500 in the ramp, 199*20 in the plateau.
	wantCPU := (0.4*500 + 0.3*3980) / (500 + 3980)
	if got := metric(t, goRes, "cpuSecondsPer1k").Base; math.Abs(got-wantCPU) > 1e-12 {
		t.Errorf("go cpuSecondsPer1k = %v, want %v", got, wantCPU)
	}
	if got, want := metric(t, goRes, "peakGoroutines").Head, 46.0; got != want {
		t.Errorf("go peakGoroutines = %v, want %v", got, want)
	}

	javaRes := target(t, c, bench.TargetJavaPlatform).Resources
	// The warm-up peaked at 300 threads and 900 MiB; it must not count.
	if got, want := metric(t, javaRes, "peakPlatformThreads").Base, 210.0; got != want {
		t.Errorf("peakPlatformThreads = %v, want %v", got, want)
	}
	// One round a side: one value each, which no test can tell apart.
	ws := metric(t, javaRes, "peakWorkingSet")
	if ws.Base != 310 || ws.Head != 400 || ws.Unit != "MiB" || ws.Verdict != bench.VerdictNoDifference || ws.HigherIsBetter {
		t.Errorf("peakWorkingSet = %+v, want 310 -> 400 MiB, no significant difference, lower is better", ws)
	}
	if ws.Test == nil || ws.Test.NA != 1 || ws.Test.NB != 1 || ws.Test.Samples != "rounds" {
		t.Errorf("peakWorkingSet test = %+v, want 1+1 rounds", ws.Test)
	}
	if got, want := metric(t, javaRes, "gcPauses").Base, 10.0; got != want {
		t.Errorf("gcPauses = %v, want %v (measured stages summed)", got, want)
	}
	for _, d := range javaRes {
		if d.Name == "peakVirtualThreads" || d.Name == "peakGoroutines" {
			t.Errorf("%s listed though neither run recorded it", d.Name)
		}
	}
}

func TestCompare_ResourcesInOneRunOnly(t *testing.T) {
	head := analysistest.HeadRun(t)
	head.Targets[0].Resources = nil
	c := analysis.Compare(analysistest.BaseRun(t), head, analysis.CompareOptions{})
	if got := target(t, c, bench.TargetGo).Resources; got != nil {
		t.Errorf("resources = %+v, want none", got)
	}
	if want := "go: resource figures only in the base run; not compared"; !slices.Contains(c.Warnings, want) {
		t.Errorf("warnings = %q, want %q", c.Warnings, want)
	}
}

func TestRegressions(t *testing.T) {
	significant := &bench.Significance{P: 0.001, NA: 10, NB: 10, Alpha: 0.05, Significant: true}
	notSignificant := &bench.Significance{P: 0.43, NA: 10, NB: 10, Alpha: 0.05}
	delta := func(name, unit string, base, head, change float64, higherIsBetter bool) bench.MetricDelta {
		return bench.MetricDelta{Name: name, Unit: unit, Base: base, Head: head, Change: change, HigherIsBetter: higherIsBetter, Test: significant}
	}
	untested := delta("p95", "ms", 100, 130, 30, false)
	untested.Test = notSignificant
	c := bench.Comparison{Targets: []bench.TargetComparison{{
		Target: "go",
		Metrics: []bench.MetricDelta{
			delta("throughput", "req/s", 200, 180, -10, true), // worse by 10%
			delta("p50", "ms", 100, 104, 4, false),            // worse, but under 5%
			delta("p90", "ms", 110, 90, -18.18, false),        // better
			untested, // worse by 30%, not significant
			delta("p99", "ms", 105.2, 118.1, 12.2624, false),      // worse by 12.3%
			delta("max", "ms", 0, 150, 150, false),                // from zero: always a regression
			delta("errorRate", "%", 0, 3, 3, false),               // from zero: 3 pp < 5
			delta("throughput-exact", "req/s", 100, 95, -5, true), // exactly pct: not more than it
		},
		Stages: []bench.StageComparison{{Index: 1, Name: "plateau", Metrics: []bench.MetricDelta{
			delta("errorRate", "%", 0, 6, 6, false), // 6 pp > 5
		}}},
		Resources: []bench.MetricDelta{delta("peakWorkingSet", "MiB", 200, 240, 20, false)},
	}}}
	want := []string{
		"go throughput -10.0% (200.0 req/s -> 180.0 req/s; p = 0.001, n = 10+10)",
		"go p99 +12.3% (105.2 ms -> 118.1 ms; p = 0.001, n = 10+10)",
		"go max +150.0 ms (0.00 ms -> 150.0 ms; p = 0.001, n = 10+10)",
		"go stage 2 (plateau) errorRate +6.00 pp (0.00% -> 6.00%; p = 0.001, n = 10+10)",
		"go peakWorkingSet +20.0% (200.0 MiB -> 240.0 MiB; p = 0.001, n = 10+10)",
	}
	got := analysis.Regressions(c, 5)
	if !slices.Equal(got, want) {
		t.Errorf("Regressions =\n%q\nwant\n%q", got, want)
	}
	if got := analysis.Regressions(c, 1000); len(got) != 1 {
		t.Errorf("Regressions(1000%%) = %q, want only the figure from zero", got)
	}
}

func TestRegressions_FromCompare(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	found := analysis.Regressions(c, 5)
	joined := strings.Join(found, "\n")
	// One round over two stages: the whole attack is not tested, the
	// plateau is, within-run.
	if !strings.Contains(joined, "java-platform stage 2 (plateau) p99 +") {
		t.Errorf("regressions = %q, want the java-platform plateau's p99", found)
	}
	if strings.Contains(joined, "java-platform p99") {
		t.Errorf("regressions = %q: the whole attack over two loads cannot be tested with one round", found)
	}
	if strings.Contains(joined, "go p99") {
		t.Errorf("regressions = %q; go got faster", found)
	}
}

func TestCompare_FromZeroBase(t *testing.T) {
	// Neither Java run's platform target recorded virtual threads; head now does.
	head := analysistest.HeadRun(t)
	head.Targets[1].Resources[2].Threads[bench.ThreadVirtual] = bench.Gauge{Peak: 50, Mean: 50}
	c := analysis.Compare(analysistest.BaseRun(t), head, analysis.CompareOptions{NoiseThreshold: 1000})
	d := metric(t, target(t, c, bench.TargetJavaPlatform).Resources, "peakVirtualThreads")
	// A relative change from zero is infinite: reported as the absolute
	// difference. One round a side cannot make it significant.
	if d.Change != 50 || d.Verdict != bench.VerdictNoDifference {
		t.Errorf("peakVirtualThreads = %+v, want an absolute 50 and no significant difference", d)
	}
	if got := analysis.Regressions(c, 1000); slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "peakVirtualThreads") }) {
		t.Errorf("regressions = %q: not significant, not a regression", got)
	}
}

func TestCompare_FromZeroBaseOverRounds(t *testing.T) {
	// Six rounds a side: zero virtual threads against 50 is significant,
	// and beyond any threshold from zero.
	base, head := roundsRun("a", 100, 100, 100, 100, 100, 100), roundsRun("b", 100, 100, 100, 100, 100, 100)
	for i := range head.Targets {
		base.Targets[i].Resources = []bench.StageResources{analysistest.Resources(0, map[string]float64{bench.ThreadGoroutine: 10}, nil)}
		head.Targets[i].Resources = []bench.StageResources{analysistest.Resources(0, map[string]float64{bench.ThreadGoroutine: 10, bench.ThreadVirtual: 50 + float64(i)}, nil)}
	}
	c := analysis.Compare(base, head, analysis.CompareOptions{NoiseThreshold: 1000})
	d := metric(t, target(t, c, bench.TargetGo).Resources, "peakVirtualThreads")
	if d.Verdict != bench.VerdictWorse || d.Change != 52.5 {
		t.Errorf("peakVirtualThreads = %+v, want worse by an absolute 52.5 (the median)", d)
	}
	if got, want := analysis.Regressions(c, 1000), "go peakVirtualThreads +52 threads (0 threads -> 52 threads; p = 0.002, n = 6+6)"; !slices.Contains(got, want) {
		t.Errorf("regressions = %q, want %q", got, want)
	}
}

func TestCompare_FlagsAreWarned(t *testing.T) {
	head := analysistest.HeadRun(t)
	head.Targets[0].Stages[1].Flags = []bench.Flag{{Kind: bench.FlagGeneratorBound, Reason: "generator CPU 95% of its 1 CPU(s) (limit 90%)"}}
	c := analysis.Compare(analysistest.BaseRun(t), head, analysis.CompareOptions{})
	want := "go stage 2 (plateau) in the head run: generator-bound (generator CPU 95% of its 1 CPU(s) (limit 90%))"
	if !slices.Contains(c.Warnings, want) {
		t.Errorf("warnings = %q, want %q", c.Warnings, want)
	}
}

func TestCompare_OneTargetEach(t *testing.T) {
	// A run of java-platform against one of java-virtual: the two are
	// compared, and said to be.
	base, head := holdRun("a", analysistest.Around(400, 20), nil), holdRun("b", analysistest.Around(580, 20), nil)
	base.Targets[0].Target, head.Targets[0].Target = bench.TargetJavaPlatform, bench.TargetJavaVirtual
	c := analysis.Compare(base, head, analysis.CompareOptions{})
	if len(c.Targets) != 1 || c.Targets[0].Target != "java-platform -> java-virtual" || c.OnlyInBase != nil || c.OnlyInHead != nil {
		t.Fatalf("compared %+v, only in base %v, head %v; want java-platform -> java-virtual", c.Targets, c.OnlyInBase, c.OnlyInHead)
	}
	d := metric(t, c.Targets[0].Metrics, "throughput")
	if d.Verdict != bench.VerdictBetter || !d.Test.Significant {
		t.Errorf("throughput %+v, want significantly better", d)
	}
	if want := "each run has one target: java-platform (base) is compared with java-virtual (head)"; !slices.Contains(c.Warnings, want) {
		t.Errorf("warnings = %q, want %q", c.Warnings, want)
	}
}

// Two capacity searches of a target under the same objective: their
// answers are compared, tested on what their confirmations served; under
// different objectives, or with one search only, a warning says why not.
func TestCompare_Capacity(t *testing.T) {
	answer := func(objective string, rate float64, served ...float64) *bench.CapacityResult {
		c := &bench.CapacityResult{Objective: objective, Rate: rate, Stop: "precision"}
		for _, s := range served {
			c.Confirmations = append(c.Confirmations, bench.CapacityTrial{Phase: "confirm", Rate: rate, Throughput: s})
		}
		return c
	}
	base, head := analysistest.BaseRun(t), analysistest.HeadRun(t)
	base.Targets[0].Capacity = answer("p99<=300ms", 1000, 998, 999, 1000, 997, 999)
	head.Targets[0].Capacity = answer("p99<=300ms", 1900, 1898, 1899, 1897, 1900, 1899)
	c := analysis.Compare(base, head, analysis.CompareOptions{})
	d := metric(t, target(t, c, base.Targets[0].Target).Metrics, "capacity")
	if d.Base != 1000 || d.Head != 1900 || d.Unit != "req/s" || !d.HigherIsBetter || d.Test == nil || d.Test.Samples != "confirmations" || d.Test.NA != 5 {
		t.Errorf("capacity %+v (test %+v), want 1000 -> 1900 req/s tested on 5+5 confirmations", d, d.Test)
	}
	if d.Verdict != bench.VerdictBetter {
		t.Errorf("capacity verdict %s, want better", d.Verdict)
	}
	head.Targets[0].Capacity.Objective = "p99<=100ms"
	c = analysis.Compare(base, head, analysis.CompareOptions{})
	for _, m := range target(t, c, base.Targets[0].Target).Metrics {
		if m.Name == "capacity" {
			t.Errorf("answers under different objectives compared: %+v", m)
		}
	}
	if !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "different objectives") }) {
		t.Errorf("warnings %q say nothing of the objectives", c.Warnings)
	}
}
