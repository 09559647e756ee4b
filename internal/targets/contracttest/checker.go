// Package contracttest checks that a running target server obeys
// targets/CONTRACT.md: Run as a full test suite (for each target's tests),
// Check as a quick probe (for the runner, before an attack).
//
// Both speak only to the base URL they are given, for instance
// http://127.0.0.1:18080.
package contracttest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Options describe what the target under test should report.
type Options struct {
	Target      string // expected "target" field, e.g. "go", "java-platform"
	MetricsPath string // "/metrics" or "/actuator/prometheus"
	// MetricsBase is the base URL of the metrics server when it is not the
	// target's (a Java target given a METRICS_PORT); empty for the target's.
	MetricsBase string
	// ThreadModel is the thread model the target declares (its entry's:
	// bench.ThreadModelGoroutines, ThreadModelPlatform, ThreadModelVirtual);
	// what /info, the responses and the metrics must say follows from it.
	ThreadModel string
	Client      *http.Client // optional; a client with a 10s timeout when nil
	// Downstream is the base URL of the downstream service the target was
	// started with (its DOWNSTREAM_URL). When set, Run also checks
	// /api/fanout and /api/downstream against it; it must serve
	// /api/heavy?duration=MS, as every target does.
	Downstream string
}

// Known CPU results from the contract.
const (
	cpuResult1    = "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9"
	cpuResult1000 = "ac0d7e5eb10992f9d5ee99e21e5784f0a236676f7d585ae2dfbe91639a7730c8"
)

// requestsHistogram is the request-duration histogram every target exposes.
const requestsHistogram = "http_server_requests_seconds"

// inflightGauge is the gauge of requests in flight every target exposes.
const inflightGauge = "threadbench_inflight_requests"

// wakeDelaySummary is the wake-up probe's summary every target exposes:
// how late a thread of the requests' kind ran after a sleep ended.
const wakeDelaySummary = "threadbench_wake_delay_seconds"

// javaFamilies are the families only the Java target has, by type: what
// pins virtual threads and what carries them. Go has no carriers.
var javaFamilies = []struct {
	name string
	typ  dto.MetricType
}{
	{"threadbench_virtual_pinned_total", dto.MetricType_COUNTER},
	{"threadbench_virtual_pinned_seconds", dto.MetricType_SUMMARY},
	{"threadbench_carrier_threads", dto.MetricType_GAUGE},
}

// Response bodies are read up to these sizes; a Micrometer exposition with
// percentile histograms runs to a few hundred kilobytes.
const (
	maxBody        = 1 << 20
	maxMetricsBody = 16 << 20
)

// goroutineThread is the Go target's thread field.
var goroutineThread = regexp.MustCompile(`^goroutine [1-9][0-9]*$`)

// checker holds what every check needs.
type checker struct {
	baseURL string
	opts    Options
	client  *http.Client
}

func newChecker(baseURL string, opts Options) *checker {
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &checker{baseURL: strings.TrimSuffix(baseURL, "/"), opts: opts, client: client}
}

// response is one answer from the target.
type response struct {
	status      int
	contentType string // the media type, without parameters
	body        []byte
	elapsed     time.Duration // from sending the request to reading the body
}

// get requests path (with its query) from the target, accepting the
// media type accept.
func (c *checker) get(ctx context.Context, path, accept string, limit int64) (*response, error) {
	return c.getFrom(ctx, c.baseURL, path, accept, limit)
}

// getFrom requests path from the server at base.
func (c *checker) getFrom(ctx context.Context, base, path, accept string, limit int64) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	req.Header.Set("Accept", accept)
	start := time.Now()
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("GET %s: read body: %w", path, err)
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return &response{status: resp.StatusCode, contentType: mediaType, body: body, elapsed: time.Since(start)}, nil
}

// getJSON requests path and wants the status and a JSON body.
func (c *checker) getJSON(ctx context.Context, path string, wantStatus int) (*response, error) {
	resp, err := c.get(ctx, path, "application/json", maxBody)
	if err != nil {
		return nil, err
	}
	if resp.status != wantStatus {
		return nil, fmt.Errorf("GET %s: status %d, want %d; body %s", path, resp.status, wantStatus, snippet(resp.body))
	}
	if resp.contentType != "application/json" {
		return nil, fmt.Errorf("GET %s: Content-Type %q, want application/json", path, resp.contentType)
	}
	return resp, nil
}

// health checks GET /health.
func (c *checker) health(ctx context.Context) error {
	resp, err := c.getJSON(ctx, "/health", http.StatusOK)
	if err != nil {
		return err
	}
	var body struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(resp.body, &body); err != nil {
		return fmt.Errorf("GET /health: %w; body %s", err, snippet(resp.body))
	}
	if body.Status != "UP" {
		return fmt.Errorf(`GET /health: status %q, want "UP"`, body.Status)
	}
	return nil
}

// workResponse is the contract's work response. Pointers tell absent
// fields from zero ones.
type workResponse struct {
	Target     *string `json:"target"`
	Endpoint   *string `json:"endpoint"`
	DurationMs *int64  `json:"durationMs"`
	Thread     *string `json:"thread"`
	Virtual    *bool   `json:"virtual"`
	Work       *int64  `json:"work"`
	Result     *string `json:"result"`
}

// work requests a work endpoint, checks the fields every work response
// has, and returns the response with how long it took.
func (c *checker) work(ctx context.Context, path, endpoint string, durationMs int64) (*workResponse, time.Duration, error) {
	resp, err := c.getJSON(ctx, path, http.StatusOK)
	if err != nil {
		return nil, 0, err
	}
	var work workResponse
	if err := json.Unmarshal(resp.body, &work); err != nil {
		return nil, 0, fmt.Errorf("GET %s: %w; body %s", path, err, snippet(resp.body))
	}
	if err := c.checkWork(&work, endpoint, durationMs); err != nil {
		return nil, 0, fmt.Errorf("GET %s: %w; body %s", path, err, snippet(resp.body))
	}
	return &work, resp.elapsed, nil
}

// checkWork checks the fields every work response has.
func (c *checker) checkWork(work *workResponse, endpoint string, durationMs int64) error {
	switch {
	case work.Target == nil || *work.Target != c.opts.Target:
		return fmt.Errorf("target %s, want %q", show(work.Target), c.opts.Target)
	case work.Endpoint == nil || *work.Endpoint != endpoint:
		return fmt.Errorf("endpoint %s, want %q", show(work.Endpoint), endpoint)
	case work.DurationMs == nil || *work.DurationMs != durationMs:
		return fmt.Errorf("durationMs %s, want %d", show(work.DurationMs), durationMs)
	}
	return c.checkThread(work.Thread, work.Virtual)
}

// checkThread checks what a response says ran its handler: a goroutine and
// no virtual field for goroutines, a thread and the expected virtual field
// for Java's platform and virtual threads.
func (c *checker) checkThread(thread *string, virtual *bool) error {
	if thread == nil || *thread == "" {
		return fmt.Errorf("thread %s, want a thread's name", show(thread))
	}
	want := c.expect().virtual
	if want == nil {
		if virtual != nil {
			return fmt.Errorf("virtual %v, want the field absent", *virtual)
		}
		if !goroutineThread.MatchString(*thread) {
			return fmt.Errorf("thread %q, want %q", *thread, goroutineThread)
		}
	} else if virtual == nil || *virtual != *want {
		return fmt.Errorf("virtual %s, want %v", show(virtual), *want)
	}
	return nil
}

// sleepAsks is how many times sleep asks a request that took longer than
// its bound: the machine beside it can delay an answer (a contract check
// runs beside the suite's other tests: 531 ms for a 200 ms sleep, once),
// never hasten one, so the fastest answer counts against the upper bound
// and every answer against the lower.
const sleepAsks = 3

// sleep requests a sleeping endpoint for durationMs and checks that it took
// at least that long, and less than max when max is positive (the fastest
// of up to sleepAsks answers).
func (c *checker) sleep(ctx context.Context, endpoint string, durationMs int64, max time.Duration) error {
	path := fmt.Sprintf("/api/%s?duration=%d", endpoint, durationMs)
	least := time.Duration(durationMs) * time.Millisecond
	var err error
	for range sleepAsks {
		var elapsed time.Duration
		if _, elapsed, err = c.work(ctx, path, endpoint, durationMs); err != nil {
			return err
		}
		if err = checkElapsed(path, elapsed, least, max); err == nil || elapsed < least {
			return err
		}
	}
	return err
}

// heavyTwice requests seed 004's handler, two sleeps of durationMs and a
// log line, and checks it slept both: durationMs answers the time slept.
func (c *checker) heavyTwice(ctx context.Context, durationMs int64) error {
	path := fmt.Sprintf("/api/heavy?duration=%d&times=2&log=1", durationMs)
	_, elapsed, err := c.work(ctx, path, "heavy", 2*durationMs)
	if err != nil {
		return err
	}
	return checkElapsed(path, elapsed, 2*time.Duration(durationMs)*time.Millisecond, 0)
}

// checkElapsed checks that a request took from min to max (no upper bound
// when max is 0).
func checkElapsed(path string, elapsed, min, max time.Duration) error {
	if elapsed < min || (max > 0 && elapsed >= max) {
		want := fmt.Sprintf("at least %v", min)
		if max > 0 {
			want = fmt.Sprintf("from %v to %v", min, max)
		}
		return fmt.Errorf("GET %s: took %v, want %s", path, elapsed.Round(time.Millisecond), want)
	}
	return nil
}

// cpu requests /api/cpu?work=work and checks the result.
func (c *checker) cpu(ctx context.Context, work int64, result string) error {
	path := fmt.Sprintf("/api/cpu?work=%d", work)
	resp, _, err := c.work(ctx, path, "cpu", 0)
	if err != nil {
		return err
	}
	if resp.Work == nil || *resp.Work != work {
		return fmt.Errorf("GET %s: work %s, want %d", path, show(resp.Work), work)
	}
	if resp.Result == nil || *resp.Result != result {
		return fmt.Errorf("GET %s: result %s, want %q", path, show(resp.Result), result)
	}
	return nil
}

// badParam requests path, whose query breaks param, and checks the
// contract's 400: a JSON body whose error names the parameter and mentions
// each of mentions (its range's bounds, or its words).
func (c *checker) badParam(ctx context.Context, path, param string, mentions ...string) error {
	resp, err := c.getJSON(ctx, path, http.StatusBadRequest)
	if err != nil {
		return err
	}
	var body struct {
		Status *int   `json:"status"`
		Error  string `json:"error"`
	}
	if err := json.Unmarshal(resp.body, &body); err != nil {
		return fmt.Errorf("GET %s: %w; body %s", path, err, snippet(resp.body))
	}
	switch {
	case body.Status == nil || *body.Status != http.StatusBadRequest:
		return fmt.Errorf("GET %s: body status %s, want 400", path, show(body.Status))
	case !strings.Contains(body.Error, param):
		return fmt.Errorf("GET %s: error %q does not name the parameter %q", path, body.Error, param)
	}
	for _, m := range mentions {
		if !strings.Contains(body.Error, m) {
			return fmt.Errorf("GET %s: error %q does not give the range or words (%s)", path, body.Error, strings.Join(mentions, ", "))
		}
	}
	return nil
}

// metrics requests the metrics path and checks that the exposition holds
// the request-duration histogram with its labels, and that it counted a
// request to /api/light.
func (c *checker) metrics(ctx context.Context) error {
	path, base := c.opts.MetricsPath, c.baseURL
	if c.opts.MetricsBase != "" {
		base = c.opts.MetricsBase
	}
	// Asking for text/plain keeps servers from answering in OpenMetrics.
	resp, err := c.getFrom(ctx, base, path, "text/plain", maxMetricsBody)
	if err != nil {
		return err
	}
	if resp.status != http.StatusOK || resp.contentType != "text/plain" {
		return fmt.Errorf("GET %s: status %d, Content-Type %q, want 200 text/plain", path, resp.status, resp.contentType)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(resp.body)))
	if err != nil {
		return fmt.Errorf("GET %s: parse the exposition: %w", path, err)
	}
	if err := c.inflightGauge(path, families); err != nil {
		return err
	}
	if err := wakeDelay(path, families); err != nil {
		return err
	}
	if err := c.javaFamilies(path, families); err != nil {
		return err
	}
	family := families[requestsHistogram]
	if family == nil || family.GetType() != dto.MetricType_HISTOGRAM {
		return fmt.Errorf("GET %s: no histogram %s", path, requestsHistogram)
	}
	for _, m := range family.GetMetric() {
		labels := labelMap(m)
		if !hasLabels(labels, "method", "uri", "status") {
			return fmt.Errorf("GET %s: %s series %v lacks method, uri or status", path, requestsHistogram, labels)
		}
		if labels["uri"] == "/api/light" && m.GetHistogram().GetSampleCount() > 0 {
			return nil
		}
	}
	return fmt.Errorf("GET %s: %s counted no request with uri /api/light", path, requestsHistogram)
}

// inflightGauge checks the gauge of requests in flight, labelled by what
// runs their handlers: goroutine for Go, platform or virtual for Java.
func (c *checker) inflightGauge(path string, families map[string]*dto.MetricFamily) error {
	want := c.expect().handler
	family := families[inflightGauge]
	if family == nil || family.GetType() != dto.MetricType_GAUGE {
		return fmt.Errorf("GET %s: no gauge %s", path, inflightGauge)
	}
	for _, m := range family.GetMetric() {
		if labelMap(m)["thread"] == want {
			return nil
		}
	}
	return fmt.Errorf("GET %s: %s has no series with thread=%q", path, inflightGauge, want)
}

// wakeDelay checks the wake-up probe's summary: it counts a wake-up every
// 10 ms from the target's start, so a target serving requests has counted
// some.
func wakeDelay(path string, families map[string]*dto.MetricFamily) error {
	family := families[wakeDelaySummary]
	if family == nil || family.GetType() != dto.MetricType_SUMMARY || len(family.GetMetric()) != 1 {
		return fmt.Errorf("GET %s: no summary %s", path, wakeDelaySummary)
	}
	if n := family.GetMetric()[0].GetSummary().GetSampleCount(); n == 0 {
		return fmt.Errorf("GET %s: %s counted no wake-up", path, wakeDelaySummary)
	}
	return nil
}

// javaFamilies checks, for a Java target, the families of pinning and
// carrier threads, present in both thread models.
func (c *checker) javaFamilies(path string, families map[string]*dto.MetricFamily) error {
	if !c.expect().javaFamilies {
		return nil
	}
	for _, want := range javaFamilies {
		if f := families[want.name]; f == nil || f.GetType() != want.typ {
			return fmt.Errorf("GET %s: no %s %s", path, strings.ToLower(want.typ.String()), want.name)
		}
	}
	return nil
}

func labelMap(m *dto.Metric) map[string]string {
	labels := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	return labels
}

func hasLabels(labels map[string]string, names ...string) bool {
	return !slices.ContainsFunc(names, func(name string) bool {
		_, ok := labels[name]
		return !ok
	})
}

// show formats an optional field for a message.
func show[T any](v *T) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprintf("%#v", *v)
}

// snippet shortens a body for a message.
func snippet(body []byte) string {
	const maxLen = 200
	if len(body) > maxLen {
		return string(body[:maxLen]) + "..."
	}
	return string(body)
}
