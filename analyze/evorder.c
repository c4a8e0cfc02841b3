/* The run's rows in the order of each time, per device (evorder.h). */
#include "evorder.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/rsort.h"
#include "lib/util.h"

struct key_ctx {
	const struct rundata *rd;
	int kind;
};

static uint64_t key_time(uint32_t i, const void *ctx)
{
	const struct key_ctx *c = ctx;

	return rsort_tkey(rundata_time(c->rd, i, c->kind));
}

/* 1 when row a's time ta sorts after row b's tb */
static int after(int64_t ta, uint32_t a, int64_t tb, uint32_t b)
{
	return ta > tb || (ta == tb && a > b);
}
/* Device rows [i0, i1) with a time of kind k, by (time, row), into d's
 * order of kind k: the rows out of order, sorted. */
static void order_dev(struct evorder_dev *d, const struct rundata *rd,
		      size_t i0, size_t i1, int k)
{
	struct key_ctx kc = { rd, k };
	int64_t max = INT64_MIN;
	size_t n = 0, ne = 0, cap = 0;
	uint32_t *e = NULL;

	for (size_t i = i0; i < i1; i++) {
		int64_t t = rundata_time(rd, i, k);
		if (t == AN_NONE)
			continue;
		n++;
		if (t >= max) {
			max = t;
			continue;
		}
		if (ne == cap) {
			cap = cap ? 2 * cap : 64;
			e = xrealloc(e, cap * sizeof(*e));
		}
		e[ne++] = (uint32_t)i;
	}
	radix_sort_idx(e, ne, key_time, &kc);
	d->n[k] = n;
	d->nout[k] = ne;
	d->out[k] = ne ? xrealloc(e, ne * sizeof(*e)) : NULL;
	if (!ne)
		free(e);
}

void evorder_add(struct evorder *o, unsigned mask)
{
	const struct rundata *rd = o->rd;

	for (size_t dk = 0; dk < rd->ndevs; dk++)
		for (int k = 0; k < EV_NKIND; k++)
			if (mask & (1u << k))
				order_dev(&o->dev[dk], rd, rd->dev_first[dk],
					  rd->dev_first[dk + 1], k);
}

void evorder_build(struct evorder *o, const struct rundata *rd, unsigned mask)
{
	o->rd = rd;
	o->dev = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*o->dev));
	evorder_add(o, mask);
}

void evorder_free(struct evorder *o)
{
	if (o->dev && o->rd)
		for (size_t dk = 0; dk < o->rd->ndevs; dk++)
			for (int k = 0; k < EV_NKIND; k++)
				free(o->dev[dk].out[k]);
	free(o->dev);
	memset(o, 0, sizeof(*o));
}

void ev_it_init(struct ev_it *it, const struct evorder *o, size_t devk, int k)
{
	const struct evorder_dev *d = &o->dev[devk];

	memset(it, 0, sizeof(*it));
	it->rd = o->rd;
	it->kind = k;
	it->max = INT64_MIN;
	if (d->n[k]) {
		it->j = o->rd->dev_first[devk];
		it->end = o->rd->dev_first[devk + 1];
	}
	it->v = d->out[k];
	it->nv = d->nout[k];
	if (it->nv)
		it->out_t = rundata_time(o->rd, it->v[0], k);
	ev_it_in(it);
}

void ev_it_fixed(struct ev_it *it, const struct rundata *rd,
		 const uint32_t *v, size_t n, int64_t t)
{
	memset(it, 0, sizeof(*it));
	it->rd = rd;
	it->v = v;
	it->nv = n;
	it->kind = -1;
	it->t = t;
}

/* Moves walk k of m to its next kept row. */
static void advance(struct ev_merge *m, int k)
{
	uint32_t row;
	int64_t t;

	while (ev_it_next(&m->it[k], &row, &t))
		if (!m->keep || m->keep(m->ctx, row, k)) {
			m->row[k] = row;
			m->t[k] = t;
			return;
		}
	m->live[k] = 0;
}

void ev_merge_init(struct ev_merge *m, const struct ev_it *it, int n,
		   int (*keep)(const void *ctx, uint32_t row, int rank),
		   const void *ctx)
{
	memset(m, 0, sizeof(*m));
	m->n = n;
	m->keep = keep;
	m->ctx = ctx;
	for (int k = 0; k < n; k++) {
		m->it[k] = it[k];
		m->live[k] = 1;
		advance(m, k);
	}
}

int ev_merge_next(struct ev_merge *m, uint32_t *row, int64_t *t, int *rank)
{
	int best = -1;

	/* ranks break ties in their order: the first walk at a time and row
	 * is the lowest one */
	for (int k = 0; k < m->n; k++)
		if (m->live[k] && (best < 0 || after(m->t[best], m->row[best],
						    m->t[k], m->row[k])))
			best = k;
	if (best < 0)
		return 0;
	*row = m->row[best];
	*t = m->t[best];
	*rank = best;
	advance(m, best);
	return 1;
}
