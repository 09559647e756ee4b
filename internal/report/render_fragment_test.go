package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/report"
)

// noStyleNoScript checks what a page under a strict CSP (no inline style,
// no inline script) may embed: neither, and no document of its own.
func noStyleNoScript(t *testing.T, fragment string) {
	t.Helper()
	for _, banned := range []string{"<!DOCTYPE", "<html", "<head", "<body", "<style", "style=", "<script", "<link", "url("} {
		if strings.Contains(fragment, banned) {
			t.Errorf("the fragment contains %q", banned)
		}
	}
}

// TestWriteReportFragment checks that the fragment is the self-contained
// page's content, charts included, without the document around it.
func TestWriteReportFragment(t *testing.T) {
	src := threeTargetSource(t)
	var page, fragment bytes.Buffer
	if err := report.WriteReport(&page, analyzed(src, analysis.ReportOptions{}), report.FormatHTML); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteReportFragment(&fragment, analyzed(src, analysis.ReportOptions{})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), fragment.String()) {
		t.Error("the fragment is not the self-contained page's content")
	}
	noStyleNoScript(t, fragment.String())
	if got := strings.Count(fragment.String(), `<svg xmlns="http://www.w3.org/2000/svg" class="chart"`); got < 10 {
		t.Errorf("the fragment has %d charts, want the bars and every time series", got)
	}
	if !strings.Contains(fragment.String(), `<svg class="swatch"`) {
		t.Error("no swatches: the tables' rows should carry their target's colour")
	}
}

func TestWriteComparisonFragment_Golden(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	var buf bytes.Buffer
	if err := report.WriteComparisonFragment(&buf, c); err != nil {
		t.Fatal(err)
	}
	golden(t, "comparison.html.golden", buf.Bytes())
	noStyleNoScript(t, buf.String())
	for _, kind := range []string{`class="verdict better"`, `class="verdict worse"`} {
		if !strings.Contains(buf.String(), kind) {
			t.Errorf("no %s cell: the fixture has both kinds of verdict", kind)
		}
	}
}

func TestWriteComparisonFragment_WriterError(t *testing.T) {
	c := analysis.Compare(analysistest.BaseRun(t), analysistest.HeadRun(t), analysis.CompareOptions{})
	if err := report.WriteComparisonFragment(failingWriter{}, c); err == nil {
		t.Error("no error from a failing writer")
	}
}
