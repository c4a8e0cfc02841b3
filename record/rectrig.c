/* The recorder's triggers (see rectrig.h): the kinds table, one row per
 * kind with its prefix, parser and evaluator, and the state they read:
 * /proc values from the samples, in-flight counts from the live events. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/blktrace_format.h"
#include "record/reclat.h"
#include "record/rectrig.h"
#include "lib/util.h"

/* ---- parsing ---- */

/* "50ms", "1.5s", "200us", "2m", "100ns" in [s, end) → ns. */
static int parse_dur(const char *s, const char *end, int64_t *ns)
{
	char buf[32];
	const char *e;
	double v, mult;

	if (end - s <= 0 || end - s >= (long)sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	if (dec_double(buf, DEC_FRAC, &v, &e) || !(v > 0))
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

/* "1G", "200M", "512K", "10MB", "1.5GiB", "4096" in [s, end) → bytes (K M
 * G powers of 1024, as lib/util's parse_size, without printing). */
static int parse_bytes(const char *s, const char *end, uint64_t *out)
{
	char buf[32];
	const char *e;
	double v, mult = 1;

	if (end - s <= 0 || end - s >= (long)sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	if (dec_double(buf, DEC_FRAC, &v, &e) || !(v > 0))
		return -1;
	switch (*e) {
	case 'k': case 'K': mult = 1024.0; e++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; e++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; e++; break;
	}
	if ((*e && strcmp(e, "B") && strcmp(e, "iB")) || v * mult >= 1.8e19)
		return -1;
	*out = (uint64_t)(v * mult);
	return *out ? 0 : -1;
}

/* The "@DEV" at the end of expr, if any: into t->devspec (and t->dev for
 * MAJ,MIN or MAJ:MIN); *end is where the rest stops. Returns 0 or -1. */
static int parse_at(const char *expr, struct rectrig *t, const char **end)
{
	const char *at = strrchr(expr, '@');
	unsigned maj, min;

	*end = expr + strlen(expr);
	if (!at)
		return 0;
	*end = at;
	if (!at[1] || strlen(at + 1) >= sizeof(t->devspec) || strchr(at + 1, '/'))
		return -1;
	snprintf(t->devspec, sizeof(t->devspec), "%s", at + 1);
	if (!dec_devnum(at + 1, &maj, &min))
		t->dev = maj << 20 | min;
	return 0;
}

static int parse_latency(const char *expr, const char *gt, struct rectrig *t,
			 char *err, size_t errlen)
{
	static const struct { const char *name; int pct; } stats[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 },
		{ "p999", 999 }, { "max", 100 },
	};
	const char *p = expr, *slash, *end;
	size_t i;

	if (!strncmp(p, "read_", 5)) { t->op = RECTRIG_READ; p += 5; }
	else if (!strncmp(p, "write_", 6)) { t->op = RECTRIG_WRITE; p += 6; }
	if (!strncmp(p, "q2c_", 4)) t->metric = RECTRIG_Q2C;
	else if (!strncmp(p, "d2c_", 4)) t->metric = RECTRIG_D2C;
	else return -1;
	p += 4;
	for (i = 0; i < ARRAY_SIZE(stats); i++)
		if ((size_t)(gt - p) == strlen(stats[i].name) &&
		    !strncmp(p, stats[i].name, (size_t)(gt - p)))
			break;
	if (i == ARRAY_SIZE(stats) || parse_at(gt, t, &end))
		return -1;
	t->pct = stats[i].pct;
	t->window_ns = 5000000000ll;
	slash = memchr(gt, '/', (size_t)(end - gt));
	if (parse_dur(gt + 1, slash ? slash : end, &t->threshold_ns) ||
	    (slash && parse_dur(slash + 1, end, &t->window_ns)))
		return -1;
	if (t->window_ns < 100000000ll) {
		snprintf(err, errlen, "invalid --trigger '%s': the window is at "
			 "least 100ms", expr);
		return -2;
	}
	return 0;
}

static int parse_psi(const char *expr, const char *gt, struct rectrig *t,
		     char *err, size_t errlen)
{
	char res[16];
	const char *slash = strchr(gt, '/'), *p = expr + 4, *u = strchr(p, '_');

	if (!u || u > gt || u - p >= (long)sizeof(res))
		return -1;
	memcpy(res, p, (size_t)(u - p));
	res[u - p] = '\0';
	if (strcmp(res, "io") && strcmp(res, "memory") && strcmp(res, "cpu"))
		return -1;
	snprintf(t->resource, sizeof(t->resource), "%.7s", res);
	if (!strncmp(u + 1, "some>", 5))
		t->full = 0;
	else if (!strncmp(u + 1, "full>", 5))
		t->full = 1;
	else
		return -1;
	if (!slash || parse_dur(gt + 1, slash, &t->stall_us) ||
	    parse_dur(slash + 1, slash + strlen(slash), &t->psi_window_us))
		return -1;
	t->stall_us /= 1000;
	t->psi_window_us /= 1000;
	if (t->psi_window_us < 500000 || t->psi_window_us > 10000000 ||
	    t->stall_us > t->psi_window_us) {
		snprintf(err, errlen, "invalid --trigger '%s': the kernel takes "
			 "a window of 500ms to 10s and a stall within it", expr);
		return -2;
	}
	return 0;
}

/* swapout>SIZE/s[/WINDOW] */
static int parse_swapout(const char *expr, const char *gt, struct rectrig *t,
			 char *err, size_t errlen)
{
	const char *per = strstr(gt, "/s"), *end = gt + strlen(gt);

	(void)expr; (void)err; (void)errlen;
	if (!per || (per[2] && per[2] != '/') ||
	    parse_bytes(gt + 1, per, &t->threshold_bytes))
		return -1;
	t->window_ns = 5000000000ll;
	if (per[2] && parse_dur(per + 3, end, &t->window_ns))
		return -1;
	return t->window_ns < 1000000000ll ? -1 : 0;
}

/* dirty>SIZE, writeback>SIZE */
static int parse_mem(const char *expr, const char *gt, struct rectrig *t,
		     char *err, size_t errlen)
{
	(void)expr; (void)err; (void)errlen;
	return parse_bytes(gt + 1, gt + strlen(gt), &t->threshold_bytes);
}

/* stuck>DUR[@DEV] */
static int parse_stuck(const char *expr, const char *gt, struct rectrig *t,
		       char *err, size_t errlen)
{
	const char *end;

	(void)expr; (void)err; (void)errlen;
	if (parse_at(gt, t, &end) || parse_dur(gt + 1, end, &t->threshold_ns))
		return -1;
	return 0;
}

/* ---- evaluating ---- */

static int eval_latency(struct rectrigs *s, int i, int64_t now, int64_t *t_ns,
			char *thr, char *val, size_t len)
{
	const struct rectrig *t = &s->trig[i];
	int64_t v;
	uint64_t n;
	int over;

	if (s->lat_idx[i] < 0)
		return 0;
	over = reclat_eval(s->lat, s->lat_idx[i], now, &v, &n);
	*t_ns = now;
	snprintf(val, len, "%.3f ms over %" PRIu64 " I/Os", (double)v / 1e6, n);
	snprintf(thr, len, "%.3f ms", (double)t->threshold_ns / 1e6);
	return over;
}

/* The rate of pswpout over the trigger's window ending at the newest
 * sample, in bytes per second; 0 with fewer than two samples in it. */
static int eval_swapout(struct rectrigs *s, int i, int64_t now, int64_t *t_ns,
			char *thr, char *val, size_t len)
{
	const struct rectrig *t = &s->trig[i];
	int newest, k, oldest = -1;
	double rate;

	(void)now;
	if (s->nswap < 2)
		return 0;
	newest = (s->swap_head + RECTRIG_HIST - 1) % RECTRIG_HIST;
	for (k = 1; k < s->nswap; k++) {
		int j = (newest + RECTRIG_HIST - k) % RECTRIG_HIST;
		if (s->swap[newest].t_ns - s->swap[j].t_ns > t->window_ns)
			break;
		oldest = j;
	}
	if (oldest < 0)
		return 0;
	rate = (s->swap[newest].pages - s->swap[oldest].pages) *
	       (double)s->page_bytes /
	       ((double)(s->swap[newest].t_ns - s->swap[oldest].t_ns) / 1e9);
	*t_ns = s->swap[newest].t_ns;
	snprintf(val, len, "%.2f MiB/s over %.1f s", rate / 1048576,
		 (double)(s->swap[newest].t_ns - s->swap[oldest].t_ns) / 1e9);
	snprintf(thr, len, "%.2f MiB/s", (double)t->threshold_bytes / 1048576);
	return rate > (double)t->threshold_bytes;
}

static int eval_mem(struct rectrigs *s, int i, int64_t now, int64_t *t_ns,
		    char *thr, char *val, size_t len)
{
	const struct rectrig *t = &s->trig[i];
	double kb = t->kind == RECTRIG_DIRTY ? s->dirty_kb : s->writeback_kb;

	(void)now;
	if (!s->mem_t_ns)
		return 0;
	*t_ns = s->mem_t_ns;
	snprintf(val, len, "%.1f MiB", kb / 1024);
	snprintf(thr, len, "%.1f MiB", (double)t->threshold_bytes / 1048576);
	return kb * 1024 > (double)t->threshold_bytes;
}

/* The device (the trigger's, or any) longest without progress while
 * requests are in flight. */
static int eval_stuck(struct rectrigs *s, int i, int64_t now, int64_t *t_ns,
		      char *thr, char *val, size_t len)
{
	const struct rectrig *t = &s->trig[i];
	const struct recstuck *worst = NULL;

	pthread_mutex_lock(&s->mu);
	for (int d = 0; d < s->ndev; d++) {
		const struct recstuck *k = &s->devs[d];
		if ((t->dev && k->dev != t->dev) || k->inflight <= 0)
			continue;
		if (!worst || k->progress_ns < worst->progress_ns)
			worst = k;
	}
	if (worst) {
		*t_ns = now;
		snprintf(val, len, "%s: %" PRId64 " in flight, none completed for "
			 "%.1f s", worst->name, worst->inflight,
			 (double)(now - worst->progress_ns) / 1e9);
	}
	pthread_mutex_unlock(&s->mu);
	snprintf(thr, len, "%.1f s", (double)t->threshold_ns / 1e9);
	return worst && now - worst->progress_ns >= t->threshold_ns;
}

/* ---- the kinds ---- */

typedef int (*parse_fn)(const char *expr, const char *gt, struct rectrig *t,
			char *err, size_t errlen);
/* Returns 1 when trigger i is over its threshold at now, with the time
 * it was measured at in *t_ns and threshold and value as text. */
typedef int (*eval_fn)(struct rectrigs *s, int i, int64_t now, int64_t *t_ns,
		       char *thr, char *val, size_t len);

static const struct kind {
	enum rectrig_kind kind;
	const char *prefix;      /* the expression starts with it */
	parse_fn parse;
	eval_fn eval;            /* NULL: the recorder polls it (PSI) */
	const char *example;
} kinds[] = {
	{ RECTRIG_PSI, "psi_", parse_psi, NULL, "psi_io_some>150ms/1s; io, "
	  "memory or cpu; some or full" },
	{ RECTRIG_SWAPOUT, "swapout>", parse_swapout, eval_swapout,
	  "swapout>10MB/s or swapout>10MB/s/10s" },
	{ RECTRIG_DIRTY, "dirty>", parse_mem, eval_mem, "dirty>1G" },
	{ RECTRIG_WRITEBACK, "writeback>", parse_mem, eval_mem, "writeback>200M" },
	{ RECTRIG_STUCK, "stuck>", parse_stuck, eval_stuck, "stuck>10s@loop0" },
	/* last: every other name is a latency (or unknown: every kind's
	 * example) */
	{ RECTRIG_LATENCY, "", parse_latency, eval_latency,
	  "read_q2c_p99>50ms, d2c_max>1s/10s@8,0" },
};

#define ALL_KINDS "read_q2c_p99>50ms, psi_io_some>150ms/1s, swapout>10MB/s, " \
	"dirty>1G, writeback>200M, stuck>10s"

static const struct kind *kind_of(enum rectrig_kind k)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (kinds[i].kind == k)
			return &kinds[i];
	return NULL;
}

int rectrig_parse(const char *expr, struct rectrig *t, char *err, size_t errlen)
{
	const char *gt = strchr(expr, '>');
	const struct kind *k = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	snprintf(t->text, sizeof(t->text), "%s", expr);
	for (size_t i = 0; i < ARRAY_SIZE(kinds) && !k; i++)
		if (!strncmp(expr, kinds[i].prefix, strlen(kinds[i].prefix)))
			k = &kinds[i];
	if (!gt || strlen(expr) >= sizeof(t->text)) {
		snprintf(err, errlen, "invalid --trigger '%s' (e.g. %s)", expr,
			 ALL_KINDS);
		return -1;
	}
	t->kind = k->kind;
	rc = k->parse(expr, gt, t, err, errlen);
	if (rc == -1)
		snprintf(err, errlen, "invalid --trigger '%s' (e.g. %s)", expr,
			 k->prefix[0] || !strncmp(expr, "read_", 5) ||
			 !strncmp(expr, "write_", 6) || !strncmp(expr, "q2c_", 4) ||
			 !strncmp(expr, "d2c_", 4) ? k->example : ALL_KINDS);
	return rc ? -1 : 0;
}

int rectrig_bind(struct rectrig *t, int n, const struct capdev *devs, int ndev,
		 char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		int found = 0;
		if (!t[i].devspec[0])
			continue;
		for (int d = 0; d < ndev && !found; d++)
			if (t[i].dev ? devs[d].dev == t[i].dev :
			    !strcmp(devs[d].name, t[i].devspec)) {
				t[i].dev = devs[d].dev;
				found = 1;
			}
		if (!found) {
			snprintf(err, errlen, "--trigger '%s': '%s' is not a traced "
				 "device (add it with -d)", t[i].text, t[i].devspec);
			return -1;
		}
	}
	return 0;
}

void rectrigs_init(struct rectrigs *s, const struct rectrig *t, int n,
		   struct reclat *lat, const struct capdev *devs, int ndev)
{
	int nlat = 0;
	long pg = sysconf(_SC_PAGESIZE);

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	s->trig = t;
	s->ntrig = n < RECTRIG_MAX ? n : RECTRIG_MAX;
	s->lat = lat;
	s->page_bytes = pg > 0 ? (uint64_t)pg : 4096;
	for (int i = 0; i < s->ntrig; i++) {
		/* armed[i] 0: a value over the threshold at the first look
		 * (the recorder started inside the condition) is no rise */
		/* as reclat_init() numbers them */
		s->lat_idx[i] = t[i].kind == RECTRIG_LATENCY ? nlat++ : -1;
		if (t[i].kind == RECTRIG_STUCK)
			s->want_events = 1;
	}
	for (int d = 0; d < ndev && d < RECTRIG_MAX_DEVS; d++) {
		s->devs[d].dev = devs[d].dev;
		snprintf(s->devs[d].name, sizeof(s->devs[d].name), "%s", devs[d].name);
		s->ndev++;
	}
}

static struct recstuck *stuck_of(struct rectrigs *s, uint32_t dev)
{
	for (int d = 0; d < s->ndev; d++)
		if (s->devs[d].dev == dev)
			return &s->devs[d];
	return NULL;
}

void rectrigs_add_records(struct rectrigs *s, const uint8_t *buf, size_t len)
{
	struct bt_stream bs;
	struct bt_event ev;
	size_t off = 0, used;

	if (!s->want_events || len < 4 || bt_stream_detect(&bs, buf, len))
		return;
	pthread_mutex_lock(&s->mu);
	while (off < len && !bt_decode(&bs, buf + off, len - off, &ev, &used)) {
		unsigned code = bt_code(&ev);
		struct recstuck *k;

		off += used;
		if (bt_is_notify(&ev) || (code != BT_A_ISSUE && code != BT_A_COMPLETE &&
					  code != BT_A_REQUEUE) ||
		    !(k = stuck_of(s, ev.dev)))
			continue;
		if (code == BT_A_ISSUE) {
			if (k->inflight++ <= 0) {
				k->inflight = 1;
				k->progress_ns = (int64_t)ev.time_ns;
			}
		} else {
			if (k->inflight > 0)
				k->inflight--;
			if (code == BT_A_COMPLETE)
				k->progress_ns = (int64_t)ev.time_ns;
		}
	}
	pthread_mutex_unlock(&s->mu);
}

int rectrigs_sample(void *ctx, int64_t t_ns, const char *source,
		    const char *key, double value)
{
	struct rectrigs *s = ctx;

	if (!strcmp(source, "vmstat") && !strcmp(key, "pswpout")) {
		s->swap[s->swap_head].t_ns = t_ns;
		s->swap[s->swap_head].pages = value;
		s->swap_head = (s->swap_head + 1) % RECTRIG_HIST;
		if (s->nswap < RECTRIG_HIST)
			s->nswap++;
	} else if (!strcmp(source, "meminfo") && !strcmp(key, "Dirty")) {
		s->dirty_kb = value;
		s->mem_t_ns = t_ns;
	} else if (!strcmp(source, "meminfo") && !strcmp(key, "Writeback")) {
		s->writeback_kb = value;
		s->mem_t_ns = t_ns;
	} else if (s->want_events && !strcmp(source, "diskstats") && value == 0) {
		const char *colon = strrchr(key, ':');
		if (!colon || strcmp(colon, ":in_flight"))
			return 0;
		pthread_mutex_lock(&s->mu);
		for (int d = 0; d < s->ndev; d++) {
			char mm[32];
			int n = snprintf(mm, sizeof(mm), "%u,%u", s->devs[d].dev >> 20,
					 s->devs[d].dev & 0xfffff);
			if (n == colon - key && !strncmp(mm, key, (size_t)n))
				s->devs[d].inflight = 0;
		}
		pthread_mutex_unlock(&s->mu);
	}
	return 0;
}

void rectrigs_eval(struct rectrigs *s, int64_t now_ns, rectrig_fire_fn fire,
		   void *ctx)
{
	for (int i = 0; i < s->ntrig; i++) {
		const struct kind *k = kind_of(s->trig[i].kind);
		char thr[96] = "", val[96] = "";
		int64_t t = now_ns;
		int over;

		if (!k || !k->eval)
			continue;
		over = k->eval(s, i, now_ns, &t, thr, val, sizeof(val));
		if (over && s->armed[i])
			fire(ctx, &s->trig[i], t, thr, val);
		s->armed[i] = !over;
	}
}

void rectrigs_free(struct rectrigs *s)
{
	pthread_mutex_destroy(&s->mu);
}
