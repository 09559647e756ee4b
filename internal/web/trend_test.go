package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestTrend stores eight runs of one spec, the last four at 60 % of the
// throughput, and one of another spec: the trend page charts the eight,
// marks one change point, worse, at the fifth, and names a bad field.
func TestTrend(t *testing.T) {
	e := newEnv(t)
	for i := range 8 {
		speed := 1.0 + 0.01*float64(i%3)
		if i >= 4 {
			speed *= 0.6
		}
		run := finishedRun(runID(i+1), "nightly", i+1, speed, "go")
		run.Spec.Labels = map[string]string{"branch": "main"}
		e.seed(t, run)
	}
	e.seed(t, finishedRun(runID(9), "other", 9, 3, "go"))

	t.Run("OK", func(t *testing.T) {
		p := e.get(t, "/ui/parts/trend?name=nightly&target=go&figure=throughput&label=branch%3Dmain")
		if p.status != http.StatusOK {
			t.Fatalf("status %d\n%s", p.status, p.body)
		}
		p.mustContain(t, `data-chart="trend-throughput"`, `class="marker"`, "over 8 runs", "r0001", "r0008")
		p.mustNotContain(t, "r0009", "style=", "<script")
		if n := strings.Count(p.body, `class="change-point worse"`); n != 1 {
			t.Fatalf("%d rows marked as change points, want 1:\n%s", n, p.body)
		}
		row := p.body[strings.Index(p.body, `class="change-point worse"`):]
		if !strings.Contains(row[:strings.Index(row, "</tr>")], "r0005") {
			t.Errorf("the change point is not at r0005: %s", row[:strings.Index(row, "</tr>")])
		}
	})
	t.Run("Form", func(t *testing.T) {
		p := e.get(t, "/ui/parts/trend")
		p.mustContain(t, `name="figure"`, `<option selected>throughput</option>`)
		p.mustNotContain(t, "<svg")
	})
	for _, tt := range []struct {
		query, field string
		status       int
	}{
		{"name=nightly", "target", http.StatusBadRequest},
		{"name=nightly&target=go&figure=p42", "figure", http.StatusBadRequest},
		{"name=nightly&target=go&label=main", "label", http.StatusBadRequest},
	} {
		t.Run(tt.field, func(t *testing.T) {
			p := e.get(t, "/ui/parts/trend?"+tt.query)
			if p.status != tt.status {
				t.Fatalf("status %d, want %d\n%s", p.status, tt.status, p.body)
			}
			p.mustContain(t, `data-error-for="`+tt.field+`"`)
		})
	}
	t.Run("NoRuns", func(t *testing.T) {
		if p := e.get(t, "/ui/parts/trend?name=nightly&target=java-virtual"); p.status != http.StatusNotFound {
			t.Fatalf("status %d, want 404\n%s", p.status, p.body)
		}
	})
}
