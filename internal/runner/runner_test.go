package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"errors"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/spec"
)

// catalog is the built-in targets' names, as the fake runtime starts them.
var catalog = bench.Catalog{Targets: []bench.TargetInfo{
	{Name: "go", Kind: "go"}, {Name: "java-platform", Kind: "java"}, {Name: "java-virtual", Kind: "java"},
}, Builtins: builtin.Set}

// shortSpec is a small open-model run: 1 s warm-up, then 2 s at 50 req/s.
func shortSpec(t *testing.T, targets ...string) bench.RunSpec {
	t.Helper()
	rs := bench.RunSpec{
		Targets:  targets,
		Profile:  bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: bench.Duration(2 * time.Second), Rate: 50}}},
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}},
		Warmup:   bench.Warmup{Duration: bench.Duration(time.Second), Rate: 20},
	}
	if err := spec.Prepare(&rs, catalog); err != nil {
		t.Fatal(err)
	}
	return rs
}

func newRunner(t *testing.T, rt *fakeRuntime, st bench.RunStore) *runner.Runner {
	return runner.New(runner.Config{
		Targets:  rt,
		Store:    st,
		Attacker: load.NewEngine(),
		LockPath: t.TempDir() + "/attack.lock",
		CPUs:     1, // never pin the test process
	})
}

func createRun(t *testing.T, st bench.RunStore, rs bench.RunSpec) *bench.Run {
	t.Helper()
	run := &bench.Run{Status: bench.RunQueued, Spec: rs}
	if err := st.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

func TestExecute_OneTargetFailsTheNextGoesOn(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rt := &fakeRuntime{startErr: map[string]error{"java-platform": errNoImage}}
	run := createRun(t, st, shortSpec(t, "java-platform", "go"))

	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	got, err := st.FindRunByID(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != bench.RunFailed {
		t.Errorf("run status = %s, want failed", got.Status)
	}
	failed, ok := got.Target("java-platform"), got.Target("go")
	if failed.Status != bench.TargetFailed || !strings.Contains(failed.Error, "no such image") {
		t.Errorf("java-platform = %s %q, want failed with the start error", failed.Status, failed.Error)
	}
	if ok.Status != bench.TargetSucceeded {
		t.Fatalf("go = %s %q, want succeeded", ok.Status, ok.Error)
	}
	if ok.Warmup == nil || !ok.Warmup.Warmup {
		t.Error("go has no warm-up result kept apart")
	}
	if ok.Total == nil || ok.Total.Requests < 95 || ok.Total.Requests > 105 {
		t.Errorf("go total requests = %v, want about 100 (2 s at 50 req/s, warm-up excluded)", ok.Total)
	}
	if ok.Total.Successes != ok.Total.Requests {
		t.Errorf("go successes %d of %d", ok.Total.Successes, ok.Total.Requests)
	}
	if len(got.Target("go").Seconds) < 2 {
		t.Errorf("go has %d per-second buckets stored, want 2", len(got.Target("go").Seconds))
	}
	if ok.StartupMs != 42 || ok.Image.Ref != "fake/go:1" {
		t.Errorf("go startup %v image %q not recorded", ok.StartupMs, ok.Image.Ref)
	}
	if got.Environment.CPUs != 1 || got.Environment.DockerVersion != "fake" || got.Environment.Kernel == "" {
		t.Errorf("environment not recorded: %+v", got.Environment)
	}
	if stopped := rt.stoppedTargets(); len(stopped) != 1 || stopped[0] != "go" {
		t.Errorf("stopped %v, want [go]", stopped)
	}
}

func TestExecute_TargetDyingUnderLoadFailsWithReason(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rt := &fakeRuntime{state: map[string]bench.ContainerState{"go": {OOMKilled: true, ExitCode: 137}}}
	run := createRun(t, st, shortSpec(t, "go"))
	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	tr := run.Target("go")
	if tr.Status != bench.TargetFailed || !strings.Contains(tr.Error, "out of memory") || !strings.Contains(tr.Error, "fatal: out of memory") {
		t.Errorf("go = %s %q, want failed naming OOM and quoting the log", tr.Status, tr.Error)
	}
}

func TestExecute_CancelStopsWithinASecond(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rt := &fakeRuntime{}
	rs := shortSpec(t, "go", "java-virtual")
	rs.Profile.Stages[0].Duration = bench.Duration(time.Minute)
	run := createRun(t, st, rs)
	r := newRunner(t, rt, st)
	events, unsubscribe := r.Hub().Subscribe(run.ID)
	defer unsubscribe()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Execute(ctx, run) }()
	waitForStage(t, events, false)
	canceledAt := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Execute did not return after cancel")
	}
	if took := time.Since(canceledAt); took > 1500*time.Millisecond {
		t.Errorf("cancel took %s, want about a second at most", took)
	}
	got, _ := st.FindRunByID(context.Background(), run.ID)
	if got.Status != bench.RunCanceled {
		t.Errorf("run status = %s, want canceled", got.Status)
	}
	if s := got.Target("go").Status; s != bench.TargetCanceled {
		t.Errorf("go status = %s, want canceled", s)
	}
	if s := got.Target("java-virtual").Status; s != bench.TargetSkipped {
		t.Errorf("java-virtual status = %s, want skipped", s)
	}
	if stopped := rt.stoppedTargets(); len(stopped) != 1 {
		t.Errorf("stopped %v, want the cancelled target stopped", stopped)
	}
}

// waitForStage waits for the first measured (or warm-up) stage event.
func waitForStage(t *testing.T, events <-chan bench.Event, warmup bool) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("events ended before the stage started")
			}
			if ev.Type == bench.EventStage && ev.Stage.Warmup == warmup {
				return
			}
		case <-timeout:
			t.Fatal("no stage event within 10 s")
		}
	}
}

func TestExecute_PublishesProgress(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	run := createRun(t, st, shortSpec(t, "go"))
	r := newRunner(t, &fakeRuntime{}, st)
	events, _ := r.Hub().Subscribe(run.ID)
	go r.Execute(context.Background(), run)

	counts := map[bench.EventType]int{}
	var last bench.Event
	for ev := range events { // closed when the run ends
		counts[ev.Type]++
		last = ev
	}
	if counts[bench.EventStage] != 2 || counts[bench.EventSecond] < 2 || counts[bench.EventTarget] < 4 {
		t.Errorf("event counts %v, want 2 stages (warm-up and one), >=2 seconds, the target's phases", counts)
	}
	if last.Type != bench.EventRun || last.RunStatus != bench.RunSucceeded {
		t.Errorf("last event %+v, want the run succeeding", last)
	}
}

func TestExecute_WaitsForTheHostLock(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	lockPath := t.TempDir() + "/attack.lock"
	cfg := func() runner.Config {
		return runner.Config{Targets: &fakeRuntime{}, Store: st, Attacker: load.NewEngine(), LockPath: lockPath, CPUs: 1}
	}
	first, second := createRun(t, st, shortSpec(t, "go")), createRun(t, st, shortSpec(t, "go"))
	r1, r2 := runner.New(cfg()), runner.New(cfg())
	done1 := make(chan error, 1)
	ev1, _ := r1.Hub().Subscribe(first.ID)
	go func() { done1 <- r1.Execute(context.Background(), first) }()
	waitForStage(t, ev1, true)
	if err := r2.Execute(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	if err := <-done1; err != nil {
		t.Fatal(err)
	}
	// The second only started attacking once the first had finished.
	if !second.StartedAt.After(*first.FinishedAt) && !second.StartedAt.Equal(*first.FinishedAt) {
		t.Errorf("second started %s before first finished %s", second.StartedAt, first.FinishedAt)
	}
}

func TestExecute_ContainerVanishingFailsTheTarget(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rt := &fakeRuntime{stateErr: map[string]error{"go": errNoImage}}
	run := createRun(t, st, shortSpec(t, "go"))
	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if tr := run.Target("go"); tr.Status != bench.TargetFailed || !strings.Contains(tr.Error, "vanished") {
		t.Errorf("go = %s %q, want failed: its container vanished", tr.Status, tr.Error)
	}
	if run.Status != bench.RunFailed {
		t.Errorf("run = %s, want failed", run.Status)
	}
}

func TestExecute_RecordsWhatTheTargetSaysAboutItself(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	run := createRun(t, st, shortSpec(t, "java-virtual"))
	rt := &fakeRuntime{info: map[string]string{"runtime": "OpenJDK 25.0.3+9-LTS", "knobs.gc": "Serial", "availableProcessors": "1"}}
	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	tr := run.Target("java-virtual")
	if got := tr.Settings["info.knobs.gc"]; got != "Serial" {
		t.Errorf("info.knobs.gc = %q, want the GC the JVM reported", got)
	}
	if got, want := tr.Image.Runtime, "OpenJDK 25.0.3+9-LTS"; got != want {
		t.Errorf("runtime = %q, want %q", got, want)
	}
}

// /info and the quick contract check are part of the contract: a target
// that breaks either is failed before its attack, and the run goes on.
func TestExecute_ContractViolationsFailTheTarget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rt   *fakeRuntime
		says string
	}{
		{"no /info", &fakeRuntime{info: map[string]string{"fail": ""}}, "GET /info"},
		{"check fails", &fakeRuntime{checkErr: map[string]error{"go": errors.New("light answered 500")}}, "light answered 500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			run := createRun(t, st, shortSpec(t, "go"))
			if err := newRunner(t, tc.rt, st).Execute(context.Background(), run); err != nil {
				t.Fatal(err)
			}
			tr := run.Target("go")
			if tr.Status != bench.TargetFailed || !strings.Contains(tr.Error, "contract check") || !strings.Contains(tr.Error, tc.says) {
				t.Errorf("target %s: %q, want failed by the contract check saying %q", tr.Status, tr.Error, tc.says)
			}
			if tr.Total != nil {
				t.Error("a target that broke the contract was attacked")
			}
		})
	}
}

// A host lock that cannot be taken is a failure to say, not a cancellation.
func TestExecute_HostLockFailureFailsTheRun(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	run := createRun(t, st, shortSpec(t, "go"))
	r := runner.New(runner.Config{Targets: &fakeRuntime{}, Store: st, Attacker: load.NewEngine(),
		LockPath: t.TempDir() + "/no/such/dir/attack.lock", CPUs: 1})
	if err := r.Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if run.Status != bench.RunFailed || !strings.Contains(run.Error, "host's attack lock") {
		t.Errorf("run %s: %q, want failed on the host lock", run.Status, run.Error)
	}
}

// Rounds interleave the cases, so that drift hits each alike, and each case
// starts with its own settings.
func TestExecute_CasesInInterleavedRounds(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rs := shortSpec(t, "go")
	rs.Targets, rs.Repeat = nil, 2
	rs.Cases = []bench.Case{
		{Name: "pool-1", Target: "java-platform", Java: &bench.JavaOptions{TomcatMaxThreads: 1}},
		{Name: "plain", Target: "go"},
	}
	if err := spec.Prepare(&rs, catalog); err != nil {
		t.Fatal(err)
	}
	run := createRun(t, st, rs)
	rt := &fakeRuntime{}
	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, tr := range run.Targets {
		keys = append(keys, tr.Key())
		if tr.Status != bench.TargetSucceeded || tr.Total == nil {
			t.Errorf("%s: %s %s", tr.Key(), tr.Status, tr.Error)
		}
	}
	if got, want := strings.Join(keys, ","), "pool-1,plain,pool-1#2,plain#2"; got != want {
		t.Errorf("results %s, want %s", got, want)
	}
	if got := strings.Join(rt.started, ","); got != "java-platform,go,java-platform,go" {
		t.Errorf("started %s", got)
	}
	if got := rt.requests[0].Java.TomcatMaxThreads; got != 1 {
		t.Errorf("pool-1 started with Tomcat's pool at %d, want its case's 1", got)
	}
	stored, err := st.FindRunByID(context.Background(), run.ID)
	if err != nil || stored.Target("plain#2") == nil || len(stored.Target("plain#2").Seconds) == 0 {
		t.Fatalf("the second round is not stored with its seconds: %v", err)
	}
}

// A run with a downstream service starts it first, on the generator's
// CPUs, hands its address to every target, and stops it at the end.
func TestExecute_Downstream(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rs := shortSpec(t, "go", "java-virtual")
	rs.Downstream = &bench.Downstream{Target: "java-platform", Workers: 40}
	run := createRun(t, st, rs)
	rt := &fakeRuntime{}
	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rt.started, ","); got != "java-platform,go,java-virtual" {
		t.Fatalf("started %s, want the downstream first", got)
	}
	ds := rt.requests[0]
	if ds.Workers != 40 || ds.Downstream != "" {
		t.Errorf("downstream started with %+v", ds)
	}
	url := run.Downstream.URL
	for i, req := range rt.requests[1:] {
		if req.Downstream != url || url == "" {
			t.Errorf("target %d got DOWNSTREAM_URL %q, want %q", i, req.Downstream, url)
		}
	}
	if got := strings.Join(rt.stoppedTargets(), ","); got != "go,java-virtual,java-platform" {
		t.Errorf("stopped %s, want the downstream last", got)
	}
	if run.Status != bench.RunSucceeded || run.Downstream.Status != bench.TargetSucceeded {
		t.Errorf("run %s, downstream %+v", run.Status, run.Downstream)
	}
}

// A downstream that does not start fails the run with the reason; no
// target is attacked against nothing.
func TestExecute_DownstreamFails(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	rs := shortSpec(t, "go")
	rs.Downstream = &bench.Downstream{Target: "java-platform", Workers: 40}
	run := createRun(t, st, rs)
	rt := &fakeRuntime{startErr: map[string]error{"java-platform": errNoImage}}
	if err := newRunner(t, rt, st).Execute(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if run.Status != bench.RunFailed || !strings.Contains(run.Error, "downstream service java-platform") || run.Targets[0].Status != bench.TargetSkipped {
		t.Errorf("run %s %q, target %s; want failed on the downstream, target skipped", run.Status, run.Error, run.Targets[0].Status)
	}
	if len(rt.started) != 0 {
		t.Errorf("started %v", rt.started)
	}
}
