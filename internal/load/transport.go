package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// DroppedPrefix marks the error (wrapped by the HTTP client) of a request the engine did not send
// because MaxInFlight requests were already waiting for the target. Such a
// request counts as sent and failed, like k6's dropped iterations: the
// schedule is kept (no coordinated omission) and memory and sockets stay
// bounded however far the target falls behind.
const DroppedPrefix = "dropped: "

// fdReserve is how many file descriptors the in-flight limit leaves for
// everything else the process has open.
const fdReserve = 1024

// DefaultMaxInFlight returns the in-flight limit used when none is set: 4096,
// or less where the process may not open that many sockets.
func DefaultMaxInFlight() int {
	limit := 4096
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur > fdReserve && int(rl.Cur-fdReserve) < limit {
		limit = int(rl.Cur - fdReserve)
	}
	return limit
}

// transport wraps the shared round tripper of a run. It ties every request
// to the run's context, so that cancelling a run cancels the requests in
// flight instead of waiting up to a timeout for them, and it counts each
// response body as vegeta discards it.
type transport struct {
	base     http.RoundTripper
	ctx      context.Context
	limit    int64 // requests in flight at most; 0 for no limit
	inFlight atomic.Int64
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if n := t.inFlight.Add(1); t.limit > 0 && n > t.limit {
		t.inFlight.Add(-1)
		return nil, fmt.Errorf("%s%d requests already in flight: the target is not keeping up with the offered rate", DroppedPrefix, t.limit)
	}
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(t.ctx, cancel)
	release := func() { stop(); cancel(); t.inFlight.Add(-1) }
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, header: resp.Header, release: release}
	return resp, nil
}

// countingBody counts the bytes read from a response body and, on Close,
// writes the count into the response's headers, which vegeta hands on with
// its result.
type countingBody struct {
	io.ReadCloser
	header  http.Header
	n       int64
	release func()
	closed  bool
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *countingBody) Close() error {
	err := b.ReadCloser.Close()
	if !b.closed {
		b.closed = true
		b.header[bytesInHeader] = []string{strconv.FormatInt(b.n, 10)}
		b.release()
	}
	return err
}

// newTransport returns the transport a run shares across all its attacks:
// keep-alive connections, enough idle connections per host for the run's
// highest concurrency, no proxy (targets are on the loopback) and no
// compression, so that BytesIn is what the target wrote.
func newTransport(maxConns int) *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		DialContext:         dialer.DialContext,
		MaxIdleConns:        0, // no global cap; the per-host one applies
		MaxIdleConnsPerHost: maxConns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
}
