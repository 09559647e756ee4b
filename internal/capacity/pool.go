package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/merge"
	"github.com/threadbench/threadbench/internal/units"
)

// pool judges the objective over confirmations pooled: their latency
// histograms merged exactly (as a swarm's generators' are) and each
// percentile taken over their time together, which must be at least the
// goal duration; a window the target died in fails the pool. Nil when a
// window measured latencies without a histogram to merge.
func (s *search) pool(confirms []Step) *bench.CapacityPooled {
	if len(confirms) == 0 {
		return nil
	}
	p := &bench.CapacityPooled{Windows: len(confirms), Held: passes(confirms)}
	stats := make([]bench.Stats, len(confirms))
	var died []string
	for i, c := range confirms {
		if c.stats.Histogram == "" && c.stats.Latency != (bench.Latency{}) {
			return nil
		}
		stats[i] = c.stats
		p.Duration += bench.Duration(c.Duration)
		if c.died != "" {
			died = append(died, "the target died: "+c.died)
		}
	}
	merged, err := merge.Stats(p.Duration.D(), stats...)
	if err != nil {
		p.Violations = []string{"the windows could not be pooled: " + err.Error()}
		return p
	}
	merged = everyRequest(merged)
	p.P99 = merged.Latency.P99
	for _, v := range s.cfg.Objective.Check(merged) {
		p.Violations = append(p.Violations, v.String())
	}
	p.Violations = append(p.Violations, died...)
	if p.Duration.D() < s.cfg.goal() {
		p.Violations = append(p.Violations, fmt.Sprintf("%s pooled, short of the %s goal", p.Duration, s.cfg.goal()))
	}
	p.Pass = len(p.Violations) == 0
	return p
}

// pooledThroughput is what confirmations served over their time
// together, req/s.
func pooledThroughput(confirms []Step) float64 {
	var served, secs float64
	for _, c := range confirms {
		served += c.Throughput * c.Duration.Seconds()
		secs += c.Duration.Seconds()
	}
	if secs == 0 {
		return 0
	}
	return served / secs
}

// unconfirmed answers a search whose budget ended before any rate was
// confirmed, after some rate passed: never 0 after a pass. The answer is
// the highest rate that passed a trial below every rate a whole round
// failed at (and below a round the budget cut that had not passed as far
// as it went, see cutPassed), with its evidence: the cut
// round's windows when it is their rate, else the trial that passed. It
// is said to be unconfirmed, a lower confidence. Nil when the stop was
// neither the budget's nor the load generator's (whose limit is no rate
// of the target's: the answer stays below it), or nothing passed below
// those rates. cut is the round
// the budget ended, if one.
func (s *search) unconfirmed(st *stopped, cut []Step) *Result {
	why := map[Stop]string{StopBudget: "the time budget ended", StopGenerator: "the load generator became the limit"}[st.stop]
	if why == "" {
		return nil
	}
	ceiling := math.Inf(1)
	for _, step := range s.steps {
		if step.GeneratorBound != "" && !s.passedAt(step.Rate) {
			ceiling = min(ceiling, step.Rate) // its figures say nothing of the target, unless asked again it passed
		}
	}
	for _, r := range s.failed {
		ceiling = min(ceiling, r)
	}
	cutPool := s.pool(cut)
	if len(cut) > 0 && !s.cutPassed(cut, cutPool) {
		ceiling = min(ceiling, cut[0].Rate)
	}
	var best *Step
	for i, step := range s.steps {
		if step.Pass && step.Rate < ceiling && (best == nil || step.Rate > best.Rate) {
			best = &s.steps[i]
		}
	}
	if best == nil {
		return nil
	}
	res := &Result{Rate: best.Rate, Confirmations: []Step{*best}, Stop: st.stop, Reason: st.reason}
	res.Unconfirmed = fmt.Sprintf("passed a %s %s trial once, not confirmed: %s", best.Duration, best.Phase, why)
	if len(cut) > 0 && cut[0].Rate == best.Rate {
		res.Confirmations, res.Pooled = cut, cutPool
		res.Unconfirmed = s.cutWords(cut, cutPool)
	}
	if res.Failed = s.lowestFailureAbove(best.Rate); res.Failed != nil {
		res.Width = (res.Failed.Rate - res.Rate) / res.Failed.Rate
	}
	return res
}

// passedAt reports whether a trial at rate passed.
func (s *search) passedAt(rate float64) bool {
	return slices.ContainsFunc(s.steps, func(st Step) bool { return st.Pass && st.Rate == rate })
}

// cutPassed reports whether a round the budget cut passed as far as it
// went: pooled, its windows together met the objective (short of the
// goal); window by window, one of them passed.
func (s *search) cutPassed(cut []Step, p *bench.CapacityPooled) bool {
	if s.pooling() && p != nil {
		return passesObjective(p)
	}
	return passes(cut) > 0
}

// passesObjective reports whether a pool met the objective, whatever its
// length: a round cut short of its goal.
func passesObjective(p *bench.CapacityPooled) bool {
	for _, v := range p.Violations {
		if !strings.Contains(v, "short of the") {
			return false
		}
	}
	return true
}

// cutWords says what a round the budget cut showed of its rate.
func (s *search) cutWords(cut []Step, p *bench.CapacityPooled) string {
	held := fmt.Sprintf("%d of %d windows held", passes(cut), len(cut))
	if p != nil {
		held += fmt.Sprintf("; pooled p99 %s over %s of the %s goal", units.Ms(p.P99), p.Duration, s.cfg.goal())
	}
	return fmt.Sprintf("passed, not confirmed: the time budget ended its round (%s)", held)
}

// lowestFailureAbove is the lowest rate above rate that failed a trial
// (a generator-bound one says nothing of the target); nil when none did.
func (s *search) lowestFailureAbove(rate float64) *Step {
	var low *Step
	for i, step := range s.steps {
		if !step.Pass && step.GeneratorBound == "" && step.Disturbed == "" && step.Rate > rate && (low == nil || step.Rate < low.Rate) {
			low = &s.steps[i]
		}
	}
	return low
}
