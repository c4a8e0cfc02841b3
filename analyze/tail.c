/* The tail of a latency figure (tail.h). */
#include "analyze/tail.h"
#include "analyze/fold.h"
#include "analyze/splitjoin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

int tail_figure(const char *figure, struct tail *t)
{
	char dir[8], kind[8];
	int pct, used = 0;

	memset(t, 0, sizeof(*t));
	if (sscanf(figure, "%7[a-z]_%7[a-z0-9]_p%d_us%n", dir, kind, &pct,
		   &used) != 3 || figure[used] != '\0')
		return 0;
	if ((strcmp(dir, "read") && strcmp(dir, "write")) ||
	    (strcmp(kind, "q2c") && strcmp(kind, "d2c")) || pct < 90 || pct > 100)
		return 0;
	t->dir = !strcmp(dir, "write");
	t->d2c = !strcmp(kind, "d2c");
	t->pct = pct;
	return 1;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* A flush's time in flight, or a write's dispatch, on one device. */
struct span {
	uint32_t dev, pid;
	int64_t t0, t1;         /* flush: D (or Q) to C; write: D, D */
	size_t row;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* The first of s[0..n) at or after (dev, t). */
static size_t lower(const struct span *s, size_t n, uint32_t dev, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (s[m].dev < dev || (s[m].dev == dev && s[m].t0 < t))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* After f[0..nf) is sorted: m[k] for each k, the two flushes (indices) of
 * f[k]'s device up to k with the latest ends, [1] -1 when there is one:
 * whether any flush that began before a time was still in flight after
 * another is one look (prefix maxima), whatever the flushes' lengths. */
static void flush_maxima(const struct span *f, size_t nf, long (*m)[2])
{
	for (size_t k = 0; k < nf; k++) {
		long a = -1, b = -1;
		if (k && f[k - 1].dev == f[k].dev) {
			a = m[k - 1][0];
			b = m[k - 1][1];
		}
		if (a < 0 || f[k].t1 > f[a].t1) {
			b = a;
			a = (long)k;
		} else if (b < 0 || f[k].t1 > f[b].t1)
			b = (long)k;
		m[k][0] = a;
		m[k][1] = b;
	}
}

/* A flush of f[0..nf) (maxima m: flush_maxima()) on dev in flight some
 * time in (a, b), not row self; its index, or -1. */
static long flush_in(const struct span *f, size_t nf, long (*m)[2],
		     uint32_t dev, int64_t a, int64_t b, size_t self)
{
	size_t hi = lower(f, nf, dev, b);      /* those before began before b */
	long k;

	if (!hi || f[hi - 1].dev != dev)
		return -1;
	k = m[hi - 1][0];
	if (f[k].row == self)
		k = m[hi - 1][1];
	return k >= 0 && f[k].t1 > a ? k : -1;
}

/* 1 when a write of another process than pid was dispatched on dev in
 * [a, b] (w[0..nw)); looks at the first 256 there. */
static int write_in(const struct span *w, size_t nw, uint32_t dev, int64_t a,
		    int64_t b, uint32_t pid)
{
	size_t k = lower(w, nw, dev, a);

	for (int seen = 0; k < nw && w[k].dev == dev && w[k].t0 <= b &&
	     seen < 256; k++, seen++)
		if (w[k].pid != pid)
			return 1;
	return 0;
}

/* 1 when row x (row i) counts in the figure report builds (report_add(),
 * figures.c): a bio with data of direction dir, with its start (Q, or D
 * for D2C) and C seen in order; of a bio an X split, for Q2C the piece
 * that completed last (last[i], from its Q: the issuer's wait), for D2C
 * none (btt pairs neither half); its latency in *lat, its start in *a. */
static int in_figure(const struct an_io *x, size_t i, const uint8_t *last,
		     const struct tail *t, int64_t *a, int64_t *lat)
{
	*a = t->d2c ? x->d : x->q;
	if (!x->bytes || !!(x->flags & AN_WRITE) != t->dir ||
	    ((x->flags & AN_SPLIT) && (t->d2c || !last[i])) || *a == AN_NONE ||
	    x->c == AN_NONE || x->c < *a)
		return 0;
	*lat = x->c - *a;
	return 1;
}

/* splitjoin's whole bio: its last piece's row marked */
static void mark_last(void *ctx, const struct split_bio *b)
{
	((uint8_t *)ctx)[b->row] = 1;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The k-th largest of v[0..n) (1 <= k <= n), v reordered: quickselect on
 * the middle element, qsort under 32. */
static int64_t kth_largest(int64_t *v, size_t n, size_t k)
{
	size_t want = n - k, lo = 0, hi = n;    /* v[want] in order, ascending */

	while (hi - lo > 32) {
		int64_t piv = v[lo + (hi - lo) / 2];
		size_t lt = lo, gt = hi, i = lo;
		/* three ways: < piv, == piv, > piv */
		while (i < gt) {
			if (v[i] < piv) {
				int64_t tmp = v[i]; v[i] = v[lt]; v[lt] = tmp;
				lt++, i++;
			} else if (v[i] > piv) {
				int64_t tmp = v[i]; v[i] = v[--gt]; v[gt] = tmp;
			} else
				i++;
		}
		if (want < lt)
			hi = lt;
		else if (want >= gt)
			lo = gt;
		else
			return piv;
	}
	qsort(v + lo, hi - lo, sizeof(*v), i64_cmp);
	return v[want];
}

/* tail_measure()'s passes over each request once, in the run's order:
 * the split bios' last pieces, then the figure's latencies and the
 * flushes and writes, then each request of the figure in or out of the
 * tail. Requests are numbered as they pass (the same each pass). */
struct tail_pass {
	struct tail *t;
	struct splitjoin sj;
	uint8_t *last;
	size_t i, nrows;
	int64_t *lat;
	size_t nlat;
	struct span *f, *w;
	size_t nf, nw, capf, capw;
	long (*fmax_k)[2];
	uint32_t *by_pid;
	size_t nmet, capm;
	double fsum;
};

static void pass_last(void *ctx, const struct fold_ev *e)
{
	struct tail_pass *p = ctx;

	splitjoin_add(&p->sj, e->io, p->i++);
}

static void pass_lat(void *ctx, const struct fold_ev *e)
{
	struct tail_pass *p = ctx;
	struct tail *t = p->t;
	const struct an_io *x = e->io;
	size_t i = p->i++;
	int64_t s = x->d != AN_NONE ? x->d : x->q, a, l;

	if (in_figure(x, i, p->last, t, &a, &l))
		p->lat[p->nlat++] = l;
	if (x->c == AN_NONE || s == AN_NONE || x->c < s)
		return;
	if (x->flags & (AN_FLUSH | AN_FUA)) {
		if (p->nf == p->capf) {
			p->capf = p->capf ? 2 * p->capf : 64;
			p->f = xrealloc(p->f, p->capf * sizeof(*p->f));
		}
		p->f[p->nf++] = (struct span){ x->dev, x->pid, s, x->c, i };
		if (x->d != AN_NONE) {
			t->flushes++;
			p->fsum += (double)(x->c - x->d);
		}
	}
	if ((x->flags & AN_WRITE) && x->bytes && x->d != AN_NONE) {
		if (p->nw == p->capw) {
			p->capw = p->capw ? 2 * p->capw : 256;
			p->w = xrealloc(p->w, p->capw * sizeof(*p->w));
		}
		p->w[p->nw++] = (struct span){ x->dev, x->pid, x->d, x->d, i };
	}
}

static void pass_tail(void *ctx, const struct fold_ev *e)
{
	struct tail_pass *p = ctx;
	struct tail *t = p->t;
	const struct an_io *x = e->io;
	size_t i = p->i++;
	int64_t a, l;
	long k;
	int wr;

	if (!in_figure(x, i, p->last, t, &a, &l))
		return;
	k = flush_in(p->f, p->nf, p->fmax_k, x->dev, a, x->c, i);
	wr = write_in(p->w, p->nw, x->dev, a, x->c, x->pid);
	if (l >= t->thr_ns) {
		t->n++;
		t->flush_n += k >= 0;
		t->write_n += wr;
		if (k >= 0) {
			if (p->nmet == p->capm) {
				p->capm = p->capm ? 2 * p->capm : 64;
				p->by_pid = xrealloc(p->by_pid, p->capm *
						     sizeof(*p->by_pid));
			}
			p->by_pid[p->nmet++] = p->f[k].pid;
		}
		if (!t->d2c && x->d != AN_NONE && x->d >= x->q) {
			t->n_d++;
			t->q2d_s += (double)(x->d - x->q) / 1e9;
			t->d2c_s += (double)(x->c - x->d) / 1e9;
		}
	} else {
		t->n_rest++;
		t->flush_rest_n += k >= 0;
		t->write_rest_n += wr;
	}
}

void tail_measure(const struct rundata *rd, struct tail *t)
{
	struct tail_pass p = { .t = t };

	t->n = t->n_rest = t->flush_n = t->flush_rest_n = 0;
	t->write_n = t->write_rest_n = t->n_d = t->flushes = 0;
	t->q2d_s = t->d2c_s = t->flush_d2c_mean_us = 0;
	t->flush_pid = 0;
	t->thr_ns = 0;
	p.lat = xmalloc((rd->n ? rd->n : 1) * sizeof(*p.lat));
	/* each split bio's last piece (splitjoin.h), as report counts it */
	p.last = xcalloc(rd->n ? rd->n : 1, 1);
	splitjoin_init(&p.sj, mark_last, p.last);
	fold_run(rd, NULL, &(struct fold_sink){ pass_last, &p, 1u << FOLD_ROW }, 1);
	splitjoin_end(&p.sj);
	p.i = 0;
	fold_run(rd, NULL, &(struct fold_sink){ pass_lat, &p, 1u << FOLD_ROW }, 1);
	if (!p.nlat)
		goto out;
	/* the tail: the slowest (100 - pct)% of the figure's requests, at
	 * least one, and any as slow as the last of them */
	{
		size_t k = (size_t)ceil((double)p.nlat * (100 - t->pct) / 100.0);
		t->thr_ns = kth_largest(p.lat, p.nlat, k < 1 ? 1 : k > p.nlat ?
					p.nlat : k);
	}
	if (p.nf) {
		qsort(p.f, p.nf, sizeof(*p.f), span_cmp);
		p.fmax_k = xmalloc(p.nf * sizeof(*p.fmax_k));
		flush_maxima(p.f, p.nf, p.fmax_k);
	}
	if (p.nw)
		qsort(p.w, p.nw, sizeof(*p.w), span_cmp);
	t->flush_d2c_mean_us = t->flushes ? p.fsum / (double)t->flushes / 1e3 : 0;
	p.i = 0;
	fold_run(rd, NULL, &(struct fold_sink){ pass_tail, &p, 1u << FOLD_ROW }, 1);
	/* the process whose flushes the tail met most: the met flushes'
	 * pids in order, the longest run of one */
	if (p.nmet)
		qsort(p.by_pid, p.nmet, sizeof(*p.by_pid), u32_cmp);
	for (size_t k = 0, best = 0; k < p.nmet;) {
		size_t j = k;
		while (j < p.nmet && p.by_pid[j] == p.by_pid[k])
			j++;
		if (j - k > best) {
			best = j - k;
			t->flush_pid = p.by_pid[k];
		}
		k = j;
	}
out:
	free(p.fmax_k);
	free(p.last);
	free(p.lat);
	free(p.by_pid);
	free(p.f);
	free(p.w);
}
