-- 0003_run_summaries: each run's summary (bench.RunSummary as JSON) beside
-- it, written with the run, so that listing runs reads one small column
-- instead of every target's whole result. Runs stored before are
-- summarised when the database is opened ('' until then).

ALTER TABLE runs ADD COLUMN summary TEXT NOT NULL DEFAULT '';
