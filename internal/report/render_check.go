package report

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
	"github.com/threadbench/threadbench/internal/stats"
)

var (
	checkObjectiveHeader = []string{"TARGET", "OBJECTIVE", "MEASURED", "VERDICT"}
	checkFigureHeader    = []string{"TARGET", "SCOPE", "FIGURE", "BASELINE", "THIS RUN", "CHANGE", "VERDICT"}
)

// WriteCheck writes a check's verdict as "table" (aligned text),
// "markdown" (a summary for a pull request or $GITHUB_STEP_SUMMARY: what
// changed and the objectives, or one line when nothing failed or
// changed), "junit" (JUnit XML) or "json". Any other format is an
// EINVALID error.
func WriteCheck(w io.Writer, r check.Result, format string) error {
	f, err := lookup(KindCheck, format)
	if err != nil {
		return err
	}
	return f.check(w, r)
}

func checkTable(w io.Writer, r check.Result) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "check: %s\n", checkOutcome(r))
	tw := newTable(&buf)
	writeRows(tw, "", [][]string{append([]string{"run"}, refCells(r.Run)...)})
	if r.Baseline != nil {
		writeRows(tw, "", [][]string{append(append([]string{"baseline"}, refCells(r.Baseline.Run)...), "("+r.Baseline.ChosenBy+")")})
	}
	tw.Flush()
	if len(r.Labels) > 0 {
		fmt.Fprintf(&buf, "labels: %s\n", labelWords(r.Labels))
	}
	if len(r.Objectives) > 0 {
		fmt.Fprintf(&buf, "\nobjectives\n")
		tw := newTable(&buf)
		writeRows(tw, "  ", append([][]string{checkObjectiveHeader}, objectiveRows(r.Objectives, false)...))
		tw.Flush()
	}
	if r.Baseline != nil {
		fmt.Fprintf(&buf, "\nagainst the baseline: %s\n", baselineRule(*r.Baseline))
		if changed := r.Changed(); len(changed) > 0 {
			tw := newTable(&buf)
			writeRows(tw, "  ", append([][]string{checkFigureHeader}, figureRows(changed, false)...))
			tw.Flush()
		}
		fmt.Fprintf(&buf, "  %s\n", unchangedWords(r))
	}
	writeCheckWarnings(&buf, r.Warnings, "\nwarnings:\n", "  - ")
	return flush(w, &buf)
}

// checkOutcome says how a check ended: "passed", or "FAILED" with what
// failed out of how many.
func checkOutcome(r check.Result) string {
	failed, judged := len(r.Failures()), len(r.Objectives)+len(r.Figures)
	if failed == 0 {
		return fmt.Sprintf("passed (%s judged)", plural(judged, "verdict"))
	}
	return fmt.Sprintf("FAILED (%d of %s)", failed, plural(judged, "verdict"))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// labelWords lists labels sorted by key: "branch=main, commit=3f2a9c1".
func labelWords(labels map[string]string) string {
	var words []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		words = append(words, k+"="+labels[k])
	}
	return strings.Join(words, ", ")
}

// baselineRule says when a figure is better or worse than the baseline's.
func baselineRule(b check.BaselineRef) string {
	rule := fmt.Sprintf("worse or better by at least %g%%, significant at alpha %g by %s", b.MinEffect, b.Alpha, stats.MethodMannWhitney)
	if len(b.Figures) > 0 && len(b.Figures) < len(check.JudgedFigures) {
		rule += "; judged: " + strings.Join(b.Figures, ", ")
	}
	return rule
}

func objectiveRows(verdicts []check.ObjectiveVerdict, markdown bool) [][]string {
	rows := make([][]string, len(verdicts))
	for i, v := range verdicts {
		measured := analysis.ValueWithUnit(v.Measured, v.Term.Unit)
		if v.Unmeasured {
			measured = "no request measured"
		}
		rows[i] = []string{v.Target, v.Term.String(), measured, objectiveVerdictCell(v, markdown)}
	}
	return rows
}

func objectiveVerdictCell(v check.ObjectiveVerdict, markdown bool) string {
	switch {
	case v.Passed:
		return "pass"
	case markdown:
		return "**fail**"
	}
	return "FAIL"
}

// figureVerdictCell is a figure's verdict, or, for one that failed
// untested, that it moved the worse way with too few values to test it.
func figureVerdictCell(f check.FigureVerdict, markdown bool) string {
	if !f.Untested {
		return verdictCell(f.Delta, markdown)
	}
	cell := "worse, " + verdictCell(f.Delta, false)
	if markdown {
		cell = "**worse**, " + verdictCell(f.Delta, false)
	}
	return cell
}

func figureRows(figures []check.FigureVerdict, markdown bool) [][]string {
	rows := make([][]string, len(figures))
	for i, f := range figures {
		d := f.Delta
		rows[i] = []string{f.Target, f.Scope, figureLabel(d), analysis.Value(d.Base, d.Unit), analysis.Value(d.Head, d.Unit),
			analysis.Change(d), figureVerdictCell(f, markdown)}
		if i > 0 && figures[i-1].Target == f.Target {
			rows[i][0] = ""
			if figures[i-1].Scope == f.Scope {
				rows[i][1] = ""
			}
		}
	}
	return rows
}

// unchangedWords counts the figures the table leaves out: "34 other
// figures: no significant difference (12 not tested)".
func unchangedWords(r check.Result) string {
	others, untested := len(r.Figures)-len(r.Changed()), 0
	for _, f := range r.Figures {
		if !f.Tested() && !f.Untested {
			untested++
		}
	}
	s := fmt.Sprintf("%s: no significant difference", plural(others, "figure"))
	if others < len(r.Figures) {
		s = fmt.Sprintf("%s: no significant difference", plural(others, "other figure"))
	}
	if untested > 0 {
		s += fmt.Sprintf(" (%d not tested: too few values)", untested)
	}
	return s + "; compare shows them all"
}

func writeCheckWarnings(buf *bytes.Buffer, warnings []string, heading, bullet string) {
	if len(warnings) == 0 {
		return
	}
	buf.WriteString(heading)
	for _, w := range warnings {
		fmt.Fprintf(buf, "%s%s\n", bullet, w)
	}
}

// checkMarkdown writes the summary a CI job posts: one line when nothing
// failed and no figure changed; else what changed against the baseline
// and every objective's verdict.
func checkMarkdown(w io.Writer, r check.Result) error {
	var buf bytes.Buffer
	changed := r.Changed()
	if r.Passed() && len(changed) == 0 {
		fmt.Fprintf(&buf, "%s\n", quietSummary(r))
		return flush(w, &buf)
	}
	fmt.Fprintf(&buf, "### threadbench check %s\n\n%s.\n", markdownOutcome(r), upperFirst(markdownRuns(r)))
	if r.Baseline != nil {
		fmt.Fprintf(&buf, "\n**Changed against the baseline** (%s)\n\n", baselineRule(*r.Baseline))
		if len(changed) == 0 {
			fmt.Fprintf(&buf, "No figure changed.\n")
		} else {
			right := map[int]bool{3: true, 4: true, 5: true}
			writeMarkdownTable(&buf, lower(checkFigureHeader), right, figureRows(changed, true))
		}
	}
	if len(r.Objectives) > 0 {
		fmt.Fprintf(&buf, "\n**Objectives**\n\n")
		writeMarkdownTable(&buf, lower(checkObjectiveHeader), map[int]bool{2: true}, objectiveRows(r.Objectives, true))
	}
	writeCheckWarnings(&buf, r.Warnings, "\n**Warnings**\n\n", "- ")
	return flush(w, &buf)
}

func markdownOutcome(r check.Result) string {
	if r.Passed() {
		return "passed"
	}
	return "failed"
}

// markdownRuns names the run and its baseline: "run `r2` (nightly;
// branch=main) against `r1` (nightly), chosen by `label:branch=main`".
func markdownRuns(r check.Result) string {
	s := "run " + markdownRef(r.Run, r.Labels)
	if r.Baseline != nil {
		s += " against " + markdownRef(r.Baseline.Run, nil) + ", chosen by `" + r.Baseline.ChosenBy + "`"
	}
	return s
}

func markdownRef(ref bench.RunRef, labels map[string]string) string {
	var about []string
	if ref.Name != "" {
		about = append(about, markdownText(ref.Name))
	}
	if len(labels) > 0 {
		about = append(about, markdownText(labelWords(labels)))
	}
	if len(about) == 0 {
		return "`" + ref.ID + "`"
	}
	return "`" + ref.ID + "` (" + strings.Join(about, "; ") + ")"
}

// quietSummary is the one line of a check where nothing failed and no
// figure changed.
func quietSummary(r check.Result) string {
	s := "threadbench check passed: " + markdownRuns(r)
	var parts []string
	if n := len(r.Objectives); n > 0 {
		parts = append(parts, fmt.Sprintf("meets its %s", plural(n, "objective term")))
	}
	if r.Baseline != nil {
		parts = append(parts, "no figure changed")
	}
	if len(parts) == 0 {
		return s + "."
	}
	return s + ": " + strings.Join(parts, ", and ") + "."
}
