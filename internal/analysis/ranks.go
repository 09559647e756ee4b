package analysis

import (
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/stats"
)

// rankedFigures are the figures a report ranks the subjects by, as seed
// 000 did: throughput, then latency, then errors.
var rankedFigures = []figure{figThroughput, figMean, figP50, figP99, figMax, figErrorRate}

// ranks orders the subjects by each ranked figure, best first. A figure
// every subject has the same value of (no errors anywhere) is left out.
func (a *analysis) ranks(subs []*scopeSubject) []bench.Rank {
	if len(subs) < 2 {
		return nil
	}
	var ranks []bench.Rank
	for _, f := range rankedFigures {
		if r, ok := a.rank(subs, f); ok {
			ranks = append(ranks, r)
		}
	}
	return ranks
}

func (a *analysis) rank(subs []*scopeSubject, f figure) (bench.Rank, bool) {
	order := slices.Clone(subs)
	slices.SortStableFunc(order, func(x, y *scopeSubject) int {
		vx, vy := x.values[f.name], y.values[f.name]
		if f.higherIsBetter {
			vx, vy = -vx, -vy
		}
		switch {
		case vx < vy:
			return -1
		case vx > vy:
			return 1
		}
		return 0
	})
	best, worst := order[0].values[f.name], order[len(order)-1].values[f.name]
	if best == worst {
		return bench.Rank{}, false
	}
	r := bench.Rank{Figure: f.name, Unit: f.unit, HigherIsBetter: f.higherIsBetter}
	for i, ss := range order {
		e := bench.RankEntry{Label: ss.s.info.Label, Place: i + 1, Value: ss.values[f.name]}
		if best != 0 {
			e.Relative = e.Value / best
		}
		if i > 0 {
			if v, sig, _ := a.verdict(order[i-1], ss, f); Tested(sig) {
				e.Same, e.VsAbove = v == bench.VerdictNoDifference, &sig
			}
		}
		r.Entries = append(r.Entries, e)
	}
	return r, true
}

// pairFigures are the figures a pair compares.
var pairFigures = []figure{figThroughput, figMean, figP50, figP99, figErrorRate}

// pairs compares the asked pairs (bench.AskedPairs) present in the scope,
// each target present once (two cases of one target make the pair
// ambiguous).
func (a *analysis) pairs(subs []*scopeSubject) []bench.Pair {
	var pairs []bench.Pair
	for _, p := range bench.AskedPairs {
		if x, y := onlyOf(subs, p.A), onlyOf(subs, p.B); x != nil && y != nil {
			pairs = append(pairs, a.pair(x, y))
		}
	}
	return append(pairs, a.variantPairs(subs)...)
}

// variantPairs compares, for each other target run in both thread models
// (a service of one's own as @platform and @virtual), its virtual threads
// relative to its platform threads.
func (a *analysis) variantPairs(subs []*scopeSubject) []bench.Pair {
	var pairs []bench.Pair
	var names []string
	for _, ss := range subs {
		if name := ss.s.targetName(); !slices.Contains(names, name) && !bench.InAskedPair(name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		x, y := onlyModel(subs, name, bench.ThreadModelVirtual), onlyModel(subs, name, bench.ThreadModelPlatform)
		if x != nil && y != nil {
			pairs = append(pairs, a.pair(x, y))
		}
	}
	return pairs
}

// onlyModel returns the one subject of the scope that runs target in a
// thread model (as its start recorded it), or nil when none or several do.
func onlyModel(subs []*scopeSubject, target, model string) *scopeSubject {
	var found *scopeSubject
	for _, ss := range subs {
		if ss.s.targetName() != target || len(ss.rounds) == 0 || ss.rounds[0].Settings["threadModel"] != model {
			continue
		}
		if found != nil {
			return nil
		}
		found = ss
	}
	return found
}

// pair compares x (A) with y (B) in the pair figures.
func (a *analysis) pair(x, y *scopeSubject) bench.Pair {
	pair := bench.Pair{A: x.s.info.Label, B: y.s.info.Label}
	for _, f := range pairFigures {
		if f.name == MetricErrorRate && x.values[f.name] == 0 && y.values[f.name] == 0 {
			continue
		}
		pair.Figures = append(pair.Figures, a.pairFigure(y, x, f))
	}
	return pair
}

// pairFigure compares head (A) with base (B) in one figure.
func (a *analysis) pairFigure(base, head *scopeSubject, f figure) bench.PairFigure {
	v, sig, change := a.verdict(base, head, f)
	pf := bench.PairFigure{Figure: f.name, Unit: f.unit, A: head.values[f.name], B: base.values[f.name],
		Change: change, HigherIsBetter: f.higherIsBetter, Verdict: v, Test: sig}
	if pf.B != 0 {
		pf.Ratio = pf.A / pf.B
	}
	pf.CVA, pf.CVB = runToRunCV(head, f), runToRunCV(base, f)
	return pf
}

// runToRunCV is the coefficient of variation of a subject's per-round
// values of f, or nil with one round.
func runToRunCV(ss *scopeSubject, f figure) *float64 {
	if cv, ok := stats.CV(perRound(ss.plains, f)); ok {
		return &cv
	}
	return nil
}

// onlyOf returns the one subject of the scope that runs target, or nil
// when none or several do.
func onlyOf(subs []*scopeSubject, target string) *scopeSubject {
	var found *scopeSubject
	for _, ss := range subs {
		if ss.s.targetName() != target {
			continue
		}
		if found != nil {
			return nil
		}
		found = ss
	}
	return found
}

// Tested reports whether a test had values enough on both sides to say
// anything: with one value a side, a rank test's p is 1 whatever they are.
func Tested(s bench.Significance) bool { return s.NA > 1 && s.NB > 1 }
