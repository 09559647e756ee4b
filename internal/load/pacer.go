package load

import (
	"runtime"
	"sync"
	"time"
)

// job is one open-model request handed to a worker: its number in the
// schedule, when it is due, and whether it waited for a connection.
type job struct {
	n      uint64
	due    time.Duration
	waited bool
}

// openPool holds the open model's workers, each with one connection at
// most: all made before the clock starts, each started when the schedule
// first needs it. Idle ones wait on a stack, so that the one back last
// sends next: a steady rate is carried by the few workers (and
// connections) it keeps busy, warm in the caches, not by every one in
// turn, and a target is not handed thousands of connections it has no use
// for.
type openPool struct {
	a *attack

	mu      sync.Mutex
	idle    []*worker
	unused  []*worker     // made, not started yet
	started []*worker     // whose goroutines run
	waiting bool          // the pacer waits for a worker to come back
	freed   chan struct{} // tells the waiting pacer one did
}

// newOpenPool makes n workers.
func newOpenPool(a *attack, n int) *openPool {
	p := &openPool{a: a, freed: make(chan struct{}, 1)}
	for range n {
		w := a.newWorker()
		w.jobs = make(chan job, 1)
		p.unused = append(p.unused, w)
	}
	return p
}

// get returns an idle worker, or a new one while there are fewer than max,
// or waits for one to come back; waited says it had to. It returns nil
// when the attack is cancelled first.
func (p *openPool) get() (w *worker, waited bool) {
	for {
		if w := p.take(); w != nil {
			return w, waited
		}
		waited = true
		select {
		case <-p.freed:
		case <-p.a.ctx.Done():
			return nil, waited
		}
	}
}

// take pops an idle worker or starts another; nil when all are busy, and
// the next put then tells the pacer.
func (p *openPool) take() *worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return w
	}
	n := len(p.unused)
	if n == 0 {
		p.waiting = true
		return nil
	}
	w := p.unused[n-1]
	p.unused = p.unused[:n-1]
	p.started = append(p.started, w)
	p.a.wg.Go(func() { w.openWorker(p) })
	return w
}

// put returns a worker to the stack.
func (p *openPool) put(w *worker) {
	p.mu.Lock()
	p.idle = append(p.idle, w)
	wake := p.waiting
	p.waiting = false
	p.mu.Unlock()
	if wake {
		select {
		case p.freed <- struct{}{}:
		default:
		}
	}
}

// close ends every worker once it has sent what it was given.
func (p *openPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.started {
		close(w.jobs)
	}
}

// pace walks the open part of the schedule: it waits for each request's
// time, then hands the request to a worker. When every worker is busy the
// request waits for one, and its latency, measured from its scheduled
// time, says so (as wrk2 measures); one already later than the request
// timeout by then is dropped and counted. One goroutine and one timer keep
// time for the whole pool, and when it wakes late it hands out everything
// due at once.
func (a *attack) pace(pool *openPool) {
	defer pool.close()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var waitedUntil time.Duration // when the pacer last got a worker after waiting for one
	for n := uint64(0); ; n++ {
		due, ok := a.sched.due(n)
		if !ok || due >= a.sched.openEnd || !a.sleepOn(timer, due) {
			return
		}
		w, waited := pool.get()
		if w == nil {
			return
		}
		// A request due while the pacer waited for a worker queued behind
		// that wait, even when the worker it gets came back with others.
		if waited {
			waitedUntil = a.since()
		}
		waited = waited || due < waitedUntil
		if now := a.since(); now-due > a.timeout {
			pool.put(w)
			a.rec.record(outcome{kind: a.reqs.pick(n), intended: due, sent: now, done: now, err: DroppedError, dropped: true, waited: true})
			continue
		}
		w.jobs <- job{n: n, due: due, waited: waited}
	}
}

// sleepOn waits on timer until the attack clock reads t, or reports false
// when the attack is cancelled first. Already late, it lets the workers it
// handed requests to run first: a pacer that kept the CPU while behind
// would fall further behind, every request finding every worker busy.
func (a *attack) sleepOn(timer *time.Timer, t time.Duration) bool {
	d := t - a.since()
	if d <= 0 {
		runtime.Gosched()
		return a.ctx.Err() == nil
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-a.ctx.Done():
		timer.Stop()
		return false
	}
}
