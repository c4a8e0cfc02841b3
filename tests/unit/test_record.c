/* Unit tests of the flight recorder's parts: the ring keeps its byte and
 * age bounds and drops oldest first, hands out exactly a window's records
 * and samples; the latency window pairs Q/D with C and gives percentiles
 * and max; trigger expressions parse or are refused with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/blktrace_format.h"
#include "capture/reclat.h"
#include "capture/recring.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_bounds),
		cmocka_unit_test(test_ring_spill),
		cmocka_unit_test(test_ring_age_and_window),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
