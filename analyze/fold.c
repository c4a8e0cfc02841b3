/* A run's requests as one stream of events in time order (fold.h). */
#include "fold.h"

#include <stdio.h>
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

/* ---- from the rows in a file ---- */

/* A row held while its events are given: the request, and its events of
 * the kinds asked for in stream order (by time, then kind), at the next. */
struct fold_slot {
	struct an_io io;
	int64_t t[EV_NKIND];
	unsigned char kind[EV_NKIND], n, at;
};

#define FOLD_SLOTS_CHUNK 256

struct fold_fdev {
	struct rf_reader rd;
	uint32_t next;             /* the global index of its next row */
	int done;
	int timed;
	int64_t maxfirst, w;       /* the latest first time read; events
				    * at or before w can no longer be
				    * preceded */
	struct fold_hnode *h;      /* held rows by their next event, a
				    * binary heap (it: the row's slot) */
	size_t nh, cap;
};

static void hup(struct fold_hnode *h, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		struct fold_hnode t;
		if (!hless(&h[i], &h[p]))
			return;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

/* Reading a temporary file of our own failed: nothing to go on with. */
static void file_failed(int err)
{
	error("reading a run's requests back from its temporary file "
	      "($TMPDIR, else /tmp): %s", strerror(err));
	exit(1);
}

/* Row r of the file, whole, into x. */
static void file_io(const struct rundata *rd, const struct an_row *r,
		    struct an_io *x)
{
	if (r->flags & AN_R_ESC)
		*x = rd->esc[r->dg + ((r->flags & AN_R_PART1) ?
				      rd->rows_file->nesc0 : 0)];
	else
		an_row_unpack(r, rd->devs[r->dev], x);
}

static struct fold_slot *slot_at(const struct fold *f, uint32_t i)
{
	return &f->slot[i / FOLD_SLOTS_CHUNK][i % FOLD_SLOTS_CHUNK];
}

static uint32_t slot_new(struct fold *f)
{
	if (f->nfree)
		return f->slot_free[--f->nfree];
	if (!(f->nslot % FOLD_SLOTS_CHUNK)) {
		size_t c = f->nslot / FOLD_SLOTS_CHUNK;
		if (!(c & (c - 1))) {             /* 0, 1, 2, 4...: full */
			size_t cap = c ? 2 * c : 1;
			f->slot = xrealloc(f->slot, cap * sizeof(*f->slot));
			f->slot_free = xrealloc(f->slot_free, cap *
						FOLD_SLOTS_CHUNK *
						sizeof(*f->slot_free));
		}
		f->slot[c] = xmalloc(FOLD_SLOTS_CHUNK * sizeof(**f->slot));
	}
	return (uint32_t)f->nslot++;
}

/* Reads device k's rows until its earliest held event is final (or it
 * has none left): every row still to come starts at or after w. */
static void fdev_fill(struct fold *f, size_t k)
{
	const struct rundata *rd = f->rd;
	struct fold_fdev *d = &f->fd[k];
	int64_t late = rd->rows_file->dev[k].late;

	while (!d->done && (!d->nh || d->h[0].t > d->w)) {
		struct an_row r;
		struct fold_slot *s;
		uint32_t slot, row;
		int64_t tm[EV_NKIND], first;
		int got = rf_reader_next(&d->rd, &r), n = 0;
		if (got < 0)
			file_failed(d->rd.err);
		if (!got) {
			d->done = 1;
			break;
		}
		row = d->next++;
		slot = slot_new(f);
		s = slot_at(f, slot);
		file_io(rd, &r, &s->io);
		tm[EV_Q] = s->io.q;
		tm[EV_D] = s->io.d;
		tm[EV_C] = s->io.c;
		/* the row's events by (time, kind): an insertion sort of 3 */
		for (int kind = 0; kind < EV_NKIND; kind++) {
			int j;
			if (tm[kind] == AN_NONE || !(f->kinds & (1u << kind)))
				continue;
			for (j = n++; j > 0 && s->t[j - 1] > tm[kind]; j--) {
				s->t[j] = s->t[j - 1];
				s->kind[j] = s->kind[j - 1];
			}
			s->t[j] = tm[kind];
			s->kind[j] = (unsigned char)kind;
		}
		s->n = (unsigned char)n;
		s->at = 0;
		if (!n) {
			f->slot_free[f->nfree++] = slot;
		} else {
			if (d->nh == d->cap) {
				d->cap = d->cap ? 2 * d->cap : 256;
				d->h = xrealloc(d->h, d->cap * sizeof(*d->h));
			}
			d->h[d->nh] = (struct fold_hnode){ s->t[0], row, s->kind[0],
							   (int)slot };
			hup(d->h, d->nh++);
		}
		first = an_io_first(&s->io);
		if (first != AN_NONE && (!d->timed || first > d->maxfirst)) {
			d->maxfirst = first;
			d->timed = 1;
			d->w = first - late;
		}
	}
}

static void file_open(struct fold *f)
{
	const struct rundata *rd = f->rd;
	const struct rowfile *rf = rd->rows_file;

	f->done_slot = -1;
	f->fd = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*f->fd));
	f->h = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*f->h));
	if (f->next_row < rd->n) {
		f->row_rd = xmalloc(sizeof(*f->row_rd));
		rf_reader_init(f->row_rd, rf, 0);
	}
	if (!(f->kinds & (1u << EV_Q | 1u << EV_D | 1u << EV_C)))
		return;
	for (size_t k = 0; k < rd->ndevs; k++) {
		struct fold_fdev *d = &f->fd[k];
		rf_reader_init(&d->rd, rf, k);
		d->next = (uint32_t)rd->dev_first[k];
		d->w = INT64_MIN;
		fdev_fill(f, k);
		if (d->nh) {
			f->h[f->nh++] = (struct fold_hnode){ d->h[0].t, d->h[0].row,
							     d->h[0].kind, (int)k };
		}
	}
	for (int i = f->nh / 2 - 1; i >= 0; i--)
		hdown(f->h, f->nh, i);
}

/* The next FOLD_ROW event from the file: the devices' rows in order. */
static int file_row(struct fold *f, struct fold_ev *e)
{
	const struct rundata *rd = f->rd;
	struct an_row r;
	int got;

	while ((got = rf_reader_next(f->row_rd, &r)) == 0) {
		if (++f->row_dev >= rd->ndevs)
			return 0;
		rf_reader_free(f->row_rd);
		rf_reader_init(f->row_rd, rd->rows_file, f->row_dev);
	}
	if (got < 0)
		file_failed(f->row_rd->err);
	file_io(rd, &r, &f->buf);
	e->kind = FOLD_ROW;
	e->row = (uint32_t)f->next_row++;
	e->devk = (uint16_t)f->row_dev;
	e->io = &f->buf;
	e->t = f->buf.q;
	if (f->next_row == rd->n) {
		rf_reader_free(f->row_rd);
		free(f->row_rd);
		f->row_rd = NULL;
	}
	return 1;
}

/* The next timed event from the file: the earliest device's, its row's
 * next event (the row's slot is let go at the next call, when its last
 * event was given: e->io points into it). */
static int file_next(struct fold *f, struct fold_ev *e)
{
	struct fold_fdev *d;
	struct fold_hnode *p;
	struct fold_slot *s;
	size_t k;

	if (f->done_slot >= 0) {
		f->slot_free[f->nfree++] = (uint32_t)f->done_slot;
		f->done_slot = -1;
	}
	if (f->next_row < f->rd->n && file_row(f, e))
		return 1;
	f->next_row = f->rd->n;
	if (!f->nh)
		return 0;
	k = (size_t)f->h[0].it;
	d = &f->fd[k];
	p = &d->h[0];
	s = slot_at(f, (uint32_t)p->it);
	e->kind = p->kind;
	e->t = p->t;
	e->row = p->row;
	e->devk = (uint16_t)k;
	e->io = &s->io;
	if (++s->at < s->n) {
		/* the row's next event: the same node, later */
		p->t = s->t[s->at];
		p->kind = s->kind[s->at];
	} else {
		f->done_slot = p->it;
		d->h[0] = d->h[--d->nh];
	}
	hdown(d->h, (int)d->nh, 0);
	fdev_fill(f, k);
	if (d->nh) {
		f->h[0] = (struct fold_hnode){ d->h[0].t, d->h[0].row, d->h[0].kind,
					       (int)k };
		hdown(f->h, f->nh, 0);
	} else {
		f->h[0] = f->h[--f->nh];
		hdown(f->h, f->nh, 0);
	}
	return 1;
}

static void file_close(struct fold *f)
{
	for (size_t k = 0; f->fd && k < f->rd->ndevs; k++) {
		rf_reader_free(&f->fd[k].rd);
		free(f->fd[k].h);
	}
	free(f->fd);
	if (f->row_rd) {
		rf_reader_free(f->row_rd);
		free(f->row_rd);
	}
	for (size_t c = 0; c * FOLD_SLOTS_CHUNK < f->nslot; c++)
		free(f->slot[c]);
	free(f->slot);
	free(f->slot_free);
}

/* ---- the stream ---- */

void fold_open(struct fold *f, const struct rundata *rd,
	       const struct evorder *ord, unsigned kinds)
{
	size_t nits = rd->ndevs * EV_NKIND;

	memset(f, 0, sizeof(*f));
	f->rd = rd;
	f->kinds = kinds;
	f->next_row = (kinds & (1u << FOLD_ROW)) ? 0 : rd->n;
	if (rd->rows_file) {
		file_open(f);
		return;
	}
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

	if (rd->rows_file)
		return file_next(f, e);

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
	if (f->rd && f->rd->rows_file)
		file_close(f);
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
