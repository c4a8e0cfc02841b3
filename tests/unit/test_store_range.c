/* Unit tests of the store cursors' range (store_requests_open_range,
 * store_events_open_range; schema/store.h): a request counts by its first
 * time (Q, else D, else C), an event by its time; devices filter both; the
 * columns a range needs are filled even when not asked for. Real SQLite
 * file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "schema/store.h"

#define NO STORE_NO_TIME

static struct store_request rq(uint32_t dev, int64_t q, int64_t d, int64_t c)
{
	struct store_request r = {
		.dev = dev, .sector = 8, .bytes = 4096, .rwbs = "R",
		.cats = BT_C_READ, .pid = 1, .q_ns = q, .g_ns = NO, .m_ns = NO,
		.i_ns = NO, .d_ns = d, .c_ns = c,
	};
	return r;
}

/* ids (from 0) of the requests the range keeps, as "0 2 3" */
static void kept(struct store *st, int64_t run, int64_t id0,
		 const struct store_range *r, unsigned cols, const char *want)
{
	struct store_cursor *cur;
	struct store_request got;
	char buf[64] = "";
	int64_t id;
	int n = 0;

	assert_int_equal(store_requests_open_range(st, run, STORE_RQ_FIRST, cols,
						   r, &cur), 0);
	while (store_requests_next(cur, &got, &id) > 0)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%d", n ? " " : "",
			      (int)(id - id0));
	store_cursor_close(cur);
	assert_string_equal(buf, want);
}

static void test_range(void **state)
{
	const struct run_info ri = { .name = "r", .kind = "import" };
	const uint32_t sda = BT_MKDEV(8, 0), sdb = BT_MKDEV(8, 16);
	struct store *st = NULL;
	struct store_cursor *cur;
	struct store_request got;
	struct bt_event ev;
	char path[4096];
	int64_t run, id0, id;
	int fd, n;

	(void)state;
	snprintf(path, sizeof(path), "%s/iotape-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(store_open(&st, path, 1), 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_run_create(st, &ri, &run), 0);
	for (int i = 0; i < 10; i++) {
		struct bt_event e = { .time_ns = 100 * (uint64_t)i,
				      .action = BT_A_QUEUE | (uint64_t)BT_C_READ << 16,
				      .dev = i % 2 ? sdb : sda };
		assert_int_equal(store_event_add(st, run, &e), 0);
	}
	assert_int_equal(store_run_finish(st, run, "complete", 0), 0);
	assert_int_equal(store_next_request_id(st, &id0), 0);
	{
		struct store_request r[5] = {
			rq(sda, 100, 150, 900),   /* 0: Q in [100, 300) */
			rq(sda, 50, 200, 250),    /* 1: Q before, D and C in */
			rq(sdb, NO, 120, 130),    /* 2: no Q: by D */
			rq(sda, NO, NO, 299),     /* 3: C only */
			rq(sda, 300, 310, 320),   /* 4: Q at the end: out */
		};
		for (int i = 0; i < 5; i++)
			assert_int_equal(store_request_add(st, run, id0 + i, &r[i]), 0);
	}
	assert_int_equal(store_commit(st), 0);

	{
		struct store_range all = { INT64_MIN, INT64_MAX, NULL, 0 };
		struct store_range win = { 100, 300, NULL, 0 };
		const uint32_t only_sdb[] = { sdb };
		struct store_range dev = { INT64_MIN, INT64_MAX, only_sdb, 1 };
		struct store_range both = { 100, 300, only_sdb, 1 };
		uint32_t many[STORE_RANGE_MAX_DEVS + 1] = { 0 };
		struct store_range bad = { INT64_MIN, INT64_MAX, many,
					   STORE_RANGE_MAX_DEVS + 1 };

		kept(st, run, id0, NULL, STORE_RQ_DEV, "1 0 2 3 4");
		kept(st, run, id0, &all, STORE_RQ_DEV, "1 0 2 3 4");
		kept(st, run, id0, &win, STORE_RQ_DEV, "0 2 3");
		kept(st, run, id0, &dev, STORE_RQ_DEV, "2");
		kept(st, run, id0, &both, 0, "2");
		/* the range's columns are filled though not asked for */
		assert_int_equal(store_requests_open_range(st, run, STORE_RQ_FIRST,
							   STORE_RQ_BYTES, &win, &cur), 0);
		assert_int_equal(store_requests_next(cur, &got, &id), 1);
		assert_int_equal(got.dev, sda);
		assert_true(got.q_ns == 100 && got.d_ns == 150 && got.c_ns == 900 &&
			    got.bytes == 4096);
		store_cursor_close(cur);
		assert_int_equal(store_requests_open_range(st, run, STORE_RQ_FIRST, 0,
							   &bad, &cur),
				 -STORE_E_SQLITE);
		assert_null(cur);
		assert_non_null(strstr(store_errmsg(st), "devices"));

		/* events: by time in [100, 300) and device */
		assert_int_equal(store_events_open_range(st, run, &win, &cur), 0);
		for (n = 0; store_events_next(cur, &ev) > 0; n++)
			assert_true(ev.time_ns == 100 + 100 * (uint64_t)n);
		assert_int_equal(n, 2);
		store_cursor_close(cur);
		assert_int_equal(store_events_open_range(st, run, &dev, &cur), 0);
		for (n = 0; store_events_next(cur, &ev) > 0; n++)
			assert_int_equal(ev.dev, sdb);
		assert_int_equal(n, 5);
		store_cursor_close(cur);
	}
	store_close(st);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
