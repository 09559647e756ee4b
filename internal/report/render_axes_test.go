package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// A service run on two axes: its matrix of thread model by JDK, and its
// pairs along each axis, in every laid-out format (the golden file is the
// markdown report's).
func TestWriteReport_Matrix(t *testing.T) {
	src := report.Source{Run: analysistest.PinningMatrix(t)}
	var md bytes.Buffer
	if err := report.WriteReport(&md, analyzed(src, analysis.ReportOptions{}), "markdown"); err != nil {
		t.Fatal(err)
	}
	golden(t, "report_matrix.markdown.golden", md.Bytes())
	for _, format := range []string{"table", "html"} {
		var buf bytes.Buffer
		if err := report.WriteReport(&buf, analyzed(src, analysis.ReportOptions{}), format); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"orders: thread model × JDK, whole attack", "60.0 req/s, p99 ", "orders@virtual,jdk=21 vs orders@platform,jdk=21, along the thread model"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%s report lacks %q", format, want)
			}
		}
	}
}

// A target on several axes is listed by its axes, not by every variant.
func TestWriteTargets_Axes(t *testing.T) {
	own := bench.TargetInfo{Name: "orders", Kind: "java", Variant: bench.VariantOwn,
		Variants: []string{"platform,jdk=21", "platform,jdk=25", "virtual,jdk=21", "virtual,jdk=25"}, DefaultVariant: "platform,jdk=21",
		Axes: []bench.Axis{{Name: "variant", Values: []string{"platform", "virtual"}}, {Name: "jdk", Values: []string{"21", "25"}}}}
	var buf bytes.Buffer
	if err := report.WriteTargets(&buf, []bench.TargetInfo{own}, "table"); err != nil {
		t.Fatal(err)
	}
	if want := "variant platform, virtual × jdk 21, 25"; !strings.Contains(buf.String(), want) {
		t.Errorf("targets table lacks %q:\n%s", want, buf.String())
	}
}
