package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Source is what a report is written from: the run as stored and, for the
// HTML report's charts, the series of its results (by TargetResult.Key)
// and the catalog that says which series hold which resource figure.
type Source struct {
	Run *bench.Run
	// Report is Run's analysis (analysis.Analyze), which the renderers draw
	// and never run themselves; CSV alone does without it.
	Report  *bench.Report
	Series  map[string][]bench.Series
	Targets []bench.TargetInfo
	// Flames are the samples of the flame graphs the HTML report draws
	// (LoadSource reads them); without them it draws none.
	Flames []Flame
}

// errNoAnalysis is a caller's mistake: a report drawn without the run's
// analysis it needs.
var errNoAnalysis = errors.New("report: the run's analysis is missing (Source.Report)")

// WriteReport writes the report of src.Run as "table" (aligned text),
// "markdown" (GitHub), "json" (bench.Report), "csv" (one row per result ×
// stage × request and one per result × second; see WriteReportCSV) or
// "html" (one self-contained page with charts). Any other format is an
// EINVALID error. Every format but CSV draws src.Report.
func WriteReport(w io.Writer, src Source, format string) error {
	f, err := lookup(KindReport, format)
	if err != nil {
		return err
	}
	if src.Report == nil && f.Name != FormatCSV {
		return errNoAnalysis
	}
	return f.report(w, src)
}

func reportTable(w io.Writer, src Source) error {
	var buf bytes.Buffer
	writeSectionsText(&buf, answerFirst(layoutReport(*src.Report)))
	return flush(w, &buf)
}

func reportMarkdown(w io.Writer, src Source) error {
	var buf bytes.Buffer
	writeSectionsMarkdown(&buf, answerFirst(layoutReport(*src.Report)))
	return flush(w, &buf)
}

func reportJSON(w io.Writer, src Source) error {
	return writeJSON(w, *src.Report)
}

func reportCSV(w io.Writer, src Source) error {
	return WriteReportCSV(w, src.Run)
}

func reportHTML(w io.Writer, src Source) error {
	var buf bytes.Buffer
	if err := writeHTML(&buf, *src.Report, src); err != nil {
		return err
	}
	return flush(w, &buf)
}

// writeSectionsText writes sections as aligned text: each title underlined,
// each block indented under its own title.
func writeSectionsText(buf *bytes.Buffer, sections []section) {
	for i, s := range sections {
		if i > 0 {
			buf.WriteString("\n")
		}
		fmt.Fprintf(buf, "%s\n%s\n", s.Title, strings.Repeat("=", textWidth(s.Title)))
		for j, b := range s.Blocks {
			if j > 0 {
				buf.WriteString("\n")
			}
			writeBlockText(buf, b)
		}
	}
}

// textWidth counts the characters, not the bytes, of a title.
func textWidth(s string) int { return len([]rune(s)) }

func writeBlockText(buf *bytes.Buffer, b block) {
	if b.Title != "" {
		fmt.Fprintf(buf, "%s\n", b.Title)
	}
	if len(b.KV) > 0 {
		tw := newTable(buf)
		for _, kv := range b.KV {
			fmt.Fprintf(tw, "  %s\t%s\n", kv[0], kv[1])
		}
		tw.Flush()
	}
	if len(b.Rows) > 0 {
		tw := newTable(buf)
		writeRows(tw, "  ", append([][]string{b.Header}, b.Rows...))
		tw.Flush()
	}
	for _, line := range b.Lines {
		fmt.Fprintf(buf, "  - %s\n", line)
	}
}

// writeSectionsMarkdown writes sections as GitHub markdown: a heading per
// section, bold block titles, tables and bullet lists.
func writeSectionsMarkdown(buf *bytes.Buffer, sections []section) {
	for i, s := range sections {
		if i > 0 {
			buf.WriteString("\n")
		}
		level := "###"
		if i == 0 {
			level = "##"
		}
		fmt.Fprintf(buf, "%s %s\n", level, s.Title)
		for _, b := range s.Blocks {
			buf.WriteString("\n")
			writeBlockMarkdown(buf, b)
		}
	}
}

func writeBlockMarkdown(buf *bytes.Buffer, b block) {
	if b.Title != "" {
		fmt.Fprintf(buf, "**%s**\n\n", markdownText(b.Title))
	}
	for _, kv := range b.KV {
		fmt.Fprintf(buf, "- **%s**: %s\n", kv[0], markdownText(kv[1]))
	}
	if len(b.Rows) > 0 {
		writeMarkdownTable(buf, lower(b.Header), b.Right, b.Rows)
	}
	for _, line := range b.Lines {
		fmt.Fprintf(buf, "- %s\n", markdownText(line))
	}
}

// markdownText keeps text literal in markdown: an asterisk would start
// emphasis and a "<" before a letter an HTML tag; "p < 0.001" and "a > b"
// stay as they are, readable where the markdown is pasted.
func markdownText(s string) string {
	s = strings.ReplaceAll(s, "*", `\*`)
	var b strings.Builder
	for i, r := range s {
		if r == '<' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '!' || s[i+1] >= 'A' && s[i+1] <= 'z') {
			b.WriteString("&lt;")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeReportSummary writes what `runs show` opens with: the findings and
// the whole attack side by side, from the run's analysis (none without it).
func writeReportSummary(buf *bytes.Buffer, rep *bench.Report) {
	if rep == nil {
		return
	}
	writeSectionsText(buf, answerFirst(layoutSummary(*rep)))
}
