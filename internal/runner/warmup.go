package runner

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/steady"
)

// warmup is a warm-up until steady, run inside the attack it warms up: the
// load engine sends the first stage's load and asks settled after each of
// its full seconds; the answer comes from a steady.Watcher given the second
// and the JVM's compilation time, read live from the metrics recording.
// When it says yes the profile starts at once, with the same clients.
type warmup struct {
	spec  bench.Warmup
	watch *steady.Watcher
	rec   bench.Recording // nil without a metrics recorder
	done  bool            // it settled
}

func newWarmup(spec bench.RunSpec, rec bench.Recording) *warmup {
	window := int(spec.Warmup.Window.D() / time.Second)
	return &warmup{spec: spec.Warmup, watch: steady.NewWatcher(window, spec.Limits.CPUs), rec: rec}
}

// settled is the plan's Settled: whether the window ending with warm-up
// second b passes the stage's own test and, for a JVM, its compiler was
// quiet over it.
func (w *warmup) settled(b bench.Bucket) bool {
	if w.rec != nil {
		if at, ms, ok := w.rec.Latest(jitSeries); ok {
			w.watch.Compiled(at, ms)
		}
	}
	w.done = w.done || w.watch.Add(b)
	return w.done
}

// outcome is how the warm-up ended, given the warm-up stage the attack
// measured: when it settled, or that it ran to its maximum and which test
// its last window failed.
func (w *warmup) outcome(stage *bench.StageResult) *bench.WarmupSteady {
	ws := &bench.WarmupSteady{Steady: w.done, MaxDuration: w.spec.MaxDuration, Window: w.spec.Window}
	if stage != nil {
		ws.Seconds = stage.Stats.Elapsed.D().Seconds()
	}
	v := w.watch.Last()
	if v.JITRead {
		ms := v.JITMs
		ws.JITMsWindow, ws.JITWindow = &ms, bench.Duration(v.JITSpan.Round(time.Second))
	}
	if w.done {
		return ws
	}
	if !v.Steady {
		ws.Figure, ws.Trend = v.Figure, v.Trend
	}
	ws.Transient, ws.JITBusy = v.Transient(), v.JITBusy
	return ws
}

// jitSeries is the JVM's accumulated JIT compilation time, in ms:
// Micrometer's, else read from the JVM's perf counters.
const jitSeries = metrics.JVMCompilationMs

// noteJIT adds to a warm-up until steady the JVM's compilation time during
// it and during the measured profile, read from the recorded series (on
// the measured attack's clock, so the warm-up is before 0).
func noteJIT(ws *bench.WarmupSteady, series []bench.Series) {
	for _, s := range series {
		if s.Name != jitSeries || len(s.Points) == 0 {
			continue
		}
		first, last := s.Points[0].V, s.Points[len(s.Points)-1].V
		atZero := first
		for _, p := range s.Points {
			if p.T <= 0 {
				atZero = p.V
			}
		}
		warm, measured := atZero-first, last-atZero
		ws.JITMs, ws.JITMsMeasured = &warm, &measured
		return
	}
}
