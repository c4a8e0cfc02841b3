/* Unit tests of the explanation's arithmetic: the Mann-Whitney U test and
 * the range test against values computed by hand, interval unions, series
 * interpolation, and the ranking of findings (causes by cost, a generic
 * mechanism counted beyond the specific cause it overlaps), the pairing of
 * processes between runs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/finding.h"
#include "analyze/rundata.h"
#include "analyze/stats.h"
#include "analyze/timeacct.h"

/* Exact two-sided p-values by counting: for samples of 3 and 3 that do
 * not overlap, 2 of the C(6,3) = 20 orders are as extreme: p = 0.1; for 4
 * and 4, 2 of 70: p = 0.0286; identical samples give p = 1. */
static void test_mann_whitney(void **state)
{
	double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	double a4[] = { 1, 2, 3, 4 }, b4[] = { 5, 6, 7, 8 };
	double c[] = { 1, 2, 3, 4 };
	/* one swap between 4 and 4: U = 1, as extreme or more: 2 orders with U
	 * <= 1 on each side (U = 0, U = 1): 4 of 70 */
	double d4[] = { 1, 2, 3, 5 }, e4[] = { 4, 6, 7, 8 };

	(void)state;
	assert_true(fabs(mann_whitney_p(a3, 3, b3, 3) - 0.1) < 1e-9);
	assert_true(fabs(mann_whitney_p(b3, 3, a3, 3) - 0.1) < 1e-9);
	assert_true(fabs(mann_whitney_p(a4, 4, b4, 4) - 2.0 / 70) < 1e-9);
	assert_true(fabs(mann_whitney_p(d4, 4, e4, 4) - 4.0 / 70) < 1e-9);
	assert_true(mann_whitney_p(c, 4, c, 4) > 0.99);
	assert_true(mann_whitney_p(a3, 0, b3, 3) == 1);
	/* the normal approximation past 20 values: 11 and 11 apart, far in
	 * the tail (exact: 2 / C(22, 11) = 2.9e-6) */
	{
		double a[11], b[11];
		for (int i = 0; i < 11; i++) {
			a[i] = i;
			b[i] = 100 + i;
		}
		assert_true(mann_whitney_p(a, 11, b, 11) < 1e-4);
	}
}

static void test_ranges(void **state)
{
	double a[] = { 1.0, 1.2 }, b[] = { 1.3, 1.5 }, c[] = { 1.1, 1.4 };

	(void)state;
	assert_int_equal(ranges_apart(a, 2, b, 2), 1);
	assert_int_equal(ranges_apart(b, 2, a, 2), 1);
	assert_int_equal(ranges_apart(a, 2, c, 2), 0);
	assert_int_equal(ranges_apart(a, 1, b, 0), 0);
	/* apart by more than either is wide, or not: two runs a side of one
	 * setup (7 ms apart, 24 ms wide) are no difference */
	{
		double s0[] = { 3.360, 3.336 }, s1[] = { 3.329, 3.324 };
		double f[] = { 1.0, 1.1 }, g[] = { 1.3, 1.35 };
		assert_int_equal(ranges_apart(s0, 2, s1, 2), 1);
		assert_int_equal(ranges_clear(s0, 2, s1, 2), 0);
		assert_int_equal(ranges_clear(f, 2, g, 2), 1);
		assert_int_equal(ranges_clear(g, 2, f, 2), 1);
		assert_int_equal(ranges_clear(a, 2, b, 2), 0);
	}
	{
		double v[] = { 3, 1, 2 };
		assert_true(median_of(v, 3) == 2);
		assert_true(isnan(median_of(v, 0)));
	}
}

/* [0,10] [5,15] [20,30] [30,31]: union 26 ns; [8,22] of the merged
 * [0,15] [20,31] covers 7 + 2 = 9 ns. */
static void test_union(void **state)
{
	struct ta_iv iv[] = { { 20, 30 }, { 0, 10 }, { 30, 31 }, { 5, 15 } };
	size_t n;

	(void)state;
	assert_true(fabs(ta_union_s(iv, 4) - 26e-9) < 1e-15);
	n = ta_merge(iv, 4);
	assert_int_equal(n, 2);
	assert_true(fabs(ta_overlap_s(iv, n, 8, 22) - 9e-9) < 1e-15);
	assert_true(ta_overlap_s(iv, n, 40, 50) == 0);
}

static void test_series(void **state)
{
	int64_t t[] = { 0, 10, 20 };
	double v[] = { 0, 100, 100 };
	struct an_series s = { t, v, 3 };

	(void)state;
	assert_true(series_at(&s, 5) == 50);
	assert_true(series_at(&s, -5) == 0);
	assert_true(series_at(&s, 25) == 100);
	assert_true(series_delta(&s, 0, 15) == 100);
	s.n = 1;
	assert_true(series_delta(&s, 0, 15) == 0);
}

static void finding(struct finding *f, const char *an, double cost,
		    unsigned pid, unsigned stages, int generic)
{
	finding_init(f, an);
	f->present = 1;
	f->conf = FD_HIGH;
	f->cost_s = cost;
	f->victim_pid = pid;
	f->stages = stages;
	f->generic = generic;
}

/* Costs are disjoint parts of the workload's time (critpath.h), so each
 * counts whole: causes rank by cost; a pattern under the floor is present
 * but no cause; absent ones go last; no confidence, no cause. */
static void test_rank(void **state)
{
	struct finding f[4];

	(void)state;
	finding(&f[0], "fairness", 1.2, 42, 1u << TA_I2D, 0);
	finding(&f[1], "queue", 1.5, 42, 1u << TA_I2D, 1);
	finding(&f[2], "seek", 0.001, 0, 1u << TA_D2C, 0);
	finding_init(&f[3], "swap");
	finding_rank(f, 4, 3.0, 0.15);
	assert_string_equal(f[0].analyzer, "queue");
	assert_int_equal(f[0].cause, 1);
	assert_true(fabs(f[0].score - 0.5) < 1e-9);
	assert_true(fabs(f[0].cost_s - 1.5) < 1e-9);
	assert_string_equal(f[1].analyzer, "fairness");
	assert_int_equal(f[1].cause, 1);
	assert_true(fabs(f[1].cost_s - 1.2) < 1e-9);
	assert_string_equal(f[1].overlap, "");
	assert_string_equal(f[2].analyzer, "seek");
	assert_int_equal(f[2].cause, 0);
	assert_string_equal(f[3].analyzer, "swap");
	assert_int_equal(f[3].present, 0);

	/* a score is capped at the whole of the time it is measured against */
	finding(&f[0], "queue", 4.0, 42, 1u << TA_I2D, 1);
	finding_rank(f, 1, 3.0, 0.15);
	assert_true(f[0].score == 1);

	/* no confidence, no cause, whatever the cost */
	finding(&f[0], "seek", 2.0, 0, 1u << TA_D2C, 0);
	f[0].conf = FD_NONE;
	finding_rank(f, 1, 3.0, 0.15);
	assert_int_equal(f[0].cause, 0);
}

static void test_wrap(void **state)
{
	char out[256];

	(void)state;
	wrap_indent("aaaa bbbb cccc dddd", 10, 2, out, sizeof(out));
	assert_string_equal(out, "aaaa bbbb\n  cccc\n  dddd");
	wrap_indent("one\ntwo", 40, 3, out, sizeof(out));
	assert_string_equal(out, "one\n   two");
}

/* Pairing processes of two runs: equal keys first; the rest by kind in
 * start order. The null pair that found it: two fio jobs that split the
 * device 60:180 MB in one run (keys 64M#1, 256M#1) and 140:140 in the next
 * (256M#1, 256M#2). */
static void pk(struct ta_pkey *k, const char *key, const char *kind,
	       int64_t first)
{
	snprintf(k->key, sizeof(k->key), "%s", key);
	snprintf(k->kind, sizeof(k->kind), "%s", kind);
	k->first_q = first;
}

static void test_pair(void **state)
{
	struct ta_pkey x[3], y[3];
	const struct ta_pkey *px[3] = { &x[0], &x[1], &x[2] };
	const struct ta_pkey *py[3] = { &y[0], &y[1], &y[2] };
	int pair[3];

	(void)state;
	/* x: the 64M one started first; y: both 256M */
	pk(&x[0], "fio:R4K:64M#1", "fio:R4K", 10);
	pk(&x[1], "fio:R4K:256M#1", "fio:R4K", 20);
	pk(&y[0], "fio:R4K:256M#2", "fio:R4K", 25);
	pk(&y[1], "fio:R4K:256M#1", "fio:R4K", 5);
	ta_pair(px, 2, py, 2, pair);
	assert_int_equal(pair[1], 1);     /* equal keys */
	assert_int_equal(pair[0], 0);     /* the rest by kind */
	/* a kind with nothing left in x, and an x left unpaired */
	pk(&y[2], "dd:W64K:16M#1", "dd:W64K", 1);
	pk(&x[2], "dd:R64K:16M#1", "dd:R64K", 1);
	ta_pair(px, 3, py, 3, pair);
	assert_int_equal(pair[0], 0);
	assert_int_equal(pair[1], 1);
	assert_int_equal(pair[2], -1);
	/* three of a kind, none equal: by start order */
	pk(&x[0], "a:R4K:1M#1", "a:R4K", 1);
	pk(&x[1], "a:R4K:4M#1", "a:R4K", 2);
	pk(&x[2], "a:R4K:16M#1", "a:R4K", 3);
	pk(&y[0], "a:R4K:64M#3", "a:R4K", 30);
	pk(&y[1], "a:R4K:64M#1", "a:R4K", 10);
	pk(&y[2], "a:R4K:64M#2", "a:R4K", 20);
	ta_pair(px, 3, py, 3, pair);
	assert_int_equal(pair[0], 2);
	assert_int_equal(pair[1], 0);
	assert_int_equal(pair[2], 1);
	ta_pair(px, 0, py, 3, pair);
	assert_int_equal(pair[0], -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_union),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_pair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
