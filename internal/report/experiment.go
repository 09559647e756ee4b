package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
)

// WriteExperiments writes the built-in experiments: name, seed, default
// scale, parts and what each runs (table), or the catalog (json).
func WriteExperiments(w io.Writer, exps []bench.Experiment, format string) error {
	f, err := lookup(KindExperiments, format)
	if err != nil {
		return err
	}
	return f.experiments(w, exps)
}

func experimentsTable(w io.Writer, exps []bench.Experiment) error {
	var buf bytes.Buffer
	tw := newTable(&buf)
	writeRows(tw, "", [][]string{{"NAME", "SEED", "SCALE", "PARTS", "DESCRIPTION"}})
	for _, e := range exps {
		writeRows(tw, "", [][]string{{e.Name, e.Seed, fmt.Sprintf("%g", e.Scale), analysis.OrDash(strings.Join(e.Parts, ", ")), e.Description}})
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(&buf, "\nscale:")
	for _, e := range exps {
		fmt.Fprintf(&buf, "  %s: %s\n", e.Name, e.ScaleNote)
	}
	return flush(w, &buf)
}

// WriteExperimentRun writes an experiment run's results in its seed's own
// layout, each of our figures followed by the seed's in parentheses, as a
// text table or markdown. A run that is no experiment's writes nothing.
func WriteExperimentRun(w io.Writer, run *bench.Run, format string) error {
	f, err := lookup(KindExperimentRun, format)
	if err != nil {
		return err
	}
	return f.experimentRun(w, run)
}

func experimentRunTable(w io.Writer, run *bench.Run) error {
	return writeExperimentRun(w, run, false)
}

func experimentRunMarkdown(w io.Writer, run *bench.Run) error {
	return writeExperimentRun(w, run, true)
}

// writeExperimentRun writes the seed's tables, as markdown or as text.
func writeExperimentRun(w io.Writer, run *bench.Run, markdown bool) error {
	ref := run.Spec.Experiment
	if ref == nil {
		return nil
	}
	e, err := builtin.LookupExperiment(ref.Name)
	if err != nil {
		return nil // an experiment this build no longer has: the run's own tables say it all
	}
	x := expTable{run: run, exp: e, rows: e.RowsOf(ref.Part), markdown: markdown}
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
	}
	x.notes()
	return flush(w, &x.buf)
}

// expTable builds one experiment run's tables.
type expTable struct {
	buf      bytes.Buffer
	run      *bench.Run
	exp      bench.Experiment
	rows     []bench.SeedRow
	markdown bool
}

func (x *expTable) header() {
	ref := x.run.Spec.Experiment
	title := fmt.Sprintf("experiment %s: seed %s, %s", ref.Name, x.exp.Seed, x.exp.Source)
	if x.markdown {
		fmt.Fprintf(&x.buf, "\n### %s\n\n", title)
	} else {
		fmt.Fprintf(&x.buf, "\n%s\n", title)
	}
	line := fmt.Sprintf("run %s (%s), scale %g", x.run.ID, x.run.Status, ref.Scale)
	if ref.Part != "" {
		line += ", part " + ref.Part
	}
	x.line(line + "; each figure is ours, the seed's in parentheses")
}

// line writes a line of text, a paragraph in markdown.
func (x *expTable) line(s string) {
	if x.markdown {
		fmt.Fprintf(&x.buf, "%s\n\n", s)
		return
	}
	fmt.Fprintf(&x.buf, "%s\n", s)
}

// table writes a titled table.
func (x *expTable) table(title string, header []string, rows [][]string) {
	if x.markdown {
		fmt.Fprintf(&x.buf, "**%s**\n\n", title)
		right := map[int]bool{}
		for i := 1; i < len(header); i++ {
			right[i] = true
		}
		writeMarkdownTable(&x.buf, header, right, rows)
		fmt.Fprintln(&x.buf)
		return
	}
	fmt.Fprintf(&x.buf, "\n%s\n", title)
	tw := newTable(&x.buf)
	writeRows(tw, "  ", append([][]string{header}, rows...))
	_ = tw.Flush() // writes to a bytes.Buffer
}

func (x *expTable) notes() {
	if len(x.exp.Notes) == 0 {
		return
	}
	if !x.markdown {
		fmt.Fprintln(&x.buf)
	}
	for _, n := range x.exp.Notes {
		if x.markdown {
			fmt.Fprintf(&x.buf, "- %s\n", n)
		} else {
			fmt.Fprintf(&x.buf, "note: %s\n", n)
		}
	}
}

// result returns the first round's result of a row's case (or target).
func (x *expTable) result(row bench.SeedRow) *bench.TargetResult {
	for i := range x.run.Targets {
		if t := &x.run.Targets[i]; t.Label() == row.Case && t.Round == 0 {
			return t
		}
	}
	return nil
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
func expRate(v float64) string       { return analysis.Num(v) }
func expMs(v float64) string         { return analysis.Num(v) }
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
