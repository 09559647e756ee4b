package contracttest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/targets/go/server"
)

// jsonHandler answers every request with status and body.
func jsonHandler(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// textHandler answers every request with a Prometheus text exposition.
func textHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}
}

// slowHandler sleeps for d, then answers like handler.
func slowHandler(d time.Duration, handler http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(d)
		handler.ServeHTTP(w, r)
	}
}

// lateOnce sleeps first before its first answer, then d before each.
func lateOnce(first, d time.Duration, handler http.Handler) http.HandlerFunc {
	var calls atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			time.Sleep(first)
		} else {
			time.Sleep(d)
		}
		handler.ServeHTTP(w, r)
	}
}

const inflight = `# TYPE threadbench_inflight_requests gauge
threadbench_inflight_requests{thread="goroutine"} 1
# TYPE threadbench_wake_delay_seconds summary
threadbench_wake_delay_seconds_count 120
threadbench_wake_delay_seconds_sum 0.03
`

// javaExposition is a Java target's exposition, requests on thread.
func javaExposition(thread string) string {
	return strings.ReplaceAll(exposition, `thread="goroutine"`, `thread="`+thread+`"`) + `# TYPE threadbench_virtual_pinned_total counter
threadbench_virtual_pinned_total 2
# TYPE threadbench_virtual_pinned_seconds summary
threadbench_virtual_pinned_seconds_count 2
threadbench_virtual_pinned_seconds_sum 0.04
# TYPE threadbench_carrier_threads gauge
threadbench_carrier_threads 2
`
}

const exposition = inflight + `# TYPE http_server_requests_seconds histogram
http_server_requests_seconds_bucket{method="GET",uri="/api/light",status="200",le="+Inf"} 3
http_server_requests_seconds_sum{method="GET",uri="/api/light",status="200"} 0.01
http_server_requests_seconds_count{method="GET",uri="/api/light",status="200"} 3
`

// TestChecks runs each check against servers that keep or break the
// contract in one way, so that every check is shown able to pass and fail.
func TestChecks(t *testing.T) {
	javaVirtual := Options{Target: "java-virtual", MetricsPath: "/actuator/prometheus", ThreadModel: bench.ThreadModelVirtual}
	goTarget := Options{Target: "go", MetricsPath: "/metrics", ThreadModel: bench.ThreadModelGoroutines}
	heavy200 := func(c *checker) error { return c.sleep(t.Context(), "heavy", 200, 200*time.Millisecond+heavySlack) }
	light := func(c *checker) error {
		_, _, err := c.work(t.Context(), "/api/light", "light", 0)
		return err
	}
	for _, tt := range []struct {
		name    string
		handler http.Handler
		opts    Options
		check   func(c *checker) error
		wantErr string // part of the error; "" for none
	}{
		// A Java target's thread names and virtual field pass.
		{"java light", jsonHandler(200, `{"target":"java-virtual","endpoint":"light","durationMs":0,"thread":"VirtualThread[#42]/runnable@ForkJoinPool-1-worker-1","virtual":true}`),
			javaVirtual, light, ""},
		// A platform thread where a virtual one was expected.
		{"java not virtual", jsonHandler(200, `{"target":"java-virtual","endpoint":"light","durationMs":0,"thread":"Thread[#30,http-nio-8080-exec-1,5,main]","virtual":false}`),
			javaVirtual, light, "virtual false, want true"},
		// A virtual field from a target that must not have one.
		{"go with virtual", jsonHandler(200, `{"target":"go","endpoint":"light","durationMs":0,"thread":"goroutine 7","virtual":false}`),
			goTarget, light, "virtual false, want the field absent"},
		// The Go target's thread must name a goroutine.
		{"go thread", jsonHandler(200, `{"target":"go","endpoint":"light","durationMs":0,"thread":"main"}`),
			goTarget, light, `thread "main"`},
		// durationMs missing.
		{"no durationMs", jsonHandler(200, `{"target":"go","endpoint":"light","thread":"goroutine 7"}`),
			goTarget, light, "durationMs absent, want 0"},
		// durationMs not an integer.
		{"durationMs float", jsonHandler(200, `{"target":"go","endpoint":"light","durationMs":0.5,"thread":"goroutine 7"}`),
			goTarget, light, "durationMs"},
		// The wrong endpoint answered.
		{"wrong endpoint", jsonHandler(200, `{"target":"go","endpoint":"heavy","durationMs":0,"thread":"goroutine 7"}`),
			goTarget, light, `endpoint "heavy", want "light"`},
		// heavy that does not sleep.
		{"heavy too fast", jsonHandler(200, `{"target":"go","endpoint":"heavy","durationMs":200,"thread":"goroutine 7"}`),
			goTarget, heavy200, "want from 200ms to 450ms"},
		// heavy that sleeps far too long.
		{"heavy too slow", slowHandler(500*time.Millisecond, jsonHandler(200, `{"target":"go","endpoint":"heavy","durationMs":200,"thread":"goroutine 7"}`)),
			goTarget, heavy200, "want from 200ms to 450ms"},
		// heavy late once, as on a busy machine, then on time: the
		// fastest answer counts
		{"heavy late once", lateOnce(600*time.Millisecond, 220*time.Millisecond, jsonHandler(200, `{"target":"go","endpoint":"heavy","durationMs":200,"thread":"goroutine 7"}`)),
			goTarget, heavy200, ""},
		// heavy on time.
		{"heavy on time", slowHandler(220*time.Millisecond, jsonHandler(200, `{"target":"go","endpoint":"heavy","durationMs":200,"thread":"goroutine 7"}`)),
			goTarget, heavy200, ""},
		// A wrong CPU result.
		{"cpu wrong result", jsonHandler(200, `{"target":"go","endpoint":"cpu","durationMs":0,"thread":"goroutine 7","work":1,"result":"00"}`),
			goTarget, func(c *checker) error { return c.cpu(t.Context(), 1, cpuResult1) }, `result "00"`},
		// The work field missing.
		{"cpu no work", jsonHandler(200, `{"target":"go","endpoint":"cpu","durationMs":0,"thread":"goroutine 7","result":"`+cpuResult1+`"}`),
			goTarget, func(c *checker) error { return c.cpu(t.Context(), 1, cpuResult1) }, "work absent, want 1"},
		// A 400 without the range.
		{"400 without range", jsonHandler(400, `{"status":400,"error":"duration is bad"}`),
			goTarget, func(c *checker) error {
				return c.badParam(t.Context(), "/api/heavy?duration=x", "duration", "0", "60000")
			}, "does not give the range"},
		// A 400 without its status in the body.
		{"400 without status", jsonHandler(400, `{"error":"duration must be an integer from 0 to 60000"}`),
			goTarget, func(c *checker) error {
				return c.badParam(t.Context(), "/api/heavy?duration=x", "duration", "0", "60000")
			}, "body status absent"},
		// A word parameter's 400 must list the words.
		{"400 without the words", jsonHandler(400, `{"status":400,"error":"mode must be one of pool, unbounded, got \"x\""}`),
			goTarget, func(c *checker) error {
				return c.badParam(t.Context(), "/api/fanout?mode=x", "mode", "pool", "unbounded", "semaphore")
			}, "does not give the range or words"},
		// The histogram with a counted light request.
		{"metrics", textHandler(exposition),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, ""},
		// No histogram.
		{"metrics without histogram", textHandler(inflight + "# TYPE go_goroutines gauge\ngo_goroutines 7\n"),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, "no histogram http_server_requests_seconds"},
		// The histogram without the status label.
		{"metrics without status", textHandler(strings.ReplaceAll(exposition, `,status="200"`, "")),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, "lacks method, uri or status"},
		// The histogram without a light request.
		{"metrics without light", textHandler(strings.ReplaceAll(exposition, "/api/light", "/api/heavy")),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, "counted no request with uri /api/light"},
		// No gauge of requests in flight.
		{"metrics without inflight gauge", textHandler(strings.TrimPrefix(exposition, inflight)),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, "no gauge threadbench_inflight_requests"},
		// No wake-up probe, and one that never woke.
		{"metrics without the wake-up probe", textHandler(strings.ReplaceAll(exposition, "threadbench_wake_delay_seconds", "other_seconds")),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, "no summary threadbench_wake_delay_seconds"},
		{"metrics with a probe that never woke", textHandler(strings.ReplaceAll(exposition, "_count 120", "_count 0")),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, "counted no wake-up"},
		// A virtual-thread target whose requests run on goroutines, say.
		{"inflight gauge with the wrong thread", textHandler(exposition),
			javaVirtual, func(c *checker) error { return c.metrics(t.Context()) }, `no series with thread="virtual"`},
		// A Java target's pinning and carrier families.
		{"java metrics", textHandler(javaExposition("virtual")),
			javaVirtual, func(c *checker) error { return c.metrics(t.Context()) }, ""},
		// A Java target without the carrier gauge.
		{"java metrics without carriers", textHandler(strings.Replace(javaExposition("virtual"), "threadbench_carrier_threads", "other_threads", -1)),
			javaVirtual, func(c *checker) error { return c.metrics(t.Context()) }, "no gauge threadbench_carrier_threads"},
		// Metrics as JSON.
		{"metrics as JSON", jsonHandler(200, `{}`),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, "want 200 text/plain"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			assertErr(t, tt.check(newChecker(srv.URL, tt.opts)), tt.wantErr)
		})
	}
}

// TestCheckUsesOnlyBaseURL checks that a base URL with a trailing slash
// still reaches the right paths.
func TestCheckUsesOnlyBaseURL(t *testing.T) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	_ = newChecker(srv.URL+"/", Options{}).health(context.Background())
	if got, want := strings.Join(paths, ","), "/health"; got != want {
		t.Errorf("paths %q, want %q", got, want)
	}
}

const goInfo = `{"target":"go","threadModel":"goroutines","runtime":"go1.26.8","runtimeVersion":"1.26.8","framework":"net/http (the standard library)","availableProcessors":2,"memoryLimitBytes":0,"cpuModel":"AMD EPYC 7B13","knobs":{"GOGC":"100","GOMAXPROCS":"2","GOMEMLIMIT":"9223372036854775807"}}`

const javaInfo = `{"target":"java-virtual","threadModel":"virtual","runtime":"OpenJDK 25.0.3+9-LTS","runtimeVersion":"25.0.3+9-LTS","framework":"Spring Boot 4.1.1 (Spring Framework 7.0.3, Apache Tomcat/11.0.24)","availableProcessors":2,"memoryLimitBytes":536870912,"cpuModel":"","knobs":{"gc":"G1","maxHeapBytes":"268435456","tomcatMaxThreads":"200","virtualParallelism":"2"},"jdk":"25.0.3+9-LTS"}`

// TestInfoChecks runs the /info check against answers that keep or break
// the contract in one way each.
func TestInfoChecks(t *testing.T) {
	javaVirtual := Options{Target: "java-virtual", ThreadModel: bench.ThreadModelVirtual}
	goTarget := Options{Target: "go", ThreadModel: bench.ThreadModelGoroutines}
	for _, tt := range []struct {
		name    string
		body    string
		opts    Options
		wantErr string // part of the error; "" for none
	}{
		{"go", goInfo, goTarget, ""},
		{"java", javaInfo, javaVirtual, ""},
		// Extra fields are fine.
		{"java platform", strings.Replace(javaInfo, `"virtual"`, `"platform"`, 1), Options{Target: "java-virtual", ThreadModel: bench.ThreadModelPlatform}, ""},
		// The thread model of another target.
		{"wrong thread model", javaInfo, Options{Target: "java-virtual", ThreadModel: bench.ThreadModelPlatform}, `threadModel "virtual", want "platform"`},
		{"go as java", goInfo, Options{Target: "go", ThreadModel: bench.ThreadModelVirtual}, `threadModel "goroutines", want "virtual"`},
		{"wrong target", goInfo, Options{Target: "go-x", ThreadModel: bench.ThreadModelGoroutines}, `target "go", want "go-x"`},
		// The runtime must carry its version.
		{"runtime without version", strings.Replace(goInfo, `"runtime":"go1.26.8"`, `"runtime":"go"`, 1), goTarget, `runtime "go", want a name with the version`},
		{"no runtimeVersion", strings.Replace(goInfo, `"runtimeVersion":"1.26.8",`, ``, 1), goTarget, "runtimeVersion absent"},
		// What serves the endpoints.
		{"no framework", strings.Replace(goInfo, `"framework":"net/http (the standard library)",`, ``, 1), goTarget, "framework absent"},
		{"empty framework", strings.Replace(goInfo, `"framework":"net/http (the standard library)"`, `"framework":""`, 1), goTarget, `framework "", want what serves the endpoints`},
		{"no processors", strings.Replace(goInfo, `"availableProcessors":2`, `"availableProcessors":0`, 1), goTarget, "availableProcessors 0, want at least 1"},
		{"no memory limit", strings.Replace(goInfo, `"memoryLimitBytes":0,`, ``, 1), goTarget, "memoryLimitBytes absent"},
		{"negative memory limit", strings.Replace(goInfo, `"memoryLimitBytes":0`, `"memoryLimitBytes":-1`, 1), goTarget, "memoryLimitBytes -1"},
		// The host's CPU model, for a remote host's environment; "" is fine.
		{"no cpu model", strings.Replace(goInfo, `"cpuModel":"AMD EPYC 7B13",`, ``, 1), goTarget, "cpuModel absent"},
		// Each runtime's own knobs.
		{"go without GOGC", strings.Replace(goInfo, `"GOGC":"100",`, ``, 1), goTarget, `knobs lacks "GOGC"`},
		{"java with go knobs", strings.Replace(goInfo, `"goroutines"`, `"virtual"`, 1), Options{Target: "go", ThreadModel: bench.ThreadModelVirtual}, `knobs lacks "tomcatMaxThreads"`},
		// Knob values are strings.
		{"knob as number", strings.Replace(goInfo, `"GOGC":"100"`, `"GOGC":100`, 1), goTarget, "cannot unmarshal number"},
		{"no knobs", strings.Replace(goInfo, `,"knobs":{"GOGC":"100","GOMAXPROCS":"2","GOMEMLIMIT":"9223372036854775807"}`, ``, 1), goTarget, "knobs absent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(jsonHandler(200, tt.body))
			defer srv.Close()
			assertErr(t, newChecker(srv.URL, tt.opts).info(t.Context()), tt.wantErr)
		})
	}
}

// fanoutBody is a fan-out answer in which the calls are easy to change.
// Its calls take the fan-out's time in equal waves of limit calls (one
// wave where limit is 0), each call a wave long.
func fanoutBody(mode string, limit, succeeded, readTimeouts, elapsedMs, peak int) string {
	calls := succeeded + readTimeouts
	waves := 1
	if limit > 0 {
		waves = (calls + limit - 1) / limit
	}
	wave := time.Duration(elapsedMs) * time.Millisecond / time.Duration(waves)
	call, done := make([]time.Duration, calls), make([]time.Duration, calls)
	for i := range calls {
		call[i], done[i] = wave, wave*time.Duration(1+i*waves/calls)
	}
	return fanoutBodyTimes(mode, limit, succeeded, readTimeouts, elapsedMs, peak, call, done)
}

// fanoutBodyTimes is a fan-out answer with its calls' times as given.
func fanoutBodyTimes(mode string, limit, succeeded, readTimeouts, elapsedMs, peak int, call, done []time.Duration) string {
	return fmt.Sprintf(`{"target":"go","endpoint":"fanout","mode":%q,"limit":%d,"calls":%d,"succeeded":%d,"failed":%d,`+
		`"failures":{"readTimeout":%d,"connectTimeout":0,"refused":0,"other":0},"elapsedMs":%d,"peakConcurrent":%d,`+
		`"callHistogram":%q,"doneHistogram":%q,"thread":"goroutine 9"}`,
		mode, limit, succeeded+readTimeouts, succeeded, readTimeouts, readTimeouts, elapsedMs, peak, encodeTimes(call), encodeTimes(done))
}

// encodeTimes is durations as an encoded histogram.
func encodeTimes(times []time.Duration) string {
	h := hdr.New()
	for _, d := range times {
		hdr.Record(h, d)
	}
	s, err := hdr.Encode(h)
	if err != nil {
		panic(err)
	}
	return s
}

// repeat is n times d.
func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// TestFanoutChecks runs the fan-out checks against answers that keep or
// break the contract in one way each.
func TestFanoutChecks(t *testing.T) {
	const ms = time.Millisecond
	goTarget := Options{Target: "go", ThreadModel: bench.ThreadModelGoroutines}
	spread := func(word string) func(c *checker) error {
		return func(c *checker) error { return c.fanoutSpread(t.Context(), word) }
	}
	for _, tt := range []struct {
		name    string
		body    string
		check   func(c *checker) error
		wantErr string // part of the error; "" for none
	}{
		{"pool", fanoutBody("pool", 5, 20, 0, 410, 5), spread("pool"), ""},
		{"goroutines", fanoutBody("unbounded", 0, 20, 0, 110, 20), spread("goroutines"), ""},
		// virtual is reported as unbounded.
		{"mode not canonical", fanoutBody("virtual", 0, 20, 0, 110, 20), spread("virtual"), `mode "virtual", want "unbounded"`},
		// A bounded mode that let more calls out than its limit.
		{"pool over its limit", fanoutBody("pool", 5, 20, 0, 410, 6), spread("pool"), "peakConcurrent 6, want 5 and at most 5"},
		// Too fast for 4 waves of 100 ms.
		{"semaphore too fast", fanoutBody("semaphore", 5, 20, 0, 150, 5), spread("semaphore"), "elapsedMs 150, want at least 400"},
		// Unbounded that behaves bounded.
		{"unbounded bounded", fanoutBody("unbounded", 0, 20, 0, 410, 5), spread("unbounded"), "want 0 and above 5"},
		{"calls failed", fanoutBody("pool", 5, 18, 2, 410, 5), spread("pool"), "18 of 20 calls succeeded"},
		// Counts that do not add up.
		{"failures do not add up", strings.Replace(fanoutBody("pool", 5, 18, 2, 410, 5), `"other":0`, `"other":1`, 1), spread("pool"), "failures do not add up"},
		{"no failures", strings.Replace(fanoutBody("pool", 5, 20, 0, 410, 5), `"readTimeout":0,`, ``, 1), spread("pool"), "failures.readTimeout absent"},
		// The calls' histograms: every call in each, within the fan-out's
		// time, each as long as its sleep, bounded ones in waves.
		{"a call not in its histogram", fanoutBodyTimes("unbounded", 0, 20, 0, 110, 20, repeat(105*ms, 19), repeat(105*ms, 20)), spread("unbounded"),
			"callHistogram holds 19 calls, doneHistogram 20, want 20 each"},
		{"a call longer than its fan-out", fanoutBodyTimes("unbounded", 0, 20, 0, 110, 20, repeat(105*ms, 20), repeat(100*ms, 20)), spread("unbounded"),
			"longer than from the fan-out's start"},
		{"a call ended after the fan-out", fanoutBodyTimes("unbounded", 0, 20, 0, 110, 20, repeat(105*ms, 20), repeat(150*ms, 20)), spread("unbounded"),
			"after its elapsedMs 110"},
		{"a call shorter than its sleep", fanoutBodyTimes("unbounded", 0, 20, 0, 110, 20, repeat(50*ms, 20), repeat(105*ms, 20)), spread("unbounded"),
			"want at least the 100 ms it sleeps"},
		{"pool's calls all at once", fanoutBodyTimes("pool", 5, 20, 0, 410, 5, repeat(102*ms, 20), repeat(105*ms, 20)), spread("pool"),
			"want at least 399600 µs for 4 waves"},
		{"read timeouts", fanoutBody("unbounded", 0, 0, 3, 100, 3), func(c *checker) error { return c.fanoutReadTimeouts(t.Context()) }, ""},
		{"read timeouts as other", strings.Replace(strings.Replace(fanoutBody("unbounded", 0, 0, 3, 100, 3), `"readTimeout":3`, `"readTimeout":0`, 1), `"other":0`, `"other":3`, 1),
			func(c *checker) error { return c.fanoutReadTimeouts(t.Context()) }, "want readTimeout 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(jsonHandler(200, tt.body))
			defer srv.Close()
			assertErr(t, tt.check(newChecker(srv.URL, goTarget)), tt.wantErr)
		})
	}
}

func TestDownstreamTimeoutCheck(t *testing.T) {
	for _, tt := range []struct {
		name    string
		handler http.Handler
		wantErr string
	}{
		{"504", jsonHandler(504, `{"status":504,"error":"downstream read timed out after 100 ms"}`), ""},
		{"200", jsonHandler(200, `{}`), "status 200, want 504"},
		{"connect timeout", jsonHandler(504, `{"status":504,"error":"downstream connect timed out after 500 ms"}`), "the read timed out"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			assertErr(t, newChecker(srv.URL, Options{Target: "go", ThreadModel: bench.ThreadModelGoroutines}).downstreamTimeout(t.Context()), tt.wantErr)
		})
	}
}

// TestBadParamsFollowTheTable checks that the requests Run makes break
// each parameter of the contract's table.
func TestBadParamsFollowTheTable(t *testing.T) {
	paths := map[string]bool{}
	for _, bp := range badParams() {
		paths[bp.path] = true
	}
	for _, want := range []string{
		"/api/heavy?duration=-1", "/api/heavy?duration=60001", "/api/cpu?work=abc",
		"/api/fanout?calls=0", "/api/fanout?calls=10001", "/api/fanout?mode=no-such-mode",
		"/api/fanout?limit=0", "/api/fanout?timeout=0", "/api/downstream?limit=-1", "/api/downstream?timeout=60001",
	} {
		if !paths[want] {
			t.Errorf("no bad-parameter request %s", want)
		}
	}
}

// assertErr fails t unless err contains wantErr, or is nil when wantErr is "".
func assertErr(t *testing.T, err error, wantErr string) {
	t.Helper()
	switch {
	case wantErr == "" && err != nil:
		t.Fatalf("error %q, want none", err)
	case wantErr != "" && err == nil:
		t.Fatalf("no error, want one containing %q", wantErr)
	case err != nil && !strings.Contains(err.Error(), wantErr):
		t.Fatalf("error %q, want it to contain %q", err, wantErr)
	}
}

// A target whose metrics are served on a port of their own (a Java
// target's METRICS_PORT) passes the metrics check when MetricsBase names
// that server, and fails it when MetricsBase is left out: its own port
// does not serve them.
func TestMetricsOnTheirOwnPort(t *testing.T) {
	h := server.NewHandler("go")
	t.Cleanup(h.Close)
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.Handle(server.MetricsPath, http.NotFoundHandler())
	target := httptest.NewServer(mux)
	defer target.Close()
	metrics := httptest.NewServer(h)
	defer metrics.Close()
	time.Sleep(30 * time.Millisecond) // the wake-up probe's first wake-ups: one every 10 ms

	ctx := context.Background()
	for _, tc := range []struct {
		name, base, wantErr string
	}{
		{"MetricsBase", metrics.URL, ""},
		{"target's port", "", "GET /metrics: status 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChecker(target.URL, Options{Target: "go", MetricsPath: server.MetricsPath, MetricsBase: tc.base, ThreadModel: bench.ThreadModelGoroutines})
			if _, err := c.getJSON(ctx, "/api/light", http.StatusOK); err != nil {
				t.Fatal(err)
			}
			err := c.metrics(ctx)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("metrics check: %v, want %q", err, tc.wantErr)
			}
		})
	}
}
