package flame

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Defaults of a Graph.
const (
	DefaultWidth    = 1200 // px
	DefaultMinWidth = 1.0  // px: narrower frames are merged
	DefaultMaxDepth = 64   // frames from the root drawn
	DefaultMaxBoxes = 4000 // boxes at most; the minimum width grows to keep within it
)

// Layout of the drawing, in pixels.
const (
	rowHeight  = 16
	fontSize   = 11
	titleSize  = 13
	charWidth  = 6.6 // an average glyph at fontSize in a sans-serif font
	textInset  = 3
	headHeight = 40 // title and subtitle above the frames
	footHeight = 8
)

// otherFrame names the box that stands for siblings too narrow to draw.
const otherFrame = "(other frames)"

// Graph is a flame graph of stacks: the root at the bottom, each frame a
// box as wide as its share of the samples, callers below callees, siblings
// in name order (so that the same stacks always draw the same picture).
//
// The SVG follows internal/chart's conventions: the root element is
// <svg class="chart flame" data-chart="ID" role="img"> with an aria-label,
// a <title> and a <desc>; each box is a <g class="frame"> with a native
// <title> tooltip (its frame, samples and share); no script, no style
// element, no id, no font or anything else fetched, so that several graphs
// share one page and open offline. Frames narrower than MinWidth are merged
// into one "(other frames)" box per parent, or left out when even that is
// too narrow; MaxBoxes bounds the output's size for any profile.
type Graph struct {
	ID       string // data-chart
	Title    string // drawn above, and the aria-label
	Subtitle string // drawn under the title, e.g. the target and stage
	Unit     string // what a sample is, e.g. "samples"; "samples" when empty
	Stacks   Stacks
	Width    int     // px; DefaultWidth when 0
	MinWidth float64 // px; DefaultMinWidth when 0
	MaxDepth int     // DefaultMaxDepth when 0
	MaxBoxes int     // DefaultMaxBoxes when 0
}

// node is a frame in the merged tree of stacks.
type node struct {
	name     string
	count    int64
	children []*node
}

// tree merges the stacks into one tree under an unnamed root, children in
// name order, down to maxDepth frames.
func tree(stacks Stacks, maxDepth int) *node {
	root := &node{}
	for _, st := range stacks {
		n := root
		n.count += st.Count
		for _, f := range st.Frames[:min(len(st.Frames), maxDepth)] {
			n = n.child(f)
			n.count += st.Count
		}
	}
	return root
}

// child returns n's child named name, adding it in name order if missing.
func (n *node) child(name string) *node {
	i, found := slices.BinarySearchFunc(n.children, name, func(c *node, name string) int { return cmp.Compare(c.name, name) })
	if !found {
		n.children = slices.Insert(n.children, i, &node{name: name})
	}
	return n.children[i]
}

// box is a frame placed on the drawing.
type box struct {
	name  string
	count int64
	x, w  float64
	depth int
}

// layout places the tree's frames for a drawing width wide, merging the
// narrow ones; it returns the boxes, root's children at depth 0.
func layout(root *node, width, minWidth float64) []box {
	var boxes []box
	if root.count == 0 {
		return nil
	}
	scale := width / float64(root.count)
	var place func(n *node, x float64, depth int)
	place = func(n *node, x float64, depth int) {
		var narrow int64
		for _, c := range n.children {
			w := float64(c.count) * scale
			if w < minWidth {
				narrow += c.count
				continue
			}
			boxes = append(boxes, box{name: c.name, count: c.count, x: x, w: w, depth: depth})
			place(c, x, depth+1)
			x += w
		}
		if w := float64(narrow) * scale; narrow > 0 && w >= minWidth {
			boxes = append(boxes, box{name: otherFrame, count: narrow, x: x, w: w, depth: depth})
		}
	}
	place(root, 0, 0)
	return boxes
}

// withDefaults fills the zero fields.
func (g Graph) withDefaults() Graph {
	g.Width = cmp.Or(g.Width, DefaultWidth)
	g.MinWidth = cmp.Or(g.MinWidth, DefaultMinWidth)
	g.MaxDepth = cmp.Or(g.MaxDepth, DefaultMaxDepth)
	g.MaxBoxes = cmp.Or(g.MaxBoxes, DefaultMaxBoxes)
	g.Unit = cmp.Or(g.Unit, "samples")
	return g
}

// Render writes the graph as an SVG document.
func (g Graph) Render(w io.Writer) error {
	g = g.withDefaults()
	root := tree(g.Stacks, g.MaxDepth)
	inner := float64(g.Width - 2*textInset)
	boxes := layout(root, inner, g.MinWidth)
	for minWidth := g.MinWidth; len(boxes) > g.MaxBoxes; {
		minWidth *= 2
		boxes = layout(root, inner, minWidth)
	}
	depth := 0
	for _, b := range boxes {
		depth = max(depth, b.depth+1)
	}
	height := headHeight + max(depth, 1)*rowHeight + footHeight
	var s strings.Builder
	g.open(&s, height, root.count)
	if root.count == 0 {
		fmt.Fprintf(&s, `<text class="no-data" x="%d" y="%d" text-anchor="middle" fill-opacity=".6">no samples</text>`+"\n", g.Width/2, headHeight+rowHeight/2)
	}
	for _, b := range boxes {
		g.drawBox(&s, b, height, root.count)
	}
	s.WriteString("</svg>\n")
	_, err := io.WriteString(w, s.String())
	return err
}

// open writes the root element, its title and description, and the
// visible heading.
func (g Graph) open(s *strings.Builder, height int, total int64) {
	label := cmp.Or(g.Title, "Flame graph")
	fmt.Fprintf(s, `<svg xmlns="http://www.w3.org/2000/svg" class="chart flame" data-chart="%s" role="img" aria-label="%s"`, esc(g.ID), esc(label))
	fmt.Fprintf(s, ` viewBox="0 0 %d %d" width="%d" height="%d"`, g.Width, height, g.Width, height)
	fmt.Fprintf(s, ` font-family="system-ui,sans-serif" font-size="%d" fill="currentColor">`+"\n", fontSize)
	fmt.Fprintf(s, "<title>%s</title>\n<desc>%s</desc>\n", esc(label),
		esc(fmt.Sprintf("Flame graph of %d %s: the root at the bottom, each box a frame as wide as its share of the %s.", total, g.Unit, g.Unit)))
	fmt.Fprintf(s, `<text class="title" x="%d" y="17" font-size="%d" font-weight="600">%s</text>`+"\n", textInset, titleSize, esc(label))
	sub := fmt.Sprintf("%d %s", total, g.Unit)
	if g.Subtitle != "" {
		sub = g.Subtitle + " · " + sub
	}
	fmt.Fprintf(s, `<text class="subtitle" x="%d" y="32" fill-opacity=".7">%s</text>`+"\n", textInset, esc(sub))
}

// drawBox writes one frame: its box, its tooltip and, when it fits, its
// name cut to the box.
func (g Graph) drawBox(s *strings.Builder, b box, height int, total int64) {
	y := float64(height-footHeight) - float64(b.depth+1)*rowHeight
	x := b.x + textInset
	tip := fmt.Sprintf("%s: %d %s, %s%%", b.name, b.count, g.Unit, percent(b.count, total))
	fmt.Fprintf(s, `<g class="frame" data-frame="%s"><title>%s</title><rect x="%s" y="%s" width="%s" height="%d" rx="2" fill="%s"/>`,
		esc(b.name), esc(tip), px(x), px(y), px(max(b.w-1, 0.5)), rowHeight-1, color(b.name))
	if label := fit(b.name, b.w-2*textInset); label != "" {
		fmt.Fprintf(s, `<text x="%s" y="%s" fill="#000">%s</text>`, px(x+textInset), px(y+rowHeight-4.5), esc(label))
	}
	s.WriteString("</g>\n")
}

// fit returns the label of a box width pixels wide: the frame's name if
// it fits, else its short name (shortName), else the short name's end
// (the method, the most telling part) after "..", or "" when even four
// characters do not fit.
func fit(name string, width float64) string {
	chars := int(width / charWidth)
	if utf8.RuneCountInString(name) <= chars {
		return name
	}
	r := []rune(shortName(name))
	switch {
	case len(r) <= chars:
		return string(r)
	case chars < 4:
		return ""
	}
	return ".." + string(r[len(r)-chars+2:])
}

// shortName drops a frame's package: "org.apache.catalina.core.StandardWrapperValve.invoke"
// is "StandardWrapperValve.invoke", "github.com/x/server.cpuWork" is
// "server.cpuWork": the last two dotted parts after the last '/'.
func shortName(name string) string {
	name = name[strings.LastIndexByte(name, '/')+1:]
	parts := strings.Split(name, ".")
	if len(parts) <= 2 {
		return name
	}
	return strings.Join(parts[len(parts)-2:], ".")
}

// color returns a warm colour for a frame, the same for every frame of a
// package or class, so that a caller's frames read as one block: derived
// from a hash of the name up to its last '.', not from any order, so that
// the same frame is the same colour in every graph. Text on it is black;
// the hues stay light enough for that.
func color(name string) string {
	group := name
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		group = name[:i]
	}
	h := fnv.New32a()
	h.Write([]byte(group))
	v := h.Sum32()
	r := 205 + int(v%50)
	gr := 90 + int((v>>8)%140)
	bl := 40 + int((v>>16)%50)
	return fmt.Sprintf("#%02x%02x%02x", r, gr, bl)
}

// percent formats part/total as a percentage with one decimal.
func percent(part, total int64) string {
	if total == 0 {
		return "0"
	}
	return strconv.FormatFloat(100*float64(part)/float64(total), 'f', 1, 64)
}

// px formats a coordinate rounded to a tenth of a pixel, as internal/chart does.
func px(v float64) string {
	r := math.Round(v*10) / 10
	if r == 0 {
		return "0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// esc escapes s for XML text and attributes.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}
