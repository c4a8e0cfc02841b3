-- iotape store, schema version 4. SQLite: every table of a run's rows references
-- runs(id) ON DELETE CASCADE, so deleting a run (store_run_delete(), or by
-- hand with PRAGMA foreign_keys = ON) takes all its rows with it. events and
-- requests had no foreign key and SQLite's ALTER TABLE cannot add one: they
-- are rebuilt (same columns, same ids). Rows of runs that no longer exist
-- (left by hand deletes before this version) are dropped on the way, as a
-- foreign key would have; a replay whose parent is gone keeps its rows with
-- the parent cleared. events gets no index on run: one costs an import a
-- quarter more time (2.1M events: 1.5 s of 6 s), while the cascade's scan
-- of events costs a delete about 0.5 s a million events; reads find a
-- run's events by runs.first_event .. last_event. PostgreSQL: none of that
-- (the small tables cascade from version 1; the bulk tables' rows are
-- deleted by the store). Both: runs gets input_sha256, the SHA-256 (FIPS
-- 180-4) of the bytes an import read, in hex, so importing them again is
-- noticed.

-- @sqlite
DELETE FROM settings WHERE run NOT IN (SELECT id FROM runs);
DELETE FROM devices WHERE run NOT IN (SELECT id FROM runs);
DELETE FROM processes WHERE run NOT IN (SELECT id FROM runs);
DELETE FROM samples WHERE run NOT IN (SELECT id FROM runs);
DELETE FROM commands WHERE run NOT IN (SELECT id FROM runs);
DELETE FROM run_stats WHERE run NOT IN (SELECT id FROM runs);
DELETE FROM replays WHERE run NOT IN (SELECT id FROM runs);
UPDATE runs SET parent = NULL
	WHERE parent IS NOT NULL AND parent NOT IN (SELECT id FROM runs);

CREATE TABLE events_v4 (
	id        INTEGER PRIMARY KEY,
	run       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
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
INSERT INTO events_v4 (id, run, time_ns, sequence, sector, bytes, action,
		       pid, dev, cpu, error, pdu)
	SELECT id, run, time_ns, sequence, sector, bytes, action, pid, dev, cpu,
	       error, pdu
	FROM events WHERE run IN (SELECT id FROM runs) ORDER BY id;
DROP TABLE events;
ALTER TABLE events_v4 RENAME TO events;

-- as in 001_init.sql, with the foreign key
CREATE TABLE requests_v4 (
	id           INTEGER PRIMARY KEY,
	run          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
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
INSERT INTO requests_v4 (id, run, dev, sector, bytes, rwbs, cats, pid, q_ns,
			 g_ns, m_ns, i_ns, d_ns, c_ns, d_sector, d_bytes,
			 requeues, error, merged_into, d_head, seek_sectors,
			 split_from, split, orig_dev, orig_sector)
	SELECT id, run, dev, sector, bytes, rwbs, cats, pid, q_ns, g_ns, m_ns,
	       i_ns, d_ns, c_ns, d_sector, d_bytes, requeues, error,
	       merged_into, d_head, seek_sectors, split_from, split, orig_dev,
	       orig_sector
	FROM requests WHERE run IN (SELECT id FROM runs) ORDER BY id;
DROP TABLE requests;
ALTER TABLE requests_v4 RENAME TO requests;
CREATE INDEX requests_run_dev ON requests (run, dev);
-- @end

ALTER TABLE runs ADD COLUMN input_sha256 text;
CREATE INDEX runs_input_sha256 ON runs (input_sha256);
