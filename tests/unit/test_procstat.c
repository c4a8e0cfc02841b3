/* Unit tests of the /proc samplers (capture/procstat.c) and the vmstat_proc
 * view (schema/002_vmstat_view.sql): parsers on text, bad lines, the
 * sampler on sysstat's recorded /proc files and on this machine's /proc,
 * and vmstat(8)'s columns computed from two samples. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "import/import_samples.h"
#include "capture/procstat.h"
#include "lib/util.h"
#include "schema/store.h"

#define MAX_KV 4096

struct kv {
	char source[16];
	char key[64];
	double value;
	int64_t t_ns;
};

struct collector {
	struct kv kv[MAX_KV];
	int n;
	int stop_after;   /* fail with -EIO after this many; 0: never */
};

static int col_kv(void *ctx, const char *source, const char *key, double v)
{
	struct collector *c = ctx;

	if (c->stop_after && c->n == c->stop_after)
		return -EIO;
	assert_true(c->n < MAX_KV);
	snprintf(c->kv[c->n].source, sizeof(c->kv[c->n].source), "%s", source);
	snprintf(c->kv[c->n].key, sizeof(c->kv[c->n].key), "%s", key);
	c->kv[c->n].value = v;
	c->kv[c->n].t_ns = -1;
	c->n++;
	return 0;
}

static int col_sample(void *ctx, int64_t t_ns, const char *source,
		      const char *key, double v)
{
	struct collector *c = ctx;
	int rc = col_kv(ctx, source, key, v);

	if (!rc)
		c->kv[c->n - 1].t_ns = t_ns;
	return rc;
}

/* The value of source/key, or NAN; fails the test if it appears twice. */
static double get(const struct collector *c, const char *source, const char *key)
{
	double v = NAN;
	int seen = 0;

	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->kv[i].source, source) && !strcmp(c->kv[i].key, key)) {
			v = c->kv[i].value;
			seen++;
		}
	assert_true(seen <= 1);
	return v;
}

/* The corpus folder ($IOTAPE_CORPUS, else ../shared/corpus from the repo). */
static const char *corpus(void)
{
	static char path[4096];
	const char *env = getenv("IOTAPE_CORPUS");
	const char *root = getenv("REPO_ROOT");

	char rel[4096];

	if (env)
		snprintf(rel, sizeof(rel), "%s", env);
	else
		snprintf(rel, sizeof(rel), "%s/../shared/corpus", root ? root : ".");
	/* absolute: the proc roots link to these files from elsewhere */
	if (!realpath(rel, path))
		snprintf(path, sizeof(path), "%s", rel);
	return path;
}

static void test_vmstat_parse(void **state)
{
	static const char text[] = "nr_free_pages 335580\npgpgin 2685938\n"
				   "pswpout 12\n\nworkingset_refault_anon 0";
	struct collector c = { 0 };
	int line = 0;

	(void)state;
	assert_int_equal(procstat_parse_vmstat(text, strlen(text), col_kv, &c,
					       &line), 0);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.kv[0].source, "vmstat");
	assert_string_equal(c.kv[0].key, "nr_free_pages");
	assert_true(c.kv[0].value == 335580);
	assert_true(get(&c, "vmstat", "pswpout") == 12);
	/* the last line needs no newline */
	assert_true(get(&c, "vmstat", "workingset_refault_anon") == 0);
}

static void test_bad_lines(void **state)
{
	static const char vm[] = "nr_free_pages 1\nnr_dirty x\n";
	static const char vm3[] = "a 1\nb 2\nc 3 4\n";
	static const char mi[] = "MemTotal: 10 kB\nMemFree 5 kB\n";
	static const char mi2[] = "MemTotal: 10 MB\n";
	static const char st[] = "cpu  1 2 3\n";
	static const char psi[] = "some avg10=0.00 avg60=oops total=1\n";
	static const char psi2[] = "half avg10=0.00\n";
	struct collector c = { 0 };
	int line = 0;

	(void)state;
	assert_int_equal(procstat_parse_vmstat(vm, strlen(vm), col_kv, &c, &line),
			 -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(procstat_parse_vmstat(vm3, strlen(vm3), col_kv, &c, &line),
			 -EINVAL);
	assert_int_equal(line, 3);
	assert_int_equal(procstat_parse_meminfo(mi, strlen(mi), col_kv, &c, &line),
			 -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(procstat_parse_meminfo(mi2, strlen(mi2), col_kv, &c, &line),
			 -EINVAL);
	assert_int_equal(line, 1);
	assert_int_equal(procstat_parse_stat(st, strlen(st), col_kv, &c, &line),
			 -EINVAL);
	assert_int_equal(procstat_parse_psi("io", psi, strlen(psi), col_kv, &c,
					    &line), -EINVAL);
	assert_int_equal(procstat_parse_psi("io", psi2, strlen(psi2), col_kv, &c,
					    NULL), -EINVAL);
}

static void test_meminfo_parse(void **state)
{
	static const char text[] =
		"MemTotal:        8144960 kB\nMemFree:         1437740 kB\n"
		"Active(anon):     706746 kB\nHugePages_Total:       0\n"
		"Dirty:                12 kB\r\n";
	struct collector c = { 0 };

	(void)state;
	assert_int_equal(procstat_parse_meminfo(text, strlen(text), col_kv, &c,
						NULL), 0);
	assert_int_equal(c.n, 5);
	assert_true(get(&c, "meminfo", "MemFree") == 1437740);
	assert_true(get(&c, "meminfo", "Active(anon)") == 706746);
	assert_true(get(&c, "meminfo", "HugePages_Total") == 0);
	assert_true(get(&c, "meminfo", "Dirty") == 12);
}

static void test_stat_parse(void **state)
{
	static const char text[] =
		"cpu  96005 2578701 53845 3617879 60648 27891 25853 0 0 0\n"
		"cpu0 10600 331675 5802 352894 4235 3243 9600 0 0 0\n"
		"intr 95105080 8 0 0 0 1\n"
		"ctxt 130465866\nbtime 1555568347\nprocesses 46972\n"
		"procs_running 2\nprocs_blocked 1\n"
		"softirq 39588713 71735 29417094\n";
	static const char old[] = "cpu  10 20 30 40\nctxt 5\n";
	struct collector c = { 0 };

	(void)state;
	assert_int_equal(procstat_parse_stat(text, strlen(text), col_kv, &c, NULL), 0);
	assert_true(get(&c, "stat", "cpu_user") == 96005);
	assert_true(get(&c, "stat", "cpu_nice") == 2578701);
	assert_true(get(&c, "stat", "cpu_system") == 53845);
	assert_true(get(&c, "stat", "cpu_idle") == 3617879);
	assert_true(get(&c, "stat", "cpu_iowait") == 60648);
	assert_true(get(&c, "stat", "cpu_irq") == 27891);
	assert_true(get(&c, "stat", "cpu_softirq") == 25853);
	assert_true(get(&c, "stat", "cpu_steal") == 0);
	assert_true(get(&c, "stat", "cpu_guest") == 0);
	assert_true(get(&c, "stat", "intr") == 95105080);
	assert_true(get(&c, "stat", "ctxt") == 130465866);
	assert_true(get(&c, "stat", "processes") == 46972);
	assert_true(get(&c, "stat", "procs_running") == 2);
	assert_true(get(&c, "stat", "procs_blocked") == 1);
	assert_true(get(&c, "stat", "softirq") == 39588713);
	assert_true(get(&c, "stat", "btime") == 1555568347);
	/* per-CPU lines are not reported */
	assert_int_equal(c.n, 17);

	/* a 2.4-era cpu line has only four fields */
	c.n = 0;
	assert_int_equal(procstat_parse_stat(old, strlen(old), col_kv, &c, NULL), 0);
	assert_int_equal(c.n, 5);
	assert_true(isnan(get(&c, "stat", "cpu_iowait")));
}

static void test_psi_parse(void **state)
{
	static const char io[] =
		"some avg10=0.55 avg60=0.83 avg300=1.51 total=17153047\n"
		"full avg10=0.33 avg60=0.52 avg300=0.45 total=6893500\n";
	struct collector c = { 0 };

	(void)state;
	assert_int_equal(procstat_parse_psi("io", io, strlen(io), col_kv, &c, NULL), 0);
	assert_int_equal(c.n, 8);
	assert_string_equal(c.kv[0].source, "psi");
	assert_true(get(&c, "psi", "io_some_avg10") == 0.55);
	assert_true(get(&c, "psi", "io_some_total") == 17153047);
	assert_true(get(&c, "psi", "io_full_avg300") == 0.45);
	assert_true(get(&c, "psi", "io_full_total") == 6893500);
}

/* memory.stat of a cgroup v1 memory cgroup on kernel 6.18 (first lines) and
 * of cgroup v2 (kernel docs' names): amounts get _bytes, events do not. */
static void test_memcg_parse(void **state)
{
	static const char v1[] =
		"cache 10743808\nrss 7458816\ndirty 20480\n"
		"workingset_refault_file 1518\nswap 0\npgpgin 488459\n"
		"pgmajfault 7\nhierarchical_memory_limit 134217728\n"
		"total_swap 4096\ntotal_pgmajfault 99249\n";
	static const char v2[] = "anon 4096\nfile 8192\nfile_dirty 0\n"
		"pswpin 3\nzswpout 1\nzswap 0\nthp_fault_alloc 2\n";
	static const char bad[] = "cache 1\nrss\n";
	struct collector c = { 0 };
	int line = 0;

	(void)state;
	assert_int_equal(procstat_parse_memcg(v1, strlen(v1), col_kv, &c, NULL), 0);
	assert_int_equal(c.n, 10);
	assert_string_equal(c.kv[0].source, "memcg");
	assert_true(get(&c, "memcg", "cache_bytes") == 10743808);
	assert_true(get(&c, "memcg", "dirty_bytes") == 20480);
	assert_true(get(&c, "memcg", "workingset_refault_file") == 1518);
	assert_true(get(&c, "memcg", "pgpgin") == 488459);
	assert_true(get(&c, "memcg", "pgmajfault") == 7);
	assert_true(get(&c, "memcg", "hierarchical_memory_limit_bytes") == 134217728);
	assert_true(get(&c, "memcg", "total_swap_bytes") == 4096);
	assert_true(get(&c, "memcg", "total_pgmajfault") == 99249);
	c.n = 0;
	assert_int_equal(procstat_parse_memcg(v2, strlen(v2), col_kv, &c, NULL), 0);
	assert_true(get(&c, "memcg", "file_bytes") == 8192);
	assert_true(get(&c, "memcg", "pswpin") == 3);
	assert_true(get(&c, "memcg", "zswpout") == 1);
	assert_true(get(&c, "memcg", "zswap_bytes") == 0);
	assert_true(get(&c, "memcg", "thp_fault_alloc") == 2);
	assert_int_equal(procstat_parse_memcg(bad, strlen(bad), col_kv, &c, &line),
			 -EINVAL);
	assert_int_equal(line, 2);
}

static void test_callback_stops(void **state)
{
	static const char text[] = "a 1\nb 2\nc 3\n";
	struct collector c = { .stop_after = 2 };

	(void)state;
	assert_int_equal(procstat_parse_vmstat(text, strlen(text), col_kv, &c, NULL),
			 -EIO);
	assert_int_equal(c.n, 2);
}

/* A temporary proc root of links to sysstat's recorded files rootN_proc_*
 * (linked, not copied). Returns 0, or -1 when the corpus is absent. */
static int make_root(char *dir, size_t len, int n)
{
	static const char *const files[] = { "vmstat", "meminfo", "stat" };
	char src[4096], dst[4096];

	snprintf(src, sizeof(src), "%s/sysstat-proc-snapshots/root%d_proc_stat",
		 corpus(), n);
	if (access(src, R_OK) != 0)
		return -1;
	snprintf(dir, len, "%s/iotape-procroot.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(src, sizeof(src), "%s/sysstat-proc-snapshots/root%d_proc_%s",
			 corpus(), n, files[i]);
		snprintf(dst, sizeof(dst), "%s/%s", dir, files[i]);
		assert_int_equal(symlink(src, dst), 0);
	}
	return 0;
}

static void remove_root(const char *dir)
{
	static const char *const files[] = { "vmstat", "meminfo", "stat" };
	char p[4200];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
}

static void test_sample_corpus(void **state)
{
	struct collector *c = calloc(1, sizeof(*c));
	char dir[4096], err[512] = "";

	(void)state;
	if (make_root(dir, sizeof(dir), 1)) {
		print_message("corpus absent: %s/sysstat-proc-snapshots\n", corpus());
		free(c);
		skip();
	}
	assert_int_equal(procstat_sample(dir, 1234, col_sample, c, err,
					 sizeof(err)), 0);
	remove_root(dir);
	/* 142 vmstat counters, 50 meminfo lines, the stat keys; no psi files */
	assert_true(c->n == 142 + 50 + 17);
	for (int i = 0; i < c->n; i++)
		assert_true(c->kv[i].t_ns == 1234);
	assert_true(get(c, "vmstat", "nr_free_pages") == 335580);
	assert_true(get(c, "vmstat", "pgpgin") == 2685938);
	assert_true(get(c, "meminfo", "MemFree") == 1437740);
	assert_true(get(c, "meminfo", "SwapTotal") == 16777212);
	assert_true(get(c, "stat", "cpu_nice") == 2578701);
	assert_true(get(c, "stat", "intr") == 95105080);
	assert_true(get(c, "stat", "procs_running") == 2);
	assert_true(isnan(get(c, "psi", "io_some_total")));
	free(c);
}

static void test_sample_errors(void **state)
{
	struct collector c = { 0 };
	char err[512] = "";

	(void)state;
	assert_int_equal(procstat_sample("/nonexistent-proc", 0, col_sample, &c,
					 err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent-proc/vmstat"));
}

static void test_sample_live(void **state)
{
	struct collector *c = calloc(1, sizeof(*c));
	char err[512] = "";
	struct stat sb;

	(void)state;
	assert_int_equal(procstat_sample("/proc", 42, col_sample, c, err,
					 sizeof(err)), 0);
	assert_true(get(c, "meminfo", "MemTotal") > 0);
	assert_false(isnan(get(c, "meminfo", "MemFree")));
	assert_false(isnan(get(c, "vmstat", "pgpgin")));
	assert_false(isnan(get(c, "vmstat", "pswpout")));
	assert_true(get(c, "stat", "ctxt") > 0);
	assert_true(get(c, "stat", "intr") > 0);
	assert_true(get(c, "stat", "procs_running") >= 1);
	assert_true(get(c, "stat", "cpu_idle") > 0);
	if (stat("/proc/pressure/io", &sb) == 0) {
		assert_false(isnan(get(c, "psi", "io_some_avg10")));
		assert_false(isnan(get(c, "psi", "io_some_total")));
		assert_false(isnan(get(c, "psi", "memory_full_total")));
	}
	free(c);
}

/* A fresh store in a temporary file; its path is in path. */
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

struct vrow {
	double v[17];
	int null[17];
};

/* Reads the vmstat rows of run (columns r..st) from source ("proc" or
 * "vmstat-log") into rows, through the store's vmstat cursor. */
static int view_rows(struct store *st, int64_t run, const char *source,
		     struct vrow *rows, int max)
{
	struct store_cursor *cur;
	struct store_vmstat vm;
	int n = 0;

	assert_int_equal(store_vmstat_open(st, run, !strcmp(source, "proc")
					   ? STORE_VM_PROC : STORE_VM_LOG, &cur), 0);
	while (n < max && store_vmstat_next(cur, &vm) > 0) {
		for (int i = 0; i < 17; i++) {
			rows[n].null[i] = isnan(vm.v[i]);
			rows[n].v[i] = rows[n].null[i] ? 0 : vm.v[i];
		}
		n++;
	}
	store_cursor_close(cur);
	return n;
}

static void assert_near(double a, double b)
{
	if (fabs(a - b) > 1e-9 * (fabs(b) > 1 ? fabs(b) : 1)) {
		print_error("%.12g != %.12g\n", a, b);
		fail();
	}
}

/* Two hand-made samples 2 s apart give vmstat's columns exactly. */
static void test_view_math(void **state)
{
	static const struct { const char *src, *key; double a, b; } kv[] = {
		{ "stat", "procs_running", 3, 4 }, { "stat", "procs_blocked", 1, 2 },
		{ "meminfo", "SwapTotal", 1000, 1000 },
		{ "meminfo", "SwapFree", 900, 800 },
		{ "meminfo", "MemFree", 5000, 4000 },
		{ "meminfo", "Buffers", 300, 310 },
		{ "meminfo", "Cached", 2000, 2100 },
		{ "meminfo", "SReclaimable", 50, 60 },
		{ "vmstat", "pswpin", 10, 20 }, { "vmstat", "pswpout", 100, 150 },
		{ "vmstat", "pgpgin", 1000, 1400 }, { "vmstat", "pgpgout", 0, 600 },
		{ "stat", "intr", 500, 700 }, { "stat", "ctxt", 900, 1300 },
		{ "stat", "cpu_user", 100, 130 }, { "stat", "cpu_nice", 0, 10 },
		{ "stat", "cpu_system", 50, 60 }, { "stat", "cpu_irq", 5, 10 },
		{ "stat", "cpu_softirq", 5, 10 }, { "stat", "cpu_idle", 1000, 1120 },
		{ "stat", "cpu_iowait", 10, 30 }, { "stat", "cpu_steal", 0, 0 },
		{ "vmstat", "nr_dirty", 7, 8 },   /* not a column: ignored */
	};
	struct run_info ri = { .name = "m", .kind = "capture" };
	struct vrow rows[4];
	char path[4096];
	struct store *st = temp_store(path, sizeof(path));
	int64_t run;

	(void)state;
	assert_int_equal(store_run_create(st, &ri, &run), 0);
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
		assert_int_equal(store_sample_add(st, run, 1000000000, kv[i].src,
						  kv[i].key, kv[i].a), 0);
		assert_int_equal(store_sample_add(st, run, 3000000000, kv[i].src,
						  kv[i].key, kv[i].b), 0);
	}
	assert_int_equal(view_rows(st, run, "proc", rows, 4), 2);
	/* the first sample: levels, no rates */
	assert_near(rows[0].v[0], 3);
	assert_near(rows[0].v[2], 100);
	assert_near(rows[0].v[3], 5000);
	assert_near(rows[0].v[5], 2050);
	for (int i = 6; i < 17; i++)
		assert_true(rows[0].null[i]);
	/* the second: r b swpd free buff cache si so bi bo in cs us sy id wa st */
	const double want[17] = {
		4, 2, 200, 4000, 310, 2160,
		10 * 4 / 2.0, 50 * 4 / 2.0, 400 / 2.0, 600 / 2.0, 200 / 2.0, 400 / 2.0,
		100.0 * 40 / 200, 100.0 * 20 / 200, 100.0 * 120 / 200,
		100.0 * 20 / 200, 0,
	};
	for (int i = 0; i < 17; i++) {
		assert_false(rows[1].null[i]);
		assert_near(rows[1].v[i], want[i]);
	}
	store_close(st);
	unlink(path);
}

/* sysstat's two recorded snapshots as samples 10 s apart through the store
 * adapter: in, cs and the CPU split from their /proc/stat deltas. */
static void test_view_corpus(void **state)
{
	struct run_info ri = { .name = "sysstat", .kind = "capture" };
	char dir1[4096], dir2[4096], path[4096], err[512] = "";
	struct vrow rows[4];
	struct store *st;
	int64_t run;

	(void)state;
	if (make_root(dir1, sizeof(dir1), 1)) {
		print_message("corpus absent: %s/sysstat-proc-snapshots\n", corpus());
		skip();
	}
	assert_int_equal(make_root(dir2, sizeof(dir2), 2), 0);
	st = temp_store(path, sizeof(path));
	assert_int_equal(store_run_create(st, &ri, &run), 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(procstat_sample_store(st, run, dir1, 5000000000, err,
					       sizeof(err)), 0);
	assert_int_equal(procstat_sample_store(st, run, dir2, 15000000000, err,
					       sizeof(err)), 0);
	assert_int_equal(store_commit(st), 0);
	remove_root(dir1);
	remove_root(dir2);
	assert_int_equal(view_rows(st, run, "proc", rows, 4), 2);
	assert_near(rows[1].v[0], 2);                       /* r */
	assert_near(rows[1].v[2], 0);                       /* swpd */
	assert_near(rows[1].v[3], 1437740);                 /* free */
	assert_near(rows[1].v[4], 260172);                  /* buff */
	assert_near(rows[1].v[5], 2821596 + 262788);        /* cache */
	assert_near(rows[1].v[8], 0);                       /* bi */
	assert_near(rows[1].v[10], (96212396 - 95105080) / 10.0);   /* in */
	assert_near(rows[1].v[11], (132598184 - 130465866) / 10.0); /* cs */
	/* user 533 nice 3104 system 457 idle 20590 iowait 29 irq 84
	 * softirq 44 steal 0 */
	assert_near(rows[1].v[12], 100.0 * (533 + 3104) / 24841);
	assert_near(rows[1].v[13], 100.0 * (457 + 84 + 44) / 24841);
	assert_near(rows[1].v[14], 100.0 * 20590 / 24841);
	assert_near(rows[1].v[15], 100.0 * 29 / 24841);
	assert_near(rows[1].v[16], 0);
	store_close(st);
	unlink(path);
}

/* The schema version the header promises is the number of migrations. */
static void test_schema_version(void **state)
{
	char path[4096];
	struct store *st = temp_store(path, sizeof(path));
	int v = 0;

	(void)state;
	assert_int_equal(store_schema_version(st, &v), 0);
	assert_int_equal(v, STORE_SCHEMA_VERSION);
	store_close(st);
	unlink(path);
}

/* /proc/diskstats: 11, 15 and 17 counters (kernels before 4.18, before 5.5,
 * after), only the devices asked for, bad lines refused with their number;
 * this machine's file reads. */
static void test_diskstats_parse(void **state)
{
	static const char text[] =
		"   7       0 loop0 120 0 960 33 0 0 0 0 0 40 33\n"
		"   8       0 sda 5000 100 80000 900 2000 50 32000 700 3 1500 1600 "
		"10 0 800 5\n"
		" 259       1 nvme0n1p1 1 2 3 4 5 6 7 8 0 10 11 12 13 14 15 16 17\n";
	static const uint32_t want[] = { 8u << 20, 259u << 20 | 1 };
	struct collector *c = calloc(1, sizeof(*c));
	char err[256];
	int line = 0;
	(void)state;

	assert_int_equal(procstat_parse_diskstats(text, sizeof(text) - 1, NULL, 0,
						  col_kv, c, &line), 0);
	assert_int_equal(c->n, 11 + 15 + 17);
	assert_string_equal(c->kv[0].source, "diskstats");
	assert_true(get(c, "diskstats", "7,0:read_sectors") == 960);
	assert_true(get(c, "diskstats", "7,0:weighted_io_ms") == 33);
	assert_true(isnan(get(c, "diskstats", "7,0:discards")));
	assert_true(get(c, "diskstats", "8,0:in_flight") == 3);
	assert_true(get(c, "diskstats", "8,0:discard_ms") == 5);
	assert_true(isnan(get(c, "diskstats", "8,0:flushes")));
	assert_true(get(c, "diskstats", "259,1:flush_ms") == 17);
	c->n = 0;
	assert_int_equal(procstat_parse_diskstats(text, sizeof(text) - 1, want, 2,
						  col_kv, c, &line), 0);
	assert_int_equal(c->n, 15 + 17);
	assert_true(isnan(get(c, "diskstats", "7,0:reads")));
	c->n = 0;
	assert_int_equal(procstat_parse_diskstats("8 0 sda 1 2 3\n", 14, NULL, 0,
						  col_kv, c, &line), -EINVAL);
	assert_int_equal(line, 1);
	assert_int_equal(procstat_parse_diskstats("\n8 x sda 1 2 3 4 5 6 7 8 9 10 11\n",
						  33, NULL, 0, col_kv, c, &line),
			 -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(procstat_parse_diskstats("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 "
						  "12 13 14 15 16 17 18\n", 53,
						  NULL, 0, col_kv, c, &line), -EINVAL);
	c->n = 0;
	assert_int_equal(procstat_sample_diskstats("/proc", 7, NULL, 0, col_sample,
						   c, err, sizeof(err)), 0);
	assert_true(c->n >= 11);
	assert_non_null(strchr(c->kv[0].key, ':'));
	assert_int_equal(c->kv[0].t_ns, 7);
	/* PROCSTAT_AT_READ: every counter stamped with one time, taken while
	 * the file was read (between the clock before and after the call) */
	c->n = 0;
	{
		int64_t before = now_mono_ns(), after;
		assert_int_equal(procstat_sample_diskstats("/proc", PROCSTAT_AT_READ,
							   NULL, 0, col_sample, c,
							   err, sizeof(err)), 0);
		after = now_mono_ns();
		assert_true(c->n >= 11);
		for (int i = 0; i < c->n; i++) {
			assert_true(c->kv[i].t_ns >= before);
			assert_true(c->kv[i].t_ns <= after);
			assert_true(c->kv[i].t_ns == c->kv[0].t_ns);
		}
	}
	assert_int_equal(procstat_sample_diskstats("/nonexistent-proc", 0, NULL, 0,
						   col_sample, c, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent-proc/diskstats"));
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmstat_parse),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_meminfo_parse),
		cmocka_unit_test(test_stat_parse),
		cmocka_unit_test(test_psi_parse),
		cmocka_unit_test(test_memcg_parse),
		cmocka_unit_test(test_diskstats_parse),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_sample_corpus),
		cmocka_unit_test(test_sample_errors),
		cmocka_unit_test(test_sample_live),
		cmocka_unit_test(test_view_math),
		cmocka_unit_test(test_view_corpus),
		cmocka_unit_test(test_schema_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
