/* The store's SQLite back end: open (with the checks of an existing store)
 * and migrate, transactions, runs, settings, devices, processes, commands
 * and statistics, and its ops table. One prepare-bind-step path, one error
 * path; batched writes are in store_sqlite_batch.c, reads in
 * store_sqlite_read.c. */
#include "schema/store_sqlite.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Generated from schema/NNN_*.sql by the Makefile (schema_sql.c). */
extern const char *const store_migrations[];
extern const int store_n_migrations;

static const char *const stmt_sql[SQ_N] = {
	[SQ_EVENT] = "INSERT INTO events (run, time_ns, sequence, sector, bytes, "
		     "action, pid, dev, cpu, error, pdu) "
		     "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
	[SQ_REQUEST] = "INSERT INTO requests (run, dev, sector, bytes, rwbs, cats,"
		       " pid, q_ns, g_ns, m_ns, i_ns, d_ns, c_ns, d_sector, "
		       "d_bytes, requeues, error, merged_into, d_head, "
		       "seek_sectors, split_from, orig_dev, orig_sector, split, id) "
		       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[SQ_PROCESS] = "INSERT OR IGNORE INTO processes (run, pid, comm) "
		       "VALUES (?,?,?)",
	[SQ_DEVICE] = "INSERT OR REPLACE INTO devices (run, dev, name, size_bytes,"
		      " role) VALUES (?,?,?,?,?)",
	[SQ_STAT] = "INSERT OR REPLACE INTO run_stats (run, key, value) "
		    "VALUES (?,?,?)",
	[SQ_SAMPLE] = "INSERT INTO samples (run, time_ns, source, key, value) "
		      "VALUES (?,?,?,?,?)",
};

/* Why SQLite could not write or make the database file (SQLite says only
 * "attempt to write a readonly database" or "unable to open database
 * file"): " (folder 'DIR' is not writable: Read-only file system)" or
 * " ('FILE' is not writable: Permission denied)" into buf, or "" when both
 * are writable. */
static const char *why_not_writable(const struct sqlite_store *s, char *buf,
				    size_t len)
{
	char dir[PATH_MAX];
	const char *path = s->base.name;

	snprintf(dir, sizeof(dir), "%s", path);
	buf[0] = '\0';
	if (!*path)
		return buf;
	if (access(dirname(dir), W_OK | X_OK)) {
		int e = errno;
		snprintf(dir, sizeof(dir), "%s", path);
		snprintf(buf, len, " (folder '%s' is not writable: %s)",
			 dirname(dir), strerror(e));
	} else if (access(path, W_OK) && errno != ENOENT) {
		snprintf(buf, len, " ('%s' is not writable: %s)", path,
			 strerror(errno));
	}
	return buf;
}

/* " (why)" after a failure of s's file that why_not_writable() explains. */
static const char *fs_why(const struct sqlite_store *s, char *buf, size_t len)
{
	int code = s->db ? sqlite3_errcode(s->db) : SQLITE_OK;

	buf[0] = '\0';
	return code == SQLITE_READONLY || code == SQLITE_CANTOPEN
	       ? why_not_writable(s, buf, len) : buf;
}

int sq_fail(struct sqlite_store *s, int code, const char *what)
{
	char why[PATH_MAX + 64];

	snprintf(s->base.msg, sizeof(s->base.msg), "%s: %s%s", what,
		 s->db ? sqlite3_errmsg(s->db) : "no database",
		 fs_why(s, why, sizeof(why)));
	return -code;
}

static int exec(struct sqlite_store *s, const char *sql)
{
	char *e = NULL, why[PATH_MAX + 64];

	if (sqlite3_exec(s->db, sql, NULL, NULL, &e) != SQLITE_OK) {
		snprintf(s->base.msg, sizeof(s->base.msg), "%s%s",
			 e ? e : "sqlite error", fs_why(s, why, sizeof(why)));
		sqlite3_free(e);
		return -STORE_E_SQLITE;
	}
	return 0;
}

int sq_prepare(struct sqlite_store *s, const char *sql, sqlite3_stmt **stmt,
	       const char *what)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, stmt, NULL) != SQLITE_OK) {
		*stmt = NULL;
		return sq_fail(s, STORE_E_SQLITE, what);
	}
	return 0;
}

int sq_step_done(struct sqlite_store *s, sqlite3_stmt *stmt, const char *what)
{
	int rc = sqlite3_step(stmt);

	sqlite3_reset(stmt);
	if (rc != SQLITE_DONE)
		return sq_fail(s, STORE_E_SQLITE, what);
	return 0;
}

void sq_bind_opt_i64(sqlite3_stmt *stmt, int i, int64_t v, int present)
{
	if (present)
		sqlite3_bind_int64(stmt, i, v);
	else
		sqlite3_bind_null(stmt, i);
}

void sq_bind_text(sqlite3_stmt *stmt, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(stmt, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(stmt, i);
}

/* Runs a one-off statement with up to 2 int64 parameters (?1, ?2), expecting
 * no row back. */
static int run_sql(struct sqlite_store *s, const char *sql, int64_t a,
		   int64_t b, const char *what)
{
	sqlite3_stmt *stmt;
	int rc;

	if ((rc = sq_flush_events(s)) || (rc = sq_prepare(s, sql, &stmt, what)))
		return rc;
	sqlite3_bind_int64(stmt, 1, a);
	if (sqlite3_bind_parameter_count(stmt) > 1)
		sqlite3_bind_int64(stmt, 2, b);
	rc = sq_step_done(s, stmt, what);
	sqlite3_finalize(stmt);
	return rc;
}

/* The first column of the one-row query sql as an int64 (0 when NULL). */
static int query_i64(struct sqlite_store *s, const char *sql, int64_t *out,
		     const char *what)
{
	sqlite3_stmt *stmt;
	int rc;

	if ((rc = sq_flush_events(s)) || (rc = sq_prepare(s, sql, &stmt, what)))
		return rc;
	rc = sqlite3_step(stmt);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sq_fail(s, STORE_E_SQLITE, what);
	return 0;
}

/* ---- open and migrate ---- */

static int user_version(struct sqlite_store *s, int *v)
{
	sqlite3_stmt *stmt;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &stmt, NULL);

	if (rc != SQLITE_OK)
		return rc == SQLITE_NOTADB ? -STORE_E_NOTDB
			: sq_fail(s, STORE_E_SQLITE, "reading schema version");
	rc = sqlite3_step(stmt);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
	sqlite3_finalize(stmt);
	if (rc == SQLITE_NOTADB)
		return -STORE_E_NOTDB;
	if (rc != SQLITE_ROW)
		return sq_fail(s, STORE_E_SQLITE, "reading schema version");
	return 0;
}

static int migrate(struct sqlite_store *s)
{
	int v, rc;
	char sql[64];

	rc = user_version(s, &v);
	if (rc == -STORE_E_NOTDB)
		return store_fail(&s->base, STORE_E_NOTDB,
				  "not an iotape database (not SQLite)");
	if (rc)
		return rc;
	if (v == 0) {
		/* A fresh file, or another program's database: never add
		 * iotape's tables to someone else's data. */
		int64_t n = 0;
		if ((rc = query_i64(s, "SELECT count(*) FROM sqlite_master", &n,
				    "reading schema")))
			return rc;
		if (n)
			return store_fail(&s->base, STORE_E_NOTDB, "not an iotape "
					  "database (an SQLite file with %lld other"
					  " objects); give another --db", (long long)n);
	}
	if (v > store_n_migrations)
		return store_fail(&s->base, STORE_E_NEWER, "database schema version "
				  "%d is newer than this iotape's (%d)", v,
				  store_n_migrations);
	if (v == store_n_migrations)
		return 0;
	if ((rc = exec(s, "BEGIN IMMEDIATE")))
		return rc;
	/* Re-read under the write lock: another process may have migrated. */
	if ((rc = user_version(s, &v)))
		goto out;
	for (; v < store_n_migrations; v++) {
		/* a number with no migration in this build (schema/embed.sh) */
		if (store_migrations[v] && (rc = exec(s, store_migrations[v])))
			goto out;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
		if ((rc = exec(s, sql)))
			goto out;
	}
	return exec(s, "COMMIT");
out:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* The checks of a database's path before SQLite sees it (whose message for
 * all of these is "unable to open database file"): a folder, a missing or
 * non-folder parent (named), and, when it must exist (m is
 * STORE_OPEN_EXISTING), a missing file. Returns 0, or -STORE_E_MISSING
 * (-STORE_E_SQLITE when stat() fails otherwise) with the message set. */
static int check_path(struct sqlite_store *s, const char *path,
		      enum store_open_mode m)
{
	char dir[PATH_MAX], head[PATH_MAX + 32] = "";
	struct stat sb;

	/* store_open()'s callers put the path first themselves */
	if (m == STORE_OPEN_EXISTING)
		snprintf(head, sizeof(head), "cannot open database '%s': ", path);

	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return store_fail(&s->base, STORE_E_MISSING, "%sit is a "
					  "folder", head);
		return 0;
	}
	if (errno != ENOENT && errno != ENOTDIR)
		return store_fail(&s->base, STORE_E_SQLITE, "%s%s", head,
				  strerror(errno));
	snprintf(dir, sizeof(dir), "%s", path);
	/* dirname() of "x.db" is ".", which exists: then the file is missing */
	if (stat(dirname(dir), &sb) != 0) {
		snprintf(dir, sizeof(dir), "%s", path);
		return store_fail(&s->base, STORE_E_MISSING, "%sfolder '%s' does "
				  "not exist", head, dirname(dir));
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(dir, sizeof(dir), "%s", path);
		return store_fail(&s->base, STORE_E_MISSING, "%s'%s' is not a "
				  "folder", head, dirname(dir));
	}
	if (m == STORE_OPEN_EXISTING)
		return store_fail(&s->base, STORE_E_MISSING, "cannot open "
				  "database '%s': no such file", path);
	return 0;
}

#define STORE_STR_(x) #x
#define STORE_STR(x) STORE_STR_(x)

static int sq_open_db(struct sqlite_store *s, const char *path,
		      enum store_open_mode m)
{
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		    (m == STORE_OPEN_CREATE ? SQLITE_OPEN_CREATE : 0);
	int rc;

	/* No memory statistics (a global mutex per allocation) and no
	 * mutexes on a connection (NOMUTEX: each is used by one thread at a
	 * time), but SQLite's own global state guarded: readers on other
	 * threads open connections of their own (store_open_reader()). Only
	 * takes effect before SQLite's first use; harmless after. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK)
		return sq_fail(s, STORE_E_SQLITE, "cannot open database");
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 0);
	/* Imports are single transactions: a journal in memory is not enough to
	 * survive a crash, so keep the default rollback journal on disk; large
	 * page cache and temp store in memory speed up the big inserts. */
	rc = exec(s, "PRAGMA foreign_keys = ON; PRAGMA cache_size = -"
		     STORE_STR(STORE_WRITER_CACHE_KIB) ";"
		     " PRAGMA temp_store = MEMORY; PRAGMA synchronous = NORMAL");
	if (rc) {
		if (strstr(s->base.msg, "not a database") ||
		    strstr(s->base.msg, "encrypted"))
			return store_fail(&s->base, STORE_E_NOTDB,
					  "not an iotape database (not SQLite)");
		return rc;
	}
	return migrate(s);
}

static int sq_open(struct store **out, const char *path, enum store_open_mode m)
{
	struct sqlite_store *s = calloc(1, sizeof(*s));
	int rc;

	*out = (struct store *)s;
	if (!s)
		return -ENOMEM;
	/* for why_not_writable() before store.c sets it too */
	snprintf(s->base.name, sizeof(s->base.name), "%s", path);
	if ((rc = check_path(s, path, m)))
		return rc;
	rc = sq_open_db(s, path, m);
	if (rc && m == STORE_OPEN_EXISTING) {
		/* name the file: the message is printed as it is */
		char msg[sizeof(s->base.msg)];
		snprintf(msg, sizeof(msg), "%s", s->base.msg);
		store_fail(&s->base, -rc, "%s: %s", path, msg);
	}
	return rc;
}

/* store_open_reader(): the same file, read only, as it is (no checks or
 * migration: st opened it); a small page cache (the reader reads each row
 * once, in table order). */
static int sq_open_reader(struct store *st, struct store **out)
{
	struct sqlite_store *s = sq(st), *r;
	const char *file = sqlite3_db_filename(s->db, "main");

	*out = NULL;
	/* a library built without threads, or a database in memory */
	if (!sqlite3_threadsafe() || !file || !*file)
		return store_fail(st, ENOTSUP, "no second handle on this store");
	/* st's open transaction: another connection would not see its rows
	 * (and would wait on its locks) */
	if (!sqlite3_get_autocommit(s->db))
		return store_fail(st, EBUSY, "a transaction is open on this store");
	if (!(r = calloc(1, sizeof(*r))))
		return store_fail(st, ENOMEM, "out of memory");
	if (sqlite3_open_v2(file, &r->db, SQLITE_OPEN_READONLY |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		store_fail(st, STORE_E_SQLITE, "cannot open database again: %s",
			   r->db ? sqlite3_errmsg(r->db) : "out of memory");
		sqlite3_close(r->db);
		free(r);
		return -STORE_E_SQLITE;
	}
	sqlite3_busy_timeout(r->db, 10000);
	sqlite3_extended_result_codes(r->db, 0);
	if (exec(r, "PRAGMA cache_size = -512")) {
		store_fail(st, STORE_E_SQLITE, "%s", r->base.msg);
		sqlite3_close(r->db);
		free(r);
		return -STORE_E_SQLITE;
	}
	*out = &r->base;
	return 0;
}

static void sq_close(struct store *st)
{
	struct sqlite_store *s = sq(st);

	for (int i = 0; i < SQ_N; i++)
		sqlite3_finalize(s->stmt[i]);
	sqlite3_finalize(s->ev_multi);
	sqlite3_finalize(s->rq_multi);
	free(s->evpdu);
	sqlite3_close(s->db);
	free(s);
}

static int sq_schema_version(struct store *st, int *version)
{
	return user_version(sq(st), version) ? -STORE_E_SQLITE : 0;
}

static int sq_begin(struct store *st) { return exec(sq(st), "BEGIN IMMEDIATE"); }

/* Foreign keys back on once no transaction is open (the pragma is a no-op
 * inside one); the caller's message is kept. */
static void fk_restore(struct sqlite_store *s)
{
	if (s->fk_off && sqlite3_get_autocommit(s->db)) {
		sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
		s->fk_off = 0;
	}
}

/* As sq_begin() with foreign keys off: every row the bulk load adds names a
 * run it created, so the per-row lookup of runs(id) can only pass. */
static int sq_begin_bulk(struct store *st)
{
	struct sqlite_store *s = sq(st);
	int rc = exec(s, "PRAGMA foreign_keys = OFF");

	if (rc)
		return rc;
	s->fk_off = 1;
	if ((rc = exec(s, "BEGIN IMMEDIATE")))
		fk_restore(s);
	return rc;
}

static int sq_commit(struct store *st)
{
	int rc = sq_flush_events(sq(st));

	if (!rc)
		rc = exec(sq(st), "COMMIT");
	fk_restore(sq(st));
	return rc;
}

static int sq_rollback(struct store *st)
{
	int rc;

	sq(st)->nev = 0;
	sq(st)->nrq = 0;
	sq(st)->evpdu_len = 0;
	rc = exec(sq(st), "ROLLBACK");
	fk_restore(sq(st));
	return rc;
}

sqlite3_stmt *sq_stmt(struct sqlite_store *s, enum sq_stmt id)
{
	if (!s->stmt[id]) {
		if (sqlite3_prepare_v3(s->db, stmt_sql[id], -1,
				       SQLITE_PREPARE_PERSISTENT, &s->stmt[id],
				       NULL) != SQLITE_OK) {
			sq_fail(s, STORE_E_SQLITE, "preparing statement");
			return NULL;
		}
	}
	return s->stmt[id];
}

/* ---- runs ---- */

static int sq_run_create(struct store *st, const struct run_info *ri, int64_t *id)
{
	struct sqlite_store *s = sq(st);
	struct timespec ts;
	sqlite3_stmt *q;
	int rc;

	if ((rc = sq_flush_events(s)) ||
	    (rc = sq_prepare(s, "INSERT INTO runs (name, kind, parent, created_ns,"
			     " host, kernel, source, format, big_endian, notes)"
			     " VALUES (?,?,?,?,?,?,?,?,?,?)", &q, "creating run")))
		return rc;
	sqlite3_bind_text(q, 1, ri->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, ri->kind, -1, SQLITE_TRANSIENT);
	sq_bind_opt_i64(q, 3, ri->parent, ri->parent != 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	sqlite3_bind_int64(q, 4, ri->created_ns ? ri->created_ns
			   : (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	sq_bind_text(q, 5, ri->host);
	sq_bind_text(q, 6, ri->kernel);
	sq_bind_text(q, 7, ri->source);
	sq_bind_text(q, 8, ri->format);
	sqlite3_bind_int(q, 9, ri->big_endian);
	sq_bind_text(q, 10, ri->notes);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc == SQLITE_CONSTRAINT)
		return store_fail(st, STORE_E_EXISTS, "a run named '%s' exists",
				  ri->name);
	if (rc != SQLITE_DONE)
		return sq_fail(s, STORE_E_SQLITE, "creating run");
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

static int sq_run_find(struct store *st, const char *name, int64_t *id)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q;
	int rc;

	if ((rc = sq_flush_events(s)) ||
	    (rc = sq_prepare(s, "SELECT id FROM runs WHERE name = ?1 "
			     "UNION ALL SELECT id FROM runs WHERE CAST(id AS TEXT) = ?1 "
			     "LIMIT 1", &q, "finding run")))
		return rc;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return sq_fail(s, STORE_E_SQLITE, "finding run");
	return store_fail(st, STORE_E_NOTFOUND, "no run named '%s'", name);
}

static int sq_run_finish(struct store *st, int64_t run, const char *status,
			 int64_t genesis_ns)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q;
	int rc, have;

	if ((rc = sq_flush_events(s)))
		return rc;
	have = s->ev_run == run;
	if ((rc = sq_prepare(s, "UPDATE runs SET status = ?2, genesis_ns = ?3, "
			     "first_event = ?4, last_event = ?5 WHERE id = ?1", &q,
			     "finishing run")))
		return rc;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 3, genesis_ns);
	sq_bind_opt_i64(q, 4, s->ev_first, have);
	sq_bind_opt_i64(q, 5, s->ev_last, have);
	rc = sq_step_done(s, q, "finishing run");
	sqlite3_finalize(q);
	return rc;
}

static int sq_run_set(struct store *st, int64_t run, const char *column,
		      const char *value)
{
	static const char *const cols[] = { "kind", "host", "kernel", "source",
					    "format", "status", "notes",
					    "input_sha256" };
	struct sqlite_store *s = sq(st);
	char sql[96];
	sqlite3_stmt *q;
	int rc, ok = 0;

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		ok |= !strcmp(cols[i], column);
	if (!ok)
		return store_fail(st, STORE_E_SQLITE, "no run column '%s'", column);
	snprintf(sql, sizeof(sql), "UPDATE runs SET %s = ?2 WHERE id = ?1", column);
	if ((rc = sq_flush_events(s)) ||
	    (rc = sq_prepare(s, sql, &q, "updating run")))
		return rc;
	sqlite3_bind_int64(q, 1, run);
	sq_bind_text(q, 2, value);
	rc = sq_step_done(s, q, "updating run");
	sqlite3_finalize(q);
	return rc;
}

static int sq_run_set_format(struct store *st, int64_t run, const char *format,
			     int big_endian)
{
	int rc = sq_run_set(st, run, "format", format);

	return rc ? rc : run_sql(sq(st), "UPDATE runs SET big_endian = ?2 WHERE "
				 "id = ?1", run, big_endian != 0, "updating run");
}

static int sq_run_set_parent(struct store *st, int64_t run, int64_t parent)
{
	if (!parent)
		return run_sql(sq(st), "UPDATE runs SET parent = NULL WHERE id = ?1",
			       run, 0, "updating run");
	return run_sql(sq(st), "UPDATE runs SET parent = ?2 WHERE id = ?1", run,
		       parent, "updating run");
}

static int sq_run_delete(struct store *st, int64_t run, int64_t *kept_replays)
{
	struct sqlite_store *s = sq(st);
	int rc;

	/* its replays stay, with no parent (runs.parent has no ON DELETE) */
	if ((rc = run_sql(s, "UPDATE runs SET parent = NULL WHERE parent = ?1",
			  run, 0, "deleting run")))
		return rc;
	if (kept_replays)
		*kept_replays = sqlite3_changes(s->db);
	if ((rc = run_sql(s, "DELETE FROM runs WHERE id = ?1", run, 0,
			  "deleting run")))
		return rc;
	if (!sqlite3_changes(s->db))
		return store_fail(st, STORE_E_NOTFOUND, "no run with id %lld",
				  (long long)run);
	return 0;
}

static int sq_run_rename(struct store *st, int64_t run, const char *name)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q;
	int rc;

	if ((rc = sq_flush_events(s)) ||
	    (rc = sq_prepare(s, "UPDATE runs SET name = ?2 WHERE id = ?1", &q,
			     "renaming run")))
		return rc;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc == SQLITE_CONSTRAINT)
		return store_fail(st, STORE_E_EXISTS, "a run named '%s' exists",
				  name);
	if (rc != SQLITE_DONE)
		return sq_fail(s, STORE_E_SQLITE, "renaming run");
	if (!sqlite3_changes(s->db))
		return store_fail(st, STORE_E_NOTFOUND, "no run with id %lld",
				  (long long)run);
	return 0;
}

static int sq_run_find_input(struct store *st, const char *sha256, int64_t *id,
			     char *name, size_t namelen)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q;
	int rc;

	if ((rc = sq_flush_events(s)) ||
	    (rc = sq_prepare(s, "SELECT id, name FROM runs WHERE input_sha256 = ?1"
			     " ORDER BY id LIMIT 1", &q, "finding input")))
		return rc;
	sqlite3_bind_text(q, 1, sha256, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(q, 0);
		sq_col_copy(q, 1, name, namelen);
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		return sq_fail(s, STORE_E_SQLITE, "finding input");
	return 0;
}

static int sq_size(struct store *st, int64_t *bytes)
{
	int64_t pages, size;
	int rc;

	if ((rc = query_i64(sq(st), "PRAGMA page_count", &pages, "reading size")) ||
	    (rc = query_i64(sq(st), "PRAGMA page_size", &size, "reading size")))
		return rc;
	*bytes = pages * size;
	return 0;
}

static int sq_cache_limit(struct store *st, int kib)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%d", kib > 0 ? kib : 1);
	return exec(sq(st), sql);
}

static int sq_vacuum(struct store *st, int64_t *before, int64_t *after)
{
	int64_t b;
	int rc;

	if ((rc = sq_size(st, &b)))
		return rc;
	if (before)
		*before = b;
	if ((rc = exec(sq(st), "VACUUM")))
		return rc;
	return after ? sq_size(st, after) : 0;
}

/* ---- settings, devices, processes, commands, statistics ---- */

static int sq_setting_add(struct store *st, int64_t run, const char *key,
			  const char *value, const char *at)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q;
	int rc;

	if ((rc = sq_flush_events(s)) ||
	    (rc = sq_prepare(s, "INSERT OR REPLACE INTO settings (run, key, value,"
			     " at) VALUES (?,?,?,?)", &q, "storing setting")))
		return rc;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, key, -1, SQLITE_TRANSIENT);
	sq_bind_text(q, 3, value);
	sqlite3_bind_text(q, 4, at, -1, SQLITE_TRANSIENT);
	rc = sq_step_done(s, q, "storing setting");
	sqlite3_finalize(q);
	return rc;
}

static int sq_device_add(struct store *st, int64_t run, uint32_t dev,
			 const char *name, int64_t size_bytes, const char *role)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q = sq_stmt(s, SQ_DEVICE);
	int rc;

	if ((rc = sq_flush_events(s)))
		return rc;
	if (!q)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int64(q, 2, dev);
	sq_bind_text(q, 3, name);
	sq_bind_opt_i64(q, 4, size_bytes, size_bytes > 0);
	sqlite3_bind_text(q, 5, role ? role : "data", -1, SQLITE_TRANSIENT);
	return sq_step_done(s, q, "storing device");
}

static int sq_process_set(struct store *st, int64_t run, uint32_t pid,
			  const char *comm)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q = sq_stmt(s, SQ_PROCESS);

	if (!q)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int64(q, 2, pid);
	sqlite3_bind_text(q, 3, comm, -1, SQLITE_TRANSIENT);
	return sq_step_done(s, q, "storing process");
}

static int sq_processes_copy(struct store *st, int64_t run, int64_t from)
{
	return run_sql(sq(st), "INSERT OR IGNORE INTO processes (run, pid, comm) "
		       "SELECT ?1, pid, comm FROM processes WHERE run = ?2", run,
		       from, "storing processes");
}

static int sq_command_add(struct store *st, int64_t run,
			  const struct store_command *c)
{
	struct sqlite_store *s = sq(st);
	int times = c->start_ns != STORE_NO_TIME && c->end_ns != STORE_NO_TIME;
	sqlite3_stmt *q;
	int rc;

	if ((rc = sq_flush_events(s)) ||
	    (rc = sq_prepare(s, "INSERT INTO commands (run, idx, argv, start_ns,"
			     " end_ns, real_s, user_s, sys_s, status)"
			     " VALUES (?,?,?,?,?,?,?,?,?)", &q, "storing command")))
		return rc;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, c->idx);
	sqlite3_bind_text(q, 3, c->argv, -1, SQLITE_TRANSIENT);
	sq_bind_opt_i64(q, 4, c->start_ns, c->start_ns != STORE_NO_TIME);
	sq_bind_opt_i64(q, 5, c->end_ns, c->end_ns != STORE_NO_TIME);
	for (int i = 0; i < 3; i++) {
		double v = i == 0 ? c->real_s : i == 1 ? c->user_s : c->sys_s;
		if (times)
			sqlite3_bind_double(q, 6 + i, v);
		else
			sqlite3_bind_null(q, 6 + i);
	}
	sqlite3_bind_int(q, 9, c->status);
	rc = sq_step_done(s, q, "storing command");
	sqlite3_finalize(q);
	return rc;
}

static int sq_stat_set(struct store *st, int64_t run, const char *key,
		       const char *value)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q = sq_stmt(s, SQ_STAT);
	int rc;

	if ((rc = sq_flush_events(s)))
		return rc;
	if (!q)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, key, -1, SQLITE_TRANSIENT);
	sq_bind_text(q, 3, value);
	return sq_step_done(s, q, "storing run statistics");
}

static int sq_metric_set(struct store *st, int64_t run, const char *name,
			 double value, const char *unit, const char *source)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q;
	int rc;

	if ((rc = sq_flush_events(s)) ||
	    (rc = sq_prepare(s, "INSERT OR REPLACE INTO metrics (run, name, value,"
			     " unit, source) VALUES (?,?,?,?,?)", &q,
			     "storing metric")))
		return rc;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(q, 3, value);
	sq_bind_text(q, 4, unit);
	sqlite3_bind_text(q, 5, source, -1, SQLITE_TRANSIENT);
	rc = sq_step_done(s, q, "storing metric");
	sqlite3_finalize(q);
	return rc;
}

static int sq_next_request_id(struct store *st, int64_t *id)
{
	return query_i64(sq(st), "SELECT coalesce(max(id), 0) + 1 FROM requests",
			 id, "reading requests");
}

const struct store_backend store_sqlite_backend = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.schema_version = sq_schema_version,
	.begin = sq_begin,
	.begin_bulk = sq_begin_bulk,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.run_create = sq_run_create,
	.run_find = sq_run_find,
	.run_finish = sq_run_finish,
	.run_set = sq_run_set,
	.run_set_format = sq_run_set_format,
	.run_set_parent = sq_run_set_parent,
	.run_get = sq_run_get,
	.runs_list = sq_runs_list,
	.run_has = sq_run_has,
	.run_delete = sq_run_delete,
	.run_rename = sq_run_rename,
	.run_find_input = sq_run_find_input,
	.size = sq_size,
	.vacuum = sq_vacuum,
	.cache_limit = sq_cache_limit,
	.setting_add = sq_setting_add,
	.settings_get = sq_settings_get,
	.device_add = sq_device_add,
	.devices_get = sq_devices_get,
	.process_set = sq_process_set,
	.processes_copy = sq_processes_copy,
	.processes_get = sq_processes_get,
	.command_add = sq_command_add,
	.commands_get = sq_commands_get,
	.stat_set = sq_stat_set,
	.stats_get = sq_stats_get,
	.metric_set = sq_metric_set,
	.metrics_get = sq_metrics_get,
	.event_add = sq_event_add,
	.request_add = sq_request_add,
	.next_request_id = sq_next_request_id,
	.sample_add = sq_sample_add,
	.replays_add = sq_replays_add,
	.summary_set = sq_summary_set,
	.summary_get = sq_summary_get,
	.summary_missing = sq_summary_missing,
	.fleet_worst = sq_fleet_worst,
	.cursor_open = sq_cursor_open,
	.cursor_next = sq_cursor_next,
	.cursor_close = sq_cursor_close,
	.requests_span = sq_requests_span,
	.requests_open_ids = sq_requests_open_ids,
	.open_reader = sq_open_reader,
};
