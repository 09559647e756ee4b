//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// An orchestrator binary copied into an empty directory, with no checkout
// around it and no THREADBENCH_REPO, runs a built-in target: it carries the
// targets' sources and builds from them. The sources it extracts are those
// of the checkout to the byte (the same inputs hash, so the image the run
// used is the one they build), and the Go target compiles from them as the
// Go recipe compiles it.
func TestRunFromAnywhere(t *testing.T) {
	sideBySide(t)
	bin := buildOrchestrator(t)
	dir := t.TempDir()
	copied := filepath.Join(dir, "orchestrator")
	copyExecutable(t, bin, copied)
	home, cache := filepath.Join(dir, "home"), filepath.Join(dir, "cache")
	cmd := exec.Command(copied, "--db", filepath.Join(dir, "history.db"), "run", "-q", "-o", "json",
		"--targets", "go", "--profile", "smoke", "--scale", "0.3", "--warmup", "2s", "--endpoint", "light")
	cmd.Dir = dir
	cmd.Env = envWithout(processEnv(t), "THREADBENCH_REPO", "HOME", "XDG_CACHE_HOME")
	cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CACHE_HOME="+cache,
		"TESTCONTAINERS_RYUK_DISABLED=true", "TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1")
	cmd.Env = append(cmd.Env, goCaches(t)...) // a new HOME must not mean downloading every module again
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("orchestrator run from %s: %v\nstderr:\n%s", dir, err, stderr.String())
	}
	run, _ := storedRun(t, filepath.Join(dir, "history.db"), string(stdout))
	if got := run.Target("go").Total; got.Successes == 0 || got.Successes != got.Requests {
		t.Errorf("go from an empty directory: %d successes of %d requests", got.Successes, got.Requests)
	}

	extracted, err := filepath.Glob(filepath.Join(cache, "threadbench", "sources-*"))
	if err != nil || len(extracted) != 1 {
		t.Fatalf("extracted sources under %s: %v, %v; want one tree", cache, extracted, err)
	}
	repo, err := targets.FindRepoRoot(".", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, inputs := range [][]string{
		{"targets/go", "go.mod", "go.sum"},
		{"targets/java/pom.xml", "targets/java/src", "targets/java/Dockerfile"},
	} {
		want, err := targets.InputsHash(repo, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := targets.InputsHash(extracted[0], inputs); err != nil || got != want {
			t.Errorf("inputs %v: extracted hash %s (%v), checkout %s", inputs, got, err, want)
		}
	}
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "server"), "./targets/go")
	build.Dir = extracted[0]
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("the Go target does not compile from the extracted sources: %v\n%s", err, out)
	}
	if run.Status != bench.RunSucceeded {
		t.Errorf("run %s: %s", run.Status, run.Error)
	}
}

// goCaches returns this machine's Go module and build caches as
// environment entries.
func goCaches(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOPATH", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vals) != 3 {
		t.Fatalf("go env printed %q", out)
	}
	return []string{"GOPATH=" + vals[0], "GOMODCACHE=" + vals[1], "GOCACHE=" + vals[2]}
}

// copyExecutable copies the binary at src to dst, executable.
func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// envWithout returns env less the variables named.
func envWithout(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
