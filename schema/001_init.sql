-- iotape store, schema version 1. Times are int64 nanoseconds; sectors are
-- 512 bytes; dev is major << 20 | minor as in struct blk_io_trace.
-- Compiled into the binary; PRAGMA user_version holds the version.

CREATE TABLE runs (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,
	kind        TEXT NOT NULL CHECK (kind IN ('import', 'capture', 'replay')),
	parent      INTEGER REFERENCES runs(id),
	created_ns  INTEGER NOT NULL,      -- wall clock when the run was made
	host        TEXT,
	kernel      TEXT,
	source      TEXT,                  -- input paths or capture back end
	format      TEXT,                  -- blktrace-v7, blktrace-v8, blkparse-text
	big_endian  INTEGER,               -- byte order of the original records
	status      TEXT NOT NULL DEFAULT 'complete'
	            CHECK (status IN ('complete', 'interrupted', 'failed')),
	genesis_ns  INTEGER,               -- first event's time: dump prints time - genesis
	first_event INTEGER,               -- events.id range of this run
	last_event  INTEGER,
	notes       TEXT
);

CREATE TABLE settings (
	run    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	key    TEXT NOT NULL,              -- vm.dirty_ratio, loop0:queue/scheduler
	value  TEXT,
	at     TEXT NOT NULL CHECK (at IN ('start', 'end')),
	PRIMARY KEY (run, key, at)
);

CREATE TABLE devices (
	run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	dev         INTEGER NOT NULL,
	name        TEXT,
	size_bytes  INTEGER,
	role        TEXT NOT NULL DEFAULT 'data' CHECK (role IN ('data', 'swap')),
	PRIMARY KEY (run, dev)
);

CREATE TABLE processes (
	run   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	pid   INTEGER NOT NULL,
	comm  TEXT NOT NULL,
	PRIMARY KEY (run, pid)
);

-- Every field of struct blk_io_trace / blk_io_trace2, lossless, in the order
-- blkparse prints them (id order is time order within a run).
CREATE TABLE events (
	id        INTEGER PRIMARY KEY,
	run       INTEGER NOT NULL,
	time_ns   INTEGER NOT NULL,        -- trace clock as recorded
	sequence  INTEGER NOT NULL,
	sector    INTEGER NOT NULL,
	bytes     INTEGER NOT NULL,
	action    INTEGER NOT NULL,        -- code | categories << 16
	pid       INTEGER NOT NULL,
	dev       INTEGER NOT NULL,
	cpu       INTEGER NOT NULL,
	error     INTEGER NOT NULL,
	pdu       BLOB                     -- payload bytes as recorded, or NULL
);

-- One row per I/O after stitching, as btt does: a queued bio (Q) with the
-- times of its G (or M/F merge), I, D and C; merged bios name the bio whose
-- request they joined. A D with no Q in the trace makes a row of its own
-- (q_ns NULL) so D-and-C-only traces still give D2C.
CREATE TABLE requests (
	id           INTEGER PRIMARY KEY,
	run          INTEGER NOT NULL,
	dev          INTEGER NOT NULL,
	sector       INTEGER NOT NULL,
	bytes        INTEGER NOT NULL,
	rwbs         TEXT NOT NULL,
	cats         INTEGER NOT NULL,     -- category bits (BT_C_*)
	pid          INTEGER NOT NULL,
	q_ns         INTEGER,
	g_ns         INTEGER,              -- get request
	m_ns         INTEGER,              -- back or front merge
	i_ns         INTEGER,
	d_ns         INTEGER,
	c_ns         INTEGER,
	d_sector     INTEGER,              -- the dispatched request holding it
	d_bytes      INTEGER,
	requeues     INTEGER NOT NULL DEFAULT 0,
	error        INTEGER NOT NULL DEFAULT 0,
	merged_into  INTEGER,              -- requests.id of the bio it joined
	d_head       INTEGER NOT NULL DEFAULT 0, -- 1 on the one row standing for its D
	seek_sectors INTEGER,              -- on d_head rows: btt's D2D seek distance
	split_from   INTEGER,              -- requests.id of the bio an X split this from
	split        INTEGER NOT NULL DEFAULT 0, -- 1 on both halves of a split bio
	orig_dev     INTEGER,              -- where a remap (A) says the bio came from
	orig_sector  INTEGER,
	q2g_ns  INTEGER GENERATED ALWAYS AS (g_ns - q_ns) VIRTUAL,
	q2m_ns  INTEGER GENERATED ALWAYS AS (m_ns - q_ns) VIRTUAL,
	g2i_ns  INTEGER GENERATED ALWAYS AS (i_ns - g_ns) VIRTUAL,
	i2d_ns  INTEGER GENERATED ALWAYS AS (d_ns - i_ns) VIRTUAL,
	q2d_ns  INTEGER GENERATED ALWAYS AS (d_ns - q_ns) VIRTUAL,
	d2c_ns  INTEGER GENERATED ALWAYS AS (c_ns - d_ns) VIRTUAL,
	q2c_ns  INTEGER GENERATED ALWAYS AS (c_ns - q_ns) VIRTUAL
);
CREATE INDEX requests_run_dev ON requests (run, dev);

CREATE TABLE samples (
	run     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	time_ns INTEGER NOT NULL,          -- on the events' clock
	source  TEXT NOT NULL,             -- vmstat, meminfo, stat, psi, vmstat-log
	key     TEXT NOT NULL,
	value   REAL
);
CREATE INDEX samples_run_time ON samples (run, time_ns);

CREATE TABLE commands (
	run      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	idx      INTEGER NOT NULL,
	argv     TEXT NOT NULL,
	start_ns INTEGER,
	end_ns   INTEGER,
	real_s   REAL,
	user_s   REAL,
	sys_s    REAL,
	status   INTEGER,
	PRIMARY KEY (run, idx)
);

-- Import statistics per run: what was read, skipped, missing.
CREATE TABLE run_stats (
	run    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	key    TEXT NOT NULL,
	value  TEXT,
	PRIMARY KEY (run, key)
);
