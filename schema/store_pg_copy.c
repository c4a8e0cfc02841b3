/* The store's PostgreSQL back end, bulk writes: events, requests, samples
 * and replays rows go through COPY ... FROM STDIN in binary format
 * (PostgreSQL's "COPY" reference page, "Binary Format": a signature and
 * header, then per row a 16-bit field count and each field as a 32-bit
 * length, -1 for NULL, and its bytes in the type's send format, all
 * big-endian; a -1 count ends the data). Rows wait in a buffer a table;
 * once a table's COPY is open its rows stream to it as they come (the
 * server stores them while this process reads and encodes the next), and it
 * is ended before any other statement, or when another table's rows have
 * piled up. */
#include "schema/store_pg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A table's COPY is opened when this many bytes of its rows wait (ending
 * another's that is open). Rows of several tables may be added in turn (an
 * import adds events and requests as it stitches): each waits in its own
 * buffer, so COPYs stay long. */
#define COPY_FLUSH (8 * 1024 * 1024)
/* The rows of the open COPY's table are sent when this many bytes wait. */
#define COPY_CHUNK (256 * 1024)

/* Each table's name and the columns its COPY sends. */
static const char *const copy_table[] = {
	[PG_COPY_EVENTS] = "events",
	[PG_COPY_REQUESTS] = "requests",
	[PG_COPY_SAMPLES] = "samples",
	[PG_COPY_REPLAYS] = "replays",
};
static const char *const copy_cols[] = {
	[PG_COPY_EVENTS] = "run, id, time_ns, sequence, sector, bytes, action, "
		"pid, dev, cpu, error, pdu",
	[PG_COPY_REQUESTS] = "run, id, dev, sector, bytes, rwbs, cats, pid, "
		"q_ns, g_ns, m_ns, i_ns, d_ns, c_ns, d_sector, d_bytes, requeues, "
		"error, merged_into, d_head, seek_sectors, split_from, split, "
		"orig_dev, orig_sector",
	[PG_COPY_SAMPLES] = "run, time_ns, source, key, value",
	[PG_COPY_REPLAYS] = "run, idx, stream, pid, dev, sector, bytes, op, fua,"
		" as_read, src_request, sched_ns, ready_ns, issue_ns, complete_ns, "
		"result",
};

/* Makes room for n more bytes (b->oom when it cannot). */
static unsigned char *room(struct pg_copy_buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		unsigned char *p;
		while (cap < b->len + n)
			cap *= 2;
		if (!(p = realloc(b->buf, cap))) {
			b->oom = 1;
			return NULL;
		}
		b->buf = p;
		b->cap = cap;
	}
	return b->buf + b->len;
}

static void put_be(struct pg_copy_buf *b, uint64_t v, int bytes)
{
	unsigned char *p = room(b, (size_t)bytes);

	if (!p)
		return;
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
	b->len += (size_t)bytes;
}

/* A bigint field. */
static void f_i64(struct pg_copy_buf *b, int64_t v)
{
	put_be(b, 8, 4);
	put_be(b, (uint64_t)v, 8);
}

/* An integer (int4) field. */
static void f_i32(struct pg_copy_buf *b, int32_t v)
{
	put_be(b, 4, 4);
	put_be(b, (uint32_t)v, 4);
}

static void f_null(struct pg_copy_buf *b)
{
	put_be(b, 0xffffffffu, 4);
}

/* A bigint field, or NULL unless present. */
static void f_opt(struct pg_copy_buf *b, int64_t v, int present)
{
	if (present)
		f_i64(b, v);
	else
		f_null(b);
}

/* A text or bytea field of n bytes. */
static void f_bytes(struct pg_copy_buf *b, const void *p, size_t n)
{
	unsigned char *d;

	put_be(b, (uint32_t)n, 4);
	if (n && (d = room(b, n))) {
		memcpy(d, p, n);
		b->len += n;
	}
}

static void f_text(struct pg_copy_buf *b, const char *t)
{
	if (t)
		f_bytes(b, t, strlen(t));
	else
		f_null(b);
}

/* A double precision field (IEEE 754 binary64, big-endian), NULL when not
 * finite. */
static void f_double(struct pg_copy_buf *b, double v)
{
	uint64_t bits;

	if (!isfinite(v)) {
		f_null(b);
		return;
	}
	memcpy(&bits, &v, sizeof(bits));
	put_be(b, 8, 4);
	put_be(b, bits, 8);
}

static int flush_table(struct pg_store *s, enum pg_copy t);

/* Table t's buffer with a row of run of nfields begun (another run's rows
 * waiting are sent first: one COPY goes to one run's table). NULL when
 * those rows fail. */
static struct pg_copy_buf *row_begin(struct pg_store *s, enum pg_copy t,
				     int64_t run, int nfields)
{
	struct pg_copy_buf *b = &s->copy[t];

	if ((b->len || s->copying == (int)t) && b->run != run &&
	    flush_table(s, t))
		return NULL;
	b->run = run;
	put_be(b, (uint64_t)nfields, 2);
	return b;
}

/* Sends len bytes of p into the open COPY. */
static int send_data(struct pg_store *s, const void *p, size_t len)
{
	for (size_t off = 0; off < len && !s->copy_failed; off += 1u << 20) {
		size_t n = len - off < (1u << 20) ? len - off : 1u << 20;
		if (PQputCopyData(s->conn, (const char *)p + off, (int)n) != 1)
			s->copy_failed = 1;
	}
	return s->copy_failed ? pg_fail(s, "writing rows", NULL) : 0;
}

/* Opens the COPY of table t (for the run of its waiting rows) and sends
 * the binary header. */
static int copy_open(struct pg_store *s, enum pg_copy t)
{
	static const unsigned char head[19] = "PGCOPY\n\377\r\n\0"
		"\0\0\0\0\0\0\0";       /* signature, flags 0, no extension */
	struct pg_copy_buf *b = &s->copy[t];
	char sql[512];
	PGresult *r;
	int rc;

	/* a run made in this transaction: straight into its own table (no
	 * index yet, no routing); else through the parent */
	if (pg_loading(s, b->run))
		snprintf(sql, sizeof(sql), "COPY %s_%lld (%s) FROM STDIN (FORMAT "
			 "binary)", copy_table[t], (long long)b->run, copy_cols[t]);
	else
		snprintf(sql, sizeof(sql), "COPY %s (%s) FROM STDIN (FORMAT binary)",
			 copy_table[t], copy_cols[t]);
	r = PQexec(s->conn, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		rc = pg_fail(s, "writing rows", r);
		PQclear(r);
		return rc;
	}
	PQclear(r);
	s->copying = (int)t;
	s->copy_failed = 0;
	return send_data(s, head, sizeof(head));
}

/* Ends the open COPY (abandoned, its rows not stored, when abort is set or
 * sending failed); returns the server's verdict. */
static int copy_close(struct pg_store *s, int abort)
{
	static const unsigned char trailer[2] = { 0xff, 0xff };
	PGresult *r;
	int rc = 0;

	if (s->copying < 0)
		return 0;
	s->copying = -1;
	if (!abort && !s->copy_failed)
		rc = send_data(s, trailer, sizeof(trailer));
	abort |= s->copy_failed;
	if (PQputCopyEnd(s->conn, abort ? "iotape: rows abandoned" : NULL) != 1
	    && !rc && !abort)
		rc = pg_fail(s, "writing rows", NULL);
	while ((r = PQgetResult(s->conn))) {
		if (!rc && !abort && PQresultStatus(r) != PGRES_COMMAND_OK)
			rc = pg_fail(s, "writing rows", r);
		PQclear(r);
	}
	if (abort && !rc)
		rc = s->copy_failed ? pg_fail(s, "writing rows", NULL) : 0;
	s->copy_failed = 0;
	return rc;
}

/* Sends table t's waiting rows into its COPY (opened, ending another, when
 * it is not the open one) and empties its buffer; the COPY stays open. */
static int send_table(struct pg_store *s, enum pg_copy t)
{
	struct pg_copy_buf *b = &s->copy[t];
	int rc;

	if (b->oom) {
		pg_copy_drop(s);
		return store_fail(&s->base, ENOMEM, "out of memory");
	}
	if (s->copying != (int)t && ((rc = copy_close(s, 0)) ||
				     (rc = copy_open(s, t)))) {
		b->len = 0;
		return rc;
	}
	rc = send_data(s, b->buf, b->len);
	b->len = 0;
	return rc;
}

/* Sends table t's waiting rows and ends its COPY. */
static int flush_table(struct pg_store *s, enum pg_copy t)
{
	int rc = 0;

	if (s->copy[t].len)
		rc = send_table(s, t);
	if (s->copying == (int)t) {
		int rc2 = copy_close(s, 0);
		rc = rc ? rc : rc2;
	}
	return rc;
}

int pg_copy_end(struct pg_store *s)
{
	int rc;

	/* the open one first: its rows came first */
	if (s->copying >= 0 && (rc = flush_table(s, (enum pg_copy)s->copying)))
		return rc;
	for (int t = 0; t < PG_COPY_N; t++)
		if ((rc = flush_table(s, (enum pg_copy)t)))
			return rc;
	return 0;
}

void pg_copy_drop(struct pg_store *s)
{
	copy_close(s, 1);
	for (int t = 0; t < PG_COPY_N; t++) {
		s->copy[t].len = 0;
		s->copy[t].oom = 0;
	}
}

void pg_copy_free(struct pg_store *s)
{
	for (int t = 0; t < PG_COPY_N; t++)
		free(s->copy[t].buf);
}

/* After a row of table t: streams the rows of the open COPY's table a
 * chunk at a time; opens a table's COPY when enough of its rows wait. */
static int row_done(struct pg_store *s, enum pg_copy t)
{
	struct pg_copy_buf *b = &s->copy[t];

	if (b->oom || b->len >= COPY_FLUSH ||
	    (s->copying == (int)t && b->len >= COPY_CHUNK))
		return send_table(s, t);
	return 0;
}

int pg_event_add(struct store *st, int64_t run, const struct bt_event *ev)
{
	struct pg_store *s = pg(st);
	struct pg_copy_buf *b;
	int rc;

	if (s->ev_run != run) {
		/* go on after the run's events already stored */
		char id[24], sql[96];
		const char *p[1] = { pg_i64(id, run) };
		PGresult *r;
		/* a run made in this transaction: in its own table still */
		if (pg_loading(s, run))
			snprintf(sql, sizeof(sql), "SELECT coalesce(max(id), 0) FROM "
				 "events_%lld WHERE run = $1", (long long)run);
		else
			snprintf(sql, sizeof(sql), "SELECT coalesce(max(id), 0) FROM "
				 "events WHERE run = $1");
		if ((rc = pg_exec(s, sql, 1, p, &r, "storing events")))
			return rc;
		s->ev_last = pg_get_i64(r, 0, 0, 0);
		PQclear(r);
		s->ev_first = s->ev_last + 1;
		s->ev_run = run;
	}
	if (!(b = row_begin(s, PG_COPY_EVENTS, run, 12)))
		return -STORE_E_SQLITE;
	f_i64(b, run);
	f_i64(b, ++s->ev_last);
	f_i64(b, (int64_t)ev->time_ns);
	f_i64(b, ev->sequence);
	f_i64(b, (int64_t)ev->sector);
	f_i64(b, ev->bytes);
	f_i64(b, (int64_t)ev->action);
	f_i64(b, ev->pid);
	f_i64(b, ev->dev);
	f_i64(b, ev->cpu);
	f_i32(b, ev->error);
	if (ev->pdu_len)
		f_bytes(b, ev->pdu, ev->pdu_len);
	else
		f_null(b);
	return row_done(s, PG_COPY_EVENTS);
}

int pg_request_add(struct store *st, int64_t run, int64_t id,
		   const struct store_request *rq)
{
	struct pg_store *s = pg(st);
	struct pg_copy_buf *b;

	if (!(b = row_begin(s, PG_COPY_REQUESTS, run, 25)))
		return -STORE_E_SQLITE;
	f_i64(b, run);
	f_i64(b, id);
	f_i64(b, rq->dev);
	f_i64(b, (int64_t)rq->sector);
	f_i64(b, rq->bytes);
	f_text(b, rq->rwbs);
	f_i64(b, (int64_t)rq->cats);
	f_i64(b, rq->pid);
	f_opt(b, rq->q_ns, rq->q_ns != STORE_NO_TIME);
	f_opt(b, rq->g_ns, rq->g_ns != STORE_NO_TIME);
	f_opt(b, rq->m_ns, rq->m_ns != STORE_NO_TIME);
	f_opt(b, rq->i_ns, rq->i_ns != STORE_NO_TIME);
	f_opt(b, rq->d_ns, rq->d_ns != STORE_NO_TIME);
	f_opt(b, rq->c_ns, rq->c_ns != STORE_NO_TIME);
	f_opt(b, (int64_t)rq->d_sector, rq->has_d);
	f_opt(b, rq->d_bytes, rq->has_d);
	f_i64(b, rq->requeues);
	f_i32(b, rq->error);
	f_opt(b, rq->merged_into, rq->merged_into != 0);
	f_i32(b, rq->d_head);
	f_opt(b, rq->seek_sectors, rq->has_seek);
	f_opt(b, rq->split_from, rq->split_from != 0);
	f_i32(b, rq->split);
	f_opt(b, rq->orig_dev, rq->has_orig);
	f_opt(b, (int64_t)rq->orig_sector, rq->has_orig);
	return row_done(s, PG_COPY_REQUESTS);
}

int pg_sample_add(struct store *st, int64_t run, int64_t time_ns,
		  const char *source, const char *key, double value)
{
	struct pg_store *s = pg(st);
	struct pg_copy_buf *b;

	if (!(b = row_begin(s, PG_COPY_SAMPLES, run, 5)))
		return -STORE_E_SQLITE;
	f_i64(b, run);
	f_i64(b, time_ns);
	f_text(b, source);
	f_text(b, key);
	f_double(b, value);
	return row_done(s, PG_COPY_SAMPLES);
}

int pg_replays_add(struct store *st, int64_t run,
		   const struct store_replay *rows, size_t n)
{
	struct pg_store *s = pg(st);
	struct pg_copy_buf *b;
	int rc;

	for (size_t i = 0; i < n; i++) {
		const struct store_replay *r = &rows[i];
		if (!(b = row_begin(s, PG_COPY_REPLAYS, run, 16)))
			return -STORE_E_SQLITE;
		f_i64(b, run);
		f_i64(b, r->idx);
		f_i64(b, r->stream);
		f_i64(b, r->pid);
		f_i64(b, r->dev);
		f_opt(b, (int64_t)r->sector, r->has_sector);
		f_i64(b, r->bytes);
		f_text(b, r->op);
		f_i32(b, r->fua != 0);
		f_i32(b, r->as_read != 0);
		f_i64(b, r->src_request);
		f_i64(b, r->sched_ns);
		f_i64(b, r->ready_ns);
		f_i64(b, r->issue_ns);
		f_opt(b, r->complete_ns, r->complete_ns != STORE_NO_TIME);
		f_i64(b, r->result);
		if ((rc = row_done(s, PG_COPY_REPLAYS)))
			return rc;
	}
	return 0;
}
