-- iotape store on PostgreSQL, schema version 3: replays, as
-- schema/003_replay.sql (which says what each column is). No foreign key
-- (see 001_init.sql): store_run_delete() deletes a run's rows.

CREATE TABLE replays (
	run          bigint NOT NULL,
	idx          bigint NOT NULL,
	stream       bigint NOT NULL,
	pid          bigint NOT NULL,
	dev          bigint NOT NULL,
	sector       bigint,
	bytes        bigint NOT NULL,
	op           text NOT NULL CHECK (op IN ('read', 'write', 'flush', 'discard')),
	fua          integer NOT NULL DEFAULT 0,
	as_read      integer NOT NULL DEFAULT 0,
	src_request  bigint,
	sched_ns     bigint NOT NULL,
	ready_ns     bigint NOT NULL,
	issue_ns     bigint NOT NULL,
	complete_ns  bigint,
	result       bigint,
	PRIMARY KEY (run, idx)
);
