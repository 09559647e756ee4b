package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/stats"
	"github.com/threadbench/threadbench/internal/units"
)

var comparisonHeader = []string{"SCOPE", "FIGURE", "BASE", "HEAD", "CHANGE", "VERDICT"}

// WriteComparison writes c as "table" (aligned text), "markdown" (GitHub
// tables) or "json" (indented). Any other format is an EINVALID error.
func WriteComparison(w io.Writer, c bench.Comparison, format string) error {
	f, err := lookup(KindComparison, format)
	if err != nil {
		return err
	}
	return f.comparison(w, c)
}

func comparisonTable(w io.Writer, c bench.Comparison) error {
	var buf bytes.Buffer
	writeComparisonTable(&buf, c)
	return flush(w, &buf)
}

func comparisonMarkdown(w io.Writer, c bench.Comparison) error {
	var buf bytes.Buffer
	writeComparisonMarkdown(&buf, c)
	return flush(w, &buf)
}

func writeComparisonTable(buf *bytes.Buffer, c bench.Comparison) {
	tw := newTable(buf)
	writeRows(tw, "", [][]string{
		append([]string{"base"}, refCells(c.Base)...),
		append([]string{"head"}, refCells(c.Head)...),
	})
	tw.Flush()
	fmt.Fprintf(buf, "%s\n", thresholdLine(c))
	if len(c.Warnings) > 0 {
		fmt.Fprintf(buf, "\nwarnings:\n")
		for _, warning := range c.Warnings {
			fmt.Fprintf(buf, "  - %s\n", warning)
		}
	}
	writeOnlyIn(buf, c, func(names []string) string { return strings.Join(names, ", ") })
	for _, t := range c.Targets {
		fmt.Fprintf(buf, "\n%s\n", t.Target)
		tw := newTable(buf)
		writeRows(tw, "  ", append([][]string{comparisonHeader}, targetRows(t, false)...))
		tw.Flush()
	}
}

func writeComparisonMarkdown(buf *bytes.Buffer, c bench.Comparison) {
	fmt.Fprintf(buf, "## Comparison\n\n")
	writeMarkdownTable(buf, []string{"", "run", "name", "created", "status"}, nil, [][]string{
		append([]string{"base"}, markdownRefCells(c.Base)...),
		append([]string{"head"}, markdownRefCells(c.Head)...),
	})
	fmt.Fprintf(buf, "\n%s.\n", upperFirst(thresholdLine(c)))
	if len(c.Warnings) > 0 {
		fmt.Fprintf(buf, "\n**Warnings**\n\n")
		for _, warning := range c.Warnings {
			fmt.Fprintf(buf, "- %s\n", warning)
		}
	}
	writeOnlyIn(buf, c, func(names []string) string { return "`" + strings.Join(names, "`, `") + "`" })
	right := map[int]bool{2: true, 3: true, 4: true}
	for _, t := range c.Targets {
		fmt.Fprintf(buf, "\n### %s\n\n", t.Target)
		writeMarkdownTable(buf, lower(comparisonHeader), right, targetRows(t, true))
	}
}

func writeOnlyIn(buf *bytes.Buffer, c bench.Comparison, list func([]string) string) {
	if len(c.OnlyInBase) == 0 && len(c.OnlyInHead) == 0 {
		return
	}
	fmt.Fprintln(buf)
	if len(c.OnlyInBase) > 0 {
		fmt.Fprintf(buf, "only in base (not compared): %s\n", list(c.OnlyInBase))
	}
	if len(c.OnlyInHead) > 0 {
		fmt.Fprintf(buf, "only in head (not compared): %s\n", list(c.OnlyInHead))
	}
}

func refCells(r bench.RunRef) []string {
	return []string{r.ID, units.OrDash(r.Name), shortTime(r.CreatedAt), string(r.Status)}
}

func markdownRefCells(r bench.RunRef) []string {
	return []string{"`" + r.ID + "`", units.OrDash(r.Name), shortTime(r.CreatedAt), string(r.Status)}
}

// targetRows lays out one target's comparison: the whole attack, then each
// stage, then resources, the scope named on the first row of its group.
func targetRows(t bench.TargetComparison, markdown bool) [][]string {
	rows := deltaRows("whole attack", t.Metrics, markdown)
	for _, s := range t.Stages {
		rows = append(rows, deltaRows(analysis.StageLabel(s.Index, s.Name), s.Metrics, markdown)...)
	}
	return append(rows, deltaRows("resources", t.Resources, markdown)...)
}

// thresholdLine says when a figure is better or worse.
func thresholdLine(c bench.Comparison) string {
	if c.Alpha == 0 {
		return fmt.Sprintf("noise threshold: %g%%", c.NoiseThreshold)
	}
	return fmt.Sprintf("minimum effect: %g%%; better or worse only when also significant at alpha %g (%s)",
		c.NoiseThreshold, c.Alpha, stats.MethodMannWhitney)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func deltaRows(scope string, deltas []bench.MetricDelta, markdown bool) [][]string {
	rows := make([][]string, len(deltas))
	for i, d := range deltas {
		rows[i] = []string{"", figureLabel(d), analysis.Value(d.Base, d.Unit), analysis.Value(d.Head, d.Unit), analysis.Change(d), verdictCell(d, markdown)}
		if i == 0 {
			rows[i][0] = scope
		}
	}
	return rows
}

// verdictCell says a compared figure's verdict with the test behind it,
// "worse" in bold in Markdown.
func verdictCell(d bench.MetricDelta, markdown bool) string {
	verdict := d.Verdict
	if markdown && verdict == bench.VerdictWorse {
		verdict = "**" + verdict + "**"
	}
	switch {
	case d.Test != nil && d.Test.NA > 0 && d.Test.NB > 0 && !analysis.Tested(*d.Test):
		verdict = fmt.Sprintf("not tested (n = %d+%d)", d.Test.NA, d.Test.NB)
	case d.Test != nil && !analysis.Tested(*d.Test):
		verdict = "not tested"
	case d.Test != nil && d.Verdict == bench.VerdictNoDifference && d.Test.Significant:
		// Significant, but a smaller change than the minimum effect.
		verdict += " (" + analysis.TestString(*d.Test) + "; under the minimum effect)"
	case d.Test != nil:
		verdict += " (" + analysis.TestString(*d.Test) + ")"
	}
	return verdict
}

func lower(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}
