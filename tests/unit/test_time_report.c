/* Unit tests of import/time_report.c, the one reader of `time` reports for
 * pasted time output and vmstat logs: each shell's and GNU time's format
 * as they print it (bash's TIMEFORMAT default, time -p, zsh's TIMEFMT
 * default with a total past a minute, GNU time's two lines and -v block),
 * reports handed on whole and once, a -v block ended by a line that is not
 * its own, and a bad value: an error when strict, not a report's line when
 * not; a decimal comma as bash prints one under such a locale. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "import/time_report.h"

#define MAX_REP 8

struct got {
	struct time_report rep[MAX_REP];
	int n;
};

static int take(void *ctx, const struct time_report *r)
{
	struct got *g = ctx;

	assert_true(g->n < MAX_REP);
	g->rep[g->n++] = *r;
	return 0;
}

/* Feeds text's lines (strict or not) into a fresh reader and flushes it.
 * Returns the first negative code, else 0; *taken counts the lines that
 * were a report's. */
static int feed(const char *text, int strict, struct got *g, int *taken,
		char *err, size_t errlen)
{
	struct time_reader r;
	char line[4096];
	uint64_t no = 0;
	int rc = 0;

	memset(g, 0, sizeof(*g));
	*taken = 0;
	time_report_init(&r, strict, take, g, "paste.txt", err, errlen);
	while (*text) {
		size_t n = strcspn(text, "\n");
		memcpy(line, text, n);
		line[n] = '\0';
		text += n + (text[n] == '\n');
		if ((rc = time_report_line(&r, ++no, line)) < 0)
			return rc;
		*taken += rc;
	}
	return time_report_flush(&r);
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_each_format(void **state)
{
	static const char text[] =
		"\n"
		"real\t0m48.776s\r\n"
		"user\t0m0.380s\r\n"
		"sys\t0m11.850s\r\n"
		"real 2.50\n"
		"user 0.01\n"
		"sys 0.02\n"
		"Command exited with non-zero status 3\n"
		"0.38user 11.85system 1:02.50elapsed 25%CPU (0avgtext+0avgdata 2048maxresident)k\n"
		"0inputs+8outputs (0major+95minor)pagefaults 0swaps\n"
		"dd if=/dev/zero of=f bs=1M  0.38s user 11.85s system 24% cpu 1:02.345 total\n"
		"Command terminated by signal 9\n"
		"1.00user 0.50system 0:03.00elapsed 50%CPU\n";
	struct got g;
	char err[256] = "";
	int taken;

	(void)state;
	assert_int_equal(feed(text, 1, &g, &taken, err, sizeof(err)), 0);
	assert_int_equal(taken, 12);
	assert_int_equal(g.n, 5);
	/* bash: three lines, one report, at its first line */
	assert_int_equal(g.rep[0].line, 2);
	assert_true(near(g.rep[0].real_s, 48.776));
	assert_true(near(g.rep[0].user_s, 0.38));
	assert_true(near(g.rep[0].sys_s, 11.85));
	assert_string_equal(g.rep[0].argv, "");
	/* time -p */
	assert_true(near(g.rep[1].real_s, 2.5));
	assert_true(near(g.rep[1].sys_s, 0.02));
	/* GNU time, its status line before it */
	assert_true(near(g.rep[2].real_s, 62.5));
	assert_true(near(g.rep[2].user_s, 0.38));
	assert_int_equal(g.rep[2].status, 3);
	/* zsh, past a minute, naming its job */
	assert_true(near(g.rep[3].real_s, 62.345));
	assert_true(near(g.rep[3].sys_s, 11.85));
	assert_string_equal(g.rep[3].argv, "dd if=/dev/zero of=f bs=1M");
	assert_int_equal(g.rep[3].status, 0);
	/* killed by a signal: 128 + N */
	assert_int_equal(g.rep[4].status, 137);
	assert_true(near(g.rep[4].real_s, 3.0));
}

static void test_verbose(void **state)
{
	static const char whole[] =
		"\tCommand being timed: \"dd if=/dev/zero of=f bs=1M count=64\"\n"
		"\tUser time (seconds): 0.00\n"
		"\tSystem time (seconds): 0.05\n"
		"\tPercent of CPU this job got: 12%\n"
		"\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:00.41\n"
		"\tAverage shared text size (kbytes): 0\n"
		"\tExit status: 0\n"
		"\tPage size (bytes): 4096\n";
	/* cut short: the next line is no counter */
	static const char cut[] =
		"Command being timed: \"sync\"\n"
		"Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n";
	struct got g;
	char err[256] = "";
	int taken;

	(void)state;
	assert_int_equal(feed(whole, 1, &g, &taken, err, sizeof(err)), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(taken, 7);    /* the page size line is no report's */
	assert_string_equal(g.rep[0].argv, "dd if=/dev/zero of=f bs=1M count=64");
	assert_true(near(g.rep[0].real_s, 0.41));
	assert_true(near(g.rep[0].sys_s, 0.05));
	assert_int_equal(g.rep[0].line, 1);

	assert_int_equal(feed(cut, 0, &g, &taken, err, sizeof(err)), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(taken, 2);
	assert_string_equal(g.rep[0].argv, "sync");
	assert_true(near(g.rep[0].real_s, 3723));
	assert_true(isnan(g.rep[0].user_s));
}

static void test_bad_values(void **state)
{
	static const char real_hex[] = "real\t0x10.0s\nuser\t0m0.1s\nsys\t0m0.1s\n";
	static const char gnu_hex[] = "0x1user 0.00system 0:00.01elapsed 0%CPU\n";
	static const char zsh_inf[] = "ls  0.00s user 0.00s system 0% cpu inf total\n";
	static const char prose[] = "user root\nsys admin\n";
	struct got g;
	char err[256] = "";
	int taken;

	(void)state;
	assert_int_equal(feed(real_hex, 1, &g, &taken, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "paste.txt: line 1: bad real time '0x10.0s'");
	assert_int_equal(feed(gnu_hex, 1, &g, &taken, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "paste.txt: line 1: bad user time '0x1'");
	assert_int_equal(feed(zsh_inf, 1, &g, &taken, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "paste.txt: line 1: bad total time 'inf'");
	/* not strict: the lines are no report's */
	err[0] = '\0';
	assert_int_equal(feed(gnu_hex, 0, &g, &taken, err, sizeof(err)), 0);
	assert_int_equal(taken, 0);
	assert_int_equal(g.n, 0);
	assert_string_equal(err, "");
	/* prose is no report, strict or not */
	assert_int_equal(feed(prose, 1, &g, &taken, err, sizeof(err)), 0);
	assert_int_equal(taken, 0);
	assert_int_equal(g.n, 0);
}

static void test_duration(void **state)
{
	double v;

	(void)state;
	assert_int_equal(time_report_duration("0m48.776s", &v), 0);
	assert_true(near(v, 48.776));
	assert_int_equal(time_report_duration("1h2m3.5s", &v), 0);
	assert_true(near(v, 3723.5));
	assert_int_equal(time_report_duration("1:02.3", &v), 0);
	assert_true(near(v, 62.3));
	assert_int_equal(time_report_duration("0m1,234s", &v), 0);
	assert_true(near(v, 1.234));
	assert_int_equal(time_report_duration("1,2,3", &v), -1);
	assert_int_equal(time_report_duration("1,2.3", &v), -1);
	assert_int_equal(time_report_duration("1:00:00:00", &v), -1);
	assert_int_equal(time_report_duration("99999999999m", &v), -1);
	assert_int_equal(time_report_duration("-1s", &v), -1);
	assert_int_equal(time_report_duration("1.5x", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_format),
		cmocka_unit_test(test_verbose),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
