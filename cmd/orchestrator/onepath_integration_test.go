//go:build integration

package main

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The one path on the real engine: seed 001, made small (one Go case per
// part, scale 0.05), run by `run` and submitted with POST /runs, is the
// same runs: a run per part, in order, linked, each succeeded with the same
// results and stages, and no container left. Its stand-in twin
// (TestExperimentPartsAgree) checks the same in well under a second; this
// one shows the path holds with the real runtime, load engine and callee
// (a Tomcat per part, most of its time).
func TestExperimentPartsAgreeOnTheEngine(t *testing.T) {
	sideBySide(t)
	startsJVMs(t, 70)
	begin := time.Now()
	const scale = 0.05
	db := t.TempDir() + "/history.db"
	code, _, stderr := runCLI(t, nil, "--db", db, "run", "-q", "--experiment", "seed-001", "--case", "go-pool", "--scale", strconv.FormatFloat(scale, 'g', -1, 64))
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var cli []partShape
	for _, run := range storedRuns(t, db) {
		cli = append(cli, shapeOf(*run))
		noContainersLeft(t, run.ID)
	}
	t.Logf("run: %d parts in %s", len(cli), time.Since(begin).Round(time.Second))

	d := startInProcessDaemon(t, t.TempDir()+"/history.db")
	a := apiClient{t: t, base: d.url}
	first := a.submit(map[string]any{"experiment": map[string]any{"name": "seed-001", "scale": scale, "cases": []string{"go-pool"}}})
	var daemon []partShape
	for _, id := range first.Parts {
		daemon = append(daemon, shapeOf(*a.waitSucceeded(id)))
	}
	// A run is recorded before its callee is stopped (the runner's order,
	// the host lock held until then): stopping the daemon waits for that.
	if code, _ := d.stop(); code != exitOK {
		t.Errorf("serve exited with %d:\n%s", code, d.log)
	}
	for _, id := range first.Parts {
		noContainersLeft(t, id)
	}
	t.Logf("POST /runs: %d parts; whole test %s", len(daemon), time.Since(begin).Round(time.Second))

	want := []partShape{
		{Part: "callee-200", Results: []string{"go-pool: 2 stages"}, Status: bench.RunSucceeded, Linked: 2},
		{Part: "callee-400", Results: []string{"go-pool: 2 stages"}, Status: bench.RunSucceeded, Linked: 2},
	}
	if !reflect.DeepEqual(cli, want) || !reflect.DeepEqual(daemon, want) {
		t.Errorf("run made\n%+v\nPOST /runs made\n%+v\nwant both\n%+v", cli, daemon, want)
	}
}

func noContainersLeft(t *testing.T, id string) {
	t.Helper()
	if left := runContainers(t, id); len(left) > 0 {
		t.Errorf("run %s left containers %v", id, left)
	}
}
