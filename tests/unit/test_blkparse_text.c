/* Unit tests of the blkparse text importer (import/blkparse_text.c): field
 * decoding per action, remap/split/unplug/message payloads, process names,
 * skipped lines, errors naming the line, cut-short last line, sniffing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/trace_input.h"

#define MAX_EV 64

/* A copy of one delivered event and its payload. */
struct got_event {
	struct bt_event ev;
	uint8_t pdu[256];
};

struct got_proc {
	uint32_t pid;
	char comm[64];
};

struct collector {
	struct got_event ev[MAX_EV];
	int nev;
	struct got_proc proc[MAX_EV];
	int nproc;
	int stop_after; /* event() fails with -EIO after this many; 0: never */
};

static int col_event(void *ctx, const struct bt_event *ev)
{
	struct collector *c = ctx;
	struct got_event *g;

	if (c->stop_after && c->nev == c->stop_after)
		return -EIO;
	assert_true(c->nev < MAX_EV);
	g = &c->ev[c->nev++];
	g->ev = *ev;
	assert_true(ev->pdu_len <= sizeof(g->pdu));
	if (ev->pdu_len) {
		assert_non_null(ev->pdu);
		memcpy(g->pdu, ev->pdu, ev->pdu_len);
	}
	g->ev.pdu = g->pdu;
	return 0;
}

static int col_process(void *ctx, uint32_t pid, const char *comm)
{
	struct collector *c = ctx;
	struct got_proc *p;

	assert_true(c->nproc < MAX_EV);
	p = &c->proc[c->nproc++];
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return 0;
}

/* Parses text with blkparse_text_read into c; warnings into warnbuf. */
static int parse(const char *text, struct collector *c, struct input_stats *st,
		 char *err, size_t errlen, char *warnbuf, size_t warnlen)
{
	struct event_sink sink = { col_event, col_process, c };
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	FILE *warn = warnbuf ? fmemopen(warnbuf, warnlen, "w") : NULL;
	int rc;

	assert_non_null(fp);
	if (warnbuf)
		memset(warnbuf, 0, warnlen);
	rc = blkparse_text_read(fp, "t.txt", &sink, st, warn, err, errlen);
	fclose(fp);
	if (warn)
		fclose(warn);
	return rc;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

#define ACT(code, cats) ((uint64_t)(code) | (uint64_t)(cats) << 16)

/* Lines as blkparse 1.2 prints them ("%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s "). */
static const char sample[] =
	"Input file sda.blktrace.0 added\n"
	"  8,0    1        1     0.000000000   100  A   W 2056 + 8 <- (8,1) 8\n"
	"  8,0    1        2     0.000001000   100  Q   W 2056 + 8 [kworker/u8:2 x]\n"
	"  8,0    1        3     0.000002000   100  G   W 2056 + 8 [kworker/u8:2 x]\n"
	"  8,0    1        4     0.000003000   100  P   N [kworker/u8:2 x]\n"
	"  8,0    1        5     0.000004000   100  M   W 2064 + 8 [kworker/u8:2 x]\n"
	"  8,0    1        6     0.000005000   100  I   W 2056 + 16 [kworker/u8:2 x]\n"
	"  8,0    1        7     0.000006000   100  U   N [kworker/u8:2 x] 1\n"
	"  8,0    1        8     0.000007000   100  D   W 2056 + 16 [kworker/u8:2 x]\n"
	"  8,0    1        0     0.000007500     0  m   N cfq100 / dispatched a request\n"
	"  8,0    1        9     0.000008000   200  X  RA 4096 / 4352 [a[b] c]\n"
	"  8,0    1       10     0.000009000   300  Q FWFS [jbd2/sda1-8]\n"
	"  8,0    1       11     0.000010000   300  D  FN [(null)]\n"
	"\n"
	"  8,0    0        1     1.000000001     0  C   W 2056 + 16 [0]\n"
	"  8,0    0        2     1.000000002     0  C  FN 0 [0]\n"
	"  8,0    0        3     1.000000003     0  C  RA 4096 + 256 [5]\n"
	"  8,0    0        4     1.000000004   400  K   N [x]\n"
	"  8,0    0        5     1.000000005   500  D   R 36 (12 34 00 ..) [sg_inq]\n"
	"  8,0    1       12     1.000000006   100 UT   N [kworker/u8:2 x] 3\n"
	"259,1   11       13    12.500000000 1390665  C WFSM 575480360 [0]\n"
	"CPU0 (8,0):\n"
	" Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB\n"
	" IO unplugs:             1        \t Timer unplugs:           1\n"
	"\n"
	"Total (8,0):\n"
	" Reads Queued:           0,        0KiB\t Writes Queued:       1,234,    1,154KiB\n"
	"\n"
	"Throughput (R/W): 0KiB/s / 46KiB/s\n"
	"Events (8,0): 1,364 entries\n"
	"Skips: 0 forward (0 -   0.0%)\n";

static void test_sample_fields(void **state)
{
	static struct collector c;
	struct input_stats st;
	char err[256] = "x";
	const struct bt_event *e;

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(sample, &c, &st, err, sizeof(err), NULL, 0), 0);
	assert_string_equal(err, "");
	assert_int_equal(c.nev, 18);
	assert_int_equal(st.records, 18);
	assert_int_equal(st.notify, 1);
	assert_int_equal(st.unknown_action, 1);
	/* Input file, the blank line among the events, the K line, 10 summary
	 * lines */
	assert_int_equal(st.skipped, 1 + 1 + 1 + 10);
	assert_string_equal(st.format, "blkparse-text");
	assert_int_equal(st.version, 0);

	/* A: remap payload rebuilt big-endian */
	e = &c.ev[0].ev;
	assert_int_equal(e->action, ACT(BT_A_REMAP, BT_C_WRITE));
	assert_int_equal(e->sector, 2056);
	assert_int_equal(e->bytes, 8 * 512);
	assert_int_equal(e->dev, BT_MKDEV(8, 0));
	assert_int_equal(e->cpu, 1);
	assert_int_equal(e->sequence, 1);
	assert_int_equal(e->pid, 100);
	assert_int_equal(e->time_ns, 0);
	assert_int_equal(e->pdu_len, 16);
	assert_int_equal(be32(e->pdu), BT_MKDEV(8, 1));
	assert_int_equal(be32(e->pdu + 4), BT_MKDEV(8, 0));
	assert_int_equal(be64(e->pdu + 8), 8);

	/* Q, G, P, M, I */
	e = &c.ev[1].ev;
	assert_int_equal(e->action, ACT(BT_A_QUEUE, BT_C_WRITE));
	assert_int_equal(e->sector, 2056);
	assert_int_equal(e->bytes, 4096);
	assert_int_equal(e->time_ns, 1000);
	assert_int_equal(e->pdu_len, 0);
	assert_int_equal(bt_code(&c.ev[2].ev), BT_A_GETRQ);
	e = &c.ev[3].ev;
	assert_int_equal(e->action, ACT(BT_A_PLUG, 0));
	assert_int_equal(e->bytes, 0);
	assert_int_equal(e->sector, 0);
	e = &c.ev[4].ev;
	assert_int_equal(e->action, ACT(BT_A_BACKMERGE, BT_C_WRITE));
	assert_int_equal(e->sector, 2064);
	e = &c.ev[5].ev;
	assert_int_equal(e->action, ACT(BT_A_INSERT, BT_C_WRITE));
	assert_int_equal(e->bytes, 16 * 512);

	/* U: depth as a big-endian u64 */
	e = &c.ev[6].ev;
	assert_int_equal(e->action, ACT(BT_A_UNPLUG_IO, 0));
	assert_int_equal(e->pdu_len, 8);
	assert_int_equal(be64(e->pdu), 1);
	assert_int_equal(bt_code(&c.ev[7].ev), BT_A_ISSUE);

	/* m: a notify message record */
	e = &c.ev[8].ev;
	assert_int_equal(e->action, ACT(BT_N_MESSAGE, BT_C_NOTIFY));
	assert_true(bt_is_notify(e));
	assert_string_equal(bt_action_name(e), "m");
	assert_int_equal(e->sequence, 0);
	assert_int_equal(e->pid, 0);
	assert_int_equal(e->time_ns, 7500);
	assert_int_equal(e->pdu_len, strlen("cfq100 / dispatched a request"));
	assert_memory_equal(e->pdu, "cfq100 / dispatched a request", e->pdu_len);

	/* X: split point payload; size = distance to it */
	e = &c.ev[9].ev;
	assert_int_equal(e->action, ACT(BT_A_SPLIT, BT_C_READ | BT_C_AHEAD));
	assert_int_equal(e->sector, 4096);
	assert_int_equal(e->bytes, 256 * 512);
	assert_int_equal(be64(e->pdu), 4352);

	/* zero-length flush: Q FWFS and D FN without position */
	e = &c.ev[10].ev;
	assert_int_equal(e->action, ACT(BT_A_QUEUE, BT_C_FLUSH | BT_C_WRITE |
						BT_C_FUA | BT_C_SYNC));
	assert_int_equal(e->sector, 0);
	assert_int_equal(e->bytes, 0);
	e = &c.ev[11].ev;
	assert_int_equal(e->action, ACT(BT_A_ISSUE, BT_C_FLUSH));

	/* C lines: with size, "C FN 0 [0]" without, an error */
	e = &c.ev[12].ev;
	assert_int_equal(e->action, ACT(BT_A_COMPLETE, BT_C_WRITE));
	assert_int_equal(e->time_ns, 1000000001);
	assert_int_equal(e->cpu, 0);
	assert_int_equal(e->sector, 2056);
	assert_int_equal(e->bytes, 16 * 512);
	assert_int_equal(e->error, 0);
	e = &c.ev[13].ev;
	assert_int_equal(e->action, ACT(BT_A_COMPLETE, BT_C_FLUSH));
	assert_int_equal(e->sector, 0);
	assert_int_equal(e->bytes, 0);
	e = &c.ev[14].ev;
	assert_int_equal(e->error, 5);
	assert_int_equal(e->bytes, 256 * 512);

	/* PC request: bytes and CDB payload */
	e = &c.ev[15].ev;
	assert_int_equal(e->action, ACT(BT_A_ISSUE, BT_C_READ | BT_C_PC));
	assert_int_equal(e->bytes, 36);
	assert_int_equal(e->pdu_len, 3);
	assert_memory_equal(e->pdu, "\x12\x34\x00", 3);

	/* UT */
	e = &c.ev[16].ev;
	assert_int_equal(e->action, ACT(BT_A_UNPLUG_TIMER, 0));
	assert_int_equal(be64(e->pdu), 3);

	/* wide fields: 259,1, cpu 11, pid beyond %5u, C with no size */
	e = &c.ev[17].ev;
	assert_int_equal(e->dev, BT_MKDEV(259, 1));
	assert_int_equal(e->cpu, 11);
	assert_int_equal(e->pid, 1390665);
	assert_int_equal(e->time_ns, 12500000000ull);
	assert_int_equal(e->sector, 575480360);
	assert_int_equal(e->action, ACT(BT_A_COMPLETE, BT_C_WRITE | BT_C_FUA |
						   BT_C_SYNC | BT_C_META));
}

static void test_sample_processes(void **state)
{
	static struct collector c;
	struct input_stats st;
	char err[256];

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(sample, &c, &st, err, sizeof(err), NULL, 0), 0);
	/* once per (pid, name); not for "(null)" nor for C lines' "[0]" */
	assert_int_equal(c.nproc, 4);
	assert_int_equal(c.proc[0].pid, 100);
	assert_string_equal(c.proc[0].comm, "kworker/u8:2 x");
	assert_int_equal(c.proc[1].pid, 200);
	assert_string_equal(c.proc[1].comm, "a[b] c");
	assert_int_equal(c.proc[2].pid, 300);
	assert_string_equal(c.proc[2].comm, "jbd2/sda1-8");
	assert_int_equal(c.proc[3].pid, 500);
	assert_string_equal(c.proc[3].comm, "sg_inq");
}

/* Every RWBS blkparse 1.2 prints decodes to categories bt_rwbs() prints
 * back the same. */
static void test_rwbs_round_trip(void **state)
{
	static const char *const rwbs[] = {
		"R", "W", "N", "D", "RA", "RS", "RM", "RSM", "WS", "WSM",
		"WFS", "WFSM", "FWFS", "FWS", "FN", "FWFSM", "DS", "RAS",
	};

	for (size_t i = 0; i < sizeof(rwbs) / sizeof(rwbs[0]); i++) {
		struct collector c;
		struct input_stats st;
		char text[256], err[256], out[8];

		memset(&c, 0, sizeof(c));
		snprintf(text, sizeof(text),
			 "  8,0    0        1     0.000000001     1  Q %3s 8 + 8 [p]\n",
			 rwbs[i]);
		assert_int_equal(parse(text, &c, &st, err, sizeof(err), NULL, 0), 0);
		assert_int_equal(c.nev, 1);
		if (!strcmp(rwbs[i], "N") || !strcmp(rwbs[i], "FN"))
			c.ev[0].ev.bytes = 0; /* blkparse prints N for no data */
		bt_rwbs(&c.ev[0].ev, out);
		assert_string_equal(out, rwbs[i]);
	}
}

static void test_not_blkparse(void **state)
{
	struct collector c;
	struct input_stats st;
	char err[256];

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse("procs -----------memory---------- ---swap--\n"
			       " r  b   swpd   free   buff  cache   si   so\n",
			       &c, &st, err, sizeof(err), NULL, 0), -EINVAL);
	assert_non_null(strstr(err, "t.txt: line 1:"));
	assert_non_null(strstr(err, "not blkparse output"));
	assert_int_equal(c.nev, 0);

	/* blank lines first: the first non-blank line is named */
	assert_int_equal(parse("\n\nhello world\n", &c, &st, err, sizeof(err),
			       NULL, 0), -EINVAL);
	assert_non_null(strstr(err, "line 3:"));

	/* nothing at all */
	assert_int_equal(parse("", &c, &st, err, sizeof(err), NULL, 0), -EINVAL);
	assert_non_null(strstr(err, "not blkparse output"));
}

static void test_bad_line_in_middle(void **state)
{
	struct collector c;
	struct input_stats st;
	char err[256];
	static const char text[] =
		"  8,0    1        1     0.000000000   100  Q   W 2056 + 8 [a]\n"
		"  8,0    1        2     0.000001000   100  G   W 2056 + 8 [a]\n"
		"  8,0    1        3     0.000002000   100  I   W 2056 + [a]\n"
		"  8,0    1        4     0.000003000   100  D   W 2056 + 8 [a]\n";
	static const char text2[] =
		"  8,0    1        1     0.000000000   100  Q   W 2056 + 8 [a]\n"
		"  8,0    1        2     0.0000010   100  G   W 2056 + 8 [a]\n";

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(text, &c, &st, err, sizeof(err), NULL, 0), -EINVAL);
	assert_non_null(strstr(err, "t.txt: line 3:"));
	assert_non_null(strstr(err, "'I'"));
	assert_int_equal(c.nev, 2);

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(text2, &c, &st, err, sizeof(err), NULL, 0), -EINVAL);
	assert_non_null(strstr(err, "t.txt: line 2:"));
	assert_int_equal(c.nev, 1);
}

static void test_cut_last_line(void **state)
{
	struct collector c;
	struct input_stats st;
	char err[256], warn[512];
	static const char text[] =
		"  8,0    1        1     0.000000000   100  Q   W 2056 + 8 [a]\n"
		"  8,0    1        2     0.000001000   100  G   W 2056 + 8 [kwor";

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(text, &c, &st, err, sizeof(err), warn,
			       sizeof(warn)), 0);
	assert_int_equal(c.nev, 1);
	assert_non_null(strstr(warn, "iotape: warning: t.txt: line 2: "));
	assert_true(st.truncated_bytes > 0);

	/* a complete last line without its newline is kept */
	memset(&c, 0, sizeof(c));
	assert_int_equal(parse("  8,0    1        1     0.000000000   100  Q   W 2056 + 8 [a]",
			       &c, &st, err, sizeof(err), warn, sizeof(warn)), 0);
	assert_int_equal(c.nev, 1);
	assert_int_equal(st.truncated_bytes, 0);
}

/* A time past 2^63 - 1 ns would be stored as a negative one: refused with
 * its line; 2^63 - 1 ns itself is kept. A sector no device reaches is kept
 * and counted, with its line, as the binary reader does. */
static void test_huge_numbers(void **state)
{
	struct collector c;
	struct input_stats st;
	char err[256];
	static const char time_ovf[] =
		"  8,0    1        1     0.000000000   100  Q   W 2056 + 8 [a]\n"
		"  8,0    1        2     9300000000.000099999   100  G   W 2056 + 8 [a]\n";
	static const char time_max[] =
		"  8,0    1        1     9223372036.854775807   100  Q   W 2056 + 8 [a]\n";
	static const char far[] =
		"  8,0    1        1     0.000000000   100  Q   W 2056 + 8 [a]\n"
		"  8,0    1        2     0.000001000   100  Q   W 36028797018963968 + 8 [a]\n"
		"  8,0    1        3     0.000002000   100  C   W 18446744073709551615 + 8 [0]\n";
	(void)state;

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(time_ovf, &c, &st, err, sizeof(err), NULL, 0), -EINVAL);
	assert_string_equal(err, "t.txt: line 2: time 9300000000.000099999 s is "
			    "past the largest time iotape stores "
			    "(9223372036.854775807 s, 2^63 - 1 ns)");
	assert_int_equal(c.nev, 1);

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(time_max, &c, &st, err, sizeof(err), NULL, 0), 0);
	assert_int_equal(c.ev[0].ev.time_ns, (uint64_t)INT64_MAX);

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(far, &c, &st, err, sizeof(err), NULL, 0), 0);
	assert_int_equal(c.nev, 3);
	assert_int_equal(st.far_sector, 2);
	assert_int_equal(st.far_off, 2);
	assert_int_equal(c.ev[2].ev.sector, UINT64_MAX);
}

static void test_sink_error_stops(void **state)
{
	struct collector c;
	struct input_stats st;
	char err[256];

	memset(&c, 0, sizeof(c));
	c.stop_after = 3;
	assert_int_equal(parse(sample, &c, &st, err, sizeof(err), NULL, 0), -EIO);
	assert_int_equal(c.nev, 3);
	assert_non_null(strstr(err, "line 5:"));
}

static void test_comment_header_and_crlf(void **state)
{
	struct collector c;
	struct input_stats st;
	char err[256];
	static const char text[] =
		"#Maj,Mn CPU   SeqNo     Seconds     PID  Evt Typ Sector   +Len Description\n"
		"#------ --- ------- --------------- -----|--|---|---------+--- ----\n"
		"259,0    3        1     0.000000000  1867  A   W 746579600 + 8 <- (253,3) 578805392\r\n"
		"259,0    3        2     0.000000149  1867  Q   W 746579600 + 8 [dmcrypt_write/2]  \r\n";

	memset(&c, 0, sizeof(c));
	assert_int_equal(parse(text, &c, &st, err, sizeof(err), NULL, 0), 0);
	assert_int_equal(c.nev, 2);
	assert_int_equal(st.skipped, 2);
	assert_int_equal(be64(c.ev[0].pdu + 8), 578805392);
	assert_int_equal(c.nproc, 1);
	assert_string_equal(c.proc[0].comm, "dmcrypt_write/2");
}

static void test_sniff(void **state)
{
	static const char yes1[] =
		"  8,16   5        1     0.000000000 18615  A   R 1444645666 + 256 <- (8,17) 1444645632\n";
	static const char yes2[] =
		"\n#Maj,Mn CPU\nInput file sda.blktrace.0 added\n"
		"259,0   11        2     0.024124474  1889  Q FWFS [jbd2/dm-4-8]\n";
	static const char cut[] = "  8,0    0        0     0.000000000     0  m   N";
	static const char no1[] = "procs -----------memory----------\n";
	static const char no2[] = "CPU0 (8,0):\n Reads Queued: 0\n";
	static const uint8_t bin[] = { 0x07, 0x74, 0x61, 0x65, 0, 0, 0, 0 };

	assert_int_equal(blkparse_text_sniff((const uint8_t *)yes1, strlen(yes1)), 1);
	assert_int_equal(blkparse_text_sniff((const uint8_t *)yes2, strlen(yes2)), 1);
	assert_int_equal(blkparse_text_sniff((const uint8_t *)cut, strlen(cut)), 1);
	assert_int_equal(blkparse_text_sniff((const uint8_t *)no1, strlen(no1)), 0);
	assert_int_equal(blkparse_text_sniff((const uint8_t *)no2, strlen(no2)), 0);
	assert_int_equal(blkparse_text_sniff(bin, sizeof(bin)), 0);
	assert_int_equal(blkparse_text_sniff((const uint8_t *)"", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_fields),
		cmocka_unit_test(test_sample_processes),
		cmocka_unit_test(test_rwbs_round_trip),
		cmocka_unit_test(test_not_blkparse),
		cmocka_unit_test(test_bad_line_in_middle),
		cmocka_unit_test(test_cut_last_line),
		cmocka_unit_test(test_huge_numbers),
		cmocka_unit_test(test_sink_error_stops),
		cmocka_unit_test(test_comment_header_and_crlf),
		cmocka_unit_test(test_sniff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
