package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/trend"
)

// trendFixture is eight runs' throughput, the last four a third lower, with
// intervals on all but the first.
func trendFixture() trend.Trend {
	values := []float64{40.1, 39.8, 40.3, 39.9, 26.2, 25.9, 26.4, 26.0}
	created := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	var points []trend.Point
	for i, v := range values {
		p := trend.Point{RunID: fmt.Sprintf("r%02d", i+1), CreatedAt: created.Add(time.Duration(i) * time.Hour),
			Labels: map[string]string{"branch": "main"}, Value: v}
		if i > 0 {
			p.CI = &bench.Interval{Lo: v - 0.5, Hi: v + 0.4, Level: 0.95, Method: bench.IntervalWithinRun, N: 5}
		}
		points = append(points, p)
	}
	fig, _ := trend.LookupFigure("throughput")
	t := trend.Analyze(points, fig, trend.Options{})
	t.Name, t.Target, t.Label = "nightly", "go", map[string]string{"branch": "main"}
	return t
}

func TestWriteTrend_Golden(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteTrend(&buf, trendFixture(), "table"); err != nil {
		t.Fatal(err)
	}
	golden(t, "trend.table.golden", buf.Bytes())
	if strings.Count(buf.String(), "▲ change point: worse") != 1 {
		t.Errorf("want one worse change point marked:\n%s", buf.String())
	}
}

func TestWriteTrendFragment(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteTrendFragment(&buf, trendFixture()); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{`data-chart="trend-throughput"`, `data-series="interval low"`, `<g class="marker">`, `class="change-point worse"`, "at run 5<"} {
		if !strings.Contains(html, want) {
			t.Errorf("the fragment lacks %s:\n%s", want, html)
		}
	}
	if n := strings.Count(html, `<g class="marker">`); n != 1 {
		t.Errorf("%d markers, want 1", n)
	}
}

func TestWriteTrendUnknownFormat(t *testing.T) {
	err := report.WriteTrend(&bytes.Buffer{}, trendFixture(), "csv")
	if bench.ErrorCode(err) != bench.EINVALID || !strings.Contains(err.Error(), "output") {
		t.Fatalf("err = %v, want EINVALID naming output", err)
	}
}
