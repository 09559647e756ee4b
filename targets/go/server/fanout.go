package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Fan-out modes. Every target accepts all five words; "virtual" and
// "goroutines" are each runtime's word for unbounded, which the response
// reports instead.
const (
	modePool       = "pool"
	modeUnbounded  = "unbounded"
	modeSemaphore  = "semaphore"
	modeVirtual    = "virtual"
	modeGoroutines = "goroutines"
)

var modeParam = wordParam{name: "mode", def: modeUnbounded,
	values: []string{modePool, modeUnbounded, modeSemaphore, modeVirtual, modeGoroutines}}

// canonicalMode maps each runtime's word for unbounded onto unbounded.
func canonicalMode(mode string) string {
	if mode == modeVirtual || mode == modeGoroutines {
		return modeUnbounded
	}
	return mode
}

// spreaders run call calls times with the concurrency of a mode and wait
// for all of them, as the seed's three controllers do.
var spreaders = map[string]func(calls, limit int, call func()){
	modePool:      spreadPool,
	modeUnbounded: spreadUnbounded,
	modeSemaphore: spreadSemaphore,
}

// spreadUnbounded starts a goroutine per call: the seed's virtual thread
// per task, with nothing to bound how many calls are in flight.
func spreadUnbounded(calls, _ int, call func()) {
	var wg sync.WaitGroup
	for range calls {
		wg.Go(call)
	}
	wg.Wait()
}

// spreadSemaphore starts a goroutine per call, each of which waits for one
// of limit permits: the seed's virtual threads with a Semaphore.
func spreadSemaphore(calls, limit int, call func()) {
	permits := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			permits <- struct{}{}
			defer func() { <-permits }()
			call()
		})
	}
	wg.Wait()
}

// spreadPool has limit workers drain a queue of calls: the seed's fixed
// thread pool. Like Executors.newFixedThreadPool, it starts no more
// workers than there are calls.
func spreadPool(calls, limit int, call func()) {
	queue := make(chan struct{}, calls)
	for range calls {
		queue <- struct{}{}
	}
	close(queue)
	var wg sync.WaitGroup
	for range min(limit, calls) {
		wg.Go(func() {
			for range queue {
				call()
			}
		})
	}
	wg.Wait()
}

// failures counts failed calls by outcome, as the response shows them.
type failures struct {
	ReadTimeout    int64 `json:"readTimeout"`
	ConnectTimeout int64 `json:"connectTimeout"`
	Refused        int64 `json:"refused"`
	Other          int64 `json:"other"`
}

// tally counts a fan-out's outcomes and its calls in flight, from every
// goroutine at once.
type tally struct {
	outcomes [callOther + 1]atomic.Int64
	inflight atomic.Int64
	peak     atomic.Int64
}

// enter counts a call going out and raises the peak if it is one.
func (t *tally) enter() {
	n := t.inflight.Add(1)
	for {
		peak := t.peak.Load()
		if n <= peak || t.peak.CompareAndSwap(peak, n) {
			return
		}
	}
}

// leave counts a call coming back with its outcome.
func (t *tally) leave(o outcome) {
	t.inflight.Add(-1)
	t.outcomes[o].Add(1)
}

// failures returns the failed calls by outcome.
func (t *tally) failures() failures {
	return failures{
		ReadTimeout:    t.outcomes[callReadTimeout].Load(),
		ConnectTimeout: t.outcomes[callConnectTimeout].Load(),
		Refused:        t.outcomes[callRefused].Load(),
		Other:          t.outcomes[callOther].Load(),
	}
}

// fanoutRequest is one GET /api/fanout, its parameters parsed.
type fanoutRequest struct {
	mode       string // canonical
	calls      int
	limit      int
	durationMs int
	timeout    time.Duration
}

// fanoutResponse is the body of GET /api/fanout.
type fanoutResponse struct {
	Target         string   `json:"target"`
	Endpoint       string   `json:"endpoint"`
	Mode           string   `json:"mode"`
	Limit          int      `json:"limit"` // 0 for unbounded: no limit applied
	Calls          int      `json:"calls"`
	Succeeded      int64    `json:"succeeded"`
	Failed         int64    `json:"failed"`
	Failures       failures `json:"failures"`
	ElapsedMs      int64    `json:"elapsedMs"`
	PeakConcurrent int64    `json:"peakConcurrent"`
	CallHistogram  string   `json:"callHistogram"`
	DoneHistogram  string   `json:"doneHistogram"`
	Thread         string   `json:"thread"`
}

// fanout makes the request's calls to the downstream and waits for all of
// them; the response lacks target and thread, which are the handler's.
func (d *downstream) fanout(ctx context.Context, req fanoutRequest) fanoutResponse {
	var t tally
	times := newCallTimes(req.calls)
	start := time.Now()
	call := func() {
		sent := time.Now()
		t.enter()
		o, _ := d.heavy(ctx, req.durationMs, req.timeout)
		t.leave(o)
		times.add(start, sent, time.Now())
	}
	spreaders[req.mode](req.calls, req.limit, call)
	elapsed := time.Since(start)
	callHist, doneHist := times.encode()
	f := t.failures()
	limit := req.limit
	if req.mode == modeUnbounded {
		limit = 0
	}
	return fanoutResponse{
		Endpoint:       "fanout",
		Mode:           req.mode,
		Limit:          limit,
		Calls:          req.calls,
		Succeeded:      t.outcomes[callOK].Load(),
		Failed:         f.ReadTimeout + f.ConnectTimeout + f.Refused + f.Other,
		Failures:       f,
		ElapsedMs:      elapsed.Milliseconds(),
		PeakConcurrent: t.peak.Load(),
		CallHistogram:  callHist,
		DoneHistogram:  doneHist,
	}
}

// callTimes keeps each call's own time and its time from the fan-out's
// start, a slot per call so that the calls' goroutines never wait for
// each other to note theirs.
type callTimes struct {
	next       atomic.Int64
	call, done []time.Duration
}

func newCallTimes(calls int) *callTimes {
	return &callTimes{call: make([]time.Duration, calls), done: make([]time.Duration, calls)}
}

// add notes a call sent at sent and back at back, of a fan-out started at
// start.
func (c *callTimes) add(start, sent, back time.Time) {
	i := c.next.Add(1) - 1
	c.call[i], c.done[i] = back.Sub(sent), back.Sub(start)
}

// The calls' histograms' geometry, the orchestrator's (internal/hdr;
// the target is built from its own sources alone): microseconds, 1 µs to
// 10 minutes, 3 significant digits.
const (
	histLowest  = 1
	histHighest = int64(10 * time.Minute / time.Microsecond)
	histDigits  = 3
)

// encode writes both as HDR histograms, V2 compressed, base64.
func (c *callTimes) encode() (call, done string) {
	n := c.next.Load()
	return encodeTimes(c.call[:n]), encodeTimes(c.done[:n])
}

// encodeTimes writes durations as an HDR histogram, each clamped into its
// range.
func encodeTimes(times []time.Duration) string {
	h := hdrhistogram.New(histLowest, histHighest, histDigits)
	for _, d := range times {
		_ = h.RecordValue(min(max(d.Microseconds(), histLowest), histHighest))
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(enc)
}
