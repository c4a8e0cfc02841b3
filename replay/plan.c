/* The replay plan: loading a run's I/Os at one level, streams, dependencies,
 * the original depth, and mapping sectors onto the targets. */
#include "plan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/blktrace_format.h"
#include "lib/util.h"

const char *rio_op_name(unsigned op)
{
	static const char *const names[] = { "read", "write", "flush", "discard" };
	return op < ARRAY_SIZE(names) ? names[op] : "?";
}

/* ---- a small id → index hash (open addressing, power-of-two size) ---- */

struct idmap {
	int64_t *key;       /* 0: empty (ids and pids + 1 are never 0) */
	size_t *val;
	size_t cap, n;
};

static size_t idmap_slot(const struct idmap *m, int64_t key)
{
	size_t i = (size_t)((uint64_t)key * 0x9e3779b97f4a7c15ull >> 17) & (m->cap - 1);

	while (m->key[i] && m->key[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void idmap_put(struct idmap *m, int64_t key, size_t val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct idmap b = { NULL, NULL, m->cap ? 2 * m->cap : 1024, 0 };
		b.key = xcalloc(b.cap, sizeof(*b.key));
		b.val = xcalloc(b.cap, sizeof(*b.val));
		for (size_t k = 0; k < m->cap; k++)
			if (m->key[k]) {
				size_t j = idmap_slot(&b, m->key[k]);
				b.key[j] = m->key[k];
				b.val[j] = m->val[k];
				b.n++;
			}
		free(m->key);
		free(m->val);
		*m = b;
	}
	i = idmap_slot(m, key);
	if (!m->key[i])
		m->n++;
	m->key[i] = key;
	m->val[i] = val;
}

static int idmap_get(const struct idmap *m, int64_t key, size_t *val)
{
	size_t i;

	if (!m->cap)
		return 0;
	i = idmap_slot(m, key);
	if (!m->key[i])
		return 0;
	*val = m->val[i];
	return 1;
}

static void idmap_free(struct idmap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* ---- loading ---- */

void source_free(struct source *src)
{
	spill_free(&src->io_mem);
	free(src->devs);
	memset(src, 0, sizeof(*src));
}


/* Source order: start time, then requests.id (as the store's ordered
 * cursors give them). */
static int cmp_src(const void *pa, const void *pb)
{
	const struct src_io *a = pa, *b = pb;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

#define SORT_RUN 65536   /* rows sorted in place before the merge */

struct merge_ctx {
	const struct src_io *io;
	size_t *pos;
};

static int merge_less(const struct merge_ctx *m, size_t a, size_t b)
{
	return cmp_src(&m->io[m->pos[a]], &m->io[m->pos[b]]) < 0;
}

static void merge_down(const struct merge_ctx *m, size_t *h, size_t hn,
		       size_t j)
{
	for (;;) {
		size_t l = 2 * j + 1, s = j, t;
		if (l < hn && merge_less(m, h[l], h[s]))
			s = l;
		if (l + 1 < hn && merge_less(m, h[l + 1], h[s]))
			s = l + 1;
		if (s == j)
			return;
		t = h[j];
		h[j] = h[s];
		h[s] = t;
		j = s;
	}
}

int source_sort(struct source *src, size_t run)
{
	const size_t sz = sizeof(*src->io), n = src->n;
	size_t nruns, hn = 0;
	size_t *pos, *end, *h, *rel;
	struct spill out;
	struct src_io *o;
	struct merge_ctx m;
	int rc;

	if (!run)
		run = SORT_RUN;
	nruns = (n + run - 1) / run;
	if (!src->io_mem.p || src->io_mem.fd < 0 || nruns <= 1) {
		qsort(src->io, n, sz, cmp_src);
		return 0;
	}
	for (size_t r = 0; r < nruns; r++) {
		size_t a = r * run, len = n - a < run ? n - a : run;
		qsort(src->io + a, len, sz, cmp_src);
		spill_release_range(&src->io_mem, a * sz, (a + len) * sz);
	}
	if ((rc = spill_init(&out, n * sz)))
		return rc;
	o = out.p;
	pos = xmalloc(nruns * sizeof(*pos));
	end = xmalloc(nruns * sizeof(*end));
	rel = xmalloc(nruns * sizeof(*rel));
	h = xmalloc(nruns * sizeof(*h));
	m = (struct merge_ctx){ src->io, pos };
	for (size_t r = 0; r < nruns; r++) {
		pos[r] = rel[r] = r * run;
		end[r] = pos[r] + run < n ? pos[r] + run : n;
		h[hn++] = r;
	}
	for (size_t j = hn / 2; j-- > 0;)
		merge_down(&m, h, hn, j);
	for (size_t k = 0; k < n; k++) {
		size_t r = h[0];
		o[k] = src->io[pos[r]++];
		if (pos[r] - rel[r] >= 16384) {
			spill_release_range(&src->io_mem, rel[r] * sz, pos[r] * sz);
			rel[r] = pos[r];
		}
		if (pos[r] == end[r])
			h[0] = h[--hn];
		merge_down(&m, h, hn, 0);
		spill_at(&out, k, sz);
	}
	free(pos);
	free(end);
	free(rel);
	free(h);
	spill_free(&src->io_mem);
	src->io_mem = out;
	src->io = out.p;
	return 0;
}

/* Source row io from the store's request rq (row id): at the queue level
 * the bio's position, size, Q time and splits; at the dispatch level the
 * dispatched request's position and size and its D time. */
static inline void src_io_of(struct src_io *io, const struct store_request *rq,
			     int64_t id, enum replay_level level)
{
	memset(io, 0, sizeof(*io));
	io->id = id;
	io->dev = rq->dev;
	io->pid = rq->pid;
	io->cats = rq->cats;
	if (level == REPLAY_QUEUE) {
		io->sector = rq->sector;
		io->bytes = rq->bytes;
		io->start_ns = rq->q_ns;
		io->split = rq->split;
		io->split_from = rq->split_from;
	} else {
		/* the dispatched request's position and size */
		io->sector = rq->has_d ? rq->d_sector : rq->sector;
		io->bytes = rq->has_d ? rq->d_bytes : rq->bytes;
		io->start_ns = rq->d_ns;
	}
	io->has_end = rq->c_ns != STORE_NO_TIME;
	io->end_ns = io->has_end ? rq->c_ns : io->start_ns;
}

/* At the queue level, in source order: the later half of a split bio
 * gives its bytes (and a later completion) back to the bio it was cut
 * from (halves can be cut again), and leaves the source. */
static void source_merge_splits(struct source *src, enum replay_level level)
{
	struct idmap split = { 0 };
	size_t out;

	spill_rewind(&src->io_mem);
	for (size_t i = out = 0; level == REPLAY_QUEUE && i < src->n; i++) {
		struct src_io io = src->io[i];
		size_t root;

		spill_at(&src->io_mem, out, sizeof(*src->io));
		if (io.split_from && idmap_get(&split, io.split_from, &root)) {
			struct src_io *r = &src->io[root];
			r->bytes += io.bytes;
			if (io.has_end && (!r->has_end || io.end_ns > r->end_ns)) {
				r->end_ns = io.end_ns;
				r->has_end = 1;
			}
			idmap_put(&split, io.id, root);
			continue;
		}
		if (io.split)
			idmap_put(&split, io.id, out);
		src->io[out++] = io;
	}
	if (level == REPLAY_QUEUE)
		src->n = out;
	idmap_free(&split);
}

/* Zero-length rows that are not flushes have nothing to replay: out of
 * the source, counted in src->skipped. */
static void source_drop_empty(struct source *src)
{
	size_t out;

	spill_rewind(&src->io_mem);
	for (size_t i = out = 0; i < src->n; i++) {
		struct src_io *io = &src->io[i];

		spill_at(&src->io_mem, out, sizeof(*src->io));
		if (!io->bytes && !(io->cats & BT_C_FLUSH)) {
			src->skipped++;
			continue;
		}
		src->io[out++] = *io;
	}
	src->n = out;
}

/* src->devs: the source's devices in order of first appearance. */
static void source_list_devs(struct source *src)
{
	struct idmap devseen = { 0 };

	spill_rewind(&src->io_mem);
	for (size_t i = 0; i < src->n; i++) {
		size_t dummy;
		spill_at(&src->io_mem, i, sizeof(*src->io));
		if (idmap_get(&devseen, (int64_t)src->io[i].dev + 1, &dummy))
			continue;
		idmap_put(&devseen, (int64_t)src->io[i].dev + 1, src->ndev);
		src->devs = xrealloc(src->devs, (src->ndev + 1) * sizeof(*src->devs));
		src->devs[src->ndev++] = src->io[i].dev;
	}
	idmap_free(&devseen);
}

/* The rows are read as the store finds them (no sort in the store before
 * the first row: on a 400k-request run that sort was most of the load)
 * and put in source order here, which costs nothing when they were stored
 * in that order, as imports store them. */
int source_load(struct store *st, int64_t run, enum replay_level level,
		struct source *src, char *err, size_t errlen)
{
	struct store_cursor *cur;
	struct store_request rq;
	size_t cap = 0;
	int64_t id;
	int rc, sorted = 1;

	memset(src, 0, sizeof(*src));
	if ((rc = spill_init(&src->io_mem, 4096 * sizeof(*src->io)))) {
		snprintf(err, errlen, "no memory for the run's requests: %s",
			 strerror(-rc));
		return -1;
	}
	cap = src->io_mem.cap / sizeof(*src->io);
	src->io = src->io_mem.p;
	if (store_requests_open(st, run, level == REPLAY_QUEUE ? STORE_RQ_QUEUED_ANY
				: STORE_RQ_DISPATCHED_ANY, STORE_RQ_DEV | STORE_RQ_PID |
				STORE_RQ_SECTOR | STORE_RQ_BYTES | STORE_RQ_CATS |
				STORE_RQ_C | (level == REPLAY_QUEUE ? STORE_RQ_Q |
				STORE_RQ_SPLIT_FROM | STORE_RQ_SPLIT : STORE_RQ_D |
				STORE_RQ_DISPATCH), &cur)) {
		snprintf(err, errlen, "%s", store_errmsg(st));
		source_free(src);
		return -1;
	}
	while ((rc = store_requests_next(cur, &rq, &id)) > 0) {
		struct src_io *io;

		if (src->n == cap) {
			int grc = spill_grow(&src->io_mem, 2 * cap * sizeof(*src->io));
			if (grc) {
				store_cursor_close(cur);
				snprintf(err, errlen, "no room for the run's %zu "
					 "requests: %s", 2 * cap, strerror(-grc));
				source_free(src);
				return -1;
			}
			cap = src->io_mem.cap / sizeof(*src->io);
			src->io = src->io_mem.p;
		}
		spill_at(&src->io_mem, src->n, sizeof(*src->io));
		io = &src->io[src->n];
		src_io_of(io, &rq, id, level);
		if (src->n && sorted && cmp_src(io - 1, io) > 0)
			sorted = 0;
		src->n++;
	}
	store_cursor_close(cur);
	if (rc < 0) {
		snprintf(err, errlen, "%s", store_errmsg(st));
		source_free(src);
		return -1;
	}
	if (!sorted && (rc = source_sort(src, 0))) {
		snprintf(err, errlen, "no room to sort the run's requests: %s",
			 strerror(-rc));
		source_free(src);
		return -1;
	}
	source_merge_splits(src, level);
	source_drop_empty(src);
	source_list_devs(src);
	return 0;
}

/* ---- arithmetic ---- */

int plan_map_range(uint64_t off, uint64_t len, unsigned lbs, uint64_t size,
		   int wrap, uint64_t *out_off, uint64_t *out_len,
		   uint8_t *flags)
{
	uint64_t mask = (uint64_t)lbs - 1;
	uint64_t a = off & ~mask;
	uint64_t e = (off + len + mask) & ~mask;

	if (a != off || e != off + len)
		*flags |= RIO_ALIGNED;
	if (size && wrap) {
		size &= ~mask;
		if (e - a > size)
			return -ERANGE;
		if (e > size) {
			uint64_t l = e - a;
			a %= size;
			if (a + l > size)
				a = size - l;
			e = a + l;
			*flags |= RIO_WRAPPED;
		}
	} else if (size && e > size) {
		return -ERANGE;
	}
	*out_off = a;
	*out_len = e - a;
	return 0;
}

struct tpoint {
	int64_t t;
	int delta;       /* +1 start, -1 end */
};

static int cmp_tpoint(const void *pa, const void *pb)
{
	const struct tpoint *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->delta - b->delta;   /* ends before starts at the same time */
}

/* Most intervals open at once, for intervals given in order of start: a
 * min-heap of the ends of those still open, O(log depth) an interval and
 * memory for the depth only. */
struct overlap {
	int64_t *h;
	size_t hn, cap, best;
};

static void overlap_add(struct overlap *o, int64_t start, int64_t end)
{
	size_t k;

	if (end <= start)
		return;       /* took no time: never in flight */
	while (o->hn && o->h[0] <= start) {
		/* pop the earliest end: it ended before this start */
		int64_t last = o->h[--o->hn];
		size_t j = 0;
		for (;;) {
			size_t l = 2 * j + 1, m = j;
			int64_t v = last;
			if (l < o->hn && o->h[l] < v)
				m = l, v = o->h[l];
			if (l + 1 < o->hn && o->h[l + 1] < v)
				m = l + 1;
			if (m == j)
				break;
			o->h[j] = o->h[m];
			j = m;
		}
		if (o->hn)
			o->h[j] = last;
	}
	if (o->hn == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->h = xrealloc(o->h, o->cap * sizeof(*o->h));
	}
	for (k = o->hn++; k && o->h[(k - 1) / 2] > end; k = (k - 1) / 2)
		o->h[k] = o->h[(k - 1) / 2];
	o->h[k] = end;
	if (o->hn > o->best)
		o->best = o->hn;
}

static unsigned max_overlap_sorted(const int64_t *start, const int64_t *end,
				   size_t n)
{
	struct overlap o = { 0 };

	for (size_t i = 0; i < n; i++)
		overlap_add(&o, start[i], end[i]);
	free(o.h);
	return (unsigned)o.best;
}

unsigned plan_max_overlap(const int64_t *start, const int64_t *end, size_t n)
{
	struct tpoint *p;
	size_t m = 0;
	long cur = 0, best = 0;

	{
		size_t i = 1;
		while (i < n && start[i - 1] <= start[i])
			i++;
		if (i >= n)
			return max_overlap_sorted(start, end, n);
	}
	p = xmalloc(2 * (n ? n : 1) * sizeof(*p));
	for (size_t i = 0; i < n; i++) {
		if (end[i] <= start[i])
			continue;     /* took no time: never in flight */
		p[m++] = (struct tpoint){ start[i], +1 };
		p[m++] = (struct tpoint){ end[i], -1 };
	}
	qsort(p, m, sizeof(*p), cmp_tpoint);
	for (size_t i = 0; i < m; i++) {
		cur += p[i].delta;
		if (cur > best)
			best = cur;
	}
	free(p);
	return (unsigned)best;
}

size_t plan_cap_gaps(struct plan *plan, int64_t max_gap_ns, int64_t *removed_ns)
{
	int64_t shift = 0, prev = 0;
	size_t n = 0;

	for (size_t i = 0; i < plan->n && max_gap_ns > 0; i++) {
		int64_t t = plan->io[i].t_ns;
		if (i && t - prev > max_gap_ns) {
			shift += t - prev - max_gap_ns;
			n++;
		}
		prev = t;
		plan->io[i].t_ns = t - shift;
	}
	*removed_ns = shift;
	return n;
}

void plan_free(struct plan *plan)
{
	spill_free(&plan->io_mem);
	free(plan->need);
	free(plan->has_writes);
	memset(plan, 0, sizeof(*plan));
}

/* The op a source row becomes on a target (RIO_FLUSH for zero-length
 * flushes, -1 for a discard that is skipped). */
static int row_op(const struct src_io *io, const struct plan_target *t,
		  uint8_t *flags)
{
	*flags = 0;
	if (!io->bytes)
		return RIO_FLUSH;
	if (io->cats & BT_C_DISCARD)
		return t->writable ? RIO_DISCARD : -1;
	if (io->cats & BT_C_WRITE) {
		if (!t->writable) {
			*flags |= RIO_AS_READ;
			return RIO_READ;
		}
		if (io->cats & BT_C_FUA)
			*flags |= RIO_FUA;
		return RIO_WRITE;
	}
	return RIO_READ;
}

/* Per stream while building: its last end so far (streams whose I/Os
 * never overlapped are serial: each starts at or after every earlier one's
 * end, intervals that took no time left out, as plan_max_overlap() has
 * it). */
struct pstream {
	int64_t max_end;
	int overlapped;
};

/* What plan_build's two passes share. */
struct pbuild {
	struct idmap pids;       /* pid + 1 -> its stream (but --streams single) */
	struct idmap devs;       /* device + 1 -> its target */
	uint32_t *far_dev;       /* per target: the device and sector of the */
	uint64_t *far_sec;       /* I/O that reaches furthest into it */
	struct pstream *ps;      /* per stream */
	size_t ps_cap;
	struct overlap all;      /* most in flight at once overall */
	size_t cap;              /* the plan's size: I/Os, flush+writes two */
	int64_t t_first, t_end;  /* the source's span (ns) */
};

/* The stream of source row io (one per pid in order of first appearance,
 * or 0 when single), made when new; b->ps grows to hold it. */
static inline size_t survey_stream(struct pbuild *b, struct plan *plan,
				   const struct src_io *io, int single)
{
	size_t sidx;

	if (single) {
		sidx = 0;
		plan->nstreams = 1;
	} else if (!idmap_get(&b->pids, (int64_t)io->pid + 1, &sidx)) {
		sidx = plan->nstreams++;
		idmap_put(&b->pids, (int64_t)io->pid + 1, sidx);
	}
	if (sidx >= b->ps_cap) {
		size_t old = b->ps_cap;
		b->ps_cap = b->ps_cap ? 2 * b->ps_cap : 64;
		b->ps = xrealloc(b->ps, b->ps_cap * sizeof(*b->ps));
		memset(b->ps + old, 0, (b->ps_cap - old) * sizeof(*b->ps));
	}
	return sidx;
}

/* The first pass, in source (start) order: the streams (serial or not),
 * the span, most in flight at once (the depth), the plan's size, and what
 * each target must hold (before wrapping), into plan and b. Returns 0, or
 * -1 with err filled (an impossible sector). */
static int plan_survey(const struct source *src, const struct plan_target *tg,
		       int single, uint64_t offset, struct plan *plan,
		       struct pbuild *b, char *err, size_t errlen)
{
	struct spill *sm = (struct spill *)&src->io_mem;

	spill_rewind(sm);
	for (size_t i = 0; i < src->n; i++) {
		const struct src_io *io = &src->io[i];
		const struct plan_target *t;
		size_t sidx, ti = 0;
		uint64_t end;
		uint8_t f;

		spill_at(sm, i, sizeof(*io));
		sidx = survey_stream(b, plan, io, single);
		if (io->end_ns > io->start_ns) {
			if (io->start_ns < b->ps[sidx].max_end)
				b->ps[sidx].overlapped = 1;
			if (io->end_ns > b->ps[sidx].max_end)
				b->ps[sidx].max_end = io->end_ns;
		}
		overlap_add(&b->all, io->start_ns, io->end_ns);
		if (io->end_ns > b->t_end)
			b->t_end = io->end_ns;
		if (io->start_ns > b->t_end)
			b->t_end = io->start_ns;
		if (io->bytes)
			plan->src_bytes += io->bytes;
		b->cap += io->bytes && (io->cats & BT_C_FLUSH) ? 2 : 1;
		idmap_get(&b->devs, (int64_t)io->dev + 1, &ti);
		t = &tg[ti];
		if (!io->bytes || row_op(io, t, &f) < 0)
			continue;
		if (io->sector + offset >= (UINT64_MAX >> 10) ||
		    io->sector + offset < io->sector) {
			snprintf(err, errlen, "the run's I/O at sector %" PRIu64
				 "%s is past any device's end", io->sector,
				 offset ? " with --offset" : "");
			return -1;
		}
		end = ((io->sector + offset) * 512 + io->bytes + t->lbs - 1) &
		      ~((uint64_t)t->lbs - 1);
		if (end > plan->need[ti]) {
			plan->need[ti] = end;
			b->far_dev[ti] = io->dev;
			b->far_sec[ti] = io->sector + io->bytes / 512;
		}
	}
	return 0;
}

/* Every target holds what the run reaches on it (plan->need), unless it
 * is extended or wraps. Returns 0, or -1 with err filled. */
static int plan_check_fit(const struct plan *plan, const struct plan_target *tg,
			  int ntg, uint64_t offset, const struct pbuild *b,
			  char *err, size_t errlen)
{
	for (int k = 0; k < ntg; k++) {
		const struct plan_target *t = &tg[k];
		char holds[48];
		if (t->extend || (t->wrap && t->size) || plan->need[k] <= t->size)
			continue;
		/* in sectors, or in bytes for a file under one ("holds 0
		 * sectors" of a 300-byte file) */
		if (t->size < 512)
			snprintf(holds, sizeof(holds), "%" PRIu64 " bytes (not a "
				 "sector)", t->size);
		else
			snprintf(holds, sizeof(holds), "%" PRIu64 " sectors",
				 t->size / 512);
		if (offset)
			snprintf(err, errlen, "the run reaches sector %" PRIu64
				 " of device %u,%u, sector %" PRIu64 " with --offset "
				 "%" PRIu64 ", but '%s' holds %s; use "
				 "--wrap, a smaller --offset or a larger target",
				 b->far_sec[k], BT_MAJOR(b->far_dev[k]),
				 BT_MINOR(b->far_dev[k]), b->far_sec[k] + offset,
				 offset, t->name, holds);
		else
			snprintf(err, errlen, "the run reaches sector %" PRIu64
				 " of device %u,%u but '%s' holds %s; use %sa larger "
				 "target", b->far_sec[k], BT_MAJOR(b->far_dev[k]),
				 BT_MINOR(b->far_dev[k]), t->name, holds,
				 t->size < t->lbs ? "" : "--wrap or ");
		return -1;
	}
	return 0;
}

/* Count I/O r (op op) in the plan's figures: as reads, aligned, wrapped,
 * targets written, the longest. */
static inline void plan_count(struct plan *plan, const struct rio *r, int op)
{
	if (r->flags & RIO_AS_READ)
		plan->as_read++;
	if (r->flags & RIO_ALIGNED)
		plan->aligned++;
	if (r->flags & RIO_WRAPPED)
		plan->wrapped++;
	if (op == RIO_WRITE || op == RIO_DISCARD)
		plan->has_writes[r->target] = 1;
	if (op != RIO_DISCARD && r->len > plan->max_len)
		plan->max_len = r->len;
}

/* The second pass: the plan's I/Os, a source row each (a flush+write two:
 * the flush, then the write once the flush has completed; a skipped
 * discard none), on its target's byte range. Returns 0, or -1 with err
 * filled (a request that does not fit). */
static int plan_ios(const struct source *src, const struct plan_target *tg,
		    int single, uint64_t offset, struct plan *plan,
		    struct pbuild *b, char *err, size_t errlen)
{
	struct spill *sm = (struct spill *)&src->io_mem;

	spill_rewind(sm);
	for (size_t i = 0; i < src->n; i++) {
		const struct src_io *io = &src->io[i];
		size_t sidx = 0, ti = 0;
		const struct plan_target *t;
		struct rio r;
		int op;
		uint64_t off, len;

		spill_at(sm, i, sizeof(*io));
		spill_at(&plan->io_mem, plan->n, sizeof(*plan->io));
		if (!single)
			idmap_get(&b->pids, (int64_t)io->pid + 1, &sidx);
		idmap_get(&b->devs, (int64_t)io->dev + 1, &ti);
		t = &tg[ti];
		r = (struct rio){
			.t_ns = io->start_ns - b->t_first, .stream = (uint32_t)sidx,
			.target = (uint16_t)ti, .pid = io->pid, .src_id = io->id,
		};
		op = row_op(io, t, &r.flags);
		if (op < 0) {
			plan->discards_skipped++;
			continue;
		}
		if (!b->ps[sidx].overlapped)
			r.flags |= RIO_DEP;
		if (op == RIO_FLUSH) {
			r.op = RIO_FLUSH;
			plan->io[plan->n++] = r;
			continue;
		}
		if (plan_map_range((io->sector + offset) * 512, io->bytes, t->lbs,
				   t->extend && !(t->wrap && t->size) ? 0 : t->size,
				   t->wrap, &off, &len, &r.flags)) {
			snprintf(err, errlen, "request %" PRId64 " (%u bytes) does "
				 "not fit in '%s' (%" PRIu64 " bytes)", io->id,
				 io->bytes, t->name, t->size);
			return -1;
		}
		if (len > UINT32_MAX) {
			snprintf(err, errlen, "request %" PRId64 " is too large",
				 io->id);
			return -1;
		}
		if ((io->cats & BT_C_FLUSH) && op != RIO_DISCARD) {
			/* flush+write: the flush, then the write once the
			 * flush has completed */
			struct rio f = r;
			f.op = RIO_FLUSH;
			f.flags = (uint8_t)((r.flags & RIO_DEP) | RIO_PREFLUSH);
			plan->io[plan->n++] = f;
			r.flags |= RIO_DEP;
			plan->flush_writes++;
		}
		r.op = (uint8_t)op;
		r.off = off;
		r.len = (uint32_t)len;
		plan_count(plan, &r, op);
		plan->io[plan->n++] = r;
	}
	return 0;
}

int plan_build(const struct source *src, const int *dev_target,
	       const struct plan_target *tg, int ntg, int single,
	       uint64_t offset, struct plan *plan, char *err, size_t errlen)
{
	struct pbuild b = {
		.far_dev = xcalloc((size_t)ntg, sizeof(*b.far_dev)),
		.far_sec = xcalloc((size_t)ntg, sizeof(*b.far_sec)),
		.t_first = src->n ? src->io[0].start_ns : 0,
	};
	int rc = -1;

	b.t_end = b.t_first;
	memset(plan, 0, sizeof(*plan));
	plan->need = xcalloc((size_t)ntg, sizeof(*plan->need));
	plan->has_writes = xcalloc((size_t)ntg, sizeof(*plan->has_writes));
	plan->skipped = src->skipped;
	plan->src_n = src->n;
	for (size_t k = 0; k < src->ndev; k++)
		idmap_put(&b.devs, (int64_t)src->devs[k] + 1, (size_t)dev_target[k]);

	if (plan_survey(src, tg, single, offset, plan, &b, err, errlen))
		goto out;
	plan->src_span_ns = b.t_end - b.t_first;
	plan->depth_orig = (unsigned)b.all.best;
	if (!plan->depth_orig)
		plan->depth_orig = 1;
	for (uint32_t k = 0; k < plan->nstreams; k++)
		if (!b.ps[k].overlapped)
			plan->serial_streams++;
	if (plan_check_fit(plan, tg, ntg, offset, &b, err, errlen))
		goto out;

	if ((rc = spill_init(&plan->io_mem, (b.cap ? b.cap : 1) * sizeof(*plan->io)))) {
		snprintf(err, errlen, "no room for a plan of %zu I/Os: %s", b.cap,
			 strerror(-rc));
		rc = -1;
		goto out;
	}
	plan->io = plan->io_mem.p;
	rc = plan_ios(src, tg, single, offset, plan, &b, err, errlen);
out:
	idmap_free(&b.pids);
	idmap_free(&b.devs);
	free(b.far_dev);
	free(b.far_sec);
	free(b.ps);
	free(b.all.h);
	return rc;
}
