/* A capture's per-task accounting: the kernel's own account of where each
 * task of the workloads spent its time (block I/O, swap-in, direct
 * reclaim, thrashing and compaction delays, run delay, CPU time, storage
 * bytes), with each task's parent and start, stored as samples of source
 * "task" (keys "PID.FIELD", docs/iotape.md "TASK SAMPLES").
 *
 * taskacct_start() turns kernel.task_delayacct on through the lab (put back
 * with the lab, also on a signal or by --reset), registers a taskstats
 * netlink socket for every task's exit (getdelays.c's way) and makes the
 * capture a child subreaper, so a workload's orphans stay in its family.
 * Exits arrive on taskacct_fd(); the live tasks of the workloads' families
 * (found through /proc/PID/task/TID/children from the workloads' pids) are
 * asked for at each sample and at the end. At the end the families are
 * closed over the parent links of every task seen (exited ones included)
 * and only their tasks are stored, with the kernel threads whose accounting
 * moved during the run. Without the taskstats family (no CONFIG_TASKSTATS)
 * the live tasks are read from /proc/PID/stat, schedstat and io instead and
 * tasks that end between samples are missed; taskacct_mode() says which. */
#ifndef IOTAPE_TASKACCT_H
#define IOTAPE_TASKACCT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/lab.h"
#include "capture/procstat.h"
#include "capture/taskstats.h"

#define TASKACCT_MAX_ROOTS 64

/* One account of one task at a time. */
struct ta_obs {
	struct task_acct a;
	int64_t t_ns;          /* when taken (CLOCK_MONOTONIC, the events' clock) */
	int exited;            /* taken from the task's exit event */
};

struct taskacct {
	const char *proc;      /* /proc root */
	int mode;              /* TASKACCT_NETLINK, _PROC or _NONE */
	char why[300];         /* why not taskstats, for the run's settings */
	char why_acct[200];    /* why kernel.task_delayacct is not on */
	int delayacct;         /* kernel.task_delayacct was set to 1 */
	int ev_fd, q_fd;       /* exit-event listener, query socket; -1 */
	uint16_t family;
	uint32_t seq;
	char cpumask[64];      /* the CPUs registered for exit events */
	pid_t self;            /* the capture (orphans' new parent) */
	pid_t skip;            /* a child of the capture that is no workload's
				* (its reaper), or 0 */
	int subreaper;         /* PR_SET_CHILD_SUBREAPER was set */
	pid_t roots[TASKACCT_MAX_ROOTS];
	int root_cmd[TASKACCT_MAX_ROOTS];  /* each root's command index */
	int nroots;
	struct ta_obs *obs;    /* every account received, exits of every task */
	size_t nobs, capobs;
	uint64_t lost;         /* exit events the socket dropped (ENOBUFS) */
	uint8_t *buf;          /* receive buffer */
	long clk_tck;
};

enum { TASKACCT_NONE, TASKACCT_NETLINK, TASKACCT_PROC };

/* Turns kernel.task_delayacct (proc/sys/kernel/task_delayacct) on through
 * lab, opens the taskstats sockets and registers for exit events on every
 * possible CPU (sys/devices/system/cpu/possible), makes the caller a child
 * subreaper, and takes the kernel threads' accounts at now_ns. What cannot
 * be had is said in ta->why and lowers ta->mode (never fatal). Returns 0,
 * or -1 with a message in err when the lab cannot record the sysctl (the
 * capture must not go on changing what it cannot put back). */
int taskacct_start(struct taskacct *ta, struct lab *lab, const char *proc,
		   const char *sys, int64_t now_ns, char *err, size_t errlen);

/* A workload's process (the root of a family): command cmd's (from 0). */
void taskacct_add_root(struct taskacct *ta, pid_t pid, int cmd);

/* Leaves pid, a child of the capture that is none of the workloads' (the
 * workloads' reaper, workload.h), out of the families. */
void taskacct_skip(struct taskacct *ta, pid_t pid);

/* The exit-event socket to poll for POLLIN, or -1. */
int taskacct_fd(const struct taskacct *ta);

/* Reads every exit event waiting, without blocking, stamped now. */
void taskacct_read(struct taskacct *ta);

/* Takes the accounts of the families' live tasks at now_ns. */
void taskacct_sample(struct taskacct *ta, int64_t now_ns);

/* At the run's end: reads the exits waiting, takes the live tasks' and the
 * kernel threads' accounts at now_ns, deregisters and closes the sockets
 * and stops being a subreaper. The observations stay for taskacct_rows().
 * Call it before the lab puts kernel.task_delayacct back. */
void taskacct_finish(struct taskacct *ta, int64_t now_ns);

/* Hands out the rows to store (source "task", key "PID.FIELD"; see
 * docs/iotape.md) of the workloads' families and of the kernel threads
 * whose accounts moved: at a task's first account its ppid, tgid and
 * start_ns (and cmd, the command index, for a command's own process); at
 * each account the cumulative cpu_ns, cpu_delay_ns,
 * blkio/swapin/freepages/thrashing/compact _delay_ns and _count (those the
 * kernel sent), read_bytes and write_bytes; at an exit its exit_ns. A
 * delay total longer than the task's life (the kernel's error) is left out
 * for that task and counted in *dropped (may be NULL). Returns 0 or fn's
 * first non-zero code. */
int taskacct_rows(const struct taskacct *ta, procstat_sample_fn fn, void *ctx,
		  uint64_t *dropped);

/* Hands each stored task's pid and name (its last account's comm) to fn.
 * Returns 0 or fn's first non-zero code. */
int taskacct_comms(const struct taskacct *ta,
		   int (*fn)(void *ctx, uint32_t pid, const char *comm), void *ctx);

/* "taskstats", "proc: WHY" or "none: WHY", with ", task_delayacct off:
 * WHY" when it could not be set: for the run's settings. */
void taskacct_describe(const struct taskacct *ta, char *out, size_t len);

/* Closes what is open (without deregistering) and frees everything. */
void taskacct_free(struct taskacct *ta);

/* Reads a task's account from /proc text: stat (proc(5): ppid, starttime,
 * delayacct_blkio_ticks, comm), schedstat ("run_ns delay_ns timeslices":
 * sum_exec_runtime and the scheduler's run_delay, as taskstats' cpu fields)
 * and io (read_bytes, write_bytes; may be NULL), into *t with have =
 * TA_HAVE_DELAY | TA_HAVE_BASIC (| TA_HAVE_IO); etime_us from starttime
 * against boot_ns (CLOCK_BOOTTIME now) at clk_tck ticks a second. blkio
 * delay is in clock ticks there (10 ms at 100 Hz). Returns 0, or -1 when
 * stat or schedstat cannot be read. */
int taskacct_parse_proc(const char *stat, const char *schedstat, const char *io,
			long clk_tck, int64_t boot_ns, struct task_acct *t);

#endif
