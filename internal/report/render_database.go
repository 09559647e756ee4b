package report

import (
	"bytes"
	"fmt"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/dbpool"
	"github.com/threadbench/threadbench/internal/units"
)

// databaseHeader names the database table's columns: the pool as the
// service saw it, then the server as it answered its own statistics.
var databaseHeader = []string{"STAGE", "POOL ACTIVE", "POOL PENDING", "ACQUIRE ms", "HELD ms", "TIMEOUTS",
	"DB ACTIVE", "DB EXECUTING", "DB IDLE", "DB IDLE IN TX", "DB WAITS (mean sessions)", "TX/s", "ROWS/s", "LOCKS"}

// databaseLine describes a run's database server in the run's header.
func databaseLine(d *bench.DatabaseResult) string {
	s := fmt.Sprintf("%s at %s, pool of %d per target, %s", d.Kind, units.OrDash(d.Address), d.Pool, analysis.DescribeLimits(d.Limits))
	if v := d.Settings["database.version"]; v != "" {
		s += "; " + v
	}
	if d.Error != "" {
		s += "; " + string(d.Status) + ": " + d.Error
	}
	return s
}

// writeDatabaseTable writes, per stage, a target's connection pool and the
// database server's figures during its attack.
func writeDatabaseTable(buf *bytes.Buffer, t *bench.TargetResult) {
	pools := map[int]dbpool.Stage{}
	for _, p := range dbpool.Stages(t) {
		pools[p.Index] = p
	}
	names := map[int]string{}
	for _, s := range t.Stages {
		names[s.Index] = s.Name
	}
	rows := [][]string{databaseHeader}
	for _, d := range t.Database {
		if d.Warmup {
			continue
		}
		label := analysis.StageLabel(d.Stage, names[d.Stage])
		p, ok := pools[d.Stage]
		rows = append(rows, databaseRow(label, p, ok, d))
	}
	tw := newTable(buf)
	writeRows(tw, "  ", rows)
	tw.Flush()
}

// databaseRow is a stage's row: the pool's figures where it has them (ok),
// the server's.
func databaseRow(label string, p dbpool.Stage, ok bool, d bench.DatabaseStage) []string {
	gauge := func(g bench.Gauge) string { return units.Num(g.Mean) + " (" + units.Num(g.Peak) + ")" }
	pool := []string{"-", "-", "-", "-", "-"}
	if ok {
		held := "-" // only the pool's own timer times a hold
		if p.HeldTimed {
			held = units.Num(p.HeldMs)
		}
		pool = []string{gauge(p.Active) + " of " + units.Num(p.Size), gauge(p.Pending), units.Num(p.AcquireMs), held, units.Num(p.Timeouts)}
	}
	row := append([]string{label}, pool...)
	executing := "-" // the server's own timing of its statements, where it keeps one
	if d.Executing > 0 {
		executing = units.Num(d.Executing)
	}
	return append(row, gauge(d.Connections[bench.DatabaseActive]), executing, gauge(d.Connections[bench.DatabaseIdle]),
		gauge(d.Connections[bench.DatabaseIdleInTransaction]), analysis.DatabaseWaits(d.Waits),
		units.Num(d.TransactionsPerSec), units.Num(d.RowsPerSec), gauge(d.Locks))
}
