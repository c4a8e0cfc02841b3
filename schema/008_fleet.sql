-- iotape store, schema version 8: a fleet store a site can run (issue 28).
-- SQLite: nothing changes (the version moves with PostgreSQL's). PostgreSQL:
--
-- * No DDL per run. events, requests, samples and replays are partitioned by
--   RANGE on day (the run's created_ns in days since 1970, UTC), one
--   partition a calendar month (events_2026_12 ...), made once by the first
--   writer of that month through iotape_partition() (standalone, then
--   ATTACH: SHARE UPDATE EXCLUSIVE on the parent, which no reader or writer
--   waits on). A run's rows all lie in its month's partition; deleting a run
--   deletes them (the trigger iotape_runs_gone), and `iotape fleet --expire`
--   drops whole months (DETACH ... CONCURRENTLY, then DROP). Each partition's
--   keys are built once, when it is made: (run, id, day).
-- * Each machine writes only its own runs. A run's host is its writer's
--   machine (iotape_host(): the role's row in iotape_machines, else the role's
--   name), set by the server (trigger iotape_runs_guard); a name with a ':'
--   must begin with that host and a ':'. Row-level security lets a writer
--   insert, change and delete only its machine's runs and their rows of the
--   small tables; the bulk tables take no INSERT from a writer at all: its
--   rows go into this session's temporary tables (iotape_load_tables()) and
--   from there into the store through iotape_land(), SECURITY DEFINER, which
--   refuses a run that is not the caller's machine's and any row of another
--   run. Roles that may act as the tables' owner (iotape_admin()) are not
--   limited. The schema table takes no writes but the owner's.
-- * Rolling upgrades: iotape_schema.min_client is the oldest client schema
--   that can still read and write the store (migrations that only add keep
--   it; this one is 8, as the layout changed). Migrations are the owner's
--   (`iotape fleet --migrate`); every migration, and --migrate, gives the
--   grants again (iotape_grant()) to the roles iotape_reader and
--   iotape_writer when they exist.
-- A store of version 7 is moved here whatever its bulk tables are (schema
-- 6's per-run partitions, or plain tables where 006 never ran).

-- @postgresql
ALTER TABLE iotape_schema ADD COLUMN min_client integer NOT NULL DEFAULT 8;

-- Which host a login role writes as (the owner fills it; a role not here
-- writes as its own name).
CREATE TABLE iotape_machines (
	role  name PRIMARY KEY,
	host  text NOT NULL
);

CREATE FUNCTION iotape_host() RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT coalesce((SELECT host FROM iotape_machines WHERE role = session_user),
			session_user::text)
$$;

-- Whether the session's role may act as the tables' owner.
CREATE FUNCTION iotape_admin() RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT pg_has_role(session_user, (SELECT relowner FROM pg_class
					   WHERE oid = 'runs'::regclass), 'MEMBER')
$$;

-- Whether run r is the session's machine's (or the session an owner's).
CREATE FUNCTION iotape_mine(r bigint) RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT iotape_admin() OR EXISTS (SELECT 1 FROM runs WHERE id = r AND
					 host = iotape_host())
$$;

-- A run's partition key: its created_ns in whole days since 1970 (UTC).
CREATE FUNCTION iotape_day(created_ns bigint) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
	SELECT floor(created_ns / 86400e9)::integer
$$;

-- The new bulk tables, beside the old ones until their rows are moved.
DO $$
BEGIN
	DROP VIEW vmstat;
	DROP VIEW vmstat_proc;
	DROP VIEW vmstat_log;
	ALTER TABLE events RENAME TO events_v7;
	ALTER TABLE requests RENAME TO requests_v7;
	ALTER TABLE samples RENAME TO samples_v7;
	ALTER TABLE replays RENAME TO replays_v7;
	ALTER INDEX events_pkey RENAME TO events_v7_pkey;
	ALTER INDEX requests_pkey RENAME TO requests_v7_pkey;
	ALTER INDEX replays_pkey RENAME TO replays_v7_pkey;
	ALTER INDEX samples_run_time RENAME TO samples_v7_run_time;
	ALTER INDEX IF EXISTS requests_run_dev RENAME TO requests_v7_run_dev;
	CREATE SEQUENCE IF NOT EXISTS samples_seq;
END $$;

CREATE TABLE events (
	run       bigint NOT NULL,
	id        bigint NOT NULL,         -- place in the run: store (time) order
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
	day       integer NOT NULL,        -- iotape_day(runs.created_ns)
	PRIMARY KEY (run, id, day)
) PARTITION BY RANGE (day);

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
	day          integer NOT NULL,
	PRIMARY KEY (run, id, day)
) PARTITION BY RANGE (day);
-- a run's devices and their ids by a seek each, its rows by device (as
-- SQLite's requests_run_dev, whose rowid is id)
CREATE INDEX requests_run_dev ON requests (run, dev, id);

CREATE TABLE samples (
	run     bigint NOT NULL,
	id      bigint NOT NULL DEFAULT nextval('samples_seq'),
	time_ns bigint NOT NULL,
	source  text NOT NULL,
	key     text NOT NULL,
	value   double precision,
	day     integer NOT NULL
) PARTITION BY RANGE (day);
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
	day          integer NOT NULL,
	PRIMARY KEY (run, idx, day)
) PARTITION BY RANGE (day);

-- iotape_partition(DAY): the calendar month of DAY's partitions of the four
-- bulk tables, made unless they exist (standalone with a CHECK matching the
-- bound, then attached: the parent is held in SHARE UPDATE EXCLUSIVE, which
-- neither readers nor writers wait for). Its own transaction (iotape's
-- writers call it on a connection of its own before their run's rows go
-- in); one at a time (an advisory lock). Returns the month's first day.
CREATE FUNCTION iotape_partition(d integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	m0 date := date_trunc('month', DATE '1970-01-01' + d)::date;
	lo integer := m0 - DATE '1970-01-01';
	hi integer := (m0 + interval '1 month')::date - DATE '1970-01-01';
	suffix text := to_char(m0, 'YYYY_MM');
	t text;
BEGIN
	PERFORM pg_advisory_xact_lock(6913541714);
	FOREACH t IN ARRAY ARRAY['events', 'requests', 'samples', 'replays'] LOOP
		IF to_regclass(t || '_' || suffix) IS NULL THEN
			EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS '
				'INCLUDING CONSTRAINTS, CONSTRAINT day_bound CHECK '
				'(day >= %s AND day < %s))', t || '_' || suffix, t, lo, hi);
			EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES '
				'FROM (%s) TO (%s)', t, t || '_' || suffix, lo, hi);
		END IF;
	END LOOP;
	RETURN lo;
END $$;

-- iotape_analyze(DAY, ROWS): statistics of DAY's month's partitions again
-- after a writer loaded ROWS rows into them, when those are a tenth of what
-- they held or they never had any: a reader's plan of a run just pushed is
-- then an index scan in id order, not a sort of rows the planner thought
-- few. Outside the writer's transaction (ANALYZE holds SHARE UPDATE
-- EXCLUSIVE on the partition until the commit).
CREATE FUNCTION iotape_analyze(d integer, n bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	suffix text := to_char(DATE '1970-01-01' + d, 'YYYY_MM');
	t text;
	had real;
BEGIN
	FOREACH t IN ARRAY ARRAY['events', 'requests', 'samples', 'replays'] LOOP
		SELECT reltuples INTO had FROM pg_class
		WHERE oid = to_regclass(t || '_' || suffix);
		IF had IS NOT NULL AND (had < 0 OR n > 0.1 * had) THEN
			EXECUTE format('ANALYZE %I', t || '_' || suffix);
		END IF;
	END LOOP;
END $$;

-- Whether DAY's month has its partitions (a writer asks before its run's
-- rows go in).
CREATE FUNCTION iotape_has_partition(d integer) RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT to_regclass('replays_' || to_char(DATE '1970-01-01' + d, 'YYYY_MM'))
	       IS NOT NULL
$$;

-- the rows of a version 7 store, month by month
DO $$
DECLARE
	d integer;
BEGIN
	FOR d IN SELECT DISTINCT iotape_day(created_ns) FROM runs LOOP
		PERFORM iotape_partition(d);
	END LOOP;
	INSERT INTO events SELECT e.run, e.id, e.time_ns, e.sequence, e.sector,
		e.bytes, e.action, e.pid, e.dev, e.cpu, e.error, e.pdu,
		iotape_day(r.created_ns)
		FROM events_v7 e JOIN runs r ON r.id = e.run;
	INSERT INTO requests SELECT q.run, q.id, q.dev, q.sector, q.bytes, q.rwbs,
		q.cats, q.pid, q.q_ns, q.g_ns, q.m_ns, q.i_ns, q.d_ns, q.c_ns,
		q.d_sector, q.d_bytes, q.requeues, q.error, q.merged_into, q.d_head,
		q.seek_sectors, q.split_from, q.split, q.orig_dev, q.orig_sector,
		iotape_day(r.created_ns)
		FROM requests_v7 q JOIN runs r ON r.id = q.run;
	INSERT INTO samples (run, id, time_ns, source, key, value, day)
		SELECT s.run, s.id, s.time_ns, s.source, s.key, s.value,
		iotape_day(r.created_ns)
		FROM samples_v7 s JOIN runs r ON r.id = s.run;
	PERFORM setval('samples_seq', coalesce((SELECT max(id) FROM samples), 0) + 1,
		       false);
	INSERT INTO replays SELECT x.run, x.idx, x.stream, x.pid, x.dev, x.sector,
		x.bytes, x.op, x.fua, x.as_read, x.src_request, x.sched_ns,
		x.ready_ns, x.issue_ns, x.complete_ns, x.result,
		iotape_day(r.created_ns)
		FROM replays_v7 x JOIN runs r ON r.id = x.run;
	DROP TABLE events_v7, requests_v7, samples_v7, replays_v7 CASCADE;
	DROP FUNCTION IF EXISTS iotape_run_tables(bigint);
	DROP FUNCTION IF EXISTS iotape_run_attach(bigint);
END $$;

-- vmstat's views, as schema 2 made them, over the new samples
CREATE VIEW vmstat_proc AS
WITH p AS (
	SELECT run, time_ns,
		max(CASE WHEN source = 'stat' AND key = 'procs_running' THEN value END) AS r,
		max(CASE WHEN source = 'stat' AND key = 'procs_blocked' THEN value END) AS b,
		max(CASE WHEN source = 'meminfo' AND key = 'SwapTotal' THEN value END)
		- max(CASE WHEN source = 'meminfo' AND key = 'SwapFree' THEN value END) AS swpd,
		max(CASE WHEN source = 'meminfo' AND key = 'MemFree' THEN value END) AS free,
		max(CASE WHEN source = 'meminfo' AND key = 'Buffers' THEN value END) AS buff,
		max(CASE WHEN source = 'meminfo' AND key = 'Cached' THEN value END)
		+ coalesce(max(CASE WHEN source = 'meminfo' AND key = 'SReclaimable' THEN value END), 0) AS cache,
		max(CASE WHEN source = 'vmstat' AND key = 'pswpin' THEN value END) AS pswpin,
		max(CASE WHEN source = 'vmstat' AND key = 'pswpout' THEN value END) AS pswpout,
		max(CASE WHEN source = 'vmstat' AND key = 'pgpgin' THEN value END) AS pgpgin,
		max(CASE WHEN source = 'vmstat' AND key = 'pgpgout' THEN value END) AS pgpgout,
		max(CASE WHEN source = 'stat' AND key = 'intr' THEN value END) AS intr,
		max(CASE WHEN source = 'stat' AND key = 'ctxt' THEN value END) AS ctxt,
		max(CASE WHEN source = 'stat' AND key = 'cpu_user' THEN value END)
		+ coalesce(max(CASE WHEN source = 'stat' AND key = 'cpu_nice' THEN value END), 0) AS t_us,
		max(CASE WHEN source = 'stat' AND key = 'cpu_system' THEN value END)
		+ coalesce(max(CASE WHEN source = 'stat' AND key = 'cpu_irq' THEN value END), 0)
		+ coalesce(max(CASE WHEN source = 'stat' AND key = 'cpu_softirq' THEN value END), 0) AS t_sy,
		max(CASE WHEN source = 'stat' AND key = 'cpu_idle' THEN value END) AS t_id,
		coalesce(max(CASE WHEN source = 'stat' AND key = 'cpu_iowait' THEN value END), 0) AS t_wa,
		coalesce(max(CASE WHEN source = 'stat' AND key = 'cpu_steal' THEN value END), 0) AS t_st
	FROM samples
	WHERE source IN ('vmstat', 'meminfo', 'stat')
	  AND key IN ('procs_running', 'procs_blocked', 'SwapTotal', 'SwapFree',
		      'MemFree', 'Buffers', 'Cached', 'SReclaimable', 'pswpin',
		      'pswpout', 'pgpgin', 'pgpgout', 'intr', 'ctxt', 'cpu_user',
		      'cpu_nice', 'cpu_system', 'cpu_irq', 'cpu_softirq',
		      'cpu_idle', 'cpu_iowait', 'cpu_steal')
	GROUP BY run, time_ns
), d AS (
	SELECT run, time_ns, r, b, swpd, free, buff, cache,
		(time_ns - lag(time_ns) OVER w) / CAST(1e9 AS double precision) AS dt,
		pswpin - lag(pswpin) OVER w AS d_pswpin,
		pswpout - lag(pswpout) OVER w AS d_pswpout,
		pgpgin - lag(pgpgin) OVER w AS d_pgpgin,
		pgpgout - lag(pgpgout) OVER w AS d_pgpgout,
		intr - lag(intr) OVER w AS d_intr,
		ctxt - lag(ctxt) OVER w AS d_ctxt,
		t_us - lag(t_us) OVER w AS d_us,
		t_sy - lag(t_sy) OVER w AS d_sy,
		t_id - lag(t_id) OVER w AS d_id,
		t_wa - lag(t_wa) OVER w AS d_wa,
		t_st - lag(t_st) OVER w AS d_st
	FROM p
	WINDOW w AS (PARTITION BY run ORDER BY time_ns)
), c AS (
	SELECT *, d_us + d_sy + d_id + d_wa + d_st AS d_total FROM d
)
SELECT run, time_ns, 'proc' AS source, 0 AS since_boot,
	r, b, swpd, free, buff, cache,
	d_pswpin * 4 / dt AS si,
	d_pswpout * 4 / dt AS so,
	d_pgpgin / dt AS bi,
	d_pgpgout / dt AS bo,
	d_intr / dt AS "in",
	d_ctxt / dt AS cs,
	CAST(100.0 AS double precision) * d_us / d_total AS us,
	CAST(100.0 AS double precision) * d_sy / d_total AS sy,
	CAST(100.0 AS double precision) * d_id / d_total AS id,
	CAST(100.0 AS double precision) * d_wa / d_total AS wa,
	CAST(100.0 AS double precision) * d_st / d_total AS st
FROM c;

CREATE VIEW vmstat_log AS
SELECT run, time_ns, 'vmstat-log' AS source,
	CAST(coalesce(max(CASE WHEN key = 'since_boot' THEN value END), 0) AS integer) AS since_boot,
	max(CASE WHEN key = 'r' THEN value END) AS r,
	max(CASE WHEN key = 'b' THEN value END) AS b,
	max(CASE WHEN key = 'swpd' THEN value END) AS swpd,
	max(CASE WHEN key = 'free' THEN value END) AS free,
	max(CASE WHEN key = 'buff' THEN value END) AS buff,
	max(CASE WHEN key = 'cache' THEN value END) AS cache,
	max(CASE WHEN key = 'si' THEN value END) AS si,
	max(CASE WHEN key = 'so' THEN value END) AS so,
	max(CASE WHEN key = 'bi' THEN value END) AS bi,
	max(CASE WHEN key = 'bo' THEN value END) AS bo,
	max(CASE WHEN key = 'in' THEN value END) AS "in",
	max(CASE WHEN key = 'cs' THEN value END) AS cs,
	max(CASE WHEN key = 'us' THEN value END) AS us,
	max(CASE WHEN key = 'sy' THEN value END) AS sy,
	max(CASE WHEN key = 'id' THEN value END) AS id,
	max(CASE WHEN key = 'wa' THEN value END) AS wa,
	max(CASE WHEN key = 'st' THEN value END) AS st,
	max(CASE WHEN key = 'w' THEN value END) AS w,
	max(CASE WHEN key = 'inact' THEN value END) AS inact,
	max(CASE WHEN key = 'active' THEN value END) AS active,
	max(CASE WHEN key = 'gu' THEN value END) AS gu
FROM samples
WHERE source = 'vmstat-log'
GROUP BY run, time_ns;

CREATE VIEW vmstat AS
SELECT run, time_ns, source, since_boot, r, b, swpd, free, buff, cache,
	si, so, bi, bo, "in", cs, us, sy, id, wa, st
FROM vmstat_proc
UNION ALL
SELECT run, time_ns, source, since_boot, r, b, swpd, free, buff, cache,
	si, so, bi, bo, "in", cs, us, sy, id, wa, st
FROM vmstat_log;

-- ---- deleting a run deletes its bulk rows (the small tables cascade) ----
-- Only in its month's partition; `iotape fleet --expire` sets
-- iotape.keep_from_day so the rows of months it drops whole are not deleted
-- one by one first.
CREATE FUNCTION iotape_runs_gone() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	d integer := iotape_day(OLD.created_ns);
BEGIN
	IF d >= coalesce(nullif(current_setting('iotape.keep_from_day', true),
				'')::integer, -2147483648) THEN
		DELETE FROM events WHERE run = OLD.id AND day = d;
		DELETE FROM requests WHERE run = OLD.id AND day = d;
		DELETE FROM samples WHERE run = OLD.id AND day = d;
		DELETE FROM replays WHERE run = OLD.id AND day = d;
	END IF;
	RETURN OLD;
END $$;
CREATE TRIGGER iotape_runs_gone AFTER DELETE ON runs
	FOR EACH ROW EXECUTE FUNCTION iotape_runs_gone();

-- ---- a writer's runs are its machine's ----
CREATE FUNCTION iotape_runs_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	h text;
BEGIN
	IF iotape_admin() THEN
		RETURN NEW;
	END IF;
	h := iotape_host();
	IF TG_OP = 'INSERT' THEN
		NEW.host := h;
	ELSIF NEW.host IS DISTINCT FROM OLD.host THEN
		RAISE EXCEPTION 'a run''s host is its writer''s machine (''%''): % '
			'may not change it', h, session_user USING ERRCODE = '42501';
	END IF;
	IF position(':' in NEW.name) > 0 AND left(NEW.name, length(h) + 1) <> h || ':'
	THEN
		RAISE EXCEPTION 'run names with '':'' of machine ''%'' begin with '
			'''%:'' (role %; not ''%'')', h, h, session_user, NEW.name
			USING ERRCODE = '42501';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER iotape_runs_guard BEFORE INSERT OR UPDATE ON runs
	FOR EACH ROW EXECUTE FUNCTION iotape_runs_guard();

ALTER TABLE runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY runs_read ON runs FOR SELECT USING (true);
CREATE POLICY runs_insert ON runs FOR INSERT
	WITH CHECK (iotape_admin() OR host = iotape_host());
CREATE POLICY runs_update ON runs FOR UPDATE
	USING (iotape_admin() OR host = iotape_host())
	WITH CHECK (iotape_admin() OR host = iotape_host());
CREATE POLICY runs_delete ON runs FOR DELETE
	USING (iotape_admin() OR host = iotape_host());

DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['settings', 'devices', 'processes', 'commands',
				 'run_stats', 'metrics', 'run_summary'] LOOP
		EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
		EXECUTE format('CREATE POLICY %I ON %I FOR SELECT USING (true)',
			       t || '_read', t);
		EXECUTE format('CREATE POLICY %I ON %I FOR ALL USING (iotape_mine(run))'
			       ' WITH CHECK (iotape_mine(run))', t || '_write', t);
	END LOOP;
END $$;

-- ---- a writer's bulk rows: into temporary tables, then landed ----
-- iotape_load_tables(): this session's load tables (pg_temp.iotape_load_T,
-- as T; rows go at each commit), made the first time, INSERT its role's.
CREATE FUNCTION iotape_load_tables() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['events', 'requests', 'samples', 'replays'] LOOP
		IF to_regclass('pg_temp.iotape_load_' || t) IS NULL THEN
			EXECUTE format('CREATE TEMP TABLE %I (LIKE %I INCLUDING '
				'DEFAULTS) ON COMMIT DELETE ROWS', 'iotape_load_' || t, t);
			EXECUTE format('GRANT INSERT ON pg_temp.%I TO %I',
				'iotape_load_' || t, session_user);
		END IF;
	END LOOP;
END $$;

CREATE FUNCTION iotape_refuse(r bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'a row of run % among the rows landed for another run', r
		USING ERRCODE = '42501';
END $$;

-- iotape_land(TABLE, RUN): the rows of RUN waiting in this session's load
-- table of TABLE go into TABLE (in RUN's month) and the load table is
-- emptied. Refused for a run that is not the caller's machine's, and for a
-- row of any other run. Returns the rows landed.
CREATE FUNCTION iotape_land(t text, r bigint) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	d integer;
	n bigint;
BEGIN
	IF NOT iotape_mine(r) THEN
		RAISE EXCEPTION 'run % is not machine ''%''''s: % may not write its rows',
			r, iotape_host(), session_user USING ERRCODE = '42501';
	END IF;
	SELECT iotape_day(created_ns) INTO d FROM runs WHERE id = r;
	IF t = 'events' THEN
		INSERT INTO events (run, id, time_ns, sequence, sector, bytes, action,
			pid, dev, cpu, error, pdu, day)
		SELECT run, id, time_ns, sequence, sector, bytes, action, pid, dev,
			cpu, error, pdu, d FROM pg_temp.iotape_load_events
		WHERE CASE WHEN run = r THEN true ELSE iotape_refuse(run) END;
	ELSIF t = 'requests' THEN
		INSERT INTO requests (run, id, dev, sector, bytes, rwbs, cats, pid,
			q_ns, g_ns, m_ns, i_ns, d_ns, c_ns, d_sector, d_bytes, requeues,
			error, merged_into, d_head, seek_sectors, split_from, split,
			orig_dev, orig_sector, day)
		SELECT run, id, dev, sector, bytes, rwbs, cats, pid, q_ns, g_ns, m_ns,
			i_ns, d_ns, c_ns, d_sector, d_bytes, requeues, error,
			merged_into, d_head, seek_sectors, split_from, split, orig_dev,
			orig_sector, d FROM pg_temp.iotape_load_requests
		WHERE CASE WHEN run = r THEN true ELSE iotape_refuse(run) END;
	ELSIF t = 'samples' THEN
		INSERT INTO samples (run, id, time_ns, source, key, value, day)
		SELECT run, id, time_ns, source, key, value, d
		FROM pg_temp.iotape_load_samples
		WHERE CASE WHEN run = r THEN true ELSE iotape_refuse(run) END;
	ELSIF t = 'replays' THEN
		INSERT INTO replays (run, idx, stream, pid, dev, sector, bytes, op,
			fua, as_read, src_request, sched_ns, ready_ns, issue_ns,
			complete_ns, result, day)
		SELECT run, idx, stream, pid, dev, sector, bytes, op, fua, as_read,
			src_request, sched_ns, ready_ns, issue_ns, complete_ns, result,
			d FROM pg_temp.iotape_load_replays
		WHERE CASE WHEN run = r THEN true ELSE iotape_refuse(run) END;
	ELSE
		RAISE EXCEPTION 'no bulk table %', t;
	END IF;
	GET DIAGNOSTICS n = ROW_COUNT;
	EXECUTE format('TRUNCATE pg_temp.%I', 'iotape_load_' || t);
	RETURN n;
END $$;

-- iotape_grant(): the grants of the roles iotape_reader (reads) and
-- iotape_writer (writes its machine's runs) on every table of the store,
-- given again from nothing (what earlier versions granted is taken back
-- first). Run by every migration and by `iotape fleet --migrate`; the
-- owner's.
CREATE FUNCTION iotape_grant() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	everything text := 'iotape_schema, iotape_machines, runs, settings, '
		'devices, processes, events, requests, samples, commands, '
		'run_stats, replays, metrics, run_summary, vmstat, vmstat_proc, '
		'vmstat_log';
	small text := 'settings, devices, processes, commands, run_stats, '
		'metrics, run_summary';
	r text;
BEGIN
	EXECUTE 'REVOKE ALL ON ' || everything || ' FROM PUBLIC';
	FOREACH r IN ARRAY ARRAY['iotape_reader', 'iotape_writer'] LOOP
		IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('REVOKE ALL ON %s FROM %I', everything, r);
			EXECUTE format('GRANT SELECT ON %s TO %I', everything, r);
		END IF;
	END LOOP;
	IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iotape_writer') THEN
		EXECUTE 'GRANT INSERT, UPDATE, DELETE ON runs, ' || small ||
			' TO iotape_writer';
		EXECUTE 'GRANT USAGE ON ALL SEQUENCES IN SCHEMA ' ||
			quote_ident(current_schema()) || ' TO iotape_writer';
		GRANT EXECUTE ON FUNCTION iotape_load_tables(), iotape_land(text, bigint),
			iotape_partition(integer), iotape_analyze(integer, bigint)
			TO iotape_writer;
	END IF;
END $$;

DO $$
DECLARE
	f text;
BEGIN
	FOREACH f IN ARRAY ARRAY['iotape_partition(integer)', 'iotape_runs_gone()',
				 'iotape_load_tables()', 'iotape_land(text, bigint)',
				 'iotape_analyze(integer, bigint)']
	LOOP
		EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f,
			       current_schema());
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
	END LOOP;
	REVOKE ALL ON FUNCTION iotape_grant() FROM PUBLIC;
END $$;
SELECT iotape_grant();
-- @end
