package chart_test

import (
	"math"

	"github.com/threadbench/threadbench/internal/chart"
)

// targets are the series names the reports use, one per thread model.
var targets = []string{"Java platform threads", "Java virtual threads", "Go goroutines"}

// wave returns n points from x0 every dx seconds of a smooth, deterministic
// curve around base, different for each seed.
func wave(n int, x0, dx, base float64, seed int) []chart.Point {
	pts := make([]chart.Point, n)
	for i := range pts {
		x := x0 + float64(i)*dx
		y := base * (1 + 0.3*math.Sin(x/17+float64(seed)) + 0.1*math.Sin(x/3.1*float64(seed+1)))
		pts[i] = chart.Point{X: x, Y: y}
	}
	return pts
}

// stagesChart is a latency chart as the run report draws it: a warm-up
// before time zero, three stages, and a gap in one target's samples.
func stagesChart() chart.LineChart {
	c := chart.LineChart{
		ID: "latency-p99", Title: "p99 latency", Unit: "ms",
		Markers: []chart.Marker{{X: 0, Label: "stage 1 (c50)"}, {X: 90, Label: "stage 2 (c200)"}, {X: 180, Label: "stage 3 (c800)"}},
		Bands:   []chart.Band{{From: -30, To: 0, Label: "warm-up"}},
	}
	for i, name := range targets {
		c.Series = append(c.Series, chart.Series{Name: name, Points: wave(61, -30, 5, 20*float64(i+1), i)})
	}
	for i := 30; i < 34; i++ {
		c.Series[1].Points[i].Y = math.NaN() // a scrape that failed
	}
	return c
}

// bigChart is the size benchmark of the brief: 3 series × 600 points.
func bigChart() chart.LineChart {
	c := stagesChart()
	c.ID = "big"
	for i := range c.Series {
		c.Series[i].Points = wave(600, -30, 1, 1000*float64(i+1), i)
	}
	return c
}

// longChart has one series long enough to be downsampled, with one spike.
func longChart() chart.LineChart {
	pts := wave(5000, 0, 0.1, 100, 0)
	pts[2345].Y = 900
	return chart.LineChart{ID: "long", Title: "RSS", Unit: "MiB", Series: []chart.Series{{Name: "Go goroutines", Points: pts}}}
}

// ciChart is throughput per target with 95% confidence intervals.
func ciChart() chart.BarChart {
	return chart.BarChart{ID: "throughput", Title: "Throughput (95% CI)", Unit: "req/s", Bars: []chart.Bar{
		{Label: targets[0], Value: 11840, Lo: 11210, Hi: 12400, Color: 0},
		{Label: targets[1], Value: 23310, Lo: 22950, Hi: 23700, Color: 1},
		{Label: targets[2], Value: 25020, Color: 2}, // no interval
	}}
}

// searchChart is java-platform's search as a capacity report draws it:
// bracketing down from its pool's bound (1,000 req/s failed far above the
// objective), bisecting up to 970 req/s, which failed, and confirmed at
// 955 req/s.
func searchChart() chart.SearchChart {
	c := chart.SearchChart{ID: "search-1", Title: "java-platform: p99 by offered rate", Name: "java-platform", Color: 1,
		Unit: "ms", Limit: 300, LimitLabel: "p99 ≤ 300 ms",
		Answer: 955, Failed: 970}
	for _, t := range []struct {
		rate, p99     float64
		pass, confirm bool
	}{{1000, 2400, false, false}, {500, 205, true, false}, {750, 206, true, false}, {875, 210, true, false},
		{940, 230, true, false}, {970, 320, false, false}, {955, 260, true, false},
		{955, 262, true, true}, {955, 259, true, true}, {955, 280, true, true}} {
		c.Trials = append(c.Trials, chart.Trial{Rate: t.rate, Value: t.p99, Pass: t.pass, Confirm: t.confirm,
			Label: "trial at " + chart.FormatValue(t.rate) + " req/s"})
	}
	return c
}
