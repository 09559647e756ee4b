package dbpool

import (
	"cmp"
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// A pool is the bound only while requests wait for it with every
// connection lent out; then each connection is held size ÷ throughput.
func TestStage(t *testing.T) {
	stage := bench.StageResult{Index: 1, Name: "c20", Stats: bench.Stats{Throughput: 200}}
	for _, tt := range []struct {
		name          string
		pool          map[string]bench.Gauge
		bound, heldMs float64
	}{
		// 5 connections at 200 req/s: 25 ms each, however stale the active gauge's mean.
		{"full, requests waiting", map[string]bench.Gauge{bench.PoolMax: {Peak: 5, Mean: 5}, bench.PoolActive: {Peak: 5, Mean: 3.8}, bench.PoolPending: {Peak: 15, Mean: 12}}, 200, 25},
		// Never full: the mean active connections say how long each was held.
		{"never full", map[string]bench.Gauge{bench.PoolMax: {Peak: 10, Mean: 10}, bench.PoolActive: {Peak: 6, Mean: 4}}, 0, 20},
		// Full at a peak, but nobody waited on average: not the bound.
		{"full once, no wait", map[string]bench.Gauge{bench.PoolMax: {Peak: 5, Mean: 5}, bench.PoolActive: {Peak: 5, Mean: 4}, bench.PoolPending: {Peak: 2, Mean: 0.3}}, 0, 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := Of(bench.StageResources{Stage: 1, Pool: tt.pool}, stage, nil)
			if p.Bound != tt.bound || p.HeldMs != tt.heldMs {
				t.Errorf("bound %v held %v ms, want %v and %v", p.Bound, p.HeldMs, tt.bound, tt.heldMs)
			}
		})
	}
}

// Where the pool times its holds, the hold is the timer's: a full pool
// then allows its size over it, and what size ÷ throughput has beyond it
// is the connections' hand-over from one request to the next; a pool not
// full is held as timed, not as its sampled gauge says.
func TestStageTimedHold(t *testing.T) {
	stage := bench.StageResult{Index: 1, Name: "c20", Stats: bench.Stats{Throughput: 200}}
	full := map[string]bench.Gauge{bench.PoolMax: {Peak: 5, Mean: 5}, bench.PoolActive: {Peak: 5, Mean: 3.8}, bench.PoolPending: {Peak: 15, Mean: 12}}
	p := Of(bench.StageResources{Stage: 1, Pool: full, PoolUsageMs: 20}, stage, nil)
	// 5 connections at 200 req/s go round every 25 ms: 20 held, 5 handed over.
	if !p.HeldTimed || p.HeldMs != 20 || p.Bound != 250 || math.Abs(p.HandOverMs-5) > 1e-9 {
		t.Errorf("full: held %v ms (timed %v), bound %v, hand-over %v ms; want 20, true, 250, 5", p.HeldMs, p.HeldTimed, p.Bound, p.HandOverMs)
	}
	// 4 of 10 connections lent out on average by the gauge (20 ms each)
	// where the timer held each 21 ms.
	notFull := map[string]bench.Gauge{bench.PoolMax: {Peak: 10, Mean: 10}, bench.PoolActive: {Peak: 6, Mean: 4}}
	p = Of(bench.StageResources{Stage: 1, Pool: notFull, PoolUsageMs: 21}, stage, nil)
	if !p.HeldTimed || p.HeldMs != 21 || p.Bound != 0 || p.HandOverMs != 0 {
		t.Errorf("not full: held %v ms (timed %v), bound %v, hand-over %v; want 21, true, 0, 0", p.HeldMs, p.HeldTimed, p.Bound, p.HandOverMs)
	}
	// A timer longer than the round (its clock and the stage's differ a
	// little): no hand-over, never a negative one.
	p = Of(bench.StageResources{Stage: 1, Pool: full, PoolUsageMs: 25.2}, stage, nil)
	if p.HandOverMs != 0 {
		t.Errorf("hand-over %v ms, want 0 where the timed hold fills the round", p.HandOverMs)
	}
}

// A stage's requests in flight split into those waiting for a connection,
// those holding one and the rest, by Little's law over the stage.
func TestStageWhere(t *testing.T) {
	// 400 req/s for 10 s at a mean of 500 ms: 200 in flight.
	stage := bench.StageResult{Index: 1, Name: "c200", Stats: bench.Stats{Completed: 4000, Throughput: 400, Elapsed: bench.Duration(10 * time.Second), Latency: bench.Latency{Mean: 500}}}
	for _, tt := range []struct {
		name            string
		active, pending float64
		elsewhere       float64
		where           string
		size            float64 // the pool's connections; 100 when 0
	}{
		{"pool", 10, 185, 5, WaitPool, 0},
		{"database", 100, 0, 100, WaitDatabase, 0},
		{"database, the rest close behind", 100, 0.5, 99.5, WaitDatabase, 0},
		{"threads queue", 20, 30, 150, WaitThreads, 0},
		// A pool of 10 full throughout with requests waiting for it binds
		// them, though more queued before it (for a CPU): the pool.
		{"full pool behind a queue", 10, 40, 150, WaitPool, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			size := cmp.Or(tt.size, 100)
			p := Of(bench.StageResources{Stage: 1, Pool: map[string]bench.Gauge{bench.PoolMax: {Peak: size, Mean: size},
				bench.PoolActive: {Peak: tt.active, Mean: tt.active}, bench.PoolPending: {Peak: tt.pending, Mean: tt.pending}}}, stage, nil)
			if p.InFlight != 200 || math.Abs(p.Elsewhere-tt.elsewhere) > 1e-9 || p.Where() != tt.where {
				t.Errorf("in flight %v, elsewhere %v, where %q; want 200, %v, %q", p.InFlight, p.Elsewhere, p.Where(), tt.elsewhere, tt.where)
			}
		})
	}
}

// A request's time in the database is the server's active sessions over
// the target's requests per second, in the same stage.
func TestStagesDatabaseTime(t *testing.T) {
	tr := &bench.TargetResult{
		Stages: []bench.StageResult{{Index: 1, Name: "c50", Stats: bench.Stats{Throughput: 400}}},
		Resources: []bench.StageResources{{Stage: 1, Pool: map[string]bench.Gauge{bench.PoolMax: {Peak: 10, Mean: 10},
			bench.PoolActive: {Peak: 10, Mean: 10}, bench.PoolPending: {Peak: 40, Mean: 38}}}},
		Database: []bench.DatabaseStage{{Stage: 0, Warmup: true, Connections: map[string]bench.Gauge{bench.DatabaseActive: {Mean: 1}}},
			{Stage: 1, Connections: map[string]bench.Gauge{bench.DatabaseActive: {Mean: 8.4}}}},
	}
	p := Stages(tr)
	if len(p) != 1 || math.Abs(p[0].DatabaseMs-21) > 1e-9 || p[0].HeldMs != 25 {
		t.Errorf("pool stages %+v: want 21 ms in the database of 25 ms held", p)
	}
}

// Where the server timed its statements, a request's time in the database
// is their mean time, both counters read at once, times the statements a
// request makes. Read in a clean clone on a saturated CPU: 10.07 executing
// over the server's reads, 87.7 req/s over the load's stage, which said
// 114.8 ms in the database for a hold of 102.2; the server's own window
// says 99.2 statements a second, 101.5 ms each, one per request.
func TestStageDatabaseTimeTimed(t *testing.T) {
	r := bench.StageResources{PoolUsageMs: 102.2, Pool: map[string]bench.Gauge{bench.PoolMax: {Peak: 10, Mean: 10},
		bench.PoolActive: {Peak: 10, Mean: 10}, bench.PoolPending: {Peak: 390, Mean: 380}}}
	s := bench.StageResult{Index: 2, Stats: bench.Stats{Throughput: 87.7}}
	db := &bench.DatabaseStage{Stage: 2, Executing: 10.07, StatementsPerSec: 99.2, Connections: map[string]bench.Gauge{bench.DatabaseActive: {Mean: 9}}}
	p := Of(r, s, db)
	if want := 10.07 / 99.2 * 1000; p.PerRequest != 1 || math.Abs(p.DatabaseMs-want) > 1e-9 || math.Abs(p.ServiceMs()-(102.2-want)) > 1e-9 {
		t.Errorf("%g statements a request, in the database %.2f ms, in the service %.2f; want 1, %.2f and %.2f",
			p.PerRequest, p.DatabaseMs, p.ServiceMs(), want, 102.2-want)
	}
	// Three statements a request (a transaction's BEGIN, its query and its
	// COMMIT), 2.9 by the two windows: three of 10 ms each on average.
	db = &bench.DatabaseStage{Stage: 2, Executing: 2.61, StatementsPerSec: 261}
	s.Stats.Throughput = 90
	if p := Of(r, s, db); p.PerRequest != 3 || math.Abs(p.DatabaseMs-30) > 1e-9 {
		t.Errorf("%g statements a request, %.2f ms in the database; want 3 and 30", p.PerRequest, p.DatabaseMs)
	}
}

// Statements a request makes: a whole number where the two windows' ratio
// is near one, else the ratio (a request that sometimes queries).
func TestStatementsPerRequest(t *testing.T) {
	for _, c := range []struct{ ratio, want float64 }{
		{1.12, 1}, {0.88, 1}, {2.9, 3}, {3.4, 3}, {1.5, 1.5}, {0.5, 0.5}, {0.8, 0.8}, {1.2, 1.2},
	} {
		if got := statementsPerRequest(c.ratio); got != c.want {
			t.Errorf("statementsPerRequest(%g) = %g, want %g", c.ratio, got, c.want)
		}
	}
}
