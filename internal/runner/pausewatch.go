package runner

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

// pauseWatch reads a JVM's collection-pause counter as a capacity trial
// runs, once a second, and notes when it moved: the pauses a search sizes
// its rounds to (capacity.Outcome.PauseAt). A target without the counter
// (Go, a JVM whose metrics were not read) reports none.
type pauseWatch struct {
	rec    bench.Recording
	began  time.Time
	count  float64 // the counter when last read
	secs   float64 // the pauses' time when last read, s
	read   bool    // the counter has been read once
	at     []time.Duration
	paused float64
}

// newPauseWatch starts watching rec (nil: no metrics, nothing seen).
func newPauseWatch(rec bench.Recording) *pauseWatch {
	w := &pauseWatch{rec: rec}
	w.poll()
	return w
}

// start sets when the trial began: pauses are noted from it.
func (w *pauseWatch) start(t0 time.Time) { w.began = t0 }

// poll reads the counter; a rise since the last reading is that many
// pauses, noted at the reading's time (a scrape apart from when they
// began: within the scrape interval).
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
		for range int(count - w.count) {
			w.at = append(w.at, max(at.Sub(w.began), 0))
		}
		w.paused += max(secs-w.secs, 0)
	}
	w.count, w.secs, w.read = count, secs, true
}
