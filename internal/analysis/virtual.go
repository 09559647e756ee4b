package analysis

import (
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

// virtualSeries are the series that say a target's JVM reports on its
// virtual threads: Micrometer's VirtualThreadMetrics, or the built-in
// Java target's own count of pins.
var virtualSeries = []string{metrics.VirtualPinned, metrics.VirtualSubmitFailed,
	metrics.VirtualParallelism, metrics.OwnVirtualPinned}

// virtualThreads lists, per subject whose JVM reports on its virtual
// threads and per measured stage, what it said: the median of its rounds.
func (a *analysis) virtualThreads() []bench.VirtualThreadRow {
	var out []bench.VirtualThreadRow
	for _, s := range a.subjects {
		if !slices.ContainsFunc(s.rounds, reportsVirtual) {
			continue
		}
		for _, st := range MeasuredStages(s.rounds[0]) {
			if row, ok := virtualRow(s, st); ok {
				out = append(out, row)
			}
		}
	}
	return out
}

// reportsVirtual says whether a round recorded any virtual-thread series.
func reportsVirtual(t *bench.TargetResult) bool {
	return slices.ContainsFunc(t.Series, func(name string) bool { return slices.Contains(virtualSeries, name) })
}

// virtualRow is one subject's stage, false when no round has its resources.
func virtualRow(s *subject, st bench.StageResult) (bench.VirtualThreadRow, bool) {
	var pinned, seconds, perSecond, failed []float64
	scheduler := map[string][]float64{}
	for _, t := range s.rounds {
		r, ok := stageResources(t, st.Index)
		if !ok {
			continue
		}
		pinned, seconds = append(pinned, r.Pinned), append(seconds, r.PinnedSeconds)
		if d := st.Duration.D().Seconds(); d > 0 {
			perSecond = append(perSecond, r.PinnedSeconds/d)
		}
		if exposes(t, metrics.VirtualSubmitFailed) {
			failed = append(failed, r.SubmitFailed)
		}
		for fig, g := range r.Scheduler {
			scheduler[fig] = append(scheduler[fig], g.Peak)
		}
	}
	if len(pinned) == 0 {
		return bench.VirtualThreadRow{}, false
	}
	row := bench.VirtualThreadRow{Label: s.info.Label, Stage: StageLabel(st.Index, st.Name), Pinned: medianOf(pinned),
		PinnedSeconds: medianOf(seconds), SubmitFailed: medianOrNil(failed), Parallelism: medianOrNil(scheduler[bench.SchedulerParallelism]),
		PoolSize: medianOrNil(scheduler[bench.SchedulerPoolSize]), Queued: medianOrNil(scheduler[bench.SchedulerQueued])}
	if len(perSecond) > 0 {
		row.PinnedPerSecond = medianOf(perSecond)
	}
	return row, true
}

func exposes(t *bench.TargetResult, series string) bool { return slices.Contains(t.Series, series) }

// stageResources returns a round's resources in a measured stage.
func stageResources(t *bench.TargetResult, stage int) (bench.StageResources, bool) {
	for _, r := range t.Resources {
		if r.Stage == stage && !r.Warmup {
			return r, true
		}
	}
	return bench.StageResources{}, false
}

func medianOrNil(values []float64) *float64 {
	if len(values) == 0 {
		return nil
	}
	m := medianOf(values)
	return &m
}
