//go:build integration

package main

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// A daemon killed with SIGKILL in the middle of an attack leaves a running
// run and an orphaned container. The next start on the same history marks
// the run interrupted, removes the container, leaves earlier runs as they
// were, and runs what was queued. SIGTERM then stops it cleanly.
func TestDaemonKilledDuringRun(t *testing.T) {
	sideBySide(t)
	begin := time.Now()
	bin := buildOrchestrator(t)
	db := t.TempDir() + "/h.db"

	d := startProcessDaemon(t, bin, db)
	a := apiClient{t: t, base: d.url}
	earlier := a.submit(shortSpec("kill-earlier"))
	a.waitSucceeded(earlier.ID)
	_, earlierDoc := a.do("GET", "/runs/"+earlier.ID, nil)
	if tr := a.run(earlier.ID).Target("go"); tr == nil || len(tr.Stages) != 1 || tr.Total == nil || len(tr.Seconds) == 0 {
		t.Fatalf("earlier run's go target %+v: want a stage, a total and seconds to compare after the kill", tr)
	}

	killed := a.submit(openSpec("kill-long", "60s", 20, true))
	waiting := a.submit(shortSpec("kill-queued"))
	attacking, _ := followInBackground(t, a, killed.ID)
	select {
	case <-attacking:
	case <-time.After(shortRunTimeout):
		t.Fatalf("run %s never reached its attack:\n%s", killed.ID, d.log)
	}
	if got := runContainers(t, killed.ID); len(got) != 1 {
		t.Fatalf("run %s under attack has containers %v, want one", killed.ID, got)
	}
	if code, _ := d.signal(t, syscall.SIGKILL, 10*time.Second); code != -1 {
		t.Fatalf("daemon exit code %d after SIGKILL, want -1 (killed by a signal)", code)
	}
	orphans := runContainers(t, killed.ID)
	if len(orphans) != 1 || !strings.Contains(orphans[0], "running") {
		t.Fatalf("after SIGKILL run %s has containers %v, want its target still running", killed.ID, orphans)
	}
	checkLeftByKill(t, db, killed.ID, waiting.ID)
	t.Logf("killed %s after the start; orphan %s", time.Since(begin).Round(time.Millisecond), orphans[0])

	d = startProcessDaemon(t, bin, db)
	a = apiClient{t: t, base: d.url}
	if run := a.run(killed.ID); run.Status == bench.RunRunning {
		// Queue.Open recovers only while the host's attack lock is free.
		t.Fatalf("killed run still running after restart; did another run hold the host lock?\n%s", d.log)
	}
	checkInterrupted(t, a.run(killed.ID))
	if left := runContainers(t, killed.ID); len(left) != 0 {
		t.Errorf("after restart run %s still has containers %v", killed.ID, left)
	}
	if _, doc := a.do("GET", "/runs/"+earlier.ID, nil); !sameJSON(t, earlierDoc, doc) {
		t.Errorf("the earlier run changed across the kill:\nbefore %s\nafter  %s", earlierDoc, doc)
	}
	a.waitSucceeded(waiting.ID)
	t.Logf("queued run resumed and done %s after the start", time.Since(begin).Round(time.Millisecond))

	checkTerminated(t, d, db)
	t.Logf("whole test %s", time.Since(begin).Round(time.Millisecond))
}

// checkTerminated sends SIGTERM to the daemon in the middle of an attack:
// it must exit 0 within the shutdown timeout, the run canceled and its
// container removed.
func checkTerminated(t *testing.T, d *processDaemon, db string) {
	t.Helper()
	a := apiClient{t: t, base: d.url}
	last := a.submit(openSpec("kill-terminated", "60s", 20, true))
	attacking, _ := followInBackground(t, a, last.ID)
	select {
	case <-attacking:
	case <-time.After(shortRunTimeout):
		t.Fatalf("run %s never reached its attack:\n%s", last.ID, d.log)
	}
	code, took := d.signal(t, syscall.SIGTERM, shutdownTimeout+5*time.Second)
	t.Logf("SIGTERM during an attack: exit %d in %s", code, took.Round(time.Millisecond))
	if code != exitOK {
		t.Errorf("daemon exit code %d after SIGTERM, want 0:\n%s", code, d.log)
	}
	h := openHistoryDB(t, db)
	if run, err := h.FindRunByID(context.Background(), last.ID); err != nil || run.Status != bench.RunCanceled {
		t.Errorf("run after SIGTERM: %v, status %s; want canceled", err, statusOf(run))
	}
	if left := runContainers(t, last.ID); len(left) != 0 {
		t.Errorf("run %s left containers %v after SIGTERM", last.ID, left)
	}
}

// checkLeftByKill reads the history as the killed daemon left it: the run
// still running, the one behind it still queued.
func checkLeftByKill(t *testing.T, path, running, queued string) {
	t.Helper()
	h := openHistoryDB(t, path)
	defer h.Close()
	for id, want := range map[string]bench.RunStatus{running: bench.RunRunning, queued: bench.RunQueued} {
		if run, err := h.FindRunByID(context.Background(), id); err != nil || run.Status != want {
			t.Fatalf("run %s after SIGKILL: %v, status %s; want %s", id, err, statusOf(run), want)
		}
	}
}

// checkInterrupted requires a run to be finished as interrupted, with the
// reason, and the target that was under attack failed with it (not skipped:
// it did run).
func checkInterrupted(t *testing.T, run *bench.Run) {
	t.Helper()
	t.Logf("killed run: %s: %s", run.Status, run.Error)
	if run.Status != bench.RunInterrupted || run.Error == "" || run.FinishedAt == nil {
		t.Errorf("killed run: status %s, error %q, finished %v; want interrupted with a reason", run.Status, run.Error, run.FinishedAt)
	}
	t.Run("AttackedTargetFailed", func(t *testing.T) {
		tr := run.Target("go")
		if tr == nil || tr.Status != bench.TargetFailed || tr.Error != run.Error || tr.StartedAt == nil {
			t.Errorf("killed run's target: %+v; want failed with the run's reason, its start recorded", tr)
		}
	})
}

// sameJSON reports whether two JSON documents hold the same values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}
