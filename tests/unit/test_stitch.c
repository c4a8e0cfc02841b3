/* Unit tests of request stitching on small event sequences whose pairing is
 * known: a plain read, a back merge, D-and-C-only and Q-and-C-only traces,
 * a zero-length flush, a split, a requeue, a completion with no request and
 * a remap origin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "trace/stitch.h"

#define MAXROWS 16

struct rows {
	int n;
	int64_t id[MAXROWS];
	struct store_request rq[MAXROWS];
};

static int collect(void *ctx, int64_t id, const struct store_request *rq)
{
	struct rows *r = ctx;

	assert_true(r->n < MAXROWS);
	r->id[r->n] = id;
	r->rq[r->n++] = *rq;
	return 0;
}

static void feed(struct stitch *s, unsigned code, uint32_t cats, uint64_t t,
		 uint64_t sector, uint32_t sectors)
{
	struct bt_event ev = {
		.time_ns = t, .sector = sector, .bytes = sectors * 512,
		.action = code | ((uint64_t)cats << 16), .pid = 100,
		.dev = BT_MKDEV(7, 0),
	};
	assert_int_equal(stitch_event(s, &ev), 0);
}

static void feed_pdu(struct stitch *s, unsigned code, uint64_t t,
		     uint64_t sector, uint32_t sectors, const uint8_t *pdu,
		     uint16_t len, uint32_t dev)
{
	struct bt_event ev = {
		.time_ns = t, .sector = sector, .bytes = sectors * 512,
		.action = code | ((uint64_t)BT_C_READ << 16), .pid = 100,
		.dev = dev, .pdu = pdu, .pdu_len = len,
	};
	assert_int_equal(stitch_event(s, &ev), 0);
}

static void test_plain(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);

	(void)state;
	feed(s, BT_A_QUEUE, BT_C_READ, 1000, 80, 8);
	feed(s, BT_A_GETRQ, BT_C_READ, 1100, 80, 8);
	feed(s, BT_A_INSERT, BT_C_READ, 1200, 80, 8);
	feed(s, BT_A_ISSUE, BT_C_READ, 1500, 80, 8);
	feed(s, BT_A_COMPLETE, BT_C_READ, 9500, 80, 8);
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.rq[0].q_ns, 1000);
	assert_int_equal(r.rq[0].g_ns, 1100);
	assert_int_equal(r.rq[0].i_ns, 1200);
	assert_int_equal(r.rq[0].d_ns, 1500);
	assert_int_equal(r.rq[0].c_ns, 9500);
	assert_int_equal(r.rq[0].d_head, 1);
	assert_int_equal(r.rq[0].bytes, 4096);
	assert_string_equal(r.rq[0].rwbs, "R");
	stitch_free(s);
}

static void test_back_merge(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 10);

	(void)state;
	feed(s, BT_A_QUEUE, BT_C_WRITE, 100, 0, 8);
	feed(s, BT_A_GETRQ, BT_C_WRITE, 110, 0, 8);
	feed(s, BT_A_QUEUE, BT_C_WRITE, 120, 8, 8);
	feed(s, BT_A_BACKMERGE, BT_C_WRITE, 130, 8, 8);
	feed(s, BT_A_INSERT, BT_C_WRITE, 140, 0, 16);
	feed(s, BT_A_ISSUE, BT_C_WRITE, 150, 0, 16);
	feed(s, BT_A_COMPLETE, BT_C_WRITE, 400, 0, 16);
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(r.n, 2);
	/* the G'd bio is the head; the merged one names it */
	assert_int_equal(r.rq[0].g_ns, 110);
	assert_int_equal(r.rq[0].merged_into, 0);
	assert_int_equal(r.rq[0].d_head, 1);
	assert_int_equal(r.rq[0].seek_sectors, 0);
	assert_int_equal(r.rq[1].m_ns, 130);
	assert_int_equal(r.rq[1].merged_into, r.id[0]);
	assert_int_equal(r.rq[1].d_head, 0);
	assert_int_equal(r.rq[1].c_ns, 400);
	assert_int_equal(r.rq[1].d_ns, 150);
	assert_int_equal(stitch_stats(s)->dispatches, 1);
	stitch_free(s);
}

static void test_d_and_c_only(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);

	(void)state;
	feed(s, BT_A_ISSUE, BT_C_READ, 0, 1000, 8);
	feed(s, BT_A_ISSUE, BT_C_READ, 10, 5000, 8);
	feed(s, BT_A_COMPLETE, BT_C_READ, 70, 1000, 8);
	feed(s, BT_A_COMPLETE, BT_C_READ, 90, 5000, 8);
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.rq[0].q_ns, STORE_NO_TIME);
	assert_int_equal(r.rq[0].d_ns, 0);     /* time 0 is a time */
	assert_int_equal(r.rq[0].c_ns, 70);
	assert_int_equal(r.rq[1].c_ns - r.rq[1].d_ns, 80);
	/* btt's D2D: from sector 0 to 1000, then from 1008 to 5000 */
	assert_int_equal(r.rq[0].seek_sectors, 1000);
	assert_int_equal(r.rq[1].seek_sectors, 5000 - 1008);
	assert_int_equal(stitch_stats(s)->orphan_d, 2);
	stitch_free(s);
}

static void test_q_and_c_only(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);

	(void)state;
	feed(s, BT_A_QUEUE, BT_C_READ, 5, 64, 8);
	feed(s, BT_A_COMPLETE, BT_C_READ, 25, 64, 8);
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.rq[0].c_ns - r.rq[0].q_ns, 20);
	assert_int_equal(r.rq[0].d_ns, STORE_NO_TIME);
	stitch_free(s);
}

static void test_flush(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);

	(void)state;
	feed(s, BT_A_QUEUE, BT_C_FLUSH | BT_C_WRITE, 10, 575480384, 0);
	feed(s, BT_A_GETRQ, BT_C_FLUSH | BT_C_WRITE, 11, 0, 0);
	feed(s, BT_A_ISSUE, BT_C_FLUSH, 20, 0, 0);
	feed(s, BT_A_COMPLETE, BT_C_FLUSH, 90, 0, 0);
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.rq[0].bytes, 0);
	assert_int_equal(r.rq[0].d_ns, 20);
	assert_int_equal(r.rq[0].c_ns, 90);
	assert_int_equal(r.rq[0].has_seek, 0);   /* never a position */
	stitch_free(s);
}

static void test_split(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);
	uint8_t at[8] = { 0, 0, 0, 0, 0, 0, 0, 8 };

	(void)state;
	feed(s, BT_A_QUEUE, BT_C_READ, 10, 0, 16);
	feed_pdu(s, BT_A_SPLIT, 11, 0, 8, at, 8, BT_MKDEV(7, 0));
	feed(s, BT_A_ISSUE, BT_C_READ, 20, 0, 8);
	feed(s, BT_A_ISSUE, BT_C_READ, 21, 8, 8);
	feed(s, BT_A_COMPLETE, BT_C_READ, 50, 0, 8);
	feed(s, BT_A_COMPLETE, BT_C_READ, 60, 8, 8);
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.rq[0].split, 1);
	assert_int_equal(r.rq[1].split, 1);
	assert_int_equal(r.rq[0].bytes + r.rq[1].bytes, 16 * 512);
	assert_int_equal(r.rq[1].split_from, r.id[0]);
	assert_int_equal(r.rq[1].c_ns, 60);
	stitch_free(s);
}

static void test_requeue_and_unmatched(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);

	(void)state;
	feed(s, BT_A_COMPLETE, BT_C_WRITE, 1, 777, 8);  /* began before trace */
	feed(s, BT_A_QUEUE, BT_C_WRITE, 10, 0, 8);
	feed(s, BT_A_ISSUE, BT_C_WRITE, 20, 0, 8);
	feed(s, BT_A_REQUEUE, BT_C_WRITE, 30, 0, 8);
	feed(s, BT_A_ISSUE, BT_C_WRITE, 40, 0, 8);
	feed(s, BT_A_COMPLETE, BT_C_WRITE, 45, 0, 8);
	feed(s, BT_A_QUEUE, BT_C_WRITE, 50, 64, 8);     /* never completes */
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(stitch_stats(s)->unmatched_c, 1);
	assert_int_equal(stitch_stats(s)->c_only, 1);
	assert_int_equal(stitch_stats(s)->pending_end, 1);
	assert_int_equal(stitch_stats(s)->requeued_seeks, 1);
	assert_int_equal(r.n, 4);
	/* the early completion: a row of C time only */
	assert_int_equal(r.rq[0].q_ns, STORE_NO_TIME);
	assert_int_equal(r.rq[0].d_ns, STORE_NO_TIME);
	assert_int_equal(r.rq[0].c_ns, 1);
	/* the requeued dispatch's D2D seek, kept in a row of its own */
	assert_int_equal(r.rq[1].has_seek, 1);
	assert_int_equal(r.rq[1].d_head, 0);
	assert_int_equal(r.rq[1].bytes, 0);
	assert_int_equal(r.rq[1].merged_into, r.id[2]);
	assert_int_equal(r.rq[2].requeues, 1);
	assert_int_equal(r.rq[2].d_ns, 40);
	assert_int_equal(r.rq[2].has_seek, 1);
	assert_int_equal(r.rq[3].c_ns, STORE_NO_TIME);
	stitch_free(s);
}

static void test_remap_origin(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);
	/* dm 253,0 sector 100 -> partition 8,2 sector 600 -> disk 8,0 sector 2648 */
	uint8_t a1[16] = { 0x0f, 0xd0, 0, 0, 0x00, 0x80, 0, 2, 0, 0, 0, 0, 0, 0, 0, 100 };
	uint8_t a2[16] = { 0x00, 0x80, 0, 2, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x58 };

	(void)state;
	feed_pdu(s, BT_A_REMAP, 1, 600, 8, a1, 16, BT_MKDEV(8, 2));
	feed_pdu(s, BT_A_REMAP, 2, 2648, 8, a2, 16, BT_MKDEV(8, 0));
	feed_pdu(s, BT_A_QUEUE, 3, 2648, 8, NULL, 0, BT_MKDEV(8, 0));
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.rq[0].has_orig, 1);
	assert_int_equal(r.rq[0].orig_dev, BT_MKDEV(253, 0));
	assert_int_equal(r.rq[0].orig_sector, 100);
	stitch_free(s);
}

/* A clock step while I/O is in flight: the I/O ends there, never a
 * latency of the step's size; the step is counted. */
static void test_clock_step(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);
	const uint64_t hour = 3600ull * 1000000000;

	(void)state;
	feed(s, BT_A_QUEUE, BT_C_READ, 100, 0, 8);
	feed(s, BT_A_ISSUE, BT_C_READ, 200, 0, 8);
	feed(s, BT_A_COMPLETE, BT_C_READ, 2 * hour, 0, 8);   /* step ahead */
	feed(s, BT_A_QUEUE, BT_C_READ, 2 * hour + 10, 8, 8);
	feed(s, BT_A_COMPLETE, BT_C_READ, 5, 8, 8);          /* step back */
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(stitch_stats(s)->clock_jumps, 2);
	assert_int_equal(stitch_stats(s)->jump_abandoned, 2);
	assert_int_equal(stitch_stats(s)->unmatched_c, 2);
	assert_int_equal(r.n, 4);
	/* in flight at each step: ended there; the Cs after: C-only rows */
	assert_int_equal(r.rq[0].c_ns, STORE_NO_TIME);
	assert_int_equal(r.rq[1].q_ns, STORE_NO_TIME);
	assert_int_equal(r.rq[2].c_ns, STORE_NO_TIME);
	assert_int_equal(r.rq[3].q_ns, STORE_NO_TIME);
	stitch_free(s);
}

/* A lost completion, then a new bio at the same start sector: the old one
 * ends never completed, the new one pairs with the C (btt since 2016). */
static void test_replace(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);

	(void)state;
	feed(s, BT_A_QUEUE, BT_C_WRITE, 10, 64, 8);
	feed(s, BT_A_ISSUE, BT_C_WRITE, 20, 64, 8);
	feed(s, BT_A_QUEUE, BT_C_WRITE, 5000, 64, 8);
	feed(s, BT_A_ISSUE, BT_C_WRITE, 5005, 64, 8);
	feed(s, BT_A_COMPLETE, BT_C_WRITE, 5051, 64, 8);
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(stitch_stats(s)->dup_q, 1);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.rq[0].q_ns, 10);
	assert_int_equal(r.rq[0].c_ns, STORE_NO_TIME);
	assert_int_equal(r.rq[1].q_ns, 5000);
	assert_int_equal(r.rq[1].c_ns, 5051);
	stitch_free(s);
}

/* A bio nested inside another in flight: each pairs with its own G, D and
 * C (exact ranges first), whichever completes first. */
static void test_nested(void **state)
{
	for (int outer_first = 0; outer_first < 2; outer_first++) {
		struct rows r = { 0 };
		struct stitch *s = stitch_new(collect, &r, 1);

		(void)state;
		feed(s, BT_A_QUEUE, BT_C_WRITE, 10, 2000, 64);
		feed(s, BT_A_QUEUE, BT_C_WRITE, 20, 2008, 8);
		feed(s, BT_A_GETRQ, BT_C_WRITE, 21, 2008, 8);
		feed(s, BT_A_GETRQ, BT_C_WRITE, 22, 2000, 64);
		feed(s, BT_A_ISSUE, BT_C_WRITE, 30, 2000, 64);
		feed(s, BT_A_ISSUE, BT_C_WRITE, 31, 2008, 8);
		feed(s, BT_A_COMPLETE, BT_C_WRITE, 300, outer_first ? 2000 : 2008,
		     outer_first ? 64 : 8);
		feed(s, BT_A_COMPLETE, BT_C_WRITE, 400, outer_first ? 2008 : 2000,
		     outer_first ? 8 : 64);
		assert_int_equal(stitch_finish(s), 0);
		assert_int_equal(r.n, 2);
		for (int i = 0; i < 2; i++) {
			int outer = r.rq[i].sector == 2000;
			assert_int_equal(r.rq[i].g_ns, outer ? 22 : 21);
			assert_int_equal(r.rq[i].d_ns, outer ? 30 : 31);
			assert_int_equal(r.rq[i].c_ns, outer == outer_first ? 300 : 400);
			assert_int_equal(r.rq[i].merged_into, 0);
		}
		assert_int_equal(stitch_stats(s)->unmatched_c, 0);
		assert_int_equal(stitch_stats(s)->unmatched_gim, 0);
		stitch_free(s);
	}
}

/* A flush bio as kernels 5.x and 6.x trace it: Q FWS (no size), D FN,
 * C FN, then the bio's own C WS: one row, ended at the bio's C. */
static void test_flush_sequence(void **state)
{
	struct rows r = { 0 };
	struct stitch *s = stitch_new(collect, &r, 1);

	(void)state;
	feed(s, BT_A_QUEUE, BT_C_FLUSH | BT_C_WRITE | BT_C_SYNC, 10, 500, 0);
	feed(s, BT_A_ISSUE, BT_C_FLUSH, 20, 0, 0);
	feed(s, BT_A_COMPLETE, BT_C_FLUSH | BT_C_READ, 700, 0, 0);
	feed(s, BT_A_COMPLETE, BT_C_WRITE | BT_C_SYNC, 704, 500, 0);
	assert_int_equal(stitch_finish(s), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.rq[0].q_ns, 10);
	assert_int_equal(r.rq[0].d_ns, 20);
	assert_int_equal(r.rq[0].c_ns, 704);
	assert_int_equal(stitch_stats(s)->unmatched_c, 0);
	assert_int_equal(stitch_stats(s)->pending_end, 0);
	stitch_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_back_merge),
		cmocka_unit_test(test_d_and_c_only),
		cmocka_unit_test(test_q_and_c_only),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_requeue_and_unmatched),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_flush_sequence),
		cmocka_unit_test(test_remap_origin),
		cmocka_unit_test(test_clock_step),
	};
	return cmocka_run_group_tests_name("stitch", tests, NULL, NULL);
}
