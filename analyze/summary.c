/* A run's headline figures for run_summary (schema/007_summary.sql), by
 * report's own code (report_build()), so `iotape fleet` ranks by the
 * numbers `iotape report` and `iotape compare` print for the run. */
#include "analyze/summary.h"

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

int run_summarize(struct store *st, int64_t run, struct store_summary *out,
		  char *err, size_t errlen)
{
	struct runview rv;
	struct rundata rd;
	struct report rep;
	int rc;

	if (view_of(&rv, st, run, err, errlen))
		return -1;
	if ((rc = rundata_load(&rd, &rv))) {
		snprintf(err, errlen, "%s", store_errmsg(st));
		runview_close(&rv);
		return -1;
	}
	report_build(&rep, &rd);
	summary_of(out, &rep);
	report_free(&rep);
	rundata_free(&rd);
	runview_close(&rv);
	return 0;
}

/* ---- the stream: report_add() a row at a time as the run is written ---- */

static void *stream_open(void)
{
	struct report *r = calloc(1, sizeof(*r));

	if (r)
		report_begin(r, NULL);
	return r;
}

static void stream_add(void *acc, const struct store_request *rq)
{
	struct an_io x;

	rundata_io_of(&x, rq);
	report_add(acc, &x);
}

static int stream_close(void *acc, struct store *st, int64_t run,
			struct store_summary *out, char *err, size_t errlen)
{
	struct report *r = acc;
	struct runview rv;
	int rc = 0;

	if (out && !(rc = view_of(&rv, st, run, err, errlen))) {
		r->rv = &rv;
		r->span_ns = runview_span_ns(&rv);
		report_end(r);
		summary_of(out, r);
		runview_close(&rv);
	}
	report_free(r);
	free(r);
	return rc;
}

const struct store_summary_stream run_summary_stream = {
	.open = stream_open,
	.add = stream_add,
	.close = stream_close,
};
