-- iotape store, schema version 10: vmstat_proc's rates and CPU shares are
-- NULL, not an error, where two /proc samples of a run have the same CPU
-- counters (taken within one clock tick: a capture of a few milliseconds)
-- or the same time. SQLite's division by zero is NULL already;
-- PostgreSQL's was "division by zero", and `report` of such a run failed
-- with it. The view is replaced with the same columns: nothing else
-- changes (min_client stays 8).
-- @postgresql
CREATE OR REPLACE VIEW vmstat_proc AS
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
	d_pswpin * 4 / NULLIF(dt, 0) AS si,
	d_pswpout * 4 / NULLIF(dt, 0) AS so,
	d_pgpgin / NULLIF(dt, 0) AS bi,
	d_pgpgout / NULLIF(dt, 0) AS bo,
	d_intr / NULLIF(dt, 0) AS "in",
	d_ctxt / NULLIF(dt, 0) AS cs,
	CAST(100.0 AS double precision) * d_us / NULLIF(d_total, 0) AS us,
	CAST(100.0 AS double precision) * d_sy / NULLIF(d_total, 0) AS sy,
	CAST(100.0 AS double precision) * d_id / NULLIF(d_total, 0) AS id,
	CAST(100.0 AS double precision) * d_wa / NULLIF(d_total, 0) AS wa,
	CAST(100.0 AS double precision) * d_st / NULLIF(d_total, 0) AS st
FROM c;
-- @end
