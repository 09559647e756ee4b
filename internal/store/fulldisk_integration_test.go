//go:build integration

package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/store/storetest"
)

// fullDiskBytes is the size of the file system the test fills: room for
// the history, its reserve and a recording with its margin, and little
// more, so that filling it is quick.
const fullDiskBytes = 32 << 20

// The history on a file system that fills while a run is stored: writes
// fail naming the disk, a recording is refused before any of it is
// written, the run is still recorded as failed (in the room the history
// keeps in reserve), nothing stored before is lost, reads go on, and once
// space is freed writes work again on the same handle, reserve and all.
func TestFullDisk(t *testing.T) {
	begin := time.Now()
	dir := storetest.MountSmallDisk(t, fullDiskBytes)
	path := filepath.Join(dir, "history.db")
	db := mustOpenPath(t, path)
	ctx := context.Background()

	earlier := []*bench.Run{fullRun("earlier one"), fullRun("earlier two")}
	recording := bench.Artifact{Target: bench.TargetJavaVirtual, Kind: bench.ArtifactJFR}
	for _, run := range earlier {
		mustCreate(t, db, run)
		mustSaveArtifact(t, db, run.ID, recording, bytes.Repeat([]byte("jfr"), 100_000))
	}
	before := map[string]string{}
	for _, run := range earlier {
		before[run.ID] = mustJSON(t, mustFind(t, db, run.ID))
	}
	if fi, err := os.Stat(path + "-reserve"); err != nil || fi.Size() != store.DefaultReserveBytes {
		t.Fatalf("reserve beside the history: %v, %v; want %d bytes", fi, err, store.DefaultReserveBytes)
	}
	current := fullRun("current")
	current.Status, current.FinishedAt = bench.RunRunning, nil
	mustCreate(t, db, current)

	// Every write from here on needs new room: the WAL holds nothing.
	withRawDB(t, path, func(raw *sql.DB) error { _, err := raw.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); return err })
	ballast := filepath.Join(dir, "ballast")
	storetest.FillDisk(t, ballast, 0)
	t.Logf("disk full after %s: %s", time.Since(begin).Round(time.Millisecond), freeOf(t, dir))

	t.Run("WriteFailsNamingTheDisk", func(t *testing.T) {
		current.Targets[0].Seconds = append(current.Targets[0].Seconds, current.Targets[0].Seconds...)
		err := db.UpdateRun(ctx, current)
		checkNoSpace(t, err, path, dir)
		t.Logf("the user reads: %s", bench.ErrorMessage(err))
		err = db.CreateRun(ctx, fullRun("submitted"))
		checkNoSpace(t, err, path, dir)
	})
	t.Run("RecordingRefusedBeforeWriting", func(t *testing.T) {
		checkRecordingRefused(t, db, dir, current.ID)
	})
	t.Run("RunStillRecordedFailed", func(t *testing.T) {
		// As the runner writes it: its state, without the seconds that
		// did not fit.
		failed := *current
		failed.Status, failed.Error = bench.RunFailed, "the run could not be stored: no space left"
		failed.FinishedAt = &t0
		failed.Targets = slices.Clone(current.Targets)
		for i := range failed.Targets {
			failed.Targets[i].Seconds = nil
		}
		if err := db.UpdateRun(ctx, &failed); err != nil {
			t.Fatalf("the write that finishes a run, on a full disk: %v", err)
		}
		if got := mustFind(t, db, current.ID); got.Status != bench.RunFailed || got.Error != failed.Error {
			t.Errorf("run after the full disk: %s %q, want failed with its reason", got.Status, got.Error)
		}
		if _, err := os.Stat(path + "-reserve"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("reserve after it was used: %v, want it given back", err)
		}
	})
	t.Run("NothingStoredIsLost", func(t *testing.T) {
		checkIntact(t, db, path, earlier, before)
	})

	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	t.Logf("ballast removed after %s: %s", time.Since(begin).Round(time.Millisecond), freeOf(t, dir))
	t.Run("WritesAgainOnceFreed", func(t *testing.T) {
		next := fullRun("after")
		mustCreate(t, db, next)
		mustSaveArtifact(t, db, next.ID, recording, bytes.Repeat([]byte("jfr"), 100_000))
		if fi, err := os.Stat(path + "-reserve"); err != nil || fi.Size() != store.DefaultReserveBytes {
			t.Errorf("reserve once the disk has room: %v, %v; want it made again", fi, err)
		}
		checkIntact(t, db, path, earlier, before)
	})
	t.Run("RecordingRefusedWithSomeRoomLeft", func(t *testing.T) {
		// Room for the recording itself, not for it twice with the margin.
		storetest.FillDisk(t, ballast, 3<<20)
		defer os.Remove(ballast)
		checkRecordingRefused(t, db, dir, current.ID)
	})
	t.Logf("whole test %s", time.Since(begin).Round(time.Millisecond))
}

func freeOf(t *testing.T, dir string) string {
	t.Helper()
	return strconv.FormatUint(storetest.FreeBytes(t, dir)>>10, 10) + " KiB free"
}

// checkNoSpace requires the error of a write on a full disk: unavailable,
// in words that name the history's file, its file system and its room.
func checkNoSpace(t *testing.T, err error, path, mount string) {
	t.Helper()
	if err == nil {
		t.Fatal("a write on a full disk succeeded")
	}
	msg := bench.ErrorMessage(err)
	for _, want := range []string{"no space left on device", path, "the file system at " + mount + " has", " free of 32.0 MiB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	if code := bench.ErrorCode(err); code != bench.EUNAVAILABLE {
		t.Errorf("code %s, want %s", code, bench.EUNAVAILABLE)
	}
}

// checkRecordingRefused requires a recording of a megabyte to be refused
// for want of room, before any of it is written.
func checkRecordingRefused(t *testing.T, db *store.DB, dir, runID string) {
	t.Helper()
	free := storetest.FreeBytes(t, dir)
	kept, err := db.Artifacts(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	a := bench.Artifact{Target: bench.TargetGo, Stage: new(int), Kind: bench.ArtifactPprof, Bytes: 1 << 20}
	err = db.SaveArtifact(context.Background(), runID, a, bytes.NewReader(make([]byte, a.Bytes)))
	if err == nil {
		t.Fatalf("a recording of 1 MiB kept with %d KiB free", free>>10)
	}
	msg := bench.ErrorMessage(err)
	t.Logf("the run's note reads: %s not kept: %s", a.FileName(), msg)
	for _, want := range []string{"no room for it beside the run history " + filepath.Join(dir, "history.db"), "the file system at " + dir, "needs 18.0 MiB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	if got := storetest.FreeBytes(t, dir); got != free {
		t.Errorf("free space went from %d to %d bytes: the refused recording was written", free, got)
	}
	if got, err := db.Artifacts(context.Background(), runID); err != nil || len(got) != len(kept) {
		t.Errorf("the run's files after the refusal: %v, %v; want the %d it had", got, err, len(kept))
	}
}

// checkIntact requires the history to pass SQLite's integrity check and
// the earlier runs to read back as they were, their recordings with them.
func checkIntact(t *testing.T, db *store.DB, path string, earlier []*bench.Run, before map[string]string) {
	t.Helper()
	if got := pragma(t, path, "integrity_check"); got != "ok" {
		t.Errorf("integrity_check: %s", got)
	}
	for _, run := range earlier {
		if got := mustJSON(t, mustFind(t, db, run.ID)); got != before[run.ID] {
			t.Errorf("run %s changed:\n got %s\nwant %s", run.ID, got, before[run.ID])
		}
		var buf bytes.Buffer
		if err := db.WriteArtifact(context.Background(), run.ID, bench.Artifact{Target: bench.TargetJavaVirtual, Kind: bench.ArtifactJFR}, &buf); err != nil || buf.Len() != 300_000 {
			t.Errorf("run %s's recording: %v, %d bytes; want 300000", run.ID, err, buf.Len())
		}
	}
	summaries, _, err := db.FindRunSummaries(context.Background(), bench.RunFilter{})
	if err != nil || len(summaries) < len(earlier) {
		t.Errorf("listing runs: %v, %d runs", err, len(summaries))
	}
}
