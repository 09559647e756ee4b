package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

// syncBuffer is a log sink the server's goroutines write while a test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// env is a server on fakes, served by httptest.
type env struct {
	runs  *fakeRuns
	store *fakeStore
	logs  *syncBuffer
	srv   *httptest.Server
	cfg   httpapi.Config
	api   *httpapi.Server
}

// newEnv starts a server on empty fakes; tests set the fake methods they
// need before sending requests. Options adjust the Config.
func newEnv(t *testing.T, options ...func(*httpapi.Config)) *env {
	t.Helper()
	e := &env{runs: &fakeRuns{}, store: &fakeStore{}, logs: &syncBuffer{}}
	e.cfg = httpapi.Config{
		Runs:     e.runs,
		Store:    e.store,
		Targets:  []bench.TargetInfo{{Name: "go", Kind: "go", ThreadModel: "goroutines", MetricsPath: "/metrics", Description: "Go"}},
		Profiles: []bench.Profile{{Name: "smoke", Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: bench.Duration(10 * time.Second), Rate: 50}}}},
		Compare: func(base, head *bench.Run, threshold float64) bench.Comparison {
			return bench.Comparison{Base: ref(base), Head: ref(head), NoiseThreshold: threshold, Targets: []bench.TargetComparison{}}
		},
		Gatherer: prometheus.NewRegistry(),
		Logger:   slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, o := range options {
		o(&e.cfg)
	}
	s, err := httpapi.NewServer(e.cfg)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	e.api = s
	e.srv = httptest.NewServer(s.Handler())
	t.Cleanup(e.srv.Close)
	return e
}

func ref(r *bench.Run) bench.RunRef {
	return bench.RunRef{ID: r.ID, Name: r.Name, Status: r.Status, CreatedAt: r.CreatedAt}
}

// response is an answered request, body read.
type response struct {
	*http.Response
	body []byte
}

// do sends a request; a non-empty body is sent as JSON.
func (e *env) do(t *testing.T, method, path, body string) response {
	t.Helper()
	req := e.newRequest(t, method, path, body)
	return e.send(t, req)
}

func (e *env) newRequest(t *testing.T, method, path, body string) *http.Request {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, r)
	if err != nil {
		t.Fatalf("NewRequest: %v", err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

func (e *env) send(t *testing.T, req *http.Request) response {
	t.Helper()
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return response{Response: resp, body: body}
}

// problem checks that resp is a problem document with the status and returns it.
func problem(t *testing.T, resp response, status int) api.Problem {
	t.Helper()
	if got, want := resp.StatusCode, status; got != want {
		t.Fatalf("status = %d, want %d; body %s", got, want, resp.body)
	}
	if got, want := resp.Header.Get("Content-Type"), api.ProblemContentType; got != want {
		t.Fatalf("Content-Type = %q, want %q", got, want)
	}
	var p api.Problem
	if err := json.Unmarshal(resp.body, &p); err != nil {
		t.Fatalf("decoding problem %s: %v", resp.body, err)
	}
	if p.Status != status || p.Title != http.StatusText(status) || p.Type != "about:blank" {
		t.Errorf("problem = %+v, want status %d, its title, type about:blank", p, status)
	}
	if p.Detail == "" {
		t.Errorf("problem has no detail: %s", resp.body)
	}
	if p.RequestID == "" || p.RequestID != resp.Header.Get("X-Request-Id") {
		t.Errorf("problem requestId %q, header %q", p.RequestID, resp.Header.Get("X-Request-Id"))
	}
	return p
}

// decode unmarshals a JSON response body.
func decode[T any](t *testing.T, resp response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(resp.body, &v); err != nil {
		t.Fatalf("decoding %s: %v", resp.body, err)
	}
	return v
}

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

// conforms checks a response against api/openapi.yaml: its status is listed
// for the operation and its body matches the schema.
func conforms(t *testing.T, req *http.Request, resp response) {
	t.Helper()
	specOnce.Do(func() {
		var doc *openapi3.T
		if doc, specErr = openapi3.NewLoader().LoadFromData(api.Spec); specErr == nil {
			doc.Servers = nil
			specRouter, specErr = legacy.NewRouter(doc)
		}
	})
	if specErr != nil {
		t.Fatalf("spec: %v", specErr)
	}
	route, params, err := specRouter.FindRoute(req)
	if err != nil {
		t.Fatalf("spec has no route for %s %s: %v", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(resp.body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s %d does not conform to openapi.yaml: %v", req.Method, req.URL.Path, resp.StatusCode, err)
	}
}

// sampleRun is a finished run with every field set, so that a schema
// mismatch anywhere shows up in the conformance checks.
func sampleRun(id string, status bench.RunStatus) *bench.Run {
	created := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	started, finished := created.Add(time.Second), created.Add(time.Minute)
	stats := bench.Stats{
		Requests: 1000, Successes: 990, OfferedRate: 100, Throughput: 99,
		Elapsed:     bench.Duration(10 * time.Second),
		StatusCodes: map[string]int64{"200": 990, "0": 10},
		Errors:      []bench.ErrorCount{{Message: "timeout", Count: 10}},
		BytesIn:     50000, BytesOut: 1000,
		Latency:   bench.Latency{Min: 1, Mean: 2, P50: 2, P90: 3, P95: 4, P99: 5, P999: 6, Max: 7},
		Histogram: "HISTFAAAA",
	}
	stage := bench.StageResult{Index: 0, Name: "hold", Model: bench.ModelOpen, StartOffset: 0,
		Duration: bench.Duration(10 * time.Second), Rate: 100, Stats: stats}
	spec := bench.RunSpec{
		Name: "sample", Targets: []string{"go"},
		Profile: bench.Profile{Name: "smoke", Model: bench.ModelOpen, Scale: 1,
			Stages: []bench.Stage{{Name: "hold", Duration: bench.Duration(10 * time.Second), Rate: 100, Ramp: true}}},
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "100"}, Weight: 1}},
			Timeout: bench.Duration(30 * time.Second)},
		Warmup: bench.Warmup{Duration: bench.Duration(10 * time.Second), Rate: 50},
		Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024},
		Java:   bench.JavaOptions{TomcatMaxThreads: 200, VirtualParallelism: 2, HeapPercent: 50, GC: "G1", BaseImage: "eclipse-temurin:25-jre"},
	}
	return &bench.Run{
		ID: id, Name: "sample", Status: status, Spec: spec,
		Environment: bench.Environment{Machine: bench.Machine{Host: "h", OS: "linux", Kernel: "6.1", CPUModel: "x", CPUs: 2, MemoryBytes: 1 << 34,
			DockerVersion: "20.10", CgroupVersion: "v1"}, OrchestratorGo: "go1.26.8", LoadCPUSet: "0", TargetCPUSet: "1", CPUSplitApplied: true},
		Targets: []bench.TargetResult{{
			Target: "go", Status: bench.TargetSucceeded,
			Image:  bench.ImageInfo{Ref: "threadbench/go:abc", ID: "sha256:abc", BaseImage: "scratch", Runtime: "go1.26.8", Cached: true},
			Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024}, CPUSet: "1", Settings: map[string]string{"GOMAXPROCS": "1"},
			StartupMs: 12.5, Warmup: &bench.StageResult{Index: -1, Model: bench.ModelOpen, Warmup: true, StartOffset: bench.Duration(-10 * time.Second),
				Duration: bench.Duration(10 * time.Second), Rate: 50, Stats: stats},
			Stages: []bench.StageResult{stage}, Total: &stats,
			Seconds: []bench.Bucket{{Second: 0, Stage: 0, Stats: stats}},
			Resources: []bench.StageResources{{Stage: 0,
				Threads:         map[string]bench.Gauge{bench.ThreadGoroutine: {Peak: 120, Mean: 80}},
				Memory:          map[string]bench.Gauge{bench.MemoryWorkingSet: {Peak: 1e7, Mean: 9e6}},
				CPUSecondsPer1k: 0.3}},
			Series:    []string{"go_goroutines"},
			Inside:    sampleInside(),
			StartedAt: &started, FinishedAt: &finished,
		}},
		CreatedAt: created, StartedAt: &started, FinishedAt: &finished,
	}
}

func notFound(id string) error { return bench.Errorf(bench.ENOTFOUND, "run %s not found", id) }

// ctxT shortens the fakes' function literals.
type ctxT = context.Context

// sampleInside is what recorded inside the sample run's target, every
// field set.
func sampleInside() *bench.Inside {
	zero := 0
	return &bench.Inside{Source: bench.ProfilePprof, JDK: 0,
		Why: []bench.Diagnosis{{Target: "go", Stage: 0, Source: bench.ProfilePprof,
			Causes: []bench.Cause{{Kind: bench.VerdictCPUBound, Sentence: "go used 97 % of its 1-CPU limit", Share: 0.97,
				Evidence: []bench.Figure{{Name: "CPU used", Value: 0.97, Unit: "share", Limit: 1}},
				Stacks:   []bench.StackCount{{Frames: []string{"main.work"}, Count: 3, Seconds: 0.5, Share: 1}}}},
			TopFrames: []bench.FrameCount{{Frame: "sha256.block", Self: 80, Cumulative: 80}}, Samples: 100,
			OwnFrames: []bench.FrameCount{{Frame: "main.work", Self: 90, Cumulative: 95}}}},
		Files: []bench.Artifact{{Target: "go", Stage: &zero, Kind: bench.ArtifactPprof, Bytes: 5}},
		Cost:  &bench.InsideCost{Bytes: 5, Events: 100, Depths: map[string]int{"x": 1}, Skipped: map[string]int64{"y": 2}},
		Notes: []string{"a note"}}
}
