/* Unit tests of the flight recorder's parts: the ring keeps its byte and
 * age bounds and drops oldest first, hands out exactly a window's records
 * and samples; the latency window pairs Q/D with C and gives percentiles
 * and max; trigger expressions parse or are refused with a reason; the
 * other triggers (per-device latency, swap-out rate, dirty, writeback,
 * stuck) rise above their thresholds once; the hook runs with the run in
 * its environment and is reaped without waiting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace/blktrace_format.h"
#include "record/reclat.h"
#include "record/rechook.h"
#include "record/recring.h"
#include "record/rectrig.h"

/* One v7 little-endian record of action code at time t. */
static size_t rec(uint8_t *buf, unsigned code, uint64_t cats, uint64_t t,
		  uint64_t sector, uint32_t dev)
{
	struct bt_event ev = {
		.time_ns = t, .sector = sector, .bytes = 4096,
		.action = code | cats << 16, .pid = 42, .dev = dev,
	};
	long n = bt_encode(&ev, 7, 0, buf, 64);
	assert_true(n == BT_V7_SIZE);
	return (size_t)n;
}

struct got {
	uint64_t nev, nsmp;
	int64_t tmin, tmax;
};

static int got_records(void *ctx, const uint8_t *buf, size_t len)
{
	struct got *g = ctx;
	struct bt_stream bs;
	struct bt_event ev;
	size_t off = 0, used;

	assert_int_equal(bt_stream_detect(&bs, buf, len), 0);
	while (off < len) {
		assert_int_equal(bt_decode(&bs, buf + off, len - off, &ev, &used), 0);
		if (!g->nev || (int64_t)ev.time_ns < g->tmin)
			g->tmin = (int64_t)ev.time_ns;
		if ((int64_t)ev.time_ns > g->tmax)
			g->tmax = (int64_t)ev.time_ns;
		g->nev++;
		off += used;
	}
	return 0;
}

static int got_sample(void *ctx, int64_t t, const char *source, const char *key,
		      double value)
{
	struct got *g = ctx;
	(void)t; (void)value;
	assert_string_equal(source, "vmstat");
	assert_string_equal(key, "pgpgin");
	g->nsmp++;
	return 0;
}

static void test_ring_bounds(void **state)
{
	struct recring r;
	uint8_t buf[64 * 1000];
	size_t len;
	uint64_t t = 1000000000;
	(void)state;

	recring_init(&r, 1 << 20, 3600000000000ll, 0);
	for (int round = 0; round < 200; round++) {   /* 9.6 MB of records */
		len = 0;
		for (int i = 0; i < 1000; i++)
			len += rec(buf + len, BT_A_QUEUE, BT_C_READ, t += 1000, 8 * i, 7 << 20);
		recring_add_records(&r, buf, len);
		assert_true(r.held_bytes <= r.keep_bytes);
	}
	assert_true(r.dropped_events > 0);
	/* what is held starts right after what was dropped */
	assert_true(recring_oldest_ns(&r) > r.dropped_until_ns);
	{
		struct got g = { 0 };
		struct recring_out out = { .records = got_records, .ctx = &g };
		uint64_t n;
		assert_int_equal(recring_extract(&r, 0, INT64_MAX, &out, &n), 0);
		assert_int_equal(n, g.nev);
		assert_int_equal(g.nev + r.dropped_events, r.total_events);
		assert_int_equal(g.tmax, (int64_t)t);
	}
	recring_free(&r);
}

/* Files named seg-*.ring in dir. */
static int count_segs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "seg-", 4);
	closedir(d);
	return n;
}

struct order {
	struct got g;
	int64_t last;
	int backwards;
};

static int order_records(void *ctx, const uint8_t *buf, size_t len)
{
	struct order *o = ctx;
	int64_t before = o->g.tmax;

	got_records(&o->g, buf, len);
	if (o->g.tmin < o->last || o->g.tmin < before)
		o->backwards++;
	o->last = o->g.tmax;
	o->g.tmin = o->g.tmax;
	return 0;
}

/* 8 MiB kept with 1 MiB in memory: the rest spills to files, memory and
 * disk stay bounded, the oldest go first, a save reads files and memory
 * in order, and a restart removes the files a killed recorder left. */
static void test_ring_spill(void **state)
{
	struct recring r;
	uint8_t buf[64 * 1000];
	char dir[] = "/tmp/iotape-spill.XXXXXX", stale[64], err[512];
	uint64_t t = 1000000000;
	size_t len;
	FILE *fp;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(stale, sizeof(stale), "%s/seg-99.ring", dir);
	assert_non_null(fp = fopen(stale, "w"));
	fclose(fp);
	recring_init(&r, 8 << 20, 3600000000000ll, 0);
	assert_int_equal(recring_spill_to(&r, dir, 1 << 20, err, sizeof(err)), 0);
	assert_int_equal(access(stale, F_OK), -1);
	for (int round = 0; round < 400; round++) {   /* 19 MB of records */
		len = 0;
		for (int i = 0; i < 1000; i++)
			len += rec(buf + len, BT_A_QUEUE, BT_C_READ, t += 1000, 8 * i, 7 << 20);
		recring_add_records(&r, buf, len);
		assert_true(recring_spill(&r, err, sizeof(err)) >= 0);
		assert_true(r.mem_held <= r.mem_bytes);
		assert_true(r.held_bytes <= r.keep_bytes);
		assert_int_equal(count_segs(dir), r.nspilled);
	}
	assert_true(r.nspilled > 50);
	assert_true(r.dropped_events > 0);
	assert_true(recring_oldest_ns(&r) > r.dropped_until_ns);
	{
		struct order o = { .g = { 0 } };
		struct recring_out out = { .records = order_records, .ctx = &o };
		uint64_t n;
		assert_int_equal(recring_extract(&r, 0, INT64_MAX, &out, &n), 0);
		assert_int_equal(n, o.g.nev);
		assert_int_equal(o.g.nev + r.dropped_events, r.total_events);
		assert_int_equal(o.last, (int64_t)t);
		assert_int_equal(o.backwards, 0);
		/* held: far more than memory takes */
		assert_true(n * BT_V7_SIZE > 4 * r.mem_bytes);
	}
	recring_free(&r);
	assert_int_equal(count_segs(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_ring_age_and_window(void **state)
{
	struct recring r;
	uint8_t buf[64];
	struct got g = { 0 };
	struct recring_out out = { .records = got_records, .sample = got_sample,
				   .ctx = &g };
	(void)state;

	/* 10 s window, an event and a sample every 100 ms for 30 s */
	recring_init(&r, 64 << 20, 10000000000ll, 0);
	for (int64_t t = 1000000000; t <= 31000000000ll; t += 100000000) {
		recring_add_records(&r, buf, rec(buf, BT_A_COMPLETE, BT_C_READ,
						 (uint64_t)t, 0, 7 << 20));
		recring_add_sample(&r, t, "vmstat", "pgpgin", (double)t);
	}
	recring_expire(&r, 31000000000ll);
	assert_true(r.dropped_events > 0);
	assert_true(recring_oldest_ns(&r) >= 31000000000ll - 10000000000ll - 1000000000ll);
	/* a window inside what is held: exactly its items */
	assert_int_equal(recring_extract(&r, 25000000000ll, 27000000000ll, &out, NULL), 0);
	assert_int_equal(g.nev, 21);
	assert_int_equal(g.nsmp, 21);
	assert_int_equal(g.tmin, 25000000000ll);
	assert_int_equal(g.tmax, 27000000000ll);
	recring_free(&r);
}

static void test_buckets(void **state)
{
	(void)state;
	for (int64_t v = 0; v < 100000000000ll; v = v * 3 / 2 + 1) {
		int b = reclat_bucket(v);
		assert_true(reclat_bucket_top(b) >= v);
		assert_true(b == 0 || reclat_bucket_top(b - 1) < v);
	}
}

static void test_latency(void **state)
{
	struct rectrig t[2];
	struct reclat l;
	uint8_t buf[64 * 400];
	size_t len = 0;
	char err[256];
	int64_t v;
	uint64_t n;
	(void)state;

	assert_int_equal(rectrig_parse("read_q2c_p99>50ms/2s", &t[0], err, sizeof(err)), 0);
	assert_int_equal(rectrig_parse("d2c_max>1s", &t[1], err, sizeof(err)), 0);
	reclat_init(&l, t, 2);
	/* 100 reads: Q at t, D 1 ms later, C after 2 ms, the last two after
	 * 80 ms; writes are not read latencies */
	for (int i = 0; i < 100; i++) {
		uint64_t q = 1000000000ull + (uint64_t)i * 10000000;
		uint64_t c = q + (i >= 98 ? 80000000 : 2000000);
		len += rec(buf + len, BT_A_QUEUE, BT_C_READ, q, 8 * (uint64_t)i, 7 << 20);
		len += rec(buf + len, BT_A_ISSUE, BT_C_READ, q + 1000000, 8 * (uint64_t)i, 7 << 20);
		len += rec(buf + len, BT_A_COMPLETE, BT_C_READ, c, 8 * (uint64_t)i, 7 << 20);
	}
	len += rec(buf + len, BT_A_QUEUE, BT_C_WRITE, 1500000000, 99999, 7 << 20);
	len += rec(buf + len, BT_A_COMPLETE, BT_C_WRITE, 1990000000, 99999, 7 << 20);
	reclat_add_records(&l, buf, len);
	/* p99 of 100: the 99th, 80 ms (to its bucket's edge, at most the max) */
	assert_int_equal(reclat_eval(&l, 0, 2000000000, &v, &n), 1);
	assert_int_equal(n, 100);
	assert_true(v > 75000000 && v <= 80000000);
	/* d2c max over all ops (the write has no D): 79 ms, under 1 s */
	assert_int_equal(reclat_eval(&l, 1, 2000000000, &v, &n), 0);
	assert_int_equal(v, 79000000);
	/* long after, the window is empty */
	assert_int_equal(reclat_eval(&l, 0, 60000000000ll, &v, &n), 0);
	assert_int_equal(n, 0);
	reclat_free(&l);
}

static void test_parse(void **state)
{
	struct rectrig t;
	char err[256];
	(void)state;

	assert_int_equal(rectrig_parse("write_d2c_p999>200us/10s", &t, err, sizeof(err)), 0);
	assert_int_equal(t.op, RECTRIG_WRITE);
	assert_int_equal(t.metric, RECTRIG_D2C);
	assert_int_equal(t.pct, 999);
	assert_int_equal(t.threshold_ns, 200000);
	assert_int_equal(t.window_ns, 10000000000ll);
	assert_int_equal(rectrig_parse("psi_memory_full>100ms/1s", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, RECTRIG_PSI);
	assert_string_equal(t.resource, "memory");
	assert_int_equal(t.full, 1);
	assert_int_equal(t.stall_us, 100000);
	assert_int_equal(t.psi_window_us, 1000000);
	assert_int_equal(rectrig_parse("q2c_p98>5ms", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "q2c_p98>5ms"));
	assert_int_equal(rectrig_parse("q2c_p99>5", &t, err, sizeof(err)), -1);
	assert_int_equal(rectrig_parse("psi_io_some>150ms/20s", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "500ms to 10s"));
	assert_int_equal(rectrig_parse("psi_disk_some>1ms/1s", &t, err, sizeof(err)), -1);
	assert_int_equal(rectrig_parse("q2c_max>1ms/10ms", &t, err, sizeof(err)), -1);
}

static void test_parse_more(void **state)
{
	struct rectrig t;
	char err[256];
	(void)state;

	assert_int_equal(rectrig_parse("swapout>10MB/s", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, RECTRIG_SWAPOUT);
	assert_int_equal(t.threshold_bytes, 10u << 20);
	assert_int_equal(t.window_ns, 5000000000ll);
	assert_int_equal(rectrig_parse("swapout>512K/s/2s", &t, err, sizeof(err)), 0);
	assert_int_equal(t.threshold_bytes, 512u << 10);
	assert_int_equal(t.window_ns, 2000000000ll);
	assert_int_equal(rectrig_parse("swapout>10MB", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "swapout>10MB/s"));
	assert_int_equal(rectrig_parse("swapout>1M/s/100ms", &t, err, sizeof(err)), -1);
	assert_int_equal(rectrig_parse("dirty>1G", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, RECTRIG_DIRTY);
	assert_int_equal(t.threshold_bytes, 1ull << 30);
	assert_int_equal(rectrig_parse("writeback>200MiB", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, RECTRIG_WRITEBACK);
	assert_int_equal(t.threshold_bytes, 200u << 20);
	assert_int_equal(rectrig_parse("dirty>lots", &t, err, sizeof(err)), -1);
	assert_int_equal(rectrig_parse("stuck>10s", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, RECTRIG_STUCK);
	assert_int_equal(t.threshold_ns, 10000000000ll);
	assert_int_equal(t.dev, 0);
	assert_int_equal(rectrig_parse("stuck>2s@loop3", &t, err, sizeof(err)), 0);
	assert_string_equal(t.devspec, "loop3");
	assert_int_equal(t.dev, 0);
	assert_int_equal(rectrig_parse("read_q2c_p99>50ms/2s@8,16", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, RECTRIG_LATENCY);
	assert_int_equal(t.dev, 8u << 20 | 16);
	assert_int_equal(t.window_ns, 2000000000ll);
	assert_int_equal(t.threshold_ns, 50000000);
	assert_int_equal(rectrig_parse("d2c_max>1s@259:0", &t, err, sizeof(err)), 0);
	assert_int_equal(t.dev, 259u << 20);
	assert_int_equal(rectrig_parse("d2c_max>1s@", &t, err, sizeof(err)), -1);
	assert_int_equal(rectrig_parse("stuck>@sda", &t, err, sizeof(err)), -1);
	assert_int_equal(rectrig_parse("stuck", &t, err, sizeof(err)), -1);
	assert_int_equal(rectrig_parse("iops>100", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "stuck>10s"));
	assert_int_equal(rectrig_parse("read_q2c_p98>1ms", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "@8,0"));
}

static void test_bind(void **state)
{
	struct capdev devs[2] = {
		{ .dev = 7u << 20 | 3, .name = "loop3" },
		{ .dev = 8u << 20, .name = "sda" },
	};
	struct rectrig t[3];
	char err[256];
	(void)state;

	assert_int_equal(rectrig_parse("stuck>2s@loop3", &t[0], err, sizeof(err)), 0);
	assert_int_equal(rectrig_parse("d2c_max>1s@8,0", &t[1], err, sizeof(err)), 0);
	assert_int_equal(rectrig_parse("dirty>1G", &t[2], err, sizeof(err)), 0);
	assert_int_equal(rectrig_bind(t, 3, devs, 2, err, sizeof(err)), 0);
	assert_int_equal(t[0].dev, 7u << 20 | 3);
	assert_int_equal(t[1].dev, 8u << 20);
	assert_int_equal(t[2].dev, 0);
	assert_int_equal(rectrig_parse("stuck>2s@vdb", &t[0], err, sizeof(err)), 0);
	assert_int_equal(rectrig_bind(t, 1, devs, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'vdb' is not a traced device"));
}

struct fired {
	int n;
	char text[96], thr[96], val[96];
	int64_t t_ns;
};

static void on_fire(void *ctx, const struct rectrig *t, int64_t t_ns,
		    const char *thr, const char *val)
{
	struct fired *f = ctx;

	f->n++;
	f->t_ns = t_ns;
	snprintf(f->text, sizeof(f->text), "%s", t->text);
	snprintf(f->thr, sizeof(f->thr), "%s", thr);
	snprintf(f->val, sizeof(f->val), "%s", val);
}

/* swapout from pswpout samples; dirty and writeback from meminfo: each
 * fires once on the rise, again only after falling below */
static void test_sampled(void **state)
{
	struct rectrig t[3];
	struct rectrigs s;
	struct fired f = { 0 };
	char err[256];
	double pages = 1000, pg;
	(void)state;

	assert_int_equal(rectrig_parse("swapout>1M/s/2s", &t[0], err, sizeof(err)), 0);
	assert_int_equal(rectrig_parse("dirty>100M", &t[1], err, sizeof(err)), 0);
	assert_int_equal(rectrig_parse("writeback>200M", &t[2], err, sizeof(err)), 0);
	rectrigs_init(&s, t, 3, NULL, NULL, 0);
	pg = (double)s.page_bytes;
	/* 10 s of samples every 0.5 s: swapping 0.5 MiB/s, then 4 MiB/s from
	 * 5 s on */
	for (int i = 0; i <= 20; i++) {
		int64_t now = 1000000000ll + i * 500000000ll;
		pages += (i > 10 ? 2.0 : 0.25) * 1048576 / pg;
		rectrigs_sample(&s, now, "vmstat", "pswpout", pages);
		rectrigs_sample(&s, now, "meminfo", "Dirty", 50 * 1024);
		rectrigs_sample(&s, now, "meminfo", "Writeback", 0);
		rectrigs_eval(&s, now, on_fire, &f);
		if (i <= 10)
			assert_int_equal(f.n, 0);
	}
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text, "swapout>1M/s/2s");
	assert_string_equal(f.thr, "1.00 MiB/s");
	/* fired at the first sample whose window held enough of the rise */
	assert_true(f.t_ns >= 6500000000ll && f.t_ns <= 7500000000ll);
	assert_non_null(strstr(f.val, "MiB/s over 2.0 s"));
	/* dirty rises, stays above (no second fire), falls, rises again */
	f.n = 0;
	rectrigs_sample(&s, 12000000000ll, "meminfo", "Dirty", 150 * 1024);
	rectrigs_eval(&s, 12000000000ll, on_fire, &f);
	rectrigs_sample(&s, 12500000000ll, "meminfo", "Dirty", 160 * 1024);
	rectrigs_eval(&s, 12500000000ll, on_fire, &f);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text, "dirty>100M");
	assert_string_equal(f.val, "150.0 MiB");
	assert_string_equal(f.thr, "100.0 MiB");
	assert_int_equal(f.t_ns, 12000000000ll);
	rectrigs_sample(&s, 13000000000ll, "meminfo", "Dirty", 10 * 1024);
	rectrigs_eval(&s, 13000000000ll, on_fire, &f);
	rectrigs_sample(&s, 13500000000ll, "meminfo", "Dirty", 300 * 1024);
	rectrigs_sample(&s, 13500000000ll, "meminfo", "Writeback", 250 * 1024);
	rectrigs_eval(&s, 13500000000ll, on_fire, &f);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.text, "writeback>200M");
	rectrigs_free(&s);
	/* a recorder started while dirty is already over: no rise, no fire
	 * until it has gone under */
	f.n = 0;
	rectrigs_init(&s, &t[1], 1, NULL, NULL, 0);
	rectrigs_sample(&s, 1000000000, "meminfo", "Dirty", 150 * 1024);
	rectrigs_eval(&s, 1000000000, on_fire, &f);
	assert_int_equal(f.n, 0);
	rectrigs_sample(&s, 2000000000, "meminfo", "Dirty", 50 * 1024);
	rectrigs_eval(&s, 2000000000, on_fire, &f);
	rectrigs_sample(&s, 3000000000ll, "meminfo", "Dirty", 150 * 1024);
	rectrigs_eval(&s, 3000000000ll, on_fire, &f);
	assert_int_equal(f.n, 1);
	rectrigs_free(&s);
}

/* stuck: D's with no C for the threshold on one device; a C is progress;
 * diskstats in_flight 0 clears a count left by a lost C */
static void test_stuck(void **state)
{
	struct capdev devs[2] = {
		{ .dev = 7u << 20, .name = "loop0" },
		{ .dev = 7u << 20 | 1, .name = "loop1" },
	};
	struct rectrig t[2];
	struct rectrigs s;
	struct fired f = { 0 };
	uint8_t buf[64 * 8];
	size_t len = 0;
	char err[256];
	(void)state;

	assert_int_equal(rectrig_parse("stuck>2s", &t[0], err, sizeof(err)), 0);
	assert_int_equal(rectrig_parse("stuck>1s@loop1", &t[1], err, sizeof(err)), 0);
	assert_int_equal(rectrig_bind(t, 2, devs, 2, err, sizeof(err)), 0);
	rectrigs_init(&s, t, 2, NULL, devs, 2);
	/* loop0: two D at 1 s, one C at 1.5 s; loop1: a D and its C */
	len += rec(buf + len, BT_A_ISSUE, BT_C_WRITE, 1000000000, 8, 7 << 20);
	len += rec(buf + len, BT_A_ISSUE, BT_C_WRITE, 1000000000, 16, 7 << 20);
	len += rec(buf + len, BT_A_ISSUE, BT_C_READ, 1000000000, 16, 7 << 20 | 1);
	len += rec(buf + len, BT_A_COMPLETE, BT_C_READ, 1100000000, 16, 7 << 20 | 1);
	len += rec(buf + len, BT_A_COMPLETE, BT_C_WRITE, 1500000000, 8, 7 << 20);
	rectrigs_add_records(&s, buf, len);
	assert_int_equal(s.devs[0].inflight, 1);
	assert_int_equal(s.devs[1].inflight, 0);
	rectrigs_eval(&s, 3400000000ll, on_fire, &f);
	assert_int_equal(f.n, 0);
	rectrigs_eval(&s, 3600000000ll, on_fire, &f);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text, "stuck>2s");
	assert_string_equal(f.val, "loop0: 1 in flight, none completed for 2.1 s");
	assert_string_equal(f.thr, "2.0 s");
	rectrigs_eval(&s, 5000000000ll, on_fire, &f);
	assert_int_equal(f.n, 1);
	/* diskstats says nothing is in flight on loop0: not stuck, re-armed */
	rectrigs_sample(&s, 5000000000ll, "diskstats", "7,0:in_flight", 0);
	rectrigs_eval(&s, 5100000000ll, on_fire, &f);
	assert_int_equal(s.devs[0].inflight, 0);
	/* loop1 gets stuck: only the trigger on it (1 s) and the any one */
	len = rec(buf, BT_A_ISSUE, BT_C_READ, 6000000000ll, 24, 7 << 20 | 1);
	rectrigs_add_records(&s, buf, len);
	rectrigs_eval(&s, 7100000000ll, on_fire, &f);
	assert_int_equal(f.n, 2);
	assert_string_equal(f.text, "stuck>1s@loop1");
	rectrigs_eval(&s, 8100000000ll, on_fire, &f);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.text, "stuck>2s");
	rectrigs_free(&s);
}

/* per-device latency: only the named device's I/O counts */
static void test_latency_dev(void **state)
{
	struct rectrig t[1];
	struct reclat l;
	uint8_t buf[64 * 60];
	size_t len = 0;
	char err[256];
	int64_t v;
	uint64_t n;
	(void)state;

	assert_int_equal(rectrig_parse("q2c_max>50ms@7,1", &t[0], err, sizeof(err)), 0);
	reclat_init(&l, t, 1);
	for (int i = 0; i < 10; i++) {
		uint64_t q = 1000000000ull + (uint64_t)i * 10000000;
		/* slow on loop0, fast on loop1 */
		len += rec(buf + len, BT_A_QUEUE, BT_C_READ, q, 8 * (uint64_t)i, 7 << 20);
		len += rec(buf + len, BT_A_COMPLETE, BT_C_READ, q + 90000000, 8 * (uint64_t)i, 7 << 20);
		len += rec(buf + len, BT_A_QUEUE, BT_C_READ, q, 8 * (uint64_t)i, 7 << 20 | 1);
		len += rec(buf + len, BT_A_COMPLETE, BT_C_READ, q + 1000000, 8 * (uint64_t)i, 7 << 20 | 1);
	}
	reclat_add_records(&l, buf, len);
	assert_int_equal(reclat_eval(&l, 0, 1200000000, &v, &n), 0);
	assert_int_equal(n, 10);
	assert_int_equal(v, 1000000);
	reclat_free(&l);
}

static void hook_done(void *ctx, const char *run, pid_t pid, int status)
{
	(void)pid;
	assert_string_equal(run, "incident-x");
	*(int *)ctx = status;
}

/* the hook runs with the run in its environment; reaping never waits */
static void test_hook(void **state)
{
	struct rechook h = { .cmd = "printf '%s|%s|%s' \"$IOTAPE_RUN\" "
			     "\"$IOTAPE_TRIGGER\" \"$IOTAPE_DB\" > \"$OUT\"; "
			     "exit 3" };
	struct rechook_env e = { .run = "incident-x", .trigger = "dirty>1G",
				 .threshold = "1024.0 MiB", .value = "2000.0 MiB",
				 .db = "t.db" };
	char err[256], path[] = "/tmp/iotape-hook-XXXXXX", got[128] = "";
	int fd = mkstemp(path), status = -1, running = 1;
	pid_t pid;
	FILE *fp;
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	setenv("OUT", path, 1);
	setenv("IOTAPE_RUN", "stale", 1);
	pid = rechook_start(&h, &e, err, sizeof(err));
	assert_true(pid > 0);
	for (int i = 0; i < 500 && running; i++) {
		running = rechook_reap(&h, hook_done, &status);
		if (running)
			usleep(10000);
	}
	assert_int_equal(running, 0);
	assert_int_equal(h.pid[0], 0);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(got, sizeof(got), fp));
	fclose(fp);
	unlink(path);
	assert_string_equal(got, "incident-x|dirty>1G|t.db");
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	/* a full table refuses the next one */
	for (int i = 0; i < RECHOOK_MAX; i++)
		h.pid[i] = 1;
	assert_int_equal(rechook_start(&h, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "still running"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_bounds),
		cmocka_unit_test(test_ring_spill),
		cmocka_unit_test(test_ring_age_and_window),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_more),
		cmocka_unit_test(test_bind),
		cmocka_unit_test(test_sampled),
		cmocka_unit_test(test_stuck),
		cmocka_unit_test(test_latency_dev),
		cmocka_unit_test(test_hook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
