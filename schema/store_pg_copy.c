/* The store's PostgreSQL back end, bulk writes: events, requests, samples
 * and replays rows go through COPY ... FROM STDIN in binary format
 * (PostgreSQL's "COPY" reference page, "Binary Format": a signature and
 * header, then per row a 16-bit field count and each field as a 32-bit
 * length, -1 for NULL, and its bytes in the type's send format, all
 * big-endian; a -1 count ends the data). One COPY is open at a time, ended
 * by the next other statement. */
#include "schema/store_pg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Data is handed to libpq in pieces of about this many bytes. */
#define COPY_CHUNK (256 * 1024)

static const char *const copy_sql[] = {
	[PG_COPY_EVENTS] = "COPY events (run, id, time_ns, sequence, sector, "
		"bytes, action, pid, dev, cpu, error, pdu) FROM STDIN (FORMAT binary)",
	[PG_COPY_REQUESTS] = "COPY requests (run, id, dev, sector, bytes, rwbs, "
		"cats, pid, q_ns, g_ns, m_ns, i_ns, d_ns, c_ns, d_sector, d_bytes, "
		"requeues, error, merged_into, d_head, seek_sectors, split_from, "
		"split, orig_dev, orig_sector) FROM STDIN (FORMAT binary)",
	[PG_COPY_SAMPLES] = "COPY samples (run, time_ns, source, key, value) "
		"FROM STDIN (FORMAT binary)",
	[PG_COPY_REPLAYS] = "COPY replays (run, idx, stream, pid, dev, sector, "
		"bytes, op, fua, as_read, src_request, sched_ns, ready_ns, issue_ns,"
		" complete_ns, result) FROM STDIN (FORMAT binary)",
};

/* Makes room for n more bytes (s->oom when it cannot). */
static unsigned char *room(struct pg_store *s, size_t n)
{
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : COPY_CHUNK + 4096;
		unsigned char *b;
		while (cap < s->len + n)
			cap *= 2;
		if (!(b = realloc(s->buf, cap))) {
			s->oom = 1;
			return NULL;
		}
		s->buf = b;
		s->cap = cap;
	}
	return s->buf + s->len;
}

static void put_be(struct pg_store *s, uint64_t v, int bytes)
{
	unsigned char *p = room(s, (size_t)bytes);

	if (!p)
		return;
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
	s->len += (size_t)bytes;
}

/* A bigint field. */
static void f_i64(struct pg_store *s, int64_t v)
{
	put_be(s, 8, 4);
	put_be(s, (uint64_t)v, 8);
}

/* An integer (int4) field. */
static void f_i32(struct pg_store *s, int32_t v)
{
	put_be(s, 4, 4);
	put_be(s, (uint32_t)v, 4);
}

static void f_null(struct pg_store *s)
{
	put_be(s, 0xffffffffu, 4);
}

/* A bigint field, or NULL unless present. */
static void f_opt(struct pg_store *s, int64_t v, int present)
{
	if (present)
		f_i64(s, v);
	else
		f_null(s);
}

/* A text or bytea field of n bytes. */
static void f_bytes(struct pg_store *s, const void *b, size_t n)
{
	unsigned char *p;

	put_be(s, (uint32_t)n, 4);
	if (n && (p = room(s, n))) {
		memcpy(p, b, n);
		s->len += n;
	}
}

static void f_text(struct pg_store *s, const char *t)
{
	if (t)
		f_bytes(s, t, strlen(t));
	else
		f_null(s);
}

/* A double precision field (IEEE 754 binary64, big-endian), NULL when not
 * finite. */
static void f_double(struct pg_store *s, double v)
{
	uint64_t bits;

	if (!isfinite(v)) {
		f_null(s);
		return;
	}
	memcpy(&bits, &v, sizeof(bits));
	put_be(s, 8, 4);
	put_be(s, bits, 8);
}

/* Hands the buffered bytes to libpq. */
static int send_buf(struct pg_store *s)
{
	if (s->oom) {
		s->oom = 0;
		return store_fail(&s->base, ENOMEM, "out of memory");
	}
	if (s->len && PQputCopyData(s->conn, (const char *)s->buf, (int)s->len) != 1)
		return pg_fail(s, "writing rows", NULL);
	s->len = 0;
	return 0;
}

/* Starts the COPY of table t unless it is the one in progress. */
static int copy_begin(struct pg_store *s, enum pg_copy t)
{
	static const unsigned char sig[11] = "PGCOPY\n\377\r\n";
	PGresult *r;
	int rc;

	if (s->copy == t)
		return 0;
	if ((rc = pg_copy_end(s)))
		return rc;
	r = PQexec(s->conn, copy_sql[t]);
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		rc = pg_fail(s, "writing rows", r);
		PQclear(r);
		return rc;
	}
	PQclear(r);
	s->copy = t;
	s->len = 0;
	if (room(s, sizeof(sig))) {
		memcpy(s->buf, sig, sizeof(sig));
		s->len = sizeof(sig);
	}
	put_be(s, 0, 4);        /* flags: no OIDs */
	put_be(s, 0, 4);        /* header extension length */
	return 0;
}

int pg_copy_end(struct pg_store *s)
{
	PGresult *r;
	int rc = 0;

	if (s->copy == PG_COPY_NONE)
		return 0;
	s->copy = PG_COPY_NONE;
	put_be(s, 0xffff, 2);   /* the trailer */
	if ((rc = send_buf(s))) {
		PQputCopyEnd(s->conn, "iotape: writing rows failed");
		while ((r = PQgetResult(s->conn)))
			PQclear(r);
		return rc;
	}
	if (PQputCopyEnd(s->conn, NULL) != 1)
		rc = pg_fail(s, "writing rows", NULL);
	while ((r = PQgetResult(s->conn))) {
		if (!rc && PQresultStatus(r) != PGRES_COMMAND_OK)
			rc = pg_fail(s, "writing rows", r);
		PQclear(r);
	}
	return rc;
}

/* After a row: sends the buffer when it holds a chunk. */
static int row_done(struct pg_store *s)
{
	if (s->oom || s->len >= COPY_CHUNK)
		return send_buf(s);
	return 0;
}

int pg_event_add(struct store *st, int64_t run, const struct bt_event *ev)
{
	struct pg_store *s = pg(st);
	int rc;

	if (s->ev_run != run) {
		/* go on after the run's events already stored */
		char id[24];
		const char *p[1] = { pg_i64(id, run) };
		PGresult *r;
		if ((rc = pg_exec(s, "SELECT coalesce(max(id), 0) FROM events WHERE "
				  "run = $1", 1, p, &r, "storing events")))
			return rc;
		s->ev_last = pg_get_i64(r, 0, 0, 0);
		PQclear(r);
		s->ev_first = s->ev_last + 1;
		s->ev_run = run;
	}
	if ((rc = copy_begin(s, PG_COPY_EVENTS)))
		return rc;
	put_be(s, 12, 2);
	f_i64(s, run);
	f_i64(s, ++s->ev_last);
	f_i64(s, (int64_t)ev->time_ns);
	f_i64(s, ev->sequence);
	f_i64(s, (int64_t)ev->sector);
	f_i64(s, ev->bytes);
	f_i64(s, (int64_t)ev->action);
	f_i64(s, ev->pid);
	f_i64(s, ev->dev);
	f_i64(s, ev->cpu);
	f_i32(s, ev->error);
	if (ev->pdu_len)
		f_bytes(s, ev->pdu, ev->pdu_len);
	else
		f_null(s);
	return row_done(s);
}

int pg_request_add(struct store *st, int64_t run, int64_t id,
		   const struct store_request *rq)
{
	struct pg_store *s = pg(st);
	int rc;

	if ((rc = copy_begin(s, PG_COPY_REQUESTS)))
		return rc;
	put_be(s, 25, 2);
	f_i64(s, run);
	f_i64(s, id);
	f_i64(s, rq->dev);
	f_i64(s, (int64_t)rq->sector);
	f_i64(s, rq->bytes);
	f_text(s, rq->rwbs);
	f_i64(s, (int64_t)rq->cats);
	f_i64(s, rq->pid);
	f_opt(s, rq->q_ns, rq->q_ns != STORE_NO_TIME);
	f_opt(s, rq->g_ns, rq->g_ns != STORE_NO_TIME);
	f_opt(s, rq->m_ns, rq->m_ns != STORE_NO_TIME);
	f_opt(s, rq->i_ns, rq->i_ns != STORE_NO_TIME);
	f_opt(s, rq->d_ns, rq->d_ns != STORE_NO_TIME);
	f_opt(s, rq->c_ns, rq->c_ns != STORE_NO_TIME);
	f_opt(s, (int64_t)rq->d_sector, rq->has_d);
	f_opt(s, rq->d_bytes, rq->has_d);
	f_i64(s, rq->requeues);
	f_i32(s, rq->error);
	f_opt(s, rq->merged_into, rq->merged_into != 0);
	f_i32(s, rq->d_head);
	f_opt(s, rq->seek_sectors, rq->has_seek);
	f_opt(s, rq->split_from, rq->split_from != 0);
	f_i32(s, rq->split);
	f_opt(s, rq->orig_dev, rq->has_orig);
	f_opt(s, (int64_t)rq->orig_sector, rq->has_orig);
	return row_done(s);
}

int pg_sample_add(struct store *st, int64_t run, int64_t time_ns,
		  const char *source, const char *key, double value)
{
	struct pg_store *s = pg(st);
	int rc;

	if ((rc = copy_begin(s, PG_COPY_SAMPLES)))
		return rc;
	put_be(s, 5, 2);
	f_i64(s, run);
	f_i64(s, time_ns);
	f_text(s, source);
	f_text(s, key);
	f_double(s, value);
	return row_done(s);
}

int pg_replays_add(struct store *st, int64_t run,
		   const struct store_replay *rows, size_t n)
{
	struct pg_store *s = pg(st);
	int rc;

	if ((rc = copy_begin(s, PG_COPY_REPLAYS)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		const struct store_replay *r = &rows[i];
		put_be(s, 16, 2);
		f_i64(s, run);
		f_i64(s, r->idx);
		f_i64(s, r->stream);
		f_i64(s, r->pid);
		f_i64(s, r->dev);
		f_opt(s, (int64_t)r->sector, r->has_sector);
		f_i64(s, r->bytes);
		f_text(s, r->op);
		f_i32(s, r->fua != 0);
		f_i32(s, r->as_read != 0);
		f_i64(s, r->src_request);
		f_i64(s, r->sched_ns);
		f_i64(s, r->ready_ns);
		f_i64(s, r->issue_ns);
		f_opt(s, r->complete_ns, r->complete_ns != STORE_NO_TIME);
		f_i64(s, r->result);
		if ((rc = row_done(s)))
			return rc;
	}
	return 0;
}
