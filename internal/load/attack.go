package load

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/threadbench/threadbench/internal/bench"
)

// Engine runs attacks. One Engine may run any number of attacks, one after
// the other or at once; each has its own connections.
type Engine struct {
	maxErrors   int
	bucket      time.Duration
	connections int
	apiRequests func() int64
	transport   fasthttp.RoundTripper // tests: answers without the network
}

// Option configures an Engine.
type Option func(*Engine)

// WithMaxErrors caps the distinct error messages kept per window
// (DefaultMaxErrors); the rest are counted as OtherErrors.
func WithMaxErrors(n int) Option { return func(e *Engine) { e.maxErrors = n } }

// WithConnections sets how many connections (workers) the open model uses,
// overriding the plan's and the engine's estimate.
func WithConnections(n int) Option { return func(e *Engine) { e.connections = n } }

// WithAPIRequests gives the engine a counter of the requests the daemon's
// API serves, so that each window says how much API work shared the
// generator's CPUs (bench.FlagDisturbed).
func WithAPIRequests(count func() int64) Option { return func(e *Engine) { e.apiRequests = count } }

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

var _ bench.Attacker = (*Engine)(nil)

// tickEvery is how often the recorder closes seconds and samples.
const tickEvery = 50 * time.Millisecond

// Run attacks baseURL with the plan: the warm-up, then every stage, without
// gaps between them. A warm-up until steady ends when plan.Settled says so
// (or at its maximum) and the profile starts then, sent by the same clients
// or workers. The open model's requests leave on the schedule from a
// bounded set of connections, each measured from the time it should have
// left; the closed model's clients each send their next request when the
// previous one answers. Run returns when the profile is over and every
// request has come back, or within a moment of ctx being cancelled, with
// what was measured so far and ctx's error.
func (e *Engine) Run(ctx context.Context, baseURL string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	if err := checkPlan(plan); err != nil {
		return nil, err
	}
	a, err := e.newAttack(ctx, baseURL, plan, obs)
	if err != nil {
		return nil, err
	}
	defer a.cancel()
	defer a.wire.closeAll()
	a.start()
	a.wait(ctx)
	res, err := a.rec.result()
	if err != nil {
		return nil, err
	}
	return res, ctx.Err()
}

// attack is one Run in progress.
type attack struct {
	ctx     context.Context
	cancel  context.CancelFunc
	plan    bench.Plan
	sched   *timetable
	reqs    *requestSet
	rec     *recorder
	obs     bench.Observer
	client  *fasthttp.HostClient
	wire    *wire
	began   time.Time
	timeout time.Duration
	workers int       // open model: the connections (workers) it starts with
	clients int       // closed model
	pool    []*worker // the closed model's clients, made before the clock starts
	open    *openPool // the open model's workers, made before the clock starts
	seeded  uint64    // workers made, for their think-time seeds
	wg      sync.WaitGroup
}

// planned lays out an attack of the plan: its schedule, requests (numbered
// across the generators when the plan is a share), timeout and clients.
func planned(baseURL string, plan bench.Plan, obs bench.Observer) *attack {
	a := &attack{plan: plan, sched: newTimetable(plan), reqs: newRequestSet(baseURL, plan.Workload), obs: obs,
		timeout: plan.Workload.Timeout.D(), clients: maxConcurrency(plan.Profile), wire: newWire()}
	a.reqs.share = plan.Share
	if a.timeout <= 0 {
		a.timeout = bench.DefaultTimeout.D()
	}
	return a
}

func (e *Engine) newAttack(ctx context.Context, baseURL string, plan bench.Plan, obs bench.Observer) (*attack, error) {
	a := planned(baseURL, plan, obs)
	sched := a.sched
	client, err := newClient(baseURL, a.clients, a.timeout, a.wire)
	if err != nil {
		return nil, err
	}
	a.client = client
	if e.transport != nil {
		client.Transport = e.transport
	}
	var sz sizing
	if sched.openEnd > 0 {
		// Before the clock, as the workers are made.
		sz = executionOf(plan.Profile.Model).sizing(e, plan, restLatency(a.wire.probe(client.Addr)))
		a.workers = firstConnections(sz, sched.load())
		client.MaxConns += sz.cap
		a.wire.prime(client.Addr, a.workers)
	}
	a.ctx, a.cancel = context.WithCancel(ctx)
	if a.workers > 0 {
		a.open = newOpenPool(a, sz, a.workers, peakRate(plan))
	}
	for range a.clients {
		a.pool = append(a.pool, a.newWorker())
	}
	if err := a.startAt(plan.Start); err != nil {
		a.cancel()
		a.wire.closeAll() // the connections primed
		return nil, err
	}
	a.rec = newRecorder(plan, sched, a.reqs, obs, recorderConfig{
		maxErrors: e.maxErrors, bucket: e.bucket, open: bench.ModelOf(plan.Profile.Model).ScheduledLatency(),
		cpus: cpuSetSize(), connections: a.workers + a.clients, wire: a.wire, apiRequests: e.apiRequests,
	}, a.began)
	return a, nil
}

// openSizing bounds the open model's connections: the engine's setting or
// the plan's, fixed; else at most MaxConnections, the limit following what
// the attack measures (sizing.go), from the slowest request's expected
// latency (rest beyond what it sleeps) until it has measured.
func (e *Engine) openSizing(plan bench.Plan, rest time.Duration) sizing {
	switch {
	case e.connections > 0:
		return sizing{fixed: true, cap: e.connections}
	case plan.Profile.Connections > 0:
		return sizing{fixed: true, cap: plan.Profile.Connections}
	}
	return sizing{cap: MaxConnections(), prior: expectedLatency(plan.Workload, rest)}
}

// firstConnections is the open model's limit as the clock starts, and the
// connections opened before it (wire.prime): what the highest rate due
// while primed connections are kept (primedMaxAge) needs at the prior.
func firstConnections(sz sizing, sched *schedule) int {
	return newConnSizer(sz).need(peakRateWithin(sched, primedMaxAge))
}

// openConnections is how many connections an engine that cannot follow a
// measurement sends the open model from (vegeta's, through a Session: its
// workers are fixed for the attack): the engine's setting, the plan's, or
// enough for the highest rate at the slowest request's expected latency
// (rest beyond what it sleeps) twice over plus minConnections, within
// MaxConnections.
func (e *Engine) openConnections(plan bench.Plan, rest time.Duration) int {
	switch {
	case e.connections > 0:
		return e.connections
	case plan.Profile.Connections > 0:
		return plan.Profile.Connections
	}
	need := peakRate(plan) * expectedLatency(plan.Workload, rest).Seconds() * 2
	return min(max(int(need)+minConnections, minConnections), MaxConnections())
}

// Beyond what it sleeps, a request takes unmeasuredRest when the network
// was not measured, else two handshake round trips and at least minRest.
// The guess of 10 ms sized ~2,000 connections for 96,000 req/s of a local
// target that answers in 0.2 ms: a backlog then handed the target all of
// them at once, which it served slower than a few (the Go target on one
// CPU, a busy machine: service time p99 35-125 ms with 1,184 connections,
// 8-20 ms with 256), so that the backlog never cleared.
const (
	unmeasuredRest = 10 * time.Millisecond
	minRest        = 2 * time.Millisecond
)

// restLatency is the rest of a request's latency on a network whose
// handshake took rtt (0: not measured).
func restLatency(rtt time.Duration) time.Duration {
	if rtt <= 0 {
		return unmeasuredRest
	}
	return max(minRest, 2*rtt)
}

// peakRate is the highest open rate of the plan, the warm-up's included.
func peakRate(plan bench.Plan) float64 {
	return max(plan.Warmup.Rate, stagesPeak(plan.Profile))
}

// stagesPeak is the highest rate of the profile's stages.
func stagesPeak(p bench.Profile) float64 {
	var rate float64
	for _, st := range p.Stages {
		rate = max(rate, st.Rate)
	}
	return rate
}

// minConnections is the fewest connections openConnections gives.
const minConnections = 64

// expectedLatency guesses the slowest request's latency from its duration
// parameter: what it sleeps plus rest.
func expectedLatency(w bench.Workload, rest time.Duration) time.Duration {
	slowest := rest
	for _, r := range w.Requests {
		var ms int
		if _, err := fmt.Sscan(r.Params["duration"], &ms); err == nil {
			slowest = max(slowest, time.Duration(ms)*time.Millisecond+rest)
		}
	}
	return slowest
}

// checkPlan refuses a plan the engine cannot run. spec.Prepare checks far
// more; this only keeps a plan built by hand from dividing by zero.
func checkPlan(p bench.Plan) error {
	switch {
	case len(p.Profile.Stages) == 0:
		return bench.FieldErrorf("profile.stages", "a profile needs at least one stage")
	case len(p.Workload.Requests) == 0 && len(p.Workload.Iteration) == 0:
		return bench.FieldErrorf("workload.requests", "a workload needs at least one request")
	case p.Profile.Model == "":
		return bench.FieldErrorf("profile.model", "a plan names its model")
	}
	if _, ok := bench.LookupModel(p.Profile.Model); !ok {
		return bench.FieldErrorf("profile.model", "unknown load model %q", p.Profile.Model)
	}
	for i, st := range p.Profile.Stages {
		if st.Duration <= 0 {
			return bench.FieldErrorf(fmt.Sprintf("profile.stages[%d].duration", i), "must be positive, got %s", st.Duration)
		}
	}
	if w := p.Warmup; w.UntilSteady && !w.Disabled && w.MaxDuration <= 0 {
		return bench.FieldErrorf("warmup.maxDuration", "a warm-up until steady needs a positive maximum, got %s", w.MaxDuration)
	}
	return nil
}

func maxConcurrency(p bench.Profile) int {
	x := executionOf(p.Model)
	n := 0
	for _, st := range p.Stages {
		n = max(n, x.clients(st))
	}
	return n
}

// since is the attack clock.
func (a *attack) since() time.Duration { return time.Since(a.began) }

// startAt starts the attack clock: now, or when start, asked now that
// the attack is prepared, says. An attack whose start has passed by then,
// or that is cancelled while it waits, fails without sending anything.
func (a *attack) startAt(start func(context.Context) (time.Time, error)) error {
	if start == nil {
		a.began = time.Now()
		return nil
	}
	at, err := start(a.ctx)
	if err != nil {
		return err
	}
	if late := time.Since(at); late > 0 {
		return bench.Errorf(bench.EUNAVAILABLE, "the load generator was told to start %s ago: it could not start in time", late.Round(time.Millisecond))
	}
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
	case <-a.ctx.Done():
		return a.ctx.Err()
	}
	a.began = at
	return nil
}

// start arms the open model's first worker, which starts others as the
// schedule needs them, and starts the closed model's clients.
func (a *attack) start() {
	if a.open != nil {
		a.open.start()
	}
	var sends claimCounter
	for i, w := range a.pool {
		a.wg.Go(func() { w.closedClient(i, &sends) })
	}
}

// wait ticks the recorder until every worker has returned, stopping the
// count at once when ctx is cancelled, then makes the final tick.
func (a *attack) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	ticker := time.NewTicker(tickEvery)
	defer ticker.Stop()
	cancelled := ctx.Done()
	for {
		select {
		case <-done:
			// The last request may come back before the schedule ends; the
			// windows still run to the end, and are sampled there.
			finished := a.sleepUntil(a.sched.load().end)
			a.rec.stop(a.since(), !finished)
			a.fire(a.rec.tick(a.since(), true))
			return
		case <-cancelled:
			cancelled = nil
			a.rec.stop(a.since(), true)
			a.cancel()
			a.wire.closeAll() // answers in flight come back at once, as errors not counted
		case <-ticker.C:
			a.fire(a.rec.tick(a.since(), false))
		}
	}
}

// sleepUntil waits until the attack clock reads t, ticking the recorder,
// or reports false when ctx is cancelled first.
func (a *attack) sleepUntil(t time.Duration) bool {
	for a.since() < t {
		select {
		case <-a.ctx.Done():
			return false
		case <-time.After(min(tickEvery, t-a.since())):
			a.fire(a.rec.tick(a.since(), false))
		}
	}
	return true
}

func (a *attack) fire(calls []func()) {
	for _, call := range calls {
		call()
	}
}
