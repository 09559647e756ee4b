package report

import (
	"fmt"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// axesSections lay out the report's matrices, as internal/analysis found
// them: a target's variants along two of its axes, each cell its
// throughput, p99 and, where a search ran, its capacity; none for a run
// whose targets vary along fewer than two axes.
func axesSections(rep bench.Report) []section {
	if len(rep.Matrices) == 0 {
		return nil
	}
	s := section{Title: "Variants by axis", ID: "matrices"}
	for _, m := range rep.Matrices {
		s.Blocks = append(s.Blocks, matrixBlock(m))
	}
	return []section{s}
}

// matrixBlock is one matrix: a row per value of its first axis, a column
// per value of its second.
func matrixBlock(m bench.Matrix) block {
	title := fmt.Sprintf("%s: %s × %s, %s", m.Target, m.Rows, m.Columns, m.Scope)
	if m.Fixed != "" {
		title += " (" + m.Fixed + ")"
	}
	b := block{Title: title, Header: []string{strings.ToUpper(m.Rows) + " \\ " + strings.ToUpper(m.Columns)}, Right: map[int]bool{}}
	for i, c := range m.ColumnValues {
		b.Header = append(b.Header, c)
		b.Right[i+1] = true
	}
	for i, r := range m.RowValues {
		row := []string{r}
		for _, c := range m.Cells[i] {
			row = append(row, cellWords(c))
		}
		b.Rows = append(b.Rows, row)
		b.Color = append(b.Color, -1)
	}
	return b
}

// cellWords writes a cell: "400.0 req/s, p99 89.9 ms, capacity 350 req/s";
// "-" where the variant did not run.
func cellWords(c bench.MatrixCell) string {
	if c.Label == "" {
		return "-"
	}
	s := analysis.ValueWithUnit(c.Throughput, analysis.UnitReqPerSec) + ", p99 " + analysis.ValueWithUnit(c.P99, analysis.UnitMs)
	if c.Capacity != nil {
		s += ", capacity " + units.Rate(*c.Capacity) + " req/s"
	}
	return s
}

// axesLabel writes a target's axes, each with its values, the default
// first: "variant platform, virtual × jdk 21, 25".
func axesLabel(axes []bench.Axis) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.Name + " " + strings.Join(a.Values, ", ")
	}
	return strings.Join(parts, " × ")
}
