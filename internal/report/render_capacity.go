package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/chart"
	"github.com/threadbench/threadbench/internal/scalability"
	"github.com/threadbench/threadbench/internal/units"
)

// capacitySections lay out a capacity run's answer and its searches trial
// by trial, and a sweep's USL fits, as internal/capacity, internal/analysis
// and internal/scalability found them; none for other runs.
func capacitySections(rep bench.Report) []section {
	var sections []section
	if t := rep.Capacity; t != nil {
		sections = append(sections, section{Title: "Capacity within " + t.Objective, ID: "capacity",
			Blocks: []block{capacityBlock(t), {Lines: t.Sentences}}})
	}
	if rep.Searches != nil && len(rep.Searches.Targets) > 0 {
		sections = append(sections, searchSection(rep))
	}
	if len(rep.Scalability) > 0 {
		sections = append(sections, section{Title: "Scalability (Universal Scalability Law)", ID: "scalability",
			Blocks: scalabilityBlocks(rep.Scalability)})
	}
	return sections
}

func capacityBlock(t *bench.CapacityTable) block {
	b := block{Header: []string{"target", "req/s", "confirmations served", "first failing", "why", "× best", "stopped on"},
		Right: map[int]bool{1: true, 3: true, 5: true}}
	for _, r := range t.Rows {
		served, failed := "-", "-"
		if r.Rate > 0 {
			served = units.Rate(r.ServedLow) + "–" + units.Rate(r.ServedHigh)
		}
		switch {
		case r.Unconfirmed != "":
			served += " (passed, unconfirmed)"
		case r.Rule == bench.RulePooled && r.Pooled != nil:
			served += fmt.Sprintf(" (%d of %d held; pooled p99 %s)", r.Pooled.Held, r.Pooled.Windows, units.Num(r.Pooled.P99)+" ms")
		case len(r.Misses) > 0:
			served += fmt.Sprintf(" (%d of %d passed)", r.Passed, r.Ran)
		}
		if r.FailedRate > 0 {
			failed = units.Rate(r.FailedRate)
		}
		rate := units.Rate(r.Rate)
		if r.Unconfirmed != "" {
			rate += " unconfirmed"
		}
		b.Rows = append(b.Rows, []string{r.Target, rate, served, failed, units.OrDash(r.FailedWhy),
			fmt.Sprintf("%.2f", r.Ratio), r.Stop})
		b.Color = append(b.Color, -1)
	}
	return b
}

func scalabilityBlocks(fits []bench.ScalabilityFit) []block {
	b := block{Header: []string{"target", "σ", "κ", "λ req/s", "N*", "X_max req/s", "R²", "fit"},
		Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true}}
	var lines []string
	for _, f := range fits {
		peak, xmax, fit := "none", "unbounded", "usable"
		if f.Peak > 0 {
			peak = fmt.Sprintf("%.0f", f.Peak)
		}
		if f.MaxThroughput > 0 {
			xmax = fmt.Sprintf("%.0f", f.MaxThroughput)
		}
		if f.Poor != "" {
			fit = "too poor"
		}
		b.Rows = append(b.Rows, []string{f.Target, fmt.Sprintf("%.4f", f.Sigma), fmt.Sprintf("%.6f", f.Kappa),
			fmt.Sprintf("%.1f", f.Lambda), peak, xmax, fmt.Sprintf("%.3f", f.R2), fit})
		b.Color = append(b.Color, -1)
		lines = append(lines, f.Sentence)
	}
	return []block{b, {Lines: lines}}
}

// uslCharts draw each sweep's measured throughput beside its fitted USL
// curve, one chart per target.
func uslCharts(rep bench.Report) []chart.LineChart {
	var charts []chart.LineChart
	for i, f := range rep.Scalability {
		measured, fitted := chart.Series{Name: f.Target + " measured"}, chart.Series{Name: f.Target + " USL fit"}
		for _, p := range f.Measured {
			measured.Points = append(measured.Points, chart.Point{X: p.Concurrency, Y: p.Throughput})
		}
		for _, p := range scalability.Curve(f, 100) {
			fitted.Points = append(fitted.Points, chart.Point{X: p.Concurrency, Y: p.Throughput})
		}
		charts = append(charts, chart.LineChart{ID: fmt.Sprintf("usl-%d", i), Title: f.Target + ": throughput by clients, measured and USL fit",
			XLabel: "clients", Unit: "req/s", Series: []chart.Series{measured, fitted}})
	}
	return charts
}

// leadIDs are the sections a capacity run's report opens with, in order:
// its answer, its searches trial by trial, and why each target stopped
// where it did.
var leadIDs = []string{"capacity", "search", "why"}

// answerFirst puts a capacity run's lead sections (leadIDs) before all
// the others, which keep their order: its report opens with its answer.
// Other reports are left as they were laid out.
func answerFirst(sections []section) []section {
	lead, rest := splitLead(sections)
	return append(lead, rest...)
}

// splitLead parts a capacity run's lead sections from the others; none
// lead in other reports.
func splitLead(sections []section) (lead, rest []section) {
	if !slices.ContainsFunc(sections, func(s section) bool { return s.ID == leadIDs[0] }) {
		return nil, sections
	}
	for _, id := range leadIDs {
		for _, s := range sections {
			if s.ID == id {
				lead = append(lead, s)
			}
		}
	}
	for _, s := range sections {
		if !slices.Contains(leadIDs, s.ID) {
			rest = append(rest, s)
		}
	}
	return lead, rest
}

// searchSection lays out each target's search, trial by trial: what
// its charts draw, in words.
func searchSection(rep bench.Report) section {
	s := section{Title: "The search, trial by trial", ID: "search"}
	colors := subjectColors(rep)
	for _, ts := range rep.Searches.Targets {
		s.Blocks = append(s.Blocks, searchBlock(ts, colors[ts.Target]))
	}
	return s
}

// searchBlock is one target's trials: each one's phase, the rate it
// offered and what it served, the objective's figure, how the search
// judged it, and whether a confirmation was steady.
func searchBlock(ts bench.TargetSearch, color int) block {
	b := block{Title: searchTitle(ts),
		Header: []string{"TRIAL", "PHASE", "OFFERED req/s", "SERVED req/s", strings.ToUpper(ts.Figure) + " " + ts.Unit, "VERDICT", "STEADY"},
		Right:  map[int]bool{0: true, 2: true, 3: true, 4: true}}
	for _, tr := range ts.Trials {
		b.Rows = append(b.Rows, []string{fmt.Sprint(tr.Stage + 1), string(tr.Phase), units.Rate(tr.Rate), units.Num(tr.Throughput),
			analysis.Value(tr.Value, ts.Unit), tr.Verdict, trialSteady(tr)})
		b.Color = append(b.Color, color)
	}
	return b
}

// searchTitle says how long a search took and where it started: "go: 15
// trials in 1m24s from 50 req/s".
func searchTitle(ts bench.TargetSearch) string {
	s := fmt.Sprintf("%s: %d trials in %s", ts.Target, len(ts.Trials), ts.Spent.D().Round(100e6))
	if ts.Start > 0 {
		s += " from " + units.Rate(ts.Start) + " req/s"
	}
	return s + analysis.Suffix(", ", ts.StartFrom)
}

// trialSteady says whether a confirmation's seconds settled; a short
// trial is not judged.
func trialSteady(tr bench.SearchTrial) string {
	switch {
	case tr.Steady != nil:
		return steadyWords(*tr.Steady, false)
	case tr.TooShort:
		return "too short to judge"
	case tr.Phase == capacity.PhaseConfirm:
		return "no seconds kept"
	}
	return "-"
}

// untestedIn is why a figure of a scope has no test: in a capacity run,
// its trials are too short for one; elsewhere, untestedWhy.
func untestedIn(sc bench.ReportScope) string {
	if sc.Stage == nil && sc.Name != analysis.ScopeWholeName {
		return "trials too short to test: the seconds of one are too few"
	}
	return untestedWhy
}

// searchCharts draw each target's search in its colour: every trial's
// offered rate against the objective's figure, the objective, the answer
// and the first failing rate.
func searchCharts(rep bench.Report) []chart.SearchChart {
	if rep.Searches == nil {
		return nil
	}
	colors := subjectColors(rep)
	var charts []chart.SearchChart
	for i, ts := range rep.Searches.Targets {
		c := chart.SearchChart{ID: fmt.Sprintf("search-%d", i), Title: fmt.Sprintf("%s: %s by offered rate", ts.Target, ts.Figure),
			Name: ts.Target, Color: colors[ts.Target], Unit: ts.Unit, Limit: ts.Limit, LimitLabel: limitWords(ts),
			Answer: ts.Rate, Failed: ts.FailedRate}
		for _, tr := range ts.Trials {
			c.Trials = append(c.Trials, chart.Trial{Rate: tr.Rate, Value: tr.Value, Pass: tr.Pass, Limited: tr.GeneratorBound,
				Confirm: tr.Phase == capacity.PhaseConfirm, Label: trialWords(ts, tr)})
		}
		charts = append(charts, c)
	}
	return charts
}

// limitWords writes the objective a chart draws: "p99 ≤ 300 ms".
func limitWords(ts bench.TargetSearch) string {
	if ts.Unit == analysis.UnitPercent {
		return fmt.Sprintf("%s ≤ %g%%", ts.Figure, ts.Limit)
	}
	return fmt.Sprintf("%s ≤ %g %s", ts.Figure, ts.Limit, ts.Unit)
}

// trialWords is a trial's tooltip: "trial 5, bracket: 800 req/s offered,
// 700.0 served, p99 1793.0 ms; fail: p99 1793ms > 300ms".
func trialWords(ts bench.TargetSearch, tr bench.SearchTrial) string {
	return fmt.Sprintf("trial %d, %s: %s req/s offered, %s served, %s %s; %s", tr.Stage+1, tr.Phase, units.Rate(tr.Rate),
		units.Num(tr.Throughput), ts.Figure, analysis.ValueWithUnit(tr.Value, ts.Unit), tr.Verdict)
}

// searchFragment is what WriteSearchFragment renders.
type searchFragment struct {
	Title  string
	Charts []template.HTML
}

var searchTemplate = template.Must(template.New("searches").Parse(`<section class="searches">
<h2>{{.Title}}</h2>
<div class="charts">
{{range .Charts}}<figure>{{.}}</figure>
{{end}}</div>
</section>
`))

// WriteSearchFragment writes a capacity run's search charts under title,
// as an HTML fragment for the daemon's compare page (no document, no
// style attribute, the classes of WriteReportFragment's): each target's
// trials in the colour its own report gives it. Nothing for a run that is
// no capacity search.
func WriteSearchFragment(w io.Writer, title string, r *bench.Run) error {
	rep := bench.Report{Searches: analysis.Searches(r)}
	if rep.Searches == nil {
		return nil
	}
	for _, s := range analysis.FirstRounds(r) {
		rep.Subjects = append(rep.Subjects, s.Subject)
	}
	page := searchFragment{Title: title}
	for _, c := range searchCharts(rep) {
		page.Charts = append(page.Charts, template.HTML(c.SVG())) // #nosec: chart escapes every text it draws
	}
	var buf bytes.Buffer
	if err := searchTemplate.Execute(&buf, page); err != nil {
		return fmt.Errorf("render search charts: %w", err)
	}
	return flush(w, &buf)
}
