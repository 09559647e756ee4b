package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// runColumns are the runs columns scanRun reads, in its order.
const runColumns = `id, name, status, error, created_at, started_at, finished_at, spec, environment, parts, services`

// CreateRun stores a new run. It sets run.ID when empty (a short ID that
// sorts by creation time), run.CreatedAt when zero, and run.Status to
// queued when empty, and changes run only when the write succeeded.
// ECONFLICT if a run with the same ID exists.
func (db *DB) CreateRun(ctx context.Context, run *bench.Run) error {
	r := db.newRun(*run)
	if err := db.write(ctx, func(tx *sql.Tx) error { return createRun(ctx, tx, &r) }); err != nil {
		return err
	}
	*run = r
	return nil
}

// CreateRuns stores the runs one submission asks for, all or none, each as
// CreateRun would. When there are several (the parts of an experiment, in
// order), each run's Parts lists all their IDs, and each is created a
// nanosecond after the one before, so that they sort (and a restarted
// queue takes them up) in their order. It changes the runs only when the
// write succeeded.
func (db *DB) CreateRuns(ctx context.Context, runs []*bench.Run) error {
	created := make([]bench.Run, len(runs))
	var ids []string
	now := db.Now()
	for i, run := range runs {
		r := *run
		if r.CreatedAt.IsZero() {
			r.CreatedAt = now.Add(time.Duration(i))
		}
		created[i] = db.newRun(r)
		ids = append(ids, created[i].ID)
	}
	err := db.write(ctx, func(tx *sql.Tx) error {
		for i := range created {
			if len(ids) > 1 {
				created[i].Parts = ids
			}
			if err := createRun(ctx, tx, &created[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, run := range runs {
		*run = created[i]
	}
	return nil
}

// newRun fills in what CreateRun sets on a run it stores.
func (db *DB) newRun(r bench.Run) bench.Run {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = db.Now()
	}
	r.CreatedAt = r.CreatedAt.UTC()
	if r.ID == "" {
		r.ID = newRunID(r.CreatedAt)
	}
	if r.Status == "" {
		r.Status = bench.RunQueued
	}
	return r
}

// UpdateRun replaces the stored run with the same ID: name, status, error,
// timestamps, spec, environment and targets. CreatedAt never changes. A
// target whose update carries no seconds keeps the seconds stored for it,
// so that a run read without them (QueuedRuns) can be updated without losing them.
// ENOTFOUND if there is no such run. An update that finishes the run may
// use the room the history keeps in reserve (DefaultReserveBytes).
func (db *DB) UpdateRun(ctx context.Context, run *bench.Run) error {
	write := db.write
	if run.Status.Finished() {
		write = db.finishWrite
	}
	return write(ctx, func(tx *sql.Tx) error { return updateRun(ctx, tx, run) })
}

// FindRunByID returns the full run document, per-second buckets included.
func (db *DB) FindRunByID(ctx context.Context, id string) (*bench.Run, error) {
	var run *bench.Run
	err := db.read(ctx, func(tx *sql.Tx) (err error) {
		run, err = findRunByID(ctx, tx, id, true)
		return err
	})
	return run, err
}

// DeleteRun removes a finished run with its targets, seconds, series and
// expositions. ENOTFOUND if there is no such run, ECONFLICT if it is queued
// or running.
func (db *DB) DeleteRun(ctx context.Context, id string) error {
	return db.write(ctx, func(tx *sql.Tx) error { return deleteRun(ctx, tx, id) })
}

// InterruptRunning marks every run left running (by a process that died)
// interrupted, with reason as its error and now as its finish time. Its
// running targets become failed with the same error, its pending ones
// skipped. It returns the IDs of the runs it marked, oldest first.
func (db *DB) InterruptRunning(ctx context.Context, reason string) ([]string, error) {
	var ids []string
	err := db.finishWrite(ctx, func(tx *sql.Tx) (err error) {
		ids, err = interruptRunning(ctx, tx, reason, db.Now().UTC())
		return err
	})
	return ids, err
}

// QueuedRuns returns the queued runs oldest first, the order the queue
// runs them in, without per-second buckets.
func (db *DB) QueuedRuns(ctx context.Context) ([]*bench.Run, error) {
	var runs []*bench.Run
	err := db.read(ctx, func(tx *sql.Tx) (err error) {
		runs, err = queryRuns(ctx, tx, `SELECT `+runColumns+` FROM runs
			WHERE status = ? ORDER BY created_at, id`, bench.RunQueued)
		if err != nil {
			return err
		}
		return loadTargets(ctx, tx, runs, false)
	})
	return runs, err
}

func createRun(ctx context.Context, tx *sql.Tx, run *bench.Run) error {
	if err := validateRun(run); err != nil {
		return err
	}
	if exists, err := runExists(ctx, tx, run.ID); err != nil {
		return err
	} else if exists {
		return bench.Errorf(bench.ECONFLICT, "run %q already exists", run.ID)
	}
	spec, env, err := marshalRunDocs(run)
	if err != nil {
		return err
	}
	parts, err := marshalParts(run.Parts)
	if err != nil {
		return err
	}
	services, err := marshalServices(run)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO runs (`+runColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		run.ID, run.Name, string(run.Status), run.Error, run.CreatedAt.UnixNano(),
		nullNanos(run.StartedAt), nullNanos(run.FinishedAt), spec, env, parts, services); err != nil {
		return fmt.Errorf("insert run %s: %w", run.ID, err)
	}
	if err := insertTargets(ctx, tx, run); err != nil {
		return err
	}
	return saveSummary(ctx, tx, run)
}

func updateRun(ctx context.Context, tx *sql.Tx, run *bench.Run) error {
	if err := validateRun(run); err != nil {
		return err
	}
	spec, env, err := marshalRunDocs(run)
	if err != nil {
		return err
	}
	services, err := marshalServices(run)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE runs SET name = ?, status = ?, error = ?, started_at = ?,
		finished_at = ?, spec = ?, environment = ?, services = ? WHERE id = ?`,
		run.Name, string(run.Status), run.Error, nullNanos(run.StartedAt), nullNanos(run.FinishedAt),
		spec, env, services, run.ID)
	if err != nil {
		return fmt.Errorf("update run %s: %w", run.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return runNotFound(run.ID)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_targets WHERE run_id = ?`, run.ID); err != nil {
		return fmt.Errorf("delete targets of run %s: %w", run.ID, err)
	}
	if err := insertTargets(ctx, tx, run); err != nil {
		return err
	}
	// Seconds of targets the run no longer has would be unreachable.
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_seconds WHERE run_id = ?1
		AND target NOT IN (SELECT target FROM run_targets WHERE run_id = ?1)`, run.ID); err != nil {
		return fmt.Errorf("delete stale seconds of run %s: %w", run.ID, err)
	}
	return saveSummary(ctx, tx, run)
}

// saveSummary writes the run's summary beside it.
func saveSummary(ctx context.Context, tx *sql.Tx, run *bench.Run) error {
	b, err := json.Marshal(run.Summary())
	if err != nil {
		return fmt.Errorf("encode summary of run %s: %w", run.ID, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET summary = ? WHERE id = ?`, string(b), run.ID); err != nil {
		return fmt.Errorf("save summary of run %s: %w", run.ID, err)
	}
	return nil
}

// insertTargets writes the run's targets and, for those that carry any,
// their seconds (replacing what was stored).
func insertTargets(ctx context.Context, tx *sql.Tx, run *bench.Run) error {
	for i, t := range run.Targets {
		seconds := t.Seconds
		t.Seconds = nil
		result, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("encode target %s of run %s: %w", t.Key(), run.ID, err)
		}
		// The target column holds the result's key: target, case and round.
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_targets (run_id, position, target, status, result)
			VALUES (?, ?, ?, ?, ?)`, run.ID, i, t.Key(), string(t.Status), string(result)); err != nil {
			return fmt.Errorf("insert target %s of run %s: %w", t.Key(), run.ID, err)
		}
		if len(seconds) == 0 {
			continue
		}
		if err := saveSeconds(ctx, tx, run.ID, t.Key(), seconds); err != nil {
			return err
		}
	}
	return nil
}

func saveSeconds(ctx context.Context, tx *sql.Tx, runID, target string, seconds []bench.Bucket) error {
	buckets, err := json.Marshal(seconds)
	if err != nil {
		return fmt.Errorf("encode seconds of target %s of run %s: %w", target, runID, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO run_seconds (run_id, target, buckets) VALUES (?, ?, ?)
		ON CONFLICT (run_id, target) DO UPDATE SET buckets = excluded.buckets`,
		runID, target, string(buckets)); err != nil {
		return fmt.Errorf("save seconds of target %s of run %s: %w", target, runID, err)
	}
	return nil
}

func findRunByID(ctx context.Context, tx *sql.Tx, id string, withSeconds bool) (*bench.Run, error) {
	runs, err := queryRuns(ctx, tx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id)
	if err != nil {
		return nil, err
	} else if len(runs) == 0 {
		return nil, runNotFound(id)
	}
	if err := loadTargets(ctx, tx, runs, withSeconds); err != nil {
		return nil, err
	}
	return runs[0], nil
}

func deleteRun(ctx context.Context, tx *sql.Tx, id string) error {
	var status bench.RunStatus
	if err := tx.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, id).Scan(&status); err == sql.ErrNoRows {
		return runNotFound(id)
	} else if err != nil {
		return fmt.Errorf("find run %s: %w", id, err)
	}
	if !status.Finished() {
		return bench.Errorf(bench.ECONFLICT, "run %q is %s; only finished runs can be deleted", id, status)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete run %s: %w", id, err)
	}
	return nil
}

func interruptRunning(ctx context.Context, tx *sql.Tx, reason string, now time.Time) ([]string, error) {
	runs, err := queryRuns(ctx, tx, `SELECT `+runColumns+` FROM runs
		WHERE status = ? ORDER BY created_at, id`, bench.RunRunning)
	if err != nil {
		return nil, err
	}
	// Loaded without seconds: updateRun keeps the stored ones.
	if err := loadTargets(ctx, tx, runs, false); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(runs))
	for _, run := range runs {
		markInterrupted(run, reason, now)
		if err := updateRun(ctx, tx, run); err != nil {
			return nil, err
		}
		ids = append(ids, run.ID)
	}
	return ids, nil
}

// markInterrupted finishes a run that will never finish by itself, and its
// targets with it, so that nothing in the history stays "running".
func markInterrupted(run *bench.Run, reason string, now time.Time) {
	run.Status = bench.RunInterrupted
	run.Error = reason
	run.FinishedAt = &now
	for i := range run.Targets {
		t := &run.Targets[i]
		switch t.Status {
		case bench.TargetRunning:
			t.Status = bench.TargetFailed
			t.Error = reason
			t.FinishedAt = &now
		case bench.TargetPending, "":
			t.Status = bench.TargetSkipped
		}
	}
}

// queryRuns returns the runs a query over runColumns selects, without
// their targets.
func queryRuns(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]*bench.Run, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query runs: %w", err)
	}
	defer rows.Close()
	var runs []*bench.Run
	for rows.Next() {
		run, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query runs: %w", err)
	}
	return runs, nil
}

func scanRun(rows *sql.Rows) (*bench.Run, error) {
	var (
		run               bench.Run
		created           int64
		started, finished sql.NullInt64
		spec, env, parts  string
		services          string
	)
	if err := rows.Scan(&run.ID, &run.Name, &run.Status, &run.Error, &created, &started, &finished, &spec, &env, &parts, &services); err != nil {
		return nil, fmt.Errorf("scan run: %w", err)
	}
	run.CreatedAt = fromNanos(created)
	run.StartedAt = fromNullNanos(started)
	run.FinishedAt = fromNullNanos(finished)
	if err := json.Unmarshal([]byte(spec), &run.Spec); err != nil {
		return nil, fmt.Errorf("decode spec of run %s: %w", run.ID, err)
	}
	if err := json.Unmarshal([]byte(env), &run.Environment); err != nil {
		return nil, fmt.Errorf("decode environment of run %s: %w", run.ID, err)
	}
	if parts != "" {
		if err := json.Unmarshal([]byte(parts), &run.Parts); err != nil {
			return nil, fmt.Errorf("decode parts of run %s: %w", run.ID, err)
		}
	}
	if err := unmarshalServices(services, &run); err != nil {
		return nil, err
	}
	run.Targets = []bench.TargetResult{}
	return &run, nil
}

// loadTargets fills in the targets of runs, in each run's order, with one
// query for all of them (and one more for their seconds, if asked).
func loadTargets(ctx context.Context, tx *sql.Tx, runs []*bench.Run, withSeconds bool) error {
	if len(runs) == 0 {
		return nil
	}
	byID := make(map[string]*bench.Run, len(runs))
	ids := make([]any, len(runs))
	for i, run := range runs {
		byID[run.ID] = run
		ids[i] = run.ID
	}
	rows, err := tx.QueryContext(ctx, `SELECT run_id, result FROM run_targets
		WHERE run_id IN (`+placeholders(len(ids))+`) ORDER BY run_id, position`, ids...)
	if err != nil {
		return fmt.Errorf("query targets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var runID, result string
		if err := rows.Scan(&runID, &result); err != nil {
			return fmt.Errorf("scan target: %w", err)
		}
		var t bench.TargetResult
		if err := json.Unmarshal([]byte(result), &t); err != nil {
			return fmt.Errorf("decode target of run %s: %w", runID, err)
		}
		run := byID[runID]
		run.Targets = append(run.Targets, t)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query targets: %w", err)
	}
	if !withSeconds {
		return nil
	}
	return loadSeconds(ctx, tx, byID, ids)
}

func loadSeconds(ctx context.Context, tx *sql.Tx, byID map[string]*bench.Run, ids []any) error {
	rows, err := tx.QueryContext(ctx, `SELECT run_id, target, buckets FROM run_seconds
		WHERE run_id IN (`+placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return fmt.Errorf("query seconds: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var runID, target, buckets string
		if err := rows.Scan(&runID, &target, &buckets); err != nil {
			return fmt.Errorf("scan seconds: %w", err)
		}
		t := byID[runID].Target(target)
		if t == nil {
			continue // updateRun removes these; never expected
		}
		if err := json.Unmarshal([]byte(buckets), &t.Seconds); err != nil {
			return fmt.Errorf("decode seconds of target %s of run %s: %w", target, runID, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query seconds: %w", err)
	}
	return nil
}

// validateRun refuses what the schema could not store faithfully.
func validateRun(run *bench.Run) error {
	if run.ID == "" {
		return bench.FieldErrorf("id", "run ID is required")
	}
	if !knownStatus(run.Status) {
		return bench.FieldErrorf("status", "unknown run status %q", run.Status)
	}
	seen := make(map[string]bool, len(run.Targets))
	for i, t := range run.Targets {
		field := fmt.Sprintf("targets[%d].target", i)
		if t.Target == "" {
			return bench.FieldErrorf(field, "target name is required")
		} else if seen[t.Key()] {
			return bench.FieldErrorf(field, "target %q appears twice", t.Key())
		}
		seen[t.Key()] = true
	}
	return nil
}

func knownStatus(s bench.RunStatus) bool {
	for _, known := range bench.RunStatuses {
		if s == known {
			return true
		}
	}
	return false
}

func marshalRunDocs(run *bench.Run) (spec, env string, err error) {
	b, err := json.Marshal(run.Spec)
	if err != nil {
		return "", "", fmt.Errorf("encode spec of run %s: %w", run.ID, err)
	}
	e, err := json.Marshal(run.Environment)
	if err != nil {
		return "", "", fmt.Errorf("encode environment of run %s: %w", run.ID, err)
	}
	return string(b), string(e), nil
}

// runServices is how the services column holds a run's services.
type runServices struct {
	Downstream *bench.DownstreamResult `json:"downstream,omitempty"`
	Database   *bench.DatabaseResult   `json:"database,omitempty"`
}

// marshalServices encodes what became of a run's services: ” for none.
func marshalServices(run *bench.Run) (string, error) {
	if run.Downstream == nil && run.Database == nil {
		return "", nil
	}
	b, err := json.Marshal(runServices{Downstream: run.Downstream, Database: run.Database})
	if err != nil {
		return "", fmt.Errorf("encode services of run %s: %w", run.ID, err)
	}
	return string(b), nil
}

func unmarshalServices(doc string, run *bench.Run) error {
	if doc == "" {
		return nil
	}
	var s runServices
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		return fmt.Errorf("decode services of run %s: %w", run.ID, err)
	}
	run.Downstream, run.Database = s.Downstream, s.Database
	return nil
}

// marshalParts encodes a run's parts as stored: ” for none.
func marshalParts(parts []string) (string, error) {
	if len(parts) == 0 {
		return "", nil
	}
	b, err := json.Marshal(parts)
	return string(b), err
}

func runExists(ctx context.Context, tx *sql.Tx, id string) (bool, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("find run %s: %w", id, err)
	}
	return n > 0, nil
}

func runNotFound(id string) error { return bench.Errorf(bench.ENOTFOUND, "run %q not found", id) }

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func nullNanos(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func fromNullNanos(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromNanos(n.Int64)
	return &t
}
