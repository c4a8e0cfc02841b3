/* The PostgreSQL back end's run summaries (schema/pg/007_summary.sql):
 * write and read a run's two rows, list the runs without any, and rank runs
 * by one figure of them for `iotape fleet`, in the server. */
#include "schema/store_pg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_name[2] = { "read", "write" };

/* v as text PostgreSQL reads back bit for bit, or NULL (SQL NULL) */
static const char *num(char *buf, double v, int present)
{
	if (!present || !isfinite(v))
		return NULL;
	snprintf(buf, 32, "%.17g", v);
	return buf;
}

int pg_summary_set(struct store *st, int64_t run, const struct store_summary *s)
{
	char b[15][32];
	const char *p[15];
	int rc = 0;

	for (int d = 0; d < 2 && !rc; d++) {
		const struct store_summary_dir *x = &s->dir[d];
		const struct store_lat *l[2] = { &x->q2c, &x->d2c };
		p[0] = pg_i64(b[0], run);
		p[1] = dir_name[d];
		p[2] = pg_i64(b[2], s->span_ns);
		p[3] = pg_i64(b[3], x->requests);
		p[4] = pg_i64(b[4], x->bytes);
		for (int k = 0; k < 2; k++) {
			int i = 5 + 5 * k;
			p[i] = pg_i64(b[i], l[k]->n);
			p[i + 1] = num(b[i + 1], l[k]->mean_ns, l[k]->n > 0);
			p[i + 2] = num(b[i + 2], l[k]->p50_ns, l[k]->n > 0);
			p[i + 3] = num(b[i + 3], l[k]->p99_ns, l[k]->n > 0);
			p[i + 4] = num(b[i + 4], l[k]->max_ns, l[k]->n > 0);
		}
		rc = pg_exec(pg(st), "INSERT INTO run_summary (run, dir, span_ns, "
			     "requests, bytes, q2c_n, q2c_mean_ns, q2c_p50_ns, "
			     "q2c_p99_ns, q2c_max_ns, d2c_n, d2c_mean_ns, d2c_p50_ns, "
			     "d2c_p99_ns, d2c_max_ns) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,"
			     "$9,$10,$11,$12,$13,$14,$15) ON CONFLICT (run, dir) DO "
			     "NOTHING", 15, p, NULL, "storing summary");
	}
	return rc;
}

static void get_lat(const PGresult *r, int row, int i, struct store_lat *l)
{
	l->n = pg_get_i64(r, row, i, 0);
	l->mean_ns = pg_get_double(r, row, i + 1);
	l->p50_ns = pg_get_double(r, row, i + 2);
	l->p99_ns = pg_get_double(r, row, i + 3);
	l->max_ns = pg_get_double(r, row, i + 4);
}

int pg_summary_get(struct store *st, int64_t run, struct store_summary *out)
{
	char id[24];
	const char *p[1] = { pg_i64(id, run) };
	PGresult *r;
	int rc, rows;

	if ((rc = pg_exec(pg(st), "SELECT (dir = 'write')::int, span_ns, "
			  "requests, bytes, q2c_n, q2c_mean_ns, q2c_p50_ns, "
			  "q2c_p99_ns, q2c_max_ns, d2c_n, d2c_mean_ns, d2c_p50_ns, "
			  "d2c_p99_ns, d2c_max_ns FROM run_summary WHERE run = $1",
			  1, p, &r, "reading summary")))
		return rc;
	rows = PQntuples(r);
	for (int k = 0; k < rows; k++) {
		struct store_summary_dir *d = &out->dir[pg_get_i64(r, k, 0, 0) != 0];
		out->span_ns = pg_get_i64(r, k, 1, 0);
		d->requests = pg_get_i64(r, k, 2, 0);
		d->bytes = pg_get_i64(r, k, 3, 0);
		get_lat(r, k, 4, &d->q2c);
		get_lat(r, k, 9, &d->d2c);
	}
	PQclear(r);
	return rows > 0;
}

int pg_summary_missing(struct store *st, int64_t **ids, size_t *n)
{
	PGresult *r;
	int64_t may;
	int rc, rows;

	*ids = NULL;
	*n = 0;
	/* a role that may not write summaries (a reader) back-fills none */
	if ((rc = pg_exec(pg(st), "SELECT has_table_privilege('run_summary', "
			  "'INSERT')::int", 0, NULL, &r, "reading summaries")))
		return rc;
	may = pg_get_i64(r, 0, 0, 0);
	PQclear(r);
	if (!may)
		return 0;
	if ((rc = pg_exec(pg(st), "SELECT id FROM runs r WHERE NOT EXISTS (SELECT"
			  " 1 FROM run_summary s WHERE s.run = r.id) ORDER BY id", 0,
			  NULL, &r, "reading summaries")))
		return rc;
	rows = PQntuples(r);
	if (rows && !(*ids = calloc((size_t)rows, sizeof(**ids)))) {
		PQclear(r);
		return store_fail(st, ENOMEM, "out of memory");
	}
	for (int k = 0; k < rows; k++)
		(*ids)[k] = pg_get_i64(r, k, 0, 0);
	*n = (size_t)rows;
	PQclear(r);
	return 0;
}

int pg_fleet_worst(struct store *st, const char *dir, const char *ncol,
		   const char *col, int64_t since_ns, size_t limit,
		   struct store_fleet_row **out, size_t *n)
{
	char sql[640], since[24], lim[24];
	const char *p[3] = { dir, pg_i64(since, since_ns),
			     pg_i64(lim, (int64_t)limit) };
	PGresult *r;
	int rc, rows;

	/* col and ncol are names from store_summary.c's tables; the ranking
	 * in the server: only the ranked rows come back */
	snprintf(sql, sizeof(sql), "SELECT r.id, r.name, r.host, r.kernel, "
		 "r.created_ns, s.%s, s.%s / 1e3::float8 FROM run_summary s JOIN "
		 "runs r ON r.id = s.run WHERE s.dir = $1 AND r.created_ns >= $2 "
		 "AND s.%s IS NOT NULL ORDER BY s.%s DESC, r.id LIMIT $3", ncol,
		 col, col, col);
	if ((rc = pg_exec(pg(st), sql, 3, p, &r, "ranking runs")))
		return rc;
	rows = PQntuples(r);
	if (rows && !(*out = calloc((size_t)rows, sizeof(**out)))) {
		PQclear(r);
		return store_fail(st, ENOMEM, "out of memory");
	}
	for (int k = 0; k < rows; k++) {
		struct store_fleet_row *f = &(*out)[k];
		f->run = pg_get_i64(r, k, 0, 0);
		pg_get_copy(r, k, 1, f->name, sizeof(f->name));
		pg_get_copy(r, k, 2, f->host, sizeof(f->host));
		pg_get_copy(r, k, 3, f->kernel, sizeof(f->kernel));
		f->created_ns = pg_get_i64(r, k, 4, 0);
		f->n = pg_get_i64(r, k, 5, 0);
		f->value = pg_get_double(r, k, 6);
	}
	*n = (size_t)rows;
	PQclear(r);
	return 0;
}
