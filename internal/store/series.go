package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/threadbench/threadbench/internal/bench"
)

// SaveSeries replaces the series stored for one target of a run, keeping
// their order. ENOTFOUND if there is no such run; the target need not be
// among the run's results yet.
func (db *DB) SaveSeries(ctx context.Context, runID, target string, series []bench.Series) error {
	return db.write(ctx, func(tx *sql.Tx) error { return saveSeries(ctx, tx, runID, target, series) })
}

// FindSeries returns the series of one target of a run in the order saved,
// only those named in names when it is not empty. A target with none has
// an empty list; ENOTFOUND if there is no such run.
func (db *DB) FindSeries(ctx context.Context, runID, target string, names []string) ([]bench.Series, error) {
	var series []bench.Series
	err := db.read(ctx, func(tx *sql.Tx) (err error) {
		series, err = findSeries(ctx, tx, runID, target, names)
		return err
	})
	return series, err
}

// SaveExposition stores a raw exposition for one target of a run,
// replacing one saved earlier at the same point (e.At). ENOTFOUND if there
// is no such run.
func (db *DB) SaveExposition(ctx context.Context, runID, target string, e bench.Exposition) error {
	return db.write(ctx, func(tx *sql.Tx) error { return saveExposition(ctx, tx, runID, target, e) })
}

// FindExpositions returns the raw expositions of one target of a run in
// the order first saved. ENOTFOUND if there is no such run.
func (db *DB) FindExpositions(ctx context.Context, runID, target string) ([]bench.Exposition, error) {
	var expositions []bench.Exposition
	err := db.read(ctx, func(tx *sql.Tx) (err error) {
		expositions, err = findExpositions(ctx, tx, runID, target)
		return err
	})
	return expositions, err
}

func saveSeries(ctx context.Context, tx *sql.Tx, runID, target string, series []bench.Series) error {
	if err := requireRun(ctx, tx, runID, target); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM series WHERE run_id = ? AND target = ?`, runID, target); err != nil {
		return fmt.Errorf("delete series of target %s of run %s: %w", target, runID, err)
	}
	for i, s := range series {
		if s.Name == "" {
			return bench.FieldErrorf(fmt.Sprintf("series[%d].name", i), "series name is required")
		}
		labels, err := json.Marshal(s.Labels)
		if err != nil {
			return fmt.Errorf("encode labels of series %s: %w", s.Name, err)
		}
		points, err := json.Marshal(s.Points)
		if err != nil {
			return fmt.Errorf("encode points of series %s: %w", s.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO series (run_id, target, position, name, labels, points)
			VALUES (?, ?, ?, ?, ?, ?)`, runID, target, i, s.Name, string(labels), string(points)); err != nil {
			return fmt.Errorf("insert series %s of target %s of run %s: %w", s.Name, target, runID, err)
		}
	}
	return nil
}

func findSeries(ctx context.Context, tx *sql.Tx, runID, target string, names []string) ([]bench.Series, error) {
	if err := requireRun(ctx, tx, runID, target); err != nil {
		return nil, err
	}
	query := `SELECT name, labels, points FROM series WHERE run_id = ? AND target = ?`
	args := []any{runID, target}
	if len(names) > 0 {
		query += ` AND name IN (` + placeholders(len(names)) + `)`
		for _, n := range names {
			args = append(args, n)
		}
	}
	rows, err := tx.QueryContext(ctx, query+` ORDER BY position`, args...)
	if err != nil {
		return nil, fmt.Errorf("query series: %w", err)
	}
	defer rows.Close()
	series := []bench.Series{}
	for rows.Next() {
		s, err := scanSeries(rows)
		if err != nil {
			return nil, err
		}
		series = append(series, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query series: %w", err)
	}
	return series, nil
}

func scanSeries(rows *sql.Rows) (bench.Series, error) {
	var (
		s              bench.Series
		labels, points string
	)
	if err := rows.Scan(&s.Name, &labels, &points); err != nil {
		return s, fmt.Errorf("scan series: %w", err)
	}
	if err := json.Unmarshal([]byte(labels), &s.Labels); err != nil {
		return s, fmt.Errorf("decode labels of series %s: %w", s.Name, err)
	}
	if err := json.Unmarshal([]byte(points), &s.Points); err != nil {
		return s, fmt.Errorf("decode points of series %s: %w", s.Name, err)
	}
	return s, nil
}

func saveExposition(ctx context.Context, tx *sql.Tx, runID, target string, e bench.Exposition) error {
	if err := requireRun(ctx, tx, runID, target); err != nil {
		return err
	}
	if e.At == "" {
		return bench.FieldErrorf("at", `exposition point is required, e.g. "start" or "end"`)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO expositions (run_id, target, at, text) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, target, at) DO UPDATE SET text = excluded.text`,
		runID, target, e.At, e.Text); err != nil {
		return fmt.Errorf("save exposition of target %s of run %s: %w", target, runID, err)
	}
	return nil
}

func findExpositions(ctx context.Context, tx *sql.Tx, runID, target string) ([]bench.Exposition, error) {
	if err := requireRun(ctx, tx, runID, target); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT at, text FROM expositions
		WHERE run_id = ? AND target = ? ORDER BY id`, runID, target)
	if err != nil {
		return nil, fmt.Errorf("query expositions: %w", err)
	}
	defer rows.Close()
	expositions := []bench.Exposition{}
	for rows.Next() {
		var e bench.Exposition
		if err := rows.Scan(&e.At, &e.Text); err != nil {
			return nil, fmt.Errorf("scan exposition: %w", err)
		}
		expositions = append(expositions, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query expositions: %w", err)
	}
	return expositions, nil
}

// requireRun returns ENOTFOUND unless the run exists, and EINVALID for an
// empty target name.
func requireRun(ctx context.Context, tx *sql.Tx, runID, target string) error {
	if target == "" {
		return bench.FieldErrorf("target", "target name is required")
	}
	if exists, err := runExists(ctx, tx, runID); err != nil {
		return err
	} else if !exists {
		return runNotFound(runID)
	}
	return nil
}
