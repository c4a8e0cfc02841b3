/* Unit tests of the rows file (analyze/rowfile.h): rows written by two
 * writers in ranges of ids that the writers took in turn, in any order,
 * come back by device in the order of their ids, as one writer writing
 * them all in order leaves them, with the same lateness per device (how
 * far a row's first time falls behind the latest before it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/rowfile.h"
#include "lib/util.h"
#include "tests/unit/xorshift.h"

#define NROWS 20000
#define NDEV 3
#define NRANGE 8

/* NROWS rows by id: each on one of NDEV devices, its first time rising
 * with the id but for one in 50, up to 3 ms early (a split's tail, a
 * clock behind), and from one in 7 ranges a stretch 40 ms early (a clock
 * stepped back) */
static void make(struct an_row *r, uint64_t seed)
{
	uint64_t s = seed;

	memset(r, 0, NROWS * sizeof(*r));
	for (int i = 0; i < NROWS; i++) {
		r[i].t = 1000000000 + 10000 * (int64_t)i;
		if (xorshift64(&s) % 50 == 0)
			r[i].t -= (int64_t)(xorshift64(&s) % 3000000);
		if (i > NROWS / 2 && i < NROWS / 2 + NROWS / NRANGE / 3)
			r[i].t -= 40000000;
		r[i].sector = (uint64_t)i;           /* the id, to check */
		r[i].dev = (uint16_t)(xorshift64(&s) % NDEV);
	}
}

/* Range k's ids: [k * NROWS / NRANGE, (k + 1) * NROWS / NRANGE) */
static void write_range(struct rf_writer *w, const struct an_row *r, int k)
{
	assert_int_equal(rf_writer_range(w, k), 0);
	for (int i = k * NROWS / NRANGE; i < (k + 1) * NROWS / NRANGE; i++)
		assert_int_equal(rf_writer_add(w, &r[i], r[i].t), 0);
}

/* f's rows of each device, in order, against r's */
static void check(const struct rowfile *f, const struct an_row *r)
{
	size_t total = 0;

	assert_int_equal(f->ndev, NDEV);
	for (size_t k = 0; k < NDEV; k++) {
		struct rf_reader rd;
		struct an_row x;
		int i = 0, got;
		rf_reader_init(&rd, f, k);
		while ((got = rf_reader_next(&rd, &x)) == 1) {
			while (i < NROWS && r[i].dev != k)
				i++;
			assert_true(i < NROWS);
			assert_int_equal(x.sector, r[i].sector);
			assert_true(x.t == r[i].t);
			assert_int_equal(x.dev, k);
			i++;
			total++;
		}
		assert_int_equal(got, 0);
		while (i < NROWS && r[i].dev != k)
			i++;
		assert_int_equal(i, NROWS);          /* none left out */
		rf_reader_free(&rd);
	}
	assert_int_equal(total, NROWS);
}

static void test_ranges(void **state)
{
	/* the ranges each writer takes, in the order it takes them */
	static const int take[3][2][NRANGE + 1] = {
		{ { 0, 2, 3, 6, -1 }, { 1, 4, 5, 7, -1 } },
		{ { 0, 1, 2, 3, 4, 5, 6, 7, -1 }, { -1 } },
		{ { 7, 1, 4, -1 }, { 6, 0, 3, 2, 5, -1 } },  /* out of order */
	};
	struct an_row *r = xmalloc(NROWS * sizeof(*r));

	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct rowfile ref;
		struct rf_writer w1;
		make(r, seed * 0x9e3779b97f4a7c15ull);
		/* one writer, every row in order, no ranges: as before */
		if (rowfile_open(&ref))
			skip();
		rf_writer_init(&w1, &ref);
		for (int i = 0; i < NROWS; i++)
			assert_int_equal(rf_writer_add(&w1, &r[i], r[i].t), 0);
		assert_int_equal(rf_writer_flush(&w1), 0);
		rowfile_join(&ref, &w1, 1, NDEV);
		check(&ref, r);
		for (int t = 0; t < 3; t++) {
			struct rowfile f;
			struct rf_writer w[2];
			assert_int_equal(rowfile_open(&f), 0);
			for (int p = 0; p < 2; p++) {
				rf_writer_init(&w[p], &f);
				for (int j = 0; take[t][p][j] >= 0; j++)
					write_range(&w[p], r, take[t][p][j]);
				assert_int_equal(rf_writer_flush(&w[p]), 0);
			}
			rowfile_join(&f, w, 2, NDEV);
			check(&f, r);
			for (size_t k = 0; k < NDEV; k++) {
				assert_int_equal(f.dev[k].rows, ref.dev[k].rows);
				assert_true(f.dev[k].late == ref.dev[k].late);
				assert_true(f.dev[k].maxfirst == ref.dev[k].maxfirst);
			}
			rowfile_close(&f);
		}
		rowfile_close(&ref);
	}
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
