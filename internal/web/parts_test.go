package web_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestHistory(t *testing.T) {
	e := newEnv(t)
	nightly := finishedRun(runID(1), "nightly", 1, 1, "go", "java-virtual")
	nightly.Spec.Labels = map[string]string{"branch": "main", "commit": "3f2a9c1"}
	e.seed(t, nightly)
	failed := finishedRun(runID(2), "broken", 2, 1, "java-platform")
	failed.Status, failed.Error = bench.RunFailed, "java-platform never became healthy"
	e.seed(t, failed)
	e.seed(t, runningRun(runID(3)))

	t.Run("OK", func(t *testing.T) {
		p := e.get(t, "/ui/parts/history")
		if p.status != http.StatusOK {
			t.Fatalf("status %d\n%s", p.status, p.body)
		}
		p.mustContain(t, `data-page="history"`, `href="/ui/runs/r0001"`, "nightly", "broken", "never became healthy",
			"under way", `class="status status-running"`, "watch", "req/s", "p99", `name="run" value="r0001"`,
			`<a class="label small" href="/?label=branch%3Dmain" title="runs labelled branch=main">branch=main</a>`, ">commit=3f2a9c1</a>")
		// Newest first; a running run cannot be picked for a comparison.
		if strings.Index(p.body, "r0003") > strings.Index(p.body, "r0001") {
			t.Error("the history is not newest first")
		}
		p.mustNotContain(t, `value="r0003"`, "Older runs")
		checkSecurityHeaders(t, p)
	})
	for _, tt := range []struct {
		name, query string
		want        []string // IDs listed
	}{
		{"Status", "status=failed", []string{"r0002"}},
		{"Target", "target=java-virtual", []string{"r0001", "r0003"}},
		{"Name", "name=nightly", []string{"r0001"}},
		{"SinceDay", "since=2026-11-01", []string{"r0001", "r0002", "r0003"}},
		{"SinceTime", "since=2026-11-01T12:01:30Z", []string{"r0002", "r0003"}},
		{"NoMatch", "name=nobody", nil},
		{"Label", "label=branch%3Dmain", []string{"r0001"}},
		{"LabelNoMatch", "label=branch%3Ddev", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := e.get(t, "/ui/parts/history?"+tt.query)
			if p.status != http.StatusOK {
				t.Fatalf("status %d\n%s", p.status, p.body)
			}
			if got := listed(p.body); strings.Join(got, ",") != strings.Join(reversed(tt.want), ",") {
				t.Errorf("listed %v, want %v", got, reversed(tt.want))
			}
			if tt.want == nil {
				p.mustContain(t, "No run matches these filters")
			}
		})
	}
}

// listed returns the run IDs of a history page's rows, in order.
func listed(body string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<tr data-run="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func reversed(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[len(ss)-1-i] = s
	}
	return out
}

func TestHistoryPages(t *testing.T) {
	e := newEnv(t)
	for i := 1; i <= 5; i++ {
		e.seed(t, finishedRun(runID(i), "nightly", i, 1, "go"))
	}
	var seen []string
	next := "/?name=nightly&limit=2"
	for pages := 0; next != ""; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		p := e.get(t, "/ui/parts/history"+strings.TrimPrefix(next, "/"))
		seen = append(seen, listed(p.body)...)
		next = ""
		if m := regexp.MustCompile(`<a class="next" href="([^"]+)"`).FindStringSubmatch(p.body); m != nil {
			next = html.UnescapeString(m[1])
			if !strings.Contains(next, "name=nightly") || !strings.Contains(next, "limit=2") {
				t.Errorf("the next page %q lost the filter", next)
			}
		}
	}
	if got, want := strings.Join(seen, ","), "r0005,r0004,r0003,r0002,r0001"; got != want {
		t.Errorf("pages listed %s, want %s", got, want)
	}
}

// TestHistoryBadFilter checks that a bad filter value is shown next to its
// field, with status 400, never as a server error.
func TestHistoryBadFilter(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct{ query, field string }{
		{"status=done", "status"},
		{"since=yesterday", "since"},
		{"since=2026-13-01", "since"},
		{"limit=0", "limit"},
		{"limit=99999", "limit"},
		{"cursor=not-a-cursor", "cursor"},
		{"label=main", "label"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			p := e.get(t, "/ui/parts/history?"+tt.query)
			if p.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400\n%s", p.status, p.body)
			}
			p.mustContain(t, `class="field-error" role="alert" data-error-for="`+tt.field+`"`, `<form class="filters"`)
		})
	}
}

func TestRunReport(t *testing.T) {
	e := newEnv(t)
	e.seed(t, finishedRun("r0001", "three of them", 1, 1, "go", "java-platform", "java-virtual"))
	p := e.get(t, "/ui/parts/runs/r0001")
	if p.status != http.StatusOK {
		t.Fatalf("status %d\n%s", p.status, p.body)
	}
	p.mustContain(t, `data-page="run"`, "three of them", "Findings",
		`href="/runs/r0001/report?format=markdown" download="threadbench-r0001.md"`,
		`href="/runs/r0001/report?format=csv"`, `href="/runs/r0001/report?format=json"`, `href="/runs/r0001/report?format=html"`,
		`href="/ui/compare?head=r0001"`)
	// The report's charts, one series per target, and nothing a strict CSP refuses.
	charts := regexp.MustCompile(`(?s)<svg xmlns="http://www.w3.org/2000/svg" class="chart".*?</svg>`).FindAllString(p.body, -1)
	if len(charts) < 5 {
		t.Fatalf("%d charts, want the bars and the per-second lines", len(charts))
	}
	for _, c := range charts {
		if n := strings.Count(c, `<g class="series"`); n != 3 {
			t.Errorf("a chart has %d series, want 3: %.200s", n, c)
		}
	}
	p.mustNotContain(t, "style=", "<style", "<script")
}

func TestRunLive(t *testing.T) {
	e := newEnv(t)
	e.seed(t, runningRun("r0009"))
	for _, path := range []string{"/ui/parts/runs/r0009", "/ui/parts/live"} {
		p := e.get(t, path)
		if p.status != http.StatusOK {
			t.Fatalf("%s: status %d\n%s", path, p.status, p.body)
		}
		p.mustContain(t, `data-live="/runs/r0009/events"`, `data-cancel="/runs/r0009/cancel"`, "data-confirm=",
			`<tr data-key="go" data-color="#0072B2">`, `<tr data-key="java-virtual" data-color="#D55E00">`,
			`data-live-chart="throughput"`, `data-live-chart="p99"`, `data-live-chart="errors"`,
			"c10: 10 clients for 10s; c50: 50 clients for 10s", "heavy?duration=10")
	}
}

func TestLiveWithNothingRunning(t *testing.T) {
	e := newEnv(t)
	queued := finishedRun("r0004", "waiting", 4, 1, "go")
	queued.Status, queued.StartedAt, queued.FinishedAt, queued.Targets = bench.RunQueued, nil, nil, nil
	e.seed(t, queued)
	p := e.get(t, "/ui/parts/live")
	p.mustContain(t, "Nothing is running", "Queued", `href="/ui/runs/r0004"`)
	p.mustNotContain(t, "data-live=")
}

func TestRunNotFound(t *testing.T) {
	e := newEnv(t)
	p := e.get(t, "/ui/parts/runs/r-nope")
	if p.status != http.StatusNotFound {
		t.Fatalf("status %d, want 404", p.status)
	}
	p.mustContain(t, `data-page="error"`, "r-nope")
}

func TestCompare(t *testing.T) {
	e := newEnv(t)
	e.seed(t, finishedRun("r0001", "before", 1, 1, "go", "java-virtual"))
	e.seed(t, finishedRun("r0002", "after", 2, 1.5, "go", "java-virtual"))
	e.seed(t, runningRun("r0003"))

	t.Run("Pickers", func(t *testing.T) {
		p := e.get(t, "/ui/parts/compare")
		p.mustContain(t, `<option value="r0001">`, `<option value="r0002">`)
		p.mustNotContain(t, `<option value="r0003">`, `class="comparison"`)
	})
	t.Run("OK", func(t *testing.T) {
		p := e.get(t, "/ui/parts/compare?base=r0001&head=r0002")
		if p.status != http.StatusOK {
			t.Fatalf("status %d\n%s", p.status, p.body)
		}
		p.mustContain(t, `<option value="r0001" selected>`, `<option value="r0002" selected>`, `class="comparison"`,
			`data-target="go"`, `data-target="java-virtual"`, `class="verdict better"`, "throughput (req/s)")
		p.mustNotContain(t, "style=", "<style", "<script")
	})
	for _, tt := range []struct{ query, field string }{
		{"base=r-nope&head=r0002", "base"},
		{"base=r0001&head=" + strings.Repeat("x", 200), "head"},
		{"base=r0001&head=r0002&threshold=lots", "threshold"},
		{"base=r0001&head=r0002&threshold=-1", "threshold"},
		{"base=r0001&head=r0002&threshold=NaN", "threshold"},
	} {
		t.Run(tt.query[:min(len(tt.query), 30)], func(t *testing.T) {
			p := e.get(t, "/ui/parts/compare?"+tt.query)
			if p.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400\n%s", p.status, p.body)
			}
			p.mustContain(t, `data-error-for="`+tt.field+`"`)
		})
	}
}

// TestNamesAreEscaped stores a run whose name is markup: every page shows
// it as text.
func TestNamesAreEscaped(t *testing.T) {
	e := newEnv(t)
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)>`
	e.seed(t, finishedRun("r0001", evil, 1, 1, "go"))
	e.seed(t, finishedRun("r0002", "plain", 2, 1, "go"))
	for _, path := range []string{"/ui/parts/history", "/ui/parts/runs/r0001", "/ui/parts/compare?base=r0001&head=r0002", "/ui/parts/history?name=" + evil} {
		p := e.get(t, path)
		p.mustNotContain(t, "<script>", "<img src=x")
	}
}

// TestBadInputIsNeverAServerError sends the parts what a user or a script
// could: each answer is a page or a 4xx, never a 500.
func TestBadInputIsNeverAServerError(t *testing.T) {
	e := newEnv(t)
	e.seed(t, finishedRun("r0001", "one", 1, 1, "go"))
	for _, path := range []string{
		"/ui/parts/history?limit=abc", "/ui/parts/history?limit=-1", "/ui/parts/history?since=%00", "/ui/parts/history?status=",
		"/ui/parts/history?cursor=%FF%FE", "/ui/parts/history?name=" + strings.Repeat("n", 5000), "/ui/parts/history?status=running&status=failed",
		"/ui/parts/runs/%00", "/ui/parts/runs/..%2F..", "/ui/parts/runs/r0001?format=nope", "/ui/parts/runs/\u00e9t\u00e9",
		"/ui/parts/compare?base=r0001", "/ui/parts/compare?base=r0001&head=r0001", "/ui/parts/compare?base=&head=r0001",
		"/ui/parts/compare?base=r0001&head=r0001&threshold=NaN", "/ui/parts/compare?base=r0001&head=r0001&threshold=1e999",
		"/ui/parts/new?from=nope", "/ui/parts/live?x=1", "/ui/parts/", "/ui/parts", "/ui/assets/", "/ui/assets/../web.go",
	} {
		p := e.get(t, path)
		if p.status >= 500 || p.status == 0 {
			t.Errorf("GET %s: status %d\n%s", path, p.status, clipped(p.body))
		}
	}
	if strings.Contains(e.logs.String(), "level=ERROR") {
		t.Errorf("the pages logged errors:\n%s", e.logs.String())
	}
}
