/* The store's runs and the small tables of a run (settings, devices,
 * processes, commands, statistics), run summaries and the fleet's ranking:
 * each statement and each row decoder once, for every driver
 * (store_driver.h). */
#include "store.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema/store_driver.h"
#include "lib/util.h"

/* Column helpers over the driver's getters. */
static int64_t col_i64_or(struct store *st, struct store_stmt *q, int i,
			  int64_t none)
{
	return st->drv->col_null(q, i) ? none : st->drv->col_i64(q, i);
}

static double col_f64_or_nan(struct store *st, struct store_stmt *q, int i)
{
	return st->drv->col_null(q, i) ? NAN : st->drv->col_f64(q, i);
}

static void col_copy(struct store *st, struct store_stmt *q, int i, char *out,
		     size_t len)
{
	const char *t = st->drv->col_text(q, i);

	snprintf(out, len, "%s", t ? t : "");
}

/* ---- runs ---- */

/* A run's row; its last event's time from events (the run a parameter:
 * where events are partitioned by run, the planner then reads only its
 * partition). */
#define RUN_COLS_LAST(last) "id, name, kind, status, format, source, host, " \
	"kernel, parent, created_ns, genesis_ns, first_event, last_event, " \
	last ", big_endian, notes, input_sha256"
#define RUN_COLS RUN_COLS_LAST("(SELECT time_ns FROM events e WHERE " \
	"e.run = ?1 AND e.id = runs.last_event)")

static void run_row(struct store *st, struct store_stmt *q, struct store_run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = st->drv->col_i64(q, 0);
	col_copy(st, q, 1, r->name, sizeof(r->name));
	col_copy(st, q, 2, r->kind, sizeof(r->kind));
	col_copy(st, q, 3, r->status, sizeof(r->status));
	col_copy(st, q, 4, r->format, sizeof(r->format));
	col_copy(st, q, 5, r->source, sizeof(r->source));
	col_copy(st, q, 6, r->host, sizeof(r->host));
	col_copy(st, q, 7, r->kernel, sizeof(r->kernel));
	r->parent = col_i64_or(st, q, 8, 0);
	r->created_ns = st->drv->col_i64(q, 9);
	r->genesis_ns = col_i64_or(st, q, 10, STORE_NO_TIME);
	r->first_event = col_i64_or(st, q, 11, 0);
	r->last_event = col_i64_or(st, q, 12, 0);
	r->events = r->first_event && r->last_event
		? r->last_event - r->first_event + 1 : 0;
	r->last_ns = col_i64_or(st, q, 13, 0);
	r->big_endian = (int)st->drv->col_i64(q, 14);
	col_copy(st, q, 15, r->notes, sizeof(r->notes));
	col_copy(st, q, 16, r->input_sha256, sizeof(r->input_sha256));
}

int store_run_create(struct store *st, const struct run_info *ri, int64_t *id)
{
	static const struct store_sql sql = { .sql = "INSERT INTO runs (name, kind, "
		"parent, created_ns, host, kernel, source, format, big_endian, "
		"notes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
		"RETURNING id" };
	struct store_stmt *q;
	struct timespec ts;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* a name taken leaves the caller's transaction usable */
	if ((rc = store_prep(st, &sql, STORE_STMT_GUARDED, "creating run", &q,
			     "ttoittttit", ri->name, ri->kind, ri->parent,
			     ri->parent != 0, ri->created_ns ? ri->created_ns
			     : (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec,
			     ri->host, ri->kernel, ri->source, ri->format,
			     (int64_t)ri->big_endian, ri->notes)))
		return rc;
	if ((rc = st->drv->step(q)) > 0) {
		*id = st->drv->col_i64(q, 0);
		while ((rc = st->drv->step(q)) > 0)
			;
	} else if (!rc) {
		rc = store_fail(st, STORE_E_SQLITE, "creating run: no id back");
	}
	st->drv->finalize(q);
	if (rc == -STORE_E_EXISTS)
		return store_fail(st, STORE_E_EXISTS, "a run named '%s' exists",
				  ri->name);
	if (rc)
		return rc;
	if (!st->in_txn)
		return 0;
	/* every requests row it gets in this transaction is counted */
	if (st->nmade == st->mcap) {
		size_t cap = st->mcap ? 2 * st->mcap : 4;
		struct store_made *m = realloc(st->made, cap * sizeof(*m));
		if (!m)
			return store_fail(st, ENOMEM, "out of memory");
		st->made = m;
		st->mcap = cap;
	}
	st->made[st->nmade].run = *id;
	st->made[st->nmade].made = 1;
	st->made[st->nmade++].requests = 0;
	return 0;
}

int store_run_made_here(const struct store *st, int64_t run)
{
	for (size_t i = 0; i < st->nmade; i++)
		if (st->made[i].run == run && st->made[i].made)
			return 1;
	return 0;
}

void store_runs_count_request(struct store *st, int64_t run)
{
	/* most transactions write one run: the last first */
	for (size_t i = st->nmade; i-- > 0;)
		if (st->made[i].run == run) {
			st->made[i].requests++;
			return;
		}
	/* a run this transaction did not make: its count is not known here */
	if (st->nmade == st->mcap) {
		size_t cap = st->mcap ? 2 * st->mcap : 4;
		struct store_made *m = realloc(st->made, cap * sizeof(*m));
		if (!m)
			return;    /* its count stays: a listing's number may lag */
		st->made = m;
		st->mcap = cap;
	}
	st->made[st->nmade].run = run;
	st->made[st->nmade].made = 0;
	st->made[st->nmade++].requests = 0;
}

int store_runs_counts(struct store *st)
{
	static const struct store_sql sql = { .sql = "UPDATE runs SET requests = "
		"?2 WHERE id = ?1" };
	int rc = 0;

	/* a run made here: every row counted; another: NULL (counted when
	 * listed) */
	for (size_t i = 0; i < st->nmade && !rc; i++)
		rc = store_do(st, &sql, "counting requests", NULL, "io",
			      st->made[i].run, st->made[i].requests,
			      st->made[i].made);
	st->nmade = 0;
	return rc;
}

int store_run_free_name(struct store *st, const char *prefix, char *out,
			size_t outlen)
{
	/* a name made from a long file name: at most STORE_NAME_MAX bytes
	 * with its "-N", cut between two UTF-8 characters */
	int keep = (int)utf8_cut(prefix, STORE_NAME_MAX - 6);

	for (int n = 1; n < 100000; n++) {
		int64_t id;
		int rc;
		if (n == 1)
			snprintf(out, outlen, "%.*s", keep, prefix);
		else
			snprintf(out, outlen, "%.*s-%d", keep, prefix, n);
		rc = store_run_find(st, out, &id);
		if (rc == -STORE_E_NOTFOUND)
			return 0;
		if (rc)
			return rc;
	}
	return store_fail(st, STORE_E_EXISTS, "no free run name for '%s'", prefix);
}

int store_run_find(struct store *st, const char *name, int64_t *id)
{
	static const struct store_sql sql = { .sql = "SELECT id FROM runs WHERE name = "
		"?1 UNION ALL SELECT id FROM runs WHERE CAST(id AS TEXT) = ?2 "
		"LIMIT 1" };
	struct store_stmt *q;
	const char *idtext = name;
	int rc;

	/* digits are an id: "01" is run 1, as a number reads */
	if (name[0] && strspn(name, "0123456789") == strlen(name)) {
		while (idtext[0] == '0' && idtext[1])
			idtext++;
	}
	if ((rc = store_prep(st, &sql, 0, "finding run", &q, "tt", name, idtext)))
		return rc;
	if ((rc = st->drv->step(q)) > 0)
		*id = st->drv->col_i64(q, 0);
	st->drv->finalize(q);
	if (rc < 0)
		return rc;
	if (!rc)
		return store_fail(st, STORE_E_NOTFOUND, "no run named '%s'", name);
	return 0;
}

int store_run_finish(struct store *st, int64_t run, const char *status,
		     int64_t genesis_ns)
{
	static const struct store_sql sql = { .sql = "UPDATE runs SET status = ?2, "
		"genesis_ns = ?3, first_event = ?4, last_event = ?5 WHERE id = ?1" };
	int have = st->ev_run == run, rc;

	if ((rc = st->drv->bulk_flush(st)) ||
	    (rc = store_do(st, &sql, "finishing run", NULL, "itioo", run, status,
			   genesis_ns, st->ev_first, have, st->ev_last, have)))
		return rc;
	return 0;
}

int store_run_set(struct store *st, int64_t run, const char *column,
		  const char *value)
{
	static const char *const cols[] = { "kind", "host", "kernel", "source",
					    "format", "status", "notes",
					    "input_sha256" };
	struct store_sql sql = { .sql = NULL };
	char text[96];
	int ok = 0;

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		ok |= !strcmp(cols[i], column);
	if (!ok)
		return store_fail(st, STORE_E_SQLITE, "no run column '%s'", column);
	/* column is one of the names above, never the caller's text */
	snprintf(text, sizeof(text), "UPDATE runs SET %s = ?2 WHERE id = ?1",
		 column);
	sql.sql = text;
	return store_do(st, &sql, "updating run", NULL, "it", run, value);
}

int store_run_set_format(struct store *st, int64_t run, const char *format,
			 int big_endian)
{
	static const struct store_sql sql = { .sql = "UPDATE runs SET big_endian = ?2 "
		"WHERE id = ?1" };
	int rc = store_run_set(st, run, "format", format);

	return rc ? rc : store_do(st, &sql, "updating run", NULL, "ii", run,
				  (int64_t)(big_endian != 0));
}

int store_run_set_parent(struct store *st, int64_t run, int64_t parent)
{
	static const struct store_sql sql = { .sql = "UPDATE runs SET parent = ?2 "
		"WHERE id = ?1" };

	return store_do(st, &sql, "updating run", NULL, "io", run, parent,
			parent != 0);
}

int store_run_get(struct store *st, int64_t run, struct store_run *out)
{
	static const struct store_sql sql = { .sql = "SELECT " RUN_COLS " FROM runs "
		"WHERE id = ?1" };
	struct store_stmt *q;
	int rc;

	if ((rc = store_prep(st, &sql, 0, "reading run", &q, "i", run)))
		return rc;
	if ((rc = st->drv->step(q)) > 0)
		run_row(st, q, out);
	st->drv->finalize(q);
	if (rc < 0)
		return rc;
	if (!rc)
		return store_fail(st, STORE_E_NOTFOUND, "no run with id %lld",
				  (long long)run);
	return 0;
}

/* Each run's figures from its own rows, in the listing's one statement:
 * its last event's time, its requests (-1 unless counted), its first and
 * last sample times (index look-ups; aggregates the database computes). */
#define LIST_FIGURES(count) ", " count ", (SELECT min(time_ns) FROM samples " \
	"s WHERE s.run = runs.id), (SELECT max(time_ns) FROM samples s WHERE " \
	"s.run = runs.id)"
#define LAST_NS "(SELECT time_ns FROM events e WHERE e.run = runs.id AND " \
	"e.id = runs.last_event)"

static int runs_list(struct store *st, int count_requests,
		     const struct store_run_filter *f,
		     struct store_run_listing **out, size_t *n)
{
	const char *params[STORE_FILTER_MAX_PARAMS];
	char text[4096], cond[3072], num[2][24];
	struct store_sql sql = { .sql = text };
	struct store_list l;
	struct store_stmt *q;
	int rc, np;

	*out = NULL;
	*n = 0;
	if (store_filter_sql(f, 1, cond, sizeof(cond), params, num, &np))
		return store_fail(st, STORE_E_SQLITE, "reading runs: filter too long");
	snprintf(text, sizeof(text), "SELECT " RUN_COLS_LAST(LAST_NS) "%s FROM "
		 "runs WHERE 1 = 1%s ORDER BY id", count_requests ?
		 LIST_FIGURES("coalesce(runs.requests, (SELECT count(*) FROM "
			      "requests q WHERE q.run = runs.id))") :
		 LIST_FIGURES("-1"), cond);
	if ((rc = store_prep(st, &sql, 0, "reading runs", &q, NULL)))
		return rc;
	for (int i = 0; i < np; i++)
		st->drv->bind_text(q, 1 + i, params[i]);
	store_list_init(&l, sizeof(**out), NULL, 0);
	while ((rc = st->drv->step(q)) > 0) {
		struct store_run_listing *r = store_list_row(&l);
		if (!r)
			break;
		run_row(st, q, &r->run);
		r->requests = col_i64_or(st, q, 17, -1);
		r->sample_first_ns = col_i64_or(st, q, 18, STORE_NO_TIME);
		r->sample_last_ns = col_i64_or(st, q, 19, STORE_NO_TIME);
	}
	st->drv->finalize(q);
	if (rc < 0) {
		store_list_free(&l);
		return rc;
	}
	return store_list_finish(st, &l, (void **)out, n);
}

int store_runs_list(struct store *st, int count_requests,
		    struct store_run_listing **out, size_t *n)
{
	return runs_list(st, count_requests, NULL, out, n);
}

int store_runs_list_where(struct store *st, int count_requests,
			  const struct store_run_filter *f,
			  struct store_run_listing **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (f && f->nwhere > STORE_FILTER_MAX_WHERE)
		return store_fail(st, STORE_E_SQLITE, "at most %d settings to "
				  "match", STORE_FILTER_MAX_WHERE);
	return runs_list(st, count_requests, f, out, n);
}

int store_run_has(struct store *st, int64_t run, enum store_has what)
{
	static const struct store_sql sql[] = {
		[STORE_HAS_DISPATCHES] = { .sql = "SELECT EXISTS (SELECT 1 FROM requests "
			"WHERE run = ?1 AND d_head = 1)" },
		[STORE_HAS_PROC_SAMPLES] = { .sql = "SELECT EXISTS (SELECT 1 FROM samples "
			"WHERE run = ?1 AND source IN ('vmstat', 'meminfo', "
			"'stat'))" },
		[STORE_HAS_LOG_SAMPLES] = { .sql = "SELECT EXISTS (SELECT 1 FROM samples "
			"WHERE run = ?1 AND source = 'vmstat-log')" },
		[STORE_HAS_IOSTAT_SAMPLES] = { .sql = "SELECT EXISTS (SELECT 1 FROM "
			"samples WHERE run = ?1 AND source = 'iostat')" },
	};
	const char *msg = what == STORE_HAS_DISPATCHES ? "reading requests"
						      : "reading samples";
	int64_t yes;
	int rc;

	if ((unsigned)what >= sizeof(sql) / sizeof(sql[0]))
		return store_fail(st, STORE_E_SQLITE, "no such question (%d)",
				  (int)what);
	if ((rc = store_one_i64(st, &sql[what], msg, &yes, "i", run)))
		return rc;
	return yes != 0;
}

/* Why a change of run's row changed nothing: no such run, or (a store whose
 * rows are its writers' machines', PostgreSQL's) another machine's run. */
static int not_mine(struct store *st, int64_t run, const char *verb)
{
	static const struct store_sql sql = { .sql = "SELECT coalesce(host, '') "
		"FROM runs WHERE id = ?1" };
	struct store_stmt *q;
	char host[128] = "";
	int rc;

	if ((rc = store_prep(st, &sql, 0, "reading run", &q, "i", run)))
		return rc;
	if ((rc = st->drv->step(q)) > 0)
		col_copy(st, q, 0, host, sizeof(host));
	st->drv->finalize(q);
	if (rc < 0)
		return rc;
	if (!rc)
		return store_fail(st, STORE_E_NOTFOUND, "no run with id %lld",
				  (long long)run);
	return store_fail(st, STORE_E_DENIED, "run %lld is machine '%s''s: this "
			  "role may not %s it", (long long)run, host, verb);
}

void store_runs_forget(struct store *st, int64_t run)
{
	if (st->ev_run == run)
		st->ev_run = 0;
}

int store_run_delete(struct store *st, int64_t run, int64_t *kept_replays)
{
	static const struct store_sql unparent = { .sql = "UPDATE runs SET parent = NULL"
		" WHERE parent = ?1" };
	static const struct store_sql del = { .sql = "DELETE FROM runs WHERE id = ?1" };
	int64_t n;
	int rc;

	/* its replays stay, with no parent */
	if ((rc = store_do(st, &unparent, "deleting run", &n, "i", run)))
		return rc;
	if (kept_replays)
		*kept_replays = n;
	/* its rows go with it: the foreign keys' cascade (SQLite), a trigger
	 * (PostgreSQL's bulk tables, schema/008_fleet.sql) */
	if ((rc = store_do(st, &del, "deleting run", &n, "i", run)))
		return rc;
	if (!n)
		return not_mine(st, run, "delete");
	store_runs_forget(st, run);
	return 0;
}

int store_run_rename(struct store *st, int64_t run, const char *name)
{
	static const struct store_sql sql = { .sql = "UPDATE runs SET name = ?2 WHERE "
		"id = ?1" };
	struct store_stmt *q;
	int64_t n = 0;
	int rc;

	if ((rc = store_prep(st, &sql, STORE_STMT_GUARDED, "renaming run", &q,
			     "it", run, name)))
		return rc;
	while ((rc = st->drv->step(q)) > 0)
		;
	if (!rc)
		n = st->drv->changes(q);
	st->drv->finalize(q);
	if (rc == -STORE_E_EXISTS)
		return store_fail(st, STORE_E_EXISTS, "a run named '%s' exists",
				  name);
	if (rc)
		return rc;
	if (!n)
		return not_mine(st, run, "rename");
	return 0;
}

int store_run_find_input(struct store *st, const char *sha256, int64_t *id,
			 char *name, size_t namelen)
{
	static const struct store_sql sql = { .sql = "SELECT id, name FROM runs WHERE "
		"input_sha256 = ?1 ORDER BY id LIMIT 1" };
	struct store_stmt *q;
	int rc;

	if ((rc = store_prep(st, &sql, 0, "finding input", &q, "t", sha256)))
		return rc;
	if ((rc = st->drv->step(q)) > 0) {
		*id = st->drv->col_i64(q, 0);
		col_copy(st, q, 1, name, namelen);
	}
	st->drv->finalize(q);
	return rc;
}

int store_request_ids_free(struct store *st, int64_t lo, int64_t hi)
{
	static const struct store_sql sql = { .sql = "SELECT NOT EXISTS (SELECT "
		"1 FROM requests WHERE id BETWEEN ?1 AND ?2)", .dialect = {
		[STORE_DIALECT_PG] = "SELECT true" } };
	int64_t yes;
	int rc = store_one_i64(st, &sql, "reading requests", &yes, "ii", lo, hi);

	return rc ? rc : yes != 0;
}

int store_next_request_id(struct store *st, int64_t *id)
{
	/* SQLite: ids are the table's rowids; PostgreSQL keys a run's rows
	 * by (run, id): the largest of each run through its key, never a
	 * scan of the table */
	static const struct store_sql sql = {
		.sql = "SELECT coalesce(max(id), 0) + 1 FROM requests",
		.dialect = { [STORE_DIALECT_PG] = "SELECT coalesce(max((SELECT max(q.id) FROM "
		  "requests q WHERE q.run = runs.id)), 0) + 1 FROM runs" },
	};
	return store_one_i64(st, &sql, "reading requests", id, NULL);
}

/* ---- settings, devices, processes, commands, statistics ---- */

int store_setting_add(struct store *st, int64_t run, const char *key,
		      const char *value, const char *at)
{
	struct store_stmt *q = store_stmt_kept(st, STORE_K_SETTING);

	if (!q)
		return -STORE_E_SQLITE;
	st->drv->bind_i64(q, 1, run);
	st->drv->bind_text(q, 2, key);
	if (value)
		st->drv->bind_text(q, 3, value);
	else
		st->drv->bind_null(q, 3);
	st->drv->bind_text(q, 4, at);
	return store_step_done(st, q);
}

int store_device_add(struct store *st, int64_t run, uint32_t dev,
		     const char *name, int64_t size_bytes, const char *role)
{
	const struct store_driver *d = st->drv;
	struct store_stmt *q = store_stmt_kept(st, STORE_K_DEVICE);

	if (!q)
		return -STORE_E_SQLITE;
	d->bind_i64(q, 1, run);
	d->bind_i64(q, 2, dev);
	if (name)
		d->bind_text(q, 3, name);
	else
		d->bind_null(q, 3);
	if (size_bytes > 0)
		d->bind_i64(q, 4, size_bytes);
	else
		d->bind_null(q, 4);
	d->bind_text(q, 5, role ? role : "data");
	return store_step_done(st, q);
}

int store_process_set(struct store *st, int64_t run, uint32_t pid,
		      const char *comm)
{
	struct store_stmt *q = store_stmt_kept(st, STORE_K_PROCESS);

	if (!q)
		return -STORE_E_SQLITE;
	st->drv->bind_i64(q, 1, run);
	st->drv->bind_i64(q, 2, pid);
	st->drv->bind_text(q, 3, comm);
	return store_step_done(st, q);
}

int store_processes_copy(struct store *st, int64_t run, int64_t from)
{
	static const struct store_sql sql = { .sql = "INSERT INTO processes (run, pid, "
		"comm) SELECT ?1, pid, comm FROM processes WHERE run = ?2 ON "
		"CONFLICT DO NOTHING" };

	return store_do(st, &sql, "storing processes", NULL, "ii", run, from);
}

int store_command_add(struct store *st, int64_t run,
		      const struct store_command *c)
{
	static const struct store_sql sql = { .sql = "INSERT INTO commands (run, idx, "
		"argv, start_ns, end_ns, real_s, user_s, sys_s, status) VALUES "
		"(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)" };
	int times = c->start_ns != STORE_NO_TIME && c->end_ns != STORE_NO_TIME;

	return store_do(st, &sql, "storing command", NULL, "iitoodddi", run,
			(int64_t)c->idx, c->argv, c->start_ns,
			c->start_ns != STORE_NO_TIME, c->end_ns,
			c->end_ns != STORE_NO_TIME, times ? c->real_s : NAN,
			times ? c->user_s : NAN, times ? c->sys_s : NAN,
			(int64_t)c->status);
}

int store_stat_set(struct store *st, int64_t run, const char *key,
		   const char *value)
{
	struct store_stmt *q = store_stmt_kept(st, STORE_K_STAT);

	if (!q)
		return -STORE_E_SQLITE;
	st->drv->bind_i64(q, 1, run);
	st->drv->bind_text(q, 2, key);
	if (value)
		st->drv->bind_text(q, 3, value);
	else
		st->drv->bind_null(q, 3);
	return store_step_done(st, q);
}

/* ---- the one-block lists ---- */

/* Reads the rows of sql (?1 = run) into a list: fill() makes each row from
 * the statement's columns. */
static int read_list(struct store *st, const struct store_sql *sql,
		     int64_t run, size_t row_size, const size_t *str_fields,
		     size_t nstr, void (*fill)(struct store *st,
					       struct store_list *l, void *row,
					       struct store_stmt *q),
		     void **out, size_t *n, const char *what)
{
	struct store_list l;
	struct store_stmt *q;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = store_prep(st, sql, 0, what, &q, "i", run)))
		return rc;
	store_list_init(&l, row_size, str_fields, nstr);
	while ((rc = st->drv->step(q)) > 0) {
		void *row = store_list_row(&l);
		if (!row)
			break;      /* out of memory: the list says so */
		fill(st, &l, row, q);
	}
	st->drv->finalize(q);
	if (rc < 0) {
		store_list_free(&l);
		return rc;
	}
	return store_list_finish(st, &l, out, n);
}

static const char *col_str(struct store *st, struct store_list *l,
			   struct store_stmt *q, int i)
{
	return store_list_str(l, st->drv->col_text(q, i));
}

static void fill_setting(struct store *st, struct store_list *l, void *row,
			 struct store_stmt *q)
{
	struct store_setting *r = row;
	const char *at = st->drv->col_text(q, 2);

	r->key = col_str(st, l, q, 0);
	r->value = col_str(st, l, q, 1);
	r->at = at && !strcmp(at, "end") ? STORE_AT_END : STORE_AT_START;
}

int store_settings_get(struct store *st, int64_t run,
		       struct store_setting **out, size_t *n)
{
	static const struct store_sql sql = { .sql = "SELECT key, value, at FROM "
		"settings WHERE run = ?1 ORDER BY key, at DESC" };
	static const size_t str[] = { offsetof(struct store_setting, key),
				      offsetof(struct store_setting, value) };

	return read_list(st, &sql, run, sizeof(**out), str, 2, fill_setting,
			 (void **)out, n, "reading settings");
}

const struct store_setting *store_setting_find(const struct store_setting *list,
					       size_t n, const char *key,
					       enum store_at at)
{
	/* by key, start before end: the first row of key is the start one
	 * when it was read then */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].key, key) &&
		    (at == STORE_AT_ANY || list[i].at == at))
			return &list[i];
	return NULL;
}

int store_setting_get(struct store *st, int64_t run, const char *key,
		      enum store_at at, char *value, size_t len)
{
	struct store_setting *s;
	const struct store_setting *hit;
	size_t n;
	int rc;

	if (len)
		value[0] = '\0';
	if ((rc = store_settings_get(st, run, &s, &n)))
		return rc;
	hit = store_setting_find(s, n, key, at);
	rc = hit && hit->value;
	if (rc && len)
		snprintf(value, len, "%s", hit->value);
	free(s);
	return rc;
}

static void fill_device(struct store *st, struct store_list *l, void *row,
			struct store_stmt *q)
{
	struct store_device *r = row;

	r->dev = (uint32_t)st->drv->col_i64(q, 0);
	r->name = col_str(st, l, q, 1);
	r->size_bytes = st->drv->col_i64(q, 2);
	r->role = col_str(st, l, q, 3);
}

int store_devices_get(struct store *st, int64_t run,
		      struct store_device **out, size_t *n)
{
	static const struct store_sql sql = { .sql = "SELECT dev, name, size_bytes, "
		"role FROM devices WHERE run = ?1 ORDER BY dev" };
	static const size_t str[] = { offsetof(struct store_device, name),
				      offsetof(struct store_device, role) };

	return read_list(st, &sql, run, sizeof(**out), str, 2, fill_device,
			 (void **)out, n, "reading devices");
}

static void fill_process(struct store *st, struct store_list *l, void *row,
			 struct store_stmt *q)
{
	struct store_process *r = row;

	r->pid = (uint32_t)st->drv->col_i64(q, 0);
	r->comm = col_str(st, l, q, 1);
}

int store_processes_get(struct store *st, int64_t run,
			struct store_process **out, size_t *n)
{
	static const struct store_sql sql = { .sql = "SELECT pid, comm FROM processes "
		"WHERE run = ?1 ORDER BY pid" };
	static const size_t str[] = { offsetof(struct store_process, comm) };

	return read_list(st, &sql, run, sizeof(**out), str, 1, fill_process,
			 (void **)out, n, "reading processes");
}

static void fill_command(struct store *st, struct store_list *l, void *row,
			 struct store_stmt *q)
{
	struct store_command *r = row;

	r->idx = (int)st->drv->col_i64(q, 0);
	r->argv = col_str(st, l, q, 1);
	r->start_ns = col_i64_or(st, q, 2, STORE_NO_TIME);
	r->end_ns = col_i64_or(st, q, 3, STORE_NO_TIME);
	r->real_s = col_f64_or_nan(st, q, 4);
	r->user_s = col_f64_or_nan(st, q, 5);
	r->sys_s = col_f64_or_nan(st, q, 6);
	r->status = (int)col_i64_or(st, q, 7, -1);
}

int store_commands_get(struct store *st, int64_t run,
		       struct store_command **out, size_t *n)
{
	static const struct store_sql sql = { .sql = "SELECT idx, argv, start_ns, "
		"end_ns, real_s, user_s, sys_s, status FROM commands WHERE run = ?1"
		" ORDER BY idx" };
	static const size_t str[] = { offsetof(struct store_command, argv) };

	return read_list(st, &sql, run, sizeof(**out), str, 1, fill_command,
			 (void **)out, n, "reading commands");
}

static void fill_stat(struct store *st, struct store_list *l, void *row,
		      struct store_stmt *q)
{
	struct store_stat *r = row;

	r->key = col_str(st, l, q, 0);
	r->value = col_str(st, l, q, 1);
}

int store_stats_get(struct store *st, int64_t run, struct store_stat **out,
		    size_t *n)
{
	static const struct store_sql sql = { .sql = "SELECT key, value FROM run_stats "
		"WHERE run = ?1 ORDER BY key" };
	static const size_t str[] = { offsetof(struct store_stat, key),
				      offsetof(struct store_stat, value) };

	return read_list(st, &sql, run, sizeof(**out), str, 2, fill_stat,
			 (void **)out, n, "reading run statistics");
}

/* ---- workload metrics (schema/005_metrics.sql; the front that adds the
 * commands' times is schema/store_metric.c) ---- */

int store_metric_row_set(struct store *st, int64_t run, const char *name,
			 double value, const char *unit, const char *source)
{
	static const struct store_sql sql = { .sql = "INSERT INTO metrics (run, name, "
		"value, unit, source) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (run,"
		" name) DO UPDATE SET value = excluded.value, unit = excluded.unit,"
		" source = excluded.source" };

	return store_do(st, &sql, "storing metric", NULL, "itdtt", run, name,
			value, unit, source);
}

static void fill_metric(struct store *st, struct store_list *l, void *row,
			struct store_stmt *q)
{
	struct store_metric *r = row;

	r->name = col_str(st, l, q, 0);
	r->value = st->drv->col_f64(q, 1);
	r->unit = col_str(st, l, q, 2);
	r->source = col_str(st, l, q, 3);
}

int store_metric_rows_get(struct store *st, int64_t run,
			  struct store_metric **out, size_t *n)
{
	static const struct store_sql sql = { .sql = "SELECT name, value, unit, source "
		"FROM metrics WHERE run = ?1 ORDER BY name" };
	static const size_t str[] = { offsetof(struct store_metric, name),
				      offsetof(struct store_metric, unit),
				      offsetof(struct store_metric, source) };

	return read_list(st, &sql, run, sizeof(**out), str, 3, fill_metric,
			 (void **)out, n, "reading metrics");
}

/* ---- run summaries (schema/007_summary.sql) ---- */

static const char *const dir_name[2] = { "read", "write" };

int store_summary_write(struct store *st, int64_t run,
			const struct store_summary *s)
{
	static const struct store_sql sql = { .sql = "INSERT INTO run_summary (run, "
		"dir, span_ns, requests, bytes, q2c_n, q2c_mean_ns, q2c_p50_ns, "
		"q2c_p99_ns, q2c_max_ns, d2c_n, d2c_mean_ns, d2c_p50_ns, "
		"d2c_p99_ns, d2c_max_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
		"?9, ?10, ?11, ?12, ?13, ?14, ?15) ON CONFLICT (run, dir) DO "
		"NOTHING" };
	int rc = 0;

	for (int d = 0; d < 2 && !rc; d++) {
		const struct store_summary_dir *x = &s->dir[d];
		const struct store_lat *q = &x->q2c, *c = &x->d2c;
		/* a latency of no requests is NULL */
		double qn = q->n ? 0 : NAN, cn = c->n ? 0 : NAN;
		rc = store_do(st, &sql, "storing summary", NULL, "itiiiiddddidddd",
			      run, dir_name[d], s->span_ns, x->requests, x->bytes,
			      q->n, q->mean_ns + qn, q->p50_ns + qn, q->p99_ns + qn,
			      q->max_ns + qn, c->n, c->mean_ns + cn, c->p50_ns + cn,
			      c->p99_ns + cn, c->max_ns + cn);
	}
	return rc;
}

static void lat_row(struct store *st, struct store_stmt *q, int i,
		    struct store_lat *l)
{
	l->n = st->drv->col_i64(q, i);
	l->mean_ns = col_f64_or_nan(st, q, i + 1);
	l->p50_ns = col_f64_or_nan(st, q, i + 2);
	l->p99_ns = col_f64_or_nan(st, q, i + 3);
	l->max_ns = col_f64_or_nan(st, q, i + 4);
}

int store_summary_read(struct store *st, int64_t run, struct store_summary *out)
{
	static const struct store_sql sql = { .sql = "SELECT dir = 'write', span_ns, "
		"requests, bytes, q2c_n, q2c_mean_ns, q2c_p50_ns, q2c_p99_ns, "
		"q2c_max_ns, d2c_n, d2c_mean_ns, d2c_p50_ns, d2c_p99_ns, d2c_max_ns"
		" FROM run_summary WHERE run = ?1" };
	struct store_stmt *q;
	int rc, found = 0;

	if ((rc = store_prep(st, &sql, 0, "reading summary", &q, "i", run)))
		return rc;
	while ((rc = st->drv->step(q)) > 0) {
		struct store_summary_dir *d = &out->dir[st->drv->col_i64(q, 0) != 0];
		out->span_ns = st->drv->col_i64(q, 1);
		d->requests = st->drv->col_i64(q, 2);
		d->bytes = st->drv->col_i64(q, 3);
		lat_row(st, q, 4, &d->q2c);
		lat_row(st, q, 9, &d->d2c);
		found = 1;
	}
	st->drv->finalize(q);
	return rc < 0 ? rc : found;
}

int store_summary_missing(struct store *st, int64_t **ids, size_t *n)
{
	/* a role that may not write summaries (a reader) back-fills none */
	static const struct store_sql may = { .sql = "SELECT 1", .dialect = { [STORE_DIALECT_PG] =
		"SELECT has_table_privilege('run_summary', 'INSERT')" } };
	static const struct store_sql sql = { .sql = "SELECT id FROM runs r WHERE NOT "
		"EXISTS (SELECT 1 FROM run_summary s WHERE s.run = r.id) ORDER BY id" };
	struct store_stmt *q;
	size_t cap = 0;
	int64_t yes;
	int rc;

	*ids = NULL;
	*n = 0;
	if ((rc = store_one_i64(st, &may, "reading summaries", &yes, NULL)) || !yes)
		return rc;
	if ((rc = store_prep(st, &sql, 0, "reading summaries", &q, NULL)))
		return rc;
	while ((rc = st->drv->step(q)) > 0) {
		if (*n == cap) {
			int64_t *p = realloc(*ids, (cap = cap ? 2 * cap : 16) *
					     sizeof(*p));
			if (!p) {
				rc = store_fail(st, ENOMEM, "out of memory");
				break;
			}
			*ids = p;
		}
		(*ids)[(*n)++] = st->drv->col_i64(q, 0);
	}
	st->drv->finalize(q);
	if (rc < 0) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return rc < 0 ? rc : 0;
}

int store_fleet_rank(struct store *st, const char *dir, const char *ncol,
		     const char *col, int64_t since_ns, size_t limit,
		     struct store_fleet_row **out, size_t *n)
{
	char text[640];
	struct store_sql sql = { .sql = text };
	struct store_stmt *q;
	size_t cap = 0;
	int rc;

	/* col and ncol are names from store_summary.c's tables; the ranking
	 * in the database: only the ranked rows come back */
	snprintf(text, sizeof(text), "SELECT r.id, r.name, r.host, r.kernel, "
		 "r.created_ns, s.%s, s.%s / CAST(1e3 AS double precision) FROM "
		 "run_summary s JOIN runs r ON r.id = s.run WHERE s.dir = ?1 AND "
		 "r.created_ns >= ?2 AND s.%s IS NOT NULL ORDER BY s.%s DESC, r.id "
		 "LIMIT ?3", ncol, col, col, col);
	if ((rc = store_prep(st, &sql, 0, "ranking runs", &q, "tii", dir, since_ns,
			     (int64_t)limit)))
		return rc;
	while ((rc = st->drv->step(q)) > 0) {
		struct store_fleet_row *f;
		if (*n == cap) {
			f = realloc(*out, (cap = cap ? 2 * cap : 16) * sizeof(*f));
			if (!f) {
				rc = store_fail(st, ENOMEM, "out of memory");
				break;
			}
			*out = f;
		}
		f = &(*out)[(*n)++];
		memset(f, 0, sizeof(*f));
		f->run = st->drv->col_i64(q, 0);
		col_copy(st, q, 1, f->name, sizeof(f->name));
		col_copy(st, q, 2, f->host, sizeof(f->host));
		col_copy(st, q, 3, f->kernel, sizeof(f->kernel));
		f->created_ns = st->drv->col_i64(q, 4);
		f->n = st->drv->col_i64(q, 5);
		f->value = st->drv->col_f64(q, 6);
	}
	st->drv->finalize(q);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}
