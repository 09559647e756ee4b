package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis/analysistest"
	"github.com/threadbench/threadbench/internal/bench"
)

// searchRun is the crafted three-target capacity run, stored as id.
func searchRun(t *testing.T, e *env, id string) *bench.Run {
	t.Helper()
	run := analysistest.SearchRun(t)
	run.ID = id
	started, finished := run.CreatedAt.Add(time.Second), run.CreatedAt.Add(5*time.Minute)
	run.StartedAt, run.FinishedAt = &started, &finished
	return e.seed(t, run)
}

var chartRE = regexp.MustCompile(`(?s)<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="([^"]*)".*?</svg>`)

// A capacity run's page opens with its answer: the capacity table, then
// each target's search chart (its trials, one series) and trials, then the
// run's header and findings; its time charts have data.
func TestCapacityRunPage(t *testing.T) {
	e := newEnv(t)
	searchRun(t, e, "s0001")
	p := e.get(t, "/ui/parts/runs/s0001")
	if p.status != http.StatusOK {
		t.Fatalf("status %d\n%s", p.status, p.body)
	}
	order := []string{`<section id="capacity">`, "go carries 1550 req/s", `<section id="search">`, `data-chart="search-0"`,
		`<section id="run">`, `<section id="findings"`, "Capacity within p99&lt;=300ms, by the rate each confirmed", `data-chart="throughput"`}
	rest := p.body
	for _, part := range order {
		i := strings.Index(rest, part)
		if i < 0 {
			t.Fatalf("the page lacks %q, or has it out of order (want %q)", part, order)
		}
		rest = rest[i:]
	}
	searches := 0
	for _, m := range chartRE.FindAllStringSubmatch(p.body, -1) {
		series := strings.Count(m[0], `<g class="series"`)
		switch {
		case strings.HasPrefix(m[1], "search-"):
			searches++
			if series != 1 || !strings.Contains(m[0], `class="trial pass confirm"`) {
				t.Errorf("search chart %s: %d series, confirmations drawn %v", m[1], series, strings.Contains(m[0], "confirm"))
			}
		case m[1] == "throughput" || m[1] == "latency-p99":
			if series != 3 || strings.Contains(m[0], "no data") {
				t.Errorf("time chart %s: %d series, or no data", m[1], series)
			}
		}
	}
	if searches != 3 {
		t.Errorf("%d search charts, want one per target", searches)
	}
	p.mustNotContain(t, "style=", "<style", "<script", "whole attack")
}

// A capacity search under way: its live view names the search, not the
// one stage its profile holds in place of its trials.
func TestCapacityRunLive(t *testing.T) {
	e := newEnv(t)
	run := analysistest.SearchRun(t)
	run.ID, run.Status, run.Targets = "s0009", bench.RunRunning, []bench.TargetResult{{Target: bench.TargetGo, Status: bench.TargetRunning}}
	e.seed(t, run)
	p := e.get(t, "/ui/parts/runs/s0009")
	if p.status != http.StatusOK {
		t.Fatalf("status %d\n%s", p.status, p.body)
	}
	p.mustContain(t, `data-live="/runs/s0009/events"`, "<dt>search</dt><dd>capacity search (open model) within p99&lt;=300ms")
	p.mustNotContain(t, "<dt>stages</dt>")
}

// Two capacity runs compared: their answers side by side, and each run's
// searches drawn below.
func TestCompareCapacityRuns(t *testing.T) {
	e := newEnv(t)
	searchRun(t, e, "s0001")
	searchRun(t, e, "s0002")
	p := e.get(t, "/ui/parts/compare?base=s0001&head=s0002")
	if p.status != http.StatusOK {
		t.Fatalf("status %d\n%s", p.status, p.body)
	}
	p.mustContain(t, `class="comparison"`, "capacity", "only the searches&#39; answers are compared",
		"The base run&#39;s search (s0001)", "The head run&#39;s search (s0002)")
	if n := strings.Count(p.body, `data-chart="search-`); n != 6 {
		t.Errorf("%d search charts, want both runs' three", n)
	}
	p.mustNotContain(t, "style=", "<style", "<script")
	// a run that is no search draws none
	e.seed(t, finishedRun("r0001", "before", 1, 1, "go"))
	e.seed(t, finishedRun("r0002", "after", 2, 1.5, "go"))
	e.get(t, "/ui/parts/compare?base=r0001&head=r0002").mustNotContain(t, `data-chart="search-`, "run&#39;s search")
}
