package analysis

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/stats"
)

// scopeSubject is one subject in one scope: a window per round that
// measured the scope, and the figures the report shows.
type scopeSubject struct {
	s       *subject
	rounds  []*bench.TargetResult // the rounds the windows come from
	windows []window
	plains  []Plain
	values  map[string]float64 // each request figure's reported value, by name
	result  bench.SubjectResult
	// failed are the rounds' error shares (0..1) past the analysis's
	// maxErrors: no verdict is drawn from the subject in the scope.
	failed []float64
}

// requestFigures are the figures every scope reports for every subject.
var requestFigures = []figure{figThroughput, figErrorRate, figMin, figMean, figP50, figP90, figP95, figP99, figP999, figMax}

// subjectIn returns the subject's figures in a scope, or nil when no round
// of it measured the scope.
func (a *analysis) subjectIn(s *subject, sc scopeDef) *scopeSubject {
	ss := &scopeSubject{s: s, values: map[string]float64{}}
	for _, t := range s.rounds {
		w, ok := windowOf(t, sc, a.stages)
		if !ok {
			continue
		}
		ss.rounds, ss.windows = append(ss.rounds, t), append(ss.windows, w)
		p := PlainOf(w.stats, w.hists)
		if p.storedLatency && w.stats.Successes > 0 {
			a.notes.add(escape(s.info.Label)+": no latency histogram for %s; stored percentiles used", sc.name)
		}
		if w.wholeLat {
			a.notes.add(escape(s.info.Label)+": its seconds kept no latency histogram; latency in %s is the whole stage's, transient included", sc.name)
		}
		ss.plains = append(ss.plains, p)
		if share := p.ErrorRate / 100; share > a.maxErrors {
			ss.failed = append(ss.failed, share)
		}
	}
	if len(ss.windows) == 0 {
		return nil
	}
	ss.result = bench.SubjectResult{Label: s.info.Label, Figures: a.figures(ss.plains, ss.steady(), ss.values),
		Requests: a.perRequest(ss), Resources: a.resources(ss), Flags: ss.flags(), Steady: ss.steadyParts()}
	return ss
}

// steadyParts says, round by round, which part of a hold stage the
// figures come from; nil where no round has one.
func (ss *scopeSubject) steadyParts() []bench.SteadyPart {
	var out []bench.SteadyPart
	for i, w := range ss.windows {
		if w.part == nil {
			continue
		}
		sp := bench.SteadyPart{Round: ss.rounds[i].Round, Seconds: w.part.Seconds, Cut: w.part.Start, CutEnd: w.part.EndCut,
			Steady: w.part.Steady}
		if !w.part.Steady {
			sp.Figure, sp.Trend = w.part.Figure, w.part.Trend
		}
		out = append(out, sp)
	}
	return out
}

// notSteady returns the hold stages of any round with no steady part: a
// subject with any is left out of the scope's ranks and pairs.
func (ss *scopeSubject) notSteady() []string {
	var out []string
	for _, w := range ss.windows {
		for _, name := range w.notSteady {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// judgedSubjects are the subjects of a scope a verdict may be drawn
// from: steady, and failing no more of their requests than allowed.
func judgedSubjects(subs []*scopeSubject) []*scopeSubject {
	var out []*scopeSubject
	for _, ss := range subs {
		if len(ss.notSteady()) == 0 && len(ss.failed) == 0 {
			out = append(out, ss)
		}
	}
	return out
}

// steady is the steady part the within-run intervals rest on: the one
// round's, or nil with several rounds (their intervals are over rounds).
func (ss *scopeSubject) steady() []bench.Bucket {
	if len(ss.windows) != 1 {
		return nil
	}
	return ss.windows[0].steady
}

// figures estimates every request figure over the rounds; values, when not
// nil, receives each figure's value by name.
func (a *analysis) figures(plains []Plain, steady []bench.Bucket, values map[string]float64) bench.Figures {
	var f bench.Figures
	for _, p := range plains {
		f.Requests += p.Requests
		f.Completed += p.Completed
		f.Errors += p.Errors
		f.BytesIn += p.BytesIn
		f.BytesOut += p.BytesOut
	}
	into := map[string]*bench.Estimate{
		figThroughput.name: &f.Throughput, figErrorRate.name: &f.ErrorRate,
		figMin.name: &f.Latency.Min, figMean.name: &f.Latency.Mean, figP50.name: &f.Latency.P50,
		figP90.name: &f.Latency.P90, figP95.name: &f.Latency.P95, figP99.name: &f.Latency.P99,
		figP999.name: &f.Latency.P999, figMax.name: &f.Latency.Max,
	}
	for _, fig := range requestFigures {
		*into[fig.name] = a.est.estimate(perRound(plains, fig), steady, fig.perSecond)
		if values != nil {
			values[fig.name] = into[fig.name].Value
		}
	}
	return f
}

func perRound(plains []Plain, f figure) []float64 {
	values := make([]float64, len(plains))
	for i, p := range plains {
		values[i] = f.of(p)
	}
	return values
}

// perRequest returns the figures of each request of a mixed workload, in
// the order the first round lists them; nil for a workload of one request.
func (a *analysis) perRequest(ss *scopeSubject) []bench.RequestFigures {
	var names []string
	byName := map[string][]Plain{}
	for _, w := range ss.windows {
		for _, ns := range w.requests {
			if !slices.Contains(names, ns.Name) {
				names = append(names, ns.Name)
			}
			byName[ns.Name] = append(byName[ns.Name], RequestPlain(ns))
		}
	}
	if len(names) < 2 {
		return nil
	}
	out := make([]bench.RequestFigures, len(names))
	for i, name := range names {
		out[i] = bench.RequestFigures{Name: name, Figures: a.figures(byName[name], nil, nil)}
		if slices.ContainsFunc(byName[name], func(p Plain) bool { return p.answered }) {
			a.notes.addOnce("Per request, throughput counts the requests of each kind answered among those sent in the " +
				"window, per second: this run was recorded before completions were counted per request.")
		}
	}
	return out
}

// resources estimates the resource figures over the rounds that recorded
// them.
func (a *analysis) resources(ss *scopeSubject) *bench.ResourceFigures {
	var sums []ResourceSummary
	for _, w := range ss.windows {
		if w.hasRes {
			sums = append(sums, w.resources)
		}
	}
	if len(sums) == 0 {
		return nil
	}
	rf := &bench.ResourceFigures{Threads: map[string]bench.Estimate{}, MemoryMiB: map[string]bench.Estimate{}}
	for _, kind := range KindsOf(nil, bench.ThreadKinds, ThreadsOf, sums...) {
		rf.Threads[kind] = a.est.estimate(resourceValues(sums, func(s ResourceSummary) float64 { return s.Threads[kind] }), nil, nil)
	}
	for _, kind := range KindsOf(nil, bench.MemoryKinds, MemoryOf, sums...) {
		rf.MemoryMiB[kind] = a.est.estimate(resourceValues(sums, func(s ResourceSummary) float64 { return s.MemoryMiB[kind] }), nil, nil)
	}
	rf.CPUSecondsPer1k = a.optionalEstimate(sums, func(s ResourceSummary) float64 { return s.CPUPer1k })
	rf.GCPauses = a.optionalEstimate(sums, func(s ResourceSummary) float64 { return s.GCPauses })
	rf.GCPauseSeconds = a.optionalEstimate(sums, func(s ResourceSummary) float64 { return s.GCPauseSeconds })
	return rf
}

func resourceValues(sums []ResourceSummary, pick func(ResourceSummary) float64) []float64 {
	values := make([]float64, len(sums))
	for i, s := range sums {
		values[i] = pick(s)
	}
	return values
}

// optionalEstimate is nil when no round recorded the figure.
func (a *analysis) optionalEstimate(sums []ResourceSummary, pick func(ResourceSummary) float64) *bench.Estimate {
	values := resourceValues(sums, pick)
	if slices.Max(values) == 0 {
		return nil
	}
	e := a.est.estimate(values, nil, nil)
	return &e
}

// flags returns the flags of every round, naming the round when there are
// several.
func (ss *scopeSubject) flags() []bench.Flag {
	var out []bench.Flag
	for i, w := range ss.windows {
		for _, f := range w.flags {
			if len(ss.s.rounds) > 1 {
				f.Reason = "round " + itoa(ss.rounds[i].Round+1) + ": " + f.Reason
			}
			out = append(out, f)
		}
	}
	return out
}

// samples returns the values a test of figure f rests on: one per round,
// or the batch means of the first round's per-second values (its steady
// part when it has one). nil when there are too few.
func (ss *scopeSubject) samples(f figure, kind string) []float64 {
	if kind == samplesRounds {
		return perRound(ss.plains, f)
	}
	if f.perSecond == nil {
		return nil
	}
	w := ss.windows[0]
	seconds := w.steady
	if seconds == nil {
		seconds = w.seconds
	}
	values := secondValues(seconds, f.perSecond)
	if len(values) < stats.MinBatches {
		return nil
	}
	return batched(values, batchCount(len(values)))
}

// samplesKind is what a test of two subjects rests on: rounds when both
// have two or more, else within-run batch means.
func samplesKind(a, b *scopeSubject) string {
	if len(a.plains) >= 2 && len(b.plains) >= 2 {
		return samplesRounds
	}
	return samplesWithinRun
}

// verdict says whether head is better or worse than base in figure f:
// significant at the report's alpha (stats.Verdict) and at least the
// minimum effect apart in the reported figures, else no significant
// difference. change is (head - base) / base in percent.
func (a *analysis) verdict(base, head *scopeSubject, f figure) (string, bench.Significance, float64) {
	kind := samplesKind(base, head)
	bs, hs := base.samples(f, kind), head.samples(f, kind)
	_, test, _ := stats.Verdict(bs, hs, f.higherIsBetter, 0, a.alpha)
	b, h := base.values[f.name], head.values[f.name]
	change := relativeChange(b, h)
	within := math.Abs(change) < a.minEffect
	if b == 0 { // percentages in points; other figures move from zero by more than any effect
		within = h == 0 || (f.unit == UnitPercent && math.Abs(h-b) < a.minEffect)
	}
	return decide(test, bs, hs, b, h, f.higherIsBetter, within), toSignificance(test, kind), change
}

// relativeChange is (head - base) / base in percent; 0 from a zero base.
func relativeChange(base, head float64) float64 {
	if base == 0 {
		return 0
	}
	return (head - base) * 100 / math.Abs(base)
}

// OrderedKinds returns the keys of m in bench's order (ThreadKinds,
// MemoryKinds), then the others by name.
func OrderedKinds[V any](m map[string]V, order []string) []string {
	kinds := make([]string, 0, len(m))
	for k := range m {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if c := indexOr(order, a) - indexOr(order, b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return kinds
}

func itoa(n int) string { return strconv.Itoa(n) }

// AnyCut reports whether a subject of the scope had a transient cut or no
// steady part.
func AnyCut(sc bench.ReportScope) bool {
	for _, r := range sc.Results {
		for _, sp := range r.Steady {
			if sp.Cut > 0 || sp.CutEnd > 0 || !sp.Steady {
				return true
			}
		}
	}
	return false
}
