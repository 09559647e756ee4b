package chart

import (
	"math"
	"strings"
)

// grid writes a faint line per tick, a darker one at zero, the tick labels
// and the unit under the axis's right end.
func (l barLayout) grid(s *svg, unit string) {
	var lines strings.Builder
	for _, t := range l.ticks {
		lines.WriteString("M" + px(l.x.at(t)) + " " + px(l.top) + "V" + px(l.bottom))
	}
	zero := "M" + px(l.x.at(0)) + " " + px(l.top) + "V" + px(l.bottom)
	s.printf(`<g class="grid" stroke="currentColor" fill="none"><path stroke-opacity=".12" d="%s"/><path stroke-opacity=".45" d="%s"/></g>`+"\n",
		lines.String(), zero)
	s.printf(`<g class="axis" fill-opacity=".75" text-anchor="middle">`)
	for i, t := range l.ticks {
		s.printf(`<text x="%s" y="%s">%s</text>`, px(l.x.at(t)), px(l.bottom+15), esc(l.labels[i]))
	}
	if unit != "" {
		s.printf(`<text x="%s" y="%s" text-anchor="end">%s</text>`, px(l.right), px(l.bottom+28), esc(unit))
	}
	s.printf("</g>\n")
}

// bar writes the i-th bar's group: its label, the bar, the whisker and the
// value, with a tooltip giving the exact figures.
func (l barLayout) bar(s *svg, i int, b Bar, unit string) {
	middle := l.top + float64(i)*barRow + barRow/2
	s.printf(`<g class="series" data-series="%s" fill="%s"><title>%s</title>`, esc(b.Label), Color(b.Color), esc(barTooltip(b, unit)))
	s.printf(`<text x="%s" y="%s" text-anchor="end" fill="currentColor">%s</text>`,
		px(l.left-edge), px(middle+4), esc(truncate(b.Label, l.labelWidth, fontSize)))
	end := l.x.at(0)
	if finite(b.Value) {
		from, to := l.x.at(math.Min(0, clamp(b.Value))), l.x.at(math.Max(0, clamp(b.Value)))
		s.printf(`<rect x="%s" y="%s" width="%s" height="%d"/>`, px(from), px(middle-barThickness/2), px(to-from), barThickness)
		end = to
	}
	if b.hasInterval() {
		lo, hi := l.x.at(clamp(b.Lo)), l.x.at(clamp(b.Hi))
		s.printf(`<path d="M%s %sH%sM%s %sv%dM%s %sv%d" stroke="currentColor" stroke-width="1.5" fill="none"/>`,
			px(lo), px(middle), px(hi), px(lo), px(middle-capHalf), 2*capHalf, px(hi), px(middle-capHalf), 2*capHalf)
		end = math.Max(end, hi)
	}
	s.printf(`<text x="%s" y="%s" fill="currentColor">%s</text></g>`+"\n", px(end+4), px(middle+4), esc(barValue(b, unit)))
}

// barValue returns the value printed after a bar.
func barValue(b Bar, unit string) string {
	if !finite(b.Value) {
		return "n/a"
	}
	return withUnit(formatValue(b.Value), unit)
}

// barTooltip returns a bar's hover text: label, value and interval.
func barTooltip(b Bar, unit string) string {
	if !finite(b.Value) {
		return b.Label + ": n/a"
	}
	text := b.Label + ": " + withUnit(formatPrecise(b.Value), unit)
	if b.hasInterval() {
		text += " (" + formatPrecise(b.Lo) + "–" + withUnit(formatPrecise(b.Hi), unit) + ")"
	}
	return text
}
