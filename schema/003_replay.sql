-- iotape store, schema version 3: replays (replay/, `iotape replay`). A
-- replay is a run of kind 'replay' whose parent is the run it replayed; it
-- also has a requests row per replayed I/O (queued and dispatched when it
-- was issued, completed when its completion was seen; or, with --trace, the
-- requests stitched from the target's traced events), so every analysis
-- works on replays unchanged. This table keeps what only a replay has: the
-- schedule's time of each I/O beside its issue and completion times.
-- Times are CLOCK_MONOTONIC ns (the tracefs 'mono' trace clock of captures).
-- No foreign key on PostgreSQL (see 001_init.sql): deleting a run deletes
-- its rows.

CREATE TABLE replays (
	run          bigint NOT NULL{sqlite: REFERENCES runs(id) ON DELETE CASCADE},
	idx          bigint NOT NULL,      -- place in the schedule (the source's order)
	stream       bigint NOT NULL,      -- 0.. : one per original pid, or 0 (--streams single)
	pid          bigint NOT NULL,      -- the original process
	dev          bigint NOT NULL,      -- the target: major << 20 | minor (a file: its file system's)
	sector       bigint,               -- on the target, 512-byte sectors; NULL for flushes
	bytes        bigint NOT NULL,      -- on the target (rounded out to its block size)
	op           text NOT NULL CHECK (op IN ('read', 'write', 'flush', 'discard')),
	fua          integer NOT NULL DEFAULT 0,  -- a write with RWF_DSYNC (REQ_FUA)
	as_read      integer NOT NULL DEFAULT 0,  -- a write replayed as a read
	src_request  bigint,               -- requests.id of the source run's row
	sched_ns     bigint NOT NULL,      -- when the schedule wanted it issued
	ready_ns     bigint NOT NULL,      -- when it was free to go: sched_ns, or later
	                                   -- when its stream's previous I/O was issued
	                                   -- (order) or completed (a process that had one
	                                   -- I/O at a time), or a slot (--depth) was free
	issue_ns     bigint NOT NULL,      -- when it was handed to the kernel
	complete_ns  bigint,               -- when its completion was seen
	result       bigint,               -- bytes done (0: flushes, discards), or -errno
	PRIMARY KEY (run, idx)
){sqlite: WITHOUT ROWID};   -- rows are written and read in (run, idx) order
