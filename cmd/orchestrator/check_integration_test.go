//go:build integration

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// checkSpec is a short run of the Go target: a second's warm-up, then 8 s
// of 40 clients in a closed loop on the heavy endpoint sleeping sleepMs,
// so that its throughput is 40 ÷ the sleep at most. The sleeps are long
// (1 s, and 4 s for the slower setting) because a CPU saturated by the
// tests beside it delays every request by a few hundred ms: in one
// clean-clone run, 4 clients on a 20 ms sleep got 18.8 req/s in main's
// run and 11.4 in the same setting's a minute later, not 200. Against a
// 1 s sleep that delay costs a third at most; a 4 s sleep costs three
// quarters whatever the machine does. A closed loop, not a rate: an open
// model's throughput is its rate whatever the sleep. Recording inside is
// off: the check reads the load generator's figures only.
func checkSpec(t *testing.T, sleepMs string) string {
	t.Helper()
	return heavySpec(t, "check-it", "8s", sleepMs)
}

// heavySpec is checkSpec's run named name, its stage lasting stage.
func heavySpec(t *testing.T, name, stage, sleepMs string) string {
	t.Helper()
	spec := map[string]any{
		"name":      name,
		"targets":   []string{"go"},
		"noProfile": true,
		"profile":   map[string]any{"model": "closed", "stages": []any{map[string]any{"name": "hold", "duration": stage, "concurrency": 40}}},
		"warmup":    map[string]any{"duration": "1s", "rate": 20},
		"workload":  map[string]any{"requests": []any{map[string]any{"endpoint": "heavy", "params": map[string]any{"duration": sleepMs}}}},
	}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name+"-"+sleepMs+"ms.json", string(b))
}

// TestMeasureCheckAgainstItsBaseline runs the Go target three times
// through check, as a CI job would: main's run, labelled by its job and
// judged by objectives; a pull request's run of the same setting against
// main's latest (label:branch=main), through a daemon (--server), which
// passes; and one whose requests sleep 4 times as long, which fails
// against main's run kept as a file (file:main.json), naming the figure,
// with its JUnit XML read back by a JUnit reader (junitparser).
//
// It measures alone: its verdicts compare throughputs of runs made at
// different moments. Side by side it failed four clean clones of eight
// on the same setting, whose 1 s sleeps were answered at p50 1.5-2.4 s
// while other tests' JVMs took its CPU (14.9 req/s of 40), a regression
// no code had made.
func TestMeasureCheckAgainstItsBaseline(t *testing.T) {
	alone(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	same, slower := checkSpec(t, "1000"), checkSpec(t, "4000")
	onMain := map[string]string{"GITHUB_SHA": "3f2a9c1", "GITHUB_REF_NAME": "main", "GITHUB_RUN_ID": "81"}
	onBranch := map[string]string{"GITHUB_SHA": "9d8e7f6", "GITHUB_REF_NAME": "42/merge", "GITHUB_HEAD_REF": "slower", "GITHUB_RUN_ID": "82"}

	code, stdout, stderr := runCLI(t, onMain, "check", "-q", "--db", db, "-f", same, "--objective", "go:throughput>=2,p99<=5s,errors<=1%")
	if code != exitOK {
		t.Fatalf("main's check: exit %d\n%s\n%s", code, stdout, stderr)
	}
	main := storedRuns(t, db)[0]
	if main.Spec.Labels["branch"] != "main" || main.Spec.Labels["commit"] != "3f2a9c1" {
		t.Errorf("main's run is labelled %v", main.Spec.Labels)
	}

	// Alone, the runs' figures may still move from main's without the
	// code moving them (the hypervisor takes CPUs here): as a CI job on a
	// shared runner would, the check judges throughput alone (latency
	// moves most with the neighbours), with a minimum effect above that
	// noise and below the slower setting's loss.
	threshold := "50"
	// The same setting through a daemon serving the same history: run
	// there, judged here against main's run found in its history. An
	// objective on a target the spec does not run is refused before
	// anything is submitted.
	d := startInProcessDaemon(t, db)
	code, _, stderr = runCLI(t, onBranch, "check", "-q", "--server", d.url, "-f", same, "--objective", "java-virtual:throughput>=1")
	if code != exitBadInput || !strings.Contains(stderr, `the run has no target "java-virtual"`) || len(storedRuns(t, db)) != 1 {
		t.Errorf("an objective on a target not run, through --server: exit %d, %d runs stored, stderr %q; want %d before anything is submitted", code, len(storedRuns(t, db)), stderr, exitBadInput)
	}
	sameJUnit, sameSummary := filepath.Join(dir, "same.xml"), filepath.Join(dir, "same.md")
	// Twice at most: a run the machine disturbed (a clean clone: the
	// hypervisor taking 8 % of the CPUs in a second, 1 s sleeps answered
	// at p50 2.4 s, 69 % of their time outside the handlers) can fall
	// below the threshold without the code moving it; the check says it
	// was disturbed, and the setting is checked again.
	for attempt := 1; ; attempt++ {
		code, stdout, stderr = runCLI(t, onBranch, "check", "-q", "--server", d.url, "-f", same, "--baseline", "label:branch=main",
			"--threshold", threshold, "--figures", "throughput", "--junit", sameJUnit, "--summary", sameSummary)
		if code != exitRegression || attempt == 2 || !strings.Contains(stdout, "disturbed") {
			break
		}
		t.Logf("the same setting, attempt %d, on a disturbed machine: exit %d; checking it again\n%s", attempt, code, checkTableOf(stdout))
	}
	if code != exitOK || !strings.Contains(stdout, "baseline  "+main.ID) || !strings.Contains(stderr, "queued on "+d.url) {
		t.Errorf("the same setting against main, through --server: exit %d, want %d against %s\n%s\n%s", code, exitOK, main.ID, stdout, stderr)
	}
	t.Logf("the same setting against main, through the daemon:\n%s", checkTableOf(stdout))
	d.stop()

	// The slower setting against main's run kept as a file, as a
	// repository would commit it beside the spec.
	code, doc, stderr := runCLI(t, nil, "--db", db, "runs", "show", main.ID, "-o", "json")
	mainFile := filepath.Join(dir, "main.json")
	if err := os.WriteFile(mainFile, []byte(doc), 0o644); code != exitOK || err != nil {
		t.Fatalf("runs show -o json: exit %d, %v\n%s", code, err, stderr)
	}
	slowJUnit, slowSummary := filepath.Join(dir, "slower.xml"), filepath.Join(dir, "slower.md")
	code, stdout, stderr = runCLI(t, onBranch, "check", "-q", "--db", db, "-f", slower, "--baseline", "file:"+mainFile,
		"--threshold", threshold, "--figures", "throughput", "--junit", slowJUnit, "--summary", slowSummary)
	if code != exitRegression || !strings.Contains(stderr, "regression: go throughput -") || !strings.Contains(stdout, "baseline  "+main.ID) {
		t.Errorf("4 times the sleep against main: exit %d, want %d naming go's throughput\n%s\n%s", code, exitRegression, stdout, stderr)
	}
	t.Logf("4 times the sleep against main:\n%s\n%s", checkTableOf(stdout), stderr)

	read := readJUnit(t, slowJUnit)
	t.Logf("junitparser reads the slower run's JUnit XML:\n%s", read)
	if !strings.Contains(read, "failures=") || !strings.Contains(read, "Failure go throughput -") {
		t.Errorf("junitparser read no failure of go's throughput:\n%s", read)
	}
	if read := readJUnit(t, sameJUnit); !strings.Contains(read, " failures=0 ") {
		t.Errorf("junitparser read failures in the same setting's JUnit:\n%s", read)
	}
	if quiet, _ := os.ReadFile(sameSummary); strings.Count(string(quiet), "\n") != 1 || !strings.HasPrefix(string(quiet), "threadbench check passed") {
		t.Errorf("the same setting's summary, want one line:\n%s", quiet)
	}
	summary, _ := os.ReadFile(slowSummary)
	if !strings.HasPrefix(string(summary), "### threadbench check failed") || !strings.Contains(string(summary), "**worse**") {
		t.Errorf("summary:\n%s", summary)
	}
	t.Logf("summary of the slower run:\n%s", summary)
	for _, r := range storedRuns(t, db) {
		if r.Status != bench.RunSucceeded {
			t.Errorf("run %s %s", r.ID, r.Status)
		}
	}
}

// checkTableOf is the check's table at the end of its stdout.
func checkTableOf(stdout string) string {
	if i := strings.LastIndex(stdout, "\ncheck: "); i >= 0 {
		return stdout[i+1:]
	}
	return stdout
}

// junitReader prints what junitparser reads of a JUnit file: each suite
// with its counts, each case with its results.
const junitReader = `import sys, junitparser
for suite in junitparser.JUnitXml.fromfile(sys.argv[1]):
    print("suite", suite.name, "tests=%d failures=%d errors=%d skipped=%d " % (suite.tests, suite.failures, suite.errors, suite.skipped))
    for case in suite:
        print("  case", case.classname, case.name, *[type(r).__name__ + " " + (r.message or "") for r in case.result])
`

// readJUnit reads a JUnit file with junitparser, Debian's package on the
// system's Python (scripts/test-deps.sh installs it).
func readJUnit(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "-c", junitReader, path).CombinedOutput()
	if err != nil {
		t.Fatalf("junitparser could not read %s: %v\n%s(make test-deps installs python3-junitparser)", path, err, out)
	}
	return string(out)
}
