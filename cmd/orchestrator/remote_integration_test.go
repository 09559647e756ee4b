//go:build integration

package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
	"github.com/threadbench/threadbench/internal/targets/enginetest"
)

// lightClosed is the profile both runs below share: 32 clients on
// /api/light for 5 s, a load the generator, not the target, bounds.
const lightClosed = "name: light-closed\nmodel: closed\nstages:\n  - {name: c32, duration: 5s, concurrency: 32}\n"

// TestRunOnRemoteEngine runs the Go target on a second Docker engine, in a
// network namespace of this host reached at an address of its own, while the
// load generator stays in the root namespace: `orchestrator run --engine
// lab` loads the image there, starts the target bound to that address,
// checks its contract, attacks it, scrapes its metrics and the engine's
// container stats, and removes it; the run records both hosts and the
// report shows them. The same run on the local engine gives the generator's
// rate against a local target, for comparison.
func TestRunOnRemoteEngine(t *testing.T) {
	sideBySide(t)
	eng := enginetest.Start(t)
	config := writeFile(t, "config.yaml", labEngine(eng))
	profile := writeFile(t, "light-closed.yaml", lightClosed)
	db := filepath.Join(t.TempDir(), "history.db")
	runOn := func(engine string) *bench.Run {
		t.Helper()
		began := time.Now()
		defer func() { t.Logf("run on %s took %s", engine, time.Since(began).Round(time.Millisecond)) }()
		code, stdout, stderr := runCLI(t, nil, "--config", config, "--db", db, "run", "-o", "json", "--engine", engine,
			"--targets", "go", "--profile", profile, "--endpoint", "light", "--warmup", "2s")
		t.Logf("run --engine %s:\n%s", engine, stderr)
		if code != exitOK {
			t.Fatalf("run --engine %s: exit %d", engine, code)
		}
		run, _ := storedRun(t, db, stdout)
		return run
	}

	remote := runOn("lab")
	tr := remote.Target("go")
	env := remote.Environment
	if env.CPUSplitApplied || env.LoadCPUSet != "" || len(env.Engines) != 1 || env.MixedEngines {
		t.Fatalf("environment %+v: want the whole host the generator's, one engine", env)
	}
	lab := env.Engines[0]
	if lab.Name != "lab" || !lab.Remote || lab.Address != eng.Address || lab.Host == "" ||
		lab.CPUs < 1 || lab.Kernel == "" || lab.DockerVersion == "" || lab.CPUModel != env.CPUModel {
		t.Errorf("lab's environment %+v: want its host, CPUs, kernel, engine and CPU model (this host's: %q)", lab, env.CPUModel)
	}
	if tr.Engine != "lab" || tr.CPUSet != lab.TargetCPUSet || tr.Settings["bindAddress"] != eng.Address {
		t.Errorf("target ran on %q, cpuset %q, bound to %q; want lab, on CPUs %q, bound to %s", tr.Engine, tr.CPUSet, tr.Settings["bindAddress"], lab.TargetCPUSet, eng.Address)
	}
	// One CPU's limit is one CPU to the runtime, as on the local engine:
	// under a quota alone Go would count two.
	if got := tr.Settings["info.knobs.GOMAXPROCS"]; lab.CPUs > 1 && got != "1" {
		t.Errorf("GOMAXPROCS %s on lab, want 1 (the limit's CPU, pinned on %q)", got, lab.TargetCPUSet)
	}
	if tr.Total == nil || tr.Total.Successes == 0 || tr.Total.Successes != tr.Total.Requests {
		t.Fatalf("attack on lab: %+v, want every request answered", tr.Total)
	}
	for _, series := range []string{"go_goroutines", "container_cpu_usage_seconds_total"} {
		if !slices.Contains(tr.Series, series) {
			t.Errorf("series %v lack %s: the target's metrics or lab's container stats were not recorded", tr.Series, series)
		}
	}
	code, stdout, stderr := runCLI(t, nil, "--db", db, "report", remote.ID)
	mustOK(t, code, stderr)
	t.Logf("the report's head:\n%s", strings.Join(strings.SplitN(stdout, "\n", 16)[:15], "\n"))
	for _, want := range []string{"load generator", "targets on lab", eng.Address} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}

	local := runOn("local")
	if got := local.Target("go").Engine; got != bench.EngineLocal || !local.Environment.CPUSplitApplied && local.Environment.CPUs > 1 {
		t.Errorf("local run on %q, split %t", got, local.Environment.CPUSplitApplied)
	}
	remoteRate, localRate := tr.Total.Throughput, local.Target("go").Total.Throughput
	t.Logf("load generator against the Go target, closed 32 clients on /api/light for 5 s: %.0f req/s on lab (%s, target on CPU %s, generator on every CPU), %.0f req/s on local (generator CPUs %s, target CPU %s)",
		remoteRate, eng.Address, lab.TargetCPUSet, localRate, local.Environment.LoadCPUSet, local.Environment.TargetCPUSet)

	if left := eng.Containers(t, targets.LabelManaged+"=true"); len(left) != 0 {
		t.Errorf("containers left on lab: %v", left)
	}
	for _, id := range []string{remote.ID, local.ID} {
		if left := runContainers(t, id); len(left) != 0 {
			t.Errorf("containers of run %s left on the local engine: %v", id, left)
		}
	}
}

// TestEngineRestartedMidRun restarts the engine a run's target is on (the
// second engine, lab, as a host's service manager restarts dockerd) while
// the target is under load: the run fails naming the engine, nothing of the
// run is left on the engine, and the next run through the same daemon
// succeeds without the daemon being restarted.
func TestEngineRestartedMidRun(t *testing.T) {
	sideBySide(t)
	eng := enginetest.Start(t)
	config := writeFile(t, "config.yaml", labEngine(eng))
	db := filepath.Join(t.TempDir(), "history.db")
	d := startInProcessDaemon(t, db, "--config", config)
	a := apiClient{t: t, base: d.url}
	spec := func(name, duration string) map[string]any {
		s := openSpec(name, duration, 50, false)
		s["engine"], s["noProfile"] = "lab", true
		return s
	}
	restarted := a.submit(spec("engine-restart", "40s"))
	attacking, _ := followInBackground(t, a, restarted.ID)
	select {
	case <-attacking:
	case <-time.After(2 * time.Minute):
		t.Fatalf("run %s never reached its attack:\n%s", restarted.ID, d.log)
	}
	time.Sleep(2 * time.Second)
	t.Logf("lab restarted in %s, the attack under way", eng.Restart(t).Round(time.Millisecond))
	run := a.waitRun(restarted.ID, 2*time.Minute, "finished", func(r *bench.Run) bool { return r.Status.Finished() })
	tr := run.Target("go")
	if run.Status != bench.RunFailed || tr == nil || !strings.Contains(tr.Error, "engine lab") {
		t.Errorf("run %s %q, target %+v; want failed, the target's error naming engine lab", run.Status, run.Error, tr)
	} else {
		t.Logf("the run failed: %s", tr.Error)
	}
	if left := eng.Containers(t, targets.LabelRun+"="+restarted.ID); len(left) > 0 {
		t.Errorf("containers of run %s left on lab: %v", restarted.ID, left)
	}
	next := a.submit(spec("engine-restart-next", "3s"))
	a.waitSucceeded(next.ID)
	if left := eng.Containers(t, targets.LabelRun+"="+next.ID); len(left) > 0 {
		t.Errorf("containers of run %s left on lab: %v", next.ID, left)
	}
	t.Logf("history afterwards: %s", historyState(t, db))
}

// labEngine is a configuration's engines naming eng "lab", as a user
// configures a remote engine: its address and its client's TLS files.
func labEngine(eng enginetest.Engine) string {
	return fmt.Sprintf("engines:\n  - name: lab\n    host: %s\n    tls: {ca: %s, cert: %s, key: %s}\n    address: %s\n",
		eng.Host, eng.TLS.CA, eng.TLS.Cert, eng.TLS.Key, eng.Address)
}
