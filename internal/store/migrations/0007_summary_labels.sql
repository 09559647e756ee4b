-- 0007_summary_labels: run summaries carry the run's labels (lists show
-- and filter by them); a run stored with labels before is summarized again
-- when the database is opened (summarizeOld takes every '' summary).

UPDATE runs SET summary = '' WHERE json_type(spec, '$.labels') = 'object';
