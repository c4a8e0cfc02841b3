-- iotape store on PostgreSQL, schema version 4: as schema/004_cascade.sql,
-- runs.input_sha256 (the SHA-256 of the bytes an import read, in hex). The
-- cascades of SQLite's version 4 were in this schema from version 1 for the
-- small tables; the bulk tables' rows are deleted by store_run_delete().

ALTER TABLE runs ADD COLUMN input_sha256 text;
CREATE INDEX runs_input_sha256 ON runs (input_sha256);
