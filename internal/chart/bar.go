package chart

import (
	"fmt"
	"io"
	"math"
)

// Rows of a bar chart, in pixels.
const (
	barRow       = 24 // from one bar to the next
	barThickness = 14
	capHalf      = 4 // half the height of a whisker's end
)

// Bar is one horizontal bar: Value, and the interval Lo–Hi around it (such as
// a 95% confidence interval) drawn as a whisker when Hi > Lo. Color indexes
// the palette, as in Color. A NaN Value is drawn as "n/a".
type Bar struct {
	Label         string
	Value, Lo, Hi float64
	Color         int
}

// BarChart is one horizontal bar per label with its value printed at the
// end, such as throughput per target. Its height follows from the number of
// bars.
type BarChart struct {
	ID    string // the root's data-chart attribute
	Title string // shown on top, and the chart's accessible name
	Unit  string // the values' unit, printed after each value
	Bars  []Bar
	Width int // DefaultWidth when zero
}

// Render writes the chart as a standalone SVG document.
func (c BarChart) Render(w io.Writer) error {
	_, err := io.WriteString(w, c.SVG())
	return err
}

// SVG returns the chart as an SVG document, to embed in HTML as it is.
func (c BarChart) SVG() string {
	l, ok := c.layout()
	var s svg
	s.open(c.ID, ariaLabel(c.Title, "bar chart"), c.describe(), l.width, l.height)
	s.heading(c.Title)
	if !ok {
		s.noData(l.width, l.height)
		for _, b := range c.Bars {
			s.emptySeries(b.Label)
		}
		return s.close()
	}
	l.grid(&s, c.Unit)
	for i, b := range c.Bars {
		l.bar(&s, i, b, c.Unit)
	}
	return s.close()
}

// describe returns the <desc> text, listing every bar's value.
func (c BarChart) describe() string {
	desc := fmt.Sprintf("Bar chart of %d bars", len(c.Bars))
	sep := ": "
	for _, b := range c.Bars {
		desc += sep + b.Label + " " + withUnit(formatValue(b.Value), c.Unit)
		sep = ", "
	}
	return desc + "."
}

// barLayout is where everything of a bar chart goes.
type barLayout struct {
	width, height            int
	left, top, right, bottom float64 // the bars' area
	x                        linear
	ticks                    []float64
	labels                   []string
	labelWidth               float64 // the most a bar's label may take
}

// layout places the labels, bars and axis; ok is false when no bar has a
// value to draw.
func (c BarChart) layout() (barLayout, bool) {
	l := barLayout{width: c.Width}
	if l.width <= 0 {
		l.width = DefaultWidth
	}
	l.width = max(l.width, 200)
	l.top = edge
	if c.Title != "" {
		l.top = titleBaseline + edge
	}
	l.bottom = l.top + float64(max(1, len(c.Bars))*barRow)
	l.height = int(l.bottom) + xAxisBelow
	lo, hi, ok := c.extent()
	if !ok {
		return l, false
	}
	ticks, step := niceTicks(lo, hi)
	l.ticks, l.labels = ticks, tickLabels(ticks, step)
	l.labelWidth = c.labelWidth(float64(l.width))
	l.left = edge + l.labelWidth + edge
	l.right = float64(l.width) - c.valueWidth() - edge
	l.x = linear{ticks[0], ticks[len(ticks)-1], l.left, l.right}
	return l, true
}

// extent returns the range the axis must cover: zero, every value and
// every interval.
func (c BarChart) extent() (lo, hi float64, ok bool) {
	for _, b := range c.Bars {
		for _, v := range b.drawn() {
			lo, hi, ok = math.Min(lo, v), math.Max(hi, v), true
		}
	}
	return lo, hi, ok
}

// drawn returns the drawable numbers of b: its value and, when it has one,
// its interval, clamped to maxMagnitude.
func (b Bar) drawn() []float64 {
	var vs []float64
	if finite(b.Value) {
		vs = append(vs, clamp(b.Value))
	}
	if b.hasInterval() {
		vs = append(vs, clamp(b.Lo), clamp(b.Hi))
	}
	return vs
}

// hasInterval reports whether b has an interval to draw.
func (b Bar) hasInterval() bool {
	return finite(b.Lo) && finite(b.Hi) && b.Hi > b.Lo
}

// labelWidth returns the room for labels: the longest one, up to a third of
// the chart.
func (c BarChart) labelWidth(width float64) float64 {
	widest := 0.0
	for _, b := range c.Bars {
		widest = math.Max(widest, textWidth(b.Label, fontSize))
	}
	return math.Min(widest, width/3)
}

// valueWidth returns the room for the longest value printed after a bar.
func (c BarChart) valueWidth() float64 {
	widest := textWidth("n/a", fontSize)
	for _, b := range c.Bars {
		widest = math.Max(widest, textWidth(withUnit(formatValue(b.Value), c.Unit), fontSize))
	}
	return widest + edge
}
