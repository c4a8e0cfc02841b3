/* Unit tests of the store API, the same cases through each driver: a real
 * SQLite file, and a private PostgreSQL server this test starts as
 * tests/lib.sh pg_start does (initdb and pg_ctl, as nobody when root, on a
 * Unix socket in a temporary folder, stopped and removed at exit; the
 * PostgreSQL cases are skipped without the server binaries). Opening an
 * existing store (each refusal and its message), and every read giving back
 * what the writes stored: runs, settings, devices, processes, commands,
 * statistics, and the cursors over requests (each order, NULL times), events
 * (payloads) and samples; deleting (every row of a run, nothing of the
 * others), renaming, finding an input by its hash, vacuum. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "schema/store.h"

static const char *repo_path(const char *rel)
{
	static char path[4096];
	const char *root = getenv("REPO_ROOT");

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	return path;
}

static void temp_path(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/iotape-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
}

/* ---- the stores the cases run on ---- */

/* A fresh, empty store of a driver: its path or URL into path. */
struct maker {
	const char *name;
	int (*fresh)(char *path, size_t len);   /* 0, or -1: skip */
	void (*gone)(const char *path);
};

static int fresh_file(char *path, size_t len)
{
	temp_path(path, len);
	return 0;
}

static void gone_file(const char *path)
{
	unlink(path);
}

/* The private server: its folder ("" when none), and how to run as the
 * server's user. */
static char pg_dir[512];
static const char *pg_run = "";
static const char *pg_bin = "/usr/lib/postgresql/15/bin";
static int pg_tried, pg_dbs;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void pg_stop(void)
{
	if (!pg_dir[0])
		return;
	sh("%s%s/pg_ctl -D %s/data -m immediate -w -t 30 stop > /dev/null 2>&1",
	   pg_run, pg_bin, pg_dir);
	sh("rm -rf '%s'", pg_dir);
	pg_dir[0] = 0;
}

static void pg_stop_signal(int sig)
{
	pg_stop();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Starts the server once (tests/lib.sh pg_start's way); 0, or -1 when
 * there are no server binaries or it would not start. */
static int pg_start(void)
{
	char path[600];
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	if (pg_tried)
		return pg_dir[0] ? 0 : -1;
	pg_tried = 1;
	if (getenv("PG_BIN"))
		pg_bin = getenv("PG_BIN");
	snprintf(path, sizeof(path), "%s/initdb", pg_bin);
	if (access(path, X_OK))
		return -1;
	snprintf(pg_dir, sizeof(pg_dir), "%s/iotape-pg.XXXXXX", tmp);
	if (!mkdtemp(pg_dir)) {
		pg_dir[0] = 0;
		return -1;
	}
	atexit(pg_stop);
	signal(SIGTERM, pg_stop_signal);
	signal(SIGINT, pg_stop_signal);
	signal(SIGHUP, pg_stop_signal);
	if (geteuid() == 0) {
		pg_run = "runuser -u nobody -- ";
		sh("chown nobody: '%s'", pg_dir);
	}
	if (sh("%s%s/initdb -D %s/data -U postgres --auth=trust --encoding=UTF8 "
	       "--locale=C.UTF-8 > %s/initdb.out 2>&1", pg_run, pg_bin, pg_dir,
	       pg_dir) ||
	    sh("%s%s/pg_ctl -D %s/data -l %s/log -w -t 60 -o \"-k %s -c "
	       "listen_addresses= -c fsync=off -c synchronous_commit=off -c "
	       "full_page_writes=off -c max_connections=40\" start > /dev/null "
	       "2>&1", pg_run, pg_bin, pg_dir, pg_dir, pg_dir)) {
		sh("cat %s/initdb.out %s/log >&2", pg_dir, pg_dir);
		pg_stop();
		return -1;
	}
	return 0;
}

/* A new database of the private server. */
static int fresh_pg(char *path, size_t len)
{
	if (pg_start())
		return -1;
	pg_dbs++;
	if (sh("%s/psql -q -X -h %s -U postgres -d postgres -c 'CREATE DATABASE "
	       "t%d' > /dev/null", pg_bin, pg_dir, pg_dbs))
		return -1;
	snprintf(path, len, "postgresql:///t%d?host=%s&user=postgres", pg_dbs,
		 pg_dir);
	return 0;
}

static void gone_pg(const char *path)
{
	(void)path;
}

static const struct maker sqlite_store = { "SQLite", fresh_file, gone_file };
static const struct maker pg_store = { "PostgreSQL", fresh_pg, gone_pg };

/* A fresh store of the driver *state names into path; skips the case when
 * that driver has none here. */
static const struct maker *fresh(void **state, char *path, size_t len)
{
	const struct maker *m = *state;

	if (m->fresh(path, len))
		skip();
	return m;
}

/* store_open_existing(path) fails with code and a message containing want. */
static void refused(const char *path, int code, const char *want)
{
	struct store *st = NULL;

	assert_int_equal(store_open_existing(&st, path), code);
	assert_non_null(st);
	if (!strstr(store_errmsg(st), want)) {
		print_error("'%s' lacks '%s'\n", store_errmsg(st), want);
		fail();
	}
	store_close(st);
}

static void test_open_existing(void **state)
{
	char path[4096], msg[8300], dir[4200];
	struct store *st = NULL;
	int v = 0;

	(void)state;
	temp_path(path, sizeof(path));
	snprintf(msg, sizeof(msg), "cannot open database '%s': no such file", path);
	refused(path, -STORE_E_MISSING, msg);
	snprintf(dir, sizeof(dir), "%s/sub/x.db", path);
	snprintf(msg, sizeof(msg), "folder '%s/sub' does not exist", path);
	refused(dir, -STORE_E_MISSING, msg);
	/* creating one names the missing folder too, not SQLite's "unable
	 * to open database file" */
	assert_int_equal(store_open(&st, dir, 1), -STORE_E_MISSING);
	assert_non_null(strstr(store_errmsg(st), msg));
	store_close(st);
	st = NULL;
	assert_int_equal(mkdir(path, 0700), 0);
	refused(path, -STORE_E_MISSING, "it is a folder");
	rmdir(path);
	snprintf(msg, sizeof(msg), "%s: not an iotape database (not SQLite)",
		 repo_path("tests/fixtures/bad/not-sqlite.db"));
	refused(repo_path("tests/fixtures/bad/not-sqlite.db"), -STORE_E_NOTDB, msg);
	refused(repo_path("tests/fixtures/bad/foreign.db"), -STORE_E_NOTDB,
		"an SQLite file with 1 other objects");
	refused(repo_path("tests/fixtures/bad/newer-schema.db"), -STORE_E_NEWER,
		"database schema version 99 is newer than this iotape's");
	/* nothing was created on the way */
	assert_int_equal(access(path, F_OK), -1);

	/* a URL no back end takes is refused, not made a file */
	assert_int_equal(store_open(&st, "nosuch://host/db", 1), -STORE_E_BACKEND);
	assert_non_null(strstr(store_errmsg(st), "'nosuch://'"));
	store_close(st);
	assert_int_equal(access("nosuch:", F_OK), -1);

	/* made by a writer, then opened as an existing store */
	assert_int_equal(store_open(&st, path, 1), 0);
	store_close(st);
	assert_int_equal(store_open_existing(&st, path), 0);
	assert_int_equal(store_schema_version(st, &v), 0);
	assert_int_equal(v, STORE_SCHEMA_VERSION);
	store_close(st);
	unlink(path);
}

/* A request row; times in us for brevity, NO for not seen. */
#define NO STORE_NO_TIME
static struct store_request rq(uint32_t dev, uint64_t sector, int64_t q,
			       int64_t d, int64_t c, int head)
{
	struct store_request r = {
		.dev = dev, .sector = sector, .bytes = 4096, .rwbs = "R",
		.cats = BT_C_READ, .pid = 42, .q_ns = q, .g_ns = NO, .m_ns = NO,
		.i_ns = NO, .d_ns = d, .c_ns = c, .d_head = head,
	};
	if (head) {
		r.has_d = 1;
		r.d_sector = sector;
		r.d_bytes = 8192;
	}
	return r;
}

static void test_runs_and_lists(void **state)
{
	struct run_info ri = { .name = "r1", .kind = "capture", .host = "h",
			       .kernel = "6.18", .source = "test" };
	struct run_info ri2 = { .name = "r2", .kind = "replay" };
	struct store_command c0 = { .idx = 0, .argv = "fio job", .start_ns = 5,
				    .end_ns = 9, .real_s = 1.5, .user_s = 0.25,
				    .sys_s = 0.125, .status = 0 };
	struct store_command c1 = { .idx = 1, .argv = "never", .start_ns = NO,
				    .end_ns = NO, .status = -1 };
	struct store_run_listing *runs;
	struct store_setting *set;
	struct store_device *dev;
	struct store_process *proc;
	struct store_command *cmd;
	struct store_stat *stat;
	struct store_run r;
	struct store *st = NULL;
	char path[4096], v[64];
	int64_t id, id2, found;
	size_t n;
	const struct maker *m = fresh(state, path, sizeof(path));

	assert_int_equal(store_open(&st, path, 1), 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_run_create(st, &ri, &id), 0);
	assert_int_equal(store_run_create(st, &ri, &id2), -STORE_E_EXISTS);
	assert_int_equal(store_run_create(st, &ri2, &id2), 0);
	assert_int_equal(store_run_set_parent(st, id2, id), 0);
	assert_int_equal(store_run_set_format(st, id, "blktrace-v8", 1), 0);
	assert_int_equal(store_setting_add(st, id, "vm.dirty_ratio", "20", "start"), 0);
	assert_int_equal(store_setting_add(st, id, "vm.dirty_ratio", "30", "end"), 0);
	assert_int_equal(store_setting_add(st, id, "a.end_only", "7", "end"), 0);
	assert_int_equal(store_device_add(st, id, BT_MKDEV(8, 16), "sdb", 1 << 20,
					  "data"), 0);
	assert_int_equal(store_device_add(st, id, BT_MKDEV(7, 0), NULL, 0, "swap"), 0);
	assert_int_equal(store_process_set(st, id, 20, "kworker"), 0);
	assert_int_equal(store_process_set(st, id, 10, "fio"), 0);
	assert_int_equal(store_process_set(st, id, 10, "second"), 0);
	assert_int_equal(store_processes_copy(st, id2, id), 0);
	assert_int_equal(store_command_add(st, id, &c1), 0);
	assert_int_equal(store_command_add(st, id, &c0), 0);
	assert_int_equal(store_stat_set(st, id, "lost_events", "0"), 0);
	assert_int_equal(store_stat_set(st, id, "lost_events", "3"), 0);
	assert_int_equal(store_run_finish(st, id, "interrupted", 1000), 0);
	assert_int_equal(store_commit(st), 0);

	assert_int_equal(store_run_find(st, "r1", &found), 0);
	assert_true(found == id);
	snprintf(v, sizeof(v), "%lld", (long long)id2);
	assert_int_equal(store_run_find(st, v, &found), 0);
	assert_true(found == id2);
	assert_int_equal(store_run_find(st, "nope", &found), -STORE_E_NOTFOUND);
	assert_string_equal(store_errmsg(st), "no run named 'nope'");
	assert_int_equal(store_run_free_name(st, "r1", v, sizeof(v)), 0);
	assert_string_equal(v, "r1-2");

	assert_int_equal(store_run_get(st, id, &r), 0);
	assert_string_equal(r.name, "r1");
	assert_string_equal(r.kind, "capture");
	assert_string_equal(r.status, "interrupted");
	assert_string_equal(r.format, "blktrace-v8");
	assert_string_equal(r.host, "h");
	assert_int_equal(r.big_endian, 1);
	assert_true(r.genesis_ns == 1000);
	assert_true(r.events == 0 && r.first_event == 0 && r.last_ns == 0);
	assert_int_equal(store_run_get(st, id2, &r), 0);
	assert_true(r.parent == id && r.genesis_ns == STORE_NO_TIME);
	assert_int_equal(store_run_get(st, id2 + 1, &r), -STORE_E_NOTFOUND);

	assert_int_equal(store_runs_list(st, 1, &runs, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(runs[0].run.name, "r1");
	assert_string_equal(runs[1].run.name, "r2");
	assert_int_equal(runs[0].requests, 0);
	free(runs);
	assert_int_equal(store_runs_list(st, 0, &runs, &n), 0);
	assert_int_equal(runs[1].requests, -1);
	free(runs);

	/* settings: by key, start before end; one key at start, end, either */
	assert_int_equal(store_settings_get(st, id, &set, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(set[0].key, "a.end_only");
	assert_string_equal(set[1].value, "20");
	assert_int_equal(set[1].at, STORE_AT_START);
	assert_int_equal(set[2].at, STORE_AT_END);
	free(set);
	assert_int_equal(store_setting_get(st, id, "vm.dirty_ratio", STORE_AT_ANY,
					   v, sizeof(v)), 1);
	assert_string_equal(v, "20");
	assert_int_equal(store_setting_get(st, id, "vm.dirty_ratio", STORE_AT_END,
					   v, sizeof(v)), 1);
	assert_string_equal(v, "30");
	assert_int_equal(store_setting_get(st, id, "a.end_only", STORE_AT_START,
					   v, sizeof(v)), 0);
	assert_int_equal(store_setting_get(st, id, "a.end_only", STORE_AT_ANY,
					   v, sizeof(v)), 1);
	assert_int_equal(store_setting_get(st, id, "nope", STORE_AT_ANY, v,
					   sizeof(v)), 0);

	assert_int_equal(store_devices_get(st, id, &dev, &n), 0);
	assert_int_equal(n, 2);
	assert_true(dev[0].dev == BT_MKDEV(7, 0) && !dev[0].name &&
		    !strcmp(dev[0].role, "swap") && dev[0].size_bytes == 0);
	assert_true(dev[1].dev == BT_MKDEV(8, 16) && !strcmp(dev[1].name, "sdb") &&
		    dev[1].size_bytes == 1 << 20);
	free(dev);
	assert_int_equal(store_devices_get(st, id2, &dev, &n), 0);
	assert_true(n == 0 && !dev);

	/* processes: by pid, the first name kept, copied to the replay */
	assert_int_equal(store_processes_get(st, id2, &proc, &n), 0);
	assert_int_equal(n, 2);
	assert_true(proc[0].pid == 10 && !strcmp(proc[0].comm, "fio"));
	assert_true(proc[1].pid == 20 && !strcmp(proc[1].comm, "kworker"));
	free(proc);

	/* commands: by idx; no times, no rusage */
	assert_int_equal(store_commands_get(st, id, &cmd, &n), 0);
	assert_int_equal(n, 2);
	assert_true(cmd[0].idx == 0 && !strcmp(cmd[0].argv, "fio job") &&
		    cmd[0].start_ns == 5 && cmd[0].end_ns == 9);
	assert_true(cmd[0].real_s == 1.5 && cmd[0].user_s == 0.25 &&
		    cmd[0].sys_s == 0.125 && cmd[0].status == 0);
	assert_true(cmd[1].start_ns == NO && cmd[1].end_ns == NO &&
		    isnan(cmd[1].real_s) && cmd[1].status == -1);
	free(cmd);

	assert_int_equal(store_stats_get(st, id, &stat, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(stat[0].value, "3");
	free(stat);
	store_close(st);
	m->gone(path);
}

static void test_cursors(void **state)
{
	struct run_info ri = { .name = "c", .kind = "import" };
	static const uint8_t pdu[5] = { 'h', 'e', 'l', 'l', 'o' };
	struct store_cursor *cur;
	struct store_request got;
	struct store_sample smp;
	struct store *st = NULL;
	struct bt_event ev;
	char path[4096];
	int64_t run, id0, id, ids[8];
	int n;
	const struct maker *m = fresh(state, path, sizeof(path));

	assert_int_equal(store_open(&st, path, 1), 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_run_create(st, &ri, &run), 0);
	/* 40 events: a full batch and single rows; one with a payload */
	for (int i = 0; i < 40; i++) {
		struct bt_event e = { .time_ns = 100 + (uint64_t)i, .sector = (uint64_t)i,
				      .action = BT_A_QUEUE | (uint64_t)BT_C_READ << 16,
				      .pid = 7, .dev = BT_MKDEV(8, 0), .cpu = 1 };
		if (i == 33) {
			e.pdu = pdu;
			e.pdu_len = sizeof(pdu);
		}
		assert_int_equal(store_event_add(st, run, &e), 0);
	}
	assert_int_equal(store_run_finish(st, run, "complete", 100), 0);
	/* requests: dev 8,16 before 8,0 in id order; one not dispatched */
	assert_int_equal(store_next_request_id(st, &id0), 0);
	{
		struct store_request r[4] = {
			rq(BT_MKDEV(8, 16), 10, 300, 400, 500, 1),
			rq(BT_MKDEV(8, 0), 20, 200, 450, 600, 1),
			rq(BT_MKDEV(8, 0), 30, 100, NO, NO, 0),
			rq(BT_MKDEV(8, 16), 40, NO, 350, 360, 1),
		};
		r[2].split = 1;
		r[3].has_seek = 1;
		r[3].seek_sectors = -8;
		r[1].merged_into = id0;
		for (int i = 0; i < 4; i++)
			assert_int_equal(store_request_add(st, run, id0 + i, &r[i]), 0);
	}
	assert_int_equal(store_sample_add(st, run, 2000, "meminfo", "Dirty", 10), 0);
	assert_int_equal(store_sample_add(st, run, 1000, "meminfo", "Dirty", NAN), 0);
	assert_int_equal(store_sample_add(st, run, 1000, "stat", "ctxt", 5), 0);
	assert_int_equal(store_commit(st), 0);

	/* events in order, the payload back */
	assert_int_equal(store_events_open(st, run, &cur), 0);
	for (n = 0; store_events_next(cur, &ev) > 0; n++) {
		assert_true(ev.time_ns == 100 + (uint64_t)n && ev.sector == (uint64_t)n);
		assert_int_equal(ev.pdu_len, n == 33 ? 5 : 0);
		if (n == 33)
			assert_memory_equal(ev.pdu, "hello", 5);
	}
	assert_int_equal(n, 40);
	assert_int_equal(store_events_next(cur, &ev), 0);   /* stays at the end */
	store_cursor_close(cur);

	/* every request: by device, then id */
	assert_int_equal(store_requests_open(st, run, STORE_RQ_ALL,
					     STORE_RQ_COLS_ALL, &cur), 0);
	for (n = 0; store_requests_next(cur, &got, &id) > 0; n++)
		ids[n] = id - id0;
	store_cursor_close(cur);
	assert_int_equal(n, 4);
	assert_true(ids[0] == 1 && ids[1] == 2 && ids[2] == 0 && ids[3] == 3);
	/* queued, by Q time: the NULL times come back as STORE_NO_TIME */
	assert_int_equal(store_requests_open(st, run, STORE_RQ_QUEUED,
					     STORE_RQ_COLS_ALL, &cur), 0);
	for (n = 0; store_requests_next(cur, &got, &id) > 0; n++) {
		ids[n] = id - id0;
		if (n == 0) {
			assert_true(got.d_ns == NO && got.c_ns == NO && !got.has_d &&
				    got.split == 1 && got.g_ns == NO);
			assert_string_equal(got.rwbs, "R");
		}
		if (n == 1)
			assert_true(got.merged_into == id0 && got.d_bytes == 8192);
	}
	store_cursor_close(cur);
	assert_int_equal(n, 3);
	assert_true(ids[0] == 2 && ids[1] == 1 && ids[2] == 0);
	/* dispatched, by D time, with the seek distance */
	assert_int_equal(store_requests_open(st, run, STORE_RQ_DISPATCHED,
					     STORE_RQ_COLS_ALL, &cur), 0);
	for (n = 0; store_requests_next(cur, &got, &id) > 0; n++) {
		ids[n] = id - id0;
		if (n == 0)
			assert_true(got.has_seek && got.seek_sectors == -8 &&
				    got.q_ns == NO);
	}
	store_cursor_close(cur);
	assert_int_equal(n, 3);
	assert_true(ids[0] == 3 && ids[1] == 0 && ids[2] == 1);

	/* only the columns asked for: the others 0, times not seen */
	assert_int_equal(store_requests_open(st, run, STORE_RQ_ALL, STORE_RQ_DEV |
					     STORE_RQ_C, &cur), 0);
	assert_int_equal(store_requests_next(cur, &got, NULL), 1);
	assert_true(got.dev == BT_MKDEV(8, 0) && got.c_ns == 600);
	assert_true(got.q_ns == NO && got.d_ns == NO && !got.bytes && !got.pid &&
		    !got.has_d && !got.d_head && !got.rwbs[0]);
	store_cursor_close(cur);

	/* samples by time, of one source or all; NULL values as NAN */
	assert_int_equal(store_samples_open(st, run, "meminfo", &cur), 0);
	assert_int_equal(store_samples_next(cur, &smp), 1);
	assert_true(smp.time_ns == 1000 && isnan(smp.value));
	assert_int_equal(store_samples_next(cur, &smp), 1);
	assert_true(smp.time_ns == 2000 && smp.value == 10 &&
		    !strcmp(smp.key, "Dirty") && !strcmp(smp.source, "meminfo"));
	assert_int_equal(store_samples_next(cur, &smp), 0);
	/* a cursor of one kind is not read as another */
	assert_int_equal(store_requests_next(cur, &got, NULL), -STORE_E_SQLITE);
	store_cursor_close(cur);
	assert_int_equal(store_run_has(st, run, STORE_HAS_PROC_SAMPLES), 1);
	assert_int_equal(store_run_has(st, run, STORE_HAS_LOG_SAMPLES), 0);
	assert_int_equal(store_run_has(st, run, STORE_HAS_IOSTAT_SAMPLES), 0);
	assert_int_equal(store_run_has(st, run, STORE_HAS_DISPATCHES), 1);
	{
		struct store_run_listing *runs;
		size_t nr;
		assert_int_equal(store_runs_list(st, 1, &runs, &nr), 0);
		assert_true(nr == 1 && runs[0].requests == 4 &&
			    runs[0].run.events == 40 && runs[0].run.last_ns == 139);
		free(runs);
	}
	store_close(st);
	m->gone(path);
}

/* Rows of run left in each list and cursor the store has. */
static size_t rows_left(struct store *st, int64_t run)
{
	struct store_cursor *cur;
	struct store_request r;
	struct store_sample sm;
	struct bt_event ev;
	void *list;
	size_t n, total = 0;

	assert_int_equal(store_settings_get(st, run, (struct store_setting **)&list, &n), 0);
	free(list);
	total += n;
	assert_int_equal(store_devices_get(st, run, (struct store_device **)&list, &n), 0);
	free(list);
	total += n;
	assert_int_equal(store_processes_get(st, run, (struct store_process **)&list, &n), 0);
	free(list);
	total += n;
	assert_int_equal(store_commands_get(st, run, (struct store_command **)&list, &n), 0);
	free(list);
	total += n;
	assert_int_equal(store_stats_get(st, run, (struct store_stat **)&list, &n), 0);
	free(list);
	total += n;
	assert_int_equal(store_requests_open(st, run, STORE_RQ_ALL, STORE_RQ_COLS_ALL, &cur), 0);
	while (store_requests_next(cur, &r, NULL) == 1)
		total++;
	store_cursor_close(cur);
	assert_int_equal(store_samples_open(st, run, NULL, &cur), 0);
	while (store_samples_next(cur, &sm) == 1)
		total++;
	store_cursor_close(cur);
	if (store_events_open(st, run, &cur) == 0) {
		while (store_events_next(cur, &ev) == 1)
			total++;
		store_cursor_close(cur);
	}
	return total;
}

/* Fills run with one row of every kind. */
static void fill_run(struct store *st, int64_t run)
{
	struct bt_event e = { .time_ns = 100, .sector = 8, .action = 1,
			      .sequence = 1, .bytes = 4096, .pid = 10,
			      .dev = BT_MKDEV(8, 0) };
	struct store_request r = rq(BT_MKDEV(8, 0), 8, 100, 200, 300, 1);
	struct store_command c = { .idx = 0, .argv = "dd", .start_ns = NO,
				   .end_ns = NO, .status = 0 };
	struct store_replay rp = { .idx = 0, .dev = BT_MKDEV(8, 0), .bytes = 4096,
				   .op = "read", .sched_ns = 1, .ready_ns = 1,
				   .issue_ns = 1, .complete_ns = 2, .result = 4096 };
	int64_t id;

	assert_int_equal(store_event_add(st, run, &e), 0);
	assert_int_equal(store_next_request_id(st, &id), 0);
	assert_int_equal(store_request_add(st, run, id, &r), 0);
	assert_int_equal(store_sample_add(st, run, 1000, "stat", "ctxt", 5), 0);
	assert_int_equal(store_setting_add(st, run, "vm.swappiness", "60", "start"), 0);
	assert_int_equal(store_device_add(st, run, BT_MKDEV(8, 0), "sda", 0, "data"), 0);
	assert_int_equal(store_process_set(st, run, 10, "dd"), 0);
	assert_int_equal(store_command_add(st, run, &c), 0);
	assert_int_equal(store_stat_set(st, run, "records", "1"), 0);
	assert_int_equal(store_replays_add(st, run, &rp, 1), 0);
	assert_int_equal(store_run_finish(st, run, "complete", 100), 0);
}

/* store_run_delete() takes every row of the run (and only its), keeps its
 * replays with no parent; store_run_rename() refuses a taken name;
 * store_run_find_input() finds a run by its input's hash; store_vacuum()
 * gives the space back. */
static void test_delete_rename(void **state)
{
	struct run_info ra = { .name = "a", .kind = "import" };
	struct run_info rb = { .name = "b", .kind = "replay" };
	struct run_info rc_ = { .name = "c", .kind = "import" };
	const char *hex = "014e3295ae97d2b940beb7ae4c4d9e38ddc1600e5bed1589f43475045e201363";
	struct store *st = NULL;
	struct store_run r;
	char path[4096], name[256];
	int64_t a, b, c, kept = -1, found = 0, before = 0, after = 0, size = 0;
	const struct maker *m = fresh(state, path, sizeof(path));

	assert_int_equal(store_open(&st, path, 1), 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_run_create(st, &ra, &a), 0);
	fill_run(st, a);
	assert_int_equal(store_run_create(st, &rb, &b), 0);
	assert_int_equal(store_run_set_parent(st, b, a), 0);
	fill_run(st, b);
	assert_int_equal(store_run_create(st, &rc_, &c), 0);
	assert_int_equal(store_run_set(st, c, "input_sha256", hex), 0);
	for (int i = 0; i < 2000; i++) {
		struct bt_event e = { .time_ns = 200 + (uint64_t)i, .sector = 8,
				      .action = 1, .sequence = 2, .bytes = 4096,
				      .pid = 10, .dev = BT_MKDEV(8, 0) };
		assert_int_equal(store_event_add(st, a, &e), 0);
	}
	assert_int_equal(store_commit(st), 0);
	/* 5 lists, a request, a sample, the event of its range (the 2000 after
	 * it lie outside) */
	assert_int_equal(rows_left(st, a), 8);
	assert_int_equal(rows_left(st, b), 8);

	assert_int_equal(store_run_find_input(st, hex, &found, name, sizeof(name)), 1);
	assert_int_equal(found, c);
	assert_string_equal(name, "c");
	assert_int_equal(store_run_find_input(st, "00", &found, name, sizeof(name)), 0);

	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_run_delete(st, a, &kept), 0);
	assert_int_equal(kept, 1);
	assert_int_equal(store_run_delete(st, a, NULL), -STORE_E_NOTFOUND);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_run_get(st, a, &r), -STORE_E_NOTFOUND);
	assert_int_equal(rows_left(st, a), 0);
	assert_int_equal(rows_left(st, b), 8);
	assert_int_equal(store_run_get(st, b, &r), 0);
	assert_int_equal(r.parent, 0);

	assert_int_equal(store_run_rename(st, b, "c"), -STORE_E_EXISTS);
	assert_non_null(strstr(store_errmsg(st), "a run named 'c' exists"));
	assert_int_equal(store_run_rename(st, b, "b2"), 0);
	assert_int_equal(store_run_find(st, "b2", &found), 0);
	assert_int_equal(found, b);
	assert_int_equal(store_run_rename(st, 999, "x"), -STORE_E_NOTFOUND);

	assert_int_equal(store_size(st, &size), 0);
	assert_true(size > 0);
	assert_int_equal(store_vacuum(st, &before, &after), 0);
	assert_true(before > 0 && after > 0);
	/* SQLite rewrites the file; PostgreSQL's VACUUM makes the space
	 * reusable but keeps most of it (its size is every catalog's too) */
	if (m == &sqlite_store)
		assert_true(before == size && after < before);
	store_close(st);
	m->gone(path);
}

/* A PostgreSQL database without iotape's schema is not one to read. */
static void test_pg_open_existing(void **state)
{
	struct store *st = NULL;
	char path[4096];
	int v = 0;

	fresh(state, path, sizeof(path));
	assert_int_equal(store_open_existing(&st, path), -STORE_E_MISSING);
	assert_non_null(strstr(store_errmsg(st), "no iotape store in this "
			       "database"));
	store_close(st);
	assert_int_equal(store_open(&st, path, 1), 0);
	assert_int_equal(store_schema_version(st, &v), 0);
	assert_int_equal(v, STORE_SCHEMA_VERSION);
	store_close(st);
	assert_int_equal(store_open_existing(&st, path), 0);
	store_close(st);
}

int main(void)
{
	/* the same cases on each driver */
	const struct CMUnitTest sqlite[] = {
		cmocka_unit_test(test_open_existing),
		cmocka_unit_test_prestate(test_runs_and_lists, (void *)&sqlite_store),
		cmocka_unit_test_prestate(test_cursors, (void *)&sqlite_store),
		cmocka_unit_test_prestate(test_delete_rename, (void *)&sqlite_store),
	};
	const struct CMUnitTest pg[] = {
		cmocka_unit_test_prestate(test_pg_open_existing, (void *)&pg_store),
		cmocka_unit_test_prestate(test_runs_and_lists, (void *)&pg_store),
		cmocka_unit_test_prestate(test_cursors, (void *)&pg_store),
		cmocka_unit_test_prestate(test_delete_rename, (void *)&pg_store),
	};
	int rc = cmocka_run_group_tests_name("store on SQLite", sqlite, NULL, NULL);

	rc |= cmocka_run_group_tests_name("store on PostgreSQL", pg, NULL, NULL);
	pg_stop();
	return rc;
}
