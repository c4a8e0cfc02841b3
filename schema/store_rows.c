/* The store's bulk rows of a run (events, requests, samples, replays):
 * written through the driver's bulk load, read back through cursors; the
 * tables' columns, the statements and the row decoders once, for every
 * driver (store_driver.h). */
#include "store.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/store_driver.h"

#define I64 STORE_C_I64
#define I32 STORE_C_I32

/* The bulk tables' columns, in the order of the values store_bulk() gets. */
const struct store_bulk_def store_bulk_defs[STORE_NBULK] = {
	[STORE_BULK_EVENTS] = { "events", 12,
		{ "run", "id", "time_ns", "sequence", "sector", "bytes", "action",
		  "pid", "dev", "cpu", "error", "pdu" },
		{ I64, I64, I64, I64, I64, I64, I64, I64, I64, I64, I32,
		  STORE_C_BLOB } },
	[STORE_BULK_REQUESTS] = { "requests", 25,
		{ "run", "id", "dev", "sector", "bytes", "rwbs", "cats", "pid",
		  "q_ns", "g_ns", "m_ns", "i_ns", "d_ns", "c_ns", "d_sector",
		  "d_bytes", "requeues", "error", "merged_into", "d_head",
		  "seek_sectors", "split_from", "split", "orig_dev",
		  "orig_sector" },
		{ I64, I64, I64, I64, I64, STORE_C_TEXT, I64, I64, I64, I64, I64,
		  I64, I64, I64, I64, I64, I64, I32, I64, I32, I64, I64, I32, I64,
		  I64 } },
	[STORE_BULK_SAMPLES] = { "samples", 5,
		{ "run", "time_ns", "source", "key", "value" },
		{ I64, I64, STORE_C_TEXT, STORE_C_TEXT, STORE_C_F64 } },
	[STORE_BULK_REPLAYS] = { "replays", 16,
		{ "run", "idx", "stream", "pid", "dev", "sector", "bytes", "op",
		  "fua", "as_read", "src_request", "sched_ns", "ready_ns",
		  "issue_ns", "complete_ns", "result" },
		{ I64, I64, I64, I64, I64, I64, I64, STORE_C_TEXT, I32, I32, I64,
		  I64, I64, I64, I64, I64 } },
};

static inline void v_int(struct store_val *v, int64_t i)
{
	v->null = 0;
	v->i = i;
}

static inline void v_opt(struct store_val *v, int64_t i, int present)
{
	v->null = !present;
	v->i = i;
}

static inline void v_text(struct store_val *v, const char *t)
{
	v->null = !t;
	v->p = t;
	v->n = t ? (uint32_t)strlen(t) : 0;
}

/* ---- writes ---- */

int store_event_add(struct store *st, int64_t run, const struct bt_event *ev)
{
	/* events go on after the run's events already stored: SQLite numbers
	 * them in one sequence for the file (its rowids), PostgreSQL per run */
	static const struct store_sql last = {
		.sql = "SELECT coalesce(max(id), 0) FROM events",
		.dialect = { [STORE_DIALECT_PG] = "SELECT coalesce(max(id), 0) FROM events "
		  "WHERE run = ?1" } };
	struct store_val v[12];
	int rc;

	if (st->ev_run != run) {
		int64_t max;
		if ((rc = store_one_i64(st, &last, "storing events", &max, "i", run)))
			return rc;
		st->ev_run = run;
		st->ev_first = max + 1;
		st->ev_last = max;
	}
	v_int(&v[0], run);
	v_int(&v[1], ++st->ev_last);
	v_int(&v[2], (int64_t)ev->time_ns);
	v_int(&v[3], ev->sequence);
	v_int(&v[4], (int64_t)ev->sector);
	v_int(&v[5], ev->bytes);
	v_int(&v[6], (int64_t)ev->action);
	v_int(&v[7], ev->pid);
	v_int(&v[8], ev->dev);
	v_int(&v[9], ev->cpu);
	v_int(&v[10], ev->error);
	v[11].null = !ev->pdu_len;
	v[11].p = ev->pdu;
	v[11].n = ev->pdu_len;
	return store_bulk(st, STORE_BULK_EVENTS, v);
}

int store_request_add(struct store *st, int64_t run, int64_t id,
		      const struct store_request *rq)
{
	struct store_val v[25];
	int rc;

	v_int(&v[0], run);
	v_int(&v[1], id);
	v_int(&v[2], rq->dev);
	v_int(&v[3], (int64_t)rq->sector);
	v_int(&v[4], rq->bytes);
	v_text(&v[5], rq->rwbs);
	v_int(&v[6], (int64_t)rq->cats);
	v_int(&v[7], rq->pid);
	v_opt(&v[8], rq->q_ns, rq->q_ns != STORE_NO_TIME);
	v_opt(&v[9], rq->g_ns, rq->g_ns != STORE_NO_TIME);
	v_opt(&v[10], rq->m_ns, rq->m_ns != STORE_NO_TIME);
	v_opt(&v[11], rq->i_ns, rq->i_ns != STORE_NO_TIME);
	v_opt(&v[12], rq->d_ns, rq->d_ns != STORE_NO_TIME);
	v_opt(&v[13], rq->c_ns, rq->c_ns != STORE_NO_TIME);
	v_opt(&v[14], (int64_t)rq->d_sector, rq->has_d);
	v_opt(&v[15], rq->d_bytes, rq->has_d);
	v_int(&v[16], rq->requeues);
	v_int(&v[17], rq->error);
	v_opt(&v[18], rq->merged_into, rq->merged_into != 0);
	v_int(&v[19], rq->d_head);
	v_opt(&v[20], rq->seek_sectors, rq->has_seek);
	v_opt(&v[21], rq->split_from, rq->split_from != 0);
	v_int(&v[22], rq->split);
	v_opt(&v[23], rq->orig_dev, rq->has_orig);
	v_opt(&v[24], (int64_t)rq->orig_sector, rq->has_orig);
	if ((rc = store_bulk(st, STORE_BULK_REQUESTS, v)))
		return rc;
	store_runs_count_request(st, run);
	return 0;
}

int store_sample_add(struct store *st, int64_t run, int64_t time_ns,
		     const char *source, const char *key, double value)
{
	struct store_val v[5];

	v_int(&v[0], run);
	v_int(&v[1], time_ns);
	v_text(&v[2], source);
	v_text(&v[3], key);
	v[4].null = !isfinite(value);
	v[4].d = value;
	return store_bulk(st, STORE_BULK_SAMPLES, v);
}

int store_replays_add(struct store *st, int64_t run,
		      const struct store_replay *rows, size_t n)
{
	struct store_val v[16];
	int rc;

	for (size_t i = 0; i < n; i++) {
		const struct store_replay *r = &rows[i];
		v_int(&v[0], run);
		v_int(&v[1], r->idx);
		v_int(&v[2], r->stream);
		v_int(&v[3], r->pid);
		v_int(&v[4], r->dev);
		v_opt(&v[5], (int64_t)r->sector, r->has_sector);
		v_int(&v[6], r->bytes);
		v_text(&v[7], r->op);
		v_int(&v[8], r->fua != 0);
		v_int(&v[9], r->as_read != 0);
		v_int(&v[10], r->src_request);
		v_int(&v[11], r->sched_ns);
		v_int(&v[12], r->ready_ns);
		v_int(&v[13], r->issue_ns);
		v_opt(&v[14], r->complete_ns, r->complete_ns != STORE_NO_TIME);
		v_int(&v[15], r->result);
		if ((rc = store_bulk(st, STORE_BULK_REPLAYS, v)))
			return rc;
	}
	return 0;
}

/* ---- cursors ---- */

/* The requests columns of each enum store_rq_col bit, in bit order. */
static const char *const rq_cols[] = {
	"dev", "sector", "bytes", "rwbs", "cats", "pid", "q_ns", "g_ns", "m_ns",
	"i_ns", "d_ns", "c_ns", "d_sector, d_bytes", "requeues", "error",
	"merged_into", "d_head", "seek_sectors", "split_from", "split",
	"orig_dev, orig_sector",
};

/* "SELECT id, <the columns of mask>" into sql (len bytes); returns its
 * length. */
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
		/* rows with none of the times first, in both SQL dialects */
		[STORE_RQ_FIRST] = " ORDER BY coalesce(q_ns, d_ns, c_ns) NULLS "
			"FIRST, id",
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

/* A vmstat row's columns, with the /proc/meminfo Dirty and Writeback
 * sampled at its time. */
#define VM_COLS(x) "v.time_ns, v.source, v.since_boot, v.r, v.b, v.swpd, " \
	"v.free, v.buff, v.cache, v.si, v.so, v.bi, v.bo, v.\"in\", v.cs, " \
	"v.us, v.sy, v.id, v.wa, v.st, " \
	"(SELECT value FROM samples x WHERE x.run = ?1 AND " \
	" x.time_ns = v.time_ns AND x.source = 'meminfo' AND x.key = 'Dirty'" \
	x "), (SELECT value FROM samples x WHERE x.run = ?1 AND " \
	" x.time_ns = v.time_ns AND x.source = 'meminfo' AND " \
	" x.key = 'Writeback'" x ") FROM vmstat v WHERE v.run = ?1"
/* the first stored of equal rows: SQLite's index gives them in rowid
 * order; PostgreSQL's samples say it in id */
#define VM_SQL(where) { .sql = "SELECT " VM_COLS("") where " ORDER BY v.time_ns", \
	.dialect = { [STORE_DIALECT_PG] = "SELECT " VM_COLS(" ORDER BY x.id LIMIT 1") \
	  where " ORDER BY v.time_ns" } }

/* The replays columns in struct store_replay's order. */
#define REPLAY_COLS "idx, stream, pid, dev, sector, bytes, op, fua, as_read, " \
	"src_request, sched_ns, ready_ns, issue_ns, complete_ns, result"

/* Opens a cursor of kind over sql (bound from ?1 = run, then ?2 = sarg when
 * given, ?2 and ?3 = lo and hi when ids). Every kind but the vmstat view's
 * orders by the key of an index (schema/001_init.sql, 006_partition.sql),
 * or by a time no index has, which is sorted either way:
 * STORE_STMT_KEYORDER. */
static int cursor_open(struct store *st, enum store_cursor_kind kind,
		       const struct store_sql *sql, int64_t run, const char *sarg,
		       const int64_t *ids, unsigned mask, const char *what,
		       struct store_cursor **cur)
{
	struct store_cursor *c;
	int rc;

	*cur = NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return store_fail(st, ENOMEM, "out of memory");
	if ((rc = store_prep(st, sql, STORE_STMT_STREAM | (kind != STORE_CUR_VMSTAT ?
						STORE_STMT_KEYORDER : 0u),
			     what, &c->q, "i", run))) {
		free(c);
		return rc;
	}
	if (sarg)
		st->drv->bind_text(c->q, 2, sarg);
	if (ids) {
		st->drv->bind_i64(c->q, 2, ids[0]);
		st->drv->bind_i64(c->q, 3, ids[1]);
	}
	c->st = st;
	c->kind = kind;
	c->what = what;
	c->mask = mask;
	*cur = c;
	return 0;
}

int store_requests_open(struct store *st, int64_t run,
			enum store_rq_order order, unsigned cols,
			struct store_cursor **cur)
{
	char text[512];
	struct store_sql sql = { .sql = requests_sql(cols, order, text, sizeof(text)) };

	*cur = NULL;
	if (!sql.sql)
		return store_fail(st, STORE_E_SQLITE, "reading requests: no such "
				  "order or source");
	return cursor_open(st, STORE_CUR_REQUESTS, &sql, run, NULL, NULL, cols,
			   "reading requests", cur);
}

int store_events_open(struct store *st, int64_t run, struct store_cursor **cur)
{
	/* the ids the run's row names (SQLite has no index on events.run: it
	 * reads the range of rowids; PostgreSQL its key (run, id)) */
	static const struct store_sql sql = { .sql = "SELECT time_ns, sequence, "
		"sector, bytes, action, pid, dev, cpu, error, pdu FROM events WHERE "
		"run = ?1 AND id BETWEEN (SELECT first_event FROM runs WHERE id = "
		"?1) AND (SELECT last_event FROM runs WHERE id = ?1) ORDER BY id" };

	return cursor_open(st, STORE_CUR_EVENTS, &sql, run, NULL, NULL, 0,
			   "reading events", cur);
}

int store_samples_open(struct store *st, int64_t run, const char *source,
		       struct store_cursor **cur)
{
	/* the samples of one time in the order stored: SQLite's index gives
	 * them in rowid order, PostgreSQL's samples number them */
	static const struct store_sql sql[2] = {
		{ .sql = "SELECT time_ns, source, key, value FROM samples WHERE run = ?1 "
		  "ORDER BY time_ns", .dialect = { [STORE_DIALECT_PG] = "SELECT time_ns, "
		  "source, key, value FROM samples WHERE run = ?1 ORDER BY "
		  "time_ns, id" } },
		{ .sql = "SELECT time_ns, source, key, value FROM samples WHERE run = ?1 "
		  "AND source = ?2 ORDER BY time_ns", .dialect = { [STORE_DIALECT_PG] =
		  "SELECT time_ns, source, key, value FROM samples WHERE run = ?1"
		  " AND source = ?2 ORDER BY time_ns, id" } },
	};

	return cursor_open(st, STORE_CUR_SAMPLES, &sql[source != NULL], run,
			   source, NULL, 0, "reading samples", cur);
}

int store_vmstat_open(struct store *st, int64_t run,
		      enum store_vm_source source, struct store_cursor **cur)
{
	static const struct store_sql sql[] = {
		[STORE_VM_ALL] = VM_SQL(""),
		[STORE_VM_PROC] = VM_SQL(" AND v.source = 'proc'"),
		[STORE_VM_LOG] = VM_SQL(" AND v.source = 'vmstat-log'"),
	};

	*cur = NULL;
	if ((unsigned)source >= sizeof(sql) / sizeof(sql[0]))
		return store_fail(st, STORE_E_SQLITE, "reading samples: no such "
				  "order or source");
	return cursor_open(st, STORE_CUR_VMSTAT, &sql[source], run, NULL, NULL, 0,
			   "reading samples", cur);
}

int store_replays_open(struct store *st, int64_t run, struct store_cursor **cur)
{
	static const struct store_sql sql = { .sql = "SELECT " REPLAY_COLS " FROM "
		"replays WHERE run = ?1 ORDER BY idx" };

	return cursor_open(st, STORE_CUR_REPLAYS, &sql, run, NULL, NULL, 0,
			   "reading replays", cur);
}

int store_requests_open_ids(struct store *st, int64_t run, int64_t lo,
			    int64_t hi, unsigned cols,
			    const struct store_range *range,
			    struct store_cursor **cur);

/* Gives cursor cur range r (NULL: none); closes it on a bad range. */
static int set_range(struct store *st, struct store_cursor **cur,
		     const struct store_range *r)
{
	if (!r)
		return 0;
	if (r->ndev > STORE_RANGE_MAX_DEVS) {
		store_cursor_close(*cur);
		*cur = NULL;
		return store_fail(st, STORE_E_SQLITE, "more than %d devices asked "
				  "for", STORE_RANGE_MAX_DEVS);
	}
	(*cur)->ranged = 1;
	(*cur)->range = *r;
	if (r->ndev)
		memcpy((*cur)->devs, r->devs, r->ndev * sizeof(*r->devs));
	(*cur)->range.devs = (*cur)->devs;
	return 0;
}

int store_requests_open_range(struct store *st, int64_t run,
			      enum store_rq_order order, unsigned cols,
			      const struct store_range *range,
			      struct store_cursor **cur)
{
	int rc;

	if (range)
		cols |= STORE_RQ_DEV | STORE_RQ_Q | STORE_RQ_D | STORE_RQ_C;
	if ((rc = store_requests_open(st, run, order, cols, cur)))
		return rc;
	return set_range(st, cur, range);
}

int store_events_open_range(struct store *st, int64_t run,
			    const struct store_range *range,
			    struct store_cursor **cur)
{
	int rc;

	if ((rc = store_events_open(st, run, cur)))
		return rc;
	return set_range(st, cur, range);
}

int store_requests_span(struct store *st, int64_t run, uint32_t **devs,
			size_t *ndev, int64_t *lo, int64_t *hi)
{
	/* each device by a seek in the (run, dev) index, its first and last
	 * id by two more */
	static const struct store_sql next_dev = { .sql = "SELECT dev FROM requests "
		"WHERE run = ?1 AND dev > ?2 ORDER BY dev LIMIT 1" };
	static const struct store_sql minmax = { .sql = "SELECT (SELECT min(id) FROM "
		"requests WHERE run = ?1 AND dev = ?2), (SELECT max(id) FROM "
		"requests WHERE run = ?1 AND dev = ?2)" };
	const struct store_driver *d = st->drv;
	struct store_stmt *nx = NULL, *mm = NULL;
	uint32_t *dv = NULL;
	size_t n = 0, cap = 0;
	int64_t last = -1;
	int rc;

	*devs = NULL;
	*ndev = 0;
	*lo = 0;
	*hi = -1;
	if ((rc = store_prep(st, &next_dev, STORE_STMT_KEEP, "reading requests",
			     &nx, "i", run)) ||
	    (rc = store_prep(st, &minmax, STORE_STMT_KEEP, "reading requests",
			     &mm, "i", run)))
		goto out;
	for (;;) {
		d->bind_i64(nx, 2, last);
		if ((rc = d->step(nx)) <= 0)
			break;
		last = d->col_i64(nx, 0);
		d->reset(nx);
		if (n == cap) {
			uint32_t *t = realloc(dv, (cap = cap ? 2 * cap : 8) * sizeof(*dv));
			if (!t) {
				rc = store_fail(st, ENOMEM, "out of memory");
				goto out;
			}
			dv = t;
		}
		dv[n++] = (uint32_t)last;
		d->bind_i64(mm, 2, last);
		if ((rc = d->step(mm)) <= 0) {
			if (!rc)
				rc = store_fail(st, STORE_E_SQLITE, "reading requests:"
						" no row");
			break;
		}
		if (n == 1 || d->col_i64(mm, 0) < *lo)
			*lo = d->col_i64(mm, 0);
		if (n == 1 || d->col_i64(mm, 1) > *hi)
			*hi = d->col_i64(mm, 1);
		d->reset(mm);
	}
out:
	if (nx)
		d->finalize(nx);
	if (mm)
		d->finalize(mm);
	if (rc) {
		free(dv);
		*lo = 0;
		*hi = -1;
		return rc;
	}
	*devs = dv;
	*ndev = n;
	return 0;
}

int store_requests_open_ids(struct store *st, int64_t run, int64_t lo,
			    int64_t hi, unsigned cols,
			    const struct store_range *range,
			    struct store_cursor **cur)
{
	char text[512];
	struct store_sql sql = { .sql = text };
	char pg[512];
	const int64_t ids[2] = { lo, hi };
	size_t n;
	int rc;

	*cur = NULL;
	if (range)
		cols |= STORE_RQ_DEV | STORE_RQ_Q | STORE_RQ_D | STORE_RQ_C;
	/* SQLite: +run, not the (run, dev) index: the ids' range of the
	 * table, in table order */
	n = requests_cols_sql(cols, text, sizeof(text));
	memcpy(pg, text, n);
	snprintf(text + n, sizeof(text) - n, " FROM requests WHERE +run = ?1 AND "
		 "id >= ?2 AND id < ?3 ORDER BY id");
	snprintf(pg + n, sizeof(pg) - n, " FROM requests WHERE run = ?1 AND "
		 "id >= ?2 AND id < ?3 ORDER BY id");
	sql.dialect[STORE_DIALECT_PG] = pg;
	if ((rc = cursor_open(st, STORE_CUR_REQUESTS, &sql, run, NULL, ids, cols,
			      "reading requests", cur)))
		return rc;
	return set_range(st, cur, range);
}

/* ---- the rows, decoded once ---- */

/* The selected columns of the current row into *r, in requests_sql()'s
 * order. */
/* Column i of q as a time in ns, STORE_NO_TIME when NULL. */
static int64_t time_col(const struct store_driver *d, struct store_stmt *q,
			int i)
{
	int64_t v = d->col_i64(q, i);

	return v == 0 && d->col_null(q, i) ? STORE_NO_TIME : v;
}

static void request_row(const struct store_driver *d, struct store_stmt *q,
			unsigned mask, struct store_request *r, int64_t *id)
{
	int i = 1;

	memset(r, 0, sizeof(*r));
	r->q_ns = r->g_ns = r->m_ns = r->i_ns = r->d_ns = r->c_ns = STORE_NO_TIME;
	if (id)
		*id = d->col_i64(q, 0);
/* a NULL reads as 0: asked for its type only then (half the driver's
 * calls for a request's times) */
#define TIME() (time_col(d, q, i++))
	if (mask & STORE_RQ_DEV)
		r->dev = (uint32_t)d->col_i64(q, i++);
	if (mask & STORE_RQ_SECTOR)
		r->sector = (uint64_t)d->col_i64(q, i++);
	if (mask & STORE_RQ_BYTES)
		r->bytes = (uint32_t)d->col_i64(q, i++);
	if (mask & STORE_RQ_RWBS) {
		const char *t = d->col_text(q, i++);
		snprintf(r->rwbs, sizeof(r->rwbs), "%s", t ? t : "");
	}
	if (mask & STORE_RQ_CATS)
		r->cats = (uint64_t)d->col_i64(q, i++);
	if (mask & STORE_RQ_PID)
		r->pid = (uint32_t)d->col_i64(q, i++);
	if (mask & STORE_RQ_Q)
		r->q_ns = TIME();
	if (mask & STORE_RQ_G)
		r->g_ns = TIME();
	if (mask & STORE_RQ_M)
		r->m_ns = TIME();
	if (mask & STORE_RQ_I)
		r->i_ns = TIME();
	if (mask & STORE_RQ_D)
		r->d_ns = TIME();
	if (mask & STORE_RQ_C)
		r->c_ns = TIME();
#undef TIME
	if (mask & STORE_RQ_DISPATCH) {
		r->d_sector = (uint64_t)d->col_i64(q, i);
		r->has_d = r->d_sector || !d->col_null(q, i);
		i++;
		r->d_bytes = (uint32_t)d->col_i64(q, i++);
	}
	if (mask & STORE_RQ_REQUEUES)
		r->requeues = (uint32_t)d->col_i64(q, i++);
	if (mask & STORE_RQ_ERROR)
		r->error = (int)d->col_i64(q, i++);
	if (mask & STORE_RQ_MERGED_INTO)
		r->merged_into = d->col_i64(q, i++);
	if (mask & STORE_RQ_D_HEAD)
		r->d_head = (int)d->col_i64(q, i++);
	if (mask & STORE_RQ_SEEK) {
		r->has_seek = !d->col_null(q, i);
		r->seek_sectors = d->col_i64(q, i++);
	}
	if (mask & STORE_RQ_SPLIT_FROM)
		r->split_from = d->col_i64(q, i++);
	if (mask & STORE_RQ_SPLIT)
		r->split = (int)d->col_i64(q, i++);
	if (mask & STORE_RQ_ORIG) {
		r->has_orig = !d->col_null(q, i);
		r->orig_dev = (uint32_t)d->col_i64(q, i++);
		r->orig_sector = (uint64_t)d->col_i64(q, i++);
	}
}

static void event_row(const struct store_driver *d, struct store_stmt *q,
		      struct bt_event *ev)
{
	size_t len = 0;

	ev->time_ns = (uint64_t)d->col_i64(q, 0);
	ev->sequence = (uint32_t)d->col_i64(q, 1);
	ev->sector = (uint64_t)d->col_i64(q, 2);
	ev->bytes = (uint32_t)d->col_i64(q, 3);
	ev->action = (uint64_t)d->col_i64(q, 4);
	ev->pid = (uint32_t)d->col_i64(q, 5);
	ev->dev = (uint32_t)d->col_i64(q, 6);
	ev->cpu = (uint32_t)d->col_i64(q, 7);
	ev->error = (uint16_t)d->col_i64(q, 8);
	ev->pdu = d->col_blob(q, 9, &len);
	ev->pdu_len = (uint16_t)len;
}

static double f64_or_nan(const struct store_driver *d, struct store_stmt *q,
			 int i)
{
	return d->col_null(q, i) ? NAN : d->col_f64(q, i);
}

static void sample_row(const struct store_driver *d, struct store_stmt *q,
		       struct store_sample *s)
{
	s->time_ns = d->col_i64(q, 0);
	s->source = d->col_text(q, 1);
	s->key = d->col_text(q, 2);
	s->value = f64_or_nan(d, q, 3);
}

static void vmstat_row(const struct store_driver *d, struct store_stmt *q,
		       struct store_vmstat *r)
{
	const char *src = d->col_text(q, 1);

	r->time_ns = d->col_i64(q, 0);
	r->from_log = src && strcmp(src, "proc");
	r->since_boot = (int)d->col_i64(q, 2);
	for (int i = 0; i < STORE_VM_NCOLS; i++)
		r->v[i] = f64_or_nan(d, q, 3 + i);
	r->dirty_kb = f64_or_nan(d, q, 3 + STORE_VM_NCOLS);
	r->writeback_kb = f64_or_nan(d, q, 4 + STORE_VM_NCOLS);
}

static void replay_row(const struct store_driver *d, struct store_stmt *q,
		       struct store_replay *r)
{
	memset(r, 0, sizeof(*r));
	r->idx = d->col_i64(q, 0);
	r->stream = (uint32_t)d->col_i64(q, 1);
	r->pid = (uint32_t)d->col_i64(q, 2);
	r->dev = (uint32_t)d->col_i64(q, 3);
	r->has_sector = !d->col_null(q, 4);
	r->sector = (uint64_t)d->col_i64(q, 4);
	r->bytes = (uint32_t)d->col_i64(q, 5);
	r->op = d->col_text(q, 6);
	r->fua = (int)d->col_i64(q, 7);
	r->as_read = (int)d->col_i64(q, 8);
	r->src_request = d->col_i64(q, 9);
	r->sched_ns = d->col_i64(q, 10);
	r->ready_ns = d->col_i64(q, 11);
	r->issue_ns = d->col_i64(q, 12);
	r->complete_ns = d->col_null(q, 13) ? STORE_NO_TIME : d->col_i64(q, 13);
	r->result = d->col_i64(q, 14);
}

/* The next row of cur into row (the row type of its kind). */
static int next(struct store_cursor *cur, enum store_cursor_kind kind,
		void *row, int64_t *id)
{
	const struct store_driver *d = cur->st->drv;
	int rc;

	if (cur->kind != kind)
		return store_fail(cur->st, STORE_E_SQLITE, "reading from a cursor "
				  "of another kind");
	if (cur->done)
		return 0;
	if ((rc = d->step(cur->q)) <= 0) {
		cur->done = !rc;
		return rc;
	}
	switch (kind) {
	case STORE_CUR_REQUESTS:
		request_row(d, cur->q, cur->mask, row, id);
		break;
	case STORE_CUR_EVENTS:
		event_row(d, cur->q, row);
		break;
	case STORE_CUR_SAMPLES:
		sample_row(d, cur->q, row);
		break;
	case STORE_CUR_VMSTAT:
		vmstat_row(d, cur->q, row);
		break;
	case STORE_CUR_REPLAYS:
		replay_row(d, cur->q, row);
		break;
	}
	return 1;
}

/* 1 when a row of dev at time t (STORE_NO_TIME: none) is in cur's range */
static int in_range(const struct store_cursor *cur, uint32_t dev, int64_t t)
{
	const struct store_range *r = &cur->range;
	int open = r->from_ns == INT64_MIN && r->to_ns == INT64_MAX;

	if (r->ndev) {
		size_t i = 0;
		while (i < r->ndev && r->devs[i] != dev)
			i++;
		if (i == r->ndev)
			return 0;
	}
	if (open)
		return 1;
	return t != STORE_NO_TIME && t >= r->from_ns && t < r->to_ns;
}

int store_requests_next(struct store_cursor *cur, struct store_request *rq,
			int64_t *id)
{
	int rc;

	while ((rc = next(cur, STORE_CUR_REQUESTS, rq, id)) == 1 && cur->ranged &&
	       !in_range(cur, rq->dev, rq->q_ns != STORE_NO_TIME ? rq->q_ns
			 : rq->d_ns != STORE_NO_TIME ? rq->d_ns : rq->c_ns))
		;
	return rc;
}

int store_events_next(struct store_cursor *cur, struct bt_event *ev)
{
	int rc;

	while ((rc = next(cur, STORE_CUR_EVENTS, ev, NULL)) == 1 && cur->ranged &&
	       !in_range(cur, ev->dev, (int64_t)ev->time_ns))
		;
	return rc;
}

int store_samples_next(struct store_cursor *cur, struct store_sample *s)
{
	return next(cur, STORE_CUR_SAMPLES, s, NULL);
}

int store_vmstat_next(struct store_cursor *cur, struct store_vmstat *row)
{
	return next(cur, STORE_CUR_VMSTAT, row, NULL);
}

int store_replays_next(struct store_cursor *cur, struct store_replay *r)
{
	return next(cur, STORE_CUR_REPLAYS, r, NULL);
}

void store_cursor_close(struct store_cursor *cur)
{
	if (!cur)
		return;
	cur->st->drv->finalize(cur->q);
	free(cur);
}
