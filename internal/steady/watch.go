package steady

import "github.com/threadbench/threadbench/internal/bench"

// Watcher is the detector used online: fed the seconds of a warm-up as
// they finish, it says when throughput and p50 have stopped trending over
// the last Window seconds — nothing to cut in the window and no trend in
// it — which is when a warm-up may stop.
type Watcher struct {
	window  int
	seconds []bench.Bucket
	last    Part
}

// NewWatcher returns a Watcher over a trailing window of seconds (at least
// MinSeconds).
func NewWatcher(window int) *Watcher {
	return &Watcher{window: max(window, MinSeconds)}
}

// Add takes the next full second and reports whether the window ending
// with it is steady. Seconds cut short (the last of an attack) are left
// out.
func (w *Watcher) Add(b bench.Bucket) bool {
	if b.Stats.Elapsed.D().Seconds() < 0.99 {
		return false
	}
	w.seconds = append(w.seconds, b)
	if len(w.seconds) < w.window {
		return false
	}
	w.last = OfSeconds(w.seconds[len(w.seconds)-w.window:])
	return w.last.Steady && w.last.Start == 0 && w.last.EndCut == 0
}

// Last is what the last full window showed: its cut, and its trend when
// it was not steady. The zero Part before the window first filled.
func (w *Watcher) Last() Part { return w.last }

// Seconds is how many full seconds the Watcher was given.
func (w *Watcher) Seconds() int { return len(w.seconds) }
