//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/targets"
)

// runCLI runs the orchestrator in-process and returns its exit code and output.
func runCLI(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return runCLIWith(t, targets.DefaultCatalog(), env, args...)
}

// runCLIWith runs the orchestrator in-process with a catalog of its own.
func runCLIWith(t *testing.T, catalog *targets.Catalog, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	g := newGlobalState(context.Background(), nil, &stdout, &stderr, testEnv(t, env))
	g.catalog = catalog
	code := execute(g, args)
	return code, stdout.String(), stderr.String()
}

// storedRun reads the run a `run -o json` printed back from the history,
// and fails the test unless it is stored and succeeded. The history stays
// open until the test ends.
func storedRun(t *testing.T, db, stdout string) (*bench.Run, *store.DB) {
	t.Helper()
	var printed bench.Run
	if err := json.Unmarshal([]byte(stdout), &printed); err != nil {
		t.Fatalf("stdout is not a run document: %v\n%s", err, stdout)
	}
	h := store.NewDB(db)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	run, err := h.FindRunByID(context.Background(), printed.ID)
	if err != nil {
		t.Fatalf("printed run is not stored: %v", err)
	}
	if run.Status != bench.RunSucceeded {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	return run, h
}

// The smoke profile against the Go target in a container: 100% success, the
// request count the profile asks for, and heavy?duration=100 answering in
// 100-110 ms at the median.
func TestMeasureRunSmokeAgainstGo(t *testing.T) {
	alone(t)
	db := t.TempDir() + "/history.db"
	code, stdout, stderr := runCLI(t, nil, "--db", db, "run", "-q", "-o", "json",
		"--targets", "go", "--profile", "smoke", "--endpoint", "heavy", "--param", "duration=100", "--warmup", "2s")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	total := run.Target("go").Total
	wantRequests := run.Spec.Profile.Stages[0].Rate * run.Spec.Profile.Duration().D().Seconds() // 50 req/s x 10 s
	if got := float64(total.Requests); math.Abs(got-wantRequests)/wantRequests > 0.02 {
		t.Errorf("requests = %v, want %v within 2%%", got, wantRequests)
	}
	if total.Successes != total.Requests {
		t.Errorf("successes %d of %d, want all", total.Successes, total.Requests)
	}
	if p50 := total.Latency.P50; p50 < 100 || p50 > 110 {
		t.Errorf("p50 = %.1f ms, want 100-110 ms for heavy?duration=100", p50)
	}
	if len(run.Target("go").Seconds) < 10 {
		t.Errorf("%d per-second buckets stored, want 10", len(run.Target("go").Seconds))
	}
	if env := run.Environment; env.DockerVersion == "" || env.CPUs == 0 || run.Target("go").Image.Runtime == "" {
		t.Errorf("environment not recorded: %+v, image %+v", env, run.Target("go").Image)
	}
}

// A target is a catalog entry: the Go server registered under a second name
// with another environment (its collector off) goes through everything a
// built-in does, spec checks, build, start, contract check and attack,
// without a line of code anywhere else.
func TestRunExtraCatalogEntry(t *testing.T) {
	sideBySide(t)
	extra := targets.GoEntry()
	extra.Name, extra.Description = "go-gogc-off", "the Go server with its garbage collector off"
	extra.Env = map[string]string{"GOGC": "off"}
	catalog := targets.DefaultCatalog().With(extra)

	db := t.TempDir() + "/history.db"
	code, stdout, stderr := runCLIWith(t, catalog, nil, "--db", db, "run", "-q", "-o", "json",
		"--targets", "go-gogc-off", "--profile", "smoke", "--scale", "0.3", "--warmup", "1s", "--endpoint", "light")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	run, _ := storedRun(t, db, stdout)
	tr := run.Target("go-gogc-off")
	if tr == nil || tr.Total == nil || tr.Total.Successes == 0 || tr.Total.Successes != tr.Total.Requests {
		t.Fatalf("target result %+v, want every request answered", tr)
	}
	if got := tr.Settings["env.GOGC"]; got != "off" {
		t.Errorf("settings env.GOGC = %q, want the entry's environment", got)
	}
	if got := tr.Settings["info.knobs.GOGC"]; got != "off" {
		t.Errorf("the target reports GOGC %q at /info, want off: the entry's environment did not reach it", got)
	}
	if got := tr.Settings["info.target"]; got != "go-gogc-off" {
		t.Errorf("the target answers as %q, want its catalog name", got)
	}
}
