package load

import (
	"errors"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"

	"github.com/threadbench/threadbench/internal/bench"
)

// fdReserve is how many file descriptors the connection limit leaves for
// everything else the process has open.
const fdReserve = 1024

// MaxConnections returns the most connections an attack may open: 4096, or
// less where the process may not open that many sockets.
func MaxConnections() int {
	limit := 4096
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

// maxResponseBody bounds what one response may carry; a target's answers
// are a few hundred bytes.
const maxResponseBody = 16 << 20

// errClosed is what a dial returns once the attack has closed its
// connections.
var errClosed = errors.New("the attack is over")

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

// take returns a primed connection young enough that the target has not
// closed it as idle, or nil; older ones it closes.
func (w *wire) take() net.Conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	for n := len(w.primed); n > 0 && !w.closed; n = len(w.primed) {
		p := w.primed[n-1]
		w.primed = w.primed[:n-1]
		if time.Since(p.opened) < maxIdle {
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
	cc := &countingConn{Conn: c, w: w}
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

// countingConn adds what it reads and writes to its wire.
type countingConn struct {
	net.Conn
	w *wire
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.w.in.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
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

// newClient returns the HTTP client of one attack, on fasthttp: on this
// project's Go target and one generator CPU it sends 0.90x of wrk's
// requests per second where net/http's client, whose every connection
// runs a reading and a writing goroutine that each request hands over to,
// sends 0.59x (scripts/bench.sh). Keep-alive connections, at most conns
// of them: each worker holds at most one at a time, so a request never
// waits for a connection another worker owns and never opens an extra
// one. The connection back last is the next one used (LIFO), so that a
// steady rate keeps only the few connections it needs busy. No retries (a
// failure is measured, not hidden), no redirects, no compression, so that
// bytes are what the target wrote; HTTP/1.1, as wrk speaks it.
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
		MaxIdemponentCallAttempts: 1,
		MaxResponseBodySize:       maxResponseBody,
		NoDefaultUserAgentHeader:  true,
		ConnPoolStrategy:          fasthttp.LIFO,
	}, nil
}
