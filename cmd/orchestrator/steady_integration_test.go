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
// after the warm-up is steady (its transient, if any, cut).
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
					t.Errorf("%s: the measured stage %s after its warm-up is not steady: %+v", res.Label, sc.Name, sp)
				}
			}
		}
	}
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
