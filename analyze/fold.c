/* A run's requests as one stream of events in time order (fold.h). */
#include "fold.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* Whether a sorts before b: by time, then request, then kind (Q, D, C). */
static int hless(const struct fold_hnode *a, const struct fold_hnode *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->row != b->row)
		return a->row < b->row;
	return a->kind < b->kind;
}

static void hdown(struct fold_hnode *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct fold_hnode t;
		if (l < n && hless(&h[l], &h[m]))
			m = l;
		if (r < n && hless(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

void fold_open(struct fold *f, const struct rundata *rd,
	       const struct evorder *ord, unsigned kinds)
{
	size_t nits = rd->ndevs * EV_NKIND;

	memset(f, 0, sizeof(*f));
	f->rd = rd;
	f->kinds = kinds;
	f->next_row = (kinds & (1u << FOLD_ROW)) ? 0 : rd->n;
	f->its = xcalloc(nits ? nits : 1, sizeof(*f->its));
	f->h = xcalloc(nits ? nits : 1, sizeof(*f->h));
	for (size_t k = 0; k < rd->ndevs; k++)
		for (int kind = 0; kind < EV_NKIND; kind++) {
			struct ev_it *it = &f->its[k * EV_NKIND + (size_t)kind];
			struct fold_hnode *h = &f->h[f->nh];
			if (!(kinds & (1u << kind)))
				continue;
			ev_it_init(it, ord, k, kind);
			if (ev_it_next(it, &h->row, &h->t)) {
				h->kind = kind;
				h->it = (int)(k * EV_NKIND + (size_t)kind);
				f->nh++;
			}
		}
	for (int i = f->nh / 2 - 1; i >= 0; i--)
		hdown(f->h, f->nh, i);
}

int64_t fold_peek(const struct fold *f)
{
	if (f->next_row < f->rd->n)
		return INT64_MIN;
	return f->nh ? f->h[0].t : INT64_MAX;
}

int fold_next(struct fold *f, struct fold_ev *e)
{
	const struct rundata *rd = f->rd;
	struct fold_hnode *h = f->h;

	if (f->next_row < rd->n) {
		size_t i = f->next_row++;
		e->kind = FOLD_ROW;
		e->row = (uint32_t)i;
		e->devk = rd->row[i].dev;
		e->io = rundata_io(rd, i, &f->buf);
		e->t = e->io->q;
		return 1;
	}
	if (!f->nh)
		return 0;
	e->kind = h[0].kind;
	e->t = h[0].t;
	e->row = h[0].row;
	e->devk = rd->row[h[0].row].dev;
	e->io = rundata_io(rd, h[0].row, &f->buf);
	if (ev_it_next(&f->its[h[0].it], &h[0].row, &h[0].t))
		hdown(h, f->nh, 0);
	else {
		h[0] = h[--f->nh];
		hdown(h, f->nh, 0);
	}
	return 1;
}

void fold_close(struct fold *f)
{
	free(f->its);
	free(f->h);
	memset(f, 0, sizeof(*f));
}

void fold_run(const struct rundata *rd, const struct evorder *ord,
	      const struct fold_sink *s, int n)
{
	struct fold f;
	struct fold_ev e;
	unsigned kinds = 0;

	for (int k = 0; k < n; k++)
		kinds |= s[k].kinds;
	fold_open(&f, rd, ord, kinds);
	while (fold_next(&f, &e))
		for (int k = 0; k < n; k++)
			if (s[k].kinds & (1u << e.kind))
				s[k].ev(s[k].ctx, &e);
	fold_close(&f);
}

void fold_map_init(struct fold_map *m, size_t vsize)
{
	memset(m, 0, sizeof(*m));
	m->vsize = vsize;
}

static size_t map_home(const struct fold_map *m, uint32_t key)
{
	/* Fibonacci hashing (Knuth 6.4): the top log2(cap) bits of key times
	 * 2^64/phi */
	return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >>
			(64 - __builtin_ctzll((unsigned long long)m->cap)));
}

static void map_grow(struct fold_map *m)
{
	struct fold_map g;

	fold_map_init(&g, m->vsize);
	g.cap = m->cap ? 2 * m->cap : 64;
	g.key = xcalloc(g.cap, sizeof(*g.key));
	g.val = xmalloc(g.cap * (m->vsize ? m->vsize : 1));
	for (size_t i = 0; i < m->cap; i++)
		if (m->key[i]) {
			size_t j = map_home(&g, m->key[i]);
			while (g.key[j])
				j = (j + 1) & (g.cap - 1);
			g.key[j] = m->key[i];
			memcpy(g.val + j * g.vsize, m->val + i * m->vsize, m->vsize);
		}
	g.n = m->n;
	free(m->key);
	free(m->val);
	*m = g;
}

void *fold_map_get(struct fold_map *m, uint32_t row, int add)
{
	uint32_t key = row + 1;
	size_t i;

	if (add && 2 * (m->n + 1) > m->cap)
		map_grow(m);
	if (!m->cap)
		return NULL;
	for (i = map_home(m, key); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key)
			return m->val + i * m->vsize;
	if (!add)
		return NULL;
	m->key[i] = key;
	m->n++;
	memset(m->val + i * m->vsize, 0, m->vsize);
	return m->val + i * m->vsize;
}

void fold_map_del(struct fold_map *m, uint32_t row)
{
	uint32_t key = row + 1;
	size_t i, j;

	if (!m->cap)
		return;
	for (i = map_home(m, key); m->key[i] != key; i = (i + 1) & (m->cap - 1))
		if (!m->key[i])
			return;
	m->key[i] = 0;
	m->n--;
	for (j = i;;) {
		size_t home;
		j = (j + 1) & (m->cap - 1);
		if (!m->key[j])
			return;
		home = map_home(m, m->key[j]);
		/* the slot stays when its home lies cyclically in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->key[i] = m->key[j];
		memcpy(m->val + i * m->vsize, m->val + j * m->vsize, m->vsize);
		m->key[j] = 0;
		i = j;
	}
}

void fold_map_free(struct fold_map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
