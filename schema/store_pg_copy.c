/* The PostgreSQL driver's bulk rows: events, requests, samples and
 * replays rows (store_bulk_defs[]) go through COPY ... FROM STDIN in binary
 * format
 * (PostgreSQL's "COPY" reference page, "Binary Format": a signature and
 * header, then per row a 16-bit field count and each field as a 32-bit
 * length, -1 for NULL, and its bytes in the type's send format, all
 * big-endian; a -1 count ends the data). Rows wait in a buffer a table;
 * once a table's COPY is open its rows stream to it as they come (the
 * server stores them while this process reads and encodes the next), and it
 * is ended before any other statement, or when another table's rows have
 * piled up. */
#include "schema/store_pg.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A table's COPY is opened when this many bytes of its rows wait (ending
 * another's that is open). Rows of several tables may be added in turn (an
 * import adds events and requests as it stitches): each waits in its own
 * buffer, so COPYs stay long. */
#define COPY_FLUSH (8 * 1024 * 1024)
/* The rows of the open COPY's table are sent when this many bytes wait. */
#define COPY_CHUNK (256 * 1024)
/* A COPY is ended (and a writer's rows landed) after this many bytes. */
#define LAND_CHUNK (64u * 1024 * 1024)
/* The most bytes one CopyData message carries. The server takes in a
 * message whole before it stores a row of it (pq_getmessage()), and the
 * socket holds about 200 KiB (net.core.wmem_default): with messages of
 * 256 KiB and more the server idled while each arrived and this process
 * idled while it was stored, and push took 11 to 12.7 s where psql \copy
 * of the same rows (8 KiB messages) took 6.1 s; with 64 KiB, 6.5 to 8.4 s,
 * three messages in flight. */
#define COPY_MSG (64u * 1024)

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

static int flush_table(struct pg_store *s, enum store_bulk t);

/* Table t's buffer with a row of run of nfields begun (another run's rows
 * waiting are sent first: one COPY goes to one run's table). NULL when
 * those rows fail. */
static struct pg_copy_buf *row_begin(struct pg_store *s, enum store_bulk t,
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

/* Sends len bytes of p into the open COPY, COPY_MSG bytes a message. */
static int send_data(struct pg_store *s, const void *p, size_t len)
{
	s->copy_sent += len;
	for (size_t off = 0; off < len && !s->copy_failed; off += COPY_MSG) {
		size_t n = len - off < COPY_MSG ? len - off : COPY_MSG;
		if (PQputCopyData(s->conn, (const char *)p + off, (int)n) != 1)
			s->copy_failed = 1;
	}
	return s->copy_failed ? pg_fail(s, "writing rows", NULL) : 0;
}

/* Runs sql (no rows wanted) while no COPY is open; for the statements the
 * COPYs themselves need (pg_exec() would end them first). */
static int exec_now(struct pg_store *s, const char *sql, int n,
		    const char *const *params)
{
	PGresult *r = PQexecParams(s->conn, sql, n, NULL, params, NULL, NULL, 0);
	int rc = pg_verdict(s, r, "storing rows");

	PQclear(r);
	return rc;
}

/* Opens the COPY of table t (for the run of its waiting rows, its day
 * last) and sends the binary header: into the table itself (the owner),
 * or into this session's load table of it (a writer: iotape_land() takes
 * the rows on when the COPY ends; schema/008_fleet.sql). */
static int copy_open(struct pg_store *s, enum store_bulk t)
{
	static const unsigned char head[19] = "PGCOPY\n\377\r\n\0"
		"\0\0\0\0\0\0\0";       /* signature, flags 0, no extension */
	const struct store_bulk_def *d = &store_bulk_defs[t];
	char sql[768], cols[512];
	size_t k = 0;
	PGresult *r;
	int rc;

	pg_settle(s);
	if (s->staged && !s->load_tables) {
		if ((rc = exec_now(s, "SELECT iotape_load_tables()", 0, NULL)))
			return rc;
		s->load_tables = 1;
	}
	for (int c = 0; c < d->ncols; c++)
		k += (size_t)snprintf(cols + k, sizeof(cols) - k, "%s, ",
				      d->names[c]);
	snprintf(sql, sizeof(sql), "COPY %s%s (%sday) FROM STDIN (FORMAT binary)",
		 s->staged ? "pg_temp.iotape_load_" : "", d->table, cols);
	r = PQexec(s->conn, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		rc = pg_fail(s, "writing rows", r);
		PQclear(r);
		return rc;
	}
	PQclear(r);
	s->copying = (int)t;
	s->copy_failed = 0;
	s->copy_sent = 0;
	s->copy_run = s->copy[t].run;
	return send_data(s, head, sizeof(head));
}

/* Ends the open COPY (abandoned, its rows not stored, when abort is set or
 * sending failed); returns the server's verdict. A writer's rows then go
 * from its load table into the store (iotape_land(), which refuses another
 * machine's run). */
static int copy_close(struct pg_store *s, int abort)
{
	static const unsigned char trailer[2] = { 0xff, 0xff };
	enum store_bulk t = (enum store_bulk)s->copying;
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
	if (!rc && !abort && s->staged) {
		char run[24];
		const char *p[2] = { store_bulk_defs[t].table, run };
		snprintf(run, sizeof(run), "%lld", (long long)s->copy_run);
		rc = exec_now(s, "SELECT iotape_land($1, $2)", 2, p);
	}
	return rc;
}

/* Sends table t's waiting rows into its COPY (opened, ending another, when
 * it is not the open one) and empties its buffer; the COPY stays open. */
static int send_table(struct pg_store *s, enum store_bulk t)
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
static int flush_table(struct pg_store *s, enum store_bulk t)
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
	if (s->copying >= 0 && (rc = flush_table(s, (enum store_bulk)s->copying)))
		return rc;
	for (int t = 0; t < STORE_NBULK; t++)
		if ((rc = flush_table(s, (enum store_bulk)t)))
			return rc;
	return 0;
}

void pg_copy_drop(struct pg_store *s)
{
	copy_close(s, 1);
	for (int t = 0; t < STORE_NBULK; t++) {
		s->copy[t].len = 0;
		s->copy[t].oom = 0;
	}
}

void pg_copy_free(struct pg_store *s)
{
	for (int t = 0; t < STORE_NBULK; t++)
		free(s->copy[t].buf);
}

/* After a row of table t: streams the rows of the open COPY's table a
 * chunk at a time; opens a table's COPY when enough of its rows wait; ends
 * a COPY that has taken LAND_CHUNK bytes (a writer's rows then land), so no
 * statement runs long (statement_timeout) and a load table stays small. */
static int row_done(struct pg_store *s, enum store_bulk t)
{
	struct pg_copy_buf *b = &s->copy[t];
	int rc;

	if (b->oom || b->len >= COPY_FLUSH ||
	    (s->copying == (int)t && b->len >= COPY_CHUNK)) {
		if ((rc = send_table(s, t)))
			return rc;
		if (s->copying == (int)t && s->copy_sent >= LAND_CHUNK)
			return copy_close(s, 0);
	}
	return 0;
}

/* One more row loaded into s->day's month in this transaction. */
static void count_loaded(struct pg_store *s)
{
	int i = 0;

	while (i < s->nloaded && s->loaded[i].day != s->day)
		i++;
	if (i == s->nloaded) {
		if (s->nloaded == (int)(sizeof(s->loaded) / sizeof(s->loaded[0])))
			return;
		s->loaded[s->nloaded].day = s->day;
		s->loaded[s->nloaded++].rows = 0;
	}
	s->loaded[i].rows++;
}

int pg_bulk_add(struct store *st, enum store_bulk t,
		const struct store_val *v)
{
	struct pg_store *s = pg(st);
	const struct store_bulk_def *d = &store_bulk_defs[t];
	struct pg_copy_buf *b;
	int rc;

	/* the partition key of the run's rows, and where they go */
	if ((v[0].i != s->day_run && (rc = pg_run_day(s, v[0].i))) ||
	    (rc = pg_staging(s)))
		return rc;
	if (!(b = row_begin(s, t, v[0].i, d->ncols + 1)))
		return -STORE_E_SQLITE;
	for (int c = 0; c < d->ncols; c++) {
		if (v[c].null) {
			f_null(b);
			continue;
		}
		switch (d->types[c]) {
		case STORE_C_I64:
			f_i64(b, v[c].i);
			break;
		case STORE_C_I32:
			f_i32(b, (int32_t)v[c].i);
			break;
		case STORE_C_F64:
			f_double(b, v[c].d);
			break;
		case STORE_C_TEXT: {
			/* UTF-8 or the row is refused (pg_bind_text()) */
			size_t n = 0;
			char *fx = utf8_fixed(v[c].p, v[c].n, &n);
			f_bytes(b, fx ? fx : v[c].p, fx ? n : v[c].n);
			free(fx);
			break;
		}
		case STORE_C_BLOB:
			f_bytes(b, v[c].p, v[c].n);
			break;
		}
	}
	f_i32(b, s->day);
	count_loaded(s);
	return row_done(s, t);
}

int pg_bulk_flush(struct store *st)
{
	return pg_copy_end(pg(st));
}
