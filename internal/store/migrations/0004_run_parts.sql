-- 0004_run_parts: the runs one submission of an experiment of several parts
-- queued together (bench.Run.Parts, a JSON array of run IDs in part order),
-- written when the runs are created; '' for a run of its own.

ALTER TABLE runs ADD COLUMN parts TEXT NOT NULL DEFAULT '';
