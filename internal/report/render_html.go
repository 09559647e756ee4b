package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/chart"
)

// The HTML report is one file that opens offline: its styles are inline,
// its charts are internal/chart's SVG set into the page, and it has no
// script and asks no other host for anything. Its content (everything in
// <body> but the title) is also written on its own, as a fragment, for the
// daemon's web page to set into its own: the content carries no style
// attribute (swatches are SVG), so that page's strict CSP applies it as is.

// htmlPage is what the page template renders.
type htmlPage struct {
	Title    string
	Header   section
	Findings section
	Bars     []template.HTML
	Lines    []template.HTML
	Scopes   []section
	Notes    *section
	NoSeries bool // the run's series were not at hand: only per-second figures charted
	// Lead are the sections a capacity run's page opens with (its answer,
	// its searches, why), before the header; Searches the search charts.
	Lead     []section
	Searches []template.HTML
}

func writeHTML(buf *bytes.Buffer, rep bench.Report, src Source) error {
	if err := pageTemplate.ExecuteTemplate(buf, "page", newHTMLPage(rep, src)); err != nil {
		return fmt.Errorf("render html report: %w", err)
	}
	return nil
}

// WriteReportFragment writes the HTML report's content without its
// document: no <html>, <head>, <style> or title, no style attribute; the
// classes are those of the self-contained page (section, table, td.num,
// .swatch, .charts, .flames, ul.lines, .findings, .scroll, .muted) for the
// embedding page to style. The daemon's web page shows a run with it.
func WriteReportFragment(w io.Writer, src Source) error {
	if src.Report == nil {
		return errNoAnalysis
	}
	var buf bytes.Buffer
	if err := pageTemplate.ExecuteTemplate(&buf, "content", newHTMLPage(*src.Report, src)); err != nil {
		return fmt.Errorf("render html report: %w", err)
	}
	return flush(w, &buf)
}

// newHTMLPage lays out the report and draws its charts.
func newHTMLPage(rep bench.Report, src Source) htmlPage {
	sections := layoutReport(rep)
	page := htmlPage{Title: "threadbench report: run " + rep.Run.ID + analysis.Suffix(" ", quoteName(rep.Run.Name)),
		Header: sections[0], Findings: sections[1], NoSeries: len(src.Series) == 0}
	for _, s := range withFlames(sections[2:], rep, src.Flames) {
		if s.ID == "notes" {
			n := s
			page.Notes = &n
			continue
		}
		page.Scopes = append(page.Scopes, s)
	}
	page.Lead, page.Scopes = splitLead(page.Scopes)
	for _, c := range searchCharts(rep) {
		page.Searches = append(page.Searches, template.HTML(c.SVG())) // #nosec: chart escapes every text it draws
	}
	cs := newChartSet(rep, src)
	for i, sc := range summaryScopes(rep) {
		for _, c := range cs.barCharts(sc, fmt.Sprintf("bars-%d", i)) {
			page.Bars = append(page.Bars, template.HTML(c.SVG())) // #nosec: chart escapes every text it draws
		}
	}
	for _, c := range append(cs.lineCharts(), uslCharts(rep)...) {
		page.Lines = append(page.Lines, template.HTML(c.SVG()))
	}
	return page
}

// summaryScopes are the scopes the page draws bars for: the whole attack
// and, when there are several stages, the busiest; none for a capacity
// run, whose searches are drawn instead.
func summaryScopes(rep bench.Report) []bench.ReportScope {
	if rep.Searches != nil {
		return nil
	}
	if len(rep.Scopes) <= 2 {
		return rep.Scopes[:min(1, len(rep.Scopes))]
	}
	best := 1
	for i := 2; i < len(rep.Scopes); i++ {
		if loadLevel(rep.Scopes[i]) >= loadLevel(rep.Scopes[best]) {
			best = i
		}
	}
	return []bench.ReportScope{rep.Scopes[0], rep.Scopes[best]}
}

// loadLevel reads back the clients or rate a scope's load names: the last
// number in it.
func loadLevel(sc bench.ReportScope) float64 {
	var level float64
	var n float64
	digits := false
	for _, r := range sc.Load + " " {
		switch {
		case r >= '0' && r <= '9':
			n, digits = n*10+float64(r-'0'), true
		case digits && r != ',':
			level, n, digits = n, 0, false
		}
	}
	return level
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"color": chart.Color,
	"right": func(b block, i int) bool { return b.Right[i] },
	"rowColor": func(b block, i int) int {
		if i < len(b.Color) {
			return b.Color[i]
		}
		return -1
	},
}).Parse(pageHTML))

const pageHTML = `{{define "page"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #57606a; --line: #d0d7de; --head: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0; --line: #30363d; --head: #161b22; } }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 24px; max-width: 1500px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; Color: var(--fg); background: var(--bg); }
h1 { font-size: 22px; margin: 0 0 12px; }
h2 { font-size: 18px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 16px 0 6px; Color: var(--muted); font-weight: 600; }
nav a { margin-right: 12px; Color: inherit; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dt { Color: var(--muted); }
dd { margin: 0; }
table { border-collapse: collapse; margin: 4px 0 8px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { background: var(--head); font-weight: 600; font-size: 12px; text-transform: lowercase; }
td.num, th.num { text-align: right; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; vertical-align: baseline; }
ul.lines { margin: 4px 0; padding-left: 20px; }
ul.lines li { margin: 2px 0; }
.findings li { font-size: 15px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(600px, 1fr)); gap: 12px 20px; }
.charts figure { margin: 0; }
svg.chart { max-width: 100%; height: auto; }
.scroll { overflow-x: auto; }
.muted { Color: var(--muted); }
.flames { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 12px 20px; }
.flames figure { margin: 0; }
.flames figcaption { font-size: 12px; Color: var(--muted); }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{template "content" .}}</body>
</html>
{{end}}{{define "content"}}<nav>{{range .Lead}}<a href="#{{.ID}}">{{.Title}}</a>{{end}}<a href="#findings">findings</a><a href="#charts">charts</a>{{range .Scopes}}<a href="#{{.ID}}">{{.Title}}</a>{{end}}{{if .Notes}}<a href="#notes">notes</a>{{end}}</nav>
{{range .Lead}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{if eq .ID "search"}}<div class="charts">
{{range $.Searches}}<figure>{{.}}</figure>
{{end}}</div>
{{end}}{{range .Blocks}}{{template "block" .}}{{end}}
</section>
{{end}}<section id="{{.Header.ID}}">
{{range .Header.Blocks}}{{template "block" .}}{{end}}
</section>
<section id="findings" class="findings">
<h2>{{.Findings.Title}}</h2>
{{range .Findings.Blocks}}{{template "block" .}}{{end}}
</section>
<section id="charts">
<h2>Charts</h2>
<p class="muted">{{if .Searches}}Each target's search on its own clock, from its first trial's first request (the searches ran one after another): the offered rate steps from trial to trial; the warm-up is shaded.{{else}}Every target on one time axis (seconds from the first measured request; the warm-up is shaded, stages are marked).{{end}}
{{if .Bars}}Bars show each figure with its interval where there is one.{{end}}{{if .NoSeries}} The run's scraped series were not available: only per-second request figures are charted.{{end}}</p>
<div class="charts">
{{range .Bars}}<figure>{{.}}</figure>
{{end}}{{range .Lines}}<figure>{{.}}</figure>
{{end}}</div>
</section>
{{range .Scopes}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{range .Blocks}}{{template "block" .}}{{end}}
</section>
{{end}}{{with .Notes}}<section id="notes">
<h2>{{.Title}}</h2>
{{range .Blocks}}{{template "block" .}}{{end}}
</section>
{{end}}{{end}}{{define "block"}}{{if .Title}}<h3>{{.Title}}</h3>
{{end}}{{if .KV}}<dl>{{range .KV}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>{{end}}</dl>
{{end}}{{if .Rows}}{{$b := .}}<div class="scroll"><table>
<tr>{{range $i, $h := .Header}}<th{{if right $b $i}} class="num"{{end}}>{{$h}}</th>{{end}}</tr>
{{range $r, $row := .Rows}}<tr>{{range $i, $c := $row}}<td{{if right $b $i}} class="num"{{end}}>{{if and (eq $i 0) (ge (rowColor $b $r) 0)}}<svg class="swatch" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true"><rect width="10" height="10" rx="2" fill="{{color (rowColor $b $r)}}"/></svg>{{end}}{{$c}}</td>{{end}}</tr>
{{end}}</table></div>
{{end}}{{if .Lines}}<ul class="lines">{{range .Lines}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{if .Figures}}<div class="flames">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Caption}}{{if .Download}} · <a href="{{.Download}}" download="{{.File}}">folded stacks</a>{{end}}</figcaption></figure>
{{end}}</div>
{{end}}{{end}}`
