/* The iotape store over SQLite: open and migrate, runs, batched inserts of
 * events and requests. One prepare-bind-step path, one error path. */
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Generated from schema/NNN_*.sql by the Makefile (schema_sql.c). */
extern const char *const store_migrations[];
extern const int store_n_migrations;

enum stmt_id {
	S_EVENT, S_REQUEST, S_PROCESS, S_DEVICE, S_STAT, S_SAMPLE, S_N
};

static const char *const stmt_sql[S_N] = {
	[S_EVENT] = "INSERT INTO events (run, time_ns, sequence, sector, bytes, "
		    "action, pid, dev, cpu, error, pdu) "
		    "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
	[S_REQUEST] = "INSERT INTO requests (run, dev, sector, bytes, rwbs, cats,"
		      " pid, q_ns, g_ns, m_ns, i_ns, d_ns, c_ns, d_sector, "
		      "d_bytes, requeues, error, merged_into, d_head, "
		      "seek_sectors, split_from, orig_dev, orig_sector, split, id) "
		      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_PROCESS] = "INSERT OR IGNORE INTO processes (run, pid, comm) "
		      "VALUES (?,?,?)",
	[S_DEVICE] = "INSERT OR REPLACE INTO devices (run, dev, name, size_bytes,"
		     " role) VALUES (?,?,?,?,?)",
	[S_STAT] = "INSERT OR REPLACE INTO run_stats (run, key, value) "
		   "VALUES (?,?,?)",
	[S_SAMPLE] = "INSERT INTO samples (run, time_ns, source, key, value) "
		     "VALUES (?,?,?,?,?)",
};

/* Events are inserted EV_BATCH rows per statement: one multi-row INSERT
 * costs SQLite's per-statement work (cursor open, transaction check, halt)
 * once for the batch, not per row. */
#define EV_BATCH 32
#define EV_COLS 11

struct ev_row {
	int64_t v[EV_COLS - 1];  /* run .. error, in column order */
	size_t pdu_off;
	uint16_t pdu_len;
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *stmt[S_N];
	sqlite3_stmt *ev_multi;    /* EV_BATCH rows */
	struct ev_row evb[EV_BATCH];
	int nev;
	uint8_t *evpdu;            /* payload bytes of the batched rows */
	size_t evpdu_len, evpdu_cap;
	int64_t ev_run, ev_first, ev_last; /* events.id range of the run being written */
	char msg[512];
};

static int fail(struct store *st, int code, const char *what)
{
	snprintf(st->msg, sizeof(st->msg), "%s: %s", what,
		 st->db ? sqlite3_errmsg(st->db) : "no database");
	return -code;
}

const char *store_errmsg(const struct store *st)
{
	return st ? st->msg : "out of memory";
}

sqlite3 *store_db(struct store *st)
{
	return st->db;
}

static int exec(struct store *st, const char *sql)
{
	char *e = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &e) != SQLITE_OK) {
		snprintf(st->msg, sizeof(st->msg), "%s", e ? e : "sqlite error");
		sqlite3_free(e);
		return -STORE_E_SQLITE;
	}
	return 0;
}

static int user_version(struct store *st, int *v)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return rc == SQLITE_NOTADB ? -STORE_E_NOTDB
					   : fail(st, STORE_E_SQLITE, "reading schema version");
	rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc == SQLITE_NOTADB)
		return -STORE_E_NOTDB;
	if (rc != SQLITE_ROW)
		return fail(st, STORE_E_SQLITE, "reading schema version");
	return 0;
}

static int migrate(struct store *st)
{
	int v, rc;
	char sql[64];

	rc = user_version(st, &v);
	if (rc == -STORE_E_NOTDB) {
		snprintf(st->msg, sizeof(st->msg), "not an iotape database (not SQLite)");
		return rc;
	}
	if (rc)
		return rc;
	if (v == 0) {
		/* A fresh file, or another program's database: never add
		 * iotape's tables to someone else's data. */
		int64_t n = 0;
		if ((rc = store_query_i64(st, "SELECT count(*) FROM sqlite_master",
					  0, NULL, &n)))
			return rc;
		if (n) {
			snprintf(st->msg, sizeof(st->msg), "not an iotape database "
				 "(an SQLite file with %lld other objects); give "
				 "another --db", (long long)n);
			return -STORE_E_NOTDB;
		}
	}
	if (v > store_n_migrations) {
		snprintf(st->msg, sizeof(st->msg),
			 "database schema version %d is newer than this iotape's (%d)",
			 v, store_n_migrations);
		return -STORE_E_NEWER;
	}
	if (v == store_n_migrations)
		return 0;
	if ((rc = exec(st, "BEGIN IMMEDIATE")))
		return rc;
	/* Re-read under the write lock: another process may have migrated. */
	if ((rc = user_version(st, &v)))
		goto out;
	for (; v < store_n_migrations; v++) {
		if ((rc = exec(st, store_migrations[v])))
			goto out;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
		if ((rc = exec(st, sql)))
			goto out;
	}
	return exec(st, "COMMIT");
out:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int store_open(struct store **out, const char *path, int create)
{
	struct store *st = calloc(1, sizeof(*st));
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		    (create ? SQLITE_OPEN_CREATE : 0);
	int rc;

	*out = st;
	if (!st)
		return -ENOMEM;
	/* No memory statistics (a global mutex per allocation) and no
	 * mutexes at all: iotape uses SQLite from one thread at a time. Only
	 * takes effect before SQLite's first use; harmless after. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK)
		return fail(st, STORE_E_SQLITE, "cannot open database");
	sqlite3_busy_timeout(st->db, 10000);
	sqlite3_extended_result_codes(st->db, 0);
	/* Imports are single transactions: a journal in memory is not enough to
	 * survive a crash, so keep the default rollback journal on disk; large
	 * page cache and temp store in memory speed up the big inserts. */
	rc = exec(st, "PRAGMA foreign_keys = ON; PRAGMA cache_size = -32768;"
		      " PRAGMA temp_store = MEMORY; PRAGMA synchronous = NORMAL");
	if (rc) {
		if (strstr(st->msg, "not a database") || strstr(st->msg, "encrypted")) {
			snprintf(st->msg, sizeof(st->msg),
				 "not an iotape database (not SQLite)");
			return -STORE_E_NOTDB;
		}
		return rc;
	}
	return migrate(st);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	for (int i = 0; i < S_N; i++)
		sqlite3_finalize(st->stmt[i]);
	sqlite3_finalize(st->ev_multi);
	free(st->evpdu);
	sqlite3_close(st->db);
	free(st);
}

static int flush_events(struct store *st);

int store_begin(struct store *st) { return exec(st, "BEGIN IMMEDIATE"); }

int store_commit(struct store *st)
{
	int rc = flush_events(st);
	return rc ? rc : exec(st, "COMMIT");
}

int store_rollback(struct store *st)
{
	st->nev = 0;
	st->evpdu_len = 0;
	return exec(st, "ROLLBACK");
}

/* Returns the cached prepared statement id, reset and with bindings cleared. */
static sqlite3_stmt *stmt(struct store *st, enum stmt_id id)
{
	if (!st->stmt[id]) {
		if (sqlite3_prepare_v3(st->db, stmt_sql[id], -1,
				       SQLITE_PREPARE_PERSISTENT, &st->stmt[id],
				       NULL) != SQLITE_OK) {
			fail(st, STORE_E_SQLITE, "preparing statement");
			return NULL;
		}
	}
	return st->stmt[id];
}

/* Steps s once (expecting DONE) and resets it. */
static int step_done(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return fail(st, STORE_E_SQLITE, what);
	return 0;
}

static void bind_opt_i64(sqlite3_stmt *s, int i, int64_t v, int present)
{
	if (present)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

int store_run_create(struct store *st, const struct run_info *ri, int64_t *id)
{
	sqlite3_stmt *s;
	int rc;

	rc = sqlite3_prepare_v2(st->db,
		"INSERT INTO runs (name, kind, parent, created_ns, host, kernel, "
		"source, format, big_endian, notes) VALUES (?,?,?,?,?,?,?,?,?,?)",
		-1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(st, STORE_E_SQLITE, "creating run");
	sqlite3_bind_text(s, 1, ri->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, ri->kind, -1, SQLITE_TRANSIENT);
	bind_opt_i64(s, 3, ri->parent, ri->parent != 0);
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		sqlite3_bind_int64(s, 4, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	}
	bind_text_or_null(s, 5, ri->host);
	bind_text_or_null(s, 6, ri->kernel);
	bind_text_or_null(s, 7, ri->source);
	bind_text_or_null(s, 8, ri->format);
	sqlite3_bind_int(s, 9, ri->big_endian);
	bind_text_or_null(s, 10, ri->notes);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc == SQLITE_CONSTRAINT) {
		snprintf(st->msg, sizeof(st->msg), "a run named '%s' exists", ri->name);
		return -STORE_E_EXISTS;
	}
	if (rc != SQLITE_DONE)
		return fail(st, STORE_E_SQLITE, "creating run");
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_run_free_name(struct store *st, const char *prefix, char *out,
			size_t outlen)
{
	for (int n = 1; n < 100000; n++) {
		int64_t id;
		if (n == 1)
			snprintf(out, outlen, "%s", prefix);
		else
			snprintf(out, outlen, "%s-%d", prefix, n);
		if (store_run_find(st, out, &id) == -STORE_E_NOTFOUND)
			return 0;
	}
	snprintf(st->msg, sizeof(st->msg), "no free run name for '%s'", prefix);
	return -STORE_E_EXISTS;
}

int store_run_find(struct store *st, const char *name, int64_t *id)
{
	sqlite3_stmt *s;
	int rc;

	rc = sqlite3_prepare_v2(st->db,
		"SELECT id FROM runs WHERE name = ?1 "
		"UNION ALL SELECT id FROM runs WHERE CAST(id AS TEXT) = ?1 "
		"LIMIT 1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(st, STORE_E_SQLITE, "finding run");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return fail(st, STORE_E_SQLITE, "finding run");
	snprintf(st->msg, sizeof(st->msg), "no run named '%s'", name);
	return -STORE_E_NOTFOUND;
}

int store_run_finish(struct store *st, int64_t run, const char *status,
		     int64_t genesis_ns)
{
	sqlite3_stmt *s;
	int rc, have;

	if ((rc = flush_events(st)))
		return rc;
	have = st->ev_run == run;
	rc = sqlite3_prepare_v2(st->db,
		"UPDATE runs SET status = ?2, genesis_ns = ?3, first_event = ?4, "
		"last_event = ?5 WHERE id = ?1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(st, STORE_E_SQLITE, "finishing run");
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_text(s, 2, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, genesis_ns);
	bind_opt_i64(s, 4, st->ev_first, have);
	bind_opt_i64(s, 5, st->ev_last, have);
	rc = step_done(st, s, "finishing run");
	sqlite3_finalize(s);
	return rc;
}

/* Binds batched row r at parameter offset base (columns in table order). */
static void bind_event_row(struct store *st, sqlite3_stmt *s, int base,
			   const struct ev_row *r)
{
	for (int i = 0; i < EV_COLS - 1; i++)
		sqlite3_bind_int64(s, base + i + 1, r->v[i]);
	if (r->pdu_len)
		sqlite3_bind_blob(s, base + EV_COLS, st->evpdu + r->pdu_off,
				  r->pdu_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, base + EV_COLS);
}

/* Writes the batched events: one multi-row INSERT for a full batch, single
 * rows otherwise. Tracks the run's first and last event id. */
static int flush_events(struct store *st)
{
	int64_t run, last;
	int n = st->nev, rc = 0;

	if (!n)
		return 0;
	run = st->evb[0].v[0];
	st->nev = 0;
	if (n == EV_BATCH) {
		if (!st->ev_multi) {
			char *sql = sqlite3_mprintf("%s", "INSERT INTO events (run, "
				"time_ns, sequence, sector, bytes, action, pid, dev, cpu,"
				" error, pdu) VALUES ");
			for (int i = 0; i < EV_BATCH && sql; i++) {
				char *t = sqlite3_mprintf("%s%s(?,?,?,?,?,?,?,?,?,?,?)",
							  sql, i ? "," : "");
				sqlite3_free(sql);
				sql = t;
			}
			if (!sql || sqlite3_prepare_v3(st->db, sql, -1,
					SQLITE_PREPARE_PERSISTENT, &st->ev_multi,
					NULL) != SQLITE_OK) {
				sqlite3_free(sql);
				return fail(st, STORE_E_SQLITE, "preparing statement");
			}
			sqlite3_free(sql);
		}
		for (int i = 0; i < n; i++)
			bind_event_row(st, st->ev_multi, i * EV_COLS, &st->evb[i]);
		rc = step_done(st, st->ev_multi, "storing events");
	} else {
		sqlite3_stmt *s = stmt(st, S_EVENT);
		if (!s)
			return -STORE_E_SQLITE;
		for (int i = 0; i < n && !rc; i++) {
			bind_event_row(st, s, 0, &st->evb[i]);
			rc = step_done(st, s, "storing event");
		}
	}
	st->evpdu_len = 0;
	if (rc)
		return rc;
	/* rowids of an append are consecutive: the last and n before it */
	last = sqlite3_last_insert_rowid(st->db);
	if (st->ev_run != run) {
		st->ev_run = run;
		st->ev_first = last - n + 1;
	}
	st->ev_last = last;
	return 0;
}

int store_event_add(struct store *st, int64_t run, const struct bt_event *ev)
{
	struct ev_row *r;

	if (st->nev && st->evb[0].v[0] != run) {
		int rc = flush_events(st);
		if (rc)
			return rc;
	}
	r = &st->evb[st->nev++];
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
	r->pdu_off = st->evpdu_len;
	if (ev->pdu_len) {
		if (st->evpdu_len + ev->pdu_len > st->evpdu_cap) {
			size_t cap = st->evpdu_cap ? 2 * st->evpdu_cap : 4096;
			uint8_t *p;
			while (cap < st->evpdu_len + ev->pdu_len)
				cap *= 2;
			p = realloc(st->evpdu, cap);
			if (!p)
				return -ENOMEM;
			st->evpdu = p;
			st->evpdu_cap = cap;
		}
		memcpy(st->evpdu + st->evpdu_len, ev->pdu, ev->pdu_len);
		st->evpdu_len += ev->pdu_len;
	}
	return st->nev == EV_BATCH ? flush_events(st) : 0;
}

int store_request_add(struct store *st, int64_t run, int64_t id,
		      const struct store_request *rq)
{
	sqlite3_stmt *s = stmt(st, S_REQUEST);

	if (!s)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, rq->dev);
	sqlite3_bind_int64(s, 3, (int64_t)rq->sector);
	sqlite3_bind_int64(s, 4, rq->bytes);
	sqlite3_bind_text(s, 5, rq->rwbs, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 6, (int64_t)rq->cats);
	sqlite3_bind_int64(s, 7, rq->pid);
	bind_opt_i64(s, 8, rq->q_ns, rq->q_ns != STORE_NO_TIME);
	bind_opt_i64(s, 9, rq->g_ns, rq->g_ns != STORE_NO_TIME);
	bind_opt_i64(s, 10, rq->m_ns, rq->m_ns != STORE_NO_TIME);
	bind_opt_i64(s, 11, rq->i_ns, rq->i_ns != STORE_NO_TIME);
	bind_opt_i64(s, 12, rq->d_ns, rq->d_ns != STORE_NO_TIME);
	bind_opt_i64(s, 13, rq->c_ns, rq->c_ns != STORE_NO_TIME);
	bind_opt_i64(s, 14, (int64_t)rq->d_sector, rq->has_d);
	bind_opt_i64(s, 15, rq->d_bytes, rq->has_d);
	sqlite3_bind_int64(s, 16, rq->requeues);
	sqlite3_bind_int(s, 17, rq->error);
	bind_opt_i64(s, 18, rq->merged_into, rq->merged_into != 0);
	sqlite3_bind_int(s, 19, rq->d_head);
	bind_opt_i64(s, 20, rq->seek_sectors, rq->has_seek);
	bind_opt_i64(s, 21, rq->split_from, rq->split_from != 0);
	bind_opt_i64(s, 22, rq->orig_dev, rq->has_orig);
	bind_opt_i64(s, 23, (int64_t)rq->orig_sector, rq->has_orig);
	sqlite3_bind_int(s, 24, rq->split);
	sqlite3_bind_int64(s, 25, id);
	return step_done(st, s, "storing request");
}

int store_next_request_id(struct store *st, int64_t *id)
{
	int rc = store_query_i64(st, "SELECT coalesce(max(id), 0) + 1 FROM requests",
				 0, NULL, id);
	return rc;
}

int store_process_set(struct store *st, int64_t run, uint32_t pid,
		      const char *comm)
{
	sqlite3_stmt *s = stmt(st, S_PROCESS);

	if (!s)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, pid);
	sqlite3_bind_text(s, 3, comm, -1, SQLITE_TRANSIENT);
	return step_done(st, s, "storing process");
}

int store_device_add(struct store *st, int64_t run, uint32_t dev,
		     const char *name, int64_t size_bytes, const char *role)
{
	sqlite3_stmt *s = stmt(st, S_DEVICE);

	if (!s)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, dev);
	bind_text_or_null(s, 3, name);
	bind_opt_i64(s, 4, size_bytes, size_bytes > 0);
	sqlite3_bind_text(s, 5, role ? role : "data", -1, SQLITE_TRANSIENT);
	return step_done(st, s, "storing device");
}

int store_stat_set(struct store *st, int64_t run, const char *key,
		   const char *value)
{
	sqlite3_stmt *s = stmt(st, S_STAT);

	if (!s)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
	bind_text_or_null(s, 3, value);
	return step_done(st, s, "storing run statistics");
}

int store_query_i64(struct store *st, const char *sql, int nargs,
		    const int64_t *args, int64_t *out)
{
	sqlite3_stmt *s;
	int rc;

	if ((rc = flush_events(st)))
		return rc;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(st, STORE_E_SQLITE, "query");
	for (int i = 0; i < nargs; i++)
		sqlite3_bind_int64(s, i + 1, args[i]);
	rc = sqlite3_step(s);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(st, STORE_E_SQLITE, "query");
	return 0;
}


int store_sample_add(struct store *st, int64_t run, int64_t time_ns,
		     const char *source, const char *key, double value)
{
	sqlite3_stmt *s = stmt(st, S_SAMPLE);

	if (!s)
		return -STORE_E_SQLITE;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, time_ns);
	sqlite3_bind_text(s, 3, source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 4, key, -1, SQLITE_TRANSIENT);
	if (isfinite(value))
		sqlite3_bind_double(s, 5, value);
	else
		sqlite3_bind_null(s, 5);
	return step_done(st, s, "storing sample");
}

int store_run_set(struct store *st, int64_t run, const char *column,
		  const char *value)
{
	static const char *const cols[] = { "kind", "host", "kernel", "source",
					    "format", "status", "notes" };
	char sql[96];
	sqlite3_stmt *s;
	int rc, ok = 0;

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		ok |= !strcmp(cols[i], column);
	if (!ok) {
		snprintf(st->msg, sizeof(st->msg), "no run column '%s'", column);
		return -STORE_E_SQLITE;
	}
	snprintf(sql, sizeof(sql), "UPDATE runs SET %s = ?2 WHERE id = ?1", column);
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(st, STORE_E_SQLITE, "updating run");
	sqlite3_bind_int64(s, 1, run);
	bind_text_or_null(s, 2, value);
	rc = step_done(st, s, "updating run");
	sqlite3_finalize(s);
	return rc;
}

int store_setting_add(struct store *st, int64_t run, const char *key,
		      const char *value, const char *at)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT OR REPLACE INTO settings (run, key,"
			       " value, at) VALUES (?,?,?,?)", -1, &s, NULL)
	    != SQLITE_OK)
		return fail(st, STORE_E_SQLITE, "storing setting");
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
	bind_text_or_null(s, 3, value);
	sqlite3_bind_text(s, 4, at, -1, SQLITE_TRANSIENT);
	rc = step_done(st, s, "storing setting");
	sqlite3_finalize(s);
	return rc;
}

int store_command_add(struct store *st, int64_t run,
		      const struct store_command *c)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO commands (run, idx, argv,"
			       " start_ns, end_ns, real_s, user_s, sys_s, status)"
			       " VALUES (?,?,?,?,?,?,?,?,?)", -1, &s, NULL)
	    != SQLITE_OK)
		return fail(st, STORE_E_SQLITE, "storing command");
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int(s, 2, c->idx);
	sqlite3_bind_text(s, 3, c->argv, -1, SQLITE_TRANSIENT);
	bind_opt_i64(s, 4, c->start_ns, c->start_ns != STORE_NO_TIME);
	bind_opt_i64(s, 5, c->end_ns, c->end_ns != STORE_NO_TIME);
	if (c->start_ns != STORE_NO_TIME && c->end_ns != STORE_NO_TIME) {
		sqlite3_bind_double(s, 6, c->real_s);
		sqlite3_bind_double(s, 7, c->user_s);
		sqlite3_bind_double(s, 8, c->sys_s);
	} else {
		sqlite3_bind_null(s, 6);
		sqlite3_bind_null(s, 7);
		sqlite3_bind_null(s, 8);
	}
	sqlite3_bind_int(s, 9, c->status);
	rc = step_done(st, s, "storing command");
	sqlite3_finalize(s);
	return rc;
}
