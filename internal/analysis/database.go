package analysis

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// findPool is the finding kind of a database connection pool's sentences.
const findPool = "pool"

// PoolStage is what a target's connection pool did over one stage, from
// its own series (HikariCP's, or the Go target's under the same names).
type PoolStage struct {
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
		out = append(out, poolStage(r, s))
	}
	return out
}

func poolStage(r bench.StageResources, s bench.StageResult) PoolStage {
	p := PoolStage{Label: StageLabel(s.Index, s.Name), Size: r.Pool[bench.PoolMax].Peak, Active: r.Pool[bench.PoolActive],
		Pending: r.Pool[bench.PoolPending], AcquireMs: r.PoolAcquireMs, Timeouts: r.PoolTimeouts, Throughput: s.Stats.Throughput}
	if held := p.Active.Mean + p.Pending.Mean; held > 0 {
		p.WaitedOf = p.Pending.Mean / held
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
		label, worst.Label, Percent(worst.WaitedOf), worst.Size, Num(worst.Pending.Mean), worst.Pending.Peak, worst.AcquireMs)
	if worst.Timeouts > 0 {
		s += fmt.Sprintf("; %.0f gave up waiting", worst.Timeouts)
	}
	if worst.Bound > 0 {
		s += fmt.Sprintf(". The pool is its bound: its %.0f connections were all lent out, each held %.1f ms per request, which allows %.0f req/s",
			worst.Size, worst.HeldMs, worst.Bound)
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
		if text := poolSentence(s.info.Label, PoolStages(s.rounds[0])); text != "" {
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
		parts = append(parts, k+" "+Num(waits[k].Mean))
	}
	return OrDash(strings.Join(parts, ", "))
}
