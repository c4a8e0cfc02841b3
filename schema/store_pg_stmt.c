/* The PostgreSQL driver's statements (store_driver.h): the store's ?N
 * parameters become $N and are bound as text; rows come back in binary
 * format. A cursor's rows (STORE_STMT_STREAM: a run's events, requests,
 * samples...) stream from COPY (query) TO STDOUT (FORMAT binary), the
 * parameters written in as literals: the server sends rows as fast as it
 * reads them while this process decodes, with no round trip a batch; a
 * statement that needs the connection while a stream is open first takes
 * the rest of its rows into memory. A guarded statement runs in a
 * savepoint, so its failure leaves the caller's transaction usable. */
#include "schema/store_pg.h"
#include "lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Type OIDs (PostgreSQL's src/include/catalog/pg_type.dat) of the columns
 * read back in binary format. */
enum { OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21,
       OID_INT4 = 23, OID_OID = 26, OID_FLOAT4 = 700, OID_FLOAT8 = 701,
       OID_NUMERIC = 1700 };

/* A row a stream gave (one CopyData message of COPY's binary format). */
struct pg_chunk {
	char *buf;              /* PQgetCopyData()'s (PQfreemem() it) */
	int len;
};

/* The most columns a streamed row has. */
#define PG_MAXCOLS 64

/* A statement: its text with $N parameters, the values bound (text), and
 * the result being read. */
struct pg_stmt {
	struct pg_store *s;
	char *sql;
	int nparams;
	char **vals;            /* nparams values (malloc'd), NULL for NULL */
	unsigned flags;
	const char *what;
	PGresult *res;          /* a plain statement's rows, */
	int row, nrows;         /* the current one and their number */
	int ncols;
	Oid *types;             /* each column's type */
	int executed;           /* run (a stream: its COPY begun) */
	int done;               /* a stream gave its last row */
	int64_t changes;
	/* a stream: the current row's fields (len -1: NULL; types are told
	 * by length, COPY's binary format carrying none), the rows taken
	 * into memory when the connection was needed (parked) */
	struct pg_chunk cur;
	const char *fp[PG_MAXCOLS];
	int fl[PG_MAXCOLS];
	int streaming;          /* its COPY is the connection's open one */
	int nosort;             /* its stream set enable_sort off */
	struct pg_chunk *parked;
	size_t npark, ipark, capark;
	int park_rc;            /* how the parked stream ended */
	char *tbuf[PG_MAXCOLS]; /* a stream's text fields, ended */
	size_t tcap[PG_MAXCOLS];
};

#define Q(x) ((struct pg_stmt *)(x))

/* sql with the store's ?N parameters as PostgreSQL's $N (quoted text and
 * names left alone) into a malloc'd string; the highest N into *n. */
static char *dollars(const char *sql, int *n)
{
	size_t len = strlen(sql);
	char *out = malloc(len + 1), *o = out;
	char quote = 0;

	*n = 0;
	if (!out)
		return NULL;
	for (const char *p = sql; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '?' && p[1] >= '0' && p[1] <= '9') {
			int k = atoi(p + 1);
			if (k > *n)
				*n = k;
			*o++ = '$';
			continue;
		}
		*o++ = *p;
	}
	*o = 0;
	return out;
}

int pg_prepare(struct store *st, const char *sql, unsigned flags,
		      const char *what, struct store_stmt **out)
{
	struct pg_stmt *q = calloc(1, sizeof(*q));

	*out = NULL;
	if (!q || !(q->sql = dollars(sql, &q->nparams)) ||
	    (q->nparams && !(q->vals = calloc((size_t)q->nparams,
					      sizeof(*q->vals))))) {
		if (q)
			free(q->sql);
		free(q);
		return store_fail(st, ENOMEM, "out of memory");
	}
	q->s = pg(st);
	q->flags = flags;
	q->what = what;
	*out = (struct store_stmt *)q;
	return 0;
}

static void set_val(struct store_stmt *qq, int i, char *v)
{
	struct pg_stmt *q = Q(qq);

	if (i < 1 || i > q->nparams) {
		free(v);
		return;
	}
	free(q->vals[i - 1]);
	q->vals[i - 1] = v;
}

void pg_bind_null(struct store_stmt *q, int i)
{
	set_val(q, i, NULL);
}

void pg_bind_i64(struct store_stmt *q, int i, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	set_val(q, i, strdup(buf));
}

/* %.17g: the double back bit for bit */
void pg_bind_f64(struct store_stmt *q, int i, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.17g", v);
	set_val(q, i, strdup(buf));
}

/* A text in a UTF8 database (iotape's: its JSON is UTF-8 too) must be
 * UTF-8, or the server refuses the statement or the COPY's whole row
 * ("invalid byte sequence for encoding UTF8"): a process's name cut by
 * the kernel inside a character, a file named in Latin-1. Bytes that are
 * not go as U+FFFD (utf8_fixed()); the SQLite store keeps them as given. */
void pg_bind_text(struct store_stmt *q, int i, const char *v)
{
	size_t n;
	char *fx = utf8_fixed(v, strlen(v), &n);

	set_val(q, i, fx ? fx : strdup(v));
}

/* Takes r as q's rows. */
static void take_rows(struct pg_stmt *q, PGresult *r)
{
	PQclear(q->res);
	q->res = r;
	q->row = -1;
	q->nrows = PQntuples(r);
	if (!q->types && (q->ncols = PQnfields(r)) > 0 &&
	    (q->types = calloc((size_t)q->ncols, sizeof(*q->types))))
		for (int c = 0; c < q->ncols; c++)
			q->types[c] = PQftype(r, c);
}

/* Runs q (its parameters as text, its rows in binary). */
static int run(struct pg_stmt *q)
{
	struct pg_store *s = q->s;
	int guard = (q->flags & STORE_STMT_GUARDED) &&
		    PQtransactionStatus(s->conn) == PQTRANS_INTRANS;
	PGresult *r;
	int rc;

	if (guard && (rc = pg_exec(s, "SAVEPOINT iotape_row", NULL, q->what)))
		return rc;
	r = PQexecParams(s->conn, q->sql, q->nparams, NULL,
			 (const char *const *)q->vals, NULL, NULL, 1);
	if ((rc = pg_verdict(s, r, q->what))) {
		PQclear(r);
		if (guard) {
			char msg[sizeof(s->base.msg)];
			snprintf(msg, sizeof(msg), "%s", s->base.msg);
			pg_exec(s, "ROLLBACK TO SAVEPOINT iotape_row", NULL, q->what);
			snprintf(s->base.msg, sizeof(s->base.msg), "%s", msg);
		}
		return rc;
	}
	q->changes = strtoll(PQcmdTuples(r), NULL, 10);
	take_rows(q, r);
	if (guard && (rc = pg_exec(s, "RELEASE SAVEPOINT iotape_row", NULL,
				   q->what)))
		return rc;
	return 0;
}

/* ---- streams ---- */

/* q's text with its parameters written in as literals (COPY takes none):
 * "COPY (...) TO STDOUT (FORMAT binary)", malloc'd; NULL when out of
 * memory. */
static char *copy_sql(struct pg_stmt *q)
{
	size_t cap = strlen(q->sql) + 64, len = 0;
	char *out = malloc(cap), quote = 0;
	char **lit = calloc((size_t)q->nparams + 1, sizeof(*lit));

	if (!out || !lit)
		goto fail;
	for (int i = 0; i < q->nparams; i++) {
		const char *v = q->vals[i];
		if (v && !(lit[i] = PQescapeLiteral(q->s->conn, v, strlen(v))))
			goto fail;
		cap += v ? strlen(lit[i]) : 4;
	}
	if (!(out = realloc(out, cap)))
		goto fail;
	len = (size_t)sprintf(out, "COPY (");
	for (const char *p = q->sql; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
			int k = atoi(p + 1);
			const char *v = k >= 1 && k <= q->nparams && lit[k - 1]
					? lit[k - 1] : "NULL";
			len += (size_t)sprintf(out + len, "%s", v);
			while (p[1] >= '0' && p[1] <= '9')
				p++;
			continue;
		}
		out[len++] = *p;
	}
	sprintf(out + len, ") TO STDOUT (FORMAT binary)");
	for (int i = 0; i < q->nparams; i++)
		PQfreemem(lit[i]);
	free(lit);
	return out;
fail:
	if (lit)
		for (int i = 0; i < q->nparams; i++)
			PQfreemem(lit[i]);
	free(lit);
	free(out);
	return NULL;
}

/* The planner's sorts back for the connection's other statements, after
 * q's stream set them off (STORE_STMT_KEYORDER). A failure here is the
 * transaction's own (aborted, to be rolled back: the SET goes with it) or
 * the connection's, which the next statement reports. */
static void nosort_end(struct pg_stmt *q)
{
	if (!q->nosort)
		return;
	q->nosort = 0;
	PQclear(PQexec(q->s->conn, "RESET enable_sort"));
}

/* Begins q's stream. */
static int stream_open(struct pg_stmt *q)
{
	struct pg_store *s = q->s;
	char *sql = copy_sql(q);
	PGresult *r;
	int rc;

	if (!sql)
		return store_fail(&s->base, ENOMEM, "out of memory");
	if (q->flags & STORE_STMT_KEYORDER) {
		/* the rows in the key's order come down its index: with the
		 * run the whole partition (one run in a small store), the
		 * planner scanned it and sorted, spilling past work_mem, and
		 * report read 0.9 s where the index takes 0.4 s (400k
		 * requests); in a fleet's partition it scanned every run's.
		 * One message: PQexec() returns at the COPY's result. */
		char *both = malloc(strlen(sql) + 32);
		if (!both) {
			free(sql);
			return store_fail(&s->base, ENOMEM, "out of memory");
		}
		sprintf(both, "SET enable_sort = off; %s", sql);
		free(sql);
		sql = both;
		q->nosort = 1;
	}
	r = PQexec(s->conn, sql);
	free(sql);
	if (PQresultStatus(r) != PGRES_COPY_OUT) {
		rc = pg_fail(s, q->what, r);
		PQclear(r);
		while ((r = PQgetResult(s->conn)))
			PQclear(r);
		nosort_end(q);
		return rc;
	}
	PQclear(r);
	q->streaming = 1;
	s->streaming = q;
	return 0;
}

/* The end of q's stream on the connection: the server's verdict. */
static int stream_end(struct pg_stmt *q)
{
	struct pg_store *s = q->s;
	PGresult *r;
	int rc = 0;

	q->streaming = 0;
	if (s->streaming == q)
		s->streaming = NULL;
	while ((r = PQgetResult(s->conn))) {
		if (!rc && PQresultStatus(r) != PGRES_COMMAND_OK)
			rc = pg_fail(s, q->what, r);
		PQclear(r);
	}
	nosort_end(q);
	return rc;
}

/* The next CopyData message of q's stream into *c: 1, 0 at its end (the
 * server's verdict taken), or a negative code. */
static int stream_read(struct pg_stmt *q, struct pg_chunk *c)
{
	int n = PQgetCopyData(q->s->conn, &c->buf, 0), rc;

	if (n >= 0) {
		c->len = n;
		return 1;
	}
	c->buf = NULL;
	if (n == -1)
		return stream_end(q);
	q->streaming = 0;
	q->s->streaming = NULL;
	rc = pg_fail(q->s, q->what, NULL);
	nosort_end(q);
	return rc;
}

void pg_settle(struct pg_store *s)
{
	struct pg_stmt *q = s->streaming;
	struct pg_chunk c;
	int rc;

	if (!q)
		return;
	/* the rest of its rows into memory: the connection is wanted */
	while ((rc = stream_read(q, &c)) > 0) {
		if (q->npark == q->capark) {
			size_t cap = q->capark ? 2 * q->capark : 1024;
			struct pg_chunk *p = realloc(q->parked, cap * sizeof(*p));
			if (!p) {
				PQfreemem(c.buf);
				rc = store_fail(&s->base, ENOMEM, "out of memory");
				break;
			}
			q->parked = p;
			q->capark = cap;
		}
		q->parked[q->npark++] = c;
	}
	q->park_rc = rc;
	if (s->streaming == q) {   /* out of memory: the rest thrown away */
		PQputCopyEnd(s->conn, NULL);
		while (stream_read(q, &c) > 0)
			PQfreemem(c.buf);
	}
}

/* The big-endian unsigned integer of n bytes (1, 2, 4 or 8; others byte
 * by byte) at p: a load and a byte swap, it being read for every column of
 * millions of streamed rows. */
static inline uint64_t be(const char *p, int n)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;
	uint64_t v = 0;

	switch (n) {
	case 8:
		memcpy(&v8, p, 8);
		return __builtin_bswap64(v8);
	case 4:
		memcpy(&v4, p, 4);
		return __builtin_bswap32(v4);
	case 2:
		memcpy(&v2, p, 2);
		return __builtin_bswap16(v2);
	case 1:
		return (unsigned char)p[0];
	}
	for (int k = 0; k < n; k++)
		v = v << 8 | (unsigned char)p[k];
	return v;
}

/* Splits row c (a tuple of COPY's binary format: a 16-bit field count,
 * then per field a 32-bit length, -1 for NULL, and its bytes, all
 * big-endian) into q's fields. Returns 1, 0 for the trailer (count -1), or
 * a negative code for a row that does not parse. */
static int split_row(struct pg_stmt *q, const struct pg_chunk *c)
{
	const unsigned char *p = (const unsigned char *)c->buf;
	const unsigned char *end = p + c->len;
	size_t off = 0;
	int n;

	/* the first row carries the header: signature (11), flags (4),
	 * extension length (4) and extension */
	if (c->len >= 19 && !memcmp(p, "PGCOPY\n\377\r\n\0", 11)) {
		uint32_t ext = (uint32_t)p[15] << 24 | (uint32_t)p[16] << 16 |
			       (uint32_t)p[17] << 8 | p[18];
		off = 19 + ext;
	}
	if (off + 2 > (size_t)c->len)
		goto bad;
	n = (int16_t)(p[off] << 8 | p[off + 1]);
	off += 2;
	if (n == -1)
		return 0;
	if (n < 0 || n > PG_MAXCOLS)
		goto bad;
	for (int i = 0; i < n; i++) {
		int32_t len;
		if (p + off + 4 > end)
			goto bad;
		len = (int32_t)be((const char *)p + off, 4);
		off += 4;
		if (len > 0 && p + off + (size_t)len > end)
			goto bad;
		q->fp[i] = (const char *)p + off;
		q->fl[i] = len;
		if (len > 0)
			off += (size_t)len;
	}
	q->ncols = n;
	return 1;
bad:
	return store_fail(&q->s->base, STORE_E_SQLITE, "%s: a row that does not "
			  "parse", q->what);
}

/* q's next streamed row: 1, 0 at the end, or a negative code. */
static int stream_next(struct pg_stmt *q)
{
	int rc;

	PQfreemem(q->cur.buf);
	q->cur.buf = NULL;
	if (q->done)
		return 0;
	if (q->parked || !q->streaming) {
		if (q->ipark < q->npark) {
			q->cur = q->parked[q->ipark++];
		} else {
			q->done = 1;
			return q->park_rc < 0 ? q->park_rc : 0;
		}
	} else if ((rc = stream_read(q, &q->cur)) <= 0) {
		q->done = 1;
		return rc;
	}
	if ((rc = split_row(q, &q->cur)) <= 0) {
		/* the trailer: its end follows */
		if (!rc && q->streaming) {
			struct pg_chunk c;
			while ((rc = stream_read(q, &c)) > 0)
				PQfreemem(c.buf);
		}
		q->done = 1;
		return rc;
	}
	return 1;
}

/* A statement failed in a transaction begun for reading (a reader's
 * snapshot): it is rolled back, so the next statement is not refused as
 * one of an aborted transaction (and says its own failure). */
static void read_failed(struct pg_store *s)
{
	pg_settle(s);
	if (s->implicit && PQtransactionStatus(s->conn) == PQTRANS_INERROR) {
		PQclear(PQexec(s->conn, "ROLLBACK"));
		s->implicit = 0;
	}
}

static int step(struct pg_stmt *q);

int pg_step(struct store_stmt *qq)
{
	int rc = step(Q(qq));

	if (rc < 0)
		read_failed(Q(qq)->s);
	return rc;
}

static int step(struct pg_stmt *q)
{
	int rc;

	if (!q->executed) {
		pg_settle(q->s);
		if ((rc = pg_copy_end(q->s)) || (rc = pg_snapshot(q->s, q->what)))
			return rc;
		q->executed = 1;
		q->done = 0;
		if ((rc = (q->flags & STORE_STMT_STREAM) ? stream_open(q) : run(q)))
			return rc;
	}
	if (q->flags & STORE_STMT_STREAM)
		return stream_next(q);
	if (q->row + 1 >= q->nrows)
		return 0;
	q->row++;
	return 1;
}

/* Field i of the current row: 0 when NULL, else 1 with its bytes. */
static int field(struct pg_stmt *q, int i, const char **p, int *len)
{
	if (q->flags & STORE_STMT_STREAM) {
		if (i >= q->ncols || q->fl[i] < 0)
			return 0;
		*p = q->fp[i];
		*len = q->fl[i];
		return 1;
	}
	if (PQgetisnull(q->res, q->row, i))
		return 0;
	*p = PQgetvalue(q->res, q->row, i);
	*len = PQgetlength(q->res, q->row, i);
	return 1;
}

/* Column i's type: the result's, or, in a stream (none given), 0. */
static Oid type_of(struct pg_stmt *q, int i)
{
	return q->flags & STORE_STMT_STREAM || !q->types ? 0 : q->types[i];
}

int pg_col_null(struct store_stmt *qq, int i)
{
	const char *p;
	int len;

	return !field(Q(qq), i, &p, &len);
}

/* A numeric in binary (ndigits, weight, sign, dscale, then base-10000
 * digits: PostgreSQL's numeric_send()) as a double. */
static double numeric(const char *p, int len)
{
	int nd, weight, sign;
	double v = 0;

	if (len < 8)
		return NAN;
	nd = (int)be(p, 2);
	weight = (int16_t)be(p + 2, 2);
	sign = (int)be(p + 4, 2);
	if (sign == 0xC000 || len < 8 + 2 * nd)
		return NAN;
	for (int k = 0; k < nd; k++)
		v += (double)be(p + 8 + 2 * k, 2) * pow(10000.0, weight - k);
	return sign == 0x4000 ? -v : v;
}

/* The field as a double: by its type, or (a stream's) by its length:
 * 8 bytes float8, 4 float4. */
static double as_f64(Oid t, const char *p, int len)
{
	uint64_t b;
	uint32_t f;
	double d;
	float x;

	if (!t)
		t = len == 8 ? OID_FLOAT8 : len == 4 ? OID_FLOAT4 : 0;
	switch (t) {
	case OID_FLOAT8:
		b = be(p, 8);
		memcpy(&d, &b, sizeof(d));
		return d;
	case OID_FLOAT4:
		f = (uint32_t)be(p, 4);
		memcpy(&x, &f, sizeof(x));
		return x;
	case OID_NUMERIC:
		return numeric(p, len);
	case OID_INT8:
		return (double)(int64_t)be(p, 8);
	case OID_INT4:
	case OID_OID:
		return (int32_t)be(p, 4);
	case OID_INT2:
		return (int16_t)be(p, 2);
	case OID_BOOL:
		return p[0] != 0;
	default:
		return strtod(p, NULL);
	}
}

/* The field as an int64: by its type, or (a stream's) by its length:
 * 8 bytes int8, 4 int4, 2 int2, 1 bool. */
static int64_t as_i64(Oid t, const char *p, int len)
{
	if (!t)
		t = len == 8 ? OID_INT8 : len == 4 ? OID_INT4 : len == 2 ? OID_INT2
		    : len == 1 ? OID_BOOL : 0;
	switch (t) {
	case OID_INT8:
		return (int64_t)be(p, 8);
	case OID_INT4:
		return (int32_t)be(p, 4);
	case OID_OID:
		return (int64_t)be(p, 4);
	case OID_INT2:
		return (int16_t)be(p, 2);
	case OID_BOOL:
		return p[0] != 0;
	case OID_FLOAT8:
	case OID_FLOAT4:
	case OID_NUMERIC:
		return (int64_t)as_f64(t, p, len);
	default:
		return strtoll(p, NULL, 10);
	}
}

int64_t pg_col_i64(struct store_stmt *qq, int i)
{
	struct pg_stmt *q = Q(qq);
	const char *p;
	int len;

	return field(q, i, &p, &len) ? as_i64(type_of(q, i), p, len) : 0;
}

double pg_col_f64(struct store_stmt *qq, int i)
{
	struct pg_stmt *q = Q(qq);
	const char *p;
	int len;

	return field(q, i, &p, &len) ? as_f64(type_of(q, i), p, len) : 0;
}

/* Text: a stream's field is not NUL-terminated where it lies: it is
 * copied, ended, into its column's buffer (valid until the next step). */
const char *pg_col_text(struct store_stmt *qq, int i)
{
	struct pg_stmt *q = Q(qq);
	const char *p;
	int len;

	if (!field(q, i, &p, &len))
		return NULL;
	if (!(q->flags & STORE_STMT_STREAM))
		return p;
	if ((size_t)len + 1 > q->tcap[i]) {
		size_t cap = (size_t)len + 64;
		char *b = realloc(q->tbuf[i], cap);
		if (!b)
			return NULL;
		q->tbuf[i] = b;
		q->tcap[i] = cap;
	}
	memcpy(q->tbuf[i], p, (size_t)len);
	q->tbuf[i][len] = 0;
	return q->tbuf[i];
}

const void *pg_col_blob(struct store_stmt *qq, int i, size_t *len)
{
	struct pg_stmt *q = Q(qq);
	const char *p;
	int n;

	if (!field(q, i, &p, &n)) {
		*len = 0;
		return NULL;
	}
	*len = (size_t)n;
	return p;
}

int64_t pg_changes(struct store_stmt *q)
{
	return Q(q)->changes;
}

/* Ends q's stream (its rows not read are thrown away) and frees what it
 * parked. */
static void stream_close(struct pg_stmt *q)
{
	struct pg_chunk c;

	if (q->streaming) {
		/* reading on is the one way to end a COPY OUT: the rest drained */
		while (stream_read(q, &c) > 0)
			PQfreemem(c.buf);
	}
	for (size_t i = q->ipark; i < q->npark; i++)
		PQfreemem(q->parked[i].buf);
	free(q->parked);
	q->parked = NULL;
	q->npark = q->ipark = q->capark = 0;
	PQfreemem(q->cur.buf);
	q->cur.buf = NULL;
}

void pg_reset(struct store_stmt *qq)
{
	struct pg_stmt *q = Q(qq);

	stream_close(q);
	PQclear(q->res);
	q->res = NULL;
	q->row = q->nrows = 0;
	q->executed = 0;
	q->done = 0;
}

void pg_finalize(struct store_stmt *qq)
{
	struct pg_stmt *q = Q(qq);

	if (!q)
		return;
	pg_reset(qq);
	for (int i = 0; i < q->nparams; i++)
		free(q->vals[i]);
	free(q->vals);
	free(q->types);
	free(q->sql);
	for (int i = 0; i < PG_MAXCOLS; i++)
		free(q->tbuf[i]);
	free(q);
}
