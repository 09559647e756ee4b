package diagnosis_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/diagnosis"
	"github.com/threadbench/threadbench/internal/flame"
	"github.com/threadbench/threadbench/internal/jfr"
)

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// frame builds a stack frame from "class.method:line".
func frame(s string) jfr.Frame {
	name, line, _ := strings.Cut(s, ":")
	i := strings.LastIndexByte(name, '.')
	f := jfr.Frame{Class: name[:i], Method: name[i+1:]}
	if line != "" {
		f.Line = int(line[0]-'0')*10 + int(line[1]-'0')
	}
	return f
}

// stack builds a stack, innermost first.
func stack(frames ...string) []jfr.Frame {
	out := make([]jfr.Frame, len(frames))
	for i, f := range frames {
		out[i] = frame(f)
	}
	return out
}

// The stacks of the fixture's pinning endpoint on JDK 21, innermost first.
var (
	pinnedStack = stack("java.lang.VirtualThread.parkOnCarrierThread", "java.lang.VirtualThread.parkNanos", "java.lang.Thread.sleep",
		"com.example.orders.LegacyDriver$Connection.roundTrip:55", "com.example.orders.LegacyDriver.call:40", "com.example.orders.LegacyController.legacy:29")
	otherPinnedStack = stack("java.lang.VirtualThread.parkOnCarrierThread", "com.example.orders.Audit.log:12")
	monitorStack     = stack("com.example.orders.LegacyDriver$Connection.roundTrip:55", "com.example.orders.LegacyDriver.call:40")
)

// events returns n events of a type from t0 on, each lasting d, one after
// the other (every 10 ms for instants).
func events(typ string, n int, d time.Duration, st []jfr.Frame, fields map[string]string) []jfr.Event {
	out := make([]jfr.Event, n)
	every := max(d, 10*time.Millisecond)
	for i := range out {
		out[i] = jfr.Event{Type: typ, Start: t0.Add(time.Duration(i) * every), Duration: d, Stack: st, Fields: fields}
	}
	return out
}

// stage is a 5 s stage of 200 req/s at a mean 20 ms (4 requests in flight
// by Little's law).
func stage() bench.StageResult {
	return bench.StageResult{Index: 1, Duration: bench.Duration(5 * time.Second),
		Stats: bench.Stats{Successes: 1000, Completed: 1000, Throughput: 200, Latency: bench.Latency{Mean: 20}}}
}

func TestPinned(t *testing.T) {
	e := diagnosis.Evidence{Target: "orders@virtual", JDK: 21, Stage: stage(), Limits: bench.Limits{CPUs: 2}, Source: bench.ProfileJFR,
		// 2.4 s + 0.6 s pinned of 2 carriers × 5 s: 30 %, 80 % of it in roundTrip
		Events: append(events(jfr.TypeVirtualThreadPinned, 120, 20*time.Millisecond, pinnedStack, nil),
			events(jfr.TypeVirtualThreadPinned, 30, 20*time.Millisecond, otherPinnedStack, nil)...)}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 1 || d.Causes[0].Kind != bench.VerdictPinned {
		t.Fatalf("causes = %+v, want pinned alone", d.Causes)
	}
	c := d.Causes[0]
	want := "orders@virtual on JDK 21: its carriers spent 30 % of the stage pinned (150 pins, 3.00 s in all), 80 % of it in " +
		"com.example.orders.LegacyDriver$Connection.roundTrip:55; JDK 21 still pins a virtual thread that blocks inside synchronized (JEP 491 lifted that in JDK 24)"
	if c.Sentence != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", c.Sentence, want)
	}
	if c.Share < 0.299 || c.Share > 0.301 {
		t.Errorf("share = %v, want 0.3", c.Share)
	}
	if got := c.Stacks[0].Frames; got[0] != "com.example.orders.LegacyDriver$Connection.roundTrip:55" || len(got) != 3 {
		t.Errorf("top stack = %v, want it to start at roundTrip (the JDK's frames cut) and hold its 3 callers' frames", got)
	}
	if !d.SynchronizedPins || d.JDK != 21 {
		t.Errorf("JDK %d, synchronized pins %v; want 21, true", d.JDK, d.SynchronizedPins)
	}
}

func TestPinnedCarriersFromOverlap(t *testing.T) {
	// four carriers pinned at once for 2 s, though the limit says 1 CPU:
	// there were 4 carriers at least, and they spent 40 % of the stage pinned
	var pins []jfr.Event
	for range 4 {
		pins = append(pins, events(jfr.TypeVirtualThreadPinned, 100, 20*time.Millisecond, pinnedStack, nil)...)
	}
	e := diagnosis.Evidence{Target: "orders@virtual", JDK: 21, Stage: stage(), Limits: bench.Limits{CPUs: 1}, Events: pins}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 1 || d.Causes[0].Share < 0.399 || d.Causes[0].Share > 0.401 {
		t.Fatalf("causes = %+v, want pinned at 40 %%", d.Causes)
	}
	for _, f := range d.Causes[0].Evidence {
		if f.Name == "carriers" && f.Value != 4 {
			t.Errorf("carriers = %v, want 4 (pinned at once)", f.Value)
		}
	}
}

func TestPinnedBelowNotable(t *testing.T) {
	// 0.2 s of 10 carrier-seconds: 2 %, below NotableShare
	e := diagnosis.Evidence{Target: "orders@virtual", JDK: 25, Stage: stage(), Limits: bench.Limits{CPUs: 2},
		Events: events(jfr.TypeVirtualThreadPinned, 10, 20*time.Millisecond, otherPinnedStack, nil)}
	if d := diagnosis.Diagnose(e); len(d.Causes) != 0 || d.SynchronizedPins {
		t.Errorf("Diagnose() = %+v, want no cause and no synchronized pinning on JDK 25", d)
	}
}

func TestLockBound(t *testing.T) {
	e := diagnosis.Evidence{Target: "orders@platform", JDK: 25, Stage: stage(),
		// 3 s blocked of 4 threads × 5 s: 15 %
		Events: append(events(jfr.TypeMonitorEnter, 100, 25*time.Millisecond, monitorStack, map[string]string{"monitorClass": "com.example.orders.LegacyDriver$Connection"}),
			// parks on a lock count, sleeps do not,
			append(events(jfr.TypeThreadPark, 10, 50*time.Millisecond, stack("jdk.internal.misc.Unsafe.park", "com.example.orders.Pool.take:10"), map[string]string{"parkedClass": "java.util.concurrent.locks.ReentrantLock$NonfairSync"}),
				append(events(jfr.TypeThreadPark, 100, 50*time.Millisecond, stack("jdk.internal.misc.Unsafe.park", "java.lang.Thread.sleep", "com.example.orders.QuoteController.quote:40"), map[string]string{"parkedClass": "java.lang.Object"}),
					// nor do idle pool threads waiting for work,
					append(events(jfr.TypeThreadPark, 100, 50*time.Millisecond, stack("jdk.internal.misc.Unsafe.park", "java.util.concurrent.LinkedBlockingQueue.take", "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask"), map[string]string{"parkedClass": "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"}),
						// nor Tomcat's poller between requests
						events(jfr.TypeMonitorEnter, 100, 25*time.Millisecond, stack("org.apache.tomcat.util.net.NioEndpoint$Poller.run:91", "java.lang.Thread.run"), map[string]string{"monitorClass": "java.lang.Object"})...)...)...)...)}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 1 || d.Causes[0].Kind != bench.VerdictLockBound {
		t.Fatalf("causes = %+v, want lock-bound alone", d.Causes)
	}
	want := "orders@platform: its request threads spent 15 % of the stage blocked on locks (110 waits, 3.00 s in all; on com.example.orders.LegacyDriver$Connection, " +
		"java.util.concurrent.locks.ReentrantLock$NonfairSync), 83 % of it in com.example.orders.LegacyDriver$Connection.roundTrip:55"
	if got := d.Causes[0].Sentence; got != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", got, want)
	}
}

func TestGCBound(t *testing.T) {
	res := &bench.StageResources{GCPauses: 40, GCPauseSeconds: 1}
	d := diagnosis.Diagnose(diagnosis.Evidence{Target: "go", Stage: stage(), Resources: res})
	if len(d.Causes) != 1 || d.Causes[0].Sentence != "go spent 20 % of the stage in GC pauses (40 pauses, 1.00 s in all)" {
		t.Errorf("causes = %+v", d.Causes)
	}
	// JFR's collections win over the metrics, and are named
	gcs := events(jfr.TypeGarbageCollection, 3, time.Second, nil, map[string]string{"name": "G1Old"})
	for i := range gcs {
		gcs[i].Pause = 400 * time.Millisecond
	}
	d = diagnosis.Diagnose(diagnosis.Evidence{Target: "java", Stage: stage(), Resources: res, Events: gcs})
	if len(d.Causes) != 1 || d.Causes[0].Sentence != "java spent 24 % of the stage in GC pauses (3 pauses, 1.20 s in all; G1Old)" {
		t.Errorf("causes = %+v", d.Causes)
	}
}

func TestCPUBound(t *testing.T) {
	var samples flame.Builder
	samples.Add([]string{"main", "server.cpuWork", "sha256.blockSHANI"}, 80)
	samples.Add([]string{"main", "server.cpuWork"}, 20)
	// 9.5 CPU-seconds per 1,000 of 1,000 requests in 5 s on 2 CPUs: 95 %
	e := diagnosis.Evidence{Target: "go", Stage: stage(), Limits: bench.Limits{CPUs: 2}, Source: bench.ProfilePprof,
		Resources: &bench.StageResources{CPUSecondsPer1k: 9.5}, Samples: samples.Stacks()}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 1 {
		t.Fatalf("causes = %+v, want cpu-bound alone", d.Causes)
	}
	want := "go used 95 % of its 2-CPU limit; 80 % of its 100 CPU samples under sha256.blockSHANI"
	if got := d.Causes[0].Sentence; got != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", got, want)
	}
	if d.Samples != 100 || d.TopFrames[0].Frame != "sha256.blockSHANI" || d.TopFrames[1].Cumulative != 100 {
		t.Errorf("samples %d, top frames %v", d.Samples, d.TopFrames)
	}
	// told the service's own frames, it names the one its code was in
	e.Own = func(f string) bool { return strings.HasPrefix(f, "server.") || f == "main" }
	d = diagnosis.Diagnose(e)
	want = "go used 95 % of its 2-CPU limit; 80 % of its 100 CPU samples under sha256.blockSHANI; its own code was most in server.cpuWork (100 %)"
	if got := d.Causes[0].Sentence; got != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", got, want)
	}
	if len(d.OwnFrames) != 1 || d.OwnFrames[0].Frame != "server.cpuWork" {
		t.Errorf("own frames %v", d.OwnFrames)
	}
	// throttled periods bind it at a lower mean
	e.CPU = &diagnosis.CPU{Share: 0.6, ThrottledPeriods: 300, Periods: 1000}
	if d := diagnosis.Diagnose(e); len(d.Causes) != 1 || !strings.Contains(d.Causes[0].Sentence, "throttled in 30 % of its CFS periods") {
		t.Errorf("throttled: causes = %+v", d.Causes)
	}
}

func TestPoolBound(t *testing.T) {
	e := diagnosis.Evidence{Target: "java-platform", Stage: stage(), Pool: &diagnosis.Pool{Name: "Tomcat threads", Busy: bench.Gauge{Peak: 200, Mean: 193}, Max: 200}}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 1 || d.Causes[0].Sentence != "java-platform had its Tomcat threads in use: 193 of 200 on average, 200 at the most" {
		t.Errorf("causes = %+v", d.Causes)
	}
	e.Pool.Busy.Mean = 150 // below BoundShare
	if d := diagnosis.Diagnose(e); len(d.Causes) != 0 {
		t.Errorf("a pool 75 %% in use: causes = %+v", d.Causes)
	}
}

func TestFlagsComeFirst(t *testing.T) {
	s := stage()
	s.Flags = []bench.Flag{{Kind: bench.FlagDisturbed, Reason: "API"}, {Kind: bench.FlagGeneratorBound, Reason: "generator CPU 95%"}}
	e := diagnosis.Evidence{Target: "go", Stage: s, Pool: &diagnosis.Pool{Name: "workers", Busy: bench.Gauge{Peak: 8, Mean: 8}, Max: 8}}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 2 || d.Causes[0].Kind != bench.FlagGeneratorBound || d.Causes[1].Kind != bench.VerdictPoolBound {
		t.Fatalf("causes = %+v, want generator-bound, then pool-bound (disturbed is no cause)", d.Causes)
	}
	if !strings.Contains(d.Causes[0].Sentence, "generator CPU 95%") {
		t.Errorf("sentence %q does not quote the flag's reason", d.Causes[0].Sentence)
	}
}

func TestCausesRankedByShare(t *testing.T) {
	e := diagnosis.Evidence{Target: "orders@virtual", JDK: 21, Stage: stage(), Limits: bench.Limits{CPUs: 1},
		Resources: &bench.StageResources{GCPauses: 10, GCPauseSeconds: 0.75},                       // 15 %
		Events:    events(jfr.TypeVirtualThreadPinned, 150, 20*time.Millisecond, pinnedStack, nil)} // 3 s of 5: 60 %
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 2 || d.Causes[0].Kind != bench.VerdictPinned || d.Causes[1].Kind != bench.VerdictGCBound {
		t.Errorf("causes = %+v, want pinned (60 %%) before gc-bound (15 %%)", d.Causes)
	}
}

func TestNothingRecorded(t *testing.T) {
	d := diagnosis.Diagnose(diagnosis.Evidence{Target: "img", Stage: stage(), NoProfile: "the image runs no JVM"})
	if len(d.Causes) != 0 || d.NoProfile != "the image runs no JVM" || d.Stage != 1 || d.Samples != 0 {
		t.Errorf("Diagnose() = %+v", d)
	}
}

// A stage whose tail is one GC pause is gc-bound however small a share of
// it the pauses take, and the connections' flag (they ran short because
// the target stopped) comes after it; the generator's stays first. The
// figures are java-virtual's confirmation at 3,100 req/s that failed
// p99<=300ms (p50 201 ms, p99 376 ms) with a 0.27 s MarkSweepCompact in it
// and four young collections. A stage whose p99 stands near its p50 has no
// tail to explain: the same pauses say nothing there.
func TestStall(t *testing.T) {
	s := bench.StageResult{Index: 15, Duration: bench.Duration(10 * time.Second),
		Stats: bench.Stats{Successes: 31000, Completed: 31000, Throughput: 3100, Latency: bench.Latency{P50: 201, P99: 375.8}},
		Flags: []bench.Flag{{Kind: bench.FlagConnectionBound, Reason: "requests waited for a connection"}}}
	gcs := append(events(jfr.TypeGarbageCollection, 4, 30*time.Millisecond, nil, map[string]string{"name": "DefNew"}),
		jfr.Event{Type: jfr.TypeGarbageCollection, Start: t0.Add(5 * time.Second), Duration: 270 * time.Millisecond, Fields: map[string]string{"name": "SerialOld"}})
	for i := range gcs {
		gcs[i].Pause = gcs[i].Duration
	}
	e := diagnosis.Evidence{Target: "java-virtual", JDK: 25, Stage: s, Limits: bench.Limits{CPUs: 1}, Events: gcs}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 2 || d.Causes[0].Kind != bench.VerdictGCBound || d.Causes[1].Kind != bench.FlagConnectionBound {
		t.Fatalf("causes = %+v, want gc-bound (the pause), then connection-bound", d.Causes)
	}
	want := "java-virtual stopped for 0.27 s in one GC pause (SerialOld) where its p99 stood 0.17 s above its p50: the requests that came in the pause waited it out (5 pauses, 0.39 s in all, 3.9 % of the stage)"
	if d.Causes[0].Sentence != want {
		t.Errorf("sentence\n%s\nwant\n%s", d.Causes[0].Sentence, want)
	}
	gen := e
	gen.Stage.Flags = append([]bench.Flag{{Kind: bench.FlagGeneratorBound, Reason: "generator CPU 97%"}}, s.Flags...)
	if d := diagnosis.Diagnose(gen); len(d.Causes) != 3 || d.Causes[0].Kind != bench.FlagGeneratorBound || d.Causes[1].Kind != bench.VerdictGCBound {
		t.Errorf("causes = %+v, want the generator's flag first, then the pause", d.Causes)
	}
	// pauses that take a notable share of the stage, one of them its tail
	busy := e
	busy.Events = append(events(jfr.TypeGarbageCollection, 40, 30*time.Millisecond, nil, map[string]string{"name": "DefNew"}), gcs[4])
	for i := range busy.Events {
		busy.Events[i].Pause = busy.Events[i].Duration
	}
	if d := diagnosis.Diagnose(busy); len(d.Causes) != 2 || d.Causes[0].Kind != bench.VerdictGCBound || !strings.HasSuffix(d.Causes[0].Sentence,
		"spent 15 % of the stage in GC pauses (41 pauses, 1.47 s in all; DefNew, SerialOld); it stopped for 0.27 s in one GC pause (SerialOld) where its p99 stood 0.17 s above its p50: the requests that came in the pause waited it out") {
		t.Errorf("causes = %+v, want gc-bound with its tail's pause, before the connections' flag", d.Causes)
	}
	// A stall leads no cause that held the target for more of the stage:
	// orders@virtual on JDK 21, its carrier pinned 93 % of a 10 s stage
	// (36.9 req/s where 8 clients allow 157; p50 210.9 ms, p99 348.7),
	// one 0.11 s SerialOld pause in it (0.8 of the tail's 0.14 s).
	pinnedStage := bench.StageResult{Index: 0, Duration: bench.Duration(10 * time.Second),
		Stats: bench.Stats{Successes: 369, Completed: 369, Throughput: 36.9, Latency: bench.Latency{P50: 210.9, P99: 348.7}},
		Flags: s.Flags}
	pause := jfr.Event{Type: jfr.TypeGarbageCollection, Start: t0.Add(5 * time.Second), Duration: 110 * time.Millisecond, Pause: 110 * time.Millisecond,
		Fields: map[string]string{"name": "SerialOld"}}
	pinnedOnes := diagnosis.Evidence{Target: "orders@virtual,jdk=21", JDK: 21, Stage: pinnedStage, Limits: bench.Limits{CPUs: 1},
		Events: append(events(jfr.TypeVirtualThreadPinned, 465, 20*time.Millisecond, pinnedStack, nil), pause)}
	if d := diagnosis.Diagnose(pinnedOnes); len(d.Causes) != 3 || d.Causes[0].Kind != bench.VerdictPinned || d.Causes[1].Kind != bench.VerdictGCBound ||
		d.Causes[2].Kind != bench.FlagConnectionBound {
		t.Errorf("causes = %+v, want pinned (93 %% of the stage), then the pause (0.8 of the tail), then the connections' flag", d.Causes)
	}
	passing := e
	passing.Stage.Stats.Latency.P99 = 225 // the confirmations that held no such pause
	passing.Events = gcs[:4]
	if d := diagnosis.Diagnose(passing); len(d.Causes) != 1 || d.Causes[0].Kind != bench.FlagConnectionBound {
		t.Errorf("causes = %+v, want none but the flag: p99 near p50", d.Causes)
	}
	passing.Events = gcs
	if d := diagnosis.Diagnose(passing); len(d.Causes) != 1 {
		t.Errorf("causes = %+v, want none but the flag: 24 ms of tail has no cause of its own", d.Causes)
	}
}

// The pool of database connections: requests that waited for one with all
// of them lent out are db-pool-bound, with or without a recording (a
// virtual thread's wait leaves no park event). Where Tomcat's threads were
// in use at their limit waiting for it, and parked inside HikariCP, the
// pool is named first as their cause, and their sentences say so.
func TestDBPoolBound(t *testing.T) {
	// 400 req/s at a mean 500 ms: 200 requests in flight, 190 waiting.
	st := bench.StageResult{Index: 3, Duration: bench.Duration(5 * time.Second),
		Stats: bench.Stats{Successes: 2000, Completed: 2000, Throughput: 400, Latency: bench.Latency{Mean: 500}}}
	res := &bench.StageResources{Stage: 3, PoolAcquireMs: 450, PoolTimeouts: 3, Pool: map[string]bench.Gauge{
		bench.PoolMax: {Peak: 10, Mean: 10}, bench.PoolActive: {Peak: 10, Mean: 9.6}, bench.PoolPending: {Peak: 192, Mean: 190}}}
	virtual := diagnosis.Diagnose(diagnosis.Evidence{Target: "orders@virtual", JDK: 25, Stage: st, Resources: res, Limits: bench.Limits{CPUs: 1},
		Database: &bench.DatabaseStage{Stage: 3, Connections: map[string]bench.Gauge{bench.DatabaseActive: {Mean: 8.4}}}})
	if len(virtual.Causes) != 1 || virtual.Causes[0].Kind != bench.VerdictDBPoolBound {
		t.Fatalf("causes %+v, want db-pool-bound alone", virtual.Causes)
	}
	want := "orders@virtual: 95 % of its requests in flight waited for one of its 10 database connections (190 waiting on average, 192 at the most; " +
		"a connection took 450 ms to get); 3 gave up waiting: each connection was held 25 ms per request (21 ms of it in the database, 4 in the service), so the pool allows the 400 req/s served"
	if got := virtual.Causes[0].Sentence; got != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", got, want)
	}

	// Its request threads virtual, woken ones waiting 1.9 ms for a carrier.
	woken := *res
	woken.WakeDelayMs = 1.9
	woken.Threads = map[string]bench.Gauge{bench.ThreadVirtual: {Peak: 200, Mean: 199}}
	waited := diagnosis.Diagnose(diagnosis.Evidence{Target: "orders@virtual", JDK: 25, Stage: st, Resources: &woken, Limits: bench.Limits{CPUs: 1},
		Database: &bench.DatabaseStage{Stage: 3, Connections: map[string]bench.Gauge{bench.DatabaseActive: {Mean: 8.4}}}})
	if got := waited.Causes[0].Sentence; !strings.Contains(got, "(21 ms of it in the database, 4 in the service, where a woken request thread waited 1.9 ms to run "+
		"(for a carrier: the virtual-thread scheduler's queue)), so") {
		t.Errorf("sentence does not name the carrier's queue:\n%s", got)
	}
	// The same wait on platform threads is the OS's: no carrier named.
	woken.Threads = map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 230, Mean: 225}}
	waited = diagnosis.Diagnose(diagnosis.Evidence{Target: "orders@platform", JDK: 25, Stage: st, Resources: &woken, Limits: bench.Limits{CPUs: 1},
		Database: &bench.DatabaseStage{Stage: 3, Connections: map[string]bench.Gauge{bench.DatabaseActive: {Mean: 8.4}}}})
	if got := waited.Causes[0].Sentence; !strings.Contains(got, "4 in the service, where a woken request thread waited 1.9 ms to run), so") {
		t.Errorf("sentence on platform threads:\n%s", got)
	}

	// The pool timing its holds (22 ms each): the 25 ms a connection goes
	// round in is a hold and a 3 ms hand-over to the next request.
	timed := *res
	timed.PoolUsageMs = 22
	handed := diagnosis.Diagnose(diagnosis.Evidence{Target: "orders@virtual", JDK: 25, Stage: st, Resources: &timed, Limits: bench.Limits{CPUs: 1},
		Database: &bench.DatabaseStage{Stage: 3, Connections: map[string]bench.Gauge{bench.DatabaseActive: {Mean: 8.4}}}})
	if got := handed.Causes[0].Sentence; !strings.Contains(got, "each connection was held 22 ms per request (21 ms of it in the database, 1 in the service) "+
		"and handed over to the next in 3 ms, so the pool allows the 400 req/s served") {
		t.Errorf("sentence with the pool's timed holds:\n%s", got)
	}

	hikari := stack("java.util.concurrent.SynchronousQueue$Transferer.xferLifo", "java.util.concurrent.SynchronousQueue.poll",
		"com.zaxxer.hikari.util.ConcurrentBag.borrow:63", "com.zaxxer.hikari.pool.HikariPool.getConnection:60")
	platform := diagnosis.Diagnose(diagnosis.Evidence{Target: "orders@platform", JDK: 25, Stage: st, Resources: res, Limits: bench.Limits{CPUs: 1},
		Pool:   &diagnosis.Pool{Name: "Tomcat's request threads", Busy: bench.Gauge{Mean: 200, Peak: 200}, Max: 200},
		Events: events(jfr.TypeThreadPark, 400, 2*time.Second, hikari, map[string]string{"parkedClass": "java.util.concurrent.SynchronousQueue$Transferer"})})
	var kinds []string
	for _, c := range platform.Causes {
		kinds = append(kinds, c.Kind)
	}
	if strings.Join(kinds, ",") != "db-pool-bound,pool-bound,lock-bound" {
		t.Fatalf("causes %v, want the connection pool first, then the threads and the parks it explains", kinds)
	}
	if !strings.HasSuffix(platform.Causes[1].Sentence, "; 190 of them on average waited for a database connection (db-pool-bound)") ||
		!strings.HasSuffix(platform.Causes[2].Sentence, "; those waits were for a database connection (db-pool-bound)") {
		t.Errorf("the symptoms do not name their cause:\n%s\n%s", platform.Causes[1].Sentence, platform.Causes[2].Sentence)
	}
	if lock := platform.Causes[2]; lock.Waits != diagnosis.WaitDatabaseConnections ||
		!strings.HasPrefix(lock.Sentence, "orders@platform: its request threads waited in com.zaxxer.hikari.pool.HikariPool.getConnection for 80 % of the stage") {
		t.Errorf("the parks do not name HikariCP's wait: %q, %q", lock.Waits, lock.Sentence)
	}
	for _, c := range platform.Causes {
		if c.Try == "" {
			t.Errorf("%s says nothing to try", c.Kind)
		}
	}
	// A pool nobody waited for binds nothing.
	idle := *res
	idle.Pool = map[string]bench.Gauge{bench.PoolMax: {Peak: 10}, bench.PoolActive: {Peak: 10, Mean: 6}, bench.PoolPending: {Peak: 3, Mean: 0.4}}
	if d := diagnosis.Diagnose(diagnosis.Evidence{Target: "go", Stage: st, Resources: &idle}); len(d.Causes) != 0 {
		t.Errorf("causes %+v for a pool nobody waited for", d.Causes)
	}
}

// TestNetworkBound: requests that spent most of their time outside the
// target's handlers, with nothing in the target at its limit, name the
// network; not where the target's CPU was (its queue held them), where the
// generator was the limit, or where most of the time was inside.
func TestNetworkBound(t *testing.T) {
	st := stage() // 20 ms a request as the generator saw it
	e := diagnosis.Evidence{Target: "go", Stage: st, Limits: bench.Limits{CPUs: 1}, Remote: true,
		Resources: &bench.StageResources{ServerMs: 0.4, CPUSecondsPer1k: 0.2}}
	d := diagnosis.Diagnose(e)
	want := "go: 98 % of each request's time passed outside its handlers (19.6 of 20 ms on average; 0.4 ms in them, by its own count) " +
		"while its threads, pools and CPU had room: on the network between the load generator and it"
	if len(d.Causes) != 1 || d.Causes[0].Kind != bench.VerdictNetworkBound || d.Causes[0].Sentence != want || d.Causes[0].Try == "" {
		t.Fatalf("causes = %+v, want network-bound:\n%s", d.Causes, want)
	}
	local := e
	local.Remote = false
	if d := diagnosis.Diagnose(local); len(d.Causes) != 1 || !strings.HasSuffix(d.Causes[0].Sentence, "on this host, its loopback (the kernel's TCP, and the HTTP work either side of the handlers)") {
		t.Errorf("on this host: causes = %+v, want the loopback named", d.Causes)
	}
	busy := e
	busy.Resources = &bench.StageResources{ServerMs: 0.4, CPUSecondsPer1k: 4.8} // 96 % of one CPU: its queue
	if d := diagnosis.Diagnose(busy); len(d.Causes) != 1 || d.Causes[0].Kind != bench.VerdictCPUBound {
		t.Errorf("a CPU at its limit: causes = %+v, want cpu-bound alone", d.Causes)
	}
	flagged := e
	flagged.Stage.Flags = []bench.Flag{{Kind: bench.FlagGeneratorBound, Reason: "lagged"}}
	if d := diagnosis.Diagnose(flagged); slices.ContainsFunc(d.Causes, func(c bench.Cause) bool { return c.Kind == bench.VerdictNetworkBound }) {
		t.Errorf("the generator at its limit: causes = %+v, want no network", d.Causes)
	}
	// The connections ran short because each request waited on the way:
	// the time from when it left names the network, before their flag.
	short := e
	short.Stage.Flags = []bench.Flag{{Kind: bench.FlagConnectionBound, Reason: "waited for a connection"}}
	if d := diagnosis.Diagnose(short); len(d.Causes) != 1 || d.Causes[0].Kind != bench.FlagConnectionBound {
		t.Errorf("connections short, no time from the send: causes = %+v, want their flag alone", d.Causes)
	}
	short.Stage.Stats.ServiceTime = &bench.Latency{Mean: 15}
	if d := diagnosis.Diagnose(short); len(d.Causes) != 2 || d.Causes[0].Kind != bench.VerdictNetworkBound || d.Causes[1].Kind != bench.FlagConnectionBound ||
		!strings.Contains(d.Causes[0].Sentence, "14.6 of 15 ms") {
		t.Errorf("connections short, 15 ms from the send: causes = %+v, want network-bound on 14.6 of 15 ms, then the connections", d.Causes)
	}
	inside := e
	inside.Resources = &bench.StageResources{ServerMs: 12}
	if d := diagnosis.Diagnose(inside); len(d.Causes) != 0 {
		t.Errorf("40 %% of the time outside: causes = %+v, want none", d.Causes)
	}
}
