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

// The stack of a request thread waiting for one of HikariCP's
// connections, under a Spring Data repository, innermost first.
var hikariStack = stack("jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.parkNanos",
	"java.util.concurrent.SynchronousQueue$TransferStack.transfer", "java.util.concurrent.SynchronousQueue.poll",
	"com.zaxxer.hikari.util.ConcurrentBag.borrow:63", "com.zaxxer.hikari.pool.HikariPool.getConnection:62", "com.zaxxer.hikari.pool.HikariPool.getConnection:44",
	"com.zaxxer.hikari.HikariDataSource.getConnection:11", "org.hibernate.engine.jdbc.connections.internal.DatasourceConnectionProviderImpl.getConnection",
	"com.example.orders.OrderRepository.find:31", "com.example.orders.OrderController.get:20", "java.lang.Thread.run")

func TestWaitOf(t *testing.T) {
	for _, tt := range []struct {
		name         string
		stack        []jfr.Frame
		what, frame  string
		idle, active bool // idle: no cause; active: a row knows it
	}{
		// HikariCP's borrow, named by the pool's entry, not the JDK's park
		// nor the data source above it.
		{"Hikari", hikariStack, diagnosis.WaitDatabaseConnections, "com.zaxxer.hikari.pool.HikariPool.getConnection", false, true},
		// c3p0's checkout.
		{"c3p0", stack("java.lang.Object.wait", "com.mchange.v2.resourcepool.BasicResourcePool.awaitAvailable:10",
			"com.mchange.v2.resourcepool.BasicResourcePool.checkoutResource:20", "com.example.Dao.load"),
			diagnosis.WaitDatabaseConnections, "com.mchange.v2.resourcepool.BasicResourcePool.checkoutResource", false, true},
		// DBCP2 borrows from commons-pool2: connections, not "an object pool".
		{"DBCP2", stack("jdk.internal.misc.Unsafe.park", "org.apache.commons.pool2.impl.LinkedBlockingDeque.takeFirst",
			"org.apache.commons.pool2.impl.GenericObjectPool.borrowObject", "org.apache.commons.dbcp2.PoolingDataSource.getConnection",
			"org.apache.commons.dbcp2.BasicDataSource.getConnection", "com.example.Dao.load"),
			diagnosis.WaitDatabaseConnections, "org.apache.commons.dbcp2.BasicDataSource.getConnection", false, true},
		// Tomcat's JDBC pool, not Tomcat's executor.
		{"Tomcat JDBC", stack("jdk.internal.misc.Unsafe.park", "org.apache.tomcat.jdbc.pool.FairBlockingQueue.poll",
			"org.apache.tomcat.jdbc.pool.ConnectionPool.borrowConnection", "com.example.Dao.load"),
			diagnosis.WaitDatabaseConnections, "org.apache.tomcat.jdbc.pool.ConnectionPool.borrowConnection", false, true},
		// Agroal and Oracle UCP.
		{"Agroal", stack("jdk.internal.misc.Unsafe.park", "io.agroal.pool.ConnectionPool.getConnection", "com.example.Dao.load"),
			diagnosis.WaitDatabaseConnections, "io.agroal.pool.ConnectionPool.getConnection", false, true},
		{"UCP", stack("jdk.internal.misc.Unsafe.park", "oracle.ucp.common.ConnectionPoolImpl.borrowConnection", "oracle.ucp.jdbc.PoolDataSourceImpl.getConnection"),
			diagnosis.WaitDatabaseConnections, "oracle.ucp.jdbc.PoolDataSourceImpl.getConnection", false, true},
		// Apache HttpClient 4's lease, named by the manager's leaseConnection.
		{"HttpClient 4", stack("jdk.internal.misc.Unsafe.park", "org.apache.http.pool.AbstractConnPool.getPoolEntryBlocking",
			"org.apache.http.pool.AbstractConnPool$2.get", "org.apache.http.impl.conn.PoolingHttpClientConnectionManager.leaseConnection",
			"org.apache.http.impl.execchain.MainClientExec.execute", "com.example.QuoteClient.quote"),
			diagnosis.WaitHTTPConnections, "org.apache.http.impl.conn.PoolingHttpClientConnectionManager.leaseConnection", false, true},
		// Apache HttpClient 5's lease.
		{"HttpClient 5", stack("jdk.internal.misc.Unsafe.park", "org.apache.hc.core5.pool.StrictConnPool.lease",
			"org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager$1.get", "com.example.QuoteClient.quote"),
			diagnosis.WaitHTTPConnections, "org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager$1.get", false, true},
		// Reactor Netty's pool.
		{"Reactor Netty", stack("jdk.internal.misc.Unsafe.park", "reactor.netty.resources.PooledConnectionProvider.acquire"),
			diagnosis.WaitHTTPConnections, "reactor.netty.resources.PooledConnectionProvider.acquire", false, true},
		// The JDK's client waits for the whole exchange.
		{"JDK client", stack("jdk.internal.misc.Unsafe.park", "java.util.concurrent.CompletableFuture.get",
			"jdk.internal.net.http.HttpClientImpl.send", "jdk.internal.net.http.HttpClientFacade.send", "com.example.QuoteClient.quote"),
			diagnosis.WaitDownstreamAnswer, "jdk.internal.net.http.HttpClientImpl.send", false, true},
		// Jedis borrows from commons-pool2: Redis connections.
		{"Jedis", stack("jdk.internal.misc.Unsafe.park", "org.apache.commons.pool2.impl.GenericObjectPool.borrowObject",
			"redis.clients.jedis.util.Pool.getResource", "redis.clients.jedis.JedisPool.getResource", "com.example.Cache.get"),
			diagnosis.WaitRedisConnections, "redis.clients.jedis.JedisPool.getResource", false, true},
		// Lettuce's shared connection: Redis's answer.
		{"Lettuce", stack("jdk.internal.misc.Unsafe.park", "io.lettuce.core.protocol.AsyncCommand.await", "io.lettuce.core.LettuceFutures.awaitOrCancel",
			"com.example.Cache.get"), diagnosis.WaitRedisAnswer, "io.lettuce.core.LettuceFutures.awaitOrCancel", false, true},
		// commons-pool2 under no client known.
		{"commons-pool2", stack("jdk.internal.misc.Unsafe.park", "org.apache.commons.pool2.impl.GenericObjectPool.borrowObject", "com.example.Parsers.get"),
			diagnosis.WaitObjectPool, "org.apache.commons.pool2.impl.GenericObjectPool.borrowObject", false, true},
		// WebFlux: an event loop waiting in epoll between requests, and
		// Spring Boot's thread blocked until the server is disposed (a
		// block(), but no request's: not a reactive call's answer).
		{"Netty event loop", stack("io.netty.channel.epoll.Native.epollWait0", "io.netty.channel.epoll.Native.epollWait",
			"io.netty.channel.epoll.EpollIoHandler.epollWait", "io.netty.channel.epoll.EpollIoHandler.run",
			"io.netty.channel.SingleThreadIoEventLoop.run", "java.lang.Thread.run"),
			diagnosis.WaitIdle, "io.netty.channel.epoll.Native.epollWait", true, true},
		{"Boot's Netty await", stack("jdk.internal.misc.Unsafe.park", "java.util.concurrent.CountDownLatch.await",
			"reactor.core.publisher.BlockingSingleSubscriber.blockingGet", "reactor.core.publisher.Mono.block",
			"org.springframework.boot.reactor.netty.NettyWebServer$1.run"),
			diagnosis.WaitIdle, "org.springframework.boot.reactor.netty.NettyWebServer$1.run", true, true},
		// Tomcat's idle workers (TaskQueue.take under getTask) and Jetty's.
		{"Tomcat idle", stack("jdk.internal.misc.Unsafe.park", "org.apache.tomcat.util.threads.TaskQueue.take",
			"org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask", "org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker"),
			diagnosis.WaitIdle, "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask", true, true},
		{"Jetty idle", stack("jdk.internal.misc.Unsafe.park", "org.eclipse.jetty.util.BlockingArrayQueue.poll",
			"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll", "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.run"),
			diagnosis.WaitIdle, "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll", true, true},
		// A sleep.
		{"sleep", stack("java.lang.Thread.sleep0", "java.lang.Thread.sleep", "com.example.Retry.backoff"),
			diagnosis.WaitSleeping, "java.lang.Thread.sleep", false, true},
		// A socket read under MySQL's driver, under HikariCP's statement
		// proxy: the database's answer, named by the driver's call.
		{"MySQL read", stack("sun.nio.ch.NioSocketImpl.park", "sun.nio.ch.NioSocketImpl.timedRead", "sun.nio.ch.NioSocketImpl.implRead",
			"sun.nio.ch.NioSocketImpl.read", "java.net.Socket$SocketInputStream.read", "com.mysql.cj.protocol.ReadAheadInputStream.fill",
			"com.mysql.cj.protocol.a.NativeProtocol.sendQueryPacket", "com.mysql.cj.jdbc.ClientPreparedStatement.executeQuery",
			"com.zaxxer.hikari.pool.HikariProxyPreparedStatement.executeQuery", "com.example.Dao.load"),
			diagnosis.WaitDatabaseAnswer, "com.mysql.cj.jdbc.ClientPreparedStatement.executeQuery", false, true},
		// A socket read under Apache HttpClient: a downstream's answer.
		{"HTTP read", stack("java.net.SocketInputStream.read", "org.apache.http.impl.io.SessionInputBufferImpl.fillBuffer",
			"org.apache.http.impl.client.CloseableHttpClient.execute", "com.example.QuoteClient.quote"),
			diagnosis.WaitDownstreamAnswer, "org.apache.http.impl.client.CloseableHttpClient.execute", false, true},
		// A socket read from a peer no frame tells.
		{"bare read", stack("sun.nio.ch.SocketChannelImpl.read", "com.example.Wire.next"),
			diagnosis.WaitSocketRead, "sun.nio.ch.SocketChannelImpl.read", false, true},
		// A lock of the service's own is no well-known wait.
		{"own lock", stack("jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.ReentrantLock.lock", "com.example.Ledger.post"),
			"", "", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			what, frame, idle, ok := diagnosis.WaitOf(tt.stack)
			if what != tt.what || frame != tt.frame || idle != tt.idle || ok != tt.active {
				t.Errorf("WaitOf() = %q, %q, idle %v, %v; want %q, %q, idle %v, %v", what, frame, idle, ok, tt.what, tt.frame, tt.idle, tt.active)
			}
		})
	}
}

// A lock-bound stage whose parks were mostly in HikariCP says so: the
// wait's frame, its share of the stage, the service's call that waited,
// what it waited for (Waits) and what to try. Jetty's idle threads are
// no cause.
func TestLockBoundNamesWait(t *testing.T) {
	// 16 s of 20 request-thread seconds in HikariCP, 1 s on a monitor
	parks := events(jfr.TypeThreadPark, 80, 200*time.Millisecond, hikariStack, map[string]string{"parkedClass": "java.util.concurrent.SynchronousQueue$TransferStack"})
	monitors := events(jfr.TypeMonitorEnter, 10, 100*time.Millisecond, stack("com.example.orders.Cache.get:12"), map[string]string{"monitorClass": "com.example.orders.Cache"})
	idle := events(jfr.TypeThreadPark, 100, 200*time.Millisecond, stack("jdk.internal.misc.Unsafe.park", "org.eclipse.jetty.util.BlockingArrayQueue.poll",
		"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll"), map[string]string{"parkedClass": "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"})
	e := diagnosis.Evidence{Target: "orders@platform", JDK: 21, Stage: stage(), Events: append(append(parks, monitors...), idle...),
		Own: func(f string) bool { return strings.HasPrefix(f, "com.example.") }}
	d := diagnosis.Diagnose(e)
	if len(d.Causes) != 1 || d.Causes[0].Kind != bench.VerdictLockBound {
		t.Fatalf("causes = %+v, want lock-bound alone", d.Causes)
	}
	c := d.Causes[0]
	want := "orders@platform: its request threads waited in com.zaxxer.hikari.pool.HikariPool.getConnection for 80 % of the stage " +
		"(of 85 % blocked: 90 waits, 17.0 s in all; on java.util.concurrent.SynchronousQueue$TransferStack, com.example.orders.Cache), " +
		"100 % of it from com.example.orders.OrderRepository.find:31"
	if c.Sentence != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", c.Sentence, want)
	}
	if c.Waits != diagnosis.WaitDatabaseConnections || !strings.HasPrefix(c.Try, "size the pool") {
		t.Errorf("waits %q, try %q; want database connections and the pool's size", c.Waits, c.Try)
	}
	// Idle threads alone are no cause.
	e.Events = idle
	if d := diagnosis.Diagnose(e); len(d.Causes) != 0 {
		t.Errorf("idle Jetty threads: causes = %+v", d.Causes)
	}
	// Parks mostly on a lock of the service's own keep the lock's sentence.
	e.Events = append(events(jfr.TypeMonitorEnter, 100, 100*time.Millisecond, stack("com.example.orders.Cache.get:12"), map[string]string{"monitorClass": "com.example.orders.Cache"}),
		parks[:10]...)
	c = diagnosis.Diagnose(e).Causes[0]
	if c.Waits != "" || c.Sentence != "orders@platform: its request threads spent 60 % of the stage blocked on locks (110 waits, 12.0 s in all; "+
		"on com.example.orders.Cache, java.util.concurrent.SynchronousQueue$TransferStack), 83 % of it in com.example.orders.Cache.get:12" {
		t.Errorf("waits %q, sentence %q", c.Waits, c.Sentence)
	}
}

// The CPU sentence names the heaviest subtree that is not generic
// dispatch, counted across the paths that reach it (two controllers'
// resource look-ups), with the frame inside it the samples ran in most.
func TestCPUSubtree(t *testing.T) {
	var samples flame.Builder
	dispatch := []string{"java.lang.Thread.run", "org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run", "org.springframework.web.servlet.DispatcherServlet.doDispatch"}
	under := func(frames ...string) []string { return append(append([]string(nil), dispatch...), frames...) }
	const list, show, find = "com.example.shop.ProductController.list", "com.example.shop.CartController.show", "jdk.internal.loader.URLClassPath.findResource"
	samples.Add(under(list, find, "java.util.zip.ZipFile$Source.getEntryPos"), 12)
	samples.Add(under(show, find, "java.util.zip.ZipFile$Source.getEntryPos"), 8)
	samples.Add(under(list, find, "java.util.zip.Inflater.inflate"), 15)
	samples.Add(under(show, find), 10)
	samples.Add(under(show, find, "java.util.jar.JarFile.getEntry"), 13)
	samples.Add(under(list, "java.lang.String.hashCode"), 28)
	samples.Add(dispatch, 14)
	e := diagnosis.Evidence{Target: "shop@platform", JDK: 21, Stage: stage(), Limits: bench.Limits{CPUs: 2}, CPU: &diagnosis.CPU{Share: 0.97}, Samples: samples.Stacks()}
	c := diagnosis.Diagnose(e).Causes[0]
	want := "shop@platform used 97 % of its 2-CPU limit; 58 % of its 100 CPU samples under jdk.internal.loader.URLClassPath.findResource, " +
		"the most in java.util.zip.ZipFile$Source.getEntryPos (20 %); they ran most in java.lang.String.hashCode (28 %)"
	if c.Sentence != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", c.Sentence, want)
	}
	if c.Try != "run the application unpacked or with a CDS archive" {
		t.Errorf("try %q, want the unpacked or CDS-archived application", c.Try)
	}
	// told the service's own frames, it says where its code was too
	e.Own = func(f string) bool { return strings.HasPrefix(f, "com.example.") }
	if got := diagnosis.Diagnose(e).Causes[0].Sentence; got != want[:len(want)-len("; they ran most in java.lang.String.hashCode (28 %)")]+
		"; its own code was most in com.example.shop.ProductController.list (55 %); they ran most in java.lang.String.hashCode (28 %)" {
		t.Errorf("sentence with own frames:\n%s", got)
	}
	// Samples spread below dispatch hold no subtree: the frames they fell
	// in most are named, as before.
	var spread flame.Builder
	for i, leaf := range []string{"a.A.f", "b.B.g", "c.C.h", "d.D.i"} {
		spread.Add(under(leaf), int64(25+i))
	}
	e = diagnosis.Evidence{Target: "shop@platform", Stage: stage(), Limits: bench.Limits{CPUs: 2}, CPU: &diagnosis.CPU{Share: 0.97}, Samples: spread.Stacks()}
	c = diagnosis.Diagnose(e).Causes[0]
	if want := "shop@platform used 97 % of its 2-CPU limit; its CPU samples fell most in d.D.i (26 % of 106)"; c.Sentence != want {
		t.Errorf("sentence:\n%s\nwant:\n%s", c.Sentence, want)
	}
	if want := "give the container more CPU, or find where it goes in the flame graph"; c.Try != want {
		t.Errorf("try %q, want %q", c.Try, want)
	}
}

// Each cause kind says what to try, by the table.
func TestTries(t *testing.T) {
	tomcat := &diagnosis.Pool{Name: "Tomcat's request threads", Max: 200}
	for _, tt := range []struct {
		name  string
		cause bench.Cause
		e     diagnosis.Evidence
		want  string
	}{
		// JDK 21 still pins in synchronized.
		{"pinned 21", bench.Cause{Kind: bench.VerdictPinned}, diagnosis.Evidence{JDK: 21},
			"run on JDK 24+ (JEP 491) or replace synchronized around blocking calls with a ReentrantLock"},
		// JDK 25 pins only in native frames and class initialisers.
		{"pinned 25", bench.Cause{Kind: bench.VerdictPinned}, diagnosis.Evidence{JDK: 25},
			"look for native frames or class initialisers on the pinned stacks"},
		// The pool's gauges and the parks in it say the same.
		{"db pool", bench.Cause{Kind: bench.VerdictDBPoolBound}, diagnosis.Evidence{},
			"size the pool to the database's capacity, or bound concurrent requests (a semaphore/bulkhead) so virtual threads do not queue on it; keep remote calls out of transactions"},
		{"lock on connections", bench.Cause{Kind: bench.VerdictLockBound, Waits: diagnosis.WaitDatabaseConnections}, diagnosis.Evidence{},
			"size the pool to the database's capacity, or bound concurrent requests (a semaphore/bulkhead) so virtual threads do not queue on it; keep remote calls out of transactions"},
		// An HTTP client's pool: its connections per route.
		{"HTTP pool", bench.Cause{Kind: bench.VerdictLockBound, Waits: diagnosis.WaitHTTPConnections}, diagnosis.Evidence{},
			"raise the HTTP client's max connections per route (and in total), or bound concurrent calls to that downstream"},
		// A lock of the service's own.
		{"own lock", bench.Cause{Kind: bench.VerdictLockBound}, diagnosis.Evidence{},
			"hold the lock named for less time (no I/O inside it), split it, or use a concurrent structure"},
		// GC: the heap or the collector.
		{"gc", bench.Cause{Kind: bench.VerdictGCBound}, diagnosis.Evidence{},
			"give the heap more room (-Xmx or the container's memory; GOGC/GOMEMLIMIT for Go) or try another collector (G1, ZGC)"},
		// Tomcat's threads at their limit, and another pool.
		{"Tomcat", bench.Cause{Kind: bench.VerdictPoolBound}, diagnosis.Evidence{Pool: tomcat}, "raise server.tomcat.threads.max or serve on virtual threads"},
		{"workers", bench.Cause{Kind: bench.VerdictPoolBound}, diagnosis.Evidence{Pool: &diagnosis.Pool{Name: "workers"}},
			"raise the pool's size, if what its threads wait for can take more"},
		// The load's flags are not the target's to fix.
		{"flag", bench.Cause{Kind: bench.FlagGeneratorBound}, diagnosis.Evidence{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := diagnosis.TryFor(tt.cause, tt.e); got != tt.want {
				t.Errorf("TryFor() = %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkLockBound diagnoses 20,000 parks in HikariCP with 64-frame
// stacks, as whole JFR stacks arrive: the waits table is matched once per
// frame, not once per frame of every event.
func BenchmarkLockBound(b *testing.B) {
	deep := slices.Clone(hikariStack)
	for len(deep) < 64 {
		deep = append(deep, frame("org.springframework.aop.framework.ReflectiveMethodInvocation.proceed"))
	}
	parks := events(jfr.TypeThreadPark, 20000, 20*time.Millisecond, deep, map[string]string{"parkedClass": "java.util.concurrent.SynchronousQueue$TransferStack"})
	e := diagnosis.Evidence{Target: "orders@platform", Stage: stage(), Events: parks, Own: func(f string) bool { return strings.HasPrefix(f, "com.example.") }}
	for b.Loop() {
		if d := diagnosis.Diagnose(e); len(d.Causes) == 0 || d.Causes[0].Waits != diagnosis.WaitDatabaseConnections {
			b.Fatal(d.Causes)
		}
	}
}
