/* Unit tests of the vmstat text importer (import/vmstat_text.c) and its
 * store import (import/import_samples.c): layouts, timestamps, date
 * blocks and since-boot rows, time lines, the frozen-memory check, errors
 * naming the line, sniffing; our recorded fixtures and the corpus logs. */
#include <errno.h>
#include <fcntl.h>
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

#include "import/import.h"
#include "import/import_samples.h"
#include "import/vmstat_text.h"
#include "schema/store.h"

#define MAX_ROWS 64
#define MAX_TIMES 8

struct got_row {
	struct vmstat_row r;
	char names[VMSTAT_MAX_COLS][8];
	double values[VMSTAT_MAX_COLS];
};

struct collector {
	struct got_row rows[MAX_ROWS];
	uint64_t nrows;      /* rows seen (only the first MAX_ROWS kept) */
	struct vmstat_time_line times[MAX_TIMES];
	int ntimes;
	int stop_after;      /* fail with -EIO after this many rows; 0: never */
};

static int col_row(void *ctx, const struct vmstat_row *r)
{
	struct collector *c = ctx;

	if (c->stop_after && c->nrows == (uint64_t)c->stop_after)
		return -EIO;
	assert_int_equal(r->index, c->nrows);
	assert_true(r->ncol > 0 && r->ncol <= VMSTAT_MAX_COLS);
	if (c->nrows < MAX_ROWS) {
		struct got_row *g = &c->rows[c->nrows];
		g->r = *r;
		for (int i = 0; i < r->ncol; i++) {
			snprintf(g->names[i], sizeof(g->names[i]), "%s", r->names[i]);
			g->values[i] = r->values[i];
		}
		g->r.names = NULL;
		g->r.values = NULL;
	}
	c->nrows++;
	return 0;
}

static int col_time(void *ctx, const struct vmstat_time_line *t)
{
	struct collector *c = ctx;

	assert_true(c->ntimes < MAX_TIMES);
	c->times[c->ntimes++] = *t;
	return 0;
}

/* The value of column name in kept row i. */
static double val(const struct collector *c, int i, const char *name)
{
	const struct got_row *g = &c->rows[i];

	for (int k = 0; k < g->r.ncol; k++)
		if (!strcmp(g->names[k], name))
			return g->values[k];
	return NAN;
}

static int parse_text(const char *text, const struct vmstat_text_opts *o,
		      struct collector *c, struct vmstat_text_info *in,
		      char *err, size_t errlen)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(fp);
	rc = vmstat_text_read(fp, "paste.txt", o, col_row, c, in, err, errlen);
	fclose(fp);
	return rc;
}

static const char *repo_path(const char *rel)
{
	static char path[4096];
	const char *root = getenv("REPO_ROOT");

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	return path;
}

static const char *corpus_path(const char *rel)
{
	static char path[4096];
	const char *env = getenv("IOTAPE_CORPUS");
	const char *root = getenv("REPO_ROOT");

	if (env)
		snprintf(path, sizeof(path), "%s/%s", env, rel);
	else
		snprintf(path, sizeof(path), "%s/../shared/corpus/%s",
			 root ? root : ".", rel);
	return path;
}

/* Reads the file at path; returns -ENOENT when it is absent. */
static int parse_file(const char *path, const struct vmstat_text_opts *o,
		      struct collector *c, struct vmstat_text_info *in)
{
	char err[512] = "";
	FILE *fp = fopen(path, "r");
	int rc;

	if (!fp)
		return -ENOENT;
	rc = vmstat_text_read(fp, path, o, col_row, c, in, err, sizeof(err));
	fclose(fp);
	if (rc)
		print_error("%s\n", err);
	return rc;
}

static void fixture(const char *name, struct collector *c,
		    struct vmstat_text_info *in)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "tests/fixtures/vmstat/%s", name);
	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_file(repo_path(rel), NULL, c, in), 0);
	assert_int_equal(vmstat_text_sniff_file(repo_path(rel)), 1);
}

static void test_plain(void **state)
{
	struct collector *c = malloc(sizeof(*c));
	struct vmstat_text_info in;

	(void)state;
	fixture("plain-1-3.log", c, &in);
	assert_int_equal(in.rows, 3);
	assert_int_equal(in.boot_rows, 1);
	assert_int_equal(in.headers, 1);
	assert_int_equal(in.blocks, 1);
	assert_false(in.has_stamps);
	assert_false(in.frozen_memory);
	assert_string_equal(in.columns,
			    "r b swpd free buff cache si so bi bo in cs us sy id wa st");
	assert_true(c->rows[0].r.since_boot);
	assert_false(c->rows[1].r.since_boot);
	assert_int_equal(c->rows[0].r.ncol, 17);
	assert_int_equal(c->rows[0].r.line, 3);
	assert_true(c->rows[0].r.time_ns == -1);
	assert_true(val(c, 0, "free") == 22145792);
	assert_true(val(c, 0, "bi") == 47938);
	assert_true(val(c, 1, "bo") == 788);
	assert_true(val(c, 2, "id") == 100);
	free(c);
}

static void test_timestamped(void **state)
{
	struct collector *c = malloc(sizeof(*c));
	struct vmstat_text_info in;

	(void)state;
	fixture("timestamped-1-3.log", c, &in);
	assert_int_equal(in.rows, 3);
	assert_true(in.has_stamps);
	assert_string_equal(in.zone, "UTC");
	assert_int_equal(in.stamp_step_ns, 1000000000);
	assert_int_equal(c->rows[0].r.ncol, 17);
	/* 2026-11-30 06:10:27 read as UTC */
	assert_true(c->rows[0].r.stamp_ns == 1796019027LL * 1000000000);
	assert_true(c->rows[2].r.time_ns == 1796019029LL * 1000000000);
	assert_true(val(c, 2, "st") == 0);
	free(c);
}

static void test_layouts(void **state)
{
	struct collector *c = malloc(sizeof(*c));
	struct vmstat_text_info in;

	(void)state;
	fixture("wide-gu-1-3.log", c, &in);
	assert_int_equal(in.rows, 3);
	assert_int_equal(c->rows[0].r.ncol, 18);
	assert_string_equal(c->rows[0].names[17], "gu");
	assert_true(val(c, 0, "r") == 7);

	fixture("active-1-3.log", c, &in);
	assert_true(isnan(val(c, 0, "buff")));
	assert_true(val(c, 0, "inact") == 1581472);
	assert_true(val(c, 0, "active") == 735832);

	fixture("linux24-handmade.log", c, &in);
	assert_int_equal(in.rows, 4);
	assert_int_equal(c->rows[0].r.ncol, 16);
	assert_string_equal(c->rows[0].names[2], "w");
	assert_true(isnan(val(c, 0, "wa")));
	assert_true(val(c, 2, "so") == 8);
	free(c);
}

static void test_date_blocks(void **state)
{
	struct collector *c = malloc(sizeof(*c));
	struct vmstat_text_info in;
	struct vmstat_text_opts o = { .interval_ns = 1000000000 };
	int64_t t0 = 1796019027LL * 1000000000;   /* Mon Nov 30 06:10:27 UTC 2026 */

	(void)state;
	fixture("date-blocks.log", c, &in);
	assert_int_equal(in.rows, 6);
	assert_int_equal(in.blocks, 2);
	assert_int_equal(in.date_lines, 2);
	assert_int_equal(in.boot_rows, 2);
	assert_true(c->rows[0].r.since_boot && c->rows[3].r.since_boot);
	assert_int_equal(c->rows[3].r.block, 1);
	assert_int_equal(c->rows[4].r.block_row, 1);
	assert_true(c->rows[0].r.date_ns == t0);
	assert_true(c->rows[4].r.date_ns == t0 + 2000000000LL);
	/* no interval given: rows after a block's first have no time */
	assert_true(c->rows[0].r.time_ns == t0);
	assert_true(c->rows[1].r.time_ns == -1);

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_file(repo_path("tests/fixtures/vmstat/date-blocks.log"),
				    &o, c, &in), 0);
	assert_true(c->rows[1].r.time_ns == t0 + 1000000000LL);
	assert_true(c->rows[5].r.time_ns == t0 + 4000000000LL);

	/* --no-boot-row */
	o.no_boot_row = 1;
	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_file(repo_path("tests/fixtures/vmstat/date-blocks.log"),
				    &o, c, &in), 0);
	assert_int_equal(in.boot_rows, 0);
	free(c);
}

static void test_repeated_headers_and_frozen(void **state)
{
	struct collector *c = malloc(sizeof(*c));
	struct vmstat_text_info in;

	(void)state;
	fixture("repeated-headers.log", c, &in);
	assert_int_equal(in.rows, 25);
	assert_int_equal(in.headers, 2);
	assert_int_equal(in.blocks, 1);
	assert_int_equal(in.boot_rows, 1);   /* not after the repeated header */

	/* recorded while dd wrote 300 MiB: memory columns stay put */
	fixture("frozen-continuous.log", c, &in);
	assert_int_equal(in.rows, 7);
	assert_true(in.frozen_memory);

	fixture("timestamped-1-3.log", c, &in);   /* too few rows to tell */
	assert_false(in.frozen_memory);
	free(c);
}

static void test_frozen_rules(void **state)
{
	/* memory constant, io moving: frozen */
	static const char frozen[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
		" 1  0      0   1000    100   2000    0    0   500   400   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0     0     8   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0    40     0   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0     0    64   10   10  1  1 98  0  0\n";
	/* the same with free moving once: not frozen */
	static const char moving[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
		" 1  0      0   1000    100   2000    0    0   500   400   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0     0     8   10   10  1  1 98  0  0\n"
		" 1  0      0    996    100   2000    0    0    40     0   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0     0    64   10   10  1  1 98  0  0\n";
	/* memory constant and io constant (an idle machine): nothing to say */
	static const char idle[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
		" 1  0      0   1000    100   2000    0    0   500   400   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n";
	struct collector *c = calloc(1, sizeof(*c));
	struct vmstat_text_info in;
	char err[256];

	(void)state;
	assert_int_equal(parse_text(frozen, NULL, c, &in, err, sizeof(err)), 0);
	assert_true(in.frozen_memory);
	assert_int_equal(in.boot_rows, 1);
	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(moving, NULL, c, &in, err, sizeof(err)), 0);
	assert_false(in.frozen_memory);
	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(idle, NULL, c, &in, err, sizeof(err)), 0);
	assert_false(in.frozen_memory);
	free(c);
}

/* A bug-report paste: prompt, CRLF line ends, bash's time output after. */
static const char paste[] =
	"$ time vmstat 1 2\r\n"
	"procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\r\n"
	" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\r\n"
	" 2  0      0 23601884   2976  22736    0    0   140     0  376  353  0  2 97  0  0\r\n"
	" 1  0      0 23601880   2976  22740    0    0     0    12  370  350  0  1 99  0  0\r\n"
	"\r\n"
	"real\t0m1.004s\r\n"
	"user\t0m0.001s\r\n"
	"sys\t0m0.002s\r\n"
	"# and GNU time, zsh:\n"
	"Command exited with non-zero status 3\n"
	"0.01user 0.02system 1:02.50elapsed 0%CPU (0avgtext+0avgdata 2048maxresident)k\n"
	"0inputs+8outputs (0major+95minor)pagefaults 0swaps\n"
	"vmstat 1 2  0.00s user 0.01s system 0% cpu 1.004 total\n";

static void test_paste_with_time(void **state)
{
	struct collector *c = calloc(1, sizeof(*c));
	struct vmstat_text_opts o = { .time_line = col_time };
	struct vmstat_text_info in;
	char err[256] = "";
	int rc;

	(void)state;
	rc = parse_text(paste, &o, c, &in, err, sizeof(err));
	if (rc)
		print_error("%s\n", err);
	assert_int_equal(rc, 0);
	assert_int_equal(in.rows, 2);
	assert_int_equal(in.skipped_lines, 1);
	assert_int_equal(in.time_lines, 7);
	assert_true(val(c, 1, "free") == 23601880);
	assert_true(val(c, 1, "st") == 0);
	/* three reports, each whole: bash's three lines are one */
	assert_int_equal(c->ntimes, 3);
	assert_true(fabs(c->times[0].real_s - 1.004) < 1e-9);
	assert_true(fabs(c->times[0].user_s - 0.001) < 1e-9);
	assert_true(fabs(c->times[0].sys_s - 0.002) < 1e-9);
	assert_int_equal(c->times[0].line, 7);
	assert_int_equal(c->times[0].rows_before, 2);
	assert_string_equal(c->times[0].argv, "");
	assert_true(fabs(c->times[1].real_s - 62.5) < 1e-9);
	assert_true(fabs(c->times[1].sys_s - 0.02) < 1e-9);
	assert_int_equal(c->times[1].status, 3);
	assert_true(fabs(c->times[2].real_s - 1.004) < 1e-9);
	assert_true(fabs(c->times[2].sys_s - 0.01) < 1e-9);
	assert_string_equal(c->times[2].argv, "vmstat 1 2");
	free(c);
}

static void test_errors(void **state)
{
	static const char blkparse[] =
		"  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]\n"
		"  8,0    3        2     0.000000442  4162  G  WS 3417048 + 8 [kjournald]\n";
	static const char short_row[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n";
	static const char junk[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n"
		"Segmentation fault\n";
	static const char nonnum[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
		" 1  0      0   1000    100   2x00    0    0     0     0   10   10  1  1 98  0  0\n";
	static const char group_only[] =
		"procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n";
	static const char bad_stamp[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st   UTC\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0 2026-13-01 10:00:00\n";
	static const char rows_first[] =
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n";
	struct collector *c = calloc(1, sizeof(*c));
	struct vmstat_text_info in;
	char err[256];

	(void)state;
	assert_int_equal(parse_text(blkparse, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "paste.txt: line 1: not vmstat output"));
	assert_int_equal(parse_text("", NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "paste.txt: line 1:"));

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(short_row, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "paste.txt: line 3: 16 fields where the header "
				    "at line 1 names 17"));
	assert_int_equal(c->nrows, 1);

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(junk, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 3: not vmstat output: 'Segmentation'"));

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(nonnum, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2: '2x00' is not a number"));

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(group_only, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2: expected vmstat's column names"));

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(bad_stamp, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2: '2026-13-01 10:00:00' is not a timestamp"));

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(rows_first, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 1: not vmstat output (numbers before"));
	free(c);
}

/* Values a vmstat row cannot hold: counts and kB are whole numbers from 0
 * to 2^53 - 1 (an error naming the line, the value and the column); a CPU
 * % out of 0..100 is kept as printed (`iotape vmstat` marks it '?'). */
static void test_value_ranges(void **state)
{
	static const char head[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
		" 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n";
	static const struct { const char *row, *err; } bad[] = {
		{ " 1  0      0     -5    100   2000    0    0     0     0   10   10  1  1 98  0  0\n",
		  "line 3: bad value '-5' for free (a whole number from 0 to 2^53 - 1)" },
		{ " 1  0      0 99999999999999999999999999 100 2000 0 0 0 0 10 10 1 1 98 0 0\n",
		  "line 3: bad value '99999999999999999999999999' for free" },
		{ " 1  0      0 9007199254740992 100 2000 0 0 0 0 10 10 1 1 98 0 0\n",
		  "line 3: bad value '9007199254740992' for free" },
		{ " 1  0      0   1000    100   2000    0    0   1.5     0   10   10  1  1 98  0  0\n",
		  "line 3: bad value '1.5' for bi" },
		{ " 1 -1      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n",
		  "line 3: bad value '-1' for b" },
	};
	struct collector *c = calloc(1, sizeof(*c));
	struct vmstat_text_info in;
	char text[1024], err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(c, 0, sizeof(*c));
		snprintf(text, sizeof(text), "%s%s", head, bad[i].row);
		assert_int_equal(parse_text(text, NULL, c, &in, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, bad[i].err));
		assert_int_equal(c->nrows, 1);
	}
	/* 2^53 - 1 is the largest; us 250 and wa -3 are kept as printed */
	memset(c, 0, sizeof(*c));
	snprintf(text, sizeof(text), "%s%s", head,
		 " 1  0      0 9007199254740991 100 2000 0 0 0 0 10 10 250 1 98 -3 0\n");
	assert_int_equal(parse_text(text, NULL, c, &in, err, sizeof(err)), 0);
	assert_int_equal(c->nrows, 2);
	assert_true(c->rows[1].values[3] == 9007199254740991.0);
	assert_true(c->rows[1].values[12] == 250);
	assert_true(c->rows[1].values[15] == -3);
	free(c);
}

/* vmstat's header and a row of it */
#define VM_HDR " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
#define VM_ROW " 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0\n"

static void test_cut_last_line_and_stop(void **state)
{
	static const char text[] =
		VM_HDR VM_ROW VM_ROW " 1  0      0   1000    100   20";
	struct collector *c = calloc(1, sizeof(*c));
	struct vmstat_text_info in;
	char err[256];

	(void)state;
	assert_int_equal(parse_text(text, NULL, c, &in, err, sizeof(err)), 0);
	assert_int_equal(in.rows, 2);
	assert_true(in.truncated);

	memset(c, 0, sizeof(*c));
	c->stop_after = 1;
	assert_int_equal(parse_text(text, NULL, c, &in, err, sizeof(err)), -EIO);
	assert_int_equal(c->nrows, 1);
	free(c);
}

/* a log pasted from the terminal that ran `vmstat 1` ends in the echo of
 * the Ctrl-C that stopped it: its rows are read, the ^C line skipped */
static void test_ctrl_c(void **state)
{
	static const char text[] = VM_HDR VM_ROW VM_ROW "^C\n";
	struct collector *c = calloc(1, sizeof(*c));
	struct vmstat_text_info in;
	char err[256];

	(void)state;
	assert_int_equal(parse_text(text, NULL, c, &in, err, sizeof(err)), 0);
	assert_int_equal(in.rows, 2);
	assert_int_equal(in.skipped_lines, 1);
	/* a ^C with more after it on the line is still no vmstat line */
	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(VM_HDR "^C 1 0\n", NULL, c,
				    &in, err, sizeof(err)), -EINVAL);
	free(c);
}

static void test_dates(void **state)
{
	int64_t ns, want = 1567008121LL * 1000000000;   /* 2019-08-28 16:02:01 */

	(void)state;
	assert_int_equal(vmstat_text_parse_date("Wed Aug 28 16:02:01 IST 2019", &ns), 0);
	assert_true(ns == want);
	assert_int_equal(vmstat_text_parse_date("Wed 28 Aug 2019 04:02:01 PM IST", &ns), 0);
	assert_true(ns == want);
	assert_int_equal(vmstat_text_parse_date("2019-08-28 16:02:01", &ns), 0);
	assert_true(ns == want);
	assert_int_equal(vmstat_text_parse_date("2019-08-28T16:02:01+05:30", &ns), 0);
	assert_true(ns == want);
	assert_int_equal(vmstat_text_parse_date("Mon Mar  4 10:00:00 UTC 2019", &ns), 0);
	assert_true(ns == 1551693600LL * 1000000000);
	assert_int_equal(vmstat_text_parse_date("real 0m1.2s", &ns), -1);
	assert_int_equal(vmstat_text_parse_date(" 1  0  0 1000 100 2000", &ns), -1);
	assert_int_equal(vmstat_text_parse_date("procs ---memory---", &ns), -1);
	/* an int64_t of ns ends at 2262-04-11 23:47:16.854775807 UTC: a later
	 * date is one, but not one iotape stores (it wrapped to 1677) */
	assert_int_equal(vmstat_text_parse_date("2262-04-11 23:47:16", &ns), 0);
	assert_true(ns == 9223372036LL * 1000000000);
	assert_int_equal(vmstat_text_parse_date("2262-04-11 23:47:17", &ns), -2);
	assert_int_equal(vmstat_text_parse_date("2400-11-30 06:10:27", &ns), -2);
	assert_int_equal(vmstat_text_parse_date("Wed Aug 28 16:02:01 IST 9999", &ns), -2);
	assert_int_equal(vmstat_text_parse_date("0001-01-01 00:00:00", &ns), -2);
}

/* Rows stamped (vmstat -t) after 2262, and a date line after it: refused
 * naming the line, never stored as a time wrapped to 1677. */
static void test_dates_out_of_range(void **state)
{
	struct collector *c = calloc(1, sizeof(*c));
	struct vmstat_text_info in;
	char err[512];
	static const char stamped[] =
		"procs -----------memory---------- ---swap-- -----io---- -system-- "
		"------cpu----- -----timestamp-----\n"
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us "
		"sy id wa st                 UTC\n"
		" 6  0      0 22145792  50328 2371304    0    0 47938  5186 1551 28228 "
		"16 15 69  0  0 2400-11-30 06:10:27\n";
	static const char dated[] =
		"Wed Aug 28 16:02:01 IST 2400\n"
		"procs -----------memory---------- ---swap-- -----io---- -system-- "
		"------cpu-----\n"
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us "
		"sy id wa st\n"
		" 6  0      0 22145792  50328 2371304    0    0 47938  5186 1551 28228 "
		"16 15 69  0  0\n";
	(void)state;

	assert_non_null(c);
	assert_int_equal(parse_text(stamped, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "paste.txt: line 3: timestamp '2400-11-30 "
			    "06:10:27' is outside the times iotape stores "
			    "(1677-09-21 to 2262-04-11 UTC, 2^63 ns either side "
			    "of 1970)");
	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_text(dated, NULL, c, &in, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "paste.txt: line 1: date 'Wed Aug 28 "
			       "16:02:01 IST 2400' is outside the times"));
	free(c);
}

static void test_sniff(void **state)
{
	static const char yes[] =
		"Wed Aug 28 16:02:01 IST 2019\n"
		"procs -----------memory---------- ---swap-- -----io---- -system-- ----cpu----\n"
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa\n";
	static const char yes_t[] =
		" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 CET\n";
	static const char no1[] = "  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]\n";
	static const char no2[] = "procs -----------memory----------\n";
	static const uint8_t bin[] = { 0x07, 0x74, 0x61, 0x65, 0, 0, 0, 0, ' ', 'r', ' ', 'b' };

	(void)state;
	assert_int_equal(vmstat_text_sniff((const uint8_t *)yes, strlen(yes)), 1);
	assert_int_equal(vmstat_text_sniff((const uint8_t *)yes_t, strlen(yes_t)), 1);
	assert_int_equal(vmstat_text_sniff((const uint8_t *)no1, strlen(no1)), 0);
	assert_int_equal(vmstat_text_sniff((const uint8_t *)no2, strlen(no2)), 0);
	assert_int_equal(vmstat_text_sniff(bin, sizeof(bin)), 0);
	assert_int_equal(vmstat_text_sniff((const uint8_t *)"", 0), 0);
	assert_int_equal(vmstat_text_sniff_file("/nonexistent"), 0);
	assert_int_equal(vmstat_text_sniff_file("/"), 0);
}

/* The corpus logs (skipped when the corpus is absent). */
static void test_corpus(void **state)
{
	struct collector *c = malloc(sizeof(*c));
	struct vmstat_text_info in;
	int rc;

	(void)state;
	memset(c, 0, sizeof(*c));
	rc = parse_file(corpus_path("vmstat-ramindin-blocks/vmstat.log"), NULL, c, &in);
	if (rc == -ENOENT) {
		print_message("corpus absent: %s\n", corpus_path(""));
		free(c);
		skip();
	}
	/* 209 `date` + `vmstat 10 7` blocks, one cut to 4 rows, 16 columns */
	assert_int_equal(rc, 0);
	assert_int_equal(in.rows, 1460);
	assert_int_equal(in.blocks, 209);
	assert_int_equal(in.boot_rows, 209);
	assert_int_equal(in.date_lines, 209);
	assert_int_equal(c->rows[0].r.ncol, 16);
	assert_false(in.frozen_memory);
	assert_true(c->rows[7].r.since_boot);
	assert_true(val(c, 7, "si") == 50);

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_file(corpus_path("vmstat-marionavarra-timestamped/vmstat.log"),
				    NULL, c, &in), 0);
	assert_int_equal(in.rows, 7977);
	assert_int_equal(in.headers, 380);
	assert_int_equal(in.boot_rows, 1);
	assert_string_equal(in.zone, "CET");
	assert_int_equal(in.stamp_step_ns, 1000000000);
	assert_false(in.frozen_memory);

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_file(corpus_path("seed-debsums-patch/one-disk/vmstat.log"),
				    NULL, c, &in), 0);
	assert_int_equal(in.rows, 7);
	assert_false(in.frozen_memory);

	memset(c, 0, sizeof(*c));
	assert_int_equal(parse_file(corpus_path("seed-debsums-patch/one-disk/vmstat-continuous.log"),
				    NULL, c, &in), 0);
	assert_int_equal(in.rows, 8);
	assert_true(in.frozen_memory);
	free(c);
}

static struct store *temp_store(char *path, size_t len)
{
	struct store *st = NULL;
	int fd;

	snprintf(path, len, "%s/iotape-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(store_open(&st, path, 1), 0);
	return st;
}

/* The run's vmstat rows from source: how many, and their since_boot sum. */
static int64_t vm_rows(struct store *st, int64_t run, enum store_vm_source source,
		       int64_t *since_boot)
{
	struct store_cursor *cur;
	struct store_vmstat vm;
	int64_t n = 0, sb = 0;
	int step;

	assert_int_equal(store_vmstat_open(st, run, source, &cur), 0);
	while ((step = store_vmstat_next(cur, &vm)) > 0) {
		n++;
		sb += vm.since_boot;
	}
	store_cursor_close(cur);
	assert_int_equal(step, 0);
	if (since_boot)
		*since_boot = sb;
	return n;
}

/* How many distinct times the run's samples have. */
static int64_t sample_times(struct store *st, int64_t run)
{
	struct store_cursor *cur;
	struct store_sample smp;
	int64_t n = 0, last = 0;
	int step;

	assert_int_equal(store_samples_open(st, run, NULL, &cur), 0);
	while ((step = store_samples_next(cur, &smp)) > 0) {
		n += !n || smp.time_ns != last;
		last = smp.time_ns;
	}
	store_cursor_close(cur);
	assert_int_equal(step, 0);
	return n;
}

/* Import into a new run and into an existing one; the vmstat view. */
static void test_import_store(void **state)
{
	struct import_opts o = { .quiet = 1 };
	struct run_info ri = { .name = "trace", .kind = "import" };
	char path[4096], err[512] = "";
	struct store *st = temp_store(path, sizeof(path));
	int64_t run, trace, n;
	struct store_run r;

	(void)state;
	assert_int_equal(store_begin(st), 0);
	/* a new run: times are the log's wall clock */
	assert_int_equal(import_vmstat_log(st, &o, repo_path("tests/fixtures/vmstat/timestamped-1-3.log"),
					   NULL, &run, err, sizeof(err)), 0);
	assert_int_equal(vm_rows(st, run, STORE_VM_ALL, &n), 3);
	assert_int_equal(n, 1);   /* since_boot rows */
	assert_int_equal(store_run_get(st, run, &r), 0);
	assert_true(r.genesis_ns == 1796019027LL * 1000000000);

	/* an existing run (genesis 5 s) gets a log without times: index x 2 s */
	assert_int_equal(store_run_create(st, &ri, &trace), 0);
	assert_int_equal(store_run_finish(st, trace, "complete", 5000000000), 0);
	o.interval_s = 2;
	assert_int_equal(import_vmstat_log(st, &o, repo_path("tests/fixtures/vmstat/plain-1-3.log"),
					   "trace", &run, err, sizeof(err)), 0);
	assert_true(run == trace);
	{
		struct store_cursor *cur;
		struct store_vmstat vm;
		assert_int_equal(store_vmstat_open(st, trace, STORE_VM_ALL, &cur), 0);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(store_vmstat_next(cur, &vm), 1);
			assert_true(vm.time_ns == 5000000000LL + i * 2000000000LL);
			assert_int_equal(vm.since_boot, i == 0);
			assert_int_equal((int64_t)vm.v[STORE_VM_FREE], 22145792);
		}
		assert_int_equal(store_vmstat_next(cur, &vm), 0);
		store_cursor_close(cur);
	}
	/* a second log for the same run is refused */
	assert_int_equal(import_vmstat_log(st, &o, repo_path("tests/fixtures/vmstat/plain-1-3.log"),
					   "trace", &run, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "already has"));
	/* not vmstat output: the error names the file and line */
	assert_int_equal(import_vmstat_log(st, &o, repo_path("tests/fixtures/vmstat/README.md"),
					   NULL, &run, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "README.md: line 3: not vmstat output"));
	/* date blocks share a time at a block's end: times stay increasing */
	o.interval_s = 2;
	assert_int_equal(import_vmstat_log(st, &o, repo_path("tests/fixtures/vmstat/date-blocks.log"),
					   "blocks", &run, err, sizeof(err)), 0);
	assert_int_equal(vm_rows(st, run, STORE_VM_LOG, NULL), 6);
	assert_int_equal(sample_times(st, run), 6);

	/* `time` reports become commands ending at the row before them */
	{
		char log[4200];
		FILE *fp;
		int fd;
		snprintf(log, sizeof(log), "%s.paste", path);
		fd = open(log, O_CREAT | O_WRONLY | O_TRUNC, 0600);
		assert_true(fd >= 0);
		fp = fdopen(fd, "w");
		fputs(paste, fp);
		fclose(fp);
		o.interval_s = 0;
		assert_int_equal(import_vmstat_log(st, &o, log, "paste", &run, err,
						   sizeof(err)), 0);
		unlink(log);
		{
			struct store_command *cmd;
			size_t ncmd;
			assert_int_equal(store_commands_get(st, run, &cmd, &ncmd), 0);
			assert_int_equal(ncmd, 3);
			assert_int_equal(cmd[0].idx, 0);
			assert_int_equal(cmd[0].end_ns - cmd[0].start_ns, 1004000000);
			assert_int_equal(cmd[0].end_ns, 1000000000);   /* the 2nd row, 1 s apart */
			assert_int_equal(cmd[1].idx, 1);
			assert_int_equal(cmd[1].status * 1000 + lround(cmd[1].sys_s * 1000),
					 3020);
			free(cmd);
		}
	}
	assert_int_equal(store_commit(st), 0);
	store_close(st);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_timestamped),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_date_blocks),
		cmocka_unit_test(test_repeated_headers_and_frozen),
		cmocka_unit_test(test_frozen_rules),
		cmocka_unit_test(test_paste_with_time),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cut_last_line_and_stop),
		cmocka_unit_test(test_ctrl_c),
		cmocka_unit_test(test_dates),
		cmocka_unit_test(test_dates_out_of_range),
		cmocka_unit_test(test_value_ranges),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_import_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
