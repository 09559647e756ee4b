package load

import (
	"errors"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"

	"github.com/threadbench/threadbench/internal/bench"
)

// fdReserve is how many file descriptors the connection limit leaves for
// everything else the process has open.
const fdReserve = 1024

// connectionLimit is the most connections an attack may open.
const connectionLimit = 4096

// MaxConnections returns the most connections an attack may open: 4096, or
// less where the process may not open that many sockets.
func MaxConnections() int {
	limit := connectionLimit
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur > fdReserve && int(rl.Cur-fdReserve) < limit {
		limit = int(rl.Cur - fdReserve)
	}
	return limit
}

// dialTimeout bounds the TCP handshake with a target.
const dialTimeout = 10 * time.Second

// maxIdle is how long a connection may sit unused before it is closed:
// below the keep-alive timeouts of the targets (Tomcat's 60 s, the Go
// target's 2 min), so that the rarely used connections at the bottom of
// the LIFO pool are closed by us, not under a request by the target; and
// the connections a burst opened go once it is over.
const maxIdle = 30 * time.Second

// primedMaxAge is how long a connection opened ahead of need may wait for
// its first request. A server's timeout for a connection that has carried
// no request runs from its accept and is shorter than its keep-alive
// timeout: the Go target's ReadHeaderTimeout (10 s) closed primed
// connections unused since the attack began, and requests later sent on
// them failed as "closed before answering" although the target had
// answered every request it got (a loopback capture: the target's FIN 10.0
// s after the handshake, our request 1.1 s later, its RST). Five seconds
// is below the Go target's 10 s, Tomcat's 20-60 s, nginx's and Node's 60 s;
// a server quicker still is caught by the check before a request
// (peerClosed), short of a close in the very moment of sending.
const primedMaxAge = 5 * time.Second

// idleCheck is how long a connection may go without a request before the
// wire checks that the target has not closed it (peerClosed) before
// sending on it: a target may close a connection idle for less than
// maxIdle (Node's keep-alive timeout is 5 s), and a request written on it
// would fail although the target never saw it. A tenth of a second: at a
// second, a server that closes connections idle for 300 ms had one closed
// under a request now and then (clean-clone runs 26 and 28,
// TestNoRequestOnAConnectionTheTargetClosed: a connection the pool had not
// needed for 300 ms to 1 s, written on unchecked). A connection in steady
// use is back within milliseconds and never checked; one idle that long
// costs one peek.
const idleCheck = 100 * time.Millisecond

// staleAttempts is how many connections a request may try in turn when
// those it is given were closed by the target while idle (errStale: the
// request was not written on them). Each such connection leaves the pool,
// so one more than the pool may hold ends on a new connection: a burst
// after a pause may find every pooled connection closed.
const staleAttempts = connectionLimit + 1

// maxResponseBody bounds what one response may carry; a target's answers
// are a few hundred bytes.
const maxResponseBody = 16 << 20

// errClosed is what a dial returns once the attack has closed its
// connections.
var errClosed = errors.New("the attack is over")

// errStale is what writing on a connection the target had closed while it
// was idle returns: nothing was written, and the client sends the request
// on another connection (newClient's retryStale).
var errStale = errors.New("the target had closed the idle connections tried; the request was not sent")

// wire dials an attack's connections, counts the bytes they carry (headers
// included, the way k6 counts data sent and received) and closes them all
// at once when the attack is cancelled, so that no answer in flight holds
// the attack open.
type wire struct {
	in, out atomic.Int64

	mu     sync.Mutex
	live   map[*countingConn]struct{}
	primed []primedConn // opened ahead of need, the last first
	closed bool
}

// primedConn is a connection opened before the attack needed it.
type primedConn struct {
	c      *countingConn
	opened time.Time
}

func newWire() *wire { return &wire{live: map[*countingConn]struct{}{}} }

// primeConcurrency is how many connections prime opens at once.
const primeConcurrency = 16

// prime opens connections to addr ahead of need, n counting those primed
// already, for the next dials to take. A rate that steps up then finds them open: opened under load, each
// costs the generator and the target a handshake, an accept and a new
// goroutine or thread at the moment both are busiest, so that requests
// come back late, more connections are opened for the next ones, and a
// step to 16,000 req/s was late by 20 ms and more at its start. Connections
// that fail to open are left to be dialled when needed, and the first
// failure ends priming: a target that refuses them refuses the attack's
// own, which measures that.
func (w *wire) prime(addr string, n int) {
	w.mu.Lock()
	n -= len(w.primed)
	w.mu.Unlock()
	var wg sync.WaitGroup
	var failed atomic.Bool
	next := make(chan struct{})
	for range min(n, primeConcurrency) {
		wg.Go(func() {
			for range next {
				if failed.Load() {
					continue
				}
				c, err := w.open(addr)
				if err != nil {
					failed.Store(true)
					continue
				}
				w.keep(c.(*countingConn))
			}
		})
	}
	for range n {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
}

// probe opens one connection to addr, keeps it primed and returns how long
// its handshake took; 0 when it failed.
func (w *wire) probe(addr string) time.Duration {
	start := time.Now()
	c, err := w.open(addr)
	if err != nil {
		return 0
	}
	rtt := time.Since(start)
	w.keep(c.(*countingConn))
	return rtt
}

// keep adds a connection to the primed ones.
func (w *wire) keep(c *countingConn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.primed = append(w.primed, primedConn{c: c, opened: time.Now()})
}

// take returns a primed connection younger than primedMaxAge that the
// target has not closed, or nil; the others it closes.
func (w *wire) take() net.Conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	for n := len(w.primed); n > 0 && !w.closed; n = len(w.primed) {
		p := w.primed[n-1]
		w.primed = w.primed[:n-1]
		if time.Since(p.opened) < primedMaxAge && !peerClosed(p.c.Conn) {
			p.c.lastWrite = time.Now() // checked just now
			return p.c
		}
		delete(w.live, p.c)
		p.c.Conn.Close()
	}
	return nil
}

func (w *wire) dial(addr string) (net.Conn, error) {
	if c := w.take(); c != nil {
		return c, nil
	}
	return w.open(addr)
}

// open opens a new connection.
func (w *wire) open(addr string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, err
	}
	cc := &countingConn{Conn: c, w: w, lastWrite: time.Now()}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		c.Close()
		return nil, errClosed
	}
	w.live[cc] = struct{}{}
	return cc, nil
}

// closeAll closes every connection, in use or not, and refuses new ones.
func (w *wire) closeAll() {
	w.mu.Lock()
	w.closed = true
	live := w.live
	w.live, w.primed = map[*countingConn]struct{}{}, nil
	w.mu.Unlock()
	for c := range live {
		c.Conn.Close()
	}
}

// countingConn adds what it reads and writes to its wire, and checks
// that the target has not closed it before writing on it after idleCheck
// without a request. One goroutine uses it at a time (the pool hands it
// over under a lock), so lastWrite needs no lock of its own.
type countingConn struct {
	net.Conn
	w         *wire
	lastWrite time.Time // opened, or last written, or checked
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.w.in.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	now := time.Now()
	if now.Sub(c.lastWrite) >= idleCheck && peerClosed(c.Conn) {
		c.Close()
		return 0, errStale
	}
	c.lastWrite = now
	n, err := c.Conn.Write(p)
	c.w.out.Add(int64(n))
	return n, err
}

func (c *countingConn) Close() error {
	c.w.mu.Lock()
	delete(c.w.live, c)
	c.w.mu.Unlock()
	return c.Conn.Close()
}

// peerClosed reports, without waiting, whether the target has closed c or
// is done with it: its FIN or RST has arrived, or it sent something
// unasked (a server may answer 408 before closing). An idle HTTP/1.1
// connection has nothing to read; a closed one reads as the end. It peeks
// under Control, not Read, which would wait for the read lock that
// net/http's reading goroutine (vegeta's engine) holds while it waits for
// the answer to the very request about to be written.
func peerClosed(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	var closed bool
	err = raw.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		closed = n > 0 || err == nil || (err != unix.EAGAIN && err != unix.EINTR)
	})
	return closed || err != nil
}

// retryStale lets the client send a request again only when the
// connection it was given had been closed by the target while idle
// (errStale): nothing was written, so the request leaves once. Any other
// failure is measured, not retried.
func retryStale(_ *fasthttp.Request, _ int, err error) (resetTimeout, retry bool) {
	return false, errors.Is(err, errStale)
}

// newClient returns the HTTP client of one attack, on fasthttp: on this
// project's Go target and one generator CPU it sends 0.90x of wrk's
// requests per second where net/http's client, whose every connection
// runs a reading and a writing goroutine that each request hands over to,
// sends 0.59x (scripts/bench.sh). Keep-alive connections, at most conns
// of them: each worker holds at most one at a time, so a request never
// waits for a connection another worker owns and never opens an extra
// one. The connection back last is the next one used (LIFO), so that a
// steady rate keeps only the few connections it needs busy. No retries (a
// failure is measured, not hidden) but of a request not sent because its
// connection was found closed (retryStale), no redirects, no compression,
// so that bytes are what the target wrote; HTTP/1.1, as wrk speaks it.
func newClient(baseURL string, conns int, timeout time.Duration, w *wire) (*fasthttp.HostClient, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, bench.Errorf(bench.EINVALID, "target URL %q: the load engine speaks plain HTTP to host:port", baseURL)
	}
	return &fasthttp.HostClient{
		Addr:                      u.Host,
		Dial:                      w.dial,
		MaxConns:                  conns,
		MaxConnWaitTimeout:        timeout,
		MaxIdleConnDuration:       maxIdle,
		MaxIdemponentCallAttempts: staleAttempts,
		RetryIfErr:                retryStale,
		MaxResponseBodySize:       maxResponseBody,
		NoDefaultUserAgentHeader:  true,
		ConnPoolStrategy:          fasthttp.LIFO,
	}, nil
}
