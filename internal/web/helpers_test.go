package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/web"
)

// env is the pages on a real history in a temporary SQLite file, served by
// httptest on their own (the API's guard is httpapi's to test).
type env struct {
	db    *store.DB
	pages *web.Pages
	srv   *httptest.Server
	logs  *strings.Builder
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := store.NewDB(filepath.Join(t.TempDir(), "history.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{db: db, logs: &strings.Builder{}}
	pages, err := web.New(web.Config{
		Store: db,
		Compare: func(base, head *bench.Run, threshold float64) bench.Comparison {
			return analysis.Compare(base, head, analysis.CompareOptions{NoiseThreshold: threshold})
		},
		Targets:     catalog,
		Profiles:    builtin.Profiles(),
		Experiments: builtin.Experiments(),
		Endpoints:   bench.Endpoints(),
		Logger:      slog.New(slog.NewTextHandler(e.logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.pages = pages
	e.srv = httptest.NewServer(pages)
	t.Cleanup(e.srv.Close)
	return e
}

// page is an answered GET, body read.
type page struct {
	status int
	header http.Header
	body   string
}

func (e *env) get(t *testing.T, path string, headers ...string) page {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// mustContain fails the test for each wanted string the body lacks.
func (p page) mustContain(t *testing.T, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(p.body, w) {
			t.Errorf("the page lacks %q:\n%s", w, clipped(p.body))
		}
	}
}

func (p page) mustNotContain(t *testing.T, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(p.body, u) {
			t.Errorf("the page contains %q:\n%s", u, clipped(p.body))
		}
	}
}

func clipped(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// catalog is the three targets as the daemon's catalog describes them.
var catalog = []bench.TargetInfo{
	{Name: bench.TargetGo, Kind: "go", ThreadModel: "goroutines", Description: "Go net/http"},
	{Name: bench.TargetJavaPlatform, Kind: "java", ThreadModel: "platform", Description: "Tomcat's platform threads"},
	{Name: bench.TargetJavaVirtual, Kind: "java", ThreadModel: "virtual", Description: "virtual threads"},
	{Name: bench.TargetJavaReactive, Kind: "java", ThreadModel: "reactive", Description: "WebFlux", OnlyNamed: true},
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// seed stores a run and returns it.
func (e *env) seed(t *testing.T, run *bench.Run) *bench.Run {
	t.Helper()
	if err := e.db.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

// finishedRun is a succeeded closed-model run of the given targets, two
// stages of ten seconds, created minutes after t0, throughput scaled by
// speed.
func finishedRun(id, name string, minutes int, speed float64, targets ...string) *bench.Run {
	created := t0.Add(time.Duration(minutes) * time.Minute)
	started, finished := created.Add(time.Second), created.Add(time.Minute)
	stages := []bench.Stage{
		{Name: "c10", Duration: bench.Duration(10 * time.Second), Concurrency: 10},
		{Name: "c50", Duration: bench.Duration(10 * time.Second), Concurrency: 50},
	}
	run := &bench.Run{ID: id, Name: name, Status: bench.RunSucceeded, CreatedAt: created, StartedAt: &started, FinishedAt: &finished,
		Spec: bench.RunSpec{Name: name, Targets: targets,
			Profile:  bench.Profile{Model: bench.ModelClosed, Stages: stages},
			Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "10"}, Weight: 1}}},
			Limits:   bench.Limits{CPUs: 1, MemoryMiB: 1024}}}
	for k, target := range targets {
		rate := speed * float64(900+100*k)
		tr := bench.TargetResult{Target: target, Status: bench.TargetSucceeded, StartedAt: &started, FinishedAt: &finished}
		var total bench.Stats
		for s, st := range stages {
			stats := secondStats(rate*float64(s+1), 10+float64(k))
			stats.Elapsed = st.Duration
			stats.Requests, stats.Successes, stats.Completed = stats.Requests*10, stats.Successes*10, stats.Completed*10
			tr.Stages = append(tr.Stages, bench.StageResult{Index: s, Name: st.Name, Model: bench.ModelClosed,
				StartOffset: bench.Duration(time.Duration(s) * 10 * time.Second), Duration: st.Duration, Concurrency: st.Concurrency, Stats: stats})
			for sec := range 10 {
				tr.Seconds = append(tr.Seconds, bench.Bucket{Second: s*10 + sec, Stage: s,
					Stats: secondStats(rate*float64(s+1)*(1+0.01*float64(sec%3)), 10+float64(k)+float64(sec%4))})
			}
			total.Requests += stats.Requests
			total.Successes += stats.Successes
			total.Completed += stats.Completed
		}
		total.Elapsed = bench.Duration(20 * time.Second)
		total.Throughput = float64(total.Completed) / 20
		total.Latency = bench.Latency{Min: 1, Mean: 11, P50: 10, P90: 14, P95: 15, P99: 20 + float64(k), P999: 25, Max: 30}
		tr.Total = &total
		run.Targets = append(run.Targets, tr)
	}
	return run
}

// secondStats are one second's figures at a throughput and a p50 latency.
func secondStats(throughput, p50 float64) bench.Stats {
	n := int64(throughput)
	return bench.Stats{Requests: n, Successes: n, Completed: n, Throughput: throughput, OfferedRate: throughput,
		Elapsed: bench.Duration(time.Second), BytesIn: n * 100, BytesOut: n * 50,
		Latency: bench.Latency{Min: p50 / 2, Mean: p50 * 1.1, P50: p50, P90: p50 * 1.4, P95: p50 * 1.5, P99: p50 * 2, P999: p50 * 2.5, Max: p50 * 3}}
}

// runningRun is a run of two targets under way: the first attacking, the
// second pending.
func runningRun(id string) *bench.Run {
	run := finishedRun(id, "under way", 500, 1, bench.TargetGo, bench.TargetJavaVirtual)
	run.Status, run.FinishedAt = bench.RunRunning, nil
	run.Targets = []bench.TargetResult{{Target: bench.TargetGo, Status: bench.TargetRunning}, {Target: bench.TargetJavaVirtual, Status: bench.TargetPending}}
	return run
}

func runID(i int) string { return fmt.Sprintf("r%04d", i) }
