package capacity

import (
	"slices"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/merge"
)

// lost reports whether a pooled round can no longer pass, whatever the
// windows it has still to run measure: over the windows run, the requests
// that broke a term of the objective (answered later than a latency
// bound or not at all, failed, dropped) are already more than the term
// allows of every request the whole round will have sent, those of the
// windows to come counted as perfect. MLRsearch stops a load's trials
// once their outcome is decided (RFC 9971); a round of three 10 s windows
// that is lost after two spends 11 s less, which the budget gives to the
// rounds below it. Exact, not an estimate: a request over a bound is
// counted only where the histogram's bucket lies wholly above it.
func (s *search) lost(confirms []Step) bool {
	left := s.cfg.Confirmations - len(confirms)
	if !s.pooling() || len(confirms) == 0 || left <= 0 {
		return false
	}
	if slices.ContainsFunc(confirms, func(c Step) bool { return c.died != "" }) {
		return true // a window the target died in fails the pool
	}
	merged, ok := mergedRound(confirms)
	if !ok {
		return false
	}
	toCome := float64(left) * confirms[0].Rate * confirms[0].Duration.Seconds()
	total := float64(merged.Requests) + toCome
	for _, t := range s.cfg.Objective.Terms {
		if broken, ok := brokeTerm(merged, t); ok && broken > allowed(t, total) {
			return true
		}
	}
	return false
}

// mergedRound is a round's windows merged into one; false when they
// cannot be, or sent nothing.
func mergedRound(confirms []Step) (bench.Stats, bool) {
	stats := make([]bench.Stats, len(confirms))
	var elapsed time.Duration
	for i, c := range confirms {
		stats[i], elapsed = c.stats, elapsed+c.Duration
	}
	merged, err := merge.Stats(elapsed, stats...)
	return merged, err == nil && merged.Requests > 0
}

// overshoot is how far a failed round's pooled windows broke the
// objective: the most, over its terms, of the requests that broke a term
// against those it allows (2: twice as many broke p99<=300ms as the 1 %
// it allows); 0 when it cannot be read or no term allows a share.
func (s *search) overshoot(confirms []Step) float64 {
	merged, ok := mergedRound(confirms)
	if !ok {
		return 0
	}
	most := 0.0
	for _, t := range s.cfg.Objective.Terms {
		broken, ok := brokeTerm(merged, t)
		if allow := allowed(t, float64(merged.Requests)); ok && allow > 0 {
			most = max(most, broken/allow)
		}
	}
	return most
}

// allowed is how many of total requests a term lets break it.
func allowed(t bench.Term, total float64) float64 {
	if t.Metric.IsLatency() {
		return (1 - t.Metric.Quantile()) * total
	}
	return t.Max * total
}

// brokeTerm counts st's requests that broke term t: for a latency bound,
// those unanswered and those answered in a bucket wholly above it; for
// errors, the failed ones; for drops, the dropped. ok is false where the
// histogram cannot be read.
func brokeTerm(st bench.Stats, t bench.Term) (float64, bool) {
	switch {
	case t.Metric == bench.MetricDrops:
		return float64(st.Dropped), true
	case !t.Metric.IsLatency():
		return float64(st.Requests - st.Successes - st.Dropped), true
	}
	unanswered := float64(st.StatusCodes["0"])
	if st.Histogram == "" {
		return unanswered, true
	}
	h, err := hdr.Decode(st.Histogram)
	if err != nil {
		return 0, false
	}
	bound := int64(t.Max * 1000) // µs
	var over int64
	for _, bar := range h.Distribution() {
		if bar.From > bound {
			over += bar.Count
		}
	}
	return unanswered + float64(over), true
}
