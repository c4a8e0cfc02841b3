/* The store's SQLite back end, batched writes: events (SQ_EV_BATCH rows
 * per INSERT), requests (SQ_RQ_BATCH), samples and replays rows, with the
 * statements kept prepared. */
#include "schema/store_sqlite.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Binds batched row r at parameter offset base (columns in table order). */
static void bind_event_row(struct sqlite_store *s, sqlite3_stmt *q, int base,
			   const struct sq_ev_row *r)
{
	for (int i = 0; i < SQ_EV_COLS - 1; i++)
		sqlite3_bind_int64(q, base + i + 1, r->v[i]);
	if (r->pdu_len)
		sqlite3_bind_blob(q, base + SQ_EV_COLS, s->evpdu + r->pdu_off,
				  r->pdu_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, base + SQ_EV_COLS);
}

/* As bind_event_row() for row slot i of the kept multi-row statement,
 * binding only the parameters whose value changed since the last batch:
 * half an event's fields repeat from one batch to the next, and a bind costs
 * more than the compare. */
static void bind_event_slot(struct sqlite_store *s, int i,
			    const struct sq_ev_row *r)
{
	sqlite3_stmt *q = s->ev_multi;
	int64_t *b = s->ev_bound[i];
	int base = i * SQ_EV_COLS, ok = s->ev_bound_ok;

	for (int c = 0; c < SQ_EV_COLS - 1; c++)
		if (!ok || b[c] != r->v[c]) {
			sqlite3_bind_int64(q, base + c + 1, r->v[c]);
			b[c] = r->v[c];
		}
	if (r->pdu_len) {
		sqlite3_bind_blob(q, base + SQ_EV_COLS, s->evpdu + r->pdu_off,
				  r->pdu_len, SQLITE_STATIC);
		s->ev_bound_null[i] = 0;
	} else if (!ok || !s->ev_bound_null[i]) {
		sqlite3_bind_null(q, base + SQ_EV_COLS);
		s->ev_bound_null[i] = 1;
	}
}

/* "INSERT INTO table (cols) VALUES (?,..),.." for rows rows of ncols
 * columns, prepared to keep; NULL after the message is set. */
static sqlite3_stmt *prepare_multi(struct sqlite_store *s, const char *head,
				   int rows, int ncols)
{
	sqlite3_stmt *q = NULL;
	char *sql = sqlite3_mprintf("%s", head);

	for (int i = 0; i < rows && sql; i++) {
		char *t = sqlite3_mprintf("%s%s(?", sql, i ? "," : "");
		sqlite3_free(sql);
		sql = t;
		for (int c = 1; c < ncols && sql; c++) {
			t = sqlite3_mprintf("%s,?", sql);
			sqlite3_free(sql);
			sql = t;
		}
		if (sql) {
			t = sqlite3_mprintf("%s)", sql);
			sqlite3_free(sql);
			sql = t;
		}
	}
	if (!sql || sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				       &q, NULL) != SQLITE_OK) {
		sq_fail(s, STORE_E_SQLITE, "preparing statement");
		q = NULL;
	}
	sqlite3_free(sql);
	return q;
}

/* Writes the batched events: one multi-row INSERT for a full batch, single
 * rows otherwise. Tracks the run's first and last event id. */
static int flush_events(struct sqlite_store *s)
{
	int64_t run, last;
	int n = s->nev, rc = 0;

	if (!n)
		return 0;
	run = s->evb[0].v[0];
	s->nev = 0;
	if (n == SQ_EV_BATCH) {
		if (!s->ev_multi &&
		    !(s->ev_multi = prepare_multi(s, "INSERT INTO events (run, "
				"time_ns, sequence, sector, bytes, action, pid, dev,"
				" cpu, error, pdu) VALUES ", SQ_EV_BATCH, SQ_EV_COLS)))
			return -STORE_E_SQLITE;
		for (int i = 0; i < n; i++)
			bind_event_slot(s, i, &s->evb[i]);
		s->ev_bound_ok = 1;
		rc = sq_step_done(s, s->ev_multi, "storing events");
	} else {
		sqlite3_stmt *q = sq_stmt(s, SQ_EVENT);
		if (!q)
			return -STORE_E_SQLITE;
		for (int i = 0; i < n && !rc; i++) {
			bind_event_row(s, q, 0, &s->evb[i]);
			rc = sq_step_done(s, q, "storing event");
		}
	}
	s->evpdu_len = 0;
	if (rc)
		return rc;
	/* rowids of an append are consecutive: the last and n before it */
	last = sqlite3_last_insert_rowid(s->db);
	if (s->ev_run != run) {
		s->ev_run = run;
		s->ev_first = last - n + 1;
	}
	s->ev_last = last;
	return 0;
}

static int flush_requests(struct sqlite_store *s);

int sq_flush_events(struct sqlite_store *s)
{
	int rc = flush_events(s);

	return rc ? rc : flush_requests(s);
}

int sq_event_add(struct store *st, int64_t run, const struct bt_event *ev)
{
	struct sqlite_store *s = sq(st);
	struct sq_ev_row *r;

	if (s->nev && s->evb[0].v[0] != run) {
		int rc = flush_events(s);
		if (rc)
			return rc;
	}
	r = &s->evb[s->nev];
	r->v[0] = run;
	r->v[1] = (int64_t)ev->time_ns;
	r->v[2] = ev->sequence;
	r->v[3] = (int64_t)ev->sector;
	r->v[4] = ev->bytes;
	r->v[5] = (int64_t)ev->action;
	r->v[6] = ev->pid;
	r->v[7] = ev->dev;
	r->v[8] = ev->cpu;
	r->v[9] = ev->error;
	r->pdu_len = ev->pdu_len;
	r->pdu_off = s->evpdu_len;
	if (ev->pdu_len) {
		if (s->evpdu_len + ev->pdu_len > s->evpdu_cap) {
			size_t cap = s->evpdu_cap ? 2 * s->evpdu_cap : 4096;
			uint8_t *p;
			while (cap < s->evpdu_len + ev->pdu_len)
				cap *= 2;
			if (!(p = realloc(s->evpdu, cap)))
				return store_fail(st, ENOMEM, "out of memory");
			s->evpdu = p;
			s->evpdu_cap = cap;
		}
		memcpy(s->evpdu + s->evpdu_len, ev->pdu, ev->pdu_len);
		s->evpdu_len += ev->pdu_len;
	}
	s->nev++;
	return s->nev == SQ_EV_BATCH ? flush_events(s) : 0;
}

/* Where a requests row's parameters go: q from parameter base + 1; with
 * bound (a row slot of rq_multi) set, a value the slot already holds is not
 * bound again (most of a row's 25 repeat: run, dev, NULLs, zeros). */
struct rq_binder {
	sqlite3_stmt *q;
	int base;
	int64_t *bound;       /* SQ_RQ_COLS, or NULL: bind everything */
	uint8_t *bound_null;
	int ok;               /* bound holds what q holds */
};

/* Column c (1-based) of the row: v, or NULL when !present. */
static void bind_col(struct rq_binder *b, int c, int64_t v, int present)
{
	if (b->bound) {
		int64_t *was = &b->bound[c - 1];
		uint8_t *was_null = &b->bound_null[c - 1];
		if (b->ok && *was_null == !present && (!present || *was == v))
			return;
		*was = v;
		*was_null = !present;
	}
	sq_bind_opt_i64(b->q, b->base + c, v, present);
}

/* Binds requests row r (SQ_REQUEST's column order). */
static void bind_request(struct rq_binder *b, const struct sq_rq_row *r)
{
	const struct store_request *rq = &r->rq;

	bind_col(b, 1, r->run, 1);
	bind_col(b, 2, rq->dev, 1);
	bind_col(b, 3, (int64_t)rq->sector, 1);
	bind_col(b, 4, rq->bytes, 1);
	/* text: always bound (its length is taken when bound) */
	sqlite3_bind_text(b->q, b->base + 5, rq->rwbs, -1, SQLITE_STATIC);
	bind_col(b, 6, (int64_t)rq->cats, 1);
	bind_col(b, 7, rq->pid, 1);
	bind_col(b, 8, rq->q_ns, rq->q_ns != STORE_NO_TIME);
	bind_col(b, 9, rq->g_ns, rq->g_ns != STORE_NO_TIME);
	bind_col(b, 10, rq->m_ns, rq->m_ns != STORE_NO_TIME);
	bind_col(b, 11, rq->i_ns, rq->i_ns != STORE_NO_TIME);
	bind_col(b, 12, rq->d_ns, rq->d_ns != STORE_NO_TIME);
	bind_col(b, 13, rq->c_ns, rq->c_ns != STORE_NO_TIME);
	bind_col(b, 14, (int64_t)rq->d_sector, rq->has_d);
	bind_col(b, 15, rq->d_bytes, rq->has_d);
	bind_col(b, 16, rq->requeues, 1);
	bind_col(b, 17, rq->error, 1);
	bind_col(b, 18, rq->merged_into, rq->merged_into != 0);
	bind_col(b, 19, rq->d_head, 1);
	bind_col(b, 20, rq->seek_sectors, rq->has_seek);
	bind_col(b, 21, rq->split_from, rq->split_from != 0);
	bind_col(b, 22, rq->orig_dev, rq->has_orig);
	bind_col(b, 23, (int64_t)rq->orig_sector, rq->has_orig);
	bind_col(b, 24, rq->split, 1);
	bind_col(b, 25, r->id, 1);
}

/* Writes the batched requests rows: one multi-row INSERT for a full batch,
 * single rows otherwise. */
static int flush_requests(struct sqlite_store *s)
{
	int n = s->nrq, rc = 0;

	if (!n)
		return 0;
	s->nrq = 0;
	if (n == SQ_RQ_BATCH) {
		if (!s->rq_multi &&
		    !(s->rq_multi = prepare_multi(s, "INSERT INTO requests (run, dev,"
				" sector, bytes, rwbs, cats, pid, q_ns, g_ns, m_ns, "
				"i_ns, d_ns, c_ns, d_sector, d_bytes, requeues, error,"
				" merged_into, d_head, seek_sectors, split_from, "
				"orig_dev, orig_sector, split, id) VALUES ",
				SQ_RQ_BATCH, SQ_RQ_COLS)))
			return -STORE_E_SQLITE;
		for (int i = 0; i < n; i++) {
			struct rq_binder b = { s->rq_multi, i * SQ_RQ_COLS,
					       s->rq_bound[i], s->rq_bound_null[i],
					       s->rq_bound_ok };
			bind_request(&b, &s->rqb[i]);
		}
		s->rq_bound_ok = 1;
		return sq_step_done(s, s->rq_multi, "storing requests");
	}
	sqlite3_stmt *q = sq_stmt(s, SQ_REQUEST);
	if (!q)
		return -STORE_E_SQLITE;
	for (int i = 0; i < n && !rc; i++) {
		struct rq_binder b = { .q = q };
		bind_request(&b, &s->rqb[i]);
		rc = sq_step_done(s, q, "storing request");
	}
	return rc;
}

int sq_request_add(struct store *st, int64_t run, int64_t id,
		   const struct store_request *rq)
{
	struct sqlite_store *s = sq(st);
	struct sq_rq_row *r = &s->rqb[s->nrq++];

	r->run = run;
	r->id = id;
	r->rq = *rq;
	return s->nrq == SQ_RQ_BATCH ? flush_requests(s) : 0;
}

int sq_sample_add(struct store *st, int64_t run, int64_t time_ns,
		  const char *source, const char *key, double value)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q = sq_stmt(s, SQ_SAMPLE);

	if (!q)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int64(q, 2, time_ns);
	sqlite3_bind_text(q, 3, source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 4, key, -1, SQLITE_TRANSIENT);
	if (isfinite(value))
		sqlite3_bind_double(q, 5, value);
	else
		sqlite3_bind_null(q, 5);
	return sq_step_done(s, q, "storing sample");
}

#define RP_COLS 16
#define RP_BATCH 32

/* Binds replays row r of run at parameter offset base. */
static void bind_replay(sqlite3_stmt *q, int base, int64_t run,
			const struct store_replay *r)
{
	sqlite3_bind_int64(q, base + 1, run);
	sqlite3_bind_int64(q, base + 2, r->idx);
	sqlite3_bind_int64(q, base + 3, r->stream);
	sqlite3_bind_int64(q, base + 4, r->pid);
	sqlite3_bind_int64(q, base + 5, r->dev);
	sq_bind_opt_i64(q, base + 6, (int64_t)r->sector, r->has_sector);
	sqlite3_bind_int64(q, base + 7, r->bytes);
	sqlite3_bind_text(q, base + 8, r->op, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, base + 9, r->fua != 0);
	sqlite3_bind_int(q, base + 10, r->as_read != 0);
	sqlite3_bind_int64(q, base + 11, r->src_request);
	sqlite3_bind_int64(q, base + 12, r->sched_ns);
	sqlite3_bind_int64(q, base + 13, r->issue_ns);
	sq_bind_opt_i64(q, base + 14, r->complete_ns,
			r->complete_ns != STORE_NO_TIME);
	sqlite3_bind_int64(q, base + 15, r->result);
	sqlite3_bind_int64(q, base + 16, r->ready_ns);
}

/* RP_BATCH rows per INSERT (one statement's fixed cost per batch, as for
 * events), the rest one by one. */
int sq_replays_add(struct store *st, int64_t run,
		   const struct store_replay *rows, size_t n)
{
	static const char head[] = "INSERT INTO replays (run, idx, stream, pid, "
		"dev, sector, bytes, op, fua, as_read, src_request, sched_ns, "
		"issue_ns, complete_ns, result, ready_ns) VALUES ";
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q[2] = { NULL, NULL };
	size_t i = 0;
	int rc;

	if ((rc = sq_flush_events(s)))
		return rc;
	if (n >= RP_BATCH && !(q[0] = prepare_multi(s, head, RP_BATCH, RP_COLS)))
		return -STORE_E_SQLITE;
	for (; i + RP_BATCH <= n && !rc; i += RP_BATCH) {
		for (int b = 0; b < RP_BATCH; b++)
			bind_replay(q[0], b * RP_COLS, run, &rows[i + b]);
		rc = sq_step_done(s, q[0], "storing replays");
	}
	if (!rc && i < n && !(q[1] = prepare_multi(s, head, 1, RP_COLS)))
		rc = -STORE_E_SQLITE;
	for (; i < n && !rc; i++) {
		bind_replay(q[1], 0, run, &rows[i]);
		rc = sq_step_done(s, q[1], "storing replays");
	}
	sqlite3_finalize(q[0]);
	sqlite3_finalize(q[1]);
	return rc;
}
