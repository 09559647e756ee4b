package diagnosis

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jfr"
	"github.com/threadbench/threadbench/internal/units"
)

// pinned is the share of the carriers' time virtual threads spent pinned
// (jdk.VirtualThreadPinned), and where.
func pinned(e Evidence) (bench.Cause, bool) {
	events := jfr.OfType(e.Events, jfr.TypeVirtualThreadPinned)
	carriers := max(e.carriers(), float64(peakOverlap(events)))
	c, total, ok := timeCause(bench.VerdictPinned, events, e.seconds()*carriers)
	if !ok {
		return c, false
	}
	c.Evidence = []bench.Figure{
		{Name: "pinned events", Value: float64(len(events))},
		{Name: "pinned time", Value: total, Unit: "s"},
		{Name: "carriers' time pinned", Value: c.Share, Unit: "share", Limit: 1},
		{Name: "carriers", Value: carriers},
	}
	c.Sentence = fmt.Sprintf("%s%s: its carriers spent %s of the stage pinned (%d pins, %s s in all)",
		e.Target, onJDK(e.JDK), units.Percent(c.Share), len(events), units.Num(total))
	c.Sentence += whereClause(c.Stacks) + pinsClause(e.JDK)
	return c, true
}

// lockBound is the share of the request threads' time spent blocked
// entering monitors (jdk.JavaMonitorEnter) or parked on a lock or a pool
// (jdk.ThreadPark on a class; sleeps, idle pool threads and the server's
// own I/O threads left out), and where; from the thread sampler's dumps
// where they find it (sampledWaits), as they see virtual threads. Where most of that time was one
// of the well-known waits (waits), the sentence names the wait's frame and
// the cause's Waits what it waited for.
func lockBound(e Evidence) (bench.Cause, bool) {
	if samples := jfr.OfType(e.Events, jfr.TypeThreadSample); len(samples) > 0 {
		if c, ok := sampledWaits(e, samples); ok {
			return c, true
		} // a JDK 21 dump says no state: a thread blocked entering a monitor looks busy there, not in JFR
	}
	var blocked []jfr.Event
	var ws []waited
	m := newMatcher()
	for _, ev := range e.Events {
		if ev.Type != jfr.TypeMonitorEnter && (ev.Type != jfr.TypeThreadPark || ev.Fields["parkedClass"] == "" || ev.Sleep()) || ev.ServerLoop() {
			continue // not a wait on a lock or a pool, or a poller's: no request's
		}
		if w := m.waitOf(ev.Stack); ev.Type == jfr.TypeMonitorEnter || !w.idle(ev) { // idle workers wait for work
			blocked, ws = append(blocked, ev), append(ws, w)
		}
	}
	c, total, ok := timeCause(bench.VerdictLockBound, blocked, e.seconds()*e.requestThreads())
	if !ok {
		return c, false
	}
	c.Evidence = []bench.Figure{
		{Name: "blocked events", Value: float64(len(blocked))},
		{Name: "blocked time", Value: total, Unit: "s"},
		{Name: "request threads' time blocked", Value: c.Share, Unit: "share", Limit: 1},
		{Name: "request threads", Value: e.requestThreads()},
	}
	if w, ok := mainWait(blocked, ws); ok && w.Share >= MainWaitShare {
		c.Waits = w.What
		c.Evidence = append(c.Evidence, bench.Figure{Name: "blocked time waiting for " + w.What, Value: w.Share, Unit: "share", Limit: 1})
		c.Sentence = waitSentence(e, c, w, blocked, ws, total)
		return c, true
	}
	c.Sentence = fmt.Sprintf("%s: its request threads spent %s of the stage blocked on locks (%d waits, %s s in all; on %s)",
		e.Target, units.Percent(c.Share), len(blocked), units.Num(total), lockClasses(blocked))
	c.Sentence += whereClause(c.Stacks)
	return c, true
}

// waitSentence says a lock-bound cause whose time was mostly one
// well-known wait: "its request threads waited in
// com.zaxxer.hikari.pool.HikariPool.getConnection for 87 % of the stage
// (…), 90 % of it from com.example.orders.OrderRepository.save:31".
func waitSentence(e Evidence, c bench.Cause, w waitShare, blocked []jfr.Event, ws []waited, total float64) string {
	inWait := c.Share * w.Share
	s := fmt.Sprintf("%s: its request threads waited in %s for %s of the stage (", e.Target, w.Frame, units.Percent(inWait))
	if units.Percent(inWait) != units.Percent(c.Share) {
		s += fmt.Sprintf("of %s blocked: ", units.Percent(c.Share))
	}
	s += fmt.Sprintf("%d waits, %s s in all; on %s)", len(blocked), units.Num(total), lockClasses(blocked))
	if frame, share := ownCaller(e, blocked, ws, w.What); frame != "" {
		s += fmt.Sprintf(", %s of it from %s", units.Percent(share), frame)
	}
	return s
}

// gcBound is the share of the stage spent in GC pauses: JFR's collections
// where recorded, else the pauses the metrics counted. A stage whose
// pauses take a small share of it is gc-bound all the same when one of
// them is its latency's tail (see stall).
func gcBound(e Evidence) (bench.Cause, bool) {
	gcs := jfr.OfType(e.Events, jfr.TypeGarbageCollection)
	var pause float64
	count := float64(len(gcs))
	for _, g := range gcs {
		pause += g.Pause.Seconds()
	}
	if len(gcs) == 0 && e.Resources != nil {
		pause, count = e.Resources.GCPauseSeconds, e.Resources.GCPauses
	}
	if e.seconds() <= 0 {
		return bench.Cause{}, false
	}
	share := min(pause/e.seconds(), 1)
	if share < NotableShare {
		return stall(e, gcs, count, pause)
	}
	c := bench.Cause{Kind: bench.VerdictGCBound, Share: share, Evidence: []bench.Figure{
		{Name: "GC pauses", Value: count},
		{Name: "pause time", Value: pause, Unit: "s"},
		{Name: "stage in pauses", Value: share, Unit: "share", Limit: 1},
	}}
	c.Sentence = fmt.Sprintf("%s spent %s of the stage in GC pauses (%.0f pauses, %s s in all%s)",
		e.Target, units.Percent(share), count, units.Num(pause), collectors(gcs))
	if longest, gap, ok := tailPause(e, gcs); ok { // and one of them is its tail
		c.Evidence = append(pauseFigures(longest, gap), c.Evidence...)
		c.Sentence += "; it " + pauseClause(longest, gap)
	}
	return c, true
}

// stall is the gc-bound verdict of a stage whose tail is one GC pause: its
// p99 stands well apart from its p50 (by at least TailShare of it), and
// its longest pause (JFR's) is at least StallShare of that gap. The
// requests that arrived during the pause waited it out, so a percentile
// past the share of the stage the pause took is the pause, however small
// that share: java-virtual's 10 s confirmations at 3,100 req/s failed
// p99<=300ms each time one held a 0.27 s MarkSweepCompact (p99 376 ms, p50
// 201 ms), and passed each time none did, with 3 to 5 % of the stage in
// pauses. Its share is the pause over the gap (at most 1), and it ranks
// before the connections' flags (see Diagnose): they ran short because the
// target stopped; among the causes, by its share.
func stall(e Evidence, gcs []jfr.Event, count, pause float64) (bench.Cause, bool) {
	longest, gap, ok := tailPause(e, gcs)
	if !ok {
		return bench.Cause{}, false
	}
	c := bench.Cause{Kind: bench.VerdictGCBound, Share: min(longest.Pause.Seconds()/gap, 1), Evidence: append(pauseFigures(longest, gap),
		bench.Figure{Name: "GC pauses", Value: count}, bench.Figure{Name: "pause time", Value: pause, Unit: "s"})}
	c.Sentence = fmt.Sprintf("%s %s (%.0f pauses, %s s in all, %s of the stage)",
		e.Target, pauseClause(longest, gap), count, units.Num(pause), units.Percent(pause/e.seconds()))
	return c, true
}

// tailPause is the stage's longest GC pause (JFR's) and its p99's lead
// over its p50, s, when that pause is the stage's tail (see stall).
func tailPause(e Evidence, gcs []jfr.Event) (jfr.Event, float64, bool) {
	lat := e.Stage.Stats.Latency
	gap := (lat.P99 - lat.P50) / 1000
	var longest jfr.Event
	for _, g := range gcs {
		if g.Pause > longest.Pause {
			longest = g
		}
	}
	return longest, gap, gap > 0 && gap >= TailShare*lat.P50/1000 && longest.Pause.Seconds() >= StallShare*gap
}

// pauseFigures are the figures of a pause that is a stage's tail; the
// first names it (isStall).
func pauseFigures(longest jfr.Event, gap float64) []bench.Figure {
	return []bench.Figure{{Name: "longest GC pause", Value: longest.Pause.Seconds(), Unit: "s"}, {Name: "p99 over p50", Value: gap, Unit: "s"}}
}

// pauseClause says a pause that is a stage's tail: "stopped for 0.27 s in
// one GC pause (SerialOld) where its p99 stood 0.17 s above its p50: the
// requests that came in the pause waited it out".
func pauseClause(longest jfr.Event, gap float64) string {
	name := ""
	if n := longest.Fields["name"]; n != "" {
		name = " (" + n + ")"
	}
	return fmt.Sprintf("stopped for %s s in one GC pause%s where its p99 stood %s s above its p50: the requests that came in the pause waited it out",
		units.Num(longest.Pause.Seconds()), name, units.Num(gap))
}

// isStall reports whether a cause is a stall's (see stall).
func isStall(c bench.Cause) bool {
	return c.Kind == bench.VerdictGCBound && len(c.Evidence) > 0 && c.Evidence[0].Name == "longest GC pause"
}

// heldTheRequests reports whether a cause held every request for a while
// whatever its rate (a stall, the network's retransmissions): it ran the
// generator's connections short, and comes before their flag.
func heldTheRequests(c bench.Cause) bool {
	return isStall(c) || c.Kind == bench.VerdictNetworkBound
}

// cpuBound is the container's CPU at its limit, or throttled.
func cpuBound(e Evidence) (bench.Cause, bool) {
	cpu, ok := e.cpu()
	if !ok {
		return bench.Cause{}, false
	}
	throttled := 0.0
	if cpu.Periods > 0 {
		throttled = cpu.ThrottledPeriods / cpu.Periods
	}
	if cpu.Share < BoundShare && throttled < ThrottledShare {
		return bench.Cause{}, false
	}
	c := bench.Cause{Kind: bench.VerdictCPUBound, Share: min(max(cpu.Share, throttled), 1), Evidence: []bench.Figure{
		{Name: "CPU used", Value: cpu.Share, Unit: "share", Limit: 1},
		{Name: "CPU limit", Value: e.Limits.CPUs, Unit: "CPUs"},
	}}
	c.Sentence = fmt.Sprintf("%s used %s of its %s-CPU limit", e.Target, units.Percent(cpu.Share), units.Plain(e.Limits.CPUs))
	if cpu.Periods > 0 {
		c.Evidence = append(c.Evidence, bench.Figure{Name: "periods throttled", Value: throttled, Unit: "share", Limit: 1})
		c.Sentence += fmt.Sprintf(", throttled in %s of its CFS periods", units.Percent(throttled))
	}
	return c, true
}

// cpu returns the container's CPU over the stage: measured, else from the
// CPU seconds per 1,000 responses completed in the stage the metrics gave.
// The counter is interpolated at the stage's edges: an estimate past the
// limit by more than estimateSlack says the samples were too few to tell,
// and is no evidence.
func (e Evidence) cpu() (CPU, bool) {
	if e.CPU != nil {
		return *e.CPU, true
	}
	if e.Resources == nil || e.Resources.CPUSecondsPer1k <= 0 || e.Limits.CPUs <= 0 || e.seconds() <= 0 {
		return CPU{}, false
	}
	used := e.Resources.CPUSecondsPer1k * float64(e.Stage.Stats.Completed) / 1000
	share := used / (e.seconds() * e.Limits.CPUs)
	if share > 1+estimateSlack {
		return CPU{}, false
	}
	return CPU{Share: min(share, 1)}, true
}

// estimateSlack is how far past the CPU limit an estimate of the CPU used
// may come from the edges of a stage.
const estimateSlack = 0.1

// poolBound is the request pool in use up to its size.
func poolBound(e Evidence) (bench.Cause, bool) {
	p := e.Pool
	if p == nil || p.Max <= 0 || p.Busy.Mean < BoundShare*p.Max {
		return bench.Cause{}, false
	}
	share := min(p.Busy.Mean/p.Max, 1)
	c := bench.Cause{Kind: bench.VerdictPoolBound, Share: share, Evidence: []bench.Figure{
		{Name: p.Name + " busy (mean)", Value: p.Busy.Mean, Limit: p.Max},
		{Name: p.Name + " busy (peak)", Value: p.Busy.Peak, Limit: p.Max},
	}}
	c.Sentence = fmt.Sprintf("%s had its %s in use: %s of %s on average, %s at the most",
		e.Target, p.Name, units.OneDecimal(p.Busy.Mean), units.Plain(p.Max), units.Plain(p.Busy.Peak))
	return c, true
}

// timeCause is a cause measured by its events' time against the time
// they could have taken, capacity seconds: its share and stacks, and the
// events' total seconds. It is not ok below NotableShare.
func timeCause(kind string, events []jfr.Event, capacity float64) (bench.Cause, float64, bool) {
	total := totalSeconds(events)
	if len(events) == 0 || capacity <= 0 || total/capacity < NotableShare {
		return bench.Cause{}, 0, false
	}
	return bench.Cause{Kind: kind, Share: min(total/capacity, 1), Stacks: topStacks(events)}, total, true
}

// peakOverlap returns the most events that were under way at once: as
// many carriers at least were there to be pinned, whatever the CPU limit
// says.
func peakOverlap(events []jfr.Event) int {
	type edge struct {
		at    time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(events))
	for _, e := range events {
		edges = append(edges, edge{e.Start, 1}, edge{e.End(), -1})
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.delta, b.delta)) })
	var now, peak int
	for _, e := range edges {
		now += e.delta
		peak = max(peak, now)
	}
	return peak
}

// totalSeconds adds up the events' durations.
func totalSeconds(events []jfr.Event) float64 {
	var total float64
	for _, e := range events {
		total += e.Duration.Seconds()
	}
	return total
}

// lockClasses names the monitors' and locks' classes, most time first.
func lockClasses(events []jfr.Event) string {
	time := map[string]float64{}
	for _, e := range events {
		class := e.Fields["monitorClass"]
		if class == "" {
			class = e.Fields["parkedClass"]
		}
		time[cmp.Or(class, "an unknown class")] += e.Duration.Seconds()
	}
	names := slices.SortedFunc(maps.Keys(time), func(a, b string) int {
		return cmp.Or(cmp.Compare(time[b], time[a]), strings.Compare(a, b))
	})
	return strings.Join(names[:min(len(names), 2)], ", ")
}

// collectors names the collectors of the GC events, for the sentence.
func collectors(gcs []jfr.Event) string {
	seen := map[string]bool{}
	for _, g := range gcs {
		if n := g.Fields["name"]; n != "" {
			seen[n] = true
		}
	}
	if len(seen) == 0 {
		return ""
	}
	return "; " + strings.Join(slices.Sorted(maps.Keys(seen)), ", ")
}
