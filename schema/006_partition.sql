-- iotape store, schema version 6: the PostgreSQL store's version 6
-- (schema/pg/006_partition.sql) puts each run's events, requests, samples
-- and replays in partitions of their own; SQLite has no partitions, so here
-- the version only moves with it, to keep both stores' numbers the same.
-- Nothing changes in an SQLite file.
SELECT 1;
