//go:build integration

package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/store/storetest"
)

// fullDiskBytes is the size of the file system the daemon's history is
// on: room for a short run's history, its reserve and its recordings with
// their margin (store.ArtifactMarginBytes), and little more.
const fullDiskBytes = 32 << 20

// The daemon's history on a file system that fills under a run: the run
// fails naming the disk (GET /runs/{id}), its recordings refused for want
// of room; reads go on, a submission is refused naming the disk, nothing
// stored before is lost, and once space is freed the next run succeeds
// with the same daemon.
func TestFullDiskFailsTheRunAndRecovers(t *testing.T) {
	sideBySide(t)
	begin := time.Now()
	dir := storetest.MountSmallDisk(t, fullDiskBytes)
	db := filepath.Join(dir, "history.db")
	d := startInProcessDaemon(t, db)
	a := apiClient{t: t, base: d.url}
	earlier := a.submit(shortSpec("fulldisk-earlier"))
	a.waitSucceeded(earlier.ID)
	_, earlierDoc := a.do(http.MethodGet, "/runs/"+earlier.ID, nil)

	full := a.submit(openSpec("fulldisk-full", "6s", 20, true))
	attacking, _ := followInBackground(t, a, full.ID)
	select {
	case <-attacking:
	case <-time.After(shortRunTimeout):
		t.Fatalf("run %s never reached its attack:\n%s", full.ID, d.log)
	}
	// Every write from here on needs new room: the WAL holds nothing.
	checkpointTruncate(t, db)
	ballast := filepath.Join(dir, "ballast")
	storetest.FillDisk(t, ballast, 0)
	t.Logf("disk full %s after the start, under run %s's attack", time.Since(begin).Round(time.Millisecond), full.ID)

	run := a.waitRun(full.ID, shortRunTimeout, "finished", func(r *bench.Run) bool { return r.Status.Finished() })
	t.Logf("GET /runs/%s: %s: %s", full.ID, run.Status, run.Error)
	if run.Status != bench.RunFailed || !strings.Contains(run.Error, "no space left on device for the run history "+db) {
		t.Errorf("run on a full disk: %s %q; want failed naming the history's disk", run.Status, run.Error)
	}
	t.Run("RecordingsRefusedBeforeWriting", func(t *testing.T) {
		tr := run.Target("go")
		if tr == nil || tr.Inside == nil {
			t.Fatalf("run %s's go target records nothing inside: %+v", full.ID, tr)
		}
		t.Logf("its target's notes: %q", tr.Inside.Notes)
		if len(tr.Inside.Files) != 0 || !slices.ContainsFunc(tr.Inside.Notes, func(n string) bool {
			return strings.Contains(n, "not kept: no room for it beside the run history "+db)
		}) {
			t.Errorf("go target's recordings on a full disk: files %v, notes %q; want none kept, a note naming the disk", tr.Inside.Files, tr.Inside.Notes)
		}
	})
	if left := runContainers(t, full.ID); len(left) != 0 {
		t.Errorf("run %s left containers %v", full.ID, left)
	}
	t.Run("ReadsGoOn", func(t *testing.T) {
		var page struct{ Runs []bench.RunSummary }
		a.getJSON("/runs", &page)
		if len(page.Runs) != 2 {
			t.Errorf("GET /runs lists %d runs, want the 2 stored", len(page.Runs))
		}
		if _, doc := a.do(http.MethodGet, "/runs/"+earlier.ID, nil); !sameJSON(t, earlierDoc, doc) {
			t.Errorf("the earlier run changed on a full disk:\nbefore %s\nafter  %s", earlierDoc, doc)
		}
		if got := integrityCheck(t, db); got != "ok" {
			t.Errorf("integrity_check: %s", got)
		}
	})
	t.Run("SubmissionRefusedNamingTheDisk", func(t *testing.T) {
		storetest.FillDisk(t, ballast+"-2", 0) // what the run's end gave back
		resp, body := a.do(http.MethodPost, "/runs", shortSpec("fulldisk-refused"))
		t.Logf("POST /runs on a full disk: %s %s", resp.Status, body)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "no space left on device for the run history "+db) {
			t.Errorf("POST /runs on a full disk: %s %s; want 503 naming the history's disk", resp.Status, body)
		}
	})

	for _, f := range []string{ballast, ballast + "-2"} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	next := a.submit(shortSpec("fulldisk-next"))
	a.waitSucceeded(next.ID)
	if fi, err := os.Stat(db + "-reserve"); err != nil || fi.Size() != store.DefaultReserveBytes {
		t.Errorf("the history's reserve once space is freed: %v; want it made again", err)
	}
	t.Logf("history after the next run: %s", historyState(t, db))
	t.Logf("space freed, next run %s succeeded; whole test %s", next.ID, time.Since(begin).Round(time.Millisecond))
}

// checkpointTruncate empties the history's WAL into the database, so that
// the next write needs new room on the disk.
func checkpointTruncate(t *testing.T, db string) {
	t.Helper()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var busy, frames, done int
	if err := raw.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &done); err != nil || busy != 0 {
		t.Fatalf("checkpoint the history: %v, busy %d", err, busy)
	}
}

// integrityCheck runs SQLite's integrity check on the history.
func integrityCheck(t *testing.T, db string) string {
	t.Helper()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var got string
	if err := raw.QueryRow("PRAGMA integrity_check").Scan(&got); err != nil {
		t.Fatal(err)
	}
	return got
}

// historyState says what a history holds after a fault, and fails the test
// when SQLite's integrity check does not pass: "integrity_check ok; runs:
// failed 1, succeeded 1".
func historyState(t *testing.T, db string) string {
	t.Helper()
	check := integrityCheck(t, db)
	if check != "ok" {
		t.Errorf("integrity_check: %s", check)
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query("SELECT status, COUNT(*) FROM runs GROUP BY status ORDER BY status")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var counts []string
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, fmt.Sprintf("%s %d", status, n))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return "integrity_check " + check + "; runs: " + strings.Join(counts, ", ")
}
