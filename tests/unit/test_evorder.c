/* Unit tests of the shared event orders (analyze/evorder.h): a device's
 * walk by each time gives exactly a sort of its rows by (time, row), for
 * rows in order, nearly in order and shuffled, with ties and times not
 * seen; merged walks give a sort of every kept event by (time, row, rank),
 * as the analyzers' own sorts of listed events did. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/evorder.h"
#include "analyze/rundata.h"
#include "trace/blktrace_format.h"
#include "lib/util.h"
#include "tests/unit/ref_ev.h"

#define NROWS 3000

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* NROWS rows on three devices: Q in order (with a few missing), D nearly
 * in order, C shuffled with many ties; style 1 puts every time in order,
 * style 2 steps the clock back halfway (two runs in order) */
static void fixture(struct rundata *rd, struct an_io *io, int style)
{
	const uint32_t devs[3] = { BT_MKDEV(8, 0), BT_MKDEV(8, 16),
				   BT_MKDEV(7, 0) };
	uint32_t s = 12345u + (uint32_t)style;

	for (int i = 0; i < NROWS; i++) {
		int64_t q = 1000 * (int64_t)(style == 2 ? i % (NROWS / 2) : i);
		memset(&io[i], 0, sizeof(io[i]));
		io[i].dev = devs[rnd(&s) % 3];
		io[i].pid = rnd(&s) % 4;
		io[i].bytes = rnd(&s) % 5 ? 4096 : 0;
		io[i].g = io[i].i = io[i].m = AN_NONE;
		io[i].q = rnd(&s) % 50 ? q : AN_NONE;
		io[i].d = q + (style == 1 ? 10 : (int64_t)(rnd(&s) % 3000));
		io[i].c = style == 1 ? q + 20 : q + 500 * (int64_t)(rnd(&s) % 20);
		if (rnd(&s) % 40 == 0)
			io[i].c = AN_NONE;
		io[i].flags = AN_HEAD;
	}
	rundata_of_ios(rd, NULL, io, NROWS);
}

static void check_walks(const struct rundata *rd, const struct evorder *o)
{
	struct ref_ev *ref = xmalloc(NROWS * sizeof(*ref));

	for (size_t dk = 0; dk < rd->ndevs; dk++)
		for (int k = 0; k < EV_NKIND; k++) {
			struct ev_it it;
			size_t n = 0, got = 0;
			uint32_t row;
			int64_t t;
			for (size_t i = rd->dev_first[dk]; i < rd->dev_first[dk + 1]; i++)
				if (rundata_time(rd, i, k) != AN_NONE)
					ref[n++] = (struct ref_ev){
						rundata_time(rd, i, k), (uint32_t)i, 0 };
			qsort(ref, n, sizeof(*ref), cmp_ref);
			assert_int_equal(o->dev[dk].n[k], n);
			ev_it_init(&it, o, dk, k);
			while (ev_it_next(&it, &row, &t)) {
				assert_true(got < n);
				assert_int_equal(row, ref[got].row);
				assert_int_equal(t, ref[got].t);
				got++;
			}
			assert_int_equal(got, n);
		}
	free(ref);
}

/* keep(): rows of pid 1 with data, and for rank 3 (the fixed walk) all */
static int keep_pid1(const void *ctx, uint32_t row, int rank)
{
	const struct rundata *rd = ctx;

	return rank == 3 || (rundata_pid(rd, row) == 1 && rundata_bytes(rd, row));
}

static void check_merge(const struct rundata *rd, const struct evorder *o)
{
	struct ref_ev *ref = xmalloc(4 * NROWS * sizeof(*ref));
	uint32_t *never = xmalloc(NROWS * sizeof(*never));

	for (size_t dk = 0; dk < rd->ndevs; dk++) {
		struct ev_it it[4];
		struct ev_merge m;
		size_t n = 0, nn = 0, got = 0;
		uint32_t row;
		int64_t t, end = 1000 * (int64_t)NROWS / 2;
		int rank;
		for (size_t i = rd->dev_first[dk]; i < rd->dev_first[dk + 1]; i++) {
			if (!keep_pid1(rd, (uint32_t)i, 0))
				continue;
			for (int k = 0; k < EV_NKIND; k++)
				if (rundata_time(rd, i, k) != AN_NONE)
					ref[n++] = (struct ref_ev){
						rundata_time(rd, i, k), (uint32_t)i, k };
			if (rundata_c(rd, i) == AN_NONE) {
				never[nn++] = (uint32_t)i;
				ref[n++] = (struct ref_ev){ end, (uint32_t)i, 3 };
			}
		}
		qsort(ref, n, sizeof(*ref), cmp_ref);
		for (int k = 0; k < EV_NKIND; k++)
			ev_it_init(&it[k], o, dk, k);
		ev_it_fixed(&it[3], rd, never, nn, end);
		ev_merge_init(&m, it, 4, keep_pid1, rd);
		while (ev_merge_next(&m, &row, &t, &rank)) {
			assert_true(got < n);
			assert_int_equal(row, ref[got].row);
			assert_int_equal(t, ref[got].t);
			assert_int_equal(rank, ref[got].rank);
			got++;
		}
		assert_int_equal(got, n);
	}
	free(ref);
	free(never);
}

static void run_style(int style)
{
	struct an_io *io = xmalloc(NROWS * sizeof(*io));
	struct rundata rd;
	struct evorder o, half;

	fixture(&rd, io, style);
	evorder_build(&o, &rd, 1u << EV_Q | 1u << EV_D | 1u << EV_C);
	check_walks(&rd, &o);
	check_merge(&rd, &o);
	/* built in two goes (two threads), the same orders */
	evorder_build(&half, &rd, 1u << EV_Q);
	evorder_add(&half, 1u << EV_D | 1u << EV_C);
	check_walks(&rd, &half);
	{
		/* in order: nothing kept apart; else some (the merge tested) */
		size_t out = 0;
		for (size_t dk = 0; dk < rd.ndevs; dk++)
			for (int k = 0; k < EV_NKIND; k++)
				out += o.dev[dk].nout[k];
		if (style == 1)
			assert_int_equal(out, 0);
		else
			assert_true(out > 0);
	}
	evorder_free(&o);
	evorder_free(&half);
	rundata_free(&rd);
	free(io);
}

static void test_shuffled(void **state)
{
	(void)state;
	run_style(0);
}

static void test_in_order(void **state)
{
	(void)state;
	run_style(1);
}

static void test_clock_step(void **state)
{
	(void)state;
	run_style(2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shuffled),
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_clock_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
