/* The replay plan: loading a run's I/Os at one level, streams, dependencies,
 * the original depth, and mapping sectors onto the targets. */
#include "plan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/blktrace_format.h"
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
	free(src->io);
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

/* The rows are read as the store finds them (no sort in the store before
 * the first row: on a 400k-request run that sort was most of the load)
 * and put in source order here, which costs nothing when they were stored
 * in that order, as imports store them. */
int source_load(struct store *st, int64_t run, enum replay_level level,
		struct source *src, char *err, size_t errlen)
{
	struct idmap split = { 0 }, devseen = { 0 };
	struct store_cursor *cur;
	struct store_request rq;
	size_t cap = 0, out;
	int64_t id;
	int rc, sorted = 1;

	memset(src, 0, sizeof(*src));
	if (store_requests_open(st, run, level == REPLAY_QUEUE ? STORE_RQ_QUEUED_ANY
				: STORE_RQ_DISPATCHED_ANY, STORE_RQ_DEV | STORE_RQ_PID |
				STORE_RQ_SECTOR | STORE_RQ_BYTES | STORE_RQ_CATS |
				STORE_RQ_C | (level == REPLAY_QUEUE ? STORE_RQ_Q |
				STORE_RQ_SPLIT_FROM | STORE_RQ_SPLIT : STORE_RQ_D |
				STORE_RQ_DISPATCH), &cur)) {
		snprintf(err, errlen, "%s", store_errmsg(st));
		return -1;
	}
	while ((rc = store_requests_next(cur, &rq, &id)) > 0) {
		struct src_io *io;

		if (src->n == cap) {
			cap = cap ? 2 * cap : 4096;
			src->io = xrealloc(src->io, cap * sizeof(*src->io));
		}
		io = &src->io[src->n];
		memset(io, 0, sizeof(*io));
		io->id = id;
		io->dev = rq.dev;
		io->pid = rq.pid;
		io->cats = rq.cats;
		if (level == REPLAY_QUEUE) {
			io->sector = rq.sector;
			io->bytes = rq.bytes;
			io->start_ns = rq.q_ns;
			io->split = rq.split;
			io->split_from = rq.split_from;
		} else {
			/* the dispatched request's position and size */
			io->sector = rq.has_d ? rq.d_sector : rq.sector;
			io->bytes = rq.has_d ? rq.d_bytes : rq.bytes;
			io->start_ns = rq.d_ns;
		}
		io->has_end = rq.c_ns != STORE_NO_TIME;
		io->end_ns = io->has_end ? rq.c_ns : io->start_ns;
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
	if (!sorted)
		qsort(src->io, src->n, sizeof(*src->io), cmp_src);
	/* in source order: the later half of a split bio gives its bytes back
	 * to the bio it was cut from (halves can be cut again) */
	for (size_t i = out = 0; level == REPLAY_QUEUE && i < src->n; i++) {
		struct src_io io = src->io[i];
		size_t root;

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
	/* zero-length rows that are not flushes have nothing to replay */
	for (size_t i = out = 0; i < src->n; i++) {
		struct src_io *io = &src->io[i];
		if (!io->bytes && !(io->cats & BT_C_FLUSH)) {
			src->skipped++;
			continue;
		}
		src->io[out++] = *io;
	}
	src->n = out;
	for (size_t i = 0; i < src->n; i++) {
		size_t dummy;
		if (idmap_get(&devseen, (int64_t)src->io[i].dev + 1, &dummy))
			continue;
		idmap_put(&devseen, (int64_t)src->io[i].dev + 1, src->ndev);
		src->devs = xrealloc(src->devs, (src->ndev + 1) * sizeof(*src->devs));
		src->devs[src->ndev++] = src->io[i].dev;
	}
	idmap_free(&devseen);
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

/* plan_max_overlap() for starts in order, as a source's are: a min-heap
 * of the ends of the intervals still open, O(n log depth) and memory for
 * the depth only. */
static unsigned max_overlap_sorted(const int64_t *start, const int64_t *end,
				   size_t n)
{
	int64_t *h = NULL;
	size_t hn = 0, cap = 0, best = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;
		if (end[i] <= start[i])
			continue;     /* took no time: never in flight */
		while (hn && h[0] <= start[i]) {
			/* pop the earliest end: it ended before this start */
			int64_t last = h[--hn];
			size_t j = 0;
			for (;;) {
				size_t l = 2 * j + 1, m = j;
				int64_t v = last;
				if (l < hn && h[l] < v)
					m = l, v = h[l];
				if (l + 1 < hn && h[l + 1] < v)
					m = l + 1;
				if (m == j)
					break;
				h[j] = h[m];
				j = m;
			}
			if (hn)
				h[j] = last;
		}
		if (hn == cap) {
			cap = cap ? 2 * cap : 64;
			h = xrealloc(h, cap * sizeof(*h));
		}
		for (k = hn++; k && h[(k - 1) / 2] > end[i]; k = (k - 1) / 2)
			h[k] = h[(k - 1) / 2];
		h[k] = end[i];
		if (hn > best)
			best = hn;
	}
	free(h);
	return (unsigned)best;
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
	free(plan->io);
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

int plan_build(const struct source *src, const int *dev_target,
	       const struct plan_target *tg, int ntg, int single,
	       uint64_t offset, struct plan *plan, char *err, size_t errlen)
{
	struct idmap pids = { 0 }, devs = { 0 };
	uint32_t *stream_of = xcalloc(src->n ? src->n : 1, sizeof(*stream_of));
	int *tgt_of = xcalloc(src->n ? src->n : 1, sizeof(*tgt_of));
	uint32_t *far_dev = xcalloc((size_t)ntg, sizeof(*far_dev));
	uint64_t *far_sec = xcalloc((size_t)ntg, sizeof(*far_sec));
	int64_t *st = NULL, *en = NULL;
	size_t *count = NULL, *first = NULL, cap = 0;
	int *serial = NULL;
	int64_t t_first = src->n ? src->io[0].start_ns : 0, t_end = t_first;
	int rc = -1;

	memset(plan, 0, sizeof(*plan));
	plan->need = xcalloc((size_t)ntg, sizeof(*plan->need));
	plan->has_writes = xcalloc((size_t)ntg, sizeof(*plan->has_writes));
	plan->skipped = src->skipped;
	plan->src_n = src->n;
	for (size_t k = 0; k < src->ndev; k++)
		idmap_put(&devs, (int64_t)src->devs[k] + 1, (size_t)dev_target[k]);

	/* streams: one per pid in order of first appearance, or one */
	for (size_t i = 0; i < src->n; i++) {
		size_t sidx, t;
		if (single) {
			sidx = 0;
			plan->nstreams = 1;
		} else if (!idmap_get(&pids, (int64_t)src->io[i].pid + 1, &sidx)) {
			sidx = plan->nstreams++;
			idmap_put(&pids, (int64_t)src->io[i].pid + 1, sidx);
		}
		stream_of[i] = (uint32_t)sidx;
		idmap_get(&devs, (int64_t)src->io[i].dev + 1, &t);
		tgt_of[i] = (int)t;
		if (src->io[i].end_ns > t_end)
			t_end = src->io[i].end_ns;
		if (src->io[i].start_ns > t_end)
			t_end = src->io[i].start_ns;
		if (src->io[i].bytes)
			plan->src_bytes += src->io[i].bytes;
	}
	plan->src_span_ns = t_end - t_first;

	/* depth: most in flight at once, overall and per stream */
	st = xmalloc((src->n ? src->n : 1) * sizeof(*st));
	en = xmalloc((src->n ? src->n : 1) * sizeof(*en));
	for (size_t i = 0; i < src->n; i++) {
		st[i] = src->io[i].start_ns;
		en[i] = src->io[i].end_ns;
	}
	plan->depth_orig = plan_max_overlap(st, en, src->n);
	if (!plan->depth_orig)
		plan->depth_orig = 1;
	count = xcalloc(plan->nstreams + 1, sizeof(*count));
	first = xcalloc(plan->nstreams + 1, sizeof(*first));
	for (size_t i = 0; i < src->n; i++)
		count[stream_of[i]]++;
	for (uint32_t s = 1; s <= plan->nstreams; s++)
		first[s] = first[s - 1] + count[s - 1];
	memset(count, 0, (plan->nstreams + 1) * sizeof(*count));
	for (size_t i = 0; i < src->n; i++) {
		size_t k = first[stream_of[i]] + count[stream_of[i]]++;
		st[k] = src->io[i].start_ns;
		en[k] = src->io[i].end_ns;
	}

	/* the I/Os */
	for (size_t i = 0; i < src->n; i++)
		cap += src->io[i].bytes && (src->io[i].cats & BT_C_FLUSH) ? 2 : 1;
	plan->io = xcalloc(cap ? cap : 1, sizeof(*plan->io));

	/* what each target must hold (before wrapping) */
	for (size_t i = 0; i < src->n; i++) {
		const struct src_io *io = &src->io[i];
		const struct plan_target *t = &tg[tgt_of[i]];
		uint64_t end;
		uint8_t f;

		if (!io->bytes || row_op(io, t, &f) < 0)
			continue;
		if (io->sector + offset >= (UINT64_MAX >> 10)) {
			snprintf(err, errlen, "request %" PRId64 " has an impossible "
				 "sector %" PRIu64, io->id, io->sector);
			goto out;
		}
		end = ((io->sector + offset) * 512 + io->bytes + t->lbs - 1) &
		      ~((uint64_t)t->lbs - 1);
		if (end > plan->need[tgt_of[i]]) {
			plan->need[tgt_of[i]] = end;
			far_dev[tgt_of[i]] = io->dev;
			far_sec[tgt_of[i]] = io->sector + io->bytes / 512;
		}
	}
	for (int k = 0; k < ntg; k++) {
		const struct plan_target *t = &tg[k];
		if (t->extend || (t->wrap && t->size) || plan->need[k] <= t->size)
			continue;
		snprintf(err, errlen, "the run reaches sector %" PRIu64 " of "
			 "device %u,%u%s but '%s' holds %" PRIu64 " sectors; use "
			 "--wrap, a smaller --offset or a larger target",
			 far_sec[k], BT_MAJOR(far_dev[k]), BT_MINOR(far_dev[k]),
			 offset ? " (with --offset)" : "", t->name, t->size / 512);
		goto out;
	}

	serial = xcalloc(plan->nstreams + 1, sizeof(*serial));
	for (uint32_t s = 0; s < plan->nstreams; s++)
		if ((serial[s] = plan_max_overlap(st + first[s], en + first[s],
						  count[s]) <= 1))
			plan->serial_streams++;
	for (size_t i = 0; i < src->n; i++) {
		const struct src_io *io = &src->io[i];
		const struct plan_target *t = &tg[tgt_of[i]];
		uint32_t s = stream_of[i];
		struct rio r = {
			.t_ns = io->start_ns - t_first, .stream = s,
			.target = (uint16_t)tgt_of[i], .pid = io->pid,
			.src_id = io->id,
		};
		int op = row_op(io, t, &r.flags);
		uint64_t off, len;

		if (op < 0) {
			plan->discards_skipped++;
			continue;
		}
		if (serial[s])
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
			goto out;
		}
		if (len > UINT32_MAX) {
			snprintf(err, errlen, "request %" PRId64 " is too large",
				 io->id);
			goto out;
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
		if (r.flags & RIO_AS_READ)
			plan->as_read++;
		if (r.flags & RIO_ALIGNED)
			plan->aligned++;
		if (r.flags & RIO_WRAPPED)
			plan->wrapped++;
		if (op == RIO_WRITE || op == RIO_DISCARD)
			plan->has_writes[r.target] = 1;
		if (op != RIO_DISCARD && r.len > plan->max_len)
			plan->max_len = r.len;
		plan->io[plan->n++] = r;
	}
	rc = 0;
out:
	idmap_free(&pids);
	idmap_free(&devs);
	free(stream_of);
	free(tgt_of);
	free(far_dev);
	free(far_sec);
	free(st);
	free(en);
	free(count);
	free(first);
	free(serial);
	return rc;
}
