package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// Load sent by several generators (a swarm's): how many, where, their
// clocks, and each one's own figures and self-watch beside the merged
// ones. A run sent by the one process shows none of it.

var generatorHeader = []string{"GENERATOR", "NODE", "ADDRESS", "CLOCK OFFSET ms", "RTT ms", "REQUESTS", "P50 ms", "P99 ms",
	"CPU PEAK", "SEND LAG P99 ms", "ERROR"}

// generatorsLine says how many generators sent a run's attacks, and where.
func generatorsLine(gens []bench.GeneratorEnvironment) string {
	where := make([]string, len(gens))
	for i, g := range gens {
		where[i] = fmt.Sprintf("%s on %s (%s, %s x %s)", g.Share, units.OrDash(g.Host), units.OrDash(g.Address),
			units.OrDash(g.CPUModel), units.OrDash(analysis.CountString(g.CPUs)))
	}
	return fmt.Sprintf("%d swarm generators, each a share of the load: %s", len(gens), strings.Join(where, "; "))
}

// writeGenerators writes a target's generators: where each ran, its
// clock, its own requests and percentiles, and its busiest self-watch.
func writeGenerators(buf *bytes.Buffer, t *bench.TargetResult) {
	tw := newTable(buf)
	rows := [][]string{generatorHeader}
	for _, g := range t.Generators {
		rows = append(rows, generatorRow(g))
	}
	writeRows(tw, "  ", rows)
	tw.Flush()
	for _, g := range t.Generators {
		for _, s := range g.Stages {
			for _, f := range s.Flags {
				fmt.Fprintf(buf, "  ! %s, %s %s: %s\n", g.Share, analysis.StageLabel(s.Index, s.Name), f.Kind, f.Reason)
			}
		}
	}
}

func generatorRow(g bench.GeneratorResult) []string {
	row := []string{g.Share.String(), units.OrDash(g.Host), units.OrDash(g.Address),
		fmt.Sprintf("%+.3f", g.ClockOffsetMs), fmt.Sprintf("%.3f", g.RoundTripMs)}
	if g.Total != nil {
		row = append(row, fmt.Sprint(g.Total.Requests), units.Num(g.Total.Latency.P50), units.Num(g.Total.Latency.P99))
	} else {
		row = append(row, "-", "-", "-")
	}
	var cpu, lag float64
	for _, s := range g.Stages {
		if s.Generator != nil {
			cpu, lag = max(cpu, s.Generator.CPUSharePeak), max(lag, s.Generator.SendLagP99)
		}
	}
	return append(row, fmt.Sprintf("%.0f%%", cpu*100), units.Num(lag), units.OrDash(g.Error))
}
