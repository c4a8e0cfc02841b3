/* A run's requests in the order of their Q, D and C times, per device: the
 * orders the time accounting and the analyzers each used to sort for
 * themselves, built once (evorder_build()) and walked, merged and filtered
 * (struct ev_merge) by each of them. */
#ifndef IOTAPE_EVORDER_H
#define IOTAPE_EVORDER_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/rundata.h"

/* The times a row is ordered by. */
enum { EV_Q, EV_D, EV_C, EV_NKIND };

/* Row i's time of kind k (AN_NONE when not seen). */
static inline int64_t rundata_time(const struct rundata *rd, size_t i, int k)
{
	return k == EV_Q ? rundata_q(rd, i) : k == EV_D ? rundata_d(rd, i)
							  : rundata_c(rd, i);
}

/* One device's rows with a time of each kind, by (time, row), kept as
 * what is out of order only: walking the device's rows, a row whose time
 * is at or after the latest time of the rows so taken is in order (the
 * run's rows are nearly in order of each time: stitching writes them in
 * Q order, completions reorder a few); the others, out[k] (nout[k] rows,
 * sorted by (time, row)), are merged in by the walk (an ev_it). */
struct evorder_dev {
	uint32_t *out[EV_NKIND];
	size_t nout[EV_NKIND];
	size_t n[EV_NKIND];         /* rows with the time */
};

struct evorder {
	const struct rundata *rd;
	struct evorder_dev *dev;    /* rd->ndevs of them */
};

/* Builds the orders of every device of rd, of the kinds in mask (1 << EV_Q
 * ...; the others stay empty, walked as no rows): O(n) and no memory but
 * for the rows out of order (sorted). Aborts when memory runs out. */
void evorder_build(struct evorder *o, const struct rundata *rd, unsigned mask);

/* Adds the kinds in mask (built by another thread, say) to o: as
 * evorder_build() for them alone, into the same o. o's other kinds are not
 * touched, so two threads may each add their own kinds at once. o must
 * come from evorder_build() (with a mask of 0, say). */
void evorder_add(struct evorder *o, unsigned mask);

/* Frees o's orders (o may be zeroed or built; it is zeroed after). */
void evorder_free(struct evorder *o);

/* A walk over one device's rows in the order of one time: the rows in
 * order (j .. end, the latest time so far max) merged with the ones out of
 * it (v[ej .. nv)); or, kind -1, the rows v at one fixed time t. */
struct ev_it {
	const struct rundata *rd;
	int kind;                   /* the time walked: EV_*, or -1 */
	size_t j, end;
	int64_t max;
	const uint32_t *v;
	size_t ej, nv;
	int64_t t;
	/* the next row in order (have_in), the next out of it (ej < nv) */
	int have_in;
	uint32_t in_row;
	int64_t in_t, out_t;
};

/* A walk over device devk's rows (index into rd's device table) by their
 * time of kind k. */
void ev_it_init(struct ev_it *it, const struct evorder *o, size_t devk,
		int k);

/* A walk over the n rows v (ascending) at one time t each. */
void ev_it_fixed(struct ev_it *it, const struct rundata *rd,
		 const uint32_t *v, size_t n, int64_t t);

/* it's next row in order, into in_row and in_t (have_in 0 at the end) */
static inline void ev_it_in(struct ev_it *it)
{
	while (it->j < it->end) {
		size_t i = it->j++;
		int64_t v = rundata_time(it->rd, i, it->kind);
		if (v != AN_NONE && v >= it->max) {
			it->max = v;
			it->in_row = (uint32_t)i;
			it->in_t = v;
			it->have_in = 1;
			return;
		}
	}
	it->have_in = 0;
}

/* The next row and its time; 0 at the end. */
static inline int ev_it_next(struct ev_it *it, uint32_t *row, int64_t *t)
{
	if (it->kind < 0) {
		if (it->ej == it->nv)
			return 0;
		*row = it->v[it->ej++];
		*t = it->t;
		return 1;
	}
	if (it->ej < it->nv && (!it->have_in || it->out_t < it->in_t ||
				(it->out_t == it->in_t &&
				 it->v[it->ej] < it->in_row))) {
		*row = it->v[it->ej++];
		*t = it->out_t;
		if (it->ej < it->nv)
			it->out_t = rundata_time(it->rd, it->v[it->ej], it->kind);
		return 1;
	}
	if (!it->have_in)
		return 0;
	*row = it->in_row;
	*t = it->in_t;
	ev_it_in(it);
	return 1;
}

/* Up to 4 walks merged into one stream of events by (time, row, rank: the
 * walk's place in the merge), each walk's rows kept only when keep(ctx,
 * row, rank) says so (keep NULL: all): the order a sort of every kept
 * event by time, then row, then rank gives. */
#define EV_MERGE_MAX 4

struct ev_merge {
	struct ev_it it[EV_MERGE_MAX];
	int n;
	int (*keep)(const void *ctx, uint32_t row, int rank);
	const void *ctx;
	/* each walk's next kept event; live 0 at its end */
	uint32_t row[EV_MERGE_MAX];
	int64_t t[EV_MERGE_MAX];
	int live[EV_MERGE_MAX];
};

/* Starts merging walks it[0..n) (copied; n <= EV_MERGE_MAX). */
void ev_merge_init(struct ev_merge *m, const struct ev_it *it, int n,
		   int (*keep)(const void *ctx, uint32_t row, int rank),
		   const void *ctx);

/* The next event: its row, time and rank; 0 at the end. */
int ev_merge_next(struct ev_merge *m, uint32_t *row, int64_t *t, int *rank);

#endif
