-- 0006_run_services: what became of the services a run starts beside its
-- targets (bench.Run.Downstream and bench.Run.Database, a JSON object with
-- either), rewritten with the run; '' for a run without any.

ALTER TABLE runs ADD COLUMN services TEXT NOT NULL DEFAULT '';
