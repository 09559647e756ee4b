package database_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/database"
)

// series is a recording of samples at t = -1, 0, 1, 2, 3 and 4 s: a warm-up
// over [-1, 0) and two stages over [0, 2) and [2, 4), the last sample
// after them all.
func series() []bench.Series {
	pts := func(vs ...float64) []bench.Point {
		out := make([]bench.Point, len(vs))
		for i, v := range vs {
			out[i] = bench.Point{T: float64(i - 1), V: v}
		}
		return out
	}
	conn := func(state string, vs ...float64) bench.Series {
		return bench.Series{Name: database.SeriesConnections, Labels: map[string]string{database.LabelState: state}, Points: pts(vs...)}
	}
	return []bench.Series{
		conn(bench.DatabaseActive, 0, 4, 6, 10, 2, 9),
		conn(bench.DatabaseIdle, 10, 6, 4, 0, 8, 1),
		conn(bench.DatabaseIdleInTransaction, 0, 0, 0, 0, 0, 0),
		// Waits seen only in some samples: the others count 0.
		{Name: database.SeriesWaits, Labels: map[string]string{database.LabelWait: "Lock"}, Points: []bench.Point{{T: 1, V: 6}}},
		{Name: database.SeriesWaits, Labels: map[string]string{database.LabelWait: database.WaitCPU}, Points: pts(0, 4, 0, 4, 2, 9)},
		// Rates from the second sample on.
		{Name: database.SeriesTransactions, Points: []bench.Point{{T: 0, V: 100}, {T: 1, V: 300}, {T: 2, V: 50}, {T: 3, V: 150}, {T: 4, V: 7}}},
		{Name: database.SeriesRows, Points: []bench.Point{{T: 0, V: 1000}, {T: 1, V: 3000}, {T: 2, V: 0}, {T: 3, V: 0}, {T: 4, V: 7}}},
		{Name: database.SeriesLocks, Points: pts(0, 2, 8, 0, 1, 5)},
	}
}

func stage(index int, start, length time.Duration, warmup bool) bench.StageResult {
	return bench.StageResult{Index: index, StartOffset: bench.Duration(start), Duration: bench.Duration(length), Warmup: warmup}
}

func TestSummarize(t *testing.T) {
	warmup := stage(0, -time.Second, time.Second, true)
	stages := []bench.StageResult{stage(0, 0, 2*time.Second, false), stage(1, 2*time.Second, 2*time.Second, false)}
	got := database.Summarize(series(), &warmup, stages)
	want := []bench.DatabaseStage{
		{
			Stage: 0, Warmup: true, Samples: 1,
			Connections: map[string]bench.Gauge{
				bench.DatabaseActive: {Peak: 0, Mean: 0}, bench.DatabaseIdle: {Peak: 10, Mean: 10}, bench.DatabaseIdleInTransaction: {},
			},
			Waits: map[string]bench.Gauge{database.WaitCPU: {}},
			Locks: bench.Gauge{},
		},
		{
			Stage: 0, Samples: 2,
			Connections: map[string]bench.Gauge{
				bench.DatabaseActive: {Peak: 6, Mean: 5}, bench.DatabaseIdle: {Peak: 6, Mean: 5}, bench.DatabaseIdleInTransaction: {},
			},
			Waits:              map[string]bench.Gauge{"Lock": {Peak: 6, Mean: 3}, database.WaitCPU: {Peak: 4, Mean: 2}},
			TransactionsPerSec: 200, RowsPerSec: 2000,
			Locks: bench.Gauge{Peak: 8, Mean: 5},
		},
		{
			Stage: 1, Samples: 2,
			Connections: map[string]bench.Gauge{
				bench.DatabaseActive: {Peak: 10, Mean: 6}, bench.DatabaseIdle: {Peak: 8, Mean: 4}, bench.DatabaseIdleInTransaction: {},
			},
			Waits:              map[string]bench.Gauge{database.WaitCPU: {Peak: 4, Mean: 3}},
			TransactionsPerSec: 100, RowsPerSec: 0,
			Locks: bench.Gauge{Peak: 1, Mean: 0.5},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summarize =\n%+v\nwant\n%+v", got, want)
	}
}

func TestSummarize_StageWithoutSamples(t *testing.T) {
	got := database.Summarize(series(), nil, []bench.StageResult{stage(3, 10*time.Second, time.Second, false)})
	want := []bench.DatabaseStage{{Stage: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summarize of a stage after the samples = %+v, want %+v", got, want)
	}
}

// A rate's points count for the time they cover: a sample a loaded
// machine took late (1.8 s after the one before) and the one at once after
// it (0.2 s) are 19 statements executing over the stage, not the 55 their
// plain mean says.
func TestSummarize_RatesWeightedByTheirInterval(t *testing.T) {
	series := []bench.Series{
		{Name: database.SeriesConnections, Labels: map[string]string{database.LabelState: bench.DatabaseActive},
			Points: []bench.Point{{T: 0, V: 10}, {T: 1.8, V: 10}, {T: 2, V: 10}}},
		{Name: database.SeriesExecuting, Points: []bench.Point{{T: 1.8, V: 10}, {T: 2, V: 100}}},
	}
	got := database.Summarize(series, nil, []bench.StageResult{stage(0, 0, 2500*time.Millisecond, false)})
	if len(got) != 1 || math.Abs(got[0].Executing-19) > 1e-9 {
		t.Errorf("Summarize = %+v, want 19 executing", got)
	}
}

// The statements' mean time is their execution time over their number,
// both over the same reads: 100 ms each, whatever the intervals' weights.
func TestSummarize_StatementTime(t *testing.T) {
	series := []bench.Series{
		{Name: database.SeriesConnections, Labels: map[string]string{database.LabelState: bench.DatabaseActive},
			Points: []bench.Point{{T: 0, V: 10}, {T: 1.8, V: 10}, {T: 2, V: 10}}},
		{Name: database.SeriesExecuting, Points: []bench.Point{{T: 1.8, V: 10}, {T: 2, V: 100}}},
		{Name: database.SeriesStatements, Points: []bench.Point{{T: 1.8, V: 100}, {T: 2, V: 1000}}},
	}
	got := database.Summarize(series, nil, []bench.StageResult{stage(0, 0, 2500*time.Millisecond, false)})
	if len(got) != 1 || math.Abs(got[0].StatementMs()-100) > 1e-9 || math.Abs(got[0].StatementsPerSec-190) > 1e-9 {
		t.Errorf("Summarize = %+v: %g ms a statement, want 100 ms at 190 a second", got, got[0].StatementMs())
	}
}
