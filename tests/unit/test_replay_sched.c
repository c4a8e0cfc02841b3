/* Unit tests of the replay scheduler's arithmetic on simulated time (the
 * null engine and a clock that only waits move): original and scaled
 * timing are exact, afap keeps the depth, dependent I/Os wait for their
 * stream, streams keep their order and do not hold each other up, an
 * interrupt stops issuing; and of the plan: range mapping (alignment,
 * wrap, refusal), overlap depth, serial streams, flush+write split, the
 * bounded-memory sort of a run's rows. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/blktrace_format.h"
#include "replay/engine.h"
#include "replay/plan.h"
#include "replay/sched.h"

#define US 1000LL
#define T_START 1000000000LL   /* the simulated clock's first reading */

static int64_t vnow;

static int64_t v_now(void *ctx) { (void)ctx; return vnow; }
static void v_wait(void *ctx, int64_t t) { (void)ctx; if (t > vnow) vnow = t; }

static const struct sched_clock vclk = { v_now, v_wait, v_wait, NULL };

/* Runs ios (n of them, nstreams streams) on the null engine with latency
 * lat_ns; returns the stats, results in res. */
static struct sched_stats run(struct rio *ios, size_t n, uint32_t nstreams,
			      double scale, unsigned depth, int64_t lat_ns,
			      struct rio_result *res,
			      int (*intr)(void *), void *ictx)
{
	struct plan p = { .io = ios, .n = n, .nstreams = nstreams };
	struct null_conf nc = { .latency_ns = lat_ns, .vclock = &vnow };
	struct engine_target t = { -1, 0 };
	struct engine_setup es = { .targets = &t, .ntargets = 1, .depth = depth,
				   .max_len = 4096, .align = 4096, .conf = &nc };
	struct replay_engine e = { .ops = &engine_null_ops };
	struct sched_params sp = { .scale = scale, .depth = depth,
				   .spin_ns = 50 * US, .lead_ns = 1000 * US,
				   .interrupted = intr, .ctx = ictx };
	struct sched_stats ss;

	vnow = T_START;
	assert_int_equal(e.ops->init(&e, &es), 0);
	assert_int_equal(sched_run(&p, &sp, &e, &vclk, res, &ss), 0);
	e.ops->exit(&e);
	return ss;
}

static struct rio io_at(int64_t t_ns, uint32_t stream, uint8_t flags)
{
	return (struct rio){ .t_ns = t_ns, .len = 4096, .stream = stream,
			     .op = RIO_READ, .flags = flags };
}

static void test_sched_time(void **state)
{
	(void)state;
	assert_int_equal(sched_time(100, 1000, 1), 1100);
	assert_int_equal(sched_time(100, 1000, 2), 600);
	assert_int_equal(sched_time(100, 1000, 0.5), 2100);
	assert_int_equal(sched_time(100, 1000, 3), 433);   /* rounded */
	assert_int_equal(sched_time(100, 1000, 0), 100);   /* afap */
}

/* original timing: each I/O goes exactly at t0 + its offset */
static void test_original_exact(void **state)
{
	struct rio ios[] = { io_at(0, 0, 0), io_at(100 * US, 0, 0),
			     io_at(250 * US, 0, 0), io_at(1000000 * US, 0, 0) };
	struct rio_result res[4];
	struct sched_stats ss;

	(void)state;
	ss = run(ios, 4, 1, 1, 8, 10 * US, res, NULL, NULL);
	assert_int_equal(ss.t0, T_START + 1000 * US);
	assert_int_equal(ss.issued, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(res[i].sched_ns, ss.t0 + ios[i].t_ns);
		assert_int_equal(res[i].issue_ns, res[i].sched_ns);
		assert_int_equal(res[i].complete_ns, res[i].issue_ns + 10 * US);
		assert_int_equal(res[i].res, 4096);
	}
	assert_int_equal(ss.last_complete, ss.t0 + 1000010 * US);
}

/* scale:X is X times as fast: offsets divided by X */
static void test_scaled(void **state)
{
	static const double scales[] = { 2, 0.5, 3 };
	struct rio ios[] = { io_at(0, 0, 0), io_at(300 * US, 0, 0),
			     io_at(900 * US, 0, 0) };
	struct rio_result res[3];

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		struct sched_stats ss = run(ios, 3, 1, scales[k], 4, 10 * US, res,
					    NULL, NULL);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(res[i].sched_ns,
					 sched_time(ss.t0, ios[i].t_ns, scales[k]));
			assert_int_equal(res[i].issue_ns, res[i].sched_ns);
		}
		assert_int_equal(res[2].sched_ns - res[0].sched_ns,
				 (int64_t)(900 * US / scales[k]));
	}
}

/* afap: as fast as the depth allows, in order */
static void test_afap_depth(void **state)
{
	struct rio ios[5];
	struct rio_result res[5];
	struct sched_stats ss;
	const int64_t want[5] = { 0, 0, 10, 10, 20 };

	(void)state;
	for (int i = 0; i < 5; i++)
		ios[i] = io_at(i * 1000 * US, 0, 0);   /* times do not matter */
	ss = run(ios, 5, 1, 0, 2, 10 * US, res, NULL, NULL);
	assert_int_equal(ss.t0, T_START);            /* no lead in afap */
	assert_int_equal(ss.max_inflight, 2);
	for (int i = 0; i < 5; i++)
		assert_int_equal(res[i].issue_ns - ss.t0, want[i] * US);
	assert_int_equal(ss.last_complete - ss.t0, 30 * US);
}

/* depth 1 with three I/Os due at once: one after the other */
static void test_depth_caps_original(void **state)
{
	struct rio ios[] = { io_at(0, 0, 0), io_at(0, 0, 0), io_at(0, 0, 0) };
	struct rio_result res[3];
	struct sched_stats ss;

	(void)state;
	ss = run(ios, 3, 1, 1, 1, 30 * US, res, NULL, NULL);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(res[i].sched_ns, ss.t0);
		assert_int_equal(res[i].issue_ns - ss.t0, i * 30 * US);
		assert_int_equal(res[i].free_ns, res[i].issue_ns);  /* a slot */
	}
}

/* a serial stream's next I/O waits for the previous one to complete,
 * then goes at once (or at its own time if that is later) */
static void test_dependency(void **state)
{
	struct rio ios[] = { io_at(0, 0, RIO_DEP), io_at(5 * US, 0, RIO_DEP),
			     io_at(100 * US, 0, RIO_DEP) };
	struct rio_result res[3];
	struct sched_stats ss;

	(void)state;
	ss = run(ios, 3, 1, 1, 8, 20 * US, res, NULL, NULL);
	assert_int_equal(res[0].issue_ns - ss.t0, 0);
	assert_int_equal(res[1].sched_ns - ss.t0, 5 * US);
	assert_int_equal(res[1].issue_ns - ss.t0, 20 * US);  /* after I/O 0 */
	assert_int_equal(res[1].free_ns, res[1].issue_ns);   /* not the scheduler's lag */
	assert_int_equal(res[2].issue_ns - ss.t0, 100 * US); /* on time */
	assert_int_equal(ss.dep_waits, 1);
	/* afap: each waits for the one before */
	ss = run(ios, 3, 1, 0, 8, 20 * US, res, NULL, NULL);
	for (int i = 0; i < 3; i++)
		assert_int_equal(res[i].issue_ns - ss.t0, i * 20 * US);
}

/* streams keep their own order and a waiting stream holds no other up */
static void test_streams(void **state)
{
	struct rio ios[8];
	struct rio_result res[8];
	struct sched_stats ss;

	(void)state;
	/* stream 0: serial, even indices; stream 1: free, odd indices */
	for (int i = 0; i < 8; i++)
		ios[i] = io_at(i * US, (uint32_t)(i & 1), i & 1 ? 0 : RIO_DEP);
	ss = run(ios, 8, 2, 1, 8, 50 * US, res, NULL, NULL);
	for (int i = 1; i < 8; i += 2)          /* stream 1: on time */
		assert_int_equal(res[i].issue_ns, res[i].sched_ns);
	for (int i = 2; i < 8; i += 2) {        /* stream 0: after the previous */
		assert_true(res[i].issue_ns >= res[i - 2].complete_ns);
		assert_true(res[i].issue_ns > res[i - 2].issue_ns);
	}
	assert_int_equal(res[6].issue_ns - ss.t0, 150 * US);
	/* --streams single: one stream in global order */
	for (int i = 0; i < 8; i++)
		ios[i].stream = 0;
	ss = run(ios, 8, 1, 0, 8, 50 * US, res, NULL, NULL);
	for (int i = 1; i < 8; i++)
		assert_true(res[i].issue_ns >= res[i - 1].issue_ns);
}

/* done[] and the issue log (what replay_writer.c reads while the I/O
 * runs): every I/O issued is logged once, in issue time order, and marked
 * done with its completion */
static void test_issue_log(void **state)
{
	struct rio ios[12];
	struct rio_result res[12];
	uint8_t done[12] = { 0 }, seen[12] = { 0 };
	uint32_t log[12];
	size_t nlog = 0;
	struct plan p = { .io = ios, .n = 12, .nstreams = 2 };
	struct null_conf nc = { .latency_ns = 30 * US, .vclock = &vnow };
	struct engine_target t = { -1, 0 };
	struct engine_setup es = { .targets = &t, .ntargets = 1, .depth = 4,
				   .max_len = 4096, .align = 4096, .conf = &nc };
	struct replay_engine e = { .ops = &engine_null_ops };
	struct sched_params sp = { .scale = 0, .depth = 4, .spin_ns = 50 * US,
				   .lead_ns = 1000 * US, .done = done,
				   .issue_log = log, .issue_n = &nlog };
	struct sched_stats ss;

	(void)state;
	for (int i = 0; i < 12; i++)
		ios[i] = io_at(i * US, (uint32_t)(i % 2), 0);
	vnow = T_START;
	assert_int_equal(e.ops->init(&e, &es), 0);
	assert_int_equal(sched_run(&p, &sp, &e, &vclk, res, &ss), 0);
	e.ops->exit(&e);
	assert_int_equal(nlog, 12);
	for (size_t k = 0; k < nlog; k++) {
		assert_true(log[k] < 12);
		assert_int_equal(seen[log[k]]++, 0);
		if (k)
			assert_true(res[log[k]].issue_ns >= res[log[k - 1]].issue_ns);
	}
	for (int i = 0; i < 12; i++) {
		assert_int_equal(done[i], 1);
		assert_true(res[i].complete_ns >= res[i].issue_ns);
	}
}

static int stop_after(void *ctx)
{
	return vnow >= *(int64_t *)ctx;
}

/* an interrupt stops issuing; what is in flight completes */
static void test_interrupt(void **state)
{
	struct rio ios[] = { io_at(0, 0, 0), io_at(20 * US, 0, 0),
			     io_at(50000 * US, 0, 0), io_at(90000 * US, 0, 0) };
	struct rio_result res[4];
	struct sched_stats ss;
	int64_t at = T_START + 1000 * US + 30000 * US;

	(void)state;
	ss = run(ios, 4, 1, 1, 8, 10 * US, res, stop_after, &at);
	assert_int_equal(ss.interrupted, 1);
	assert_int_equal(ss.issued, 2);
	assert_true(res[1].complete_ns > 0);
	assert_int_equal(res[2].sched_ns, 0);
	assert_int_equal(res[3].sched_ns, 0);
}

/* A 4400 s gap (a clock step ahead): an interrupt stops the replay within
 * one wake slice (SCHED_WAKE_NS), not after the gap. */
static void test_interrupt_in_gap(void **state)
{
	struct rio ios[] = { io_at(0, 0, 0), io_at(4400000000000ll, 0, 0) };
	struct rio_result res[2];
	struct sched_stats ss;
	int64_t at = T_START + 2000000000ll;

	(void)state;
	ss = run(ios, 2, 1, 1, 8, 10 * US, res, stop_after, &at);
	assert_int_equal(ss.interrupted, 1);
	assert_int_equal(ss.issued, 1);
	assert_true(vnow < at + SCHED_WAKE_NS + 10000 * US);
}

/* --max-gap: gaps between starts over the limit shrink to it. */
static void test_cap_gaps(void **state)
{
	struct rio ios[] = { io_at(0, 0, 0), io_at(5, 0, 0), io_at(100, 0, 0),
			     io_at(100, 0, 0), io_at(130, 0, 0), io_at(500, 0, 0) };
	struct plan p = { .io = ios, .n = 6 };
	int64_t removed;

	(void)state;
	assert_int_equal(plan_cap_gaps(&p, 20, &removed), 3);
	assert_int_equal(removed, (95 - 20) + (30 - 20) + (370 - 20));
	assert_int_equal(ios[2].t_ns, 25);
	assert_int_equal(ios[3].t_ns, 25);
	assert_int_equal(ios[4].t_ns, 45);
	assert_int_equal(ios[5].t_ns, 65);
	assert_int_equal(plan_cap_gaps(&p, 0, &removed), 0);
	assert_int_equal(removed, 0);
}

static void test_map_range(void **state)
{
	uint64_t off, len;
	uint8_t f;
	const uint64_t MB = 1 << 20;

	(void)state;
	f = 0;   /* aligned already */
	assert_int_equal(plan_map_range(8192, 4096, 4096, MB, 0, &off, &len, &f), 0);
	assert_true(off == 8192 && len == 4096 && f == 0);
	f = 0;   /* 512-byte I/O on a 4 KiB target: rounded out */
	assert_int_equal(plan_map_range(4608, 1024, 4096, MB, 0, &off, &len, &f), 0);
	assert_true(off == 4096 && len == 4096 && (f & RIO_ALIGNED));
	f = 0;   /* spans two blocks once rounded */
	assert_int_equal(plan_map_range(3584, 1024, 4096, MB, 0, &off, &len, &f), 0);
	assert_true(off == 0 && len == 8192);
	f = 0;   /* beyond the end without wrap: refused */
	assert_int_equal(plan_map_range(MB, 4096, 512, MB, 0, &off, &len, &f), -ERANGE);
	f = 0;   /* with wrap: modulo the size */
	assert_int_equal(plan_map_range(MB + 4096, 4096, 512, MB, 1, &off, &len, &f), 0);
	assert_true(off == 4096 && len == 4096 && (f & RIO_WRAPPED));
	f = 0;   /* crossing the end: moved back to end there */
	assert_int_equal(plan_map_range(3 * MB - 4096, 8192, 512, MB, 1, &off, &len,
					&f), 0);
	assert_true(off == MB - 8192 && len == 8192 && (f & RIO_WRAPPED));
	f = 0;   /* larger than the target: refused even with wrap */
	assert_int_equal(plan_map_range(0, 2 * MB, 512, MB, 1, &off, &len, &f),
			 -ERANGE);
	f = 0;   /* size 0: unbounded (a file that grows) */
	assert_int_equal(plan_map_range(5 * MB, 4096, 512, 0, 0, &off, &len, &f), 0);
	assert_true(off == 5 * MB && !f);
}

static void test_max_overlap(void **state)
{
	const int64_t s1[] = { 0, 10, 20 }, e1[] = { 10, 20, 30 };  /* touching */
	const int64_t s2[] = { 0, 5, 6, 40 }, e2[] = { 10, 15, 7, 50 };
	const int64_t s3[] = { 5, 5 }, e3[] = { 5, 5 };             /* no time */

	(void)state;
	assert_int_equal(plan_max_overlap(s1, e1, 3), 1);
	assert_int_equal(plan_max_overlap(s2, e2, 4), 3);
	assert_int_equal(plan_max_overlap(s3, e3, 2), 0);
	assert_int_equal(plan_max_overlap(NULL, NULL, 0), 0);
}

/* Starts in order take the heap path, the same intervals out of order the
 * sort of start and end points: both give the same depth, on intervals
 * with shared starts, shared ends and ends equal to later starts. */
static void test_max_overlap_paths(void **state)
{
	enum { N = 5000 };
	int64_t *s = malloc(N * sizeof(*s)), *e = malloc(N * sizeof(*e));
	int64_t *s2 = malloc(N * sizeof(*s2)), *e2 = malloc(N * sizeof(*e2));
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 20; round++) {
		int64_t t = 0;
		for (int i = 0; i < N; i++) {
			seed = seed * 1103515245u + 12345u;
			t += (seed >> 16) % 4;                 /* repeats starts */
			s[i] = t;
			seed = seed * 1103515245u + 12345u;
			e[i] = t + (int64_t)((seed >> 16) % (8 + 8 * round));
		}
		for (int i = 0; i < N; i++) {          /* reversed: unsorted */
			s2[i] = s[N - 1 - i];
			e2[i] = e[N - 1 - i];
		}
		assert_int_equal(plan_max_overlap(s, e, N),
				 plan_max_overlap(s2, e2, N));
		assert_true(plan_max_overlap(s, e, N) > 1);
	}
	free(s);
	free(e);
	free(s2);
	free(e2);
}

static void test_plan_build(void **state)
{
	const uint32_t dev = BT_MKDEV(7, 0);
	struct src_io rows[] = {
		/* pid 10: one at a time (serial) */
		{ .id = 1, .dev = dev, .pid = 10, .sector = 0, .bytes = 4096,
		  .cats = BT_C_READ, .start_ns = 1000, .end_ns = 2000, .has_end = 1 },
		/* pid 20: two at once */
		{ .id = 2, .dev = dev, .pid = 20, .sector = 64, .bytes = 8192,
		  .cats = BT_C_WRITE, .start_ns = 1500, .end_ns = 5000, .has_end = 1 },
		{ .id = 3, .dev = dev, .pid = 10, .sector = 8, .bytes = 4096,
		  .cats = BT_C_READ, .start_ns = 2500, .end_ns = 3000, .has_end = 1 },
		{ .id = 4, .dev = dev, .pid = 20, .sector = 128, .bytes = 4096,
		  .cats = BT_C_WRITE | BT_C_FUA, .start_ns = 2600, .end_ns = 4000,
		  .has_end = 1 },
		/* pid 30: a flush+write, a zero-length flush, a discard */
		{ .id = 5, .dev = dev, .pid = 30, .sector = 256, .bytes = 4096,
		  .cats = BT_C_WRITE | BT_C_FLUSH, .start_ns = 6000, .end_ns = 7000,
		  .has_end = 1 },
		{ .id = 6, .dev = dev, .pid = 30, .sector = 0, .bytes = 0,
		  .cats = BT_C_WRITE | BT_C_FLUSH, .start_ns = 8000, .end_ns = 8100,
		  .has_end = 1 },
		{ .id = 7, .dev = dev, .pid = 30, .sector = 512, .bytes = 65536,
		  .cats = BT_C_DISCARD, .start_ns = 9000, .end_ns = 9100, .has_end = 1 },
	};
	uint32_t devs[] = { dev };
	struct source src = { .io = rows, .n = 7, .devs = devs, .ndev = 1 };
	int dt[] = { 0 };
	struct plan_target wt = { .name = "t", .size = 1 << 20, .lbs = 512,
				  .writable = 1 };
	struct plan p;
	char err[256];

	(void)state;
	assert_int_equal(plan_build(&src, dt, &wt, 1, 0, 0, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nstreams, 3);
	assert_int_equal(p.serial_streams, 2);          /* pids 10 and 30 */
	assert_int_equal(p.depth_orig, 3);              /* 1500..2000: 1, 2, (3 at 2600) */
	assert_int_equal(p.n, 8);                       /* flush+write is two */
	assert_int_equal(p.flush_writes, 1);
	assert_true(p.io[0].stream == 0 && (p.io[0].flags & RIO_DEP));
	assert_true(p.io[1].stream == 1 && !(p.io[1].flags & RIO_DEP));
	assert_int_equal(p.io[1].op, RIO_WRITE);
	assert_true(p.io[1].off == 64 * 512 && p.io[1].len == 8192);
	assert_true(p.io[3].op == RIO_WRITE && (p.io[3].flags & RIO_FUA));
	assert_true(p.io[4].op == RIO_FLUSH && (p.io[4].flags & RIO_PREFLUSH));
	assert_true(p.io[5].op == RIO_WRITE && (p.io[5].flags & RIO_DEP));
	assert_int_equal(p.io[5].off, 256 * 512);
	assert_int_equal(p.io[5].t_ns, 5000);           /* from the first start */
	assert_true(p.io[6].op == RIO_FLUSH && p.io[6].len == 0);
	assert_int_equal(p.io[7].op, RIO_DISCARD);
	assert_int_equal(p.need[0], 512 * 512 + 65536);
	plan_free(&p);

	/* a device not written: writes read, discards skipped */
	wt.writable = 0;
	assert_int_equal(plan_build(&src, dt, &wt, 1, 0, 0, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 7);
	assert_int_equal(p.as_read, 3);
	assert_int_equal(p.discards_skipped, 1);
	assert_true(p.io[1].op == RIO_READ && (p.io[1].flags & RIO_AS_READ));
	plan_free(&p);

	/* too small, no wrap: refused, naming the sector reached */
	wt.writable = 1;
	wt.size = 64 * 1024;
	assert_int_equal(plan_build(&src, dt, &wt, 1, 0, 0, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "sector 640"));
	plan_free(&p);
	/* with --offset and wrap it fits */
	wt.wrap = 1;
	assert_int_equal(plan_build(&src, dt, &wt, 1, 1, 100, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nstreams, 1);
	assert_true(p.wrapped > 0);
	assert_int_equal(p.io[0].off, 100 * 512);
	plan_free(&p);
}

/* The bounded-memory sort of a run's rows (source_sort): runs sorted in
 * place and merged give the order one qsort gives, in a spill file and in
 * anonymous memory, with rows of equal times ordered by id. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct src_io *a = pa, *b = pb;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static void test_source_sort(void **state)
{
	const size_t n = 200003;
	struct src_io *want = malloc(n * sizeof(*want));
	const char *tmpdir = getenv("TMPDIR");

	(void)state;
	assert_non_null(want);
	for (int anon = 0; anon < 2; anon++) {
		struct source src = { 0 };
		uint64_t x = 88172645463325252ull;
		/* anonymous memory: a TMPDIR where no file can be made */
		if (anon)
			setenv("TMPDIR", "/nonexistent-iotape-test", 1);
		assert_int_equal(spill_init(&src.io_mem, n * sizeof(*src.io)), 0);
		assert_int_equal(src.io_mem.fd < 0, anon);
		src.io = src.io_mem.p;
		src.n = n;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* a clock that steps back now and then, ties on purpose */
			src.io[i] = (struct src_io){ .id = (int64_t)(n - i),
				.start_ns = (int64_t)(x % 50000), .bytes = 4096 };
		}
		memcpy(want, src.io, n * sizeof(*want));
		qsort(want, n, sizeof(*want), cmp_rows);
		assert_int_equal(source_sort(&src, 1000), 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(src.io[i].id, want[i].id);
			assert_int_equal(src.io[i].start_ns, want[i].start_ns);
		}
		source_free(&src);
		if (tmpdir)
			setenv("TMPDIR", tmpdir, 1);
		else
			unsetenv("TMPDIR");
	}
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_time),
		cmocka_unit_test(test_original_exact),
		cmocka_unit_test(test_scaled),
		cmocka_unit_test(test_afap_depth),
		cmocka_unit_test(test_depth_caps_original),
		cmocka_unit_test(test_dependency),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_issue_log),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_interrupt_in_gap),
		cmocka_unit_test(test_cap_gaps),
		cmocka_unit_test(test_map_range),
		cmocka_unit_test(test_max_overlap),
		cmocka_unit_test(test_max_overlap_paths),
		cmocka_unit_test(test_plan_build),
		cmocka_unit_test(test_source_sort),
	};
	return cmocka_run_group_tests_name("replay_sched", tests, NULL, NULL);
}
