/* Unit tests of how rundata keeps a run's requests (analyze/rundata.h): the
 * 56-byte rows round-trip every field, the rows that do not fit one (far
 * offsets, a G and a merge, far sectors, wide seeks) go whole to the escape
 * table, and a run read from a real SQLite file in two parts at once comes
 * out as the store's own cursor gives it, row for row. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/fold.h"
#include "analyze/rundata.h"
#include "analyze/runview.h"
#include "trace/blktrace_format.h"
#include "schema/store.h"

#define N AN_NONE

static struct an_io io(int64_t q, int64_t g, int64_t m, int64_t i, int64_t d,
		       int64_t c)
{
	struct an_io x = {
		.q = q, .g = g, .i = i, .d = d, .c = c, .m = m, .seek = -77,
		.sector = 123456789, .dsector = 123456700, .bytes = 4096,
		.dbytes = 65536, .pid = 4242, .dev = BT_MKDEV(8, 16),
		.flags = AN_WRITE | AN_HEAD | AN_HAS_SEEK | AN_SPLIT_TAIL,
	};
	return x;
}

static void assert_io_equal(const struct an_io *a, const struct an_io *b)
{
	assert_int_equal(a->q, b->q);
	assert_int_equal(a->g, b->g);
	assert_int_equal(a->i, b->i);
	assert_int_equal(a->d, b->d);
	assert_int_equal(a->c, b->c);
	assert_int_equal(a->m, b->m);
	assert_int_equal(a->seek, b->seek);
	assert_int_equal(a->sector, b->sector);
	assert_int_equal(a->dsector, b->dsector);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->dbytes, b->dbytes);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->dev, b->dev);
	assert_int_equal(a->flags, b->flags);
}

/* packs x (expecting fits: 0, or -1 for the escape), and when it fits,
 * unpacks it over 0xff bytes and compares field by field */
static void round_trip(const struct an_io *x, int fits)
{
	struct an_row r;
	struct an_io y;

	memset(&r, 0xff, sizeof(r));
	assert_int_equal(an_row_pack(&r, x, 3), fits ? 0 : -1);
	/* what a row says even when it escapes */
	assert_int_equal(r.dev, 3);
	assert_int_equal(r.pid, x->pid);
	assert_int_equal(r.flags & AN_FLAGS_ALL, x->flags);
	assert_int_equal(r.sector, x->sector);
	assert_int_equal(r.bytes, x->bytes);
	assert_int_equal(r.dbytes, x->dbytes);
	if (!fits)
		return;
	memset(&y, 0xff, sizeof(y));
	an_row_unpack(&r, x->dev, &y);
	assert_io_equal(x, &y);
}

static void test_row_round_trip(void **state)
{
	const int64_t t = 1700000000123456789ll, big = 4294967294ll;
	struct an_io x;

	(void)state;
	assert_int_equal(sizeof(struct an_row), 56);
	x = io(t, t + 10, N, t + 20, t + 30, t + 40);
	round_trip(&x, 1);
	/* a merged bio: the merge in G's place */
	x = io(t, N, t + 5, N, t + 30, t + 40);
	round_trip(&x, 1);
	/* every time but Q missing, and none at all */
	x = io(t, N, N, N, N, N);
	round_trip(&x, 1);
	x = io(N, N, N, N, N, N);
	round_trip(&x, 1);
	/* no Q: D and C only, C only, G before D; the base is the earliest */
	x = io(N, N, N, N, t, t + 9);
	round_trip(&x, 1);
	x = io(N, N, N, N, N, t);
	round_trip(&x, 1);
	x = io(N, t + 3, N, N, t + 1, t + 2);
	round_trip(&x, 1);
	/* the largest offset that fits, and one more */
	x = io(t, N, N, N, t + big, t + big);
	round_trip(&x, 1);
	x = io(t, N, N, N, t + big, t + big + 1);
	round_trip(&x, 0);
	/* offsets below the base (a clock step), a G and a merge both */
	x = io(t, t - 1, N, N, t + 30, t + 40);
	round_trip(&x, 0);
	x = io(t, t + 1, t + 2, N, t + 30, t + 40);
	round_trip(&x, 0);
	/* times at the ends of the range, no Q */
	x = io(N, N, N, N, INT64_MIN + 1, INT64_MAX);
	round_trip(&x, 0);
	x = io(INT64_MAX - 5, N, N, N, INT64_MAX, N);
	round_trip(&x, 1);
	/* dispatch sectors and seeks: in 32 bits both ways, and beyond */
	x = io(t, N, N, N, t, t);
	x.dsector = x.sector + INT32_MAX;
	round_trip(&x, 1);
	x.dsector = x.sector - (uint64_t)INT32_MAX - 1;
	round_trip(&x, 1);
	x.dsector = x.sector + (uint64_t)INT32_MAX + 1;
	round_trip(&x, 0);
	x = io(t, N, N, N, t, t);
	x.sector = UINT64_MAX;      /* a flush with no position */
	x.dsector = 0;
	round_trip(&x, 1);
	x.seek = INT32_MIN;
	round_trip(&x, 1);
	x.seek = (int64_t)INT32_MAX + 1;
	round_trip(&x, 0);
	x.seek = -5000000000ll;
	round_trip(&x, 0);
	/* every flag */
	x = io(t, N, N, N, t, t);
	x.flags = AN_FLAGS_ALL;
	round_trip(&x, 1);
}

/* rundata_of_ios(): rows by device, each device's in the given order; the
 * escapes read back through rundata_io() and the one-field accessors */
static void test_of_ios(void **state)
{
	const int64_t t = 5000000000ll;
	const uint32_t a = BT_MKDEV(8, 16), b = BT_MKDEV(8, 0);
	struct an_io in[6], xb;
	const size_t want[6] = { 1, 3, 4, 0, 2, 5 };  /* b's rows, then a's */
	struct rundata rd;

	(void)state;
	for (int i = 0; i < 6; i++) {
		in[i] = io(t + i, N, N, N, t + 100 * i, t + 1000 * i);
		in[i].dev = i == 1 || i == 3 || i == 4 ? b : a;
		in[i].pid = (uint32_t)i;
	}
	in[3].c = t + 3 + 5000000000ll;          /* escapes */
	in[2].g = in[2].m = t + 7;               /* escapes */
	rundata_of_ios(&rd, NULL, in, 6);
	assert_int_equal(rd.n, 6);
	assert_int_equal(rd.ndevs, 2);
	assert_int_equal(rd.devs[0], b);
	assert_int_equal(rd.devs[1], a);
	assert_int_equal(rd.dev_first[0], 0);
	assert_int_equal(rd.dev_first[1], 3);
	assert_int_equal(rd.dev_first[2], 6);
	assert_int_equal(rd.nesc, 2);
	assert_int_equal(rundata_dev_index(&rd, a), 1);
	assert_int_equal(rundata_dev_index(&rd, BT_MKDEV(9, 0)), -1);
	for (size_t i = 0; i < 6; i++) {
		const struct an_io *x = rundata_io(&rd, i, &xb);
		assert_io_equal(x, &in[want[i]]);
		assert_int_equal(rundata_q(&rd, i), in[want[i]].q);
		assert_int_equal(rundata_d(&rd, i), in[want[i]].d);
		assert_int_equal(rundata_c(&rd, i), in[want[i]].c);
		assert_int_equal(rundata_dev(&rd, i), in[want[i]].dev);
		assert_int_equal(rundata_pid(&rd, i), in[want[i]].pid);
		assert_int_equal(rundata_flags(&rd, i), in[want[i]].flags);
		assert_int_equal(rundata_bytes(&rd, i), in[want[i]].bytes);
		assert_int_equal(rundata_dbytes(&rd, i), in[want[i]].dbytes);
		assert_int_equal(rundata_sector(&rd, i), in[want[i]].sector);
	}
	rundata_free(&rd);
}

/* A run of NRQ requests on three devices, interleaved, some that escape:
 * rundata_load_parts() with one part and with two must give the rows of
 * the store's cursor by device (STORE_RQ_ALL), in its order; and so must
 * the rows read into a temporary file by two readers taking ranges of
 * ids in turn (rundata_load_to()), walked as a stream (FOLD_ROW). */
#define NRQ 60000

static void test_load_parts(void **state)
{
	const struct run_info ri = { .name = "r", .kind = "import" };
	const uint32_t devs[3] = { BT_MKDEV(8, 32), BT_MKDEV(7, 0),
				   BT_MKDEV(8, 0) };
	struct store *st = NULL;
	struct store_cursor *cur;
	struct store_request rq;
	struct runview rv;
	struct rundata one, two, file;
	struct an_io want, xa, xb;
	struct fold f;
	struct fold_ev fe;
	char path[4096];
	int64_t run, id;
	size_t i = 0;
	int fd;

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
	{
		struct bt_event e = { .time_ns = 1000, .dev = devs[0],
				      .action = BT_A_QUEUE | (uint64_t)BT_C_READ << 16 };
		assert_int_equal(store_event_add(st, run, &e), 0);
	}
	assert_int_equal(store_run_finish(st, run, "complete", 1000), 0);
	assert_int_equal(store_next_request_id(st, &id), 0);
	for (int k = 0; k < NRQ; k++) {
		int64_t t = 1000 + 1000 * (int64_t)k;
		memset(&rq, 0, sizeof(rq));
		rq.dev = devs[(k * 7 / 3) % 3];
		rq.sector = 8 * (uint64_t)k;
		rq.bytes = 4096;
		snprintf(rq.rwbs, sizeof(rq.rwbs), "R");
		rq.cats = BT_C_READ;
		rq.pid = 100 + (uint32_t)(k % 5);
		rq.q_ns = k % 97 == 5 ? STORE_NO_TIME : t;
		rq.g_ns = t + 10;
		rq.m_ns = k % 11 == 0 ? t + 11 : STORE_NO_TIME;  /* both: escapes */
		rq.i_ns = STORE_NO_TIME;
		rq.d_ns = t + 20;
		rq.c_ns = k % 13 == 0 ? t + 5000000000ll : t + 30;  /* escapes */
		rq.has_d = 1;
		rq.d_sector = rq.sector;
		rq.d_bytes = 4096;
		rq.d_head = 1;
		rq.has_seek = 1;
		rq.seek_sectors = k % 17 == 0 ? 8000000000ll : k;
		assert_int_equal(store_request_add(st, run, id + k, &rq), 0);
	}
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	assert_int_equal(runview_open(&rv, path, "r"), 0);
	assert_int_equal(rundata_load_parts(&one, &rv, 1), 0);
	assert_int_equal(rundata_load_parts(&two, &rv, 2), 0);
	assert_int_equal(rundata_load_to(&file, &rv, 2, 1), 0);
	if (file.rows_file) {
		fold_open(&f, &file, NULL, 1u << FOLD_ROW);
		assert_int_equal(file.n, NRQ);
		assert_true(file.nesc > 0);
		assert_int_equal(store_requests_open(rv.st, rv.id, STORE_RQ_ALL,
						     STORE_RQ_COLS_ALL, &cur), 0);
		while (store_requests_next(cur, &rq, NULL) > 0) {
			rundata_io_of(&want, &rq);
			assert_int_equal(fold_next(&f, &fe), 1);
			assert_int_equal(fe.row, i);
			assert_io_equal(fe.io, &want);
			i++;
		}
		store_cursor_close(cur);
		assert_int_equal(fold_next(&f, &fe), 0);
		assert_int_equal(i, NRQ);
		fold_close(&f);
		for (size_t k = 0; k < 3; k++)
			assert_int_equal(one.dev_first[k + 1], file.dev_first[k + 1]);
		i = 0;
	}
	rundata_free(&file);
	assert_int_equal(one.n, NRQ);
	assert_int_equal(two.n, NRQ);
	assert_int_equal(one.ndevs, 3);
	assert_true(one.nesc > 0);
	assert_int_equal(two.nesc, one.nesc);
	assert_int_equal(store_requests_open(rv.st, rv.id, STORE_RQ_ALL,
					     STORE_RQ_COLS_ALL, &cur), 0);
	while (store_requests_next(cur, &rq, NULL) > 0) {
		assert_true(i < NRQ);
		rundata_io_of(&want, &rq);
		assert_io_equal(rundata_io(&one, i, &xa), &want);
		assert_io_equal(rundata_io(&two, i, &xb), &want);
		i++;
	}
	store_cursor_close(cur);
	assert_int_equal(i, NRQ);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(one.dev_first[k + 1], two.dev_first[k + 1]);
	rundata_free(&one);
	rundata_free(&two);
	runview_close(&rv);
	unlink(path);
}

/* Inside a writer's open transaction (a summary read back at commit), the
 * rows it wrote are read too: no second handle then, which would not see
 * them. */
static void test_load_in_transaction(void **state)
{
	const struct run_info ri = { .name = "t", .kind = "import" };
	struct store *st = NULL;
	struct store_request rq;
	struct runview rv;
	struct rundata rd;
	char path[4096];
	int64_t run, id;
	int fd;

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
	{
		struct bt_event e = { .time_ns = 1000, .dev = BT_MKDEV(8, 0),
				      .action = BT_A_QUEUE | (uint64_t)BT_C_READ << 16 };
		assert_int_equal(store_event_add(st, run, &e), 0);
	}
	assert_int_equal(store_run_finish(st, run, "complete", 1000), 0);
	assert_int_equal(store_next_request_id(st, &id), 0);
	for (int k = 0; k < NRQ; k++) {
		memset(&rq, 0, sizeof(rq));
		rq.dev = BT_MKDEV(8, 0);
		rq.bytes = 4096;
		snprintf(rq.rwbs, sizeof(rq.rwbs), "R");
		rq.q_ns = 1000 + k;
		rq.g_ns = rq.m_ns = rq.i_ns = rq.d_ns = rq.c_ns = STORE_NO_TIME;
		assert_int_equal(store_request_add(st, run, id + k, &rq), 0);
	}
	assert_int_equal(runview_load(&rv, st, "t"), 0);
	assert_int_equal(rundata_load_parts(&rd, &rv, 2), 0);
	assert_int_equal(rd.n, NRQ);
	rundata_free(&rd);
	runview_close(&rv);
	{
		struct store *r2;
		assert_int_equal(store_open_reader(st, &r2), -EBUSY);
	}
	assert_int_equal(store_commit(st), 0);
	store_close(st);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_round_trip),
		cmocka_unit_test(test_of_ios),
		cmocka_unit_test(test_load_parts),
		cmocka_unit_test(test_load_in_transaction),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
