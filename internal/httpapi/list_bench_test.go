package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/httpapi"
	"github.com/threadbench/threadbench/internal/store"
)

// BenchmarkListRuns seeds a history file with 10,000 finished runs
// (THREADBENCH_BENCH_RUNS to change it) of three targets, three stages and
// a minute of seconds each, serves it through the real API on loopback and
// reads GET /runs?limit=20 from four clients at once. It reports the
// latency percentiles and the page's size, and, for comparison, the size of
// the same twenty runs as whole documents (what the list used to carry).
//
//	go test ./internal/httpapi -run '^$' -bench ListRuns -benchtime 100x
func BenchmarkListRuns(b *testing.B) {
	runs := 10000
	if v := os.Getenv("THREADBENCH_BENCH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 20 {
			b.Fatalf("THREADBENCH_BENCH_RUNS=%q: want a number of runs, at least 20", v)
		}
		runs = n
	}
	db := store.NewDB(filepath.Join(b.TempDir(), "history.db"))
	if err := db.Open(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	start := time.Now()
	docBytes := seedRuns(b, db, runs)
	b.Logf("seeded %d runs (%.0f KB each as JSON) in %s", runs, float64(docBytes)/1024, time.Since(start).Round(time.Second))

	api, err := httpapi.NewServer(httpapi.Config{
		Store: db, Runs: &fakeRuns{}, Gatherer: prometheus.NewRegistry(),
		Compare: func(base, head *bench.Run, _ float64) bench.Comparison { return bench.Comparison{} },
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	b.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

	page, err := get(client, srv.URL+"/runs?limit=20")
	if err != nil {
		b.Fatal(err)
	}
	whole := 0
	for i := range 20 {
		body, err := get(client, srv.URL+"/runs/"+runID(runs-1-i))
		if err != nil {
			b.Fatal(err)
		}
		whole += len(body)
	}

	// Each loop is a round of four clients reading five pages each at once.
	const clients, perClient = 4, 5
	var (
		mu        sync.Mutex
		latencies []time.Duration
	)
	for b.Loop() {
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				var own [perClient]time.Duration
				for i := range own {
					t0 := time.Now()
					if _, err := get(client, srv.URL+"/runs?limit=20"); err != nil {
						b.Error(err)
						return
					}
					own[i] = time.Since(t0)
				}
				mu.Lock()
				latencies = append(latencies, own[:]...)
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	slices.Sort(latencies)
	at := func(q float64) float64 {
		return float64(latencies[int(q*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(float64(len(page)), "page-bytes")
	b.ReportMetric(float64(whole), "whole-runs-bytes")
	b.ReportMetric(float64(runs), "runs")
}

func get(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return body, err
}

func runID(i int) string { return fmt.Sprintf("r%06d", i) }

// seedRuns stores n finished runs, one a minute apart, and returns the size
// of one as JSON without its seconds.
func seedRuns(b *testing.B, db *store.DB, n int) int {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	size := 0
	for i := range n {
		run := seededRun(rng, runID(i), t0.Add(time.Duration(i)*time.Minute))
		if err := db.CreateRun(context.Background(), run); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			for j := range run.Targets {
				run.Targets[j].Seconds = nil
			}
			doc, err := json.Marshal(run)
			if err != nil {
				b.Fatal(err)
			}
			size = len(doc)
		}
	}
	return size
}

// seededRun is a run as a three-target demo leaves it: per target a warm-up,
// three stages and the total with histograms, two requests of a mixed
// workload, resources per stage and sixty seconds.
func seededRun(rng *rand.Rand, id string, created time.Time) *bench.Run {
	started, finished := created.Add(time.Second), created.Add(4*time.Minute)
	run := &bench.Run{ID: id, Name: "nightly", Status: bench.RunSucceeded, CreatedAt: created,
		StartedAt: &started, FinishedAt: &finished,
		Spec: bench.RunSpec{Targets: []string{bench.TargetGo, bench.TargetJavaPlatform, bench.TargetJavaVirtual},
			Profile: bench.Profile{Name: "demo-heavy", Model: bench.ModelClosed, Stages: []bench.Stage{
				{Name: "ramp", Duration: bench.Duration(20 * time.Second), Concurrency: 200, Ramp: true},
				{Name: "hold", Duration: bench.Duration(20 * time.Second), Concurrency: 200},
				{Name: "peak", Duration: bench.Duration(20 * time.Second), Concurrency: 400},
			}},
			Workload: bench.Workload{Requests: []bench.Request{
				{Endpoint: "heavy", Params: map[string]string{"duration": "200"}, Weight: 9},
				{Endpoint: "light", Weight: 1},
			}, Timeout: bench.DefaultTimeout},
			Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024}},
		Environment: bench.Environment{Machine: bench.Machine{Host: "bench", OS: "linux", CPUs: 2, CgroupVersion: "v1"},
			LoadCPUSet: "0", TargetCPUSet: "1", CPUSplitApplied: true},
	}
	stats := func(n int64, median float64) bench.Stats {
		d := distribution(rng, median)
		return bench.Stats{Requests: n, Successes: n, Completed: n, OfferedRate: float64(n) / 20,
			Throughput: float64(n) / 20, Elapsed: bench.Duration(20 * time.Second),
			StatusCodes: map[string]int64{"200": n}, BytesIn: n * 180, BytesOut: n * 90,
			Latency: d.latency, Histogram: d.histogram, ServiceTime: &d.latency, ServiceHistogram: d.histogram}
	}
	for k, target := range run.Spec.Targets {
		tr := bench.TargetResult{Target: target, Status: bench.TargetSucceeded,
			Image:  bench.ImageInfo{Ref: "threadbench/" + target + ":dev", Runtime: "OpenJDK 25.0.3+9"},
			Limits: run.Spec.Limits, CPUSet: "1", StartedAt: &started, FinishedAt: &finished}
		warm := stats(500, 200)
		tr.Warmup = &bench.StageResult{Name: "warmup", Model: bench.ModelOpen, Warmup: true, Stats: warm}
		for s, st := range run.Spec.Profile.Stages {
			n := int64(10000 + rng.IntN(5000))
			sr := bench.StageResult{Index: s, Name: st.Name, Model: bench.ModelClosed,
				StartOffset: bench.Duration(time.Duration(s) * 20 * time.Second), Duration: st.Duration,
				Concurrency: st.Concurrency, Stats: stats(n, 200+float64(k)*50),
				Requests: []bench.NamedStats{{Name: "heavy?duration=200", Stats: stats(n*9/10, 200)},
					{Name: "light", Stats: stats(n/10, 2)}},
				Generator: &bench.Generator{CPUs: 1, CPUShare: 0.2, CPUSharePeak: 0.3, Connections: st.Concurrency}}
			tr.Stages = append(tr.Stages, sr)
			tr.Resources = append(tr.Resources, bench.StageResources{Stage: s,
				Threads:         map[string]bench.Gauge{bench.ThreadPlatform: {Peak: 220, Mean: 210}},
				Memory:          map[string]bench.Gauge{bench.MemoryWorkingSet: {Peak: 3e8, Mean: 2.8e8}},
				CPUSecondsPer1k: 0.4, GCPauses: 12, GCPauseSeconds: 0.03})
		}
		total := stats(40000, 210)
		tr.Total = &total
		for sec := range 60 {
			tr.Seconds = append(tr.Seconds, bench.Bucket{Second: sec, Stage: sec / 20, Stats: bench.Stats{
				Requests: 700, Successes: 700, Completed: 700, Throughput: 700,
				Latency: bench.Latency{P50: 200, P90: 210, P99: 230, Max: 250}}})
		}
		run.Targets = append(run.Targets, tr)
	}
	return run
}

type dist struct {
	latency   bench.Latency
	histogram string
}

// distributions are latency histograms by median, eight of each, made once:
// encoding histograms would otherwise take most of the seeding.
var distributions = map[float64][]dist{}

func distribution(rng *rand.Rand, median float64) dist {
	pool := distributions[median]
	if len(pool) < 8 {
		h := hdr.New()
		for range 2000 {
			hdr.Record(h, time.Duration(median*math.Exp(0.3*rng.NormFloat64())*float64(time.Millisecond)))
		}
		enc, err := hdr.Encode(h)
		if err != nil {
			panic(err)
		}
		pool = append(pool, dist{hdr.Summarize(h), enc})
		distributions[median] = pool
		return pool[len(pool)-1]
	}
	return pool[rng.IntN(len(pool))]
}
