package load

import (
	"context"
	"net"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Session is one attack sent by another load engine and recorded by this
// package: the same schedule, request mix, recorder and generator
// self-watch as Engine's own attacks, so that every report, bound and flag
// reads the same whichever engine sent the requests. The other engine
// paces by Due (or keeps its clients busy in the closed model), picks
// requests by Pick, dials through Dial so that bytes are counted, and files
// each result with Record.
type Session struct {
	a      *attack
	parent context.Context
}

// SessionConfig is what the other engine tells the recorder about itself.
type SessionConfig struct {
	// Engine names it in each window's generator figures
	// (bench.Generator.Engine).
	Engine string
	// Connections is how many requests it may have in flight at most, 0
	// for the open model's own sizing (Session.Connections).
	Connections int
}

// NewSession lays out the plan's schedule and starts the attack clock; the
// other engine should start sending at once, and Run records until it is
// done.
func (e *Engine) NewSession(ctx context.Context, baseURL string, plan bench.Plan, obs bench.Observer, cfg SessionConfig) (*Session, error) {
	if err := checkPlan(plan); err != nil {
		return nil, err
	}
	a := planned(baseURL, plan, obs)
	sched := a.sched
	if sched.openEnd > 0 {
		a.workers = e.openConnections(plan, unmeasuredRest)
	}
	conns := cfg.Connections
	if conns <= 0 {
		conns = a.workers + a.clients
	}
	a.ctx, a.cancel = context.WithCancel(ctx)
	if err := a.startAt(plan.Start); err != nil {
		a.cancel()
		return nil, err
	}
	a.rec = newRecorder(plan, sched, a.reqs, obs, recorderConfig{
		maxErrors: e.maxErrors, bucket: e.bucket, open: bench.ModelOf(plan.Profile.Model).ScheduledLatency(),
		cpus: cpuSetSize(), connections: conns, wire: a.wire, apiRequests: e.apiRequests, engine: cfg.Engine,
	}, a.began)
	return &Session{a: a, parent: ctx}, nil
}

// Run calls send, which sends the whole plan and returns when every
// request has come back or its context is cancelled, and records
// meanwhile: it ticks seconds, samples the generator and tells the
// observer, as Engine.Run does. It returns what was measured and the
// context's error.
func (s *Session) Run(send func(ctx context.Context)) (*bench.AttackResult, error) {
	a, ctx := s.a, s.parent
	defer a.cancel()
	defer a.wire.closeAll()
	a.wg.Go(func() { send(a.ctx) })
	a.wait(ctx)
	res, err := a.rec.result()
	if err != nil {
		return nil, err
	}
	return res, ctx.Err()
}

// Since reads the attack clock: the time since the session began.
func (s *Session) Since() time.Duration { return s.a.since() }

// Due returns when the open model's request numbered k (from 0) should
// leave, on the attack clock; false when the open part of the schedule
// (the whole profile, or the fixed warm-up of a closed one) has no request
// k. It reads the schedule in force: once a warm-up until steady is cut,
// the requests after the cut are due in the first stage.
func (s *Session) Due(k uint64) (time.Duration, bool) {
	sc := s.a.sched.load()
	due, ok := sc.due(k)
	if !ok || due >= sc.openEnd {
		return 0, false
	}
	return due, true
}

// Rate returns the scheduled open rate at t on the attack clock.
func (s *Session) Rate(t time.Duration) float64 { return s.a.sched.load().rate(t) }

// OpenEnd is when the open part of the schedule ends at the latest: the
// profile's end in the open model, a fixed warm-up's in the closed one, 0
// when nothing is open. A warm-up until steady cut short moves the true
// end earlier, which Due knows.
func (s *Session) OpenEnd() time.Duration { return s.a.sched.openEnd }

// Connections is how many connections the open model sends from: the
// plan's, the engine's, or the estimate Engine uses for its own workers.
func (s *Session) Connections() int { return s.a.workers }

// Timeout is the workload's request timeout.
func (s *Session) Timeout() time.Duration { return s.a.timeout }

// Closed is a stage of a closed profile as the other engine sends it: a
// fixed number of clients from Start to End on the attack clock.
type Closed struct {
	Start, End  time.Duration
	Concurrency int
}

// ClosedStages returns the closed profile's stages on the attack clock,
// each holding its concurrency (a ramp reads as its final value; the
// caller refuses ramps it cannot send); a warm-up until steady of a closed
// profile comes first. They are the schedule in force: a warm-up until
// steady cut short moves its end and every later stage earlier, so a
// caller reads them again after each (or asks ClosedEnd).
func (s *Session) ClosedStages() []Closed {
	var out []Closed
	for _, seg := range s.a.sched.load().segs {
		if seg.closed {
			out = append(out, Closed{Start: seg.start, End: seg.end(), Concurrency: int(seg.to)})
		}
	}
	return out
}

// ClosedEnd is when closed stage i (of ClosedStages) ends by the schedule
// in force; it allocates nothing, for a pacer asking at every request.
func (s *Session) ClosedEnd(i int) time.Duration {
	n := 0
	for _, seg := range s.a.sched.load().segs {
		if seg.closed {
			if n == i {
				return seg.end()
			}
			n++
		}
	}
	return 0
}

// Request is one of the workload's requests as another engine sends it.
type Request struct {
	Kind   int // its index, for Outcome.Kind
	Method string
	URL    string
	Header map[string][]string
	Body   []byte
}

// Requests returns the workload's requests, by kind.
func (s *Session) Requests() []Request {
	reqs := make([]Request, s.a.reqs.kinds())
	for k := range reqs {
		r := s.a.reqs.reqs[k]
		reqs[k] = Request{Kind: k, Method: r.HTTPMethod(), URL: s.a.reqs.urls[k], Header: r.Header}
		if r.Body != "" {
			reqs[k].Body = []byte(r.Body)
		}
	}
	return reqs
}

// Pick returns the kind of the n-th request of the attack (from 0), by the
// mix's weights.
func (s *Session) Pick(n uint64) int { return s.a.reqs.pick(n) }

// Sending counts a closed-model request about to leave now, so that its
// second is not reported before it comes back.
func (s *Session) Sending() { s.a.rec.sending(s.a.since()) }

// Dial opens a connection whose bytes the generator's figures count, and
// which the session closes when the attack is over or cancelled.
func (s *Session) Dial(_ context.Context, _, addr string) (net.Conn, error) {
	return s.a.wire.dial(addr)
}

// Outcome is one request as the other engine saw it, on the attack clock.
type Outcome struct {
	Kind     int
	Intended time.Duration // when the schedule said it should leave; Sent in the closed model
	Sent     time.Duration // when the engine stamped it as sent
	Done     time.Duration
	Code     int // 0 without a response
	Err      string
	Body     []byte // read for a fan-out's account of its calls
	// AtSend says the engine measures latency from the actual send (as
	// vegeta does) rather than from the schedule; the send lag is kept
	// either way.
	AtSend bool
}

// Record files one outcome. A response's error is worded as Engine words
// it, whatever the other engine's client wrote.
func (s *Session) Record(o Outcome) {
	out := outcome{kind: o.Kind, intended: o.Intended, sent: o.Sent, done: o.Done, code: o.Code, err: o.Err,
		atSend: o.AtSend, bytesIn: int64(len(o.Body))}
	switch {
	case out.code > 0 && !s.a.reqs.reqs[o.Kind].Succeeded(out.code):
		out.err = statusText(out.code)
	case out.code > 0:
		out.err = ""
	}
	if s.a.reqs.fanout[o.Kind] && o.Code == 200 {
		var err error
		if out.fanout, err = readFanout(o.Body); err != nil {
			out.code, out.err = 0, "reading the response: "+err.Error()
		}
	}
	s.a.rec.record(out)
}

// At returns t on the attack clock.
func (s *Session) At(t time.Time) time.Duration { return t.Sub(s.a.began) }
