-- 0002_meta: facts about the history itself.
--
-- history_id tells this history's containers apart from any other's on the
-- same Docker engine, so that a daemon's start-up cleanup removes only what
-- its own runs left behind.

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

INSERT INTO meta (key, value) VALUES ('history_id', lower(hex(randomblob(8))));
