-- 0001_init: run history.
--
-- Timestamps are unix nanoseconds (UTC) so that they sort as integers and
-- round-trip exactly. Documents that are only ever read whole (spec,
-- environment, a target's result) are JSON text; what is filtered or sorted
-- on has its own column.

CREATE TABLE runs (
	id          TEXT PRIMARY KEY,
	name        TEXT NOT NULL DEFAULT '',
	status      TEXT NOT NULL,
	error       TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	started_at  INTEGER,
	finished_at INTEGER,
	spec        TEXT NOT NULL, -- bench.RunSpec
	environment TEXT NOT NULL  -- bench.Environment
) STRICT;

CREATE INDEX runs_created ON runs (created_at, id);
CREATE INDEX runs_status ON runs (status, created_at, id);

-- One row per target of a run, in the run's order. result is the
-- bench.TargetResult without its per-second buckets, which live in
-- run_seconds so that listing runs never reads them.
CREATE TABLE run_targets (
	run_id   TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	position INTEGER NOT NULL,
	target   TEXT NOT NULL,
	status   TEXT NOT NULL,
	result   TEXT NOT NULL,
	PRIMARY KEY (run_id, position),
	UNIQUE (run_id, target)
) STRICT;

CREATE INDEX run_targets_target ON run_targets (target);

-- The per-second buckets of one target of a run, as a JSON array.
CREATE TABLE run_seconds (
	run_id  TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	target  TEXT NOT NULL,
	buckets TEXT NOT NULL,
	PRIMARY KEY (run_id, target)
) STRICT;

-- Scraped metric series of one target of a run, in the order saved.
CREATE TABLE series (
	run_id   TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	target   TEXT NOT NULL,
	position INTEGER NOT NULL,
	name     TEXT NOT NULL,
	labels   TEXT NOT NULL, -- map[string]string
	points   TEXT NOT NULL, -- []bench.Point
	PRIMARY KEY (run_id, target, position)
) STRICT;

CREATE INDEX series_name ON series (run_id, target, name);

-- Raw Prometheus expositions, one per (run, target, at).
CREATE TABLE expositions (
	id     INTEGER PRIMARY KEY,
	run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	target TEXT NOT NULL,
	at     TEXT NOT NULL,
	text   TEXT NOT NULL,
	UNIQUE (run_id, target, at)
) STRICT;
