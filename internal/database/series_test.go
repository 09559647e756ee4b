package database

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// taken is a sample at t0+at seconds with one active session waiting for
// wait (none: no session), and the counters given.
func taken(t0 time.Time, at float64, wait string, transactions, rows float64) takenSample {
	s := newSample()
	if wait != "" {
		s.addSession(bench.DatabaseActive, wait, 1)
	}
	s.transactions, s.rows, s.locks = transactions, rows, 1
	return takenSample{at: t0.Add(time.Duration(at * float64(time.Second))), sample: s}
}

func TestBuildSeries(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	samples := []takenSample{
		taken(t0, -0.5, "", 100, 1000),
		taken(t0, 0.5, "Lock", 300, 1500),
		taken(t0, 1.5, "", 50, 1600), // the server's counters were reset
		taken(t0, 2, "", 70, 1700),
	}
	got := map[string][]bench.Point{}
	for _, s := range buildSeries(samples, t0) {
		key := s.Name
		for _, v := range s.Labels {
			key += "/" + v
		}
		got[key] = s.Points
	}
	pts := func(vs ...float64) []bench.Point {
		at := []float64{-0.5, 0.5, 1.5, 2}
		out := make([]bench.Point, len(vs))
		for i, v := range vs {
			out[i] = bench.Point{T: at[i], V: v}
		}
		return out
	}
	want := map[string][]bench.Point{
		SeriesConnections + "/" + bench.DatabaseActive:            pts(0, 1, 0, 0),
		SeriesConnections + "/" + bench.DatabaseIdle:              pts(0, 0, 0, 0),
		SeriesConnections + "/" + bench.DatabaseIdleInTransaction: pts(0, 0, 0, 0),
		SeriesWaits + "/Lock":                                     pts(0, 1, 0, 0),
		SeriesTransactions:                                        {{T: 0.5, V: 200}, {T: 2, V: 40}},
		SeriesRows:                                                {{T: 0.5, V: 500}, {T: 1.5, V: 100}, {T: 2, V: 200}},
		SeriesLocks:                                               pts(1, 1, 1, 1),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("buildSeries =\n%v\nwant\n%v", got, want)
	}
}

func TestBuildSeries_None(t *testing.T) {
	if got := buildSeries(nil, time.Now()); got != nil {
		t.Errorf("buildSeries of no samples = %v, want none", got)
	}
}

func TestAddSession(t *testing.T) {
	s := newSample()
	s.addSession(pgState("active"), "", 2)
	s.addSession(pgState("active"), "Lock", 1)
	s.addSession(pgState("idle in transaction (aborted)"), "Client", 1)
	s.addSession(pgState("disabled"), "", 4)
	s.addSession(myState("Sleep", false), "", 3)
	s.addSession(myState("Query", false), "User sleep", 5)
	s.addSession(myState("Sleep", true), "", 1)
	wantConns := map[string]float64{bench.DatabaseActive: 8, bench.DatabaseIdle: 3, bench.DatabaseIdleInTransaction: 2}
	wantWaits := map[string]float64{WaitCPU: 2, "Lock": 1, "User sleep": 5}
	if !reflect.DeepEqual(s.connections, wantConns) || !reflect.DeepEqual(s.waits, wantWaits) {
		t.Errorf("connections %v, waits %v; want %v, %v", s.connections, s.waits, wantConns, wantWaits)
	}
}

// The statements' execution time is a rate between the samples that read it
// (PostgreSQL's pg_stat_statements), between the instants the counter was
// read: a server executing 10 statements at a time all along, read 0.1,
// 0.9 and 0 s after samples that began at 0, 1 and 3 s, is 10 executing
// at each point, where the samples' own instants would say 18, then 5.5.
// A sample whose read failed is skipped; a server that does not time its
// statements has no series.
func TestBuildSeries_Executing(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	samples := []takenSample{taken(t0, 0, "", 1, 1), taken(t0, 1, "", 2, 2), taken(t0, 3, "", 3, 3)}
	for i, read := range []float64{0.1, 1.9, 3} {
		samples[i].executed, samples[i].executedAt, samples[i].timed = 10*read, t0.Add(time.Duration(read*float64(time.Second))), true
		samples[i].statements = 100 * read // 100 ms each
	}
	got := map[string][]bench.Point{}
	for _, s := range buildSeries(samples, t0) {
		got[s.Name] = s.Points
	}
	for name, want := range map[string]float64{SeriesExecuting: 10, SeriesStatements: 100} {
		p := got[name]
		if len(p) != 2 || math.Abs(p[0].T-1.9) > 1e-9 || math.Abs(p[0].V-want) > 1e-9 || math.Abs(p[1].T-3) > 1e-9 || math.Abs(p[1].V-want) > 1e-9 {
			t.Errorf("%s = %v, want %g at 1.9 s and at 3 s", name, p, want)
		}
	}
	// A read that failed between two that did not: the rate spans them.
	samples[1].timed = false
	got = map[string][]bench.Point{}
	for _, s := range buildSeries(samples, t0) {
		got[s.Name] = s.Points
	}
	for name, want := range map[string]float64{SeriesExecuting: 10, SeriesStatements: 100} {
		if p := got[name]; len(p) != 1 || math.Abs(p[0].T-3) > 1e-9 || math.Abs(p[0].V-want) > 1e-9 {
			t.Errorf("with the read at 1.9 s failed, %s = %v, want %g at 3 s", name, p, want)
		}
	}
	// A server that does not time its statements: no series.
	for i := range samples {
		samples[i].timed = false
	}
	for _, s := range buildSeries(samples, t0) {
		if s.Name == SeriesExecuting || s.Name == SeriesStatements {
			t.Errorf("samples without the statements' time gave %s %v", s.Name, s.Points)
		}
	}
}

// Where the server gave its clock with the counters, a rate is over the
// interval between two reads on it, whatever this side saw: a server
// executing 50 statements a second, read at 1 s intervals on its clock,
// whose answers a starved reader took 0.4 s to read once (the round
// trip's middle 0.2 s late), is 50 at every point, where the reader's
// instants say 62.5, then 41.7; the points stay at the reader's instants.
func TestBuildSeries_ServerClock(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	server := t0.Add(-3 * time.Hour) // another host's clock: only its intervals count
	var samples []takenSample
	for i, late := range []float64{0, 0.2, 0} {
		s := taken(t0, float64(i), "", 1, 1)
		s.executedAt = t0.Add(time.Duration((float64(i) + late) * float64(time.Second)))
		s.serverAt = server.Add(time.Duration(i) * time.Second)
		s.statements, s.executed, s.timed = 50*float64(i), 5*float64(i), true
		samples = append(samples, s)
	}
	for _, s := range buildSeries(samples, t0) {
		if s.Name != SeriesStatements {
			continue
		}
		if len(s.Points) != 2 || s.Points[0].V != 50 || s.Points[1].V != 50 || math.Abs(s.Points[0].T-1.2) > 1e-9 || s.Points[1].T != 2 {
			t.Errorf("statements per second %v, want 50 at 1.2 s and at 2 s", s.Points)
		}
		return
	}
	t.Errorf("no %s series", SeriesStatements)
}
