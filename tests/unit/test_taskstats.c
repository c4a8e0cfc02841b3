/* Unit tests of per-task accounting: the taskstats netlink decoder
 * (capture/taskstats.c) on messages recorded from this kernel
 * (tests/fixtures/taskstats, make-taskstats-fixtures.py), cut and corrupted
 * copies of them, the request builder, the /proc reader of
 * capture/taskacct.c on recorded /proc text, and the families and rows
 * taskacct_rows() stores, on accounts made up here. */
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

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "capture/taskacct.h"
#include "capture/taskstats.h"
#include "lib/util.h"

#define MAX_GOT 8

struct got {
	struct task_acct t[MAX_GOT];
	int tgid[MAX_GOT];
	int n;
};

static int collect(void *ctx, const struct task_acct *t, int aggr_tgid)
{
	struct got *g = ctx;

	assert_true(g->n < MAX_GOT);
	g->t[g->n] = *t;
	g->tgid[g->n++] = aggr_tgid;
	return 0;
}

/* A fixture's bytes (malloc'd) and length. */
static uint8_t *load(const char *name, size_t *len)
{
	char path[4096];
	const char *root = getenv("REPO_ROOT");
	FILE *fp;
	uint8_t *buf = xmalloc(65536);

	snprintf(path, sizeof(path), "%s/tests/fixtures/taskstats/%s",
		 root ? root : ".", name);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	*len = fread(buf, 1, 65536, fp);
	fclose(fp);
	assert_true(*len > 0);
	return buf;
}

/* A number of facts.txt ("name value" lines). */
static long fact(const char *name)
{
	char path[4096], k[64];
	const char *root = getenv("REPO_ROOT");
	long v, found = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/tests/fixtures/taskstats/facts.txt",
		 root ? root : ".");
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fscanf(fp, "%63s %ld", k, &v) == 2)
		if (!strcmp(k, name))
			found = v;
	fclose(fp);
	assert_true(found >= 0);
	return found;
}

static void test_family_and_ack(void **state)
{
	struct taskstats_reply rep;
	struct got g = { .n = 0 };
	size_t len;
	uint8_t *b = load("family.bin", &len);

	assert_int_equal(taskstats_parse(b, len, 0, collect, &g, &rep, NULL), 0);
	assert_int_equal(rep.family, fact("family"));
	assert_int_equal(g.n, 0);
	free(b);
	b = load("register-ack.bin", &len);
	assert_int_equal(taskstats_parse(b, len, (uint16_t)fact("family"), collect,
					 &g, &rep, NULL), 0);
	assert_int_equal(rep.acked, 1);
	assert_int_equal(rep.error, 0);
	assert_int_equal(g.n, 0);
	free(b);
	b = load("get-esrch.bin", &len);
	assert_int_equal(taskstats_parse(b, len, (uint16_t)fact("family"), collect,
					 &g, &rep, NULL), 0);
	assert_int_equal(rep.error, -ESRCH);
	assert_int_equal(rep.acked, 0);
	free(b);
}

/* The dd's exit: its own account, with the delays of its direct reads. */
static void test_exit_dd(void **state)
{
	struct taskstats_reply rep;
	struct got g = { .n = 0 };
	size_t len;
	uint8_t *b = load("exit-dd.bin", &len);
	const struct task_acct *t = &g.t[0];

	assert_int_equal(taskstats_parse(b, len, (uint16_t)fact("family"), collect,
					 &g, &rep, NULL), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(rep.nstats, 1);
	assert_int_equal(g.tgid[0], 0);
	assert_int_equal(t->pid, fact("dd_pid"));
	assert_int_equal(t->tgid, fact("dd_pid"));
	assert_int_equal(t->ppid, fact("dd_ppid"));
	assert_string_equal(t->comm, "dd");
	assert_int_equal(t->exitcode, fact("dd_exitcode"));
	assert_int_equal(t->read_bytes, fact("dd_read_bytes"));
	/* 128 reads of 64 KiB with O_DIRECT: each waited on the device */
	assert_true(t->blkio_count >= 100);
	assert_true(t->blkio_delay_ns > 0);
	assert_true(t->cpu_ns > 0);
	assert_true(t->etime_us > 0);
	assert_true(t->etime_us * 1000 >= t->blkio_delay_ns);
	assert_true(t->version >= 13);
	assert_int_equal(t->have, TA_HAVE_DELAY | TA_HAVE_BASIC | TA_HAVE_IO |
			 TA_HAVE_FREEPAGES | TA_HAVE_THRASHING | TA_HAVE_COMPACT |
			 TA_HAVE_TGID);
	free(b);
}

/* The last thread of a process: its own account and the process's sum. */
static void test_exit_threads(void **state)
{
	struct taskstats_reply rep;
	struct got g = { .n = 0 };
	size_t len;
	uint8_t *b = load("exit-threads.bin", &len);

	assert_int_equal(taskstats_parse(b, len, (uint16_t)fact("family"), collect,
					 &g, &rep, NULL), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.tgid[0], 0);
	assert_int_equal(g.tgid[1], 1);
	assert_int_equal(g.t[0].tgid, fact("thr_tgid"));
	assert_int_equal(g.t[1].tgid, fact("thr_tgid"));
	/* the sum holds both threads' time: at least the thread's own */
	assert_true(g.t[1].cpu_ns >= g.t[0].cpu_ns);
	free(b);
}

static void test_get_self(void **state)
{
	struct taskstats_reply rep;
	struct got g = { .n = 0 };
	size_t len;
	uint8_t *b = load("get-self.bin", &len);

	assert_int_equal(taskstats_parse(b, len, (uint16_t)fact("family"), collect,
					 &g, &rep, NULL), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(rep.acked, 1);
	assert_int_equal(g.t[0].pid, fact("self_pid"));
	assert_string_equal(g.t[0].comm, "python3");
	/* another family's messages are skipped */
	g.n = 0;
	assert_int_equal(taskstats_parse(b, len, (uint16_t)fact("family") + 1, collect,
					 &g, &rep, NULL), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(rep.acked, 1);
	free(b);
}

/* Every cut of a message is refused as short, at offset 0, never read
 * past; the whole buffer of two messages cut inside the second names it. */
static void test_cuts(void **state)
{
	struct taskstats_reply rep;
	struct got g;
	size_t len, bad;
	uint8_t *two = load("get-self.bin", &len);
	size_t len2 = len;
	uint8_t *b = load("exit-threads.bin", &len);
	for (size_t cut = 1; cut < len; cut++) {
		uint8_t *c = xmalloc(cut);
		memcpy(c, b, cut);
		g.n = 0;
		bad = 999;
		assert_int_equal(taskstats_parse(c, cut, (uint16_t)fact("family"),
						 collect, &g, &rep, &bad), -TS_E_SHORT);
		assert_int_equal(bad, 0);
		free(c);
	}
	/* get-self.bin: the reply, then the ack; cut inside the ack */
	g.n = 0;
	assert_int_equal(taskstats_parse(two, len2 - 4, (uint16_t)fact("family"),
					 collect, &g, &rep, &bad), -TS_E_SHORT);
	assert_int_equal(g.n, 1);     /* the first message was whole */
	assert_int_equal(bad, len2 - 36);
	free(two);
	free(b);
}

/* Offsets of the exit message's parts: nlmsghdr, genlmsghdr, AGGR_PID,
 * its PID attribute (8 bytes), then the STATS attribute. */
#define AGGR_OFF (NLMSG_HDRLEN + GENL_HDRLEN)
#define STATS_OFF (AGGR_OFF + NLA_HDRLEN + 8)

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

static void test_old_and_bad(void **state)
{
	struct taskstats_reply rep;
	struct got g = { .n = 0 };
	size_t len, bad;
	uint8_t *b = load("exit-dd.bin", &len);
	uint8_t *c = xmalloc(len);
	size_t v11 = offsetof(struct taskstats, compact_delay_total) + 8;
	size_t cut = len - (STATS_OFF + NLA_HDRLEN) - v11;
	uint16_t l16;
	uint32_t l32;

	/* the stats attribute shortened to version 11: no tgid */
	memcpy(c, b, len);
	memcpy(&l32, c, 4);
	l32 -= (uint32_t)cut;
	memcpy(c, &l32, 4);
	memcpy(&l16, c + AGGR_OFF, 2);
	put16(c + AGGR_OFF, (uint16_t)(l16 - cut));
	put16(c + STATS_OFF, (uint16_t)(NLA_HDRLEN + v11));
	assert_int_equal(taskstats_parse(c, l32, (uint16_t)fact("family"), collect, &g,
					 &rep, NULL), 0);
	assert_int_equal(g.n, 1);
	assert_false(g.t[0].have & TA_HAVE_TGID);
	assert_true(g.t[0].have & TA_HAVE_COMPACT);
	assert_int_equal(g.t[0].pid, fact("dd_pid"));
	assert_int_equal(g.t[0].tgid, fact("dd_pid"));
	/* shorter than version 1 */
	put16(c + STATS_OFF, NLA_HDRLEN + 40);
	bad = 0;
	assert_int_equal(taskstats_parse(c, l32, (uint16_t)fact("family"), collect, &g,
					 &rep, &bad), -TS_E_STATS);
	assert_int_equal(bad, STATS_OFF);
	/* an attribute length of 0 */
	memcpy(c, b, len);
	put16(c + STATS_OFF, 0);
	assert_int_equal(taskstats_parse(c, len, (uint16_t)fact("family"), collect, &g,
					 &rep, &bad), -TS_E_LENGTH);
	assert_int_equal(bad, STATS_OFF);
	/* a message length of 4 */
	memcpy(c, b, len);
	l32 = 4;
	memcpy(c, &l32, 4);
	assert_int_equal(taskstats_parse(c, len, (uint16_t)fact("family"), collect, &g,
					 &rep, &bad), -TS_E_LENGTH);
	assert_int_equal(bad, 0);
	assert_string_equal(taskstats_strerror(-TS_E_STATS),
			    "a taskstats structure too short for version 1");
	free(c);
	free(b);
}

/* The requests are what getdelays.c sends: checked byte by byte. */
static void test_requests(void **state)
{
	uint8_t buf[256], small[20];
	size_t n = taskstats_req_pid(buf, sizeof(buf), 31, 7, 1234);
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	uint16_t alen, atype;
	uint32_t pid;

	assert_int_equal(n, NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + 4);
	memcpy(&nh, buf, sizeof(nh));
	assert_int_equal(nh.nlmsg_len, n);
	assert_int_equal(nh.nlmsg_type, 31);
	assert_int_equal(nh.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(nh.nlmsg_seq, 7);
	memcpy(&gh, buf + NLMSG_HDRLEN, sizeof(gh));
	assert_int_equal(gh.cmd, TASKSTATS_CMD_GET);
	assert_int_equal(gh.version, TASKSTATS_GENL_VERSION);
	memcpy(&alen, buf + NLMSG_HDRLEN + GENL_HDRLEN, 2);
	memcpy(&atype, buf + NLMSG_HDRLEN + GENL_HDRLEN + 2, 2);
	memcpy(&pid, buf + NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN, 4);
	assert_int_equal(alen, NLA_HDRLEN + 4);
	assert_int_equal(atype, TASKSTATS_CMD_ATTR_PID);
	assert_int_equal(pid, 1234);
	/* "0-1\0" padded to 4 */
	n = taskstats_req_register(buf, sizeof(buf), 31, 8, "0-1", 0);
	assert_int_equal(n, NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + 4);
	memcpy(&atype, buf + NLMSG_HDRLEN + GENL_HDRLEN + 2, 2);
	assert_int_equal(atype, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK);
	assert_string_equal((char *)buf + NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN, "0-1");
	n = taskstats_req_register(buf, sizeof(buf), 31, 8, "0-15", 1);
	assert_int_equal(n, NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(NLA_HDRLEN + 5));
	memcpy(&atype, buf + NLMSG_HDRLEN + GENL_HDRLEN + 2, 2);
	assert_int_equal(atype, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK);
	n = taskstats_req_family(buf, sizeof(buf), 1);
	memcpy(&nh, buf, sizeof(nh));
	assert_int_equal(nh.nlmsg_type, GENL_ID_CTRL);
	assert_string_equal((char *)buf + NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN,
			    "TASKSTATS");
	assert_int_equal(taskstats_req_pid(small, sizeof(small), 31, 1, 1), 0);
}

/* /proc text as a kernel 6.18 prints it (a dd reading with O_DIRECT). */
static void test_parse_proc(void **state)
{
	const char *stat = "4242 (d d) S 4240 4240 100 0 -1 4194560 130 0 3 0 "
		"12 25 0 0 20 0 1 0 5000 8757248 228 18446744073709551615 1 1 0 "
		"0 0 0 0 0 0 0 0 0 17 1 0 0 7 0 0 0 0 0 0 0 0 0 0\n";
	const char *sched = "370123456 25000000 412\n";
	const char *io = "\nrchar: 100\nwchar: 0\nsyscr: 5\nsyscw: 0\n"
		"read_bytes: 8388608\nwrite_bytes: 4096\ncancelled_write_bytes: 0\n";
	struct task_acct t;

	/* starttime 5000 ticks at 100 Hz: 50 s after boot; now 52.5 s */
	assert_int_equal(taskacct_parse_proc(stat, sched, io, 100,
					     52500000000ll, &t), 0);
	assert_int_equal(t.pid, 4242);
	assert_string_equal(t.comm, "d d");
	assert_int_equal(t.ppid, 4240);
	assert_int_equal(t.majflt, 3);
	assert_int_equal(t.etime_us, 2500000);
	assert_int_equal(t.blkio_delay_ns, 70000000);   /* 7 ticks */
	assert_int_equal(t.cpu_ns, 370123456);
	assert_int_equal(t.cpu_delay_ns, 25000000);
	assert_int_equal(t.cpu_count, 412);
	assert_int_equal(t.read_bytes, 8388608);
	assert_int_equal(t.write_bytes, 4096);
	assert_int_equal(t.have, TA_HAVE_DELAY | TA_HAVE_BASIC | TA_HAVE_IO);
	assert_int_equal(taskacct_parse_proc(stat, sched, NULL, 100, 0, &t), 0);
	assert_false(t.have & TA_HAVE_IO);
	assert_int_equal(taskacct_parse_proc("4242 (dd S 1", sched, NULL, 100, 0, &t),
			 -1);
	assert_int_equal(taskacct_parse_proc(stat, "x", NULL, 100, 0, &t), -1);
	assert_int_equal(taskacct_parse_proc("1 (a) S 0 0\n", sched, NULL, 100, 0, &t),
			 -1);
}

/* ---- families and rows ---- */

#define MAX_ROWS 1024

struct rows {
	char key[MAX_ROWS][64];
	double v[MAX_ROWS];
	int64_t t[MAX_ROWS];
	int n;
};

static int row_cb(void *ctx, int64_t t_ns, const char *source, const char *key,
		  double value)
{
	struct rows *r = ctx;

	assert_string_equal(source, "task");
	assert_true(r->n < MAX_ROWS);
	snprintf(r->key[r->n], sizeof(r->key[0]), "%s", key);
	r->v[r->n] = value;
	r->t[r->n++] = t_ns;
	return 0;
}

/* The last value of key, or -1 when absent; *count gets its rows. */
static double last(const struct rows *r, const char *key, int *count)
{
	double v = -1;
	int n = 0;

	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->key[i], key)) {
			v = r->v[i];
			n++;
		}
	if (count)
		*count = n;
	return v;
}

static void obs(struct taskacct *ta, uint32_t pid, uint32_t ppid, uint32_t tgid,
		int64_t t, int exited, uint64_t blkio_ns, uint64_t cpu_ns)
{
	struct task_acct a = { .pid = pid, .ppid = ppid, .tgid = tgid,
			       .blkio_delay_ns = blkio_ns, .cpu_ns = cpu_ns,
			       .etime_us = 1000,
			       .have = TA_HAVE_DELAY | TA_HAVE_BASIC };

	snprintf(a.comm, sizeof(a.comm), "t%u", pid);
	if (ta->nobs == ta->capobs) {
		ta->capobs = ta->capobs ? 2 * ta->capobs : 64;
		ta->obs = xrealloc(ta->obs, ta->capobs * sizeof(*ta->obs));
	}
	ta->obs[ta->nobs++] = (struct ta_obs){ .a = a, .t_ns = t, .exited = exited };
}

static int comm_cb(void *ctx, uint32_t pid, const char *comm)
{
	int *n = ctx;
	char want[16];

	snprintf(want, sizeof(want), "t%u", pid);
	assert_string_equal(comm, want);
	(*n)++;
	return 0;
}

static void test_families(void **state)
{
	struct taskacct ta;
	struct rows *r = xcalloc(1, sizeof(*r));
	uint64_t dropped = 0;
	int n, ncomm = 0;

	memset(&ta, 0, sizeof(ta));
	ta.self = 100;
	taskacct_add_root(&ta, 200, 3);
	/* the workload (a shell), its xargs, xargs' children (one exits
	 * after its parent: adopted by the capture, 100), a thread of one */
	obs(&ta, 200, 100, 200, 1000, 0, 0, 5);
	obs(&ta, 300, 200, 300, 1000, 0, 0, 5);
	obs(&ta, 401, 300, 401, 2000, 1, 70, 9);
	obs(&ta, 402, 100, 402, 3000, 1, 80, 9);   /* orphan */
	obs(&ta, 403, 300, 401, 1500, 1, 10, 2);   /* thread of 401 */
	obs(&ta, 300, 200, 300, 2500, 1, 0, 7);
	obs(&ta, 200, 100, 200, 2600, 1, 0, 6);
	/* someone else's task, and its child */
	obs(&ta, 900, 1, 900, 1200, 1, 5, 5);
	obs(&ta, 901, 900, 901, 1100, 1, 5, 5);
	/* kernel threads: one idle through the run, one that waited */
	obs(&ta, 50, 2, 50, 500, 0, 0, 1000);
	obs(&ta, 50, 2, 50, 4000, 0, 0, 1000);
	obs(&ta, 51, 2, 51, 500, 0, 10, 1000);
	obs(&ta, 51, 2, 51, 4000, 0, 30, 1000);
	/* a delay longer than its task's life (1 ms here) is the kernel's
	 * error: left out, counted */
	obs(&ta, 404, 300, 404, 2100, 1, 1500000000000ull, 3);
	assert_int_equal(taskacct_rows(&ta, row_cb, r, &dropped), 0);
	assert_int_equal(dropped, 1);
	assert_int_equal(last(r, "404.blkio_delay_ns", NULL), -1);
	assert_int_equal(last(r, "404.cpu_ns", NULL), 3);
	assert_int_equal(last(r, "401.blkio_delay_ns", NULL), 70);
	assert_int_equal(last(r, "401.exit_ns", NULL), 2000);
	assert_int_equal(last(r, "401.ppid", NULL), 300);
	assert_int_equal(last(r, "401.start_ns", NULL), 2000 - 1000 * 1000);
	assert_int_equal(last(r, "402.ppid", NULL), 100);
	assert_int_equal(last(r, "402.blkio_delay_ns", NULL), 80);
	assert_int_equal(last(r, "403.tgid", NULL), 401);
	assert_int_equal(last(r, "300.cpu_ns", &n), 7);
	assert_int_equal(n, 2);
	assert_int_equal(last(r, "300.ppid", &n), 200);
	assert_int_equal(n, 1);
	/* a field 0 in every account is not stored */
	assert_int_equal(last(r, "300.blkio_delay_ns", NULL), -1);
	assert_int_equal(last(r, "200.exit_ns", NULL), 2600);
	assert_int_equal(last(r, "200.cmd", NULL), 3);
	assert_int_equal(last(r, "300.cmd", NULL), -1);
	assert_int_equal(last(r, "900.cpu_ns", NULL), -1);
	assert_int_equal(last(r, "901.cpu_ns", NULL), -1);
	assert_int_equal(last(r, "50.cpu_ns", NULL), -1);
	assert_int_equal(last(r, "51.blkio_delay_ns", &n), 30);
	assert_int_equal(n, 2);
	assert_int_equal(last(r, "51.ppid", NULL), 2);
	assert_int_equal(taskacct_comms(&ta, comm_cb, &ncomm), 0);
	assert_int_equal(ncomm, 7);      /* 200 300 401 402 403 404 and 51 */
	free(ta.obs);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_and_ack),
		cmocka_unit_test(test_exit_dd),
		cmocka_unit_test(test_exit_threads),
		cmocka_unit_test(test_get_self),
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_old_and_bad),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_parse_proc),
		cmocka_unit_test(test_families),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
