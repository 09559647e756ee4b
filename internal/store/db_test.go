package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
)

// MustOpenDB opens a database in a fresh temporary directory and closes it
// when the test ends.
func MustOpenDB(tb testing.TB) *store.DB {
	tb.Helper()
	return mustOpenPath(tb, filepath.Join(tb.TempDir(), "history.db"))
}

func mustOpenPath(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db := store.NewDB(path)
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

func TestDefaultPath(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"explicit file wins", map[string]string{"THREADBENCH_DB": "/x/h.db", "XDG_DATA_HOME": "/d", "HOME": "/h"}, "/x/h.db"},
		{"XDG data home", map[string]string{"XDG_DATA_HOME": "/d", "HOME": "/h"}, "/d/threadbench/history.db"},
		{"home", map[string]string{"HOME": "/h"}, "/h/.local/share/threadbench/history.db"},
		{"nothing set: working directory", map[string]string{}, "history.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := store.DefaultPath(getenv); got != tt.want {
				t.Errorf("DefaultPath = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDB_Open(t *testing.T) {
	t.Run("CreatesDirectoryAndUsesWAL", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "a", "b", "history.db")
		mustOpenPath(t, path)
		if got, want := pragma(t, path, "journal_mode"), "wal"; got != want {
			t.Errorf("journal_mode = %q, want %q", got, want)
		}
	})
	t.Run("ReopenKeepsDataAndAppliesMigrationsOnce", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "history.db")
		db := store.NewDB(path)
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		run := fullRun("reopen")
		if err := db.CreateRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		migrations := countRows(t, path, "schema_migrations")

		db = mustOpenPath(t, path)
		got, err := db.FindRunByID(context.Background(), run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := mustJSON(t, got), mustJSON(t, run); got != want {
			t.Errorf("after reopen:\n got %s\nwant %s", got, want)
		}
		if got := countRows(t, path, "schema_migrations"); got != migrations || got == 0 {
			t.Errorf("schema_migrations has %d rows after reopen, want %d (and not 0)", got, migrations)
		}
	})
	t.Run("ErrPathWithQuestionMark", func(t *testing.T) {
		db := store.NewDB(filepath.Join(t.TempDir(), "what?.db"))
		if err := db.Open(); bench.ErrorCode(err) != bench.EINVALID {
			t.Fatalf("Open = %v, want EINVALID", err)
		}
	})
	t.Run("Memory", func(t *testing.T) {
		db := mustOpenPath(t, store.MemoryPath)
		run := fullRun("memory")
		if err := db.CreateRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		if _, err := db.FindRunByID(context.Background(), run.ID); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrNotOpen", func(t *testing.T) {
		db := store.NewDB(filepath.Join(t.TempDir(), "history.db"))
		if _, err := db.FindRunByID(context.Background(), "r1"); bench.ErrorCode(err) != bench.EUNAVAILABLE {
			t.Fatalf("FindRunByID before Open = %v, want EUNAVAILABLE", err)
		}
	})
}

// pragma reads a pragma through a connection of its own.
func pragma(t *testing.T, path, name string) string {
	t.Helper()
	var v string
	withRawDB(t, path, func(raw *sql.DB) error { return raw.QueryRow("PRAGMA " + name).Scan(&v) })
	return v
}

func countRows(t *testing.T, path, table string) int {
	t.Helper()
	var n int
	withRawDB(t, path, func(raw *sql.DB) error { return raw.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n) })
	return n
}

// withRawDB opens the file with the driver directly, to look at what the
// store wrote without going through it.
func withRawDB(t *testing.T, path string, fn func(*sql.DB) error) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := fn(raw); err != nil {
		t.Fatal(err)
	}
}

// Each history has an identity of its own, kept across reopening.
func TestHistoryID(t *testing.T) {
	dir := t.TempDir()
	ids := map[string]string{}
	for _, name := range []string{"a.db", "b.db", "a.db"} {
		db := store.NewDB(dir + "/" + name)
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		id, err := db.HistoryID(context.Background())
		db.Close()
		if err != nil || len(id) != 16 {
			t.Fatalf("%s: HistoryID = %q, %v", name, id, err)
		}
		if prev, ok := ids[name]; ok && prev != id {
			t.Errorf("%s: identity changed on reopening: %s then %s", name, prev, id)
		}
		ids[name] = id
	}
	if ids["a.db"] == ids["b.db"] {
		t.Error("two histories share an identity")
	}
}
