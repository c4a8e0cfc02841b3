-- iotape store on PostgreSQL, schema version 7: run_summary, as
-- schema/007_summary.sql (which says what each column is): a run's headline
-- figures per direction, written in the run's transaction when it lands,
-- read by `iotape fleet` instead of the run's requests. Keyed by run first
-- (distributed with the run under Citus).

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
