package runner

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/metrics"
)

// pauseCounters is a Recording whose GC counters are set by the test.
type pauseCounters struct {
	at          time.Time
	count, secs float64
	has         bool
	jit         float64 // the compilation time, ms
	jitHas      bool
}

func (p *pauseCounters) SetT0(time.Time) {}
func (p *pauseCounters) Stop(context.Context, *bench.StageResult, []bench.StageResult) bench.RecordingResult {
	return bench.RecordingResult{}
}
func (p *pauseCounters) Latest(name string) (time.Time, float64, bool) {
	switch name {
	case metrics.JVMGCPauses:
		return p.at, p.count, p.has
	case metrics.JVMGCPauseSeconds:
		return p.at, p.secs, p.has
	case metrics.JVMCompilationMs:
		return p.at, p.jit, p.jitHas
	}
	return time.Time{}, 0, false
}

// The watch notes each reading the counter rose in, at the reading's time
// from the trial's start, with how many pauses and their time; the
// counter's value before the trial (collections of the JVM's start) is not
// a pause of it.
func TestPauseWatch(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	rec := &pauseCounters{at: t0.Add(-time.Second), count: 12, secs: 0.8, has: true}
	w := newPauseWatch(rec)
	w.start(t0)
	for i, step := range []struct{ count, secs float64 }{{12, 0.8}, {13, 1.05}, {13, 1.05}, {15, 1.5}} {
		rec.at, rec.count, rec.secs = t0.Add(time.Duration(i+1)*time.Second), step.count, step.secs
		w.poll()
	}
	want := []capacity.Pause{{At: 2 * time.Second, Count: 1, Seconds: 0.25}, {At: 4 * time.Second, Count: 2, Seconds: 0.45}}
	if !slices.EqualFunc(w.seen, want, func(a, b capacity.Pause) bool {
		return a.At == b.At && a.Count == b.Count && math.Abs(a.Seconds-b.Seconds) < 1e-9
	}) {
		t.Errorf("pauses %+v, want %+v", w.seen, want)
	}
}

// Without a recording, or a JVM counter, nothing is seen.
func TestPauseWatch_None(t *testing.T) {
	for _, rec := range []bench.Recording{nil, &pauseCounters{}} {
		w := newPauseWatch(rec)
		w.start(time.Now())
		w.poll()
		if len(w.seen) != 0 {
			t.Errorf("%T: %v; want nothing", rec, w.seen)
		}
	}
}

// A trial's compiler reads busy when it compiled more than the warm-up's
// quiet share of the target's CPU time over the trial (java-virtual's
// first 3 s at 1,600 req/s: 2.5 s of compilation on one CPU), and quiet
// under it, or with two CPUs to share it; a target with no compilation
// counter (Go) never reads busy.
func TestPauseWatchCompiling(t *testing.T) {
	for _, c := range []struct {
		before, after, cpus float64
		has                 bool
		busy                bool
	}{
		{before: 10_000, after: 12_512, cpus: 1, has: true, busy: true},
		{before: 10_000, after: 10_040, cpus: 1, has: true, busy: false},
		{before: 10_000, after: 10_100, cpus: 1, has: true, busy: true},
		{before: 10_000, after: 10_100, cpus: 2, has: true, busy: false},
		{before: 10_000, after: 10_100, cpus: 0, has: true, busy: true},
		{before: 0, after: 5_000, cpus: 1, has: false, busy: false},
	} {
		rec := &pauseCounters{jit: c.before, jitHas: c.has}
		w := newPauseWatch(rec)
		rec.jit = c.after
		got := w.compiling(3*time.Second, c.cpus)
		if (got != "") != c.busy {
			t.Errorf("%+v: %q, want busy %v", c, got, c.busy)
		}
		if c.busy && !strings.Contains(got, fmt.Sprintf("%.2f s", (c.after-c.before)/1000)) {
			t.Errorf("%+v: %q, want the compilation time said", c, got)
		}
	}
	if got := newPauseWatch(nil).compiling(3*time.Second, 1); got != "" {
		t.Errorf("no recording: %q, want nothing", got)
	}
}
