package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/units"
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
		writeRows(tw, "", [][]string{{e.Name, units.OrDash(e.Seed), fmt.Sprintf("%g", e.Scale), units.OrDash(strings.Join(e.Parts, ", ")), e.Description}})
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
	sheet, ok := builtin.SheetOf(run)
	if !ok {
		return nil
	}
	var buf bytes.Buffer
	if markdown {
		fmt.Fprintf(&buf, "\n### %s\n\n", sheet.Title)
	} else {
		fmt.Fprintf(&buf, "\n%s\n", sheet.Title)
	}
	for _, p := range sheet.Parts {
		if p.Table != nil {
			writeSheetTable(&buf, *p.Table, markdown)
			continue
		}
		writeSheetLine(&buf, p, markdown)
	}
	writeSheetNotes(&buf, sheet.Notes, markdown)
	return flush(w, &buf)
}

// writeSheetLine writes a line of text, a paragraph in markdown.
func writeSheetLine(buf *bytes.Buffer, p builtin.SheetPart, markdown bool) {
	switch {
	case markdown:
		fmt.Fprintf(buf, "%s\n\n", p.Line)
	case p.Apart:
		fmt.Fprintf(buf, "\n%s\n", p.Line)
	default:
		fmt.Fprintf(buf, "%s\n", p.Line)
	}
}

// writeSheetTable writes a titled table, its figures right-aligned in
// markdown.
func writeSheetTable(buf *bytes.Buffer, t builtin.SheetTable, markdown bool) {
	if markdown {
		fmt.Fprintf(buf, "**%s**\n\n", t.Title)
		right := map[int]bool{}
		for i := 1; i < len(t.Header); i++ {
			right[i] = true
		}
		writeMarkdownTable(buf, t.Header, right, t.Rows)
		fmt.Fprintln(buf)
		return
	}
	fmt.Fprintf(buf, "\n%s\n", t.Title)
	tw := newTable(buf)
	writeRows(tw, "  ", append([][]string{t.Header}, t.Rows...))
	_ = tw.Flush() // writes to a bytes.Buffer
}

// writeSheetNotes writes where the reproduction differs from the seed.
func writeSheetNotes(buf *bytes.Buffer, notes []string, markdown bool) {
	if len(notes) == 0 {
		return
	}
	if !markdown {
		fmt.Fprintln(buf)
	}
	for _, n := range notes {
		if markdown {
			fmt.Fprintf(buf, "- %s\n", n)
		} else {
			fmt.Fprintf(buf, "note: %s\n", n)
		}
	}
}
