package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/threadbench/threadbench/internal/bench"
)

// comparisonPage is what the comparison fragment renders: the same rows as
// the table and markdown formats, with each verdict's kind for its class.
type comparisonPage struct {
	Base, Head []string // refCells
	Threshold  string
	Warnings   []string
	OnlyInBase []string
	OnlyInHead []string
	Targets    []comparedTarget
}

type comparedTarget struct {
	Name string
	Rows []comparedRow
}

// comparedRow is one figure of a target: the cells of targetRows, and its
// verdict's kind ("better", "worse" or "same").
type comparedRow struct {
	Cells []string
	Kind  string
}

// WriteComparisonFragment writes c as an HTML fragment for the daemon's web
// page: the runs compared, the threshold, the warnings, and per target a
// table of every figure with its verdict, the figures and words of the
// table and markdown formats. Like WriteReportFragment's, it has no
// document around it and no style attribute; verdict cells carry the
// class "verdict better", "verdict worse" or "verdict same".
func WriteComparisonFragment(w io.Writer, c bench.Comparison) error {
	page := comparisonPage{Base: refCells(c.Base), Head: refCells(c.Head), Threshold: upperFirst(thresholdLine(c)),
		Warnings: c.Warnings, OnlyInBase: c.OnlyInBase, OnlyInHead: c.OnlyInHead}
	for _, t := range c.Targets {
		page.Targets = append(page.Targets, comparedTarget{Name: t.Target, Rows: comparedRows(t)})
	}
	var buf bytes.Buffer
	if err := comparisonTemplate.Execute(&buf, page); err != nil {
		return fmt.Errorf("render html comparison: %w", err)
	}
	return flush(w, &buf)
}

// comparedRows pairs targetRows' cells with the kind of each verdict, in
// the same order: the whole attack, each stage, then resources.
func comparedRows(t bench.TargetComparison) []comparedRow {
	deltas := append([]bench.MetricDelta(nil), t.Metrics...)
	for _, s := range t.Stages {
		deltas = append(deltas, s.Metrics...)
	}
	deltas = append(deltas, t.Resources...)
	cells := targetRows(t, false)
	rows := make([]comparedRow, len(cells))
	for i := range cells {
		rows[i] = comparedRow{Cells: cells[i], Kind: verdictKind(deltas[i].Verdict)}
	}
	return rows
}

func verdictKind(verdict string) string {
	switch verdict {
	case bench.VerdictBetter, bench.VerdictWorse:
		return verdict
	}
	return "same"
}

var comparisonTemplate = template.Must(template.New("comparison").Parse(comparisonHTML))

const comparisonHTML = `<section id="compared">
<div class="scroll"><table>
<tr><th></th><th>run</th><th>name</th><th>created</th><th>status</th></tr>
<tr><td>base</td>{{range .Base}}<td>{{.}}</td>{{end}}</tr>
<tr><td>head</td>{{range .Head}}<td>{{.}}</td>{{end}}</tr>
</table></div>
<p class="muted">{{.Threshold}}.</p>
{{if .Warnings}}<h3>warnings</h3>
<ul class="lines warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{if .OnlyInBase}}<p>Only in base (not compared): {{range $i, $n := .OnlyInBase}}{{if $i}}, {{end}}{{$n}}{{end}}</p>
{{end}}{{if .OnlyInHead}}<p>Only in head (not compared): {{range $i, $n := .OnlyInHead}}{{if $i}}, {{end}}{{$n}}{{end}}</p>
{{end}}</section>
{{range .Targets}}<section class="compared-target" data-target="{{.Name}}">
<h2>{{.Name}}</h2>
<div class="scroll"><table>
<tr><th>scope</th><th>figure</th><th class="num">base</th><th class="num">head</th><th class="num">change</th><th>verdict</th></tr>
{{range .Rows}}<tr>{{range $i, $c := .Cells}}{{if eq $i 5}}{{else if and (ge $i 2) (le $i 4)}}<td class="num">{{$c}}</td>{{else}}<td>{{$c}}</td>{{end}}{{end}}<td class="verdict {{.Kind}}">{{index .Cells 5}}</td></tr>
{{end}}</table></div>
</section>
{{end}}`
