package database

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The series a recording keeps, T on the attack's clock in seconds.
const (
	// SeriesConnections are the server's client connections, labelled
	// LabelState: bench.DatabaseActive, DatabaseIdle or
	// DatabaseIdleInTransaction.
	SeriesConnections = "db_connections"
	// SeriesWaits are the active connections by what they wait for,
	// labelled LabelWait: PostgreSQL's wait_event_type ("Lock", "IO",
	// "Timeout"...), MariaDB's processlist state ("User sleep", "Sending
	// data"...), WaitCPU for those waiting for nothing.
	SeriesWaits = "db_waits"
	// SeriesTransactions are the transactions per second since the
	// sample before (PostgreSQL: commits and rollbacks; MariaDB: statements
	// of data, commits and rollbacks).
	SeriesTransactions = "db_transactions_per_second"
	// SeriesRows are the rows read and written per second since the sample
	// before (PostgreSQL: tuples returned, fetched, inserted, updated and
	// deleted; MariaDB: Rows_read, the rows read from tables other than
	// temporary ones, and Handler_write, _update and _delete).
	SeriesRows = "db_rows_per_second"
	// SeriesLocks are the locks the connections hold (PostgreSQL: granted
	// pg_locks; MariaDB: InnoDB's lock structures of open transactions).
	SeriesLocks = "db_locks"
	// SeriesExecuting are the statements executing on average since the
	// sample before, by the server's own timing of each (PostgreSQL:
	// pg_stat_statements' execution time, seconds per second), between
	// the samples that read it.
	SeriesExecuting = "db_executing"
	// SeriesStatements are the statements that ended per second since the
	// sample before, read with SeriesExecuting (PostgreSQL:
	// pg_stat_statements' calls), so that the two over the same reads
	// give the statements' mean time.
	SeriesStatements = "db_statements_per_second"
)

// Labels of the series.
const (
	// LabelState tells SeriesConnections apart: a connection state.
	LabelState = "state"
	// LabelWait tells SeriesWaits apart: what the connections wait for.
	LabelWait = "kind"
)

// WaitCPU is the wait of an active connection that waits for nothing: it
// runs, or is ready to.
const WaitCPU = "CPU"

// connectionStates are the states every sample counts, none or not.
var connectionStates = []string{bench.DatabaseActive, bench.DatabaseIdle, bench.DatabaseIdleInTransaction}

// sample is one reading of a server's figures.
type sample struct {
	connections  map[string]float64 // by state, every one of connectionStates
	waits        map[string]float64 // active connections by wait
	transactions float64            // a counter since the server started
	rows         float64            // a counter since the server started
	locks        float64
	// executed is the seconds the server spent executing statements, and
	// statements how many it executed, counters, both read at executedAt
	// (a sample's queries run one after another, and on a saturated CPU
	// the last of them may run most of an interval after the sample
	// began); timed says whether the server keeps them. serverAt is the
	// server's own clock at that read (zero where not read): the interval
	// between two reads is taken on it, where executedAt, the middle of
	// the read's round trip on this side, is off by as long as a starved
	// generator took to read the answer (on a clean clone's saturated CPU,
	// enough to read 1.40 statements a request where each made one).
	executed   float64
	statements float64
	executedAt time.Time
	serverAt   time.Time
	timed      bool
}

// newSample is a sample without any session.
func newSample() sample {
	s := sample{connections: map[string]float64{}, waits: map[string]float64{}}
	for _, state := range connectionStates {
		s.connections[state] = 0
	}
	return s
}

// addSession counts n sessions in state (none of the states: ignored), and
// an active one's wait ("" for none: WaitCPU).
func (s *sample) addSession(state, wait string, n float64) {
	if state == "" {
		return
	}
	s.connections[state] += n
	if state != bench.DatabaseActive {
		return
	}
	if wait == "" {
		wait = WaitCPU
	}
	s.waits[wait] += n
}

// takenSample is a sample and the instant it was taken; clock, where not
// zero, is that instant on the clock the sample was read on (the
// server's), which the intervals between samples are taken on.
type takenSample struct {
	at    time.Time
	clock time.Time
	sample
}
