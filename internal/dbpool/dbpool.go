// Package dbpool is what a target's database connection pool did over a
// stage, from the pool's own gauges (HikariCP's, or the Go target's under
// the same names) and the stage's figures, by Little's law: how many
// requests waited for a connection, how long each connection was held,
// whether the pool was the bound and what it allowed. The why
// (diagnosis), the report's findings (analysis), the database table
// (report) and the db-pool experiment's sheet (builtin) all read it here.
package dbpool

import (
	"math"

	"github.com/threadbench/threadbench/internal/bench"
)

// Stage is what a target's connection pool did over one stage.
type Stage struct {
	Index      int     // the stage's
	Name       string  // the stage's
	Size       float64 // connections the pool may hold
	Active     bench.Gauge
	Pending    bench.Gauge
	AcquireMs  float64
	Timeouts   float64
	Throughput float64 // the stage's successful requests per second
	// Bound is the throughput the pool allows, when it was full while
	// requests waited (Full): its size over the time a request held a
	// connection; 0 when the pool did not bind.
	Bound float64
	// HeldMs is how long a request held a connection: by the pool's own
	// timer where it has one (HeldTimed), else by Little's law, size ÷
	// throughput where the pool was full (which counts the hand-overs in
	// it), the mean active connections ÷ throughput where not.
	HeldMs    float64
	HeldTimed bool
	// HandOverMs is, where the pool was full and its holds timed, how long
	// a connection lay between two holds, per request: given back, not yet
	// taken by the next (the waiter it was handed to has to wake and run
	// to take it). Size ÷ throughput is a hold and a hand-over.
	HandOverMs float64
	WaitedOf   float64 // the share of requests in the pool's hands (holding or waiting) that waited
	// InFlight is the requests at the target on average (Little's law:
	// completed per second × mean latency), at least those in the pool's
	// hands; Elsewhere is those neither holding a connection nor waiting
	// for one: queued for a thread, on a CPU, on the wire.
	InFlight, Elsewhere float64
	// DatabaseMs is a request's time in the database: where the server
	// times its statements, their mean time (bench.DatabaseStage.
	// StatementMs) times the statements a request makes (PerRequest);
	// else the active sessions it sampled over the requests per second,
	// Little's law there; 0 without the server's figures. HeldMs beyond
	// it is the service's own time with a connection in hand, and the
	// round trip.
	DatabaseMs float64
	// PerRequest is the statements a request made: the server's
	// statements per second over the requests per second, a whole number
	// where within wholeSlack of one; 0 where the server does not count
	// them.
	PerRequest float64
	// WakeDelayMs is how long a woken thread of the requests' kind waited
	// to run (bench.StageResources.WakeDelayMs): a connection's hold
	// takes one such wait when the database answers, and its hand-over
	// to a waiter another; 0 where the target has no probe.
	WakeDelayMs float64
}

// ServiceMs is a request's time with a connection in hand outside the
// database, in ms; 0 without the server's figures.
func (p Stage) ServiceMs() float64 {
	if p.DatabaseMs == 0 {
		return 0
	}
	return max(0, p.HeldMs-p.DatabaseMs)
}

// Where requests wait, as Stage.Where names it.
const (
	WaitPool     = "the pool"     // waiting for a connection
	WaitDatabase = "the database" // holding one: the query and its round trip
	WaitThreads  = "the threads"  // neither: a thread, a CPU
)

// Full reports whether the pool was the stage's bound: requests waited
// for a connection (a mean of at least one) with every connection lent
// out at some point. A request waiting means no connection was idle: while
// requests wait on average, every connection is lent out, whatever a
// gauge sampled (HikariCP refreshes its own at most once a second).
func (p Stage) Full() bool { return p.Size > 0 && p.Active.Peak >= p.Size && p.Pending.Mean >= 1 }

// Where is where the stage's requests waited: for a connection where the
// pool bound them (Full), whatever queued before it (on a CPU the tests
// beside it saturated, 173 of 310 requests in flight were neither in the
// pool's hands nor waiting for it, while its 10 connections stayed busy
// and 127 waited); else where most requests in flight were: waiting for a
// connection, holding one, or neither.
func (p Stage) Where() string {
	switch {
	case p.Bound > 0:
		return WaitPool
	case p.Pending.Mean >= p.Active.Mean && p.Pending.Mean >= p.Elsewhere:
		return WaitPool
	case p.Active.Mean >= p.Elsewhere:
		return WaitDatabase
	}
	return WaitThreads
}

// Stages are a target's pool figures per measured stage, for the stages
// whose resources have any.
func Stages(t *bench.TargetResult) []Stage {
	byIndex := map[int]bench.StageResult{}
	for _, s := range t.Stages {
		if !s.Warmup {
			byIndex[s.Index] = s
		}
	}
	var out []Stage
	for _, r := range t.Resources {
		s, ok := byIndex[r.Stage]
		if r.Warmup || !ok || len(r.Pool) == 0 {
			continue
		}
		var db *bench.DatabaseStage
		for i, d := range t.Database {
			if d.Stage == r.Stage && !d.Warmup {
				db = &t.Database[i]
			}
		}
		out = append(out, Of(r, s, db))
	}
	return out
}

// Of is the pool's figures over stage s, from its resources r and the
// database server's figures db over it (nil: none).
func Of(r bench.StageResources, s bench.StageResult, db *bench.DatabaseStage) Stage {
	p := Stage{Index: s.Index, Name: s.Name, Size: r.Pool[bench.PoolMax].Peak, Active: r.Pool[bench.PoolActive],
		Pending: r.Pool[bench.PoolPending], AcquireMs: r.PoolAcquireMs, Timeouts: r.PoolTimeouts, Throughput: s.Stats.Throughput,
		WakeDelayMs: r.WakeDelayMs}
	held := p.Active.Mean + p.Pending.Mean
	if held > 0 {
		p.WaitedOf = p.Pending.Mean / held
	}
	if secs := s.Stats.Elapsed.D().Seconds(); secs > 0 {
		p.InFlight = float64(s.Stats.Completed) / secs * s.Stats.Latency.Mean / 1000
	}
	p.InFlight = max(p.InFlight, held)
	p.Elsewhere = p.InFlight - held
	if p.Throughput <= 0 {
		return p
	}
	switch {
	case db != nil && db.StatementMs() > 0:
		p.PerRequest = statementsPerRequest(db.StatementsPerSec / p.Throughput)
		p.DatabaseMs = db.StatementMs() * p.PerRequest
	case db != nil:
		// Its active sessions, sampled once a second: good to about 8 %
		// (95.8 ms in the database for a query that sleeps 100).
		p.DatabaseMs = db.Connections[bench.DatabaseActive].Mean / p.Throughput * 1000
	}
	// Full, each connection goes round once per size ÷ throughput
	// (Little's law): a hold and a hand-over; else the mean active
	// connections say the hold. The pool's own timer, where it has one,
	// times the hold itself, which the gauges, read once a second, only
	// sample (a stage of 97 ms holds by the active connections' mean for a
	// query that sleeps 100 ms).
	cycle := p.Size / p.Throughput * 1000
	switch {
	case r.PoolUsageMs > 0:
		p.HeldMs, p.HeldTimed = r.PoolUsageMs, true
	case p.Full():
		p.HeldMs = cycle
	default:
		p.HeldMs = p.Active.Mean / p.Throughput * 1000
	}
	if !p.Full() {
		return p
	}
	p.Bound = p.Size / (p.HeldMs / 1000)
	p.HandOverMs = max(0, cycle-p.HeldMs) // 0 where the hold is the cycle itself
	return p
}

// wholeSlack is how far the server's statements per request may be from a
// whole number and still be read as it. The two rates are counted in two
// windows, the server's between its reads and the load's over the stage:
// on a CPU the suite saturated, requests that each made one 100 ms
// statement read 1.12 statements a request (114.8 ms in the database
// beside a hold of 102.2 ms).
const wholeSlack = 0.15

// statementsPerRequest is ratio, the server's statements over the load's
// requests, as the whole number it is near (within wholeSlack of it, at
// least 1), else as it is: a request that makes a fixed set of statements
// makes a whole number of them.
func statementsPerRequest(ratio float64) float64 {
	whole := math.Round(ratio)
	if whole >= 1 && math.Abs(ratio-whole) <= wholeSlack*whole {
		return whole
	}
	return ratio
}

// WaitingShare is the share of the requests in flight that waited for a
// connection, at most 1.
func (p Stage) WaitingShare() float64 {
	if p.InFlight <= 0 {
		return 0
	}
	return min(p.Pending.Mean/p.InFlight, 1)
}
