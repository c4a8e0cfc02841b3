/* The workloads of a capture: each started in its own process group (and
 * the memory cgroup, with --mem-limit) when its time or its --start-when
 * condition comes, reaped with its resource usage, ended with the capture. */
#ifndef IOTAPE_WORKLOAD_H
#define IOTAPE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "capture/capture.h"
#include "capture/lab.h"
#include "capture/samplebuf.h"
#include "capture/wlmetric.h"
#include "capture/wloutput.h"

/* One workload and the state of its run. */
struct workload {
	const struct capture_cmd *cmd;
	char *line;                 /* the command as one line, for the store */
	pid_t pid;
	int started, done;
	int status;                 /* exit status, or 128 + signal */
	int64_t start_ns, end_ns;   /* CLOCK_MONOTONIC */
	struct rusage ru;
	struct wl_output *out;      /* NULL: the command writes to iotape's
				     * stdout and stderr; else to these pipes
				     * (passed through and kept) */
};

/* Sets w up for cmd (w->line from its shell string or argv) in a fresh,
 * not started state. Never fails (aborts when out of memory). */
void workload_init(struct workload *w, const struct capture_cmd *cmd);

/* Forgets the state of a previous run, keeping cmd and line. */
void workload_reset(struct workload *w);

/* Frees w->line. */
void workload_release(struct workload *w);

/* Whether w should start now: since_start_ns after the capture started, at
 * least its --start-after delay and its --start-when condition true on the
 * samples so far. */
int workload_due(const struct workload *w, const struct samples *smp,
		 int64_t since_start_ns);

/* Starts w in its own process group, in the memory cgroup when cg_procs
 * (its cgroup.procs file) is set, its output into w->out's pipes when set
 * (wl_output_parent() starts their copying): the child adds itself before exec and
 * ends with 126 when it cannot, 127 when the command cannot run (each said
 * on stderr). Returns 0, or -1 after printing why fork failed. */
int workload_start(struct workload *w, const char *cg_procs);

/* The workloads' reaper: a small process that outlives the capture for
 * one purpose. Each workload runs in a process group of its own, so a
 * capture killed with SIGKILL (no handler runs) left them running, writing
 * to the device after the run had ended. workload_reaper_start() forks it
 * (all other descriptors closed, SIGINT, SIGTERM, SIGHUP ignored) and
 * returns the pipe's write end (-1 when it cannot: the capture goes on
 * without); workload_reaper_add() tells it a workload's process group;
 * workload_reaper_end() tells it the capture ended as it should and waits
 * for it. When the pipe closes without that word (the capture died), it
 * sends SIGKILL to every group it was told of that still exists. */
int workload_reaper_start(void);
/* The reaper's pid, 0 when none runs. */
pid_t workload_reaper_pid(void);
void workload_reaper_add(int fd, pid_t pgid);
void workload_reaper_end(int fd);

/* Collects every ended child of the n workloads w, without waiting: marks
 * it done with its end time, status and resource usage. */
void workloads_reap(struct workload *w, int n);

/* Sends sig to the process group of each running workload of the n in w. */
void workloads_kill(struct workload *w, int n, int sig);

/* Whether any of the n workloads in w was started and has not ended. */
int workloads_alive(const struct workload *w, int n);

/* Gives each of the n workloads w that may print metrics (kind[i], enum
 * wlm_kind, not 0; every one when all) pipes for its output (w[i].out),
 * passed through and kept; says on stderr when it cannot (that command's
 * output then goes straight to iotape's, with no metrics). */
void workloads_outputs(struct workload *w, int n, const int *kind, int all);

/* Finishes and frees the n workloads' output pipes and copies. */
void workloads_outputs_release(struct workload *w, int n);

/* The metrics of the n workloads w (after wl_output_finish()) into set:
 * each command's fio JSON (from fio_out[i], its --output=FILE, when set,
 * else its stdout) and dd's last line (stderr), named "cmdN_NAME" when n > 1;
 * then each of the nre regexes re, from the first command whose stdout (or
 * else stderr) has a matching line, under its own name. What could not be
 * read (fio's JSON, a regex with no match or no number, output cut at
 * WLO_KEEP_MAX) is said on stderr unless quiet. */
void workloads_metrics(struct workload *w, int n, const int *kind,
		       char fio_out[][256], const struct wlm_regex *re, int nre,
		       int quiet, struct wlm_set *set);

/* A --before or --after command's run. */
struct hook_run {
	int ran;                    /* it was started */
	int status;                 /* exit status, or 128 + signal */
	int64_t start_ns, end_ns;   /* CLOCK_MONOTONIC */
	struct rusage ru;
};

/* Runs cmd with /bin/sh -c (its output iotape's, every signal as for a
 * workload) and waits for it, filling *h. Returns 0, or -1 after printing
 * why fork failed. */
int workload_hook(const char *cmd, struct hook_run *h);

/* Whether every workload of the n in w of a step before step has ended
 * (--then: a step starts once the steps before it are done). */
int workloads_steps_done(const struct workload *w, int n, int step);

/* Makes the memory cgroup iotape-PID under sys/fs/cgroup (v2: memory.max)
 * or sys/fs/cgroup/memory (v1: memory.limit_in_bytes) with limit bytes,
 * recorded in lab so it is removed on restore, and writes its cgroup.procs
 * path into procs (len bytes). Returns 0, or -1 with a message in err. */
int workload_cgroup(const char *sys, uint64_t limit, struct lab *lab,
		    char *procs, size_t len, char *err, size_t errlen);

#endif
