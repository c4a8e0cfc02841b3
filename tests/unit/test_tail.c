/* Unit tests of a latency figure's tail (analyze/tail.h): which figures
 * have one, and what the requests at or over the figure met: a cache flush
 * in flight on their own device (not another's, not themselves), another
 * process's write dispatched while they waited (not their own process's),
 * counted apart from the rest, with the tail's time split Q2D / D2C. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/rundata.h"
#include "analyze/tail.h"
#include "trace/blktrace_format.h"

static void test_figures(void **state)
{
	struct tail t;

	(void)state;
	assert_int_equal(tail_figure("read_q2c_p99_us", &t), 1);
	assert_int_equal(t.dir, 0);
	assert_int_equal(t.d2c, 0);
	assert_int_equal(t.pct, 99);
	assert_int_equal(tail_figure("write_d2c_p99_us", &t), 1);
	assert_int_equal(t.dir, 1);
	assert_int_equal(t.d2c, 1);
	/* a median is no tail; other figures and near misses are none */
	assert_int_equal(tail_figure("read_q2c_p50_us", &t), 0);
	assert_int_equal(tail_figure("read_mb_s", &t), 0);
	assert_int_equal(tail_figure("read_q2c_p99_usx", &t), 0);
	assert_int_equal(tail_figure("trim_q2c_p99_us", &t), 0);
	assert_int_equal(tail_figure("read_q2d_p99_us", &t), 0);
}

static struct an_io io_of(uint32_t dev, uint32_t pid, int64_t q, int64_t d,
			  int64_t c, uint32_t bytes, uint32_t flags)
{
	return (struct an_io){ .q = q, .g = AN_NONE, .i = AN_NONE, .d = d,
			       .c = c, .m = AN_NONE, .bytes = bytes,
			       .dbytes = bytes, .pid = pid, .dev = dev,
			       .flags = flags | AN_HEAD };
}

/* On device A: 100 reads of pid 1, 100 us each, 1 ms apart; reads 10, 20
 * and 30 take 5 ms, 10 and 20 with pid 2's flush in flight, 30 with pid
 * 2's write dispatched meanwhile; read 50 overlaps pid 1's own write; a
 * flush on device B overlaps read 60 in time (another device: not
 * counted). The tail at 1 ms: reads 10, 20, 30. */
static void test_measure(void **state)
{
	const uint32_t A = BT_MKDEV(8, 0), B = BT_MKDEV(8, 16);
	struct an_io io[120];
	struct rundata rd;
	struct tail t;
	int n = 0;

	(void)state;
	for (int i = 0; i < 100; i++) {
		int64_t q = 1000000LL * i, lat = (i == 10 || i == 20 || i == 30)
						 ? 5000000 : 100000;
		io[n++] = io_of(A, 1, q, q + lat / 10, q + lat, 4096, 0);
	}
	io[n++] = io_of(A, 2, AN_NONE, 10000000 + 200000, 10000000 + 4000000,
			0, AN_FLUSH);
	io[n++] = io_of(A, 2, AN_NONE, 20000000 + 900000, 20000000 + 1000000,
			0, AN_FLUSH);
	io[n++] = io_of(A, 2, 30000000 + 1000, 30000000 + 2000,
			30000000 + 3000000, 65536, AN_WRITE);
	io[n++] = io_of(A, 1, 50000000 + 10, 50000000 + 20, 50000000 + 90000,
			65536, AN_WRITE);
	io[n++] = io_of(B, 3, AN_NONE, 60000000, 60000000 + 50000, 0, AN_FLUSH);
	/* a read an X split in two, its pieces done at 3 and 9 ms: the
	 * figure counts the bio once, its Q to its last piece's C (the
	 * reader's wait; btt pairs neither half), and so does its tail */
	io[n++] = io_of(A, 1, 70000000, 70000100, 70000000 + 3000000, 4096,
			AN_SPLIT);
	io[n++] = io_of(A, 1, 70000000, 70000200, 70000000 + 9000000, 4096,
			AN_SPLIT | AN_SPLIT_TAIL);
	rundata_of_ios(&rd, NULL, io, (size_t)n);

	/* the slowest 1% of 101 is two reads: the split one of 9 ms and the
	 * three of 5 ms that tie */
	assert_int_equal(tail_figure("read_q2c_p99_us", &t), 1);
	tail_measure(&rd, &t);
	assert_int_equal(t.thr_ns, 5000000);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.n_rest, 97);
	assert_int_equal(t.flush_n, 2);
	/* the first flush (10.2 to 14.0 ms) was in flight for reads 11-13 */
	assert_int_equal(t.flush_rest_n, 3);
	assert_int_equal(t.write_n, 1);
	assert_int_equal(t.write_rest_n, 0);
	assert_int_equal(t.flush_pid, 2);
	assert_int_equal(t.flushes, 3);
	assert_int_equal(t.n_d, 4);
	/* each 5 ms read: 0.5 ms before dispatch, 4.5 ms at the device; the
	 * split one, by its last piece: 0.2 us, then 8.9998 ms */
	assert_true(t.q2d_s > 0.0015002 - 1e-9 && t.q2d_s < 0.0015002 + 1e-9);
	assert_true(t.d2c_s > 0.0224998 - 1e-9 && t.d2c_s < 0.0224998 + 1e-9);

	/* writes' tail: pid 2's write (3 ms) alone at 2 ms; pid 1's reads are
	 * not writes, and the flush with it counts */
	assert_int_equal(tail_figure("write_q2c_p99_us", &t), 1);
	tail_measure(&rd, &t);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.n_rest, 1);
	assert_int_equal(t.thr_ns, 3000000 - 1000);
	/* D2C: the read of 9 ms split in two is still left out */
	assert_int_equal(tail_figure("read_d2c_p99_us", &t), 1);
	tail_measure(&rd, &t);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.thr_ns, 4500000);
	rundata_free(&rd);
}

/* Reads alone: no flush, no write (nothing to sort), a tail all the same;
 * and the slowest 10% (p90) of 20 reads is two */
static void test_reads_alone(void **state)
{
	const uint32_t A = BT_MKDEV(8, 0);
	struct an_io io[20];
	struct rundata rd;
	struct tail t;

	(void)state;
	for (int i = 0; i < 20; i++)
		io[i] = io_of(A, 1, 1000000LL * i, 1000000LL * i + 10,
			      1000000LL * i + 1000 * (i + 1), 4096, 0);
	rundata_of_ios(&rd, NULL, io, 20);
	assert_int_equal(tail_figure("read_q2c_p90_us", &t), 1);
	tail_measure(&rd, &t);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.n_rest, 18);
	assert_int_equal(t.thr_ns, 19000);
	assert_int_equal(t.flush_n + t.flush_rest_n + t.write_n + t.flushes, 0);
	assert_int_equal(t.flush_pid, 0);
	rundata_free(&rd);
}

/* A FUA write of 10 ms (a flush: RWBS F) and short reads beside it: a read
 * inside its time met it, one after it did not, however long it was; in
 * the writes' tail it is alone, and does not meet itself */
static void test_long_flush(void **state)
{
	const uint32_t A = BT_MKDEV(8, 0);
	struct an_io io[4];
	struct rundata rd;
	struct tail t;

	(void)state;
	io[0] = io_of(A, 5, 0, 10, 10000000, 4096, AN_WRITE | AN_FUA);
	io[1] = io_of(A, 1, 2000000, 2000010, 2900000, 4096, 0);
	io[2] = io_of(A, 1, 12000000, 12000010, 12100000, 4096, 0);
	io[3] = io_of(A, 1, 13000000, 13000010, 13050000, 4096, 0);
	rundata_of_ios(&rd, NULL, io, 4);
	assert_int_equal(tail_figure("read_q2c_p99_us", &t), 1);
	tail_measure(&rd, &t);
	assert_int_equal(t.n, 1);               /* the read of 0.9 ms */
	assert_int_equal(t.flush_n, 1);
	assert_int_equal(t.flush_pid, 5);
	assert_int_equal(t.flush_rest_n, 0);
	assert_int_equal(tail_figure("write_q2c_p99_us", &t), 1);
	tail_measure(&rd, &t);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.flush_n, 0);
	rundata_free(&rd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_reads_alone),
		cmocka_unit_test(test_long_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
