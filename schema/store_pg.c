/* The store's PostgreSQL back end (libpq): connect and migrate,
 * transactions, runs, settings, devices, processes, commands and statistics,
 * and its ops table. Every value is a bound parameter; bulk rows go through
 * binary COPY (store_pg_copy.c); reads are in store_pg_read.c. */
#include "schema/store_pg.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Generated from schema/pg/NNN_*.sql by the Makefile (schema_pg_sql.c). */
extern const char *const store_pg_migrations[];
extern const int store_pg_n_migrations;

/* The key of the advisory lock that serialises migrations ("iotape"). */
#define PG_MIGRATE_LOCK "6913541713"

/* Runs sql with up to 2 int64 parameters, expecting no rows; the number of
 * rows it changed into *changed unless NULL. */
static int run_sql(struct pg_store *s, const char *sql, int nparams, int64_t a,
		   int64_t b, int64_t *changed, const char *what)
{
	char pa[24], pb[24];
	const char *p[2] = { pg_i64(pa, a), pg_i64(pb, b) };
	PGresult *r;
	int rc;

	if ((rc = pg_exec(s, sql, nparams, p, &r, what)))
		return rc;
	if (changed)
		*changed = strtoll(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return 0;
}

/* The one-row, one-column int64 answer of sql (params as pg_exec()); 0 when
 * NULL or no row. */
static int query_i64(struct pg_store *s, const char *sql, int nparams,
		     const char *const *params, int64_t *out, const char *what)
{
	PGresult *r;
	int rc;

	if ((rc = pg_exec(s, sql, nparams, params, &r, what)))
		return rc;
	*out = PQntuples(r) ? pg_get_i64(r, 0, 0, 0) : 0;
	PQclear(r);
	return 0;
}

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

/* Attaches run's tables (its rows sent first) and takes it off the list. */
static int attach_run(struct pg_store *s, int64_t run)
{
	char id[24];
	const char *p[1] = { pg_i64(id, run) };
	int rc;

	if ((rc = pg_copy_end(s)))
		return rc;
	runs_take(&s->loading, run);
	return pg_exec(s, "SELECT iotape_run_attach($1)", 1, p, NULL,
		       "attaching the run's tables");
}

int pg_attach_loading(struct pg_store *s, int64_t run)
{
	int rc;

	if (run)
		return pg_loading(s, run) ? attach_run(s, run) : 0;
	while (s->loading.n)
		if ((rc = attach_run(s, s->loading.id[s->loading.n - 1])))
			return rc;
	return 0;
}

/* Drops the tables of the runs deleted in this transaction (as late as it
 * can: DROP of a partition locks its parent until the commit). */
static int drop_deleted(struct pg_store *s)
{
	char sql[256];
	int rc;

	while (s->dropping.n) {
		long long r = (long long)s->dropping.id[--s->dropping.n];
		/* r is an id this process read from the server, not text */
		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS events_%lld, "
			 "requests_%lld, samples_%lld, replays_%lld", r, r, r, r);
		if ((rc = pg_exec(s, sql, 0, NULL, NULL, "deleting run")))
			return rc;
	}
	return 0;
}

/* Runs the insert or update sql in a savepoint when a transaction is open,
 * so a refused row (a name taken) leaves the transaction usable, as SQLite
 * does. Returns as pg_exec(). */
static int exec_guarded(struct pg_store *s, const char *sql, int nparams,
			const char *const *params, PGresult **res,
			const char *what)
{
	int in_tx, rc;

	if ((rc = pg_copy_end(s)))
		return rc;
	in_tx = PQtransactionStatus(s->conn) == PQTRANS_INTRANS;
	if (in_tx && (rc = pg_exec(s, "SAVEPOINT iotape_row", 0, NULL, NULL, what)))
		return rc;
	rc = pg_exec(s, sql, nparams, params, res, what);
	if (in_tx) {
		if (rc)
			pg_exec(s, "ROLLBACK TO SAVEPOINT iotape_row", 0, NULL,
				NULL, what);
		else if ((rc = pg_exec(s, "RELEASE SAVEPOINT iotape_row", 0,
				       NULL, NULL, what)) && res) {
			PQclear(*res);
			*res = NULL;
		}
	}
	return rc;
}

/* ---- open and migrate ---- */

/* The store's version; -1 when the database has no iotape schema. */
static int read_version(struct pg_store *s, int *v)
{
	int64_t n;
	int rc;

	if ((rc = query_i64(s, "SELECT (to_regclass('iotape_schema') IS NOT NULL)::int",
			    0, NULL, &n, "reading schema version")))
		return rc;
	if (!n) {
		*v = -1;
		return 0;
	}
	if ((rc = query_i64(s, "SELECT max(version) FROM iotape_schema", 0, NULL,
			    &n, "reading schema version")))
		return rc;
	*v = (int)n;
	return 0;
}

static int migrate(struct pg_store *s, enum store_open_mode m)
{
	int v, rc;
	int64_t other;
	char ver[24];
	const char *p[1] = { ver };

	if ((rc = read_version(s, &v)))
		return rc;
	if (v > store_pg_n_migrations)
		return store_fail(&s->base, STORE_E_NEWER, "database schema version "
				  "%d is newer than this iotape's (%d)", v,
				  store_pg_n_migrations);
	if (v == store_pg_n_migrations)
		return 0;
	if (v < 0 && m == STORE_OPEN_EXISTING)
		return store_fail(&s->base, STORE_E_MISSING, "no iotape store in "
				  "this database (import or push into it first)");
	if (v < 0) {
		/* never add iotape's tables beside another program's */
		if ((rc = query_i64(s, "SELECT count(*) FROM pg_tables WHERE "
				    "schemaname = current_schema() AND tablename IN"
				    " ('runs', 'events', 'requests', 'samples')", 0,
				    NULL, &other, "reading schema")))
			return rc;
		if (other)
			return store_fail(&s->base, STORE_E_NOTDB, "not an iotape "
					  "database (it has tables named as iotape's"
					  " but no iotape_schema); give another --db");
	}
	if ((rc = pg_exec(s, "BEGIN", 0, NULL, NULL, "migrating")) ||
	    (rc = pg_exec(s, "SELECT pg_advisory_xact_lock(" PG_MIGRATE_LOCK ")",
			  0, NULL, NULL, "migrating")))
		goto out;
	/* re-read under the lock: another writer may have migrated */
	if ((rc = read_version(s, &v)))
		goto out;
	for (v = v < 0 ? 0 : v; v < store_pg_n_migrations; v++) {
		snprintf(ver, sizeof(ver), "%d", v + 1);
		/* a number with no migration in this build (embed.sh) */
		if ((store_pg_migrations[v] &&
		     (rc = pg_exec(s, store_pg_migrations[v], 0, NULL, NULL,
				   "migrating"))) ||
		    (rc = pg_exec(s, "UPDATE iotape_schema SET version = $1", 1, p,
				  NULL, "migrating")))
			goto out;
	}
	return pg_exec(s, "COMMIT", 0, NULL, NULL, "migrating");
out:
	PQclear(PQexec(s->conn, "ROLLBACK"));
	return rc;
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

static int pg_open(struct store **out, const char *path, enum store_open_mode m)
{
	struct pg_store *s = calloc(1, sizeof(*s));
	int rc;

	*out = (struct store *)s;
	if (!s)
		return -ENOMEM;
	s->copying = -1;
	{
		char e[300];
		if (pq_load(e, sizeof(e)))
			return store_fail(&s->base, ELIBACC, "%s", e);
	}
	if ((rc = check_conninfo(s, path)))
		return rc;      /* the message does not repeat what was given */
	/* a password in path (libpq takes it) is never shown: messages name
	 * the store by pg_shown() */
	s->conn = PQconnectdb(path);
	if (!s->conn)
		return store_fail(&s->base, ENOMEM, "out of memory");
	if (PQstatus(s->conn) != CONNECTION_OK) {
		rc = pg_fail(s, "cannot connect", NULL);
		goto out;
	}
	PQsetNoticeProcessor(s->conn, no_notices, NULL);
	if ((rc = pg_exec(s, "SET client_min_messages = warning; "
			  "SET extra_float_digits = 3", 0, NULL, NULL, "connecting")))
		goto out;
	rc = migrate(s, m);
out:
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

static int pg_schema_version(struct store *st, int *version)
{
	return read_version(pg(st), version);
}

static int pg_begin(struct store *st)
{
	struct pg_store *s = pg(st);

	/* the transaction open cursors began becomes the caller's: closing
	 * them must not commit it */
	if (s->implicit) {
		s->implicit = 0;
		return 0;
	}
	return pg_exec(s, "BEGIN", 0, NULL, NULL, "beginning transaction");
}

static int pg_commit(struct store *st)
{
	struct pg_store *s = pg(st);
	PGresult *r;
	int rc;

	if ((rc = pg_attach_loading(s, 0)) || (rc = drop_deleted(s)) ||
	    (rc = pg_exec(s, "COMMIT", 0, NULL, &r, "committing")))
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
	s->ev_run = 0;
	s->loading.n = 0;
	s->dropping.n = 0;
	return pg_exec(s, "ROLLBACK", 0, NULL, NULL, "rolling back");
}

/* ---- runs ---- */

static int pg_run_create(struct store *st, const struct run_info *ri, int64_t *id)
{
	struct pg_store *s = pg(st);
	struct timespec ts;
	char parent[24], created[24], be[24];
	const char *p[10];
	PGresult *r;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	p[0] = ri->name;
	p[1] = ri->kind;
	p[2] = ri->parent ? pg_i64(parent, ri->parent) : NULL;
	p[3] = pg_i64(created, ri->created_ns ? ri->created_ns
		      : (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	p[4] = ri->host;
	p[5] = ri->kernel;
	p[6] = ri->source;
	p[7] = ri->format;
	p[8] = pg_i64(be, ri->big_endian);
	p[9] = ri->notes;
	rc = exec_guarded(s, "INSERT INTO runs (name, kind, parent, created_ns, "
			  "host, kernel, source, format, big_endian, notes) VALUES"
			  " ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING id", 10, p,
			  &r, "creating run");
	if (rc == -STORE_E_EXISTS)
		return store_fail(st, STORE_E_EXISTS, "a run named '%s' exists",
				  ri->name);
	if (rc)
		return rc;
	*id = pg_get_i64(r, 0, 0, 0);
	PQclear(r);
	/* its tables, to be attached when its rows are in (at once outside a
	 * transaction: nothing would be whole to wait for) */
	p[0] = pg_i64(parent, *id);
	if ((rc = pg_exec(s, "SELECT iotape_run_tables($1)", 1, p, NULL,
			  "creating run")) ||
	    (rc = runs_add(s, &s->loading, *id)))
		return rc;
	if (PQtransactionStatus(s->conn) != PQTRANS_INTRANS)
		return attach_run(s, *id);
	return 0;
}

static int pg_run_find(struct store *st, const char *name, int64_t *id)
{
	const char *p[1] = { name };
	PGresult *r;
	int rc;

	if ((rc = pg_exec(pg(st), "SELECT id FROM runs WHERE name = $1 UNION ALL "
			  "SELECT id FROM runs WHERE id::text = $1 LIMIT 1", 1, p,
			  &r, "finding run")))
		return rc;
	rc = PQntuples(r) ? 0 : -STORE_E_NOTFOUND;
	if (!rc)
		*id = pg_get_i64(r, 0, 0, 0);
	PQclear(r);
	if (rc)
		return store_fail(st, STORE_E_NOTFOUND, "no run named '%s'", name);
	return 0;
}

static int pg_run_finish(struct store *st, int64_t run, const char *status,
			 int64_t genesis_ns)
{
	struct pg_store *s = pg(st);
	char a[24], b[24], c[24], d[24];
	const char *p[5];
	int rc, have;

	if ((rc = pg_copy_end(s)))
		return rc;
	if (pg_loading(s, run) && (rc = attach_run(s, run)))
		return rc;
	have = s->ev_run == run;
	p[0] = pg_i64(a, run);
	p[1] = status;
	p[2] = pg_i64(b, genesis_ns);
	p[3] = have ? pg_i64(c, s->ev_first) : NULL;
	p[4] = have ? pg_i64(d, s->ev_last) : NULL;
	return pg_exec(s, "UPDATE runs SET status = $2, genesis_ns = $3, "
		       "first_event = $4, last_event = $5 WHERE id = $1", 5, p, NULL,
		       "finishing run");
}

static int pg_run_set(struct store *st, int64_t run, const char *column,
		      const char *value)
{
	static const char *const cols[] = { "kind", "host", "kernel", "source",
					    "format", "status", "notes",
					    "input_sha256" };
	char sql[96], id[24];
	const char *p[2] = { pg_i64(id, run), value };
	int ok = 0;

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		ok |= !strcmp(cols[i], column);
	if (!ok)
		return store_fail(st, STORE_E_SQLITE, "no run column '%s'", column);
	/* column is one of the names above, never the caller's text */
	snprintf(sql, sizeof(sql), "UPDATE runs SET %s = $2 WHERE id = $1", column);
	return pg_exec(pg(st), sql, 2, p, NULL, "updating run");
}

static int pg_run_set_format(struct store *st, int64_t run, const char *format,
			     int big_endian)
{
	int rc = pg_run_set(st, run, "format", format);

	return rc ? rc : run_sql(pg(st), "UPDATE runs SET big_endian = $2 WHERE "
				 "id = $1", 2, run, big_endian != 0, NULL,
				 "updating run");
}

static int pg_run_set_parent(struct store *st, int64_t run, int64_t parent)
{
	if (!parent)
		return run_sql(pg(st), "UPDATE runs SET parent = NULL WHERE id = $1",
			       1, run, 0, NULL, "updating run");
	return run_sql(pg(st), "UPDATE runs SET parent = $2 WHERE id = $1", 2, run,
		       parent, NULL, "updating run");
}

static int pg_run_delete(struct store *st, int64_t run, int64_t *kept_replays)
{
	struct pg_store *s = pg(st);
	int64_t n;
	int rc;

	if ((rc = run_sql(s, "UPDATE runs SET parent = NULL WHERE parent = $1", 1,
			  run, 0, &n, "deleting run")))
		return rc;
	if (kept_replays)
		*kept_replays = n;
	/* the run first (a writer may not: refused before any table goes);
	 * its tables at the commit */
	if ((rc = run_sql(s, "DELETE FROM runs WHERE id = $1", 1, run, 0, &n,
			  "deleting run")))
		return rc;
	if (!n)
		return store_fail(st, STORE_E_NOTFOUND, "no run with id %lld",
				  (long long)run);
	if (s->ev_run == run)
		s->ev_run = 0;
	runs_take(&s->loading, run);
	return runs_add(s, &s->dropping, run);
}

static int pg_run_rename(struct store *st, int64_t run, const char *name)
{
	char id[24];
	const char *p[2] = { pg_i64(id, run), name };
	PGresult *r;
	int64_t n;
	int rc;

	rc = exec_guarded(pg(st), "UPDATE runs SET name = $2 WHERE id = $1", 2, p,
			  &r, "renaming run");
	if (rc == -STORE_E_EXISTS)
		return store_fail(st, STORE_E_EXISTS, "a run named '%s' exists",
				  name);
	if (rc)
		return rc;
	n = strtoll(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	if (!n)
		return store_fail(st, STORE_E_NOTFOUND, "no run with id %lld",
				  (long long)run);
	return 0;
}

static int pg_run_find_input(struct store *st, const char *sha256, int64_t *id,
			     char *name, size_t namelen)
{
	const char *p[1] = { sha256 };
	PGresult *r;
	int rc;

	if ((rc = pg_exec(pg(st), "SELECT id, name FROM runs WHERE input_sha256 ="
			  " $1 ORDER BY id LIMIT 1", 1, p, &r, "finding input")))
		return rc;
	rc = PQntuples(r) > 0;
	if (rc) {
		*id = pg_get_i64(r, 0, 0, 0);
		pg_get_copy(r, 0, 1, name, namelen);
	}
	PQclear(r);
	return rc;
}

/* The database's size (pg_database_size: every relation, index and TOAST
 * file of it, the server's own catalogs included). */
static int pg_size(struct store *st, int64_t *bytes)
{
	return query_i64(pg(st), "SELECT pg_database_size(current_database())", 0,
			 NULL, bytes, "reading size");
}

/* VACUUM: on PostgreSQL it makes deleted rows' space reusable but gives
 * little back to the file system (VACUUM FULL would, locking every table). */
static int pg_vacuum(struct store *st, int64_t *before, int64_t *after)
{
	int64_t b;
	int rc;

	if ((rc = pg_size(st, &b)))
		return rc;
	if (before)
		*before = b;
	if ((rc = pg_exec(pg(st), "VACUUM", 0, NULL, NULL, "vacuuming")))
		return rc;
	return after ? pg_size(st, after) : 0;
}

/* ---- settings, devices, processes, commands, statistics ---- */

static int pg_setting_add(struct store *st, int64_t run, const char *key,
			  const char *value, const char *at)
{
	char id[24];
	const char *p[4] = { pg_i64(id, run), key, value, at };

	return pg_exec(pg(st), "INSERT INTO settings (run, key, value, at) VALUES"
		       " ($1,$2,$3,$4) ON CONFLICT (run, key, at) DO UPDATE SET "
		       "value = EXCLUDED.value", 4, p, NULL, "storing setting");
}

static int pg_device_add(struct store *st, int64_t run, uint32_t dev,
			 const char *name, int64_t size_bytes, const char *role)
{
	char id[24], d[24], sz[24];
	const char *p[5] = { pg_i64(id, run), pg_i64(d, dev), name,
			     size_bytes > 0 ? pg_i64(sz, size_bytes) : NULL,
			     role ? role : "data" };

	return pg_exec(pg(st), "INSERT INTO devices (run, dev, name, size_bytes, "
		       "role) VALUES ($1,$2,$3,$4,$5) ON CONFLICT (run, dev) DO "
		       "UPDATE SET name = EXCLUDED.name, size_bytes = "
		       "EXCLUDED.size_bytes, role = EXCLUDED.role", 5, p, NULL,
		       "storing device");
}

static int pg_process_set(struct store *st, int64_t run, uint32_t pid,
			  const char *comm)
{
	char id[24], ps[24];
	const char *p[3] = { pg_i64(id, run), pg_i64(ps, pid), comm };

	return pg_exec(pg(st), "INSERT INTO processes (run, pid, comm) VALUES "
		       "($1,$2,$3) ON CONFLICT DO NOTHING", 3, p, NULL,
		       "storing process");
}

static int pg_processes_copy(struct store *st, int64_t run, int64_t from)
{
	return run_sql(pg(st), "INSERT INTO processes (run, pid, comm) SELECT $1,"
		       " pid, comm FROM processes WHERE run = $2 ON CONFLICT DO "
		       "NOTHING", 2, run, from, NULL, "storing processes");
}

static int pg_command_add(struct store *st, int64_t run,
			  const struct store_command *c)
{
	int times = c->start_ns != STORE_NO_TIME && c->end_ns != STORE_NO_TIME;
	char id[24], idx[24], a[24], b[24], t[3][32], status[24];
	const char *p[9];

	p[0] = pg_i64(id, run);
	p[1] = pg_i64(idx, c->idx);
	p[2] = c->argv;
	p[3] = c->start_ns != STORE_NO_TIME ? pg_i64(a, c->start_ns) : NULL;
	p[4] = c->end_ns != STORE_NO_TIME ? pg_i64(b, c->end_ns) : NULL;
	for (int i = 0; i < 3; i++) {
		double v = i == 0 ? c->real_s : i == 1 ? c->user_s : c->sys_s;
		/* %.17g: the double back bit for bit */
		snprintf(t[i], sizeof(t[i]), "%.17g", v);
		p[5 + i] = times && isfinite(v) ? t[i] : NULL;
	}
	p[8] = pg_i64(status, c->status);
	return pg_exec(pg(st), "INSERT INTO commands (run, idx, argv, start_ns, "
		       "end_ns, real_s, user_s, sys_s, status) VALUES ($1,$2,$3,"
		       "$4,$5,$6,$7,$8,$9)", 9, p, NULL, "storing command");
}

static int pg_stat_set(struct store *st, int64_t run, const char *key,
		       const char *value)
{
	char id[24];
	const char *p[3] = { pg_i64(id, run), key, value };

	return pg_exec(pg(st), "INSERT INTO run_stats (run, key, value) VALUES "
		       "($1,$2,$3) ON CONFLICT (run, key) DO UPDATE SET value = "
		       "EXCLUDED.value", 3, p, NULL, "storing run statistics");
}

static int pg_metric_set(struct store *st, int64_t run, const char *name,
			 double value, const char *unit, const char *source)
{
	char id[24], v[32];
	const char *p[5] = { pg_i64(id, run), name, v, unit, source };

	snprintf(v, sizeof(v), "%.17g", value);  /* the double back bit for bit */
	return pg_exec(pg(st), "INSERT INTO metrics (run, name, value, unit, "
		       "source) VALUES ($1,$2,$3,$4,$5) ON CONFLICT (run, name) DO "
		       "UPDATE SET value = EXCLUDED.value, unit = EXCLUDED.unit, "
		       "source = EXCLUDED.source", 5, p, NULL, "storing metric");
}

/* The first free request id: one more than the largest of any run (each
 * run's largest through its primary key, so no table scan). Writers at the
 * same time may get the same one: ids are unique per run, which is all the
 * key (run, id) asks. */
static int pg_next_request_id(struct store *st, int64_t *id)
{
	int rc;

	if ((rc = pg_attach_loading(pg(st), 0)))
		return rc;
	return query_i64(pg(st), "SELECT coalesce(max((SELECT max(q.id) FROM "
			 "requests q WHERE q.run = runs.id)), 0) + 1 FROM runs", 0,
			 NULL, id, "reading requests");
}

const struct store_backend store_pg_backend = {
	.name = "postgresql",
	.shown = pg_shown,
	.open = pg_open,
	.close = pg_close,
	.schema_version = pg_schema_version,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.run_create = pg_run_create,
	.run_find = pg_run_find,
	.run_finish = pg_run_finish,
	.run_set = pg_run_set,
	.run_set_format = pg_run_set_format,
	.run_set_parent = pg_run_set_parent,
	.run_get = pg_run_get,
	.runs_list = pg_runs_list,
	.run_has = pg_run_has,
	.run_delete = pg_run_delete,
	.run_rename = pg_run_rename,
	.run_find_input = pg_run_find_input,
	.size = pg_size,
	.vacuum = pg_vacuum,
	.setting_add = pg_setting_add,
	.settings_get = pg_settings_get,
	.device_add = pg_device_add,
	.devices_get = pg_devices_get,
	.process_set = pg_process_set,
	.processes_copy = pg_processes_copy,
	.processes_get = pg_processes_get,
	.command_add = pg_command_add,
	.commands_get = pg_commands_get,
	.stat_set = pg_stat_set,
	.stats_get = pg_stats_get,
	.metric_set = pg_metric_set,
	.metrics_get = pg_metrics_get,
	.event_add = pg_event_add,
	.request_add = pg_request_add,
	.next_request_id = pg_next_request_id,
	.sample_add = pg_sample_add,
	.replays_add = pg_replays_add,
	.cursor_open = pg_cursor_open,
	.cursor_next = pg_cursor_next,
	.cursor_close = pg_cursor_close,
	.summary_set = pg_summary_set,
	.summary_get = pg_summary_get,
	.summary_missing = pg_summary_missing,
	.fleet_worst = pg_fleet_worst,
};
