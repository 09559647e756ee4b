package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/threadbench/threadbench/internal/bench"
)

// claimCounter hands out request numbers: the closed model's place in the
// mix.
type claimCounter struct{ n atomic.Uint64 }

func (c *claimCounter) next() uint64 { return c.n.Add(1) - 1 }

// worker is what one sending goroutine owns: a reusable request per kind,
// a response, a timer and, in the open model, the channel it is handed a
// claim on when idle, so that the hot path allocates nothing of its own.
type worker struct {
	a      *attack
	reqs   []*fasthttp.Request
	resp   fasthttp.Response
	timer  *time.Timer
	rng    *rand.Rand // think times, each worker its own, seeded apart
	claims chan claim // open model: its next request, when idle
}

func (a *attack) newWorker() *worker {
	t := time.NewTimer(time.Hour)
	t.Stop()
	a.seeded++
	// A share's workers are numbered across the plan's generators
	// (Share.Global), so that no two generators' clients think alike.
	seed := a.plan.Share.Global(a.seeded-1) + 1
	return &worker{a: a, reqs: a.reqs.newRequests(), timer: t, rng: rand.New(rand.NewPCG(seed, 0x7468726561646265))}
}

// closedClient is client i of the closed model: while the concurrency is
// above i it sends its next request as soon as the previous one answers;
// otherwise it waits for the concurrency to change. A warm-up until steady
// is sent by the same clients as the stages after it: when it is cut, a
// client that was sending goes on sending, now in the first stage, and one
// that was waiting wakes to the new schedule.
func (w *worker) closedClient(i int, sends *claimCounter) {
	a := w.a
	for {
		now := a.since()
		sc := a.sched.load()
		if now >= sc.end || a.ctx.Err() != nil {
			return
		}
		seg := sc.at(now)
		switch {
		case seg == nil || !seg.closed:
			if !w.waitUntil(sc.openEnd, sc) {
				return
			}
		case i >= seg.concurrencyAt(now):
			if !w.waitUntil(seg.nextChange(now), sc) {
				return
			}
		case a.reqs.steps != nil:
			if !w.iterate() {
				return
			}
		default:
			a.rec.sending(now)
			a.rec.record(w.send(a.reqs.pick(sends.next()), now))
		}
	}
}

// iterate runs the iteration once: its requests one after the other, its
// think times between them (never counted as latency). A client that has
// started an iteration finishes it, as k6 lets iterations finish when a
// ramp lowers the virtual users, unless the profile ends (a request in
// flight then comes back, a think time is cut) or the attack is cancelled.
// It reports false when the client should stop.
func (w *worker) iterate() bool {
	a := w.a
	for _, st := range a.reqs.steps {
		now := a.since()
		if now >= a.sched.load().end {
			return false
		}
		if st.request < 0 {
			// A think time that outlasts the profile ends the client now:
			// it holds no request, and waiting would only stretch the
			// attack past its end (the iteration does not count).
			until := now + w.thinkTime(st)
			if until >= a.sched.load().end || !w.sleepUntil(until) {
				return false
			}
			continue
		}
		a.rec.sending(now)
		a.rec.record(w.send(st.request, now))
	}
	a.rec.iterated(a.since())
	return a.ctx.Err() == nil
}

// thinkTime is a sleep step's length: fixed, or uniform from min to max.
func (w *worker) thinkTime(st step) time.Duration {
	if st.max <= st.min {
		return st.min
	}
	return st.min + time.Duration(w.rng.Int64N(int64(st.max-st.min)+1))
}

// sleepUntil waits until the attack clock reads t, or reports false when
// the attack is cancelled first.
func (w *worker) sleepUntil(t time.Duration) bool { return w.wakeUntil(t, nil) }

// waitUntil is sleepUntil that also wakes when a cut replaces schedule sc:
// the time waited for was read from it.
func (w *worker) waitUntil(t time.Duration, sc *schedule) bool { return w.wakeUntil(t, sc.replaced) }

// wakeUntil waits until the attack clock reads t or wake is closed (nil:
// never), or reports false when the attack is cancelled first.
func (w *worker) wakeUntil(t time.Duration, wake <-chan struct{}) bool {
	d := t - w.a.since()
	if d <= 0 {
		return w.a.ctx.Err() == nil
	}
	w.timer.Reset(d)
	select {
	case <-w.timer.C:
		return true
	case <-wake:
		w.timer.Stop()
		return true
	case <-w.a.ctx.Done():
		w.timer.Stop()
		return false
	}
}

// send sends one request of the given kind, scheduled for intended, and
// reads its whole response, so that the connection is reused.
func (w *worker) send(kind int, intended time.Duration) outcome {
	o := outcome{kind: kind, intended: intended, sent: w.a.since()}
	err := w.a.client.DoTimeout(w.reqs[kind], &w.resp, w.a.timeout)
	o.done = w.a.since()
	if err != nil {
		o.err = w.a.errorMessage(err)
		return o
	}
	o.code, o.bytesIn = w.resp.StatusCode(), int64(len(w.resp.Body()))
	switch {
	case w.a.reqs.fanout[kind] && o.code == fasthttp.StatusOK:
		if o.fanout, err = readFanout(w.resp.Body()); err != nil {
			o.code, o.err = 0, "reading the response: "+err.Error()
		}
	case !w.a.reqs.reqs[kind].Succeeded(o.code):
		o.err = statusText(o.code)
	}
	return o
}

// readFanout reads a fan-out's account of its calls; a body that is not one
// is an error of the request, not of the run.
func readFanout(body []byte) (*bench.FanoutResponse, error) {
	var f bench.FanoutResponse
	if err := json.Unmarshal(body, &f); err != nil {
		return nil, fmt.Errorf("fan-out response: %w", err)
	}
	return &f, nil
}

// statusText is an error status as net/http writes it: "503 Service
// Unavailable".
func statusText(code int) string {
	return strconv.Itoa(code) + " " + fasthttp.StatusMessage(code)
}

// errorMessage says what became of a request that got no response, the
// same way whichever request met it.
func (a *attack) errorMessage(err error) string {
	switch {
	case errors.Is(err, fasthttp.ErrTimeout):
		return "timeout: no response within " + a.timeout.String()
	case errors.Is(err, fasthttp.ErrConnectionClosed):
		// The generator cannot tell who closed it: the target, or the
		// network on the way (a reset by a middlebox, a lost link).
		return "the connection closed before an answer (closed by the target, or reset on the way to it)"
	case errors.Is(err, errStale):
		return errStale.Error()
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		// One message whatever the connection's ports, which the error's
		// own text names: a reset is counted once, not per connection.
		return "the connection was reset (by the target, or on the way to it)"
	case errors.Is(err, syscall.ECONNREFUSED):
		// A reset answering the opening SYN: nothing listened, or a
		// firewall or a lossy link on the way refused it in its name.
		return "the connection was refused (nothing listened at the target's address, or a reset on the way to it)"
	}
	return err.Error()
}
