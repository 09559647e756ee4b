package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// The renderers build their output in memory and write it once, so that a
// failing writer yields one error and never half a table.

// flush writes buf to w.
func flush(w io.Writer, buf *bytes.Buffer) error {
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// writeJSON writes v indented by two spaces, with a final newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	return flush(w, bytes.NewBuffer(append(b, '\n')))
}

// newTable returns a tabwriter that aligns tab-separated cells with two
// spaces between columns.
func newTable(buf *bytes.Buffer) *tabwriter.Writer {
	return tabwriter.NewWriter(buf, 0, 0, 2, ' ', 0)
}

// writeRows writes rows of cells to a tabwriter, each row indented.
func writeRows(tw *tabwriter.Writer, indent string, rows [][]string) {
	for _, row := range rows {
		fmt.Fprintf(tw, "%s%s\n", indent, strings.Join(row, "\t"))
	}
}

// writeMarkdownTable writes a GitHub table; right lists the columns whose
// cells are right-aligned (numbers).
func writeMarkdownTable(buf *bytes.Buffer, header []string, right map[int]bool, rows [][]string) {
	fmt.Fprintf(buf, "| %s |\n", strings.Join(header, " | "))
	seps := make([]string, len(header))
	for i := range header {
		seps[i] = "---"
		if right[i] {
			seps[i] = "---:"
		}
	}
	fmt.Fprintf(buf, "|%s|\n", strings.Join(seps, "|"))
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = markdownCell(c)
		}
		fmt.Fprintf(buf, "| %s |\n", strings.Join(cells, " | "))
	}
}

func markdownCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// shortTime is RFC 3339 in UTC to the minute, or "-" for the zero time.
func shortTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02T15:04Z")
}
