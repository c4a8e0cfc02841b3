/* The recorder's triggers: expressions, and live Q2C/D2C over a sliding
 * window of log-linear histograms (see reclat.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/blktrace_format.h"
#include "capture/reclat.h"
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

/* "50ms", "1.5s", "200us", "2m", "100ns" → ns. */
static int parse_dur(const char *s, const char *end, int64_t *ns)
{
	char buf[32], *e;
	double v, mult;

	if (end - s <= 0 || end - s >= (long)sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	errno = 0;
	v = strtod(buf, &e);
	if (errno || e == buf || !(v > 0) || !isfinite(v))
		return -1;
	if (!strcmp(e, "ns")) mult = 1;
	else if (!strcmp(e, "us")) mult = 1e3;
	else if (!strcmp(e, "ms")) mult = 1e6;
	else if (!strcmp(e, "s")) mult = 1e9;
	else if (!strcmp(e, "m")) mult = 60e9;
	else return -1;
	if (v * mult > 1e15)
		return -1;
	*ns = (int64_t)(v * mult);
	return 0;
}

static int parse_psi(const char *expr, const char *gt, struct rectrig *t,
		     char *err, size_t errlen)
{
	char res[16];
	const char *slash = strchr(gt, '/'), *p = expr + 4, *u = strchr(p, '_');

	if (!u || u > gt || u - p >= (long)sizeof(res))
		goto bad;
	memcpy(res, p, (size_t)(u - p));
	res[u - p] = '\0';
	if (strcmp(res, "io") && strcmp(res, "memory") && strcmp(res, "cpu"))
		goto bad;
	snprintf(t->resource, sizeof(t->resource), "%.7s", res);
	if (!strncmp(u + 1, "some>", 5))
		t->full = 0;
	else if (!strncmp(u + 1, "full>", 5))
		t->full = 1;
	else
		goto bad;
	if (!slash || parse_dur(gt + 1, slash, &t->stall_us) ||
	    parse_dur(slash + 1, slash + strlen(slash), &t->psi_window_us))
		goto bad;
	t->stall_us /= 1000;
	t->psi_window_us /= 1000;
	if (t->psi_window_us < 500000 || t->psi_window_us > 10000000 ||
	    t->stall_us > t->psi_window_us) {
		snprintf(err, errlen, "invalid --trigger '%s': the kernel takes "
			 "a window of 500ms to 10s and a stall within it", expr);
		return -1;
	}
	t->kind = RECTRIG_PSI;
	return 0;
bad:
	snprintf(err, errlen, "invalid --trigger '%s' (psi_io_some>150ms/1s; "
		 "io, memory or cpu; some or full)", expr);
	return -1;
}

int rectrig_parse(const char *expr, struct rectrig *t, char *err, size_t errlen)
{
	static const struct { const char *name; int pct; } stats[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 },
		{ "p999", 999 }, { "max", 100 },
	};
	const char *p = expr, *gt = strchr(expr, '>'), *slash;
	size_t i;

	memset(t, 0, sizeof(*t));
	snprintf(t->text, sizeof(t->text), "%s", expr);
	if (!gt || strlen(expr) >= sizeof(t->text))
		goto bad;
	if (!strncmp(expr, "psi_", 4))
		return parse_psi(expr, gt, t, err, errlen);
	t->kind = RECTRIG_LATENCY;
	if (!strncmp(p, "read_", 5)) { t->op = RECTRIG_READ; p += 5; }
	else if (!strncmp(p, "write_", 6)) { t->op = RECTRIG_WRITE; p += 6; }
	if (!strncmp(p, "q2c_", 4)) t->metric = RECTRIG_Q2C;
	else if (!strncmp(p, "d2c_", 4)) t->metric = RECTRIG_D2C;
	else goto bad;
	p += 4;
	for (i = 0; i < ARRAY_SIZE(stats); i++)
		if ((size_t)(gt - p) == strlen(stats[i].name) &&
		    !strncmp(p, stats[i].name, (size_t)(gt - p)))
			break;
	if (i == ARRAY_SIZE(stats))
		goto bad;
	t->pct = stats[i].pct;
	t->window_ns = 5000000000ll;
	slash = strchr(gt, '/');
	if (parse_dur(gt + 1, slash ? slash : gt + strlen(gt), &t->threshold_ns) ||
	    (slash && parse_dur(slash + 1, slash + strlen(slash), &t->window_ns)))
		goto bad;
	if (t->window_ns < 100000000ll) {
		snprintf(err, errlen, "invalid --trigger '%s': the window is at "
			 "least 100ms", expr);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "invalid --trigger '%s' (e.g. read_q2c_p99>50ms, "
		 "d2c_max>1s/10s, psi_io_some>150ms/1s)", expr);
	return -1;
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
		    (tr->op == RECTRIG_WRITE && !p->write) || !from || t < from)
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
