/* Unit tests of the import format table (import/formats.c) and its parsers
 * (import/fmt_*.c): each fixture (tests/fixtures/import, written from the
 * formats' documented layouts by tests/fixtures/make-import-fixtures.py) is
 * sniffed as its format whatever its name, parsed into the records its
 * documentation says (checked against numbers worked out by hand from the
 * fixture's lines), bad fixtures fail naming their line; fio's own t0038
 * iolog is read from ../shared/corpus when it is there. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "import/formats.h"

#define MAX_KEEP 64
#define MAX_STATS 16

struct got {
	struct fmt_io io[MAX_KEEP];
	char stream[MAX_KEEP][64];
	char device[MAX_KEEP][64];    /* io->device is valid in the call only */
	uint64_t nio, nq, nc, nd, bytes, reads, writes, discards, flushes;
	struct fmt_sample s[MAX_KEEP * 4];
	char key[MAX_KEEP * 4][64];
	uint64_t ns;
	struct fmt_command c[16];
	char argv[16][200];
	int nc_cmd;
	int notes, stats;
	char stat_key[MAX_STATS][48], stat_val[MAX_STATS][32];
};

static int g_io(void *ctx, const struct fmt_io *io)
{
	struct got *g = ctx;

	if (g->nio < MAX_KEEP) {
		g->io[g->nio] = *io;
		snprintf(g->stream[g->nio], sizeof(g->stream[0]), "%s",
			 io->stream ? io->stream : "");
		snprintf(g->device[g->nio], sizeof(g->device[0]), "%s",
			 io->device ? io->device : "");
	}
	g->nio++;
	g->nq += io->q_ns != FMT_NO_TIME;
	g->nd += io->d_ns != FMT_NO_TIME;
	g->nc += io->c_ns != FMT_NO_TIME;
	g->bytes += io->bytes;
	g->reads += (io->cats & BT_C_READ) != 0;
	g->writes += (io->cats & BT_C_WRITE) && !(io->cats & BT_C_FLUSH);
	g->discards += (io->cats & BT_C_DISCARD) != 0;
	g->flushes += (io->cats & BT_C_FLUSH) != 0;
	return 0;
}

static int g_sample(void *ctx, const struct fmt_sample *s)
{
	struct got *g = ctx;

	if (g->ns < MAX_KEEP * 4) {
		g->s[g->ns] = *s;
		snprintf(g->key[g->ns], sizeof(g->key[0]), "%s", s->key);
	}
	g->ns++;
	return 0;
}

static int g_command(void *ctx, const struct fmt_command *c)
{
	struct got *g = ctx;

	if (g->nc_cmd < 16) {
		g->c[g->nc_cmd] = *c;
		snprintf(g->argv[g->nc_cmd], sizeof(g->argv[0]), "%s",
			 c->argv ? c->argv : "");
	}
	g->nc_cmd++;
	return 0;
}

static int g_note(void *ctx, const char *t) { (void)t; ((struct got *)ctx)->notes++; return 0; }
static int g_stat(void *ctx, const char *k, const char *v)
{
	struct got *g = ctx;

	if (g->stats < MAX_STATS) {
		snprintf(g->stat_key[g->stats], sizeof(g->stat_key[0]), "%s", k);
		snprintf(g->stat_val[g->stats], sizeof(g->stat_val[0]), "%s", v);
	}
	g->stats++;
	return 0;
}

/* The value of run_stats key k the last parse gave, or "(none)". */
static const char *stat_of(const struct got *g, const char *k)
{
	for (int i = 0; i < g->stats && i < MAX_STATS; i++)
		if (!strcmp(g->stat_key[i], k))
			return g->stat_val[i];
	return "(none)";
}

static const char *fixture(const char *rel)
{
	static char path[4096];
	const char *root = getenv("REPO_ROOT");

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", root ? root : ".", rel);
	return path;
}

/* A file of the corpus ($IOTAPE_CORPUS, else ../shared/corpus from the repo). */
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

/* Parses fp with format name into a fresh *g; returns the parse's result. */
static int parse_fp(const char *name, FILE *fp, struct got *g, int split,
		    char *err, size_t errlen)
{
	const struct import_format *f = import_format_find(name);
	struct fmt_sink sink = { g_io, g_sample, g_command, g_note, g_stat, g };
	struct fmt_opts o = { .split = split };

	assert_non_null(f);
	assert_non_null(f->parse);
	memset(g, 0, sizeof(*g));
	err[0] = '\0';
	return f->parse(fp, "test", &o, &sink, err, errlen);
}

static int parse_path(const char *name, const char *path, struct got *g,
		      int split, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	int rc;

	assert_non_null(fp);
	rc = parse_fp(name, fp, g, split, err, errlen);
	fclose(fp);
	return rc;
}

static int parse_file(const char *name, const char *rel, struct got *g,
		      char *err, size_t errlen)
{
	return parse_path(name, fixture(rel), g, 0, err, errlen);
}

static int parse_text(const char *name, const char *text, struct got *g,
		      char *err, size_t errlen)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(fp);
	rc = parse_fp(name, fp, g, 0, err, errlen);
	fclose(fp);
	return rc;
}

static const char *sniffed(const char *path)
{
	const struct import_format *f = import_format_sniff_file(path);
	return f ? f->name : "(none)";
}

/* ns since the epoch of a printed local time read as UTC (timegm(3)). */
static int64_t utc_ns(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
			 .tm_hour = h, .tm_min = mi, .tm_sec = s };
	return (int64_t)timegm(&tm) * 1000000000;
}

static void test_sniff(void **state)
{
	static const struct { const char *file, *fmt; } t[] = {
		{ "import/fio-v3.iolog", "fio-iolog" },
		{ "import/fio-v2.iolog", "fio-iolog" },
		{ "import/msr-web.csv", "msr-csv" },
		{ "import/systor17.csv", "systor17-csv" },
		{ "import/cloudphysics.csv", "cloudphysics-csv" },
		{ "import/blkreplay.load", "blkreplay-load" },
		{ "import/blkreplay-results.load", "blkreplay-load" },
		{ "import/iostat-x-12.log", "iostat-text" },
		{ "import/iostat-x-12-pretty.log", "iostat-text" },
		{ "import/iostat-xmt-11.log", "iostat-text" },
		{ "import/iostat-dx-comma.log", "iostat-text" },
		{ "import/iostat-d-iso.log", "iostat-text" },
		{ "import/time-bash-dd.txt", "time-text" },
		{ "import/time-gnu-zsh-dd.txt", "time-text" },
		{ "bad/fio-v3-bad-offset.iolog", "fio-iolog" },
		{ "bad/msr-bad-type.csv", "msr-csv" },
		{ "bad/systor17-short-line.csv", "systor17-csv" },
		{ "bad/cloudphysics-bad-lbn.csv", "cloudphysics-csv" },
		{ "bad/blkreplay-bad-op.load", "blkreplay-load" },
		{ "bad/iostat-short-row.log", "iostat-text" },
		{ "bad/time-bad-real.txt", "time-text" },
		{ "loop-fio-small.bin", "blktrace" },
		{ "bad/badmagic.bin", "blktrace" },
		{ "vmstat/timestamped-1-3.log", "vmstat-text" },
		{ "vmstat/date-blocks.log", "vmstat-text" },
		/* iostat -c only (no device table) is no format iotape reads */
		{ "bad/not-blkparse.txt", "(none)" },
	};
	static const char msr_head[] = "Timestamp,Hostname,DiskNumber,Type,"
		"Offset,Size,ResponseTime\n";
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = sniffed(fixture(t[i].file));
		if (strcmp(got, t[i].fmt))
			fail_msg("%s sniffed as %s, want %s", t[i].file, got, t[i].fmt);
	}
	/* content, not name: a CSV header alone decides */
	assert_string_equal(import_format_sniff((const uint8_t *)"version,time,op,size,lbn\n",
						25)->name, "cloudphysics-csv");
	assert_string_equal(import_format_sniff((const uint8_t *)msr_head,
						sizeof(msr_head) - 1)->name, "msr-csv");
	assert_null(import_format_sniff((const uint8_t *)"hello\n", 6));
}

static void test_fio(void **state)
{
	struct got *g = malloc(sizeof(*g));
	char err[256];
	(void)state;

	/* v3: two files, every action, times in us since the job started */
	assert_int_equal(parse_file("fio-iolog", "import/fio-v3.iolog", g, err,
				    sizeof(err)), 0);
	assert_int_equal(g->nio, 10);
	assert_int_equal(g->reads, 3);
	assert_int_equal(g->writes, 3);
	assert_int_equal(g->discards, 2);
	assert_int_equal(g->flushes, 2);
	/* 4096 + 2 x 2 GiB + 65536 + 8192 + 4096 + 131072 + 512 */
	assert_int_equal(g->bytes, 2 * 2147483648ull + 213504);
	assert_int_equal(g->io[0].q_ns, 1000000);           /* 1000 us */
	assert_int_equal(g->io[0].cats, BT_C_WRITE);
	assert_string_equal(g->device[0], "/dev/sdb");
	assert_int_equal(g->io[0].dev, FMT_DEV(1));
	assert_int_equal(g->io[1].cats, BT_C_DISCARD);
	assert_int_equal(g->io[1].sector, 4096 / 512);
	assert_int_equal(g->io[1].bytes, 2147483648u);
	assert_string_equal(g->device[2], "/dev/sdc");
	assert_int_equal(g->io[2].dev, FMT_DEV(2));
	assert_int_equal(g->io[2].sector, 1048576 / 512);
	assert_int_equal(g->io[4].sector, 1050000 / 512);   /* rounded down */
	assert_int_equal(g->io[5].sector, 2147487744ull / 512);
	assert_int_equal(g->io[6].bytes, 0);                /* sync */
	assert_true(g->io[6].cats & BT_C_FLUSH);
	assert_true(g->io[7].cats & BT_C_FLUSH);            /* datasync */
	assert_int_equal(g->io[8].sector, 6442450944ull / 512);
	assert_int_equal(g->io[9].q_ns, 3321000);
	assert_int_equal(g->nc, 0);
	assert_int_equal(g->notes, 5);     /* mapping, 2 opens, 2 closes */
	assert_string_equal(stat_of(g, "fio_iolog.unaligned_offsets"), "1");
	assert_string_equal(stat_of(g, "fio_iolog.files"), "2");

	/* v2: issue order 1 us apart; a wait holds I/O until OFFSET ms after
	 * the start, and one whose time has passed holds nothing */
	assert_int_equal(parse_file("fio-iolog", "import/fio-v2.iolog", g, err,
				    sizeof(err)), 0);
	assert_int_equal(g->nio, 7);
	assert_int_equal(g->io[0].q_ns, 0);
	assert_int_equal(g->io[1].q_ns, 1000);
	assert_int_equal(g->io[2].q_ns, 250000000);
	assert_int_equal(g->io[2].cats, BT_C_DISCARD);
	assert_int_equal(g->io[2].sector, 2048);
	assert_int_equal(g->io[3].bytes, 0);
	assert_true(g->io[3].cats & BT_C_FLUSH);
	assert_int_equal(g->io[4].q_ns, 250000000 + 2000);
	assert_int_equal(g->io[5].q_ns, 250000000 + 3000);  /* after wait 100 */
	assert_int_equal(g->io[6].q_ns, 400000000);
	assert_int_equal(g->notes, 3);
	assert_string_equal(stat_of(g, "fio_iolog.waits"), "3");

	/* errors name the line */
	assert_int_equal(parse_text("fio-iolog", "fio version 3 iolog\n"
		"0 f add\n5 f wait 10 0\n", g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 3"));
	assert_int_equal(parse_text("fio-iolog", "fio version 1 iolog\n", g, err,
				    sizeof(err)), -EINVAL);
	assert_int_equal(parse_file("fio-iolog", "bad/fio-v3-bad-offset.iolog", g,
				    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 9: bad offset '8I92'"));
	free(g);
}

/* fio's own regression log t0038 (corpus): 10 trims of 2 GiB between 10
 * writes of 4 KiB on /dev/null, the first I/O at 10736 us */
static void test_fio_corpus(void **state)
{
	struct got *g;
	char err[256];
	FILE *fp = fopen(corpus_path("fio-t0038-iolog/t0038.iolog"), "r");
	(void)state;

	if (!fp) {
		print_message("corpus absent: %s\n", corpus_path("fio-t0038-iolog"));
		skip();
	}
	g = malloc(sizeof(*g));
	assert_int_equal(parse_fp("fio-iolog", fp, g, 0, err, sizeof(err)), 0);
	fclose(fp);
	assert_string_equal(sniffed(corpus_path("fio-t0038-iolog/t0038.iolog")),
			    "fio-iolog");
	assert_int_equal(g->nio, 20);
	assert_int_equal(g->discards, 10);
	assert_int_equal(g->writes, 10);
	assert_int_equal(g->bytes, 10ull * 2147483648ull + 10 * 4096);
	assert_int_equal(g->io[0].q_ns, 10736000);
	assert_int_equal(g->io[1].sector, 0);
	assert_int_equal(g->io[3].sector, 4096 / 512);
	assert_string_equal(g->device[0], "/dev/null");
	assert_int_equal(g->nc, 0);
	assert_int_equal(g->notes, 3);                      /* mapping, open, close */
	free(g);
}

static void test_snia(void **state)
{
	struct got *g = malloc(sizeof(*g));
	char err[256];
	(void)state;

	/* line 1: 128166372001234567,web,0,Write,8599642112,4096,12034 */
	assert_int_equal(parse_file("msr-csv", "import/msr-web.csv", g, err,
				    sizeof(err)), 0);
	assert_int_equal(g->nio, 48);
	assert_int_equal(g->nc, 48);
	assert_int_equal(g->nd, 0);
	assert_int_equal(g->io[0].q_ns,
			 (int64_t)(128166372001234567ull - 116444736000000000ull) * 100);
	assert_int_equal(g->io[0].c_ns - g->io[0].q_ns, 1203400);
	assert_int_equal(g->io[0].sector, 8599642112ull / 512);
	assert_int_equal(g->io[0].bytes, 4096);
	assert_int_equal(g->io[0].cats, BT_C_WRITE);
	assert_int_equal(g->io[0].dev, FMT_DEV(0));
	assert_string_equal(g->stream[0], "web");
	/* line 2: 128166372001240311,web,1,Read,1073741824,65536,4470 */
	assert_int_equal(g->io[1].cats, BT_C_READ);
	assert_int_equal(g->io[1].dev, FMT_DEV(1));
	assert_int_equal(g->io[1].sector, 2097152);
	assert_int_equal(g->io[1].c_ns - g->io[1].q_ns, 447000);
	assert_string_equal(g->stream[1], "web");
	/* lines 12 and 13: two writes at one sector, both in flight */
	assert_int_equal(g->io[11].sector, g->io[12].sector);
	assert_true(g->io[12].q_ns < g->io[11].c_ns);
	/* --split: per disk */
	assert_int_equal(parse_path("msr-csv", fixture("import/msr-web.csv"), g, 1,
				    err, sizeof(err)), 0);
	assert_string_equal(g->stream[0], "web_0");
	assert_string_equal(g->stream[1], "web_1");
	/* a header line is allowed */
	assert_int_equal(parse_text("msr-csv", "Timestamp,Hostname,DiskNumber,Type,"
		"Offset,Size,ResponseTime\n128166372001234567,db,3,Read,512,512,10\n",
		g, err, sizeof(err)), 0);
	assert_int_equal(g->nio, 1);
	assert_int_equal(g->io[0].dev, FMT_DEV(3));
	assert_int_equal(parse_file("msr-csv", "bad/msr-bad-type.csv", g, err,
				    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 3: bad Type"));

	/* line 2: 1480000000.000017000,0.000806000,R,0,1099511627776,131072;
	 * 40 lines, one with no response */
	assert_int_equal(parse_file("systor17-csv", "import/systor17.csv", g,
				    err, sizeof(err)), 0);
	assert_int_equal(g->nio, 39);
	assert_int_equal(g->nc, 39);
	assert_string_equal(stat_of(g, "systor_csv.no_response"), "1");
	assert_int_equal(g->io[0].q_ns, 1480000000000017000ll);
	assert_int_equal(g->io[0].c_ns - g->io[0].q_ns, 806000);
	assert_int_equal(g->io[0].sector, 1099511627776ull / 512);
	assert_int_equal(g->io[0].bytes, 131072);
	assert_int_equal(g->io[0].cats, BT_C_READ);
	assert_string_equal(g->stream[0], "");
	/* line 3: 1480000000.000020000,0.018646000,R,1,... */
	assert_int_equal(g->io[1].dev, FMT_DEV(1));
	assert_int_equal(g->io[1].c_ns - g->io[1].q_ns, 18646000);
	assert_int_equal(parse_path("systor17-csv", fixture("import/systor17.csv"),
				    g, 1, err, sizeof(err)), 0);
	assert_string_equal(g->stream[0], "lun0");
	assert_string_equal(g->stream[1], "lun1");
	assert_int_equal(parse_file("systor17-csv", "bad/systor17-short-line.csv", g,
				    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 4: not 6 fields"));
	free(g);
}

static void test_cloudphysics_blkreplay(void **state)
{
	struct got *g = malloc(sizeof(*g));
	char err[256];
	(void)state;

	/* 38 records: 15 WRITE(10) 2a, 12 READ(10) 28, 3 READ(16) 88,
	 * 3 WRITE(16) 8a, 2 SYNCHRONIZE CACHE 35, 1 UNMAP 42, 1 INQUIRY 12 and
	 * 1 MODE SENSE 1a (no I/O); line 2: 1,4211000,2a,4096,73400320 */
	assert_int_equal(parse_file("cloudphysics-csv", "import/cloudphysics.csv",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->nio, 36);
	assert_int_equal(g->reads, 15);
	assert_int_equal(g->writes, 18);
	assert_int_equal(g->flushes, 2);
	assert_int_equal(g->discards, 1);
	assert_string_equal(stat_of(g, "cloudphysics_csv.other_ops"), "2");
	assert_int_equal(g->io[0].q_ns, 4211000ll * 1000000000);
	assert_int_equal(g->io[0].sector, 73400320);
	assert_int_equal(g->io[0].bytes, 4096);
	assert_int_equal(g->io[0].cats, BT_C_WRITE);
	assert_int_equal(g->nc, 0);
	assert_int_equal(parse_file("cloudphysics-csv", "bad/cloudphysics-bad-lbn.csv",
				    g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 4: bad lbn"));

	/* line 8: 0.004118250 ; 31457280 ; 16 ; R ; 0.0 ; 0.0 */
	assert_int_equal(parse_file("blkreplay-load", "import/blkreplay.load",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->nio, 30);
	assert_int_equal(g->io[0].q_ns, 0);
	assert_int_equal(g->io[0].cats, BT_C_WRITE);
	assert_int_equal(g->io[1].q_ns, 4118250);
	assert_int_equal(g->io[1].sector, 31457280);
	assert_int_equal(g->io[1].bytes, 16 * 512);
	assert_int_equal(g->io[1].cats, BT_C_READ);
	assert_int_equal(g->nc, 0);
	assert_string_equal(stat_of(g, "blkreplay.text_lines"), "6");
	assert_string_equal(stat_of(g, "blkreplay.action_char"), "Q");
	/* blkreplay's result lines: Q at start + delay, C a duration later;
	 * D times when action_char says so */
	assert_int_equal(parse_file("blkreplay-load", "import/blkreplay-results.load",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->nio, 3);
	assert_int_equal(g->io[0].q_ns, 1500200000);
	assert_int_equal(g->io[0].c_ns, 1504200000);
	assert_int_equal(g->io[1].d_ns, 2000000000);
	assert_int_equal(g->io[1].q_ns, FMT_NO_TIME);
	assert_int_equal(g->io[2].q_ns, 2251500000ll);
	assert_int_equal(g->io[2].c_ns, 2251500000ll + 12345678);
	assert_int_equal(g->io[2].bytes, 256 * 512);
	assert_string_equal(stat_of(g, "blkreplay.replayed"), "2");
	assert_int_equal(parse_file("blkreplay-load", "bad/blkreplay-bad-op.load", g,
				    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 12: bad op"));
	free(g);
}

static double sample(const struct got *g, uint64_t report, const char *key)
{
	for (uint64_t i = 0; i < g->ns && i < MAX_KEEP * 4; i++)
		if (g->s[i].report == report && !strcmp(g->key[i], key))
			return g->s[i].value;
	return NAN;
}

static int64_t wall(const struct got *g, uint64_t report)
{
	for (uint64_t i = 0; i < g->ns && i < MAX_KEEP * 4; i++)
		if (g->s[i].report == report)
			return g->s[i].wall_ns;
	return INT64_MIN;
}

static void test_iostat(void **state)
{
	struct got *g = malloc(sizeof(*g)), *p = malloc(sizeof(*p));
	char err[256];
	(void)state;

	/* sysstat 12.x `iostat -x`: 2 reports of avg-cpu (6) and 3 devices
	 * x 22 columns, no timestamps */
	assert_int_equal(parse_file("iostat-text", "import/iostat-x-12.log",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->ns, 2 * (6 + 3 * 22));
	assert_true(sample(g, 0, "sda:r/s") == 6.50);
	assert_true(sample(g, 0, "sda:%util") == 5.80);
	assert_true(sample(g, 0, "nvme0n1:dareq-sz") == 1024.00);
	assert_true(sample(g, 1, "nvme0n1:w_await") == 2.75);
	assert_true(sample(g, 1, "sda:wkB/s") == 76800.00);
	assert_true(sample(g, 0, "cpu:%iowait") == 4.55);
	assert_true(sample(g, 1, "cpu:%idle") == 60.25);
	assert_int_equal(g->s[0].since_boot, 1);   /* after the banner */
	assert_int_equal(g->s[g->ns - 1].since_boot, 0);
	assert_int_equal(g->s[0].wall_ns, -1);
	/* the same reports as --pretty prints them: the same samples */
	assert_int_equal(parse_file("iostat-text", "import/iostat-x-12-pretty.log",
				    p, err, sizeof(err)), 0);
	assert_int_equal(p->ns, g->ns);
	for (uint64_t i = 0; i < p->ns; i++)
		if (sample(g, p->s[i].report, p->key[i]) != p->s[i].value)
			fail_msg("--pretty report %d %s = %g", (int)p->s[i].report,
				 p->key[i], p->s[i].value);

	/* sysstat <= 11.5.6 `iostat -x -m -t`: Device: with a colon, 12-hour
	 * timestamps across noon; 3 reports of 6 + 2 x 13 values */
	assert_int_equal(parse_file("iostat-text", "import/iostat-xmt-11.log",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->ns, 3 * (6 + 2 * 13));
	assert_true(sample(g, 0, "sda:w/s") == 7135.00);
	assert_true(sample(g, 0, "sda:wMB/s") == 27.88);
	assert_true(sample(g, 1, "sda:avgqu-sz") == 0.81);
	assert_true(sample(g, 1, "sdb:svctm") == 0.40);
	assert_int_equal(wall(g, 0), utc_ns(2026, 11, 30, 11, 59, 58));
	assert_int_equal(wall(g, 1), utc_ns(2026, 11, 30, 12, 0, 1));   /* PM */
	assert_int_equal(wall(g, 2) - wall(g, 1), 3000000000ll);
	/* 12 AM is midnight */
	assert_int_equal(parse_text("iostat-text",
		"11/30/2026 11:59:59 PM\nDevice:  rrqm/s  r/s\nsda  0.00  1.00\n\n"
		"12/01/2026 12:00:02 AM\nDevice:  rrqm/s  r/s\nsda  0.00  2.00\n",
		g, err, sizeof(err)), 0);
	assert_int_equal(wall(g, 1) - wall(g, 0), 3000000000ll);

	/* 11.5.7's column set in a decimal-comma locale, -d (no avg-cpu):
	 * the repeated header starts the second report */
	assert_int_equal(parse_file("iostat-text", "import/iostat-dx-comma.log",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->ns, 2 * 2 * 15);
	assert_true(sample(g, 0, "sda:rkB/s") == 800.00);
	assert_true(sample(g, 1, "sda:wkB/s") == 28211.20);
	assert_true(sample(g, 1, "sda:%util") == 99.98);
	assert_int_equal(g->s[0].since_boot, 1);
	assert_int_equal(wall(g, 1), -1);

	/* no -x, S_TIME_FORMAT=ISO timestamps (the zone is not applied) */
	assert_int_equal(parse_file("iostat-text", "import/iostat-d-iso.log",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->ns, 2 * 2 * 7);
	assert_true(sample(g, 0, "nvme0n1:kB_wrtn") == 7219876);
	assert_true(sample(g, 1, "nvme0n1:kB_wrtn/s") == 17920.00);
	assert_int_equal(wall(g, 0), utc_ns(2026, 11, 30, 14, 5, 10));
	assert_int_equal(wall(g, 1) - wall(g, 0), 5000000000ll);

	assert_int_equal(parse_file("iostat-text", "bad/iostat-short-row.log", g, err,
				    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 8: a device row"));
	/* a timestamp after 2262 (an int64_t of ns ends there): refused with
	 * its line, never wrapped to a time in 1677 */
	assert_int_equal(parse_text("iostat-text", "2326-11-30T14:05:10+0100\n"
		"Device       tps  kB_read/s\nsda         1.60      12.80\n", g, err,
		sizeof(err)), -EINVAL);
	assert_string_equal(err, "test: line 1: timestamp '2326-11-30T14:05:10+0100' "
			    "is outside the times iotape stores (1677-09-21 to "
			    "2262-04-11 UTC, 2^63 ns either side of 1970)");
	assert_int_equal(parse_text("iostat-text", "2262-04-11 23:47:16\n"
		"Device       tps  kB_read/s\nsda         1.60      12.80\n", g, err,
		sizeof(err)), 0);
	assert_int_equal(wall(g, 0), 9223372036ll * 1000000000);
	free(p);
	free(g);
}

/* A paste of command line first (none when ""), three dd blocks of 128
 * MiB (1.217, 1.300 and 1.292 s), then bash's report of 3.816 s, into
 * text; returns text. */
static const char *dd_loop(char *text, size_t len, const char *first)
{
	static const char *const secs[] = { "1.21659", "1.29956", "1.29169" };
	size_t o = (size_t)snprintf(text, len, "%s%s", first, *first ? "\n" : "");

	for (int i = 0; i < 3; i++)
		o += (size_t)snprintf(text + o, len - o, "128+0 records in\n128+0 "
				      "records out\n134217728 bytes (134 MB, 128 "
				      "MiB) copied, %s s, 110 MB/s\n", secs[i]);
	snprintf(text + o, len - o, "\nreal\t0m3.816s\nuser\t0m0.005s\n"
		 "sys\t0m0.293s\n");
	return text;
}

static void test_time(void **state)
{
	struct got *g = malloc(sizeof(*g));
	char err[256], text[1024];
	(void)state;

	/* bash's time: `time dd ...; time sync; ...` twice over, 6 reports */
	assert_int_equal(parse_file("time-text", "import/time-bash-dd.txt",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 6);
	assert_string_equal(g->argv[0], "dd if=/dev/zero of=/mnt/scratch/f bs=1M count=2048");
	assert_string_equal(g->argv[1], "sync");
	assert_string_equal(g->argv[2], "dd if=/dev/zero of=/mnt/scratch/f bs=1M "
			    "count=2048 conv=fdatasync");
	assert_string_equal(g->argv[3], "sync");
	assert_string_equal(g->argv[4], "dd if=/mnt/scratch/f of=/dev/null bs=1M");
	assert_string_equal(g->argv[5], "dd if=/mnt/scratch/f of=/dev/null bs=1000000");
	assert_true(fabs(g->c[0].real_s - 3.921) < 1e-9);
	assert_true(fabs(g->c[0].user_s - 0.004) < 1e-9);
	assert_true(fabs(g->c[0].sys_s - 1.618) < 1e-9);
	assert_int_equal(g->c[0].dd_out_full, 2048);
	assert_int_equal(g->c[0].dd_bytes, 2147483648ll);
	assert_true(fabs(g->c[0].dd_s - 3.91546) < 1e-9);
	assert_true(fabs(g->c[0].dd_rate - 548e6) < 1);
	assert_int_equal(g->c[1].dd_out_full, -1);       /* sync ran no dd */
	assert_true(fabs(g->c[1].real_s - 21.407) < 1e-9);
	assert_true(fabs(g->c[2].dd_rate - 89.3e6) < 1);
	assert_true(fabs(g->c[4].real_s - 62.121) < 1e-9);   /* 1m2.121s */
	assert_int_equal(g->c[5].dd_in_full, 2147);
	assert_int_equal(g->c[5].dd_in_partial, 1);
	assert_int_equal(g->c[5].dd_bytes, -1);          /* no bytes line */
	assert_true(fabs(g->c[5].real_s - 61.53) < 1e-9);

	/* GNU time's default and -v, bash's time -p, zsh's, dd alone */
	assert_int_equal(parse_file("time-text", "import/time-gnu-zsh-dd.txt",
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 6);
	assert_string_equal(g->argv[0], "dd if=/dev/zero of=/mnt/small/g bs=1M count=300");
	assert_int_equal(g->c[0].status, 1);
	assert_true(fabs(g->c[0].real_s - 1.91) < 1e-9);
	assert_true(fabs(g->c[0].sys_s - 0.19) < 1e-9);
	assert_int_equal(g->c[0].dd_in_full, 257);
	assert_int_equal(g->c[0].dd_out_full, 256);
	assert_int_equal(g->c[0].dd_bytes, 268435456);
	assert_true(fabs(g->c[0].dd_rate - 141e6) < 1);
	assert_string_equal(g->argv[1], "dd if=/dev/nvme0n1 of=/dev/null bs=4k "
			    "count=262144 iflag=direct");
	assert_int_equal(g->c[1].status, 0);
	assert_true(fabs(g->c[1].real_s - 8.51) < 1e-9);
	assert_true(fabs(g->c[1].user_s - 0.09) < 1e-9);
	assert_true(fabs(g->c[1].sys_s - 1.87) < 1e-9);
	assert_true(fabs(g->c[1].dd_rate - 126e6) < 1);
	/* time -p's option is not the command; -v's queued line was taken */
	assert_string_equal(g->argv[2], "sync");
	assert_true(fabs(g->c[2].real_s - 4.17) < 1e-9);
	/* zsh names the job in its report */
	assert_string_equal(g->argv[3], "dd if=/dev/zero of=/mnt/scratch/z bs=64k count=1600");
	assert_true(fabs(g->c[3].real_s - 2.417) < 1e-9);
	assert_true(fabs(g->c[3].sys_s - 0.29) < 1e-9);
	/* dd with no time report: commands timed by dd */
	assert_true(isnan(g->c[4].real_s));
	assert_int_equal(g->c[4].dd_bytes, 4096);
	assert_true(fabs(g->c[4].dd_s - 0.0287114) < 1e-12);
	assert_true(fabs(g->c[4].dd_rate - 143e3) < 1e-6);
	assert_true(isnan(g->c[5].real_s));
	assert_true(fabs(g->c[5].dd_s - 0.000512) < 1e-12);
	assert_true(fabs(g->c[5].dd_rate - 8000000) < 1e-6);
	assert_int_equal(parse_file("time-text", "bad/time-bad-real.txt", g, err,
				    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 19: bad real time"));

	/* `time (for i in 1 2 3; do dd ...; done)`: three dd one after
	 * another, their seconds (3.808 s) about the report's real time: one
	 * command, the loop, with dd's bytes, records and seconds added up,
	 * not two timed by dd and the third the report's */
	assert_int_equal(parse_text("time-text", dd_loop(text, sizeof(text),
		"$ time (for i in 1 2 3; do dd if=/mnt/ws of=/dev/null bs=1M; done)"),
		g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 1);
	assert_string_equal(g->argv[0], "(for i in 1 2 3; do dd if=/mnt/ws "
			    "of=/dev/null bs=1M; done)");
	assert_true(fabs(g->c[0].real_s - 3.816) < 1e-9);
	assert_int_equal(g->c[0].dd_bytes, 3 * 134217728ll);
	assert_int_equal(g->c[0].dd_in_full, 384);
	assert_int_equal(g->c[0].dd_out_full, 384);
	assert_true(fabs(g->c[0].dd_s - 3.80784) < 1e-9);
	assert_true(fabs(g->c[0].dd_rate - 3 * 134217728 / 3.80784) < 1);
	/* the same with no command line: the same one command */
	assert_int_equal(parse_text("time-text", dd_loop(text, sizeof(text), ""),
				    g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 1);
	assert_int_equal(g->c[0].dd_bytes, 3 * 134217728ll);
	/* `dd; dd; dd; time sync` whose sync took as long: its line says the
	 * dd ran before it, not under it (two timed by dd, as before) */
	assert_int_equal(parse_text("time-text", dd_loop(text, sizeof(text),
		"$ dd if=/mnt/ws of=/dev/null; dd if=/mnt/ws of=/dev/null; "
		"dd if=/mnt/ws of=/dev/null; time sync"), g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 3);
	assert_true(isnan(g->c[0].real_s));
	assert_true(fabs(g->c[2].real_s - 3.816) < 1e-9);
	assert_true(isnan(g->c[2].start_s));

	/* two commands at once, each labelled, its start and end measured
	 * on the paste's clock (the seed captures' times.txt): a label names
	 * the report when start_s= follows it, the offsets go to the report
	 * after them; a dmesg time, a program's "[INFO] ..." and a prompt in
	 * brackets name nothing */
	assert_int_equal(parse_text("time-text",
		"[  12.345] loop0: detected capacity change\n"
		"[INFO] BUILD SUCCESS\n"
		"[debsums] find /usr -type f | xargs md5sum\n"
		"start_s=1.017\nend_s = 4.095\n"
		"real\t0m3.055s\nuser\t0m1.012s\nsys\t0m0.573s\nrc=0\n\n"
		"[patch] bzcat p.bz2 | patch -p1\n\n"
		"start_s=1.764\nend_s=4.498\n"
		"real\t0m2.713s\nuser\t0m1.108s\nsys\t0m0.518s\n\n"
		"[sync] sync\nstart_s=4.504\nend_s=4.533\n"
		"real\t0m0.026s\nuser\t0m0.000s\nsys\t0m0.006s\n"
		"[run] tracing stopped at end_s=6.550\n",
		g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 3);
	assert_string_equal(g->argv[0], "find /usr -type f | xargs md5sum");
	assert_true(fabs(g->c[0].start_s - 1.017) < 1e-9);
	assert_true(fabs(g->c[0].end_s - 4.095) < 1e-9);
	assert_string_equal(g->argv[1], "bzcat p.bz2 | patch -p1");
	assert_true(fabs(g->c[1].start_s - 1.764) < 1e-9);
	assert_true(fabs(g->c[1].end_s - 4.498) < 1e-9);
	assert_string_equal(g->argv[2], "sync");
	/* sudo's question before offsets names nothing */
	assert_int_equal(parse_text("time-text", "[sudo] password for alice:\n"
		"start_s=0\nend_s=1\nreal\t0m1.000s\nuser\t0m0.000s\nsys\t0m0.000s\n",
		g, err, sizeof(err)), 0);
	assert_string_equal(g->argv[0], "");
	/* a program's bracketed output before a report names nothing */
	assert_int_equal(parse_text("time-text", "$ time make -j4\n"
		"[INFO] Building foo 1.0\n[INFO] BUILD SUCCESS\n"
		"real\t0m1.000s\nuser\t0m0.000s\nsys\t0m0.000s\n$ time sync\n"
		"real\t0m2.000s\nuser\t0m0.000s\nsys\t0m0.000s\n", g, err,
		sizeof(err)), 0);
	assert_string_equal(g->argv[0], "make -j4");
	assert_string_equal(g->argv[1], "sync");
	assert_true(isnan(g->c[0].start_s));

	/* "$ dd ...", its output, "$ time sync": the dd is a command timed
	 * by dd, not sync's bytes and rate (one dd block before a report
	 * was always the report's) */
	assert_int_equal(parse_text("time-text", "$ dd if=/dev/zero of=a bs=1M count=10\n"
		"10+0 records in\n10+0 records out\n10485760 bytes (10 MB, 10 MiB) "
		"copied, 0.98 s, 10.7 MB/s\n$ time sync\n\nreal\t0m0.200s\n"
		"user\t0m0.000s\nsys\t0m0.001s\n", g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 2);
	assert_true(isnan(g->c[0].real_s));
	assert_int_equal(g->c[0].dd_bytes, 10485760);
	assert_string_equal(g->argv[0], "dd if=/dev/zero of=a bs=1M count=10");
	assert_string_equal(g->argv[1], "sync");
	assert_int_equal(g->c[1].dd_bytes, -1);
	assert_true(fabs(g->c[1].real_s - 0.2) < 1e-9);

	/* a time in a subshell or group of one command is that command's; in
	 * a loop (reports once a pass) the line names nothing after it; GNU
	 * time writing elsewhere (-o, -f) gives no usual report; a comment
	 * ends the line */
	assert_int_equal(parse_text("time-text",
		"$ (time dd if=/dev/zero of=b bs=1M count=100); { time cp a b; }\n"
		"real\t0m1.000s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.300s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"$ /usr/bin/time -o t.log dd if=/dev/zero of=a; time sync # flush; time dd\n"
		"real\t0m0.200s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"$ for f in a b; do time cat $f; done; time sync\n"
		"real\t0m0.010s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.010s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.100s\nuser\t0m0.000s\nsys\t0m0.001s\n",
		g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 6);
	assert_string_equal(g->argv[0], "dd if=/dev/zero of=b bs=1M count=100");
	assert_string_equal(g->argv[1], "cp a b");
	assert_string_equal(g->argv[2], "sync");
	assert_int_equal(g->c[2].follows, FMT_NEXT_UNKNOWN);
	for (int k = 3; k < 6; k++)
		assert_string_equal(g->argv[k], "");

	/* `wait` after background jobs: the next starts once all ended */
	assert_int_equal(parse_text("time-text", "$ time a & time b; wait; time c\n"
		"real\t0m1.000s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.500s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.200s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"$ time d &\n$ wait\n$ time e\n"
		"real\t0m1.000s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.200s\nuser\t0m0.000s\nsys\t0m0.001s\n",
		g, err, sizeof(err)), 0);
	assert_int_equal(g->nc_cmd, 5);
	assert_int_equal(g->c[1].follows, FMT_NEXT_AT_ONCE);
	assert_int_equal(g->c[2].follows, FMT_NEXT_WAIT);
	assert_string_equal(g->argv[4], "e");
	assert_int_equal(g->c[4].follows, FMT_NEXT_WAIT);

	/* offsets wrong or on some reports only: one line naming where */
	static const char *const bad[][2] = {
		{ "start_s=1.0x\nend_s=2\n", "test: line 1: bad start_s value '1.0x'" },
		{ "start_s=3\nend_s=2\n", "test: line 1: end_s 2 before start_s 3" },
		{ "start_s=1\n", "test: line 1: start_s without end_s before its report" },
		{ "start_s=1\nstart_s=2\n", "test: line 2: a second start_s before its report" },
		{ "start_s=0\nend_s=10\n", "test: line 1: start_s 0 to end_s 10 is 10 s, "
		  "not its report's real time 1.000 s" },
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		snprintf(text, sizeof(text), "%sreal\t0m1.000s\nuser\t0m0.000s\n"
			 "sys\t0m0.000s\n", bad[k][0]);
		assert_int_equal(parse_text("time-text", text, g, err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, bad[k][1]);
	}
	assert_int_equal(parse_text("time-text", "start_s=0\nend_s=1\nreal\t0m1.000s\n"
		"user\t0m0.000s\nsys\t0m0.000s\nreal\t0m1.000s\nuser\t0m0.000s\n"
		"sys\t0m0.000s\n", g, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "test: line 6: a report without start_s and "
			    "end_s where others have them (give them for every "
			    "report or none)");
	assert_int_equal(parse_text("time-text", "real\t0m1.000s\nuser\t0m0.000s\n"
		"sys\t0m0.000s\nstart_s=0\nend_s=1\n", g, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "test: line 4: start_s or end_s after the last "
			    "report (they go before the report they time)");

	/* "time a & time b": b beside a (a ran in the background); "2>&1"
	 * and "|&" end no command, "&&" and "||" end one (bash's time times
	 * one pipeline); a line ending "time c &" puts the next line's
	 * command beside c, unless c's report came first or a command line
	 * between timed nothing; prompts: "[root@box ~]#", "host%", with
	 * /usr/bin/time, a "# time " inside quotes is none */
	assert_int_equal(parse_text("time-text",
		"$ time dd if=/dev/zero of=a 2>&1 & time dd if=/dev/zero of=b\n"
		"real\t0m0.600s\nuser\t0m0.001s\nsys\t0m0.010s\n"
		"real\t0m0.800s\nuser\t0m0.001s\nsys\t0m0.010s\n"
		"$ time tar xf x.tar &\n$ time sync\n"
		"real\t0m0.100s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.900s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"$ time true && sync\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"$ time make |& tee log ; time dd if=a of=b && time sync\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"[root@box ~]# time a &\n[1] 4242\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"[1]+  Done                    time a\n"
		"host% time b &\n$ sleep 5\nuser@host:~$ /usr/bin/time c\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"$ time grep '# time ' f; time sync\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n"
		"real\t0m0.001s\nuser\t0m0.000s\nsys\t0m0.001s\n",
		g, err, sizeof(err)), 0);
	{
		/* each command's line and what came between it and the one
		 * before (-1: not checked) */
		static const struct { const char *argv; int follows; } want[] = {
			{ "dd if=/dev/zero of=a 2>&1", -1 },
			{ "dd if=/dev/zero of=b", FMT_NEXT_AT_ONCE },
			{ "tar xf x.tar", FMT_NEXT_UNKNOWN },
			{ "sync", FMT_NEXT_AT_ONCE },
			{ "true", FMT_NEXT_UNKNOWN },
			{ "make |& tee log", -1 },
			{ "dd if=a of=b", FMT_NEXT_AFTER },
			{ "sync", FMT_NEXT_AFTER },
			{ "a", -1 },
			{ "b", FMT_NEXT_UNKNOWN },
			{ "c", FMT_NEXT_UNKNOWN },
			{ "grep '# time ' f", -1 },
			{ "sync", FMT_NEXT_AFTER },
		};
		assert_int_equal(g->nc_cmd, sizeof(want) / sizeof(want[0]));
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			assert_string_equal(g->argv[k], want[k].argv);
			if (want[k].follows >= 0)
				assert_int_equal(g->c[k].follows, want[k].follows);
		}
	}
	free(g);
}

/* A last line with no newline (a file copied while it was written) is
 * left out, with a note saying so, in every per-I/O format: "write 0 40"
 * may be "write 0 4096" cut. Each case: the text with the newline (two
 * I/Os), then without it (one). */
static void test_cut_last_line(void **state)
{
	static const char *const cases[][2] = {
		{ "fio-iolog", "fio version 3 iolog\n0 /dev/sdb add\n"
		  "5 /dev/sdb write 0 4096\n6 /dev/sdb write 4096 40" },
		{ "msr-csv", "128166372001234567,web,0,Write,8599642112,4096,12034\n"
		  "128166372001240311,web,1,Read,1073741824,65536,44" },
		{ "systor17-csv", "Timestamp,Response,IOType,LUN,Offset,Size\n"
		  "1480000000.000017000,0.000806000,R,0,1099511627776,131072\n"
		  "1480000000.000020000,0.018646000,R,1,0,16" },
		{ "cloudphysics-csv", "version,time,op,size,lbn\n"
		  "1,4211000,2a,4096,73400320\n1,4211001,28,4096,47" },
		{ "blkreplay-load", "start ; sector; length ; op ; replay_delay=0 ; "
		  "replay_duration=0\n 1.5 ; 100 ; 8 ; R ; 0.0 ; 0.0\n 1.6 ; 200 ; 256 ; W" },
	};
	struct got *g = malloc(sizeof(*g));
	const struct fmt_sink sink = { g_io, g_sample, g_command, g_note, g_stat, g };
	const struct fmt_opts o = { .quiet = 1 };
	char err[256], text[512];
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct import_format *f = import_format_find(cases[i][0]);
		int notes_nl = 0;
		for (int nl = 1; nl >= 0; nl--) {
			FILE *fp;
			snprintf(text, sizeof(text), "%s%s", cases[i][1], nl ? "\n" : "");
			fp = fmemopen(text, strlen(text), "r");
			assert_non_null(f);
			assert_non_null(fp);
			memset(g, 0, sizeof(*g));
			err[0] = '\0';
			if (f->parse(fp, "test", &o, &sink, err, sizeof(err)))
				print_error("%s: %s\n", cases[i][0], err);
			fclose(fp);
			assert_string_equal(err, "");
			if (nl)
				notes_nl = g->notes;
			else
				assert_int_equal(g->notes, notes_nl + 1);
			if (g->nio != (uint64_t)(nl ? 2 : 1))
				print_error("%s, %s newline: %" PRIu64 " I/Os\n",
					    cases[i][0], nl ? "a" : "no", g->nio);
			assert_int_equal(g->nio, nl ? 2 : 1);
		}
	}
	free(g);
}

static void test_helpers(void **state)
{
	int64_t ns;
	char line[] = " a , b,c ";
	char *f[4];
	(void)state;

	assert_int_equal(fmt_seconds_ns("1480000000.000017000", &ns), 0);
	assert_int_equal(ns, 1480000000000017000ll);
	assert_int_equal(fmt_seconds_ns("2.5", &ns), 0);
	assert_int_equal(ns, 2500000000ll);
	assert_int_equal(fmt_seconds_ns("-1", &ns), -1);
	assert_int_equal(fmt_seconds_ns("1.2.3", &ns), -1);
	/* the largest an int64_t of ns holds, and just past it (once wrapped
	 * to a negative time) */
	assert_int_equal(fmt_seconds_ns("9223372036.854775807", &ns), 0);
	assert_true(ns == INT64_MAX);
	assert_int_equal(fmt_seconds_ns("9223372036.854775808", &ns), -1);
	assert_int_equal(fmt_seconds_ns("9223372039", &ns), -1);
	assert_int_equal(fmt_split(line, ',', f, 4), 3);
	assert_string_equal(f[0], "a");
	assert_string_equal(f[2], "c");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_fio),
		cmocka_unit_test(test_fio_corpus),
		cmocka_unit_test(test_snia),
		cmocka_unit_test(test_cloudphysics_blkreplay),
		cmocka_unit_test(test_iostat),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_cut_last_line),
		cmocka_unit_test(test_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
