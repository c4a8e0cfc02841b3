/* iostat -x's table per interval from stitched requests (see iostat.h):
 * counts by completion time as the kernel's diskstats do, in-flight and
 * busy time spread over the intervals they cover. */
#include "iostat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* A [a, b) time span, for the busy-time union. */
struct span {
	int64_t a, b;
};

static int cmp_span(const void *x, const void *y)
{
	const struct span *p = x, *q = y;
	return (p->a > q->a) - (p->a < q->a);
}

/* The bins' interval-row fields for [a, b) clipped to [from, end): adds
 * the overlap (ns) with each interval to acc[] */
static void spread(double *acc, int64_t a, int64_t b, int64_t from,
		   int64_t end, int64_t iv)
{
	if (a < from)
		a = from;
	if (b > end)
		b = end;
	if (b <= a)
		return;
	for (int64_t k = (a - from) / iv; from + k * iv < b; k++) {
		int64_t lo = from + k * iv, hi = lo + iv;
		if (lo < a)
			lo = a;
		if (hi > b)
			hi = b;
		acc[k] += (double)(hi - lo);
	}
}

static void max_time(int64_t *hi, int64_t t)
{
	if (t != AN_NONE && t > *hi)
		*hi = t;
}

/* A device's per-interval sums, nint long each, zeroed: the ns from each
 * completed request's start to its C and how many, by direction; the ns
 * of requests in flight (start to C); the ns busy (the union of [D, C)). */
struct dev_sums {
	double *await[2];
	uint64_t *nawait[2];
	double *inflight;
	double *busy;
};

/* The [a, b) spans whose union is the device's busy time. */
struct spans {
	struct span *sp;
	size_t n, cap;
};

static inline void span_add(struct spans *s, int64_t a, int64_t b)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->sp = xrealloc(s->sp, s->cap * sizeof(*s->sp));
	}
	s->sp[s->n].a = a;
	s->sp[s->n++].b = b;
}

/* Whether rows [i0, i1) of rd have a traced dispatch (a head request):
 * 1 or 0 (completed bios then stand for the requests). */
static int dev_has_heads(const struct rundata *rd, size_t i0, size_t i1)
{
	for (size_t i = i0; i < i1; i++)
		if (rundata_flags(rd, i) & AN_HEAD)
			return 1;
	return 0;
}

/* Adds the union of spans s (sorted here) to busy[], ns per interval of
 * iv ns from from to end. */
static void busy_union(struct spans *s, double *busy, int64_t from,
		       int64_t end, int64_t iv)
{
	struct span cur;

	if (!s->n)
		return;
	qsort(s->sp, s->n, sizeof(*s->sp), cmp_span);
	cur = s->sp[0];
	for (size_t i = 1; i <= s->n; i++) {
		if (i < s->n && s->sp[i].a <= cur.b) {
			if (s->sp[i].b > cur.b)
				cur.b = s->sp[i].b;
			continue;
		}
		spread(busy, cur.a, cur.b, from, end, iv);
		if (i < s->n)
			cur = s->sp[i];
	}
}

/* Request x, completed at x->c inside [from, end), counted in its
 * interval's row (rows[], of iv ns each): a flush, a read or write of
 * bytes, and its wait from start s (ns; AN_NONE: none) in sums. */
static inline void count_completion(const struct an_io *x, int w,
				    uint32_t bytes, int64_t s, int64_t from,
				    int64_t iv, struct iostat_row *rows,
				    struct dev_sums *sums)
{
	size_t k = (size_t)((x->c - from) / iv);
	struct iostat_row *r = &rows[k];

	if (x->flags & AN_FLUSH)
		r->f++;
	if (w) {
		r->w++;
		r->wsec += bytes / 512;
	} else {
		r->r++;
		r->rsec += bytes / 512;
	}
	if (s != AN_NONE && x->c >= s) {
		sums->await[w][k] += (double)(x->c - s);
		sums->nawait[w][k]++;
	}
}

/* The rates of rows[0..nint) of device dev, each interval iv ns from
 * from (the last ending at end), from their counts and sums: per s, mean
 * ms and kB, queue size and % busy as iostat -x's. */
static void rows_rates(struct iostat_row *rows, size_t nint, uint32_t dev,
		       int64_t from, int64_t end, int64_t iv,
		       const struct dev_sums *sums)
{
	for (size_t k = 0; k < nint; k++) {
		struct iostat_row *r = &rows[k];
		double len_s;
		r->dev = dev;
		r->t0_ns = from + (int64_t)k * iv;
		r->t1_ns = r->t0_ns + iv < end ? r->t0_ns + iv : end;
		len_s = (double)(r->t1_ns - r->t0_ns) / 1e9;
		r->r_s = (double)r->r / len_s;
		r->w_s = (double)r->w / len_s;
		r->rkb_s = (double)r->rsec / 2 / len_s;
		r->wkb_s = (double)r->wsec / 2 / len_s;
		r->f_s = (double)r->f / len_s;
		r->rrqm_s = (double)r->rmerge / len_s;
		r->wrqm_s = (double)r->wmerge / len_s;
		r->r_await_ms = sums->nawait[0][k] ? sums->await[0][k] / 1e6 /
			(double)sums->nawait[0][k] : NAN;
		r->w_await_ms = sums->nawait[1][k] ? sums->await[1][k] / 1e6 /
			(double)sums->nawait[1][k] : NAN;
		r->rareq_sz = r->r ? (double)r->rsec / 2 / (double)r->r : NAN;
		r->wareq_sz = r->w ? (double)r->wsec / 2 / (double)r->w : NAN;
		r->aqu_sz = sums->inflight[k] / (len_s * 1e9);
		r->util_pct = 100 * sums->busy[k] / (len_s * 1e9);
	}
}

/* The rows of rd's device kd over nint intervals of iv ns from from to
 * end (ns on the run's clock), rows[0..nint) zeroed by the caller. */
static void build_dev(const struct rundata *rd, size_t kd, int64_t from,
		      int64_t end, int64_t iv, size_t nint,
		      struct iostat_row *rows)
{
	struct dev_sums sums;
	struct spans sp = { NULL, 0, 0 };
	size_t i0 = rd->dev_first[kd], i1 = rd->dev_first[kd + 1];
	int heads = dev_has_heads(rd, i0, i1);

	sums.await[0] = xcalloc(nint, sizeof(double));
	sums.await[1] = xcalloc(nint, sizeof(double));
	sums.nawait[0] = xcalloc(nint, sizeof(uint64_t));
	sums.nawait[1] = xcalloc(nint, sizeof(uint64_t));
	sums.inflight = xcalloc(nint, sizeof(double));
	sums.busy = xcalloc(nint, sizeof(double));
	for (size_t i = i0; i < i1; i++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, i, &xb);
		int w = !!(x->flags & AN_WRITE);
		int req;
		uint32_t bytes;
		int64_t s;

		if ((x->flags & AN_MERGED) && x->m != AN_NONE &&
		    !(x->flags & AN_DISCARD) && x->m >= from && x->m < end) {
			struct iostat_row *r = &rows[(x->m - from) / iv];
			if (w)
				r->wmerge++;
			else
				r->rmerge++;
		}
		/* an empty flush (fsync's preflush, RWBS FWS of 0 bytes) is
		 * a write of 0 sectors to the kernel's counters as well as a
		 * flush: /proc/diskstats on Linux 6.18 counted 562 writes and
		 * 62 flushes for 500 WS and 62 FWS dispatches */
		/* no dispatches traced: completed bios stand for them */
		req = iostat_request(x, heads, &s);
		bytes = heads ? x->dbytes : x->bytes;
		/* no C: never completed, or its C went to a later request
		 * of the same sector (btt's pairing): no time to count */
		if ((x->flags & AN_HEAD) && x->d != AN_NONE && x->c != AN_NONE &&
		    x->c >= x->d)
			span_add(&sp, x->d, x->c);
		if (!req)
			continue;
		if (s != AN_NONE && x->c != AN_NONE && x->c >= s)
			spread(sums.inflight, s, x->c, from, end, iv);
		if (!heads && s != AN_NONE && x->c != AN_NONE && x->c >= s) {
			/* no D traced: busy from each request's start, as the
			 * kernel's io_ticks count it */
			span_add(&sp, s, x->c);
		}
		if (x->c != AN_NONE && x->c >= from && x->c < end)
			count_completion(x, w, bytes, s, from, iv, rows, &sums);
	}
	/* busy: the union of [D, C) (of [start, C) with no D traced) */
	busy_union(&sp, sums.busy, from, end, iv);
	rows_rates(rows, nint, rd->devs[kd], from, end, iv, &sums);
	free(sums.await[0]);
	free(sums.await[1]);
	free(sums.nawait[0]);
	free(sums.nawait[1]);
	free(sums.inflight);
	free(sums.busy);
	free(sp.sp);
}

int iostat_build(const struct rundata *rd, const struct iostat_opts *o,
		 struct iostat_row **rows, size_t *nrows)
{
	int64_t iv = o->interval_ns, from = o->from_ns, end, hi = INT64_MIN;
	size_t ndev = rd->ndevs, nint;

	*rows = NULL;
	*nrows = 0;
	if (iv <= 0)
		return -EINVAL;
	for (size_t i = 0; i < rd->n; i++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, i, &xb);
		max_time(&hi, x->q);
		max_time(&hi, x->d);
		max_time(&hi, x->c);
		max_time(&hi, x->m);
	}
	/* --to ends the last interval, else the last time seen (1 ns after) */
	end = o->to_ns != INT64_MAX ? o->to_ns : hi == INT64_MIN ? from : hi + 1;
	/* nothing to count: a window past the run's end, or no device in it */
	if (end <= from || !ndev)
		return 0;
	nint = (size_t)((end - from - 1) / iv + 1);
	if (nint > 10000000 / ndev)
		return -EINVAL;
	*rows = xcalloc(ndev * nint, sizeof(**rows));
	/* the run's devices, ascending: each one's rows lie together */
	for (size_t d = 0; d < ndev; d++)
		build_dev(rd, d, from, end, iv, nint, *rows + d * nint);
	*nrows = ndev * nint;
	return 0;
}
