//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/targets"
)

// Experiments against the real engine, smaller than the seeds so that they
// stay quick: each Java target takes 10-20 s to start on one CPU, and that
// is most of their time.

// experimentSpec is a built-in experiment's spec written out in full (no
// experiment reference, so that the test may change it), at scale.
func experimentSpec(t *testing.T, name, part string, scale float64) bench.RunSpec {
	t.Helper()
	e, err := builtin.LookupExperiment(name)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := e.Spec(scale, part)
	if err != nil {
		t.Fatal(err)
	}
	spec.Experiment = nil
	return spec
}

// specFile writes spec as a JSON spec file, leaving out the fields it
// does not set (the decoder refuses null).
func specFile(t *testing.T, spec bench.RunSpec) string {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if b, err = json.Marshal(withoutNulls(doc)); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "spec.json", string(b))
}

// withoutNulls drops the null members of every object in a JSON document.
func withoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			if m == nil {
				delete(v, k)
			} else {
				v[k] = withoutNulls(m)
			}
		}
	case []any:
		for i := range v {
			v[i] = withoutNulls(v[i])
		}
	}
	return v
}

// runSpec runs spec in-process from a spec file and returns the stored run,
// which must have succeeded, after checking that none of its containers is
// left behind.
func runSpec(t *testing.T, spec bench.RunSpec) *bench.Run {
	t.Helper()
	db := t.TempDir() + "/history.db"
	began := time.Now()
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "-f", specFile(t, spec))
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	t.Logf("run %s took %s", run.ID, time.Since(began).Round(time.Second))
	if left := runContainers(t, run.ID); len(left) > 0 {
		t.Errorf("containers left behind by run %s: %v", run.ID, left)
	}
	return run
}

// Issue 13, seed 001 made small: 100 calls of 1 s, limit 20, read
// timeout 1.5 s, a callee with 40 workers. Unbounded, virtual threads and
// goroutines alike get one wave of 40 through in time (40 %); the pool and
// the semaphore, Java's virtual threads behind one and goroutines, get
// every call through. Java's thread pool is left out (one JVM start less:
// the pool's fan-out is the Go case's here, and Java's is FanoutModeTest's
// and CallControllerTest's in JUnit).
//
// It runs side by side, not alone: its verdicts are counts of calls that
// beat a 1.5 s timeout with 1 s of sleep each, one wave or every wave,
// within 5 points; the timeout is 500 ms from the first wave's end and
// from the second's. (With 600 ms calls and a 1 s timeout, 200 ms before
// the second wave, java-unbounded's timeouts fired 320-414 ms late on CPUs
// the tests beside it saturated, and 39 % of its calls got through where
// one wave is 20 %: clean-clone run, 2026-11-30.)
func TestExperimentFanoutSmall(t *testing.T) {
	sideBySide(t)
	startsJVMs(t, 70)
	spec := experimentSpec(t, "seed-001", "callee-200", 0.2)
	spec.Name = "seed-001 small"
	spec.NoProfile = true                                                                                    // what recorded inside is seed 003's test's and the why tests'; reading it would only lengthen this one
	spec.Downstream = &bench.Downstream{Target: bench.TargetGo, Workers: 40}                                 // starts in a moment; Tomcat's is the full experiment's
	spec.Cases = slices.DeleteFunc(spec.Cases[1:], func(c bench.Case) bool { return c.Name == "java-pool" }) // a Go callee needs no warming up
	idle := bench.Duration(time.Second)
	spec.Profile.Stages[0].Duration = idle
	spec.Profile.Stages[1].Duration = bench.Duration(6500 * time.Millisecond) // 5 waves of 1 s, and room
	for _, c := range spec.Cases {
		c.Workload.Iteration[0].Sleep.Min = idle
		p := c.Workload.Iteration[1].Request.Params
		p["calls"], p["limit"], p["duration"], p["timeout"] = "100", "20", "1000", "1500"
	}
	run := runSpec(t, spec)
	for _, tr := range run.Targets {
		f := tr.Total.Fanout
		if f == nil || f.Calls != 100 || f.Responses != 1 {
			t.Errorf("%s: fan-out %+v, want one fan-out of 100 calls", tr.Key(), f)
			continue
		}
		success := 100 * f.SuccessRatio()
		t.Logf("%-15s %5.1f%% of %d calls in %.2f s, peak %d in flight, failures %+v", tr.Key(), success, f.Calls, f.ElapsedMs/1000, f.PeakConcurrent, f.Failures)
		want := 100.0
		if strings.HasSuffix(tr.Case, "-unbounded") {
			want = 40
		}
		if math.Abs(success-want) > 5 {
			t.Errorf("%s: %.1f%% of calls succeeded, want %.0f%% ± 5 points", tr.Key(), success, want)
		}
		fanoutCallTimes(t, tr.Key(), f, !strings.HasSuffix(tr.Case, "-unbounded"))
	}
}

// fanoutCallTimes checks a fan-out's calls' times, read from the
// histograms the target sent (Java's HdrHistogram and Go's, decoded here):
// none ends after the fan-out; bounded, each call sleeps its 1 s and the
// calls end in five waves of them, half in the third.
func fanoutCallTimes(t *testing.T, key string, f *bench.FanoutStats, bounded bool) {
	t.Helper()
	if f.Call == nil || f.Done == nil {
		t.Errorf("%s: no calls' times (%+v): the target's histograms were not read", key, f)
		return
	}
	t.Logf("%-15s each call %.0f ms (p50) to %.0f ms; ended %.0f ms (p50) to %.0f ms in", key, f.Call.P50, f.Call.Max, f.Done.P50, f.Done.Max)
	if f.Done.Max > f.ElapsedMs*1.001+1 || f.Call.Max > f.Done.Max {
		t.Errorf("%s: calls up to %.0f ms, ended up to %.0f ms in, a fan-out of %.0f ms", key, f.Call.Max, f.Done.Max, f.ElapsedMs)
	}
	if bounded && (f.Call.Min < 999 || f.Done.Max < 4994 || f.Done.P50 < 2400) {
		t.Errorf("%s: calls from %.0f ms, ended %.0f ms (p50) to %.0f ms in; want each at least its 1 s sleep, in five waves of it",
			key, f.Call.Min, f.Done.P50, f.Done.Max)
	}
}

// Issue 13's service-level attack, short: 100 then 400 clients on
// /api/downstream (a callee of 200 workers). Tomcat's 200 threads never
// send the callee more than it serves, nor does a bulkhead of 100;
// unbounded virtual threads send it 400 calls at once and half of them
// time out.
//
// It runs side by side, not alone: its verdicts are error rates set by a
// timeout of one and a half calls, none or a flood's half or more. The
// calls last 2 s (3 s timeout), not the experiment's 1 s (1.5 s): the flood
// is one of concurrency, and 400 clients then ask the target for half the
// rate, with four waves in the stage. At 1 s, java-virtual once failed
// only 1.8 % of its requests at 400 clients, in the side-by-side part's
// last minute beside two other experiments' JVMs (clean-clone run 32, its
// rates not logged then; they are now). Beside four busy loops on the two
// CPUs, 1 s calls failed 75 % and 2 s calls 83 %.
func TestExperimentDownstreamStaged(t *testing.T) {
	sideBySide(t)
	startsJVMs(t, 80)
	spec := experimentSpec(t, "seed-001-service", "", 1)
	spec.Name = "seed-001-service short"
	spec.NoProfile = true       // what recorded inside is seed 003's test's and the why tests'; reading it would only lengthen this one
	spec.Cases = spec.Cases[:3] // java-platform, java-virtual-bulkhead, java-virtual
	spec.Downstream = &bench.Downstream{Target: bench.TargetGo, Workers: 200}
	for _, c := range spec.Cases {
		p := c.Workload.Requests[0].Params
		p["duration"], p["timeout"] = "2000", "3000"
	}
	spec.Profile.Stages = []bench.Stage{
		{Name: "c100", Duration: bench.Duration(4 * time.Second), Concurrency: 100},
		{Name: "c400", Duration: bench.Duration(8 * time.Second), Concurrency: 400},
	}
	spec.Warmup = bench.Warmup{Duration: bench.Duration(2 * time.Second), Rate: 20}
	run := runSpec(t, spec)
	for _, tr := range run.Targets {
		var rates, tput []float64
		for _, st := range tr.Stages {
			rates = append(rates, 100*(1-st.Stats.SuccessRatio()))
			tput = append(tput, st.Stats.Throughput)
		}
		t.Logf("%-22s error rate per stage %.1f%%, req/s %.0f", tr.Key(), rates, tput)
		if len(rates) != 2 {
			t.Fatalf("%s: %d stages measured", tr.Key(), len(rates))
		}
		if rates[0] > 1 {
			t.Errorf("%s: %.1f%% errors at 100 clients, want none: the callee serves 200 at once", tr.Key(), rates[0])
		}
		switch tr.Case {
		case "java-virtual":
			if rates[1] < 10 {
				t.Errorf("java-virtual: %.1f%% errors at 400 clients, want the flood's timeouts (at least 10%%)", rates[1])
			}
		default:
			if rates[1] > 1 {
				t.Errorf("%s: %.1f%% errors at 400 clients, want none behind its bound", tr.Key(), rates[1])
			}
		}
	}
}

// Issue 14, seed 003 at scale 0.2 (20 users on a 200 ms sleep for 4 s) on
// JDK 21 and 25: one Tomcat thread serves 5 req/s and one carrier about
// 100; synchronized pins the carrier, with events, on JDK 21 only; a
// native call holds it on both, without events. (A second carrier may
// join while one is pinned; the collapse allows for two at a time.)
// The pinned events are read while the carrier is pinned, from the metrics
// server, which runs on platform threads of its own. Seven of the eleven
// cases (--case), one start each: every claim above on at least one JDK,
// synchronized on both, the ReentrantLock fix beside it on 21, and Go's
// native call; the four left out repeat a claim.
//
// It runs side by side, not alone: every figure it judges is set by sleeps
// and by how many threads may sleep at once (5 req/s for one thread of
// 200 ms, 100 for 20 users on an unpinned carrier, 5-10 on a pinned one),
// each judged within a band of 2-3x, while a request's own CPU is about a
// millisecond: a target sharing its CPU with other tests' JVMs gets far
// more than the 10 % the unpinned 100 req/s need.
func TestExperimentSeed003(t *testing.T) {
	sideBySide(t)
	startsJVMs(t, 100)
	db := t.TempDir() + "/history.db"
	began := time.Now()
	cases := "platform-1-thread@21,virtual-1-carrier@21,synchronized@21,lock@21,synchronized@25,native@25,go-native"
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "--experiment", "seed-003", "--scale", "0.2", "--case", cases)
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	t.Logf("run %s took %s", run.ID, time.Since(began).Round(time.Second))
	if len(run.Targets) != 7 {
		t.Errorf("%d results, want one for each of %s", len(run.Targets), cases)
	}
	var slow []string // unpinned cases below their band, asked again below
	for _, tr := range run.Targets {
		rate, events := tr.Total.Throughput, pinnedEvents(tr)
		t.Logf("%-22s %-22s %6.1f req/s, %3.0f pinned events", tr.Key(), tr.Image.Runtime, rate, events)
		if tr.Case == "go-native" {
			checkGoNative(t, tr)
			if fw := tr.Settings["info.framework"]; fw != "net/http (the standard library)" {
				t.Errorf("%s: framework %q, want Go's net/http", tr.Key(), fw)
			}
			continue
		}
		jdk := strings.TrimPrefix(tr.Case[strings.Index(tr.Case, "@"):], "@")
		if !strings.Contains(tr.Image.Runtime, " "+jdk+".") {
			t.Errorf("%s ran on %q", tr.Key(), tr.Image.Runtime)
		}
		if fw := tr.Settings["info.framework"]; !strings.HasPrefix(fw, "Spring Boot 4.") || !strings.Contains(fw, "Apache Tomcat/") {
			t.Errorf("%s: framework %q, want the Spring Boot and Tomcat that served it (GET /info)", tr.Key(), fw)
		}
		pinned := strings.HasPrefix(tr.Case, "native@") || tr.Case == "synchronized@21"
		switch {
		case strings.HasPrefix(tr.Case, "platform-") && rate > 7:
			t.Errorf("%s: %.1f req/s, want about 5 (one thread, 200 ms each)", tr.Key(), rate)
		case strings.HasPrefix(tr.Case, "platform-") && rate < 2:
			// 0.2 once, the tests beside it starving its JVM (a clean
			// clone whose database servers had 3 % of a CPU meanwhile):
			// asked again, as an unpinned case below its band is.
			slow = append(slow, tr.Case)
		case pinned && rate > 15:
			t.Errorf("%s: %.1f req/s, want a collapse to a carrier or two (5-10 req/s)", tr.Key(), rate)
		case !pinned && !strings.HasPrefix(tr.Case, "platform-") && rate < 20:
			// About 100 on a quiet machine; 36 on one carrier whose CPU the
			// tests beside it took (a clean-clone run): still seven times
			// what one thread or a pinned carrier serves. Once 18, the
			// tests beside it starving that one carrier's CPU (a clean
			// clone, 2026-11-30): such a case runs once more, alone in its
			// run, and the second decides; its pinned events (none) are
			// judged below all the same.
			slow = append(slow, tr.Case)
		}
		// A JVM's first use of a class another request is still
		// initialising pins once, at most twice (a clean-clone run saw one
		// in virtual-1-carrier@21's stage); synchronized on JDK 21 pins
		// every request.
		if synchronized21 := tr.Case == "synchronized@21"; synchronized21 != (events > 2) {
			t.Errorf("%s: %.0f pinned events, want many only for synchronized on JDK 21 (a stray one or two elsewhere)", tr.Key(), events)
		}
		// The metrics have a server of their own on platform threads: a
		// pinned carrier or the one Tomcat thread does not hold up a scrape.
		for _, r := range tr.Resources {
			if r.ScrapeFailures > 0 {
				t.Errorf("%s: stage %d: %d scrapes failed, want none", tr.Key(), r.Stage, r.ScrapeFailures)
			}
		}
	}
	if left := runContainers(t, run.ID); len(left) > 0 {
		t.Errorf("containers left behind: %v", left)
	}
	if len(slow) > 0 {
		checkSeed003Again(t, slow)
	}
	checkSeed003Why(t, db, run)
	code, stdout, stderr = runCLI(t, nil, "--db", db, "runs", "show", run.ID)
	if code != exitOK || !strings.Contains(stdout, "Locust statistics") || !strings.Contains(stdout, "(89.2)") || !strings.Contains(stdout, "not in this run") ||
		!strings.Contains(stdout, "ReentrantLock sleep (the seed's fix)") {
		t.Errorf("runs show: exit %d, no seed table:\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("the seed's sheet:\n%s", seedSheetOf(stdout))
}

// checkSeed003Again runs seed 003's cases that served less than their band
// once more and holds them to it: one Tomcat thread about 5 req/s (2-7),
// an unpinned carrier far above that, with a stray pin or two at most.
func checkSeed003Again(t *testing.T, cases []string) {
	t.Helper()
	t.Logf("asked again, below their band: %s", strings.Join(cases, ", "))
	db := t.TempDir() + "/again.db"
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "--experiment", "seed-003", "--scale", "0.2", "--case", strings.Join(cases, ","))
	if code != exitOK {
		t.Fatalf("again: exit %d\nstderr:\n%s", code, stderr)
	}
	again, _ := storedRun(t, db, stdout)
	for _, tr := range again.Targets {
		rate, events := tr.Total.Throughput, pinnedEvents(tr)
		t.Logf("again: %-22s %6.1f req/s, %3.0f pinned events", tr.Key(), rate, events)
		switch platform := strings.HasPrefix(tr.Case, "platform-"); {
		case platform && (rate < 2 || rate > 7):
			t.Errorf("%s: %.1f req/s, asked twice; want about 5 (one thread, 200 ms each)", tr.Key(), rate)
		case !platform && (rate < 20 || events > 2):
			t.Errorf("%s: %.1f req/s and %.0f pinned events, asked twice; want far above one thread's 5 (about 100: 20 users / 200 ms on one unpinned carrier), unpinned", tr.Key(), rate, events)
		}
	}
}

// checkGoNative holds Go's native sleep on one CPU to what seed 000 says
// of it: the goroutine blocked in the system call hands its P to another
// OS thread, so the other users go on (about 100 req/s, as one unpinned
// carrier serves) and the runtime holds an OS thread per blocked call.
func checkGoNative(t *testing.T, tr bench.TargetResult) {
	t.Helper()
	var threads float64
	for _, r := range tr.Resources {
		if !r.Warmup {
			threads = max(threads, r.Threads[bench.ThreadPlatform].Peak)
		}
	}
	t.Logf("%s: %.1f req/s with %.0f OS threads at the peak", tr.Key(), tr.Total.Throughput, threads)
	if tr.Total.Throughput < 50 {
		t.Errorf("%s: %.1f req/s, want about 100 (20 users / 200 ms: the P handed off)", tr.Key(), tr.Total.Throughput)
	}
	if threads < 10 {
		t.Errorf("%s: %.0f OS threads at the peak, want one per blocked call (up to 20)", tr.Key(), threads)
	}
}

// seedSheetOf is the Locust table of a runs show.
func seedSheetOf(stdout string) string {
	i := strings.Index(stdout, "Locust statistics")
	if i < 0 {
		return ""
	}
	end := strings.Index(stdout[i:], "\n\n")
	if end < 0 {
		return stdout[i:]
	}
	return stdout[i : i+end]
}

// pinnedEvents sums a result's pinned events over its measured stages.
func pinnedEvents(tr bench.TargetResult) float64 {
	n := 0.0
	for _, r := range tr.Resources {
		if !r.Warmup {
			n += r.Pinned
		}
	}
	return n
}

// A callee that never starts fails the run before any target starts, and
// leaves no container.
func TestExperimentCalleeFails(t *testing.T) {
	sideBySide(t)
	broken := targets.GoEntry()
	broken.Name, broken.Description = "broken-callee", "the Go server given a DOWNSTREAM_URL that is no URL: it exits at start"
	broken.Env = map[string]string{"DOWNSTREAM_URL": "not a url"}
	spec := experimentSpec(t, "seed-001", "callee-200", 0.2)
	spec.Downstream = &bench.Downstream{Target: broken.Name, Workers: 40}
	db := t.TempDir() + "/history.db"
	code, _, stderr := runCLIWith(t, targets.DefaultCatalog().With(broken), nil, "--db", db, "run", "-q", "-f", specFile(t, spec))
	if code != exitFailure || !strings.Contains(stderr, "downstream service broken-callee") {
		t.Fatalf("exit %d, want %d and the callee's failure\n%s", code, exitFailure, stderr)
	}
	id := runIDIn(t, stderr)
	run, err := openHistoryDB(t, db).FindRunByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	// (run.Downstream is not asked for: the history does not keep it yet.)
	if run.Status != bench.RunFailed || !strings.Contains(run.Error, "downstream service broken-callee") {
		t.Errorf("run %s: %s; want failed by its callee", run.Status, run.Error)
	}
	for _, tr := range run.Targets {
		if tr.Status != bench.TargetSkipped {
			t.Errorf("%s %s, want skipped", tr.Key(), tr.Status)
		}
	}
	if left := runContainers(t, id); len(left) > 0 {
		t.Errorf("containers left behind: %v", left)
	}
}

// Cancelling an experiment mid-way (a case attacking, the callee up)
// stops and removes every container of the run.
func TestExperimentCancelled(t *testing.T) {
	sideBySide(t)
	spec := experimentSpec(t, "seed-001", "callee-200", 0.2)
	spec.Downstream = &bench.Downstream{Target: bench.TargetGo, Workers: 200}
	file := specFile(t, spec)
	db := t.TempDir() + "/history.db"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	g := newGlobalState(ctx, strings.NewReader(""), &bytes.Buffer{}, &stderr, testEnv(t, nil))
	exit := make(chan int, 1)
	go func() { exit <- execute(g, []string{"--db", db, "run", "-f", file}) }()
	deadline := time.After(2 * time.Minute)
	for !strings.Contains(stderr.String(), "[callee-warm-up] stage 2 (fanout)") {
		select {
		case code := <-exit:
			t.Fatalf("the run ended (exit %d) before its first fan-out:\n%s", code, stderr.String())
		case <-deadline:
			t.Fatalf("no fan-out after 2 minutes:\n%s", stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	id := runIDIn(t, stderr.String())
	if n := len(runContainers(t, id)); n != 2 {
		t.Errorf("%d containers while the first case attacks, want 2 (callee and caller)", n)
	}
	cancel()
	if code := <-exit; code != exitFailure {
		t.Errorf("exit %d after cancelling, want %d", code, exitFailure)
	}
	run, err := openHistoryDB(t, db).FindRunByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != bench.RunCanceled {
		t.Errorf("run %s, want canceled", run.Status)
	}
	if left := runContainers(t, id); len(left) > 0 {
		t.Errorf("containers left behind after cancelling: %v", left)
	}
}

// runIDIn finds the run ID in run's first line of stderr.
func runIDIn(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^run (\S+): `).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run ID in:\n%s", stderr)
	}
	return m[1]
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
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

// TestMeasureCPUBound runs the CPU-bound experiment as a user would,
// on its two Java variants, and holds it to physics: every variant's CPU
// per request times its throughput stays within its one CPU, each
// measured. Whether virtual threads bring an advantage is the question
// the sheet answers, not one the test presumes: one round each, the ratio
// moved from 109 % (recorded inside) to 84 % (not) between two runs on the
// same machine, which the sheet's figures and a repeat (--repeat) settle.
func TestMeasureCPUBound(t *testing.T) {
	alone(t)
	db := t.TempDir() + "/history.db"
	// The two Java variants, the claim's subjects, without recording
	// inside (JFR and thread dumps would add their own CPU to each
	// request's), alone: a CPU-bound run takes all of a CPU from the tests
	// beside it (run side by side, a carrier beside it served 36 req/s of
	// its usual 90).
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json", "--experiment", "cpu-bound", "--scale", "0.25",
		"--case", "java-platform,java-virtual", "--no-profile")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	cost := map[string]float64{}
	for _, tr := range run.Targets {
		if tr.Total == nil || tr.Total.Requests == 0 || tr.Total.Successes != tr.Total.Requests {
			t.Fatalf("%s: %+v, want every request served", tr.Key(), tr.Total)
		}
		cpu := 0.0
		for _, r := range tr.Resources {
			if !r.Warmup {
				cpu = max(cpu, r.CPUSecondsPer1k)
			}
		}
		cost[tr.Key()] = cpu
		used := cpu * tr.Total.Throughput / 1000
		t.Logf("%-14s %7.1f req/s, %.3f CPU s / 1k req: %.2f of its %g CPU", tr.Key(), tr.Total.Throughput, cpu, used, run.Spec.Limits.CPUs)
		if cpu <= 0 || used > 1.05*run.Spec.Limits.CPUs {
			t.Errorf("%s: %.3f CPU s per 1k requests at %.1f req/s uses %.2f CPUs, want a figure within its %g", tr.Key(), cpu, tr.Total.Throughput, used, run.Spec.Limits.CPUs)
		}
	}
	if p, v := cost[bench.TargetJavaPlatform], cost[bench.TargetJavaVirtual]; p > 0 && v > 0 {
		t.Logf("a virtual thread's request cost %.1f %% of a platform thread's CPU", 100*v/p)
	}
	code, stdout, stderr = runCLI(t, nil, "--db", db, "runs", "show", run.ID)
	if code != exitOK || !strings.Contains(stdout, "the seeds' claim: virtual threads bring no advantage on CPU-bound work; ours:") {
		t.Errorf("runs show: exit %d, no claim beside ours:\n%s\n%s", code, stdout, stderr)
	}
	if i := strings.Index(stdout, "CPU-bound work, one CPU each"); i >= 0 {
		t.Logf("the sheet:\n%s", stdout[i:min(len(stdout), i+900)])
	}
}
