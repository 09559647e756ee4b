package steady

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// QuietShare is how much of the target's CPU time over a window a JVM's
// compiler may spend for the warm-up to end: the smallest shift the
// detector counts as a transient (DefaultMinShift). A compiler busier than
// that takes more CPU from the requests than a transient the stage's own
// test would cut, and the code it is compiling makes them faster still
// once done. It is a share of the window's wall time times the target's
// CPUs, so it reads the same on a fast CPU and a slow one.
const QuietShare = DefaultMinShift

// Watcher is the detector used online: fed the seconds of a warm-up as
// they finish, and a JVM's compilation time as it is read, it says when
// the warm-up may end. That is when the last Window seconds pass the test
// a stage's seconds are put to (OfSeconds: steady, and nothing to cut at
// either end) and, for a JVM, its compiler was quiet over them.
type Watcher struct {
	window  int
	cpus    float64
	seconds []bench.Bucket
	jit     []reading
	last    Verdict
}

// reading is the compiler's accumulated time, in ms, as read at an instant.
type reading struct {
	at time.Time
	ms float64
}

// Verdict is what the watcher's last full window showed.
type Verdict struct {
	// Part is the figures' test on the window: its cuts, whether it is
	// steady and, when not, which figure trends and how fast.
	Part
	// JIT is true for a target whose compilation time was read (a JVM);
	// the compiler test applies to it alone.
	JIT bool
	// JITSpan is the wall time the compiler was read over: the window, or
	// longer after a compilation longer than it (see jitSpan). JITRead is
	// true when the readings covered all of it; JITMs is then what the
	// compiler compiled between the first and the last of them.
	JITSpan time.Duration
	JITRead bool
	JITMs   float64
	// JITBusy is true when the compiler compiled more than QuietShare of
	// the window's CPU time, or its time could not be read over the window.
	JITBusy bool
}

// Transient reports whether the window still had something to cut at an
// end, though what it kept was steady.
func (v Verdict) Transient() bool { return v.Steady && (v.Start > 0 || v.EndCut > 0) }

// Settled reports whether the window passed every test.
func (v Verdict) Settled() bool { return v.Judged && v.Steady && !v.Transient() && !v.JITBusy }

// NewWatcher returns a Watcher over a trailing window of seconds (at least
// MinSeconds), for a target of cpus CPUs (1 when not positive).
func NewWatcher(window int, cpus float64) *Watcher {
	if cpus <= 0 {
		cpus = 1
	}
	return &Watcher{window: max(window, MinSeconds), cpus: cpus}
}

// Compiled takes the JVM's accumulated compilation time, ms, as read at at
// (the latest scrape of its metrics). A reading no later than the last is
// the same scrape read again, and is left out.
func (w *Watcher) Compiled(at time.Time, ms float64) {
	if n := len(w.jit); n > 0 && !at.After(w.jit[n-1].at) {
		return
	}
	w.jit = append(w.jit, reading{at, ms})
}

// Add takes the next full second and reports whether the window ending
// with it settled. Seconds cut short (the last of an attack) are left out.
func (w *Watcher) Add(b bench.Bucket) bool {
	if b.Stats.Elapsed.D().Seconds() < 0.99 {
		return false
	}
	w.seconds = append(w.seconds, b)
	if len(w.seconds) < w.window {
		return false
	}
	w.last = Verdict{Part: OfSeconds(w.seconds[len(w.seconds)-w.window:])}
	w.judgeJIT()
	return w.last.Settled()
}

// judgeJIT applies the compiler test to the last stretch of wall time the
// compiler must have been quiet over (jitSpan), from the latest reading
// back to the last one taken at or before the stretch began.
func (w *Watcher) judgeJIT() {
	if len(w.jit) == 0 {
		return // no compiler: a Go target, or metrics without it
	}
	w.last.JIT = true
	span := w.jitSpan()
	last := w.jit[len(w.jit)-1]
	first := w.jit[0]
	for _, r := range w.jit {
		if last.at.Sub(r.at) >= span {
			first = r
		}
	}
	read := last.at.Sub(first.at)
	w.last.JITSpan = read
	if read < span {
		w.last.JITBusy = true // not read over all of it: it cannot be called quiet
		return
	}
	w.last.JITRead, w.last.JITMs = true, last.ms-first.ms
	w.last.JITBusy = CompilerBusy(w.last.JITMs, read, w.cpus)
}

// CompilerBusy reports whether a JVM's compiler that compiled ms over a
// stretch of wall time took more than QuietShare of the CPU time a target
// of cpus CPUs (1 when not positive) had in it.
func CompilerBusy(ms float64, over time.Duration, cpus float64) bool {
	if cpus <= 0 {
		cpus = 1
	}
	return ms > QuietShare*cpus*float64(over.Milliseconds())
}

// jitSpan is how long the compiler must be quiet: the window, or longer
// than twice the longest step its time has taken between two readings.
// The counter grows only when a compilation ends, by all the time it took,
// so a compilation under way is unseen until it ends. The one under way
// can be longer than any seen so far: the last methods C2 compiles are the
// hottest and largest, and a hundred request threads on one CPU starve it
// (java-platform's orders service finished compiles of 6.7, 7.9, 7.8 and
// 5.2 s, then was quiet for 11 s, then finished one of 11.7 s). Twice the
// longest step covers such a record; a JVM whose compiles were short (the
// same service on virtual threads: none over 2.6 s) keeps the window.
func (w *Watcher) jitSpan() time.Duration {
	span := time.Duration(w.window) * time.Second
	for i := 1; i < len(w.jit); i++ {
		step := time.Duration((w.jit[i].ms - w.jit[i-1].ms) * float64(time.Millisecond))
		span = max(span, 2*step+w.jit[i].at.Sub(w.jit[i-1].at))
	}
	return span
}

// Last is what the last full window showed; the zero Verdict before the
// window first filled.
func (w *Watcher) Last() Verdict { return w.last }

// Seconds is how many full seconds the Watcher was given.
func (w *Watcher) Seconds() int { return len(w.seconds) }
