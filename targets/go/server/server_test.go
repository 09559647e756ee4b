package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/threadbench/threadbench/targets/go/server"
)

// workResponse is the contract's work response.
type workResponse struct {
	Target     string `json:"target"`
	Endpoint   string `json:"endpoint"`
	DurationMs *int   `json:"durationMs"`
	Thread     string `json:"thread"`
	Virtual    *bool  `json:"virtual"`
	Work       *int   `json:"work"`
	Result     string `json:"result"`
}

var goroutineThread = regexp.MustCompile(`^goroutine [1-9][0-9]*$`)

// get requests path from the handler and returns the status and body,
// failing the test unless the response is JSON.
func get(t *testing.T, h http.Handler, path string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if got, want := rec.Header().Get("Content-Type"), "application/json"; got != want {
		t.Fatalf("GET %s: Content-Type = %q, want %q", path, got, want)
	}
	return rec.Code, rec.Body.Bytes()
}

// getWork requests a work endpoint and decodes its 200 response.
func getWork(t *testing.T, h http.Handler, path string) workResponse {
	t.Helper()
	status, body := get(t, h, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200; body %s", path, status, body)
	}
	var resp workResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("GET %s: %v; body %s", path, err, body)
	}
	return resp
}

func TestHealth(t *testing.T) {
	status, body := get(t, server.NewHandler("go"), "/health")
	if got, want := status, http.StatusOK; got != want {
		t.Fatalf("status = %d, want %d", got, want)
	}
	if got, want := string(body), `{"status":"UP"}`; got != want {
		t.Fatalf("body = %s, want %s", got, want)
	}
}

func TestWorkEndpoints(t *testing.T) {
	h := server.NewHandler("go-test")
	for _, tt := range []struct {
		path       string
		endpoint   string
		durationMs int
	}{
		{"/api/light", "light", 0},
		{"/api/heavy?duration=0", "heavy", 0},
		{"/api/heavy?duration=20", "heavy", 20},
		{"/api/native?duration=20", "native", 20},
		{"/api/synchronized?duration=20", "synchronized", 20},
		{"/api/lock?duration=20", "lock", 20},
		// Seed 004's handler: two sleeps and a log line; durationMs is the time slept.
		{"/api/heavy?duration=10&times=2&log=1", "heavy", 20},
		{"/api/cpu?work=3", "cpu", 0},
		// Percent-encoded digits are still a decimal integer.
		{"/api/heavy?duration=%32%30", "heavy", 20},
		// Other parameters are ignored.
		{"/api/heavy?duration=20&extra=x", "heavy", 20},
	} {
		t.Run(tt.path, func(t *testing.T) {
			resp := getWork(t, h, tt.path)
			if got, want := resp.Target, "go-test"; got != want {
				t.Errorf("target = %q, want %q", got, want)
			}
			if got, want := resp.Endpoint, tt.endpoint; got != want {
				t.Errorf("endpoint = %q, want %q", got, want)
			}
			if resp.DurationMs == nil || *resp.DurationMs != tt.durationMs {
				t.Errorf("durationMs = %v, want %d", resp.DurationMs, tt.durationMs)
			}
			if !goroutineThread.MatchString(resp.Thread) {
				t.Errorf("thread = %q, want %v", resp.Thread, goroutineThread)
			}
			if resp.Virtual != nil {
				t.Errorf("virtual = %v, want absent in the Go target", *resp.Virtual)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	h := server.NewHandler("go")
	if got, want := *getWork(t, h, "/api/heavy").DurationMs, 100; got != want {
		t.Errorf("heavy durationMs = %d, want %d", got, want)
	}
	if got, want := *getWork(t, h, "/api/cpu").Work, 1000; got != want {
		t.Errorf("cpu work = %d, want %d", got, want)
	}
}

func TestCPUKnownValues(t *testing.T) {
	h := server.NewHandler("go")
	for _, tt := range []struct {
		work   int
		result string
	}{
		// No hashing: the buffer's first 32 bytes as initialised.
		{0, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"},
		// The contract's known values.
		{1, "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9"},
		{1000, "ac0d7e5eb10992f9d5ee99e21e5784f0a236676f7d585ae2dfbe91639a7730c8"},
	} {
		resp := getWork(t, h, "/api/cpu?work="+strconv.Itoa(tt.work))
		if resp.Work == nil || *resp.Work != tt.work {
			t.Errorf("work=%d: work = %v", tt.work, resp.Work)
		}
		if got, want := resp.Result, tt.result; got != want {
			t.Errorf("work=%d: result = %s, want %s", tt.work, got, want)
		}
	}
}

func TestBadParameters(t *testing.T) {
	h := server.NewHandler("go")
	for _, tt := range []struct {
		path string
		want string // the error message
	}{
		// Below the range.
		{"/api/heavy?duration=-1", `duration must be an integer from 0 to 60000, got "-1"`},
		// Above the range.
		{"/api/heavy?duration=60001", `duration must be an integer from 0 to 60000, got "60001"`},
		// Not a number.
		{"/api/heavy?duration=abc", `duration must be an integer from 0 to 60000, got "abc"`},
		// Not an integer.
		{"/api/heavy?duration=1.5", `duration must be an integer from 0 to 60000, got "1.5"`},
		// Empty.
		{"/api/heavy?duration=", `duration must be an integer from 0 to 60000, got ""`},
		// No value at all.
		{"/api/heavy?duration", `duration must be an integer from 0 to 60000, got ""`},
		// '+' decodes to a space, which is not part of an integer.
		{"/api/heavy?duration=+5", `duration must be an integer from 0 to 60000, got " 5"`},
		// Bad percent-encoding.
		{"/api/heavy?duration=%zz", `duration must be an integer from 0 to 60000, got "%zz"`},
		// Overflows int64.
		{"/api/heavy?duration=99999999999999999999", `duration must be an integer from 0 to 60000, got "99999999999999999999"`},
		// Given twice.
		{"/api/heavy?duration=1&duration=2", `duration must be an integer from 0 to 60000, got 2 values`},
		// A long value is cut short in the message.
		{"/api/heavy?duration=" + strings.Repeat("9", 100), `duration must be an integer from 0 to 60000, got "` + strings.Repeat("9", 40) + `"...`},
		// The same rules on the other sleeping endpoints.
		{"/api/native?duration=60001", `duration must be an integer from 0 to 60000, got "60001"`},
		{"/api/native?duration=abc", `duration must be an integer from 0 to 60000, got "abc"`},
		{"/api/synchronized?duration=-1", `duration must be an integer from 0 to 60000, got "-1"`},
		{"/api/synchronized?duration=abc", `duration must be an integer from 0 to 60000, got "abc"`},
		{"/api/lock?duration=60001", `duration must be an integer from 0 to 60000, got "60001"`},
		{"/api/heavy?duration=10&times=0", `times must be an integer from 1 to 100, got "0"`},
		{"/api/heavy?log=2", `log must be an integer from 0 to 1, got "2"`},
		// work has its own range.
		{"/api/cpu?work=100001", `work must be an integer from 0 to 100000, got "100001"`},
		{"/api/cpu?work=-1", `work must be an integer from 0 to 100000, got "-1"`},
		{"/api/cpu?work=x", `work must be an integer from 0 to 100000, got "x"`},
		// The fan-out's parameters, with their own ranges.
		{"/api/fanout?calls=0", `calls must be an integer from 1 to 10000, got "0"`},
		{"/api/fanout?calls=10001", `calls must be an integer from 1 to 10000, got "10001"`},
		{"/api/fanout?limit=0", `limit must be an integer from 1 to 10000, got "0"`},
		{"/api/fanout?timeout=0", `timeout must be an integer from 1 to 60000, got "0"`},
		{"/api/fanout?duration=60001", `duration must be an integer from 0 to 60000, got "60001"`},
		{"/api/fanout?mode=threads", `mode must be one of pool, unbounded, semaphore, virtual, goroutines, got "threads"`},
		{"/api/fanout?mode=pool&mode=semaphore", `mode must be one of pool, unbounded, semaphore, virtual, goroutines, got 2 values`},
		{"/api/fanout?mode=%zz", `mode must be one of pool, unbounded, semaphore, virtual, goroutines, got "%zz"`},
		// Words are case-sensitive, as in the contract's table.
		{"/api/fanout?mode=Pool", `mode must be one of pool, unbounded, semaphore, virtual, goroutines, got "Pool"`},
		// The first bad parameter in the table's order is the one reported.
		{"/api/fanout?duration=-1&calls=0", `calls must be an integer from 1 to 10000, got "0"`},
		// The downstream's: limit 0 is allowed (no bulkhead), timeout 0 is not.
		{"/api/downstream?limit=-1", `limit must be an integer from 0 to 10000, got "-1"`},
		{"/api/downstream?limit=10001", `limit must be an integer from 0 to 10000, got "10001"`},
		{"/api/downstream?timeout=0", `timeout must be an integer from 1 to 60000, got "0"`},
		{"/api/downstream?duration=abc", `duration must be an integer from 0 to 60000, got "abc"`},
	} {
		t.Run(tt.path, func(t *testing.T) {
			status, body := get(t, h, tt.path)
			if got, want := status, http.StatusBadRequest; got != want {
				t.Fatalf("status = %d, want %d; body %s", got, want, body)
			}
			var resp struct {
				Status int    `json:"status"`
				Error  string `json:"error"`
			}
			if err := json.Unmarshal(body, &resp); err != nil {
				t.Fatalf("%v; body %s", err, body)
			}
			if got, want := resp.Status, http.StatusBadRequest; got != want {
				t.Errorf("body status = %d, want %d", got, want)
			}
			if got, want := resp.Error, tt.want; got != want {
				t.Errorf("error = %q, want %q", got, want)
			}
		})
	}
}

func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	h := server.NewHandler("go")
	status, body := get(t, h, "/api/nothing")
	if got, want := status, http.StatusNotFound; got != want {
		t.Errorf("unknown path: status = %d, want %d; body %s", got, want, body)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/light", nil))
	if got, want := rec.Code, http.StatusMethodNotAllowed; got != want {
		t.Errorf("POST: status = %d, want %d", got, want)
	}
	if got, want := rec.Header().Get("Content-Type"), "application/json"; got != want {
		t.Errorf("POST: Content-Type = %q, want %q", got, want)
	}
}

// TestDurationsHonoured checks, with generous upper bounds, that each
// sleeping endpoint blocks for the requested time.
func TestDurationsHonoured(t *testing.T) {
	srv := httptest.NewServer(server.NewHandler("go"))
	t.Cleanup(srv.Close) // after the parallel subtests, unlike defer
	const d = 100 * time.Millisecond
	for _, endpoint := range []string{"heavy", "native", "synchronized", "lock"} {
		t.Run(endpoint, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			resp, err := srv.Client().Get(srv.URL + "/api/" + endpoint + "?duration=100")
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			elapsed := time.Since(start)
			if elapsed < d || elapsed > d+time.Second {
				t.Errorf("took %v, want from %v to %v", elapsed, d, d+time.Second)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	h := server.NewHandler("go")
	getWork(t, h, "/api/light")
	get(t, h, "/api/cpu?work=x")

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, server.MetricsPath, nil))
	if got, want := rec.Code, http.StatusOK; got != want {
		t.Fatalf("status = %d, want %d", got, want)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if families[name] == nil {
			t.Errorf("no %s family", name)
		}
	}
	requests := families["http_server_requests_seconds"]
	if requests == nil {
		t.Fatal("no http_server_requests_seconds family")
	}
	for _, want := range []string{`GET /api/light 200`, `GET /api/cpu 400`} {
		if got := histogramCount(requests.GetMetric(), want); got != 1 {
			t.Errorf("requests %q counted %d times, want 1", want, got)
		}
	}
}

// TestInflightGauge checks threadbench_inflight_requests: 0 when idle (the
// scrape leaves itself out), 1 labelled thread="goroutine" while a heavy
// request sleeps, 0 again once it has answered.
func TestInflightGauge(t *testing.T) {
	srv := httptest.NewServer(server.NewHandler("go"))
	defer srv.Close()
	if got := waitForInflight(t, srv.URL, 0); got != 0 {
		t.Fatalf("idle: in flight = %v, want 0", got)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Get(srv.URL + "/api/heavy?duration=1500")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		done <- err
	}()
	if got := waitForInflight(t, srv.URL, 1); got != 1 {
		t.Errorf("heavy request sleeping: in flight = %v, want 1", got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := waitForInflight(t, srv.URL, 0); got != 0 {
		t.Errorf("heavy request answered: in flight = %v, want 0", got)
	}
}

// waitForInflight scrapes baseURL until the in-flight gauge reads want, for
// up to 5 s, and returns the last value read.
func waitForInflight(t *testing.T, baseURL string, want float64) float64 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := inflight(t, baseURL)
		if got == want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// inflight scrapes baseURL and returns the in-flight gauge, failing the
// test unless it is there once, labelled thread="goroutine" and nothing else.
func inflight(t *testing.T, baseURL string) float64 {
	t.Helper()
	resp, err := http.Get(baseURL + server.MetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	metrics := families["threadbench_inflight_requests"].GetMetric()
	if len(metrics) != 1 {
		t.Fatalf("%d threadbench_inflight_requests series, want 1", len(metrics))
	}
	labels := metrics[0].GetLabel()
	if len(labels) != 1 || labels[0].GetName() != "thread" || labels[0].GetValue() != "goroutine" {
		t.Fatalf("threadbench_inflight_requests labels %v, want thread=\"goroutine\"", labels)
	}
	return metrics[0].GetGauge().GetValue()
}

// histogramCount returns the sample count of the series whose method, uri
// and status labels, joined by spaces, are key.
func histogramCount(metrics []*dto.Metric, key string) uint64 {
	for _, m := range metrics {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["method"]+" "+labels["uri"]+" "+labels["status"] == key {
			return m.GetHistogram().GetSampleCount()
		}
	}
	return 0
}

func TestConfigFromEnv(t *testing.T) {
	for _, tt := range []struct {
		env     map[string]string
		want    server.Config
		wantErr bool
	}{
		// Nothing set: the contract's defaults.
		{map[string]string{}, server.Config{BindAddr: "127.0.0.1", Port: 8080, Target: "go"}, false},
		// Everything set.
		{map[string]string{"BIND_ADDR": "::1", "PORT": "18080", "TARGET_NAME": "go-x", "DOWNSTREAM_URL": "http://127.0.0.1:9000"},
			server.Config{BindAddr: "::1", Port: 18080, Target: "go-x", Downstream: "http://127.0.0.1:9000"}, false},
		// A downstream that is no URL to call.
		{map[string]string{"DOWNSTREAM_URL": "127.0.0.1:9000"}, server.Config{}, true},
		{map[string]string{"DOWNSTREAM_URL": "ftp://127.0.0.1"}, server.Config{}, true},
		// A port that is not a number.
		{map[string]string{"PORT": "http"}, server.Config{}, true},
		// A port out of range.
		{map[string]string{"PORT": "65536"}, server.Config{}, true},
		// A database, every setting given.
		{map[string]string{"DB_KIND": "postgres", "DB_HOST": "10.0.0.7", "DB_PORT": "15432", "DB_NAME": "items",
			"DB_USER": "u", "DB_PASSWORD": "p@ss:/word", "DB_POOL": "50"},
			server.Config{BindAddr: "127.0.0.1", Port: 8080, Target: "go", DB: server.DBConfig{Kind: "postgres",
				Host: "10.0.0.7", Port: 15432, Name: "items", User: "u", Password: "p@ss:/word", Pool: 50}}, false},
		// A database, only its kind given: the orchestrator's account on this host, the kind's port, a pool of 10.
		{map[string]string{"DB_KIND": "mysql"},
			server.Config{BindAddr: "127.0.0.1", Port: 8080, Target: "go", DB: server.DBConfig{Kind: "mysql",
				Host: "127.0.0.1", Port: 3306, Name: "threadbench", User: "threadbench", Password: "threadbench", Pool: 10}}, false},
		// Without DB_KIND the other DB_* variables are not read (DB_POOL is checked, below).
		{map[string]string{"DB_HOST": "db", "DB_PORT": "x", "DB_POOL": "5"},
			server.Config{BindAddr: "127.0.0.1", Port: 8080, Target: "go"}, false},
	} {
		got, err := server.ConfigFromEnv(func(k string) string { return tt.env[k] })
		if gotErr := err != nil; gotErr != tt.wantErr {
			t.Errorf("%v: err = %v, want error %v", tt.env, err, tt.wantErr)
		}
		if got != tt.want {
			t.Errorf("%v: config = %+v, want %+v", tt.env, got, tt.want)
		}
	}
}

// TestConfigFromEnvRefusesABadDatabase checks that a DB_KIND or DB_POOL
// that cannot be used stops the target at start, the message naming it.
func TestConfigFromEnvRefusesABadDatabase(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string // the error
	}{
		{map[string]string{"DB_KIND": "oracle"}, `DB_KIND must be postgres or mysql, got "oracle"`},
		// Kinds are case-sensitive.
		{map[string]string{"DB_KIND": "Postgres"}, `DB_KIND must be postgres or mysql, got "Postgres"`},
		{map[string]string{"DB_KIND": "postgres", "DB_POOL": "0"}, `DB_POOL must be an integer from 1 to 1000, got "0"`},
		{map[string]string{"DB_KIND": "mysql", "DB_POOL": "1001"}, `DB_POOL must be an integer from 1 to 1000, got "1001"`},
		{map[string]string{"DB_KIND": "mysql", "DB_POOL": "ten"}, `DB_POOL must be an integer from 1 to 1000, got "ten"`},
		// A bad pool is refused even without a database.
		{map[string]string{"DB_POOL": "-1"}, `DB_POOL must be an integer from 1 to 1000, got "-1"`},
		{map[string]string{"DB_KIND": "postgres", "DB_PORT": "65536"}, `DB_PORT must be an integer from 1 to 65535, got "65536"`},
	} {
		_, err := server.ConfigFromEnv(func(k string) string { return tt.env[k] })
		if err == nil || err.Error() != tt.want {
			t.Errorf("%v: err = %v, want %q", tt.env, err, tt.want)
		}
	}
}

// TestServerStartsWithoutTheDatabase checks that a target whose database
// does not answer yet starts, and that /api/db then answers 503 with the
// driver's own words, for each kind's real driver.
func TestServerStartsWithoutTheDatabase(t *testing.T) {
	port := closedPort(t)
	for _, kind := range []string{"postgres", "mysql"} {
		t.Run(kind, func(t *testing.T) {
			env := map[string]string{"PORT": "0", "DB_KIND": kind, "DB_PORT": strconv.Itoa(port), "DB_POOL": "2"}
			cfg, err := server.ConfigFromEnv(func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			srv := server.New(cfg)
			if err := srv.Open(); err != nil {
				t.Fatal(err)
			}
			defer srv.Close(context.Background())
			resp, err := http.Get("http://" + srv.Addr() + "/api/db")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Status int    `json:"status"`
				Error  string `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(body.Error, "database: ") ||
				!strings.Contains(body.Error, "connection refused") {
				t.Errorf("status %d %q, want 503 and the driver's connection refused", resp.StatusCode, body.Error)
			}
		})
	}
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

func TestServerOpenClose(t *testing.T) {
	srv := server.New(server.Config{BindAddr: "127.0.0.1", Port: 0, Target: "go"})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + srv.Addr() + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Errorf("status = %d, want %d", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case <-srv.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if err := srv.Err(); err != nil {
		t.Errorf("Err = %v, want nil after Close", err)
	}
}

// TestThreadIsTheConnectionsGoroutine checks that, with the per-connection
// cache or without it, the thread field names the goroutine that serves the
// connection: the same for requests on one connection, different for two
// connections open at once.
func TestThreadIsTheConnectionsGoroutine(t *testing.T) {
	for _, tt := range []struct {
		name    string
		connCtx func(context.Context, net.Conn) context.Context
	}{
		{"per request", nil},
		{"per connection", server.ConnContext},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(server.NewHandler("go"))
			srv.Config.ConnContext = tt.connCtx
			srv.Start()
			defer srv.Close()
			first, second := &http.Client{Transport: &http.Transport{}}, &http.Client{Transport: &http.Transport{}}
			a1, a2 := threadOf(t, first, srv.URL), threadOf(t, first, srv.URL)
			b1 := threadOf(t, second, srv.URL)
			if a1 != a2 {
				t.Errorf("one connection: threads %q and %q, want the same", a1, a2)
			}
			if a1 == b1 {
				t.Errorf("two connections: both threads %q, want different", a1)
			}
		})
	}
}

// threadOf requests /api/light with client and returns the thread field.
func threadOf(t *testing.T, client *http.Client, baseURL string) string {
	t.Helper()
	resp, err := client.Get(baseURL + "/api/light")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var work workResponse
	if err := json.NewDecoder(resp.Body).Decode(&work); err != nil {
		t.Fatal(err)
	}
	if !goroutineThread.MatchString(work.Thread) {
		t.Fatalf("thread = %q, want %v", work.Thread, goroutineThread)
	}
	return work.Thread
}

// BenchmarkLight measures the handler's own cost for the lightest request,
// reading the goroutine id on every request.
func BenchmarkLight(b *testing.B) {
	h := server.NewHandler("go")
	req := httptest.NewRequest(http.MethodGet, "/api/light", nil)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// BenchmarkLightConnCache is BenchmarkLight with the goroutine id cached
// per connection, as Server does.
func BenchmarkLightConnCache(b *testing.B) {
	h := server.NewHandler("go")
	req := httptest.NewRequest(http.MethodGet, "/api/light", nil)
	req = req.WithContext(server.ConnContext(req.Context(), nil))
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// BenchmarkHeavyZero measures a sleeping endpoint's cost without the sleep:
// parameter parsing and the response.
func BenchmarkHeavyZero(b *testing.B) {
	h := server.NewHandler("go")
	req := httptest.NewRequest(http.MethodGet, "/api/heavy?duration=0", nil)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// WORKERS bounds the work endpoints like Tomcat's pool: with two workers,
// four 200 ms requests at once take two rounds.
func TestWorkersBoundTheHandlers(t *testing.T) {
	srv := httptest.NewServer(server.NewHandler("go", server.WithWorkers(2)))
	defer srv.Close()
	begin := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			resp, err := http.Get(srv.URL + "/api/heavy?duration=200")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	if took := time.Since(begin); took < 400*time.Millisecond || took > 700*time.Millisecond {
		t.Errorf("4 requests on 2 workers took %s, want two rounds of 200 ms", took)
	}
	// health and metrics never wait for a worker
	resp, err := http.Get(srv.URL + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestProfiles checks net/http/pprof's CPU profile: served while the one
// worker is busy (profiles are not work), not counted in flight, and a
// gzipped profile of about the seconds asked for.
func TestProfiles(t *testing.T) {
	srv := httptest.NewServer(server.NewHandler("go", server.WithWorkers(1)))
	defer srv.Close()
	busy := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Get(srv.URL + "/api/heavy?duration=1500")
		if err == nil {
			resp.Body.Close()
		}
		busy <- err
	}()
	if got := waitForInflight(t, srv.URL, 1); got != 1 {
		t.Fatalf("heavy request sleeping: in flight = %v, want 1", got)
	}
	profiled := make(chan float64, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		profiled <- inflight(t, srv.URL)
	}()
	start := time.Now()
	resp, err := srv.Client().Get(srv.URL + server.ProfilePath + "profile?seconds=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(body) < 2 || body[0] != 0x1f || body[1] != 0x8b {
		t.Fatalf("GET %sprofile: status %d, %d bytes (want 200 and a gzipped profile)", server.ProfilePath, resp.StatusCode, len(body))
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("a 1 s profile answered after %v", took)
	}
	if got := <-profiled; got != 1 {
		t.Errorf("while profiling: in flight = %v, want 1 (the heavy request alone)", got)
	}
	if err := <-busy; err != nil {
		t.Fatal(err)
	}
}
