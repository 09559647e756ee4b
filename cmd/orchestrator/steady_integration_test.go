//go:build integration

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

// cpuHeavyProfile holds 50 clients for 6 s: with short CPU-bound
// requests the target's one CPU is full, most of it in the request path
// (HTTP, routing, JSON), which the JVM runs interpreted until the JIT has
// compiled it.
const cpuHeavyProfile = `name: cpu-heavy
model: closed
stages:
  - {name: c50, duration: 6s, concurrency: 50}
`

// TestWarmupUntilSteady warms the Go and the virtual-thread Java targets
// up until steady under CPU-heavy requests: the JVM, still compiling at
// first, needs longer than Go, and the measured stage after each warm-up
// is steady.
func TestWarmupUntilSteady(t *testing.T) {
	alone(t)
	dir := t.TempDir()
	profile := filepath.Join(dir, "cpu-heavy.yaml")
	if err := os.WriteFile(profile, []byte(cpuHeavyProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "history.db")
	code, stdout, stderr := runCLI(t, nil, "run", "-q", "-o", "json", "--db", db,
		"--targets", "go,java-virtual", "--profile", profile, "--endpoint", "cpu", "--param", "work=50",
		"--warmup-until-steady", "--warmup-max", "90s")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	goWarm, javaWarm := warmupOf(t, run, "go"), warmupOf(t, run, "java-virtual")
	t.Logf("busy machine: warm-up go %.1f s, java-virtual %.1f s (JIT %s)", goWarm.Seconds, javaWarm.Seconds, jitText(javaWarm))
	if !goWarm.Steady || !javaWarm.Steady {
		t.Errorf("warm-ups go %+v, java-virtual %+v: want both steady within 90 s", goWarm, javaWarm)
	}
	if javaWarm.Seconds <= goWarm.Seconds {
		t.Errorf("java-virtual warmed up in %.1f s, go in %.1f s: want the JVM to need longer", javaWarm.Seconds, goWarm.Seconds)
	}
	if javaWarm.JITMs == nil || *javaWarm.JITMs <= 0 {
		t.Errorf("java-virtual's warm-up has no JIT time: %+v", javaWarm)
	}
	for _, name := range []string{"go", "java-virtual"} {
		t.Logf("%s per second: %s", name, perSecond(run.Target(name)))
	}
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	for _, res := range rep.Scopes[1].Results {
		for _, sp := range res.Steady {
			t.Logf("%s measured stage: %d of %d s cut, steady %v, trend %+.2f %%/s", res.Label, sp.Cut, sp.Seconds, sp.Steady, sp.Trend)
			if !sp.Steady {
				t.Errorf("%s: the measured stage after its warm-up is not steady: %+v", res.Label, sp)
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

// perSecond is a result's throughput and p50, second by second.
func perSecond(tr *bench.TargetResult) string {
	var parts []string
	for _, b := range tr.Seconds {
		parts = append(parts, fmt.Sprintf("%.0f/%.1fms", b.Stats.Throughput, b.Stats.Latency.P50))
	}
	return strings.Join(parts, " ")
}
