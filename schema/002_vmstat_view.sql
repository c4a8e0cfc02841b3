-- iotape store, schema version 2 (SQLite and PostgreSQL alike): vmstat(8)'s
-- classic columns as views over the raw samples, so every consumer reads one
-- table whatever the samples came from. Three views:
--
--   vmstat_proc  from the /proc samplers' raw counters (sources vmstat,
--                meminfo, stat; capture/procstat.c): one row per sample time
--                of a run;
--   vmstat_log   from an imported vmstat text log (source vmstat-log, keys =
--                the log's column names; capture/vmstat_text.c): one row per
--                log row, values as vmstat printed them;
--   vmstat       both, UNION ALL, with a source column ('proc' or
--                'vmstat-log') to tell them apart; ORDER BY run, time_ns.
--
-- Columns and units (vmstat(8)): r b (processes), swpd free buff cache (kB),
-- si so (kB/s swapped in/out), bi bo (kB/s read/written: 1 kB blocks), "in"
-- (interrupts/s; quote it, IN is an SQL keyword), cs (context switches/s),
-- us sy id wa st (% of CPU time), since_boot (1 on a log's rows that vmstat
-- printed as averages since boot, not over an interval).
--
-- vmstat_proc computes them as procps-ng's vmstat does, from two successive
-- samples (LAG over the run's samples in time order), so a run's first
-- sample has NULL rates and percentages:
--   r = procs_running, b = procs_blocked (/proc/stat);
--   swpd = SwapTotal - SwapFree, free = MemFree, buff = Buffers,
--   cache = Cached + SReclaimable (/proc/meminfo, kB);
--   si, so = delta pswpin, pswpout (pages) x 4 kB / interval (4 kB pages:
--   wrong on machines with larger pages);
--   bi, bo = delta pgpgin, pgpgout (kB) / interval;
--   in = delta intr (total), cs = delta ctxt, per second;
--   us = user + nice (guest time is inside user), sy = system + irq +
--   softirq, id = idle, wa = iowait, st = steal, each as a percentage of
--   their sum's delta (USER_HZ ticks).
-- Rates are double precision (vmstat prints them rounded down to integers),
-- divided as double precision in both dialects so both give the same bits.

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

-- A vmstat text log's rows as printed. Its other columns are here too (w of
-- the 2.4-era layout, inact/active of vmstat -a, gu of procps-ng 4), NULL
-- when the log has none. time_ns is strictly increasing within a run's log
-- rows (the importer moves a row that would share its time 1 ns later), so
-- each (run, time_ns) is one row.
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
