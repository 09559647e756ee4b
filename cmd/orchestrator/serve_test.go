package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
)

// standInServe is `orchestrator serve` running in the test's process with
// runs executed by the stand-in (internal/httpapi/standin): the real API,
// queue, runner and SQLite store, and no Docker.
type standInServe struct {
	base   string // http://127.0.0.1:PORT
	stderr *lockedBuffer
	cancel context.CancelFunc
	exit   chan int
}

// lockedBuffer is stderr written by the daemon while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startStandInServe runs serve with args and env, each stage of a run
// taking stagePause, and returns once it listens.
func startStandInServe(t *testing.T, stagePause time.Duration, env map[string]string, args ...string) *standInServe {
	t.Helper()
	saved := openRunDeps
	openRunDeps = func(g *globalState, cfg config, db *store.DB, _ bool) (*runDeps, error) {
		return newStandInDeps(g, cfg, db, stagePause), nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &standInServe{stderr: &lockedBuffer{}, cancel: cancel, exit: make(chan int, 1)}
	g := newGlobalState(ctx, strings.NewReader(""), io.Discard, d.stderr, func(k string) string { return env[k] })
	db := filepath.Join(t.TempDir(), "history.db")
	if !slices.Contains(args, "--addr") {
		// A port of its own: the default 8080 may be taken, by anything on
		// the machine or by the serve of the test before, not yet closed
		// (a clean clone: "bind: address already in use").
		args = append([]string{"--addr", "127.0.0.1:0"}, args...)
	}
	go func() { d.exit <- execute(g, append([]string{"serve", "--db", db}, args...)) }()
	t.Cleanup(func() {
		cancel()
		<-d.exit
		openRunDeps = saved
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, rest, ok := strings.Cut(d.stderr.String(), "listening on http://"); ok {
			addr, _, _ := strings.Cut(rest, " ")
			_, port, _ := net.SplitHostPort(addr)
			d.base = "http://127.0.0.1:" + port
			return d
		}
		select {
		case code := <-d.exit:
			d.exit <- code // the cleanup waits for it too: taken and not put back, it waited forever (clean-clone run 55)
			t.Fatalf("serve exited with %d before listening:\n%s", code, d.stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("serve not listening after 10s:\n%s", d.stderr)
	return nil
}

// request sends a request to the daemon; header values of "" are left out.
func (d *standInServe) request(t *testing.T, method, path, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, d.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == "" {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// run reads a run from the daemon.
func (d *standInServe) run(t *testing.T, id string) bench.Run {
	t.Helper()
	resp, body := d.request(t, "GET", "/runs/"+id, "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /runs/%s = %d: %s", id, resp.StatusCode, body)
	}
	var run bench.Run
	if err := json.Unmarshal(body, &run); err != nil {
		t.Fatal(err)
	}
	return run
}

// submit queues a run of the smoke profile against go and returns its ID.
func (d *standInServe) submit(t *testing.T, header map[string]string) string {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	spec := `{"targets":["go"],"profile":"smoke","workload":{"requests":[{"endpoint":"light"}]},"warmup":{"disabled":true}}`
	resp, body := d.request(t, "POST", "/runs", spec, h)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /runs = %d: %s", resp.StatusCode, body)
	}
	var run bench.Run
	if err := json.Unmarshal(body, &run); err != nil {
		t.Fatal(err)
	}
	return run.ID
}

// waitStatus waits until the run has the status.
func (d *standInServe) waitStatus(t *testing.T, id string, want bench.RunStatus) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if d.run(t, id).Status == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("run %s is %s after 10s, want %s", id, d.run(t, id).Status, want)
}

// TestServeBeyondLoopbackNeedsToken: a daemon that would listen on
// anything but loopback refuses to start without a token, before it opens
// anything, with exit code 2 and a message that says what to do.
func TestServeBeyondLoopbackNeedsToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0"} {
		t.Run(addr, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "history", "history.db")
			code, stdout, stderr := run(t, nil, "serve", "--addr", addr, "--db", db)
			wantBadInput(t, code, stdout, stderr, "error: token: --addr "+addr+" listens beyond this machine")
			for _, want := range []string{envToken, "--token", "127.0.0.1"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("message does not mention %s:\n%s", want, stderr)
				}
			}
			if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
				t.Errorf("the history was opened before the address was checked")
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.1.2.3:0": true, "localhost:0": true, "LOCALHOST:1": true, "[::1]:0": true,
		"0.0.0.0:0": false, ":8080": false, "[::]:0": false, "192.168.1.5:80": false, "bench.lan:80": false, "nonsense": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestServeWithToken: with a token the daemon listens beyond loopback, and
// every request needs the token; the CLI sends the one it is configured with.
func TestServeWithToken(t *testing.T) {
	const token = "serve-test-token-0123456789"
	d := startStandInServe(t, time.Millisecond, map[string]string{envToken: token}, "--addr", "0.0.0.0:0")
	for _, tt := range []struct {
		name, authorization string
		status              int
	}{
		{"None", "", http.StatusUnauthorized},
		{"Wrong", "Bearer serve-test-token-0123456780", http.StatusUnauthorized},
		{"Right", "Bearer " + token, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{"/healthz", "/runs"} {
				resp, body := d.request(t, "GET", path, "", map[string]string{"Authorization": tt.authorization})
				if resp.StatusCode != tt.status {
					t.Errorf("GET %s = %d, want %d: %s", path, resp.StatusCode, tt.status, body)
				}
				if tt.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("GET %s: WWW-Authenticate = %q", path, resp.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}
	t.Run("CLI", func(t *testing.T) {
		code, _, stderr := run(t, map[string]string{envServer: d.base, envToken: token}, "runs", "list")
		mustOK(t, code, stderr)
		code, _, stderr = run(t, map[string]string{envServer: d.base}, "runs", "list")
		if code != exitBadInput || !strings.Contains(stderr, envToken) {
			t.Errorf("runs list without the token: exit %d, stderr %q; want %d naming %s", code, stderr, exitBadInput, envToken)
		}
	})
}

// TestServeLocalDaemon drives a loopback daemon as other web sites would
// and checks that they change nothing, then as its user does.
func TestServeLocalDaemon(t *testing.T) {
	d := startStandInServe(t, 5*time.Second, nil, "--addr", "127.0.0.1:0", "--allowed-host", "bench.lan")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(d.base, "http://"))

	t.Run("Hosts", func(t *testing.T) {
		for host, want := range map[string]int{
			"evil.example": 403, "evil.example:" + port: 403,
			"127.0.0.1:" + port: 200, "localhost:" + port: 200, "[::1]:" + port: 200, "bench.lan:9999": 200,
			"localhost:1": 403, // another port of this host is another daemon
		} {
			if resp, body := d.request(t, "GET", "/healthz", "", map[string]string{"Host": host}); resp.StatusCode != want {
				t.Errorf("Host %s: %d, want %d: %s", host, resp.StatusCode, want, body)
			}
		}
	})

	id := d.submit(t, nil)
	d.waitStatus(t, id, bench.RunRunning)
	t.Run("CrossSiteCancelIsRefused", func(t *testing.T) {
		for _, h := range []map[string]string{
			{"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
			{"Origin": "http://evil.example", "Content-Type": "text/plain"},
			{"Content-Type": "multipart/form-data; boundary=x"},
			{"Host": "evil.example:" + port, "Content-Type": "application/x-www-form-urlencoded"},
		} {
			resp, body := d.request(t, "POST", "/runs/"+id+"/cancel", "x=1", h)
			if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnsupportedMediaType {
				t.Errorf("cancel with %v: %d, want 403 or 415: %s", h, resp.StatusCode, body)
			}
		}
		if got := d.run(t, id).Status; got != bench.RunRunning {
			t.Errorf("after cross-site cancels the run is %s, want still running", got)
		}
		resp, body := d.request(t, "POST", "/runs", `{"targets":["go"],"profile":"smoke"}`,
			map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("cross-site submit: %d, want 403: %s", resp.StatusCode, body)
		}
		if list := d.listRuns(t); len(list) != 1 {
			t.Errorf("%d runs in the history after a cross-site submit, want 1", len(list))
		}
	})
	t.Run("Conformance", func(t *testing.T) {
		resp, body := d.request(t, "HEAD", "/runs/"+id, "", nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || len(body) != 0 {
			t.Errorf("HEAD /runs/{id} = %d %q with %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
		resp, body = d.request(t, "DELETE", "/runs", "", nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD, POST" {
			t.Errorf("DELETE /runs = %d, Allow %q: %s", resp.StatusCode, resp.Header.Get("Allow"), body)
		}
		long := strings.Repeat("z", 64<<10)
		resp, body = d.request(t, "GET", "/runs/"+long, "", nil)
		if resp.StatusCode != http.StatusNotFound || len(body) > 1024 {
			t.Errorf("GET /runs/<64 KiB> = %d with %d bytes", resp.StatusCode, len(body))
		}
	})
	t.Run("OwnCancel", func(t *testing.T) {
		resp, body := d.request(t, "POST", "/runs/"+id+"/cancel", "", nil)
		var run bench.Run
		_ = json.Unmarshal(body, &run)
		if resp.StatusCode != http.StatusOK || run.Status != bench.RunCanceled {
			t.Errorf("cancel = %d, run %s; want 200 canceled: %s", resp.StatusCode, run.Status, body)
		}
	})
}

func (d *standInServe) listRuns(t *testing.T) []bench.Run {
	t.Helper()
	resp, body := d.request(t, "GET", "/runs?"+url.Values{"limit": {"100"}}.Encode(), "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /runs = %d: %s", resp.StatusCode, body)
	}
	var page struct{ Runs []bench.Run }
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	return page.Runs
}

// TestQueueFull fills a daemon's queue (guardrails.maxQueue 1: one run
// running, one waiting) and checks the third submission's answer: a 503
// problem with a Retry-After of what the running run has left by its plan
// (1 s here, so the 5 s floor), and that run --server asks again after that
// wait, says so, and then gives up with exit status 4 and a clear message.
// The stand-in holds a stage for a minute, so the queue stays full.
func TestQueueFull(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte("guardrails: {maxQueue: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startStandInServe(t, time.Minute, nil, "--addr", "127.0.0.1:0", "--config", cfgPath)
	const spec = `{"targets":["go"],"profile":{"stages":[{"duration":"1s","rate":5}]},"warmup":{"disabled":true},"workload":{"requests":[{"endpoint":"light"}]}}`
	post := func() (*http.Response, []byte) {
		return d.request(t, "POST", "/runs", spec, map[string]string{"Content-Type": "application/json"})
	}
	submit := func() string {
		resp, body := post()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /runs = %d: %s", resp.StatusCode, body)
		}
		var run bench.Run
		if err := json.Unmarshal(body, &run); err != nil {
			t.Fatal(err)
		}
		return run.ID
	}
	d.waitStatus(t, submit(), bench.RunRunning)
	submit() // waits: the queue is full

	resp, body := post()
	if got, want := resp.StatusCode, http.StatusServiceUnavailable; got != want {
		t.Fatalf("third POST /runs = %d, want %d: %s", got, want, body)
	}
	if got, want := resp.Header.Get("Content-Type"), "application/problem+json"; got != want {
		t.Errorf("Content-Type = %q, want %q", got, want)
	}
	if got, want := resp.Header.Get("Retry-After"), "5"; got != want {
		t.Errorf("Retry-After = %q, want %q", got, want)
	}
	var p struct {
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(body, &p); err != nil || p.Status != 503 || !strings.Contains(p.Detail, "queue is full (1 runs waiting)") {
		t.Errorf("problem = %s (%v), want status 503 and the queue's reason", body, err)
	}

	start := time.Now()
	code, _, stderr := run(t, nil, "run", "--server", d.base, "--targets", "go", "--profile", "smoke", "--submit-attempts", "2", "-q")
	waited := time.Since(start)
	if code != exitBusy {
		t.Errorf("exit status %d, want %d (busy):\n%s", code, exitBusy, stderr)
	}
	for _, want := range []string{
		"asking again in 5s (attempt 2 of 2)",
		"error: nothing was submitted: the run queue is full (1 runs waiting)",
		"asked 2 times over 5s",
		"try again later",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if waited < 5*time.Second {
		t.Errorf("the CLI gave up after %s, before the 5 s the daemon asked for", waited)
	}
	if n := len(d.listRuns(t)); n != 2 {
		t.Errorf("%d runs in the history, want the 2 accepted", n)
	}
}

// TestServeRefusesUnbuildableTargets: on a host without the go command the
// daemon says at start that the Go target cannot be built, lists it as
// unavailable, leaves it out of the targets its document allows, and
// refuses a run naming it with a 400 naming the field, instead of
// accepting a run that could only fail at build time.
func TestServeRefusesUnbuildableTargets(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no go here
	d := startStandInServe(t, time.Millisecond, nil, "--addr", "127.0.0.1:0")
	if log := d.stderr.String(); !strings.Contains(log, "target cannot be built here") || !strings.Contains(log, `"target":"go"`) {
		t.Errorf("the daemon did not say at start that go cannot be built:\n%s", log)
	}
	resp, body := d.request(t, "POST", "/runs", `{"targets":["java-virtual","go"],"profile":"smoke"}`, map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"field":"targets[1]"`) ||
		!strings.Contains(string(body), "target go cannot be built here: the go command is not on PATH") {
		t.Errorf("POST /runs naming go = %d %s, want 400 naming targets[1] and why", resp.StatusCode, body)
	}
	_, body = d.request(t, "GET", "/targets", "", nil)
	if !strings.Contains(string(body), `"unavailable":"the go command is not on PATH`) {
		t.Errorf("GET /targets does not say go is unavailable: %s", body)
	}
	_, body = d.request(t, "GET", "/openapi.yaml", "", nil)
	if !strings.Contains(string(body), `enum: [java-platform, "java-platform@25,boot=4.1"`) {
		t.Errorf("the served document still allows go:\n%s", body)
	}
}
