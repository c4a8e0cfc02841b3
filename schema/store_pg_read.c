/* The store's PostgreSQL back end, reading half: a run's row, the list of
 * runs, the one-block lists, and cursors (server-side, DECLARE ... FETCH in
 * batches, so a run of millions of events is never held whole). The order
 * of every read is the SQLite back end's, so both give the same output. */
#include "schema/store_pg.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows a cursor fetches at a time. */
#define FETCH_ROWS 20000

/* Runs sql with $1 = run. */
static int exec_run(struct pg_store *s, const char *sql, int64_t run,
		    PGresult **r, const char *what)
{
	char id[24];
	const char *p[1] = { pg_i64(id, run) };

	return pg_exec(s, sql, 1, p, r, what);
}

/* ---- runs ---- */

/* A run's row; LAST is its last event's time. The bulk tables are read
 * with the run as a parameter ($1), never runs.id: a value the planner
 * knows picks the run's partitions when it plans (schema/pg/006), where a
 * correlated one opens and locks every run's. */
#define RUN_COLS_LAST(last) "id, name, kind, status, format, source, host, " \
	"kernel, parent, created_ns, genesis_ns, first_event, last_event, " \
	last ", big_endian"
#define RUN_COLS RUN_COLS_LAST("(SELECT time_ns FROM events e WHERE " \
	"e.run = $1 AND e.id = runs.last_event)")

static void run_row(const PGresult *q, int row, struct store_run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = pg_get_i64(q, row, 0, 0);
	pg_get_copy(q, row, 1, r->name, sizeof(r->name));
	pg_get_copy(q, row, 2, r->kind, sizeof(r->kind));
	pg_get_copy(q, row, 3, r->status, sizeof(r->status));
	pg_get_copy(q, row, 4, r->format, sizeof(r->format));
	pg_get_copy(q, row, 5, r->source, sizeof(r->source));
	pg_get_copy(q, row, 6, r->host, sizeof(r->host));
	pg_get_copy(q, row, 7, r->kernel, sizeof(r->kernel));
	r->parent = pg_get_i64(q, row, 8, 0);
	r->created_ns = pg_get_i64(q, row, 9, 0);
	r->genesis_ns = pg_get_i64(q, row, 10, STORE_NO_TIME);
	r->first_event = pg_get_i64(q, row, 11, 0);
	r->last_event = pg_get_i64(q, row, 12, 0);
	r->events = r->first_event && r->last_event
		? r->last_event - r->first_event + 1 : 0;
	r->last_ns = pg_get_i64(q, row, 13, 0);
	r->big_endian = (int)pg_get_i64(q, row, 14, 0);
}

int pg_run_get(struct store *st, int64_t run, struct store_run *out)
{
	PGresult *r;
	int rc;

	if ((rc = pg_attach_loading(pg(st), run)) ||
	    (rc = exec_run(pg(st), "SELECT " RUN_COLS " FROM runs WHERE id = $1",
			   run, &r, "reading run")))
		return rc;
	if (PQntuples(r))
		run_row(r, 0, out);
	else
		rc = store_fail(st, STORE_E_NOTFOUND, "no run with id %lld",
				(long long)run);
	PQclear(r);
	return rc;
}

/* Reads the rows of sql ($1 = run) into a list: fill() makes each row. */
static int read_list(struct pg_store *s, const char *sql, int64_t run,
		     size_t row_size, const size_t *str_fields, size_t nstr,
		     void (*fill)(struct store_list *l, void *row,
				  const PGresult *q, int i),
		     void **out, size_t *n, const char *what)
{
	struct store_list l;
	PGresult *r;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = exec_run(s, sql, run, &r, what)))
		return rc;
	store_list_init(&l, row_size, str_fields, nstr);
	for (int i = 0; i < PQntuples(r); i++) {
		void *row = store_list_row(&l);
		if (!row)
			break;
		fill(&l, row, r, i);
	}
	PQclear(r);
	return store_list_finish(&s->base, &l, out, n);
}

static void fill_listing(struct store_list *l, void *row, const PGresult *q,
			 int i)
{
	struct store_run_listing *r = row;

	run_row(q, i, &r->run);
	r->requests = pg_get_i64(q, i, 15, -1);
	r->sample_first_ns = pg_get_i64(q, i, 16, STORE_NO_TIME);
	r->sample_last_ns = pg_get_i64(q, i, 17, STORE_NO_TIME);
}

int pg_runs_list(struct store *st, int count_requests,
		 const struct store_run_filter *f,
		 struct store_run_listing **out, size_t *n)
{
	const char *params[STORE_FILTER_MAX_PARAMS];
	char sql[4096], cond[3072], num[2][24];
	struct pg_store *s = pg(st);
	struct store_list l;
	PGresult *r;
	int rc, np;

	*out = NULL;
	*n = 0;
	if (store_filter_sql(f, '$', 1, cond, sizeof(cond), params, num, &np))
		return store_fail(st, STORE_E_SQLITE, "reading runs: filter too long");
	if ((rc = pg_attach_loading(s, 0)))
		return rc;
	snprintf(sql, sizeof(sql), "SELECT " RUN_COLS_LAST("NULL::bigint") ", -1, "
		 "NULL::bigint, NULL::bigint FROM runs WHERE true%s ORDER BY id", cond);
	if ((rc = pg_exec(s, sql, np, params, &r, "reading runs")))
		return rc;
	store_list_init(&l, sizeof(**out), NULL, 0);
	for (int i = 0; i < PQntuples(r); i++) {
		void *row = store_list_row(&l);
		if (!row)
			break;
		fill_listing(&l, row, r, i);
	}
	PQclear(r);
	if ((rc = store_list_finish(st, &l, (void **)out, n)))
		return rc;
	/* then each run's figures from its own partitions, one query a run
	 * (the run a parameter, so the planner opens only its partitions) */
	for (size_t i = 0; i < *n; i++) {
		struct store_run_listing *rl = &(*out)[i];
		char id[24], last[24];
		const char *p[2] = { pg_i64(id, rl->run.id),
				     rl->run.last_event ? pg_i64(last,
						rl->run.last_event) : NULL };
		PGresult *q;
		if ((rc = pg_exec(s, count_requests
				  ? "SELECT (SELECT time_ns FROM events WHERE run = $1 "
				    "AND id = $2), (SELECT count(*) FROM requests WHERE"
				    " run = $1), min(time_ns), max(time_ns) FROM "
				    "samples WHERE run = $1"
				  : "SELECT (SELECT time_ns FROM events WHERE run = $1 "
				    "AND id = $2), -1, min(time_ns), max(time_ns) FROM "
				    "samples WHERE run = $1", 2, p, &q, "reading runs"))) {
			free(*out);
			*out = NULL;
			*n = 0;
			return rc;
		}
		rl->run.last_ns = pg_get_i64(q, 0, 0, 0);
		rl->requests = pg_get_i64(q, 0, 1, -1);
		rl->sample_first_ns = pg_get_i64(q, 0, 2, STORE_NO_TIME);
		rl->sample_last_ns = pg_get_i64(q, 0, 3, STORE_NO_TIME);
		PQclear(q);
	}
	return 0;
}

int pg_run_has(struct store *st, int64_t run, enum store_has what)
{
	static const char *const sql[] = {
		[STORE_HAS_DISPATCHES] = "SELECT EXISTS (SELECT 1 FROM requests "
			"WHERE run = $1 AND d_head = 1)::int",
		[STORE_HAS_PROC_SAMPLES] = "SELECT EXISTS (SELECT 1 FROM samples "
			"WHERE run = $1 AND source IN ('vmstat', 'meminfo', "
			"'stat'))::int",
		[STORE_HAS_LOG_SAMPLES] = "SELECT EXISTS (SELECT 1 FROM samples "
			"WHERE run = $1 AND source = 'vmstat-log')::int",
		[STORE_HAS_IOSTAT_SAMPLES] = "SELECT EXISTS (SELECT 1 FROM samples "
			"WHERE run = $1 AND source = 'iostat')::int",
	};
	const char *msg = what == STORE_HAS_DISPATCHES ? "reading requests"
						      : "reading samples";
	PGresult *r;
	int rc;

	if ((unsigned)what >= sizeof(sql) / sizeof(sql[0]))
		return store_fail(st, STORE_E_SQLITE, "no such question (%d)",
				  (int)what);
	if ((rc = pg_attach_loading(pg(st), run)) ||
	    (rc = exec_run(pg(st), sql[what], run, &r, msg)))
		return rc;
	rc = (int)pg_get_i64(r, 0, 0, 0);
	PQclear(r);
	return rc;
}

/* ---- one-block lists ---- */

static const char *col_str(struct store_list *l, const PGresult *q, int i,
			   int c)
{
	return store_list_str(l, PQgetisnull(q, i, c) ? NULL : PQgetvalue(q, i, c));
}

static void fill_setting(struct store_list *l, void *row, const PGresult *q,
			 int i)
{
	struct store_setting *r = row;

	r->key = col_str(l, q, i, 0);
	r->value = col_str(l, q, i, 1);
	r->at = !strcmp(PQgetvalue(q, i, 2), "end") ? STORE_AT_END : STORE_AT_START;
}

int pg_settings_get(struct store *st, int64_t run, struct store_setting **out,
		    size_t *n)
{
	static const size_t str[] = { offsetof(struct store_setting, key),
				      offsetof(struct store_setting, value) };

	return read_list(pg(st), "SELECT key, value, at FROM settings WHERE "
			 "run = $1 ORDER BY key, at DESC", run, sizeof(**out),
			 str, 2, fill_setting, (void **)out, n,
			 "reading settings");
}

static void fill_device(struct store_list *l, void *row, const PGresult *q,
			int i)
{
	struct store_device *r = row;

	r->dev = (uint32_t)pg_get_i64(q, i, 0, 0);
	r->name = col_str(l, q, i, 1);
	r->size_bytes = pg_get_i64(q, i, 2, 0);
	r->role = col_str(l, q, i, 3);
}

int pg_devices_get(struct store *st, int64_t run, struct store_device **out,
		   size_t *n)
{
	static const size_t str[] = { offsetof(struct store_device, name),
				      offsetof(struct store_device, role) };

	return read_list(pg(st), "SELECT dev, name, size_bytes, role FROM devices"
			 " WHERE run = $1 ORDER BY dev", run, sizeof(**out), str,
			 2, fill_device, (void **)out, n, "reading devices");
}

static void fill_process(struct store_list *l, void *row, const PGresult *q,
			 int i)
{
	struct store_process *r = row;

	r->pid = (uint32_t)pg_get_i64(q, i, 0, 0);
	r->comm = col_str(l, q, i, 1);
}

int pg_processes_get(struct store *st, int64_t run,
		     struct store_process **out, size_t *n)
{
	static const size_t str[] = { offsetof(struct store_process, comm) };

	return read_list(pg(st), "SELECT pid, comm FROM processes WHERE run = $1"
			 " ORDER BY pid", run, sizeof(**out), str, 1, fill_process,
			 (void **)out, n, "reading processes");
}

static void fill_command(struct store_list *l, void *row, const PGresult *q,
			 int i)
{
	struct store_command *r = row;

	r->idx = (int)pg_get_i64(q, i, 0, 0);
	r->argv = col_str(l, q, i, 1);
	r->start_ns = pg_get_i64(q, i, 2, STORE_NO_TIME);
	r->end_ns = pg_get_i64(q, i, 3, STORE_NO_TIME);
	r->real_s = pg_get_double(q, i, 4);
	r->user_s = pg_get_double(q, i, 5);
	r->sys_s = pg_get_double(q, i, 6);
	r->status = (int)pg_get_i64(q, i, 7, -1);
}

int pg_commands_get(struct store *st, int64_t run, struct store_command **out,
		    size_t *n)
{
	static const size_t str[] = { offsetof(struct store_command, argv) };

	return read_list(pg(st), "SELECT idx, argv, start_ns, end_ns, real_s, "
			 "user_s, sys_s, status FROM commands WHERE run = $1 "
			 "ORDER BY idx", run, sizeof(**out), str, 1, fill_command,
			 (void **)out, n, "reading commands");
}

static void fill_stat(struct store_list *l, void *row, const PGresult *q, int i)
{
	struct store_stat *r = row;

	r->key = col_str(l, q, i, 0);
	r->value = col_str(l, q, i, 1);
}

int pg_stats_get(struct store *st, int64_t run, struct store_stat **out,
		 size_t *n)
{
	static const size_t str[] = { offsetof(struct store_stat, key),
				      offsetof(struct store_stat, value) };

	return read_list(pg(st), "SELECT key, value FROM run_stats WHERE run = $1"
			 " ORDER BY key", run, sizeof(**out), str, 2, fill_stat,
			 (void **)out, n, "reading run statistics");
}

static void fill_metric(struct store_list *l, void *row, const PGresult *q,
			int i)
{
	struct store_metric *r = row;

	r->name = col_str(l, q, i, 0);
	r->value = pg_get_double(q, i, 1);
	r->unit = col_str(l, q, i, 2);
	r->source = col_str(l, q, i, 3);
}

int pg_metrics_get(struct store *st, int64_t run, struct store_metric **out,
		   size_t *n)
{
	static const size_t str[] = { offsetof(struct store_metric, name),
				      offsetof(struct store_metric, unit),
				      offsetof(struct store_metric, source) };

	return read_list(pg(st), "SELECT name, value, unit, source FROM metrics"
			 " WHERE run = $1 ORDER BY name", run, sizeof(**out), str,
			 3, fill_metric, (void **)out, n, "reading metrics");
}

/* ---- cursors ---- */

struct pg_cursor {
	struct store_cursor base;
	char name[32];          /* the server-side cursor's */
	PGresult *res;          /* the rows fetched, */
	int row;                /* and the next one of them */
	const char *what;
	unsigned mask;
	int done;
	unsigned char *pdu;     /* an event's payload, decoded */
	size_t pdu_cap;
};

static const char *const rq_cols[] = {
	"dev", "sector", "bytes", "rwbs", "cats", "pid", "q_ns", "g_ns", "m_ns",
	"i_ns", "d_ns", "c_ns", "d_sector, d_bytes", "requeues", "error",
	"merged_into", "d_head", "seek_sectors", "split_from", "split",
	"orig_dev, orig_sector",
};

/* As the SQLite back end's: SQLite sorts NULLs first, PostgreSQL last
 * unless told. */
static const char *requests_sql(unsigned mask, int order, char *sql, size_t len)
{
	static const char *const tail[] = {
		[STORE_RQ_ALL] = " ORDER BY dev, id",
		[STORE_RQ_QUEUED] = " AND q_ns IS NOT NULL ORDER BY q_ns, id",
		[STORE_RQ_DISPATCHED] = " AND d_head = 1 AND d_ns IS NOT NULL"
			" ORDER BY d_ns, id",
		[STORE_RQ_FIRST] = " ORDER BY coalesce(q_ns, d_ns, c_ns) NULLS "
			"FIRST, id",
		[STORE_RQ_ALL_ANY] = "",
		[STORE_RQ_QUEUED_ANY] = " AND q_ns IS NOT NULL",
		[STORE_RQ_DISPATCHED_ANY] = " AND d_head = 1 AND d_ns IS NOT NULL",
	};
	size_t n;

	if ((unsigned)order >= sizeof(tail) / sizeof(tail[0]))
		return NULL;
	n = (size_t)snprintf(sql, len, "SELECT id");
	for (size_t b = 0; b < sizeof(rq_cols) / sizeof(rq_cols[0]); b++)
		if (mask & (1u << b))
			n += (size_t)snprintf(sql + n, len - n, ", %s", rq_cols[b]);
	snprintf(sql + n, len - n, " FROM requests WHERE run = $1%s", tail[order]);
	return sql;
}

#define VM_COLS "v.time_ns, v.source, v.since_boot, v.r, v.b, v.swpd, " \
	"v.free, v.buff, v.cache, v.si, v.so, v.bi, v.bo, v.\"in\", v.cs, " \
	"v.us, v.sy, v.id, v.wa, v.st, " \
	"(SELECT value FROM samples x WHERE x.run = $1 AND " \
	" x.time_ns = v.time_ns AND x.source = 'meminfo' AND x.key = 'Dirty' " \
	" ORDER BY x.id LIMIT 1), " \
	"(SELECT value FROM samples x WHERE x.run = $1 AND " \
	" x.time_ns = v.time_ns AND x.source = 'meminfo' AND " \
	" x.key = 'Writeback' ORDER BY x.id LIMIT 1) FROM vmstat v " \
	"WHERE v.run = $1"

/* Ends the transaction a cursor began when no cursor is left. */
static void cursors_done(struct pg_store *s)
{
	if (--s->ncursors == 0 && s->implicit) {
		s->implicit = 0;
		pg_exec(s, "COMMIT", 0, NULL, NULL, "reading");
	}
}

int pg_cursor_open(struct store *st, enum store_cursor_kind kind, int64_t run,
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
	static unsigned serial;
	struct pg_store *s = pg(st);
	struct pg_cursor *c;
	const char *sql = NULL, *what = "reading samples";
	char rqsql[512], decl[1024], id[24];
	const char *p[2] = { pg_i64(id, run), sarg };
	int rc;

	*cur = NULL;
	if ((rc = pg_attach_loading(s, run)))
		return rc;
	switch (kind) {
	case STORE_CUR_REQUESTS:
		sql = requests_sql(mask, iarg, rqsql, sizeof(rqsql));
		what = "reading requests";
		break;
	case STORE_CUR_EVENTS:
		sql = "SELECT time_ns, sequence, sector, bytes, action, pid, dev,"
		      " cpu, error, pdu FROM events WHERE run = $1 ORDER BY id";
		what = "reading events";
		break;
	case STORE_CUR_SAMPLES:
		sql = sarg ? "SELECT time_ns, source, key, value FROM samples WHERE"
			     " run = $1 AND source = $2 ORDER BY time_ns, id"
			   : "SELECT time_ns, source, key, value FROM samples WHERE"
			     " run = $1 ORDER BY time_ns, id";
		break;
	case STORE_CUR_VMSTAT:
		if ((unsigned)iarg < sizeof(vm_sql) / sizeof(vm_sql[0]))
			sql = vm_sql[iarg];
		break;
	case STORE_CUR_REPLAYS:
		sql = "SELECT idx, stream, pid, dev, sector, bytes, op, fua, as_read,"
		      " src_request, sched_ns, ready_ns, issue_ns, complete_ns, "
		      "result FROM replays WHERE run = $1 ORDER BY idx";
		what = "reading replays";
		break;
	}
	if (!sql)
		return store_fail(st, STORE_E_SQLITE, "%s: no such order or source",
				  what);
	if (!(c = calloc(1, sizeof(*c))))
		return store_fail(st, ENOMEM, "out of memory");
	snprintf(c->name, sizeof(c->name), "iotape_c%u", ++serial);
	snprintf(decl, sizeof(decl), "DECLARE %s NO SCROLL CURSOR FOR %s", c->name,
		 sql);
	if ((rc = pg_copy_end(s)))
		goto fail;
	/* a cursor lives in a transaction: one of its own when the caller
	 * has none, ended when the last cursor closes */
	if (PQtransactionStatus(s->conn) == PQTRANS_IDLE) {
		if ((rc = pg_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ", 0,
				  NULL, NULL, what)))
			goto fail;
		s->implicit = 1;
	}
	s->ncursors++;
	if ((rc = pg_exec(s, decl, kind == STORE_CUR_SAMPLES && sarg ? 2 : 1, p,
			  NULL, what))) {
		cursors_done(s);
		goto fail;
	}
	c->base.st = st;
	c->base.kind = kind;
	c->what = what;
	c->mask = mask;
	*cur = &c->base;
	return 0;
fail:
	free(c);
	return rc;
}

/* The selected columns of row i into *r, in requests_sql()'s order. */
static void request_row(const PGresult *q, int row, unsigned mask,
			struct store_request *r, int64_t *id)
{
	int i = 1;

	memset(r, 0, sizeof(*r));
	r->q_ns = r->g_ns = r->m_ns = r->i_ns = r->d_ns = r->c_ns = STORE_NO_TIME;
	if (id)
		*id = pg_get_i64(q, row, 0, 0);
	if (mask & STORE_RQ_DEV)
		r->dev = (uint32_t)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_SECTOR)
		r->sector = (uint64_t)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_BYTES)
		r->bytes = (uint32_t)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_RWBS)
		pg_get_copy(q, row, i++, r->rwbs, sizeof(r->rwbs));
	if (mask & STORE_RQ_CATS)
		r->cats = (uint64_t)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_PID)
		r->pid = (uint32_t)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_Q)
		r->q_ns = pg_get_i64(q, row, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_G)
		r->g_ns = pg_get_i64(q, row, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_M)
		r->m_ns = pg_get_i64(q, row, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_I)
		r->i_ns = pg_get_i64(q, row, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_D)
		r->d_ns = pg_get_i64(q, row, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_C)
		r->c_ns = pg_get_i64(q, row, i++, STORE_NO_TIME);
	if (mask & STORE_RQ_DISPATCH) {
		r->has_d = !PQgetisnull(q, row, i);
		r->d_sector = (uint64_t)pg_get_i64(q, row, i++, 0);
		r->d_bytes = (uint32_t)pg_get_i64(q, row, i++, 0);
	}
	if (mask & STORE_RQ_REQUEUES)
		r->requeues = (uint32_t)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_ERROR)
		r->error = (int)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_MERGED_INTO)
		r->merged_into = pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_D_HEAD)
		r->d_head = (int)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_SEEK) {
		r->has_seek = !PQgetisnull(q, row, i);
		r->seek_sectors = pg_get_i64(q, row, i++, 0);
	}
	if (mask & STORE_RQ_SPLIT_FROM)
		r->split_from = pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_SPLIT)
		r->split = (int)pg_get_i64(q, row, i++, 0);
	if (mask & STORE_RQ_ORIG) {
		r->has_orig = !PQgetisnull(q, row, i);
		r->orig_dev = (uint32_t)pg_get_i64(q, row, i++, 0);
		r->orig_sector = (uint64_t)pg_get_i64(q, row, i++, 0);
	}
}

static int hexval(int ch)
{
	return ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;
}

/* Row i as an event; the payload (bytea in hex output, "\x0a1b...") is
 * decoded into the cursor's buffer. */
static int event_row(struct pg_cursor *c, const PGresult *q, int row,
		     struct bt_event *ev)
{
	ev->time_ns = (uint64_t)pg_get_i64(q, row, 0, 0);
	ev->sequence = (uint32_t)pg_get_i64(q, row, 1, 0);
	ev->sector = (uint64_t)pg_get_i64(q, row, 2, 0);
	ev->bytes = (uint32_t)pg_get_i64(q, row, 3, 0);
	ev->action = (uint64_t)pg_get_i64(q, row, 4, 0);
	ev->pid = (uint32_t)pg_get_i64(q, row, 5, 0);
	ev->dev = (uint32_t)pg_get_i64(q, row, 6, 0);
	ev->cpu = (uint32_t)pg_get_i64(q, row, 7, 0);
	ev->error = (uint16_t)pg_get_i64(q, row, 8, 0);
	ev->pdu = NULL;
	ev->pdu_len = 0;
	if (!PQgetisnull(q, row, 9)) {
		const char *h = PQgetvalue(q, row, 9);
		size_t n = (strlen(h) - 2) / 2;
		if (strncmp(h, "\\x", 2))
			return store_fail(c->base.st, STORE_E_SQLITE, "reading "
					  "events: bytea_output is not hex");
		if (n > c->pdu_cap) {
			unsigned char *p = realloc(c->pdu, n);
			if (!p)
				return store_fail(c->base.st, ENOMEM, "out of memory");
			c->pdu = p;
			c->pdu_cap = n;
		}
		for (size_t i = 0; i < n; i++)
			c->pdu[i] = (unsigned char)(hexval(h[2 + 2 * i]) << 4 |
						    hexval(h[3 + 2 * i]));
		ev->pdu = c->pdu;
		ev->pdu_len = (uint16_t)n;
	}
	return 0;
}

static void vmstat_row(const PGresult *q, int row, struct store_vmstat *r)
{
	r->time_ns = pg_get_i64(q, row, 0, 0);
	r->from_log = strcmp(PQgetvalue(q, row, 1), "proc") != 0;
	r->since_boot = (int)pg_get_i64(q, row, 2, 0);
	for (int i = 0; i < STORE_VM_NCOLS; i++)
		r->v[i] = pg_get_double(q, row, 3 + i);
	r->dirty_kb = pg_get_double(q, row, 3 + STORE_VM_NCOLS);
	r->writeback_kb = pg_get_double(q, row, 4 + STORE_VM_NCOLS);
}

static void replay_row(const PGresult *q, int row, struct store_replay *r)
{
	memset(r, 0, sizeof(*r));
	r->idx = pg_get_i64(q, row, 0, 0);
	r->stream = (uint32_t)pg_get_i64(q, row, 1, 0);
	r->pid = (uint32_t)pg_get_i64(q, row, 2, 0);
	r->dev = (uint32_t)pg_get_i64(q, row, 3, 0);
	r->has_sector = !PQgetisnull(q, row, 4);
	r->sector = (uint64_t)pg_get_i64(q, row, 4, 0);
	r->bytes = (uint32_t)pg_get_i64(q, row, 5, 0);
	r->op = PQgetvalue(q, row, 6);
	r->fua = (int)pg_get_i64(q, row, 7, 0);
	r->as_read = (int)pg_get_i64(q, row, 8, 0);
	r->src_request = pg_get_i64(q, row, 9, 0);
	r->sched_ns = pg_get_i64(q, row, 10, 0);
	r->ready_ns = pg_get_i64(q, row, 11, 0);
	r->issue_ns = pg_get_i64(q, row, 12, 0);
	r->complete_ns = pg_get_i64(q, row, 13, STORE_NO_TIME);
	r->result = pg_get_i64(q, row, 14, 0);
}

int pg_cursor_next(struct store_cursor *cur, void *row, int64_t *id)
{
	struct pg_cursor *c = (struct pg_cursor *)cur;
	struct pg_store *s = pg(cur->st);
	int i, rc;

	if (c->done)
		return 0;
	if (!c->res || c->row >= PQntuples(c->res)) {
		char sql[64];
		PQclear(c->res);
		c->res = NULL;
		snprintf(sql, sizeof(sql), "FETCH %d FROM %s", FETCH_ROWS, c->name);
		if ((rc = pg_exec(s, sql, 0, NULL, &c->res, c->what)))
			return rc;
		c->row = 0;
		if (!PQntuples(c->res)) {
			c->done = 1;
			return 0;
		}
	}
	i = c->row++;
	switch (cur->kind) {
	case STORE_CUR_REQUESTS:
		request_row(c->res, i, c->mask, row, id);
		break;
	case STORE_CUR_EVENTS:
		if ((rc = event_row(c, c->res, i, row)))
			return rc;
		break;
	case STORE_CUR_SAMPLES: {
		struct store_sample *smp = row;
		smp->time_ns = pg_get_i64(c->res, i, 0, 0);
		smp->source = PQgetvalue(c->res, i, 1);
		smp->key = PQgetvalue(c->res, i, 2);
		smp->value = pg_get_double(c->res, i, 3);
		break;
	}
	case STORE_CUR_VMSTAT:
		vmstat_row(c->res, i, row);
		break;
	case STORE_CUR_REPLAYS:
		replay_row(c->res, i, row);
		break;
	}
	return 1;
}

void pg_cursor_close(struct store_cursor *cur)
{
	struct pg_cursor *c = (struct pg_cursor *)cur;
	struct pg_store *s = pg(cur->st);
	char sql[64];

	PQclear(c->res);
	if (PQtransactionStatus(s->conn) == PQTRANS_INTRANS) {
		snprintf(sql, sizeof(sql), "CLOSE %s", c->name);
		pg_exec(s, sql, 0, NULL, NULL, c->what);
	}
	cursors_done(s);
	free(c->pdu);
	free(c);
}
