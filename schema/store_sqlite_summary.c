/* The SQLite back end's run summaries (schema/007_summary.sql): write and
 * read a run's two rows, list the runs without any, and rank runs by one
 * figure of them for `iotape fleet`. */
#include "schema/store_sqlite.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_name[2] = { "read", "write" };

static void bind_lat(sqlite3_stmt *q, int i, const struct store_lat *l)
{
	const double v[4] = { l->mean_ns, l->p50_ns, l->p99_ns, l->max_ns };

	sqlite3_bind_int64(q, i, l->n);
	for (int k = 0; k < 4; k++)
		if (l->n && isfinite(v[k]))
			sqlite3_bind_double(q, i + 1 + k, v[k]);
		else
			sqlite3_bind_null(q, i + 1 + k);
}

int sq_summary_set(struct store *st, int64_t run, const struct store_summary *s)
{
	struct sqlite_store *sl = sq(st);
	sqlite3_stmt *q;
	int rc;

	if ((rc = sq_flush_events(sl)) ||
	    (rc = sq_prepare(sl, "INSERT OR IGNORE INTO run_summary (run, dir, "
			     "span_ns, requests, bytes, q2c_n, q2c_mean_ns, "
			     "q2c_p50_ns, q2c_p99_ns, q2c_max_ns, d2c_n, d2c_mean_ns,"
			     " d2c_p50_ns, d2c_p99_ns, d2c_max_ns) VALUES (?,?,?,?,"
			     "?,?,?,?,?,?,?,?,?,?,?)", &q, "storing summary")))
		return rc;
	for (int d = 0; d < 2 && !rc; d++) {
		sqlite3_bind_int64(q, 1, run);
		sqlite3_bind_text(q, 2, dir_name[d], -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 3, s->span_ns);
		sqlite3_bind_int64(q, 4, s->dir[d].requests);
		sqlite3_bind_int64(q, 5, s->dir[d].bytes);
		bind_lat(q, 6, &s->dir[d].q2c);
		bind_lat(q, 11, &s->dir[d].d2c);
		rc = sq_step_done(sl, q, "storing summary");
	}
	sqlite3_finalize(q);
	return rc;
}

static double col_or_nan(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN
						       : sqlite3_column_double(q, i);
}

static void col_lat(sqlite3_stmt *q, int i, struct store_lat *l)
{
	l->n = sqlite3_column_int64(q, i);
	l->mean_ns = col_or_nan(q, i + 1);
	l->p50_ns = col_or_nan(q, i + 2);
	l->p99_ns = col_or_nan(q, i + 3);
	l->max_ns = col_or_nan(q, i + 4);
}

int sq_summary_get(struct store *st, int64_t run, struct store_summary *out)
{
	struct sqlite_store *sl = sq(st);
	sqlite3_stmt *q;
	int rc, found = 0;

	if ((rc = sq_flush_events(sl)) ||
	    (rc = sq_prepare(sl, "SELECT dir = 'write', span_ns, requests, bytes,"
			     " q2c_n, q2c_mean_ns, q2c_p50_ns, q2c_p99_ns, "
			     "q2c_max_ns, d2c_n, d2c_mean_ns, d2c_p50_ns, d2c_p99_ns,"
			     " d2c_max_ns FROM run_summary WHERE run = ?", &q,
			     "reading summary")))
		return rc;
	sqlite3_bind_int64(q, 1, run);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_summary_dir *d = &out->dir[sqlite3_column_int(q, 0)];
		out->span_ns = sqlite3_column_int64(q, 1);
		d->requests = sqlite3_column_int64(q, 2);
		d->bytes = sqlite3_column_int64(q, 3);
		col_lat(q, 4, &d->q2c);
		col_lat(q, 9, &d->d2c);
		found = 1;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return sq_fail(sl, STORE_E_SQLITE, "reading summary");
	return found;
}

int sq_summary_missing(struct store *st, int64_t **ids, size_t *n)
{
	struct sqlite_store *sl = sq(st);
	sqlite3_stmt *q;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if ((rc = sq_flush_events(sl)) ||
	    (rc = sq_prepare(sl, "SELECT id FROM runs r WHERE NOT EXISTS (SELECT 1"
			     " FROM run_summary s WHERE s.run = r.id) ORDER BY id",
			     &q, "reading summaries")))
		return rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (*n == cap) {
			int64_t *p = realloc(*ids, (cap = cap ? 2 * cap : 16) *
					     sizeof(*p));
			if (!p) {
				sqlite3_finalize(q);
				return store_fail(st, ENOMEM, "out of memory");
			}
			*ids = p;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return sq_fail(sl, STORE_E_SQLITE, "reading summaries");
	return 0;
}

int sq_fleet_worst(struct store *st, const char *dir, const char *ncol,
		   const char *col, int64_t since_ns, size_t limit,
		   struct store_fleet_row **out, size_t *n)
{
	struct sqlite_store *sl = sq(st);
	sqlite3_stmt *q;
	char sql[640];
	size_t cap = 0;
	int rc;

	/* col and ncol are names from store_summary.c's tables */
	snprintf(sql, sizeof(sql), "SELECT r.id, r.name, r.host, r.kernel, "
		 "r.created_ns, s.%s, s.%s / 1e3 FROM run_summary s JOIN runs r ON "
		 "r.id = s.run WHERE s.dir = ?1 AND r.created_ns >= ?2 AND s.%s IS "
		 "NOT NULL ORDER BY s.%s DESC, r.id LIMIT ?3", ncol, col, col, col);
	if ((rc = sq_flush_events(sl)) ||
	    (rc = sq_prepare(sl, sql, &q, "ranking runs")))
		return rc;
	sqlite3_bind_text(q, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, since_ns);
	sqlite3_bind_int64(q, 3, (int64_t)limit);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_fleet_row *f;
		if (*n == cap) {
			f = realloc(*out, (cap = cap ? 2 * cap : 16) * sizeof(*f));
			if (!f) {
				sqlite3_finalize(q);
				return store_fail(st, ENOMEM, "out of memory");
			}
			*out = f;
		}
		f = &(*out)[(*n)++];
		memset(f, 0, sizeof(*f));
		f->run = sqlite3_column_int64(q, 0);
		sq_col_copy(q, 1, f->name, sizeof(f->name));
		sq_col_copy(q, 2, f->host, sizeof(f->host));
		sq_col_copy(q, 3, f->kernel, sizeof(f->kernel));
		f->created_ns = sqlite3_column_int64(q, 4);
		f->n = sqlite3_column_int64(q, 5);
		f->value = sqlite3_column_double(q, 6);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return sq_fail(sl, STORE_E_SQLITE, "ranking runs");
	return 0;
}
