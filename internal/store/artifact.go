package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
)

// chunkBytes is the size of an artifact's chunks.
const chunkBytes = 1 << 20

// wholeStage is the stage column of an artifact of no one stage.
const wholeStage = -1

var _ bench.ArtifactStore = (*DB)(nil)

// SaveArtifact stores a file recorded inside a target of a run, read from
// r, which must hold a.Bytes bytes; it replaces a file of the same name.
// ENOTFOUND for a run or a target the run does not have; EINVALID for an
// unknown kind, a stage a kind does not take, a size beyond
// bench.MaxArtifactBytes or one r does not hold; ECONFLICT when the run's
// files would pass bench.MaxRunArtifactBytes; EUNAVAILABLE, before any
// of it is written, when the history's disk has no room for it
// (roomForArtifact). Nothing is kept of a file that fails.
func (db *DB) SaveArtifact(ctx context.Context, runID string, a bench.Artifact, r io.Reader) error {
	if err := validateArtifact(a); err != nil {
		return err
	}
	if err := db.roomForArtifact(a); err != nil {
		return err
	}
	bound := cmp.Or(db.RunArtifactBytes, bench.MaxRunArtifactBytes)
	return db.write(ctx, func(tx *sql.Tx) error { return saveArtifact(ctx, tx, runID, a, r, bound) })
}

// Artifacts lists a run's files, by target, stage and kind.
func (db *DB) Artifacts(ctx context.Context, runID string) ([]bench.Artifact, error) {
	var out []bench.Artifact
	err := db.read(ctx, func(tx *sql.Tx) (err error) {
		out, err = listArtifacts(ctx, tx, runID)
		return err
	})
	return out, err
}

// WriteArtifact writes a file of a run to w, a chunk at a time; ENOTFOUND
// when the run has no such file.
func (db *DB) WriteArtifact(ctx context.Context, runID string, a bench.Artifact, w io.Writer) error {
	return db.read(ctx, func(tx *sql.Tx) error { return writeArtifact(ctx, tx, runID, a, w) })
}

// validateArtifact checks what can be checked of a file before the run is
// read.
func validateArtifact(a bench.Artifact) error {
	switch {
	case !slices.Contains(bench.ArtifactKinds, a.Kind):
		return bench.FieldErrorf("kind", "unknown kind of file %q (kinds: %v)", a.Kind, bench.ArtifactKinds)
	case bench.WholeRun(a.Kind) && a.Stage != nil:
		return bench.FieldErrorf("stage", "a %s is of the whole attack, not of a stage", a.Kind)
	case !bench.WholeRun(a.Kind) && (a.Stage == nil || *a.Stage < 0):
		return bench.FieldErrorf("stage", "a %s is of one stage", a.Kind)
	case a.Bytes < 0 || a.Bytes > bench.MaxArtifactBytes:
		return bench.FieldErrorf("bytes", "a file must be at most %d MiB, got %d bytes", bench.MaxArtifactBytes>>20, a.Bytes)
	case a.Target == "":
		return bench.FieldErrorf("target", "target name is required")
	}
	return nil
}

func saveArtifact(ctx context.Context, tx *sql.Tx, runID string, a bench.Artifact, r io.Reader, bound int64) error {
	if err := requireRunTarget(ctx, tx, runID, a.Target); err != nil {
		return err
	}
	stage := stageColumn(a)
	if _, err := tx.ExecContext(ctx, `DELETE FROM artifacts WHERE run_id = ? AND target = ? AND stage = ? AND kind = ?`,
		runID, a.Target, stage, a.Kind); err != nil {
		return fmt.Errorf("replace %s of run %s: %w", a.FileName(), runID, err)
	}
	var kept int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(bytes), 0) FROM artifacts WHERE run_id = ?`, runID).Scan(&kept); err != nil {
		return err
	}
	if kept+a.Bytes > bound {
		return bench.Errorf(bench.ECONFLICT, "run %s keeps %d MiB of recordings already; %s (%d MiB) would pass the %d MiB a run keeps",
			runID, kept>>20, a.FileName(), a.Bytes>>20, bound>>20)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO artifacts (run_id, target, stage, kind, bytes) VALUES (?, ?, ?, ?, ?)`,
		runID, a.Target, stage, a.Kind, a.Bytes); err != nil {
		return fmt.Errorf("save %s of run %s: %w", a.FileName(), runID, err)
	}
	return saveChunks(ctx, tx, runID, a, r)
}

// saveChunks writes r's bytes as the file's chunks and checks that it
// held the size given, no more and no less.
func saveChunks(ctx context.Context, tx *sql.Tx, runID string, a bench.Artifact, r io.Reader) error {
	buf := make([]byte, min(chunkBytes, a.Bytes+1))
	var total int64
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			total += int64(n)
			if total > a.Bytes {
				break
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO artifact_chunks (run_id, target, stage, kind, seq, data) VALUES (?, ?, ?, ?, ?, ?)`,
				runID, a.Target, stageColumn(a), a.Kind, seq, buf[:n]); err != nil {
				return fmt.Errorf("save %s of run %s: %w", a.FileName(), runID, err)
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", a.FileName(), err)
		}
	}
	if total != a.Bytes {
		return bench.FieldErrorf("bytes", "%s was said to hold %d bytes but held %d or more", a.FileName(), a.Bytes, total)
	}
	return nil
}

func listArtifacts(ctx context.Context, tx *sql.Tx, runID string) ([]bench.Artifact, error) {
	if exists, err := runExists(ctx, tx, runID); err != nil {
		return nil, err
	} else if !exists {
		return nil, runNotFound(runID)
	}
	rows, err := tx.QueryContext(ctx, `SELECT target, stage, kind, bytes FROM artifacts WHERE run_id = ? ORDER BY target, stage, kind`, runID)
	if err != nil {
		return nil, fmt.Errorf("list files of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := []bench.Artifact{}
	for rows.Next() {
		var a bench.Artifact
		var stage int
		if err := rows.Scan(&a.Target, &stage, &a.Kind, &a.Bytes); err != nil {
			return nil, err
		}
		if stage != wholeStage {
			a.Stage = &stage
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func writeArtifact(ctx context.Context, tx *sql.Tx, runID string, a bench.Artifact, w io.Writer) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM artifacts WHERE run_id = ? AND target = ? AND stage = ? AND kind = ?`,
		runID, a.Target, stageColumn(a), a.Kind).Scan(&n); err != nil {
		return err
	} else if n == 0 {
		return bench.Errorf(bench.ENOTFOUND, "run %s keeps no %s", runID, a.Path())
	}
	rows, err := tx.QueryContext(ctx, `SELECT data FROM artifact_chunks WHERE run_id = ? AND target = ? AND stage = ? AND kind = ? ORDER BY seq`,
		runID, a.Target, stageColumn(a), a.Kind)
	if err != nil {
		return fmt.Errorf("read %s of run %s: %w", a.FileName(), runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return rows.Err()
}

// requireRunTarget returns ENOTFOUND unless the run exists and has a
// result of that key.
func requireRunTarget(ctx context.Context, tx *sql.Tx, runID, target string) error {
	if err := requireRun(ctx, tx, runID, target); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM run_targets WHERE run_id = ? AND target = ?`, runID, target).Scan(&n); err != nil {
		return err
	} else if n == 0 {
		return bench.Errorf(bench.ENOTFOUND, "run %s has no target %q", runID, target)
	}
	return nil
}

// stageColumn is the stage column of a file.
func stageColumn(a bench.Artifact) int {
	if a.Stage == nil {
		return wholeStage
	}
	return *a.Stage
}
