package chart

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// aboveLimit is how far above its objective a search chart's value axis
// reaches, at most: a trial that failed by more is drawn at the top edge,
// its value in its tooltip, so that the trials near the objective, where
// the answer lies, keep the room.
const aboveLimit = 2.5

// Marks of a search chart, in pixels.
const (
	markRadius    = 3.5 // a passing trial's dot
	crossHalf     = 4   // half a failing trial's cross
	confirmRadius = 7   // the ring around a confirmation
)

// Trial is one trial of a capacity search: the rate it offered (X, in the
// chart's rate unit), the figure of the objective it measured (Y, in the
// chart's unit), whether it passed, whether the load generator limited it
// (neither a pass nor a fail), and whether it was a full-length
// confirmation. Label is its tooltip.
type Trial struct {
	Rate, Value   float64
	Pass, Confirm bool
	Limited       bool
	Label         string
}

// SearchChart is a capacity search in the way MLRsearch's users look at
// one: each trial's offered rate against the objective's figure it
// measured, a pass drawn as a dot, a fail as a cross and a trial the
// generator limited as an open square (told apart by shape, not colour), a
// ring around each confirmation, the objective as a
// horizontal dashed line and the answer and the first failing rate as
// markers. Its one series, the trials, is named Name and drawn in
// Color(Color). Values more than aboveLimit times the objective are drawn
// at the top edge as triangles.
type SearchChart struct {
	ID     string // the root's data-chart attribute
	Title  string
	Name   string  // the series: the target
	Color  int     // its colour index, as in Color
	XLabel string  // "offered rate (req/s)" when empty
	Unit   string  // the figure's unit, "ms"
	Limit  float64 // the objective's bound in Unit; 0 for none
	// LimitLabel names the objective's line, "p99 ≤ 300 ms".
	LimitLabel string
	Trials     []Trial
	// Answer and Failed are the rate the search confirmed and the first
	// rate above it that failed, in req/s; 0 for none.
	Answer, Failed float64
	// Width and Height default to DefaultWidth and DefaultHeight.
	Width, Height int
}

// Render writes the chart as a standalone SVG document.
func (c SearchChart) Render(w io.Writer) error {
	_, err := io.WriteString(w, c.SVG())
	return err
}

// SVG returns the chart as an SVG document, to embed in HTML as it is.
func (c SearchChart) SVG() string {
	ext, ok := c.extent()
	if !ok {
		return c.frame(nil).empty()
	}
	ticks, _ := niceTicks(0, ext.yhi)
	top := ticks[len(ticks)-1] // the value axis's end: above it a mark is off the scale
	keys := c.keys(top)
	lc := c.frame(keys)
	l := lc.layout(ext)
	var s svg
	s.open(c.ID, ariaLabel(c.Title, "search chart"), c.describe(), l.width, l.height)
	s.heading(c.Title)
	c.legend(&s, keys, l.legend)
	l.grid(&s)
	l.axes(&s, lc.xLabel(), c.Unit)
	c.edge(&s, l, c.Answer, "answer "+formatPrecise(c.Answer)+" req/s", true)
	c.edge(&s, l, c.Failed, "first failing "+formatPrecise(c.Failed)+" req/s", false)
	c.limit(&s, l)
	c.trials(&s, l, top)
	return s.close()
}

// key is an entry of a search chart's legend: a kind of mark and its name.
type key struct {
	mark, name string
}

// Kinds of marks a legend explains.
const (
	markPass      = "pass"
	markFail      = "fail"
	markLimited   = "generator-bound"
	markConfirm   = "confirmation"
	markAbove     = "off the scale"
	markObjective = "objective"
)

// keys are the legend's entries: the marks the chart draws, and the
// objective's line.
func (c SearchChart) keys(top float64) []key {
	has := map[string]bool{}
	for _, t := range c.Trials {
		switch {
		case t.Value > top:
			has[markAbove] = true
		case t.Limited:
			has[markLimited] = true
		case t.Pass:
			has[markPass] = true
		default:
			has[markFail] = true
		}
		has[markConfirm] = has[markConfirm] || t.Confirm
	}
	var keys []key
	for _, mark := range []string{markPass, markFail, markLimited, markConfirm, markAbove} {
		if has[mark] {
			keys = append(keys, key{mark, mark})
		}
	}
	if c.Limit > 0 && finite(c.Limit) {
		keys = append(keys, key{markObjective, strings.TrimSpace(markObjective + " " + c.LimitLabel)})
	}
	return keys
}

// frame is the line chart whose layout the search chart takes: its
// title, axes and, for the legend's room, one series per legend entry (an
// empty chart's one series is the trials').
func (c SearchChart) frame(keys []key) LineChart {
	lc := LineChart{ID: c.ID, Title: c.Title, XLabel: c.XLabel, Unit: c.Unit, Width: c.Width, Height: c.Height}
	if lc.XLabel == "" {
		lc.XLabel = "offered rate (req/s)"
	}
	for _, k := range keys {
		lc.Series = append(lc.Series, Series{Name: k.name})
	}
	if len(keys) == 0 {
		lc.Series = []Series{{Name: c.Name}}
	}
	return lc
}

// extent is the rates from 0 to the highest, markers included, and the
// values from 0 to the highest, the objective included, cut at aboveLimit
// times it.
func (c SearchChart) extent() (extent, bool) {
	ext := extent{0, math.Inf(-1), 0, math.Inf(-1)}
	for _, t := range c.Trials {
		if finite(t.Rate) && finite(t.Value) {
			ext.xhi, ext.yhi = math.Max(ext.xhi, clamp(t.Rate)), math.Max(ext.yhi, clamp(t.Value))
		}
	}
	if math.IsInf(ext.xhi, -1) {
		return ext, false
	}
	for _, x := range []float64{c.Answer, c.Failed} {
		if finite(x) {
			ext.xhi = math.Max(ext.xhi, clamp(x))
		}
	}
	if c.Limit > 0 && finite(c.Limit) {
		ext.yhi = math.Min(math.Max(ext.yhi, c.Limit*1.2), c.Limit*aboveLimit)
	}
	ext.xhi *= 1.05 // room for the marks at the highest rate
	return ext, true
}

// describe returns the <desc> text.
func (c SearchChart) describe() string {
	passes := 0
	for _, t := range c.Trials {
		if t.Pass {
			passes++
		}
	}
	desc := fmt.Sprintf("Search chart of %s: %d trials, %d passed, %d failed", c.Name, len(c.Trials), passes, len(c.Trials)-passes)
	if c.LimitLabel != "" {
		desc += ", objective " + c.LimitLabel
	}
	if c.Answer > 0 {
		desc += "; answer " + formatPrecise(c.Answer) + " req/s"
	}
	if c.Failed > 0 {
		desc += "; first failing " + formatPrecise(c.Failed) + " req/s"
	}
	return desc + "."
}

// edge marks one edge of the answer's bracket with a dashed line and its
// label, rotated to run up along its left (the answer) or its right (the
// first failing rate), so that the two stay apart however close they are.
func (c SearchChart) edge(s *svg, l lineLayout, rate float64, label string, left bool) {
	if !(rate > 0) || !finite(rate) {
		return
	}
	x := l.x.at(clamp(rate))
	lx := x + 9
	if left {
		lx = x - 3
	}
	label = truncate(label, l.bottom-l.top-edge, smallFontSize)
	s.printf(`<g class="marker">%s<path d="M%s %sV%s" stroke="currentColor" stroke-opacity=".5" stroke-dasharray="4 3"/>`,
		titleElement(label), px(x), px(l.top), px(l.bottom))
	s.printf(`<text x="%s" y="%s" transform="rotate(-90 %s %s)" text-anchor="end" font-size="%d" fill-opacity=".7">%s</text></g>`+"\n",
		px(lx), px(l.top+4), px(lx), px(l.top+4), smallFontSize, esc(label))
}

// legend writes each entry's mark and name.
func (c SearchChart) legend(s *svg, keys []key, entries []legendEntry) {
	s.printf(`<g class="legend">`)
	color := Color(c.Color)
	for i, e := range entries {
		x, y := e.x+swatchWidth/2, e.baseline-4
		switch keys[i].mark {
		case markPass:
			s.printf(`<circle cx="%s" cy="%s" r="%s" fill="%s"/>`, px(x), px(y), px(markRadius), color)
		case markFail:
			s.printf(`%s`, cross(x, y, color))
		case markLimited:
			s.printf(`%s`, square(x, y, color))
		case markConfirm:
			s.printf(`<circle cx="%s" cy="%s" r="%s" fill="none" stroke="%s" stroke-width="1.5"/>`, px(x), px(y), px(confirmRadius-2), color)
		case markAbove:
			s.printf(`%s`, triangle(x, y, color))
		default:
			s.printf(`<path d="M%s %sh%d" stroke="currentColor" stroke-width="1.5" stroke-dasharray="5 3"/>`, px(e.x), px(y), swatchWidth)
		}
		s.printf(`<text x="%s" y="%s">%s</text>`, px(e.x+swatchWidth+4), px(e.baseline), esc(e.name))
	}
	s.printf("</g>\n")
}

// limit draws the objective as a dashed line across the plot.
func (c SearchChart) limit(s *svg, l lineLayout) {
	if !(c.Limit > 0) || !finite(c.Limit) {
		return
	}
	y := l.y.at(c.Limit)
	s.printf(`<g class="objective">%s<path d="M%s %sH%s" stroke="currentColor" stroke-opacity=".8" stroke-width="1.5" stroke-dasharray="5 3"/></g>`+"\n",
		titleElement(c.LimitLabel), px(l.left), px(y), px(l.right))
}

// trials draws every trial's mark in the series' colour, with its
// tooltip: a dot for a pass, a cross for a fail, a triangle at the top
// edge for a value above the scale, a ring around a confirmation.
func (c SearchChart) trials(s *svg, l lineLayout, top float64) {
	color := Color(c.Color)
	s.printf(`<g class="series" data-series="%s" fill="%s" stroke="%s" stroke-width="2"><title>%s</title>`, esc(c.Name), color, color, esc(c.Name))
	for _, t := range c.Trials {
		if !finite(t.Rate) || !finite(t.Value) {
			continue
		}
		x, y := l.x.at(clamp(t.Rate)), l.y.at(math.Min(clamp(t.Value), top))
		var mark string
		switch {
		case t.Value > top:
			mark = triangle(x, y, color)
		case t.Limited:
			mark = square(x, y, color)
		case t.Pass:
			mark = fmt.Sprintf(`<circle cx="%s" cy="%s" r="%s" stroke="none"/>`, px(x), px(y), px(markRadius))
		default:
			mark = cross(x, y, color)
		}
		class := "trial fail"
		switch {
		case t.Limited:
			class = "trial generator-bound"
		case t.Pass:
			class = "trial pass"
		}
		if t.Confirm {
			class += " confirm"
			mark += fmt.Sprintf(`<circle cx="%s" cy="%s" r="%s" fill="none" stroke-width="1.5"/>`, px(x), px(y), px(confirmRadius))
		}
		s.printf(`<g class="%s">%s%s</g>`, class, titleElement(t.Label), mark)
	}
	s.printf("</g>\n")
}

// cross is a failing trial's mark: an × centred on (x, y).
func cross(x, y float64, color string) string {
	d := fmt.Sprintf("M%s %sl%d %dM%s %sl%d %d", px(x-crossHalf), px(y-crossHalf), 2*crossHalf, 2*crossHalf,
		px(x-crossHalf), px(y+crossHalf), 2*crossHalf, -2*crossHalf)
	return `<path d="` + d + `" fill="none" stroke="` + color + `" stroke-width="2"/>`
}

// square is the mark of a trial the load generator limited: an open
// square centred on (x, y).
func square(x, y float64, color string) string {
	return fmt.Sprintf(`<rect x="%s" y="%s" width="%d" height="%d" fill="none" stroke="%s" stroke-width="1.5"/>`,
		px(x-crossHalf+0.5), px(y-crossHalf+0.5), 2*crossHalf-1, 2*crossHalf-1, color)
}

// triangle is the mark of a value above the scale: a triangle pointing
// up, centred on (x, y).
func triangle(x, y float64, color string) string {
	points := []string{px(x) + "," + px(y-crossHalf-1), px(x-crossHalf) + "," + px(y+crossHalf-1), px(x+crossHalf) + "," + px(y+crossHalf-1)}
	return `<polygon points="` + strings.Join(points, " ") + `" fill="` + color + `" stroke="none"/>`
}
