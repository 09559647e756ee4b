-- 0005_artifacts: files recorded inside a run's targets (a JVM's flight
-- recording, a Go target's CPU profile of each stage, each stage's CPU
-- samples folded), kept with the run in the history itself, so that
-- deleting the run deletes them in the same transaction and a copy of the
-- history file carries them. A file is split into chunks of a megabyte,
-- so that neither writing nor serving one holds it whole in memory.
--
-- target is the result's key (as run_targets.target); stage is the
-- stage's index, -1 for a file of the whole attack.

CREATE TABLE artifacts (
	run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	target TEXT NOT NULL,
	stage  INTEGER NOT NULL,
	kind   TEXT NOT NULL,
	bytes  INTEGER NOT NULL,
	PRIMARY KEY (run_id, target, stage, kind)
) STRICT;

CREATE TABLE artifact_chunks (
	run_id TEXT NOT NULL,
	target TEXT NOT NULL,
	stage  INTEGER NOT NULL,
	kind   TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	data   BLOB NOT NULL,
	PRIMARY KEY (run_id, target, stage, kind, seq),
	FOREIGN KEY (run_id, target, stage, kind) REFERENCES artifacts (run_id, target, stage, kind) ON DELETE CASCADE
) STRICT;
