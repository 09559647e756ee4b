package trend

import (
	"slices"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
)

// Directions of a change point, as the figure's reader sees them.
const (
	Better = "better"
	Worse  = "worse"
)

// Figure is a figure a trend follows: its name, unit, which way is
// better, and how it is read from a run's whole-attack figures (nil for a
// capacity search's answer, which is not one of them).
type Figure struct {
	Name           string
	Unit           string
	HigherIsBetter bool
	of             func(bench.Figures) bench.Estimate
}

// Figures are the figures a trend follows: the whole attack's, and a
// capacity search's answer (its trials are stages, not one attack).
var Figures = []Figure{
	{analysis.MetricThroughput, analysis.UnitReqPerSec, true, func(f bench.Figures) bench.Estimate { return f.Throughput }},
	{analysis.MetricP50, analysis.UnitMs, false, func(f bench.Figures) bench.Estimate { return f.Latency.P50 }},
	{analysis.MetricP90, analysis.UnitMs, false, func(f bench.Figures) bench.Estimate { return f.Latency.P90 }},
	{analysis.MetricP99, analysis.UnitMs, false, func(f bench.Figures) bench.Estimate { return f.Latency.P99 }},
	{string(bench.MetricErrors), analysis.UnitPercent, false, func(f bench.Figures) bench.Estimate { return f.ErrorRate }},
	{Name: check.FigureCapacity, Unit: analysis.UnitReqPerSec, HigherIsBetter: true},
}

// FigureNames are the names of Figures, as --figure and ?figure= take them.
func FigureNames() []string {
	names := make([]string, len(Figures))
	for i, f := range Figures {
		names[i] = f.Name
	}
	return names
}

// LookupFigure returns the figure called name, or an EINVALID error
// naming FieldFigure and the valid names.
func LookupFigure(name string) (Figure, error) {
	if i := slices.IndexFunc(Figures, func(f Figure) bool { return f.Name == name }); i >= 0 {
		return Figures[i], nil
	}
	return Figure{}, bench.FieldErrorf(FieldFigure, "unknown figure %q (valid: %s)", name, strings.Join(FigureNames(), ", "))
}

// Trend is one figure of one target over the runs of one spec, oldest
// first, and where it changed.
type Trend struct {
	Name           string            `json:"name"`
	Target         string            `json:"target"`
	Label          map[string]string `json:"label,omitempty"` // the label the runs carry, when one was asked
	Figure         string            `json:"figure"`
	Unit           string            `json:"unit"`
	HigherIsBetter bool              `json:"higherIsBetter"`
	Method         string            `json:"method"`
	Alpha          float64           `json:"alpha"`
	MinSize        int               `json:"minSize"` // the fewest runs on each side of a change point
	Points         []Point           `json:"points"`
	ChangePoints   []ChangePoint     `json:"changePoints"`
}

// Point is one run's figure, with its confidence interval when the run
// gives one.
type Point struct {
	RunID     string            `json:"runId"`
	CreatedAt time.Time         `json:"createdAt"`
	Labels    map[string]string `json:"labels,omitempty"`
	Value     float64           `json:"value"`
	CI        *bench.Interval   `json:"ci,omitempty"`
}

// ChangePoint is where the figure changed: the first run after the change,
// the means of the runs from the previous change point to it and from it
// to the next, the relative change in percent (0 from a zero mean), and
// its test's p-value.
type ChangePoint struct {
	Index     int     `json:"index"`
	RunID     string  `json:"runId"`
	Direction string  `json:"direction"` // Better or Worse
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	Change    float64 `json:"change"`
	PValue    float64 `json:"pValue"`
}

// Analyze finds the change points of points in fig, oldest first.
func Analyze(points []Point, fig Figure, o Options) Trend {
	o = o.withDefaults()
	t := Trend{Figure: fig.Name, Unit: fig.Unit, HigherIsBetter: fig.HigherIsBetter, Method: Method,
		Alpha: o.Alpha, MinSize: o.MinSize, Points: points, ChangePoints: []ChangePoint{}}
	values := make([]float64, len(points))
	for i, p := range points {
		values[i] = p.Value
	}
	splits := Splits(values, o)
	for i, s := range splits {
		from, to := 0, len(values)
		if i > 0 {
			from = splits[i-1].Index
		}
		if i+1 < len(splits) {
			to = splits[i+1].Index
		}
		t.ChangePoints = append(t.ChangePoints, changePoint(points, values[from:s.Index], values[s.Index:to], s, fig))
	}
	return t
}

func changePoint(points []Point, before, after []float64, s Split, fig Figure) ChangePoint {
	c := ChangePoint{Index: s.Index, RunID: points[s.Index].RunID, PValue: s.PValue, Before: mean(before), After: mean(after)}
	if c.Before != 0 {
		c.Change = (c.After - c.Before) / c.Before * 100
	}
	c.Direction = Worse
	if (c.After > c.Before) == fig.HigherIsBetter {
		c.Direction = Better
	}
	return c
}

func mean(values []float64) float64 {
	var sum float64
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values))
}

// IsChangePoint returns the change point at point i, if one is there.
func (t Trend) IsChangePoint(i int) (ChangePoint, bool) {
	for _, c := range t.ChangePoints {
		if c.Index == i {
			return c, true
		}
	}
	return ChangePoint{}, false
}
