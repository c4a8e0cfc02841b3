/* Unit tests of workload metrics in the store (schema/store_metric.c, the
 * SQLite back end, schema/005_metrics.sql) on a real SQLite file: set and
 * read back by name, replace, the commands' times and an imported dd's
 * figures merged in (names for one and for several commands, a stored row
 * winning), and what the schema refuses. */
#include <math.h>
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

static char path[256];

static struct store *open_db(void)
{
	struct store *st = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/iotape-metric.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(store_open(&st, path, 1), 0);
	return st;
}

static int64_t new_run(struct store *st, const char *name, int ncmd)
{
	struct run_info ri = { .name = name, .kind = "import" };
	int64_t id;

	assert_int_equal(store_run_create(st, &ri, &id), 0);
	for (int i = 0; i < ncmd; i++) {
		struct store_command c = {
			.idx = i, .argv = "dd", .start_ns = 0,
			.end_ns = 1000000000, .real_s = 1.5 + i, .user_s = 0.25,
			.sys_s = 0.5, .status = 0,
		};
		assert_int_equal(store_command_add(st, id, &c), 0);
	}
	return id;
}

/* "name=value unit source;..." of run's metrics. */
static void listing(struct store *st, int64_t run, char *out, size_t len)
{
	struct store_metric *m;
	size_t n, o = 0;

	assert_int_equal(store_metrics_get(st, run, &m, &n), 0);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, len - o, "%s=%g %s %s;", m[i].name,
				      m[i].value, m[i].unit ? m[i].unit : "-",
				      m[i].source);
	free(m);
}

static void test_set_get(void **state)
{
	struct store *st = open_db();
	char buf[1024];
	int64_t a, b, c;

	assert_int_equal(store_begin(st), 0);
	a = new_run(st, "a", 1);
	b = new_run(st, "b", 2);
	c = new_run(st, "c", 0);
	assert_int_equal(store_metric_set(st, a, "tps", 41.5, NULL, "manual"), 0);
	assert_int_equal(store_metric_set(st, a, "read_iops", 100, "IO/s", "fio"), 0);
	assert_int_equal(store_metric_set(st, a, "read_iops", 120, "IO/s", "fio"), 0);
	assert_int_equal(store_metric_set(st, b, "cmd2_real_s", 9, "s", "manual"), 0);
	assert_int_equal(store_commit(st), 0);

	listing(st, a, buf, sizeof(buf));
	assert_string_equal(buf, "read_iops=120 IO/s fio;real_s=1.5 s time;"
			    "sys_s=0.5 s time;tps=41.5 - manual;user_s=0.25 s time;");
	listing(st, b, buf, sizeof(buf));
	assert_string_equal(buf, "cmd1_real_s=1.5 s time;cmd1_sys_s=0.5 s time;"
			    "cmd1_user_s=0.25 s time;cmd2_real_s=9 s manual;"
			    "cmd2_sys_s=0.5 s time;cmd2_user_s=0.25 s time;");
	listing(st, c, buf, sizeof(buf));
	assert_string_equal(buf, "");

	/* refused: a source the schema does not know, a non-finite value */
	assert_true(store_metric_set(st, a, "x", 1, NULL, "guess") < 0);
	assert_true(store_metric_set(st, a, "x", NAN, NULL, "manual") < 0);
	assert_true(strstr(store_errmsg(st), "not a finite number") != NULL);

	/* deleting the run deletes its metrics */
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_run_delete(st, a, NULL), 0);
	assert_int_equal(store_commit(st), 0);
	listing(st, a, buf, sizeof(buf));
	assert_string_equal(buf, "");
	store_close(st);
	unlink(path);
}

/* dd's figures an import of a pasted `time` report kept (run_stats
 * command.N.dd_*: import_fmt.c) are metrics under capture's names, of
 * source dd, derived: dd_bytes_per_s of a lone command, cmdN_dd_... of
 * several; a stored row of the same name wins; other keys are not dd's. */
static void test_dd_figures(void **state)
{
	struct store *st = open_db();
	struct store_metric *m;
	size_t n, derived = 0;
	char buf[1024];
	int64_t a, b;

	(void)state;
	assert_int_equal(store_begin(st), 0);
	a = new_run(st, "a", 1);
	b = new_run(st, "b", 2);
	assert_int_equal(store_stat_set(st, a, "command.0.dd_bytes", "50331648"), 0);
	assert_int_equal(store_stat_set(st, a, "command.0.dd_seconds", "0.23"), 0);
	assert_int_equal(store_stat_set(st, a, "command.0.dd_bytes_per_s", "219000000"), 0);
	assert_int_equal(store_stat_set(st, a, "command.0.dd_records",
					"48+0 in, 48+0 out"), 0);
	assert_int_equal(store_stat_set(st, a, "command.0.placed", "1"), 0);
	assert_int_equal(store_stat_set(st, b, "command.1.dd_bytes_per_s", "4e6"), 0);
	assert_int_equal(store_stat_set(st, b, "command.1.dd_seconds", "x"), 0);
	assert_int_equal(store_metric_set(st, a, "dd_s", 0.25, "s", "manual"), 0);
	assert_int_equal(store_commit(st), 0);

	listing(st, a, buf, sizeof(buf));
	assert_string_equal(buf, "dd_bytes=5.03316e+07 bytes dd;dd_bytes_per_s=2.19e+08 "
			    "bytes/s dd;dd_s=0.25 s manual;real_s=1.5 s time;"
			    "sys_s=0.5 s time;user_s=0.25 s time;");
	listing(st, b, buf, sizeof(buf));
	assert_string_equal(buf, "cmd1_real_s=1.5 s time;cmd1_sys_s=0.5 s time;"
			    "cmd1_user_s=0.25 s time;cmd2_dd_bytes_per_s=4e+06 "
			    "bytes/s dd;cmd2_real_s=2.5 s time;cmd2_sys_s=0.5 s "
			    "time;cmd2_user_s=0.25 s time;");
	/* the read-back ones are marked: a copy of the run leaves them out */
	assert_int_equal(store_metrics_get(st, a, &m, &n), 0);
	for (size_t i = 0; i < n; i++)
		derived += m[i].derived;
	assert_int_equal(derived, 5);
	assert_int_equal(m[2].derived, 0);      /* dd_s, stored */
	free(m);
	store_close(st);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_get),
		cmocka_unit_test(test_dd_figures),
	};
	return cmocka_run_group_tests_name("metric_store", tests, NULL, NULL);
}
