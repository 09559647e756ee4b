//go:build integration

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/store"
)

// A service without Micrometer's Prometheus registry (the fixture with
// Actuator exposing health alone: /actuator/prometheus answers 404, so
// nothing is scraped) on virtual threads still has the JVM's figures in
// every measured stage, read from its perf counters (hsperfdata, copied
// out of its container every second): platform threads, heap, GC and JIT
// series, labelled as the perf counters', and a warm-up until steady that
// read the JIT (its compilation time during the warm-up and the measured
// part, and the compiler test applied to its last window). Before, all of
// these were "-" and the warm-up was blind to the JIT. Nothing here
// depends on the machine's speed.
func TestOwnServiceWithoutPrometheus(t *testing.T) {
	sideBySide(t)
	startsJVMs(t, 45)
	jar := ordersJar(t)
	db := filepath.Join(t.TempDir(), "history.db")
	run, err := runStored(t, db, "--jar", jar, "--variant", "virtual", "--requests", ordersRequests,
		"--target-env", "MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE=health",
		"--profile", "testdata/profile/two-steps.yaml", "--warmup-max", "15s")
	if err != nil {
		t.Fatal(err)
	}
	tr := run.Target("orders@virtual")
	if tr == nil || tr.Status != bench.TargetSucceeded {
		t.Fatalf("orders@virtual: %+v", tr)
	}
	if got := tr.Settings["info.metrics"]; !strings.HasPrefix(got, "none") {
		t.Fatalf("metrics %q: want none scraped (Prometheus' endpoint turned off)", got)
	}
	series := perfStoredSeries(t, db, run, tr)
	for _, name := range []string{metrics.JVMThreadsLive, metrics.JVMMemoryUsed, metrics.JVMGCPauses, metrics.JVMGCPauseSeconds, metrics.JVMCompilationMs} {
		s, ok := series[name]
		if !ok {
			t.Errorf("no %s series stored", name)
			continue
		}
		if s.Labels[metrics.SourceLabel] != metrics.SourcePerfData {
			t.Errorf("%s labelled %v, want %s=%s", name, s.Labels, metrics.SourceLabel, metrics.SourcePerfData)
		}
	}
	for _, st := range analysis.MeasuredStages(tr) {
		r := perfStageResources(tr, st.Index)
		gc, gcPresent := perfGrowth(series[metrics.JVMGCPauses], st)
		jitMs, jitPresent := perfGrowth(series[metrics.JVMCompilationMs], st)
		t.Logf("stage %d (%d clients): platform threads peak %.0f mean %.1f; heap peak %.1f MiB; GC %.0f pauses (%.0f in the summary, %.1f ms); JIT %.3f s",
			st.Index+1, st.Concurrency, r.Thread(bench.ThreadPlatform).Peak, r.Thread(bench.ThreadPlatform).Mean,
			r.MemoryGauge(bench.MemoryHeap).Peak/(1<<20), gc, r.GCPauses, 1000*r.GCPauseSeconds, jitMs/1000)
		if r.Thread(bench.ThreadPlatform).Peak <= 0 || r.MemoryGauge(bench.MemoryHeap).Peak <= 0 {
			t.Errorf("stage %d: threads %+v, memory %+v; want the JVM's platform threads and heap", st.Index+1, r.Threads, r.Memory)
		}
		if !gcPresent || !jitPresent {
			t.Errorf("stage %d: GC series read %v, JIT series read %v; want both over the stage", st.Index+1, gcPresent, jitPresent)
		}
	}
	ws := tr.WarmupSteady
	if ws == nil {
		t.Fatalf("no warm-up until steady recorded")
	}
	t.Logf("warm-up: %s; JIT %s in the warm-up, %s in the measured part, %s over its last window (%s)",
		warmedUp(ws), msText(ws.JITMs), msText(ws.JITMsMeasured), msText(ws.JITMsWindow), ws.JITWindow)
	if ws.JITMs == nil || *ws.JITMs <= 0 || ws.JITMsMeasured == nil {
		t.Errorf("warm-up JIT %s, measured %s: want the JVM's compilation time read", msText(ws.JITMs), msText(ws.JITMsMeasured))
	}
	// Blind, the compiler test is skipped: no window's JIT time and not
	// busy. Read, it either measured the last window or found the
	// compiler busy (or its time not read over all of a long span).
	if ws.JITMsWindow == nil && !ws.JITBusy {
		t.Errorf("warm-up %+v: the compiler test did not apply (blind to the JIT)", *ws)
	}
	noContainersOf(t, run.ID)
}

// perfStoredSeries returns a target's stored series by name.
func perfStoredSeries(t *testing.T, db string, run *bench.Run, tr *bench.TargetResult) map[string]bench.Series {
	t.Helper()
	h := store.NewDB(db)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	all, err := h.FindSeries(context.Background(), run.ID, tr.Key(), nil)
	if err != nil {
		t.Fatalf("%s's series: %v", tr.Key(), err)
	}
	out := map[string]bench.Series{}
	for _, s := range all {
		out[s.Name] = s
	}
	return out
}

// perfStageResources is a measured stage's resources.
func perfStageResources(tr *bench.TargetResult, stage int) bench.StageResources {
	for _, r := range tr.Resources {
		if r.Stage == stage && !r.Warmup {
			return r
		}
	}
	return bench.StageResources{}
}

// perfGrowth is how much a counter grew over a stage, from its samples at or
// before its start to the last one within it; false without a sample
// inside the stage.
func perfGrowth(s bench.Series, st bench.StageResult) (float64, bool) {
	from := st.StartOffset.D().Seconds()
	to := from + st.Duration.D().Seconds()
	var start, end float64
	inside := false
	for _, p := range s.Points {
		switch {
		case p.T <= from:
			start = p.V
		case p.T < to:
			end, inside = p.V, true
		}
	}
	return end - start, inside
}
