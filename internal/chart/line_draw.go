package chart

import (
	"math"
	"strings"
)

// legend writes each series' swatch, in its colour and dash, and name.
func (c LineChart) legend(s *svg, entries []legendEntry) {
	if len(entries) == 0 {
		return
	}
	s.printf(`<g class="legend">`)
	for i, e := range entries {
		s.printf(`<path d="M%s %sh%d" stroke="%s" stroke-width="2"%s/><text x="%s" y="%s">%s</text>`,
			px(e.x), px(e.baseline-4), swatchWidth, Color(i), dashAttr(i), px(e.x+swatchWidth+4), px(e.baseline), esc(e.name))
	}
	s.printf("</g>\n")
}

// dashAttr returns the stroke-dasharray attribute of the i-th series, if any.
func dashAttr(i int) string {
	if d := dash(i); d != "" {
		return ` stroke-dasharray="` + d + `"`
	}
	return ""
}

// bands shades each band's span, with its label at the bottom left.
func (l lineLayout) bands(s *svg, bands []Band) {
	for _, b := range bands {
		if !finite(b.From) || !finite(b.To) {
			continue
		}
		from, to := l.x.at(clamp(math.Min(b.From, b.To))), l.x.at(clamp(math.Max(b.From, b.To)))
		fill := ""
		if b.Tinted {
			fill = ` fill="` + Color(b.Series) + `"`
		}
		s.printf(`<g class="band">%s<rect x="%s" y="%s" width="%s" height="%s"%s fill-opacity=".08"/>`,
			titleElement(b.Label), px(from), px(l.top), px(to-from), px(l.bottom-l.top), fill)
		if label := truncate(b.Label, to-from-edge, smallFontSize); label != "" && to-from > 3*edge {
			s.printf(`<text x="%s" y="%s" font-size="%d" fill-opacity=".7">%s</text>`,
				px(from+4), px(l.bottom-5), smallFontSize, esc(label))
		}
		s.printf("</g>\n")
	}
}

// grid writes a faint line per value tick, a darker base line at zero (or
// the bottom), and a tick mark per time tick.
func (l lineLayout) grid(s *svg) {
	var lines, marks strings.Builder
	for _, t := range l.yTicks {
		lines.WriteString("M" + px(l.left) + " " + px(l.y.at(t)) + "h" + px(l.right-l.left))
	}
	base := l.bottom
	if l.yTicks[0] < 0 {
		base = l.y.at(0)
	}
	marks.WriteString("M" + px(l.left) + " " + px(base) + "h" + px(l.right-l.left))
	for _, t := range l.xTicks {
		marks.WriteString("M" + px(l.x.at(t)) + " " + px(l.bottom) + "v4")
	}
	s.printf(`<g class="grid" stroke="currentColor" fill="none"><path stroke-opacity=".12" d="%s"/><path stroke-opacity=".45" d="%s"/></g>`+"\n",
		lines.String(), marks.String())
}

// axes writes the tick labels, the unit above the value axis and the time
// axis's label under its right end.
func (l lineLayout) axes(s *svg, xLabel, unit string) {
	s.printf(`<g class="axis" fill-opacity=".75"><g text-anchor="end">`)
	for i, t := range l.yTicks {
		s.printf(`<text x="%s" y="%s">%s</text>`, px(l.left-6), px(l.y.at(t)+4), esc(l.yLabels[i]))
	}
	if unit != "" {
		s.printf(`<text x="%s" y="%s">%s</text>`, px(l.left-6), px(l.top-legendRow/2), esc(unit))
	}
	s.printf(`<text x="%s" y="%s">%s</text></g><g text-anchor="middle">`, px(l.right), px(l.bottom+28), esc(xLabel))
	for i, t := range l.xTicks {
		s.printf(`<text x="%s" y="%s">%s</text>`, px(l.x.at(t)), px(l.bottom+15), esc(l.xLabels[i]))
	}
	s.printf("</g></g>\n")
}

// markers writes each marker's dashed line and its label, rotated to run up
// along the right of the line so that close markers do not overlap.
func (l lineLayout) markers(s *svg, markers []Marker, where func(float64) string) {
	for _, m := range markers {
		if !finite(m.X) {
			continue
		}
		x := l.x.at(clamp(m.X))
		label := truncate(m.Label, l.bottom-l.top-edge, smallFontSize)
		s.printf(`<g class="marker">%s<path d="M%s %sV%s" stroke="currentColor" stroke-opacity=".5" stroke-dasharray="4 3"/>`,
			titleElement(strings.TrimSpace(m.Label+" at "+where(m.X))), px(x), px(l.top), px(l.bottom))
		s.printf(`<text x="%s" y="%s" transform="rotate(-90 %s %s)" text-anchor="end" font-size="%d" fill-opacity=".7">%s</text></g>`+"\n",
			px(x+9), px(l.top+4), px(x+9), px(l.top+4), smallFontSize, esc(label))
	}
}

// series writes one series group: its line, a dot for each lone point, and
// a hover tooltip per point when the series is short enough.
func (l lineLayout) series(s *svg, i int, series Series, unit string) {
	segs := segments(series.Points)
	if len(segs) == 0 {
		s.emptySeries(series.Name)
		return
	}
	if len(series.Points) > downsampleAbove {
		for j, seg := range segs {
			segs[j] = downsample(seg, l.x.lo, l.x.hi, l.plotWidth())
		}
	}
	s.printf(`<g class="series" data-series="%s" stroke="%s" fill="none" stroke-width="1.5" stroke-linejoin="round"%s><title>%s</title>`,
		esc(series.Name), Color(i), dashAttr(i), esc(series.Name))
	l.line(s, segs, Color(i))
	if len(series.Points) <= tooltipMax {
		l.tooltips(s, segs, series.Name, unit, Color(i))
	}
	s.printf("</g>\n")
}

// line writes every segment of two pixels or more as one path, and every
// shorter one as a dot, which a path of one point would not show.
func (l lineLayout) line(s *svg, segs [][]Point, color string) {
	var d, dots strings.Builder
	for _, seg := range segs {
		coords := l.pixels(seg)
		if len(coords) == 1 {
			dots.WriteString(`<circle cx="` + coords[0][0] + `" cy="` + coords[0][1] + `" r="2" fill="` + color + `" stroke="none"/>`)
			continue
		}
		for j, c := range coords {
			if j == 0 {
				d.WriteString("M")
			} else {
				d.WriteString(" ")
			}
			d.WriteString(c[0] + " " + c[1])
		}
	}
	if d.Len() > 0 {
		s.printf(`<path d="%s"/>`, d.String())
	}
	s.b.WriteString(dots.String())
}

// pixels returns the formatted pixel coordinates of seg, dropping a point
// that rounds to the same place as the one before it.
func (l lineLayout) pixels(seg []Point) [][2]string {
	var coords [][2]string
	for _, p := range seg {
		c := [2]string{px(l.x.at(p.X)), px(l.y.at(p.Y))}
		if len(coords) > 0 && coords[len(coords)-1] == c {
			continue
		}
		coords = append(coords, c)
	}
	return coords
}

// tooltips writes an invisible circle per point whose <title> the browser
// shows on hover: values without any script.
func (l lineLayout) tooltips(s *svg, segs [][]Point, name, unit, color string) {
	s.printf(`<g class="points" fill="%s" fill-opacity="0" stroke="none">`, color)
	for _, seg := range segs {
		for _, p := range seg {
			s.printf(`<circle cx="%s" cy="%s" r="3"><title>%s: %s s, %s</title></circle>`,
				px(l.x.at(p.X)), px(l.y.at(p.Y)), esc(name), formatPrecise(p.X), esc(withUnit(formatPrecise(p.Y), unit)))
		}
	}
	s.printf("</g>")
}

// withUnit appends unit to a formatted value, if there is a unit.
func withUnit(value, unit string) string {
	if unit == "" {
		return value
	}
	if unit == "%" {
		return value + unit
	}
	return value + " " + unit
}
