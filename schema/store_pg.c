/* The PostgreSQL driver of the store (store_driver.h), through libpq
 * (loaded on first use: pq_dl.h): connects (with a connect_timeout unless
 * the URL gives one) and sets the session's lock_timeout, statement_timeout
 * and idle_in_transaction_session_timeout where the server has none; reads
 * the schema version (a newer store is used while its min_client allows);
 * runs transactions; says which failures are worth the whole transaction
 * again (store_again()) and which timeout ran out; connects again; gives
 * the rows of a run their partition (schema/008_fleet.sql: a month's,
 * made by iotape_partition() on a connection of its own); vacuums and
 * expires what the role owns. Statements are in store_pg_stmt.c, bulk rows
 * in store_pg_copy.c. */
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

/* The key of the advisory lock that serialises migrations ("iotape"), and
 * the one partitions are made and dropped under (schema/008_fleet.sql). */
#define PG_MIGRATE_LOCK "6913541713"
#define PG_PARTITION_LOCK "6913541714"

/* iotape's values of the settings the server leaves at 0 (README, "A
 * fleet's runs in one place"): a lock held longer than this by another
 * session, a statement longer than this (bulk rows are landed in chunks, so
 * none is long), a transaction idle longer than this (a writer stopped in
 * the middle of its transaction holds its locks no longer). */
static const struct { const char *name, *value; } limits[PG_NLIMITS] = {
	[PG_LOCK_TIMEOUT] = { "lock_timeout", "30s" },
	[PG_STATEMENT_TIMEOUT] = { "statement_timeout", "300s" },
	[PG_IDLE_TIMEOUT] = { "idle_in_transaction_session_timeout", "120s" },
};

/* connect_timeout when neither the URL nor PGCONNECT_TIMEOUT gives one. */
#define PG_CONNECT_TIMEOUT "10"

/* ---- errors ---- */

/* A timeout's message: "what: waited longer than lock_timeout (30s) ...". */
static int timeout(struct pg_store *s, const char *what, enum pg_limit l,
		   const char *did)
{
	store_fail(&s->base, STORE_E_SQLITE, "%s: %s %s (%s); give it in the "
		   "URL to change it (?options=-c%%20%s%%3D60s)", what, did,
		   limits[l].name, s->limit[l][0] ? s->limit[l] : "?",
		   limits[l].name);
	return -STORE_E_SQLITE;
}

int pg_fail(struct pg_store *s, const char *what, const PGresult *res)
{
	const char *m = res ? PQresultErrorMessage(res) : "";
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	int lost = s->conn && PQstatus(s->conn) == CONNECTION_BAD;
	size_t n;

	if (!m || !*m)
		m = s->conn ? PQerrorMessage(s->conn) : "no connection";
	if (!strncmp(m, "ERROR:  ", 8))
		m += 8;
	else if (!strncmp(m, "FATAL:  ", 8))
		m += 8;
	n = strcspn(m, "\n");
	if (state && !strcmp(state, "55P03") && strstr(m, "lock timeout"))
		return timeout(s, what, PG_LOCK_TIMEOUT, "waited for a lock another "
			       "session holds longer than");
	if (state && !strcmp(state, "57014") && strstr(m, "statement timeout"))
		return timeout(s, what, PG_STATEMENT_TIMEOUT, "a statement ran "
			       "longer than");
	if ((state && !strcmp(state, "25P03")) || strstr(m, "idle-in-transaction"))
		return timeout(s, what, PG_IDLE_TIMEOUT, "the server ended the "
			       "session: its transaction was idle longer than");
	snprintf(s->base.msg, sizeof(s->base.msg), "%s: %.*s", what, (int)n, m);
	if (state && !strcmp(state, "23505"))
		return -STORE_E_EXISTS;
	if (state && (!strcmp(state, "40001") || !strcmp(state, "40P01")))
		return -STORE_E_RETRY;
	if (state && !strcmp(state, "42501"))
		return -STORE_E_DENIED;
	if (lost && !s->in_commit)
		return -STORE_E_RETRY;
	return -STORE_E_SQLITE;
}

int pg_verdict(struct pg_store *s, PGresult *r, const char *what)
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
	pg_settle(s);
	if ((rc = pg_copy_end(s)))
		return rc;
	r = PQexec(s->conn, sql);
	if ((rc = pg_verdict(s, r, what)) || !res)
		PQclear(r);
	else
		*res = r;
	return rc;
}

/* sql with one int64 parameter; the first column of its first row into
 * *out (0 without) unless out is NULL */
static int exec_i64(struct pg_store *s, PGconn *c, const char *sql, int64_t v,
		    int64_t *out, const char *what)
{
	char buf[24];
	const char *p[1] = { buf };
	PGresult *r;
	int rc;

	if (c == s->conn) {
		pg_settle(s);
		if ((rc = pg_copy_end(s)))
			return rc;
	}
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	r = PQexecParams(c, sql, 1, NULL, p, NULL, NULL, 0);
	if (!(rc = pg_verdict(s, r, what)) && out)
		*out = PQntuples(r) && !PQgetisnull(r, 0, 0)
		       ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;
	PQclear(r);
	return rc;
}

static int pg_exec_op(struct store *st, const char *sql, const char *what)
{
	return pg_exec(pg(st), sql, NULL, what);
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

/* ---- connecting ---- */

/* Connects to s->conninfo with connect_timeout PG_CONNECT_TIMEOUT unless
 * the string or PGCONNECT_TIMEOUT gives one (libpq: an array entry before
 * the expanded dbname is overridden by the string's), and sets the session
 * up: no notices printed, floats in full, and iotape's limits where the
 * server's are 0. Returns the connection (NULL when out of memory) with the
 * message set when it is not CONNECTION_OK or the set-up failed (*rc). */
static PGconn *connect_db(struct pg_store *s, int *rc)
{
	/* iotape's sessions are named so in pg_stat_activity, unless the
	 * string or PGAPPNAME names them */
	const char *keys[] = { "connect_timeout", "fallback_application_name",
			       "dbname", NULL };
	const char *vals[] = { getenv("PGCONNECT_TIMEOUT") ? NULL
			       : PG_CONNECT_TIMEOUT, "iotape", s->conninfo, NULL };
	char sql[512];
	PGresult *r;
	PGconn *c = PQconnectdbParams(keys, vals, 1);
	size_t k = 0;

	*rc = 0;
	if (!c) {
		*rc = store_fail(&s->base, ENOMEM, "out of memory");
		return NULL;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		const char *m = PQerrorMessage(c);
		if (strstr(m, "timeout expired"))
			*rc = store_fail(&s->base, STORE_E_SQLITE, "cannot connect: "
					 "no answer within connect_timeout (%s s); "
					 "give connect_timeout=N in the URL to wait "
					 "longer", s->connect_timeout);
		else
			*rc = store_fail(&s->base, STORE_E_SQLITE, "cannot connect: "
					 "%.*s", (int)strcspn(m, "\n"), m);
		return c;
	}
	PQsetNoticeProcessor(c, no_notices, NULL);
	/* no JIT: iotape's statements are many short look-ups, for which
	 * compiling took longer than running (800 ms of a 1,000-run listing) */
	k += (size_t)snprintf(sql + k, sizeof(sql) - k, "SET client_min_messages "
			      "= warning; SET extra_float_digits = 3; SET jit = "
			      "off; SELECT ");
	for (int l = 0; l < PG_NLIMITS; l++)
		k += (size_t)snprintf(sql + k, sizeof(sql) - k, "%s"
				      "current_setting('%s')", l ? ", " : "",
				      limits[l].name);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		*rc = store_fail(&s->base, STORE_E_SQLITE, "connecting: %.*s",
				 (int)strcspn(PQerrorMessage(c), "\n"),
				 PQerrorMessage(c));
		PQclear(r);
		return c;
	}
	k = 0;
	for (int l = 0; l < PG_NLIMITS; l++) {
		const char *v = PQgetvalue(r, 0, l);
		int zero = !strcmp(v, "0");
		snprintf(s->limit[l], sizeof(s->limit[l]), "%s",
			 zero ? limits[l].value : v);
		if (zero)
			k += (size_t)snprintf(sql + k, sizeof(sql) - k, "SET %s = "
					      "'%s'; ", limits[l].name,
					      limits[l].value);
	}
	PQclear(r);
	if (k) {
		r = PQexec(c, sql);
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			*rc = store_fail(&s->base, STORE_E_SQLITE, "connecting: "
					 "%.*s", (int)strcspn(PQerrorMessage(c),
							     "\n"),
					 PQerrorMessage(c));
		PQclear(r);
	}
	return c;
}

/* connect_timeout as it will be in force: the string's, PGCONNECT_TIMEOUT's
 * or iotape's */
static void find_connect_timeout(struct pg_store *s, const char *path)
{
	PQconninfoOption *o = PQconninfoParse(path, NULL);
	const char *v = getenv("PGCONNECT_TIMEOUT");

	for (PQconninfoOption *i = o; i && i->keyword; i++)
		if (!strcmp(i->keyword, "connect_timeout") && i->val && *i->val)
			v = i->val;
	snprintf(s->connect_timeout, sizeof(s->connect_timeout), "%s",
		 v && *v ? v : PG_CONNECT_TIMEOUT);
	if (o)
		PQconninfoFree(o);
}

/* Forgets what a connection's session held (its transaction, COPY,
 * cursors, load tables). */
static void forget_session(struct pg_store *s)
{
	s->streaming = NULL;
	s->nloaded = 0;
	pg_copy_drop(s);
	s->copying = -1;
	s->copy_failed = 0;
	s->implicit = 0;
	s->load_tables = 0;
	s->day_run = 0;
	s->in_commit = 0;
}

static int pg_open(struct store **out, const char *path, enum store_open_mode m)
{
	struct pg_store *s = calloc(1, sizeof(*s));
	char e[300];
	int rc;

	*out = (struct store *)s;
	if (!s)
		return -ENOMEM;
	s->copying = -1;
	s->staged = -1;
	if (pq_load(e, sizeof(e)))
		return store_fail(&s->base, ELIBACC, "%s", e);
	if ((rc = check_conninfo(s, path)))
		return rc;      /* the message does not repeat what was given */
	if (!(s->conninfo = strdup(path)))
		return store_fail(&s->base, ENOMEM, "out of memory");
	find_connect_timeout(s, path);
	/* a password in path (libpq takes it) is never shown: messages name
	 * the store by pg_shown() */
	s->conn = connect_db(s, &rc);
	/* a command that reads an existing store reads one state of it */
	s->snapshot = m == STORE_OPEN_EXISTING;
	if (rc && (m == STORE_OPEN_EXISTING || m == STORE_OPEN_MIGRATE)) {
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
	free(s->conninfo);
	free(s);
}

static int pg_reconnect(struct store *st)
{
	struct pg_store *s = pg(st);
	int rc;

	forget_session(s);
	PQfinish(s->conn);
	s->conn = connect_db(s, &rc);
	return rc ? rc : s->conn ? 0 : -ENOMEM;
}

/* store_open_reader(): a connection of its own to the same store (it sees
 * what is committed, as SQLite's second handle does). */
static int pg_open_reader(struct store *st, struct store **out)
{
	struct pg_store *s = pg(st), *r;
	int rc;

	*out = NULL;
	if (PQtransactionStatus(s->conn) != PQTRANS_IDLE && !s->implicit)
		return store_fail(st, EBUSY, "a transaction is open on this store");
	/* the second handle reads the first's snapshot */
	if ((rc = pg_snapshot(s, "reading")))
		return rc;
	if (!(r = calloc(1, sizeof(*r))) || !(r->conninfo = strdup(s->conninfo))) {
		free(r);
		return store_fail(st, ENOMEM, "out of memory");
	}
	r->copying = -1;
	r->staged = -1;
	r->version = s->version;
	snprintf(r->connect_timeout, sizeof(r->connect_timeout), "%s",
		 s->connect_timeout);
	r->conn = connect_db(r, &rc);
	if (!rc && r->conn && s->implicit && s->snapshot) {
		PGresult *x;
		if (!(rc = pg_exec(s, "SELECT pg_export_snapshot()", &x, "reading"))) {
			snprintf(r->snapshot_id, sizeof(r->snapshot_id), "%s",
				 PQgetvalue(x, 0, 0));
			PQclear(x);
			r->snapshot = 1;
		}
	}
	if (rc || !r->conn) {
		store_fail(st, STORE_E_SQLITE, "%s", r->base.msg);
		pg_close(&r->base);
		return -STORE_E_SQLITE;
	}
	*out = &r->base;
	return 0;
}

/* ---- a reader's snapshot ---- */

int pg_snapshot(struct pg_store *s, const char *what)
{
	char sql[160];
	int rc;

	if (!s->snapshot || PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		return 0;
	if (s->snapshot_id[0])   /* a second handle's: the first's snapshot */
		snprintf(sql, sizeof(sql), "BEGIN ISOLATION LEVEL REPEATABLE READ;"
			 " SET TRANSACTION SNAPSHOT '%s'", s->snapshot_id);
	else
		snprintf(sql, sizeof(sql), "BEGIN ISOLATION LEVEL REPEATABLE READ");
	if ((rc = pg_exec(s, sql, NULL, what)))
		return rc;
	s->implicit = 1;
	return 0;
}

/* Ends the transaction begun for reading when nothing reads in it. */
static int end_implicit(struct pg_store *s)
{
	pg_settle(s);
	if (!s->implicit)
		return 0;
	s->implicit = 0;
	return pg_exec(s, "COMMIT", NULL, "reading");
}

/* ---- versions, transactions ---- */

/* The store's version: 0 when the database has no iotape schema (and may
 * get one), refused when it has tables named as iotape's but no schema
 * table, or none at all where the store must exist already. */
static int pg_version(struct store *st, enum store_open_mode m, int *v,
		      int *min_client)
{
	struct pg_store *s = pg(st);
	PGresult *r;
	int rc, have;

	*v = *min_client = 0;
	if ((rc = pg_exec(s, "SELECT to_regclass('iotape_schema') IS NOT NULL, "
			  "(to_regclass('runs') IS NOT NULL OR to_regclass('events')"
			  " IS NOT NULL OR to_regclass('requests') IS NOT NULL OR "
			  "to_regclass('samples') IS NOT NULL)::int", &r,
			  "reading schema version")))
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
	/* min_client from schema 8 on: the oldest client that may use it */
	if ((rc = pg_exec(s, "SELECT max(version), EXISTS (SELECT 1 FROM "
			  "pg_attribute WHERE attrelid = 'iotape_schema'::regclass"
			  " AND attname = 'min_client') FROM iotape_schema", &r,
			  "reading schema version")))
		return rc;
	*v = *min_client = atoi(PQgetvalue(r, 0, 0));
	have = !strcmp(PQgetvalue(r, 0, 1), "t");
	PQclear(r);
	if (have) {
		if ((rc = pg_exec(s, "SELECT max(min_client) FROM iotape_schema", &r,
				  "reading schema version")))
			return rc;
		*min_client = atoi(PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	s->version = *v;
	return 0;
}

static int pg_migrate_begin(struct store *st)
{
	/* a migration's statements may be long (rows moved): no limit */
	return pg_exec(pg(st), "SET statement_timeout = 0; BEGIN; SELECT "
		       "pg_advisory_xact_lock(" PG_MIGRATE_LOCK ")", NULL,
		       "migrating");
}

static int pg_set_version(struct store *st, int v)
{
	return exec_i64(pg(st), pg(st)->conn, "UPDATE iotape_schema SET version "
			"= $1", v, NULL, "migrating");
}

static int pg_begin(struct store *st, int bulk)
{
	struct pg_store *s = pg(st);

	int rc;

	(void)bulk;
	/* a reader's snapshot ends (streams still open take their rows into
	 * memory): its writes are a transaction of their own */
	if ((rc = end_implicit(s)))
		return rc;
	return pg_exec(s, "BEGIN", NULL, "beginning transaction");
}

static int pg_commit(struct store *st)
{
	struct pg_store *s = pg(st);
	PGresult *r;
	int rc;

	if ((rc = pg_copy_end(s)))
		return rc;
	s->in_commit = 1;
	rc = pg_exec(s, "COMMIT", &r, "committing");
	s->in_commit = 0;
	if (rc)
		return rc;
	/* COMMIT of a failed transaction rolls it back and says so */
	if (!strcmp(PQcmdStatus(r), "ROLLBACK"))
		rc = store_fail(st, STORE_E_SQLITE, "committing: the transaction "
				"had failed and was rolled back");
	PQclear(r);
	/* the statistics of the months loaded, after the commit (an
	 * ANALYZE's lock not held through the transaction); a failure is not
	 * the commit's */
	for (int i = 0; !rc && i < s->nloaded; i++) {
		char d[16], n[24];
		const char *p[2] = { d, n };
		snprintf(d, sizeof(d), "%d", s->loaded[i].day);
		snprintf(n, sizeof(n), "%" PRId64, s->loaded[i].rows);
		PQclear(PQexecParams(s->conn, "SELECT iotape_analyze($1, $2)", 2,
				     NULL, p, NULL, NULL, 0));
	}
	s->nloaded = 0;
	return rc;
}

static int pg_rollback(struct store *st)
{
	struct pg_store *s = pg(st);

	pg_settle(s);
	pg_copy_drop(s);
	s->nloaded = 0;
	if (PQstatus(s->conn) == CONNECTION_BAD)
		return 0;       /* the server rolled it back */
	return pg_exec(s, "ROLLBACK", NULL, "rolling back");
}

/* ---- the bulk rows' partitions ---- */

/* Makes day's month's partitions on a connection of its own, committed at
 * once: the writer's transaction holds nothing the attach waits for, and
 * the partition is there for every writer after it. */
static int make_partition(struct pg_store *s, int day)
{
	int rc;
	PGconn *c = connect_db(s, &rc);

	if (!rc)
		rc = exec_i64(s, c, "SELECT iotape_partition($1)", day, NULL,
			      "making the month's partitions");
	PQfinish(c);
	return rc;
}

int pg_run_day(struct pg_store *s, int64_t run)
{
	char buf[24];
	const char *p[1] = { buf };
	PGresult *r;
	int rc, have;

	if ((rc = pg_copy_end(s)))
		return rc;
	snprintf(buf, sizeof(buf), "%" PRId64, run);
	r = PQexecParams(s->conn, "SELECT iotape_day(created_ns), "
			 "iotape_has_partition(iotape_day(created_ns)) FROM runs "
			 "WHERE id = $1", 1, NULL, p, NULL, NULL, 0);
	if ((rc = pg_verdict(s, r, "storing rows"))) {
		PQclear(r);
		return rc;
	}
	if (!PQntuples(r)) {
		PQclear(r);
		return store_fail(&s->base, STORE_E_NOTFOUND, "storing rows: no "
				  "run with id %" PRId64, run);
	}
	s->day = atoi(PQgetvalue(r, 0, 0));
	have = !strcmp(PQgetvalue(r, 0, 1), "t");
	PQclear(r);
	if (!have && (rc = make_partition(s, s->day)))
		return rc;
	s->day_run = run;
	return 0;
}

int pg_staging(struct pg_store *s)
{
	PGresult *r;
	int rc;

	if (s->staged >= 0)
		return 0;
	if ((rc = pg_exec(s, "SELECT has_table_privilege('events', 'INSERT')",
			  &r, "storing rows")))
		return rc;
	s->staged = strcmp(PQgetvalue(r, 0, 0), "t") != 0;
	PQclear(r);
	return 0;
}

/* ---- the database ---- */

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

/* The store's tables, for VACUUM. */
#define PG_TABLES "runs, settings, devices, processes, commands, run_stats, " \
	"metrics, run_summary, events, requests, samples, replays"

/* Whether the role owns the store's tables (or the database, or is a
 * superuser): the roles VACUUM does anything for. */
static int pg_owner(struct pg_store *s, int *yes)
{
	PGresult *r;
	int rc;

	if ((rc = pg_exec(s, "SELECT coalesce((SELECT pg_has_role(relowner, "
			  "'USAGE') FROM pg_class WHERE oid = to_regclass('runs')),"
			  " true) OR (SELECT pg_has_role(datdba, 'USAGE') FROM "
			  "pg_database WHERE datname = current_database())", &r,
			  "reading the store's owner")))
		return rc;
	*yes = !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	return 0;
}

/* VACUUM of the store's tables: on PostgreSQL it makes deleted rows' space
 * reusable but gives little back to the file system (VACUUM FULL would,
 * locking every table). A role that owns none of them is told so: VACUUM
 * would skip each with a warning and do nothing. */
static int pg_vacuum(struct store *st)
{
	struct pg_store *s = pg(st);
	int yes, rc;

	/* VACUUM runs in no transaction */
	if ((rc = end_implicit(s)) || (rc = pg_owner(s, &yes)))
		return rc;
	if (!yes)
		return store_fail(st, STORE_E_DENIED, "vacuum: role '%s' owns none "
				  "of the store's tables: nothing was vacuumed (the "
				  "store's owner vacuums it)", PQuser(s->conn));
	return pg_exec(s, "VACUUM (ANALYZE) " PG_TABLES, NULL, "vacuuming");
}

/* Whether the role may act as the tables' owner (iotape_admin() of
 * schema 8, asked so it works on an older store too). */
static int pg_admin(struct store *st)
{
	PGresult *r;
	int yes;

	if (pg_exec(pg(st), "SELECT coalesce(pg_has_role(session_user, (SELECT "
		    "relowner FROM pg_class WHERE oid = to_regclass('runs')), "
		    "'MEMBER'), true)", &r, "reading the store's owner"))
		return 0;
	yes = !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	return yes;
}

static int pg_after_migrate(struct store *st)
{
	return pg_exec(pg(st), "SELECT iotape_grant()", NULL, "granting");
}

/* expire_begin: the rows of the months that will be dropped whole are not
 * deleted run by run (iotape_runs_gone() reads iotape.keep_from_day) */
static int pg_expire_begin(struct store *st, int before_day)
{
	return exec_i64(pg(st), pg(st)->conn, "SELECT set_config('iotape."
			"keep_from_day', ((date_trunc('month', DATE '1970-01-01' + "
			"$1::integer))::date - DATE '1970-01-01')::text, true)",
			before_day, NULL, "expiring runs");
}

/* The partitions wholly before before_day's month: detached (CONCURRENTLY:
 * the parent is held in SHARE UPDATE EXCLUSIVE only, readers and writers go
 * on) and dropped, one at a time under the partitions' advisory lock; then
 * any run of those months that came in meanwhile goes too. */
static int pg_expire(struct store *st, int before_day, int64_t *dropped)
{
	struct pg_store *s = pg(st);
	char sql[512];
	PGresult *r;
	int rc, n;

	*dropped = 0;
	/* DETACH ... CONCURRENTLY runs in no transaction */
	if ((rc = end_implicit(s)))
		return rc;
	snprintf(sql, sizeof(sql), "SELECT p.relname, i.inhparent::regclass FROM "
		 "pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid WHERE "
		 "i.inhparent IN ('events'::regclass, 'requests'::regclass, "
		 "'samples'::regclass, 'replays'::regclass) AND substring("
		 "pg_get_expr(p.relpartbound, p.oid) FROM 'TO \\(''?(-?[0-9]+)')"
		 "::integer <= (date_trunc('month', DATE '1970-01-01' + %d))::date"
		 " - DATE '1970-01-01' ORDER BY 1", before_day);
	if ((rc = pg_exec(s, sql, &r, "expiring runs")))
		return rc;
	n = PQntuples(r);
	if (n && (rc = pg_exec(s, "SELECT pg_advisory_lock(" PG_PARTITION_LOCK ")",
			       NULL, "expiring runs"))) {
		PQclear(r);
		return rc;
	}
	for (int i = 0; i < n && !rc; i++) {
		/* names the catalog gave, quoted as identifiers */
		char *part = PQescapeIdentifier(s->conn, PQgetvalue(r, i, 0),
						strlen(PQgetvalue(r, i, 0)));
		char *parent = PQescapeIdentifier(s->conn, PQgetvalue(r, i, 1),
						  strlen(PQgetvalue(r, i, 1)));
		char ddl[512];
		if (!part || !parent) {
			rc = store_fail(st, ENOMEM, "out of memory");
		} else {
			snprintf(ddl, sizeof(ddl), "ALTER TABLE %s DETACH PARTITION %s "
				 "CONCURRENTLY", parent, part);
			if (!(rc = pg_exec(s, ddl, NULL, "dropping a month"))) {
				snprintf(ddl, sizeof(ddl), "DROP TABLE %s", part);
				if (!(rc = pg_exec(s, ddl, NULL, "dropping a month")))
					(*dropped)++;
			}
		}
		PQfreemem(part);
		PQfreemem(parent);
	}
	PQclear(r);
	if (n)
		pg_exec(s, "SELECT pg_advisory_unlock(" PG_PARTITION_LOCK ")", NULL,
			"expiring runs");
	if (rc || !n)
		return rc;
	/* a run of a dropped month that landed meanwhile */
	snprintf(sql, sizeof(sql), "BEGIN; SELECT set_config('iotape.keep_from_day',"
		 " ((date_trunc('month', DATE '1970-01-01' + %d))::date - DATE "
		 "'1970-01-01')::text, true); UPDATE runs SET parent = NULL WHERE "
		 "parent IN (SELECT id FROM runs WHERE iotape_day(created_ns) < "
		 "%d); DELETE FROM runs WHERE iotape_day(created_ns) < (date_trunc("
		 "'month', DATE '1970-01-01' + %d))::date - DATE '1970-01-01'; "
		 "COMMIT", before_day, before_day, before_day);
	return pg_exec(s, sql, NULL, "expiring runs");
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
	.migrate_on_open = 0,
	.after_migrate = pg_after_migrate,
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
	.open_reader = pg_open_reader,
	.reconnect = pg_reconnect,
	.admin = pg_admin,
	.expire_begin = pg_expire_begin,
	.expire = pg_expire,
};
