package trend_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/trend"
)

func pointsOf(values ...float64) []trend.Point {
	points := make([]trend.Point, len(values))
	for i, v := range values {
		points[i] = trend.Point{RunID: fmt.Sprintf("r%d", i+1), Value: v}
	}
	return points
}

func TestAnalyzeDirection(t *testing.T) {
	up := pointsOf(10, 10.2, 9.9, 10.1, 15, 15.2, 14.9, 15.1)
	down := pointsOf(15, 15.2, 14.9, 15.1, 10, 10.2, 9.9, 10.1)
	tests := []struct {
		name   string
		figure string
		points []trend.Point
		want   string
	}{
		{"throughput up is better", "throughput", up, trend.Better},
		{"throughput down is worse", "throughput", down, trend.Worse},
		{"p99 up is worse", "p99", up, trend.Worse},
		{"errors down is better", "errors", down, trend.Better},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fig, err := trend.LookupFigure(tt.figure)
			if err != nil {
				t.Fatal(err)
			}
			got := trend.Analyze(tt.points, fig, trend.Options{})
			if len(got.ChangePoints) != 1 {
				t.Fatalf("change points %+v, want one", got.ChangePoints)
			}
			c := got.ChangePoints[0]
			if c.Index != 4 || c.RunID != "r5" || c.Direction != tt.want {
				t.Errorf("change point %+v, want %s at r5", c, tt.want)
			}
			if want := (c.After - c.Before) / c.Before * 100; math.Abs(c.Change-want) > 1e-9 || math.Abs(math.Abs(c.After-c.Before)-5) > 0.1 {
				t.Errorf("means %g -> %g, change %g%%", c.Before, c.After, c.Change)
			}
		})
	}
}

func TestLookupFigureUnknown(t *testing.T) {
	if _, err := trend.LookupFigure("p42"); err == nil {
		t.Fatal("p42 is a figure")
	}
}

// history is a run history of whole documents, newest first, as
// check.EachNamed reads one.
type history []*bench.Run

func (h history) FindRunByID(_ context.Context, id string) (*bench.Run, error) {
	for _, r := range h {
		if r.ID == id {
			return r, nil
		}
	}
	return nil, bench.Errorf(bench.ENOTFOUND, "no run %s", id)
}

func (h history) FindRunSummaries(context.Context, bench.RunFilter) ([]bench.RunSummary, string, error) {
	out := make([]bench.RunSummary, len(h))
	for i, r := range h {
		out[i] = r.Summary()
	}
	return out, "", nil
}

// A capacity search's answer is a figure of the trend: each search's rate
// (0 where none passed), oldest first; a run of the name that searched
// nothing gives no point.
func TestReadCapacity(t *testing.T) {
	search := func(id string, minute int, rate float64) *bench.Run {
		return &bench.Run{ID: id, Name: "nightly", Status: bench.RunSucceeded, CreatedAt: time.Date(2026, 11, 29, 4, minute, 0, 0, time.UTC),
			Targets: []bench.TargetResult{{Target: "go", Capacity: &bench.CapacityResult{Rate: rate}}}}
	}
	plain := &bench.Run{ID: "r4", Name: "nightly", Status: bench.RunSucceeded, CreatedAt: time.Date(2026, 11, 29, 4, 3, 0, 0, time.UTC),
		Targets: []bench.TargetResult{{Target: "go"}}}
	h := history{search("r5", 4, 0), plain, search("r3", 2, 1200), search("r2", 1, 1180), search("r1", 0, 1210)}
	got, err := trend.Read(context.Background(), h, trend.Query{Name: "nightly", Target: "go", Figure: "capacity"}, trend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var values []float64
	for _, p := range got.Points {
		ids, values = append(ids, p.RunID), append(values, p.Value)
	}
	if fmt.Sprint(ids) != "[r1 r2 r3 r5]" || fmt.Sprint(values) != "[1210 1180 1200 0]" || got.Unit != "req/s" || !got.HigherIsBetter {
		t.Errorf("points %v %v, unit %q, higher is better %t; want the four searches' answers in req/s, oldest first", ids, values, got.Unit, got.HigherIsBetter)
	}
}
