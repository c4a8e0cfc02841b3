/* Unit tests of the disk model against its own specification: random 4 KiB
 * reads at depth 1 take command overhead + average seek + half a revolution
 * + transfer (12-14 ms on the 2006 profile, as the Deskstar 7K500 data
 * sheet's random-access figure); sequential reads run at the zone's
 * sustained rate; a full-stroke seek costs what the profile says; the seek
 * curve meets its three figures; SPTF beats FIFO at depth 32; the write
 * cache and flushes; profile files parse, and bad ones are refused with
 * the line; the open-loop API for the analyzers. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "tests/unit/xorshift.h"

#define T0 1000000000LL

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	return xorshift64(&rng);
}

static const struct disk_profile *p2006(void)
{
	const struct disk_profile *p = profile_builtin("desktop-2006");
	assert_non_null(p);
	return p;
}

/* Runs reqs one at a time (depth 1, each arriving when the previous
 * completed); returns the mean time per request, ms. */
static double depth1_ms(const struct disk_profile *p, struct model_req *reqs,
			size_t n)
{
	char err[256];
	struct disk_model *m = model_new(p, T0, 1, err, sizeof(err));
	int64_t t = T0, total = 0;
	struct model_done d;

	assert_non_null(m);
	for (size_t i = 0; i < n; i++) {
		reqs[i].arrive_ns = t;
		reqs[i].tag = (uint32_t)i;
		assert_int_equal(model_submit(m, &reqs[i]), 0);
		model_run(m, t, 1);
		assert_true(model_busy_until(m) != INT64_MAX);
		model_run(m, model_busy_until(m), 0);
		assert_int_equal(model_pop(m, &d), 1);
		assert_int_equal(d.tag, i);
		total += d.done_ns - d.arrive_ns;
		t = d.done_ns;
	}
	model_free(m);
	return (double)total / n / 1e6;
}

static void test_builtins_parse(void **state)
{
	size_t n;
	const struct disk_profile *b = profile_builtins(&n);
	char err[256], *text = malloc(16384);

	(void)state;
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++) {
		struct disk_profile q;
		struct disk_model *m = model_new(&b[i], T0, 4, err, sizeof(err));
		assert_non_null(m);
		model_free(m);
		/* every value has its source */
		for (int k = PK_RPM; k <= PK_QUEUE_DEPTH; k++)
			assert_true(strlen(b[i].src[k]) > 3);
		/* a profile written out reads back the same */
		profile_format(&b[i], text, 16384);
		assert_int_equal(profile_parse(&q, text, strlen(text), "t", err,
					       sizeof(err)), 0);
		assert_string_equal(q.name, b[i].name);
		assert_true(q.rpm == b[i].rpm && q.seek_avg_ms == b[i].seek_avg_ms &&
			    q.capacity_sectors == b[i].capacity_sectors &&
			    q.queue == b[i].queue);
	}
	assert_ptr_equal(profile_builtin("deskstar-7k500"), profile_builtin("desktop-2006"));
	assert_null(profile_builtin("nonesuch"));
	free(text);
}

/* the curve meets single track, the weighted average and full stroke */
static void test_seek_curve(void **state)
{
	char err[256];
	struct disk_model *m = model_new(p2006(), T0, 1, err, sizeof(err));
	struct model_layout l;

	(void)state;
	assert_non_null(m);
	model_layout(m, &l);
	assert_true(fabs(seek_curve_ns(&l.seek, 1) / 1e6 - 1.0) < 0.01);
	assert_true(fabs(seek_curve_ns(&l.seek, l.cylinders - 1) / 1e6 - 14.7) < 0.01);
	assert_true(fabs(seek_curve_avg_ns(&l.seek) / 1e6 - 8.5) < 0.05);
	/* sqrt below the boundary, linear beyond, increasing, continuous */
	assert_true(l.seek.boundary > 1 && l.seek.boundary < l.cylinders);
	for (uint32_t d = 1; d < l.cylinders - 1; d += 97)
		assert_true(seek_curve_ns(&l.seek, d + 97) >= seek_curve_ns(&l.seek, d));
	assert_true(fabs(seek_curve_ns(&l.seek, l.seek.boundary - 1) -
			 seek_curve_ns(&l.seek, l.seek.boundary)) < 0.02e6);
	/* zones from the rates: 1242 and 594 sectors a track (64.8 and 31.0
	 * MB/s over 8.33 + 1.48 ms) */
	assert_in_range(l.spt_outer, 1235, 1249);
	assert_in_range(l.spt_inner, 590, 599);
	model_free(m);
	/* inconsistent figures have no curve */
	struct seek_curve sc;
	assert_int_equal(seek_curve_derive(&sc, 100000, 1, 1.01, 20), -1);
}

/* a disk of few cylinders (an `iotape disk` of 1 GiB spreads the 2006
 * profile's figures over 240 cylinders): the curve still meets single
 * track, full stroke and, within 1%, the weighted average, rising all the
 * way; a data sheet's disk keeps the curve it had (a >= 0) */
static void test_seek_curve_small(void **state)
{
	struct seek_curve sc;

	(void)state;
	for (uint32_t c = 40; c <= 400; c += 40) {
		assert_int_equal(seek_curve_derive(&sc, c, 1.0, 8.5, 14.7), 0);
		assert_true(fabs(seek_curve_ns(&sc, 1) / 1e6 - 1.0) < 0.01);
		assert_true(fabs(seek_curve_ns(&sc, c - 1) / 1e6 - 14.7) < 0.05);
		assert_true(fabs(seek_curve_avg_ns(&sc) / 1e6 - 8.5) < 0.085 ||
			    c < 200);
		assert_true(fabs(seek_curve_avg_ns(&sc) / 1e6 - 8.5) < 0.4);
		for (uint32_t d = 1; d + 1 < c; d++)
			assert_true(seek_curve_ns(&sc, d + 1) >= seek_curve_ns(&sc, d));
	}
	assert_int_equal(seek_curve_derive(&sc, 100000, 1.0, 8.5, 14.7), 0);
	assert_true(sc.a_ns >= 0);
	/* inconsistent figures still have none */
	assert_int_equal(seek_curve_derive(&sc, 240, 1, 1.01, 20), -1);
}

/* random 4 KiB reads at depth 1: overhead + average seek + half a turn +
 * transfer = 0.22 + 8.5 + 4.17 + 0.1 ms = about 13 ms (the data sheet's
 * random-access figure, 4.4.5.2: 55.5 s / 4096 / 1.05 = 12.9 ms) */
static void test_random_4k(void **state)
{
	const struct disk_profile *p = p2006();
	size_t n = 4096;
	struct model_req *r = calloc(n, sizeof(*r));
	double ms;

	(void)state;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct model_req){ .lba = (xorshift() % (p->capacity_sectors / 8)) * 8,
					   .sectors = 8, .op = MOP_READ };
	ms = depth1_ms(p, r, n);
	print_message("# random 4 KiB reads, depth 1, 2006 profile: %.2f ms\n", ms);
	assert_true(ms > 12.0 && ms < 14.0);
	free(r);
}

/* sequential 128 KiB reads at depth 1 run at the zone's sustained rate
 * (readahead keeps the head streaming), within 5% */
static void test_sequential_rate(void **state)
{
	const struct disk_profile *p = p2006();
	size_t n = 2048;
	struct model_req *r = calloc(n, sizeof(*r));
	uint64_t starts[2] = { 0, p->capacity_sectors - n * 256 - 1000 };
	double want[2] = { 64.8, 31.0 };

	(void)state;
	for (int z = 0; z < 2; z++) {
		double ms, mbs;
		for (size_t i = 0; i < n; i++)
			r[i] = (struct model_req){ .lba = starts[z] + i * 256,
						   .sectors = 256, .op = MOP_READ };
		ms = depth1_ms(p, r, n);
		mbs = 131072 / (ms / 1e3) / 1e6;
		print_message("# sequential 128 KiB reads, %s zone: %.1f MB/s "
			      "(profile %.1f)\n", z ? "inner" : "outer", mbs, want[z]);
		assert_true(fabs(mbs - want[z]) / want[z] < 0.05);
	}
	free(r);
}

/* one read at the outer edge, then one at the inner edge: the second
 * costs overhead + full stroke + rotation + transfer, with rotation at
 * most one revolution */
static void test_full_stroke(void **state)
{
	const struct disk_profile *p = p2006();
	char err[256];
	struct disk_model *m = model_new(p, T0, 2, err, sizeof(err));
	struct model_req a = { .lba = 0, .sectors = 1, .op = MOP_READ, .arrive_ns = T0 };
	struct model_req b = { .lba = p->capacity_sectors - 1, .sectors = 1,
			       .op = MOP_READ, .tag = 1 };
	struct model_done d;
	double min_ms = p->overhead_ms + p->seek_full_ms, ms;

	(void)state;
	assert_non_null(m);
	model_submit(m, &a);
	model_run(m, T0, 1);
	model_run(m, model_busy_until(m), 0);
	assert_int_equal(model_pop(m, &d), 1);
	b.arrive_ns = d.done_ns;
	model_submit(m, &b);
	model_run(m, b.arrive_ns, 1);
	model_run(m, model_busy_until(m), 0);
	assert_int_equal(model_pop(m, &d), 1);
	ms = (double)d.service_ns / 1e6;
	print_message("# full stroke read: %.2f ms (seek %.1f ms + rotation)\n", ms,
		      p->seek_full_ms);
	assert_true(ms >= min_ms && ms <= min_ms + 8.34 + 0.1);
	model_free(m);
}

/* 32 random reads queued at once: SPTF serves them in much less time than
 * FIFO (Worthington et al. 1994: positioning-aware orders cut the
 * service time well below the average seek + half a turn) */
static void test_sptf_vs_fifo(void **state)
{
	struct disk_profile p = *p2006();
	double total[2];

	(void)state;
	for (int q = 0; q < 2; q++) {
		char err[256];
		struct disk_model *m;
		struct model_done d;
		int64_t last = 0;

		p.queue = q ? MODEL_SPTF : MODEL_FIFO;
		rng = 1234567;
		m = model_new(&p, T0, 32, err, sizeof(err));
		for (uint32_t i = 0; i < 32; i++) {
			struct model_req r = { .lba = (xorshift() % (p.capacity_sectors / 8)) * 8,
					       .sectors = 8, .op = MOP_READ, .tag = i,
					       .arrive_ns = T0 };
			assert_int_equal(model_submit(m, &r), 0);
		}
		model_run(m, INT64_MAX, 1);
		while (model_pop(m, &d))
			last = d.done_ns;
		total[q] = (double)(last - T0) / 1e6;
		model_free(m);
	}
	print_message("# 32 random reads at once: FIFO %.1f ms, SPTF %.1f ms\n",
		      total[0], total[1]);
	assert_true(total[1] < 0.75 * total[0]);
}

/* writes complete in the buffer with the write cache on (overhead +
 * bus), reach the medium with it off or FUA, and a flush pays for the
 * dirty data */
static void test_write_cache(void **state)
{
	struct disk_profile p = *p2006();
	double on, off, fua;
	struct model_req r[64];

	(void)state;
	for (int i = 0; i < 64; i++)
		r[i] = (struct model_req){ .lba = (uint64_t)i * 10000000, .sectors = 8,
					   .op = MOP_WRITE };
	on = depth1_ms(&p, r, 64);
	for (int i = 0; i < 64; i++)
		r[i].fua = 1;
	fua = depth1_ms(&p, r, 64);
	p.write_cache = 0;
	for (int i = 0; i < 64; i++)
		r[i].fua = 0;
	off = depth1_ms(&p, r, 64);
	print_message("# scattered 4 KiB writes: cache on %.2f ms, FUA %.2f ms, "
		      "cache off %.2f ms\n", on, fua, off);
	assert_true(on < 0.5);
	assert_true(off > 8 && fua > 8);
	/* a flush after cached writes writes them back */
	p.write_cache = 1;
	{
		struct model_req w[9];
		double per;
		for (int i = 0; i < 8; i++)
			w[i] = (struct model_req){ .lba = (uint64_t)i * 10000000,
						   .sectors = 8, .op = MOP_WRITE };
		w[8] = (struct model_req){ .op = MOP_FLUSH };
		per = depth1_ms(&p, w, 9) * 9;
		assert_true(per > 8 * 5);   /* eight scattered writes' worth */
	}
}

static void test_profile_files(void **state)
{
	struct disk_profile p;
	char err[256];
	const char *ok = "# a 2006 disk with its write cache off\n"
			 "base = desktop-2006\nname = mine\n"
			 "write_cache = off   # hdparm -W0\nqueue = fifo\n";
	const char *bad[][2] = {
		{ "rpm = 7200\nnosuch = 1\n", "t: line 2: unknown key 'nosuch'" },
		{ "base = desktop-2006\nrpm = fast\n", "t: line 2: rpm: 'fast' is not a number" },
		{ "base = desktop-2006\nrpm = 100\n", "t: line 2: rpm: 100 is out of range" },
		{ "rpm = 7200\n", "t: no capacity_sectors" },
		{ "base = desktop-2006\nseek_avg_ms = 20\n", "seeks must grow" },
		{ "rpm = 7200\nbase = desktop-2006\n", "t: line 2: base comes once" },
		{ "base = nope\n", "no built-in profile 'nope'" },
		{ "base = desktop-2006\nqueue\n", "t: line 2: not 'key = value'" },
	};

	(void)state;
	assert_int_equal(profile_parse(&p, ok, strlen(ok), "t", err, sizeof(err)), 0);
	assert_string_equal(p.name, "mine");
	assert_int_equal(p.write_cache, 0);
	assert_int_equal(p.queue, MODEL_FIFO);
	assert_string_equal(p.src[PK_WRITE_CACHE], "hdparm -W0");
	assert_true(p.rpm == 7200 && p.seek_avg_ms == 8.5);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(profile_parse(&p, bad[i][0], strlen(bad[i][0]), "t",
					       err, sizeof(err)), -1);
		if (!strstr(err, bad[i][1]))
			fail_msg("'%s': got '%s', want '%s'", bad[i][0], err, bad[i][1]);
	}
	assert_int_equal(profile_parse(&p, "rpm\0= 1", 7, "t", err, sizeof(err)), -1);
}

/* the analyzers' API: device times of dispatched requests, open loop */
static void test_device_times(void **state)
{
	const struct disk_profile *p = p2006();
	size_t n = 200;
	struct model_req *r = calloc(n, sizeof(*r));
	int64_t *svc = calloc(n, sizeof(*svc)), *d2c = calloc(n, sizeof(*d2c));
	char err[256];
	double sum = 0;

	(void)state;
	/* far apart in time: no queueing, D2C = service; random: ~13 ms */
	for (size_t i = 0; i < n; i++)
		r[i] = (struct model_req){ .lba = (xorshift() % (p->capacity_sectors / 8)) * 8,
					   .sectors = 8, .op = MOP_READ,
					   .arrive_ns = T0 + (int64_t)i * 100000000 };
	assert_int_equal(model_device_times(p, r, n, svc, d2c, err, sizeof(err)), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(svc[i], d2c[i]);
		sum += (double)svc[i];
	}
	assert_true(sum / n / 1e6 > 11 && sum / n / 1e6 < 15);
	/* all at once: they queue, so D2C grows, service does not */
	for (size_t i = 0; i < n; i++)
		r[i].arrive_ns = T0;
	assert_int_equal(model_device_times(p, r, n, svc, d2c, err, sizeof(err)), 0);
	assert_true(d2c[n - 1] > 10 * svc[n - 1]);
	free(r);
	free(svc);
	free(d2c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtins_parse),
		cmocka_unit_test(test_seek_curve),
		cmocka_unit_test(test_seek_curve_small),
		cmocka_unit_test(test_random_4k),
		cmocka_unit_test(test_sequential_rate),
		cmocka_unit_test(test_full_stroke),
		cmocka_unit_test(test_sptf_vs_fifo),
		cmocka_unit_test(test_write_cache),
		cmocka_unit_test(test_profile_files),
		cmocka_unit_test(test_device_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
