/* Time accounting in btt's stages, per process and device (timeacct.h). */
#include "timeacct.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/evorder.h"
#include "analyze/iostat.h"
#include "analyze/rsort.h"
#include "trace/blktrace_format.h"
#include "lib/emit.h"
#include "lib/util.h"

const char *const ta_stage_name[TA_NSTAGE] = { "Q2G", "Q2M", "G2I", "I2D",
					       "D2C" };

const char *ta_role(const char *comm)
{
	if (!comm)
		return "";
	if (!strncmp(comm, "jbd2", 4) || !strncmp(comm, "xfsaild", 7))
		return "journal";
	if (!strncmp(comm, "kswapd", 6))
		return "reclaim";
	if (!strncmp(comm, "kworker", 7) || !strncmp(comm, "flush-", 6) ||
	    !strncmp(comm, "writeback", 9))
		return "writeback";
	return "";
}

static uint64_t key_iv(const void *p)
{
	return rsort_tkey(((const struct ta_iv *)p)->a);
}

size_t ta_merge(struct ta_iv *iv, size_t n)
{
	size_t m = 0;

	/* the union does not depend on the order of intervals that start
	 * together: no tie, no copy of the array */
	radix_sort_inplace(iv, n, sizeof(*iv), key_iv, NULL);
	for (size_t i = 0; i < n; i++) {
		if (m && iv[i].a <= iv[m - 1].b) {
			if (iv[i].b > iv[m - 1].b)
				iv[m - 1].b = iv[i].b;
		} else
			iv[m++] = iv[i];
	}
	return m;
}

double ta_union_s(struct ta_iv *iv, size_t n)
{
	double s = 0;

	n = ta_merge(iv, n);
	for (size_t i = 0; i < n; i++)
		s += (double)(iv[i].b - iv[i].a);
	return s / 1e9;
}

double ta_overlap_s(const struct ta_iv *iv, size_t n, int64_t lo, int64_t hi)
{
	double s = 0;
	size_t a = 0, b = n;

	/* the first interval ending after lo */
	while (a < b) {
		size_t mid = (a + b) / 2;
		if (iv[mid].b <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (size_t i = a; i < n && iv[i].a < hi; i++) {
		int64_t x = iv[i].a > lo ? iv[i].a : lo;
		int64_t y = iv[i].b < hi ? iv[i].b : hi;
		if (y > x)
			s += (double)(y - x);
	}
	return s / 1e9;
}

/* Splits one bio's Q2C into stages (timeacct.h); 0 when it lacks Q, D or
 * C or its times run backwards (a clock step). */
static int bio_stages(const struct an_io *x, int64_t st[TA_NSTAGE])
{
	int64_t at;

	memset(st, 0, TA_NSTAGE * sizeof(*st));
	if (x->q == AN_NONE || x->d == AN_NONE || x->c == AN_NONE ||
	    x->d < x->q || x->c < x->d)
		return 0;
	at = x->q;
	if ((x->flags & AN_MERGED) && x->m != AN_NONE && x->m >= at &&
	    x->m <= x->d) {
		st[TA_Q2M] = x->m - at;
		at = x->m;
	} else if (x->g != AN_NONE && x->g >= at && x->g <= x->d) {
		st[TA_Q2G] = x->g - at;
		at = x->g;
		if (x->i != AN_NONE && x->i >= at && x->i <= x->d) {
			st[TA_G2I] = x->i - at;
			at = x->i;
		}
	}
	st[TA_I2D] = x->d - at;
	st[TA_D2C] = x->c - x->d;
	return 1;
}

static void stages_add(struct ta_stages *s, const int64_t st[TA_NSTAGE],
		       int merged)
{
	s->bios++;
	s->merged += merged != 0;
	for (int k = 0; k < TA_NSTAGE; k++) {
		s->sum_s[k] += (double)st[k] / 1e9;
		s->q2c_s += (double)st[k] / 1e9;
		if (k == TA_Q2M && !merged)
			continue;
		if (k == TA_Q2G && merged)
			continue;
		if (k == TA_I2D && merged) {    /* btt's M2D */
			s->m2d_s += (double)st[k] / 1e9;
			hist_add(&s->m2d_h, (uint64_t)st[k]);
			continue;
		}
		hist_add(&s->h[k], (uint64_t)st[k]);
	}
}

static void stages_free(struct ta_stages *s)
{
	for (int k = 0; k < TA_NSTAGE; k++)
		hist_free(&s->h[k]);
	hist_free(&s->m2d_h);
}

static int size_bucket(uint32_t bytes)
{
	int b = 0;

	while (b < TA_SIZE_BUCKETS - 1 && bytes > (4096u << b))
		b++;
	return b;
}

static struct ta_dev *dev_get(struct timeacct *ta, uint32_t dev)
{
	for (size_t i = 0; i < ta->ndev; i++)
		if (ta->devs[i].dev == dev)
			return &ta->devs[i];
	ta->devs = xrealloc(ta->devs, (ta->ndev + 1) * sizeof(*ta->devs));
	memset(&ta->devs[ta->ndev], 0, sizeof(*ta->devs));
	ta->devs[ta->ndev].dev = dev;
	return &ta->devs[ta->ndev++];
}

/* 1 when x is a dispatch with its D and C (busy and in flight). */
static int dc_counts(const struct an_io *x)
{
	return (x->flags & AN_HEAD) && x->d != AN_NONE && x->c != AN_NONE &&
	       x->c >= x->d;
}

/* 1 when x stands for a request of a device with no D traced (Q and C
 * only: MSR, SYSTOR): its completed bios with data, in flight from Q to
 * C, as iostat counts a request from its start to its end. */
static int qc_counts(const struct an_io *x)
{
	return x->q != AN_NONE && x->c != AN_NONE && x->c >= x->q &&
	       x->bytes && !(x->flags & AN_MERGED);
}

/* What the fold keeps of a process on a device while the stream passes:
 * the unions of its bios' [Q, C] and of its flushes'. A bio that never
 * completed (lost or still in flight at the end) counts to the process's
 * last completion, known at the end: every later bio of the process lies
 * inside that, so the union stops there (frozen: the union before it,
 * and its Q) and takes it at the end. */
struct ta_racc {
	uint64_t key;              /* dev << 32 | pid; 0: a free slot (pid
				    * 0 on dev 0 has key 1 << 63) */
	size_t row;                /* its ta_row */
	struct ta_run u, flush;
	int frozen;
	int64_t q0;
};

/* What the fold keeps of a device: the union of its dispatches' [D, C],
 * the most of them in flight, and for a device with no D, the same of
 * its requests from Q to C (qc_counts()): their Q and C, each in time
 * order, a C before a Q at one time unless none is in flight (the Q at
 * that time whose C it is comes first), so the Qs at the latest time are
 * held (pend) until a later event says where they go. */
struct ta_dacc {
	int di;                    /* its ta_dev (ta->devs[di - 1]); 0: none
				    * yet */
	struct ta_run busy;
	unsigned in, max;
	unsigned qin, qmax;
	int64_t qlo, tq;
	size_t pend;
	double qsum;
};

struct ta_acc {
	const struct rundata *rd;
	struct ta_racc *r;         /* open addressing by key */
	size_t rcap, nr;
	struct ta_dacc *d;         /* by the run's device index */
};

static uint64_t rkey(uint32_t dev, uint32_t pid)
{
	return ((uint64_t)dev << 32 | pid) | (dev || pid ? 0 : 1ull << 63);
}

static struct ta_row *row_get(struct timeacct *ta, const struct an_io *x,
			      struct ta_racc **out);

static void qc_q(struct ta_dacc *d, int64_t q)
{
	if (!d->qin++)
		d->qlo = q;
	if (d->qin > d->qmax)
		d->qmax = d->qin;
}

static void qc_c(struct ta_dacc *d, int64_t c)
{
	if (!--d->qin)
		d->qsum += (double)(c - d->qlo);
}

/* The Qs held, before an event at t (all: INT64_MAX) */
static void qc_flush(struct ta_dacc *d, int64_t t)
{
	if (!d->pend || t <= d->tq)
		return;
	for (; d->pend; d->pend--)
		qc_q(d, d->tq);
}

/* Per device: busy time, in flight, sizes, flushes: each request once,
 * in the run's order. */
static void account_dev(struct ta_dev *d, const struct an_io *x)
{
	int64_t st[TA_NSTAGE];

	if (x->c != AN_NONE)
		d->completions++;
	if (bio_stages(x, st) && x->bytes) {
		stages_add(&d->st, st, x->flags & AN_MERGED);
	} else if (x->d == AN_NONE && x->q != AN_NONE && x->c != AN_NONE &&
		   x->c >= x->q && x->bytes && !(x->flags & AN_MERGED)) {
		/* Q and C only: Q2C is all there is */
		d->qc_sum_s += (double)(x->c - x->q) / 1e9;
	}
	for (int h = 0; h < 2; h++) {
		int64_t s0;
		if (iostat_request(x, h, &s0) && s0 != AN_NONE &&
		    x->c != AN_NONE && x->c >= s0)
			d->aqu_sum_s[h] += (double)(x->c - s0) / 1e9;
	}
	if (x->d != AN_NONE)
		d->has_d = 1;
	if (!(x->flags & AN_HEAD) || x->d == AN_NONE)
		return;
	if (x->dbytes)
		d->sizes[!!(x->flags & AN_WRITE)][size_bucket(x->dbytes)]++;
	if (x->flags & (AN_FLUSH | AN_FUA)) {
		d->flushes += (x->flags & AN_FLUSH) != 0;
		d->fua += (x->flags & AN_FUA) != 0;
		if (x->c != AN_NONE && x->c >= x->d)
			d->flush_d2c_s += (double)(x->c - x->d) / 1e9;
	}
	if (x->c != AN_NONE && x->c >= x->d)
		d->d2c_sum_s += (double)(x->c - x->d) / 1e9;
}

static int cmp_row(const void *a, const void *b)
{
	const struct ta_row *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->waited_s != y->waited_s)
		return x->waited_s < y->waited_s ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct ta_dev *x = a, *y = b;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

/* A bio x (with a Q) of process row r, in the run's order. */
static void account_row(struct ta_row *r, const struct an_io *x)
{
	int64_t st[TA_NSTAGE];

	r->ios++;
	r->bytes += x->bytes;
	if (x->flags & AN_WRITE)
		r->wr_bytes += x->bytes;
	else
		r->rd_bytes += x->bytes;
	if (x->q < r->first_q)
		r->first_q = x->q;
	if (x->c != AN_NONE && x->c > r->last_c)
		r->last_c = x->c;
	if (bio_stages(x, st) && (x->bytes || (x->flags & AN_FLUSH)))
		stages_add(&r->st, st, x->flags & AN_MERGED);
	if (x->flags & (AN_FLUSH | AN_FUA)) {
		r->flushes += (x->flags & AN_FLUSH) != 0;
		r->fua += (x->flags & AN_FUA) != 0;
	}
}

/* The unions of a process's bios, at their Qs in time order: the time
 * with a bio queued or in flight, and the same over flushes and FUA
 * writes. */
static void row_union(struct ta_racc *a, const struct an_io *x)
{
	if ((x->flags & (AN_FLUSH | AN_FUA)) && x->c != AN_NONE && x->c >= x->q)
		ta_run_add(&a->flush, x->q, x->c);
	if (a->frozen)
		return;
	if (x->c == AN_NONE || x->c < x->q) {
		a->frozen = 1;
		a->q0 = x->q;
		return;
	}
	ta_run_add(&a->u, x->q, x->c);
}

static struct ta_row *row_get(struct timeacct *ta, const struct an_io *x,
			      struct ta_racc **out)
{
	struct ta_acc *acc = ta->acc;
	uint64_t key = rkey(x->dev, x->pid);
	size_t h;

	if (2 * (acc->nr + 1) > acc->rcap) {
		size_t cap = acc->rcap ? 2 * acc->rcap : 64;
		struct ta_racc *g = xcalloc(cap, sizeof(*g));
		for (size_t k = 0; k < acc->rcap; k++)
			if (acc->r[k].key) {
				for (h = (size_t)((acc->r[k].key * 0x9e3779b97f4a7c15ull) >>
						  32) & (cap - 1);
				     g[h].key; h = (h + 1) & (cap - 1))
					;
				g[h] = acc->r[k];
			}
		free(acc->r);
		acc->r = g;
		acc->rcap = cap;
	}
	for (h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (acc->rcap - 1);
	     acc->r[h].key; h = (h + 1) & (acc->rcap - 1))
		if (acc->r[h].key == key) {
			*out = &acc->r[h];
			return &ta->rows[acc->r[h].row];
		}
	acc->r[h].key = key;
	acc->r[h].row = ta->nrows;
	acc->nr++;
	*out = &acc->r[h];
	if (!(ta->nrows & (ta->nrows - 1)))     /* 0, 1, 2, 4...: full */
		ta->rows = xrealloc(ta->rows, (ta->nrows ? 2 * ta->nrows : 1) *
				    sizeof(*ta->rows));
	{
		struct ta_row *r = &ta->rows[ta->nrows++];
		const char *comm = runview_comm(acc->rd->rv, x->pid);
		memset(r, 0, sizeof(*r));
		r->pid = x->pid;
		r->dev = x->dev;
		snprintf(r->comm, sizeof(r->comm), "%s", comm ? comm : "?");
		r->role = ta_role(comm);
		r->first_q = INT64_MAX;
		r->last_c = INT64_MIN;
		return r;
	}
}

void timeacct_begin(struct timeacct *ta, const struct rundata *rd)
{
	struct ta_acc *acc;

	memset(ta, 0, sizeof(*ta));
	ta->elapsed_s = rundata_elapsed_s(rd);
	ta->acc = acc = xcalloc(1, sizeof(*acc));
	acc->rd = rd;
	acc->d = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*acc->d));
}

void timeacct_ev(void *ctx, const struct fold_ev *e)
{
	struct timeacct *ta = ctx;
	struct ta_acc *acc = ta->acc;
	struct ta_dacc *d = &acc->d[e->devk];
	const struct an_io *x = e->io;
	struct ta_racc *ra;

	if (e->kind == FOLD_ROW) {
		if (!d->di) {
			dev_get(ta, x->dev);
			d->di = (int)ta->ndev;
		}
		account_dev(&ta->devs[d->di - 1], x);
		if (x->q != AN_NONE)
			account_row(row_get(ta, x, &ra), x);
		return;
	}
	if (qc_counts(x)) {
		qc_flush(d, e->t);
		if (e->kind == EV_Q) {
			d->pend++;
			d->tq = e->t;
		} else if (e->kind == EV_C) {
			if (d->pend && e->t == d->tq && !d->qin) {
				qc_q(d, d->tq);
				d->pend--;
			}
			qc_c(d, e->t);
		}
	}
	if (e->kind == EV_Q) {
		row_get(ta, x, &ra);
		row_union(ra, x);
	} else if (dc_counts(x)) {
		if (e->kind == EV_D) {
			ta_run_add(&d->busy, x->d, x->c);
			if (++d->in > d->max && d->in < (1u << 31))
				d->max = d->in;
		} else
			d->in--;
	}
}

void timeacct_end(struct timeacct *ta)
{
	struct ta_acc *acc = ta->acc;
	const struct rundata *rd = acc->rd;
	int64_t end = rd->t1 > 0 ? rd->t1 : rd->rv ? rd->rv->last_ns : 0;

	/* the processes' unions: a bio never completed counts to the
	 * process's last completion, or the run's end */
	for (size_t h = 0; h < acc->rcap; h++) {
		struct ta_racc *a = &acc->r[h];
		struct ta_row *r;
		if (!a->key)
			continue;
		r = &ta->rows[a->row];
		if (a->frozen) {
			int64_t to = r->last_c;
			if (to == INT64_MIN)
				to = end;
			ta_run_add(&a->u, a->q0, to > a->q0 ? to : a->q0);
		}
		r->waited_s = ta_run_end(&a->u);
		r->flush_waited_s = ta_run_end(&a->flush);
		if (r->first_q == INT64_MAX)
			r->first_q = 0;
		if (r->last_c == INT64_MIN)
			r->last_c = r->first_q;
	}
	/* the devices' busy time and the most in flight: with no D traced,
	 * in flight from Q, as iostat counts */
	for (size_t k = 0; k < rd->ndevs; k++) {
		struct ta_dacc *d = &acc->d[k];
		struct ta_dev *td;
		if (!d->di)
			continue;
		td = &ta->devs[d->di - 1];
		qc_flush(d, INT64_MAX);
		if (!td->has_d && td->completions) {
			td->d2c_sum_s = td->qc_sum_s;
			td->busy_s = d->qsum / 1e9;
			td->max_inflight = d->qmax;
		} else {
			td->busy_s = ta_run_end(&d->busy);
			td->max_inflight = d->max;
		}
	}
	free(acc->r);
	free(acc->d);
	free(acc);
	ta->acc = NULL;
	if (ta->nrows)          /* qsort's base may not be NULL, even for 0 */
		qsort(ta->rows, ta->nrows, sizeof(*ta->rows), cmp_row);
	if (ta->ndev)
		qsort(ta->devs, ta->ndev, sizeof(*ta->devs), cmp_dev);
}

void timeacct_free(struct timeacct *ta)
{
	for (size_t i = 0; i < ta->nrows; i++)
		stages_free(&ta->rows[i].st);
	for (size_t i = 0; i < ta->ndev; i++)
		stages_free(&ta->devs[i].st);
	free(ta->rows);
	free(ta->devs);
	memset(ta, 0, sizeof(*ta));
}

const struct ta_row *timeacct_row(const struct timeacct *ta, uint32_t pid,
				  uint32_t dev)
{
	for (size_t i = 0; i < ta->nrows; i++)
		if (ta->rows[i].pid == pid && ta->rows[i].dev == dev)
			return &ta->rows[i];
	return NULL;
}

const struct ta_dev *timeacct_dev(const struct timeacct *ta, uint32_t dev)
{
	for (size_t i = 0; i < ta->ndev; i++)
		if (ta->devs[i].dev == dev)
			return &ta->devs[i];
	return NULL;
}

double ta_stage_waited_s(const struct ta_row *r, int k)
{
	return r->st.q2c_s > 0 ? r->waited_s * r->st.sum_s[k] / r->st.q2c_s : 0;
}

/* A process's signature: its name, whether it mostly read or wrote, and
 * its usual bio size ("dd:R64K"), over all devices. */
static void signature(const struct timeacct *ta, uint32_t pid, char *out,
		      size_t len, int64_t *first)
{
	const char *comm = "?";
	uint64_t rd = 0, wr = 0, ios = 0;
	int b = 0;

	*first = INT64_MAX;
	for (size_t i = 0; i < ta->nrows; i++) {
		const struct ta_row *t = &ta->rows[i];
		if (t->pid != pid)
			continue;
		comm = t->comm;
		rd += t->rd_bytes;
		wr += t->wr_bytes;
		ios += t->ios;
		if (t->first_q < *first)
			*first = t->first_q;
	}
	/* the mean bio size, as a power of two from 4 KiB; the bytes, as
	 * one of four from 1 MB */
	while (b < 8 && ios && (rd + wr) / ios > (4096ull << b) + (2048ull << b))
		b++;
	{
		uint64_t mb = (rd + wr) / 1000000, m = 1;
		while (m < (1ull << 40) && mb >= 2 * m)
			m *= 4;
		snprintf(out, len, "%s:%c%uK:%lluM", comm, wr > rd ? 'W' : 'R',
			 4u << b, (unsigned long long)m);
	}
}

void ta_match_key(const struct timeacct *ta, uint32_t pid, char *out,
		  size_t len)
{
	char sig[48], other[48];
	int64_t mine, t;
	int rank = 1;

	signature(ta, pid, sig, sizeof(sig), &mine);
	for (size_t i = 0; i < ta->nrows; i++) {
		const struct ta_row *o = &ta->rows[i];
		int seen = 0;
		if (o->pid == pid)
			continue;
		/* each other pid once */
		for (size_t k = 0; k < i; k++)
			if (ta->rows[k].pid == o->pid)
				seen = 1;
		if (seen)
			continue;
		signature(ta, o->pid, other, sizeof(other), &t);
		if (!strcmp(sig, other) && (t < mine || (t == mine && o->pid < pid)))
			rank++;
	}
	snprintf(out, len, "%s#%d", sig, rank);
}

void ta_pkey_of(const struct timeacct *ta, uint32_t pid, struct ta_pkey *k)
{
	char *colon;

	ta_match_key(ta, pid, k->key, sizeof(k->key));
	signature(ta, pid, k->kind, sizeof(k->kind), &k->first_q);
	colon = strrchr(k->kind, ':');
	if (colon)
		*colon = '\0';
}

void ta_pair(const struct ta_pkey *const *x, size_t nx,
	     const struct ta_pkey *const *y, size_t ny, int *pair)
{
	uint64_t used[4096 / 64] = { 0 };

	for (size_t i = 0; i < ny; i++) {
		pair[i] = -1;
		for (size_t k = 0; k < nx && k < 4096; k++)
			if (!(used[k / 64] >> (k % 64) & 1) &&
			    !strcmp(x[k]->key, y[i]->key)) {
				pair[i] = (int)k;
				used[k / 64] |= 1ull << (k % 64);
				break;
			}
	}
	/* the rest by kind: y's earliest unpaired with x's earliest unpaired */
	for (;;) {
		int bi = -1, bk = -1;
		for (size_t i = 0; i < ny; i++)
			if (pair[i] < 0 && (bi < 0 || y[i]->first_q < y[bi]->first_q)) {
				int kk = -1;
				for (size_t k = 0; k < nx && k < 4096; k++)
					if (!(used[k / 64] >> (k % 64) & 1) &&
					    !strcmp(x[k]->kind, y[i]->kind) &&
					    (kk < 0 || x[k]->first_q < x[kk]->first_q))
						kk = (int)k;
				if (kk >= 0) {
					bi = (int)i;
					bk = kk;
				}
			}
		if (bi < 0)
			break;
		pair[bi] = bk;
		used[bk / 64] |= 1ull << (bk % 64);
	}
}

static void emit_stage(struct emit *e, const char *key, double sum_s,
		       double q2c_s, const struct hist *h)
{
	emit_obj_begin(e, key);
	emit_num(e, "sum_s", sum_s);
	/* null, not 0, for what no bio measured */
	emit_num(e, "pct_of_q2c", q2c_s > 0 ? 100 * sum_s / q2c_s : NAN);
	emit_num(e, "p50_us", h->n ? hist_pct(h, 50) / 1e3 : NAN);
	emit_num(e, "p99_us", h->n ? hist_pct(h, 99) / 1e3 : NAN);
	emit_obj_end(e);
}

/* The stages by btt's definitions (timeacct.h): i2d and m2d apart. */
static void emit_stage_pcts(struct emit *e, const struct ta_stages *s)
{
	emit_obj_begin(e, "stages");
	for (int k = 0; k < TA_NSTAGE; k++) {
		char key[8];
		snprintf(key, sizeof(key), "%s", ta_stage_name[k]);
		for (char *c = key; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
		emit_stage(e, key, k == TA_I2D ? s->sum_s[k] - s->m2d_s : s->sum_s[k],
			   s->q2c_s, &s->h[k]);
		if (k == TA_I2D)
			emit_stage(e, "m2d", s->m2d_s, s->q2c_s, &s->m2d_h);
	}
	emit_u64(e, "bios", s->bios);
	emit_u64(e, "merged", s->merged);
	emit_num(e, "q2c_sum_s", s->q2c_s);
	emit_obj_end(e);
}

static double pct(double x, double of)
{
	return of > 0 ? 100 * x / of : 0;
}

static const char size_label[TA_SIZE_BUCKETS][8] = {
	"<=4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K", ">=1M"
};

static void emit_dev(struct emit *e, const struct ta_dev *d, double span_s)
{
	char name[32];

	snprintf(name, sizeof(name), "%u,%u", BT_MAJOR(d->dev), BT_MINOR(d->dev));
	emit_obj_begin(e, NULL);
	emit_str(e, "dev", name);
	emit_num(e, "busy_s", d->busy_s);
	if (!d->completions) {
		/* nothing completed: no busy time, in-flight or stage share
		 * to measure (report says why) */
		emit_num(e, "util_pct", NAN);
		emit_num(e, "avg_inflight", NAN);
		emit_num(e, "aqu_sz", NAN);
		emit_num(e, "max_inflight", NAN);
	} else {
		emit_num(e, "util_pct", pct(d->busy_s, span_s));
		emit_num(e, "avg_inflight", span_s > 0 ? d->d2c_sum_s / span_s : 0);
		emit_num(e, "aqu_sz", span_s > 0 ? timeacct_aqu_s(d) / span_s : 0);
		emit_u64(e, "max_inflight", d->max_inflight);
	}
	emit_u64(e, "flushes", d->flushes);
	emit_u64(e, "fua_writes", d->fua);
	emit_num(e, "flush_d2c_s", d->flush_d2c_s);
	emit_stage_pcts(e, &d->st);
	for (int w = 0; w < 2; w++) {
		emit_obj_begin(e, w ? "write_sizes" : "read_sizes");
		for (int b = 0; b < TA_SIZE_BUCKETS; b++)
			emit_u64(e, size_label[b], d->sizes[w][b]);
		emit_obj_end(e);
	}
	emit_obj_end(e);
	if (!d->completions)
		emit_text(e, "  %-7s no completions: no busy time, time in flight "
			  "or stage shares", name);
	else if (d->st.q2c_s <= 0)
		emit_text(e, "  %-7s busy %5.1f%%, avg in flight %.2f (max %u), "
			  "aqu-sz %.2f", name, pct(d->busy_s, span_s),
			  span_s > 0 ? d->d2c_sum_s / span_s : 0, d->max_inflight,
			  span_s > 0 ? timeacct_aqu_s(d) / span_s : 0);
	else
		/* btt's Device Overhead columns in its order, and M2D */
		emit_text(e, "  %-7s busy %5.1f%%, avg in flight %.2f (max %u), "
			  "aqu-sz %.2f;\n          Q2C: Q2G %.1f%% G2I %.1f%% "
			  "Q2M %.1f%% I2D %.1f%% M2D %.1f%% D2C %.1f%%", name,
			  pct(d->busy_s, span_s),
			  span_s > 0 ? d->d2c_sum_s / span_s : 0, d->max_inflight,
			  span_s > 0 ? timeacct_aqu_s(d) / span_s : 0,
			  pct(d->st.sum_s[TA_Q2G], d->st.q2c_s),
			  pct(d->st.sum_s[TA_G2I], d->st.q2c_s),
			  pct(d->st.sum_s[TA_Q2M], d->st.q2c_s),
			  pct(d->st.sum_s[TA_I2D] - d->st.m2d_s, d->st.q2c_s),
			  pct(d->st.m2d_s, d->st.q2c_s),
			  pct(d->st.sum_s[TA_D2C], d->st.q2c_s));
	if (d->flushes || d->fua)
		emit_text(e, ";\n          %" PRIu64 " flushes, %" PRIu64 " FUA "
			  "writes, their D2C %.3f s", d->flushes, d->fua,
			  d->flush_d2c_s);
	emit_text(e, "\n");
	for (int w = 0; w < 2; w++) {
		uint64_t tot = 0;
		for (int b = 0; b < TA_SIZE_BUCKETS; b++)
			tot += d->sizes[w][b];
		if (!tot)
			continue;
		/* bins that round to 0% are left out of the text (--json
		 * has every count); wrapped at 80 columns, continued
		 * under the first bin */
		int col = 22;   /* "          write sizes:" */

		emit_text(e, "          %s sizes:", w ? "write" : "read ");
		for (int b = 0; b < TA_SIZE_BUCKETS; b++) {
			double p = pct((double)d->sizes[w][b], (double)tot);
			char bin[24];
			int n;

			if (p < 0.5)
				continue;
			n = snprintf(bin, sizeof(bin), " %s %.0f%%",
				     size_label[b], p);
			if (col + n > 80) {
				emit_text(e, "\n%22s", "");
				col = 22;
			}
			emit_text(e, "%s", bin);
			col += n;
		}
		emit_text(e, "\n");
	}
}

void timeacct_emit(struct emit *e, const struct timeacct *ta,
		   const struct rundata *rd, size_t max_rows)
{
	double span = ta->elapsed_s;

	emit_obj_begin(e, "time");
	emit_num(e, "elapsed_s", span);
	emit_str(e, "elapsed_from", rd->elapsed_from_cmds ? "commands"
			: rd->n ? "events" : "samples");
	emit_heading(e, "where the time went");
	emit_text(e, "  elapsed %.3f s (%s);\n  waited: time with I/O queued "
		  "or in flight, split by each stage's share of Q2C\n", span,
		  rd->elapsed_from_cmds ? "the commands' first start to last end"
					: "the first to the last event");
	emit_arr_begin(e, "devices");
	for (size_t i = 0; i < ta->ndev; i++)
		emit_dev(e, &ta->devs[i], span);
	emit_arr_end(e);
	emit_text(e, "\n  %7s %-13s %5s %7s %8s %6s %5s %5s %5s %5s\n", "pid",
		  "comm", "dev", "bios", "waited s", "Q2G+M%", "G2I%", "I2D%",
		  "M2D%", "D2C%");
	emit_arr_begin(e, "processes");
	for (size_t i = 0, shown = 0; i < ta->nrows; i++) {
		const struct ta_row *r = &ta->rows[i];
		char dev[16];
		snprintf(dev, sizeof(dev), "%u,%u", BT_MAJOR(r->dev),
			 BT_MINOR(r->dev));
		emit_obj_begin(e, NULL);
		emit_u64(e, "pid", r->pid);
		emit_str(e, "comm", r->comm);
		emit_str(e, "role", r->role);
		emit_str(e, "dev", dev);
		emit_u64(e, "bios", r->ios);
		emit_u64(e, "bytes", r->bytes);
		int seen_c = 1;
		for (size_t k = 0; k < ta->ndev; k++)
			if (ta->devs[k].dev == r->dev)
				seen_c = ta->devs[k].completions > 0;
		/* NaN (null): a trace of Qs alone does not say */
		emit_num(e, "waited_s", seen_c || r->st.q2c_s > 0 ? r->waited_s : NAN);
		emit_num(e, "flush_waited_s", r->flush_waited_s);
		emit_num(e, "first_q_s", rundata_at_s(rd, r->first_q));
		emit_num(e, "last_c_s", rundata_at_s(rd, r->last_c));
		emit_stage_pcts(e, &r->st);
		emit_obj_end(e);
		if (shown++ >= max_rows)
			continue;
		if (r->st.q2c_s <= 0 && !seen_c)
			/* a trace of Qs alone (CloudPhysics): how long its bios
			 * waited it does not say ("18.000" beside "no
			 * completions") */
			emit_text(e, "  %7u %-13.13s %5s %7" PRIu64 " %8s %6s "
				  "%5s %5s %5s %5s\n", r->pid, r->comm, dev,
				  r->ios, "-", "-", "-", "-", "-", "-");
		else if (r->st.q2c_s <= 0)
			emit_text(e, "  %7u %-13.13s %5s %7" PRIu64 " %8.3f %6s "
				  "%5s %5s %5s %5s\n", r->pid, r->comm, dev,
				  r->ios, r->waited_s, "-", "-", "-", "-", "-");
		else
		emit_text(e, "  %7u %-13.13s %5s %7" PRIu64 " %8.3f %6.1f %5.1f "
			  "%5.1f %5.1f %5.1f\n", r->pid, r->comm, dev, r->ios,
			  r->waited_s, pct(r->st.sum_s[TA_Q2G] + r->st.sum_s[TA_Q2M],
					   r->st.q2c_s),
			  pct(r->st.sum_s[TA_G2I], r->st.q2c_s),
			  pct(r->st.sum_s[TA_I2D] - r->st.m2d_s, r->st.q2c_s),
			  pct(r->st.m2d_s, r->st.q2c_s),
			  pct(r->st.sum_s[TA_D2C], r->st.q2c_s));
		if (r->flushes || r->fua)
			emit_text(e, "  %23s %" PRIu64 " flushes, %" PRIu64 " FUA "
				  "writes: waited %.3f s on them\n", "", r->flushes,
				  r->fua, r->flush_waited_s);
	}
	emit_more(e, ta->nrows, max_rows, NULL);
	emit_arr_end(e);
	emit_obj_end(e);
}

const char timeacct_definitions[] =
"where the time went: for each process and device, waited s is the time it\n"
"  had I/O queued or in flight (the union of its bios' Q to C); each bio's\n"
"  Q2C splits into Q2G (get request), G2I (insert) and I2D (in the\n"
"  scheduler queue; from G when nothing inserts), or for a bio merged into\n"
"  a request Q2M (to the merge) and M2D (merge to dispatch), then D2C (the\n"
"  device); each stage's share of the Q2C sums, as btt's Device Overhead\n"
"  (which leaves M2D out), Q2G+M the two ways into a request. busy: the\n"
"  union of D to C over the elapsed time (iostat's %util); avg in flight:\n"
"  sum of D2C over it; aqu-sz: each request's start to its C summed over it,\n"
"  as iostat counts requests, not bios (a trace with no D: Q to C for all\n"
"  three, its bios standing for requests); flushes and FUA writes, and the\n"
"  time spent waiting on them, get their own line.\n";
