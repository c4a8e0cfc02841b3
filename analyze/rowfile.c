/* A run's request rows in a temporary file (rowfile.h). */
#include "analyze/rowfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/spill.h"
#include "lib/util.h"

int rowfile_open(struct rowfile *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = spill_tmpfile();
	return f->fd < 0 ? -errno : 0;
}

void rf_writer_init(struct rf_writer *w, struct rowfile *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

static void chunk_push(struct rf_dev *d, uint64_t off, uint32_t n)
{
	if (d->nc == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->c = xrealloc(d->c, d->cap * sizeof(*d->c));
	}
	d->c[d->nc++] = (struct rf_chunk){ off, n };
	d->rows += n;
}

/* len bytes at off of fd from or into buf, whole (pwrite(2) when out,
 * else pread(2)); 0, or an errno (EIO: the file ended short). */
static int whole(int fd, void *buf, size_t len, uint64_t off, int out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t k = out ? pwrite(fd, (char *)buf + done, len - done,
					 (off_t)(off + done))
				: pread(fd, (char *)buf + done, len - done,
					(off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? errno : out ? ENOSPC : EIO;
		done += (size_t)k;
	}
	return 0;
}

/* Writes device k's chunk in the making. */
static int chunk_write(struct rf_writer *w, size_t k)
{
	struct rf_wdev *wd = &w->d[k];
	size_t len = (size_t)wd->n * sizeof(*wd->buf);
	uint64_t off;

	if (!wd->n)
		return 0;
	off = __atomic_fetch_add(&w->f->end, len, __ATOMIC_RELAXED);
	if ((w->err = whole(w->f->fd, wd->buf, len, off, 1)))
		return -1;
	chunk_push(&wd->d, off, wd->n);
	wd->n = 0;
	return 0;
}

int rf_writer_add(struct rf_writer *w, const struct an_row *r, int64_t first)
{
	struct rf_wdev *wd;

	if (w->err)
		return -1;
	if (r->dev >= w->ndev) {
		size_t n = (size_t)r->dev + 1;
		w->d = xrealloc(w->d, n * sizeof(*w->d));
		memset(w->d + w->ndev, 0, (n - w->ndev) * sizeof(*w->d));
		w->ndev = n;
	}
	wd = &w->d[r->dev];
	if (first != AN_NONE) {
		struct rf_dev *d = &wd->d;
		if (!d->timed) {
			d->maxfirst = d->minfirst = first;
			d->timed = 1;
		} else if (first > d->maxfirst)
			d->maxfirst = first;
		else if (d->maxfirst - first > d->late)
			d->late = d->maxfirst - first;
		if (first < d->minfirst)
			d->minfirst = first;
	}
	if (!wd->buf)
		wd->buf = xmalloc(RF_CHUNK * sizeof(*wd->buf));
	wd->buf[wd->n++] = *r;
	if (wd->n == RF_CHUNK)
		return chunk_write(w, r->dev);
	return 0;
}

int rf_writer_flush(struct rf_writer *w)
{
	for (size_t k = 0; k < w->ndev && !w->err; k++)
		chunk_write(w, k);
	return w->err ? -1 : 0;
}

/* Writes w's partial chunks and keeps each device's rows of the range
 * (those it has) as a segment. */
static int range_end(struct rf_writer *w)
{
	if (rf_writer_flush(w))
		return -1;
	for (size_t k = 0; k < w->ndev; k++) {
		struct rf_wdev *wd = &w->d[k];
		if (!wd->d.nc)
			continue;
		if (w->nseg == w->segcap) {
			w->segcap = w->segcap ? 2 * w->segcap : 16;
			w->seg = xrealloc(w->seg, w->segcap * sizeof(*w->seg));
		}
		w->seg[w->nseg++] = (struct rf_seg){ w->range, k, wd->d };
		memset(&wd->d, 0, sizeof(wd->d));
	}
	return 0;
}

int rf_writer_range(struct rf_writer *w, int range)
{
	if (range_end(w))
		return -1;
	w->range = range;
	return 0;
}

/* Segments by range, then writer (the order they were gathered in, which
 * qsort(3) may not keep: pos) */
struct seg_at {
	const struct rf_seg *s;
	size_t pos;
};

static int cmp_seg(const void *a, const void *b)
{
	const struct seg_at *x = a, *y = b;

	if (x->s->dk != y->s->dk)
		return x->s->dk < y->s->dk ? -1 : 1;
	if (x->s->range != y->s->range)
		return x->s->range < y->s->range ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

void rowfile_join(struct rowfile *f, struct rf_writer *w, int nw, size_t ndev)
{
	struct seg_at *at;
	size_t n = 0, i = 0;

	for (int p = 0; p < nw; p++) {
		range_end(&w[p]);      /* flushed already: no write fails */
		n += w[p].nseg;
	}
	at = xmalloc((n ? n : 1) * sizeof(*at));
	for (int p = 0; p < nw; p++)
		for (size_t j = 0; j < w[p].nseg; j++, i++)
			at[i] = (struct seg_at){ &w[p].seg[j], i };
	if (n)
		qsort(at, n, sizeof(*at), cmp_seg);
	f->dev = xcalloc(ndev ? ndev : 1, sizeof(*f->dev));
	f->ndev = ndev;
	for (i = 0; i < n; i++) {
		const struct rf_dev *s = &at[i].s->d;
		struct rf_dev *d;
		if (at[i].s->dk >= ndev)
			continue;
		d = &f->dev[at[i].s->dk];
		for (size_t c = 0; c < s->nc; c++)
			chunk_push(d, s->c[c].off, s->c[c].n);
		if (!s->timed)
			continue;
		if (!d->timed) {
			d->maxfirst = s->maxfirst;
			d->minfirst = s->minfirst;
			d->late = s->late;
			d->timed = 1;
			continue;
		}
		/* the later range's rows behind the earlier's latest */
		if (d->maxfirst - s->minfirst > d->late)
			d->late = d->maxfirst - s->minfirst;
		if (s->late > d->late)
			d->late = s->late;
		if (s->maxfirst > d->maxfirst)
			d->maxfirst = s->maxfirst;
	}
	free(at);
	for (int p = 0; p < nw; p++) {
		for (size_t k = 0; k < w[p].ndev; k++) {
			free(w[p].d[k].buf);
			free(w[p].d[k].d.c);
		}
		for (size_t j = 0; j < w[p].nseg; j++)
			free(w[p].seg[j].d.c);
		free(w[p].d);
		free(w[p].seg);
		w[p].d = NULL;
		w[p].seg = NULL;
		w[p].ndev = w[p].nseg = 0;
	}
}

void rowfile_keep(struct rowfile *f, const size_t *keep, size_t n)
{
	struct rf_dev *d = xcalloc(n ? n : 1, sizeof(*d));

	for (size_t k = 0; k < n; k++) {
		d[k] = f->dev[keep[k]];
		f->dev[keep[k]].c = NULL;
	}
	for (size_t k = 0; k < f->ndev; k++)
		free(f->dev[k].c);
	free(f->dev);
	f->dev = d;
	f->ndev = n;
}

void rowfile_close(struct rowfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	for (size_t k = 0; k < f->ndev; k++)
		free(f->dev[k].c);
	free(f->dev);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

void rf_reader_init(struct rf_reader *r, const struct rowfile *f, size_t dk)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->dk = dk;
}

int rf_reader_next(struct rf_reader *r, struct an_row *out)
{
	const struct rf_dev *d = &r->f->dev[r->dk];

	if (r->at == r->n) {
		const struct rf_chunk *c;
		if (r->err || r->chunk == d->nc)
			return r->err ? -1 : 0;
		c = &d->c[r->chunk++];
		if (!r->buf)
			r->buf = xmalloc(RF_CHUNK * sizeof(*r->buf));
		if ((r->err = whole(r->f->fd, r->buf, (size_t)c->n *
				    sizeof(*r->buf), c->off, 0)))
			return -1;
		r->at = 0;
		r->n = c->n;
	}
	*out = r->buf[r->at++];
	out->dev = (uint16_t)r->dk;
	return 1;
}

void rf_reader_free(struct rf_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}
