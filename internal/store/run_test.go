package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
)

var t0 = time.Date(2026, 3, 14, 9, 26, 53, 589793238, time.UTC)

func TestDB_CreateRun(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		db := MustOpenDB(t)
		run := fullRun("full")
		run.ID, run.CreatedAt = "", time.Time{}
		if err := db.CreateRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(run.ID, "r") || len(run.ID) != 17 {
			t.Errorf("ID = %q, want r + 16 characters", run.ID)
		}
		if run.CreatedAt.IsZero() || run.CreatedAt.Location() != time.UTC {
			t.Errorf("CreatedAt = %v, want now in UTC", run.CreatedAt)
		}
		got, err := db.FindRunByID(context.Background(), run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := mustJSON(t, got), mustJSON(t, run); got != want {
			t.Errorf("round trip:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("DefaultsToQueued", func(t *testing.T) {
		db := MustOpenDB(t)
		run := &bench.Run{Spec: bench.RunSpec{Targets: []string{bench.TargetGo}}}
		if err := db.CreateRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		if got, want := run.Status, bench.RunQueued; got != want {
			t.Errorf("Status = %q, want %q", got, want)
		}
	})
	t.Run("IDsSortByCreation", func(t *testing.T) {
		db := MustOpenDB(t)
		var ids []string
		for i := range 3 {
			run := &bench.Run{CreatedAt: t0.Add(time.Duration(i) * time.Millisecond)}
			if err := db.CreateRun(context.Background(), run); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, run.ID)
		}
		if !sort.StringsAreSorted(ids) {
			t.Errorf("IDs %v are not in creation order", ids)
		}
	})
	t.Run("ErrDuplicateID", func(t *testing.T) {
		db := MustOpenDB(t)
		mustCreate(t, db, &bench.Run{ID: "r1", CreatedAt: t0})
		err := db.CreateRun(context.Background(), &bench.Run{ID: "r1", CreatedAt: t0})
		if got, want := bench.ErrorCode(err), bench.ECONFLICT; got != want {
			t.Errorf("code = %q, want %q (%v)", got, want, err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		tests := []struct {
			name  string
			run   *bench.Run
			field string
		}{
			{"unknown status", &bench.Run{Status: "paused"}, "status"},
			{"target without name", &bench.Run{Targets: []bench.TargetResult{{}}}, "targets[0].target"},
			{"target twice", &bench.Run{Targets: []bench.TargetResult{{Target: "go"}, {Target: "go"}}}, "targets[1].target"},
		}
		db := MustOpenDB(t)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				run := *tt.run
				err := db.CreateRun(context.Background(), &run)
				if got, want := fieldOf(err), tt.field; got != want {
					t.Errorf("error %v: field %q, want %q", err, got, want)
				}
				if run.ID != "" {
					t.Errorf("a failed CreateRun set ID %q", run.ID)
				}
			})
		}
	})
}

func TestDB_CreateRuns(t *testing.T) {
	t.Run("PartsListEachOther", func(t *testing.T) {
		db := MustOpenDB(t)
		db.Now = func() time.Time { return t0 } // one instant: the parts still sort in order
		runs := []*bench.Run{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		if err := db.CreateRuns(context.Background(), runs); err != nil {
			t.Fatal(err)
		}
		want := []string{runs[0].ID, runs[1].ID, runs[2].ID}
		for _, run := range runs {
			got, err := db.FindRunByID(context.Background(), run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Parts, want) || !slices.Equal(run.Parts, want) {
				t.Errorf("run %s lists parts %v (stored %v), want %v", run.ID, run.Parts, got.Parts, want)
			}
			got.Status = bench.RunSucceeded
			if err := db.UpdateRun(context.Background(), got); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := db.FindRunByID(context.Background(), runs[1].ID); !slices.Equal(got.Parts, want) {
			t.Errorf("after an update, parts %v, want %v", got.Parts, want)
		}
		for _, run := range runs {
			run.Status = bench.RunQueued
			if err := db.UpdateRun(context.Background(), run); err != nil {
				t.Fatal(err)
			}
		}
		queued, err := db.QueuedRuns(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(queued); got != strings.Join(want, " ") {
			t.Errorf("queue %q, want the parts in order %v", got, want)
		}
	})
	t.Run("OneRunListsNoParts", func(t *testing.T) {
		db := MustOpenDB(t)
		run := &bench.Run{Name: "alone"}
		if err := db.CreateRuns(context.Background(), []*bench.Run{run}); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.FindRunByID(context.Background(), run.ID); got.Parts != nil || run.Parts != nil {
			t.Errorf("a run of its own lists parts %v (stored %v)", run.Parts, got.Parts)
		}
	})
	t.Run("AllOrNone", func(t *testing.T) {
		db := MustOpenDB(t)
		mustCreate(t, db, &bench.Run{ID: "r2", CreatedAt: t0})
		runs := []*bench.Run{{ID: "r1"}, {ID: "r2"}}
		if err := db.CreateRuns(context.Background(), runs); bench.ErrorCode(err) != bench.ECONFLICT {
			t.Fatalf("second run's ID taken: %v, want a conflict", err)
		}
		if _, err := db.FindRunByID(context.Background(), "r1"); bench.ErrorCode(err) != bench.ENOTFOUND {
			t.Errorf("the first run was stored alone: %v", err)
		}
		if runs[0].Parts != nil || !runs[0].CreatedAt.IsZero() {
			t.Errorf("a failed CreateRuns changed the run: %+v", runs[0])
		}
	})
}

func TestDB_UpdateRun(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		db := MustOpenDB(t)
		run := fullRun("update")
		run.Status, run.Targets, run.StartedAt, run.FinishedAt = bench.RunQueued, nil, nil, nil
		mustCreate(t, db, run)

		want := fullRun("update")
		want.ID, want.CreatedAt = run.ID, run.CreatedAt
		if err := db.UpdateRun(context.Background(), want); err != nil {
			t.Fatal(err)
		}
		got, err := db.FindRunByID(context.Background(), run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := mustJSON(t, got), mustJSON(t, want); got != want {
			t.Errorf("after update:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("KeepsSecondsWhenUpdateHasNone", func(t *testing.T) {
		db := MustOpenDB(t)
		run := fullRun("keep")
		mustCreate(t, db, run)
		listed := *run // as the queue holds it: without seconds
		listed.Targets = slices.Clone(run.Targets)
		for i := range listed.Targets {
			listed.Targets[i].Seconds = nil
		}
		listed.Name = "renamed"
		if err := db.UpdateRun(context.Background(), &listed); err != nil {
			t.Fatal(err)
		}
		got := mustFind(t, db, run.ID)
		if got, want := len(got.Targets[0].Seconds), len(run.Targets[0].Seconds); got != want || got == 0 {
			t.Errorf("seconds after update without them: %d, want %d", got, want)
		}
		if got, want := got.Name, "renamed"; got != want {
			t.Errorf("Name = %q, want %q", got, want)
		}
	})
	t.Run("DropsSecondsOfRemovedTargets", func(t *testing.T) {
		db := MustOpenDB(t)
		run := fullRun("drop")
		mustCreate(t, db, run)
		first := run.Targets[0].Target
		run.Targets = run.Targets[1:]
		if err := db.UpdateRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		// Put the removed target back without seconds: none must reappear.
		run.Targets = append(run.Targets, bench.TargetResult{Target: first, Status: bench.TargetPending})
		if err := db.UpdateRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		if got := mustFind(t, db, run.ID).Target(first).Seconds; len(got) != 0 {
			t.Errorf("removed target came back with %d seconds", len(got))
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		db := MustOpenDB(t)
		err := db.UpdateRun(context.Background(), &bench.Run{ID: "rnope", Status: bench.RunRunning})
		if got, want := bench.ErrorCode(err), bench.ENOTFOUND; got != want {
			t.Errorf("code = %q, want %q (%v)", got, want, err)
		}
	})
	t.Run("FailedUpdateKeepsPreviousState", func(t *testing.T) {
		db := MustOpenDB(t)
		run := fullRun("atomic")
		mustCreate(t, db, run)
		before := mustJSON(t, mustFind(t, db, run.ID))

		broken := *run
		broken.Status = bench.RunFailed
		broken.Targets = append([]bench.TargetResult{}, run.Targets...)
		broken.Targets = append(broken.Targets, run.Targets[0]) // a target twice
		if err := db.UpdateRun(context.Background(), &broken); err == nil {
			t.Fatal("update with a target twice succeeded")
		}
		// A value JSON cannot encode fails after the runs row was written.
		broken.Targets = append([]bench.TargetResult{}, run.Targets...)
		broken.Targets[2].Total = &bench.Stats{OfferedRate: math.NaN()}
		if err := db.UpdateRun(context.Background(), &broken); err == nil {
			t.Fatal("update with NaN succeeded")
		}
		if got := mustJSON(t, mustFind(t, db, run.ID)); got != before {
			t.Errorf("state changed by failed updates:\n got %s\nwant %s", got, before)
		}
	})
}

func TestDB_FindRunByID(t *testing.T) {
	t.Run("ErrNotFound", func(t *testing.T) {
		db := MustOpenDB(t)
		_, err := db.FindRunByID(context.Background(), "rnope")
		if got, want := bench.ErrorCode(err), bench.ENOTFOUND; got != want {
			t.Errorf("code = %q, want %q", got, want)
		}
		if got, want := bench.ErrorMessage(err), `run "rnope" not found`; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
	})
}

func TestDB_FindRunSummaries(t *testing.T) {
	db := MustOpenDB(t)
	// Six runs, a minute apart, two sharing a creation time so that the ID
	// breaks the tie.
	fixtures := []struct {
		id, name string
		status   bench.RunStatus
		targets  []string
		at       time.Duration
		labels   map[string]string
	}{
		{"ra", "nightly smoke", bench.RunSucceeded, []string{"go", "java-virtual"}, 0, map[string]string{"branch": "main", "build": "1"}},
		{"rb", "Nightly soak", bench.RunFailed, []string{"java-platform"}, time.Minute, map[string]string{"branch": "main", "build": "2"}},
		{"rc", "adhoc", bench.RunRunning, []string{"go"}, 2 * time.Minute, map[string]string{"branch": "mainline"}},
		{"rd", "adhoc 2", bench.RunQueued, []string{"java-virtual"}, 3 * time.Minute, nil},
		{"re", "tie low", bench.RunSucceeded, []string{"go"}, 4 * time.Minute, map[string]string{"main": "branch"}},
		{"rf", "tie high", bench.RunCanceled, []string{"go"}, 4 * time.Minute, nil},
	}
	for _, f := range fixtures {
		run := &bench.Run{ID: f.id, Name: f.name, Status: f.status, CreatedAt: t0.Add(f.at),
			Spec: bench.RunSpec{Name: f.name, Targets: f.targets, Labels: f.labels}}
		// Queued runs have no results yet: their targets are in the spec only.
		if f.status != bench.RunQueued {
			for _, name := range f.targets {
				run.Targets = append(run.Targets, bench.TargetResult{Target: name, Status: bench.TargetSucceeded,
					Seconds: []bench.Bucket{{Second: 0, Stats: bench.Stats{Requests: 10}}}})
			}
		}
		mustCreate(t, db, run)
	}
	at := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }

	tests := []struct {
		name   string
		filter bench.RunFilter
		want   string
	}{
		{"all, newest first, ID breaks ties", bench.RunFilter{}, "rf re rd rc rb ra"},
		{"one status", bench.RunFilter{Status: []bench.RunStatus{bench.RunSucceeded}}, "re ra"},
		{"any of statuses", bench.RunFilter{Status: []bench.RunStatus{bench.RunRunning, bench.RunQueued}}, "rd rc"},
		{"target in results", bench.RunFilter{Target: "java-platform"}, "rb"},
		{"target in spec or results", bench.RunFilter{Target: "java-virtual"}, "rd ra"},
		{"name substring, any case", bench.RunFilter{Name: "nightly"}, "rb ra"},
		{"name with LIKE characters", bench.RunFilter{Name: "%"}, ""},
		{"since inclusive", bench.RunFilter{Since: at(3 * time.Minute)}, "rf re rd"},
		{"until exclusive", bench.RunFilter{Until: at(2 * time.Minute)}, "rb ra"},
		{"since and until", bench.RunFilter{Since: at(time.Minute), Until: at(3 * time.Minute)}, "rc rb"},
		{"filters combine", bench.RunFilter{Target: "go", Status: []bench.RunStatus{bench.RunSucceeded}}, "re ra"},
		{"a label, its value exactly", bench.RunFilter{Labels: map[string]string{"branch": "main"}}, "rb ra"},
		{"every label given", bench.RunFilter{Labels: map[string]string{"branch": "main", "build": "2"}}, "rb"},
		{"a label no run carries", bench.RunFilter{Labels: map[string]string{"branch": "dev"}}, ""},
		{"limit", bench.RunFilter{Limit: 2}, "rf re"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, _, err := db.FindRunSummaries(context.Background(), tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := summaryIDs(runs); got != tt.want {
				t.Errorf("runs = %q, want %q", got, tt.want)
			}
		})
	}

	t.Run("SummariesKeepTargets", func(t *testing.T) {
		runs, _, err := db.FindRunSummaries(context.Background(), bench.RunFilter{Name: "nightly smoke"})
		if err != nil || len(runs) != 1 {
			t.Fatalf("FindRunSummaries = %d runs, %v", len(runs), err)
		}
		if got, want := len(runs[0].Targets), 2; got != want {
			t.Fatalf("targets = %d, want %d", got, want)
		}
		if got := runs[0].Labels; got["branch"] != "main" || got["build"] != "1" {
			t.Errorf("labels = %v, want the run's", got)
		}
	})
	t.Run("NoCursorOnLastPage", func(t *testing.T) {
		_, cursor, err := db.FindRunSummaries(context.Background(), bench.RunFilter{Limit: 6})
		if err != nil {
			t.Fatal(err)
		}
		if cursor != "" {
			t.Errorf("cursor = %q with no more runs", cursor)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		tests := []struct {
			name   string
			filter bench.RunFilter
			field  string
		}{
			{"limit over max", bench.RunFilter{Limit: store.MaxLimit + 1}, "limit"},
			{"negative limit", bench.RunFilter{Limit: -1}, "limit"},
			{"unknown status", bench.RunFilter{Status: []bench.RunStatus{"paused"}}, "status"},
			{"cursor of other characters", bench.RunFilter{Cursor: "!!!"}, "cursor"},
			{"cursor without separator", bench.RunFilter{Cursor: "123"}, "cursor"},
			{"cursor with bad time", bench.RunFilter{Cursor: "x.ra"}, "cursor"},
			{"cursor with time over 19 digits", bench.RunFilter{Cursor: "12345678901234567890.r1"}, "cursor"},
			{"cursor with empty ID", bench.RunFilter{Cursor: "12."}, "cursor"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, _, err := db.FindRunSummaries(context.Background(), tt.filter)
				if got, want := fieldOf(err), tt.field; got != want {
					t.Errorf("error %v: field %q, want %q", err, got, want)
				}
			})
		}
	})
}

func TestDB_FindRunSummaries_Pagination(t *testing.T) {
	db := MustOpenDB(t)
	const total = 23
	want := map[string]bool{}
	for i := range total {
		// Every third run shares its creation time with the one before.
		run := &bench.Run{Status: bench.RunSucceeded, CreatedAt: t0.Add(time.Duration(i-i%3/2) * time.Second)}
		mustCreate(t, db, run)
		want[run.ID] = true
	}
	seen := map[string]bool{}
	var prev *bench.RunSummary
	filter := bench.RunFilter{Limit: 5}
	for pages := 1; ; pages++ {
		runs, cursor, err := db.FindRunSummaries(context.Background(), filter)
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range runs {
			if seen[run.ID] {
				t.Errorf("page %d: %s seen twice", pages, run.ID)
			}
			seen[run.ID] = true
			if prev != nil && !newerFirst(prev, run) {
				t.Errorf("page %d: %s listed after %s", pages, run.ID, prev.ID)
			}
			prev = &run
		}
		if cursor == "" {
			if got, want := pages, 5; got != want {
				t.Errorf("pages = %d, want %d", got, want)
			}
			break
		}
		filter.Cursor = cursor
	}
	if got, want := len(seen), len(want); got != want {
		t.Errorf("listed %d runs, want %d", got, want)
	}
}

func TestDB_DeleteRun(t *testing.T) {
	tests := []struct {
		status bench.RunStatus
		code   string
	}{
		{bench.RunQueued, bench.ECONFLICT},
		{bench.RunRunning, bench.ECONFLICT},
		{bench.RunSucceeded, ""},
		{bench.RunFailed, ""},
		{bench.RunCanceled, ""},
		{bench.RunInterrupted, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			db := MustOpenDB(t)
			run := fullRun("delete")
			run.Status = tt.status
			mustCreate(t, db, run)
			err := db.DeleteRun(context.Background(), run.ID)
			if got := bench.ErrorCode(err); got != tt.code {
				t.Fatalf("code = %q, want %q (%v)", got, tt.code, err)
			}
			_, err = db.FindRunByID(context.Background(), run.ID)
			if got, want := err == nil, tt.code != ""; got != want {
				t.Errorf("run still there: %v, want %v", got, want)
			}
		})
	}
	t.Run("Cascades", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "history.db")
		db := mustOpenPath(t, path)
		run := fullRun("cascade")
		mustCreate(t, db, run)
		ctx := context.Background()
		if err := db.SaveSeries(ctx, run.ID, "go", []bench.Series{{Name: "go_goroutines"}}); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveExposition(ctx, run.ID, "go", bench.Exposition{At: "end", Text: "x 1\n"}); err != nil {
			t.Fatal(err)
		}
		mustSaveArtifact(t, db, run.ID, bench.Artifact{Target: "go", Kind: bench.ArtifactJFR}, []byte("recording"))
		if err := db.DeleteRun(ctx, run.ID); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"runs", "run_targets", "run_seconds", "series", "expositions", "artifacts", "artifact_chunks"} {
			if got := countRows(t, path, table); got != 0 {
				t.Errorf("%s has %d rows after delete", table, got)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		db := MustOpenDB(t)
		err := db.DeleteRun(context.Background(), "rnope")
		if got, want := bench.ErrorCode(err), bench.ENOTFOUND; got != want {
			t.Errorf("code = %q, want %q", got, want)
		}
	})
}

func TestDB_InterruptRunning(t *testing.T) {
	db := MustOpenDB(t)
	now := t0.Add(time.Hour)
	db.Now = func() time.Time { return now }
	running := fullRun("running")
	running.Status, running.FinishedAt = bench.RunRunning, nil
	running.Targets[1].Status = bench.TargetRunning
	running.Targets[2].Status = bench.TargetPending
	mustCreate(t, db, running)
	mustCreate(t, db, &bench.Run{ID: "rqueued", CreatedAt: t0, Status: bench.RunQueued})
	mustCreate(t, db, &bench.Run{ID: "rdone", CreatedAt: t0, Status: bench.RunSucceeded})

	ids, err := db.InterruptRunning(context.Background(), "daemon restarted")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(ids, " "), running.ID; got != want {
		t.Errorf("interrupted %q, want %q", got, want)
	}
	got := mustFind(t, db, running.ID)
	if got.Status != bench.RunInterrupted || got.Error != "daemon restarted" || got.FinishedAt == nil || !got.FinishedAt.Equal(now) {
		t.Errorf("run = %s %q finished %v, want interrupted %q finished %v", got.Status, got.Error, got.FinishedAt, "daemon restarted", now)
	}
	wantTargets := []bench.TargetStatus{bench.TargetSucceeded, bench.TargetFailed, bench.TargetSkipped}
	for i, want := range wantTargets {
		if got := got.Targets[i].Status; got != want {
			t.Errorf("target %d status = %q, want %q", i, got, want)
		}
	}
	if got, want := len(got.Targets[0].Seconds), len(running.Targets[0].Seconds); got != want {
		t.Errorf("seconds after interrupt = %d, want %d", got, want)
	}
	for id, want := range map[string]bench.RunStatus{"rqueued": bench.RunQueued, "rdone": bench.RunSucceeded} {
		if got := mustFind(t, db, id).Status; got != want {
			t.Errorf("%s status = %q, want %q", id, got, want)
		}
	}
	if ids, err := db.InterruptRunning(context.Background(), "again"); err != nil || len(ids) != 0 {
		t.Errorf("second InterruptRunning = %v, %v; want none", ids, err)
	}
}

func TestDB_QueuedRuns(t *testing.T) {
	db := MustOpenDB(t)
	for _, r := range []struct {
		id     string
		status bench.RunStatus
		at     time.Duration
	}{
		{"r3", bench.RunQueued, 3 * time.Second},
		{"r1", bench.RunQueued, time.Second},
		{"r0", bench.RunSucceeded, 0},
		{"r2", bench.RunRunning, 2 * time.Second},
		{"r4b", bench.RunQueued, 4 * time.Second},
		{"r4a", bench.RunQueued, 4 * time.Second},
	} {
		mustCreate(t, db, &bench.Run{ID: r.id, Status: r.status, CreatedAt: t0.Add(r.at)})
	}
	runs, err := db.QueuedRuns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(runs), "r1 r3 r4a r4b"; got != want {
		t.Errorf("queue = %q, want %q", got, want)
	}
}

func TestDB_ConcurrentWriters(t *testing.T) {
	db := MustOpenDB(t)
	const writers, perWriter = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				run := fullRun(fmt.Sprintf("w%d-%d", w, i))
				run.ID, run.CreatedAt = "", time.Time{}
				if err := db.CreateRun(context.Background(), run); err != nil {
					errs <- err
					continue
				}
				run.Status = bench.RunFailed
				if err := db.UpdateRun(context.Background(), run); err != nil {
					errs <- err
				}
				// Readers run beside the writers.
				if _, _, err := db.FindRunSummaries(context.Background(), bench.RunFilter{Limit: 5}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	runs, _, err := db.FindRunSummaries(context.Background(), bench.RunFilter{Limit: store.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(runs), writers*perWriter; got != want {
		t.Errorf("stored %d runs, want %d", got, want)
	}
}

func TestDB_TwoHandlesOnOneFile(t *testing.T) {
	// The CLI and the daemon may open the same file at once.
	path := filepath.Join(t.TempDir(), "history.db")
	a, b := mustOpenPath(t, path), mustOpenPath(t, path)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for _, db := range []*store.DB{a, b} {
		wg.Go(func() {
			for range 20 {
				run := fullRun("two")
				run.ID = ""
				if err := db.CreateRun(context.Background(), run); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, want := countRows(t, path, "runs"), 40; got != want {
		t.Errorf("runs = %d, want %d", got, want)
	}
}

// fullRun returns a finished run document with every part filled in: three
// targets with stages, warm-up, totals, histograms, resources and seconds.
func fullRun(name string) *bench.Run {
	started, finished := t0.Add(time.Second), t0.Add(10*time.Minute)
	run := &bench.Run{
		ID:        "r" + strings.ReplaceAll(name, " ", "-"),
		Name:      name,
		Status:    bench.RunSucceeded,
		CreatedAt: t0,
		StartedAt: &started, FinishedAt: &finished,
		// The services' results are kept with the run (issue 49).
		Database: &bench.DatabaseResult{Kind: bench.DatabasePostgres, Status: bench.TargetSucceeded, Address: "127.0.0.1:45432",
			Pool: 10, Settings: map[string]string{"database.version": "PostgreSQL 15.18"}, StartupMs: 1250},
		Downstream: &bench.DownstreamResult{Target: bench.TargetJavaPlatform, Status: bench.TargetSucceeded, URL: "http://127.0.0.1:41234"},
		Spec: bench.RunSpec{
			Name:    name,
			Targets: []string{bench.TargetGo, bench.TargetJavaPlatform, bench.TargetJavaVirtual},
			Profile: bench.Profile{Name: "ramp", Model: bench.ModelOpen, Stages: []bench.Stage{
				{Name: "up", Duration: bench.Duration(time.Minute), Rate: 500, Ramp: true},
				{Name: "hold", Duration: bench.Duration(9 * time.Minute), Rate: 500},
			}},
			Workload: bench.Workload{Requests: []bench.Request{
				{Endpoint: "heavy", Params: map[string]string{"duration": "200"}, Weight: 3},
				{Endpoint: "light", Weight: 1},
			}, Timeout: bench.DefaultTimeout},
			Warmup: bench.Warmup{Duration: bench.DefaultWarmupDuration, Rate: 50},
			Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024},
			Java:   bench.JavaOptions{TomcatMaxThreads: 200, HeapPercent: 50, GC: "G1"},
		},
		Environment: bench.Environment{Machine: bench.Machine{Host: "bench-1", OS: "linux", CPUs: 2, MemoryBytes: 24 << 30,
			DockerVersion: "20.10", CgroupVersion: "v1"}, LoadCPUSet: "0", TargetCPUSet: "1", CPUSplitApplied: true},
	}
	for i, target := range run.Spec.Targets {
		run.Targets = append(run.Targets, fullTarget(target, 600, started.Add(time.Duration(i)*3*time.Minute)))
	}
	return run
}

func fullTarget(name string, seconds int, started time.Time) bench.TargetResult {
	finished := started.Add(time.Duration(seconds) * time.Second)
	stats := func(n int64) bench.Stats {
		return bench.Stats{Requests: n, Successes: n - 1, OfferedRate: 500.25, Throughput: 499.75,
			Elapsed: bench.Duration(time.Second), StatusCodes: map[string]int64{"200": n - 1, "0": 1},
			Errors: []bench.ErrorCount{{Message: "timeout", Count: 1}}, BytesIn: n * 100, BytesOut: n * 10,
			Latency:   bench.Latency{Min: 0.1, Mean: 201.5, P50: 200.1, P90: 203, P95: 210, P99: 250.5, P999: 300, Max: 512.25},
			Histogram: "HISTFAAAACl4nJNpmSzMwMDAxQABzFCaEUzOmNZg/wEi0NzIyMDEBBRm5GIAAGR3BKY="}
	}
	t := bench.TargetResult{
		Target: name, Status: bench.TargetSucceeded,
		Image:  bench.ImageInfo{Ref: "threadbench/" + name + ":abc", ID: "sha256:abc", Runtime: "go1.26", Cached: true},
		Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024}, CPUSet: "1",
		Settings:  map[string]string{"GOMAXPROCS": "1"},
		StartupMs: 412.5,
		Warmup:    &bench.StageResult{Index: -1, Warmup: true, Model: bench.ModelOpen, Duration: bench.Duration(10 * time.Second), Rate: 50, Stats: stats(500)},
		Stages: []bench.StageResult{
			{Index: 0, Name: "up", Model: bench.ModelOpen, Duration: bench.Duration(time.Minute), Rate: 500, Stats: stats(15000)},
			{Index: 1, Name: "hold", Model: bench.ModelOpen, StartOffset: bench.Duration(time.Minute), Duration: bench.Duration(9 * time.Minute), Rate: 500, Stats: stats(270000)},
		},
		Resources: []bench.StageResources{{Stage: 0, Threads: map[string]bench.Gauge{bench.ThreadGoroutine: {Peak: 120, Mean: 100}}, Memory: map[string]bench.Gauge{bench.MemoryWorkingSet: {Peak: 5e7, Mean: 4e7}}}},
		Series:    []string{"go_goroutines"},
		StartedAt: &started, FinishedAt: &finished,
	}
	total := stats(285000)
	t.Total = &total
	for s := range seconds {
		t.Seconds = append(t.Seconds, bench.Bucket{Second: s, Stage: min(s/60, 1), Stats: stats(int64(500 + s))})
	}
	return t
}

// ids returns the runs' IDs, space separated.
func ids(runs []*bench.Run) string {
	var out []string
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return strings.Join(out, " ")
}

// summaryIDs returns the listed runs' IDs, space separated.
func summaryIDs(runs []bench.RunSummary) string {
	var out []string
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return strings.Join(out, " ")
}

func newerFirst(a *bench.RunSummary, b bench.RunSummary) bool {
	return a.CreatedAt.After(b.CreatedAt) || a.CreatedAt.Equal(b.CreatedAt) && a.ID > b.ID
}

func mustCreate(t *testing.T, db *store.DB, run *bench.Run) {
	t.Helper()
	if err := db.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
}

func mustFind(t *testing.T, db *store.DB, id string) *bench.Run {
	t.Helper()
	run, err := db.FindRunByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fieldOf returns the field of an EINVALID error, or the error's code
// otherwise, so that a wrong kind of error never passes.
func fieldOf(err error) string {
	if bench.ErrorCode(err) != bench.EINVALID {
		return "code " + bench.ErrorCode(err)
	}
	var e *bench.Error
	if !errors.As(err, &e) {
		return ""
	}
	return e.Field
}

// Listing reads summaries: each result's headline by its key, flags, and
// the same filters and pages.
func TestFindRunSummaries(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	full := fullRun("with-results")
	full.Targets[0].Stages[0].Flags = []bench.Flag{{Kind: bench.FlagGeneratorBound, Reason: "send lag p99 9 ms"}}
	if err := db.CreateRun(ctx, full); err != nil {
		t.Fatal(err)
	}
	queued := &bench.Run{Name: "queued", Status: bench.RunQueued, Spec: bench.RunSpec{Targets: []string{"go"},
		Cases: []bench.Case{{Name: "one-carrier", Target: "java-virtual"}}}}
	if err := db.CreateRun(ctx, queued); err != nil {
		t.Fatal(err)
	}
	got, next, err := db.FindRunSummaries(ctx, bench.RunFilter{Limit: 1})
	if err != nil || len(got) != 1 || next == "" {
		t.Fatalf("first page: %+v, %q, %v", got, next, err)
	}
	if s := got[0]; s.ID != queued.ID || len(s.Targets) != 1 || s.Targets[0].Key != "one-carrier" || s.Targets[0].Status != bench.TargetPending {
		t.Errorf("queued run's summary %+v, want its case pending", s)
	}
	got, _, err = db.FindRunSummaries(ctx, bench.RunFilter{Limit: 1, Cursor: next})
	if err != nil || len(got) != 1 {
		t.Fatalf("second page: %+v, %v", got, err)
	}
	s := got[0].Targets[0]
	want := full.Targets[0].Total
	if got[0].ID != full.ID || s.Throughput != want.Throughput || s.P99 != want.Latency.P99 || len(s.Flags) != 1 || s.Flags[0] != bench.FlagGeneratorBound {
		t.Errorf("summary %+v, want the run's headline and its flag", got[0])
	}
	if only, _, _ := db.FindRunSummaries(ctx, bench.RunFilter{Name: "queued"}); len(only) != 1 || only[0].ID != queued.ID {
		t.Errorf("name filter: %+v", only)
	}
	// An update rewrites the summary.
	queued.Status = bench.RunCanceled
	if err := db.UpdateRun(ctx, queued); err != nil {
		t.Fatal(err)
	}
	if again, _, _ := db.FindRunSummaries(ctx, bench.RunFilter{Name: "queued"}); again[0].Status != bench.RunCanceled {
		t.Errorf("summary not updated: %+v", again[0])
	}
}

// A run stored with labels before summaries carried them gets them in its
// summary when the history is opened once more (migration 0007).
func TestLabelledRunsAreSummarisedAgain(t *testing.T) {
	run := fullRun("labelled")
	run.Spec.Labels = map[string]string{"branch": "main"}
	got := reopenedSummaries(t, run, `UPDATE runs SET summary = json_remove(summary, '$.labels')`,
		`DELETE FROM schema_migrations WHERE name LIKE '%0007_summary_labels%'`)
	if len(got) != 1 || got[0].Labels["branch"] != "main" {
		t.Fatalf("summaries after reopening: %+v; want the run's label", got)
	}
}

// Runs stored before summaries existed get theirs when the history is opened.
func TestOldRunsAreSummarisedOnOpen(t *testing.T) {
	run := fullRun("old")
	got := reopenedSummaries(t, run, `UPDATE runs SET summary = ''`)
	if len(got) != 1 || got[0].ID != run.ID || len(got[0].Targets) != len(run.Targets) {
		t.Fatalf("summaries after reopening: %+v", got)
	}
}

// reopenedSummaries stores run in a new history, changes the file behind
// the store's back with stmts (each changing one row), as an older
// version left it, and returns the summaries once the history is opened
// again.
func reopenedSummaries(t *testing.T, run *bench.Run, stmts ...string) []bench.RunSummary {
	t.Helper()
	path := t.TempDir() + "/history.db"
	db := store.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range stmts {
		if res, err := raw.Exec(stmt); err != nil {
			t.Fatal(err)
		} else if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%s: %d rows, want 1", stmt, n)
		}
	}
	raw.Close()
	db = store.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, _, err := db.FindRunSummaries(context.Background(), bench.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestDB_FindRunSummaries_AnyCursorOfItsShape checks what api/openapi.yaml
// promises: a cursor of the documented shape is a position in the history,
// whether or not a page returned it, so it lists the runs older than it.
func TestDB_FindRunSummaries_AnyCursorOfItsShape(t *testing.T) {
	db := MustOpenDB(t)
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		mustCreate(t, db, &bench.Run{Status: bench.RunSucceeded, CreatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	tests := []struct {
		cursor string
		want   int
	}{
		{"0.0", 0},                     // before the first run: an empty page
		{"9999999999999999999.zzz", 3}, // after the last (and int64's end): every run
		{fmt.Sprintf("%d.a", t0.Add(time.Second).UnixNano()), 1}, // between: the older one
	}
	for _, tt := range tests {
		runs, _, err := db.FindRunSummaries(context.Background(), bench.RunFilter{Cursor: tt.cursor})
		if err != nil {
			t.Fatalf("cursor %q: %v", tt.cursor, err)
		}
		if got := len(runs); got != tt.want {
			t.Errorf("cursor %q: %d runs, want %d", tt.cursor, got, tt.want)
		}
	}
}

// TestDB_FindRunSummaries_EmptyWindow checks that an until before since
// is an empty page, as api/openapi.yaml says, not an error.
func TestDB_FindRunSummaries_EmptyWindow(t *testing.T) {
	db := MustOpenDB(t)
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	mustCreate(t, db, &bench.Run{Status: bench.RunSucceeded, CreatedAt: t0})
	since, until := t0.Add(-time.Hour), t0.Add(time.Hour)
	runs, _, err := db.FindRunSummaries(context.Background(), bench.RunFilter{Since: &until, Until: &since})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 {
		t.Errorf("%d runs in an empty window", len(runs))
	}
	if runs, _, _ = db.FindRunSummaries(context.Background(), bench.RunFilter{Since: &since, Until: &until}); len(runs) != 1 {
		t.Errorf("%d runs in the window around the one run, want 1", len(runs))
	}
}
