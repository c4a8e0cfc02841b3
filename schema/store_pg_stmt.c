/* The PostgreSQL driver's statements (store_driver.h): the store's ?N
 * parameters become $N and are bound as text; rows come back in binary
 * format, a cursor's (STORE_STMT_STREAM) a batch at a time from a
 * server-side cursor in a transaction of its own when the caller has none;
 * a guarded statement runs in a savepoint, so its failure leaves the
 * caller's transaction usable. */
#include "schema/store_pg.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows a cursor fetches at a time. */
#define FETCH_ROWS 20000

/* Type OIDs (PostgreSQL's src/include/catalog/pg_type.dat) of the columns
 * read back in binary format. */
enum { OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21,
       OID_INT4 = 23, OID_OID = 26, OID_FLOAT4 = 700, OID_FLOAT8 = 701,
       OID_NUMERIC = 1700 };

/* A statement: its text with $N parameters, the values bound (text), and
 * the result being read. */
struct pg_stmt {
	struct pg_store *s;
	char *sql;
	int nparams;
	char **vals;            /* nparams values (malloc'd), NULL for NULL */
	unsigned flags;
	const char *what;
	PGresult *res;          /* the rows fetched, */
	int row, nrows;         /* the current one and their number */
	int ncols;
	Oid *types;             /* each column's type */
	int executed;           /* run (a cursor: declared) */
	int done;               /* a cursor fetched its last row */
	int64_t changes;
	char cursor[32];        /* the server-side cursor's name */
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

void pg_bind_text(struct store_stmt *q, int i, const char *v)
{
	set_val(q, i, strdup(v));
}

/* The transaction a cursor needs: one of its own when the caller has none,
 * ended when the last cursor closes. */
static int cursor_txn(struct pg_store *s, const char *what)
{
	int rc;

	if ((rc = pg_snapshot(s, what)))
		return rc;
	if (PQtransactionStatus(s->conn) == PQTRANS_IDLE) {
		if ((rc = pg_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ", NULL,
				  what)))
			return rc;
		s->implicit = 1;
	}
	s->ncursors++;
	return 0;
}

/* Ends the transaction a cursor began when no cursor is left (a reader's
 * snapshot stays until the store is closed or written). */
static void cursors_done(struct pg_store *s)
{
	if (s->ncursors > 0)
		s->ncursors--;
	if (s->ncursors == 0 && s->implicit && !s->snapshot) {
		s->implicit = 0;
		pg_exec(s, "COMMIT", NULL, "reading");
	}
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

/* Declares q's server-side cursor. */
static int declare(struct pg_stmt *q)
{
	static unsigned serial;
	struct pg_store *s = q->s;
	char *decl;
	PGresult *r;
	int rc;

	if ((rc = cursor_txn(s, q->what)))
		return rc;
	snprintf(q->cursor, sizeof(q->cursor), "iotape_c%u", ++serial);
	if (!(decl = malloc(strlen(q->sql) + 64))) {
		cursors_done(s);
		q->cursor[0] = 0;
		return store_fail(&s->base, ENOMEM, "out of memory");
	}
	sprintf(decl, "DECLARE %s NO SCROLL CURSOR FOR %s", q->cursor, q->sql);
	r = PQexecParams(s->conn, decl, q->nparams, NULL,
			 (const char *const *)q->vals, NULL, NULL, 1);
	free(decl);
	if ((rc = pg_verdict(s, r, q->what))) {
		cursors_done(s);
		q->cursor[0] = 0;
	}
	PQclear(r);
	return rc;
}

/* The cursor's next batch of rows. */
static int fetch(struct pg_stmt *q)
{
	char sql[64];
	PGresult *r;
	int rc;

	snprintf(sql, sizeof(sql), "FETCH %d FROM %s", FETCH_ROWS, q->cursor);
	r = PQexecParams(q->s->conn, sql, 0, NULL, NULL, NULL, NULL, 1);
	if ((rc = pg_verdict(q->s, r, q->what))) {
		PQclear(r);
		return rc;
	}
	take_rows(q, r);
	q->done = q->nrows < FETCH_ROWS;
	return 0;
}

/* A statement failed in a transaction begun for reading (a cursor's, a
 * reader's snapshot): it is rolled back, so the next statement is not
 * refused as one of an aborted transaction (and says its own failure). */
static void read_failed(struct pg_store *s)
{
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
		if ((rc = pg_copy_end(q->s)) || (rc = pg_snapshot(q->s, q->what)))
			return rc;
		q->executed = 1;
		q->done = 0;
		if ((rc = (q->flags & STORE_STMT_STREAM) ? declare(q) : run(q)))
			return rc;
	}
	if (q->row + 1 >= q->nrows) {
		if (!q->cursor[0] || q->done)
			return 0;
		if ((rc = fetch(q)))
			return rc;
		if (!q->nrows)
			return 0;
	}
	q->row++;
	return 1;
}

int pg_col_null(struct store_stmt *q, int i)
{
	return PQgetisnull(Q(q)->res, Q(q)->row, i);
}

static uint64_t be(const char *p, int n)
{
	uint64_t v = 0;

	for (int k = 0; k < n; k++)
		v = v << 8 | (unsigned char)p[k];
	return v;
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

static double as_f64(struct pg_stmt *q, int i)
{
	const char *p = PQgetvalue(q->res, q->row, i);
	uint64_t b;
	uint32_t f;
	double d;
	float x;

	switch (q->types[i]) {
	case OID_FLOAT8:
		b = be(p, 8);
		memcpy(&d, &b, sizeof(d));
		return d;
	case OID_FLOAT4:
		f = (uint32_t)be(p, 4);
		memcpy(&x, &f, sizeof(x));
		return x;
	case OID_NUMERIC:
		return numeric(p, PQgetlength(q->res, q->row, i));
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

int64_t pg_col_i64(struct store_stmt *qq, int i)
{
	struct pg_stmt *q = Q(qq);
	const char *p;

	if (PQgetisnull(q->res, q->row, i))
		return 0;
	p = PQgetvalue(q->res, q->row, i);
	switch (q->types[i]) {
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
		return (int64_t)as_f64(q, i);
	default:
		return strtoll(p, NULL, 10);
	}
}

double pg_col_f64(struct store_stmt *qq, int i)
{
	struct pg_stmt *q = Q(qq);

	return PQgetisnull(q->res, q->row, i) ? 0 : as_f64(q, i);
}

const char *pg_col_text(struct store_stmt *qq, int i)
{
	struct pg_stmt *q = Q(qq);

	return PQgetisnull(q->res, q->row, i) ? NULL
		: PQgetvalue(q->res, q->row, i);
}

const void *pg_col_blob(struct store_stmt *qq, int i, size_t *len)
{
	struct pg_stmt *q = Q(qq);

	if (PQgetisnull(q->res, q->row, i)) {
		*len = 0;
		return NULL;
	}
	*len = (size_t)PQgetlength(q->res, q->row, i);
	return PQgetvalue(q->res, q->row, i);
}

int64_t pg_changes(struct store_stmt *q)
{
	return Q(q)->changes;
}

/* Closes q's server-side cursor (when its transaction is still open). */
static void close_cursor(struct pg_stmt *q)
{
	struct pg_store *s = q->s;
	char sql[64];

	if (!q->cursor[0])
		return;
	if (PQtransactionStatus(s->conn) == PQTRANS_INTRANS) {
		snprintf(sql, sizeof(sql), "CLOSE %s", q->cursor);
		pg_exec(s, sql, NULL, q->what);
	}
	q->cursor[0] = 0;
	cursors_done(s);
}

void pg_reset(struct store_stmt *qq)
{
	struct pg_stmt *q = Q(qq);

	close_cursor(q);
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
	free(q);
}

