/* `iotape capture` without argv (see capture.h): each run of a sweep goes
 * through the same phases, each a function below: find the disks, set up
 * the lab (settings, cgroup, cold cache), start the tracer, sample /proc and
 * run the workloads, stop and put the machine back, store the run. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "import/capture_rows.h"
#include "import/import.h"
#include "capture/lab.h"
#include "capture/machine.h"
#include "capture/procstat.h"
#include "capture/samplebuf.h"
#include "capture/sweep.h"
#include "capture/taskacct.h"
#include "capture/tracefs.h"
#include "capture/wlmetric.h"
#include "capture/workload.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "schema/store.h"

#define MAX_CPUS 256

/* The whole capture: the options with their defaults filled in, the file
 * each --set key writes, the workloads. */
struct cap {
	struct capture_opts o;
	char set_path[CAPTURE_MAX_SETS][512];
	struct workload w[CAPTURE_MAX_CMDS];
	int kind[CAPTURE_MAX_CMDS];  /* enum wlm_kind of each command */
	char fio_out[CAPTURE_MAX_CMDS][256]; /* fio's --output=FILE, or "" */
	struct wlm_regex re[CAPTURE_MAX_METRICS]; /* --metric */
	int got_signal;              /* the signal that interrupted a run */
};

/* One run of the capture, from the first change to the stored run. */
struct cap_run {
	struct cap *c;
	const struct capture_opts *o;        /* &c->o */
	const char *name, *tag;      /* tag: NULL without swept values */
	struct capdev devs[CAPTURE_MAX_DEVS];
	char devnames[CAPTURE_MAX_DEVS][64];
	int ndev;
	struct lab lab;
	int lab_on;                  /* the lab is taken and not put back */
	int sfd;                     /* the signalfd, or -1 */
	sigset_t mask;
	struct setting *set0, *set1; /* the settings at start and end */
	int nset0, nset1;
	char cg_procs[600];          /* the memory cgroup's cgroup.procs, or "" */
	int reaper;                  /* workload_reaper_start()'s pipe, or -1 */
	char cg_dir[600];            /* its folder (memory.stat), or "" */
	struct taskacct ta;          /* per-task accounting (taskacct.h) */
	int ta_on;                   /* ta was started */
	char raw[600];               /* the binary trace's file, or "" */
	char rows[620];              /* its rows file (capture_rows.h), or "" */
	int keep;                    /* not stored: raw and rows stay */
	struct tracefs tf;
	uint64_t lost[MAX_CPUS];     /* events each CPU lost */
	int ncpu;
	struct samples smp;
	int64_t t0, end_at;          /* CLOCK_MONOTONIC ns, as the events */
	int64_t t0_wall;             /* CLOCK_REALTIME ns at t0 */
	int64_t next_sample, last_wait_note;
	int nsamples;
	int interrupted, fatal;
	struct hook_run before, after; /* --before, --after */
	char err[2048];
};

/* ---- setting up ---- */

/* The disks to trace: those named with -d, else the current folder's and
 * every swap disk. Returns 0, or -1 with a message in err. */
static int find_devices(struct cap_run *r)
{
	const struct capture_opts *o = r->o;

	for (int i = 0; i < o->ndevspec; i++)
		if (machine_add_device(&o->mp, o->devspecs[i], 0, r->devs, &r->ndev,
				       CAPTURE_MAX_DEVS, r->err, sizeof(r->err)))
			return -1;
	if (!o->ndevspec &&
	    machine_default_devices(&o->mp, r->devs, &r->ndev, CAPTURE_MAX_DEVS,
				    r->err, sizeof(r->err)))
		return -1;
	for (int i = 0; i < r->ndev; i++)
		snprintf(r->devnames[i], sizeof(r->devnames[i]), "%s", r->devs[i].name);
	return 0;
}

/* The settings at the start, with the capture's own controls. */
static void snapshot_start(struct cap_run *r)
{
	const struct capture_opts *o = r->o;
	struct setting *s;

	machine_settings(&o->mp, r->devs, r->ndev, &r->set0, &r->nset0);
	r->set0 = xrealloc(r->set0, (size_t)(r->nset0 + 3) * sizeof(*r->set0));
	s = &r->set0[r->nset0];
	snprintf(s[0].key, sizeof(s[0].key), "capture.mem_limit_bytes");
	snprintf(s[0].value, sizeof(s[0].value), "%" PRIu64, o->mem_limit);
	snprintf(s[1].key, sizeof(s[1].key), "capture.drop_caches");
	snprintf(s[1].value, sizeof(s[1].value), "%d", o->drop_caches);
	snprintf(s[2].key, sizeof(s[2].key), "capture.interval_s");
	snprintf(s[2].value, sizeof(s[2].value), "%g", o->interval_s);
	r->nset0 += 3;
}

/* Takes the lab, routes signals to a signalfd, applies the --set values
 * pick[] chooses (an index into each set's values), snapshots the settings,
 * makes the memory cgroup and drops the page cache. Returns 0, or -1 with a
 * message in err (what was changed is recorded in the lab). */
static int setup_lab(struct cap_run *r, const int *pick)
{
	const struct capture_opts *o = r->o;

	/* Signals are read from a signalfd from before the lab is taken:
	 * one that comes while waiting for another capture's lock stops the
	 * wait (a background job ignores SIGINT until then, losing it), and
	 * from the first change on, whatever arrives, the changes are put
	 * back. */
	if (r->sfd < 0)
		r->sfd = lab_signals(&r->mask, 1);
	if (lab_begin(&r->lab, o->state_dir, r->err, sizeof(r->err)))
		return -1;
	r->lab_on = 1;
	for (int i = 0; i < o->nset; i++)
		if (lab_set(&r->lab, r->c->set_path[i], o->sets[i].values[pick[i]],
			    r->err, sizeof(r->err)))
			return -1;
	snapshot_start(r);
	if (o->mem_limit &&
	    workload_cgroup(o->mp.sys, o->mem_limit, &r->lab, r->cg_procs,
			    sizeof(r->cg_procs), r->err, sizeof(r->err)))
		return -1;
	if (r->cg_procs[0]) {
		char *slash;
		snprintf(r->cg_dir, sizeof(r->cg_dir), "%s", r->cg_procs);
		if ((slash = strrchr(r->cg_dir, '/')))
			*slash = '\0';
	}
	if (o->drop_caches) {
		char p[512];
		sync();
		snprintf(p, sizeof(p), "%s/sys/vm/drop_caches", o->mp.proc);
		if (sysfs_write(p, "3")) {
			snprintf(r->err, sizeof(r->err), "cannot drop caches (%s): %s",
				 p, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Starts per-task accounting (taskacct.h) at the run's start, and says how
 * in the settings at start (capture.task_acct). Returns 0, or -1 with a
 * message in err. */
static int start_taskacct(struct cap_run *r)
{
	const struct capture_opts *o = r->o;
	struct setting *s;

	if (taskacct_start(&r->ta, &r->lab, o->mp.proc, o->mp.sys, r->t0, r->err,
			   sizeof(r->err))) {
		taskacct_free(&r->ta);
		return -1;
	}
	r->ta_on = 1;
	r->set0 = xrealloc(r->set0, (size_t)(r->nset0 + 1) * sizeof(*r->set0));
	s = &r->set0[r->nset0++];
	snprintf(s->key, sizeof(s->key), "capture.task_acct");
	taskacct_describe(&r->ta, s->value, sizeof(s->value));
	if (!o->quiet && r->ta.mode != TASKACCT_NETLINK)
		warning("per-task accounting: %s", s->value);
	return 0;
}

/* Starts the tracefs blk tracer on the disks into the raw file (--raw, or
 * a scratch file) and the run's clock. Returns 0, or -1 with a message in
 * err. */
static int start_tracer(struct cap_run *r)
{
	const struct capture_opts *o = r->o;
	char p[512];

	if (o->raw)
		snprintf(r->raw, sizeof(r->raw), "%s", o->raw);
	else if (lab_scratch_file(&r->lab, "iotape-capture", r->raw,
				  sizeof(r->raw), r->err, sizeof(r->err)))
		return -1;
	if (tracefs_start(&r->tf, &r->lab, o->tracefs, "/sys/block", r->devnames,
			  r->ndev, o->buffer_kb, r->raw, r->err, sizeof(r->err)))
		return -1;
	/* A longer pid→comm table in tracefs for the run's process names. */
	snprintf(p, sizeof(p), "%s/saved_cmdlines_size", o->tracefs);
	lab_set(&r->lab, p, "8192", r->err, sizeof(r->err));
	r->err[0] = '\0';
	r->t0 = now_mono_ns();
	r->t0_wall = now_real_ns();
	r->end_at = o->duration_s > 0 ? r->t0 + (int64_t)(o->duration_s * 1e9)
				      : INT64_MAX;
	if (start_taskacct(r))
		return -1;
	r->next_sample = r->t0;
	if (!o->quiet)
		fprintf(stderr, "iotape: capturing %d device%s (%s%s)%s\n", r->ndev,
			r->ndev == 1 ? "" : "s", r->devnames[0],
			r->ndev > 1 ? ", ..." : "", o->ncmd ? "" : "; Ctrl-C stops");
	return 0;
}

/* ---- running ---- */

/* Samples /proc, and /proc/diskstats of the traced disks (keys
 * "MAJOR,MINOR:FIELD"), at now (events' clock). Returns 0 or non-zero with a
 * message in err. */
static int sample_proc(struct cap_run *r, int64_t now, char *err, size_t errlen)
{
	uint32_t devs[CAPTURE_MAX_DEVS];

	for (int i = 0; i < r->ndev; i++)
		devs[i] = r->devs[i].dev;
	if (procstat_sample(r->o->mp.proc, now, samples_add, &r->smp, err, errlen))
		return -1;
	int rc = procstat_sample_diskstats(r->o->mp.proc, PROCSTAT_AT_READ, devs, r->ndev,
					   samples_add, &r->smp, err, errlen);
	if (rc && rc != -ENOENT)        /* a --proc folder without it */
		return rc;
	if (r->cg_dir[0])
		return procstat_sample_memcg(r->cg_dir, now, samples_add, &r->smp,
					     err, errlen);
	return 0;
}

/* Samples /proc when a sample is due. A --start-when key the samples never
 * name would wait for ever: after the first sample, that is fatal. Returns
 * 0, or -1 (fatal, a message in err). */
static int sample_due(struct cap_run *r, int64_t now)
{
	const struct capture_opts *o = r->o;
	char e2[512];
	double v;

	if (now < r->next_sample)
		return 0;
	if (sample_proc(r, now, e2, sizeof(e2)) && !o->quiet)
		warning("sampling: %s", e2);
	if (r->ta_on)
		taskacct_sample(&r->ta, now);
	r->next_sample += (int64_t)(o->interval_s * 1e9);
	if (r->next_sample < now)
		r->next_sample = now + (int64_t)(o->interval_s * 1e9);
	if (++r->nsamples > 1)
		return 0;
	for (int i = 0; i < o->ncmd; i++) {
		if (o->cmds[i].has_when &&
		    samples_value(&r->smp, o->cmds[i].when_key, &v)) {
			snprintf(r->err, sizeof(r->err), "unknown --start-when key "
				 "'%s': not swap_used nor a /proc/vmstat, meminfo or "
				 "psi value", o->cmds[i].when_key);
			r->fatal = 1;
			return -1;
		}
	}
	return 0;
}

/* Every 30 s, says which workloads still wait for their --start-when. */
static void note_waiting(struct cap_run *r, int64_t now)
{
	if (r->o->quiet || now - r->last_wait_note <= 30000000000ll)
		return;
	for (int i = 0; i < r->o->ncmd; i++) {
		struct workload *w = &r->c->w[i];
		double v = 0;

		if (w->started || !w->cmd->has_when || now - r->t0 < 30000000000ll)
			continue;
		samples_value(&r->smp, w->cmd->when_key, &v);
		fprintf(stderr, "iotape: still waiting to start '%s': %s is %g; "
			"--duration caps the run\n", w->line, w->cmd->when_key, v);
		r->last_wait_note = now;
	}
}

/* Starts each workload whose time has come, and lowers *wake to the
 * earliest --start-after still ahead. Returns 1 when every workload has
 * ended, -1 when one could not be started (said on stderr), else 0. */
static int start_due(struct cap_run *r, int64_t now, int64_t *wake)
{
	int all_done = r->o->ncmd > 0, pending = 0;

	for (int i = 0; i < r->o->ncmd; i++) {
		struct workload *w = &r->c->w[i];

		if (!w->started) {
			/* a step waits for the steps before it (their ends
			 * wake the loop: SIGCHLD) */
			int ready = workloads_steps_done(r->c->w, r->o->ncmd,
							 w->cmd->step);
			if (ready && workload_due(w, &r->smp, now - r->t0) &&
			    workload_start(w, r->cg_procs[0] ? r->cg_procs : NULL))
				return -1;
			if (w->started)
				workload_reaper_add(r->reaper, w->pid);
			if (w->started && r->ta_on)
				taskacct_add_root(&r->ta, w->pid, i);
			if (!w->started) {
				int64_t at = r->t0 + (int64_t)(w->cmd->after_s * 1e9);
				pending = 1;
				if (ready && !w->cmd->has_when && at < *wake)
					*wake = at;
			}
		}
		if (!w->done)
			all_done = 0;
	}
	return all_done && !pending;
}

/* Sleeps until wake (at most a second) or a signal; a signal other than
 * SIGCHLD interrupts the run. Then reaps the workloads that ended. */
static void wait_events(struct cap_run *r, int64_t wake)
{
	struct signalfd_siginfo si;
	struct pollfd pfd[2] = {
		{ .fd = r->sfd, .events = POLLIN },
		{ .fd = r->ta_on ? taskacct_fd(&r->ta) : -1, .events = POLLIN },
	};
	int64_t ms = (wake - now_mono_ns()) / 1000000;

	poll(pfd, 2, ms < 0 ? 0 : ms > 1000 ? 1000 : (int)ms + 1);
	if (r->ta_on)
		taskacct_read(&r->ta);   /* exits, stamped as they come */
	while (read(r->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		r->interrupted = 1;
		r->c->got_signal = (int)si.ssi_signo;
	}
	workloads_reap(r->c->w, r->o->ncmd);
}

/* Samples /proc and starts the workloads when due, until they have all
 * ended, --duration is up (they get SIGTERM), a signal arrives, a workload
 * cannot start or a --start-when key is unknown (r->fatal). */
static void run_workloads(struct cap_run *r)
{
	for (;;) {
		int64_t now = now_mono_ns(), wake = r->end_at;

		if (sample_due(r, now))
			return;
		note_waiting(r, now);
		if (start_due(r, now, &wake))
			return;
		if (now >= r->end_at) {
			workloads_kill(r->c->w, r->o->ncmd, SIGTERM);
			return;
		}
		if (r->next_sample < wake)
			wake = r->next_sample;
		wait_events(r, wake);
		if (r->interrupted)
			return;
	}
}

/* ---- stopping ---- */

/* Ends the workloads (SIGTERM when interrupted, SIGKILL a second later),
 * takes a last sample, stops the tracer, snapshots the settings at the end
 * and puts the machine back, before the (possibly long) import. Returns 0,
 * or -1 with a message in err when the tracer did not stop cleanly. */
static int stop_run(struct cap_run *r)
{
	const struct capture_opts *o = r->o;

	if (r->interrupted) {
		workloads_kill(r->c->w, o->ncmd, SIGTERM);
		if (!o->quiet)
			fprintf(stderr, "iotape: interrupted (%s); storing what was "
				"captured\n", strsignal(r->c->got_signal));
	}
	for (int tries = 0; tries < 100; tries++) {
		workloads_reap(r->c->w, o->ncmd);
		if (!workloads_alive(r->c->w, o->ncmd))
			break;
		if (tries == 50)
			workloads_kill(r->c->w, o->ncmd, SIGKILL);
		usleep(20000);
	}
	if (r->ta_on)
		taskacct_finish(&r->ta, now_mono_ns());
	sample_proc(r, now_mono_ns(), NULL, 0);
	if (tracefs_stop(&r->tf, r->lost, MAX_CPUS, &r->ncpu, r->err,
			 sizeof(r->err)))
		return -1;
	machine_settings(&o->mp, r->devs, r->ndev, &r->set1, &r->nset1);
	/* Everything changed goes back before the (possibly long) import. */
	if (lab_end(&r->lab))
		warning("some settings were not restored; see above");
	r->lab_on = 0;
	return 0;
}

/* Warns of workloads that failed or never started, and of lost events. */
static void warn_outcome(struct cap_run *r)
{
	if (r->o->quiet)
		return;
	for (int i = 0; i < r->o->ncmd; i++) {
		struct workload *w = &r->c->w[i];
		if (w->done && w->status)
			warning("cmd%d ('%s') exited %d%s", i + 1, w->line, w->status,
				w->status == 137 ? " (killed: out of memory in the "
				"cgroup?)" : w->status > 128 ? " (killed by a signal)" : "");
		else if (!w->started)
			warning("cmd%d ('%s') never started", i + 1, w->line);
	}
	for (int c = 0; c < r->ncpu; c++)
		if (r->lost[c])
			warning("CPU %d lost %" PRIu64 " events (tracefs ring buffer "
				"overrun); raise --buffer-kb", c, r->lost[c]);
}

/* Puts back whatever is still changed and frees the run's state. */
static void clean_up(struct cap_run *r)
{
	if (r->reaper >= 0)
		workload_reaper_end(r->reaper);   /* no workload ran */
	r->reaper = -1;
	if (r->tf.running || r->tf.pipe_fd >= 0 || r->tf.out_fd >= 0) {
		char e2[256];
		tracefs_stop(&r->tf, r->lost, MAX_CPUS, &r->ncpu, e2, sizeof(e2));
	}
	if (r->lab_on && lab_end(&r->lab))
		warning("some settings were not restored; see above");
	if (r->sfd >= 0) {
		/* a signal that came while storing: taken here (unblocked it
		 * would end us before the run's line), it stops a sweep */
		struct signalfd_siginfo si;
		while (read(r->sfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGCHLD && !r->c->got_signal)
				r->c->got_signal = (int)si.ssi_signo;
		close(r->sfd);
		sigprocmask(SIG_UNBLOCK, &r->mask, NULL);
	}
	if (r->raw[0] && !r->o->raw && !r->keep)
		unlink(r->raw);
	tracefs_free(&r->tf);
	if (r->ta_on)
		taskacct_free(&r->ta);
	r->ta_on = 0;
	workloads_outputs_release(r->c->w, r->o->ncmd);
	free(r->set0);
	free(r->set1);
	samples_free(&r->smp);
}

/* ---- storing ----
 * The run's rows besides its trace are written to a rows file beside the
 * raw trace (capture_rows.h), then both are imported in one transaction:
 * when that fails (a full disk), both stay and the import command that
 * stores them later is printed. */

/* A row of up to 8 fields given as printf formats would be; each field
 * already a string. */
#define ROW(fp, kind, ...) capture_rows_put(fp, kind, \
	(int)(sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(const char *)), \
	(const char *[]){ __VA_ARGS__ })

static void save_settings(FILE *fp, struct setting *s, int n, const char *at)
{
	for (int i = 0; i < n; i++)
		ROW(fp, "setting", at, s[i].key, s[i].value);
}

/* tracefs saved_cmdlines ("pid comm" lines) as process rows. */
static void save_cmdlines(FILE *fp, const char *root)
{
	char path[512], line[512];
	FILE *in;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", root);
	if (!(in = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), in)) {
		unsigned pid;
		char comm[256], p[16];
		if (sscanf(line, "%u %255[^\n]", &pid, comm) == 2 &&
		    strcmp(comm, "<...>")) {
			snprintf(p, sizeof(p), "%u", pid);
			ROW(fp, "process", p, comm);
		}
	}
	fclose(in);
}

/* The run's kind, status, host and kernel, its settings and devices. */
static void save_facts(struct cap_run *r, FILE *fp)
{
	ROW(fp, "kind", "capture");
	ROW(fp, "status", r->interrupted ? "interrupted" : "complete");
	for (int i = 0; i < r->nset0; i++) {
		if (!strcmp(r->set0[i].key, "host"))
			ROW(fp, "host", r->set0[i].value);
		else if (!strcmp(r->set0[i].key, "kernel.release"))
			ROW(fp, "kernel", r->set0[i].value);
	}
	ROW(fp, "source", "tracefs blk tracer");
	save_settings(fp, r->set0, r->nset0, "start");
	/* what ran around the run and in which steps: settings, not
	 * commands (those are the workload) */
	if (r->o->before)
		ROW(fp, "setting", "start", "capture.before", r->o->before);
	if (r->o->after)
		ROW(fp, "setting", "start", "capture.after", r->o->after);
	if (r->o->ncmd && r->o->cmds[r->o->ncmd - 1].step) {
		char steps[CAPTURE_MAX_CMDS * 4 + 1] = "";
		size_t l = 0;
		for (int i = 0; i < r->o->ncmd; i++)
			l += (size_t)snprintf(steps + l, sizeof(steps) - l, "%s%d",
					      i ? " " : "", r->o->cmds[i].step + 1);
		ROW(fp, "setting", "start", "capture.steps", steps);
	}
	save_settings(fp, r->set1, r->nset1, "end");
	for (int i = 0; i < r->o->nlabel; i++) {
		/* checked KEY=VALUE (check_label()) */
		const char *kv = r->o->labels[i], *eq = strchr(kv, '=');
		char key[96];
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
		ROW(fp, "setting", "start", key, eq + 1);
	}
	for (int i = 0; i < r->ndev; i++) {
		char dev[16], size[24];
		snprintf(dev, sizeof(dev), "%" PRIu32, r->devs[i].dev);
		snprintf(size, sizeof(size), "%" PRId64, (int64_t)r->devs[i].size_bytes);
		ROW(fp, "device", dev, r->devs[i].name, size,
		    machine_role(&r->o->mp, r->devs, r->ndev, i));
	}
}

/* The workload metrics the commands printed (workloads_metrics()). */
static void save_metrics(struct cap_run *r, FILE *fp)
{
	struct wlm_set set = { 0 };

	workloads_metrics(r->c->w, r->o->ncmd, r->c->kind, r->c->fio_out,
			  r->c->re, r->o->nmetric, r->o->quiet, &set);
	for (size_t k = 0; k < set.n; k++) {
		char v[40];
		snprintf(v, sizeof(v), "%.17g", set.m[k].value);
		ROW(fp, "metric", set.m[k].name, v, set.m[k].unit, set.m[k].source);
	}
	wlm_free(&set);
}

/* "%" PRId64, or "-" for STORE_NO_TIME, into buf. */
static const char *ns_or_dash(int64_t v, char *buf, size_t len)
{
	if (v == STORE_NO_TIME)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRId64, v);
	return buf;
}

/* taskacct_rows()' and taskacct_comms()' rows into the rows file ctx. */
static int task_sample(void *ctx, int64_t t_ns, const char *source,
		       const char *key, double value)
{
	char t[24], v[40];

	snprintf(t, sizeof(t), "%" PRId64, t_ns);
	snprintf(v, sizeof(v), "%.17g", value);
	ROW((FILE *)ctx, "sample", t, source, key, v);
	return 0;
}

static int task_comm(void *ctx, uint32_t pid, const char *comm)
{
	char v[16];

	snprintf(v, sizeof(v), "%" PRIu32, pid);
	ROW((FILE *)ctx, "process", v, comm);
	return 0;
}

/* The samples (with the per-task accounts, source "task") and each
 * workload's command row. */
static void save_rows(struct cap_run *r, FILE *fp)
{
	const struct samples *smp = &r->smp;

	if (r->ta_on) {
		uint64_t dropped = 0;
		char v[32];
		taskacct_rows(&r->ta, task_sample, fp, &dropped);
		snprintf(v, sizeof(v), "%" PRIu64, dropped);
		ROW(fp, "stat", "task_delays_dropped", v);
	}

	for (size_t i = 0; i < smp->nrows; i++) {
		const struct sample_row *s = &smp->rows[i];
		char t[24], v[40];
		snprintf(t, sizeof(t), "%" PRId64, s->t_ns);
		snprintf(v, sizeof(v), "%.17g", s->value);
		ROW(fp, "sample", t, smp->keys[s->key].source, smp->keys[s->key].key, v);
	}
	for (int i = 0; i < r->o->ncmd; i++) {
		const struct workload *w = &r->c->w[i];
		char idx[16], a[24], b[24], real[40], user[40], sys[40], st[16];
		snprintf(idx, sizeof(idx), "%d", i);
		snprintf(real, sizeof(real), "%.17g", (double)(w->end_ns - w->start_ns) / 1e9);
		snprintf(user, sizeof(user), "%.17g", (double)w->ru.ru_utime.tv_sec +
			 (double)w->ru.ru_utime.tv_usec / 1e6);
		snprintf(sys, sizeof(sys), "%.17g", (double)w->ru.ru_stime.tv_sec +
			 (double)w->ru.ru_stime.tv_usec / 1e6);
		snprintf(st, sizeof(st), "%d", w->started ? w->status : -1);
		ROW(fp, "command", idx,
		    ns_or_dash(w->started ? w->start_ns : STORE_NO_TIME, a, sizeof(a)),
		    ns_or_dash(w->done ? w->end_ns : STORE_NO_TIME, b, sizeof(b)),
		    real, user, sys, st, w->line);
	}
}

/* Lost events, the capture's start, back end and tag as run statistics;
 * the process names the tracer saw. */
static void save_stats(struct cap_run *r, FILE *fp)
{
	uint64_t lost_total = 0;
	char v[32];

	for (int c = 0; c < r->ncpu; c++) {
		char key[32];
		snprintf(key, sizeof(key), "lost_events_cpu%d", c);
		snprintf(v, sizeof(v), "%" PRIu64, r->lost[c]);
		ROW(fp, "stat", key, v);
		lost_total += r->lost[c];
	}
	snprintf(v, sizeof(v), "%" PRIu64, lost_total);
	ROW(fp, "stat", "lost_events", v);
	snprintf(v, sizeof(v), "%" PRId64, r->t0);
	ROW(fp, "stat", "capture_start_ns", v);
	/* the wall clock then: what blktrace's start-time record holds
	 * (export writes one from it) */
	snprintf(v, sizeof(v), "%" PRId64, r->t0_wall);
	ROW(fp, "stat", "capture_start_wall_ns", v);
	ROW(fp, "stat", "backend", "tracefs");
	for (int k = 0; k < 2; k++) {
		const struct hook_run *h = k ? &r->after : &r->before;
		const char *p = k ? "after" : "before";
		char key[32];
		if (!h->ran)
			continue;
		snprintf(key, sizeof(key), "%s.real_s", p);
		snprintf(v, sizeof(v), "%.9f", (double)(h->end_ns - h->start_ns) / 1e9);
		ROW(fp, "stat", key, v);
		snprintf(key, sizeof(key), "%s.user_s", p);
		snprintf(v, sizeof(v), "%.6f", (double)h->ru.ru_utime.tv_sec +
			 (double)h->ru.ru_utime.tv_usec / 1e6);
		ROW(fp, "stat", key, v);
		snprintf(key, sizeof(key), "%s.sys_s", p);
		snprintf(v, sizeof(v), "%.6f", (double)h->ru.ru_stime.tv_sec +
			 (double)h->ru.ru_stime.tv_usec / 1e6);
		ROW(fp, "stat", key, v);
		snprintf(key, sizeof(key), "%s.status", p);
		snprintf(v, sizeof(v), "%d", h->status);
		ROW(fp, "stat", key, v);
		snprintf(key, sizeof(key), "%s.start_ns", p);
		snprintf(v, sizeof(v), "%" PRId64, h->start_ns);
		ROW(fp, "stat", key, v);
		snprintf(key, sizeof(key), "%s.end_ns", p);
		snprintf(v, sizeof(v), "%" PRId64, h->end_ns);
		ROW(fp, "stat", key, v);
	}
	if (r->tag)
		ROW(fp, "stat", "tag", r->tag);
	if (r->ta_on) {
		/* the tracer's names, below, win for the pids it saw */
		taskacct_comms(&r->ta, task_comm, fp);
		snprintf(v, sizeof(v), "%" PRIu64, r->ta.lost);
		ROW(fp, "stat", "task_exits_lost", v);
	}
	for (size_t i = 0; i < r->tf.npid; i++)
		if (r->tf.comms[i][0]) {
			snprintf(v, sizeof(v), "%" PRIu32, r->tf.pids[i]);
			ROW(fp, "process", v, r->tf.comms[i]);
		}
	save_cmdlines(fp, r->o->tracefs);
}

/* Writes the rows file r->rows (RAW.rows beside the raw trace). Returns 0,
 * or -1 with a message in err (nothing left). */
static int write_rows(struct cap_run *r)
{
	struct stat sb;
	FILE *fp;
	int bad;

	snprintf(r->rows, sizeof(r->rows), "%s.rows", r->raw);
	if (!(fp = fopen(r->rows, "w"))) {
		snprintf(r->err, sizeof(r->err), "cannot write '%s': %s", r->rows,
			 strerror(errno));
		r->rows[0] = '\0';
		return -1;
	}
	fprintf(fp, "%s\n", CAPTURE_ROWS_MAGIC);
	ROW(fp, "run", r->name);
	if (stat(r->raw, &sb) == 0 && sb.st_size > 0) {
		ROW(fp, "trace", r->raw);
	} else {
		char t0[24];
		snprintf(t0, sizeof(t0), "%" PRId64, r->t0);
		ROW(fp, "genesis", t0);
	}
	save_facts(r, fp);
	save_rows(r, fp);
	save_metrics(r, fp);
	save_stats(r, fp);
	errno = 0;
	bad = fflush(fp) || ferror(fp) || fsync(fileno(fp));
	bad = fclose(fp) || bad;
	if (bad) {
		int e = errno ? errno : EIO;
		snprintf(r->err, sizeof(r->err), "cannot write '%s': %s", r->rows,
			 strerror(e));
		unlink(r->rows);
		r->rows[0] = '\0';
		return -1;
	}
	return 0;
}

/* Says what was kept when the run could not be stored, and the command
 * that stores it later. */
static void say_kept(struct cap_run *r)
{
	char q1[1100], q2[1100], size[32] = "";
	struct stat sb;

	if (stat(r->raw, &sb) == 0)
		snprintf(size, sizeof(size), " (%.1f MB)", (double)sb.st_size / 1e6);
	if (r->rows[0])
		fprintf(stderr, "iotape: run '%s' was not stored; kept: its trace "
			"'%s'%s and its samples, commands and settings '%s'. Once "
			"the database has room, store them with:\n  iotape import"
			"%s%s %s\n", r->name, r->raw, size, r->rows,
			r->o->db ? " --db " : "",
			r->o->db ? shell_quote(r->o->db, q1, sizeof(q1)) : "",
			shell_quote(r->rows, q2, sizeof(q2)));
	else
		fprintf(stderr, "iotape: run '%s' was not stored; kept: its trace "
			"'%s'%s (its samples were lost). Store it with:\n  iotape "
			"import%s%s --run %s %s\n", r->name, r->raw, size,
			r->o->db ? " --db " : "",
			r->o->db ? shell_quote(r->o->db, q1, sizeof(q1)) : "",
			shell_quote(r->name, q2, sizeof(q2)),
			shell_quote(r->raw, q1, sizeof(q1)));
}

/* Stores the run in one transaction through its rows file: the raw trace
 * imported (events, requests, processes; an empty run when nothing was
 * traced), then what the capture knows besides. Returns 0 (the rows file
 * removed), or -1 with a message in err and r->keep set (the trace and the
 * rows file stay). */
static int store_run(struct cap_run *r)
{
	const char *db = db_path_default(r->o->db);
	struct store *st = NULL;
	struct run_summaries sums = { 0 };
	struct import_opts io = { .quiet = 1, .sums = &sums };
	int64_t run;
	int rc;

	if (write_rows(r)) {
		r->keep = 1;
		return -1;
	}
	if (store_open(&st, db, 1)) {
		snprintf(r->err, sizeof(r->err), "%s: %s", store_shown(db), store_errmsg(st));
		store_close(st);
		r->keep = 1;
		return -1;
	}
	run_summary_backfill(st);
	if ((rc = store_begin(st))) {
		snprintf(r->err, sizeof(r->err), "%s: %s", store_shown(db), store_errmsg(st));
		goto out;
	}
	if ((rc = import_capture_rows(st, &io, r->rows, r->name, &run, r->err,
				      sizeof(r->err))))
		goto out;
	if ((rc = run_summaries_write(&sums, st)) || (rc = store_commit(st)))
		snprintf(r->err, sizeof(r->err), "%s: %s", store_shown(db), store_errmsg(st));
out:
	run_summaries_free(&sums);
	if (rc) {
		store_rollback(st);
		r->keep = 1;
	} else {
		unlink(r->rows);
		r->rows[0] = '\0';
	}
	store_close(st);
	return rc ? -1 : 0;
}

/* ---- --before and --after ---- */

/* Runs the --before or --after command cmd (what names it), untraced,
 * into *h, saying on stderr what it is and how long it took. Returns 0, or
 * -1 with a message in err when it could not start or (--before) failed. */
static int run_hook(struct cap_run *r, const char *what, const char *cmd,
		    struct hook_run *h)
{
	if (!r->o->quiet)
		fprintf(stderr, "iotape: %s (untraced): %s\n", what, cmd);
	fflush(stdout);
	if (workload_hook(cmd, h)) {
		snprintf(r->err, sizeof(r->err), "cannot start %s '%s'", what, cmd);
		return -1;
	}
	if (!r->o->quiet)
		fprintf(stderr, "iotape: %s took %.3f s%s\n", what,
			(double)(h->end_ns - h->start_ns) / 1e9,
			h->status ? " and failed" : "");
	if (h->status) {
		snprintf(r->err, sizeof(r->err), "%s '%s' exited %d%s", what, cmd,
			 h->status, !strcmp(what, "--before") ? "; nothing "
			 "captured" : "");
		return -1;
	}
	return 0;
}

/* ---- one run, and the sweep ---- */

/* Captures one run, named name, with the --set values pick[] chooses.
 * Returns 0, 1 when interrupted (the run is stored), or -1 after printing
 * one error line. */
static int capture_one(struct cap *c, const int *pick, const char *name,
		       const char *tag)
{
	struct cap_run *r = xcalloc(1, sizeof(*r));
	int rc;

	r->c = c;
	r->o = &c->o;
	r->name = name;
	r->tag = tag;
	r->sfd = r->reaper = -1;
	r->tf.pipe_fd = r->tf.out_fd = -1;
	for (int i = 0; i < c->o.ncmd; i++)
		workload_reset(&c->w[i]);
	/* forked first, before the lab's lock, tracefs and the database
	 * are open: it never holds any of them, even for a moment (a reader
	 * of trace_pipe keeps the tracer from being put back: EBUSY) */
	r->reaper = workload_reaper_start();
	rc = find_devices(r);
	if (!rc && c->o.before)
		rc = run_hook(r, "--before", c->o.before, &r->before);
	if (!rc)
		rc = setup_lab(r, pick);
	if (!rc)
		rc = start_tracer(r);
	if (!rc) {
		workloads_outputs(c->w, c->o.ncmd, c->kind, c->o.nmetric > 0);
		if (r->ta_on)
			taskacct_skip(&r->ta, workload_reaper_pid());
		run_workloads(r);
		workload_reaper_end(r->reaper);
		r->reaper = -1;
		rc = stop_run(r);
		for (int i = 0; i < c->o.ncmd; i++)
			if (c->w[i].out)
				wl_output_finish(c->w[i].out, 2000);
		/* a failed --after is said, the run is stored all the same */
		if (!rc && c->o.after &&
		    run_hook(r, "--after", c->o.after, &r->after) && !c->o.quiet)
			warning("%s", r->err);
		r->err[0] = '\0';
	}
	if (!rc && r->fatal)
		rc = -1;
	if (!rc) {
		warn_outcome(r);
		rc = store_run(r);
		if (!rc)
			rc = r->interrupted;
	}
	clean_up(r);
	if (rc < 0)
		error("%s", r->err[0] ? r->err : "capture failed");
	if (r->keep)
		say_kept(r);
	free(r);
	return rc;
}

/* Fills in the defaults, sets the workloads up and finds the file each
 * --set key writes. Returns 0, or -1 after printing why. */
static int prepare(struct cap *c, const struct capture_opts *o_in)
{
	struct capture_opts *o = &c->o;

	*o = *o_in;
	if (!o->mp.proc)
		o->mp.proc = "/proc";
	if (!o->mp.sys)
		o->mp.sys = "/sys";
	if (!o->tracefs)
		o->tracefs = "/sys/kernel/tracing";
	if (!o->state_dir)
		o->state_dir = LAB_DIR_DEFAULT;
	if (!(o->interval_s > 0))
		o->interval_s = 1;
	if (o->repeat < 1)
		o->repeat = 1;
	if (!o->buffer_kb)
		o->buffer_kb = 16384;
	for (int i = 0; i < o->ncmd; i++) {
		workload_init(&c->w[i], &o->cmds[i]);
		c->kind[i] = wlm_classify(c->w[i].line, c->fio_out[i],
					  sizeof(c->fio_out[i]));
	}
	for (int i = 0; i < o->nmetric; i++) {
		char err[300];
		if (wlm_regex_compile(&c->re[i], o->metrics[i], err, sizeof(err)))
			return error("%s", err);
	}
	for (int i = 0; i < o->nset; i++)
		if (machine_setting_path(&o->mp, o->sets[i].key, c->set_path[i],
					 sizeof(c->set_path[i])))
			return error("invalid --set key '%s' (a sysctl such as "
				     "vm.dirty_ratio, or DEV:queue/ATTR)",
				     o->sets[i].key);
	return 0;
}

static void sweep_start(const struct cap *c, struct sweep *sw, const char *base)
{
	sweep_init(sw, base, c->o.repeat);
	for (int i = 0; i < c->o.nset; i++)
		sweep_add(sw, c->o.sets[i].key, c->o.sets[i].values,
			  c->o.sets[i].nvalues);
}

/* --raw FILE, and FILE.rows where a failed store keeps the rest, are
 * written over: neither may be the database (the store opened before
 * guards it), another SQLite file or a block device (out_file_check()).
 * Returns 0, or -1 after saying why. */
static int check_raw(const char *raw)
{
	char rows[PATH_MAX];
	int rc = out_file_check(raw);

	if (rc)
		return error("refusing --raw '%s': %s", raw, out_file_error(rc));
	snprintf(rows, sizeof(rows), "%s.rows", raw);
	if ((rc = out_file_check(rows)))
		return error("refusing --raw '%s': its '%s' (kept if the store "
			     "fails): %s", raw, rows, out_file_error(rc));
	return 0;
}

/* The runs' base name into base (len bytes): --run, else "capture" made
 * unique in the store. Then checks that every run's name is free before
 * anything runs. Returns 0, or -1 after printing which is taken. */
static int check_names(const struct cap *c, char *base, size_t len)
{
	const char *db = db_path_default(c->o.db);
	struct store *st = NULL;
	struct sweep sw;
	int64_t id;
	int rc = 0;

	snprintf(base, len, "%s", c->o.run ? c->o.run : "capture");
	if (!c->o.run) {
		/* a free default name */
		if (!store_open(&st, db, 1))
			store_run_free_name(st, "capture", base, len);
		store_close(st);
		st = NULL;
	}
	if (store_open(&st, db, 1)) {
		error("%s: %s", store_shown(db), store_errmsg(st));
		store_close(st);
		return -1;
	}
	sweep_start(c, &sw, base);
	while (!rc && sweep_next(&sw))
		if (!store_run_find(st, sw.name, &id))
			rc = error("%s: a run named '%s' exists; give another --run",
				   db, sw.name);
	store_close(st);
	if (!rc && c->o.raw)
		rc = check_raw(c->o.raw);
	return rc;
}

int capture_run(const struct capture_opts *o)
{
	struct cap *c = xcalloc(1, sizeof(*c));
	struct sweep sw;
	char base[256];
	int rc = prepare(c, o);

	if (!rc)
		rc = check_names(c, base, sizeof(base));
	if (!rc)
		sweep_start(c, &sw, base);
	while (!rc && !c->got_signal && sweep_next(&sw)) {
		rc = capture_one(c, sw.pick, sw.name, sw.tag[0] ? sw.tag : NULL);
		if (rc >= 0 && !c->o.quiet) {
			/* a sweep's names ("lab[queue/scheduler=none]") are
			 * globs to a shell: the hint quotes them */
			char see[1800];
			fprintf(stderr, "iotape: stored run '%s'%s; %s\n",
				sw.name, rc == 1 ? " (interrupted)" : "",
				see_report(c->o.db ? store_shown(c->o.db) : NULL,
					   sw.name, see, sizeof(see)));
		}
	}
	rc = rc < 0 ? -1 : rc == 1 || c->got_signal ?
		128 + (c->got_signal ? c->got_signal : SIGINT) : 0;
	for (int i = 0; i < c->o.ncmd; i++)
		workload_release(&c->w[i]);
	for (int i = 0; i < c->o.nmetric; i++)
		wlm_regex_free(&c->re[i]);
	free(c);
	return rc;
}
