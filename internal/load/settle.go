package load

import (
	"sync/atomic"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// A warm-up until steady is part of the attack it warms up: the same
// clients (closed model) or the same workers and connections (open) send
// it, and plan.Settled is asked after each of its full seconds whether the
// target has settled. When it has, the recorder cuts the warm-up at once:
// the timetable publishes a schedule whose warm-up ends now (an open one
// just after its next request due) and whose stages follow without a gap,
// and the recorder re-derives from it, under its lock, everything it
// derived from the warm-up's end (t0, the open model's expected counts,
// the observer's calls still to come). Nothing is
// cancelled or restarted: a request in flight across the cut comes back
// to the client that sent it, is filed as the warm-up's (it was sent in
// it), and its latency is real time, the attack clock never moving.

// warmSeconds are the seconds of a warm-up until steady, from the attack's
// start, each judged once every request sent in it has come back.
type warmSeconds struct {
	seconds []*second      // filled as requests come back, until judged
	sent    []atomic.Int64 // closed model: requests sent in each
	next    int            // the next second to judge
}

func newWarmSeconds(n int) *warmSeconds {
	return &warmSeconds{seconds: make([]*second, n), sent: make([]atomic.Int64, n)}
}

// index is the second of attack time t, or -1 past the warm-up's seconds.
func (ws *warmSeconds) index(t time.Duration, bucket time.Duration) int {
	if b := int(t / bucket); b >= 0 && b < len(ws.seconds) {
		return b
	}
	return -1
}

// sending counts a closed-model request leaving at t; it takes no lock.
func (ws *warmSeconds) sending(t, bucket time.Duration) {
	if b := ws.index(t, bucket); b >= 0 {
		ws.sent[b].Add(1)
	}
}

// add files a warm-up request by when it was scheduled to leave; under
// the recorder's lock. A second already judged takes nothing more.
func (ws *warmSeconds) add(o outcome, r *recorder) {
	if b := ws.index(o.intended, r.cfg.bucket); b >= ws.next {
		s := ws.live(b, r)
		s.add(o)
		s.recorded++
	}
}

// complete counts a success by when it came back; under the recorder's
// lock. Every request sent by the end of a second has come back when it
// is judged, so none of its successes comes later.
func (ws *warmSeconds) complete(done time.Duration, r *recorder) {
	if b := ws.index(done, r.cfg.bucket); b >= ws.next {
		ws.live(b, r).completed++
	}
}

func (ws *warmSeconds) live(b int, r *recorder) *second {
	if ws.seconds[b] == nil {
		ws.seconds[b] = &second{window: *r.newWindow()}
	}
	return ws.seconds[b]
}

// judgeWarmup returns a call to settle for each warm-up second complete by
// now, in order, while the warm-up has not been cut. Under the lock.
func (r *recorder) judgeWarmup(now time.Duration) []func() {
	ws := r.warmSecs
	if ws == nil || r.canceled || !r.sched.online() {
		return nil
	}
	var calls []func()
	for ws.next < len(ws.seconds) && r.warmComplete(ws.next, now) {
		b := r.warmSecond(ws.next)
		calls = append(calls, func() { r.settle(b) })
		ws.next++
	}
	return calls
}

// warmComplete says whether warm-up second b is over and every request
// sent in it has come back (the schedule's count in the open model, the
// sends counted in the closed one).
func (r *recorder) warmComplete(b int, now time.Duration) bool {
	start, end := time.Duration(b)*r.cfg.bucket, time.Duration(b+1)*r.cfg.bucket
	if now < end {
		return false
	}
	want := r.warmSecs.sent[b].Load()
	if r.cfg.open {
		sc := r.sched.load()
		want = int64(sc.firstDue(end) - sc.firstDue(start))
	}
	var recorded int64
	if s := r.warmSecs.seconds[b]; s != nil {
		recorded = s.recorded
	}
	return recorded >= want
}

// warmSecond summarises warm-up second b as a measured second is, and lets
// it go.
func (r *recorder) warmSecond(b int) bench.Bucket {
	s := r.warmSecs.live(b, r)
	r.warmSecs.seconds[b] = nil
	st := s.agg.stats(r.cfg.bucket, s.completed, 0, 0)
	st.CompletedSpread = s.spread
	return bench.Bucket{Second: b, Stage: warmupStage, Stats: st}
}

// settle asks plan.Settled about warm-up second b, outside the lock (it is
// one of tick's calls), and cuts the warm-up when the target has settled.
// The calls run one after the other on the attack's ticking goroutine, so
// none is asked once one has cut.
func (r *recorder) settle(b bench.Bucket) {
	if r.sched.online() && r.plan.Settled(b) {
		r.cut(time.Since(r.began))
	}
}

// cut ends the warm-up at now on the attack clock: the timetable publishes the schedule that follows
// and the recorder re-derives from it, under its lock, so that no outcome
// is filed by the old warm-up's end after the new one is in force.
func (r *recorder) cut(now time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.canceled {
		return
	}
	sc := r.sched.cut(now)
	if sc == nil {
		return // the warm-up reached its maximum meanwhile
	}
	r.t0 = r.began.Add(sc.warm)
	r.expected = r.expectedCounts()
	r.events = r.plannedEvents()[r.fired:]
}
