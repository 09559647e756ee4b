package load

import (
	"context"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
)

// collector reads an attack's results in the goroutine that called Run,
// files each by its send time (warm-up, stage, second), reports progress to
// the Observer on time, and builds the Result. Nothing it keeps grows with
// the number of requests, only with the number of seconds.
type collector struct {
	plan      bench.Plan
	sched     *schedule
	obs       bench.Observer
	began, t0 time.Time
	maxErrors int
	tgt       *targeter

	completed atomic.Uint64 // results collected; read by the gate
	wake      chan struct{} // tells the gate a result was collected

	warm     *Aggregate
	stages   []*Aggregate // created as their first result arrives
	total    *Aggregate
	seconds  *seconds
	events   []event
	canceled bool
	stopped  time.Time // when results stopped counting
}

// event is an Observer call due at a point of the attack clock.
type event struct {
	at   time.Duration // from the attack's start
	fire func()
}

func newCollector(plan bench.Plan, sched *schedule, obs bench.Observer, began time.Time, e *Engine, tgt *targeter) *collector {
	c := &collector{
		plan: plan, sched: sched, obs: obs, began: began, t0: began.Add(sched.warm),
		maxErrors: e.maxErrors, tgt: tgt, wake: make(chan struct{}, 1),
		stages: make([]*Aggregate, len(plan.Profile.Stages)), total: NewAggregate(e.maxErrors),
	}
	c.seconds = newSeconds(c, e.bucket)
	if sched.warm > 0 {
		c.warm = NewAggregate(e.maxErrors)
	}
	c.events = c.plannedEvents()
	return c
}

// plannedEvents lists the Observer calls in time order: the warm-up's
// start, t0, then each stage's start.
func (c *collector) plannedEvents() []event {
	var evs []event
	if c.warm != nil && c.obs.Stage != nil {
		w := c.warmupResult()
		evs = append(evs, event{0, func() { c.obs.Stage(w) }})
	}
	if c.obs.Start != nil {
		evs = append(evs, event{c.sched.warm, func() { c.obs.Start(c.t0) }})
	}
	for i := range c.plan.Profile.Stages {
		if c.obs.Stage == nil {
			break
		}
		s := c.stageResult(i)
		evs = append(evs, event{c.sched.warm + s.StartOffset.D(), func() { c.obs.Stage(s) }})
	}
	return evs
}

// housekeeping is the longest the collector goes without looking at the
// clock, so that a second whose requests all came back is reported even if
// no further result arrives.
const housekeeping = 250 * time.Millisecond

// collect reads results until the attack ends. When ctx is cancelled it
// stops the attack, stops counting and drains what is left.
func (c *collector) collect(ctx context.Context, results <-chan *vegeta.Result, attacker *vegeta.Attacker) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	done := ctx.Done()
	for {
		select {
		case r, ok := <-results:
			if !ok {
				c.finish()
				return
			}
			c.completed.Add(1)
			select {
			case c.wake <- struct{}{}:
			default:
			}
			if !c.canceled {
				c.add(r)
				c.seconds.close(time.Now(), false)
			}
		case now := <-timer.C:
			c.tick(now)
			timer.Reset(c.nextTick(time.Now()))
		case <-done:
			done, c.canceled, c.stopped = nil, true, time.Now()
			attacker.Stop()
		}
	}
}

func (c *collector) tick(now time.Time) {
	if c.canceled {
		return
	}
	for len(c.events) > 0 && now.Sub(c.began) >= c.events[0].at {
		ev := c.events[0]
		c.events = c.events[1:]
		ev.fire()
	}
	c.seconds.close(now, false)
}

// nextTick returns how long to wait for the next event or second boundary.
func (c *collector) nextTick(now time.Time) time.Duration {
	wait := housekeeping
	if len(c.events) > 0 {
		wait = min(wait, c.events[0].at-now.Sub(c.began))
	}
	wait = min(wait, c.seconds.nextEnd().Sub(now))
	return max(wait, time.Millisecond)
}

// add files one result by its send time.
func (c *collector) add(r *vegeta.Result) {
	off := r.Timestamp.Sub(c.t0)
	c.seconds.add(r, off)
	if off < 0 {
		if c.warm != nil {
			c.warm.Add(r)
		}
		return
	}
	i := c.stageAt(off)
	if c.stages[i] == nil {
		c.stages[i] = NewAggregate(c.maxErrors)
	}
	c.stages[i].Add(r)
	c.total.Add(r)
}

// stageAt returns the profile stage running at off from t0; a request sent
// a hair after the end counts in the last stage.
func (c *collector) stageAt(off time.Duration) int {
	if seg := c.sched.at(c.sched.warm + off); seg != nil && seg.stage >= 0 {
		return seg.stage
	}
	if off < 0 {
		return 0
	}
	return len(c.plan.Profile.Stages) - 1
}

func (c *collector) finish() {
	now := time.Now()
	if !c.canceled {
		c.tick(now)
		c.stopped = now
	}
	c.seconds.close(now, true)
}

// measured returns how much of the profile ran: all of it, or up to the
// cancellation.
func (c *collector) measured() time.Duration {
	if !c.canceled {
		return c.sched.end - c.sched.warm
	}
	return min(max(c.stopped.Sub(c.t0), 0), c.sched.end-c.sched.warm)
}

func (c *collector) warmupResult() bench.StageResult {
	return bench.StageResult{
		Index: warmupStage, Name: "warm-up", Model: bench.ModelOpen, Warmup: true,
		StartOffset: bench.Duration(-c.sched.warm), Duration: bench.Duration(c.sched.warm),
		Rate: c.plan.Warmup.Rate,
	}
}

// stageResult returns stage i as planned, without Stats.
func (c *collector) stageResult(i int) bench.StageResult {
	st := c.plan.Profile.Stages[i]
	seg := c.sched.segs[i]
	if c.sched.warm > 0 {
		seg = c.sched.segs[i+1]
	}
	r := bench.StageResult{
		Index: i, Name: st.Name, Model: c.plan.Profile.Model,
		StartOffset: bench.Duration(seg.start - c.sched.warm), Duration: st.Duration,
	}
	if r.Model == bench.ModelClosed {
		r.Concurrency = st.Concurrency
	} else {
		r.Rate = st.Rate
	}
	return r
}

// result builds the Result from what was collected.
func (c *collector) result() *bench.AttackResult {
	res := &bench.AttackResult{T0: c.t0, Seconds: c.seconds.done}
	if c.warm != nil {
		w := c.warmupResult()
		elapsed := min(c.stopped.Sub(c.began), c.sched.warm)
		w.Stats = c.statsWithHistogram(c.warm, elapsed)
		res.Warmup = &w
	}
	measured := c.measured()
	for i := range c.plan.Profile.Stages {
		s := c.stageResult(i)
		if s.StartOffset.D() >= measured {
			break
		}
		agg := c.stages[i]
		if agg == nil {
			agg = NewAggregate(c.maxErrors)
		}
		s.Stats = c.statsWithHistogram(agg, min(s.Duration.D(), measured-s.StartOffset.D()))
		res.Stages = append(res.Stages, s)
	}
	res.Total = c.statsWithHistogram(c.total, measured)
	return res
}

func (c *collector) statsWithHistogram(a *Aggregate, elapsed time.Duration) bench.Stats {
	st := a.Stats(elapsed)
	st.Histogram, _ = a.EncodedHistogram() // encoding into memory does not fail
	return st
}
