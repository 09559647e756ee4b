package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// noDownstream is the 503's message when DOWNSTREAM_URL is unset.
const noDownstream = "no downstream is configured: set DOWNSTREAM_URL"

// intArg is an integer parameter and where its value goes.
type intArg struct {
	p   param
	dst *int
}

// parseInts parses args from rawQuery in order, stopping at the first bad
// one, so that every target reports the same parameter first.
func parseInts(rawQuery string, args ...intArg) error {
	for _, a := range args {
		v, err := a.p.parse(rawQuery)
		if err != nil {
			return err
		}
		*a.dst = v
	}
	return nil
}

// parseFanout reads GET /api/fanout's parameters in the order of the
// contract's table: calls, mode, limit, timeout, duration.
func parseFanout(rawQuery string) (fanoutRequest, error) {
	var req fanoutRequest
	var timeoutMs int
	if err := parseInts(rawQuery, intArg{fanoutCallsParam, &req.calls}); err != nil {
		return req, err
	}
	mode, err := modeParam.parse(rawQuery)
	if err != nil {
		return req, err
	}
	req.mode = canonicalMode(mode)
	err = parseInts(rawQuery, intArg{fanoutLimitParam, &req.limit}, intArg{timeoutParam, &timeoutMs},
		intArg{fanoutDurationParam, &req.durationMs})
	req.timeout = time.Duration(timeoutMs) * time.Millisecond
	return req, err
}

// serveFanout answers GET /api/fanout: N calls to the downstream, spread
// as the mode says, and what became of them. The calls do not end when the
// client goes away, as in the Java target, whose handlers cannot tell.
func (h *handler) serveFanout(w http.ResponseWriter, r *http.Request) int {
	req, err := parseFanout(r.URL.RawQuery)
	if err != nil {
		return writeError(w, http.StatusBadRequest, err.Error())
	}
	if !h.downstream.configured() {
		return writeError(w, http.StatusServiceUnavailable, noDownstream)
	}
	resp := h.downstream.fanout(context.WithoutCancel(r.Context()), req)
	var stack [64]byte
	resp.Target = h.target
	resp.Thread = string(appendThread(nil, r.Context(), stack[:]))
	body, err := json.Marshal(resp)
	if err != nil {
		return writeError(w, http.StatusInternalServerError, "encode the fan-out: "+err.Error())
	}
	writeJSON(w, http.StatusOK, body)
	return http.StatusOK
}

// serveDownstream answers GET /api/downstream: one downstream call, through
// the bulkhead of its limit when limit > 0; the work response when the call
// succeeds, else 504 for a timeout and 502 for any other failure.
func (h *handler) serveDownstream(w http.ResponseWriter, r *http.Request) int {
	var durationMs, limit, timeoutMs int
	err := parseInts(r.URL.RawQuery, intArg{durationParam, &durationMs},
		intArg{bulkheadLimitParam, &limit}, intArg{timeoutParam, &timeoutMs})
	if err != nil {
		return writeError(w, http.StatusBadRequest, err.Error())
	}
	if !h.downstream.configured() {
		return writeError(w, http.StatusServiceUnavailable, noDownstream)
	}
	if limit > 0 {
		defer h.bulkheads.acquire(limit)()
	}
	timeout := time.Duration(timeoutMs) * time.Millisecond
	o, err := h.downstream.heavy(context.WithoutCancel(r.Context()), durationMs, timeout)
	if o != callOK {
		status, message := callError(o, err, timeoutMs)
		return writeError(w, status, message)
	}
	writeWork(w, r, h.targetJSON, "downstream", durationMs, nil)
	return http.StatusOK
}

// callError is the status and message of a failed downstream call: 504
// when it timed out, 502 otherwise.
func callError(o outcome, err error, timeoutMs int) (int, string) {
	switch o {
	case callReadTimeout:
		return http.StatusGatewayTimeout, fmt.Sprintf("downstream read timed out after %d ms", timeoutMs)
	case callConnectTimeout:
		return http.StatusGatewayTimeout, fmt.Sprintf("downstream connect timed out after %d ms", connectTimeout.Milliseconds())
	case callRefused:
		return http.StatusBadGateway, "downstream refused the connection"
	}
	return http.StatusBadGateway, "downstream call failed: " + err.Error()
}

// bulkheads hands out the permits of /api/downstream: one semaphore per
// distinct limit, shared by every request that asks for that limit.
type bulkheads struct {
	mu      sync.Mutex
	byLimit map[int]chan struct{}
}

// acquire waits for one of limit's permits and returns its release. Like
// the Java target's Semaphore.acquire, it waits however long it takes.
func (b *bulkheads) acquire(limit int) (release func()) {
	b.mu.Lock()
	if b.byLimit == nil {
		b.byLimit = map[int]chan struct{}{}
	}
	permits, ok := b.byLimit[limit]
	if !ok {
		permits = make(chan struct{}, limit)
		b.byLimit[limit] = permits
	}
	b.mu.Unlock()
	permits <- struct{}{}
	return func() { <-permits }
}
