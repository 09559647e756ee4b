//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/runner"
)

// The daemon as a user meets it: runs submitted over HTTP, followed as
// events, listed, compared, then the CLI through the daemon, the daemon's
// own endpoints, and a shutdown that leaves no container behind.
func TestDaemonEndToEnd(t *testing.T) {
	sideBySide(t)
	begin := time.Now()
	d := startInProcessDaemon(t, t.TempDir()+"/history.db")
	a := apiClient{t: t, base: d.url}

	if resp, body := a.do(http.MethodGet, "/healthz", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %s\n%s", resp.Status, body)
	}
	first := a.submit(shortSpec("e2e-first"))
	firstEvents := collectEvents(t, a, first.ID)
	second := a.submit(shortSpec("e2e-second"))
	secondEvents := collectEvents(t, a, second.ID) // opened while the run waits behind the first
	checkEvents(t, first.ID, <-firstEvents, false)
	checkEvents(t, second.ID, <-secondEvents, true)
	a.waitSucceeded(second.ID)
	t.Logf("two runs done %s after the start", time.Since(begin).Round(time.Millisecond))

	checkHistory(t, a, first.ID, second.ID)
	cmp := checkCompareAPI(t, a, first.ID, second.ID)
	checkCompareCLI(t, d.url, first.ID, second.ID, cmp)
	if code, stdout, stderr := execCLI(t, "runs", "list", "--server", d.url); code != exitOK ||
		!strings.Contains(stdout, first.ID) || !strings.Contains(stdout, second.ID) {
		t.Errorf("runs list --server: exit %d, want both runs listed\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	third := checkRunCLI(t, d.url)
	t.Logf("CLI run done %s after the start", time.Since(begin).Round(time.Millisecond))

	checkOwnEndpoints(t, a, 3)
	code, took := d.stop()
	if code != exitOK {
		t.Errorf("serve exited with code %d after cancel, want 0:\n%s", code, d.log)
	}
	t.Logf("daemon stopped in %s; whole test %s", took.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond))
	for _, id := range []string{first.ID, second.ID, third} {
		if left := runContainers(t, id); len(left) != 0 {
			t.Errorf("run %s left containers %v", id, left)
		}
	}
}

// collectEvents follows a run's event stream in a goroutine of the test and
// delivers every event once the daemon ends the stream.
func collectEvents(t *testing.T, a apiClient, id string) <-chan []sseEvent {
	t.Helper()
	out := make(chan []sseEvent, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*shortRunTimeout)
	t.Cleanup(cancel)
	go func() {
		var events []sseEvent
		err := a.followEvents(ctx, id, func(ev sseEvent) bool { events = append(events, ev); return true })
		if err != nil {
			t.Errorf("follow events of %s: %v", id, err)
		}
		out <- events
	}()
	return out
}

// checkEvents checks a run's event stream: the stored state first, then
// per-second events of the go target, the final document last. A stream
// opened while the run was still queued (whole) must hold every step:
// the run starting, the target's phases from building to done, the
// warm-up and the stage.
func checkEvents(t *testing.T, id string, events []sseEvent, whole bool) {
	t.Helper()
	if len(events) < 2 || events[0].Event != "state" || events[len(events)-1].Event != "end" {
		t.Fatalf("run %s: events %v, want state first and end last", id, eventNames(events))
	}
	if st := events[0].document(t); st.ID != id || st.Status.Finished() || whole && st.Status != bench.RunQueued {
		t.Errorf("state event: run %s %s, want %s not finished (queued: %v)", st.ID, st.Status, id, whole)
	}
	if end := events[len(events)-1].document(t); end.Status != bench.RunSucceeded || end.Target("go") == nil || len(end.Target("go").Stages) != 1 {
		t.Errorf("end event: status %s (%s), want succeeded with the go target's stage", end.Status, end.Error)
	}
	var steps []string
	seconds := 0
	for i, ev := range events[1 : len(events)-1] {
		p := ev.progress(t)
		if string(p.Type) != ev.Event || p.RunID != id {
			t.Errorf("event %d: name %s, data type %s run %s", i+1, ev.Event, p.Type, p.RunID)
		}
		if ev.Event != "second" {
			steps = append(steps, ev.Event+":"+string(p.Phase)+string(p.RunStatus))
			continue
		}
		seconds++
		if p.Target != "go" || p.Second == nil || p.Second.Stats.Requests == 0 {
			t.Errorf("second event %d without a go bucket of requests: %s", i+1, ev.Data)
		}
	}
	t.Logf("run %s: %d events, %d seconds, steps %v", id, len(events), seconds, steps)
	// 3 s of attack: 3 one-second buckets (a 4th may hold the last stragglers).
	if seconds < 3 || seconds > 4 {
		t.Errorf("%d second events, want 3 or 4 for a 3 s stage", seconds)
	}
	want := "run:running target:building target:starting target:checking stage:warmup stage:attack target:stopping target:done run:succeeded"
	if got := strings.Join(steps, " "); whole && got != want || !strings.HasSuffix(got, "stage:attack target:stopping target:done run:succeeded") {
		t.Errorf("steps\n%s\nwant (whole stream: %v)\n%s", got, whole, want)
	}
}

func eventNames(events []sseEvent) []string {
	names := make([]string, len(events))
	for i, ev := range events {
		names[i] = ev.Event
	}
	return names
}

// checkHistory reads the runs back: the list newest first, and a full
// document with stages and per-second buckets.
func checkHistory(t *testing.T, a apiClient, first, second string) {
	t.Helper()
	var list api.RunList
	a.getJSON("/runs", &list)
	var ids []string
	for _, r := range list.Runs {
		ids = append(ids, r.ID)
	}
	if got, want := strings.Join(ids, ","), second+","+first; got != want {
		t.Errorf("GET /runs lists %s, want %s (newest first)", got, want)
	}
	run := a.run(first)
	tr := run.Target("go")
	if run.Status != bench.RunSucceeded || tr == nil || tr.Status != bench.TargetSucceeded {
		t.Fatalf("GET /runs/%s: status %s, targets %+v", first, run.Status, run.Targets)
	}
	if len(tr.Stages) != 1 || tr.Warmup == nil || tr.Total == nil || len(tr.Seconds) < 3 {
		t.Fatalf("go target: %d stages, warm-up %v, total %v, %d seconds; want 1, set, set, >= 3",
			len(tr.Stages), tr.Warmup != nil, tr.Total != nil, len(tr.Seconds))
	}
	// 3 s at 50 req/s, light answers at once: all 150 requests succeed.
	if got, want := tr.Total.Requests, int64(150); got != want || tr.Total.Successes != got {
		t.Errorf("total: %d requests, %d successes; want %d, all successful", got, tr.Total.Successes, want)
	}
	if run.Environment.DockerVersion == "" || tr.Image.Ref == "" {
		t.Errorf("environment or image not recorded: %+v, %+v", run.Environment, tr.Image)
	}
}

// checkCompareAPI compares the two runs over HTTP and returns the comparison.
func checkCompareAPI(t *testing.T, a apiClient, base, head string) bench.Comparison {
	t.Helper()
	var cmp bench.Comparison
	a.getJSON("/compare?base="+base+"&head="+head, &cmp)
	if cmp.Base.ID != base || cmp.Head.ID != head || len(cmp.Targets) != 1 || cmp.Targets[0].Target != "go" {
		t.Fatalf("GET /compare: base %s head %s targets %+v; want %s, %s and go", cmp.Base.ID, cmp.Head.ID, cmp.Targets, base, head)
	}
	names := map[string]bool{}
	for _, m := range cmp.Targets[0].Metrics {
		names[m.Name] = true
	}
	for _, want := range []string{"throughput", "p50", "p99"} {
		if !names[want] {
			t.Errorf("GET /compare: no %s among the go target's metrics %v", want, names)
		}
	}
	return cmp
}

// checkCompareCLI runs compare through the daemon: a table, then JSON with
// a tiny regression tolerance whose exit code must agree with the
// regressions of the comparison it printed.
func checkCompareCLI(t *testing.T, url, base, head string, viaAPI bench.Comparison) {
	t.Helper()
	code, stdout, stderr := execCLI(t, "compare", base, head, "--server", url)
	if code != exitOK || !strings.Contains(stdout, "throughput") {
		t.Errorf("compare --server: exit %d, want 0 and a table with throughput\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	const tolerance = 0.0001
	code, stdout, stderr = execCLI(t, "compare", base, head, "--server", url,
		"--fail-on-regression", strconv.FormatFloat(tolerance, 'f', -1, 64), "-o", "json")
	var printed bench.Comparison
	if err := json.Unmarshal([]byte(stdout), &printed); err != nil {
		t.Fatalf("compare -o json printed no comparison (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
	}
	regressions := analysis.Regressions(printed, tolerance)
	want := exitOK
	if len(regressions) > 0 {
		want = exitRegression
	}
	if code != want {
		t.Errorf("compare --fail-on-regression %g: exit %d, want %d for %d regression(s) %v\nstderr:\n%s", tolerance, code, want, len(regressions), regressions, stderr)
	}
	if got := analysis.Regressions(viaAPI, tolerance); len(got) != len(regressions) {
		t.Errorf("the CLI's comparison has %d regression(s), GET /compare's %d", len(regressions), len(got))
	}
	t.Logf("compare --fail-on-regression %g: exit %d, %d regression(s)", tolerance, code, len(regressions))
}

// checkRunCLI submits a run with the CLI through the daemon, follows it to
// its end, and returns its ID.
func checkRunCLI(t *testing.T, url string) string {
	t.Helper()
	profile := writeFile(t, "short.yaml", "model: open\nstages:\n  - name: hold\n    duration: 3s\n    rate: 50\n")
	code, stdout, stderr := execCLI(t, "run", "--server", url, "--name", "e2e-cli", "--targets", "go",
		"--profile", profile, "--endpoint", "light", "--warmup", "2s", "--warmup-rate", "20")
	if code != exitOK {
		t.Fatalf("run --server: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"status    succeeded", "target go: succeeded", "total"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --server printed no %q:\n%s", want, stdout)
		}
	}
	m := regexp.MustCompile(`run (\S+) queued on `).FindStringSubmatch(stderr)
	if m == nil || !strings.Contains(stderr, "stage 1 (hold)") {
		t.Fatalf("run --server: stderr lacks the queued line or the stage's progress:\n%s", stderr)
	}
	return m[1]
}

// checkOwnEndpoints reads the daemon's metrics, its spec and its health.
func checkOwnEndpoints(t *testing.T, a apiClient, succeeded int) {
	t.Helper()
	resp, body := a.do(http.MethodGet, "/metrics", nil)
	m := regexp.MustCompile(`(?m)^threadbench_runs_total\{status="succeeded"\} (\d+)$`).FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET /metrics: %s, no succeeded run counter:\n%.2000s", resp.Status, body)
	}
	if got, want := string(m[1]), strconv.Itoa(succeeded); got != want {
		t.Errorf("threadbench_runs_total{status=\"succeeded\"} = %s, want %s", got, want)
	}
	// The embedded spec, with this daemon's own values where it says so:
	// its targets, engines, CPUs and memory.
	resp, body = a.do(http.MethodGet, "/openapi.yaml", nil)
	served, static := strings.Split(string(body), "\n"), strings.Split(string(api.Spec), "\n")
	if resp.StatusCode != http.StatusOK || len(served) != len(static) {
		t.Errorf("GET /openapi.yaml: %s, %d lines; want 200 and the embedded spec's %d", resp.Status, len(served), len(static))
	} else {
		for i := range served {
			if served[i] != static[i] && (i == 0 || !strings.Contains(static[i-1], "# x-served ")) {
				t.Errorf("GET /openapi.yaml line %d: %q, the embedded spec has %q", i+1, served[i], static[i])
			}
		}
		cpus, _ := runner.HostResources()
		if want := fmt.Sprintf("maximum: %d", cpus); !strings.Contains(string(body), want) {
			t.Errorf("GET /openapi.yaml does not give the host's %d CPUs as limits.cpus' %s", cpus, want)
		}
	}
	if resp, _ := a.do(http.MethodGet, "/healthz", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz: %s", resp.Status)
	}
}

// A graceful stop (SIGINT/SIGTERM, here the context) cancels the running
// run, records it canceled, removes its container and ends its event stream
// with the final document; a queued run stays queued for the next start.
func TestDaemonGracefulShutdownCancelsRunning(t *testing.T) {
	sideBySide(t)
	db := t.TempDir() + "/history.db"
	d := startInProcessDaemon(t, db)
	a := apiClient{t: t, base: d.url}
	long := a.submit(openSpec("graceful-long", "60s", 20, true))
	queued := a.submit(shortSpec("graceful-queued"))

	attacking, end := followInBackground(t, a, long.ID)
	_, queuedEnd := followInBackground(t, a, queued.ID) // a stream that would outlast the daemon
	select {
	case <-attacking:
	case <-time.After(shortRunTimeout):
		t.Fatalf("run %s never reached its attack:\n%s", long.ID, d.log)
	}
	if got := runContainers(t, long.ID); len(got) != 1 {
		t.Fatalf("run %s under attack has containers %v, want one", long.ID, got)
	}
	code, took := d.stop()
	t.Logf("daemon stopped in %s", took.Round(time.Millisecond))
	if code != exitOK {
		t.Errorf("serve exited with code %d, want 0:\n%s", code, d.log)
	}
	// The run is cancelled within a second and the container stopped within
	// seconds; waiting out shutdownTimeout would mean something hung.
	if took > 20*time.Second {
		t.Errorf("graceful stop took %s, want well under the %s shutdown timeout", took, shutdownTimeout)
	}
	checkFollowerEnd(t, end, bench.RunCanceled)
	select {
	case ev := <-queuedEnd:
		t.Logf("queued run's event stream cut after its %s event", ev.Event)
	case <-time.After(10 * time.Second):
		t.Errorf("queued run's event stream still open 10 s after the daemon stopped")
	}

	h := openHistoryDB(t, db)
	got, err := h.FindRunByID(context.Background(), long.ID)
	if err != nil || got.Status != bench.RunCanceled || got.Target("go").Status != bench.TargetCanceled {
		t.Errorf("long run after stop: %v, status %v; want canceled with its target canceled", err, statusOf(got))
	}
	if got, err := h.FindRunByID(context.Background(), queued.ID); err != nil || got.Status != bench.RunQueued {
		t.Errorf("queued run after stop: %v, status %v; want still queued", err, statusOf(got))
	}
	if left := runContainers(t, long.ID); len(left) != 0 {
		t.Errorf("run %s left containers %v", long.ID, left)
	}
}

// followInBackground follows a run's events in a goroutine of the test:
// attacking is closed at the first stage event of the attack proper, end
// receives the stream's last event (zero if the stream broke off without one).
func followInBackground(t *testing.T, a apiClient, id string) (attacking <-chan struct{}, end <-chan sseEvent) {
	t.Helper()
	attack, last := make(chan struct{}), make(chan sseEvent, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		var final sseEvent
		seen := false
		err := a.followEvents(ctx, id, func(ev sseEvent) bool {
			if ev.Event == "stage" && !seen && strings.Contains(string(ev.Data), `"phase":"attack"`) {
				seen = true
				close(attack)
			}
			final = ev
			return true
		})
		if err != nil && ctx.Err() == nil {
			t.Logf("event stream of %s: %v", id, err)
		}
		last <- final
	}()
	return attack, last
}

// checkFollowerEnd requires the event stream to have ended with the final
// run document in the given status.
func checkFollowerEnd(t *testing.T, end <-chan sseEvent, want bench.RunStatus) {
	t.Helper()
	select {
	case ev := <-end:
		if ev.Event != "end" {
			t.Errorf("event stream's last event %q, want end", ev.Event)
			return
		}
		if run := ev.document(t); run.Status != want {
			t.Errorf("end event: status %s, want %s", run.Status, want)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("event stream still open 10 s after the daemon stopped")
	}
}

func statusOf(run *bench.Run) bench.RunStatus {
	if run == nil {
		return ""
	}
	return run.Status
}
