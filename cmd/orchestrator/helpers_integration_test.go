//go:build integration

package main

// Shared by the daemon's integration tests: a daemon booted in-process or as
// a process of its own, its REST API spoken with plain net/http (as curl
// would), its Server-Sent Events, and the engine's containers of one run.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/targets"
)

// daemonListening starts the line serve prints once it listens.
const daemonListening = "threadbench daemon listening on "

// Bounds of the waits below; a run of shortSpec takes about 7 s with the
// Go image cached.
const (
	listenTimeout   = 60 * time.Second
	shortRunTimeout = 90 * time.Second
)

// daemonLog collects a daemon's stderr, safe for concurrent writes, and
// hands over the daemon's URL once the listening line is complete.
type daemonLog struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	url  chan string
	seen bool
}

func newDaemonLog() *daemonLog { return &daemonLog{url: make(chan string, 1)} }

func (l *daemonLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if !l.seen {
		if u := listeningURL(l.buf.String()); u != "" {
			l.seen = true
			l.url <- u
		}
	}
	return len(p), nil
}

// String is the daemon's log without the answered GETs a test polls with
// (counted instead): a failed test's log then shows what the daemon did.
func (l *daemonLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	polls := 0
	for _, line := range strings.SplitAfter(l.buf.String(), "\n") {
		if strings.Contains(line, `"msg":"http request"`) && strings.Contains(line, `"method":"GET"`) && strings.Contains(line, `"status":200`) {
			polls++
			continue
		}
		b.WriteString(line)
	}
	if polls > 0 {
		fmt.Fprintf(&b, "(and %d answered GETs, left out)\n", polls)
	}
	return b.String()
}

// listeningURL returns the URL of "threadbench daemon listening on
// http://ADDR (history DB)", or "" until that line is complete.
func listeningURL(text string) string {
	_, rest, ok := strings.Cut(text, daemonListening)
	if !ok {
		return ""
	}
	u, _, ok := strings.Cut(rest, " (history ")
	if !ok {
		return ""
	}
	return u
}

// inProcessDaemon is `orchestrator serve` running in the test's process.
type inProcessDaemon struct {
	url    string
	log    *daemonLog
	cancel context.CancelFunc
	exit   chan int

	stopOnce sync.Once
	code     int
	took     time.Duration
}

// startInProcessDaemon serves on a free loopback port with the history in
// db, and stops the daemon when the test ends unless the test did.
func startInProcessDaemon(t *testing.T, db string, extra ...string) *inProcessDaemon {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d := &inProcessDaemon{log: newDaemonLog(), cancel: cancel, exit: make(chan int, 1)}
	g := newGlobalState(ctx, strings.NewReader(""), io.Discard, d.log, testEnv(t, nil))
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, extra...)
	go func() { d.exit <- execute(g, args) }()
	t.Cleanup(func() { d.stop() })
	select {
	case d.url = <-d.log.url:
		t.Logf("daemon on %s, history %s", d.url, db)
		return d
	case code := <-d.exit:
		d.exit <- code
		t.Fatalf("daemon exited with code %d before listening:\n%s", code, d.log)
	case <-time.After(listenTimeout):
		t.Fatalf("daemon not listening after %s:\n%s", listenTimeout, d.log)
	}
	return nil
}

// stop cancels the daemon's context, as SIGINT does to the real command,
// and returns its exit code and how long it took to return.
func (d *inProcessDaemon) stop() (code int, took time.Duration) {
	d.stopOnce.Do(func() {
		begin := time.Now()
		d.cancel()
		d.code = <-d.exit
		d.took = time.Since(begin)
	})
	return d.code, d.took
}

// processDaemon is `orchestrator serve` running as a process of its own.
type processDaemon struct {
	url     string
	cmd     *exec.Cmd
	log     *daemonLog
	exited  chan struct{}
	waitErr error
}

// startProcessDaemon starts bin serve on a free loopback port with the
// history in db; the process is killed when the test ends if still alive.
func startProcessDaemon(t *testing.T, bin, db string) *processDaemon {
	t.Helper()
	d := &processDaemon{log: newDaemonLog(), exited: make(chan struct{})}
	d.cmd = exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db)
	d.cmd.Env = processEnv(t)
	d.cmd.Stderr = d.log
	d.cmd.WaitDelay = 5 * time.Second // a child holding stderr must not hang Wait
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start daemon: %v", err)
	}
	go func() {
		d.waitErr = d.cmd.Wait()
		close(d.exited)
	}()
	t.Cleanup(func() {
		_ = d.cmd.Process.Kill()
		<-d.exited
	})
	select {
	case d.url = <-d.log.url:
		t.Logf("daemon pid %d on %s, history %s", d.cmd.Process.Pid, d.url, db)
		return d
	case <-d.exited:
		t.Fatalf("daemon exited (%v) before listening:\n%s", d.waitErr, d.log)
	case <-time.After(listenTimeout):
		t.Fatalf("daemon not listening after %s:\n%s", listenTimeout, d.log)
	}
	return nil
}

// signal sends sig to the daemon and waits up to timeout for it to exit,
// returning its exit code (-1 when a signal ended it) and how long it took.
func (d *processDaemon) signal(t *testing.T, sig syscall.Signal, timeout time.Duration) (code int, took time.Duration) {
	t.Helper()
	begin := time.Now()
	if err := d.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", sig, err)
	}
	select {
	case <-d.exited:
		return d.cmd.ProcessState.ExitCode(), time.Since(begin)
	case <-time.After(timeout):
		t.Fatalf("daemon still running %s after %s:\n%s", timeout, sig, d.log)
	}
	return 0, 0
}

// apiClient speaks the daemon's REST API with nothing but net/http and JSON.
type apiClient struct {
	t    *testing.T
	base string
}

// do sends a request with an optional JSON body and returns the response
// with its body read.
func (a apiClient) do(method, path string, body any) (*http.Response, []byte) {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp, b
}

// getJSON GETs path, requires 200 and decodes the body into out.
func (a apiClient) getJSON(path string, out any) {
	a.t.Helper()
	resp, body := a.do(http.MethodGet, path, nil)
	if resp.StatusCode != http.StatusOK {
		a.t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		a.t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

// submit POSTs a spec to /runs, requires 202 with the run's Location and a
// queued run document, and returns the run.
func (a apiClient) submit(spec any) *bench.Run {
	a.t.Helper()
	resp, body := a.do(http.MethodPost, "/runs", spec)
	if resp.StatusCode != http.StatusAccepted {
		a.t.Fatalf("POST /runs: %s, want 202\n%s", resp.Status, body)
	}
	var run bench.Run
	if err := json.Unmarshal(body, &run); err != nil {
		a.t.Fatalf("POST /runs: %v\n%s", err, body)
	}
	if run.ID == "" || run.Status != bench.RunQueued {
		a.t.Fatalf("POST /runs answered run %q with status %q, want an ID and queued", run.ID, run.Status)
	}
	if got, want := resp.Header.Get("Location"), "/runs/"+run.ID; got != want {
		a.t.Errorf("Location = %q, want %q", got, want)
	}
	return &run
}

func (a apiClient) run(id string) *bench.Run {
	a.t.Helper()
	var run bench.Run
	a.getJSON("/runs/"+id, &run)
	return &run
}

// waitRun polls GET /runs/{id} until ok holds, or fails the test after timeout.
func (a apiClient) waitRun(id string, timeout time.Duration, what string, ok func(*bench.Run) bool) *bench.Run {
	a.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		run := a.run(id)
		if ok(run) {
			return run
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("run %s not %s after %s: status %s, error %q", id, what, timeout, run.Status, run.Error)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitSucceeded waits for the run to finish and requires it to have succeeded.
func (a apiClient) waitSucceeded(id string) *bench.Run {
	a.t.Helper()
	run := a.waitRun(id, shortRunTimeout, "finished", func(r *bench.Run) bool { return r.Status.Finished() })
	if run.Status != bench.RunSucceeded {
		a.t.Fatalf("run %s %s: %s", id, run.Status, run.Error)
	}
	return run
}

// sseEvent is one Server-Sent Event as it came over the wire.
type sseEvent struct {
	ID    string
	Event string
	Data  json.RawMessage
}

// followEvents reads GET /runs/{id}/events and calls each for every event
// until the daemon ends the stream, each returns false, or ctx is done.
func (a apiClient) followEvents(ctx context.Context, id string, each func(sseEvent) bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/runs/"+id+"/events", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("GET /runs/%s/events: %s %s\n%s", id, resp.Status, resp.Header.Get("Content-Type"), b)
	}
	return readSSE(resp.Body, each)
}

// readSSE parses an event stream: "field: value" lines, a blank line ends
// an event, lines starting with a colon are comments.
func readSSE(r io.Reader, each func(sseEvent) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var ev sseEvent
	for sc.Scan() {
		field, value, _ := strings.Cut(sc.Text(), ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			if sc.Text() == "" && ev.Event != "" {
				if !each(ev) {
					return nil
				}
				ev = sseEvent{}
			}
		case "id":
			ev.ID = value
		case "event":
			ev.Event = value
		case "data":
			if len(ev.Data) > 0 {
				ev.Data = append(ev.Data, '\n')
			}
			ev.Data = append(ev.Data, value...)
		}
	}
	return sc.Err()
}

// progress decodes a progress event's data.
func (e sseEvent) progress(t *testing.T) bench.Event {
	t.Helper()
	var ev bench.Event
	if err := json.Unmarshal(e.Data, &ev); err != nil {
		t.Fatalf("%s event: %v\n%s", e.Event, err, e.Data)
	}
	return ev
}

// document decodes a state or end event's run document.
func (e sseEvent) document(t *testing.T) *bench.Run {
	t.Helper()
	var run bench.Run
	if err := json.Unmarshal(e.Data, &run); err != nil {
		t.Fatalf("%s event: %v\n%s", e.Event, err, e.Data)
	}
	return &run
}

// runContainers returns the containers, running or not, that the daemon
// started for one run, as "ID (state)". Other runs' containers (other tests
// on the same engine) are not ours to look at.
func runContainers(t *testing.T, runID string) []string {
	t.Helper()
	return labelledContainers(t, func(c container.Summary) string { return fmt.Sprintf("%.12s (%s)", c.ID, c.State) },
		targets.LabelManaged+"=true", targets.LabelRun+"="+runID)
}

// labelledContainers describes each container, running or not, that carries
// every one of labels ("key=value").
func labelledContainers(t *testing.T, describe func(container.Summary) string, labels ...string) []string {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{
		All: true, Filters: make(client.Filters).Add("label", labels...),
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list.Items {
		out = append(out, describe(c))
	}
	return out
}

// openHistoryDB opens the daemon's history directly; the test closes it.
func openHistoryDB(t *testing.T, path string) *store.DB {
	t.Helper()
	db := store.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// execCLI runs the orchestrator in-process with an empty environment.
func execCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := newGlobalState(context.Background(), strings.NewReader(""), &out, &errOut, testEnv(t, nil))
	code = execute(g, args)
	return code, out.String(), errOut.String()
}

// openSpec is a run spec as a user writes it in JSON: the Go target, the
// light endpoint, one open stage of rate req/s for duration, after a warm-up
// of 2 s at 20 req/s (none when noWarmup).
func openSpec(name, duration string, rate float64, noWarmup bool) map[string]any {
	warmup := map[string]any{"duration": "2s", "rate": 20}
	if noWarmup {
		warmup = map[string]any{"disabled": true}
	}
	return map[string]any{
		"name":    name,
		"targets": []string{"go"},
		"profile": map[string]any{
			"model":  "open",
			"stages": []any{map[string]any{"name": "hold", "duration": duration, "rate": rate}},
		},
		"warmup":   warmup,
		"workload": map[string]any{"requests": []any{map[string]any{"endpoint": "light"}}},
	}
}

// shortSpec is a run of about 7 s: 2 s warm-up, 3 s at 50 req/s.
func shortSpec(name string) map[string]any { return openSpec(name, "3s", 50, false) }

// writeFile writes content to name in a temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runStored runs `run` in-process with a history at db and reads back the
// run it printed, an error unless it is stored and succeeded: what a
// shared run is made with.
func runStored(t *testing.T, db string, args ...string) (*bench.Run, error) {
	t.Helper()
	code, stdout, stderr := runCLI(t, nil, append([]string{"run", "--db", db, "-q", "-o", "json"}, args...)...)
	if code != exitOK {
		return nil, fmt.Errorf("run: exit %d\n%s", code, stderr)
	}
	var printed bench.Run
	if err := json.Unmarshal([]byte(stdout), &printed); err != nil {
		return nil, fmt.Errorf("stdout is not a run document: %v\n%s", err, stdout)
	}
	h := store.NewDB(db)
	if err := h.Open(); err != nil {
		return nil, err
	}
	defer h.Close()
	run, err := h.FindRunByID(context.Background(), printed.ID)
	if err == nil && run.Status != bench.RunSucceeded {
		err = fmt.Errorf("run %s: %s", run.Status, run.Error)
	}
	return run, err
}

// analyzed is src with its run's analysis, as the report's callers give it.
func analyzed(src report.Source, opts analysis.ReportOptions) report.Source {
	rep := analysis.Analyze(src.Run, opts)
	src.Report = &rep
	return src
}
