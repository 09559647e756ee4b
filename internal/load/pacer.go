package load

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// claim is one open-model request a worker has taken: its number in the
// schedule, when it is due, and whether it was due while every worker was
// busy (it waited for a connection).
type claim struct {
	n      uint64
	due    time.Duration
	waited bool
	taken  time.Duration // when a worker took it, if later than due: it waited for one
}

// armHorizon is how far ahead a worker back from a request claims the next
// one rather than going idle. Claims within it are held by workers asleep
// until their time, so that at a high rate a request costs its worker one
// timer wake and no hand-off: the worker back last claims the next free
// due time itself. Beyond it the worker goes idle, and at a low rate the
// one worker armed promotes an idle one as it leaves; a millisecond keeps
// as many workers armed as the rate sends in one (48 at 48,000 req/s).
const armHorizon = time.Millisecond

// openPool holds the open model's workers, each with one connection at
// most: all made before the clock starts, each started when the schedule
// first needs it. There is no pacing goroutine: each request is claimed
// by the worker that will send it, in schedule order, and that worker
// sleeps until the request is due. A worker back from a request claims the
// next one if it is due within armHorizon or nobody else holds a claim;
// otherwise it waits on a stack of idle workers, so that the one back last
// is the next promoted: a steady rate is carried by the few workers it
// keeps busy, warm in the caches, not by every one in turn.
//
// When every worker is busy, no one holds a claim: the next worker back
// claims what is due then, at once, and the requests due while nobody was
// free are counted as having waited for a connection. Their latency runs
// from their due time (wrk2's correction for coordinated omission).
type openPool struct {
	a *attack

	mu          sync.Mutex
	next        uint64        // the next request to claim
	armed       int           // workers holding a claim not yet due
	vacant      bool          // the last claim left while every worker was busy
	waitedUntil time.Duration // when a worker last came back to a vacant schedule
	idle        []*worker     // waiting for a claim, the one back last on top
	unused      []*worker     // made, not started yet
	started     int           // workers whose goroutines run
	spare       int           // workers beyond the connections, for armed claims
	over        bool          // the schedule is done, or the attack cancelled

	// conns holds a token per request in flight, and the retired tokens
	// that keep the requests in flight within the limit: its capacity is
	// the cap. A lower limit retires free tokens at once and owes the
	// rest, which requests retire as they come back (release); limit is
	// the one set, cap - retired - owed (sizing.go says how it moves).
	conns   chan struct{}
	retired atomic.Int64
	owed    atomic.Int64
	limit   atomic.Int64
	sizer   *connSizer
}

// newOpenPool makes the workers for the first limit's connections: one
// for each, and as many more as hold claims armed at the profile's highest
// rate (peak requests/s): armed workers sleep, holding no connection, so
// that they do not eat into the requests the connections may have in
// flight. More are made if the limit rises.
func newOpenPool(a *attack, sz sizing, first int, peak float64) *openPool {
	p := &openPool{a: a, conns: make(chan struct{}, sz.cap), sizer: newConnSizer(sz)}
	p.limit.Store(int64(sz.cap))
	p.setLimitLocked(first)
	p.spare = armedAt(peak)
	for range first + p.spare {
		p.unused = append(p.unused, p.newWorker())
	}
	return p
}

func (p *openPool) newWorker() *worker {
	w := p.a.newWorker()
	w.claims = make(chan claim, 1)
	return w
}

// setLimitLocked sets the connection limit to n, within 1 and the cap: up
// at once, by cancelling owed retirements and taking retired tokens back;
// down by retiring the tokens no request holds, and owing the others.
func (p *openPool) setLimitLocked(n int) {
	n = min(max(n, 1), cap(p.conns))
	p.owed.Swap(0) // what was owed and not retired yet is decided again
	for int(p.retired.Load()) > cap(p.conns)-n {
		<-p.conns // a retired token: there are more than enough of them
		p.retired.Add(-1)
	}
	for int(p.retired.Load()) < cap(p.conns)-n && p.retireFree() {
	}
	p.owed.Store(int64(cap(p.conns) - n - int(p.retired.Load())))
	p.limit.Store(int64(n))
}

// retireFree takes a token no request holds out of use; false when every
// token is in flight or retired.
func (p *openPool) retireFree() bool {
	select {
	case p.conns <- struct{}{}:
		p.retired.Add(1)
		return true
	default:
		return false
	}
}

// release gives back a request's token, or keeps it retired while the
// limit is owed retirements.
func (p *openPool) release() {
	for {
		owed := p.owed.Load()
		if owed <= 0 {
			<-p.conns
			return
		}
		if p.owed.CompareAndSwap(owed, owed-1) {
			p.retired.Add(1)
			return
		}
	}
}

// grow raises the limit to what the offered rate needs now, when that is
// more (a step or a ramp up): a request found every connection busy. It
// reports whether it did.
func (p *openPool) grow() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	need := p.sizer.need(p.a.sched.load().rate(p.a.since()))
	if int64(need) <= p.limit.Load() {
		return false
	}
	p.setLimitLocked(need)
	return true
}

// armedAt is how many workers hold claims armed at rate requests/s: a
// millisecond's worth (armHorizon), and one more.
func armedAt(rate float64) int {
	return int(math.Ceil(rate*armHorizon.Seconds())) + 1
}

// start arms the first worker with the first request.
func (p *openPool) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.claimLocked(); ok {
		p.armLocked(c)
	}
}

// claimLocked takes the next request of the schedule; false, and the pool
// is over, when the open part of the schedule has no more.
func (p *openPool) claimLocked() (claim, bool) {
	due, ok := p.a.sched.due(p.next)
	return p.claimDueLocked(due, ok)
}

// claimDueLocked takes the next request, due at due (ok: the schedule has
// one), as the schedule's due(p.next) answered.
func (p *openPool) claimDueLocked(due time.Duration, ok bool) (claim, bool) {
	if !ok || due >= p.a.sched.openEnd {
		p.endLocked()
		return claim{}, false
	}
	c := claim{n: p.next, due: due, waited: due < p.waitedUntil}
	if c.waited {
		c.taken = p.a.since()
	}
	p.next++
	p.armed++
	return c, true
}

// armLocked gives claim c to the idle worker back last, or to a new one;
// its callers know one of them is there.
func (p *openPool) armLocked(c claim) {
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		w.claims <- c // buffered: an idle worker's is empty
		return
	}
	n := len(p.unused)
	w := p.unused[n-1]
	p.unused = p.unused[:n-1]
	p.started++
	p.a.wg.Go(func() { w.openWorker(p, c) })
}

// leave is told by a worker whose claim is due: the claim is no longer
// armed. The last one armed promotes an idle worker to the next request,
// so that someone always waits for it; with none idle, the schedule is
// vacant until a worker comes back.
func (p *openPool) leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed--
	if p.armed > 0 || p.over {
		return
	}
	if len(p.idle) == 0 && len(p.unused) == 0 {
		if p.started >= int(p.limit.Load())+p.spare {
			p.vacant = true
			return
		}
		p.unused = append(p.unused, p.newWorker()) // the limit rose
	}
	if c, ok := p.claimLocked(); ok {
		p.armLocked(c)
	}
}

// served is what a worker tells the pool of the request it is back from:
// its service time and whether it waited for a connection; sent is false
// for a request not sent (dropped), or before the first.
type served struct {
	sent, waited bool // waited: for a connection
	service      time.Duration
}

// back is told by a worker back from a request. It returns the worker's
// next claim: at once when one is due within armHorizon, nobody holds one,
// or the schedule was vacant; otherwise once an armed worker promotes it.
// False when the schedule is over.
func (p *openPool) back(w *worker, last served) (claim, bool) {
	p.mu.Lock()
	if p.over {
		p.mu.Unlock()
		return claim{}, false
	}
	now := p.a.since()
	if last.sent && p.sizer.observe(now, last.service, last.waited) {
		p.setLimitLocked(p.sizer.settle(now, p.a.sched.load().rate(now), int(p.limit.Load())))
	}
	if p.vacant {
		// Everything due since the last claim left waited for this worker.
		p.vacant, p.waitedUntil = false, now
	}
	if due, ok := p.a.sched.due(p.next); p.armed == 0 || !ok || due <= now+armHorizon {
		c, ok := p.claimDueLocked(due, ok)
		p.mu.Unlock()
		return c, ok
	}
	p.idle = append(p.idle, w)
	p.mu.Unlock()
	c, ok := <-w.claims
	return c, ok
}

// end stops the pool: the attack was cancelled.
func (p *openPool) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
}

// endLocked lets the idle workers go; busy ones end when they come back.
func (p *openPool) endLocked() {
	if p.over {
		return
	}
	p.over = true
	for _, w := range p.idle {
		close(w.claims)
	}
	p.idle = nil
}

// openWorker sends its claims, each at its due time and measured from it,
// until the schedule is over. A claim due while every connection has a
// request in flight waits for one and counts as having waited; one already
// later than the request timeout when it could leave is dropped and
// counted, not sent.
func (w *worker) openWorker(p *openPool, c claim) {
	a := w.a
	var last served
	for ok := true; ok; c, ok = p.back(w, last) {
		if !w.sleepUntil(c.due) {
			p.end()
			return
		}
		p.leave()
		asked := a.since()
		if !p.connection(&c) {
			p.end()
			return
		}
		if now := a.since(); now-c.due > a.timeout {
			p.release()
			a.rec.record(outcome{kind: a.reqs.pick(c.n), intended: c.due, sent: now, done: now, err: DroppedError, dropped: true, waited: true})
			last = served{}
			continue
		}
		o := w.send(a.reqs.pick(c.n), c.due)
		p.release()
		o.waited, o.split, o.conns = c.waited, true, int(p.limit.Load())
		o.connWait = max(o.sent-asked, 0) + max(c.taken-c.due, 0)
		a.rec.record(o)
		last = served{sent: true, waited: c.waited, service: o.done - o.sent}
	}
}

// connection takes a connection's token for claim c. When every connection
// has a request in flight it raises the limit if the offered rate needs
// more (grow), or else waits for one (c then waited); false when the
// attack is cancelled first.
func (p *openPool) connection(c *claim) bool {
	select {
	case p.conns <- struct{}{}:
		return true
	default:
	}
	if p.grow() {
		select {
		case p.conns <- struct{}{}:
			return true
		default:
		}
	}
	c.waited = true
	select {
	case p.conns <- struct{}{}:
		return true
	case <-p.a.ctx.Done():
		return false
	}
}
