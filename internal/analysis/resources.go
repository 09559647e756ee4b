package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/stats"
)

// Resource figure names of comparisons that are not keyed by kind.
const (
	ResCPUPer1k       = "cpuSecondsPer1k"
	ResGCPauses       = "gcPauses"
	ResGCPauseSeconds = "gcPauseSeconds"
)

// BytesPerMiB converts the series' bytes to the tables' MiB.
const BytesPerMiB = 1 << 20

// Thread kinds and memory figures every resource table shows, so that the
// three built-in targets' tables keep one look; other kinds a run reports
// are added after them.
var (
	TableThreadKinds = []string{bench.ThreadPlatform, bench.ThreadVirtual, bench.ThreadGoroutine}
	TableMemoryKinds = []string{bench.MemoryWorkingSet, bench.MemoryThreadStacks}
)

// threadFigure names the peak of a thread kind in comparisons:
// "peakPlatformThreads", "peakGoroutines".
func threadFigure(kind string) string {
	if kind == bench.ThreadGoroutine {
		return "peakGoroutines"
	}
	return "peak" + TitleCase(kind) + "Threads"
}

// memoryFigure names the peak of a memory figure: "peakWorkingSet".
func memoryFigure(kind string) string { return "peak" + TitleCase(kind) }

// TitleCase is s with its first (ASCII lower-case) letter upper-case.
func TitleCase(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// ResourceSummary is a target's resource use over some stages: the highest
// peaks of each thread kind and memory figure (MiB), CPU per 1k requests
// weighted by each stage's requests, and the GC pauses of all of them.
type ResourceSummary struct {
	Threads        map[string]float64
	MemoryMiB      map[string]float64
	CPUPer1k       float64
	GCPauses       float64
	GCPauseSeconds float64
	// WakeDelayMs is how long a woken request thread waited to run, ms
	// (bench.StageResources.WakeDelayMs), weighted as CPUPer1k; 0 where
	// the target has no probe.
	WakeDelayMs float64
}

// StageSummary is one stage's resources as a summary.
func StageSummary(r bench.StageResources) ResourceSummary {
	s := ResourceSummary{Threads: map[string]float64{}, MemoryMiB: map[string]float64{},
		CPUPer1k: r.CPUSecondsPer1k, GCPauses: r.GCPauses, GCPauseSeconds: r.GCPauseSeconds, WakeDelayMs: r.WakeDelayMs}
	for kind, g := range r.Threads {
		s.Threads[kind] = g.Peak
	}
	for kind, g := range r.Memory {
		s.MemoryMiB[kind] = g.Peak / BytesPerMiB
	}
	return s
}

// SummarizeResources aggregates the measured stages' resources, or reports
// false when the target has none.
func SummarizeResources(t *bench.TargetResult) (ResourceSummary, bool) {
	requests := map[int]int64{}
	for _, s := range MeasuredStages(t) {
		requests[s.Index] = s.Stats.Requests
	}
	s := ResourceSummary{Threads: map[string]float64{}, MemoryMiB: map[string]float64{}}
	var cpu, wake weightedMean
	found := false
	for _, r := range t.Resources {
		if r.Warmup {
			continue
		}
		found = true
		stage := StageSummary(r)
		for kind, v := range stage.Threads {
			s.Threads[kind] = max(s.Threads[kind], v)
		}
		for kind, v := range stage.MemoryMiB {
			s.MemoryMiB[kind] = max(s.MemoryMiB[kind], v)
		}
		s.GCPauses += r.GCPauses
		s.GCPauseSeconds += r.GCPauseSeconds
		// A stage whose CPU could not be scraped would pull the mean to zero.
		if r.CPUSecondsPer1k > 0 {
			cpu.add(r.CPUSecondsPer1k, float64(requests[r.Stage]))
		}
		if r.WakeDelayMs > 0 {
			wake.add(r.WakeDelayMs, float64(requests[r.Stage]))
		}
	}
	s.CPUPer1k = cpu.mean()
	s.WakeDelayMs = wake.mean()
	return s, found
}

// KindsOf returns the table's fixed kinds, then the other kinds any of the
// summaries has, sorted in bench's order (ThreadKinds, MemoryKinds), then
// by name.
func KindsOf(fixed, order []string, pick func(ResourceSummary) map[string]float64, sums ...ResourceSummary) []string {
	kinds := slices.Clone(fixed)
	var extra []string
	for _, s := range sums {
		for k := range pick(s) {
			if !slices.Contains(kinds, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	slices.SortFunc(extra, func(a, b string) int {
		if c := cmp.Compare(indexOr(order, a), indexOr(order, b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return append(kinds, extra...)
}

func indexOr(list []string, s string) int {
	if i := slices.Index(list, s); i >= 0 {
		return i
	}
	return len(list)
}

// ThreadsOf picks a summary's thread peaks, for a table that lists either kind.
func ThreadsOf(s ResourceSummary) map[string]float64 { return s.Threads }

// MemoryOf picks a summary's memory peaks, for a table that lists either kind.
func MemoryOf(s ResourceSummary) map[string]float64 { return s.MemoryMiB }

// weightedMean is a mean weighted by request counts that falls back to the
// plain mean when no weights are known.
type weightedMean struct {
	sum, weightedSum, weight float64
	n                        int
}

func (m *weightedMean) add(v, weight float64) {
	m.sum += v
	m.n++
	m.weightedSum += v * weight
	m.weight += weight
}

func (m *weightedMean) mean() float64 {
	switch {
	case m.weight > 0:
		return m.weightedSum / m.weight
	case m.n > 0:
		return m.sum / float64(m.n)
	}
	return 0
}

// resources compares the label's resource summaries over the measured
// stages, lower being better, leaving out figures neither run recorded (a
// Go target has no threads of either JVM kind). Each round gives one
// value: the tests rest on rounds, so that one round each can show no
// significant difference.
func (tc targetComparer) resources() []bench.MetricDelta {
	bs, hs := roundSummaries(tc.base), roundSummaries(tc.head)
	if len(bs) == 0 || len(hs) == 0 {
		if len(bs) > 0 || len(hs) > 0 {
			side := map[bool]string{true: "base", false: "head"}[len(bs) > 0]
			tc.notes.addLine(fmt.Sprintf("%s: resource figures only in the %s run; not compared", tc.target, side))
		}
		return nil
	}
	type row struct {
		name, unit string
		pick       func(ResourceSummary) float64
	}
	var rows []row
	all := append(slices.Clone(bs), hs...)
	for _, kind := range KindsOf(TableThreadKinds, bench.ThreadKinds, ThreadsOf, all...) {
		rows = append(rows, row{threadFigure(kind), ThreadUnit(kind), func(s ResourceSummary) float64 { return s.Threads[kind] }})
	}
	for _, kind := range KindsOf(TableMemoryKinds, bench.MemoryKinds, MemoryOf, all...) {
		rows = append(rows, row{memoryFigure(kind), UnitMiB, func(s ResourceSummary) float64 { return s.MemoryMiB[kind] }})
	}
	rows = append(rows,
		row{ResCPUPer1k, UnitSeconds, func(s ResourceSummary) float64 { return s.CPUPer1k }},
		row{ResGCPauses, UnitPauses, func(s ResourceSummary) float64 { return s.GCPauses }},
		row{ResGCPauseSeconds, UnitSeconds, func(s ResourceSummary) float64 { return s.GCPauseSeconds }})
	var deltas []bench.MetricDelta
	for _, r := range rows {
		bv, hv := resourceValues(bs, r.pick), resourceValues(hs, r.pick)
		b, h := medianOf(bv), medianOf(hv)
		if b != 0 || h != 0 {
			deltas = append(deltas, tc.delta(r.name, r.unit, b, h, false, bv, hv, samplesRounds))
		}
	}
	return deltas
}

// roundSummaries returns each measured round's resource summary.
func roundSummaries(sd side) []ResourceSummary {
	var out []ResourceSummary
	for _, t := range sd.s.rounds {
		if s, ok := SummarizeResources(t); ok {
			out = append(out, s)
		}
	}
	return out
}

// medianOf is the median of values: the figure itself for one round.
func medianOf(values []float64) float64 { return stats.Median(values, 0).Center }

// ThreadUnit is the unit a thread kind is counted in: goroutines or threads.
func ThreadUnit(kind string) string {
	if kind == bench.ThreadGoroutine {
		return UnitGoroutines
	}
	return UnitThreads
}

// FigureLabelOf names a resource figure for people, or "" when the name is
// not one.
func FigureLabelOf(name string) string {
	for _, kind := range bench.ThreadKinds {
		if name == threadFigure(kind) {
			return "peak " + bench.ThreadLabel(kind)
		}
	}
	for _, kind := range bench.MemoryKinds {
		if name == memoryFigure(kind) {
			return "peak " + MemoryLabel(kind)
		}
	}
	return ""
}

// MemoryLabel names a memory figure for people.
func MemoryLabel(kind string) string {
	switch kind {
	case bench.MemoryWorkingSet:
		return "working set"
	case bench.MemoryThreadStacks:
		return "thread stacks"
	case bench.MemoryThreadStacksReserved:
		return "thread stacks reserved"
	}
	return words(kind)
}

// words spells a camelCase key for people: "threadStacksReserved" is
// "thread stacks reserved".
func words(key string) string {
	var b strings.Builder
	for i, r := range key {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
