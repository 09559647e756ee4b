package builtin

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/dbpool"
	"github.com/threadbench/threadbench/internal/steady"
	"github.com/threadbench/threadbench/internal/units"
)

// The db-pool experiment: each thread model against one PostgreSQL, its
// requests each holding a pooled connection for a query that takes
// dbPoolQuery in the database, with a pool of 10 and of 100 connections
// (two parts: a run has one database) at 50, 200 and 400 clients. A pool
// of n connections serves at most n ÷ query time requests a second. The
// query is long beside what a service does around it while it holds the
// connection, so that where the pool is the limit the pool's bound is
// what is reached: at 20 ms the Java targets' 1.3-2.7 ms of their own
// (on one CPU, 200 threads waiting their turn to give a connection back)
// held them to 88-94 % of the bound, Go's 0.9 ms to 96 %; at 50 ms,
// warmed until steady, java-virtual still held each connection 51.5-53.2
// ms (94-97 % of the bound), the others 51.0-51.5: where the query is
// twice as long, the same milliseconds are half the share. At 100 ms the
// bound of 100 connections, 1,000 req/s, kept java-virtual's one carrier
// busy 57 % of the time, and a woken request waited its turn behind the
// new requests there (2.4-3.2 ms a wake): each connection was held 4.4-4.7
// ms past its statement, and java-virtual reached 92.9-93.3 % of the bound
// in a full run, the others 95.5-97.5 %. At 200 ms the pool's bound is
// half as much of the target's CPU, and a wake half as large a share.
var (
	dbPoolQuery   = 200 * time.Millisecond
	dbPoolSizes   = map[string]int{"pool-10": 10, "pool-100": 100}
	dbPoolClients = []int{50, 200, 400}
)

func dbPool() bench.Experiment {
	return bench.Experiment{
		Name:   "db-pool",
		Source: "the database boundary (spring-boot#40155, HikariCP#2398): a connection pool in front of PostgreSQL",
		Description: "java-platform, java-virtual and go against PostgreSQL, a " + dbPoolQueryWords() + " query per request on a pool of 10 and of 100 connections, " +
			"at 50, 200 and 400 clients: where the requests waited (the pool, the database, the threads) and the bound the pool sets",
		// Stages of dbPoolStage: at 5 s, with 10 connections a request of
		// 400 clients waited 4 s for one, a stage held about one flight,
		// and its steady part was two or three seconds of 93-97
		// completions (three of six stages judged not steady).
		Scale:     1,
		ScaleNote: "multiplies the stages (10 s, or " + units.Plain(dbPoolFlights) + " times a request's wait for a connection where longer); the query stays " + dbPoolQueryWords() + ", so the pool's bound stays connections ÷ " + dbPoolQueryWords(),
		Parts:     []string{"pool-10", "pool-100"},
		Layout:    bench.LayoutPool,
		Rows: []bench.SeedRow{
			{Label: "Tomcat, 200 platform threads", Case: bench.TargetJavaPlatform},
			{Label: "virtual threads", Case: bench.TargetJavaVirtual},
			{Label: "goroutines", Case: bench.TargetGo},
		},
		Notes: []string{
			"no seed measured this: the figures in parentheses are the pool's bound, connections ÷ the query's " + dbPoolQueryWords(),
			"a request in flight is waiting for a connection (the pool), holding one (the database: the query and its round trip) or neither " +
				"(the threads: Tomcat's queue, a CPU); the split is the stage's means, from the target's HikariCP series and Little's law",
			"the two pool sizes are two runs (parts): a run has one database",
		},
		Expand: expandDBPool,
	}
}

func expandDBPool(scale float64, part string) bench.RunSpec {
	size := dbPoolSizes[part]
	var stages []bench.Stage
	for _, c := range dbPoolClients {
		stages = append(stages, bench.Stage{Name: fmt.Sprintf("c%d", c), Duration: scaled(dbPoolStage(c, size), scale), Concurrency: c})
	}
	query := strconv.FormatInt(dbPoolQuery.Milliseconds(), 10)
	return bench.RunSpec{
		Targets:  []string{bench.TargetJavaPlatform, bench.TargetJavaVirtual, bench.TargetGo},
		Profile:  bench.Profile{Name: "db-pool", Model: bench.ModelClosed, Scale: scale, Stages: stages},
		Workload: bench.Workload{Requests: []bench.Request{request("query ("+dbPoolQueryWords()+")", "db", map[string]string{"delay": query})}},
		// Until steady, its JIT quiet, at the first stage's 50 clients: after
		// a fixed 5 s at half the smaller pool's bound java-virtual still
		// spent 3.5-5.7 ms of CPU per request (11 in the warm-up) on its
		// one CPU, its compiler threads beside its one carrier, and its
		// waiters got a connection late: 9.0 of the 10 lent out on average
		// with 32 waiting, 89 % of the bound.
		Warmup:   bench.Warmup{UntilSteady: true},
		Database: &bench.Database{Kind: bench.DatabasePostgres, Pool: size},
	}
}

// afterTheStep says, of t's i-th stage when its clients stepped up from
// the stage before, what its first full second completed and what the
// seconds after it did, beside the pool's bound: the step's new requests
// arrive at once, and on one carrier that second dips (java-virtual with
// 100 connections: 809 completions, then 910 a second on average). Empty
// for the first stage, which follows a warm-up at its own load, or without
// three full seconds.
func afterTheStep(t *bench.TargetResult, i int, bound float64) string {
	if i == 0 || t.Stages[i].Concurrency <= t.Stages[i-1].Concurrency {
		return ""
	}
	var completed []float64
	for _, b := range steady.StageSeconds(t, t.Stages[i].Index) {
		completed = append(completed, float64(b.Stats.Completed))
	}
	if len(completed) < 3 {
		return ""
	}
	before := t.Stages[i-1].Concurrency
	var sum float64
	for _, c := range completed[1:] {
		sum += c
	}
	rest := sum / float64(len(completed)-1)
	return fmt.Sprintf("; its first second, as the clients stepped up from %d, completed %s, the %d after it %s a second on average (%s of the bound)",
		before, units.Plain(completed[0]), len(completed)-1, units.Num(rest), expPercent(100*rest/bound))
}

// stageRate is t's i-th stage's throughput as the run's report gives it
// (steady.StageRate): over its steady part, the seconds of a transient
// cut (as the clients stepped up, 200 new requests reached java-virtual's
// one carrier at once: 790 completions, then 970 a second), and how many
// seconds were cut; the whole stage's figure where its seconds do not say.
func stageRate(t *bench.TargetResult, i int) (float64, int) {
	rate, part, ok := steady.StageRate(steady.StageSeconds(t, t.Stages[i].Index))
	if !ok {
		return t.Stages[i].Stats.Throughput, 0
	}
	return rate, part.Start + part.EndCut
}

// dbPoolFlights is how many of its requests' flights a stage holds at
// least: a flight is how long a request waits at the pool's bound, clients
// ÷ bound (8 s for 400 clients on 10 connections). At 2.5 (10 s stages, 4 s
// flights on a 100 ms query) every stage of 10 connections was steady, its
// transient cut; at 1.25 three of six were not.
const dbPoolFlights = 2.5

// dbPoolStage is how long the stage of clients runs on a pool of size
// connections: 10 s, or dbPoolFlights flights where longer.
func dbPoolStage(clients, size int) time.Duration {
	flight := time.Duration(float64(clients) / dbPoolBound(size) * float64(time.Second))
	return max(10*time.Second, time.Duration(dbPoolFlights*float64(flight)))
}

// dbPoolQueryWords is the query's time as the sheet says it: "50 ms".
func dbPoolQueryWords() string { return fmt.Sprintf("%d ms", dbPoolQuery.Milliseconds()) }

// dbPoolBound is the throughput a pool of size connections allows on
// the experiment's query.
func dbPoolBound(size int) float64 { return float64(size) / dbPoolQuery.Seconds() }

// pool writes, per case and stage, the throughput beside the pool's bound
// and where the requests in flight were.
func (x *expTable) pool() {
	size := 0
	if d := x.run.Spec.Database; d != nil {
		size = d.Pool
	}
	bound := dbPoolBound(size)
	poolIn := func(t *bench.TargetResult, i int) (dbpool.Stage, bool) {
		for _, p := range dbpool.Stages(t) {
			if p.Index == t.Stages[i].Index {
				return p, true
			}
		}
		return dbpool.Stage{}, false
	}
	// Beside the nominal bound, the one the connections' hold as the pool
	// timed it sets (size ÷ hold): what the service adds to the query (a
	// CPU to wait for once the database answered) lowers it, and what is
	// left below it is the connections' hand-over from one request to the
	// next.
	throughput := func(t *bench.TargetResult, i int) string {
		got, cut := stageRate(t, i)
		out := fmt.Sprintf("%s (%s, %s", expRate(got), expRate(bound), expPercent(100*got/bound))
		// The hold is timed over the whole stage, the transient included:
		// its bound is set beside the whole stage's throughput (a steady
		// part of 909.5 req/s beside a stage's mean hold of 119.1 ms read
		// 108 % of a bound).
		if p, ok := poolIn(t, i); ok && p.HeldMs > 0 && p.HeldTimed {
			held := float64(size) / (p.HeldMs / 1000)
			out += fmt.Sprintf("; held %s ms: %s, %s", units.Num(p.HeldMs), expRate(held), expPercent(100*p.Throughput/held))
		}
		if cut > 0 {
			out += fmt.Sprintf("; %d s cut", cut)
		}
		return out + ")"
	}
	where := func(t *bench.TargetResult, i int) string {
		p, ok := poolIn(t, i)
		if !ok {
			return "no pool figures"
		}
		return fmt.Sprintf("%s: pool %s · database %s · threads %s", strings.TrimPrefix(p.Where(), "the "),
			units.Num(p.Pending.Mean), units.Num(p.Active.Mean), units.Num(p.Elsewhere))
	}
	held := func(t *bench.TargetResult, i int) string {
		p, ok := poolIn(t, i)
		switch {
		case !ok || p.HeldMs == 0:
			return "-"
		case p.DatabaseMs == 0:
			return units.Num(p.HeldMs)
		}
		out := fmt.Sprintf("%s = %s + %s", units.Num(p.HeldMs), units.Num(p.DatabaseMs), units.Num(p.ServiceMs()))
		if p.HandOverMs > 0 {
			out += fmt.Sprintf("; handed over in %s", units.Num(p.HandOverMs))
		}
		if p.WakeDelayMs > 0 {
			out += fmt.Sprintf(" (woken: %s)", units.Num(p.WakeDelayMs))
		}
		return out
	}
	header, tables := x.perStage(throughput, where, held)
	x.line(fmt.Sprintf("a pool of %d connections, a query of %s in the database: the pool allows %s req/s", size, dbPoolQueryWords(), expRate(bound)))
	x.table("throughput per stage (successful req/s over the stage's steady part, as the run's report gives it; in parentheses the pool's bound at "+
		dbPoolQueryWords()+" and the share of it reached, then the bound at the hold the pool timed over the whole stage and the share of it "+
		"the whole stage reached, and the seconds cut as a transient)", header, tables[0])
	x.table("where the requests in flight were, per stage (mean requests: waiting for a connection, holding one, neither)", header, tables[1])
	x.table("a connection per request, ms: held (by the pool's timer) = in the database + in the service (its own time between statements, on a CPU it may wait for); "+
		"where the pool was full, then how long it lay between two holds (given back, until the request it was handed to woke and ran to take it); "+
		"in parentheses how long a woken request thread waited to run (on virtual threads, for a carrier): a hold takes one such wait when the database answers, "+
		"a hand-over another", header, tables[2])
	for _, line := range x.poolShortfalls(bound) {
		x.line(line)
	}
}

// poolShortfalls says, of each stage where the pool was full and the
// throughput (over its steady part, stageRate) fell short of the pool's
// bound by more than 5 %, where each connection's round went beyond the
// query over the whole stage: held longer, handed over slowly, and how
// long a woken request thread waited to run.
func (x *expTable) poolShortfalls(bound float64) []string {
	var out []string
	for _, row := range x.rows {
		t, _ := x.measured(row)
		if t == nil {
			continue
		}
		for _, p := range dbpool.Stages(t) {
			// dbpool.Stages keeps only the stages t has: i is one of them.
			i := slices.IndexFunc(t.Stages, func(st bench.StageResult) bool { return st.Index == p.Index })
			rate, _ := stageRate(t, i)
			if p.Bound == 0 || rate >= 0.95*bound || !p.HeldTimed {
				continue
			}
			steadyShare := expPercent(100 * rate / bound)
			share := steadyShare + " of the pool's bound"
			if whole := expPercent(100 * p.Throughput / bound); whole != steadyShare {
				share += " over its steady part (" + whole + " over the whole stage)"
			}
			round := p.HeldMs + p.HandOverMs
			line := fmt.Sprintf("%s, %s: %s; each connection went round in %s ms for a %s query: held %s ms",
				row.Label, p.Name, share, units.Num(round), dbPoolQueryWords(), units.Num(p.HeldMs))
			if p.DatabaseMs > 0 {
				line += fmt.Sprintf(" (%s in the database)", units.Num(p.DatabaseMs))
			}
			line += fmt.Sprintf(", handed over in %s", units.Num(p.HandOverMs))
			if p.WakeDelayMs > 0 {
				line += fmt.Sprintf("; a woken request thread waited %s ms to run, once in each hold and once in each hand-over", units.Num(p.WakeDelayMs))
			}
			line += afterTheStep(t, i, bound)
			if g := t.Stages[i].Generator; g != nil && g.Stolen() != "" {
				line += "; disturbed: " + g.Stolen()
			}
			out = append(out, line)
		}
	}
	return out
}
