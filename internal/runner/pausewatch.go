package runner

import (
	"fmt"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/steady"
)

// pauseWatch reads a JVM's collection-pause counters as a capacity trial
// runs, once a second, and notes each reading they moved in, with the
// collections' time since the reading before: the stops a search sizes its
// rounds to (capacity.Outcome.Pauses). A full collection among a JVM's
// young ones is a reading of long pauses, whatever the counters' mean. A
// target without the counters (Go, a JVM whose metrics were not read)
// reports none.
type pauseWatch struct {
	rec   bench.Recording
	began time.Time
	count float64 // the counter when last read
	secs  float64 // the pauses' time when last read, s
	read  bool    // the counter has been read once
	seen  []capacity.Pause
	jit   float64 // the JVM's compilation time before the trial, ms
	jitOK bool    // it was read
}

// newPauseWatch starts watching rec (nil: no metrics, nothing seen).
func newPauseWatch(rec bench.Recording) *pauseWatch {
	w := &pauseWatch{rec: rec}
	w.markJIT()
	w.poll()
	return w
}

// start sets when the trial began: pauses are noted from it, and the
// compiler's time is read from it (after a warm-up before it).
func (w *pauseWatch) start(t0 time.Time) {
	w.began = t0
	w.markJIT()
}

// markJIT reads the compiler's time the trial's is counted from.
func (w *pauseWatch) markJIT() {
	if w.rec != nil {
		_, w.jit, w.jitOK = w.rec.Latest(jitSeries)
	}
}

// poll reads the counters; a rise since the last reading is that many
// pauses, noted at the reading's time (a scrape apart from when they
// began: within the scrape interval) with their time together.
func (w *pauseWatch) poll() {
	if w.rec == nil {
		return
	}
	at, count, ok := w.rec.Latest(metrics.JVMGCPauses)
	if !ok {
		return
	}
	_, secs, _ := w.rec.Latest(metrics.JVMGCPauseSeconds)
	if w.read && count > w.count && !w.began.IsZero() {
		w.seen = append(w.seen, capacity.Pause{At: max(at.Sub(w.began), 0), Count: int(count - w.count), Seconds: max(secs-w.secs, 0)})
	}
	w.count, w.secs, w.read = count, secs, true
}

// compiling says what the JVM's compiler did over a trial of length d,
// from before it to now, when it took more of a target of cpus CPUs than
// a warm-up allows to end (steady.CompilerBusy); empty when it did not, or
// there is no compiler to read (capacity.Outcome.Compiling).
func (w *pauseWatch) compiling(d time.Duration, cpus float64) string {
	if !w.jitOK {
		return ""
	}
	_, ms, ok := w.rec.Latest(jitSeries)
	if !ok || !steady.CompilerBusy(ms-w.jit, d, cpus) {
		return ""
	}
	return fmt.Sprintf("its JIT compiled %.2f s in the %s trial", (ms-w.jit)/1000, d)
}
