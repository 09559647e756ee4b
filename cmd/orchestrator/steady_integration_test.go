//go:build integration

package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/steady"
)

// TestMeasureWarmupUntilSteady reads the shared three-target run (poolRun),
// each target warmed up until steady, the default: the JVMs, still
// compiling at first, need longer than Go (the warm-up ends only once the
// JIT has gone quiet), the JIT time is recorded, and every measured stage
// after a warm-up that settled is steady (its transient, if any, cut). A
// warm-up that hit its maximum (30 s here) still compiling promises no
// steady stage: java-virtual's JIT took 5-7 s of its last 10 s on an AMD
// EPYC and its stage moved (559-800 req/s a second) in one run of three.
// Its stage then may be unsteady, and the report must say so and why: no
// verdict drawn, the maximum hit.
func TestMeasureWarmupUntilSteady(t *testing.T) {
	alone(t)
	run, _ := poolRun(t)
	goWarm := warmupOf(t, run, bench.TargetGo)
	for _, name := range []string{bench.TargetJavaPlatform, bench.TargetJavaVirtual} {
		javaWarm := warmupOf(t, run, name)
		t.Logf("warm-up go %.1f s, %s %.1f s (JIT %s; steady %v, maximum %s)", goWarm.Seconds, name, javaWarm.Seconds, jitText(javaWarm),
			javaWarm.Steady, javaWarm.MaxDuration)
		if javaWarm.Seconds <= goWarm.Seconds {
			t.Errorf("%s warmed up in %.1f s, go in %.1f s: want the JVM to need longer", name, javaWarm.Seconds, goWarm.Seconds)
		}
		if javaWarm.JITMs == nil || *javaWarm.JITMs <= 0 {
			t.Errorf("%s's warm-up has no JIT time: %+v", name, javaWarm)
		}
	}
	if !goWarm.Steady {
		t.Errorf("go's warm-up %+v: want it steady within its maximum", goWarm)
	}
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	for _, sc := range rep.Scopes[1:] {
		for _, res := range sc.Results {
			for _, sp := range res.Steady {
				t.Logf("%s %s: %d of %d s cut, steady %v, trend %+.2f %%/s", res.Label, sc.Name, sp.Cut, sp.Seconds, sp.Steady, sp.Trend)
				if !sp.Steady {
					checkUnsteadySaid(t, run, rep, res.Label, sc.Name)
				}
			}
		}
	}
}

// checkUnsteadySaid fails the test unless the stage (scope) of a target
// (label) that is not steady came after a warm-up that hit its maximum
// unsettled, and the report says so: no verdict drawn from it, and the
// maximum to raise.
func checkUnsteadySaid(t *testing.T, run *bench.Run, rep bench.Report, label, scope string) {
	t.Helper()
	if ws := warmupOf(t, run, label); ws.Steady {
		t.Errorf("%s: the measured stage %s is not steady after a warm-up that settled in %.1f s", label, scope, ws.Seconds)
		return
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Text, label+" is not steady in "+scope) && strings.Contains(f.Text, "no ranking or pair verdict is drawn from it") &&
			strings.Contains(f.Text, "its warm-up hit its") {
			t.Logf("said: %s", f.Text)
			return
		}
	}
	t.Errorf("%s: the measured stage %s is not steady after a warm-up that hit its maximum, and no finding says so: %+v", label, scope, rep.Findings)
}

func warmupOf(t *testing.T, run *bench.Run, target string) bench.WarmupSteady {
	t.Helper()
	tr := run.Target(target)
	if tr == nil || tr.WarmupSteady == nil || tr.Warmup == nil {
		t.Fatalf("%s: no warm-up until steady recorded: %+v", target, tr)
	}
	return *tr.WarmupSteady
}

func jitText(ws bench.WarmupSteady) string {
	if ws.JITMs == nil {
		return "not exposed"
	}
	return fmt.Sprintf("%.1f s", *ws.JITMs/1000)
}

// perSecond is a result's completions (and the rate the steady part
// reads, steady.Rate) and p50, second by second.
func perSecond(tr *bench.TargetResult) string {
	var parts []string
	for _, b := range tr.Seconds {
		parts = append(parts, fmt.Sprintf("%.0f(%.1f)/%.1fms", b.Stats.Throughput, steady.Rate(b.Stats), b.Stats.Latency.P50))
	}
	return strings.Join(parts, " ")
}
