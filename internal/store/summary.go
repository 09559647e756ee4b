package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/threadbench/threadbench/internal/bench"
)

// FindRunSummaries returns the summaries of the runs that match filter,
// newest first by (created time, ID), and a cursor for the next page, ""
// when there is none; it reads each run's stored summary and nothing else,
// so a page costs the same however large the runs are. Filters combine
// with AND:
//   - Status: any of the listed statuses;
//   - Target: runs with that target in their spec or their results;
//   - Name: runs whose name contains it, ignoring ASCII case;
//   - Since, Until: created at or after Since, and before Until.
//
// Limit is DefaultLimit when 0; above MaxLimit, below 0, or with a cursor
// this store did not issue, the error is EINVALID.
func (db *DB) FindRunSummaries(ctx context.Context, filter bench.RunFilter) ([]bench.RunSummary, string, error) {
	q, err := newRunQuery(filter)
	if err != nil {
		return nil, "", err
	}
	var out []bench.RunSummary
	err = db.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q.sql(), q.args...)
		if err != nil {
			return fmt.Errorf("query run summaries: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var text string
			if err := rows.Scan(&text); err != nil {
				return fmt.Errorf("scan run summary: %w", err)
			}
			var s bench.RunSummary
			if err := json.Unmarshal([]byte(text), &s); err != nil {
				return fmt.Errorf("decode run summary: %w", err)
			}
			out = append(out, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, "", err
	}
	if len(out) <= q.limit {
		return out, "", nil
	}
	out = out[:q.limit]
	last := out[len(out)-1]
	return out, encodeCursor(last.CreatedAt.UnixNano(), last.ID), nil
}

// summarizeOld writes the summaries of runs stored before runs had them,
// once, when the database is opened.
func (db *DB) summarizeOld(ctx context.Context) error {
	for {
		var ids []string
		err := db.read(ctx, func(tx *sql.Tx) error {
			rows, err := tx.QueryContext(ctx, `SELECT id FROM runs WHERE summary = '' LIMIT 100`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					return err
				}
				ids = append(ids, id)
			}
			return rows.Err()
		})
		if err != nil || len(ids) == 0 {
			return err
		}
		for _, id := range ids {
			err := db.write(ctx, func(tx *sql.Tx) error {
				run, err := findRunByID(ctx, tx, id, false)
				if err != nil {
					return err
				}
				return saveSummary(ctx, tx, run)
			})
			if err != nil {
				return fmt.Errorf("summarise run %s: %w", id, err)
			}
		}
	}
}
