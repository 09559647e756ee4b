package analysis

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// findPool is the finding kind of a database connection pool's sentences.
const findPool = "pool"

// PoolStage is what a target's connection pool did over one stage, from
// its own series (HikariCP's, or the Go target's under the same names).
type PoolStage struct {
	Index      int // the stage's
	Label      string
	Size       float64 // connections the pool may hold
	Active     bench.Gauge
	Pending    bench.Gauge
	AcquireMs  float64
	Timeouts   float64
	Throughput float64 // the stage's successful requests per second
	// Bound is the throughput the pool allows, when it was full while
	// requests waited: its size over the time a request held a connection;
	// 0 when the pool did not bind.
	Bound    float64
	HeldMs   float64
	WaitedOf float64 // the share of requests in the pool's hands (holding or waiting) that waited
	// InFlight is the requests at the target on average (Little's law:
	// completed per second × mean latency); Elsewhere is those neither
	// holding a connection nor waiting for one: queued for a thread, on a
	// CPU, on the wire.
	InFlight, Elsewhere float64
	// DatabaseMs is a request's time in the database (its server's active
	// sessions over the requests per second: Little's law there); 0
	// without the server's figures. HeldMs beyond it is the service's own
	// time with a connection in hand.
	DatabaseMs float64
}

// Where requests wait, as PoolStage.Where names it.
const (
	WaitPool     = "the pool"     // waiting for a connection
	WaitDatabase = "the database" // holding one: the query and its round trip
	WaitThreads  = "the threads"  // neither: a thread, a CPU
)

// Where is where the stage's requests waited: for a connection where the
// pool bound them (full while requests waited: Bound), whatever queued
// before it (on a CPU the tests beside it saturated, 173 of 310 requests
// in flight were neither in the pool's hands nor waiting for it, while
// its 10 connections stayed busy and 127 waited); else where most
// requests in flight were: waiting for a connection, holding one, or
// neither.
func (p PoolStage) Where() string {
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

// PoolStages are a target's pool figures per measured stage, for the stages
// whose resources have any.
func PoolStages(t *bench.TargetResult) []PoolStage {
	byIndex := map[int]bench.StageResult{}
	for _, s := range MeasuredStages(t) {
		byIndex[s.Index] = s
	}
	var out []PoolStage
	for _, r := range t.Resources {
		s, ok := byIndex[r.Stage]
		if r.Warmup || !ok || len(r.Pool) == 0 {
			continue
		}
		p := poolStage(r, s)
		for _, d := range t.Database {
			if d.Stage == r.Stage && !d.Warmup && p.Throughput > 0 {
				p.DatabaseMs = d.Connections[bench.DatabaseActive].Mean / p.Throughput * 1000
			}
		}
		out = append(out, p)
	}
	return out
}

func poolStage(r bench.StageResources, s bench.StageResult) PoolStage {
	p := PoolStage{Index: s.Index, Label: StageLabel(s.Index, s.Name), Size: r.Pool[bench.PoolMax].Peak, Active: r.Pool[bench.PoolActive],
		Pending: r.Pool[bench.PoolPending], AcquireMs: r.PoolAcquireMs, Timeouts: r.PoolTimeouts, Throughput: s.Stats.Throughput}
	if held := p.Active.Mean + p.Pending.Mean; held > 0 {
		p.WaitedOf = p.Pending.Mean / held
	}
	if secs := s.Stats.Elapsed.D().Seconds(); secs > 0 {
		p.InFlight = float64(s.Stats.Completed) / secs * s.Stats.Latency.Mean / 1000
		p.Elsewhere = max(0, p.InFlight-p.Active.Mean-p.Pending.Mean)
	}
	if p.Throughput <= 0 {
		return p
	}
	// A request waiting means no connection was idle: while requests wait
	// on average, every connection is lent out, whatever a gauge sampled
	// (HikariCP refreshes its own at most once a second), and each is held
	// size ÷ throughput per request (Little's law). Else the mean active
	// connections say it.
	full := p.Size > 0 && p.Active.Peak >= p.Size && p.Pending.Mean >= 1
	if !full {
		p.HeldMs = p.Active.Mean / p.Throughput * 1000
		return p
	}
	p.HeldMs = p.Size / p.Throughput * 1000
	p.Bound = p.Size / (p.HeldMs / 1000)
	return p
}

// poolSentence says where a target's requests waited for a database
// connection, in the stage where most waited; empty when none did.
func poolSentence(label string, stages []PoolStage) string {
	if len(stages) == 0 {
		return ""
	}
	worst := slices.MaxFunc(stages, func(a, b PoolStage) int { return cmpFloat(a.Pending.Mean, b.Pending.Mean) })
	if worst.Pending.Peak < 1 && worst.Timeouts == 0 {
		return ""
	}
	s := fmt.Sprintf("%s, %s: %s of the requests in its pool's hands waited for one of its %.0f connections (%s waiting on average, %.0f at most; a connection took %.0f ms to get)",
		label, worst.Label, Percent(worst.WaitedOf), worst.Size, units.Num(worst.Pending.Mean), worst.Pending.Peak, worst.AcquireMs)
	if worst.Timeouts > 0 {
		s += fmt.Sprintf("; %.0f gave up waiting", worst.Timeouts)
	}
	if worst.Bound > 0 {
		s += fmt.Sprintf(". The pool is its bound: its %.0f connections were all lent out, each held %.1f ms per request", worst.Size, worst.HeldMs)
		if worst.DatabaseMs > 0 {
			s += fmt.Sprintf(" (%.1f ms of it in the database, %.1f in the service)", worst.DatabaseMs, max(0, worst.HeldMs-worst.DatabaseMs))
		}
		s += fmt.Sprintf(", which allows %.0f req/s", worst.Bound)
	}
	return s + "."
}

// poolFindings are the pool's sentences of every subject, first round.
func (a *analysis) poolFindings() []bench.Finding {
	var out []bench.Finding
	for _, s := range a.subjects {
		if len(s.rounds) == 0 {
			continue
		}
		tr := s.rounds[0]
		if st, ok := stageOf(tr, mattersStage(tr)); ok && firstCause(WhyStage(tr, st)) == bench.VerdictDBPoolBound {
			continue // the why says it, in the stage that matters
		}
		if text := poolSentence(s.info.Label, PoolStages(tr)); text != "" {
			out = append(out, bench.Finding{Kind: findPool, Text: text})
		}
	}
	return out
}

// DatabaseWaits says what a database stage's active sessions waited for,
// the most common first: "Timeout 9.8, CPU 0.2".
func DatabaseWaits(waits map[string]bench.Gauge) string {
	keys := slices.SortedFunc(maps.Keys(waits), func(a, b string) int {
		if c := cmpFloat(waits[b].Mean, waits[a].Mean); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+" "+units.Num(waits[k].Mean))
	}
	return units.OrDash(strings.Join(parts, ", "))
}

// stageOf returns a result's measured stage of an index.
func stageOf(tr *bench.TargetResult, index int) (bench.StageResult, bool) {
	for _, st := range MeasuredStages(tr) {
		if st.Index == index {
			return st, true
		}
	}
	return bench.StageResult{}, false
}

// firstCause is the kind of a diagnosis' strongest cause, "" for none.
func firstCause(d bench.Diagnosis) string {
	if len(d.Causes) == 0 {
		return ""
	}
	return d.Causes[0].Kind
}
