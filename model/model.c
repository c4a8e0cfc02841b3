/* The rotating-disk model: geometry, seek curve, rotation and transfer, the
 * buffer (read segments with readahead, write-back), and the disk's queue,
 * as a discrete-event server in simulated time. Sources per formula below;
 * the overall structure is Ruemmler and Wilkes 1994 (R&W). */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#define MS 1e6                  /* ns */
#define MAX_ZONES 256
#define MAX_SEGMENTS 64
#define MAX_DIRTY 64            /* write extents the buffer keeps */
#define SPTF_AGE_NS 500000000LL /* SPTF serves a command waiting this long
				 * first (firmware ages commands so none
				 * starves) */

struct zone {
	uint64_t lba0;          /* first sector */
	uint32_t cyl0;          /* first cylinder */
	uint32_t spt;           /* sectors per track */
};

/* A read segment: sectors [start, end) held in the buffer. */
struct segment {
	uint64_t start, end;
	uint64_t used;          /* LRU stamp */
};

struct extent {
	uint64_t start, end;
	uint32_t cyl;           /* of start, for choosing the nearest */
};

/* A command waiting in the disk's queue, located once on arrival. */
struct pending {
	struct model_req r;
	uint32_t cyl, head;
	double angle;           /* of its first sector, in revolutions */
};

struct disk_model {
	struct disk_profile p;
	int64_t t0;
	double rev_ns, inv_rev, sw_ns, overhead_ns, settle_ns, bus_ns_per_sector;
	uint32_t cylinders;
	unsigned nzones;
	struct zone zone[MAX_ZONES];
	struct seek_curve seek;
	/* the mechanism */
	uint32_t cyl, head;
	int64_t t_free;         /* when the mechanism is next free */
	/* readahead stream: reading sequentially from s_lba at s_t, up to
	 * s_cap; the segment it fills starts at s_seg */
	int s_on;
	uint64_t s_lba, s_cap, s_seg;
	int64_t s_t;
	/* read segments */
	struct segment seg[MAX_SEGMENTS];
	unsigned nseg;
	uint64_t seg_max, stamp;
	/* write-back buffer */
	struct extent dirty[MAX_DIRTY];
	unsigned ndirty;
	uint64_t dirty_sectors, dirty_max;
	/* the queue, in arrival order: a ring of cap from qh */
	struct pending *q;
	unsigned qh, nq, cap;
	/* the command in service and the finished ones (a ring) */
	int busy;
	struct model_done cur;
	struct model_done *done;
	unsigned dhead, ndone;
	unsigned hit_n;         /* reads looked at for hit_rate */
};

/* ---- geometry ---- */

/* Sectors per track of zone z from the sustained rate: a track of spt
 * sectors takes one revolution and one head switch (the skew that lets the
 * next track start at once), so rate = spt * 512 / (rev + switch), as the
 * Deskstar 7K500 specification (4.4.4) defines its sustained rate. Rates
 * fall linearly over the zones, outer (0) to inner. */
static uint32_t zone_spt(const struct disk_model *m, unsigned z)
{
	const struct disk_profile *p = &m->p;
	double f = m->nzones > 1 ? (double)z / (m->nzones - 1) : 0;
	double rate = p->rate_outer_mbs + (p->rate_inner_mbs - p->rate_outer_mbs) * f;
	double spt = rate * 1e6 * (m->rev_ns + m->sw_ns) / 1e9 / 512;

	return spt < 1 ? 1 : (uint32_t)llround(spt);
}

static unsigned zone_of(const struct disk_model *m, uint64_t lba)
{
	unsigned lo = 0, hi = m->nzones - 1;

	while (lo < hi) {
		unsigned mid = (lo + hi + 1) / 2;
		if (m->zone[mid].lba0 <= lba)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

void model_locate(const struct disk_model *m, uint64_t lba, struct model_chs *out)
{
	unsigned z;
	const struct zone *zn;
	uint64_t off, per_cyl;

	if (lba >= m->p.capacity_sectors)
		lba %= m->p.capacity_sectors;
	z = zone_of(m, lba);
	zn = &m->zone[z];
	per_cyl = (uint64_t)zn->spt * m->p.heads;
	off = lba - zn->lba0;
	out->zone = z;
	out->spt = zn->spt;
	if (off < UINT32_MAX && per_cyl < UINT32_MAX) {
		/* 32-bit divisions: several times cheaper, and zones are small */
		uint32_t o32 = (uint32_t)off, pc = (uint32_t)per_cyl, r;
		out->cyl = zn->cyl0 + o32 / pc;
		r = o32 % pc;
		out->head = r / zn->spt;
		out->sector = r % zn->spt;
		return;
	}
	out->cyl = zn->cyl0 + (uint32_t)(off / per_cyl);
	off %= per_cyl;
	out->head = (uint32_t)(off / zn->spt);
	out->sector = (uint32_t)(off % zn->spt);
}

/* The angle (revolutions, [0, 1)) where sector s of a track starts: track k
 * (cylinder * heads + head) is skewed by k switch times, so that reading on
 * from the end of one track the next starts one switch time later. */
static double sector_angle(const struct disk_model *m, const struct model_chs *c)
{
	double k = (double)c->cyl * m->p.heads + c->head;
	double a = k * (m->sw_ns / m->rev_ns) + (double)c->sector / c->spt;

	return a - floor(a);
}

/* The spindle's angle at time t, in revolutions [0, 1): it turns at a
 * constant rate from angle 0 at t0. */
static double spindle_angle(const struct disk_model *m, int64_t t)
{
	double r = (double)(t - m->t0) / m->rev_ns;

	return r - floor(r);
}

/* Time to transfer n sectors from c on, following tracks (a switch time
 * at each track end) and zones; *end gets where the head ends. */
static double xfer_ns(const struct disk_model *m, struct model_chs c, uint64_t n,
		      struct model_chs *end)
{
	double t = 0;

	for (;;) {
		uint64_t k = c.spt - c.sector;
		if (k > n)
			k = n;
		t += (double)k / c.spt * m->rev_ns;
		n -= k;
		c.sector += (uint32_t)k;
		if (!n)
			break;
		t += m->sw_ns;
		c.sector = 0;
		if (++c.head == m->p.heads) {
			c.head = 0;
			if (++c.cyl >= m->cylinders)
				c.cyl = 0;
			if (c.zone + 1 < m->nzones && c.cyl >= m->zone[c.zone + 1].cyl0)
				c.spt = m->zone[++c.zone].spt;
			else if (c.cyl == 0) {
				c.zone = 0;
				c.spt = m->zone[0].spt;
			}
		}
	}
	if (end)
		*end = c;
	return t;
}

double model_rate_mbs(const struct disk_model *m, uint64_t lba)
{
	struct model_chs c;

	model_locate(m, lba, &c);
	return c.spt * 512.0 / ((m->rev_ns + m->sw_ns) / 1e9) / 1e6;
}

void model_layout(const struct disk_model *m, struct model_layout *out)
{
	out->cylinders = m->cylinders;
	out->spt_outer = m->zone[0].spt;
	out->spt_inner = m->zone[m->nzones - 1].spt;
	out->rev_ns = m->rev_ns;
	out->seek = m->seek;
}

/* ---- setup ---- */

struct disk_model *model_new(const struct disk_profile *p, int64_t t0_ns,
			     unsigned max_pending, char *err, size_t errlen)
{
	struct disk_model *m;
	uint64_t per_zone_cyl_sectors = 0, zcyl;

	if (profile_check(p, err, errlen))
		return NULL;
	m = xcalloc(1, sizeof(*m));
	m->p = *p;
	m->t0 = t0_ns;
	m->rev_ns = 60e9 / p->rpm;
	m->inv_rev = 1 / m->rev_ns;
	m->sw_ns = p->head_switch_ms * MS;
	m->overhead_ns = p->overhead_ms * MS;
	m->settle_ns = p->write_settle_ms * MS;
	m->bus_ns_per_sector = 512.0 / (p->bus_mbs * 1e6) * 1e9;
	m->nzones = p->zones > MAX_ZONES ? MAX_ZONES : p->zones;
	/* equal cylinders per zone (zones of constant bit density, each a
	 * band of the same width: R&W "Data layout") */
	for (unsigned z = 0; z < m->nzones; z++) {
		m->zone[z].spt = zone_spt(m, z);
		per_zone_cyl_sectors += (uint64_t)m->zone[z].spt * p->heads;
	}
	zcyl = (p->capacity_sectors + per_zone_cyl_sectors - 1) / per_zone_cyl_sectors;
	if (!zcyl)
		zcyl = 1;
	for (unsigned z = 0; z < m->nzones; z++) {
		m->zone[z].cyl0 = (uint32_t)(z * zcyl);
		m->zone[z].lba0 = z ? m->zone[z - 1].lba0 +
			zcyl * m->zone[z - 1].spt * p->heads : 0;
	}
	m->cylinders = (uint32_t)(zcyl * m->nzones);
	if (p->seek_b_ms > 0 || p->seek_e_ms > 0) {
		m->seek = (struct seek_curve){
			p->seek_a_ms * MS, p->seek_b_ms * MS, p->seek_c_ms * MS,
			p->seek_e_ms * MS, p->seek_boundary_cyl, m->cylinders };
	} else if (seek_curve_derive(&m->seek, m->cylinders, p->seek_track_ms,
				     p->seek_avg_ms, p->seek_full_ms)) {
		snprintf(err, errlen, "profile '%s': no seek curve fits single "
			 "track %.2f ms, average %.2f ms and full stroke %.2f ms "
			 "over %u cylinders", p->name, p->seek_track_ms,
			 p->seek_avg_ms, p->seek_full_ms, m->cylinders);
		free(m);
		return NULL;
	}
	m->nseg = p->cache_segments > MAX_SEGMENTS ? MAX_SEGMENTS : p->cache_segments;
	m->seg_max = m->nseg ? (uint64_t)p->cache_kb * 2 / 2 / m->nseg : 0;
	m->dirty_max = (uint64_t)p->cache_kb * 2 / 2;
	m->cap = max_pending ? max_pending : 1;
	m->q = xcalloc(m->cap, sizeof(*m->q));
	m->done = xcalloc(m->cap + 1, sizeof(*m->done));
	m->t_free = t0_ns;
	return m;
}

void model_free(struct disk_model *m)
{
	if (!m)
		return;
	free(m->q);
	free(m->done);
	free(m);
}

/* ---- the buffer ---- */

/* How far the readahead stream has read by time t (sustained rate of its
 * zone, capped at s_cap). */
static uint64_t stream_reached(const struct disk_model *m, int64_t t)
{
	struct model_chs c;
	double secs;

	if (t <= m->s_t)
		return m->s_lba;
	model_locate(m, m->s_lba, &c);
	secs = (double)(t - m->s_t) / (m->rev_ns + m->sw_ns) * c.spt;
	if (m->s_lba + (uint64_t)secs >= m->s_cap)
		return m->s_cap;
	return m->s_lba + (uint64_t)secs;
}

/* When the stream reaches sector x (>= s_lba). */
static int64_t stream_time(const struct disk_model *m, uint64_t x)
{
	struct model_chs c;

	model_locate(m, m->s_lba, &c);
	return m->s_t + (int64_t)xfer_ns(m, c, x - m->s_lba, NULL);
}

static struct segment *seg_slot(struct disk_model *m)
{
	struct segment *lru = NULL;

	for (unsigned i = 0; i < m->nseg; i++)
		if (!lru || m->seg[i].used < lru->used)
			lru = &m->seg[i];
	return lru;
}

/* Stops the stream at time t: what it read becomes a segment, and the head
 * is where it stopped. */
static void stream_stop(struct disk_model *m, int64_t t)
{
	uint64_t end;
	struct segment *s;
	struct model_chs c;

	if (!m->s_on)
		return;
	m->s_on = 0;
	end = stream_reached(m, t);
	model_locate(m, end ? end - 1 : 0, &c);
	m->cyl = c.cyl;
	m->head = c.head;
	if (!m->nseg || end <= m->s_seg)
		return;
	s = seg_slot(m);
	s->start = end - m->s_seg > m->seg_max ? end - m->seg_max : m->s_seg;
	s->end = end;
	s->used = ++m->stamp;
}

static int seg_hit(struct disk_model *m, uint64_t lba, uint32_t n)
{
	for (unsigned i = 0; i < m->nseg; i++)
		if (m->seg[i].start <= lba && lba + n <= m->seg[i].end &&
		    m->seg[i].end > m->seg[i].start) {
			m->seg[i].used = ++m->stamp;
			return 1;
		}
	return 0;
}

/* A write at t makes what the buffer holds of its range stale (a stream
 * reading over it stops). */
static void seg_invalidate(struct disk_model *m, uint64_t lba, uint32_t n,
			   int64_t t)
{
	if (m->s_on && m->s_seg < lba + n && lba < m->s_cap)
		stream_stop(m, t);
	for (unsigned i = 0; i < m->nseg; i++)
		if (m->seg[i].start < lba + n && lba < m->seg[i].end)
			m->seg[i].start = m->seg[i].end = 0;
}

static int dirty_hit(const struct disk_model *m, uint64_t lba, uint32_t n)
{
	for (unsigned i = 0; i < m->ndirty; i++)
		if (m->dirty[i].start <= lba && lba + n <= m->dirty[i].end)
			return 1;
	return 0;
}

/* ---- the mechanism ---- */

/* Moves the head to c at time t (a seek, or a head switch on the same
 * cylinder; writes settle longer) and waits for the sector to come round;
 * returns when the transfer can start. */
static int64_t position(struct disk_model *m, int64_t t, const struct model_chs *c,
			int write)
{
	uint32_t d = c->cyl > m->cyl ? c->cyl - m->cyl : m->cyl - c->cyl;
	double move = d ? seek_curve_ns(&m->seek, d) :
		      c->head != m->head ? m->sw_ns : 0;
	double wait;
	int64_t arrive;

	if (write && move > 0)
		move += m->settle_ns;
	arrive = t + (int64_t)move;
	wait = sector_angle(m, c) - spindle_angle(m, arrive);
	if (wait < 0)
		wait += 1;
	return arrive + (int64_t)(wait * m->rev_ns);
}

/* Reads or writes [lba, lba + n) on the medium from time t; returns when
 * the last sector is done and leaves the head there. */
static int64_t media(struct disk_model *m, int64_t t, uint64_t lba, uint32_t n,
		     int write)
{
	struct model_chs c, e;
	int64_t s;

	model_locate(m, lba, &c);
	s = position(m, t, &c, write);
	s += (int64_t)xfer_ns(m, c, n ? n : 1, &e);
	m->cyl = e.cyl;
	m->head = e.head;
	return s;
}

/* Writes one dirty extent back (the one nearest the head) from t; returns
 * when done. */
static int64_t destage_one(struct disk_model *m, int64_t t)
{
	unsigned best = 0;
	uint32_t bd = UINT32_MAX;
	struct extent x;

	for (unsigned i = 0; i < m->ndirty; i++) {
		uint32_t c = m->dirty[i].cyl;
		uint32_t d = c > m->cyl ? c - m->cyl : m->cyl - c;
		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	x = m->dirty[best];
	m->dirty[best] = m->dirty[--m->ndirty];
	m->dirty_sectors -= x.end - x.start;
	return media(m, t, x.start, (uint32_t)(x.end - x.start), 1);
}

static int64_t destage_all(struct disk_model *m, int64_t t)
{
	while (m->ndirty)
		t = destage_one(m, t);
	return t;
}

static void dirty_add(struct disk_model *m, uint64_t lba, uint32_t n)
{
	struct model_chs c;

	for (unsigned i = 0; i < m->ndirty; i++) {
		struct extent *x = &m->dirty[i];
		if (lba <= x->end && x->start <= lba + n) {
			/* joins (or overwrites) a range already held */
			uint64_t s = lba < x->start ? lba : x->start;
			uint64_t e = lba + n > x->end ? lba + n : x->end;
			m->dirty_sectors += (e - s) - (x->end - x->start);
			if (s != x->start) {
				model_locate(m, s, &c);
				x->cyl = c.cyl;
			}
			x->start = s;
			x->end = e;
			return;
		}
	}
	model_locate(m, lba, &c);
	m->dirty[m->ndirty++] = (struct extent){ lba, lba + n, c.cyl };
	m->dirty_sectors += n;
}

/* A deterministic share hit_rate of reads: the fitted hit rate, applied by
 * a hash of the position and a counter. */
static int fitted_hit(struct disk_model *m, uint64_t lba)
{
	uint64_t h = (lba ^ ((uint64_t)++m->hit_n << 32)) * 0x9e3779b97f4a7c15ull;

	return m->p.hit_rate > 0 && (double)(h >> 11) / 9007199254740992.0 < m->p.hit_rate;
}

/* Serves r from time t (the mechanism is free); returns its completion. */
static int64_t serve(struct disk_model *m, const struct model_req *r, int64_t t)
{
	uint64_t lba = r->lba % m->p.capacity_sectors;
	uint32_t n = r->sectors;
	double bus = n * m->bus_ns_per_sector;
	int64_t done;

	t += (int64_t)m->overhead_ns;
	switch (r->op) {
	case MOP_READ:
		if (seg_hit(m, lba, n) || dirty_hit(m, lba, n) || fitted_hit(m, lba))
			return t + (int64_t)bus;
		if (m->s_on && lba >= m->s_seg && lba < m->s_cap &&
		    (lba + n <= m->s_cap || stream_time(m, m->s_cap) > t)) {
			/* the stream has it, or gets there while still
			 * reading: no positioning */
			uint64_t end = lba + n;
			uint64_t got = stream_reached(m, t);
			int64_t when = end <= got ? t : stream_time(m, end);
			done = when + (int64_t)m->bus_ns_per_sector;
			if (t + (int64_t)bus > done)
				done = t + (int64_t)bus;
			if (end > m->s_lba && when > m->s_t) {
				m->s_t = when;    /* rebase on its path */
				m->s_lba = end;
			}
			if (end + m->p.readahead_kb * 2 > m->s_cap)
				m->s_cap = end + m->p.readahead_kb * 2;
			return done;
		}
		stream_stop(m, t);
		done = media(m, t, lba, n, 0);
		/* readahead: read on while nothing else needs the head */
		if (m->p.readahead_kb && m->nseg) {
			m->s_on = 1;
			m->s_seg = lba;
			m->s_lba = lba + n;
			m->s_t = done;
			m->s_cap = lba + n + m->p.readahead_kb * 2;
		}
		return done + (int64_t)m->bus_ns_per_sector;
	case MOP_WRITE:
		seg_invalidate(m, lba, n, t);
		if (m->p.write_cache && !r->fua && n <= m->dirty_max) {
			int64_t tb = t;
			if (m->ndirty == MAX_DIRTY || m->dirty_sectors + n > m->dirty_max) {
				/* no room: write back first (the head moves,
				 * the stream ends) */
				stream_stop(m, t);
				while (m->ndirty && (m->ndirty == MAX_DIRTY ||
					m->dirty_sectors + n > m->dirty_max))
					tb = destage_one(m, tb);
			}
			dirty_add(m, lba, n);
			return tb + (int64_t)bus;
		}
		stream_stop(m, t);
		done = media(m, t, lba, n, 1);
		return done > t + (int64_t)bus ? done : t + (int64_t)bus;
	case MOP_FLUSH:
		stream_stop(m, t);
		return destage_all(m, t);
	default:    /* a discard (TRIM) costs the command only */
		return t;
	}
}

/* ---- the queue ---- */

static inline struct pending *qat(const struct disk_model *m, unsigned k)
{
	unsigned i = m->qh + k;

	return &m->q[i >= m->cap ? i - m->cap : i];
}
#define QAT(m, k) qat(m, k)

/* base: the spindle's angle when the command would start (after the
 * overhead) had it no seek. */
static double sptf_estimate(const struct disk_model *m, const struct pending *pd,
			    double base)
{
	uint32_t d;
	double move, wait;

	if (pd->r.op == MOP_FLUSH || pd->r.op == MOP_DISCARD)
		return 0;
	if (pd->r.op == MOP_READ && m->s_on && pd->r.lba >= m->s_seg &&
	    pd->r.lba < m->s_cap)
		return 0;
	if (pd->r.op == MOP_WRITE && m->p.write_cache && !pd->r.fua)
		return 0;
	d = pd->cyl > m->cyl ? pd->cyl - m->cyl : m->cyl - pd->cyl;
	move = d ? seek_curve_ns(&m->seek, d) : pd->head != m->head ? m->sw_ns : 0;
	wait = pd->angle - (base + move * m->inv_rev);
	while (wait < 0)       /* a seek is a few turns at most */
		wait += 1;
	return move + wait * m->rev_ns;
}

/* Which waiting command goes next at time t: the oldest (FIFO), or the one
 * with the shortest positioning time among the first queue_depth that had
 * arrived by t (SPTF; Worthington, Ganger and Patt 1994, "Scheduling
 * algorithms for modern disk drives"), the oldest first once it has waited
 * SPTF_AGE_NS. */
static unsigned pick(const struct disk_model *m, int64_t t)
{
	unsigned best = 0, lim = m->nq;
	double bt = INFINITY, base;

	if (m->p.queue != MODEL_SPTF || m->nq == 1 ||
	    t - QAT(m, 0)->r.arrive_ns >= SPTF_AGE_NS)
		return 0;
	if (lim > m->p.queue_depth)
		lim = m->p.queue_depth;
	base = spindle_angle(m, t + (int64_t)m->overhead_ns);
	for (unsigned i = 0; i < lim && QAT(m, i)->r.arrive_ns <= t; i++) {
		double e = sptf_estimate(m, QAT(m, i), base);
		if (e < bt) {
			bt = e;
			best = i;
		}
	}
	return best;
}

int model_submit(struct disk_model *m, const struct model_req *r)
{
	struct pending *pd;
	struct model_chs c;

	if (model_outstanding(m) >= m->cap)
		return -EBUSY;
	pd = QAT(m, m->nq);
	m->nq++;
	pd->r = *r;
	model_locate(m, r->lba, &c);
	pd->cyl = c.cyl;
	pd->head = c.head;
	pd->angle = sector_angle(m, &c);
	return 0;
}

void model_run(struct disk_model *m, int64_t limit, int inclusive)
{
	for (;;) {
		int64_t start;
		unsigned i;
		struct pending pd;

		if (m->busy) {
			if (m->cur.done_ns > limit)
				return;
			m->done[(m->dhead + m->ndone++) % (m->cap + 1)] = m->cur;
			m->busy = 0;
		}
		if (!m->nq)
			return;
		start = QAT(m, 0)->r.arrive_ns > m->t_free ?
			QAT(m, 0)->r.arrive_ns : m->t_free;
		if (start > limit || (start == limit && !inclusive))
			return;
		/* idle until the command came: the stream reads on, then dirty
		 * data is written back, one extent at a time, each begun before
		 * the command arrived (it waits for the one under way) */
		if (m->ndirty && m->t_free < QAT(m, 0)->r.arrive_ns) {
			int64_t t = m->t_free, a = QAT(m, 0)->r.arrive_ns;
			if (m->s_on) {
				int64_t se = stream_time(m, m->s_cap);
				if (se < a) {
					stream_stop(m, se);
					t = se > t ? se : t;
				} else {
					t = a;
				}
			}
			while (m->ndirty && t < a)
				t = destage_one(m, t);
			if (t > m->t_free) {
				m->t_free = t;
				continue;     /* the start moved: check it again */
			}
		}
		i = pick(m, start);
		pd = *QAT(m, i);
		for (; i > 0; i--)     /* close the gap from the head's side */
			*QAT(m, i) = *QAT(m, i - 1);
		m->qh = (m->qh + 1) % m->cap;
		m->nq--;
		m->cur.tag = pd.r.tag;
		m->cur.arrive_ns = pd.r.arrive_ns;
		m->cur.start_ns = start;
		m->cur.done_ns = serve(m, &pd.r, start);
		m->cur.service_ns = m->cur.done_ns - start;
		m->t_free = m->cur.done_ns;
		m->busy = 1;
	}
}

int64_t model_busy_until(const struct disk_model *m)
{
	if (m->busy)
		return m->cur.done_ns;
	if (m->nq)       /* the next start: after a write-back under way */
		return QAT(m, 0)->r.arrive_ns > m->t_free ? QAT(m, 0)->r.arrive_ns
							 : m->t_free;
	return INT64_MAX;
}

int model_pop(struct disk_model *m, struct model_done *out)
{
	if (!m->ndone)
		return 0;
	*out = m->done[m->dhead];
	m->dhead = (m->dhead + 1) % (m->cap + 1);
	m->ndone--;
	return 1;
}

unsigned model_ready(const struct disk_model *m)
{
	return m->ndone;
}

unsigned model_outstanding(const struct disk_model *m)
{
	return m->nq + (unsigned)m->busy + m->ndone;
}

/* ---- open loop, for the analyzers ---- */

int model_device_times(const struct disk_profile *p, const struct model_req *reqs,
		       size_t n, int64_t *service_ns, int64_t *d2c_ns,
		       char *err, size_t errlen)
{
	struct disk_model *m;
	struct model_done d;
	int64_t last = n ? reqs[0].arrive_ns : 0;

	if (n >= UINT32_MAX) {
		snprintf(err, errlen, "too many requests (%zu)", n);
		return -1;
	}
	if (!(m = model_new(p, last, (unsigned)n + 1, err, errlen)))
		return -1;
	for (size_t i = 0; i <= n; i++) {
		if (i < n) {
			struct model_req r = reqs[i];
			if (r.arrive_ns < last)
				r.arrive_ns = last;
			last = r.arrive_ns;
			r.tag = (uint32_t)i;
			/* everything up to r's arrival is known */
			model_run(m, r.arrive_ns, 0);
			model_submit(m, &r);
		} else {
			model_run(m, INT64_MAX, 1);
		}
		while (model_pop(m, &d)) {
			service_ns[d.tag] = d.service_ns;
			if (d2c_ns)
				d2c_ns[d.tag] = d.done_ns - d.arrive_ns;
		}
	}
	model_free(m);
	return 0;
}
