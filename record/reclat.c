/* The recorder's latency triggers: live Q2C/D2C over a sliding
 * window of log-linear histograms (see reclat.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/blktrace_format.h"
#include "record/reclat.h"
#include "lib/util.h"

int reclat_bucket(int64_t v)
{
	int e, b;

	if (v < 16)
		return v < 0 ? 0 : (int)v;
	e = 63 - __builtin_clzll((unsigned long long)v);
	b = 16 + (e - 4) * 8 + (int)((v >> (e - 3)) & 7);
	return b < RECLAT_BUCKETS ? b : RECLAT_BUCKETS - 1;
}

int64_t reclat_bucket_top(int b)
{
	int e, sub;

	if (b < 16)
		return b;
	e = 4 + (b - 16) / 8;
	sub = (b - 16) % 8;
	return ((int64_t)(8 + sub) << (e - 3)) + ((int64_t)1 << (e - 3)) - 1;
}

void reclat_init(struct reclat *l, const struct rectrig *t, int n)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->mu, NULL);
	for (int i = 0; i < n && l->ntrig < RECLAT_MAX_TRIG; i++)
		if (t[i].kind == RECTRIG_LATENCY) {
			l->trig[l->ntrig++] = &t[i];
			l->ops |= t[i].op == RECTRIG_READ ? 1 : t[i].op ==
				  RECTRIG_WRITE ? 2 : 3;
		}
	if (!l->ntrig)
		return;
	l->slots = xcalloc((size_t)l->ntrig, sizeof(*l->slots));
	for (int i = 0; i < l->ntrig; i++)
		for (int s = 0; s < RECLAT_SLOTS; s++)
			l->slots[i][s].no = -1;
	l->pairs = xcalloc(RECLAT_PAIRS, sizeof(*l->pairs));
}

/* The entry of dev and sector in its set of RECLAT_WAYS, or NULL. With
 * make, a free entry or else the one queued longest ago, cleared. */
static struct reclat_pair *pair_of(struct reclat *l, uint32_t dev,
				   uint64_t sector, int make)
{
	uint64_t h = (sector * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)dev * 0xc2b2ae35u);
	struct reclat_pair *set = &l->pairs[((h >> 40) & (RECLAT_PAIRS - 1)) &
					    ~(uint64_t)(RECLAT_WAYS - 1)];
	struct reclat_pair *old = &set[0];

	for (int w = 0; w < RECLAT_WAYS; w++)
		if (set[w].q_ns && set[w].dev == dev && set[w].sector == sector)
			return &set[w];
	if (!make)
		return NULL;
	for (int w = 0; w < RECLAT_WAYS; w++) {
		if (!set[w].q_ns) {
			old = &set[w];
			break;
		}
		if (set[w].q_ns < old->q_ns)
			old = &set[w];
	}
	memset(old, 0, sizeof(*old));
	return old;
}

/* Adds one latency at time t to trigger i's window. */
static void note(struct reclat *l, int i, int64_t t, int64_t lat)
{
	const struct rectrig *tr = l->trig[i];
	int64_t slot_len = tr->window_ns / RECLAT_SLOTS, no = t / slot_len;
	struct reclat_slot *s = &l->slots[i][no % RECLAT_SLOTS];

	if (s->no != no) {
		if (s->no > no)
			return;   /* older than the window */
		memset(s, 0, sizeof(*s));
		s->no = no;
	}
	s->count[reclat_bucket(lat)]++;
	s->n++;
	if (lat > s->max_ns)
		s->max_ns = lat;
}

static void on_complete(struct reclat *l, const struct bt_event *ev)
{
	struct reclat_pair *p = pair_of(l, ev->dev, ev->sector, 0);
	int64_t t = (int64_t)ev->time_ns;

	l->completions++;
	if (!p) {
		l->unpaired++;
		return;
	}
	for (int i = 0; i < l->ntrig; i++) {
		const struct rectrig *tr = l->trig[i];
		int64_t from = tr->metric == RECTRIG_Q2C ? p->q_ns : p->d_ns;
		if ((tr->op == RECTRIG_READ && p->write) ||
		    (tr->op == RECTRIG_WRITE && !p->write) || !from || t < from ||
		    (tr->dev && tr->dev != p->dev))
			continue;
		note(l, i, t, t - from);
	}
	memset(p, 0, sizeof(*p));
}

void reclat_add_records(struct reclat *l, const uint8_t *buf, size_t len)
{
	struct bt_stream bs;
	struct bt_event ev;
	size_t off = 0, used;

	if (!l->ntrig || len < 4 || bt_stream_detect(&bs, buf, len))
		return;
	pthread_mutex_lock(&l->mu);
	while (off < len && !bt_decode(&bs, buf + off, len - off, &ev, &used)) {
		unsigned code = bt_code(&ev);
		off += used;
		if (bt_is_notify(&ev) || !ev.bytes)
			continue;   /* flushes without data have no position */
		if (code == BT_A_QUEUE) {
			int write = !!(bt_cats(&ev) & BT_C_WRITE);
			struct reclat_pair *p;
			if (!(l->ops & (write ? 2 : 1)))
				continue;   /* no trigger wants this op */
			p = pair_of(l, ev.dev, ev.sector, 1);
			*p = (struct reclat_pair){
				.dev = ev.dev, .sector = ev.sector, .write = (uint32_t)write,
				.q_ns = (int64_t)ev.time_ns,
			};
		} else if (code == BT_A_ISSUE) {
			struct reclat_pair *p = pair_of(l, ev.dev, ev.sector, 0);
			if (p)
				p->d_ns = (int64_t)ev.time_ns;
		} else if (code == BT_A_COMPLETE) {
			on_complete(l, &ev);
		}
	}
	pthread_mutex_unlock(&l->mu);
}

int reclat_eval(struct reclat *l, int i, int64_t now_ns, int64_t *value_ns,
		uint64_t *n)
{
	const struct rectrig *tr = l->trig[i];
	int64_t slot_len = tr->window_ns / RECLAT_SLOTS, now_no = now_ns / slot_len;
	uint64_t count[RECLAT_BUCKETS] = { 0 }, total = 0, want, seen = 0;
	int64_t max = 0, v = 0;

	pthread_mutex_lock(&l->mu);
	for (int s = 0; s < RECLAT_SLOTS; s++) {
		const struct reclat_slot *sl = &l->slots[i][s];
		if (sl->no < 0 || sl->no <= now_no - RECLAT_SLOTS || sl->no > now_no)
			continue;
		for (int b = 0; b < RECLAT_BUCKETS; b++)
			count[b] += sl->count[b];
		total += sl->n;
		if (sl->max_ns > max)
			max = sl->max_ns;
	}
	pthread_mutex_unlock(&l->mu);
	*n = total;
	if (tr->pct == 100) {
		v = max;
	} else if (total >= 10) {
		double q = tr->pct == 999 ? 0.999 : tr->pct / 100.0;
		want = (uint64_t)ceil(q * (double)total);
		for (int b = 0; b < RECLAT_BUCKETS; b++) {
			seen += count[b];
			if (seen >= want) {
				v = reclat_bucket_top(b);
				break;
			}
		}
		if (v > max)
			v = max;
	}
	*value_ns = v;
	return total && v > tr->threshold_ns;
}

void reclat_free(struct reclat *l)
{
	free(l->slots);
	free(l->pairs);
	l->slots = NULL;
	l->pairs = NULL;
	pthread_mutex_destroy(&l->mu);
}
