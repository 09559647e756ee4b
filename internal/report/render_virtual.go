package report

import (
	"fmt"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
)

// virtualNote says where the virtual-thread figures come from.
const virtualNote = "From the JVM itself: Micrometer's VirtualThreadMetrics (jvm_threads_virtual_*, JFR's pinned events of 20 ms " +
	"and more and its failed submits, streamed in-process; the built-in Java target counts its pins itself), and on JDK 24 " +
	"and later the scheduler's parallelism, carrier pool and queue (VirtualThreadSchedulerMXBean); '-' where the JVM " +
	"does not expose a figure. Pinned s/s is the carriers' time pinned per second of the stage: 1 is one carrier pinned throughout."

// virtualSections lay out what the targets' JVMs said about their
// virtual threads, a row per target and stage; none when none said.
func virtualSections(rep bench.Report) []section {
	if len(rep.VirtualThreads) == 0 {
		return nil
	}
	b := block{Header: []string{"TARGET", "STAGE", "PINNED", "PINNED s", "PINNED s/s", "SUBMIT FAILED", "PARALLELISM", "CARRIERS (peak)", "QUEUED (peak)"},
		Right: rightFrom(2)}
	colors := subjectColors(rep)
	for _, r := range rep.VirtualThreads {
		b.Rows = append(b.Rows, []string{r.Label, r.Stage, fmt.Sprintf("%.0f", r.Pinned), analysis.Value(r.PinnedSeconds, analysis.UnitSeconds),
			fmt.Sprintf("%.2f", r.PinnedPerSecond), optionalCount(r.SubmitFailed), optionalCount(r.Parallelism), optionalCount(r.PoolSize), optionalCount(r.Queued)})
		b.Color = append(b.Color, colors[r.Label])
	}
	return []section{{Title: "Virtual threads, as the JVM counts them", ID: "virtual-threads", Blocks: []block{b, {Lines: []string{virtualNote}}}}}
}

func optionalCount(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", *v)
}
