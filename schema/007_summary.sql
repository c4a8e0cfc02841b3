-- iotape store, schema version 7: one row per run and direction of the
-- headline figures `iotape report` prints for the run (analyze/summary.c
-- computes them with report's own code when the run lands, in the run's
-- transaction), so `iotape fleet` ranks runs without reading their requests.
-- Runs stored before this version get theirs the first time a writer opens
-- the store (schema/store_summary.c back-fills the runs that have none).
-- Keyed by run first (distributed with the run under Citus).
--   dir          'read' or 'write' (writes and discards, as report counts)
--   span_ns      the run's span for rates, as report takes it
--   requests     dispatched requests (D) with data, and their bytes
--   q2c_*, d2c_* n, mean, p50, p99, max of the run's Q2C and D2C in ns, as
--                report computes them (percentiles within 0.8%); NULL
--                when n is 0

CREATE TABLE run_summary (
	run          bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	dir          text NOT NULL CHECK (dir IN ('read', 'write')),
	span_ns      bigint NOT NULL,
	requests     bigint NOT NULL,
	bytes        bigint NOT NULL,
	q2c_n        bigint NOT NULL,
	q2c_mean_ns  double precision,
	q2c_p50_ns   double precision,
	q2c_p99_ns   double precision,
	q2c_max_ns   double precision,
	d2c_n        bigint NOT NULL,
	d2c_mean_ns  double precision,
	d2c_p50_ns   double precision,
	d2c_p99_ns   double precision,
	d2c_max_ns   double precision,
	PRIMARY KEY (run, dir)
);
