package chart_test

import (
	"math"
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/chart"
)

// line returns points at X = 0, 1, 2... with the given Y values.
func line(ys ...float64) []chart.Point {
	pts := make([]chart.Point, len(ys))
	for i, y := range ys {
		pts[i] = chart.Point{X: float64(i), Y: y}
	}
	return pts
}

func TestDownsample(t *testing.T) {
	tests := []struct {
		name    string
		points  []chart.Point
		columns int
		want    []chart.Point
	}{{
		name:    "short series are kept whole",
		points:  line(1, 5, 2),
		columns: 2,
		want:    line(1, 5, 2),
	}, {
		name:    "low then high of each column, in order",
		points:  line(3, 1, 9, 4, 2, 8, 5, 7),
		columns: 2, // X 0–3 and X 4–7
		want:    []chart.Point{{X: 1, Y: 1}, {X: 2, Y: 9}, {X: 4, Y: 2}, {X: 5, Y: 8}},
	}, {
		name:    "high before low keeps that order",
		points:  line(9, 1, 5, 5, 5, 5, 5, 5),
		columns: 2,
		want:    []chart.Point{{X: 0, Y: 9}, {X: 1, Y: 1}, {X: 4, Y: 5}},
	}, {
		name:    "a flat column gives one point",
		points:  line(4, 4, 4, 4, 4, 4, 4, 4),
		columns: 2,
		want:    []chart.Point{{X: 0, Y: 4}, {X: 4, Y: 4}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			last := tt.points[len(tt.points)-1].X
			if got := chart.Downsample(tt.points, 0, last, tt.columns); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDownsample_PeaksSurvive(t *testing.T) {
	tests := []struct {
		name   string
		spikes map[int]float64 // index → value; a map is fine here, only looked up
	}{
		{"one spike up", map[int]float64{4321: 1000}},
		{"one dip down", map[int]float64{777: -1000}},
		{"spike and dip in one column", map[int]float64{5000: 1000, 5001: -1000}},
		{"first and last points", map[int]float64{0: 500, 9999: -500}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts := make([]chart.Point, 10_000)
			for i := range pts {
				pts[i] = chart.Point{X: float64(i) / 10, Y: math.Sin(float64(i) / 50)}
				if v, ok := tt.spikes[i]; ok {
					pts[i].Y = v
				}
			}
			got := chart.Downsample(pts, 0, pts[len(pts)-1].X, 640)
			if len(got) > 2*640 {
				t.Errorf("%d points, want at most two per column (%d)", len(got), 2*640)
			}
			for i, v := range tt.spikes {
				if !slices.Contains(got, pts[i]) {
					t.Errorf("point %d (%g) was dropped", i, v)
				}
			}
			if !slices.IsSortedFunc(got, func(a, b chart.Point) int { return int(math.Copysign(1, a.X-b.X)) }) {
				t.Error("points are out of order")
			}
		})
	}
}
