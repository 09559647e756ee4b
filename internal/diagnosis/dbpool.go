package diagnosis

import (
	"fmt"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/dbpool"
	"github.com/threadbench/threadbench/internal/units"
)

// dbPoolBound is the database connection pool as the stage's bound
// (dbpool.Stage.Full): its requests waited for a connection with every
// connection lent out. Its share is the requests in flight that were
// waiting. It comes from the pool's own gauges (HikariCP's, or the Go
// target's under the same names), so it sees the waits of virtual threads
// and goroutines, which JFR records no park for.
func dbPoolBound(e Evidence) (bench.Cause, bool) {
	if e.Resources == nil || len(e.Resources.Pool) == 0 {
		return bench.Cause{}, false
	}
	p := dbpool.Of(*e.Resources, e.Stage, e.Database)
	if !p.Full() {
		return bench.Cause{}, false
	}
	share := p.WaitingShare()
	c := bench.Cause{Kind: bench.VerdictDBPoolBound, Share: share, Evidence: []bench.Figure{
		{Name: "requests waiting for a connection (mean)", Value: p.Pending.Mean},
		{Name: "requests waiting for a connection (peak)", Value: p.Pending.Peak},
		{Name: "connections lent out (mean)", Value: p.Active.Mean, Limit: p.Size},
		{Name: "requests in flight waiting", Value: share, Unit: "share", Limit: 1},
	}}
	c.Sentence = fmt.Sprintf("%s: %s of its requests in flight waited for one of its %s database connections (%s waiting on average, %s at the most",
		e.Target, units.Percent(share), units.Plain(p.Size), units.OneDecimal(p.Pending.Mean), units.Plain(p.Pending.Peak))
	if ms := p.AcquireMs; ms > 0 {
		c.Evidence = append(c.Evidence, bench.Figure{Name: "time to get a connection", Value: ms / 1000, Unit: "s"})
		c.Sentence += fmt.Sprintf("; a connection took %.0f ms to get", ms)
	}
	c.Sentence += ")"
	if n := p.Timeouts; n > 0 {
		c.Evidence = append(c.Evidence, bench.Figure{Name: "requests that gave up waiting", Value: n})
		c.Sentence += fmt.Sprintf("; %s gave up waiting", units.Plain(n))
	}
	if p.Throughput > 0 {
		c.Evidence = append(c.Evidence, bench.Figure{Name: "a connection held per request", Value: p.HeldMs / 1000, Unit: "s"})
		c.Sentence += fmt.Sprintf(": each connection was held %s ms per request", units.OneDecimal(p.HeldMs))
		if e.Database != nil {
			c.Evidence = append(c.Evidence, bench.Figure{Name: "in the database per request", Value: p.DatabaseMs / 1000, Unit: "s"})
			c.Sentence += fmt.Sprintf(" (%s ms of it in the database, %s in the service", units.OneDecimal(p.DatabaseMs), units.OneDecimal(p.ServiceMs()))
			if p.WakeDelayMs > 0 {
				c.Evidence = append(c.Evidence, bench.Figure{Name: "a woken request thread's wait to run", Value: p.WakeDelayMs / 1000, Unit: "s"})
				c.Sentence += fmt.Sprintf(", where a woken request thread waited %s ms to run%s", units.OneDecimal(p.WakeDelayMs), waitedFor(e))
			}
			c.Sentence += ")"
		}
		if p.HandOverMs > 0 {
			c.Evidence = append(c.Evidence, bench.Figure{Name: "a connection's hand-over to the next request", Value: p.HandOverMs / 1000, Unit: "s"})
			c.Sentence += fmt.Sprintf(" and handed over to the next in %s ms", units.OneDecimal(p.HandOverMs))
		}
		c.Sentence += fmt.Sprintf(", so the pool allows the %.0f req/s served", p.Throughput)
	}
	return c, true
}

// waitedFor says what a woken request thread waits for: where requests
// ran on virtual threads, a carrier, the scheduler's queue behind every
// virtual thread ready to run.
func waitedFor(e Evidence) string {
	if g, ok := e.Resources.Threads[bench.ThreadVirtual]; ok && g.Mean >= 1 {
		return " (for a carrier: the virtual-thread scheduler's queue)"
	}
	return ""
}

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
			c.Sentence += fmt.Sprintf("; %s of them on average waited for a database connection (db-pool-bound)", units.OneDecimal(min(pending, e.Pool.Busy.Mean)))
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
