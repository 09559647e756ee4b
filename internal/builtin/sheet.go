package builtin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// Sheet is an experiment run's results in its seed's own layout, each of
// our figures followed by the seed's in parentheses: a title, then lines
// and tables in order, then where the reproduction differs from the seed.
// Package report writes it as text or markdown.
type Sheet struct {
	Title string
	Parts []SheetPart
	Notes []string
}

// SheetPart is a line of text, or, when Table is set, a titled table.
type SheetPart struct {
	Line string
	// Apart sets the line off from what precedes it, where text has no
	// paragraphs (markdown's lines are paragraphs already).
	Apart bool
	Table *SheetTable
}

// SheetTable is a titled table whose columns after the first are figures.
type SheetTable struct {
	Title  string
	Header []string
	Rows   [][]string
}

// SheetOf returns the sheet of an experiment's run, or false for a run
// that is no experiment's, or one of an experiment this build no longer
// has: the run's own tables say it all.
func SheetOf(run *bench.Run) (Sheet, bool) {
	ref := run.Spec.Experiment
	if ref == nil {
		return Sheet{}, false
	}
	e, err := LookupExperiment(ref.Name)
	if err != nil {
		return Sheet{}, false
	}
	x := expTable{run: run, exp: e, rows: e.RowsOf(ref.Part)}
	x.header()
	switch e.Layout {
	case bench.LayoutK6:
		x.k6()
	case bench.LayoutFanout:
		x.fanout()
	case bench.LayoutStages:
		x.stages()
	case bench.LayoutNGrinder:
		x.ngrinder()
	case bench.LayoutLocust:
		x.locust()
	case bench.LayoutPool:
		x.pool()
	case bench.LayoutCPU:
		x.cpu()
	case bench.LayoutReactive:
		x.reactiveTable()
	}
	x.sheet.Notes = e.Notes
	return x.sheet, true
}

// expTable builds one experiment run's sheet.
type expTable struct {
	sheet Sheet
	run   *bench.Run
	exp   bench.Experiment
	rows  []bench.SeedRow
}

func (x *expTable) header() {
	ref := x.run.Spec.Experiment
	x.sheet.Title = fmt.Sprintf("experiment %s: seed %s, %s", ref.Name, x.exp.Seed, x.exp.Source)
	if x.exp.Seed == "" {
		x.sheet.Title = fmt.Sprintf("experiment %s: %s", ref.Name, x.exp.Source)
	}
	line := fmt.Sprintf("run %s (%s), scale %g", x.run.ID, x.run.Status, ref.Scale)
	if ref.Part != "" {
		line += ", part " + ref.Part
	}
	if x.exp.Seed == "" {
		x.line(line)
	} else {
		x.line(line + "; each figure is ours, the seed's in parentheses")
	}
	if rt := x.runtimes(); rt != "" {
		x.line(rt)
	}
}

// runtimes says what ran each target, its runtime and the framework
// that served it where the target said (GET /info's framework), and
// which JDK and Spring Boot the seed ran: "ran on OpenJDK 21.0.8+9-LTS,
// Spring Boot 4.1.1 (…) for java-platform, java-virtual; go1.26.8, net/http
// (the standard library) for go; the seed ran JDK 21, Spring Boot 3.2".
// Empty before any target recorded its runtime.
func (x *expTable) runtimes() string {
	var order []string
	who := map[string][]string{}
	for _, tr := range x.run.Targets {
		rt := tr.Image.Runtime
		if rt == "" {
			continue
		}
		if fw := tr.Settings["info.framework"]; fw != "" {
			rt += ", " + fw
		}
		if _, seen := who[rt]; !seen {
			order = append(order, rt)
		}
		if label := tr.Label(); !slices.Contains(who[rt], label) {
			who[rt] = append(who[rt], label)
		}
	}
	if len(order) == 0 {
		return ""
	}
	parts := make([]string, len(order))
	for i, rt := range order {
		parts[i] = fmt.Sprintf("%s for %s", rt, strings.Join(who[rt], ", "))
	}
	s := "ran on " + strings.Join(parts, "; ")
	if x.exp.Seed == "" {
		return s
	}
	var ran, unsaid []string
	if x.exp.JDK != 0 {
		ran = append(ran, fmt.Sprintf("JDK %d", x.exp.JDK))
	} else {
		unsaid = append(unsaid, "JDK")
	}
	if x.exp.SpringBoot != "" {
		ran = append(ran, "Spring Boot "+x.exp.SpringBoot)
	} else {
		unsaid = append(unsaid, "Spring Boot")
	}
	if len(ran) > 0 {
		s += "; the seed ran " + strings.Join(ran, ", ")
	}
	if len(unsaid) > 0 {
		s += "; the seed does not say which " + strings.Join(unsaid, " or ") + " it ran"
	}
	return s
}

// line adds a line of text, a paragraph in markdown.
func (x *expTable) line(s string) {
	x.sheet.Parts = append(x.sheet.Parts, SheetPart{Line: s})
}

// table adds a titled table.
func (x *expTable) table(title string, header []string, rows [][]string) {
	x.sheet.Parts = append(x.sheet.Parts, SheetPart{Table: &SheetTable{Title: title, Header: header, Rows: rows}})
}

// result returns the first round's result of a row's case (or target).
func (x *expTable) result(row bench.SeedRow) *bench.TargetResult {
	names := []string{row.Case}
	if line := x.run.Spec.Java.SpringBoot; line != "" {
		names = append(names, onSpringBootLine(row.Case, line))
	}
	for i := range x.run.Targets {
		if t := &x.run.Targets[i]; slices.Contains(names, t.Label()) && t.Round == 0 {
			return t
		}
	}
	return nil
}

// onSpringBootLine is a row's target as a run on a Spring Boot line
// (java.springBoot, run --spring-boot) wrote it: java-virtual as
// java-virtual@boot=3.5, java-virtual@21 as java-virtual@21,boot=3.5
// (the line is the built-in targets' last axis).
func onSpringBootLine(ref, line string) string {
	sep := "@"
	if strings.Contains(ref, "@") {
		sep = ","
	}
	return ref + sep + bench.AxisSpringBoot + "=" + line
}

// measured returns a row's result when it has figures to show, else a
// cell saying why not ("failed: ...", "pending").
func (x *expTable) measured(row bench.SeedRow) (*bench.TargetResult, string) {
	t := x.result(row)
	switch {
	case t == nil:
		return nil, "not in this run"
	case t.Total == nil:
		return nil, string(t.Status)
	}
	return t, ""
}

// stageResources returns a result's resources in measured stage i.
func expStageResources(t *bench.TargetResult, i int) bench.StageResources {
	for _, r := range t.Resources {
		if r.Stage == i && !r.Warmup {
			return r
		}
	}
	return bench.StageResources{}
}

// downstreamResources returns the downstream's resources during measured
// stage i of a result's attack.
func expDownstreamResources(t *bench.TargetResult, i int) bench.StageResources {
	for _, r := range t.DownstreamResources {
		if r.Stage == i && !r.Warmup {
			return r
		}
	}
	return bench.StageResources{}
}

// cell formats one of our figures and, when the seed gives it, the seed's
// in parentheses: "652.0 (653.05)".
func expCell(ours float64, row bench.SeedRow, fig string, format func(float64) string) string {
	s := format(ours)
	if seed, ok := row.Seed[fig]; ok {
		s += " (" + format(seed) + ")"
	}
	return s
}

// seedOnly writes the seed's figure alone, for a row we could not measure.
func expSeedOnly(row bench.SeedRow, fig string, format func(float64) string) string {
	if seed, ok := row.Seed[fig]; ok {
		return "- (" + format(seed) + ")"
	}
	return "-"
}

func expCount(v float64) string      { return fmt.Sprintf("%.0f", v) }
func expRate(v float64) string       { return units.Num(v) }
func expMs(v float64) string         { return units.Num(v) }
func expPercent(v float64) string    { return fmt.Sprintf("%.1f%%", v) }
func expSeconds(v float64) string    { return fmt.Sprintf("%.1f", v) }
func expOneDecimal(v float64) string { return fmt.Sprintf("%.1f", v) }

// signed formats an added amount: "+100", "-2".
func expSigned(format func(float64) string) func(float64) string {
	return func(v float64) string {
		if v >= 0 {
			return "+" + format(v)
		}
		return format(v)
	}
}

// errorPercent is the share of requests that failed, in percent.
func expErrorPercent(s bench.Stats) float64 {
	if s.Requests == 0 {
		return 0
	}
	return 100 * float64(s.Requests-s.Successes) / float64(s.Requests)
}
