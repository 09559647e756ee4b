package diagnosis

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/threadbench/threadbench/internal/bench"
)

// dbPoolBound is the database connection pool as the stage's bound: its
// requests waited for a connection (the pool's pending count, a mean of
// at least one) with every connection lent out at some point. Its share
// is the requests in flight that were waiting. It comes from the pool's
// own gauges (HikariCP's, or the Go target's under the same names), so it
// sees the waits of virtual threads and goroutines, which JFR records no
// park for.
func dbPoolBound(e Evidence) (bench.Cause, bool) {
	if e.Resources == nil || len(e.Resources.Pool) == 0 {
		return bench.Cause{}, false
	}
	pool := e.Resources.Pool
	size, active, pending := pool[bench.PoolMax].Peak, pool[bench.PoolActive], pool[bench.PoolPending]
	if size <= 0 || pending.Mean < 1 || active.Peak < size {
		return bench.Cause{}, false
	}
	inFlight := max(e.Stage.Stats.Throughput*e.Stage.Stats.Latency.Mean/1000, active.Mean+pending.Mean)
	share := min(pending.Mean/inFlight, 1)
	c := bench.Cause{Kind: bench.VerdictDBPoolBound, Share: share, Evidence: []bench.Figure{
		{Name: "requests waiting for a connection (mean)", Value: pending.Mean},
		{Name: "requests waiting for a connection (peak)", Value: pending.Peak},
		{Name: "connections lent out (mean)", Value: active.Mean, Limit: size},
		{Name: "requests in flight waiting", Value: share, Unit: "share", Limit: 1},
	}}
	c.Sentence = fmt.Sprintf("%s: %s of its requests in flight waited for one of its %s database connections (%s waiting on average, %s at the most",
		e.Target, percent(share), trimFloat(size), oneDecimal(pending.Mean), trimFloat(pending.Peak))
	if ms := e.Resources.PoolAcquireMs; ms > 0 {
		c.Evidence = append(c.Evidence, bench.Figure{Name: "time to get a connection", Value: ms / 1000, Unit: "s"})
		c.Sentence += fmt.Sprintf("; a connection took %.0f ms to get", ms)
	}
	c.Sentence += ")"
	if n := e.Resources.PoolTimeouts; n > 0 {
		c.Evidence = append(c.Evidence, bench.Figure{Name: "requests that gave up waiting", Value: n})
		c.Sentence += fmt.Sprintf("; %s gave up waiting", trimFloat(n))
	}
	if tput := e.Stage.Stats.Throughput; tput > 0 {
		held := size / tput
		c.Evidence = append(c.Evidence, bench.Figure{Name: "a connection held per request", Value: held, Unit: "s"})
		c.Sentence += fmt.Sprintf(": each connection was held %s ms per request", oneDecimal(held*1000))
		if db := e.Database; db != nil {
			// The server's active sessions over the requests a second:
			// a request's time in it (Little's law there).
			in := db.Connections[bench.DatabaseActive].Mean / tput
			c.Evidence = append(c.Evidence, bench.Figure{Name: "in the database per request", Value: in, Unit: "s"})
			c.Sentence += fmt.Sprintf(" (%s ms of it in the database, %s in the service)", oneDecimal(in*1000), oneDecimal(max(0, held-in)*1000))
		}
		c.Sentence += fmt.Sprintf(", so the pool allows the %.0f req/s served", tput)
	}
	return c, true
}

// oneDecimal formats a mean with at most one decimal: "190", "38.7".
func oneDecimal(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// connectionWaits ends the sentence of a lock-bound cause whose waits
// were mostly for a database connection, when the pool's gauges found it
// the bound.
const connectionWaits = "; those waits were for a database connection (db-pool-bound)"

// waitsForConnection reports whether a cause's threads waited mostly for
// a database connection (waits).
func waitsForConnection(c bench.Cause) bool { return c.Waits == WaitDatabaseConnections }

// explainedByDBPool puts a db-pool-bound cause before the causes it
// explains, and says so in theirs: the request threads in use at their
// limit (pool-bound) while most of them waited for a connection, and
// request threads blocked (lock-bound) mostly inside the connection pool.
// Those are the pool's symptoms; it is their cause.
func explainedByDBPool(causes []bench.Cause, e Evidence) []bench.Cause {
	i := slices.IndexFunc(causes, func(c bench.Cause) bool { return c.Kind == bench.VerdictDBPoolBound })
	if i < 0 {
		return causes
	}
	pending := e.Resources.Pool[bench.PoolPending].Mean
	first := -1
	for j := range causes {
		c := &causes[j]
		explained := false
		switch {
		case c.Kind == bench.VerdictPoolBound && e.Pool != nil && pending >= e.Pool.Busy.Mean/2:
			explained = true
			c.Sentence += fmt.Sprintf("; %s of them on average waited for a database connection (db-pool-bound)", oneDecimal(min(pending, e.Pool.Busy.Mean)))
		case c.Kind == bench.VerdictLockBound && waitsForConnection(*c):
			explained = true
			c.Sentence += connectionWaits
		}
		if explained && first < 0 {
			first = j
		}
	}
	if first < 0 || first > i {
		return causes
	}
	db := causes[i]
	causes = slices.Delete(causes, i, i+1)
	return slices.Insert(causes, first, db)
}
