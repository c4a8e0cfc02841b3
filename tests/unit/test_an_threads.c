/* Unit tests of report's analysis on two threads (analyze/analyzer.h
 * an_run_load_with()): the figures, the time accounting, every analyzer's
 * numbers and the findings come out byte for byte as on one thread, for a
 * real capture (tests/fixtures), one with vmstat samples, and a run of
 * 60,000 requests on three devices and six processes whose rows are read
 * in two parts and put by device; and compare's, its runs' rows dropped
 * or kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyzer.h"
#include "analyze/compare.h"
#include "analyze/report.h"
#include "analyze/runview.h"
#include "trace/blktrace_format.h"
#include "import/import.h"
#include "lib/emit.h"
#include "schema/store.h"

static char db[4096];

static const char *fixture(const char *rel)
{
	static char path[2][4096];
	static int k;
	const char *root = getenv("REPO_ROOT");

	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/tests/fixtures/%s", root ? root : ".",
		 rel);
	return path[k];
}

/* `iotape import --run name input...` into db */
static void import(const char *name, const char *input)
{
	char *in[1] = { (char *)input };
	struct import_opts o = { .quiet = 1, .db = db, .name = name,
				 .inputs = in, .ninput = 1 };
	struct import_result res;
	char err[512];

	if (import_run(&o, &res, err, sizeof(err)))
		fail_msg("import %s: %s", input, err);
}

/* 60000 requests on three devices, six processes (two I/O-bound readers
 * sharing one device, a writer, a flusher), some never completed, some
 * merged, a few out of order */
static void synthetic(const char *name)
{
	const struct run_info ri = { .name = name, .kind = "import" };
	const uint32_t devs[3] = { BT_MKDEV(8, 0), BT_MKDEV(8, 16), BT_MKDEV(7, 0) };
	struct store *st;
	struct store_request rq;
	int64_t run, id;

	assert_int_equal(store_open(&st, db, 1), 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_run_create(st, &ri, &run), 0);
	{
		struct bt_event e = { .time_ns = 1000000, .dev = devs[0],
				      .action = BT_A_QUEUE | (uint64_t)BT_C_READ << 16 };
		assert_int_equal(store_event_add(st, run, &e), 0);
		e.time_ns = 1000000 + 60000ull * 50000;
		assert_int_equal(store_event_add(st, run, &e), 0);
	}
	assert_int_equal(store_run_finish(st, run, "complete", 1000000), 0);
	assert_int_equal(store_process_set(st, run, 101, "dd"), 0);
	assert_int_equal(store_process_set(st, run, 102, "dd"), 0);
	assert_int_equal(store_process_set(st, run, 103, "kworker/u8:1"), 0);
	assert_int_equal(store_next_request_id(st, &id), 0);
	for (int k = 0; k < 60000; k++) {
		int64_t t = 1000000 + 50000 * (int64_t)k + (k % 7) * 30000;
		int dk = k % 10 < 6 ? 0 : k % 10 < 9 ? 1 : 2;
		memset(&rq, 0, sizeof(rq));
		rq.dev = devs[dk];
		rq.pid = dk == 0 ? 101 + (uint32_t)(k % 2) : dk == 1 ? 103 : 104 +
			 (uint32_t)(k % 3);
		rq.sector = dk == 0 ? (uint64_t)(k % 2) * 1000000 + 8 * (uint64_t)k
				    : (uint64_t)(k * 7919 % 100000) * 8;
		rq.bytes = k % 50 == 0 ? 0 : 4096u << (k % 4);
		snprintf(rq.rwbs, sizeof(rq.rwbs), dk == 1 ? "WS" : "RA");
		rq.cats = dk == 1 ? BT_C_WRITE | BT_C_SYNC : BT_C_READ | BT_C_AHEAD;
		if (!rq.bytes)
			rq.cats |= BT_C_FLUSH;
		rq.q_ns = t;
		rq.g_ns = k % 5 == 0 ? STORE_NO_TIME : t + 2000;
		rq.m_ns = k % 5 == 0 ? t + 1500 : STORE_NO_TIME;
		rq.merged_into = k % 5 == 0 ? id + k - 1 : 0;
		rq.i_ns = k % 3 ? t + 3000 : STORE_NO_TIME;
		rq.d_ns = t + 10000 + (k % 11) * 9000;
		rq.c_ns = k % 97 == 0 ? STORE_NO_TIME : rq.d_ns + 20000 +
			  (int64_t)(rq.sector % 1000) * 100;
		rq.has_d = 1;
		rq.d_sector = rq.sector;
		rq.d_bytes = rq.bytes;
		rq.d_head = k % 5 != 0;
		rq.has_seek = rq.d_head;
		rq.seek_sectors = (int64_t)(k * 7919 % 4000) - 2000;
		assert_int_equal(store_request_add(st, run, id + k, &rq), 0);
	}
	for (int k = 0; k < 40; k++) {
		/* dirty data, for writeback */
		assert_int_equal(store_sample_add(st, run, 1000000 + 75000000ll * k,
						  "meminfo", "Dirty", 20000 + 1000 * k), 0);
		assert_int_equal(store_sample_add(st, run, 1000000 + 75000000ll * k,
						  "meminfo", "Writeback", 100), 0);
	}
	assert_int_equal(store_commit(st), 0);
	store_close(st);
}

/* report --json of run on threads threads, as a malloc'd string */
static char *report_json(const char *run, int threads)
{
	struct runview rv;
	struct report r;
	struct an_side side;
	struct an_run *an = calloc(1, sizeof(*an));
	struct finding f[AN_MAX];
	struct emit e;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int nf;

	assert_non_null(an);
	assert_non_null(fp);
	assert_int_equal(runview_open(&rv, db, run), 0);
	report_side(&r, &side);
	assert_int_equal(an_run_load_with(an, &rv, NULL, &side, threads), 0);
	nf = an_run_findings(an, f, AN_MAX, NULL);
	emit_init(&e, fp, 1);
	report_emit(&r, &e, 20, an, f, nf);
	fclose(fp);
	report_free(&r);
	an_run_free(an);
	free(an);
	runview_close(&rv);
	return buf;
}

static void same_on_two(const char *run)
{
	char *one = report_json(run, 1), *two = report_json(run, 2);

	assert_true(strlen(one) > 1000);
	assert_string_equal(one, two);
	free(one);
	free(two);
}

static void test_capture(void **state)
{
	(void)state;
	same_on_two("fio");
}

static void test_samples(void **state)
{
	(void)state;
	same_on_two("walltime");
}

static void test_synthetic(void **state)
{
	char *j;

	(void)state;
	same_on_two("synth");
	/* the analyzers had something to measure */
	j = report_json("synth", 2);
	assert_non_null(strstr(j, "{\"dev\":\"8,0\",\"competing\":2,"));
	assert_non_null(strstr(j, "\"writeback\":{\"dirty_peak_mb\""));
	free(j);
}

/* compare --json of runs a and b (metric NULL: the default question),
 * their rows kept or not, as a malloc'd string; *rows gets how many of the
 * two runs still hold their request rows after compare_load(). */
static char *compare_json(const char *a, const char *b, const char *metric,
			  int keep_rows, int *rows)
{
	struct store *st;
	struct compare c;
	char *names[2] = { (char *)a, (char *)b }, *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct emit e;

	assert_non_null(fp);
	assert_int_equal(store_open_existing(&st, db), 0);
	assert_int_equal(compare_load(&c, st, names, 2, NULL, metric, NULL,
				      keep_rows), 0);
	*rows = 0;
	for (int i = 0; i < c.n; i++) {
		assert_true(c.rf[i].an.rd.n > 0);
		*rows += c.rf[i].an.rd.row != NULL;
	}
	emit_init(&e, fp, 1);
	compare_emit(&c, &e, CMP_JSON);
	fclose(fp);
	compare_free(&c);
	store_close(st);
	return buf;
}

/* compare gives each run's request rows back once the run is analysed
 * (one run's rows in memory at a time), unless its caller keeps them for
 * plots (mail); the comparison is the same either way, a latency
 * percentile's tail (measured from the rows at load) included. */
static void test_compare_rows(void **state)
{
	const char *metrics[] = { NULL, "read_q2c_p99_us" };

	(void)state;
	for (size_t k = 0; k < sizeof(metrics) / sizeof(*metrics); k++) {
		int kept, dropped;
		char *with = compare_json("fio", "synth", metrics[k], 1, &kept);
		char *without = compare_json("fio", "synth", metrics[k], 0,
					     &dropped);
		assert_int_equal(kept, 2);
		assert_int_equal(dropped, 0);
		assert_string_equal(with, without);
		/* the percentile's question has its tail: measured at load */
		if (metrics[k])
			assert_non_null(strstr(with, "\"tail\":[{\"run\""));
		free(with);
		free(without);
	}
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(db, sizeof(db), "%s/iotape-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(db);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(db);
	import("fio", fixture("loop-fio-small.bin"));
	import("walltime", fixture("robust/walltime.bin"));
	import("walltime", fixture("robust/walltime-vmstat.log"));
	synthetic("synth");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(db);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_compare_rows),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
