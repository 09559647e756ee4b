package diagnosis_test

import (
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/diagnosis"
	"github.com/threadbench/threadbench/internal/jfr"
)

// virtualHikariStack is a virtual thread waiting for one of HikariCP's
// connections as a JDK 25 dump shows it: unmounted in VirtualThread.park,
// which JFR records nothing of.
var virtualHikariStack = append(stack("java.lang.VirtualThread.park", "java.lang.System$1.parkVirtualThread", "java.util.concurrent.locks.LockSupport.parkNanos",
	"java.util.concurrent.SynchronousQueue$TransferStack.transfer"), hikariStack[4:]...)

// sampled returns n thread samples of a stack, every 0.5 s, each a
// thread of that kind and state.
func sampled(n int, st []jfr.Frame, virtual bool, state string) []jfr.Event {
	out := events(jfr.TypeThreadSample, n, 500*time.Millisecond, st, map[string]string{"state": state})
	for i := range out {
		out[i].Thread.Virtual = virtual
	}
	return out
}

// A virtual variant's request threads seen waiting for HikariCP in the
// thread sampler's dumps are lock-bound, named by the pool's entry and
// the service's call, as a platform variant's parks are; the JVM's own
// threads, the server's loops and idle pool workers are no requests.
func TestSampledWaitsVirtual(t *testing.T) {
	socket := stack("sun.nio.ch.NioSocketImpl.read", "org.postgresql.core.PGStream.receiveChar", "org.postgresql.jdbc.PgStatement.executeQuery",
		"com.example.orders.OrderRepository.find:31")
	var ev []jfr.Event
	ev = append(ev, sampled(80, virtualHikariStack, true, "WAITING")...)                           // 40 thread-seconds for a connection
	ev = append(ev, sampled(10, socket, true, "RUNNABLE")...)                                      // 5 for the database's answer
	ev = append(ev, sampled(10, stack("com.example.orders.Prices.total:19"), true, "RUNNABLE")...) // 5 on CPU
	ev = append(ev, sampled(40, stack("java.lang.Object.wait0", "java.lang.ref.ReferenceQueue.remove", "java.lang.ref.Finalizer$FinalizerThread.run"), false, "WAITING")...)
	ev = append(ev, sampled(40, stack("sun.nio.ch.EPoll.wait", "org.apache.tomcat.util.net.NioEndpoint$Poller.run"), false, "RUNNABLE")...)
	ev = append(ev, sampled(40, stack("jdk.internal.misc.Unsafe.park", "java.util.concurrent.LinkedBlockingQueue.take",
		"java.util.concurrent.ThreadPoolExecutor.getTask", "com.zaxxer.hikari.util.UtilityElf$DefaultThreadFactory.newThread"), false, "WAITING")...)
	e := diagnosis.Evidence{Target: "orders@virtual", JDK: 25, Stage: stage(), Events: ev, Source: bench.ProfileJFR,
		Own: func(f string) bool { return strings.HasPrefix(f, "com.example.") }}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 1 || d.Causes[0].Kind != bench.VerdictLockBound {
		t.Fatalf("causes = %+v, want lock-bound alone", d.Causes)
	}
	c := d.Causes[0]
	want := "orders@virtual: its virtual request threads waited in com.zaxxer.hikari.pool.HikariPool.getConnection for 80 % of their time " +
		"(thread dumps: 10 threads serving requests on average, 90 % waiting), 100 % of it from com.example.orders.OrderRepository.find:31"
	if c.Sentence != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", c.Sentence, want)
	}
	if c.Waits != diagnosis.WaitDatabaseConnections || !strings.HasPrefix(c.Try, "size the pool") {
		t.Errorf("waits %q, try %q; want database connections and the pool's size", c.Waits, c.Try)
	}
	// Samples mostly on CPU are no wait.
	e.Events = append(sampled(90, stack("com.example.orders.Prices.total:19"), true, "RUNNABLE"), sampled(5, virtualHikariStack, true, "WAITING")...)
	if d := diagnosis.Diagnose(e); len(d.Causes) != 0 {
		t.Errorf("request threads on CPU: causes = %+v", d.Causes)
	}
}

// JDK 21's dumps say no state: a thread whose innermost frame parks
// waits; waits no row knows are said as waits, with where.
func TestSampledWaitsWithoutState(t *testing.T) {
	semaphore := stack("java.lang.VirtualThread.park", "java.util.concurrent.locks.LockSupport.park", "java.util.concurrent.Semaphore.acquire",
		"com.example.orders.Gate.enter:17")
	ev := append(sampled(60, semaphore, true, ""), sampled(40, stack("com.example.orders.Prices.total:19"), true, "")...)
	d := diagnosis.Diagnose(diagnosis.Evidence{Target: "orders@virtual", JDK: 21, Stage: stage(), Events: ev})
	if len(d.Causes) != 1 {
		t.Fatalf("causes = %+v, want one", d.Causes)
	}
	want := "orders@virtual: its virtual request threads spent 60 % of their time waiting (thread dumps: 10 threads serving requests on average), " +
		"100 % of it in com.example.orders.Gate.enter:17"
	if c := d.Causes[0]; c.Kind != bench.VerdictLockBound || c.Waits != "" || c.Sentence != want {
		t.Errorf("cause %+v\nwant sentence:\n%s", c, want)
	}
}

// Request threads asleep (a simulated call) are no cause: their time is
// the request's own, as the CPU's is.
func TestSampledSleepIsNoWait(t *testing.T) {
	sleep := stack("java.lang.Thread.sleep0", "java.lang.Thread.sleep", "com.example.orders.LegacyDriver$Connection.roundTrip:55")
	ev := append(sampled(90, sleep, false, "TIMED_WAITING"), sampled(10, stack("com.example.orders.Prices.total:19"), false, "RUNNABLE")...)
	if d := diagnosis.Diagnose(diagnosis.Evidence{Target: "orders@platform", JDK: 25, Stage: stage(), Events: ev}); len(d.Causes) != 0 {
		t.Errorf("request threads asleep: causes = %+v", d.Causes)
	}
}
