-- iotape store, schema version 3: replays (replay/, `iotape replay`). A
-- replay is a run of kind 'replay' whose parent is the run it replayed; it
-- also has a requests row per replayed I/O (queued and dispatched when it
-- was issued, completed when its completion was seen; or, with --trace, the
-- requests stitched from the target's traced events), so every analysis
-- works on replays unchanged. This table keeps what only a replay has: the
-- schedule's time of each I/O beside its issue and completion times.
-- Times are CLOCK_MONOTONIC ns (the tracefs 'mono' trace clock of captures).

CREATE TABLE replays (
	run          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	idx          INTEGER NOT NULL,     -- place in the schedule (the source's order)
	stream       INTEGER NOT NULL,     -- 0.. : one per original pid, or 0 (--streams single)
	pid          INTEGER NOT NULL,     -- the original process
	dev          INTEGER NOT NULL,     -- the target: major << 20 | minor (a file: its file system's)
	sector       INTEGER,              -- on the target, 512-byte sectors; NULL for flushes
	bytes        INTEGER NOT NULL,     -- on the target (rounded out to its block size)
	op           TEXT NOT NULL CHECK (op IN ('read', 'write', 'flush', 'discard')),
	fua          INTEGER NOT NULL DEFAULT 0,  -- a write with RWF_DSYNC (REQ_FUA)
	as_read      INTEGER NOT NULL DEFAULT 0,  -- a write replayed as a read
	src_request  INTEGER,              -- requests.id of the source run's row
	sched_ns     INTEGER NOT NULL,     -- when the schedule wanted it issued
	ready_ns     INTEGER NOT NULL,     -- when it was free to go: sched_ns, or later
	                                   -- when its stream's previous I/O was issued
	                                   -- (order) or completed (a process that had one
	                                   -- I/O at a time), or a slot (--depth) was free
	issue_ns     INTEGER NOT NULL,     -- when it was handed to the kernel
	complete_ns  INTEGER,              -- when its completion was seen
	result       INTEGER,              -- bytes done (0: flushes, discards), or -errno
	PRIMARY KEY (run, idx)
) WITHOUT ROWID;   -- rows are written and read in (run, idx) order
