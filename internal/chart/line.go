package chart

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Default size of a line chart, in pixels.
const (
	DefaultWidth  = 720
	DefaultHeight = 260
)

// tooltipMax is the largest series whose points get a hover tooltip each;
// past it the tooltips would outweigh the chart.
const tooltipMax = 600

// Point is one sample: X in seconds on the run's clock (negative before time
// zero, during a warm-up), Y in the chart's unit. A NaN or infinite X or Y is
// a missing sample and breaks the line.
type Point struct{ X, Y float64 }

// Series is one line of a chart: its name, for the legend and the tooltips,
// and its points in increasing X.
type Series struct {
	Name   string
	Points []Point
}

// Marker is a vertical dashed line at X with a short label, such as the
// start of a stage ("stage 2 (c200)").
type Marker struct {
	X     float64
	Label string
}

// Band shades the span of X from From to To, such as the warm-up, in grey
// or, when Tinted, in the colour of series Series (a transient of that
// series' target cut from its figures).
type Band struct {
	From, To float64
	Label    string
	Tinted   bool
	Series   int
}

// LineChart is several series over a shared time axis in seconds. Series i
// is drawn in Color(i): to keep a target's colour across charts, give it the
// same index everywhere, passing an empty Series for a target with no data.
type LineChart struct {
	ID     string  // the root's data-chart attribute
	Title  string  // shown on top, and the chart's accessible name
	XLabel string  // the time axis; "time (s)" when empty
	XWord  string  // how a marker's tooltip says where it is: "run" says "at run 5"; empty, "at 5 s"
	Unit   string  // the values' unit: "ms", "req/s", "MiB", "%", "threads"
	YMin   float64 // where the value axis starts, unless values go lower
	Series []Series
	// Markers and Bands widen the time axis if they fall outside the data.
	Markers []Marker
	Bands   []Band
	// Width and Height default to DefaultWidth and DefaultHeight.
	Width, Height int
}

// Render writes the chart as a standalone SVG document.
func (c LineChart) Render(w io.Writer) error {
	_, err := io.WriteString(w, c.SVG())
	return err
}

// SVG returns the chart as an SVG document, to embed in HTML as it is.
func (c LineChart) SVG() string {
	ext, ok := c.extent()
	if !ok {
		return c.empty()
	}
	l := c.layout(ext)
	var s svg
	s.open(c.ID, ariaLabel(c.Title, "line chart"), c.describe(ext), l.width, l.height)
	s.heading(c.Title)
	c.legend(&s, l.legend)
	l.bands(&s, c.Bands)
	l.grid(&s)
	l.axes(&s, c.xLabel(), c.Unit)
	l.markers(&s, c.Markers, c.where)
	for i, series := range c.Series {
		l.series(&s, i, series, c.Unit)
	}
	return s.close()
}

// empty renders a chart with nothing to plot: its title, "no data" and one
// empty group per series.
func (c LineChart) empty() string {
	width, height := c.size()
	var s svg
	s.open(c.ID, ariaLabel(c.Title, "line chart"), "Line chart with no data.", width, height)
	s.heading(c.Title)
	s.noData(width, height)
	for _, series := range c.Series {
		s.emptySeries(series.Name)
	}
	return s.close()
}

// size returns the requested size or the default one.
func (c LineChart) size() (int, int) {
	width, height := c.Width, c.Height
	if width <= 0 {
		width = DefaultWidth
	}
	if height <= 0 {
		height = DefaultHeight
	}
	return max(width, 200), max(height, 120)
}

// where says where X is in a tooltip: "run 5", or "5 s" on the time axis.
func (c LineChart) where(x float64) string {
	if c.XWord == "" {
		return formatPrecise(x) + " s"
	}
	return c.XWord + " " + formatPrecise(x)
}

// xLabel returns the time axis's label.
func (c LineChart) xLabel() string {
	if c.XLabel == "" {
		return "time (s)"
	}
	return c.XLabel
}

// describe returns the <desc> text: what a screen reader says beyond the
// title.
func (c LineChart) describe(ext extent) string {
	names := make([]string, len(c.Series))
	for i, series := range c.Series {
		names[i] = series.Name
	}
	return fmt.Sprintf("Line chart of %d series (%s) from %s s to %s s, values from %s to %s %s.",
		len(c.Series), strings.Join(names, ", "), formatValue(ext.xlo), formatValue(ext.xhi),
		formatValue(ext.ylo), formatValue(ext.yhi), c.Unit)
}

// extent is the range of the data to plot.
type extent struct{ xlo, xhi, ylo, yhi float64 }

// extent returns the range of every drawable point, widened in X to the
// markers and bands; ok is false when there is no point at all.
func (c LineChart) extent() (ext extent, ok bool) {
	ext = extent{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	for _, series := range c.Series {
		for _, seg := range segments(series.Points) {
			for _, p := range seg {
				ext.xlo, ext.xhi = math.Min(ext.xlo, p.X), math.Max(ext.xhi, p.X)
				ext.ylo, ext.yhi = math.Min(ext.ylo, p.Y), math.Max(ext.yhi, p.Y)
			}
		}
	}
	if math.IsInf(ext.xlo, 1) {
		return ext, false
	}
	for _, x := range c.decorationXs() {
		ext.xlo, ext.xhi = math.Min(ext.xlo, x), math.Max(ext.xhi, x)
	}
	return ext, true
}

// decorationXs returns the drawable X of every marker and band edge.
func (c LineChart) decorationXs() []float64 {
	var xs []float64
	for _, m := range c.Markers {
		xs = append(xs, m.X)
	}
	for _, b := range c.Bands {
		xs = append(xs, b.From, b.To)
	}
	drawable := xs[:0]
	for _, x := range xs {
		if finite(x) {
			drawable = append(drawable, clamp(x))
		}
	}
	return drawable
}

// segments splits points at every missing sample into runs of drawable
// points, clamped to maxMagnitude.
func segments(points []Point) [][]Point {
	var segs [][]Point
	var run []Point
	for _, p := range points {
		if !finite(p.X) || !finite(p.Y) {
			segs, run = appendRun(segs, run), nil
			continue
		}
		run = append(run, Point{clamp(p.X), clamp(p.Y)})
	}
	return appendRun(segs, run)
}

// appendRun appends run to segs unless it is empty.
func appendRun(segs [][]Point, run []Point) [][]Point {
	if len(run) == 0 {
		return segs
	}
	return append(segs, run)
}
