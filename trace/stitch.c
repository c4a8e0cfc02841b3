/* Request stitching over time-ordered events, one state per device, after
 * btt 2.09 (btt/trace_queue.c, trace_im.c, trace_issue.c, trace_complete.c,
 * dip_rb.c): a Q waits in a per-device tree keyed by start sector (a new Q
 * at a start sector in flight replaces the old one, whose C was lost: btt's
 * 2016 "Replace overlapping IO"); G, M/F and I take the Q starting at their
 * sector, else the one holding it; a D takes the waiting Q of exactly its
 * range, else every waiting Q inside it; a C completes the Qs dispatched
 * with exactly its range, else every Q inside it (exact ranges first, as
 * btt's 2017 lookup fix: a bio nested in another pairs with its own
 * events). D2D seeks as btt/seek.c, one per D, requeued ones included.
 * Beyond btt: an X split cuts the Q in two so both halves complete;
 * zero-length bios pair in arrival order and a flush bio ends at its own C
 * after its flush request's (Q FWS, D FN, C FN, C WS: kernels 5.x, 6.x); a
 * D with no Q, or a C with nothing in flight, makes a row of its own, so
 * D-and-C-only and completion-only traces still give D2C and bio counts. */
#include "stitch.h"

#include <stdlib.h>
#include <string.h>

#include "lib/timeline.h"
#include "lib/util.h"

struct sio {
	struct store_request rq;
	int64_t id;
	uint64_t end;          /* rq.sector + sectors */
	struct sio *l, *r;     /* treap by rq.sector */
	uint32_t prio;
	struct sio *next;      /* zero-length FIFO */
	int flush_done;        /* zero-length: its flush request completed
				* (c_ns), the bio's own completion is awaited */
};

struct zfifo { struct sio *head, *tail; };

struct remap_note {
	uint32_t dev_to, dev_from;
	uint64_t sector_to, sector_from;
};

#define REMAP_RING 1024
#define STITCH_STEP_BACK_NS TIMELINE_BACK_NS      /* 1 s */

struct devst {
	uint32_t dev;
	struct sio *q;         /* waiting bios with data, by start sector */
	struct sio *d;         /* orphan dispatches with data */
	struct zfifo zq;       /* zero-length bios and orphan dispatches */
	int64_t last_start, last_end; /* btt D2D seek state */
};

struct stitch {
	stitch_emit_fn emit;
	void *ctx;
	int64_t next_id;
	struct devst *devs;
	size_t ndev;
	uint32_t seed;
	uint64_t last_time;
	struct timeline tl;    /* the time that had I/O */
	int have_last;
	struct remap_note remaps[REMAP_RING];
	unsigned nremap;
	uint64_t nflushed;
	struct sio **vec;      /* scratch for range collection */
	size_t nvec, capvec;
	struct stitch_stats st;
};

/* ---- a small treap keyed by start sector ---- */

static struct sio *rot_r(struct sio *t)
{
	struct sio *l = t->l;
	t->l = l->r;
	l->r = t;
	return l;
}

static struct sio *rot_l(struct sio *t)
{
	struct sio *r = t->r;
	t->r = r->l;
	r->l = t;
	return r;
}

/* Inserts n; returns the new root, and sets *dup when the key exists. */
static struct sio *tr_insert(struct sio *t, struct sio *n, int *dup)
{
	if (!t)
		return n;
	if (n->rq.sector == t->rq.sector) {
		*dup = 1;
		return t;
	}
	if (n->rq.sector < t->rq.sector) {
		t->l = tr_insert(t->l, n, dup);
		if (t->l->prio > t->prio)
			t = rot_r(t);
	} else {
		t->r = tr_insert(t->r, n, dup);
		if (t->r->prio > t->prio)
			t = rot_l(t);
	}
	return t;
}

static struct sio *tr_remove(struct sio *t, uint64_t key)
{
	if (!t)
		return NULL;
	if (key < t->rq.sector)
		t->l = tr_remove(t->l, key);
	else if (key > t->rq.sector)
		t->r = tr_remove(t->r, key);
	else {
		if (!t->l)
			return t->r;
		if (!t->r)
			return t->l;
		if (t->l->prio > t->r->prio) {
			t = rot_r(t);
			t->r = tr_remove(t->r, key);
		} else {
			t = rot_l(t);
			t->l = tr_remove(t->l, key);
		}
	}
	return t;
}

/* The node whose [sector, end) holds sec (btt's rb_find_sec), or NULL. */
static struct sio *tr_find_sec(struct sio *t, uint64_t sec)
{
	while (t) {
		if (sec < t->rq.sector)
			t = t->l;
		else if (sec >= t->end)
			t = t->r;
		else
			return t;
	}
	return NULL;
}

/* The node whose start sector is key, or NULL. */
static struct sio *tr_find_key(struct sio *t, uint64_t key)
{
	while (t && t->rq.sector != key)
		t = key < t->rq.sector ? t->l : t->r;
	return t;
}

static void vec_add(struct stitch *s, struct sio *t)
{
	if (s->nvec == s->capvec) {
		s->capvec = s->capvec ? 2 * s->capvec : 64;
		s->vec = xrealloc(s->vec, s->capvec * sizeof(*s->vec));
	}
	s->vec[s->nvec++] = t;
}

/* Appends to s->vec every node lying inside [s0, e0] (btt's rb_foreach). */
static void tr_collect(struct stitch *s, struct sio *t, uint64_t s0, uint64_t e0)
{
	if (!t)
		return;
	if (s0 < t->rq.sector)
		tr_collect(s, t->l, s0, e0);
	if (s0 <= t->rq.sector && t->end <= e0) {
		vec_add(s, t);
	}
	/* by start only: a bio nested inside t can start after t and end
	 * before t's end (btt's rb_foreach prunes on t's end and misses it) */
	if (t->rq.sector <= e0)
		tr_collect(s, t->r, s0, e0);
}

static void tr_free(struct sio *t)
{
	if (!t)
		return;
	tr_free(t->l);
	tr_free(t->r);
	free(t);
}

/* ---- stitcher ---- */

struct stitch *stitch_new(stitch_emit_fn emit, void *ctx, int64_t first_id)
{
	struct stitch *s = xcalloc(1, sizeof(*s));

	s->emit = emit;
	s->ctx = ctx;
	s->next_id = first_id;
	s->seed = 2463534242u;
	return s;
}

const struct stitch_stats *stitch_stats(const struct stitch *s)
{
	return &s->st;
}

static uint32_t rnd(struct stitch *s)
{
	s->seed ^= s->seed << 13;
	s->seed ^= s->seed >> 17;
	s->seed ^= s->seed << 5;
	return s->seed;
}

static struct devst *dev_get(struct stitch *s, uint32_t dev)
{
	for (size_t i = 0; i < s->ndev; i++)
		if (s->devs[i].dev == dev)
			return &s->devs[i];
	s->devs = xrealloc(s->devs, (s->ndev + 1) * sizeof(*s->devs));
	memset(&s->devs[s->ndev], 0, sizeof(*s->devs));
	s->devs[s->ndev].dev = dev;
	return &s->devs[s->ndev++];
}

static struct sio *sio_new(struct stitch *s, const struct bt_event *ev)
{
	struct sio *n = xcalloc(1, sizeof(*n));

	n->id = s->next_id++;
	n->prio = rnd(s);
	n->rq.dev = ev->dev;
	n->rq.sector = ev->sector;
	n->rq.bytes = ev->bytes;
	n->rq.cats = bt_cats(ev);
	bt_rwbs(ev, n->rq.rwbs);
	n->rq.pid = ev->pid;
	n->rq.q_ns = n->rq.g_ns = n->rq.m_ns = n->rq.i_ns = STORE_NO_TIME;
	n->rq.d_ns = n->rq.c_ns = STORE_NO_TIME;
	n->end = ev->sector + bt_sectors(ev);
	return n;
}

static int emit_free(struct stitch *s, struct sio *n)
{
	int rc = s->emit(s->ctx, n->id, &n->rq);

	free(n);
	return rc;
}

static void zpush(struct zfifo *f, struct sio *n)
{
	n->next = NULL;
	if (f->tail)
		f->tail->next = n;
	else
		f->head = n;
	f->tail = n;
}

/* Unlinks n, which is in f. */
static struct sio *zunlink(struct zfifo *f, struct sio *n)
{
	struct sio *prev = NULL;

	for (struct sio *x = f->head; x != n; x = x->next)
		prev = x;
	if (prev)
		prev->next = n->next;
	else
		f->head = n->next;
	if (f->tail == n)
		f->tail = prev;
	n->next = NULL;
	return n;
}

/* The first zero-length entry satisfying pred, unlinked when take is set. */
static struct sio *zfind(struct zfifo *f, int (*pred)(const struct sio *),
			 int take)
{
	for (struct sio *n = f->head; n; n = n->next)
		if (pred(n))
			return take ? zunlink(f, n) : n;
	return NULL;
}

#define SEEN(t) ((t) != STORE_NO_TIME)

static int z_no_g(const struct sio *n) { return !SEEN(n->rq.g_ns) && !SEEN(n->rq.d_ns); }
static int z_no_i(const struct sio *n) { return !SEEN(n->rq.i_ns) && !SEEN(n->rq.d_ns); }
static int z_no_d(const struct sio *n) { return !SEEN(n->rq.d_ns); }
static int z_has_d(const struct sio *n) { return SEEN(n->rq.d_ns); }

/* Notes a remap so the Q that follows on dev_to can name its origin. */
static void remap_note(struct stitch *s, const struct bt_event *ev)
{
	struct bt_remap r;
	struct remap_note *n;

	s->st.remaps++;
	if (bt_pdu_remap(ev, &r))
		return;
	/* Chase a chain: if the origin is itself a remap target, keep its origin. */
	for (unsigned i = 0; i < REMAP_RING && i < s->nremap; i++) {
		struct remap_note *o = &s->remaps[(s->nremap - 1 - i) % REMAP_RING];
		if (o->dev_to == r.dev_from && o->sector_to == r.sector_from) {
			r.dev_from = o->dev_from;
			r.sector_from = o->sector_from;
			break;
		}
		if (i > 16)
			break;
	}
	n = &s->remaps[s->nremap++ % REMAP_RING];
	n->dev_to = ev->dev;
	n->sector_to = ev->sector;
	n->dev_from = r.dev_from;
	n->sector_from = r.sector_from;
}

static void remap_lookup(struct stitch *s, struct sio *n)
{
	for (unsigned i = 0; i < 32 && i < s->nremap; i++) {
		struct remap_note *o = &s->remaps[(s->nremap - 1 - i) % REMAP_RING];
		if (o->dev_to == n->rq.dev && o->sector_to == n->rq.sector) {
			n->rq.has_orig = 1;
			n->rq.orig_dev = o->dev_from;
			n->rq.orig_sector = o->sector_from;
			return;
		}
	}
}

static int on_queue(struct stitch *s, struct devst *d, const struct bt_event *ev)
{
	struct sio *n = sio_new(s, ev);
	int dup = 0;

	s->st.bios++;
	n->rq.q_ns = (int64_t)ev->time_ns;
	remap_lookup(s, n);
	if (!ev->bytes) {
		zpush(&d->zq, n);
		return 0;
	}
	d->q = tr_insert(d->q, n, &dup);
	if (dup) {
		/* A new bio at the start sector of one in flight: the older
		 * one's completion was lost. btt (since 2016) replaces it;
		 * it ends here as a row that never completed. */
		struct sio *old = tr_find_key(d->q, n->rq.sector);
		s->st.dup_q++;
		d->q = tr_remove(d->q, n->rq.sector);
		dup = 0;
		d->q = tr_insert(d->q, n, &dup);
		return old ? emit_free(s, old) : 0;
	}
	return 0;
}

/* G, M/F and I: mark the waiting bio holding the event's sector. */
static void on_igm(struct stitch *s, struct devst *d, const struct bt_event *ev,
		   unsigned code)
{
	struct sio *n;
	int64_t t = (int64_t)ev->time_ns;

	if (!ev->bytes) {
		n = zfind(&d->zq, code == BT_A_INSERT ? z_no_i : z_no_g, 0);
	} else {
		/* the bio starting here, else the one holding the sector */
		n = tr_find_key(d->q, ev->sector);
		if (!n)
			n = tr_find_sec(d->q, ev->sector);
	}
	if (!n) {
		s->st.unmatched_gim++;
		return;
	}
	if (code == BT_A_INSERT)
		n->rq.i_ns = t;
	else if (code == BT_A_GETRQ)
		n->rq.g_ns = t;
	else
		n->rq.m_ns = t;
}

int64_t stitch_seek_dist(int64_t *last_start, int64_t *last_end, int64_t start,
			 int64_t end)
{
	int64_t dist;
	if ((*last_start <= start && start <= *last_end) ||
	    (*last_start <= end && end <= *last_end))
		dist = 0;
	else if (start > *last_end)
		dist = start - *last_end;
	else
		dist = start - *last_start;
	*last_start = start;
	*last_end = end;
	return dist;
}

static void set_dispatch(struct sio *n, const struct bt_event *ev)
{
	n->rq.d_ns = (int64_t)ev->time_ns;
	n->rq.has_d = 1;
	n->rq.d_sector = ev->sector;
	n->rq.d_bytes = ev->bytes;
}

static void on_issue(struct stitch *s, struct devst *d, const struct bt_event *ev)
{
	struct sio *head = NULL, *n;

	s->st.dispatches++;
	if (!ev->bytes) {
		n = zfind(&d->zq, z_no_d, 0);
		if (!n) {
			n = sio_new(s, ev);
			s->st.orphan_d++;
			zpush(&d->zq, n);
		}
		set_dispatch(n, ev);
		n->rq.d_head = 1;
		return;
	}
	s->nvec = 0;
	n = tr_find_key(d->q, ev->sector);
	if (n && n->end == ev->sector + bt_sectors(ev) && !SEEN(n->rq.d_ns)) {
		/* the bio of exactly this range: not any bio nested in it */
		vec_add(s, n);
	} else {
		size_t k = 0;
		tr_collect(s, d->q, ev->sector, ev->sector + bt_sectors(ev));
		/* bios already in another dispatched request stay there */
		for (size_t i = 0; i < s->nvec; i++)
			if (!SEEN(s->vec[i]->rq.d_ns))
				s->vec[k++] = s->vec[i];
		s->nvec = k;
	}
	for (size_t i = 0; i < s->nvec; i++) {
		n = s->vec[i];
		set_dispatch(n, ev);
		if (!head || (SEEN(n->rq.g_ns) && !SEEN(head->rq.g_ns)))
			head = n;
	}
	if (!head) {
		/* A dispatch whose bios were queued before the trace (or whose
		 * Q was not traced): a row of its own. */
		int dup = 0;
		n = sio_new(s, ev);
		set_dispatch(n, ev);
		s->st.orphan_d++;
		d->d = tr_insert(d->d, n, &dup);
		if (dup) {
			/* by start sector: a request under 512 bytes has an
			 * empty sector range, so containment would miss it */
			struct sio *old = tr_find_key(d->d, ev->sector);
			/* Re-dispatch of the same range: take the newer times. */
			if (old) {
				old->rq = n->rq;
				old->end = n->end;
			}
			free(n);
			n = old;
		}
		head = n;
	}
	head->rq.d_head = 1;
	head->rq.has_seek = 1;
	head->rq.seek_sectors = stitch_seek_dist(&d->last_start, &d->last_end,
				(int64_t)ev->sector, (int64_t)(ev->sector + bt_sectors(ev)));
	for (size_t i = 0; i < s->nvec; i++)
		if (s->vec[i] != head) {
			s->vec[i]->rq.merged_into = head->id;
			s->vec[i]->rq.d_head = 0;
		}
}

/* The D2D seek of a dispatch that is being requeued, as a row of its own
 * (no Q, D or C time; has_seek only), so the request's next dispatch does
 * not overwrite it: btt counts a seek for every D (btt/trace_issue.c). */
static int keep_seek(struct stitch *s, struct sio *n)
{
	struct store_request g;

	if (!n->rq.d_head || !n->rq.has_seek)
		return 0;
	g = n->rq;
	g.sector = n->rq.d_sector;
	g.bytes = 0;
	g.q_ns = g.g_ns = g.m_ns = g.i_ns = g.d_ns = g.c_ns = STORE_NO_TIME;
	g.has_d = g.d_head = g.split = g.has_orig = 0;
	g.split_from = 0;
	g.requeues = 1;
	g.merged_into = n->id;
	n->rq.has_seek = 0;
	s->st.requeued_seeks++;
	return s->emit(s->ctx, s->next_id++, &g);
}

static int on_requeue(struct stitch *s, struct devst *d, const struct bt_event *ev)
{
	int rc = 0;

	s->st.requeues++;
	if (!ev->bytes) {
		struct sio *n = zfind(&d->zq, z_has_d, 0);
		if (n) {
			n->rq.d_ns = STORE_NO_TIME;
			n->rq.requeues++;
		}
		return 0;
	}
	s->nvec = 0;
	tr_collect(s, d->q, ev->sector, ev->sector + bt_sectors(ev));
	tr_collect(s, d->d, ev->sector, ev->sector + bt_sectors(ev));
	for (size_t i = 0; i < s->nvec && !rc; i++) {
		rc = keep_seek(s, s->vec[i]);
		s->vec[i]->rq.d_ns = STORE_NO_TIME;
		s->vec[i]->rq.d_head = 0;
		s->vec[i]->rq.requeues++;
	}
	return rc;
}

static int complete(struct stitch *s, struct sio *n, const struct bt_event *ev)
{
	n->rq.c_ns = (int64_t)ev->time_ns;
	n->rq.error = ev->error;
	return emit_free(s, n);
}

static int z_flush_pending(const struct sio *n) { return SEEN(n->rq.d_ns) && !n->flush_done; }
static int z_flush_done(const struct sio *n) { return n->flush_done; }

/* Emits zero-length bios whose flush request completed over a second before
 * now and whose own completion never came (kernels that do not trace it):
 * they end at the flush's completion. */
static int flush_expire(struct stitch *s, struct devst *d, uint64_t now)
{
	struct sio *n;
	int rc = 0;

	while (!rc && d->zq.head && d->zq.head->flush_done &&
	       (uint64_t)d->zq.head->rq.c_ns + STITCH_STEP_BACK_NS < now) {
		n = zfind(&d->zq, z_flush_done, 1);
		rc = emit_free(s, n);
	}
	return rc;
}

/* A zero-length C. A flush request's (no data direction: "C FN") marks
 * the flush bio waiting for it; a bio's own ("C WS", after its flush
 * request's, kernels 5.x and 6.x) ends the bio, at its sector when one
 * waits there, else the first. Kernels that trace one C per flush: the
 * first dispatched entry ends at it. */
static int on_complete_empty(struct stitch *s, struct devst *d,
			     const struct bt_event *ev)
{
	uint64_t c = bt_cats(ev);
	struct sio *n;
	int rc;

	if ((rc = flush_expire(s, d, ev->time_ns)))
		return rc;
	if (!(c & (BT_C_WRITE | BT_C_DISCARD))) {
		/* "N" in blkparse's RWBS (its READ bit is not a direction) */
		n = zfind(&d->zq, z_flush_pending, 0);
		if (!n) {
			s->st.unmatched_c++;
			return 0;
		}
		if (!SEEN(n->rq.q_ns))         /* no bio waits for it */
			return complete(s, zfind(&d->zq, z_flush_pending, 1), ev);
		n->rq.c_ns = (int64_t)ev->time_ns;
		n->rq.error = ev->error;
		n->flush_done = 1;
		return 0;
	}
	n = NULL;
	for (struct sio *x = d->zq.head; x && !n; x = x->next)
		if (x->flush_done && x->rq.sector == ev->sector)
			n = x;
	if (n)
		zunlink(&d->zq, n);
	else if (!(n = zfind(&d->zq, z_flush_done, 1)) &&
		   !(n = zfind(&d->zq, z_has_d, 1))) {
		s->st.unmatched_c++;
		return 0;
	}
	return complete(s, n, ev);
}

static int on_complete(struct stitch *s, struct devst *d, const struct bt_event *ev)
{
	size_t got = 0;
	int rc;

	s->st.completions++;
	if (!ev->bytes)
		return on_complete_empty(s, d, ev);
	s->nvec = 0;
	tr_collect(s, d->q, ev->sector, ev->sector + bt_sectors(ev));
	{
		/* the bios dispatched with exactly this range, when there
		 * are any: a bio nested inside it in flight is not done */
		size_t k = 0;
		for (size_t i = 0; i < s->nvec; i++) {
			const struct sio *n = s->vec[i];
			if (n->rq.has_d && SEEN(n->rq.d_ns) &&
			    n->rq.d_sector == ev->sector && n->rq.d_bytes == ev->bytes)
				s->vec[k++] = s->vec[i];
		}
		if (k)
			s->nvec = k;
	}
	got = s->nvec;
	for (size_t i = 0; i < got; i++)
		d->q = tr_remove(d->q, s->vec[i]->rq.sector);
	/* Completing rows in start-sector order keeps ids of a request close. */
	for (size_t i = 0; i < got; i++)
		if ((rc = complete(s, s->vec[i], ev)))
			return rc;
	s->nvec = 0;
	tr_collect(s, d->d, ev->sector, ev->sector + bt_sectors(ev));
	for (size_t i = 0; i < s->nvec; i++)
		d->d = tr_remove(d->d, s->vec[i]->rq.sector);
	for (size_t i = 0; i < s->nvec; i++)
		if ((rc = complete(s, s->vec[i], ev)))
			return rc;
	if (!got && !s->nvec) {
		/* nothing in flight: I/O issued before the trace, or a trace
		 * of completions only; a row of its own, C time only */
		struct sio *n = sio_new(s, ev);
		s->st.unmatched_c++;
		s->st.c_only++;
		return complete(s, n, ev);
	}
	return 0;
}

/* X: the bio at ev->sector is cut at the PDU's sector; both halves go on. */
static void on_split(struct stitch *s, struct devst *d, const struct bt_event *ev)
{
	struct sio *n, *t;
	uint64_t at;
	int dup = 0;

	s->st.splits++;
	if (bt_pdu_u64(ev, &at))
		return;
	n = tr_find_sec(d->q, ev->sector);
	if (!n || at <= n->rq.sector || at >= n->end)
		return;
	t = xcalloc(1, sizeof(*t));
	t->rq = n->rq;
	t->id = s->next_id++;
	t->prio = rnd(s);
	t->rq.sector = at;
	t->rq.bytes = (uint32_t)((n->end - at) << 9);
	t->rq.split_from = n->id;
	t->rq.split = n->rq.split = 1;
	t->rq.has_orig = 0;
	t->end = n->end;
	n->rq.bytes = (uint32_t)((at - n->rq.sector) << 9);
	n->end = at;
	d->q = tr_insert(d->q, t, &dup);
	if (dup)
		free(t);
}

static int flush_tree(struct stitch *s, struct sio *t, int rc);
static int flush_all(struct stitch *s, uint64_t *count);

int stitch_event(struct stitch *s, const struct bt_event *ev)
{
	struct devst *d;
	unsigned code;
	int rc;

	if (bt_is_notify(ev) || (bt_cats(ev) & BT_C_PC))
		return 0;
	if (ev->time_ns < s->last_time)
		s->st.time_backwards++;
	/* A clock step (back by over a second, ahead by over ten minutes, or
	 * ahead onto time already seen: the clock coming back, as after one
	 * record stamped seconds early) would turn every request in flight
	 * into a latency of the step's size: they are ended there, never
	 * completed, and the step is counted (timeline_step() tells). */
	if (timeline_step(&s->tl, ev->time_ns) && s->have_last) {
		s->st.clock_jumps++;
		if ((rc = flush_all(s, &s->st.jump_abandoned)))
			return rc;
	}
	if (!s->have_last)
		s->st.min_ns = s->st.max_ns = ev->time_ns;
	if (ev->time_ns < s->st.min_ns || ev->time_ns > s->st.max_ns)
		*(ev->time_ns < s->st.min_ns ? &s->st.min_ns : &s->st.max_ns) = ev->time_ns;
	s->have_last = 1;
	s->last_time = ev->time_ns;
	code = bt_code(ev) & 0xff;
	d = dev_get(s, ev->dev);
	switch (code) {
	case BT_A_QUEUE:
		return on_queue(s, d, ev);
	case BT_A_GETRQ:
	case BT_A_BACKMERGE:
	case BT_A_FRONTMERGE:
	case BT_A_INSERT:
		on_igm(s, d, ev, code);
		break;
	case BT_A_ISSUE:
		on_issue(s, d, ev);
		break;
	case BT_A_REQUEUE:
		return on_requeue(s, d, ev);
	case BT_A_COMPLETE:
		return on_complete(s, d, ev);
	case BT_A_SPLIT:
		on_split(s, d, ev);
		break;
	case BT_A_REMAP:
		remap_note(s, ev);
		break;
	default:
		break;
	}
	return 0;
}

static int flush_tree(struct stitch *s, struct sio *t, int rc)
{
	if (!t)
		return rc;
	rc = flush_tree(s, t->l, rc);
	rc = flush_tree(s, t->r, rc);
	s->nflushed++;
	if (!rc)
		rc = s->emit(s->ctx, t->id, &t->rq);
	free(t);
	return rc;
}

/* Emits every I/O in flight as never completed; adds their number to
 * *count. */
static int flush_all(struct stitch *s, uint64_t *count)
{
	int rc = 0;

	s->nflushed = 0;
	for (size_t i = 0; i < s->ndev; i++) {
		struct devst *d = &s->devs[i];
		rc = flush_tree(s, d->q, rc);
		rc = flush_tree(s, d->d, rc);
		d->q = d->d = NULL;
		while (d->zq.head) {
			struct sio *n = d->zq.head;
			d->zq.head = n->next;
			s->nflushed += !n->flush_done;  /* those ended at their flush */
			if (!rc)
				rc = s->emit(s->ctx, n->id, &n->rq);
			free(n);
		}
		d->zq.tail = NULL;
	}
	*count += s->nflushed;
	return rc;
}

int stitch_finish(struct stitch *s)
{
	s->st.active_ns = timeline_total(&s->tl);
	return flush_all(s, &s->st.pending_end);
}

void stitch_free(struct stitch *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ndev; i++) {
		struct sio *n = s->devs[i].zq.head;
		tr_free(s->devs[i].q);
		tr_free(s->devs[i].d);
		while (n) {
			struct sio *next = n->next;
			free(n);
			n = next;
		}
	}
	free(s->devs);
	free(s->vec);
	free(s);
}
