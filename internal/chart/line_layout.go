package chart

import "math"

// Margins and spacing of a line chart, in pixels.
const (
	edge          = 8  // between the chart's border and anything drawn
	legendRow     = 16 // between two rows of the legend
	swatchWidth   = 14 // the short line before a series name
	xAxisBelow    = 34 // under the plot: tick labels, then the axis label
	rightMargin   = 16 // room for half of the last time label
	xTickSpacing  = 70 // the least room a time label gets
	minPlotHeight = 40
)

// legendEntry is where one series' swatch and name go.
type legendEntry struct {
	name        string
	x, baseline float64
}

// lineLayout is where everything of a line chart goes.
type lineLayout struct {
	width, height            int
	left, top, right, bottom float64 // the plot area
	x, y                     linear
	xTicks, yTicks           []float64
	xLabels, yLabels         []string
	legend                   []legendEntry
}

// layout places the legend, the axes and the plot for data spanning ext.
func (c LineChart) layout(ext extent) lineLayout {
	width, height := c.size()
	var l lineLayout
	l.width = width
	l.legend, l.top = c.legendEntries(width)
	ticks, step := niceTicks(math.Min(clamp(c.YMin), ext.ylo), ext.yhi)
	l.yTicks, l.yLabels = ticks, tickLabels(ticks, step)
	l.left = l.leftMargin(c.Unit)
	if c.Unit != "" {
		l.top += legendRow // the unit sits above the value axis
	}
	l.height = max(height, int(l.top)+minPlotHeight+xAxisBelow)
	l.right, l.bottom = float64(width-rightMargin), float64(l.height-xAxisBelow)
	l.y = linear{ticks[0], ticks[len(ticks)-1], l.bottom, l.top}
	xlo, xhi := widen(ext.xlo, ext.xhi)
	l.x = linear{xlo, xhi, l.left, l.right}
	ticks, step = ticksWithin(xlo, xhi, int((l.right-l.left)/xTickSpacing))
	l.xTicks, l.xLabels = ticks, tickLabels(ticks, step)
	return l
}

// leftMargin returns room for the widest value label, or the unit above it.
func (l lineLayout) leftMargin(unit string) float64 {
	widest := textWidth(unit, fontSize)
	for _, label := range l.yLabels {
		widest = math.Max(widest, textWidth(label, fontSize))
	}
	return math.Max(36, widest+2*edge)
}

// legendEntries places one entry per series in rows under the title, and
// returns the y where the plot may start.
func (c LineChart) legendEntries(width int) ([]legendEntry, float64) {
	top := float64(edge)
	if c.Title != "" {
		top = titleBaseline + edge
	}
	x, baseline := float64(edge), top+fontSize
	entries := make([]legendEntry, len(c.Series))
	for i, series := range c.Series {
		name := truncate(series.Name, float64(width)/2, fontSize)
		w := swatchWidth + 4 + textWidth(name, fontSize) + 2*edge
		if x > edge && x+w > float64(width-edge) {
			x, baseline = edge, baseline+legendRow
		}
		entries[i] = legendEntry{name, x, baseline}
		x += w
	}
	if len(entries) == 0 {
		return nil, top
	}
	return entries, baseline + edge
}

// plotWidth returns the plot's width in whole pixels.
func (l lineLayout) plotWidth() int {
	return max(1, int(l.right-l.left))
}
