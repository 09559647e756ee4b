//go:build integration

package main

// Why a target stops where it does, from inside it, end to end: the
// fixture's pinning endpoint run with `run --jar` on JDK 21 and 25 in both
// thread models (on 21 virtual threads are pinned in the fixture's
// synchronized method, on 25 not; the HTML report's flame graphs drawn in
// Chromium, the screenshot docs/why.png), read from the pinning matrix's
// run (matrix_integration_test.go); a CPU-bound stage of the Go
// target and of a Java target, each found in the endpoint's own work
// function; what recording costs, java-virtual with and without it on
// heavy and on cpu in one run; and the files served by the API opened by
// the JDK's jfr and by go tool pprof.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jfr"
)

// The fixture's pinning request and the method that pins on JDK 21.
const (
	pinningRequests = ordersDir + "/pinning.http"
	pinningMethod   = "com.example.orders.LegacyDriver$Connection.roundTrip"
)

// The fixture's pinning endpoint is run with `run --jar` on JDK 21 and 25
// in both thread models once, for the matrix and for the why alike:
// TestMeasurePinningMatrix reads each variant's why (checkPinning), draws
// the HTML report's flame graphs in Chromium (docs/why.png) and opens the
// recording the API serves (checkRecordingServed).

// checkPinning checks one variant's why at its stage: pinned in the
// fixture's method with events and time on JDK 21's virtual threads, not
// pinned anywhere else.
func checkPinning(t *testing.T, major int, tr *bench.TargetResult) {
	t.Helper()
	in := tr.Inside
	if in == nil || in.Source != bench.ProfileJFR || in.JDK != major || len(in.Why) != 1 {
		t.Fatalf("%s on JDK %d: inside %+v, want a JFR recording of JDK %d and one stage's why", tr.Key(), major, in, major)
	}
	d := in.Why[0]
	var kinds []string
	for _, c := range d.Causes {
		kinds = append(kinds, c.Kind)
		t.Logf("JDK %d %s: %s", major, tr.Key(), c.Sentence)
	}
	t.Logf("JDK %d %s: %.1f req/s, causes %v; recording %d kB, stop %.2f s, copy %.2f s, reading %.2f s (%d events)", major, tr.Key(),
		tr.Total.Throughput, kinds, in.Cost.Bytes>>10, in.Cost.StopSeconds, in.Cost.CopySeconds, in.Cost.ReadSeconds, in.Cost.Events)
	pinned := -1
	for i, c := range d.Causes {
		if c.Kind == bench.VerdictPinned {
			pinned = i
		}
	}
	checkDumpedVirtualThreads(t, tr)
	virtual21 := major == 21 && tr.Settings["threadModel"] == bench.ThreadModelVirtual
	switch {
	case !virtual21 && pinned >= 0:
		t.Errorf("JDK %d %s is pinned: %s", major, tr.Key(), d.Causes[pinned].Sentence)
	case !virtual21:
	case pinned != firstVerdict(d):
		t.Errorf("JDK 21 %s: causes %v, want pinned first", tr.Key(), kinds)
	default:
		c := d.Causes[pinned]
		if top := c.Stacks[0].Frames[0]; !strings.HasPrefix(top, pinningMethod) || !strings.Contains(c.Sentence, pinningMethod) {
			t.Errorf("JDK 21 %s: pinned in %s (%s), want the fixture's %s", tr.Key(), top, c.Sentence, pinningMethod)
		}
		if c.Stacks[0].Count == 0 || c.Stacks[0].Seconds <= 0 {
			t.Errorf("JDK 21 %s: the top stack has %d events, %.2f s", tr.Key(), c.Stacks[0].Count, c.Stacks[0].Seconds)
		}
	}
}

// firstVerdict is the index of a diagnosis's first cause that is the
// target's own, not a flag of the load's.
func firstVerdict(d bench.Diagnosis) int {
	for i, c := range d.Causes {
		if c.Kind != bench.FlagGeneratorBound && c.Kind != bench.FlagConnectionBound {
			return i
		}
	}
	return -1
}

// checkRecordingServed fetches a target's recording from a daemon on the
// run's history and opens it with the host's jfr summary, and with jfr in
// the target's own image, which must count the same events.
func checkRecordingServed(t *testing.T, db string, run *bench.Run, target string) {
	t.Helper()
	d := startInProcessDaemon(t, db)
	a := apiClient{t: t, base: d.url}
	var list api.FileList
	a.getJSON("/runs/"+run.ID+"/files", &list)
	t.Logf("files: %+v", list.Files)
	file := fetchFile(t, a, "/runs/"+run.ID+"/targets/"+url.PathEscape(target)+"/recording.jfr", "recording.jfr")
	tool, err := jfr.FindTool()
	if err != nil {
		t.Fatal(err)
	}
	var summary bytes.Buffer
	if err := tool.Run(context.Background(), &summary, file, "summary"); err != nil || !strings.Contains(summary.String(), jfr.TypeVirtualThreadPinned) {
		t.Fatalf("jfr summary of the served recording: %v\n%s", err, summary.String())
	}
	host, err := tool.Counts(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	image := run.Target(target).Image.Ref
	inImage, err := jfr.ImageTool(cli, image, nil).Counts(context.Background(), file)
	if err != nil {
		t.Fatalf("jfr in %s: %v", image, err)
	}
	for _, typ := range jfr.Types {
		if inImage[typ] != host[typ] {
			t.Errorf("%s: jfr in %s counts %d, the host's %d", typ, image, inImage[typ], host[typ])
		}
	}
	t.Logf("jfr summary of the served recording: %d pinned events (the image's jfr agrees)", host[jfr.TypeVirtualThreadPinned])
}

// fetchFile GETs a file from the API into a temporary file of that name.
func fetchFile(t *testing.T, a apiClient, path, name string) string {
	t.Helper()
	resp, body := a.do(http.MethodGet, path, nil)
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Fatalf("GET %s: %s (%d bytes)\n%.300s", path, resp.Status, len(body), body)
	}
	if got := resp.Header.Get("Content-Length"); got != fmt.Sprint(len(body)) {
		t.Errorf("GET %s: Content-Length %s for %d bytes", path, got, len(body))
	}
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// saveShot saves a screenshot for the README under docs/.
func saveShot(t *testing.T, name string, png []byte) {
	t.Helper()
	if len(png) == 0 {
		t.Errorf("no screenshot for %s", name)
		return
	}
	path := filepath.Join("..", "..", "docs", name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// Work functions of the cpu endpoint, where the targets' own code spends
// it.
const (
	goWorkFunction   = "github.com/threadbench/threadbench/targets/go/server.cpuWork"
	javaWorkFunction = "io.threadbench.server.CpuWork.run"
)

// whyCPUSpec is one run: the Go target on cpu, then java-virtual on cpu
// with recording and without (noProfile), one after the other; 16 clients
// for 8 s after a fixed warm-up (10 req/s: well within what one CPU
// serves, 20-100 req/s). Each request hashes 20,000 KiB, so that
// the work function outweighs the framework around it even while the JIT
// has not compiled that yet: at 2,000 KiB, with the test's CPUs shared,
// java-virtual's own code was once most in its request filter (72
// samples) and then in the work (67).
func whyCPUSpec() string {
	cpu := `{"requests": [{"endpoint": "cpu", "params": {"work": "20000"}}]}`
	return `{"name": "why: cpu and overhead",
  "cases": [
    {"name": "go-cpu", "target": "go", "workload": ` + cpu + `},
    {"name": "virtual-cpu", "target": "java-virtual", "workload": ` + cpu + `},
    {"name": "virtual-cpu-off", "target": "java-virtual", "workload": ` + cpu + `, "noProfile": true},
    {"name": "reactive-cpu", "target": "java-reactive", "workload": ` + cpu + `}],
  "profile": {"model": "closed", "stages": [{"name": "c16", "duration": "8s", "concurrency": 16}]},
  "warmup": {"duration": "4s", "rate": 10}}`
}

// TestWhyCPUAndOverhead runs the Go target, java-virtual and java-reactive
// on the CPU-bound endpoint, java-virtual with recording and without, in
// one run (three JVMs): in the CPU-bound stages the targets' own code was most in
// the endpoint's work function (pprof for Go, JFR for Java), which no
// neighbour's load moves; the report sets throughput with and without
// recording side by side (how much recording costs is a figure for a quiet
// machine, README's, not this test's verdict); the Go target's profile
// served by the API opens with go tool pprof -top.
func TestWhyCPUAndOverhead(t *testing.T) {
	sideBySide(t)
	startsJVMs(t, 150)
	db := filepath.Join(t.TempDir(), "history.db")
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "-f", writeFile(t, "why-cpu.json", whyCPUSpec()))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	noContainersOf(t, run.ID)
	for key, want := range map[string]string{"go-cpu": goWorkFunction, "virtual-cpu": javaWorkFunction, "reactive-cpu": javaWorkFunction} {
		checkOwnWork(t, run.Target(key), want)
	}
	if in := run.Target("virtual-cpu-off").Inside; in == nil || !in.Off || in.Source != "" || len(in.Files) != 0 {
		t.Errorf("virtual-cpu-off: inside %+v, want recording off and nothing kept", in)
	}
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	measured := false
	for _, o := range rep.Why.Overhead {
		t.Logf("overhead (not quiet: tests run side by side): %s", o.Sentence)
		measured = measured || o.Recorded+"/"+o.Unrecorded == "virtual-cpu/virtual-cpu-off" && o.With > 0 && o.Without > 0
	}
	if !measured {
		t.Errorf("no overhead measured for virtual-cpu against virtual-cpu-off: %+v", rep.Why.Overhead)
	}
	for _, tr := range run.Targets {
		if c := tr.Inside.Cost; c != nil {
			t.Logf("%s: recording cost %d kB, %d events; stop %.2f s, copy %.2f s, reading %.2f s", tr.Key(), c.Bytes>>10, c.Events,
				c.StopSeconds, c.CopySeconds, c.ReadSeconds)
		}
	}
	checkProfileServed(t, db, run)
}

// checkOwnWork checks that a CPU-bound stage's own code was most in the
// endpoint's work function.
func checkOwnWork(t *testing.T, tr *bench.TargetResult, want string) {
	t.Helper()
	if tr == nil || tr.Inside == nil || len(tr.Inside.Why) != 1 {
		t.Fatalf("no why: %+v", tr)
	}
	d := tr.Inside.Why[0]
	for _, c := range d.Causes {
		t.Logf("%s: %s", tr.Key(), c.Sentence)
	}
	t.Logf("%s (%s): %.1f req/s; %d samples, own %v, top %v", tr.Key(), d.Source, tr.Total.Throughput, d.Samples, d.OwnFrames, d.TopFrames[:min(3, len(d.TopFrames))])
	if d.Samples == 0 || len(d.OwnFrames) == 0 || d.OwnFrames[0].Frame != want {
		t.Errorf("%s: its own code was most in %v (of %d samples), want %s", tr.Key(), d.OwnFrames, d.Samples, want)
	}
}

// checkProfileServed fetches the Go target's profile of the stage from a
// daemon on the run's history and opens it with go tool pprof -top.
func checkProfileServed(t *testing.T, db string, run *bench.Run) {
	t.Helper()
	d := startInProcessDaemon(t, db)
	a := apiClient{t: t, base: d.url}
	file := fetchFile(t, a, "/runs/"+run.ID+"/targets/go-cpu/stages/0/profile.pb.gz", "profile.pb.gz")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "cpuWork") {
		t.Fatalf("go tool pprof -top of the served profile: %v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	t.Logf("go tool pprof -top:\n%s", strings.Join(lines[:min(len(lines), 10)], "\n"))
	folded := fetchFile(t, a, "/runs/"+run.ID+"/targets/virtual-cpu/stages/0/stacks.folded", "virtual-cpu.folded")
	b, _ := os.ReadFile(folded)
	if !strings.Contains(string(b), javaWorkFunction) {
		t.Errorf("virtual-cpu's folded stacks lack %s", javaWorkFunction)
	}
	var doc json.RawMessage
	a.getJSON("/runs/"+run.ID+"/files", &doc)
}

// whyInChromium counts the flame graphs the page drew (each with frames
// in it) and, when it has any, takes a screenshot of the window scrolled
// to its why section, the flame graphs on top.
func whyInChromium(t *testing.T, tabCtx context.Context) (int, []byte) {
	t.Helper()
	frames, err := chromedp.Run(tabCtx, chromedp.Evaluate[[]float64](
		`Array.from(document.querySelectorAll('svg.flame')).map(s => s.querySelectorAll('g.frame').length)`))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range frames {
		if n == 0 {
			t.Errorf("flame graph %d has no frame drawn", i)
		}
	}
	if len(frames) == 0 {
		return 0, nil
	}
	if _, err := chromedp.Run(tabCtx, chromedp.Evaluate[bool](`document.getElementById('why').scrollIntoView(); true`)); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(tabCtx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	return len(frames), shot
}

// synchronizedMethod is the built-in Java target's method behind
// /api/synchronized: a sleep inside synchronized (shared by the servlet
// and reactive handlers).
const synchronizedMethod = "io.threadbench.server.SleepWork.inSynchronized"

// seed003Pinned is synchronized@21's pinned line in the table report's
// why: the pins, their time, and the frame.
var seed003Pinned = regexp.MustCompile(`pinned: synchronized@21 on JDK 21: its carriers spent \d+(\.\d)? % of the stage pinned \((\d+) pins, ([\d.]+) s in all\), \d+(\.\d)? % of it in ` +
	regexp.QuoteMeta(synchronizedMethod))

// checkSeed003Why checks seed 003's why: synchronized on JDK 21 is pinned
// in the target's synchronized method, the report naming it with the pins'
// count and time; on JDK 25 nothing is pinned.
func checkSeed003Why(t *testing.T, db string, run *bench.Run) {
	t.Helper()
	for _, c := range []string{"synchronized@21", "synchronized@25", "lock@21"} {
		tr := run.Target(c)
		if tr == nil || tr.Inside == nil || tr.Inside.Source != bench.ProfileJFR || len(tr.Inside.Why) == 0 {
			t.Fatalf("%s: no JFR why: %+v", c, tr)
		}
		pinned := false
		for _, cause := range tr.Inside.Why[0].Causes {
			t.Logf("%s: %s", c, cause.Sentence)
			pinned = pinned || cause.Kind == bench.VerdictPinned
		}
		if want := c == "synchronized@21"; pinned != want {
			t.Errorf("%s: pinned %v, want %v", c, pinned, want)
		}
	}
	code, text, stderr := runCLI(t, nil, "--db", db, "report", run.ID)
	if code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	m := seed003Pinned.FindStringSubmatch(text)
	if m == nil || m[2] == "0" {
		t.Errorf("the report's why of synchronized@21 does not name %s with the pins' count and time:\n%s", synchronizedMethod, text)
		return
	}
	t.Logf("synchronized@21: %s pins, %s s, in %s", m[2], m[3], synchronizedMethod)
}

// shortProfile is two clients for two seconds: enough to have a stage.
const shortProfile = `name: short
model: closed
stages:
  - {name: c2, duration: 2s, concurrency: 2}
`

// unwritableRecording is the fixture on a JRE in an image whose
// /tmp/threadbench.jfr, where the recording is written, is a link into a
// directory that does not exist, so the recording cannot be written.
const unwritableRecording = `ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY orders.jar /app/app.jar
COPY tmp/ /tmp/
ENTRYPOINT ["java", "-jar", "/app/app.jar"]
`

// A JVM whose recording cannot be had runs all the same, and the report
// says why it has no recording, in the JVM's words: here from a Dockerfile
// (the project's JRE 25 as its BASE_IMAGE) that leaves the recording no
// place to be written. (A JVM that will not even start with the
// recording's options is started again without them; what tells one is
// TestRefusedRecording's, on the words a real JVM said.)
func TestWhyRecordingUnwritable(t *testing.T) {
	sideBySide(t)
	startsJVMs(t, 100)
	dir := t.TempDir()
	jar, err := os.ReadFile(ordersJar(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{"orders.jar": jar, "Dockerfile": []byte(unwritableRecording)} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent/recording.jfr", filepath.Join(dir, "tmp", filepath.Base(jfr.Path))); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "history.db")
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "--dockerfile", dir, "--jdk", "25", "--variant", "virtual",
		"--target-name", "unrecordable", "--requests", pinningRequests, "--profile", writeFile(t, "short.yaml", shortProfile),
		"--warmup", "1s", "--warmup-rate", "10")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	noContainersOf(t, run.ID)
	in := run.Targets[0].Inside
	// The project's JRE 25 checks the dump path when the recording starts
	// and refuses the options (the JVM is started again without them:
	// "Failure when starting JFR on_create_vm_3"); a JVM that checks only
	// when it dumps fails to write it at exit. Either way the run goes on
	// and the reason quotes the JVM.
	if in == nil || in.Source != "" || !quotesTheJVM(in.NoProfile) {
		t.Fatalf("inside %+v, want no recording, quoting the JVM", in)
	}
	t.Logf("no recording: %s", in.NoProfile)
	code, text, stderr := runCLI(t, nil, "--db", db, "report", run.ID)
	if code != exitOK || !regexp.MustCompile(`no recording +(no recording could be copied out of the container|the JVM would not start with the flight recording's options)`).MatchString(text) {
		t.Errorf("report: exit %d, no reason for the missing recording:\n%s\n%s", code, text, stderr)
	}
}

// quotesTheJVM tells a reason for a missing recording that carries the
// JVM's own words, whether it refused the options or could not write.
func quotesTheJVM(reason string) bool {
	if strings.Contains(reason, "no recording could be copied out of the container") {
		return strings.Contains(reason, "the JVM said: ") && strings.Contains(reason, "[jfr]")
	}
	_, said, ok := strings.Cut(reason, "the JVM would not start with the flight recording's options (JAVA_TOOL_OPTIONS), so it ran without: ")
	return ok && strings.Contains(said, "JFR")
}

// checkDumpedVirtualThreads holds a variant's virtual threads, as its
// thread dumps counted them in its stage, to its thread model and its
// clients: one virtual thread per request in flight on virtual threads
// (the clients bound them: twice as many leaves room for the JVM's own),
// none on platform threads.
func checkDumpedVirtualThreads(t *testing.T, tr *bench.TargetResult) {
	t.Helper()
	v := tr.Inside.VirtualThreads
	if tr.Settings["threadModel"] != bench.ThreadModelVirtual {
		if len(v) != 0 {
			t.Errorf("%s: virtual threads %+v, want none on platform threads", tr.Key(), v)
		}
		return
	}
	clients := tr.Stages[len(tr.Stages)-1].Concurrency
	if len(v) != 1 || v[0].Dumps == 0 || v[0].PeakAlive < 1 || v[0].PeakAlive > 2*clients || v[0].MeanParked > v[0].MeanAlive {
		t.Errorf("%s: virtual threads %+v, want the stage's counted, 1 to %d alive at the most", tr.Key(), v, 2*clients)
		return
	}
	t.Logf("%s: %.1f virtual threads alive on average (%d at the most), %.1f parked, in %d dumps", tr.Key(), v[0].MeanAlive, v[0].PeakAlive, v[0].MeanParked, v[0].Dumps)
}

// TestMeasureTimeOutsideTheTarget runs the Go target on /api/light at 100
// req/s, nothing in it near a limit: nearly all of each request's time
// passes outside its handlers (their own count, http_server_requests_
// seconds, says a fraction of a millisecond), and the why names the way
// between the load generator and the target, this host's loopback, not the
// target. It measures alone: side by side (clean-clone run 12) the
// generator's own scheduling lag (p99 208 ms) was the time outside, and
// the why rightly named the generator instead.
func TestMeasureTimeOutsideTheTarget(t *testing.T) {
	alone(t)
	// Four times at most: a stage whose generator lagged past its limit
	// (the hypervisor's stall, clean-clone measuring phases: scheduling
	// lag p99 6.7 ms; on 2026-11-30, with the hypervisor taking up to 38 %
	// of the CPUs that day, 7.2 then 11.5 ms, and in another clean clone
	// 6.3, 5.7 and 5.3 ms in a row) is rightly generator-bound, and says
	// nothing of the way between; it is run again. A machine that stalls
	// the generator every time cannot judge it: the test says so and is
	// skipped, not passed.
	const attempts = 4
	for attempt := 1; ; attempt++ {
		why, server, mean := timeOutside(t)
		generatorBound := len(why.Causes) > 0 && why.Causes[0].Kind == bench.FlagGeneratorBound
		switch {
		case generatorBound && attempt < attempts:
			t.Logf("attempt %d: %s; running again", attempt, why.Causes[0].Sentence)
			continue
		case generatorBound:
			t.Skipf("not judged: the load generator limited all %d attempts, the last: %s", attempts, why.Causes[0].Sentence)
		case len(why.Causes) == 0 || why.Causes[0].Kind != bench.VerdictNetworkBound || !strings.Contains(why.Causes[0].Sentence, "this host, its loopback"):
			t.Errorf("why %+v; want network-bound first, naming this host's loopback", why.Causes)
		default:
			t.Logf("%.3f ms in the handlers of %.3f ms; why: %s", server, mean, why.Causes[0].Sentence)
		}
		return
	}
}

// timeOutside runs the Go target on /api/light at 100 req/s and returns
// its stage's why, the time in its handlers and the mean latency the
// generator saw (ms).
func timeOutside(t *testing.T) (bench.Diagnosis, float64, float64) {
	t.Helper()
	db := t.TempDir() + "/history.db"
	profile := writeFile(t, "open100.yaml", "name: open100\nmodel: open\nstages:\n  - {name: r100, duration: 5s, rate: 100}\n")
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "--targets", "go", "--profile", profile,
		"--endpoint", "light", "--warmup", "2s", "--no-profile")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	tr := run.Target("go")
	st := analysis.MeasuredStages(tr)[0]
	var server float64
	for _, r := range tr.Resources {
		if r.Stage == st.Index && !r.Warmup {
			server = r.ServerMs
		}
	}
	if server <= 0 || server >= st.Stats.Latency.Mean {
		t.Fatalf("time in the handlers %.3f ms against %.3f ms as the generator saw it: want the target's own count, below it", server, st.Stats.Latency.Mean)
	}
	return analysis.WhyStage(tr, st), server, st.Stats.Latency.Mean
}
