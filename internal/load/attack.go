package load

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
)

// Engine runs attacks. One Engine may run any number of attacks, one after
// the other or at once; each Run has its own connections unless WithClient
// shares a client.
type Engine struct {
	client      *http.Client
	maxErrors   int
	maxInFlight int
	bucket      time.Duration
}

// Option configures an Engine.
type Option func(*Engine)

// WithClient makes every attack use c's transport and redirect policy
// (its Timeout is replaced by the workload's). The default is a fresh
// keep-alive transport per Run.
func WithClient(c *http.Client) Option { return func(e *Engine) { e.client = c } }

// WithMaxErrors caps the distinct error messages kept per stage, second and
// total (DefaultMaxErrors); the rest are counted as OtherErrors.
func WithMaxErrors(n int) Option { return func(e *Engine) { e.maxErrors = n } }

// WithMaxInFlight caps the requests waiting for the target at once (default
// DefaultMaxInFlight(), and never below a closed profile's concurrency).
// Requests due beyond it are dropped and counted as failed; see DroppedPrefix.
func WithMaxInFlight(n int) Option { return func(e *Engine) { e.maxInFlight = n } }

// WithBucket sets the width of the per-second buckets (1s). Bucket.Second
// is then the bucket's index.
func WithBucket(d time.Duration) Option {
	return func(e *Engine) {
		if d > 0 {
			e.bucket = d
		}
	}
}

// NewEngine returns an Engine with the options applied.
func NewEngine(opts ...Option) *Engine {
	e := &Engine{maxErrors: DefaultMaxErrors, bucket: time.Second}
	for _, opt := range opts {
		opt(e)
	}
	return e
}

// Run attacks baseURL with the plan: the warm-up, then every stage, as ONE
// vegeta attack paced by the schedule (see gate), so connections and
// workers carry over from stage to stage without gaps. It returns when the
// profile is over, or within a second of ctx being cancelled, with what was
// measured so far and ctx's error.
func (e *Engine) Run(ctx context.Context, baseURL string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	if err := checkPlan(plan); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	client, closeIdle := e.httpClient(runCtx, plan)
	defer closeIdle()

	sched := newSchedule(plan.Profile, plan.Warmup)
	began := time.Now()
	t0 := began.Add(sched.warm)
	tgt := newTargeter(baseURL, plan.Workload, t0, e.bucket)
	c := newCollector(plan, sched, obs, began, e, tgt)
	g := &gate{sched: sched, began: began, ctx: runCtx, completed: &c.completed, wake: c.wake}
	attacker := vegeta.NewAttacker(
		vegeta.Client(client),
		vegeta.MaxBody(0), // bodies are counted by the transport, never kept
		vegeta.MaxWorkers(math.MaxUint64),
	)
	results := attacker.Attack(tgt.target, g, 0, "")
	c.collect(ctx, results, attacker)
	return c.result(), ctx.Err()
}

// checkPlan refuses a plan the engine cannot run. bench.Prepare checks far
// more; this only keeps a plan built by hand from dividing by zero.
func checkPlan(p bench.Plan) error {
	switch {
	case len(p.Profile.Stages) == 0:
		return bench.FieldErrorf("profile.stages", "a profile needs at least one stage")
	case len(p.Workload.Requests) == 0:
		return bench.FieldErrorf("workload.requests", "a workload needs at least one request")
	case p.Profile.Model != bench.ModelOpen && p.Profile.Model != bench.ModelClosed:
		return bench.FieldErrorf("profile.model", "must be %q or %q, got %q", bench.ModelOpen, bench.ModelClosed, p.Profile.Model)
	}
	for i, st := range p.Profile.Stages {
		if st.Duration <= 0 {
			return bench.FieldErrorf(fmt.Sprintf("profile.stages[%d].duration", i), "must be positive, got %s", st.Duration)
		}
	}
	return nil
}

// httpClient returns the client all requests of a run share, and a function
// that closes its idle connections when the run is over.
func (e *Engine) httpClient(ctx context.Context, plan bench.Plan) (*http.Client, func()) {
	base, closeIdle := e.client, func() {}
	if base == nil {
		own := newTransport(max(vegeta.DefaultConnections, maxConcurrency(plan.Profile)))
		base, closeIdle = &http.Client{Transport: own}, own.CloseIdleConnections
	}
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	limit := e.maxInFlight
	if limit <= 0 {
		limit = DefaultMaxInFlight()
	}
	c.Transport = &transport{base: rt, ctx: ctx, limit: int64(max(limit, maxConcurrency(plan.Profile)))}
	c.Timeout = plan.Workload.Timeout.D()
	if c.Timeout <= 0 {
		c.Timeout = bench.DefaultTimeout.D()
	}
	return &c, closeIdle
}

func maxConcurrency(p bench.Profile) int {
	n := 0
	for _, st := range p.Stages {
		n = max(n, st.Concurrency)
	}
	return n
}

// maxPacerSleep is the longest wait the gate leaves to vegeta, which sleeps
// without looking at the context; longer waits happen inside Pace, where a
// cancelled run cuts them short.
const maxPacerSleep = 50 * time.Millisecond

// gate is the vegeta.Pacer of a run. In the open part of the schedule it
// sends each request when it is due (schedule.due), whether or not earlier
// ones have answered. In the closed part it lets a request go whenever fewer
// than the stage's concurrency are in flight (requests sent minus results
// collected), so one attack with unbounded workers behaves as N clients that
// each send their next request as soon as the previous one answers, and a
// change of concurrency takes effect at once, with no drain between stages.
type gate struct {
	sched     *schedule
	began     time.Time
	ctx       context.Context
	completed *atomic.Uint64 // results collected, warm-up included
	wake      chan struct{}  // a result was collected
	timer     *time.Timer
}

// Pace implements vegeta.Pacer. It ignores vegeta's elapsed and uses the
// run's own clock, so that pacing and result classification share t0.
func (g *gate) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	for {
		now := time.Since(g.began)
		if g.ctx.Err() != nil || now >= g.sched.end {
			return 0, true
		}
		var until time.Duration
		closed := now >= g.sched.openEnd
		if !closed {
			due, ok := g.sched.due(hits)
			switch {
			case ok && due < g.sched.openEnd && due-now <= maxPacerSleep:
				return max(due-now, 0), false
			case ok && due < g.sched.openEnd:
				until = due
			default: // no open request left: on to the closed part, or the end
				until = g.sched.openEnd
			}
		} else {
			seg := g.sched.at(now)
			inFlight := int64(hits) - int64(g.completed.Load())
			if inFlight < int64(seg.concurrencyAt(now)) {
				return 0, false
			}
			until = seg.nextChange(now)
		}
		if !g.sleepUntil(until, closed) {
			return 0, true
		}
	}
}

// sleepUntil waits until the attack clock reads until, a result comes back
// (when onResult), or the run is cancelled (false).
func (g *gate) sleepUntil(until time.Duration, onResult bool) bool {
	d := until - time.Since(g.began)
	if g.timer == nil {
		g.timer = time.NewTimer(d)
	} else {
		g.timer.Reset(d)
	}
	wake := g.wake
	if !onResult {
		wake = nil
	}
	select {
	case <-g.ctx.Done():
		return false
	case <-g.timer.C:
	case <-wake:
	}
	return true
}

// Rate implements vegeta.Pacer: the scheduled open rate.
func (g *gate) Rate(elapsed time.Duration) float64 { return g.sched.rate(elapsed) }
