package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Settings of the one downstream client, like the seed's Apache client
// (and the Java target's): connect timeout 500 ms, a connection pool that
// never makes a call wait, idle connections dropped after a minute.
const (
	connectTimeout  = 500 * time.Millisecond
	idleConnTimeout = 60 * time.Second
)

// outcome is what became of one downstream call.
type outcome int

// The outcomes a fan-out counts, per the contract.
const (
	callOK             outcome = iota
	callReadTimeout            // connected, then no answer within the call's timeout
	callConnectTimeout         // no connection within connectTimeout
	callRefused                // ECONNREFUSED: nothing listens there
	callOther                  // anything else, a non-2xx answer included
)

// errReadTimeout is the cause a call's context is cancelled with when its
// read timeout passes.
var errReadTimeout = errors.New("read timeout")

// downstream calls the downstream service's heavy endpoint. One per
// handler, so its connection pool is shared by every request.
type downstream struct {
	baseURL   string // no trailing slash; "" when none is configured
	transport *http.Transport
	client    *http.Client
}

func newDownstream(baseURL string) *downstream {
	dialer := &net.Dialer{Timeout: connectTimeout}
	transport := &http.Transport{
		DialContext: dialer.DialContext,
		// No cap on connections and room to keep them all idle, so the
		// pool is never what limits a fan-out (the seed's maxTotal and
		// maxPerRoute of 1000, unbounded here as in the Java target).
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: math.MaxInt,
		MaxConnsPerHost:     0,
		IdleConnTimeout:     idleConnTimeout,
	}
	return &downstream{
		baseURL:   strings.TrimSuffix(baseURL, "/"),
		transport: transport,
		client:    &http.Client{Transport: transport},
	}
}

// configured says whether there is a downstream to call.
func (d *downstream) configured() bool { return d.baseURL != "" }

// close drops the idle connections, ending their goroutines.
func (d *downstream) close() { d.transport.CloseIdleConnections() }

// heavy calls the downstream's /api/heavy?duration=durationMs. The dialer
// gives up after connectTimeout; once the call has a connection, it has
// timeout to get the whole answer, as a socket read timeout would allow.
// The error says what went wrong for any outcome but callOK.
func (d *downstream) heavy(ctx context.Context, durationMs int, timeout time.Duration) (outcome, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer atomic.Pointer[time.Timer]
	defer func() {
		if t := timer.Load(); t != nil {
			t.Stop()
		}
	}()
	// The read timeout starts when the call holds a connection, so that a
	// slow connect is a connect timeout and nothing else.
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
		t := time.AfterFunc(timeout, func() { cancel(errReadTimeout) })
		if old := timer.Swap(t); old != nil {
			old.Stop() // the transport retried on a new connection
		}
	}}
	url := d.baseURL + "/api/heavy?duration=" + strconv.Itoa(durationMs)
	err := d.get(httptrace.WithClientTrace(ctx, trace), url)
	if err == nil {
		return callOK, nil
	}
	return classify(err, errors.Is(context.Cause(ctx), errReadTimeout)), err
}

// get requests url and reads the answer through, so that the connection
// goes back to the pool; a non-2xx answer is an error.
func (d *downstream) get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// classify sorts a failed call's error into the contract's outcomes.
func classify(err error, readTimedOut bool) outcome {
	var opErr *net.OpError
	switch {
	case readTimedOut:
		return callReadTimeout
	case errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Timeout():
		return callConnectTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return callRefused
	}
	return callOther
}
