package load

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
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

// wire counts the bytes an attack's connections carry, headers included,
// the way k6 counts data sent and received.
type wire struct {
	in, out atomic.Int64
}

// countingConn adds what it reads and writes to a wire.
type countingConn struct {
	net.Conn
	w *wire
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.w.in.Add(int64(n))
	return n, err
}

func (c countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.w.out.Add(int64(n))
	return n, err
}

// newTransport returns the transport of one attack: keep-alive connections,
// at most conns of them (each worker holds at most one at a time, so a
// request never waits for a connection another worker owns, and never opens
// an extra one), no proxy (targets are on the loopback), no compression, so
// that bytes are what the target wrote, and HTTP/1.1 as wrk speaks it.
func newTransport(conns int, w *wire) *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countingConn{Conn: c, w: w}, nil
		},
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
}
