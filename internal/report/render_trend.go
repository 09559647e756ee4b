package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/chart"
	"github.com/threadbench/threadbench/internal/trend"
	"github.com/threadbench/threadbench/internal/units"
)

var trendHeader = []string{"#", "RUN", "CREATED", "LABELS", "VALUE", "INTERVAL", ""}

// WriteTrend writes a trend as "table" (one row per run, oldest first,
// its change points marked) or "json". Any other format is an EINVALID
// error.
func WriteTrend(w io.Writer, t trend.Trend, format string) error {
	f, err := lookup(KindTrend, format)
	if err != nil {
		return err
	}
	return f.trend(w, t)
}

func trendTable(w io.Writer, t trend.Trend) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "trend: %s %s over %s of %q%s\n", t.Target, t.Figure, plural(len(t.Points), "run"), t.Name, trendLabelWords(t))
	fmt.Fprintf(&buf, "change points: %s, alpha %g, at least %d runs a side: %s\n\n",
		t.Method, t.Alpha, t.MinSize, plural(len(t.ChangePoints), "found"))
	tw := newTable(&buf)
	rows := [][]string{trendHeader}
	for i, p := range t.Points {
		rows = append(rows, []string{fmt.Sprint(i + 1), p.RunID, shortTime(p.CreatedAt), units.OrDash(labelWords(p.Labels)),
			analysis.ValueWithUnit(p.Value, t.Unit), trendInterval(p, t.Unit), trendMark(t, i)})
	}
	writeRows(tw, "", rows)
	tw.Flush()
	// The mark is the last column: rows without one would end in padding.
	trimmed := bytes.NewBufferString(strings.Join(trimRight(strings.Split(buf.String(), "\n")), "\n"))
	return flush(w, trimmed)
}

func trimRight(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

func trendLabelWords(t trend.Trend) string {
	if len(t.Label) == 0 {
		return ""
	}
	return " carrying " + labelWords(t.Label)
}

// trendInterval is a point's confidence interval, "[lo, hi]", or "-".
func trendInterval(p trend.Point, unit string) string {
	if p.CI == nil {
		return "-"
	}
	return fmt.Sprintf("[%s, %s]", analysis.Value(p.CI.Lo, unit), analysis.Value(p.CI.Hi, unit))
}

// trendMark marks the run a change point starts at: "▲ change point:
// worse -38.2 %, p = 0.01".
func trendMark(t trend.Trend, i int) string {
	c, ok := t.IsChangePoint(i)
	if !ok {
		return ""
	}
	return "▲ " + ChangePointWords(c)
}

// ChangePointWords says what a change point is: "change point: worse
// -38.2 %, p = 0.01".
func ChangePointWords(c trend.ChangePoint) string {
	return fmt.Sprintf("change point: %s %+.1f %%, p = %.3g", c.Direction, c.Change, c.PValue)
}

// trendFragment is what the trend's HTML fragment shows.
type trendFragment struct {
	Title, Rule string
	Chart       template.HTML
	Rows        []trendRow
}

// trendRow is one run of the fragment's table.
type trendRow struct {
	Number                        int
	RunID, Created, Labels, Value string
	Interval, ChangePoint         string
	Worse                         bool
}

var trendTemplate = template.Must(template.New("trend").Parse(`<section class="trend">
<h2>{{.Title}}</h2>
<p class="muted small">{{.Rule}}</p>
<figure>{{.Chart}}</figure>
<div class="scroll"><table class="runs trend-runs">
<thead><tr><th>#</th><th>run</th><th>created</th><th>labels</th><th>value</th><th>interval</th><th>change point</th></tr></thead>
<tbody>
{{range .Rows}}<tr{{if .ChangePoint}} class="change-point{{if .Worse}} worse{{end}}"{{end}}>
<td>{{.Number}}</td><td><a href="/ui/runs/{{.RunID}}"><code>{{.RunID}}</code></a></td><td class="nowrap">{{.Created}}</td><td>{{.Labels}}</td>
<td class="num">{{.Value}}</td><td class="num">{{.Interval}}</td><td>{{if .ChangePoint}}<b>▲ {{.ChangePoint}}</b>{{end}}</td>
</tr>
{{end}}</tbody>
</table></div>
</section>
`))

// WriteTrendFragment writes a trend as an HTML fragment for the daemon's
// trend page: a line chart over the runs, oldest first, with its
// intervals and a marker at each change point's first run, and a table of
// the runs with the change points marked.
func WriteTrendFragment(w io.Writer, t trend.Trend) error {
	page := trendFragment{
		Title: fmt.Sprintf("%s %s over %s of %q%s", t.Target, t.Figure, plural(len(t.Points), "run"), t.Name, trendLabelWords(t)),
		Rule: fmt.Sprintf("Change points by %s at alpha %g, at least %d runs a side: %s.",
			t.Method, t.Alpha, t.MinSize, plural(len(t.ChangePoints), "found")),
		Chart: template.HTML(trendChart(t).SVG()), // #nosec: chart escapes every text it draws
	}
	for i, p := range t.Points {
		row := trendRow{Number: i + 1, RunID: p.RunID, Created: shortTime(p.CreatedAt), Labels: units.OrDash(labelWords(p.Labels)),
			Value: analysis.ValueWithUnit(p.Value, t.Unit), Interval: trendInterval(p, t.Unit)}
		if c, ok := t.IsChangePoint(i); ok {
			row.ChangePoint, row.Worse = strings.TrimPrefix(ChangePointWords(c), "change point: "), c.Direction == trend.Worse
		}
		page.Rows = append(page.Rows, row)
	}
	var buf bytes.Buffer
	if err := trendTemplate.Execute(&buf, page); err != nil {
		return fmt.Errorf("render trend: %w", err)
	}
	return flush(w, &buf)
}

// trendChart is the figure by run number, its interval's bounds when the
// runs have intervals, and a marker at each change point.
func trendChart(t trend.Trend) chart.LineChart {
	c := chart.LineChart{ID: "trend-" + t.Figure, Title: t.Target + " " + t.Figure, XLabel: "run (oldest first)", XWord: "run", Unit: t.Unit}
	value := chart.Series{Name: t.Target + " " + t.Figure}
	lo, hi := chart.Series{Name: "interval low"}, chart.Series{Name: "interval high"}
	for i, p := range t.Points {
		x := float64(i + 1)
		value.Points = append(value.Points, chart.Point{X: x, Y: p.Value})
		if p.CI != nil {
			lo.Points = append(lo.Points, chart.Point{X: x, Y: p.CI.Lo})
			hi.Points = append(hi.Points, chart.Point{X: x, Y: p.CI.Hi})
		}
	}
	c.Series = []chart.Series{value}
	if len(lo.Points) > 0 {
		c.Series = append(c.Series, lo, hi)
	}
	for _, cp := range t.ChangePoints {
		c.Markers = append(c.Markers, chart.Marker{X: float64(cp.Index + 1), Label: fmt.Sprintf("▲ %s %+.1f %%", cp.Direction, cp.Change)})
	}
	return c
}
