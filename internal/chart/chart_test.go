package chart_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/chart"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/chart -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./internal/chart -update rewrites it)\ngot:\n%s", name, got)
	}
}

// renderer is either kind of chart.
type renderer interface{ Render(io.Writer) error }

// testCase is one chart, the id it must carry and its series names in order.
type testCase struct {
	name   string
	chart  renderer
	id     string
	series []string
}

// lineCase describes a line chart for the table below.
func lineCase(name string, c chart.LineChart) testCase {
	tc := testCase{name: name, chart: c, id: c.ID}
	for _, s := range c.Series {
		tc.series = append(tc.series, s.Name)
	}
	return tc
}

// barCase describes a bar chart for the table below.
func barCase(name string, c chart.BarChart) testCase {
	tc := testCase{name: name, chart: c, id: c.ID}
	for _, b := range c.Bars {
		tc.series = append(tc.series, b.Label)
	}
	return tc
}

// searchCase describes a search chart for the table below.
func searchCase(name string, c chart.SearchChart) testCase {
	return testCase{name: name, chart: c, id: c.ID, series: []string{c.Name}}
}

// cases are the representative charts and the edge cases; those with
// golden set are pinned in testdata/.
var cases = []struct {
	testCase
	golden bool
}{
	{lineCase("line_stages", stagesChart()), true},
	{lineCase("line_long", longChart()), true},
	{lineCase("line_big", bigChart()), false},
	// no series at all
	{lineCase("line_empty", chart.LineChart{ID: "empty", Title: "CPU", Unit: "%"}), true},
	// series whose every point is missing
	{lineCase("line_missing", chart.LineChart{ID: "missing", Series: []chart.Series{
		{Name: "a"}, {Name: "b", Points: []chart.Point{{X: 1, Y: math.NaN()}, {X: math.Inf(1), Y: 2}}}}}), false},
	{lineCase("line_all_zero", chart.LineChart{ID: "zero", Title: "Errors", Unit: "req/s", Series: []chart.Series{
		{Name: "errors", Points: []chart.Point{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 2, Y: 0}}}}}), true},
	{lineCase("line_single_point", chart.LineChart{ID: "single", Title: "Threads", Unit: "threads", Series: []chart.Series{
		{Name: "Go goroutines", Points: []chart.Point{{X: 3, Y: 42}}}}}), true},
	// negative time only, values far beyond the k/M/G/T suffixes
	{lineCase("line_huge", chart.LineChart{ID: "huge", Title: "Huge", Unit: "B", YMin: -5, Series: []chart.Series{
		{Name: "big", Points: []chart.Point{{X: -60, Y: 3e17}, {X: -30, Y: 1.2e18}, {X: -1, Y: math.MaxFloat64}}}}}), true},
	// names from users, with markup and quotes
	{lineCase("line_escaping", chart.LineChart{ID: `x"><script>`, Title: `<b>"A" & 'B'</b>`, Unit: "<ms>",
		Series:  []chart.Series{{Name: `</g><script>alert(1)</script>`, Points: wave(5, 0, 1, 1, 0)}, {Name: `a&b "c"`, Points: wave(5, 0, 1, 2, 1)}},
		Markers: []chart.Marker{{X: 2, Label: "<stage>"}}, Bands: []chart.Band{{From: 0, To: 1, Label: "&warm"}}}), false},
	{lineCase("line_many_series", chart.LineChart{ID: "many", Series: manySeries(8)}), false},
	{searchCase("search", searchChart()), true},
	{searchCase("search_empty", chart.SearchChart{ID: "search-empty", Title: "go: p99 by offered rate", Name: "go", Unit: "ms", Limit: 300}), true},
	// user text, and a search with no objective to draw
	{searchCase("search_escaping", chart.SearchChart{ID: `s"><script>`, Name: `</g><script>`, Title: `<b>t</b>`,
		Trials: []chart.Trial{{Rate: 10, Value: 1, Pass: true, Label: "<x>"}}, Answer: 10}), false},
	{barCase("bar_ci", ciChart()), true},
	{barCase("bar_empty", chart.BarChart{ID: "bars-empty", Title: "Throughput"}), true},
	// a missing value, a negative one and a label longer than the chart allows
	{barCase("bar_odd", chart.BarChart{ID: "odd", Unit: "%", Width: 320, Bars: []chart.Bar{
		{Label: "missing", Value: math.NaN()}, {Label: "negative", Value: -12, Lo: -15, Hi: -9, Color: 1},
		{Label: strings.Repeat("a very long target name ", 4), Value: 40, Color: 7}}}), false},
}

// manySeries returns n series, more than the palette has colours.
func manySeries(n int) []chart.Series {
	series := make([]chart.Series, n)
	for i := range series {
		series[i] = chart.Series{Name: string(rune('a' + i)), Points: wave(20, 0, 1, float64(i+1), i)}
	}
	return series
}

// render returns the chart's SVG.
func render(t *testing.T, c renderer) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRender_Golden(t *testing.T) {
	for _, tc := range cases {
		if tc.golden {
			t.Run(tc.name, func(t *testing.T) { golden(t, tc.name+".svg", render(t, tc.chart)) })
		}
	}
}

func TestRender_Deterministic(t *testing.T) {
	for _, tc := range cases {
		if a, b := render(t, tc.chart), render(t, tc.chart); !bytes.Equal(a, b) {
			t.Errorf("%s: two renders differ", tc.name)
		}
	}
}

func TestRender_WellFormed(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, render(t, tc.chart))
			if got, want := doc.root["class"], "chart"; got != want {
				t.Errorf("root class = %q, want %q", got, want)
			}
			if got, want := doc.root["data-chart"], tc.id; got != want {
				t.Errorf("data-chart = %q, want %q", got, want)
			}
			if got, want := doc.root["role"], "img"; got != want {
				t.Errorf("role = %q, want %q", got, want)
			}
			if doc.root["aria-label"] == "" || doc.firstChild != "title" {
				t.Errorf("aria-label = %q, first child = <%s>; want a label and a <title>", doc.root["aria-label"], doc.firstChild)
			}
			if got, want := strings.Join(doc.series, "|"), strings.Join(tc.series, "|"); got != want {
				t.Errorf("g.series = %q, want one per input series: %q", got, want)
			}
		})
	}
}

// document is what the tests read back from an SVG.
type document struct {
	root       map[string]string // the root element's attributes
	firstChild string            // the name of its first child element
	series     []string          // data-series of every g.series, in order
	text       []string          // every piece of character data
	elements   []string          // every element's name
	ids        int               // how many elements have an id
	links      []string          // every href, xlink:href or src
}

// parse reads svg strictly as XML, failing the test if it is not.
func parse(t *testing.T, svg []byte) document {
	t.Helper()
	var doc document
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for depth := 0; ; {
		tok, err := dec.Token()
		if err == io.EOF {
			return doc
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			doc.visit(el, depth)
		case xml.EndElement:
			depth--
		case xml.CharData:
			doc.text = append(doc.text, string(el))
		}
	}
}

// visit records what the tests check of one element at the given depth.
func (doc *document) visit(el xml.StartElement, depth int) {
	attrs := map[string]string{}
	for _, a := range el.Attr {
		attrs[a.Name.Local] = a.Value
	}
	doc.elements = append(doc.elements, el.Name.Local)
	for _, a := range el.Attr {
		switch a.Name.Local {
		case "id":
			doc.ids++
		case "href", "src":
			doc.links = append(doc.links, a.Value)
		}
	}
	switch {
	case depth == 1:
		doc.root = attrs
	case depth == 2 && doc.firstChild == "":
		doc.firstChild = el.Name.Local
	}
	if el.Name.Local == "g" && attrs["class"] == "series" {
		doc.series = append(doc.series, attrs["data-series"])
	}
}

// TestRender_Embeddable checks what lets a chart sit in a self-contained
// HTML page next to others: no script, no style sheet, no id to collide, no
// request to any host.
func TestRender_Embeddable(t *testing.T) {
	for _, tc := range cases {
		doc := parse(t, render(t, tc.chart))
		for _, name := range doc.elements {
			if name == "script" || name == "style" || name == "foreignObject" || name == "image" || name == "use" {
				t.Errorf("%s: has a <%s> element", tc.name, name)
			}
		}
		if doc.ids > 0 || len(doc.links) > 0 {
			t.Errorf("%s: %d ids and links %q, want none", tc.name, doc.ids, doc.links)
		}
	}
}

func TestRender_ControlCharacters(t *testing.T) {
	name := "bad\x00\x1b\xff name"
	charts := []renderer{
		chart.LineChart{ID: name, Title: name, Unit: name, Series: []chart.Series{{Name: name, Points: wave(3, 0, 1, 1, 0)}},
			Markers: []chart.Marker{{X: 1, Label: name}}, Bands: []chart.Band{{From: 0, To: 2, Label: name}}},
		chart.BarChart{ID: name, Title: name, Unit: name, Bars: []chart.Bar{{Label: name, Value: 1}}},
	}
	for _, c := range charts {
		if doc := parse(t, render(t, c)); len(doc.series) != 1 {
			t.Errorf("got %d series, want 1", len(doc.series))
		}
	}
}

func TestRender_NoData(t *testing.T) {
	for _, tc := range cases {
		if !strings.Contains(tc.name, "empty") && !strings.Contains(tc.name, "missing") {
			continue
		}
		doc := parse(t, render(t, tc.chart))
		if !strings.Contains(strings.Join(doc.text, " "), "no data") {
			t.Errorf("%s: an empty chart does not say \"no data\"", tc.name)
		}
	}
}

func TestRender_Escaping(t *testing.T) {
	var svg string
	for _, tc := range cases {
		if tc.name == "line_escaping" {
			svg = string(render(t, tc.chart))
		}
	}
	if svg == "" || strings.Contains(svg, "<script") || strings.Contains(svg, "<b>") || strings.Contains(svg, "<stage") {
		t.Errorf("user text reached the markup unescaped:\n%s", svg)
	}
}

func TestLineChart_Size(t *testing.T) {
	tests := []struct {
		name  string
		chart chart.LineChart
		limit int // bytes
	}{
		{"3 series × 600 points, with tooltips", bigChart(), 200_000},
		{"1 series × 5,000 points, downsampled, no tooltips", longChart(), 30_000},
	}
	for _, tt := range tests {
		if got := len(tt.chart.SVG()); got > tt.limit {
			t.Errorf("%s: %d bytes, want at most %d", tt.name, got, tt.limit)
		}
	}
}

func TestLineChart_Tooltips(t *testing.T) {
	tests := []struct {
		name   string
		points int
		want   int // circles with a <title>
	}{
		{"short series get one per point", 600, 600},
		{"long series get none", 601, 0},
	}
	for _, tt := range tests {
		c := chart.LineChart{Series: []chart.Series{{Name: "s", Points: wave(tt.points, 0, 1, 10, 0)}}}
		if got := strings.Count(c.SVG(), `r="3"><title>`); got != tt.want {
			t.Errorf("%s: %d tooltips, want %d", tt.name, got, tt.want)
		}
	}
}

func TestLineChart_GapsBreakTheLine(t *testing.T) {
	c := chart.LineChart{Series: []chart.Series{{Name: "s", Points: []chart.Point{
		{X: 0, Y: 1}, {X: 1, Y: 2}, {X: 2, Y: math.NaN()}, {X: 3, Y: 2}, {X: 4, Y: 1}, {X: 5, Y: math.NaN()}, {X: 6, Y: 3},
	}}}}
	_, series, _ := strings.Cut(c.SVG(), `class="series"`)
	_, d, _ := strings.Cut(series, `<path d="`)
	d, _, _ = strings.Cut(d, `"`)
	if got, want := strings.Count(d, "M"), 2; got != want {
		t.Errorf("line %q has %d segments, want %d", d, got, want)
	}
	if got, want := strings.Count(series, `r="2"`), 1; got != want {
		t.Errorf("%d dots, want %d for the lone point after the last gap", got, want)
	}
}

func TestPalette(t *testing.T) {
	p := chart.Palette()
	if len(p) < 5 {
		t.Fatalf("palette has %d colours, want at least 5", len(p))
	}
	tests := []struct {
		index int
		want  string
	}{
		{0, p[0]},
		{len(p), p[0]},     // wraps
		{-1, p[len(p)-1]},  // never panics
		{len(p) + 2, p[2]}, // second round
	}
	for _, tt := range tests {
		if got := chart.Color(tt.index); got != tt.want {
			t.Errorf("Color(%d) = %s, want %s", tt.index, got, tt.want)
		}
	}
	p[0] = "#000000"
	if chart.Color(0) == "#000000" {
		t.Error("Palette returned the palette itself, not a copy")
	}
}

func TestLineChart_TintedBand(t *testing.T) {
	c := chart.LineChart{ID: "cut", Series: []chart.Series{{Name: "go", Points: wave(10, 0, 1, 1, 0)}, {Name: "java", Points: wave(10, 0, 1, 2, 1)}},
		Bands: []chart.Band{{From: -3, To: 0, Label: "warm-up"}, {From: 0, To: 4, Label: "java: transient (cut)", Tinted: true, Series: 1}}}
	svg := c.SVG()
	if got, want := strings.Count(svg, `fill="`+chart.Color(1)+`" fill-opacity=".08"`), 1; got != want {
		t.Errorf("%d bands in series 1's colour, want %d:\n%s", got, want, svg)
	}
	if got, want := strings.Count(svg, `<g class="band">`), 2; got != want {
		t.Errorf("%d bands, want %d", got, want)
	}
}

// A search chart tells passes from fails by shape, rings the
// confirmations, draws the objective at its value and the answer and first
// failing rate as markers with their rates, and a failure far above the
// objective at the top edge, its value kept in its tooltip.
func TestSearchChart(t *testing.T) {
	c := searchChart()
	svg := c.SVG()
	parse(t, []byte(svg))
	_, plot, _ := strings.Cut(svg, `<g class="series"`)
	for _, tt := range []struct {
		what, mark string
		want       int
	}{
		{"passes", `<g class="trial pass">`, 4 + 1},
		{"confirmed passes", `<g class="trial pass confirm">`, 3},
		{"fails", `<g class="trial fail">`, 2},
		{"dots", `r="3.5" stroke="none"`, 8},
		{"rings", `r="7" fill="none"`, 3},
		{"crosses", `<path d="M`, 1},            // 970 req/s, 320 ms
		{"triangles at the top", `<polygon`, 1}, // 1000 req/s, 2400 ms
	} {
		if got := strings.Count(plot, tt.mark); got != tt.want {
			t.Errorf("%d %s (%s), want %d", got, tt.what, tt.mark, tt.want)
		}
	}
	if got := strings.Count(svg, `<g class="marker">`); got != 2 {
		t.Errorf("%d markers, want the answer and the first failing rate", got)
	}
	for _, want := range []string{"<title>answer 955 req/s</title>", "<title>first failing 970 req/s</title>", "<title>p99 ≤ 300 ms</title>",
		"<title>trial at 1000 req/s</title>", ">objective p99 ≤ 300 ms</text>", ">off the scale</text>", ">confirmation</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	// the objective's line at 300 ms on an axis from 0 to 800 (2.5 × 300
	// ms, rounded up to a tick), passes below it and the fail above
	_, obj, _ := strings.Cut(svg, `<g class="objective">`)
	_, d, _ := strings.Cut(obj, `<path d="M`)
	var left, y float64
	if _, err := fmt.Sscanf(d, "%g %g", &left, &y); err != nil {
		t.Fatalf("objective line %q: %v", d, err)
	}
	_, axis, _ := strings.Cut(svg, `<g text-anchor="end">`)
	if axis, _, _ = strings.Cut(axis, `>ms</text>`); !strings.HasSuffix(axis, `>800</text><text x="30" y="52"`) {
		t.Errorf("value axis %q does not end at 800 ms", axis)
	}
	for _, dot := range strings.Split(plot, `<circle cx="`)[1:] {
		var x, cy float64
		if _, err := fmt.Sscanf(strings.Replace(dot, `" cy="`, " ", 1), "%g %g", &x, &cy); err != nil {
			t.Fatal(err)
		}
		if cy <= y {
			t.Errorf("a passing trial at y %g is drawn above the objective at %g", cy, y)
		}
	}
	_, cross, _ := strings.Cut(plot, `<path d="M`)
	var x0, y0 float64
	if _, err := fmt.Sscanf(cross, "%g %g", &x0, &y0); err != nil || y0+4 >= y {
		t.Errorf("the cross of 320 ms at y %g is not above the objective at %g (%v)", y0+4, y, err)
	}
}

// A trial the load generator limited is neither a pass nor a fail: an
// open square, named so in the legend.
func TestSearchChart_GeneratorBound(t *testing.T) {
	c := chart.SearchChart{ID: "s", Name: "go", Unit: "ms", Limit: 300, Trials: []chart.Trial{
		{Rate: 50, Value: 233, Pass: true}, {Rate: 100, Value: 372, Limited: true, Label: "generator-bound"}}}
	svg := c.SVG()
	parse(t, []byte(svg))
	_, plot, _ := strings.Cut(svg, `<g class="series"`)
	if got := strings.Count(plot, `<g class="trial generator-bound"><title>generator-bound</title><rect `); got != 1 {
		t.Errorf("%d generator-bound squares, want 1:\n%s", got, plot)
	}
	if strings.Contains(plot, `class="trial fail"`) || !strings.Contains(svg, ">generator-bound</text>") || strings.Contains(svg, ">fail</text>") {
		t.Errorf("the generator-bound trial is drawn or named as a fail:\n%s", svg)
	}
}
