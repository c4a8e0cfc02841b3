/* Unit tests of the small helpers behind the command line's messages: the
 * edit distance of "did you mean", shell quoting of run names in hints
 * (a sweep's names have brackets), the default run name of an input, and
 * which names would read as run ids, the plain decimal numbers every
 * option and imported value is read as, and the timeline of the time that
 * had I/O through clock steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "import/import_fmt.h"
#include "capture/sweep.h"
#include "lib/timeline.h"
#include "lib/util.h"

static void test_decimal(void **state)
{
	const unsigned all = DEC_SIGN | DEC_FRAC | DEC_EXP;
	const char *end;
	uint64_t u;
	unsigned ma, mi;
	double v;

	(void)state;
	assert_int_equal(dec_span("12.5e3x", all), 6);
	assert_int_equal(dec_span("12.5e3x", DEC_FRAC), 4);
	assert_int_equal(dec_span("-7", 0), 0);
	assert_int_equal(dec_span("1e", all), 1);
	assert_int_equal(dec_span(".", DEC_FRAC), 0);
	assert_int_equal(dec_double("-1.5e2", all, &v, NULL), 0);
	assert_true(v == -150);
	assert_int_equal(dec_double(".5", DEC_FRAC, &v, NULL), 0);
	assert_true(v == 0.5);
	/* what strtod() takes and a user never means */
	static const char *const no[] = { "0x10", "0x1p4", "0x10.0", "inf",
		"nan", "INFINITY", " 1", "+1", "", "-", "1e999", "1.2.3" };
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		assert_int_equal(dec_double(no[i], all, &v, NULL), -1);
	/* with end: the number before its unit, never hex */
	assert_int_equal(dec_double("2.5ms", DEC_FRAC, &v, &end), 0);
	assert_true(v == 2.5);
	assert_string_equal(end, "ms");
	assert_int_equal(dec_double("1e5", DEC_FRAC, &v, &end), 0);
	assert_true(v == 1);
	assert_string_equal(end, "e5");
	assert_int_equal(dec_double("0x10.0s", DEC_FRAC, &v, &end), 0);
	assert_string_equal(end, "x10.0s");
	assert_int_equal(dec_u64("18446744073709551615", &u, NULL), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(dec_u64("18446744073709551616", &u, NULL), -1);
	assert_int_equal(dec_u64("010", &u, NULL), 0);
	assert_true(u == 10);
	assert_int_equal(dec_u64("0x10", &u, NULL), -1);
	assert_int_equal(dec_u64("-1", &u, NULL), -1);
	assert_int_equal(dec_devnum("8:16", &ma, &mi), 0);
	assert_true(ma == 8 && mi == 16);
	assert_int_equal(dec_devnum("259,0", &ma, &mi), 0);
	assert_int_equal(dec_devnum("0x8:0", &ma, &mi), -1);
	assert_int_equal(dec_devnum("-8:0", &ma, &mi), -1);
	assert_int_equal(dec_devnum(" 8:0", &ma, &mi), -1);
	assert_int_equal(dec_devnum("4096:0", &ma, &mi), -1);
	assert_int_equal(dec_devnum("8:", &ma, &mi), -1);
	/* the option parsers built on them */
	assert_int_equal(parse_u64("16", "--depth", &u), 0);
	assert_int_equal(parse_u64("0x10", "--depth", &u), -1);
	assert_int_equal(parse_duration("0x2s", "--from", &v), -1);
	assert_int_equal(parse_duration("1.5m", "--from", &v), 0);
	assert_true(v == 90);
	assert_int_equal(parse_duration("inf", "--from", &v), -1);
	assert_int_equal(parse_size("0x1G", "--mem", &u), -1);
	assert_int_equal(parse_seconds("nan", "--interval", &v), -1);
	assert_int_equal(parse_age("0x1d", "--since", &v), -1);
}

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(str_distance("report", "report"), 0);
	/* a transposition is one edit (Damerau), not two (Levenshtein) */
	assert_int_equal(str_distance("reprot", "report"), 1);
	assert_int_equal(str_distance("rport", "report"), 1);
	assert_int_equal(str_distance("reportt", "report"), 1);
	assert_int_equal(str_distance("repaly", "replay"), 1);
	assert_int_equal(str_distance("plto", "plot"), 1);
	assert_int_equal(str_distance("", "mail"), 4);
	assert_int_equal(str_distance("kitten", "sitting"), 3);
	/* optimal string alignment: "ca" -> "abc" is 3, not 2 */
	assert_int_equal(str_distance("ca", "abc"), 3);
	assert_true(str_distance("x", "capture") > 2);
}

static void test_shell_quote(void **state)
{
	char *c[] = { "none", "kyber" };
	struct sweep s;
	char q[256];

	(void)state;
	assert_string_equal(shell_quote("demo", q, sizeof(q)), "demo");
	assert_string_equal(shell_quote("t.bin-2", q, sizeof(q)), "t.bin-2");
	assert_string_equal(shell_quote("a b", q, sizeof(q)), "'a b'");
	assert_string_equal(shell_quote("it's", q, sizeof(q)), "'it'\\''s'");
	assert_string_equal(shell_quote("", q, sizeof(q)), "''");
	/* the names a sweep really makes */
	sweep_init(&s, "lab", 0);
	assert_int_equal(sweep_add(&s, "queue/scheduler", c, 2), 0);
	assert_int_equal(sweep_next(&s), 1);
	assert_string_equal(s.name, "lab[queue/scheduler=none]");
	assert_string_equal(shell_quote(s.name, q, sizeof(q)),
			    "'lab[queue/scheduler=none]'");
}

static void test_run_name(void **state)
{
	static const char *const cases[][2] = {
		{ "/a/b/t.bin", "t" },
		{ "t.bin.gz", "t" },
		{ "t.bin.zst", "t" },
		{ "sdb.blktrace.0", "sdb" },
		{ "dir/sdb.blktrace.17.xz", "sdb" },
		{ "sdb", "sdb" },
		{ "sdb.blktrace", "sdb" },
		{ "nvme0n1.blktrace.txt", "nvme0n1" },
		{ "x.blktrace.3.txt.gz", "x" },
		{ "a.blktrace.x", "a.blktrace.x" },
		{ "vmstat.log", "vmstat" },
		{ "vmstat.log.bz2", "vmstat" },
		{ "fio-v3.iolog", "fio-v3" },
		{ "cloudphysics.csv", "cloudphysics" },
		{ "trace.tar", "trace.tar" },
		{ "x.2.bin", "x.2" },
		{ ".bin", ".bin" },
		{ "a.bin.bin", "a.bin" },
		/* digits only would read as a run id */
		{ "7.bin", "run-7" },
		{ "dir/20240101.blktrace.0", "run-20240101" },
		{ "7.x", "7.x" },
		/* control characters, which --run refuses, become '_' */
		{ "dir/new\nline.bin", "new_line" },
		{ "ho\033[31mst\a\t.csv", "ho_[31mst__" },
		{ "\177.bin", "_" },
	};
	char out[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		import_run_name(cases[i][0], "run", out, sizeof(out));
		if (strcmp(out, cases[i][1])) {
			print_error("'%s' named '%s', not '%s'\n", cases[i][0], out,
				    cases[i][1]);
			fail();
		}
	}
	import_run_name("/", "run", out, sizeof(out));
	assert_string_equal(out, "run");
}

static void test_run_name_clean(void **state)
{
	char a[] = "ok name-1.x", b[] = "a\nb\033[31mc\a\177", c[] = "\x80\xff",
	     d[] = "caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80",
	     e[] = "caf\xe9 x\xe2\x82", f[] = "a\xc2\x9b" "b";
	(void)state;
	assert_int_equal(run_name_clean(a), 0);
	assert_string_equal(a, "ok name-1.x");
	assert_int_equal(run_name_clean(b), 4);
	assert_string_equal(b, "a_b_[31mc__");
	assert_int_equal(check_run_name(b), 0);
	/* bytes that are not UTF-8 go (PostgreSQL refuses them), UTF-8's
	 * stay */
	assert_int_equal(check_run_name(c), -1);
	assert_int_equal(run_name_clean(c), 2);
	assert_string_equal(c, "__");
	assert_int_equal(check_run_name(c), 0);
	assert_int_equal(run_name_clean(d), 0);
	assert_string_equal(d, "caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80");
	assert_int_equal(check_run_name(d), 0);
	assert_int_equal(run_name_clean(e), 3);
	assert_string_equal(e, "caf_ x__");
	/* a C1 control (U+009B, CSI to an 8-bit terminal) as one '_' */
	assert_int_equal(run_name_clean(f), 1);
	assert_string_equal(f, "a_b");
	assert_int_equal(check_run_name("a\xc2\x85"), -1);
	assert_int_equal(check_run_name("a\xc2\xa0"), 0);     /* U+00A0 */
	/* a leading '-' reads as an option: refused, made '_'; inside, kept */
	{
		char g[] = "-x-1", h[] = "--\n";
		assert_int_equal(check_run_name(g), -1);
		assert_int_equal(run_name_clean(g), 1);
		assert_string_equal(g, "_x-1");
		assert_int_equal(check_run_name(g), 0);
		assert_int_equal(run_name_clean(h), 2);
		assert_string_equal(h, "_-_");
	}
}

/* utf8_cut(): a cut between two characters, at most max bytes */
static void test_utf8_cut(void **state)
{
	(void)state;
	assert_int_equal(utf8_cut("abc", 2), 2);
	assert_int_equal(utf8_cut("abc", 9), 3);
	assert_int_equal(utf8_cut("a\xc3\xa9" "b", 2), 1);
	assert_int_equal(utf8_cut("a\xc3\xa9" "b", 3), 3);
	assert_int_equal(utf8_cut("\xf0\x9f\x98\x80", 3), 0);
	assert_int_equal(utf8_cut("a\xff" "b", 2), 2);    /* a stray byte alone */
}

/* utf8_seq(): the well-formed sequences of table 3-7, and the ill-formed
 * ones beside each of its bounds */
static void test_utf8_seq(void **state)
{
	static const struct { const char *s; size_t n; } cases[] = {
		{ "a", 1 }, { "\x7f", 1 },
		{ "\xc2\x80", 2 }, { "\xdf\xbf", 2 },
		{ "\xc0\x80", 0 }, { "\xc1\xbf", 0 },     /* overlong */
		{ "\xe0\xa0\x80", 3 }, { "\xe0\x9f\xbf", 0 },
		{ "\xed\x9f\xbf", 3 }, { "\xed\xa0\x80", 0 }, /* surrogate */
		{ "\xee\x80\x80", 3 }, { "\xef\xbf\xbf", 3 },
		{ "\xf0\x90\x80\x80", 4 }, { "\xf0\x8f\xbf\xbf", 0 },
		{ "\xf4\x8f\xbf\xbf", 4 }, { "\xf4\x90\x80\x80", 0 },
		{ "\xf5\x80\x80\x80", 0 }, { "\x80", 0 }, { "\xff", 0 },
		{ "\xe2\x82", 0 }, { "\xf0\x9f\x98", 0 }, /* cut short */
		{ "\xe2\x82x", 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (utf8_seq(cases[i].s, SIZE_MAX) != cases[i].n) {
			print_error("case %zu: %zu, want %zu\n", i,
				    utf8_seq(cases[i].s, SIZE_MAX), cases[i].n);
			fail();
		}
	/* bounded: a sequence past n bytes is cut short */
	assert_int_equal(utf8_seq("\xe2\x82\xac", 3), 3);
	assert_int_equal(utf8_seq("\xe2\x82\xac", 2), 0);
}

/* utf8_fixed(): NULL for UTF-8, else each bad byte (and a NUL) as U+FFFD */
static void test_utf8_fixed(void **state)
{
	size_t n = 0;
	char *d;
	(void)state;
	assert_null(utf8_fixed("caf\xc3\xa9", 5, &n));
	assert_null(utf8_fixed("", 0, &n));
	d = utf8_fixed("caf\xe9 \xe2\x82", 7, &n);
	assert_non_null(d);
	assert_int_equal(n, 3 + 3 + 1 + 6);
	assert_string_equal(d, "caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
	free(d);
	d = utf8_fixed("a\0b", 3, &n);
	assert_non_null(d);
	assert_int_equal(n, 5);
	assert_memory_equal(d, "a\xef\xbf\xbd" "b", 5);
	free(d);
}

static void test_run_name_is_id(void **state)
{
	(void)state;
	assert_true(run_name_is_id("1"));
	assert_true(run_name_is_id("0042"));
	assert_false(run_name_is_id(""));
	assert_false(run_name_is_id("1a"));
	assert_false(run_name_is_id("-1"));
	assert_false(run_name_is_id(" 1"));
}

#define S_ 1000000000ull

/* The clock through a trace: idle gaps under 10 min count, steps do not;
 * one time stamped 8 s early (a glitch) is a step back and a return. */
static void test_timeline(void **state)
{
	struct timeline tl = { 0 };
	uint64_t t;

	(void)state;
	for (t = 100 * S_; t <= 102 * S_; t += S_ / 100)
		assert_int_equal(timeline_step(&tl, t), 0);
	assert_int_equal(timeline_step(&tl, 94 * S_), 1);       /* back 8 s */
	assert_int_equal(timeline_step(&tl, 102 * S_ + 10), 1); /* its return */
	assert_int_equal(timeline_total(&tl), 2 * S_ + 10);
	/* a little out of order, and an idle gap of 5 min: covered */
	assert_int_equal(timeline_step(&tl, 102 * S_ - S_ / 2), 0);
	assert_int_equal(timeline_step(&tl, 402 * S_), 0);
	assert_int_equal(timeline_total(&tl), 302 * S_);
	/* 11 min ahead: a step, a piece of its own */
	assert_int_equal(timeline_step(&tl, 1062 * S_), 1);
	timeline_cover(&tl, 1063 * S_);
	assert_int_equal(timeline_total(&tl), 303 * S_);
	/* a step back for good (NTP): the clock runs on from there */
	memset(&tl, 0, sizeof(tl));
	timeline_step(&tl, 1000 * S_);
	timeline_step(&tl, 1001 * S_);
	assert_int_equal(timeline_step(&tl, 10 * S_), 1);
	assert_int_equal(timeline_step(&tl, 12 * S_), 0);
	assert_int_equal(timeline_total(&tl), 3 * S_);
}

/* columns as wc -L counts them in C.UTF-8 (checked there by hand) */
static void test_text_cols(void **state)
{
	(void)state;
	assert_int_equal(text_cols(""), 0);
	assert_int_equal(text_cols("fio"), 3);
	assert_int_equal(text_cols("caf\xc3\xa9"), 4);            /* café */
	assert_int_equal(text_cols("e\xcc\x81"), 1);              /* e + U+0301 */
	assert_int_equal(text_cols("\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88"), 6); /* テスト */
	assert_int_equal(text_cols("\xed\x95\x9c"), 2);          /* 한 */
	assert_int_equal(text_cols("\xef\xbc\xa1"), 2);          /* fullwidth A */
	assert_int_equal(text_cols("\xf0\x9f\x98\x80"), 2);      /* emoji */
	assert_int_equal(text_cols("\xe2\x80\xa6"), 1);          /* … */
	assert_int_equal(text_cols("a\x80" "b"), 2);                  /* stray byte */
	/* n bytes: a character cut short counts as the part there */
	assert_int_equal(text_cols_n("\xe3\x83\x86x", 3), 2);
	assert_int_equal(text_cols_n("abc", 2), 2);
}

static void test_text_wrap(void **state)
{
	char out[256];

	(void)state;
	assert_string_equal(text_wrap("one two three", 9, 2, out, sizeof(out)),
			    "one two\n  three");
	/* wide characters take two columns: 5 of them fill 10 */
	assert_string_equal(text_wrap("\xe3\x83\x86\xe3\x83\x86\xe3\x83\x86"
				      "\xe3\x83\x86 ab", 10, 0, out, sizeof(out)),
			    "\xe3\x83\x86\xe3\x83\x86\xe3\x83\x86\xe3\x83\x86\nab");
	/* a word wider than the line stays whole; indents kept; newlines kept */
	assert_string_equal(text_wrap("  abcdefghijkl x\nyz", 6, 1, out, sizeof(out)),
			    "  abcdefghijkl\n x\n yz");
	assert_string_equal(text_wrap("a  b", 80, 0, out, sizeof(out)), "a b");
	/* cut short, never past len */
	assert_string_equal(text_wrap("abcdef", 80, 0, out, 4), "abc");
}

/* fput_cut() into a buffer: what it wrote, and its column count */
static const char *cut(const char *s, int cols, int head, int *w)
{
	static char buf[128];
	FILE *fp = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(fp);
	*w = fput_cut(fp, s, cols, head);
	fclose(fp);
	return buf;
}

/* unit_factor(): units of one quantity convert, others do not */
static void test_unit_factor(void **state)
{
	double f;

	(void)state;
	assert_int_equal(unit_factor("GB/s", "MB/s", &f), 0);
	assert_float_equal(f, 1000, 1e-9);
	assert_int_equal(unit_factor("us", "s", &f), 0);
	assert_float_equal(f, 1e-6, 1e-18);
	assert_int_equal(unit_factor("\xc2\xb5s", "ms", &f), 0);
	assert_float_equal(f, 1e-3, 1e-15);
	assert_int_equal(unit_factor("MiB", "kB", &f), 0);
	assert_float_equal(f, 1048.576, 1e-9);
	assert_int_equal(unit_factor("tps", "tps", &f), 0);
	assert_float_equal(f, 1, 0);
	assert_int_equal(unit_factor("", "MB/s", &f), 0);
	assert_float_equal(f, 1, 0);
	assert_int_equal(unit_factor("bytes/s", "MB/s", &f), 0);
	assert_float_equal(f, 1e-6, 1e-18);
	assert_int_equal(unit_factor("MB/s", "MB", &f), -1);
	assert_int_equal(unit_factor("tps", "IOPS", &f), -1);
	assert_int_equal(unit_factor("s", "B", &f), -1);
}

static void test_fput_cut(void **state)
{
	int w;

	(void)state;
	assert_string_equal(cut("abcdefghij", 10, 3, &w), "abcdefghij");
	assert_int_equal(w, 10);
	assert_string_equal(cut("abcdefghij", 7, 3, &w), "abc\xe2\x80\xa6hij");
	assert_int_equal(w, 7);
	assert_string_equal(cut("/a/long/path/f.bin", 9, 0, &w), "\xe2\x80\xa6th/f.bin");
	/* a wide character is never split, and takes two columns */
	assert_string_equal(cut("\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88x", 6, 3, &w),
			    "\xe3\x83\x86\xe2\x80\xa6\xe3\x83\x88x");
	assert_int_equal(w, 6);
}

/* shell_has_word(): a program's name as a word of a command line, not
 * inside another word */
static void test_shell_has_word(void **state)
{
	(void)state;
	assert_true(shell_has_word("bzcat p.bz2 | patch -p1", "patch"));
	assert_true(shell_has_word("time dd if=a of=b", "dd"));
	assert_true(shell_has_word("/bin/dd if=a", "dd"));
	assert_true(shell_has_word("(dd if=a);sync", "dd"));
	assert_true(shell_has_word("x;dd&", "dd"));
	assert_false(shell_has_word("ddrescue a b", "dd"));
	assert_false(shell_has_word("add if=a", "dd"));
	assert_false(shell_has_word("dd", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_shell_quote),
		cmocka_unit_test(test_run_name),
		cmocka_unit_test(test_run_name_is_id),
		cmocka_unit_test(test_run_name_clean),
		cmocka_unit_test(test_utf8_seq),
		cmocka_unit_test(test_utf8_fixed),
		cmocka_unit_test(test_utf8_cut),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_text_cols),
		cmocka_unit_test(test_text_wrap),
		cmocka_unit_test(test_fput_cut),
		cmocka_unit_test(test_unit_factor),
		cmocka_unit_test(test_shell_has_word),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
