package diagnosis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// tryRow is one row of tries: for a cause of Kind (and of Waits, where
// the row gives one) for which When holds (always, without one), what to
// try.
type tryRow struct {
	Kind  string
	Waits string
	When  func(t tryCase) bool
	Try   func(t tryCase) string
}

// tryCase is what a row of tries reads: the cause, its evidence and, for
// a cpu-bound cause, the heaviest subtree of the CPU samples (Subtree ok).
type tryCase struct {
	Cause     bench.Cause
	Evidence  Evidence
	Subtree   subtree
	SubtreeOK bool
}

// say is a row's constant advice.
func say(s string) func(tryCase) string { return func(tryCase) string { return s } }

// sizePool is the advice for requests queueing on a pool of database
// connections.
const sizePool = "size the pool to the database's capacity, or bound concurrent requests (a semaphore/bulkhead) so virtual threads do not queue on it; keep remote calls out of transactions"

// tries say what to try against a cause, one line each: the first row
// that fits it gives its Try. Rows come before the more general rows of
// their kind.
var tries = []tryRow{
	// Before JEP 491 a virtual thread blocking inside synchronized pins
	// its carrier; a ReentrantLock parks it instead.
	{Kind: bench.VerdictPinned, When: func(t tryCase) bool { return t.Evidence.JDK < JEP491 },
		Try: say("run on JDK 24+ (JEP 491) or replace synchronized around blocking calls with a ReentrantLock")},
	// From JDK 24 only native frames and class initialisers pin.
	{Kind: bench.VerdictPinned, Try: say("look for native frames or class initialisers on the pinned stacks")},
	// Requests queueing for a connection: more connections help only up
	// to what the database can serve; past that, fewer requests at once.
	{Kind: bench.VerdictDBPoolBound, Try: say(sizePool)},
	{Kind: bench.VerdictLockBound, Waits: WaitDatabaseConnections, Try: say(sizePool)},
	// An HTTP client's pool caps connections per route (by default 2 in
	// Apache HttpClient 4, 5 in HttpClient 5) well below what a server's
	// threads ask for.
	{Kind: bench.VerdictLockBound, Waits: WaitHTTPConnections,
		Try: say("raise the HTTP client's max connections per route (and in total), or bound concurrent calls to that downstream")},
	// Redis pools (commons-pool2's maxTotal defaults to 8).
	{Kind: bench.VerdictLockBound, Waits: WaitRedisConnections,
		Try: say("raise the Redis pool's maxTotal, or bound concurrent requests so they do not queue on it")},
	{Kind: bench.VerdictLockBound, Waits: WaitObjectPool,
		Try: say("raise the object pool's maxTotal, or hold its objects for less time")},
	// Waiting for answers: the peer sets the pace, not the thread model.
	{Kind: bench.VerdictLockBound, Waits: WaitDatabaseAnswer,
		Try: say("look at the database's slow queries (their plans and indexes), or bound concurrent requests to what it serves")},
	{Kind: bench.VerdictLockBound, Waits: WaitRedisAnswer,
		Try: say("look at Redis's latency and slow log, or pipeline and batch the commands")},
	{Kind: bench.VerdictLockBound, Waits: WaitDownstreamAnswer,
		Try: say("look at the downstream's latency, call it less often (a cache), or bound concurrent calls to it")},
	{Kind: bench.VerdictLockBound, Waits: WaitReactiveAnswer,
		Try: say("look at what the blocked-on reactive call waits for, or return it unblocked")},
	{Kind: bench.VerdictLockBound, Waits: WaitSocketRead,
		Try: say("find which peer the socket reads wait for (the stacks name its client) and look at its latency")},
	// A monitor or lock of the service's own: hold it for less.
	{Kind: bench.VerdictLockBound,
		Try: say("hold the lock named for less time (no I/O inside it), split it, or use a concurrent structure")},
	// One pause as the tail: a collector whose pauses are short.
	{Kind: bench.VerdictGCBound, When: func(t tryCase) bool { return isStall(t.Cause) },
		Try: say("use a collector with short pauses (ZGC, or G1 with -XX:MaxGCPauseMillis) or give the heap more room")},
	{Kind: bench.VerdictGCBound,
		Try: say("give the heap more room (-Xmx or the container's memory; GOGC/GOMEMLIMIT for Go) or try another collector (G1, ZGC)")},
	// Resource look-ups through a nested jar on every request (Spring
	// Boot's fat jar): an unpacked application or a CDS archive reads
	// them from the file system or the archive.
	{Kind: bench.VerdictCPUBound, When: func(t tryCase) bool { return t.SubtreeOK && underResourceLookups(t.Subtree) },
		Try: say("run the application unpacked or with a CDS archive")},
	{Kind: bench.VerdictCPUBound, When: func(t tryCase) bool { return t.SubtreeOK },
		Try: func(t tryCase) string {
			s := t.Subtree
			return fmt.Sprintf("make the work under %s cheaper or rarer (%s of the CPU samples), or give the container more CPU",
				s.Frame, units.Percent(float64(s.Samples)/float64(s.StageSamples)))
		}},
	{Kind: bench.VerdictCPUBound, Try: say("give the container more CPU, or find where it goes in the flame graph")},
	// Tomcat's platform threads at their limit.
	{Kind: bench.VerdictPoolBound, When: func(t tryCase) bool {
		return t.Evidence.Pool != nil && strings.Contains(t.Evidence.Pool.Name, "Tomcat")
	},
		Try: say("raise server.tomcat.threads.max or serve on virtual threads")},
	{Kind: bench.VerdictPoolBound, Try: say("raise the pool's size, if what its threads wait for can take more")},
	// Time outside the target: the service's own latency is what a
	// generator near it sees.
	{Kind: bench.VerdictNetworkBound,
		Try: say("measure from nearer the target (a generator on its host or network) for the service's own latency, or look at the network between them: its round trip, loss and retransmits (ping, ss -ti, tc -s qdisc)")},
}

// tryFor returns what to try against a cause by tries, "" where no row
// fits (the load's flags).
func tryFor(c bench.Cause, e Evidence) string {
	tc := tryCase{Cause: c, Evidence: e}
	if c.Kind == bench.VerdictCPUBound {
		tc.Subtree, tc.SubtreeOK = heaviestSubtree(e.Samples)
	}
	for _, t := range tries {
		if t.Kind == c.Kind && (t.Waits == "" || t.Waits == c.Waits) && (t.When == nil || t.When(tc)) {
			return t.Try(tc)
		}
	}
	return ""
}

// resourceLookups are the frames of class-path resource look-ups: the
// JDK's class path and Spring Boot's nested-jar support (3.2's and
// before).
var resourceLookups = []string{"jdk.internal.loader.URLClassPath", "jdk.internal.loader.BuiltinClassLoader.findResource",
	"org.springframework.boot.loader.jar.", "org.springframework.boot.loader.net.protocol.jar.", "org.springframework.boot.loader.zip."}

// underResourceLookups reports whether a frame of resource look-ups holds
// at least SubtreeShare of the stage's CPU samples (a subtree's Heavy).
func underResourceLookups(s subtree) bool {
	return slices.ContainsFunc(s.Heavy, func(f string) bool {
		return slices.ContainsFunc(resourceLookups, func(p string) bool { return strings.HasPrefix(f, p) })
	})
}
