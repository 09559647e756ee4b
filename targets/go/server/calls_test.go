package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/threadbench/threadbench/targets/go/server"
)

// fanoutResponse is the body of GET /api/fanout.
type fanoutResponse struct {
	Target         string           `json:"target"`
	Endpoint       string           `json:"endpoint"`
	Mode           string           `json:"mode"`
	Limit          int              `json:"limit"`
	Calls          int              `json:"calls"`
	Succeeded      int              `json:"succeeded"`
	Failed         int              `json:"failed"`
	Failures       map[string]int   `json:"failures"`
	ElapsedMs      int              `json:"elapsedMs"`
	PeakConcurrent int              `json:"peakConcurrent"`
	Thread         string           `json:"thread"`
	Virtual        *json.RawMessage `json:"virtual"` // Java only
}

// callee is a downstream for tests: the Go target itself, counting the
// heavy calls it has in flight.
type callee struct {
	URL      string
	inflight atomic.Int64
	peak     atomic.Int64
}

func newCallee(t *testing.T) *callee {
	t.Helper()
	c := &callee{}
	target := server.NewHandler("callee")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := c.inflight.Add(1)
		defer c.inflight.Add(-1)
		for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
		}
		target.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

// newCaller serves the Go target with downstream as its DOWNSTREAM_URL.
func newCaller(t *testing.T, downstream string) *httptest.Server {
	t.Helper()
	h := server.NewHandler("go", server.WithDownstream(downstream))
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	return srv
}

// getURL requests url and returns the status and body, failing the test
// unless the response is JSON.
func getURL(t *testing.T, url string) (int, []byte) {
	t.Helper()
	status, body, err := fetch(url)
	if err != nil {
		t.Fatal(err)
	}
	return status, body
}

// fetch requests url and returns the status and body; it is safe to call
// from any goroutine.
func fetch(url string) (int, []byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if got, want := resp.Header.Get("Content-Type"), "application/json"; got != want {
		return 0, nil, fmt.Errorf("GET %s: Content-Type = %q, want %q", url, got, want)
	}
	return resp.StatusCode, body, nil
}

// getFanout requests /api/fanout?query and decodes its 200 response.
func getFanout(t *testing.T, baseURL, query string) fanoutResponse {
	t.Helper()
	status, body := getURL(t, baseURL+"/api/fanout?"+query)
	if status != http.StatusOK {
		t.Fatalf("fanout?%s: status %d; body %s", query, status, body)
	}
	var resp fanoutResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("fanout?%s: %v; body %s", query, err, body)
	}
	return resp
}

func TestFanoutModes(t *testing.T) {
	caller := newCaller(t, newCallee(t).URL)
	const calls, limit, durationMs = 20, 5, 100
	for _, tt := range []struct {
		mode    string
		want    string // the canonical mode reported
		bounded bool
	}{
		{"pool", "pool", true},
		{"semaphore", "semaphore", true},
		{"unbounded", "unbounded", false},
		// Each runtime's word for unbounded.
		{"virtual", "unbounded", false},
		{"goroutines", "unbounded", false},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			resp := getFanout(t, caller.URL, "calls=20&limit=5&duration=100&mode="+tt.mode)
			if resp.Target != "go" || resp.Endpoint != "fanout" || resp.Mode != tt.want || resp.Calls != calls {
				t.Errorf("target, endpoint, mode, calls = %q, %q, %q, %d, want go, fanout, %s, %d",
					resp.Target, resp.Endpoint, resp.Mode, resp.Calls, tt.want, calls)
			}
			if resp.Succeeded != calls || resp.Failed != 0 || resp.Failures["other"] != 0 {
				t.Errorf("succeeded %d, failed %d (%v), want all %d to succeed", resp.Succeeded, resp.Failed, resp.Failures, calls)
			}
			if !goroutineThread.MatchString(resp.Thread) || resp.Virtual != nil {
				t.Errorf("thread %q, virtual %s: want a goroutine and no virtual field", resp.Thread, *resp.Virtual)
			}
			checkSpread(t, resp, tt.bounded, calls, limit, durationMs)
		})
	}
}

// checkSpread checks what a mode's concurrency implies: bounded modes keep
// at most limit calls in flight, so the calls take limit-sized waves;
// unbounded ones send them all at once.
func checkSpread(t *testing.T, resp fanoutResponse, bounded bool, calls, limit, durationMs int) {
	t.Helper()
	if !bounded {
		if resp.Limit != 0 || resp.PeakConcurrent <= limit || resp.ElapsedMs < durationMs {
			t.Errorf("limit %d, peak %d, elapsed %d ms: want 0, above %d, at least %d ms",
				resp.Limit, resp.PeakConcurrent, resp.ElapsedMs, limit, durationMs)
		}
		return
	}
	waves := calls / limit
	if resp.Limit != limit || resp.PeakConcurrent <= 1 || resp.PeakConcurrent > limit || resp.ElapsedMs < waves*durationMs {
		t.Errorf("limit %d, peak %d, elapsed %d ms: want %d, from 2 to %d, at least %d ms",
			resp.Limit, resp.PeakConcurrent, resp.ElapsedMs, limit, limit, waves*durationMs)
	}
}

func TestFanoutDefaults(t *testing.T) {
	caller := newCaller(t, newCallee(t).URL)
	pool := getFanout(t, caller.URL, "mode=pool&duration=0")
	if pool.Calls != 100 || pool.Limit != 100 || pool.Succeeded != 100 {
		t.Errorf("pool: calls %d, limit %d, succeeded %d, want 100 each", pool.Calls, pool.Limit, pool.Succeeded)
	}
	if got := getFanout(t, caller.URL, "calls=1&duration=0").Mode; got != "unbounded" {
		t.Errorf("mode = %q by default, want unbounded", got)
	}
}

// TestDownstreamFailures checks how each endpoint reports each kind of
// failed call: /api/fanout counts it, /api/downstream answers with it.
func TestDownstreamFailures(t *testing.T) {
	for _, tt := range []struct {
		name       string
		downstream func(t *testing.T) string
		query      string
		failure    string // the field of failures that counts it
		status     int
		message    string // the start of the error
	}{
		// The callee answers after the caller stopped waiting.
		{"read timeout", func(t *testing.T) string { return newCallee(t).URL }, "duration=300&timeout=50",
			"readTimeout", http.StatusGatewayTimeout, "downstream read timed out after 50 ms"},
		// Nothing answers the connect.
		{"connect timeout", unansweredURL, "duration=0",
			"connectTimeout", http.StatusGatewayTimeout, "downstream connect timed out after 500 ms"},
		// Nothing listens.
		{"refused", closedPortURL, "duration=0",
			"refused", http.StatusBadGateway, "downstream refused the connection"},
		// An answer, but not a 2xx.
		{"status 500", func(t *testing.T) string { return serve(t, http.StatusInternalServerError) }, "duration=0",
			"other", http.StatusBadGateway, "downstream call failed: status 500"},
		// The connection closed without an answer.
		{"hang-up", hangUpURL, "duration=0",
			"other", http.StatusBadGateway, "downstream call failed: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			caller := newCaller(t, tt.downstream(t))
			fanout := getFanout(t, caller.URL, "calls=3&"+tt.query)
			if fanout.Failures[tt.failure] != 3 || fanout.Failed != 3 || fanout.Succeeded != 0 {
				t.Errorf("fanout: succeeded %d, failed %d, failures %v, want %s 3", fanout.Succeeded, fanout.Failed, fanout.Failures, tt.failure)
			}
			status, body := getURL(t, caller.URL+"/api/downstream?"+tt.query)
			var e struct {
				Status int    `json:"status"`
				Error  string `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil || status != tt.status || e.Status != tt.status || !strings.HasPrefix(e.Error, tt.message) {
				t.Errorf("downstream: status %d, body %s, want %d with an error starting %q", status, body, tt.status, tt.message)
			}
		})
	}
}

// closedPortURL returns the URL of a port nothing listens on.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// serve returns the URL of a server that answers everything with status.
func serve(t *testing.T, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

// hangUpURL returns the URL of a server that closes every connection
// without answering.
func hangUpURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestDownstreamAnswers(t *testing.T) {
	caller := newCaller(t, newCallee(t).URL+"/") // a trailing slash is fine
	for _, tt := range []struct {
		query      string
		durationMs int
	}{
		{"duration=20", 20},
		{"duration=20&limit=3&timeout=2000", 20},
		// duration defaults to 100.
		{"", 100},
	} {
		resp := getWork(t, caller.Config.Handler, "/api/downstream?"+tt.query)
		if resp.Endpoint != "downstream" || resp.DurationMs == nil || *resp.DurationMs != tt.durationMs {
			t.Errorf("downstream?%s: endpoint %q, durationMs %v, want downstream, %d", tt.query, resp.Endpoint, resp.DurationMs, tt.durationMs)
		}
	}
}

// TestDownstreamBulkhead checks that limit bounds the downstream calls in
// flight across requests, and that without one nothing does.
func TestDownstreamBulkhead(t *testing.T) {
	const requests = 6
	for _, tt := range []struct {
		limit   string
		minPeak int64
		maxPeak int64
	}{
		{"2", 1, 2},
		{"0", 3, requests},
	} {
		t.Run("limit="+tt.limit, func(t *testing.T) {
			callee := newCallee(t)
			caller := newCaller(t, callee.URL)
			var wg sync.WaitGroup
			for range requests {
				wg.Go(func() {
					status, body, err := fetch(caller.URL + "/api/downstream?duration=200&limit=" + tt.limit)
					if err != nil || status != http.StatusOK {
						t.Errorf("status %d, body %s, err %v; want 200", status, body, err)
					}
				})
			}
			wg.Wait()
			if peak := callee.peak.Load(); peak < tt.minPeak || peak > tt.maxPeak {
				t.Errorf("downstream calls in flight peaked at %d, want %d to %d", peak, tt.minPeak, tt.maxPeak)
			}
		})
	}
}

func TestNoDownstream(t *testing.T) {
	h := server.NewHandler("go")
	for _, path := range []string{"/api/fanout", "/api/downstream?duration=5"} {
		status, body := get(t, h, path)
		if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "no downstream is configured") {
			t.Errorf("GET %s: status %d, body %s, want 503 saying no downstream is configured", path, status, body)
		}
	}
	// A bad parameter is still the request's fault.
	if status, _ := get(t, h, "/api/fanout?calls=0"); status != http.StatusBadRequest {
		t.Errorf("fanout?calls=0 without a downstream: status %d, want 400", status)
	}
}
