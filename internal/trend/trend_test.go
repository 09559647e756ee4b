package trend_test

import (
	"fmt"
	"math"
	"testing"

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
