// Package vegeta sends attacks with vegeta's attacker (tsenart/vegeta's
// lib.Attacker) instead of threadbench's own workers, recorded by package
// load exactly as load's own attacks are: the same schedule, windows,
// histograms, per-second buckets and generator self-watch. It also writes
// results files in vegeta's encodings, and is chosen by a profile's
// engine: vegeta.
//
// What differs, and why load stays the default: vegeta's attacker stamps a
// request's time when a worker picks it up, so the latency it measures
// runs from the actual send, and a generator that sends late shows only in
// the send lag (which the recorder keeps and flags), not in the latency;
// and it reached 0.58x of wrk's requests per second on one CPU where load
// reaches 0.90x. The open model's requests leave on load's schedule (a
// vegeta Pacer over it, holds and linear ramps alike); a closed stage is
// an attack of its own with as many workers as the stage's concurrency
// and no pacing, each worker sending its next request when the previous
// one answers (stages of one concurrency in a row, a warm-up until steady
// and the stage it warms up among them, share one attack). A closed ramp or an iteration cannot be said that way and
// spec.Prepare refuses them for this engine.
package vegeta

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
)

// Engine runs attacks with vegeta's attacker, recorded by a load.Engine.
type Engine struct {
	rec *load.Engine
}

var _ bench.Attacker = (*Engine)(nil)

// NewEngine returns an Engine recorded by rec (its options apply: bucket
// width, error cap, connections, the API's request count).
func NewEngine(rec *load.Engine) *Engine { return &Engine{rec: rec} }

// attackName is the Attack field of every result, and vegeta's
// X-Vegeta-Attack header.
const attackName = "threadbench"

// resultReaders is how many goroutines file vegeta's results.
const resultReaders = 4

// maxResponseBody bounds what one response may carry, as load's client does.
const maxResponseBody = 16 << 20

// Run attacks baseURL with the plan: the warm-up and the open profile as
// one vegeta attack paced by the schedule, or each stage of a closed
// profile as an attack of its own. It returns, like load.Engine.Run, when
// the profile is over and every request has come back, or within a moment
// of ctx being cancelled, with what was measured so far and ctx's error.
func (e *Engine) Run(ctx context.Context, baseURL string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	if err := checkPlan(plan); err != nil {
		return nil, err
	}
	s, err := e.rec.NewSession(ctx, baseURL, plan, obs, load.SessionConfig{Engine: bench.LoadEngineVegeta})
	if err != nil {
		return nil, err
	}
	return s.Run(func(ctx context.Context) { newSender(s).send(ctx) })
}

// checkPlan refuses what vegeta's attacker cannot send; spec.Prepare says
// the same for a spec, this keeps a plan built by hand honest.
func checkPlan(p bench.Plan) error {
	spec := bench.RunSpec{Profile: p.Profile, Workload: p.Workload}
	spec.Profile.Engine = bench.LoadEngineVegeta
	return bench.CheckLoadEngine(&spec)
}

// sender is one Run's vegeta attacks.
type sender struct {
	s      *load.Session
	client *http.Client
	reqs   []load.Request
	kinds  map[string]int // by method and URL, to tell a result's request
}

func newSender(s *load.Session) *sender {
	conns := 0
	for _, c := range s.ClosedStages() {
		conns = max(conns, c.Concurrency)
	}
	conns = max(conns, s.Connections())
	// Keep-alive connections, at most conns of them (vegeta's default is
	// unbounded), no proxy, no compression and no redirects, as load's
	// client: bytes are what the target wrote.
	transport := &http.Transport{
		DialContext:         s.Dial,
		MaxConnsPerHost:     conns,
		MaxIdleConnsPerHost: conns,
		DisableCompression:  true,
		IdleConnTimeout:     90 * time.Second,
	}
	client := &http.Client{Transport: transport, Timeout: s.Timeout(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	sn := &sender{s: s, client: client, reqs: s.Requests(), kinds: map[string]int{}}
	for _, r := range sn.reqs {
		if _, dup := sn.kinds[r.Method+" "+r.URL]; !dup {
			sn.kinds[r.Method+" "+r.URL] = r.Kind
		}
	}
	return sn
}

// send sends the open part of the schedule, then the closed stages each at
// its time, and returns when all have come back or ctx is cancelled.
// Consecutive closed stages of one concurrency are one vegeta attack, whose
// workers carry on from one to the next as load's own clients do: so a
// warm-up until steady at the first stage's whole load and that stage are
// sent by the same workers, nothing drained or restarted when the warm-up
// settles. At another concurrency (warmup.fraction) the stage is a new
// attack: vegeta's workers are fixed for an attack, so the warm-up's finish
// their requests and the stage's start then, on the same connections.
func (sn *sender) send(ctx context.Context) {
	if sn.s.OpenEnd() > 0 {
		workers := uint64(sn.s.Connections())
		sn.attack(ctx, schedulePacer{sn.s}, workers, false)
	}
	for i := 0; ; {
		// Read again each time: a warm-up until steady moves every stage
		// after it when it settles.
		stages := sn.s.ClosedStages()
		if i >= len(stages) {
			return
		}
		last := i
		for last+1 < len(stages) && stages[last+1].Concurrency == stages[i].Concurrency {
			last++
		}
		if !sleepUntil(ctx, sn.s, stages[i].Start) {
			return
		}
		if stages[i].Concurrency > 0 {
			sn.attack(ctx, holdPacer{s: sn.s, stage: last}, uint64(stages[i].Concurrency), true)
		}
		i = last + 1
	}
}

// attack runs one vegeta attack with a fixed set of workers and files its
// results as they come back.
func (sn *sender) attack(ctx context.Context, p vegeta.Pacer, workers uint64, closed bool) {
	atk := vegeta.NewAttacker(vegeta.Client(sn.client), vegeta.Workers(workers), vegeta.MaxWorkers(workers),
		vegeta.MaxBody(maxResponseBody))
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	results := atk.Attack(sn.targeter(closed), p, 0, attackName)
	// vegeta's workers hand each result over an unbuffered channel before
	// taking the next tick: several readers keep one that is descheduled
	// from holding every worker, and with them the pacer.
	var readers sync.WaitGroup
	for range resultReaders {
		readers.Go(func() {
			for res := range results {
				sn.s.Record(sn.outcome(res, closed))
			}
		})
	}
	readers.Wait()
}

// targeter hands vegeta's workers the workload's requests in the mix's
// order.
func (sn *sender) targeter(closed bool) vegeta.Targeter {
	var n atomic.Uint64
	return func(t *vegeta.Target) error {
		r := sn.reqs[sn.s.Pick(n.Add(1)-1)]
		t.Method, t.URL, t.Header, t.Body = r.Method, r.URL, r.Header, r.Body
		if closed {
			sn.s.Sending()
		}
		return nil
	}
}

// outcome is a vegeta result on the session's clock. An open request was
// due at its sequence number's place in the schedule (vegeta numbers its
// hits in the order workers take them, so each number is due once and the
// recorder's per-second counts match the schedule's); vegeta's latency
// runs from its timestamp, the actual send.
func (sn *sender) outcome(res *vegeta.Result, closed bool) load.Outcome {
	sent := sn.s.At(res.Timestamp)
	o := load.Outcome{Kind: sn.kinds[res.Method+" "+res.URL], Intended: sent, Sent: sent, Done: sent + res.Latency,
		Code: int(res.Code), Err: res.Error, Body: res.Body, AtSend: true}
	if res.Code == 0 && strings.Contains(res.Error, "Client.Timeout exceeded") {
		o.Err = "timeout: no response within " + sn.client.Timeout.String() // as load words it
	}
	if !closed {
		if due, ok := sn.s.Due(res.Seq); ok {
			o.Intended = due
		}
	}
	return o
}

// sleepUntil waits until the attack clock reads t, or reports false when
// ctx is cancelled first.
func sleepUntil(ctx context.Context, s *load.Session, t time.Duration) bool {
	d := t - s.Since()
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
