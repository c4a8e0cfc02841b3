/* Unit tests of iostat_build() (analyze/iostat.c): small request sets whose
 * iostat -x columns were worked out by hand, interval by interval. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/iostat.h"
#include "schema/trace_record.h"

#define MS 1000000LL
#define N AN_NONE

static struct an_io mk(uint32_t dev, int64_t q, int64_t m, int64_t d,
		       int64_t c, uint32_t bytes, uint32_t dbytes, uint32_t flags)
{
	struct an_io x = { .q = q, .g = N, .i = N, .d = d, .c = c, .m = m,
			   .bytes = bytes, .dbytes = dbytes, .dev = dev,
			   .flags = flags };
	return x;
}

static const uint32_t LOOP = BT_MKDEV(7, 0), SDA = BT_MKDEV(8, 0);

/* A: read request of two bios (B merged into it), C and D writes, E an
 * empty flush; a one-read second device. */
/* iostat_build() over the n requests io, as a run of them */
static int build(const struct an_io *io, size_t n, const struct iostat_opts *o,
		 struct iostat_row **r, size_t *nr)
{
	struct rundata rd;
	int rc;

	rundata_of_ios(&rd, NULL, io, n);
	rc = iostat_build(&rd, o, r, nr);
	rundata_free(&rd);
	return rc;
}

static void fixture(struct an_io *io)
{
	io[0] = mk(LOOP, 100 * MS, N, 200 * MS, 400 * MS, 4096, 8192, AN_HEAD);
	io[1] = mk(LOOP, 150 * MS, 160 * MS, N, N, 4096, 4096, AN_MERGED);
	io[2] = mk(LOOP, 900 * MS, N, 950 * MS, 1300 * MS, 4096, 4096,
		   AN_HEAD | AN_WRITE);
	io[3] = mk(LOOP, 1100 * MS, N, 1200 * MS, 1500 * MS, 16384, 16384,
		   AN_HEAD | AN_WRITE);
	io[4] = mk(LOOP, 1600 * MS, N, 1600 * MS, 1700 * MS, 0, 0,
		   AN_HEAD | AN_WRITE | AN_FLUSH);
	io[5] = mk(SDA, 500 * MS, N, 500 * MS, 1500 * MS, 512, 512, AN_HEAD);
}

static void test_two_intervals(void **state)
{
	struct an_io io[6];
	struct iostat_opts o = { .interval_ns = 1000 * MS, .from_ns = 0,
				 .to_ns = 2000 * MS };
	struct iostat_row *r;
	size_t n;

	(void)state;
	fixture(io);
	assert_int_equal(build(io, 6, &o, &r, &n), 0);
	assert_int_equal(n, 4);
	/* loop0, [0, 1 s): A done at 0.4 s, 16 sectors, Q2C 300 ms; B merged;
	 * in flight A 300 ms + C 100 ms; busy [0.2, 0.4] + [0.95, 1) */
	assert_int_equal(r[0].dev, LOOP);
	assert_int_equal(r[0].r, 1);
	assert_int_equal(r[0].w, 0);
	assert_true(fabs(r[0].r_s - 1) < 1e-9);
	assert_true(fabs(r[0].rkb_s - 8) < 1e-9);
	assert_true(fabs(r[0].rrqm_s - 1) < 1e-9);
	assert_true(fabs(r[0].r_await_ms - 300) < 1e-9);
	assert_true(isnan(r[0].w_await_ms));
	assert_true(fabs(r[0].aqu_sz - 0.4) < 1e-9);
	assert_true(fabs(r[0].rareq_sz - 8) < 1e-9);
	assert_true(fabs(r[0].util_pct - 25) < 1e-9);
	/* loop0, [1, 2 s): C and D done, 8 + 32 sectors, Q2C 400 ms each; the
	 * empty flush a write of 0 sectors (as the kernel counts it) and a
	 * flush, Q2C 100 ms; in flight C 300 + D 400 + the flush 100 ms; busy
	 * [1, 1.5] and the flush's [1.6, 1.7] */
	assert_int_equal(r[1].t0_ns, 1000 * MS);
	assert_int_equal(r[1].t1_ns, 2000 * MS);
	assert_int_equal(r[1].w, 3);
	assert_int_equal(r[1].f, 1);
	assert_true(fabs(r[1].w_s - 3) < 1e-9);
	assert_true(fabs(r[1].f_s - 1) < 1e-9);
	assert_true(fabs(r[1].wkb_s - 20) < 1e-9);
	assert_true(fabs(r[1].wareq_sz - 20.0 / 3) < 1e-9);
	assert_true(fabs(r[1].w_await_ms - 300) < 1e-9);
	assert_true(isnan(r[1].r_await_ms));
	assert_true(fabs(r[1].aqu_sz - 0.8) < 1e-9);
	assert_true(fabs(r[1].util_pct - 60) < 1e-9);
	/* sda: in flight and busy 0.5 s in each interval, done in the second */
	assert_int_equal(r[2].dev, SDA);
	assert_int_equal(r[2].r, 0);
	assert_true(fabs(r[2].util_pct - 50) < 1e-9);
	assert_true(fabs(r[2].aqu_sz - 0.5) < 1e-9);
	assert_int_equal(r[3].r, 1);
	assert_true(fabs(r[3].rkb_s - 0.5) < 1e-9);
	assert_true(fabs(r[3].r_await_ms - 1000) < 1e-9);
	free(r);
}

/* A window of two 100 ms intervals inside the second second. */
static void test_window(void **state)
{
	struct an_io io[6];
	struct iostat_opts o = { .interval_ns = 100 * MS, .from_ns = 1200 * MS,
				 .to_ns = 1400 * MS };
	struct iostat_row *r;
	size_t n;

	(void)state;
	fixture(io);
	assert_int_equal(build(io, 5, &o, &r, &n), 0);
	assert_int_equal(n, 2);
	/* [1.2, 1.3): C and D in flight and busy; C done at 1.3: next one */
	assert_int_equal(r[0].w, 0);
	assert_true(fabs(r[0].aqu_sz - 2) < 1e-9);
	assert_true(fabs(r[0].util_pct - 100) < 1e-9);
	assert_int_equal(r[1].w, 1);
	assert_true(fabs(r[1].w_s - 10) < 1e-9);
	assert_true(fabs(r[1].wkb_s - 40) < 1e-9);
	assert_true(fabs(r[1].aqu_sz - 1) < 1e-9);
	free(r);
}

/* No D traced: completed bios count; with no start, no await. The last
 * interval ends 1 ns after the last completion. */
static void test_completions_only(void **state)
{
	struct an_io io[2];
	struct iostat_opts o = { .interval_ns = 1000 * MS, .from_ns = 0,
				 .to_ns = INT64_MAX };
	struct iostat_row *r;
	size_t n;

	(void)state;
	io[0] = mk(LOOP, N, N, N, 500 * MS, 4096, 4096, 0);
	io[1] = mk(LOOP, N, N, N, 1500 * MS, 4096, 4096, 0);
	assert_int_equal(build(io, 2, &o, &r, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].r, 1);
	assert_true(fabs(r[0].rkb_s - 4) < 1e-9);
	assert_true(isnan(r[0].r_await_ms));
	assert_true(fabs(r[0].util_pct) < 1e-9);
	assert_int_equal(r[1].t1_ns, 1500 * MS + 1);
	assert_int_equal(r[1].r, 1);
	assert_true(fabs(r[1].r_s - 1 / (0.5 + 1e-9)) < 1e-6);
	free(r);
	/* dispatched, never completed: no busy or queue time, no request */
	io[1] = mk(LOOP, 600 * MS, N, 700 * MS, N, 4096, 4096, AN_HEAD);
	o.to_ns = 1000 * MS;
	assert_int_equal(build(io, 2, &o, &r, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].r, 0);
	assert_true(fabs(r[0].util_pct) < 1e-9);
	assert_true(fabs(r[0].aqu_sz) < 1e-9);
	free(r);
	o.to_ns = INT64_MAX;
	/* a bad interval; a window with nothing in it */
	o.interval_ns = 0;
	assert_int_equal(build(io, 2, &o, &r, &n), -22);
	o.interval_ns = 1000 * MS;
	o.from_ns = 5000 * MS;
	assert_int_equal(build(io, 2, &o, &r, &n), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_intervals),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_completions_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
