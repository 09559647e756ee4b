package runner

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/metrics"
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
}

// newPauseWatch starts watching rec (nil: no metrics, nothing seen).
func newPauseWatch(rec bench.Recording) *pauseWatch {
	w := &pauseWatch{rec: rec}
	w.poll()
	return w
}

// start sets when the trial began: pauses are noted from it.
func (w *pauseWatch) start(t0 time.Time) { w.began = t0 }

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
