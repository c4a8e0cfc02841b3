/* The PostgreSQL driver of the store (store_driver.h), through libpq
 * (loaded on first use: pq_dl.h): connects, prepares (the store's ?N
 * parameters become $N), binds every value as a parameter, reads results in
 * binary format (a cursor's rows a batch at a time from a server-side
 * cursor), and loads the bulk tables with binary COPY (store_pg_copy.c).
 * Where the layout needs more than statements (each run's bulk rows in
 * partitions of their own, schema 6) it is here too: the run_created,
 * run_deleted and before_read hooks. */
#include "schema/store_pg.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Generated from schema/NNN_*.sql by the Makefile (schema_pg_sql.c). */
extern const char *const store_pg_migrations[];
extern const int store_pg_n_migrations;

/* The key of the advisory lock that serialises migrations ("iotape"). */
#define PG_MIGRATE_LOCK "6913541713"

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

/* ---- errors and plain statements ---- */

int pg_fail(struct pg_store *s, const char *what, const PGresult *res)
{
	const char *m = res ? PQresultErrorMessage(res) : "";
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	size_t n;

	if (!m || !*m)
		m = s->conn ? PQerrorMessage(s->conn) : "no connection";
	if (!strncmp(m, "ERROR:  ", 8))
		m += 8;
	n = strcspn(m, "\n");
	snprintf(s->base.msg, sizeof(s->base.msg), "%s: %.*s", what, (int)n, m);
	return state && !strcmp(state, "23505") ? -STORE_E_EXISTS
						 : -STORE_E_SQLITE;
}

/* res's verdict: 0 for rows or a command done, else the failure's code */
static int verdict(struct pg_store *s, PGresult *r, const char *what)
{
	ExecStatusType t = PQresultStatus(r);

	return t == PGRES_COMMAND_OK || t == PGRES_TUPLES_OK ? 0
	       : pg_fail(s, what, r);
}

int pg_exec(struct pg_store *s, const char *sql, PGresult **res,
	    const char *what)
{
	PGresult *r;
	int rc;

	if (res)
		*res = NULL;
	if ((rc = pg_copy_end(s)))
		return rc;
	r = PQexec(s->conn, sql);
	if ((rc = verdict(s, r, what)) || !res)
		PQclear(r);
	else
		*res = r;
	return rc;
}

/* sql with one int64 parameter, expecting no rows */
static int exec_i64(struct pg_store *s, const char *sql, int64_t v,
		    const char *what)
{
	char buf[24];
	const char *p[1] = { buf };
	PGresult *r;
	int rc;

	if ((rc = pg_copy_end(s)))
		return rc;
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	r = PQexecParams(s->conn, sql, 1, NULL, p, NULL, NULL, 0);
	rc = verdict(s, r, what);
	PQclear(r);
	return rc;
}

static int pg_exec_op(struct store *st, const char *sql, const char *what)
{
	return pg_exec(pg(st), sql, NULL, what);
}

/* ---- the layout of schema 6: a run's bulk rows in tables of its own ---- */

/* Adds run to list l; -ENOMEM when it cannot grow. */
static int runs_add(struct pg_store *s, struct pg_runs *l, int64_t run)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		int64_t *p = realloc(l->id, cap * sizeof(*p));
		if (!p)
			return store_fail(&s->base, ENOMEM, "out of memory");
		l->id = p;
		l->cap = cap;
	}
	l->id[l->n++] = run;
	return 0;
}

/* Takes run out of list l; whether it was in. */
static int runs_take(struct pg_runs *l, int64_t run)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->id[i] == run) {
			l->id[i] = l->id[--l->n];
			return 1;
		}
	return 0;
}

int pg_loading(const struct pg_store *s, int64_t run)
{
	for (size_t i = 0; i < s->loading.n; i++)
		if (s->loading.id[i] == run)
			return 1;
	return 0;
}

/* Attaches run's tables (its rows sent first) and takes it off the list:
 * iotape_run_attach() builds their keys. */
static int attach_run(struct pg_store *s, int64_t run)
{
	int rc;

	if ((rc = pg_copy_end(s)))
		return rc;
	runs_take(&s->loading, run);
	return exec_i64(s, "SELECT iotape_run_attach($1)", run,
			"attaching the run's tables");
}

/* before_read: the tables of run (0: of every run) made in this
 * transaction and not attached yet are attached, so the statements after
 * see its rows through the parents. */
static int pg_before_read(struct store *st, int64_t run)
{
	struct pg_store *s = pg(st);
	int rc;

	if (run)
		return pg_loading(s, run) ? attach_run(s, run) : 0;
	while (s->loading.n)
		if ((rc = attach_run(s, s->loading.id[s->loading.n - 1])))
			return rc;
	return 0;
}

/* run_created: its tables, to be attached when its rows are in (at once
 * outside a transaction: nothing would be whole to wait for) */
static int pg_run_created(struct store *st, int64_t run)
{
	struct pg_store *s = pg(st);
	int rc;

	if ((rc = exec_i64(s, "SELECT iotape_run_tables($1)", run,
			   "creating run")) ||
	    (rc = runs_add(s, &s->loading, run)))
		return rc;
	if (PQtransactionStatus(s->conn) != PQTRANS_INTRANS)
		return attach_run(s, run);
	return 0;
}

/* run_deleted: its tables are dropped at the commit (as late as can be:
 * DROP of a partition locks its parent until the commit) */
static int pg_run_deleted(struct store *st, int64_t run)
{
	struct pg_store *s = pg(st);

	runs_take(&s->loading, run);
	return runs_add(s, &s->dropping, run);
}

static int drop_deleted(struct pg_store *s)
{
	char sql[256];
	int rc;

	while (s->dropping.n) {
		long long r = (long long)s->dropping.id[--s->dropping.n];
		/* r is an id this process read from the server, not text */
		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS events_%lld, "
			 "requests_%lld, samples_%lld, replays_%lld", r, r, r, r);
		if ((rc = pg_exec(s, sql, NULL, "deleting run")))
			return rc;
	}
	return 0;
}

/* ---- statements ---- */

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

static int pg_prepare(struct store *st, const char *sql, unsigned flags,
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

static void pg_bind_null(struct store_stmt *q, int i)
{
	set_val(q, i, NULL);
}

static void pg_bind_i64(struct store_stmt *q, int i, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	set_val(q, i, strdup(buf));
}

/* %.17g: the double back bit for bit */
static void pg_bind_f64(struct store_stmt *q, int i, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.17g", v);
	set_val(q, i, strdup(buf));
}

static void pg_bind_text(struct store_stmt *q, int i, const char *v)
{
	set_val(q, i, strdup(v));
}

/* The transaction a cursor needs: one of its own when the caller has none,
 * ended when the last cursor closes. */
static int cursor_txn(struct pg_store *s, const char *what)
{
	int rc;

	if (PQtransactionStatus(s->conn) == PQTRANS_IDLE) {
		if ((rc = pg_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ", NULL,
				  what)))
			return rc;
		s->implicit = 1;
	}
	s->ncursors++;
	return 0;
}

/* Ends the transaction a cursor began when no cursor is left. */
static void cursors_done(struct pg_store *s)
{
	if (--s->ncursors == 0 && s->implicit) {
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
	if ((rc = verdict(s, r, q->what))) {
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
	if ((rc = verdict(s, r, q->what))) {
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
	if ((rc = verdict(q->s, r, q->what))) {
		PQclear(r);
		return rc;
	}
	take_rows(q, r);
	q->done = q->nrows < FETCH_ROWS;
	return 0;
}

static int pg_step(struct store_stmt *qq)
{
	struct pg_stmt *q = Q(qq);
	int rc;

	if (!q->executed) {
		if ((rc = pg_copy_end(q->s)))
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

static int pg_col_null(struct store_stmt *q, int i)
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

static int64_t pg_col_i64(struct store_stmt *qq, int i)
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

static double pg_col_f64(struct store_stmt *qq, int i)
{
	struct pg_stmt *q = Q(qq);

	return PQgetisnull(q->res, q->row, i) ? 0 : as_f64(q, i);
}

static const char *pg_col_text(struct store_stmt *qq, int i)
{
	struct pg_stmt *q = Q(qq);

	return PQgetisnull(q->res, q->row, i) ? NULL
		: PQgetvalue(q->res, q->row, i);
}

static const void *pg_col_blob(struct store_stmt *qq, int i, size_t *len)
{
	struct pg_stmt *q = Q(qq);

	if (PQgetisnull(q->res, q->row, i)) {
		*len = 0;
		return NULL;
	}
	*len = (size_t)PQgetlength(q->res, q->row, i);
	return PQgetvalue(q->res, q->row, i);
}

static int64_t pg_changes(struct store_stmt *q)
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

static void pg_reset(struct store_stmt *qq)
{
	struct pg_stmt *q = Q(qq);

	close_cursor(q);
	PQclear(q->res);
	q->res = NULL;
	q->row = q->nrows = 0;
	q->executed = 0;
	q->done = 0;
}

static void pg_finalize(struct store_stmt *qq)
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

/* libpq prints the server's notices on stderr by default: the core never
 * prints. */
static void no_notices(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Refuses a connection string that does not parse (libpq's message says
 * where, without repeating the string). */
static int check_conninfo(struct pg_store *s, const char *path)
{
	char *err = NULL;
	PQconninfoOption *o = PQconninfoParse(path, &err);
	int rc = 0;

	if (!o) {
		char why[300];
		size_t k = 0;
		/* libpq's first line, each quoted part of more than one
		 * character as "...": it quotes the string, or the value, that
		 * does not parse, and that may be a password */
		for (const char *c = err ? err : ""; *c && *c != '\n' &&
		     k + 6 < sizeof(why); c++) {
			const char *q = *c == '"' ? strchr(c + 1, '"') : NULL;
			if (q && memchr(c, '\n', (size_t)(q - c)))
				q = NULL;       /* past the first line */
			if (q && q - c > 2) {
				memcpy(why + k, "\"...\"", 5);
				k += 5;
				c = q;
			} else if (q && (size_t)(q - c) + 1 + k + 6 < sizeof(why)) {
				memcpy(why + k, c, (size_t)(q - c) + 1);  /* "]" */
				k += (size_t)(q - c) + 1;
				c = q;
			} else {
				why[k++] = *c;
			}
		}
		why[k] = 0;
		rc = store_fail(&s->base, STORE_E_SQLITE, "not a PostgreSQL "
				"connection string: %s", why);
		PQfreemem(err);
		return rc;
	}
	PQconninfoFree(o);
	return 0;
}

/* The options that are secrets: never shown. */
static int secret(const char *keyword)
{
	return !strcmp(keyword, "password") || !strcmp(keyword, "sslpassword");
}

/* path as key=value pairs (libpq's PQconninfoParse(), so a URI and a
 * conninfo string alike), the secrets left out, values quoted as libpq
 * reads them back ('...' with \' and \\) when they hold a space, a quote or
 * a backslash or are empty. */
static void pg_shown(const char *path, char *out, size_t len)
{
	PQconninfoOption *o, *i;
	size_t k = 0;
	char e[300];

	if (pq_load(e, sizeof(e))) {
		/* no libpq to parse it with: nothing of path, which may hold a
		 * password */
		snprintf(out, len, "(a PostgreSQL store)");
		return;
	}
	o = PQconninfoParse(path, NULL);

	if (!o) {
		snprintf(out, len, "(a PostgreSQL connection string that does not "
			 "parse)");
		return;
	}
	out[0] = 0;
	for (i = o; i->keyword && k + 1 < len; i++) {
		const char *v = i->val;
		int quote;
		if (!v || secret(i->keyword))
			continue;
		quote = !*v || strpbrk(v, " \t\n'\\") != NULL;
		k += (size_t)snprintf(out + k, len - k, "%s%s=%s", k ? " " : "",
				      i->keyword, quote ? "'" : "");
		for (; *v && k + 3 < len; v++) {
			if (quote && (*v == '\'' || *v == '\\'))
				out[k++] = '\\';
			out[k++] = *v;
		}
		out[k] = 0;
		if (quote && k + 1 < len)
			k += (size_t)snprintf(out + k, len - k, "'");
	}
	if (k >= len)
		k = len - 1;
	out[k] = 0;
	if (!k)   /* "postgres://": every option libpq's default */
		snprintf(out, len, "(the PostgreSQL store of libpq's defaults)");
	PQconninfoFree(o);
}

/* ---- versions, transactions ---- */

/* The store's version: 0 when the database has no iotape schema (and may
 * get one), refused when it has tables named as iotape's but no schema
 * table, or none at all where the store must exist already. */
static int pg_version(struct store *st, enum store_open_mode m, int *v)
{
	struct pg_store *s = pg(st);
	PGresult *r;
	int rc, have;

	*v = 0;
	if ((rc = pg_exec(s, "SELECT to_regclass('iotape_schema') IS NOT NULL, "
			  "(SELECT count(*) FROM pg_tables WHERE schemaname = "
			  "current_schema() AND tablename IN ('runs', 'events', "
			  "'requests', 'samples'))", &r, "reading schema version")))
		return rc;
	have = !strcmp(PQgetvalue(r, 0, 0), "t");
	rc = atoi(PQgetvalue(r, 0, 1));
	PQclear(r);
	if (!have && m == STORE_OPEN_EXISTING)
		return store_fail(st, STORE_E_MISSING, "no iotape store in this "
				  "database (import or push into it first)");
	if (!have && rc)
		return store_fail(st, STORE_E_NOTDB, "not an iotape database (it "
				  "has tables named as iotape's but no "
				  "iotape_schema); give another --db");
	if (!have)
		return 0;
	if ((rc = pg_exec(s, "SELECT max(version) FROM iotape_schema", &r,
			  "reading schema version")))
		return rc;
	*v = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return 0;
}

static int pg_migrate_begin(struct store *st)
{
	return pg_exec(pg(st), "BEGIN; SELECT pg_advisory_xact_lock("
		       PG_MIGRATE_LOCK ")", NULL, "migrating");
}

static int pg_set_version(struct store *st, int v)
{
	return exec_i64(pg(st), "UPDATE iotape_schema SET version = $1", v,
			"migrating");
}

static int pg_begin(struct store *st, int bulk)
{
	struct pg_store *s = pg(st);

	(void)bulk;
	/* the transaction open cursors began becomes the caller's: closing
	 * them must not commit it */
	if (s->implicit) {
		s->implicit = 0;
		return 0;
	}
	return pg_exec(s, "BEGIN", NULL, "beginning transaction");
}

static int pg_commit(struct store *st)
{
	struct pg_store *s = pg(st);
	PGresult *r;
	int rc;

	if ((rc = pg_before_read(st, 0)) || (rc = drop_deleted(s)) ||
	    (rc = pg_exec(s, "COMMIT", &r, "committing")))
		return rc;
	/* COMMIT of a failed transaction rolls it back and says so */
	if (!strcmp(PQcmdStatus(r), "ROLLBACK"))
		rc = store_fail(st, STORE_E_SQLITE, "committing: the transaction "
				"had failed and was rolled back");
	PQclear(r);
	return rc;
}

static int pg_rollback(struct store *st)
{
	struct pg_store *s = pg(st);

	pg_copy_drop(s);
	s->loading.n = 0;
	s->dropping.n = 0;
	return pg_exec(s, "ROLLBACK", NULL, "rolling back");
}

/* ---- open, the database ---- */

static int pg_open(struct store **out, const char *path, enum store_open_mode m)
{
	struct pg_store *s = calloc(1, sizeof(*s));
	char e[300];
	int rc;

	*out = (struct store *)s;
	if (!s)
		return -ENOMEM;
	s->copying = -1;
	if (pq_load(e, sizeof(e)))
		return store_fail(&s->base, ELIBACC, "%s", e);
	if ((rc = check_conninfo(s, path)))
		return rc;      /* the message does not repeat what was given */
	/* a password in path (libpq takes it) is never shown: messages name
	 * the store by pg_shown() */
	s->conn = PQconnectdb(path);
	if (!s->conn)
		return store_fail(&s->base, ENOMEM, "out of memory");
	if (PQstatus(s->conn) != CONNECTION_OK) {
		rc = pg_fail(s, "cannot connect", NULL);
	} else {
		PQsetNoticeProcessor(s->conn, no_notices, NULL);
		rc = pg_exec(s, "SET client_min_messages = warning; "
			     "SET extra_float_digits = 3", NULL, "connecting");
	}
	if (rc && m == STORE_OPEN_EXISTING) {
		/* name the store: the message is printed as it is */
		char msg[sizeof(s->base.msg)], shown[256];
		snprintf(msg, sizeof(msg), "%s", s->base.msg);
		pg_shown(path, shown, sizeof(shown));
		store_fail(&s->base, -rc, "%s: %s", shown, msg);
	}
	return rc;
}

static void pg_close(struct store *st)
{
	struct pg_store *s = pg(st);

	if (s->conn)          /* NULL when libpq could not be loaded */
		PQfinish(s->conn);
	pg_copy_free(s);
	free(s->loading.id);
	free(s->dropping.id);
	free(s);
}

/* The database's size (pg_database_size: every relation, index and TOAST
 * file of it, the server's own catalogs included). */
static int pg_size(struct store *st, int64_t *bytes)
{
	PGresult *r;
	int rc;

	if ((rc = pg_exec(pg(st), "SELECT pg_database_size(current_database())",
			  &r, "reading size")))
		return rc;
	*bytes = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return 0;
}

/* VACUUM: on PostgreSQL it makes deleted rows' space reusable but gives
 * little back to the file system (VACUUM FULL would, locking every table). */
static int pg_vacuum(struct store *st)
{
	return pg_exec(pg(st), "VACUUM", NULL, "vacuuming");
}

const struct store_driver store_pg_driver = {
	.name = "postgresql",
	.dialect = STORE_DIALECT_PG,
	.migrations = store_pg_migrations,
	.nmigrations = &store_pg_n_migrations,
	.shown = pg_shown,
	.open = pg_open,
	.close = pg_close,
	.version = pg_version,
	.migrate_begin = pg_migrate_begin,
	.set_version = pg_set_version,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.exec = pg_exec_op,
	.prepare = pg_prepare,
	.bind_null = pg_bind_null,
	.bind_i64 = pg_bind_i64,
	.bind_f64 = pg_bind_f64,
	.bind_text = pg_bind_text,
	.step = pg_step,
	.col_null = pg_col_null,
	.col_i64 = pg_col_i64,
	.col_f64 = pg_col_f64,
	.col_text = pg_col_text,
	.col_blob = pg_col_blob,
	.changes = pg_changes,
	.reset = pg_reset,
	.finalize = pg_finalize,
	.bulk_add = pg_bulk_add,
	.bulk_flush = pg_bulk_flush,
	.size = pg_size,
	.vacuum = pg_vacuum,
	.run_created = pg_run_created,
	.run_deleted = pg_run_deleted,
	.before_read = pg_before_read,
};
