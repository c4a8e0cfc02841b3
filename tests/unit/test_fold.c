/* Unit tests of the stream of a run's events (analyze/fold.h): the stream
 * gives exactly a sort of every event of the kinds asked for by (time,
 * row, kind), each row's FOLD_ROW once and before its own events (rows
 * with no time at all included), with the row's whole request; fold_run()
 * gives each sink the kinds it asks for, in the same order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/evorder.h"
#include "analyze/fold.h"
#include "analyze/rundata.h"
#include "trace/blktrace_format.h"
#include "lib/util.h"
#include "tests/unit/ref_ev.h"
#include "tests/unit/xorshift.h"

#define NROWS 4000

/* x and y the same request, field by field (not their padding) */
static void same_io(const struct an_io *x, const struct an_io *y)
{
	assert_true(x->q == y->q && x->g == y->g && x->i == y->i &&
		    x->d == y->d && x->c == y->c && x->m == y->m &&
		    x->seek == y->seek);
	assert_true(x->sector == y->sector && x->dsector == y->dsector);
	assert_int_equal(x->bytes, y->bytes);
	assert_int_equal(x->dbytes, y->dbytes);
	assert_int_equal(x->pid, y->pid);
	assert_int_equal(x->dev, y->dev);
	assert_int_equal(x->flags, y->flags);
}

/* NROWS rows on three devices: Q nearly in order with many ties and a
 * few missing, D and C after it by a random service (so out of order),
 * some with no C, one in 100 with no time at all */
static void fixture(struct rundata *rd, struct an_io *io, uint64_t seed)
{
	const uint32_t devs[3] = { BT_MKDEV(8, 0), BT_MKDEV(8, 16),
				   BT_MKDEV(7, 0) };
	uint64_t s = seed;

	for (int i = 0; i < NROWS; i++) {
		int64_t q = 1000 * (int64_t)(i / 3) +
			    (int64_t)(xorshift64(&s) % 4) * 500;
		memset(&io[i], 0, sizeof(io[i]));
		io[i].dev = devs[xorshift64(&s) % 3];
		io[i].pid = (uint32_t)(xorshift64(&s) % 5);
		io[i].bytes = 4096u * (uint32_t)(1 + xorshift64(&s) % 8);
		io[i].sector = xorshift64(&s) % 100000;
		io[i].dsector = io[i].sector;
		io[i].dbytes = io[i].bytes;
		io[i].g = io[i].i = io[i].m = AN_NONE;
		io[i].q = xorshift64(&s) % 50 ? q : AN_NONE;
		io[i].d = q + (int64_t)(xorshift64(&s) % 4000);
		io[i].c = io[i].d + 1000 * (int64_t)(xorshift64(&s) % 6);
		if (xorshift64(&s) % 40 == 0)
			io[i].c = AN_NONE;
		if (xorshift64(&s) % 100 == 0)
			io[i].q = io[i].d = io[i].c = AN_NONE;
		io[i].flags = AN_HEAD;
	}
	rundata_of_ios(rd, NULL, io, NROWS);
}

/* Walks the stream of kinds and checks it against the sort. */
static void check_kinds(const struct rundata *rd, const struct evorder *o,
			unsigned kinds)
{
	struct ref_ev *ref = xmalloc(3 * NROWS * sizeof(*ref));
	unsigned char *seen = xcalloc(rd->n, 1);
	size_t n = 0, got = 0, rows = 0;
	struct fold f;
	struct fold_ev e;

	for (size_t i = 0; i < rd->n; i++)
		for (int k = 0; k < EV_NKIND; k++) {
			int64_t t = rundata_time(rd, i, k);
			if ((kinds & (1u << k)) && t != AN_NONE)
				ref[n++] = (struct ref_ev){ t, (uint32_t)i, k };
		}
	qsort(ref, n, sizeof(*ref), cmp_ref);
	fold_open(&f, rd, o, kinds);
	while (fold_next(&f, &e)) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, e.row, &xb);
		assert_true(e.row < rd->n);
		same_io(e.io, x);
		assert_int_equal(rd->devs[e.devk], x->dev);
		if (e.kind == FOLD_ROW) {
			assert_int_equal(seen[e.row], 0);
			seen[e.row] = 1;
			rows++;
			assert_true(e.t == x->q);
			continue;
		}
		/* a row's own events come after its FOLD_ROW */
		if (kinds & (1u << FOLD_ROW))
			assert_int_equal(seen[e.row], 1);
		assert_true(got < n);
		assert_int_equal(e.t, ref[got].t);
		assert_int_equal(e.row, ref[got].row);
		assert_int_equal(e.kind, ref[got].rank);
		got++;
	}
	assert_int_equal(got, n);
	assert_int_equal(rows, (kinds & (1u << FOLD_ROW)) ? rd->n : 0);
	assert_true(fold_peek(&f) == INT64_MAX);
	fold_close(&f);
	free(ref);
	free(seen);
}

static void test_order(void **state)
{
	static const unsigned masks[] = {
		1u << EV_Q | 1u << EV_D | 1u << EV_C,
		1u << EV_D,
		1u << EV_Q | 1u << EV_C,
		1u << FOLD_ROW,
		1u << FOLD_ROW | 1u << EV_Q | 1u << EV_D | 1u << EV_C,
	};
	struct an_io *io = xmalloc(NROWS * sizeof(*io));

	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct rundata rd;
		struct evorder o;
		fixture(&rd, io, seed * 0x9e3779b97f4a7c15ull);
		evorder_build(&o, &rd, 1u << EV_Q | 1u << EV_D | 1u << EV_C);
		for (size_t k = 0; k < sizeof(masks) / sizeof(masks[0]); k++)
			check_kinds(&rd, &o, masks[k]);
		evorder_free(&o);
		rundata_free(&rd);
	}
	free(io);
}

/* The same events, in the same order, with the same requests, from the
 * rows in memory and from the rows in a file, for every mix of kinds:
 * rows out of order on their device (a split's tail with an earlier Q, a
 * clock stepped back) and a row's own events out of order included. */
static void same_events(const struct rundata *a, const struct evorder *o,
			const struct rundata *b, unsigned kinds)
{
	struct fold fa, fb;
	struct fold_ev ea, eb;
	size_t n = 0;
	int ga, gb;

	fold_open(&fa, a, o, kinds);
	fold_open(&fb, b, NULL, kinds);
	for (;;) {
		assert_true(fold_peek(&fa) == fold_peek(&fb));
		ga = fold_next(&fa, &ea);
		gb = fold_next(&fb, &eb);
		assert_int_equal(ga, gb);
		if (!ga)
			break;
		assert_int_equal(ea.kind, eb.kind);
		assert_true(ea.t == eb.t);
		assert_int_equal(ea.row, eb.row);
		assert_int_equal(ea.devk, eb.devk);
		same_io(ea.io, eb.io);
		n++;
	}
	fold_close(&fa);
	fold_close(&fb);
	assert_true(n > 0);
}

static void test_file(void **state)
{
	static const unsigned masks[] = {
		1u << EV_Q | 1u << EV_D | 1u << EV_C,
		1u << EV_C,
		1u << FOLD_ROW,
		1u << FOLD_ROW | 1u << EV_Q | 1u << EV_D | 1u << EV_C,
	};
	struct an_io *io = xmalloc(NROWS * sizeof(*io));

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct rundata a, b;
		struct evorder o;
		uint64_t s = seed;
		fixture(&a, io, seed * 0x9e3779b97f4a7c15ull);
		rundata_free(&a);
		/* disorder: a few rows with a much earlier Q (a split's
		 * tail), and from seed 4 a clock stepped back 0.5 ms for a
		 * stretch; one in 50 kept whole (an escape: a far sector) */
		for (int i = 0; i < NROWS; i++) {
			if (xorshift64(&s) % 97 == 0 && io[i].q != AN_NONE)
				io[i].q -= 200000;
			if (seed >= 4 && i > NROWS / 3 && i < NROWS / 2) {
				if (io[i].q != AN_NONE)
					io[i].q -= 500000;
				if (io[i].d != AN_NONE)
					io[i].d -= 500000;
				if (io[i].c != AN_NONE)
					io[i].c -= 500000;
			}
			if (xorshift64(&s) % 50 == 0)
				io[i].dsector = io[i].sector + (1ull << 40);
			/* a row's own events out of their usual order (CPUs'
			 * clocks apart): D before Q, C before D */
			if (xorshift64(&s) % 61 == 0 && io[i].q != AN_NONE &&
			    io[i].d != AN_NONE) {
				int64_t t = io[i].q;
				io[i].q = io[i].d;
				io[i].d = t - 300;
			}
			if (xorshift64(&s) % 67 == 0 && io[i].d != AN_NONE &&
			    io[i].c != AN_NONE)
				io[i].c = io[i].d - 700;
		}
		rundata_of_ios(&a, NULL, io, NROWS);
		assert_true(a.nesc > 0);
		if (rundata_of_ios_file(&b, NULL, io, NROWS)) {
			rundata_free(&a);
			skip();
		}
		evorder_build(&o, &a, 1u << EV_Q | 1u << EV_D | 1u << EV_C);
		for (size_t k = 0; k < sizeof(masks) / sizeof(masks[0]); k++)
			same_events(&a, &o, &b, masks[k]);
		evorder_free(&o);
		rundata_free(&a);
		rundata_free(&b);
	}
	free(io);
}

/* a sink's record of what it was given */
struct rec {
	struct ref_ev *ev;
	size_t n;
};

static void rec_ev(void *ctx, const struct fold_ev *e)
{
	struct rec *r = ctx;

	r->ev[r->n++] = (struct ref_ev){ e->t, e->row, e->kind };
}

static void test_run(void **state)
{
	struct an_io *io = xmalloc(NROWS * sizeof(*io));
	struct rundata rd;
	struct evorder o;
	struct rec r[3];
	struct fold_sink s[3];
	struct fold f;
	struct fold_ev e;
	size_t j[3] = { 0, 0, 0 };
	const unsigned kinds[3] = { 1u << FOLD_ROW, 1u << EV_D,
				    1u << EV_Q | 1u << EV_C };

	(void)state;
	fixture(&rd, io, 77);
	evorder_build(&o, &rd, 1u << EV_Q | 1u << EV_D | 1u << EV_C);
	for (int k = 0; k < 3; k++) {
		r[k].ev = xmalloc(3 * NROWS * sizeof(*r[k].ev));
		r[k].n = 0;
		s[k] = (struct fold_sink){ rec_ev, &r[k], kinds[k] };
	}
	fold_run(&rd, &o, s, 3);
	/* each sink saw the events of its kinds, in the whole stream's order */
	fold_open(&f, &rd, &o, 1u << FOLD_ROW | 1u << EV_Q | 1u << EV_D |
		  1u << EV_C);
	while (fold_next(&f, &e))
		for (int k = 0; k < 3; k++)
			if (kinds[k] & (1u << e.kind)) {
				assert_true(j[k] < r[k].n);
				assert_int_equal(r[k].ev[j[k]].row, e.row);
				assert_int_equal(r[k].ev[j[k]].rank, e.kind);
				j[k]++;
			}
	for (int k = 0; k < 3; k++) {
		assert_int_equal(j[k], r[k].n);
		free(r[k].ev);
	}
	assert_int_equal(r[0].n, rd.n);
	fold_close(&f);
	evorder_free(&o);
	rundata_free(&rd);
	free(io);
}

/* The in-flight map against an array of every key: random adds, gets
 * and deletes, rows far apart and close, growing and emptying. */
static void test_map(void **state)
{
	enum { NKEY = 5000 };
	struct fold_map m;
	uint64_t s = 99;
	int *ref = xcalloc(NKEY, sizeof(*ref));     /* value + 1, 0: absent */
	size_t n = 0;

	(void)state;
	fold_map_init(&m, sizeof(int));
	for (int step = 0; step < 200000; step++) {
		uint32_t k = (uint32_t)(xorshift64(&s) % NKEY);
		uint32_t row = k * (k % 3 ? 1u : 65537u);
		int op = (int)(xorshift64(&s) % (step < 100000 ? 3 : 5));
		int *v;
		if (op == 0) {
			v = fold_map_get(&m, row, 1);
			if (!ref[k]) {
				assert_int_equal(*v, 0);
				n++;
			}
			*v = step;
			ref[k] = step + 1;
		} else if (op == 1) {
			v = fold_map_get(&m, row, 0);
			if (ref[k]) {
				assert_non_null(v);
				assert_int_equal(*v, ref[k] - 1);
			} else
				assert_null(v);
		} else {
			fold_map_del(&m, row);
			n -= ref[k] != 0;
			ref[k] = 0;
		}
		assert_int_equal(m.n, n);
	}
	for (uint32_t k = 0; k < NKEY; k++) {
		int *v = fold_map_get(&m, k * (k % 3 ? 1u : 65537u), 0);
		if (ref[k])
			assert_true(v && *v == ref[k] - 1);
		else
			assert_null(v);
	}
	fold_map_free(&m);
	free(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
