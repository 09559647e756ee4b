package chart_test

import (
	"fmt"
	"os"

	"github.com/threadbench/threadbench/internal/chart"
)

// A target keeps its index, and so its colour, in every chart and table.
func ExampleColor() {
	for i, target := range []string{"Java platform threads", "Java virtual threads", "Go goroutines"} {
		fmt.Printf("%s %s\n", chart.Color(i), target)
	}
	// Output:
	// #0072B2 Java platform threads
	// #D55E00 Java virtual threads
	// #009E73 Go goroutines
}

func ExampleLineChart() {
	c := chart.LineChart{
		ID: "latency-p99", Title: "p99 latency", Unit: "ms",
		Series: []chart.Series{
			{Name: "Java virtual threads", Points: []chart.Point{{X: -10, Y: 12}, {X: 0, Y: 9}, {X: 10, Y: 31}}},
			{Name: "Go goroutines", Points: []chart.Point{{X: -10, Y: 8}, {X: 0, Y: 7}, {X: 10, Y: 15}}},
		},
		Markers: []chart.Marker{{X: 0, Label: "stage 1 (c50)"}},
		Bands:   []chart.Band{{From: -10, To: 0, Label: "warm-up"}},
	}
	if err := c.Render(os.Stdout); err != nil {
		fmt.Println(err)
	}
}
