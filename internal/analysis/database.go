package analysis

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/dbpool"
	"github.com/threadbench/threadbench/internal/units"
)

// findPool is the finding kind of a database connection pool's sentences.
const findPool = "pool"

// poolSentence says where a target's requests waited for a database
// connection, in the stage where most waited; empty when none did.
func poolSentence(label string, stages []dbpool.Stage) string {
	if len(stages) == 0 {
		return ""
	}
	worst := slices.MaxFunc(stages, func(a, b dbpool.Stage) int { return cmpFloat(a.Pending.Mean, b.Pending.Mean) })
	if worst.Pending.Peak < 1 && worst.Timeouts == 0 {
		return ""
	}
	s := fmt.Sprintf("%s, %s: %s of the requests in its pool's hands waited for one of its %.0f connections (%s waiting on average, %.0f at most; a connection took %.0f ms to get)",
		label, StageLabel(worst.Index, worst.Name), units.Percent(worst.WaitedOf), worst.Size, units.Num(worst.Pending.Mean), worst.Pending.Peak, worst.AcquireMs)
	if worst.Timeouts > 0 {
		s += fmt.Sprintf("; %.0f gave up waiting", worst.Timeouts)
	}
	if worst.Bound > 0 {
		s += fmt.Sprintf(". The pool is its bound: its %.0f connections were all lent out, each held %.1f ms per request", worst.Size, worst.HeldMs)
		if worst.DatabaseMs > 0 {
			s += fmt.Sprintf(" (%.1f ms of it in the database, %.1f in the service)", worst.DatabaseMs, max(0, worst.HeldMs-worst.DatabaseMs))
		}
		if worst.HandOverMs > 0 {
			s += fmt.Sprintf(", and handed over to the next in %.1f ms", worst.HandOverMs)
		}
		s += fmt.Sprintf(", which allows %.0f req/s", worst.Size/(worst.HeldMs+worst.HandOverMs)*1000)
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
		if text := poolSentence(s.info.Label, dbpool.Stages(tr)); text != "" {
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
