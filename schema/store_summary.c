/* The store's front for run summaries (store.h, schema/007_summary.sql):
 * the summarizer a program sets, the runs a transaction finished that need
 * one at commit, the back-fill of runs without one, and the names of the
 * figures `iotape fleet` ranks by. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/store_driver.h"

static store_summarize_fn summarizer;
static const struct store_summary_stream *stream;

void store_set_summarizer(store_summarize_fn fn)
{
	summarizer = fn;
}

void store_set_summary_stream(const struct store_summary_stream *ops)
{
	stream = ops;
}

int store_summary_stream_open(struct store *st, int64_t run)
{
	void *acc;

	if (!stream || !summarizer)
		return 0;
	if (st->nstreams == st->scap) {
		size_t cap = st->scap ? 2 * st->scap : 4;
		struct store_stream *p = realloc(st->streams, cap * sizeof(*p));
		if (!p)
			return store_fail(st, ENOMEM, "out of memory");
		st->streams = p;
		st->scap = cap;
	}
	if (!(acc = stream->open()))
		return store_fail(st, ENOMEM, "out of memory");
	st->streams[st->nstreams].run = run;
	st->streams[st->nstreams++].acc = acc;
	return 0;
}

void store_summary_stream_add(struct store *st, int64_t run,
			      const struct store_request *rq)
{
	/* most transactions write one run: the last opened first */
	for (size_t i = st->nstreams; i-- > 0;)
		if (st->streams[i].run == run) {
			stream->add(st->streams[i].acc, rq);
			return;
		}
}

/* run's stream taken out of st's list (NULL when it has none). */
static void *stream_take(struct store *st, int64_t run)
{
	for (size_t i = 0; i < st->nstreams; i++)
		if (st->streams[i].run == run) {
			void *acc = st->streams[i].acc;
			st->streams[i] = st->streams[--st->nstreams];
			return acc;
		}
	return NULL;
}

int store_summary_note(struct store *st, int64_t run)
{
	if (!summarizer)
		return 0;
	for (size_t i = 0; i < st->npending; i++)
		if (st->pending[i] == run)
			return 0;
	if (st->npending == st->pcap) {
		size_t cap = st->pcap ? 2 * st->pcap : 4;
		int64_t *p = realloc(st->pending, cap * sizeof(*p));
		if (!p)
			return store_fail(st, ENOMEM, "out of memory");
		st->pending = p;
		st->pcap = cap;
	}
	st->pending[st->npending++] = run;
	return 0;
}

void store_summary_forget(struct store *st)
{
	st->npending = 0;
	while (st->nstreams) {
		struct store_stream *t = &st->streams[--st->nstreams];
		stream->close(t->acc, st, t->run, NULL, NULL, 0);
	}
}

/* Summarises run (from its stream when it has one, else read back) and
 * writes its rows. */
static int summarize(struct store *st, int64_t run)
{
	struct store_summary s;
	char err[sizeof(st->msg) - 40];
	void *acc = stream_take(st, run);

	memset(&s, 0, sizeof(s));
	err[0] = 0;
	if (acc ? stream->close(acc, st, run, &s, err, sizeof(err))
		: summarizer(st, run, &s, err, sizeof(err)))
		return store_fail(st, STORE_E_SQLITE, "summarising run %lld: %s",
				  (long long)run, err);
	return store_summary_write(st, run, &s);
}

int store_summary_pending(struct store *st)
{
	int rc = 0;

	/* summarize() may note nothing: it only reads and writes rows */
	for (size_t i = 0; i < st->npending && !rc; i++)
		rc = summarize(st, st->pending[i]);
	st->npending = 0;
	return rc;
}

int store_summary_backfill(struct store *st, enum store_open_mode m)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc;

	if (!summarizer)
		return 0;
	if ((rc = store_summary_missing(st, &ids, &n)) || !n)
		goto out;
	if (!(rc = st->drv->begin(st, 0))) {
		for (size_t i = 0; i < n && !rc; i++)
			rc = summarize(st, ids[i]);
		rc = rc ? rc : st->drv->commit(st);
		if (rc)
			st->drv->rollback(st);
	}
out:
	free(ids);
	/* never fatal: a reader (its role may not write, its file may be
	 * read-only) reads the runs as they are, and a writer's own run does
	 * not wait on an old one's figures; fleet leaves out runs without */
	(void)m;
	if (rc)
		st->msg[0] = 0;
	return 0;
}

int store_summary_set(struct store *st, int64_t run,
		      const struct store_summary *s)
{
	int rc;

	if ((rc = store_summary_write(st, run, s)))
		return rc;
	for (size_t i = 0; i < st->npending; i++)
		if (st->pending[i] == run)
			st->pending[i--] = st->pending[--st->npending];
	return 0;
}

int store_summary_get(struct store *st, int64_t run, struct store_summary *out)
{
	memset(out, 0, sizeof(*out));
	return store_summary_read(st, run, out);
}

int store_fleet_worst(struct store *st, const char *metric, int64_t since_ns,
		      size_t limit, struct store_fleet_row **out, size_t *n)
{
	/* every column name comes from these tables, never from the
	 * caller's text */
	static const char *const dirs[] = { "read", "write" };
	static const char *const lats[] = { "q2c", "d2c" };
	static const char *const cols[][4] = {
		{ "q2c_mean_ns", "q2c_p50_ns", "q2c_p99_ns", "q2c_max_ns" },
		{ "d2c_mean_ns", "d2c_p50_ns", "d2c_p99_ns", "d2c_max_ns" },
	};
	static const char *const stats[] = { "mean", "p50", "p99", "max" };
	static const char *const ncols[] = { "q2c_n", "d2c_n" };

	*out = NULL;
	*n = 0;
	for (int d = 0; d < 2; d++)
		for (int l = 0; l < 2; l++)
			for (int k = 0; k < 4; k++) {
				char name[32];
				snprintf(name, sizeof(name), "%s_%s_%s", dirs[d],
					 lats[l], stats[k]);
				if (!strcmp(name, metric))
					return store_fleet_rank(st, dirs[d],
						ncols[l], cols[l][k], since_ns,
						limit, out, n);
			}
	return store_fail(st, STORE_E_NOTFOUND, "no figure '%s' to rank by "
			  "(%s)", metric, STORE_FLEET_METRICS);
}
