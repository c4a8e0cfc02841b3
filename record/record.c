/* `iotape record` (see record.h): the recorder's phases, each a function
 * below: set up (lab, signals, tracer into the ring), the loop (samples,
 * triggers, signals), a save (the window into a scratch trace imported as a
 * run), and the end (tracer and settings put back). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "import/import.h"
#include "capture/lab.h"
#include "capture/machine.h"
#include "capture/procstat.h"
#include "record/reclat.h"
#include "record/rechook.h"
#include "record/record.h"
#include "record/rectrig.h"
#include "record/recring.h"
#include "record/recsafe.h"
#include "capture/samplebuf.h"
#include "capture/tracefs.h"
#include "lib/util.h"
#include "schema/store.h"

#define MAX_CPUS 256
#define TICK_NS 100000000ll            /* triggers are evaluated this often */
#define DRAIN_NS 1000000000ll          /* the tracer's delay, waited after a
					* window's end before saving it */

/* A save asked for and not yet written. */
struct pending {
	int on;
	int64_t trig_ns, from_ns, to_ns;
	char trigger[128];             /* the first trigger's expression */
	char value[64];                /* what it measured, with its unit */
	char threshold[64];
	int merged;                    /* more triggers merged into it */
};

struct rec {
	const struct record_opts *o;
	struct capdev devs[RECORD_MAX_DEVS];
	char devnames[RECORD_MAX_DEVS][64];
	int ndev;
	struct lab lab;
	int lab_on;
	int sfd;
	sigset_t mask;
	struct tracefs tf;
	struct recring ring;
	struct reclat lat;
	struct rectrig trig[RECTRIG_MAX];  /* o->trig with their @DEV bound */
	struct rectrigs trs;
	uint32_t devnums[RECORD_MAX_DEVS];
	struct rechook hook;
	int psi_fd[RECLAT_MAX_TRIG];       /* per trigger, or -1 */
	char pidfile[300];
	struct pending p;
	int64_t last_trig_ns;              /* of the last saved automatic one */
	uint64_t saves, failed, suppressed;
	int spill_warned, mlock_warned;    /* said once (until it works again) */
	int stop;
	char err[2048];
};

/* ---- setting up ---- */

/* The tracer's reader thread hands each run of records to both. */
static int sink(void *ctx, const uint8_t *buf, size_t len)
{
	struct rec *r = ctx;

	recring_add_records(&r->ring, buf, len);
	reclat_add_records(&r->lat, buf, len);
	rectrigs_add_records(&r->trs, buf, len);
	return 0;
}

/* Each /proc value goes to the ring and to the triggers. */
static int on_sample(void *ctx, int64_t t_ns, const char *source,
		     const char *key, double value)
{
	struct rec *r = ctx;

	rectrigs_sample(&r->trs, t_ns, source, key, value);
	return recring_add_sample(&r->ring, t_ns, source, key, value);
}

/* Opens a PSI trigger: "some|full STALL_US WINDOW_US" written to
 * /proc/pressure/RESOURCE; the fd then polls POLLPRI at each event
 * (Documentation/accounting/psi.rst, "Userspace monitors"). */
static int psi_open(const struct record_opts *o, const struct rectrig *t,
		    char *err, size_t errlen)
{
	char path[512], line[96];
	int fd;

	snprintf(path, sizeof(path), "%s/pressure/%s", o->mp.proc, t->resource);
	snprintf(line, sizeof(line), "%s %" PRId64 " %" PRId64, t->full ? "full"
		 : "some", t->stall_us, t->psi_window_us);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || write(fd, line, strlen(line) + 1) < 0) {
		snprintf(err, errlen, "cannot set the PSI trigger '%s' in '%s': %s",
			 line, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Lowers the recorder's CPU and I/O priority: nice 10, and best-effort
 * class level 7 (ioprio_set(2): IOPRIO_WHO_PROCESS 1, class BE 2 << 13). */
static void be_nice(void)
{
	if (setpriority(PRIO_PROCESS, 0, 10) < 0)
		errno = 0;
	syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 7);
}

static int write_pidfile(struct rec *r)
{
	char buf[32];
	int fd;

	snprintf(r->pidfile, sizeof(r->pidfile), "%s/record.pid", r->o->state_dir);
	fd = open(r->pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(r->err, sizeof(r->err), "cannot make '%s': %s", r->pidfile,
			 strerror(errno));
		r->pidfile[0] = '\0';
		return -1;
	}
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, strlen(buf)) < 0)
		errno = 0;
	close(fd);
	return 0;
}

/* Refuses the database or the spill folder on a traced disk unless
 * allowed. Returns 0, or -1 with a message in err. */
static int check_paths(struct rec *r)
{
	const char *path[2] = { db_path_default(r->o->db), r->o->out_dir };
	const char *what[2] = { "the database", "--out" };
	char which[512];

	for (int i = 0; i < 2; i++) {
		int rc;
		/* a server's store (PostgreSQL) writes to no local disk */
		if (!path[i] || r->o->allow_traced ||
		    (i == 0 && !store_is_file(path[i])))
			continue;
		rc = recsafe_path_traced(&r->o->mp, path[i], r->devs, r->ndev, which,
					 sizeof(which));
		if (rc < 0) {
			snprintf(r->err, sizeof(r->err), "%s", which);
			return -1;
		}
		if (rc) {
			snprintf(r->err, sizeof(r->err), "%s '%s' is on %s, a traced "
				 "disk (its writes would fill the incidents); give "
				 "another path or --allow-traced", what[i], path[i],
				 which);
			return -1;
		}
	}
	return 0;
}

/* Refuses, before anything is recorded, a store file that exists and is
 * not one iotape can save to (another program's SQLite file, a newer
 * schema): its first save would fail and lose the incident. A file not
 * made yet is made by the first save. Returns 0, or -1 with a message in
 * err. */
static int check_store(struct rec *r)
{
	const char *db = db_path_default(r->o->db);
	struct store *st;
	struct stat sb;
	int rc;

	if (!store_is_file(db) || stat(db, &sb) < 0)
		return 0;
	rc = store_open_existing(&st, db);
	if (rc)
		snprintf(r->err, sizeof(r->err), "incidents cannot be saved: %s",
			 store_errmsg(st));
	store_close(st);
	return rc ? -1 : 0;
}

/* Finds the disks, takes the lab and signals (SIGUSR1 too), starts the
 * tracer into the ring and the PSI triggers. Returns 0, or -1 with a
 * message in err. */
static int setup(struct rec *r)
{
	const struct record_opts *o = r->o;

	for (int i = 0; i < o->ndevspec; i++)
		if (machine_add_device(&o->mp, o->devspecs[i], 0, r->devs, &r->ndev,
				       RECORD_MAX_DEVS, r->err, sizeof(r->err)))
			return -1;
	if (!o->ndevspec &&
	    machine_default_devices(&o->mp, r->devs, &r->ndev, RECORD_MAX_DEVS,
				    r->err, sizeof(r->err)))
		return -1;
	for (int i = 0; i < r->ndev; i++) {
		snprintf(r->devnames[i], sizeof(r->devnames[i]), "%s", r->devs[i].name);
		r->devnums[i] = r->devs[i].dev;
	}
	if (rectrig_bind(r->trig, o->ntrig, r->devs, r->ndev, r->err,
			 sizeof(r->err)))
		return -1;
	rectrigs_init(&r->trs, r->trig, o->ntrig, &r->lat, r->devs, r->ndev);
	if (check_paths(r))
		return -1;
	if ((r->sfd = lab_signals(&r->mask, 0)) < 0) {
		snprintf(r->err, sizeof(r->err), "signalfd: %s", strerror(errno));
		return -1;
	}
	sigaddset(&r->mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &r->mask, NULL);
	signalfd(r->sfd, &r->mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (lab_begin(&r->lab, o->state_dir, r->err, sizeof(r->err)))
		return -1;
	r->lab_on = 1;
	/* under the lock: the stale segments it removes are no live
	 * recorder's */
	if (o->out_dir && o->mem_bytes &&
	    recring_spill_to(&r->ring, o->out_dir, o->mem_bytes, r->err,
			     sizeof(r->err)))
		return -1;
	if (check_store(r))
		return -1;
	be_nice();
	if (write_pidfile(r))
		return -1;
	for (int i = 0; i < o->ntrig; i++)
		if (o->trig[i].kind == RECTRIG_PSI &&
		    (r->psi_fd[i] = psi_open(o, &o->trig[i], r->err,
					     sizeof(r->err))) < 0)
			return -1;
	if (tracefs_start_sink(&r->tf, &r->lab, o->tracefs, "/sys/block",
			       r->devnames, r->ndev, o->buffer_kb, sink, r,
			       r->err, sizeof(r->err)))
		return -1;
	return 0;
}

/* ---- triggers ---- */

/* A trigger at time t: starts a save, merges into the one waiting, or is
 * skipped inside the cooldown (manual ones never are). */
static void trigger(struct rec *r, const char *what, const char *threshold,
		    const char *value, int manual, int64_t t)
{
	const struct record_opts *o = r->o;
	int64_t pre = (int64_t)(o->pre_s * 1e9), post = (int64_t)(o->post_s * 1e9);

	if (r->p.on) {
		int64_t cap = r->p.from_ns + (int64_t)(o->window_s * 1e9);
		if (t + post > r->p.to_ns)
			r->p.to_ns = t + post < cap ? t + post : cap;
		r->p.merged++;
		return;
	}
	if (!manual && r->last_trig_ns &&
	    t - r->last_trig_ns < (int64_t)(o->cooldown_s * 1e9)) {
		r->suppressed++;
		return;
	}
	memset(&r->p, 0, sizeof(r->p));
	r->p.on = 1;
	r->p.trig_ns = t;
	r->p.from_ns = t - pre;
	r->p.to_ns = t + post;
	snprintf(r->p.trigger, sizeof(r->p.trigger), "%s", what);
	snprintf(r->p.threshold, sizeof(r->p.threshold), "%s", threshold);
	snprintf(r->p.value, sizeof(r->p.value), "%s", value);
	if (!manual)
		r->last_trig_ns = t;
	if (!o->quiet)
		fprintf(stderr, "iotape: trigger %s (%s); saving %.0f s before and "
			"%.0f s after\n", what, value, o->pre_s, o->post_s);
}

/* A trigger of record/rectrig.c over its threshold. */
static void on_fire(void *ctx, const struct rectrig *t, int64_t t_ns,
		    const char *threshold, const char *value)
{
	trigger(ctx, t->text, threshold, value, 0, t_ns);
}

/* ---- saving ---- */

struct save_ctx {
	int fd;
	struct store *st;
	int64_t run;
};

static int write_records(void *ctx, const uint8_t *buf, size_t len)
{
	struct save_ctx *s = ctx;

	while (len) {
		ssize_t w = write(s->fd, buf, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static int store_sample(void *ctx, int64_t t_ns, const char *source,
			const char *key, double value)
{
	struct save_ctx *s = ctx;
	return store_sample_add(s->st, s->run, t_ns, source, key, value);
}

/* "incident-2026-12-01T03:12:05": the local time of mono time t. */
static void incident_name(int64_t t, char *out, size_t len)
{
	time_t wall = (time_t)((now_real_ns() - now_mono_ns() + t) / 1000000000ll);
	struct tm tm;
	char ts[32];

	localtime_r(&wall, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "incident-%s", ts);
}

static void set_u64(struct store *st, int64_t run, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	store_stat_set(st, run, key, buf);
}

/* The run's facts beside its events: kind, status, settings at the save
 * (machine's and the recorder's), devices, samples, process names, and
 * what the ring and the tracer lost. Returns 0 or a store error. */
static int store_facts(struct rec *r, struct save_ctx *s, int64_t to)
{
	const struct record_opts *o = r->o;
	struct setting *set = NULL;
	int nset = 0, rc;
	char v[320];
	uint64_t lost;
	struct recring_out out = { .sample = store_sample, .ctx = s };

	if ((rc = store_run_set(s->st, s->run, "kind", "capture")) ||
	    (rc = store_run_set(s->st, s->run, "status", "complete")) ||
	    (rc = store_run_set(s->st, s->run, "source", "iotape record")))
		return rc;
	snprintf(v, sizeof(v), "saved by iotape record: %s (%s; threshold %s)",
		 r->p.trigger, r->p.value, r->p.threshold);
	if ((rc = store_run_set(s->st, s->run, "notes", v)))
		return rc;
	machine_settings(&o->mp, r->devs, r->ndev, &set, &nset);
	for (int i = 0; i < nset; i++) {
		if (!strcmp(set[i].key, "host"))
			store_run_set(s->st, s->run, "host", set[i].value);
		else if (!strcmp(set[i].key, "kernel.release"))
			store_run_set(s->st, s->run, "kernel", set[i].value);
		store_setting_add(s->st, s->run, set[i].key, set[i].value, "start");
	}
	free(set);
#define SET(k, fmt, val) do { snprintf(v, sizeof(v), fmt, val); \
		store_setting_add(s->st, s->run, "record." k, v, "start"); } while (0)
	SET("trigger", "%s", r->p.trigger);
	SET("threshold", "%s", r->p.threshold);
	SET("value", "%s", r->p.value);
	SET("trigger_ns", "%" PRId64, r->p.trig_ns);
	SET("window_from_ns", "%" PRId64, r->p.from_ns);
	SET("window_to_ns", "%" PRId64, to);
	SET("pre_s", "%g", o->pre_s);
	SET("post_s", "%g", o->post_s);
	SET("merged_triggers", "%d", r->p.merged);
	SET("keep_bytes", "%" PRIu64, r->ring.keep_bytes);
	SET("window_s", "%g", o->window_s);
	SET("interval_s", "%g", o->interval_s);
#undef SET
	for (int i = 0; i < r->ndev; i++)
		store_device_add(s->st, s->run, r->devs[i].dev, r->devs[i].name,
				 r->devs[i].size_bytes,
				 machine_role(&o->mp, r->devs, r->ndev, i));
	if ((rc = recring_extract(&r->ring, r->p.from_ns, to, &out, NULL)))
		return rc;
	pthread_mutex_lock(&r->ring.mu);
	set_u64(s->st, s->run, "record_dropped_events", r->ring.dropped_events);
	set_u64(s->st, s->run, "record_dropped_samples", r->ring.dropped_samples);
	set_u64(s->st, s->run, "record_dropped_segments", r->ring.dropped_segs);
	set_u64(s->st, s->run, "record_dropped_until_ns",
		(uint64_t)r->ring.dropped_until_ns);
	set_u64(s->st, s->run, "record_total_events", r->ring.total_events);
	pthread_mutex_unlock(&r->ring.mu);
	lost = tracefs_lost(&r->tf, NULL, 0, NULL);
	set_u64(s->st, s->run, "lost_events", lost);
	set_u64(s->st, s->run, "record_suppressed_triggers", r->suppressed);
	store_stat_set(s->st, s->run, "backend", "tracefs");
	{
		char path[512], line[512];
		FILE *fp;
		snprintf(path, sizeof(path), "%s/saved_cmdlines", o->tracefs);
		if ((fp = fopen(path, "r"))) {
			while (fgets(line, sizeof(line), fp)) {
				unsigned pid;
				char comm[256];
				if (sscanf(line, "%u %255[^\n]", &pid, comm) == 2 &&
				    strcmp(comm, "<...>"))
					store_process_set(s->st, s->run, pid, comm);
			}
			fclose(fp);
		}
	}
	return 0;
}

/* Writes the pending window (up to to) as a run in one transaction: its
 * records into a scratch trace imported with import_one(), then the
 * facts. Returns 0 and the run's name in name, or -1 with a message in
 * err (nothing stored). */
static int save(struct rec *r, int64_t to, char *name, size_t namelen)
{
	const char *db = db_path_default(r->o->db);
	struct run_summaries sums = { 0 };
	struct import_opts io = { .quiet = 1, .sums = &sums };
	struct save_ctx s = { .fd = -1 };
	struct recring_out out = { .records = write_records, .ctx = &s };
	char path[600], base[64];
	uint64_t nev = 0;
	int rc;

	if (lab_scratch_file(&r->lab, "iotape-record", path, sizeof(path), r->err,
			     sizeof(r->err)))
		return -1;
	s.fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	rc = s.fd < 0 ? -errno : recring_extract(&r->ring, r->p.from_ns, to, &out,
						 &nev);
	if (s.fd >= 0 && close(s.fd) < 0 && !rc)
		rc = -errno;
	if (rc) {
		snprintf(r->err, sizeof(r->err), "cannot write '%s': %s", path,
			 strerror(-rc));
		unlink(path);
		return -1;
	}
	incident_name(r->p.trig_ns, base, sizeof(base));
	if (store_open(&s.st, db, 1))
		goto fail;
	run_summary_backfill(s.st);
	if (store_begin(s.st) || store_run_free_name(s.st, base, name, namelen))
		goto fail;
	if (nev) {
		char e2[sizeof(r->err) - 200];
		if (import_one(s.st, &io, path, name, &s.run, e2, sizeof(e2))) {
			/* e2 names the scratch file: the store is what failed */
			snprintf(r->err, sizeof(r->err), "%s: %s", store_shown(db), e2);
			goto out;
		}
	} else {
		struct run_info ri = { .name = name, .kind = "capture" };
		if (store_run_create(s.st, &ri, &s.run) ||
		    run_summaries_open(&sums, s.st, s.run) ||
		    store_run_finish(s.st, s.run, "complete", r->p.from_ns))
			goto fail;
	}
	if (store_facts(r, &s, to) || run_summaries_write(&sums, s.st) ||
	    store_commit(s.st))
		goto fail;
	store_close(s.st);
	unlink(path);
	return 0;
fail:
	snprintf(r->err, sizeof(r->err), "%s: %s", store_shown(db), store_errmsg(s.st));
out:
	if (s.st)
		store_rollback(s.st);
	run_summaries_free(&sums);
	store_close(s.st);
	unlink(path);
	return -1;
}

/* Starts --hook for the run just saved (rechook.h: never waited for). */
static void start_hook(struct rec *r, const char *name)
{
	struct rechook_env e = {
		.run = name, .trigger = r->p.trigger, .threshold = r->p.threshold,
		.value = r->p.value, .db = db_path_default(r->o->db),
	};
	char e2[512];
	pid_t pid;

	if (!r->hook.cmd)
		return;
	if ((pid = rechook_start(&r->hook, &e, e2, sizeof(e2))) < 0)
		warning("%s", e2);
	else if (!r->o->quiet)
		fprintf(stderr, "iotape: hook started for '%s' (pid %d)\n", name,
			(int)pid);
}

/* A hook that ended: its exit status on stderr (a failure even when
 * quiet). */
static void hook_done(void *ctx, const char *run, pid_t pid, int status)
{
	struct rec *r = ctx;

	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		if (!r->o->quiet)
			fprintf(stderr, "iotape: hook for '%s' (pid %d) exited 0\n",
				run, (int)pid);
	} else if (WIFEXITED(status)) {
		warning("hook for '%s' (pid %d) exited %d", run, (int)pid,
			WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		warning("hook for '%s' (pid %d) killed by signal %d", run, (int)pid,
			WTERMSIG(status));
	}
}

/* Saves the pending window when its end (and the tracer's delay) is past,
 * or at once (cut at now) when stopping. */
static void save_due(struct rec *r, int64_t now, int stopping)
{
	char name[256], see[1800];
	int64_t to = r->p.to_ns;

	if (!r->p.on || (!stopping && now < to + DRAIN_NS))
		return;
	if (stopping && to > now)
		to = now;
	if (save(r, to, name, sizeof(name))) {
		r->failed++;
		warning("saving the incident failed (recording goes on): %s", r->err);
	} else {
		r->saves++;
		if (!r->o->quiet)
			fprintf(stderr, "iotape: saved run '%s' (%s); %s\n", name,
				r->p.trigger, see_report(r->o->db ?
					store_shown(r->o->db) : NULL, name, see,
					sizeof(see)));
		start_hook(r, name);
	}
	r->p.on = 0;
}

/* ---- the loop ---- */

/* Spills the ring past its memory bound and says, once, what fails: a
 * spill (a full disk; it works again: said again at the next failure) or
 * the ring's mlock(). */
static void ring_safety(struct rec *r)
{
	char e2[600];
	int rc = recring_spill(&r->ring, e2, sizeof(e2)), unlocked, why;

	if (rc < 0 && !r->spill_warned) {
		warning("%s; recording goes on", e2);
		r->spill_warned = 1;
	} else if (rc > 0) {
		r->spill_warned = 0;
	}
	pthread_mutex_lock(&r->ring.mu);
	unlocked = r->ring.mlocked == 0;
	why = r->ring.mlock_errno;
	pthread_mutex_unlock(&r->ring.mu);
	if (unlocked && !r->mlock_warned) {
		warning("cannot lock the ring in memory (mlock: %s; raise the "
			"memlock limit, as LimitMEMLOCK= in the unit): it may be "
			"swapped out; recording goes on", strerror(why));
		r->mlock_warned = 1;
	}
}

static void read_signals(struct rec *r, int64_t now)
{
	struct signalfd_siginfo si;

	while (read(r->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1)
			trigger(r, "manual", "-", "SIGUSR1", 1, now);
		else
			r->stop = (int)si.ssi_signo;
	}
}

/* Samples, evaluates and saves until a stopping signal. */
static void loop(struct rec *r)
{
	const struct record_opts *o = r->o;
	int64_t step = (int64_t)(o->interval_s * 1e9), next_sample = now_mono_ns();
	struct pollfd pfd[1 + RECLAT_MAX_TRIG];
	int np, idx[1 + RECLAT_MAX_TRIG];

	if (!o->quiet)
		fprintf(stderr, "iotape: recording %d device%s (%s%s); keeping %.0f s "
			"in %" PRIu64 " MiB%s%s%s; SIGUSR1 or 'iotape record "
			"--save' saves\n", r->ndev, r->ndev == 1 ? "" : "s",
			r->devnames[0], r->ndev > 1 ? ", ..." : "", o->window_s,
			r->ring.keep_bytes >> 20,
			r->ring.spill_dir ? " (past memory, in '" : "",
			r->ring.spill_dir ? r->ring.spill_dir : "",
			r->ring.spill_dir ? "')" : "");
	while (!r->stop) {
		int64_t now = now_mono_ns(), wait;
		char e2[512];

		if (now >= next_sample) {
			if ((procstat_sample(o->mp.proc, now, on_sample, r, e2,
					     sizeof(e2)) ||
			     procstat_sample_diskstats(o->mp.proc, PROCSTAT_AT_READ,
						       r->devnums,
						       r->ndev, on_sample, r, e2,
						       sizeof(e2))) && !o->quiet)
				warning("sampling: %s", e2);
			next_sample += step;
			if (next_sample < now)
				next_sample = now + step;
		}
		recring_expire(&r->ring, now);
		ring_safety(r);
		rectrigs_eval(&r->trs, now, on_fire, r);
		save_due(r, now, 0);
		rechook_reap(&r->hook, hook_done, r);
		np = 0;
		pfd[np++] = (struct pollfd){ .fd = r->sfd, .events = POLLIN };
		for (int i = 0; i < o->ntrig; i++)
			if (r->psi_fd[i] >= 0) {
				idx[np] = i;
				pfd[np++] = (struct pollfd){ .fd = r->psi_fd[i],
							     .events = POLLPRI };
			}
		wait = next_sample - now_mono_ns();
		if (wait > TICK_NS)
			wait = TICK_NS;
		poll(pfd, (nfds_t)np, wait < 0 ? 0 : (int)(wait / 1000000) + 1);
		now = now_mono_ns();
		for (int k = 1; k < np; k++) {
			int i = idx[k];
			if (pfd[k].revents & POLLERR) {
				warning("PSI trigger '%s' ended (its file went away)",
					o->trig[i].text);
				close(r->psi_fd[i]);
				r->psi_fd[i] = -1;
			} else if (pfd[k].revents & POLLPRI) {
				char thr[64];
				snprintf(thr, sizeof(thr), "%" PRId64 " us in %" PRId64
					 " us", o->trig[i].stall_us,
					 o->trig[i].psi_window_us);
				trigger(r, o->trig[i].text, thr, "PSI event", 0, now);
			}
		}
		read_signals(r, now);
	}
	/* a save waiting for its post window keeps what there is */
	save_due(r, now_mono_ns(), 1);
}

/* ---- the end ---- */

static void clean_up(struct rec *r)
{
	if (r->tf.running || r->tf.pipe_fd >= 0) {
		char e2[256];
		uint64_t lost[MAX_CPUS];
		int ncpu;
		tracefs_stop(&r->tf, lost, MAX_CPUS, &ncpu, e2, sizeof(e2));
	}
	for (int i = 0; i < r->o->ntrig; i++)
		if (r->psi_fd[i] >= 0)
			close(r->psi_fd[i]);
	if (rechook_reap(&r->hook, hook_done, r))
		warning("hooks still running are left to finish on their own");
	if (r->pidfile[0])
		unlink(r->pidfile);
	if (r->lab_on && lab_end(&r->lab))
		warning("some settings were not restored; see above");
	if (r->sfd >= 0) {
		close(r->sfd);
		sigprocmask(SIG_UNBLOCK, &r->mask, NULL);
	}
	tracefs_free(&r->tf);
}

int record_run(const struct record_opts *o)
{
	struct rec *r = xcalloc(1, sizeof(*r));
	int rc;

	r->o = o;
	r->sfd = -1;
	r->tf.pipe_fd = r->tf.out_fd = -1;
	for (int i = 0; i < RECLAT_MAX_TRIG; i++)
		r->psi_fd[i] = -1;
	recring_init(&r->ring, o->keep_bytes, (int64_t)(o->window_s * 1e9), 1);
	memcpy(r->trig, o->trig, sizeof(r->trig));
	reclat_init(&r->lat, r->trig, o->ntrig);   /* rectrigs: in setup() */
	r->hook.cmd = o->hook;
	rc = setup(r);
	if (!rc) {
		loop(r);
		if (!o->quiet)
			fprintf(stderr, "iotape: stopped (%s): %" PRIu64 " saved, %"
				PRIu64 " failed, %" PRIu64 " triggers skipped in the "
				"cooldown; %" PRIu64 " events dropped from the ring\n",
				strsignal(r->stop), r->saves, r->failed, r->suppressed,
				r->ring.dropped_events);
	}
	clean_up(r);
	if (rc)
		error("%s", r->err[0] ? r->err : "record failed");
	rectrigs_free(&r->trs);
	reclat_free(&r->lat);
	recring_free(&r->ring);
	free(r);
	return rc ? -1 : 0;
}

/* 1 when process pid runs `... record ...` (its command line's first
 * argument is "record"): the recorder, whatever its binary is called (an
 * installed iotape, a copy), not a process that took a stale pid. */
static int is_recorder(long pid)
{
	char path[64], buf[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* argv[0], then argv[1] after its NUL */
	return strlen(buf) + 1 < (size_t)n && !strcmp(buf + strlen(buf) + 1, "record");
}

int record_signal_save(const char *state_dir)
{
	char path[512], buf[64];
	long pid;

	snprintf(path, sizeof(path), "%s/record.pid", state_dir);
	if (sysfs_read(path, buf, sizeof(buf)))
		return error("no recorder is running (no '%s')", path);
	pid = strtol(buf, NULL, 10);
	if (pid <= 0 || !is_recorder(pid))
		return error("no recorder is running (pid %ld in '%s/record.pid' is "
			     "gone)", pid, state_dir);
	if (kill((pid_t)pid, SIGUSR1) < 0)
		return error("cannot signal the recorder (pid %ld): %s", pid,
			     strerror(errno));
	printf("asked the recorder (pid %ld) to save\n", pid);
	return 0;
}
