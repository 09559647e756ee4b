// Package store keeps threadbench's run history in SQLite (modernc.org/sqlite,
// no cgo). It implements bench.RunStore and bench.SeriesStore.
//
// Every exported method runs in one transaction and calls unexported helpers
// that take the transaction, so a failed write leaves the previous state
// intact. Writers in this process take turns on a single slot before they
// begin (BEGIN IMMEDIATE), which keeps them off SQLite's busy-retry loop;
// busy_timeout covers writers in other processes, such as the CLI writing
// while the daemon runs. Readers use deferred read-only transactions, which
// WAL lets run beside the writer.
package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// MemoryPath opens a private in-memory database, for throw-away use.
const MemoryPath = ":memory:"

// busyTimeout is how long a write waits for another process's write.
const busyTimeout = 10 * time.Second

// maxOpenConns bounds the pool: WAL readers do not block each other, but
// each connection carries its own page cache.
const maxOpenConns = 8

// Compile-time checks that DB is the store the domain asks for.
var (
	_ bench.RunStore    = (*DB)(nil)
	_ bench.SeriesStore = (*DB)(nil)
)

// DB is the run history in one SQLite file. Create it with NewDB, then Open
// it; it is safe for concurrent use.
type DB struct {
	sql       *sql.DB
	path      string
	writeSlot chan struct{}

	// Now returns the current time; tests replace it.
	Now func() time.Time
	// RunArtifactBytes bounds the files a run keeps (SaveArtifact);
	// bench.MaxRunArtifactBytes when 0.
	RunArtifactBytes int64
	// ReserveBytes is the room kept on the history's disk for the write
	// that finishes a run (space.go); DefaultReserveBytes when 0, none
	// when negative.
	ReserveBytes int64

	reserveHeld bool // the reserve is on disk; read and set by Open, then in the write slot
}

// NewDB returns a DB for the file at path (MemoryPath for a private
// in-memory database). It touches nothing until Open.
func NewDB(path string) *DB {
	return &DB{
		path:      path,
		writeSlot: make(chan struct{}, 1),
		Now:       time.Now,
	}
}

// DefaultPath returns where the history lives: $THREADBENCH_DB, else
// $XDG_DATA_HOME/threadbench/history.db, else
// $HOME/.local/share/threadbench/history.db, else history.db in the
// working directory. getenv is os.Getenv outside tests.
func DefaultPath(getenv func(string) string) string {
	if p := getenv("THREADBENCH_DB"); p != "" {
		return p
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "threadbench", "history.db")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "threadbench", "history.db")
	}
	return "history.db"
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Open creates the file's directory if needed, opens the database in WAL
// mode with foreign keys on, and applies any migrations not yet applied.
func (db *DB) Open() error {
	if db.path == "" {
		return bench.FieldErrorf("db", "database path is required")
	}
	// The driver reads everything after the first '?' as parameters.
	if strings.ContainsRune(db.path, '?') {
		return bench.FieldErrorf("db", "database path %q must not contain '?'", db.path)
	}
	if db.path != MemoryPath {
		if err := os.MkdirAll(filepath.Dir(db.path), 0o755); err != nil {
			return fmt.Errorf("create database directory: %w", err)
		}
	}
	sqlDB, err := sql.Open("sqlite", db.dsn())
	if err != nil {
		return fmt.Errorf("open database %s: %w", db.path, err)
	}
	sqlDB.SetMaxOpenConns(maxOpenConns)
	sqlDB.SetMaxIdleConns(maxOpenConns)
	if db.path == MemoryPath {
		// Each connection to ":memory:" is a database of its own.
		sqlDB.SetMaxOpenConns(1)
	}
	db.sql = sqlDB
	if err := db.migrate(context.Background()); err != nil {
		sqlDB.Close()
		db.sql = nil
		return fmt.Errorf("migrate database %s: %w", db.path, err)
	}
	if err := db.summarizeOld(context.Background()); err != nil {
		sqlDB.Close()
		db.sql = nil
		return fmt.Errorf("summarise runs in %s: %w", db.path, err)
	}
	db.holdReserve()
	return nil
}

// dsn returns the driver's data source name. Writes begin IMMEDIATE so
// that a writer takes the lock up front instead of failing to upgrade a
// read lock halfway; read-only transactions stay deferred.
func (db *DB) dsn() string {
	params := []string{
		fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeout.Milliseconds()),
		"_pragma=foreign_keys(1)",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(NORMAL)",
		"_txlock=immediate",
	}
	return db.path + "?" + strings.Join(params, "&")
}

// Close closes the database once every call in flight has returned; call
// it after the last use. It is safe to call on a DB that never opened.
func (db *DB) Close() error {
	if db.sql == nil {
		return nil
	}
	err := db.sql.Close()
	db.sql = nil
	return err
}

// migrate applies, in name order, every embedded migration not yet recorded
// in schema_migrations, each in its own transaction with its record.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name       TEXT PRIMARY KEY,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if err := db.write(ctx, func(tx *sql.Tx) error { return db.applyMigration(ctx, tx, name) }); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

// applyMigration runs one migration unless it is recorded as applied. The
// check is inside the write transaction, so two processes opening a new
// file at once apply it once.
func (db *DB) applyMigration(ctx context.Context, tx *sql.Tx, name string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	} else if n > 0 {
		return nil
	}
	text, err := migrationFS.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(text)); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, name, db.Now().UnixNano())
	return err
}

// write runs fn in a write transaction and commits it if fn succeeds. A
// write the disk has no room for fails with noSpace's error.
func (db *DB) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.writeTx(ctx, false, fn)
}

// finishWrite is write for the write that records how a run ended: when
// the disk has no room for it, it gives back the reserve and tries once
// more, so that a run is not left "running" for want of a few pages.
func (db *DB) finishWrite(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.writeTx(ctx, true, fn)
}

func (db *DB) writeTx(ctx context.Context, finishes bool, fn func(tx *sql.Tx) error) error {
	if db.sql == nil {
		return bench.Errorf(bench.EUNAVAILABLE, "run history is not open")
	}
	select {
	case db.writeSlot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-db.writeSlot }()
	db.holdReserve()
	err := db.commit(ctx, fn)
	if finishes && db.diskFull(err) && db.releaseReserve() {
		err = db.commit(ctx, fn)
	}
	if db.diskFull(err) {
		return db.noSpace(err)
	}
	return err
}

// commit runs fn in a transaction and commits it if fn succeeds.
func (db *DB) commit(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// read runs fn in a read-only transaction, so that what it reads is one
// consistent snapshot.
func (db *DB) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if db.sql == nil {
		return bench.Errorf(bench.EUNAVAILABLE, "run history is not open")
	}
	tx, err := db.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// HistoryID returns the history's identity, made when the database was
// created: it labels the containers its runs start.
func (db *DB) HistoryID(ctx context.Context) (string, error) {
	var id string
	err := db.read(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'history_id'`).Scan(&id)
	})
	if err != nil {
		return "", fmt.Errorf("read the history's identity: %w", err)
	}
	return id, nil
}
