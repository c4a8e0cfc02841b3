/* Unit tests of the workload's critical path (analyze/critpath.h) on runs
 * made in memory (rundata_of_ios): the categories add up to the window;
 * overlapping I/Os of one process count once (a queue depth of 4 is not 4x
 * the device time); two processes at once share each instant; a process's
 * time between its I/Os is free time; I/O at the device while another
 * process's was in flight is queueing beyond the unloaded D2C; a shell
 * asleep while its child reads shares none of the child's time; and
 * critpath_diff()'s split adds up to the difference, giving smaller
 * requests for the same bytes to the count-and-size part and writes slowed
 * beside the journal's cache flushes to the journal; a read of
 * sectors an earlier read covered is a refault; a synchronous writer
 * idle beside another's cache flush waits on the journal, a reader beside
 * it does not, whoever synced later; a wait for a
 * tag other processes' requests held is queueing that stays the queue's
 * between runs, one behind a process's own requests is not queueing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/critpath.h"
#include "analyze/evorder.h"
#include "analyze/rundata.h"
#include "trace/blktrace_format.h"
#include "lib/util.h"

#define MS 1000000LL

static struct an_io io_of(uint32_t pid, int64_t q, int64_t d, int64_t c,
			  uint32_t bytes, uint64_t sector)
{
	struct an_io x;

	memset(&x, 0, sizeof(x));
	x.q = q;
	x.g = x.i = x.m = AN_NONE;
	x.d = d;
	x.c = c;
	x.bytes = x.dbytes = bytes;
	x.sector = x.dsector = sector;
	x.pid = pid;
	x.dev = BT_MKDEV(7, 0);
	x.flags = AN_HEAD;
	return x;
}

/* the i-th of one process's reads one at a time: queued and dispatched
 * at i x 15 ms, done 10 ms later */
static struct an_io serial_io(int i, uint32_t bytes, uint64_t sector)
{
	return io_of(100, i * 15 * MS, i * 15 * MS, i * 15 * MS + 10 * MS, bytes,
		     sector);
}

static double cat_sum(const struct critpath *cp);

/* The categories less the window: 0 when they add up. */
static double cp_sum_check(const struct critpath *cp)
{
	return cat_sum(cp) - cp->elapsed_s;
}

static double cat_sum(const struct critpath *cp)
{
	double s = 0;

	for (int k = 0; k < CP_NCAT; k++)
		s += cp->cat[k];
	return s;
}

/* builds cp over the n I/Os io (no samples, no commands) */
static void build(struct critpath *cp, struct rundata *rd, struct evorder *o,
		  const struct an_io *io, size_t n)
{
	rundata_of_ios(rd, NULL, io, n);
	/* the window rundata_load() would set: first to last event */
	rd->t0 = io[0].q;
	rd->t1 = io[0].c;
	for (size_t i = 0; i < n; i++) {
		if (io[i].q < rd->t0)
			rd->t0 = io[i].q;
		if (io[i].c > rd->t1)
			rd->t1 = io[i].c;
	}
	evorder_build(o, rd, 1u << EV_Q | 1u << EV_D | 1u << EV_C);
	critpath_build(cp, rd, o, 0, FAM_ALL);
}

/* build() with the capture's delay accounting: tasks (sorted by pid) set
 * before the walk, as rundata_load() reads them */
static void build_tasks(struct critpath *cp, struct rundata *rd,
			struct evorder *o, const struct an_io *io, size_t n,
			const struct an_task *t, size_t nt)
{
	rundata_of_ios(rd, NULL, io, n);
	rd->t0 = io[0].q;
	rd->t1 = io[0].c;
	for (size_t i = 0; i < n; i++) {
		if (io[i].q < rd->t0)
			rd->t0 = io[i].q;
		if (io[i].c > rd->t1)
			rd->t1 = io[i].c;
	}
	rd->tasks = xmalloc(nt * sizeof(*rd->tasks));
	memcpy(rd->tasks, t, nt * sizeof(*t));
	rd->ntask = nt;
	evorder_build(o, rd, 1u << EV_Q | 1u << EV_D | 1u << EV_C);
	critpath_build(cp, rd, o, 0, FAM_ALL);
}

/* a task of life [start, exit] ms whose own account says cpu_ms on a CPU
 * and blkio_ms waiting on block I/O */
static struct an_task task_of(uint32_t pid, uint32_t ppid, int64_t start,
			      int64_t exit, double cpu_ms, double blkio_ms)
{
	struct an_task t;

	memset(&t, 0, sizeof(t));
	t.pid = pid;
	t.ppid = ppid;
	t.start = t.t_first = start * MS;
	t.exit = t.t_last = exit * MS;
	t.last[AT_CPU] = cpu_ms / 1e3;
	t.last[AT_BLKIO] = blkio_ms / 1e3;
	return t;
}

static void done(struct critpath *cp, struct rundata *rd, struct evorder *o)
{
	critpath_free(cp);
	evorder_free(o);
	rundata_free(rd);
}

/* one process, one read at a time, 10 ms each with 5 ms between: half the
 * window waiting at the device, the rest free */
static void test_serial(void **state)
{
	struct an_io io[10];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	for (int i = 0; i < 10; i++)
		io[i] = serial_io(i, 65536, (uint64_t)i * 128);
	build(&cp, &rd, &o, io, 10);
	assert_true(fabs(cp.elapsed_s - 0.145) < 1e-9);
	assert_true(fabs(cat_sum(&cp) - cp.elapsed_s) < 1e-6);
	assert_true(fabs(cp.blocked_s - 0.100) < 1e-6);
	assert_true(fabs(cp.cat[CP_DEVICE] - 0.100) < 1e-6);
	assert_true(fabs(cp.free_s - 0.045) < 1e-6);
	done(&cp, &rd, &o);
}

/* one process keeping 4 reads in flight for 100 ms: 100 ms of waiting,
 * not 400 ms of device time */
static void test_depth(void **state)
{
	struct an_io io[40];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	for (int i = 0; i < 40; i++) {
		int64_t q = (i / 4) * 10 * MS;
		io[i] = io_of(100, q, q, q + 10 * MS, 4096, (uint64_t)i * 8);
	}
	build(&cp, &rd, &o, io, 40);
	assert_true(fabs(cp.elapsed_s - 0.100) < 1e-9);
	assert_true(fabs(cp.blocked_s - 0.100) < 1e-6);
	assert_true(fabs(cat_sum(&cp) - 0.100) < 1e-6);
	done(&cp, &rd, &o);
}

/* two processes on one device that serves a request at a time: pid 1
 * alone for 200 ms (10 ms reads back to back), then both queue a read every
 * 20 ms, pid 1's served first (done at +10 ms), pid 2's after it (done at
 * +20 ms: it waited 10 ms behind pid 1's). Each instant counted once, half
 * to each process while both wait; pid 2's wait behind pid 1's read is
 * queueing, its own 10 ms of service the device's */
static void test_two(void **state)
{
	struct an_io io[64];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;
	size_t n = 0;
	int64_t t;

	(void)state;
	for (t = 0; t < 200 * MS; t += 10 * MS)
		io[n++] = io_of(1, t, t, t + 10 * MS, 4096, (uint64_t)t / MS * 8);
	for (t = 200 * MS; t < 400 * MS; t += 20 * MS) {
		io[n++] = io_of(1, t, t, t + 10 * MS, 4096, (uint64_t)t / MS * 8);
		io[n++] = io_of(2, t, t, t + 20 * MS, 4096, 1000000 + (uint64_t)t / MS * 8);
	}
	build(&cp, &rd, &o, io, n);
	assert_true(fabs(cp.elapsed_s - 0.400) < 1e-9);
	assert_true(fabs(cat_sum(&cp) - 0.400) < 1e-6);
	/* pid 1 ends at its last C (390 ms): pid 2 alone for the last 10 ms
	 * takes it whole, 2.5 ms more queueing, 2.5 more device, 5 less free */
	assert_true(fabs(cp.cat[CP_QUEUE] - 0.0525) < 1e-6);
	assert_true(fabs(cp.cat[CP_DEVICE] - 0.3025) < 1e-6);
	assert_true(fabs(cp.free_s - 0.045) < 1e-6);
	done(&cp, &rd, &o);
}

/* io[0]: pid 100's one 64 KiB read in its first ms; io[1..n]: pid 101's n
 * reads, one every step_ms from 2 ms on, each len_ms long */
static void shell_and_child(struct an_io *io, int n, int step_ms, int len_ms)
{
	io[0] = io_of(100, 0, MS / 2, 1 * MS, 65536, 1 << 20);
	for (int i = 0; i < n; i++)
		io[i + 1] = io_of(101, (2 + step_ms * i) * MS, (2 + step_ms * i) * MS,
				  (2 + step_ms * i + len_ms) * MS, 65536,
				  (uint64_t)i * 128);
}

/* a shell that read its script (one 64 KiB read) and then slept until its
 * child dd, reading 49 x 2 ms one after another, exited: with the tasks'
 * lives the shell is no lane of its own; the dd's 98 ms of reads are the
 * workload's waiting, not half of them (the shell's life shared each
 * instant) */
static void test_sleeper(void **state)
{
	struct an_io io[50];
	struct an_task t[2];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	shell_and_child(io, 49, 2, 2);
	t[0] = task_of(100, 1, 0, 100, 1, 1);     /* the shell: asleep */
	t[1] = task_of(101, 100, 1, 100, 2, 97);  /* dd: on its reads */
	build_tasks(&cp, &rd, &o, io, 50, t, 2);
	assert_true(fabs(cat_sum(&cp) - cp.elapsed_s) < 1e-6);
	assert_true(cp.blocked_s > 0.095);
	assert_true(cp.cat[CP_DEVICE] + cp.cat[CP_QUEUE] > 0.095);
	done(&cp, &rd, &o);
}

/* a shell whose block I/O delay the capture dropped (NAN), waiting for a
 * child that waited half its life for a CPU: the shell's life is no I/O
 * held above the block layer (a cpu run read as 4.8 s of throttle) */
static void test_dropped_shell(void **state)
{
	struct an_io io[6];
	struct an_task t[2];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	shell_and_child(io, 5, 20, 1);
	t[0] = task_of(100, 1, 0, 100, 1, 0);
	t[0].last[AT_BLKIO] = NAN;                /* dropped */
	t[1] = task_of(101, 100, 1, 100, 45, 5);
	t[1].last[AT_CPU_DELAY] = 0.050;
	build_tasks(&cp, &rd, &o, io, 6, t, 2);
	assert_true(cp.measured);
	assert_true(fabs(cat_sum(&cp) - cp.elapsed_s) < 1e-6);
	assert_true(cp.cat[CP_THROTTLE] + cp.cat[CP_WBWAIT] < 0.005);
	assert_true(cp.cat[CP_CPU] > 0.03);
	done(&cp, &rd, &o);
}

/* a reader held 0.49 s beyond its traced I/O (its own account) while the
 * device idled a second with 20 MB dirty system-wide, nothing written: no
 * flusher wrote while it waited, it synced nothing of its own, so the
 * idle time with dirty data is no cause of its wait (make demo's capture
 * after its build gave writeback 0.26 s of a writer's held time so) */
static void test_idle_dirty_not_whose(void **state)
{
	struct an_io io[2];
	struct an_task t;
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	io[0] = io_of(101, 0, 0, 5 * MS, 4096, 0);
	io[1] = io_of(101, 995 * MS, 995 * MS, 1000 * MS, 4096, 8);
	t = task_of(101, 1, 0, 1000, 10, 500);
	rundata_of_ios(&rd, NULL, io, 2);
	rd.t0 = 0;
	rd.t1 = 1000 * MS;
	rd.tasks = xmalloc(sizeof(*rd.tasks));
	rd.tasks[0] = t;
	rd.ntask = 1;
	rd.dirty_kb.n = 2;
	rd.dirty_kb.t = xmalloc(2 * sizeof(*rd.dirty_kb.t));
	rd.dirty_kb.v = xmalloc(2 * sizeof(*rd.dirty_kb.v));
	rd.dirty_kb.t[0] = 0;
	rd.dirty_kb.t[1] = 1000 * MS;
	rd.dirty_kb.v[0] = rd.dirty_kb.v[1] = 20 * 1024;
	evorder_build(&o, &rd, 1u << EV_Q | 1u << EV_D | 1u << EV_C);
	critpath_build(&cp, &rd, &o, 0, FAM_ALL);
	assert_true(cp.measured);
	assert_true(cp.idle_dirty_s > 0.5);
	assert_true(fabs(cat_sum(&cp) - cp.elapsed_s) < 1e-6);
	assert_true(cp.cat[CP_WRITEBACK] < 0.005);
	done(&cp, &rd, &o);
}

/* a run with next to no work of its own (3 ms) and 37 ms waiting for a
 * CPU against one with 30 ms of each: the wait per second of work is no
 * figure to split the change by; the CPU part stays within what the wait
 * and the work changed (-0.33 s in a 0.19 s run before) */
static void test_diff_cpu_little_work(void **state)
{
	struct an_io a[10];
	struct critpath x, y;
	struct rundata rx, ry;
	struct evorder ox, oy;
	struct cp_diff d;
	double total, parts = 0, lim;

	(void)state;
	for (int i = 0; i < 10; i++)
		a[i] = io_of(1, i * 2 * MS, i * 2 * MS, i * 2 * MS + MS, 65536,
			     (uint64_t)i * 128);
	build(&x, &rx, &ox, a, 10);
	build(&y, &ry, &oy, a, 10);
	x.cat[CP_OTHER] = 0.003;
	x.cat[CP_CPU] = 0.037;
	y.cat[CP_OTHER] = 0.030;
	y.cat[CP_CPU] = 0.031;
	x.elapsed_s += 0.040;
	y.elapsed_s += 0.061;
	total = critpath_diff(&x, &y, 1, &d);
	lim = fabs(0.031 - 0.037) + fabs(0.030 - 0.003);
	assert_true(fabs(d.d[CP_CPU]) <= lim + 1e-9);
	for (int k = 0; k < CP_NCAT; k++)
		parts += d.d[k];
	parts += d.mix_s[0] + d.mix_s[1] + d.volume_s[0] + d.volume_s[1];
	assert_true(fabs(parts - total) < 1e-6);
	/* 20 ms of work and 0.5 s waiting against 0.5 s of work and 10 ms:
	 * contention takes back no more than the better run waited */
	x.cat[CP_OTHER] = 0.020;
	x.cat[CP_CPU] = 0.500;
	y.cat[CP_OTHER] = 0.500;
	y.cat[CP_CPU] = 0.010;
	critpath_diff(&x, &y, 1, &d);
	assert_true(d.d[CP_CPU] >= -0.500 - 1e-9);
	done(&x, &rx, &ox);
	done(&y, &ry, &oy);
}

/* the same 4 MiB read in 512 KiB requests (x) and in 8 KiB ones (y, each
 * 1 ms): the difference is the requests' count and size, not the device's
 * speed, and the split adds up */
static void test_diff_mix(void **state)
{
	struct an_io *a = xcalloc(512, sizeof(*a)), *b = xcalloc(512, sizeof(*b));
	struct critpath x, y;
	struct rundata rx, ry;
	struct evorder ox, oy;
	struct cp_diff d;
	double total, split = 0;

	(void)state;
	for (int i = 0; i < 8; i++)
		a[i] = io_of(1, i * 5 * MS, i * 5 * MS, i * 5 * MS + 5 * MS,
			     524288, (uint64_t)i * 1024);
	for (int i = 0; i < 512; i++)
		b[i] = io_of(1, i * MS, i * MS, i * MS + MS, 8192, (uint64_t)i * 16);
	build(&x, &rx, &ox, a, 8);
	build(&y, &ry, &oy, b, 512);
	total = critpath_diff(&x, &y, 1, &d);
	assert_true(fabs(total - (0.512 - 0.040)) < 1e-6);
	for (int k = 0; k < CP_NCAT; k++)
		split += d.d[k];
	split += d.mix_s[0] + d.mix_s[1] + d.volume_s[0] + d.volume_s[1];
	assert_true(fabs(split - total) < 1e-6);
	assert_true(d.mix_s[0] > 0.9 * total);
	assert_true(fabs(d.volume_s[0]) < 1e-6);
	assert_true(d.mean_kb[1][0] < d.mean_kb[0][0]);
	done(&x, &rx, &ox);
	done(&y, &ry, &oy);
	free(a);
	free(b);
}

/* the same requests 2x slower at the device: its speed, not the mix */
/* the same 5 MiB in requests of 128 KiB at 5 ms each: 40 of one bio laid
 * end to end (x), 40 of 32 bios of 4 KiB merged, each 128 sectors after the
 * last (y): no difference, counted request against request (the bios
 * counted at x's cost of a request made 6.2 s of count and size and -6.2 s
 * of speed); y's requests scattered, x's contiguous */
static void test_diff_merged(void **state)
{
	struct an_io *a = xcalloc(40, sizeof(*a)), *b = xcalloc(1280, sizeof(*b));
	struct critpath x, y;
	struct rundata rx, ry;
	struct evorder ox, oy;
	struct cp_diff d;
	double total;

	(void)state;
	for (int i = 0; i < 40; i++)
		a[i] = io_of(1, i * 5 * MS, i * 5 * MS, i * 5 * MS + 5 * MS,
			     131072, (uint64_t)i * 256);
	for (int i = 0; i < 40; i++)
		for (int k = 0; k < 32; k++) {
			struct an_io *o = &b[i * 32 + k];
			*o = io_of(1, i * 5 * MS, i * 5 * MS, i * 5 * MS + 5 * MS,
				   4096, (uint64_t)i * 512 + (uint64_t)k * 8);
			o->dbytes = 131072;
			o->dsector = (uint64_t)i * 512;
			if (k) {
				o->flags = AN_MERGED;
				o->m = o->q;
			}
		}
	build(&x, &rx, &ox, a, 40);
	build(&y, &ry, &oy, b, 1280);
	total = critpath_diff(&x, &y, 1, &d);
	assert_true(fabs(total) < 1e-6);
	assert_true(fabs(d.mix_s[0]) < 0.001);
	assert_true(fabs(d.speed_s) < 0.001);
	assert_true(fabs(d.mean_kb[1][0] - 128) < 1e-6);
	assert_true(fabs(d.mean_kb[0][0] - 128) < 1e-6);
	assert_true(d.contig[1] < 0.01 && d.contig[0] > 0.9);
	assert_false(cp_reads_smaller(&d));
	done(&x, &rx, &ox);
	done(&y, &ry, &oy);
	free(a);
	free(b);
}

static void test_diff_speed(void **state)
{
	struct an_io a[40], b[40];
	struct critpath x, y;
	struct rundata rx, ry;
	struct evorder ox, oy;
	struct cp_diff d;
	double total;

	(void)state;
	for (int i = 0; i < 40; i++) {
		a[i] = io_of(1, i * 2 * MS, i * 2 * MS, i * 2 * MS + 2 * MS, 65536,
			     (uint64_t)i * 128);
		b[i] = io_of(1, i * 4 * MS, i * 4 * MS, i * 4 * MS + 4 * MS, 65536,
			     (uint64_t)i * 128);
	}
	build(&x, &rx, &ox, a, 40);
	build(&y, &ry, &oy, b, 40);
	total = critpath_diff(&x, &y, 1, &d);
	assert_true(fabs(total - 0.080) < 1e-6);
	assert_true(fabs(d.d[CP_DEVICE] - 0.080) < 1e-6);
	assert_true(fabs(d.mix_s[0]) < 1e-6);
	done(&x, &rx, &ox);
	done(&y, &ry, &oy);
}

/* a synchronous writer's 40 4 KiB writes, 1 ms each at the device in x;
 * in y 3 ms each, each commit followed by a cache flush of the journal's
 * (pid 200, 1 ms) while the writer waits: the writes' slower service is
 * the barriers' (journal), not the device's, and the split adds up; with 10
 * flushes (under FLUSH_MIN) it stays the device's */
static void diff_flush_runs(int nflush, struct cp_diff *d, double *total)
{
	struct an_io a[40], b[80];
	struct critpath x, y;
	struct rundata rx, ry;
	struct evorder ox, oy;
	size_t nb = 0;

	for (int i = 0; i < 40; i++) {
		int64_t t = i * 6 * MS;
		a[i] = io_of(100, t, t, t + MS, 4096, (uint64_t)i * 8);
		a[i].flags |= AN_WRITE | AN_SYNC;
		b[nb] = io_of(100, t, t, t + 3 * MS, 4096, (uint64_t)i * 8);
		b[nb++].flags |= AN_WRITE | AN_SYNC;
		if (i < nflush) {
			b[nb] = io_of(200, AN_NONE, t + 3 * MS, t + 4 * MS, 0, 0);
			b[nb++].flags |= AN_FLUSH | AN_WRITE;
		}
	}
	build(&x, &rx, &ox, a, 40);
	build(&y, &ry, &oy, b, nb);
	*total = critpath_diff(&x, &y, 1, d);
	done(&x, &rx, &ox);
	done(&y, &ry, &oy);
}

static void test_diff_flushes(void **state)
{
	struct cp_diff d;
	double total, parts = 0;

	(void)state;
	diff_flush_runs(40, &d, &total);
	assert_true(fabs(d.flush_speed_s - 0.080) < 1e-6);
	assert_true(d.flushes[0] == 0 && d.flushes[1] == 40);
	assert_true(fabs(d.d[CP_DEVICE]) < 1e-6);
	assert_true(d.d[CP_JOURNAL] >= 0.080 - 1e-6);
	for (int k = 0; k < CP_NCAT; k++)
		parts += d.d[k];
	parts += d.mix_s[0] + d.mix_s[1] + d.volume_s[0] + d.volume_s[1];
	assert_true(fabs(parts - total) < 1e-6);
	/* few flushes: the device's */
	diff_flush_runs(10, &d, &total);
	assert_true(d.flush_speed_s == 0);
	assert_true(fabs(d.d[CP_DEVICE] - 0.080) < 1e-6);
}

/* reads that cover sectors an earlier read covered are re-reads
 * (refaults), whatever else overlaps them: one 8 kB read re-read in part,
 * a read inside a wide earlier one, and a read of part of an earlier one
 * that a later, wider read (same start) covers too: both of those re-read */
static void test_refault(void **state)
{
	static const struct { uint64_t sector; uint32_t sectors; } r[] = {
		{ 0, 16 }, { 1000, 8 }, { 4, 8 }, { 2000, 200 }, { 2050, 10 },
		{ 3000, 10 }, { 3005, 3 }, { 3000, 100 },
		/* a damaged trace's sector: left out, not a 2^47-byte map */
		{ 1ull << 58, 8 },
	};
	struct an_io io[9];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	for (int i = 0; i < 9; i++)
		io[i] = serial_io(i, r[i].sectors * 512, r[i].sector);
	build(&cp, &rd, &o, io, 9);
	assert_int_equal(cp.refault_bios, 4);
	assert_true(fabs(cp.refault_mb - (8 + 10 + 3 + 100) * 512 / 1e6) < 1e-9);
	done(&cp, &rd, &o);
}

/* a synchronous writer (O_DSYNC: each write, then the commit): its write
 * at 0-1 ms, a cache flush another issued (the flush sequence: D and C,
 * no Q) in flight 1-9 ms while the writer waits, its next write at 10-11
 * ms. The 8 ms the writer waited with no I/O of its own, beside the
 * flush, are the journal's; a plain writer (no sync) beside the same
 * flush is free, not waiting on it. */
static void test_journal(void **state)
{
	struct an_io io[3];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	io[0] = io_of(100, 0, 0, 1 * MS, 4096, 0);
	io[1] = io_of(200, AN_NONE, 1 * MS, 9 * MS, 0, 0);
	io[1].flags |= AN_FLUSH | AN_WRITE;
	io[2] = io_of(100, 10 * MS, 10 * MS, 11 * MS, 4096, 8);
	io[0].flags |= AN_WRITE | AN_SYNC;
	io[2].flags |= AN_WRITE | AN_SYNC;
	build(&cp, &rd, &o, io, 3);
	assert_true(fabs(cp.elapsed_s - 0.011) < 1e-9);
	assert_true(fabs(cp.cat[CP_JOURNAL] - 0.008) < 1e-6);
	assert_true(fabs(cp_sum_check(&cp)) < 1e-9);
	assert_true(cp.journal_flushes == 1 && cp.journal_bios == 1);
	done(&cp, &rd, &o);
	/* buffered writes, no sync: the flush is no wait of the writer's */
	io[0].flags &= ~AN_SYNC;
	io[2].flags &= ~AN_SYNC;
	build(&cp, &rd, &o, io, 3);
	assert_true(cp.cat[CP_JOURNAL] == 0);
	done(&cp, &rd, &o);
}

/* a reader (pid 1: 10 ms reads every 20 ms over 200 ms) beside a cache
 * flush another issued in flight 50-150 ms, and a sync (pid 3) that
 * writes at 190-191 ms: the flush is no commit the reader waits for, nor
 * the sync's, which was not yet running; its free time stays free */
static void test_journal_not_syncing(void **state)
{
	struct an_io io[16];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 10; i++)
		io[n++] = io_of(1, i * 20 * MS, i * 20 * MS, i * 20 * MS + 10 * MS,
				65536, (uint64_t)i * 128);
	io[n] = io_of(200, AN_NONE, 50 * MS, 150 * MS, 0, 0);
	io[n++].flags |= AN_FLUSH | AN_WRITE;
	io[n] = io_of(3, 190 * MS, 190 * MS, 191 * MS, 65536, 100000);
	io[n++].flags |= AN_WRITE | AN_SYNC;
	build(&cp, &rd, &o, io, n);
	assert_true(cp.cat[CP_JOURNAL] < 1e-9);
	assert_true(fabs(cp_sum_check(&cp)) < 1e-9);
	done(&cp, &rd, &o);
}

/* a write queued behind a cache flush another issued (the flush
 * sequence's, no Q): its 7 ms before dispatch are the journal's, not
 * queueing behind other load; its 1 ms at the device is its own */
static void test_journal_queue(void **state)
{
	struct an_io io[2];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	io[0] = io_of(200, AN_NONE, 0, 8 * MS, 0, 0);
	io[0].flags |= AN_FLUSH | AN_WRITE;
	io[1] = io_of(100, 1 * MS, 8 * MS, 9 * MS, 4096, 8);
	io[1].flags |= AN_WRITE | AN_SYNC;
	build(&cp, &rd, &o, io, 2);
	assert_true(fabs(cp.cat[CP_JOURNAL] - 0.007) < 1e-6);
	assert_true(fabs(cp.journal_queue_s - 0.007) < 1e-6);
	assert_true(cp.cat[CP_QUEUE] < 1e-9);
	assert_true(fabs(cp_sum_check(&cp)) < 1e-9);
	done(&cp, &rd, &o);
}

/* period k of tags_run(): pid 2's synchronous writes, one (x) or two (y),
 * each 10 ms at the device from t; pid 1's read queued at t + 1 ms waits
 * for the writes, in x with a request (G at its Q: in the scheduler), in
 * y for a request, every tag held by pid 2's writes (G when the second
 * is done); then 10 ms at the device. Returns how many it wrote to io. */
static size_t tags_period(struct an_io *io, int k, int y)
{
	int64_t t = k * 40 * MS;
	size_t n = 0;

	io[n++] = io_of(2, t, t, t + 10 * MS, 4096, 1000000 + (uint64_t)k * 16);
	if (y)
		io[n++] = io_of(2, t, t + 10 * MS, t + 20 * MS, 4096,
				1000000 + (uint64_t)k * 16 + 8);
	for (size_t i = 0; i < n; i++) {
		io[i].g = io[i].q;
		io[i].flags |= AN_WRITE | AN_SYNC;
	}
	io[n] = io_of(1, t + MS, (y ? 21 : 11) * MS + t, (y ? 31 : 21) * MS + t,
		      4096, (uint64_t)k * 8);
	io[n].g = y ? t + 20 * MS : t + MS;
	return n + 1;
}

/* a reader's wait for a tag other processes' requests held (y) against
 * its wait in the scheduler behind one of them (x): the growth is
 * queueing that stays the queue's in the difference, not more time at the
 * device to give to the writes' count (as sharing the device grows with
 * the device's time): a reader's 6 s for a tag at nr_requests 4 went to
 * the writes' volume */
static void test_diff_tag_wait(void **state)
{
	struct an_io a[40], b[40];
	struct critpath x, y;
	struct rundata rx, ry;
	struct evorder ox, oy;
	struct cp_diff d;
	size_t na = 0, nb = 0;
	double total, split = 0;

	(void)state;
	for (int k = 0; k < 10; k++) {
		na += tags_period(a + na, k, 0);
		nb += tags_period(b + nb, k, 1);
	}
	build(&x, &rx, &ox, a, na);
	build(&y, &ry, &oy, b, nb);
	assert_true(x.queue_tag_s < 1e-9);
	/* 19 ms of each read's Q2D a tag wait, half of each instant its */
	assert_true(fabs(y.queue_tag_s - 0.095) < 0.005);
	assert_true(y.cat[CP_QUEUE] >= y.queue_tag_s - 1e-9);
	/* the queueing grew 75 ms (x's 50 ms in the scheduler became waits
	 * for a tag): all of it stays, none to the writes' count */
	total = critpath_diff(&x, &y, 1, &d);
	assert_true(y.cat[CP_QUEUE] - x.cat[CP_QUEUE] > 0.07);
	assert_true(fabs(d.d[CP_QUEUE] - (y.cat[CP_QUEUE] - x.cat[CP_QUEUE])) < 1e-6);
	assert_true(d.queue_moved_s < 1e-9);
	for (int k = 0; k < CP_NCAT; k++)
		split += d.d[k];
	split += d.mix_s[0] + d.mix_s[1] + d.volume_s[0] + d.volume_s[1];
	assert_true(fabs(split - total) < 1e-6);
	done(&x, &rx, &ox);
	done(&y, &ry, &oy);
}

/* one process alone keeping 8 reads queued on a device that holds 4 (the
 * rest wait 10 ms for a tag its own reads hold): its own queueing is the
 * device's time, no wait for a tag behind others, no queueing */
static void test_own_tags(void **state)
{
	struct an_io io[80];
	struct critpath cp;
	struct rundata rd;
	struct evorder o;

	(void)state;
	for (int i = 0; i < 80; i++) {
		int64_t q = (i / 8) * 20 * MS, g = q + (i % 8 >= 4) * 10 * MS;
		io[i] = io_of(100, q, g, g + 10 * MS, 4096, (uint64_t)i * 8);
		io[i].g = g;
	}
	build(&cp, &rd, &o, io, 80);
	assert_true(cp.queue_tag_s < 1e-9);
	assert_true(cp.cat[CP_QUEUE] < 1e-9);
	assert_true(fabs(cp_sum_check(&cp)) < 1e-6);
	done(&cp, &rd, &o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_serial),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_sleeper),
		cmocka_unit_test(test_dropped_shell),
		cmocka_unit_test(test_idle_dirty_not_whose),
		cmocka_unit_test(test_diff_cpu_little_work),
		cmocka_unit_test(test_diff_mix),
		cmocka_unit_test(test_diff_merged),
		cmocka_unit_test(test_diff_speed),
		cmocka_unit_test(test_diff_flushes),
		cmocka_unit_test(test_refault),
		cmocka_unit_test(test_journal),
		cmocka_unit_test(test_journal_queue),
		cmocka_unit_test(test_journal_not_syncing),
		cmocka_unit_test(test_diff_tag_wait),
		cmocka_unit_test(test_own_tags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
