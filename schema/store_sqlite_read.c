/* The store's SQLite back end, reading half: a run's row, the list of runs,
 * settings, devices, processes, commands and statistics as one-block lists,
 * and the cursors over requests, events, samples and vmstat rows. */
#include "schema/store_sqlite.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t sq_col_i64_or(sqlite3_stmt *q, int i, int64_t none)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? none
						       : sqlite3_column_int64(q, i);
}

void sq_col_copy(sqlite3_stmt *q, int i, char *out, size_t len)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	snprintf(out, len, "%s", t ? (const char *)t : "");
}

static double col_double_or_nan(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN
						       : sqlite3_column_double(q, i);
}

/* Prepares sql with ?1 bound to run, after writing batched events. */
static int prepare_run(struct sqlite_store *s, const char *sql, int64_t run,
		       sqlite3_stmt **q, const char *what)
{
	int rc;

	if ((rc = sq_flush_events(s)) || (rc = sq_prepare(s, sql, q, what)))
		return rc;
	sqlite3_bind_int64(*q, 1, run);
	return 0;
}

/* Finishes a statement stepped to its end (last step's result step). */
static int finish(struct sqlite_store *s, sqlite3_stmt *q, int step,
		  const char *what)
{
	int rc = step == SQLITE_DONE ? 0 : sq_fail(s, STORE_E_SQLITE, what);

	sqlite3_finalize(q);
	return rc;
}

/* ---- runs ---- */

#define RUN_COLS "id, name, kind, status, format, source, host, kernel, " \
	"parent, created_ns, genesis_ns, first_event, last_event, " \
	"(SELECT time_ns FROM events WHERE id = runs.last_event), big_endian"

static void run_row(sqlite3_stmt *q, int c, struct store_run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(q, c);
	sq_col_copy(q, c + 1, r->name, sizeof(r->name));
	sq_col_copy(q, c + 2, r->kind, sizeof(r->kind));
	sq_col_copy(q, c + 3, r->status, sizeof(r->status));
	sq_col_copy(q, c + 4, r->format, sizeof(r->format));
	sq_col_copy(q, c + 5, r->source, sizeof(r->source));
	sq_col_copy(q, c + 6, r->host, sizeof(r->host));
	sq_col_copy(q, c + 7, r->kernel, sizeof(r->kernel));
	r->parent = sq_col_i64_or(q, c + 8, 0);
	r->created_ns = sqlite3_column_int64(q, c + 9);
	r->genesis_ns = sq_col_i64_or(q, c + 10, STORE_NO_TIME);
	r->first_event = sq_col_i64_or(q, c + 11, 0);
	r->last_event = sq_col_i64_or(q, c + 12, 0);
	r->events = r->first_event && r->last_event
		? r->last_event - r->first_event + 1 : 0;
	r->last_ns = sq_col_i64_or(q, c + 13, 0);
	r->big_endian = sqlite3_column_int(q, c + 14);
}

int sq_run_get(struct store *st, int64_t run, struct store_run *out)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q;
	int rc;

	if ((rc = prepare_run(s, "SELECT " RUN_COLS " FROM runs WHERE id = ?1",
			      run, &q, "reading run")))
		return rc;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		run_row(q, 0, out);
	sqlite3_finalize(q);
	if (rc == SQLITE_DONE)
		return store_fail(st, STORE_E_NOTFOUND, "no run with id %lld",
				  (long long)run);
	if (rc != SQLITE_ROW)
		return sq_fail(s, STORE_E_SQLITE, "reading run");
	return 0;
}

static void fill_listing(struct store_list *l, void *row, sqlite3_stmt *q)
{
	struct store_run_listing *r = row;

	run_row(q, 0, &r->run);
	r->requests = sqlite3_column_int64(q, 15);
	r->sample_first_ns = sq_col_i64_or(q, 16, STORE_NO_TIME);
	r->sample_last_ns = sq_col_i64_or(q, 17, STORE_NO_TIME);
}

/* a run's first and last sample times: two look-ups in samples_run_time */
#define SAMPLE_SPAN ", (SELECT min(time_ns) FROM samples WHERE run = runs.id)" \
	", (SELECT max(time_ns) FROM samples WHERE run = runs.id)"

static int read_list(struct sqlite_store *s, const char *sql, int64_t run,
		     size_t row_size, const size_t *str_fields, size_t nstr,
		     void (*fill)(struct store_list *l, void *row,
				  sqlite3_stmt *q),
		     void **out, size_t *n, const char *what);

int sq_runs_list(struct store *st, int count_requests,
		 const struct store_run_filter *f,
		 struct store_run_listing **out, size_t *n)
{
	struct sqlite_store *s = sq(st);
	const char *params[STORE_FILTER_MAX_PARAMS];
	char sql[4096], cond[3072], num[2][24];
	struct store_list l;
	sqlite3_stmt *q;
	int rc, step, np;

	*out = NULL;
	*n = 0;
	if (store_filter_sql(f, '?', 2, cond, sizeof(cond), params, num, &np))
		return store_fail(st, STORE_E_SQLITE, "reading runs: filter too long");
	snprintf(sql, sizeof(sql), "SELECT " RUN_COLS ", %s" SAMPLE_SPAN " FROM "
		 "runs WHERE ?1 = ?1%s ORDER BY id", count_requests ?
		 "(SELECT count(*) FROM requests WHERE run = runs.id)" : "-1", cond);
	if ((rc = prepare_run(s, sql, 0, &q, "reading runs")))
		return rc;
	for (int i = 0; i < np; i++)
		sqlite3_bind_text(q, 2 + i, params[i], -1, SQLITE_STATIC);
	store_list_init(&l, sizeof(**out), NULL, 0);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		void *row = store_list_row(&l);
		if (!row)
			break;
		fill_listing(&l, row, q);
	}
	if (step == SQLITE_ROW)
		sqlite3_finalize(q);  /* out of memory: the list says so */
	else if ((rc = finish(s, q, step, "reading runs"))) {
		store_list_free(&l);
		return rc;
	}
	return store_list_finish(st, &l, (void **)out, n);
}

int sq_run_has(struct store *st, int64_t run, enum store_has what)
{
	static const char *const sql[] = {
		[STORE_HAS_DISPATCHES] = "SELECT EXISTS (SELECT 1 FROM requests "
			"WHERE run = ?1 AND d_head = 1)",
		[STORE_HAS_PROC_SAMPLES] = "SELECT EXISTS (SELECT 1 FROM samples "
			"WHERE run = ?1 AND source IN ('vmstat', 'meminfo', 'stat'))",
		[STORE_HAS_LOG_SAMPLES] = "SELECT EXISTS (SELECT 1 FROM samples "
			"WHERE run = ?1 AND source = 'vmstat-log')",
		[STORE_HAS_IOSTAT_SAMPLES] = "SELECT EXISTS (SELECT 1 FROM samples "
			"WHERE run = ?1 AND source = 'iostat')",
	};
	struct sqlite_store *s = sq(st);
	const char *msg = what == STORE_HAS_DISPATCHES ? "reading requests"
						      : "reading samples";
	sqlite3_stmt *q;
	int rc, yes;

	if ((unsigned)what >= sizeof(sql) / sizeof(sql[0]))
		return store_fail(st, STORE_E_SQLITE, "no such question (%d)",
				  (int)what);
	if ((rc = prepare_run(s, sql[what], run, &q, msg)))
		return rc;
	rc = sqlite3_step(q);
	yes = rc == SQLITE_ROW && sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return sq_fail(s, STORE_E_SQLITE, msg);
	return yes;
}

/* ---- one-block lists ---- */

/* Reads the rows of sql (?1 = run) into a list: fill() makes each row from
 * the statement's columns. */
static int read_list(struct sqlite_store *s, const char *sql, int64_t run,
		     size_t row_size, const size_t *str_fields, size_t nstr,
		     void (*fill)(struct store_list *l, void *row,
				  sqlite3_stmt *q),
		     void **out, size_t *n, const char *what)
{
	struct store_list l;
	sqlite3_stmt *q;
	int rc, step;

	*out = NULL;
	*n = 0;
	if ((rc = prepare_run(s, sql, run, &q, what)))
		return rc;
	store_list_init(&l, row_size, str_fields, nstr);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		void *row = store_list_row(&l);
		if (!row)
			break;
		fill(&l, row, q);
	}
	if (step == SQLITE_ROW)
		sqlite3_finalize(q);  /* out of memory: the list says so */
	else if ((rc = finish(s, q, step, what))) {
		store_list_free(&l);
		return rc;
	}
	return store_list_finish(&s->base, &l, out, n);
}

static const char *col_str(struct store_list *l, sqlite3_stmt *q, int i)
{
	return store_list_str(l, (const char *)sqlite3_column_text(q, i));
}

static void fill_setting(struct store_list *l, void *row, sqlite3_stmt *q)
{
	struct store_setting *r = row;
	const char *at = (const char *)sqlite3_column_text(q, 2);

	r->key = col_str(l, q, 0);
	r->value = col_str(l, q, 1);
	r->at = at && !strcmp(at, "end") ? STORE_AT_END : STORE_AT_START;
}

int sq_settings_get(struct store *st, int64_t run, struct store_setting **out,
		    size_t *n)
{
	static const size_t str[] = { offsetof(struct store_setting, key),
				      offsetof(struct store_setting, value) };

	return read_list(sq(st), "SELECT key, value, at FROM settings WHERE "
			 "run = ?1 ORDER BY key, at DESC", run, sizeof(**out),
			 str, 2, fill_setting, (void **)out, n,
			 "reading settings");
}

static void fill_device(struct store_list *l, void *row, sqlite3_stmt *q)
{
	struct store_device *r = row;

	r->dev = (uint32_t)sqlite3_column_int64(q, 0);
	r->name = col_str(l, q, 1);
	r->size_bytes = sqlite3_column_int64(q, 2);
	r->role = col_str(l, q, 3);
}

int sq_devices_get(struct store *st, int64_t run, struct store_device **out,
		   size_t *n)
{
	static const size_t str[] = { offsetof(struct store_device, name),
				      offsetof(struct store_device, role) };

	return read_list(sq(st), "SELECT dev, name, size_bytes, role FROM devices"
			 " WHERE run = ?1 ORDER BY dev", run, sizeof(**out), str,
			 2, fill_device, (void **)out, n, "reading devices");
}

static void fill_process(struct store_list *l, void *row, sqlite3_stmt *q)
{
	struct store_process *r = row;

	r->pid = (uint32_t)sqlite3_column_int64(q, 0);
	r->comm = col_str(l, q, 1);
}

int sq_processes_get(struct store *st, int64_t run,
		     struct store_process **out, size_t *n)
{
	static const size_t str[] = { offsetof(struct store_process, comm) };

	return read_list(sq(st), "SELECT pid, comm FROM processes WHERE run = ?1"
			 " ORDER BY pid", run, sizeof(**out), str, 1, fill_process,
			 (void **)out, n, "reading processes");
}

static void fill_command(struct store_list *l, void *row, sqlite3_stmt *q)
{
	struct store_command *r = row;

	r->idx = sqlite3_column_int(q, 0);
	r->argv = col_str(l, q, 1);
	r->start_ns = sq_col_i64_or(q, 2, STORE_NO_TIME);
	r->end_ns = sq_col_i64_or(q, 3, STORE_NO_TIME);
	r->real_s = col_double_or_nan(q, 4);
	r->user_s = col_double_or_nan(q, 5);
	r->sys_s = col_double_or_nan(q, 6);
	r->status = (int)sq_col_i64_or(q, 7, -1);
}

int sq_commands_get(struct store *st, int64_t run, struct store_command **out,
		    size_t *n)
{
	static const size_t str[] = { offsetof(struct store_command, argv) };

	return read_list(sq(st), "SELECT idx, argv, start_ns, end_ns, real_s, "
			 "user_s, sys_s, status FROM commands WHERE run = ?1 "
			 "ORDER BY idx", run, sizeof(**out), str, 1, fill_command,
			 (void **)out, n, "reading commands");
}

static void fill_stat(struct store_list *l, void *row, sqlite3_stmt *q)
{
	struct store_stat *r = row;

	r->key = col_str(l, q, 0);
	r->value = col_str(l, q, 1);
}

int sq_stats_get(struct store *st, int64_t run, struct store_stat **out,
		 size_t *n)
{
	static const size_t str[] = { offsetof(struct store_stat, key),
				      offsetof(struct store_stat, value) };

	return read_list(sq(st), "SELECT key, value FROM run_stats WHERE run = ?1"
			 " ORDER BY key", run, sizeof(**out), str, 2, fill_stat,
			 (void **)out, n, "reading run statistics");
}

static void fill_metric(struct store_list *l, void *row, sqlite3_stmt *q)
{
	struct store_metric *r = row;

	r->name = col_str(l, q, 0);
	r->value = sqlite3_column_double(q, 1);
	r->unit = col_str(l, q, 2);
	r->source = col_str(l, q, 3);
}

int sq_metrics_get(struct store *st, int64_t run, struct store_metric **out,
		   size_t *n)
{
	static const size_t str[] = { offsetof(struct store_metric, name),
				      offsetof(struct store_metric, unit),
				      offsetof(struct store_metric, source) };

	return read_list(sq(st), "SELECT name, value, unit, source FROM metrics"
			 " WHERE run = ?1 ORDER BY name", run, sizeof(**out), str,
			 3, fill_metric, (void **)out, n, "reading metrics");
}

/* ---- cursors ---- */

struct sq_cursor {
	struct store_cursor base;
	sqlite3_stmt *q;
	const char *what;       /* "reading requests", for messages */
	unsigned mask;          /* requests: the columns selected */
	int done;               /* stepped to the end (stepping again would
				 * start over) */
};

/* The requests columns of each enum store_rq_col bit, in bit order. */
static const char *const rq_cols[] = {
	"dev", "sector", "bytes", "rwbs", "cats", "pid", "q_ns", "g_ns", "m_ns",
	"i_ns", "d_ns", "c_ns", "d_sector, d_bytes", "requeues", "error",
	"merged_into", "d_head", "seek_sectors", "split_from", "split",
	"orig_dev, orig_sector",
};

/* "SELECT id, <the columns of mask>" into sql (len bytes); returns its
 * length. Times come as they are stored, NULL as STORE_NO_TIME (one column
 * call per time, not a type check and a read). */
static size_t requests_cols_sql(unsigned mask, char *sql, size_t len)
{
	size_t n = (size_t)snprintf(sql, len, "SELECT id");

	for (size_t b = 0; b < sizeof(rq_cols) / sizeof(rq_cols[0]); b++)
		if (mask & (1u << b))
			n += (size_t)snprintf(sql + n, len - n, ", %s", rq_cols[b]);
	return n;
}

/* "SELECT id, <the columns of mask> FROM requests WHERE run = ?1 <order>"
 * into sql (len bytes); NULL for an unknown order. */
static const char *requests_sql(unsigned mask, int order, char *sql, size_t len)
{
	static const char *const tail[] = {
		[STORE_RQ_ALL] = " ORDER BY dev, id",
		[STORE_RQ_QUEUED] = " AND q_ns IS NOT NULL ORDER BY q_ns, id",
		[STORE_RQ_DISPATCHED] = " AND d_head = 1 AND d_ns IS NOT NULL"
			" ORDER BY d_ns, id",
		[STORE_RQ_FIRST] = " ORDER BY coalesce(q_ns, d_ns, c_ns), id",
		[STORE_RQ_ALL_ANY] = "",
		[STORE_RQ_QUEUED_ANY] = " AND q_ns IS NOT NULL",
		[STORE_RQ_DISPATCHED_ANY] = " AND d_head = 1 AND d_ns IS NOT NULL",
	};
	size_t n;

	if ((unsigned)order >= sizeof(tail) / sizeof(tail[0]))
		return NULL;
	n = requests_cols_sql(mask, sql, len);
	snprintf(sql + n, len - n, " FROM requests WHERE run = ?1%s", tail[order]);
	return sql;
}

#define VM_COLS "v.time_ns, v.source, v.since_boot, v.r, v.b, v.swpd, " \
	"v.free, v.buff, v.cache, v.si, v.so, v.bi, v.bo, v.\"in\", v.cs, " \
	"v.us, v.sy, v.id, v.wa, v.st, " \
	"(SELECT value FROM samples x WHERE x.run = v.run AND " \
	" x.time_ns = v.time_ns AND x.source = 'meminfo' AND x.key = 'Dirty'), " \
	"(SELECT value FROM samples x WHERE x.run = v.run AND " \
	" x.time_ns = v.time_ns AND x.source = 'meminfo' AND " \
	" x.key = 'Writeback') FROM vmstat v WHERE v.run = ?1"

/* The replays columns in struct store_replay's order. */
#define REPLAY_COLS "idx, stream, pid, dev, sector, bytes, op, fua, as_read, " \
	"src_request, sched_ns, ready_ns, issue_ns, complete_ns, result"

int sq_cursor_open(struct store *st, enum store_cursor_kind kind, int64_t run,
		   int iarg, unsigned mask, const char *sarg,
		   struct store_cursor **cur)
{
	static const char *const vm_sql[] = {
		[STORE_VM_ALL] = "SELECT " VM_COLS " ORDER BY v.time_ns",
		[STORE_VM_PROC] = "SELECT " VM_COLS " AND v.source = 'proc'"
			" ORDER BY v.time_ns",
		[STORE_VM_LOG] = "SELECT " VM_COLS " AND v.source = 'vmstat-log'"
			" ORDER BY v.time_ns",
	};
	struct sqlite_store *s = sq(st);
	struct sq_cursor *c;
	const char *sql = NULL, *what = "reading samples";
	char rqsql[512];
	int rc;

	*cur = NULL;
	switch (kind) {
	case STORE_CUR_REQUESTS:
		sql = requests_sql(mask, iarg, rqsql, sizeof(rqsql));
		what = "reading requests";
		break;
	case STORE_CUR_EVENTS:
		sql = "SELECT time_ns, sequence, sector, bytes, action, pid, dev,"
		      " cpu, error, pdu FROM events WHERE id BETWEEN"
		      " (SELECT first_event FROM runs WHERE id = ?1) AND"
		      " (SELECT last_event FROM runs WHERE id = ?1) ORDER BY id";
		what = "reading events";
		break;
	case STORE_CUR_SAMPLES:
		sql = sarg ? "SELECT time_ns, source, key, value FROM samples WHERE"
			     " run = ?1 AND source = ?2 ORDER BY time_ns"
			   : "SELECT time_ns, source, key, value FROM samples WHERE"
			     " run = ?1 ORDER BY time_ns";
		break;
	case STORE_CUR_VMSTAT:
		if ((unsigned)iarg < sizeof(vm_sql) / sizeof(vm_sql[0]))
			sql = vm_sql[iarg];
		break;
	case STORE_CUR_REPLAYS:
		sql = "SELECT " REPLAY_COLS " FROM replays WHERE run = ?1 ORDER BY idx";
		what = "reading replays";
		break;
	}
	if (!sql)
		return store_fail(st, STORE_E_SQLITE, "%s: no such order or source",
				  what);
	if (!(c = calloc(1, sizeof(*c))))
		return store_fail(st, ENOMEM, "out of memory");
	if ((rc = prepare_run(s, sql, run, &c->q, what))) {
		free(c);
		return rc;
	}
	if (kind == STORE_CUR_SAMPLES && sarg)
		sqlite3_bind_text(c->q, 2, sarg, -1, SQLITE_TRANSIENT);
	c->base.st = st;
	c->base.kind = kind;
	c->what = what;
	c->mask = mask;
	*cur = &c->base;
	return 0;
}

int sq_requests_open_ids(struct store *st, int64_t run, int64_t lo,
			 int64_t hi, unsigned mask, struct store_cursor **cur)
{
	struct sqlite_store *s = sq(st);
	struct sq_cursor *c;
	char sql[512];
	size_t n;
	int rc;

	*cur = NULL;
	/* +run: not the (run, dev) index; the ids' range of the table */
	n = requests_cols_sql(mask, sql, sizeof(sql));
	snprintf(sql + n, sizeof(sql) - n, " FROM requests WHERE +run = ?1 AND "
		 "id >= ?2 AND id < ?3 ORDER BY id");
	if (!(c = calloc(1, sizeof(*c))))
		return store_fail(st, ENOMEM, "out of memory");
	if ((rc = prepare_run(s, sql, run, &c->q, "reading requests"))) {
		free(c);
		return rc;
	}
	sqlite3_bind_int64(c->q, 2, lo);
	sqlite3_bind_int64(c->q, 3, hi);
	c->base.st = st;
	c->base.kind = STORE_CUR_REQUESTS;
	c->what = "reading requests";
	c->mask = mask;
	*cur = &c->base;
	return 0;
}

int sq_requests_span(struct store *st, int64_t run, uint32_t **devs,
		     size_t *ndev, int64_t *lo, int64_t *hi)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *nx = NULL, *mm = NULL;
	uint32_t *d = NULL;
	size_t n = 0, cap = 0;
	int64_t last = -1;
	int rc, step;

	/* each device by a seek in the (run, dev) index, its first and last
	 * id by two more (SQLite's min/max look-up) */
	if ((rc = prepare_run(s, "SELECT dev FROM requests WHERE run = ?1 AND "
			      "dev > ?2 ORDER BY dev LIMIT 1", run, &nx,
			      "reading requests")) ||
	    (rc = prepare_run(s, "SELECT (SELECT min(id) FROM requests WHERE "
			      "run = ?1 AND dev = ?2), (SELECT max(id) FROM "
			      "requests WHERE run = ?1 AND dev = ?2)", run, &mm,
			      "reading requests")))
		goto out;
	for (;;) {
		sqlite3_bind_int64(nx, 2, last);
		if ((step = sqlite3_step(nx)) != SQLITE_ROW)
			break;
		last = sqlite3_column_int64(nx, 0);
		sqlite3_reset(nx);
		if (n == cap) {
			uint32_t *t = realloc(d, (cap = cap ? 2 * cap : 8) * sizeof(*d));
			if (!t) {
				rc = store_fail(st, ENOMEM, "out of memory");
				goto out;
			}
			d = t;
		}
		d[n++] = (uint32_t)last;
		sqlite3_bind_int64(mm, 2, last);
		if ((step = sqlite3_step(mm)) != SQLITE_ROW)
			break;
		if (n == 1 || sqlite3_column_int64(mm, 0) < *lo)
			*lo = sqlite3_column_int64(mm, 0);
		if (n == 1 || sqlite3_column_int64(mm, 1) > *hi)
			*hi = sqlite3_column_int64(mm, 1);
		sqlite3_reset(mm);
	}
	if (step != SQLITE_DONE)
		rc = sq_fail(s, STORE_E_SQLITE, "reading requests");
out:
	sqlite3_finalize(nx);
	sqlite3_finalize(mm);
	if (rc) {
		free(d);
		*lo = 0;
		*hi = -1;
		return rc;
	}
	*devs = d;
	*ndev = n;
	return 0;
}

/* The selected columns of the row at q into *r, in requests_sql()'s order. */
static void request_row(sqlite3_stmt *q, unsigned mask, struct store_request *r,
			int64_t *id)
{
	int i = 1;

	memset(r, 0, sizeof(*r));
	r->q_ns = r->g_ns = r->m_ns = r->i_ns = r->d_ns = r->c_ns = STORE_NO_TIME;
	if (id)
		*id = sqlite3_column_int64(q, 0);
	if (mask & STORE_RQ_DEV)
		r->dev = (uint32_t)sqlite3_column_int64(q, i++);
	if (mask & STORE_RQ_SECTOR)
		r->sector = (uint64_t)sqlite3_column_int64(q, i++);
	if (mask & STORE_RQ_BYTES)
		r->bytes = (uint32_t)sqlite3_column_int64(q, i++);
	if (mask & STORE_RQ_RWBS) {
		const unsigned char *t = sqlite3_column_text(q, i++);
		snprintf(r->rwbs, sizeof(r->rwbs), "%s", t ? (const char *)t : "");
	}
	if (mask & STORE_RQ_CATS)
		r->cats = (uint64_t)sqlite3_column_int64(q, i++);
	if (mask & STORE_RQ_PID)
		r->pid = (uint32_t)sqlite3_column_int64(q, i++);
	if (mask & STORE_RQ_Q)
		r->q_ns = sq_col_i64_or(q, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_G)
		r->g_ns = sq_col_i64_or(q, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_M)
		r->m_ns = sq_col_i64_or(q, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_I)
		r->i_ns = sq_col_i64_or(q, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_D)
		r->d_ns = sq_col_i64_or(q, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_C)
		r->c_ns = sq_col_i64_or(q, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_DISPATCH) {
		r->has_d = sqlite3_column_type(q, i) != SQLITE_NULL;
		r->d_sector = (uint64_t)sqlite3_column_int64(q, i++);
		r->d_bytes = (uint32_t)sqlite3_column_int64(q, i++);
	}
	if (mask & STORE_RQ_REQUEUES)
		r->requeues = (uint32_t)sqlite3_column_int64(q, i++);
	if (mask & STORE_RQ_ERROR)
		r->error = sqlite3_column_int(q, i++);
	if (mask & STORE_RQ_MERGED_INTO)
		r->merged_into = sqlite3_column_int64(q, i++);
	if (mask & STORE_RQ_D_HEAD)
		r->d_head = sqlite3_column_int(q, i++);
	if (mask & STORE_RQ_SEEK) {
		r->has_seek = sqlite3_column_type(q, i) != SQLITE_NULL;
		r->seek_sectors = sqlite3_column_int64(q, i++);
	}
	if (mask & STORE_RQ_SPLIT_FROM)
		r->split_from = sqlite3_column_int64(q, i++);
	if (mask & STORE_RQ_SPLIT)
		r->split = sqlite3_column_int(q, i++);
	if (mask & STORE_RQ_ORIG) {
		r->has_orig = sqlite3_column_type(q, i) != SQLITE_NULL;
		r->orig_dev = (uint32_t)sqlite3_column_int64(q, i++);
		r->orig_sector = (uint64_t)sqlite3_column_int64(q, i++);
	}
}

static void event_row(sqlite3_stmt *q, struct bt_event *ev)
{
	ev->time_ns = (uint64_t)sqlite3_column_int64(q, 0);
	ev->sequence = (uint32_t)sqlite3_column_int64(q, 1);
	ev->sector = (uint64_t)sqlite3_column_int64(q, 2);
	ev->bytes = (uint32_t)sqlite3_column_int64(q, 3);
	ev->action = (uint64_t)sqlite3_column_int64(q, 4);
	ev->pid = (uint32_t)sqlite3_column_int64(q, 5);
	ev->dev = (uint32_t)sqlite3_column_int64(q, 6);
	ev->cpu = (uint32_t)sqlite3_column_int64(q, 7);
	ev->error = (uint16_t)sqlite3_column_int(q, 8);
	ev->pdu = sqlite3_column_blob(q, 9);
	ev->pdu_len = (uint16_t)sqlite3_column_bytes(q, 9);
}

static void vmstat_row(sqlite3_stmt *q, struct store_vmstat *r)
{
	const unsigned char *src = sqlite3_column_text(q, 1);

	r->time_ns = sqlite3_column_int64(q, 0);
	r->from_log = src && strcmp((const char *)src, "proc");
	r->since_boot = sqlite3_column_int(q, 2);
	for (int i = 0; i < STORE_VM_NCOLS; i++)
		r->v[i] = col_double_or_nan(q, 3 + i);
	r->dirty_kb = col_double_or_nan(q, 3 + STORE_VM_NCOLS);
	r->writeback_kb = col_double_or_nan(q, 4 + STORE_VM_NCOLS);
}

static void replay_row(sqlite3_stmt *q, struct store_replay *r)
{
	memset(r, 0, sizeof(*r));
	r->idx = sqlite3_column_int64(q, 0);
	r->stream = (uint32_t)sqlite3_column_int64(q, 1);
	r->pid = (uint32_t)sqlite3_column_int64(q, 2);
	r->dev = (uint32_t)sqlite3_column_int64(q, 3);
	r->has_sector = sqlite3_column_type(q, 4) != SQLITE_NULL;
	r->sector = (uint64_t)sqlite3_column_int64(q, 4);
	r->bytes = (uint32_t)sqlite3_column_int64(q, 5);
	r->op = (const char *)sqlite3_column_text(q, 6);
	r->fua = sqlite3_column_int(q, 7);
	r->as_read = sqlite3_column_int(q, 8);
	r->src_request = sqlite3_column_int64(q, 9);
	r->sched_ns = sqlite3_column_int64(q, 10);
	r->ready_ns = sqlite3_column_int64(q, 11);
	r->issue_ns = sqlite3_column_int64(q, 12);
	r->complete_ns = sq_col_i64_or(q, 13, STORE_NO_TIME);
	r->result = sqlite3_column_int64(q, 14);
}

int sq_cursor_next(struct store_cursor *cur, void *row, int64_t *id)
{
	struct sq_cursor *c = (struct sq_cursor *)cur;
	int step;

	if (c->done)
		return 0;
	if ((step = sqlite3_step(c->q)) == SQLITE_DONE) {
		c->done = 1;
		return 0;
	}
	if (step != SQLITE_ROW)
		return sq_fail(sq(cur->st), STORE_E_SQLITE, c->what);
	switch (cur->kind) {
	case STORE_CUR_REQUESTS:
		request_row(c->q, c->mask, row, id);
		break;
	case STORE_CUR_EVENTS:
		event_row(c->q, row);
		break;
	case STORE_CUR_SAMPLES: {
		struct store_sample *smp = row;
		smp->time_ns = sqlite3_column_int64(c->q, 0);
		smp->source = (const char *)sqlite3_column_text(c->q, 1);
		smp->key = (const char *)sqlite3_column_text(c->q, 2);
		smp->value = col_double_or_nan(c->q, 3);
		break;
	}
	case STORE_CUR_VMSTAT:
		vmstat_row(c->q, row);
		break;
	case STORE_CUR_REPLAYS:
		replay_row(c->q, row);
		break;
	}
	return 1;
}

void sq_cursor_close(struct store_cursor *cur)
{
	struct sq_cursor *c = (struct sq_cursor *)cur;

	sqlite3_finalize(c->q);
	free(c);
}
