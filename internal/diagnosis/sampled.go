package diagnosis

import (
	"fmt"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jfr"
	"github.com/threadbench/threadbench/internal/units"
)

// The thread sampler's dumps (jfr.TypeThreadSample) see every thread on
// the wall clock, virtual threads included: a virtual thread that parks
// unmounts, and JFR records no jdk.ThreadPark for it, so a virtual
// variant's waits are only seen here. Where a stage has them, its
// lock-bound verdict is read from them, for both thread models alike.

// parkFrames are the frames a stack innermost in which is a thread
// waiting, where the dump does not say its state (JDK 21's): parked,
// in Object.wait or asleep.
var parkFrames = []string{"jdk.internal.misc.Unsafe.park", "java.lang.VirtualThread.park", "java.lang.VirtualThread.parkNanos",
	"java.lang.Object.wait0", "java.lang.Object.wait", "java.lang.Thread.sleep0", "java.lang.Thread.sleepNanos0", "java.lang.Thread.sleep"}

// requestSample reports whether a sampled thread was serving a request:
// not waiting for work (idle, by the table of waits), not one of the
// server's own loops, and with a frame of the service or its libraries
// on its stack (a stack all of the JDK's is the JVM's own housekeeping).
func requestSample(ev jfr.Event, w waited) bool {
	return len(ev.Stack) > 0 && !w.idle(ev) && !ev.ServerLoop() && slices.ContainsFunc(ev.Stack, func(f jfr.Frame) bool { return !f.JDK() })
}

// sampledWaiting reports whether a sampled request thread was waiting: in
// a well-known wait (a socket read included, which a dump calls
// RUNNABLE), in a state that waits, or parked by its innermost frame. A
// sleep is no wait: it is the request's own time (a simulated call, a
// back-off), as the CPU is, and nothing another request holds.
func sampledWaiting(ev jfr.Event, w waited) bool {
	if w.What == WaitSleeping {
		return false
	}
	switch ev.Fields["state"] {
	case "WAITING", "TIMED_WAITING", "BLOCKED":
		return true
	}
	return w.Known || slices.Contains(parkFrames, ev.Stack[0].Name())
}

// sampledWaits is lockBound read from thread samples: the share of the
// request threads' sampled time they spent waiting, named by the
// well-known wait most of it was (waits), with the service's call that
// waited. Its events are the waiting samples.
func sampledWaits(e Evidence, samples []jfr.Event) (bench.Cause, bool) {
	m := newMatcher()
	var waiting []jfr.Event
	var ws []waited
	var requests, virtual float64
	for _, ev := range samples {
		w := m.waitOf(ev.Stack)
		if !requestSample(ev, w) {
			continue
		}
		requests += ev.Duration.Seconds()
		if ev.Thread.Virtual {
			virtual += ev.Duration.Seconds()
		}
		if sampledWaiting(ev, w) {
			waiting, ws = append(waiting, ev), append(ws, w)
		}
	}
	c, total, ok := timeCause(bench.VerdictLockBound, waiting, requests)
	if !ok {
		return c, false
	}
	threads := requests / max(e.seconds(), 1e-9)
	c.Evidence = []bench.Figure{
		{Name: "request threads seen (mean)", Value: threads},
		{Name: "request threads' time waiting", Value: c.Share, Unit: "share", Limit: 1},
		{Name: "waiting time", Value: total, Unit: "s"},
	}
	kind := ""
	if 2*virtual > requests {
		kind = "virtual "
	}
	if w, ok := mainWait(waiting, ws); ok && w.Share >= MainWaitShare {
		c.Waits = w.What
		c.Evidence = append(c.Evidence, bench.Figure{Name: "waiting time waiting for " + w.What, Value: w.Share, Unit: "share", Limit: 1})
		c.Sentence = fmt.Sprintf("%s: its %srequest threads waited in %s for %s of their time (thread dumps: %s threads serving requests on average, %s waiting)",
			e.Target, kind, w.Frame, units.Percent(c.Share*w.Share), units.OneDecimal(threads), units.Percent(c.Share))
		if frame, share := ownCaller(e, waiting, ws, w.What); frame != "" {
			c.Sentence += fmt.Sprintf(", %s of it from %s", units.Percent(share), frame)
		}
		return c, true
	}
	c.Sentence = fmt.Sprintf("%s: its %srequest threads spent %s of their time waiting (thread dumps: %s threads serving requests on average)",
		e.Target, kind, units.Percent(c.Share), units.OneDecimal(threads))
	c.Sentence += whereClause(c.Stacks)
	return c, true
}
