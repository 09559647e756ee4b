package chart

import (
	"fmt"
	"strings"
)

// Sizes of text, in pixels.
const (
	fontSize      = 11
	titleFontSize = 13
	smallFontSize = 10
)

// titleBaseline is where the chart's title sits; content starts below it.
const titleBaseline = 17

// svg accumulates one chart's markup. Writing to a strings.Builder cannot
// fail, so charts build the whole document and write it once.
type svg struct{ b strings.Builder }

// printf appends formatted markup; callers escape text with esc first.
func (s *svg) printf(format string, args ...any) {
	fmt.Fprintf(&s.b, format, args...)
}

// open starts the root element with the attributes every chart carries
// (class, data-chart, role, aria-label), its <title> and a <desc>.
func (s *svg) open(id, title, desc string, width, height int) {
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="%s" role="img" aria-label="%s"`,
		esc(id), esc(title))
	s.printf(` viewBox="0 0 %d %d" width="%d" height="%d"`, width, height, width, height)
	s.printf(` font-family="system-ui,sans-serif" font-size="%d" fill="currentColor">`+"\n", fontSize)
	s.printf("<title>%s</title>\n<desc>%s</desc>\n", esc(title), esc(desc))
}

// heading draws the visible title, if there is one, and returns the y
// below which the rest of the chart goes.
func (s *svg) heading(title string) float64 {
	if title == "" {
		return 8
	}
	s.printf(`<text class="title" x="8" y="%d" font-size="%d" font-weight="600">%s</text>`+"\n",
		titleBaseline, titleFontSize, esc(title))
	return titleBaseline + 8
}

// noData writes the message an empty chart shows in its middle.
func (s *svg) noData(width, height int) {
	s.printf(`<text class="no-data" x="%d" y="%d" text-anchor="middle" fill-opacity=".6">no data</text>`+"\n",
		width/2, height/2)
}

// emptySeries writes a series group with nothing to draw, so that every
// input series still has its <g class="series">.
func (s *svg) emptySeries(name string) {
	s.printf(`<g class="series" data-series="%s"><title>%s: no data</title></g>`+"\n", esc(name), esc(name))
}

// close ends the root element and returns the document.
func (s *svg) close() string {
	s.b.WriteString("</svg>\n")
	return s.b.String()
}

// ariaLabel returns the title, or what kind of chart it is when untitled.
func ariaLabel(title, kind string) string {
	if title != "" {
		return title
	}
	return kind
}

// titleElement returns a <title> holding text, or nothing when text is empty.
func titleElement(text string) string {
	if text == "" {
		return ""
	}
	return "<title>" + esc(text) + "</title>"
}
