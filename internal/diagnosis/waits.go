package diagnosis

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/jfr"
)

// What a blocked or parked thread waited for, as the why says it: the
// Waits of a cause (bench.Cause) and the key of its line in tries.
const (
	WaitDatabaseConnections = "database connections"
	WaitHTTPConnections     = "HTTP client connections"
	WaitRedisConnections    = "Redis connections"
	WaitObjectPool          = "an object pool"
	WaitIdle                = "idle workers"
	WaitSleeping            = "sleeping"
	WaitSocketRead          = "a socket read"
	WaitDatabaseAnswer      = "the database's answer"
	WaitDownstreamAnswer    = "a downstream's answer"
	WaitRedisAnswer         = "Redis's answer"
	WaitReactiveAnswer      = "a reactive call's answer"
)

// knownWait is one row of waits: what a thread waits for when any frame
// of its stack starts with one of Frames ("class.method" or a package or
// class prefix, matched against jfr.Frame.Name()). Idle says the thread
// had nothing to do, so that its wait is no cause; ByPeer that the wait
// is named by the peer a frame of peers tells, where one does.
type knownWait struct {
	What   string
	Frames []string
	Idle   bool
	ByPeer bool
}

// waits are the well-known waits, matched in order: the first row any
// frame of a stack matches names its wait, so that a specific row (Jedis's
// pool) comes before a generic one (commons-pool2, which it borrows
// through). Rows name methods where a package would catch too much: a
// socket read under HikariCP's statement proxy is the database's answer,
// not a wait for a connection. Adding a pool, driver or client is one row.
var waits = []knownWait{
	// Threads waiting for work, not for anything a request needs: a
	// pool's worker between tasks (the JDK's executor and Tomcat's copy of
	// it; TaskQueue.take and LinkedBlockingQueue.take run under getTask),
	// Jetty's idle and reserved threads, carriers and common-pool workers
	// with nothing queued, and cleaners. jfr.Event.Idle knows the first
	// ones too; they are here so that the table is whole.
	{What: WaitIdle, Idle: true, Frames: []string{"java.util.concurrent.ThreadPoolExecutor.getTask", "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask",
		"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll", "org.eclipse.jetty.util.thread.ReservedThreadExecutor$ReservedThread.reservedWait",
		"java.util.concurrent.ForkJoinPool.awaitWork", "java.lang.ref.ReferenceQueue.remove",
		// Tomcat's main thread, waiting for a shutdown command: no
		// request's.
		"org.apache.catalina.core.StandardServer.await",
		// WebFlux on Reactor Netty: an event loop waiting for I/O (epoll,
		// NIO's selector, kqueue; Netty 4.2's handlers and 4.1's loops),
		// Netty's timer between ticks, and Spring Boot's thread that keeps
		// the JVM alive until the server is disposed (Boot 4, then 3).
		"io.netty.channel.epoll.Native.epollWait", "io.netty.channel.epoll.Native.epollBusyWait",
		"io.netty.channel.nio.NioIoHandler.select", "io.netty.channel.nio.NioEventLoop.select", "io.netty.channel.kqueue.Native.keventWait",
		"io.netty.util.HashedWheelTimer$Worker.waitForNextTick",
		"org.springframework.boot.reactor.netty.NettyWebServer", "org.springframework.boot.web.embedded.netty.NettyWebServer"}},
	// HikariCP: getConnection waits in ConcurrentBag.borrow (on a
	// SynchronousQueue) until a connection is handed back.
	{What: WaitDatabaseConnections, Frames: []string{"com.zaxxer.hikari.pool.HikariPool.getConnection", "com.zaxxer.hikari.util.ConcurrentBag.borrow"}},
	// c3p0: checkouts wait in BasicResourcePool.awaitAvailable.
	{What: WaitDatabaseConnections, Frames: []string{"com.mchange.v2.resourcepool.BasicResourcePool.awaitAvailable", "com.mchange.v2.resourcepool.BasicResourcePool.checkoutResource",
		"com.mchange.v2.c3p0.impl.C3P0PooledConnectionPool.checkoutPooledConnection"}},
	// DBCP2 borrows from commons-pool2: before that row, so that its waits
	// are named as connections.
	{What: WaitDatabaseConnections, Frames: []string{"org.apache.commons.dbcp2.PoolingDataSource.getConnection", "org.apache.commons.dbcp2.BasicDataSource.getConnection",
		"org.apache.commons.dbcp2.PoolingDriver.connect"}},
	// Tomcat's JDBC pool (not the executor): borrowConnection waits on
	// its FairBlockingQueue.
	{What: WaitDatabaseConnections, Frames: []string{"org.apache.tomcat.jdbc.pool.ConnectionPool.borrowConnection", "org.apache.tomcat.jdbc.pool.FairBlockingQueue.poll"}},
	// Agroal (Quarkus's pool).
	{What: WaitDatabaseConnections, Frames: []string{"io.agroal.pool.ConnectionPool.getConnection"}},
	// Oracle's Universal Connection Pool.
	{What: WaitDatabaseConnections, Frames: []string{"oracle.ucp.jdbc.PoolDataSourceImpl.getConnection", "oracle.ucp.common.ConnectionPoolImpl.borrowConnection"}},
	// Go's database/sql, waiting for a free connection of the pool
	// (SetMaxOpenConns), should a Go block profile come as events.
	{What: WaitDatabaseConnections, Frames: []string{"database/sql.(*DB).conn"}},
	// Apache HttpClient 4: a lease waits in the pool's
	// getPoolEntryBlocking (maxPerRoute, maxTotal).
	{What: WaitHTTPConnections, Frames: []string{"org.apache.http.pool.", "org.apache.http.impl.conn.PoolingHttpClientConnectionManager.leaseConnection"}},
	// Apache HttpClient 5: StrictConnPool's or LaxConnPool's lease, and
	// the manager's future it is waited on through.
	{What: WaitHTTPConnections, Frames: []string{"org.apache.hc.core5.pool.", "org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager"}},
	// Reactor Netty's connection pool (maxConnections, then pending
	// acquires): a thread is seldom seen in it, as it is asynchronous, but
	// when one is, that is what it waits for.
	{What: WaitHTTPConnections, Frames: []string{"reactor.netty.resources.PooledConnectionProvider", "reactor.netty.internal.shaded.reactor.pool."}},
	// The JDK's HTTP client and OkHttp keep no bounded pool a caller waits
	// on (the JDK's has no connection limit by default, OkHttp's
	// dispatcher bounds only asynchronous calls): a thread blocked in a
	// synchronous send waits for the whole exchange, the downstream's
	// answer.
	{What: WaitDownstreamAnswer, Frames: []string{"jdk.internal.net.http.HttpClientImpl.send", "okhttp3.internal.http2.Http2Stream.waitForIo",
		"okhttp3.internal.http2.Http2Stream.takeHeaders"}},
	// Lettuce's pool (ConnectionPoolSupport and Spring Data Redis's
	// pooling provider) borrows from commons-pool2: before that row.
	{What: WaitRedisConnections, Frames: []string{"io.lettuce.core.support.ConnectionPoolSupport", "io.lettuce.core.support.AsyncConnectionPoolSupport",
		"org.springframework.data.redis.connection.lettuce.LettucePoolingConnectionProvider.getConnection"}},
	// Jedis's pools (JedisPool, and the ConnectionPool of JedisPooled)
	// borrow from commons-pool2 too.
	{What: WaitRedisConnections, Frames: []string{"redis.clients.jedis.JedisPool.getResource", "redis.clients.jedis.util.Pool.getResource",
		"redis.clients.jedis.ConnectionPool.getResource", "redis.clients.jedis.JedisSentinelPool.getResource"}},
	// Lettuce shares one connection: a synchronous command waits for
	// Redis's answer on its future, not for a connection.
	{What: WaitRedisAnswer, Frames: []string{"io.lettuce.core.LettuceFutures.awaitOrCancel", "io.lettuce.core.protocol.AsyncCommand.await"}},
	// commons-pool2 under no client the rows above know: a pool of
	// something, at its maxTotal.
	{What: WaitObjectPool, Frames: []string{"org.apache.commons.pool2.impl.GenericObjectPool.borrowObject", "org.apache.commons.pool2.impl.GenericKeyedObjectPool.borrowObject"}},
	// A reactive call blocked on (WebClient's .block()): its answer.
	{What: WaitReactiveAnswer, Frames: []string{"reactor.core.publisher.BlockingSingleSubscriber.blockingGet", "reactor.core.publisher.BlockingOptionalMonoSubscriber.blockingGet"}},
	// A sleep waits for nothing but time; a platform thread's and a
	// virtual thread's.
	{What: WaitSleeping, Frames: []string{"java.lang.Thread.sleep", "java.lang.VirtualThread.sleepNanos"}},
	// A socket read, blocking (SocketInputStream before JDK 13,
	// NioSocketImpl since) or on a channel: named by its peer where a
	// frame of peers tells it.
	{What: WaitSocketRead, ByPeer: true, Frames: []string{"java.net.SocketInputStream.read", "sun.nio.ch.NioSocketImpl.read", "sun.nio.ch.SocketChannelImpl.read"}},
}

// peer is a row of peers: a socket read under one of Frames (prefixes of
// jfr.Frame.Name()) waits for What.
type peer struct {
	What   string
	Frames []string
}

// peers name a socket read by who it reads from, matched in order.
var peers = []peer{
	// JDBC drivers: the read is the database's answer to a query.
	{What: WaitDatabaseAnswer, Frames: []string{"com.mysql.cj.", "org.postgresql.", "org.mariadb.jdbc.", "oracle.jdbc.", "com.microsoft.sqlserver.jdbc."}},
	// Redis clients: Redis's answer to a command.
	{What: WaitRedisAnswer, Frames: []string{"redis.clients.jedis.", "io.lettuce.core."}},
	// HTTP clients (Apache 4 and 5, OkHttp, the JDK's two): a downstream's
	// answer to a call.
	{What: WaitDownstreamAnswer, Frames: []string{"org.apache.http.", "org.apache.hc.", "okhttp3.", "jdk.internal.net.http.", "sun.net.www.protocol.http."}},
}

// waited is what one event waited for, and the frame the why names for
// it: the outermost frame the row (or its peer) matched, where a caller
// entered the pool, the driver or the client. Known is false when no row
// knows the wait.
type waited struct {
	What  string
	Frame string
	Idle  bool
	Known bool
}

// matcher matches stacks against waits and peers, remembering each
// frame's rows: a stage's events repeat a few stacks thousands of times.
// The zero value is not ready; use newMatcher.
type matcher struct {
	rows map[frameKey]frameRows
}

// frameKey is a frame's class and method.
type frameKey struct{ class, method string }

// frameRows are the first row of waits and of peers a frame matches, -1
// for none.
type frameRows struct{ wait, peer int }

// newMatcher returns a matcher that has seen no frame.
func newMatcher() *matcher { return &matcher{rows: map[frameKey]frameRows{}} }

// of returns a frame's rows.
func (m *matcher) of(f jfr.Frame) frameRows {
	key := frameKey{f.Class, f.Method}
	if r, ok := m.rows[key]; ok {
		return r
	}
	name := f.Name()
	r := frameRows{wait: firstRow(len(waits), func(i int) []string { return waits[i].Frames }, name),
		peer: firstRow(len(peers), func(i int) []string { return peers[i].Frames }, name)}
	m.rows[key] = r
	return r
}

// firstRow returns the first of n rows one of whose frames prefixes
// name, -1 for none.
func firstRow(n int, frames func(int) []string, name string) int {
	for i := range n {
		if slices.ContainsFunc(frames(i), func(p string) bool { return strings.HasPrefix(name, p) }) {
			return i
		}
	}
	return -1
}

// waitOf returns what a stack (innermost first) waited for by waits: the
// first row any of its frames matches, named by the outermost frame
// matching it; a socket read by the first of peers any frame matches.
func (m *matcher) waitOf(stack []jfr.Frame) waited {
	row, at, peer, peerAt := -1, -1, -1, -1
	for i := len(stack) - 1; i >= 0; i-- { // outermost first: the first frame seen of a row is its outermost
		r := m.of(stack[i])
		if r.wait >= 0 && (row < 0 || r.wait < row) {
			row, at = r.wait, i
		}
		if r.peer >= 0 && (peer < 0 || r.peer < peer) {
			peer, peerAt = r.peer, i
		}
	}
	if row < 0 {
		return waited{}
	}
	w := waits[row]
	out := waited{What: w.What, Frame: stack[at].Name(), Idle: w.Idle, Known: true}
	if w.ByPeer && peer >= 0 {
		out.What, out.Frame = peers[peer].What, stack[peerAt].Name()
	}
	return out
}

// idle reports whether an event is a thread waiting for work (see
// jfr.Event.Idle, and the table's idle rows): no cause.
func (w waited) idle(ev jfr.Event) bool { return ev.Idle() || w.Known && w.Idle }

// waitShare is the wait most of a cause's events waited for, weighed by
// their time (by their number when they took none): what it was, the
// frame most of that wait was in, and its share of the events' weight.
type waitShare struct {
	What, Frame string
	Share       float64 // of the events' weight, 0..1
}

// mainWait returns the wait the events waited for most (ws, one per
// event), with its share of their weight; ok is false when none is known.
func mainWait(events []jfr.Event, ws []waited) (waitShare, bool) {
	byWhat, byFrame := map[string]float64{}, map[waited]float64{}
	var total float64
	timed := totalSeconds(events) > 0
	for i, ev := range events {
		weight := 1.0
		if timed {
			weight = ev.Duration.Seconds()
		}
		total += weight
		if w := ws[i]; w.Known && !w.Idle {
			byWhat[w.What] += weight
			byFrame[w] += weight
		}
	}
	if len(byWhat) == 0 || total <= 0 {
		return waitShare{}, false
	}
	what := heaviest(byWhat)
	var frame string
	var most float64
	for _, w := range slices.SortedFunc(maps.Keys(byFrame), func(a, b waited) int { return strings.Compare(a.Frame, b.Frame) }) {
		if w.What == what && byFrame[w] > most {
			frame, most = w.Frame, byFrame[w]
		}
	}
	return waitShare{What: what, Frame: frame, Share: byWhat[what] / total}, true
}

// heaviest returns the key of the largest weight, the first by name on a
// tie.
func heaviest(weights map[string]float64) string {
	keys := slices.SortedFunc(maps.Keys(weights), func(a, b string) int {
		return cmp.Or(cmp.Compare(weights[b], weights[a]), strings.Compare(a, b))
	})
	return keys[0]
}

// ownCaller returns the service's own frame (Evidence.Own) the events
// waiting for what (ws, one per event) were most called from, the innermost of its own on
// each stack, and its share of those events' weight: the call in the
// service that waited (a repository's query). It is "" when the service's
// frames are not told apart or none is on the stacks.
func ownCaller(e Evidence, events []jfr.Event, ws []waited, what string) (string, float64) {
	if e.Own == nil {
		return "", 0
	}
	byFrame := map[string]float64{}
	var total float64
	timed := totalSeconds(events) > 0
	for i, ev := range events {
		if ws[i].What != what {
			continue
		}
		weight := 1.0
		if timed {
			weight = ev.Duration.Seconds()
		}
		total += weight
		if i := slices.IndexFunc(ev.Stack, func(f jfr.Frame) bool { return e.Own(f.String()) }); i >= 0 {
			byFrame[ev.Stack[i].String()] += weight
		}
	}
	if len(byFrame) == 0 {
		return "", 0
	}
	frame := heaviest(byFrame)
	return frame, byFrame[frame] / total
}
