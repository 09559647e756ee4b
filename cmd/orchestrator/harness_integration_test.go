//go:build integration

package main

// The integration suite's harness: what the tests share and in what order
// they run.
//
// Tests are of two kinds. A test that measures (its verdict reads a figure
// the machine's speed could move: a rate, a latency, a bound) is named
// TestMeasure..., so that make test can run it apart (go test -run), and
// calls alone:
// it waits until every test that measures nothing has ended, then runs by
// itself, on the host's attack lock, with both CPUs quiet. A test that
// measures nothing (its verdict holds however slow the machine is) calls
// sideBySide: it runs beside the others, its runs on an attack lock of its
// own, so they do not wait for each other. The package's unit tests and
// the few that change process-wide state run first, one at a time, as Go
// runs any test that is not parallel.
//
// Expensive things are made once per suite: the built-in targets' images
// (before any test, so that tests side by side never build the same image
// at once), the orchestrator's binary, and the runs that several tests read
// (sharedRun).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jvmslots"
	"github.com/threadbench/threadbench/internal/targets"
)

// suite orders the tests: functional counts the tests that measure nothing
// and have not ended; measuring lets one test that measures run at a time.
var suite struct {
	functional sync.WaitGroup
	measuring  sync.Mutex
	locks      sync.Map // *testing.T -> its attack lock, for tests side by side
}

// measuringPrefix starts the name of every test that measures (the
// Makefile's MEASURING).
const measuringPrefix = "TestMeasure"

// sideBySide marks a test that measures nothing: it runs in parallel with
// the other such tests, and every run it makes through runCLI, execCLI or a
// daemon of the harness takes an attack lock of its own. It must be the
// test's first call.
func sideBySide(t *testing.T) {
	t.Helper()
	if strings.HasPrefix(t.Name(), measuringPrefix) {
		t.Fatalf("%s runs side by side: a test named %s... measures, and calls alone", t.Name(), measuringPrefix)
	}
	suite.functional.Add(1)
	t.Cleanup(suite.functional.Done)
	t.Parallel()
	suite.locks.Store(t, filepath.Join(t.TempDir(), "attack.lock"))
}

// startsJVMs marks a test side by side that starts JVMs: it waits for one
// of the host's JVM slots (shared with the other packages' tests, which
// make test runs in a process beside this one) and holds it to its end.
// Call it after sideBySide. seconds is about how long it holds the slot
// (its JVMs and stages, alone): the longest are served first
// (jvmslots.Hold); it orders, and decides nothing.
func startsJVMs(t *testing.T, seconds int) {
	t.Helper()
	asked := time.Now()
	jvmslots.Hold(t, seconds)
	t.Logf("a JVM slot from %s (waited %s)", time.Now().Format(time.TimeOnly), time.Since(asked).Round(100*time.Millisecond))
}

// alone marks a test that measures: it runs after every test that
// measures nothing has ended, by itself, on the host's attack lock. It must
// be the test's first call.
func alone(t *testing.T) {
	t.Helper()
	if !strings.HasPrefix(t.Name(), measuringPrefix) {
		t.Fatalf("%s measures alone: name it %s..., which make test runs apart", t.Name(), measuringPrefix)
	}
	t.Parallel()
	suite.functional.Wait()
	suite.measuring.Lock()
	t.Cleanup(suite.measuring.Unlock)
	waitEngineIdle(t)
	t.Logf("measuring alone from %s", time.Now().Format(time.TimeOnly))
}

// waitEngineIdle waits, up to a minute, until the engine runs no
// container threadbench manages: the test before may leave its targets being removed (a JVM
// writing its recording as it stops, overlays unmounted), which took the
// CPU from the next test's generator (own engine's scheduling lag p99 32
// ms at 2,000 req/s in a clean-clone run; 3.7 ms alone).
func waitEngineIdle(t *testing.T) {
	t.Helper()
	begin := time.Now()
	for time.Since(begin) < time.Minute {
		out, err := exec.Command("docker", "ps", "-q", "--filter", "label="+targets.LabelManaged+"=true").Output()
		if err != nil || len(strings.TrimSpace(string(out))) == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if waited := time.Since(begin); waited > time.Second {
		t.Logf("waited %s for the engine's containers of the test before to go", waited.Round(100*time.Millisecond))
	}
}

// testEnv is the environment a run of test t sees: when it runs side by
// side, its attack lock, the JVM options make test gives that part
// (THREADBENCH_JAVA_TOOL_OPTIONS: the JIT's first tier only, for JVMs
// whose figures no test reads) and sideHealthTimeout; and what env adds.
func testEnv(t *testing.T, env map[string]string) func(string) string {
	lock, _ := suite.locks.Load(t)
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		switch {
		case k == envAttackLock && lock != nil:
			return lock.(string)
		case k == envHealthTimeout && lock != nil:
			return sideHealthTimeout
		case k == envJavaTool && lock != nil:
			return os.Getenv(envJavaTool)
		}
		return ""
	}
}

// sideHealthTimeout bounds the starts of the targets of tests side by
// side, whose verdicts do not read how fast a target starts: on CPUs
// those tests saturate, a Spring Boot service in CI took 69 s to log its
// first line and was still starting when targets.DefaultHealthTimeout
// (3 min) ended it (TestOwnServiceFromConfig, 2026-11-30).
const sideHealthTimeout = "8m"

// envTargetCPUs is the test knob that limits the targets of the tests
// that honour it (see targetCPUs) to fewer CPUs than the default one, to
// show that their verdicts do not depend on the machine's speed:
// THREADBENCH_TEST_TARGET_CPUS=0.5 make integration.
const envTargetCPUs = "THREADBENCH_TEST_TARGET_CPUS"

// targetCPUs is the CPU limit the knob asks for, 0 without it.
func targetCPUs(t *testing.T) float64 {
	t.Helper()
	v := os.Getenv(envTargetCPUs)
	if v == "" {
		return 0
	}
	cpus, err := strconv.ParseFloat(v, 64)
	if err != nil || cpus <= 0 {
		t.Fatalf("%s=%q: want a positive number of CPUs", envTargetCPUs, v)
	}
	t.Logf("targets limited to %g CPU by %s", cpus, envTargetCPUs)
	return cpus
}

// processEnv is the environment of an orchestrator process test t starts:
// this process's, with the test's attack lock and its targets' start
// bound.
func processEnv(t *testing.T) []string {
	env := os.Environ()
	for _, k := range []string{envAttackLock, envHealthTimeout} {
		if v := testEnv(t, nil)(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func TestMain(m *testing.M) {
	// What testcontainers needs on this machine (no reaper image to pull,
	// targets on loopback), for the whole process: a test side by side may
	// not set its own environment.
	os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	if err := buildBuiltinImages(); err != nil {
		fmt.Fprintln(os.Stderr, "integration suite:", err)
		os.Exit(1)
	}
	code := m.Run()
	for _, dir := range shared.dirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// buildBuiltinImages builds (or finds cached) the built-in targets' images,
// once, before any test.
func buildBuiltinImages() error {
	begin := time.Now()
	rt, err := targets.NewRuntime(targets.RuntimeOptions{})
	if err != nil {
		return fmt.Errorf("the integration tests need the Docker engine (make docker-up): %w", err)
	}
	defer rt.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, name := range []string{bench.TargetGo, bench.TargetJavaPlatform} { // java-virtual is java-platform's image
		if _, err := rt.BuildTarget(ctx, name, targets.BuildOptions{}); err != nil {
			return fmt.Errorf("build the %s image: %w", name, err)
		}
	}
	fmt.Fprintf(os.Stderr, "integration suite: built-in images ready in %s\n", time.Since(begin).Round(time.Millisecond))
	return nil
}

// shared holds what the suite makes once, and the directories it made
// them in, removed when the suite ends.
var shared struct {
	binOnce sync.Once
	bin     string
	binErr  error

	mu   sync.Mutex
	dirs []string
}

// sharedDir makes a directory that outlives the test that asks for it.
func sharedDir() (string, error) {
	dir, err := os.MkdirTemp("", "threadbench-shared-")
	if err == nil {
		shared.mu.Lock()
		shared.dirs = append(shared.dirs, dir)
		shared.mu.Unlock()
	}
	return dir, err
}

// buildOrchestrator returns the command's binary, built once per suite.
func buildOrchestrator(t *testing.T) string {
	t.Helper()
	shared.binOnce.Do(func() {
		dir, err := sharedDir()
		if shared.binErr = err; err != nil {
			return
		}
		shared.bin = filepath.Join(dir, "orchestrator")
		// Static, as make build makes it: the swarm's generators run it
		// FROM scratch.
		build := exec.Command("go", "build", "-o", shared.bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			shared.binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if shared.binErr != nil {
		t.Fatal(shared.binErr)
	}
	return shared.bin
}

// sharedRun is a run several tests read: made by the first that asks, under
// that test's own lock and kind, kept for the others. A failure to make it
// fails every test that asks.
type sharedRun struct {
	once sync.Once
	db   string
	run  *bench.Run
	err  string
}

// get makes the run with produce on first use (in a directory that
// outlives the test) and returns it with its history's path.
func (s *sharedRun) get(t *testing.T, produce func(t *testing.T, dir string) (*bench.Run, error)) (*bench.Run, string) {
	t.Helper()
	s.once.Do(func() {
		dir, err := sharedDir()
		if err != nil {
			s.err = err.Error()
			return
		}
		s.db = filepath.Join(dir, "history.db")
		begin := time.Now()
		run, err := produce(t, dir)
		if err != nil {
			s.err = err.Error()
			return
		}
		s.run = run
		t.Logf("shared run %s made in %s", run.ID, time.Since(begin).Round(time.Second))
	})
	if s.err != "" {
		t.Fatalf("the shared run failed: %s", s.err)
	}
	return s.run, s.db
}
