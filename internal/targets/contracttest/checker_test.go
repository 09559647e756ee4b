package contracttest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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

const inflight = `# TYPE threadbench_inflight_requests gauge
threadbench_inflight_requests{thread="goroutine"} 1
`

const exposition = inflight + `# TYPE http_server_requests_seconds histogram
http_server_requests_seconds_bucket{method="GET",uri="/api/light",status="200",le="+Inf"} 3
http_server_requests_seconds_sum{method="GET",uri="/api/light",status="200"} 0.01
http_server_requests_seconds_count{method="GET",uri="/api/light",status="200"} 3
`

// TestChecks runs each check against servers that keep or break the
// contract in one way, so that every check is shown able to pass and fail.
func TestChecks(t *testing.T) {
	javaVirtual := Options{Target: "java-virtual", MetricsPath: "/actuator/prometheus", Virtual: new(true)}
	goTarget := Options{Target: "go", MetricsPath: "/metrics"}
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
				return c.badParam(t.Context(), "/api/heavy?duration=x", "duration", durationMax)
			}, "does not give the range"},
		// A 400 without its status in the body.
		{"400 without status", jsonHandler(400, `{"error":"duration must be an integer from 0 to 60000"}`),
			goTarget, func(c *checker) error {
				return c.badParam(t.Context(), "/api/heavy?duration=x", "duration", durationMax)
			}, "body status absent"},
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
		// A virtual-thread target whose requests run on goroutines, say.
		{"inflight gauge with the wrong thread", textHandler(exposition),
			javaVirtual, func(c *checker) error { return c.metrics(t.Context()) }, `no series with thread="virtual"`},
		// Metrics as JSON.
		{"metrics as JSON", jsonHandler(200, `{}`),
			goTarget, func(c *checker) error { return c.metrics(t.Context()) }, "want 200 text/plain"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			err := tt.check(newChecker(srv.URL, tt.opts))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %q, want none", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("no error, want one containing %q", tt.wantErr)
			case err != nil && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q, want it to contain %q", err, tt.wantErr)
			}
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
