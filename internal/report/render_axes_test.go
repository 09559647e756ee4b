package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/report"
)

// A service run on two axes: its matrix of thread model by JDK, and its
// pairs along each axis, in every laid-out format (the golden file is the
// markdown report's).
func TestWriteReport_Matrix(t *testing.T) {
	src := report.Source{Run: analysistest.PinningMatrix(t)}
	var md bytes.Buffer
	if err := report.WriteReport(&md, src, "markdown", analysis.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "report_matrix.markdown.golden", md.Bytes())
	for _, format := range []string{"table", "html"} {
		var buf bytes.Buffer
		if err := report.WriteReport(&buf, src, format, analysis.ReportOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"orders: thread model × JDK, whole attack", "60.0 req/s, p99 ", "orders@virtual,jdk=21 vs orders@platform,jdk=21, along the thread model"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%s report lacks %q", format, want)
			}
		}
	}
}
