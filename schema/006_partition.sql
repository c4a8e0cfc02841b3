-- iotape store, schema version 6, PostgreSQL only (SQLite has no
-- partitions: there the version only moves with it, to keep both stores'
-- numbers the same; nothing changes in an SQLite file): a run's events,
-- requests, samples and replays in partitions of their own (declarative
-- partitioning, LIST on run: PostgreSQL's "Table Partitioning" chapter), so
-- deleting a run drops its tables, and bulk loads go into a fresh table
-- without indexes.
--
-- A run's four tables (events_RUN, requests_RUN, samples_RUN, replays_RUN)
-- are made when the run is, inside its transaction, as plain tables with a
-- CHECK (run = RUN) that matches the partition bound; the writer COPYs into
-- them (no index, no routing), then attaches them once the rows are in: the
-- CHECK lets ATTACH PARTITION skip its scan, and the parent's keys are built
-- on the loaded rows then (one sorted build, not a per-row insert). ATTACH
-- takes SHARE UPDATE EXCLUSIVE on the parent (readers go on); CREATE TABLE
-- ... PARTITION OF would take ACCESS EXCLUSIVE for the whole load.
--
-- Writers may not create tables: iotape_run_tables() and iotape_run_attach()
-- do it as the schema's owner (SECURITY DEFINER, search_path pinned), only
-- for a run the caller's transaction sees and only tables not yet attached.
-- A new table grants SELECT and INSERT to PUBLIC until it is attached
-- (nobody else can see it before its transaction commits; the attach
-- revokes them). EXECUTE on both is the writer role's (README's GRANTs).
-- samples.id comes from the sequence samples_seq (an identity column cannot
-- be copied to a table that becomes a partition).
-- An existing store's rows move into the new tables (runs without a runs row
-- are dropped, as rm would have). Grants are per table: give the README's
-- GRANT block again after this upgrade.

-- @postgresql
DO $$
DECLARE
	v_proc text := pg_get_viewdef('vmstat_proc'::regclass);
	v_log text := pg_get_viewdef('vmstat_log'::regclass);
	v_all text := pg_get_viewdef('vmstat'::regclass);
BEGIN
	DROP VIEW vmstat;
	DROP VIEW vmstat_proc;
	DROP VIEW vmstat_log;
	ALTER TABLE events RENAME TO events_v5;
	ALTER TABLE requests RENAME TO requests_v5;
	ALTER TABLE samples RENAME TO samples_v5;
	ALTER TABLE replays RENAME TO replays_v5;
	ALTER INDEX events_pkey RENAME TO events_v5_pkey;
	ALTER INDEX requests_pkey RENAME TO requests_v5_pkey;
	ALTER INDEX replays_pkey RENAME TO replays_v5_pkey;
	ALTER INDEX samples_run_time RENAME TO samples_v5_run_time;

	CREATE TABLE events (
		run       bigint NOT NULL,
		id        bigint NOT NULL,
		time_ns   bigint NOT NULL,
		sequence  bigint NOT NULL,
		sector    bigint NOT NULL,
		bytes     bigint NOT NULL,
		action    bigint NOT NULL,
		pid       bigint NOT NULL,
		dev       bigint NOT NULL,
		cpu       bigint NOT NULL,
		error     integer NOT NULL,
		pdu       bytea,
		PRIMARY KEY (run, id)
	) PARTITION BY LIST (run);

	CREATE TABLE requests (
		run          bigint NOT NULL,
		id           bigint NOT NULL,
		dev          bigint NOT NULL,
		sector       bigint NOT NULL,
		bytes        bigint NOT NULL,
		rwbs         text NOT NULL,
		cats         bigint NOT NULL,
		pid          bigint NOT NULL,
		q_ns         bigint,
		g_ns         bigint,
		m_ns         bigint,
		i_ns         bigint,
		d_ns         bigint,
		c_ns         bigint,
		d_sector     bigint,
		d_bytes      bigint,
		requeues     bigint NOT NULL DEFAULT 0,
		error        integer NOT NULL DEFAULT 0,
		merged_into  bigint,
		d_head       integer NOT NULL DEFAULT 0,
		seek_sectors bigint,
		split_from   bigint,
		split        integer NOT NULL DEFAULT 0,
		orig_dev     bigint,
		orig_sector  bigint,
		PRIMARY KEY (run, id)
	) PARTITION BY LIST (run);

	CREATE SEQUENCE samples_seq;
	PERFORM setval('samples_seq', coalesce((SELECT max(id) FROM samples_v5), 0) + 1, false);
	CREATE TABLE samples (
		run     bigint NOT NULL,
		id      bigint NOT NULL DEFAULT nextval('samples_seq'),
		time_ns bigint NOT NULL,
		source  text NOT NULL,
		key     text NOT NULL,
		value   double precision
	) PARTITION BY LIST (run);
	CREATE INDEX samples_run_time ON samples (run, time_ns, id);

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
	) PARTITION BY LIST (run);

	EXECUTE 'CREATE VIEW vmstat_proc AS ' || v_proc;
	EXECUTE 'CREATE VIEW vmstat_log AS ' || v_log;
	EXECUTE 'CREATE VIEW vmstat AS ' || v_all;
END $$;

-- iotape_run_tables(RUN): RUN's four tables, empty and detached, for its
-- writer to COPY into. Refused for a run the caller cannot see or whose
-- tables exist.
CREATE FUNCTION iotape_run_tables(r bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	t text;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM runs WHERE id = r) THEN
		RAISE EXCEPTION 'no run with id %', r;
	END IF;
	FOREACH t IN ARRAY ARRAY['events', 'requests', 'samples', 'replays'] LOOP
		EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS '
			'INCLUDING CONSTRAINTS, CONSTRAINT run_bound CHECK (run = %s))',
			t || '_' || r, t, r);
		EXECUTE format('GRANT SELECT, INSERT ON %I TO PUBLIC', t || '_' || r);
	END LOOP;
END $$;

-- iotape_run_attach(RUN): attaches RUN's four tables as the partitions
-- FOR VALUES IN (RUN) (building the parents' keys on them) and takes back
-- PUBLIC's INSERT. Refused for tables attached already.
CREATE FUNCTION iotape_run_attach(r bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['events', 'requests', 'samples', 'replays'] LOOP
		IF (SELECT relispartition FROM pg_class
		    WHERE oid = (t || '_' || r)::regclass) THEN
			RAISE EXCEPTION 'run %''s tables are attached already', r;
		END IF;
		EXECUTE format('REVOKE ALL ON %I FROM PUBLIC', t || '_' || r);
		EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%s)',
			t, t || '_' || r, r);
	END LOOP;
END $$;

DO $$
BEGIN
	EXECUTE format('ALTER FUNCTION iotape_run_tables(bigint) SET search_path = %I, pg_temp',
		current_schema());
	EXECUTE format('ALTER FUNCTION iotape_run_attach(bigint) SET search_path = %I, pg_temp',
		current_schema());
END $$;
REVOKE ALL ON FUNCTION iotape_run_tables(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION iotape_run_attach(bigint) FROM PUBLIC;

-- the rows of a version 5 store, run by run
DO $$
DECLARE
	r bigint;
BEGIN
	FOR r IN SELECT id FROM runs ORDER BY id LOOP
		PERFORM iotape_run_tables(r);
		EXECUTE format('INSERT INTO %I SELECT * FROM events_v5 WHERE run = %s',
			'events_' || r, r);
		EXECUTE format('INSERT INTO %I SELECT * FROM requests_v5 WHERE run = %s',
			'requests_' || r, r);
		EXECUTE format('INSERT INTO %I (run, id, time_ns, source, key, value) '
			'SELECT run, id, time_ns, source, key, value FROM samples_v5 '
			'WHERE run = %s', 'samples_' || r, r);
		EXECUTE format('INSERT INTO %I SELECT * FROM replays_v5 WHERE run = %s',
			'replays_' || r, r);
		PERFORM iotape_run_attach(r);
	END LOOP;
	DROP TABLE events_v5, requests_v5, samples_v5, replays_v5;
END $$;
-- @end
