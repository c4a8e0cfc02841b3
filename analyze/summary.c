/* A run's headline figures for run_summary (schema/007_summary.sql), by
 * report's own code (report_build()), so `iotape fleet` ranks by the
 * numbers `iotape report` and `iotape compare` print for the run. */
#include "analyze/summary.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "analyze/rundata.h"
#include "analyze/runview.h"

static void lat_of(struct store_lat *l, const struct hist *h)
{
	l->n = (int64_t)h->n;
	l->mean_ns = h->n ? hist_mean(h) : NAN;
	l->p50_ns = h->n ? hist_pct(h, 50) : NAN;
	l->p99_ns = h->n ? hist_pct(h, 99) : NAN;
	l->max_ns = h->n ? (double)h->max : NAN;
}

/* out from report r (built: report_end() done). */
static void summary_of(struct store_summary *out, const struct report *r)
{
	memset(out, 0, sizeof(*out));
	out->span_ns = r->span_ns;
	for (int w = 0; w < 2; w++) {
		for (size_t i = 0; i < r->ndev; i++) {
			out->dir[w].requests += (int64_t)r->devs[i].dir[w].ios;
			out->dir[w].bytes += (int64_t)r->devs[i].dir[w].bytes;
		}
		lat_of(&out->dir[w].q2c, &r->q2c_dir[w]);
		lat_of(&out->dir[w].d2c, &r->d2c_dir[w]);
	}
}

/* Loads run's view into rv; 0, or -1 with the store's message in err (rv
 * closed then). */
static int view_of(struct runview *rv, struct store *st, int64_t run,
		   char *err, size_t errlen)
{
	char id[24];

	snprintf(id, sizeof(id), "%lld", (long long)run);
	if (!runview_load(rv, st, id))
		return 0;
	snprintf(err, errlen, "%s", store_errmsg(st));
	runview_close(rv);
	return -1;
}

/* ---- a writer's runs: report_add() a row at a time as they are written ---- */

int run_summaries_open(struct run_summaries *s, struct store *st, int64_t run)
{
	struct report *r;

	if (!s)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4;
		struct run_summary_acc *v = realloc(s->v, cap * sizeof(*v));
		if (!v) {
			store_fail_keep(st, "out of memory");
			return -ENOMEM;
		}
		s->v = v;
		s->cap = cap;
	}
	if (!(r = calloc(1, sizeof(*r)))) {
		store_fail_keep(st, "out of memory");
		return -ENOMEM;
	}
	report_begin(r, NULL);
	s->v[s->n].run = run;
	s->v[s->n++].rep = r;
	return 0;
}

void run_summaries_add(const struct run_summaries *s, int64_t run,
		       const struct store_request *rq)
{
	struct an_io x;

	if (!s)
		return;
	/* most transactions write one run: the last opened first */
	for (size_t i = s->n; i-- > 0;)
		if (s->v[i].run == run) {
			rundata_io_of(&x, rq);
			report_add(s->v[i].rep, &x);
			return;
		}
}

/* out from what r counted of run, the span from st's rows; 0, or -1 with
 * a line in err. */
static int counted(struct report *r, struct store *st, int64_t run,
		   struct store_summary *out, char *err, size_t errlen)
{
	struct runview rv;

	if (view_of(&rv, st, run, err, errlen))
		return -1;
	r->rv = &rv;
	r->span_ns = runview_span_ns(&rv);
	report_end(r);
	summary_of(out, r);
	runview_close(&rv);
	return 0;
}

int run_summarize(struct store *st, int64_t run, struct store_summary *out,
		  char *err, size_t errlen)
{
	struct store_cursor *cur;
	struct store_request rq;
	struct report r;
	int rc;

	/* the rows as they stream past, as a writer's run_summaries_add()
	 * counts them: no copy of the run in memory */
	if (store_requests_open(st, run, STORE_RQ_ALL_ANY, RD_COLS, &cur)) {
		snprintf(err, errlen, "%s", store_errmsg(st));
		return -1;
	}
	report_begin(&r, NULL);
	while ((rc = store_requests_next(cur, &rq, NULL)) == 1) {
		struct an_io x;
		rundata_io_of(&x, &rq);
		report_add(&r, &x);
	}
	store_cursor_close(cur);
	if (rc < 0)
		snprintf(err, errlen, "%s", store_errmsg(st));
	else
		rc = counted(&r, st, run, out, err, errlen);
	report_free(&r);
	return rc < 0 ? -1 : 0;
}

int run_summaries_write(struct run_summaries *s, struct store *st)
{
	int rc = 0;

	for (size_t i = 0; s && i < s->n && !rc; i++) {
		struct store_summary sum;
		char err[400];

		memset(&sum, 0, sizeof(sum));
		err[0] = 0;
		if (counted(s->v[i].rep, st, s->v[i].run, &sum, err, sizeof(err))) {
			char msg[512];
			snprintf(msg, sizeof(msg), "summarising run %lld: %s",
				 (long long)s->v[i].run, err);
			store_fail_keep(st, msg);
			rc = -STORE_E_SQLITE;
		} else {
			rc = store_summary_set(st, s->v[i].run, &sum);
		}
	}
	run_summaries_free(s);
	return rc;
}

void run_summaries_free(struct run_summaries *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		report_free(s->v[i].rep);
		free(s->v[i].rep);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int run_summary_backfill(struct store *st)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc;

	if ((rc = store_summary_missing(st, &ids, &n)) || !n)
		goto out;
	if (!(rc = store_begin(st))) {
		for (size_t i = 0; i < n && !rc; i++) {
			struct store_summary sum;
			char err[400];

			memset(&sum, 0, sizeof(sum));
			err[0] = 0;
			if (run_summarize(st, ids[i], &sum, err, sizeof(err)))
				rc = -STORE_E_SQLITE;
			else
				rc = store_summary_set(st, ids[i], &sum);
		}
		rc = rc ? rc : store_commit(st);
		if (rc)
			store_rollback(st);
	}
out:
	free(ids);
	/* never fatal: a writer's own run does not wait on an old one's
	 * figures */
	if (rc)
		store_fail_keep(st, "");
	return 0;
}
