package report

import (
	"fmt"

	"github.com/threadbench/threadbench/internal/bench"
)

// Resource figure names.
const (
	resPlatformThreads = "peakPlatformThreads"
	resVirtualThreads  = "peakVirtualThreads"
	resGoroutines      = "peakGoroutines"
	resWorkingSet      = "peakWorkingSet"
	resThreadStacks    = "peakThreadStacks"
	resCPUPer1k        = "cpuSecondsPer1k"
	resGCPauses        = "gcPauses"
	resGCPauseSeconds  = "gcPauseSeconds"
)

const bytesPerMiB = 1 << 20

// resourceSummary is a target's resource use over its measured stages: the
// highest peaks, CPU per 1k requests weighted by each stage's requests, and
// the GC pauses of all stages.
type resourceSummary struct {
	platformThreads float64
	virtualThreads  float64
	goroutines      float64
	workingSetMiB   float64
	stacksMiB       float64
	cpuPer1k        float64
	gcPauses        float64
	gcPauseSeconds  float64
}

// summarizeResources aggregates the measured stages' resources, or reports
// false when the target has none.
func summarizeResources(t *bench.TargetResult) (resourceSummary, bool) {
	requests := map[int]int64{}
	for _, s := range measuredStages(t) {
		requests[s.Index] = s.Stats.Requests
	}
	var s resourceSummary
	var cpu weightedMean
	found := false
	for _, r := range t.Resources {
		if r.Warmup {
			continue
		}
		found = true
		s.platformThreads = max(s.platformThreads, r.PeakPlatformThreads)
		s.virtualThreads = max(s.virtualThreads, r.PeakVirtualThreads)
		s.goroutines = max(s.goroutines, r.PeakGoroutines)
		s.workingSetMiB = max(s.workingSetMiB, r.PeakWorkingSetBytes/bytesPerMiB)
		s.stacksMiB = max(s.stacksMiB, r.PeakThreadStackBytes/bytesPerMiB)
		s.gcPauses += r.GCPauses
		s.gcPauseSeconds += r.GCPauseSeconds
		// A stage whose CPU could not be scraped would pull the mean to zero.
		if r.CPUSecondsPer1k > 0 {
			cpu.add(r.CPUSecondsPer1k, float64(requests[r.Stage]))
		}
	}
	s.cpuPer1k = cpu.mean()
	return s, found
}

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

// resources compares the targets' resource summaries, lower being better,
// leaving out figures neither run recorded (a Go target has no threads of
// either JVM kind).
func (tc targetComparer) resources(base, head *bench.TargetResult) []bench.MetricDelta {
	bs, inBase := summarizeResources(base)
	hs, inHead := summarizeResources(head)
	if !inBase || !inHead {
		if inBase || inHead {
			side := map[bool]string{true: "base", false: "head"}[inBase]
			tc.notes.addLine(fmt.Sprintf("%s: resource figures only in the %s run; not compared", tc.target, side))
		}
		return nil
	}
	rows := []struct {
		name, unit string
		base, head float64
	}{
		{resPlatformThreads, unitThreads, bs.platformThreads, hs.platformThreads},
		{resVirtualThreads, unitThreads, bs.virtualThreads, hs.virtualThreads},
		{resGoroutines, unitGoroutines, bs.goroutines, hs.goroutines},
		{resWorkingSet, unitMiB, bs.workingSetMiB, hs.workingSetMiB},
		{resThreadStacks, unitMiB, bs.stacksMiB, hs.stacksMiB},
		{resCPUPer1k, unitSeconds, bs.cpuPer1k, hs.cpuPer1k},
		{resGCPauses, unitPauses, bs.gcPauses, hs.gcPauses},
		{resGCPauseSeconds, unitSeconds, bs.gcPauseSeconds, hs.gcPauseSeconds},
	}
	var deltas []bench.MetricDelta
	for _, r := range rows {
		if r.base != 0 || r.head != 0 {
			deltas = append(deltas, newDelta(r.name, r.unit, r.base, r.head, false, tc.threshold))
		}
	}
	return deltas
}
