/* `iotape capture` as a function tests can call without argv: which disks
 * to trace, which workloads to run and when, under which settings, how
 * often to sample /proc; each run stored as a run of kind capture. */
#ifndef IOTAPE_CAPTURE_H
#define IOTAPE_CAPTURE_H

#include <stdint.h>

#include "capture/machine.h"

#define CAPTURE_MAX_CMDS 16
#define CAPTURE_MAX_DEVS 16
#define CAPTURE_MAX_SETS 32
#define CAPTURE_MAX_VALUES 32
#define CAPTURE_MAX_METRICS 32
#define CAPTURE_MAX_LABELS 32

/* The comparison of a --start-when condition. */
enum capture_op { CAPTURE_GT, CAPTURE_GE, CAPTURE_LT, CAPTURE_LE, CAPTURE_EQ };

/* One workload. */
struct capture_cmd {
	const char *shell;          /* --cmd: run with /bin/sh -c, or NULL */
	char *const *argv;          /* else the command after --, NULL-ended */
	double after_s;             /* --start-after: seconds after the start */
	int step;                   /* 0, 1, ...: --then starts the next step; a
				     * step's commands start once every command
				     * of the steps before has ended */
	int has_when;               /* --start-when KEY OP VALUE given: */
	char when_key[64];          /* swap_used, or a /proc/vmstat, meminfo,
				     * psi or stat key (see samples_value()) */
	enum capture_op when_op;
	double when_value;
};

/* --set KEY=V1[,V2...]: KEY is a sysctl ("vm.dirty_ratio") or a disk's
 * attribute ("loop0:queue/scheduler"), see machine_setting_path(). */
struct capture_set {
	char key[96];
	char *values[CAPTURE_MAX_VALUES];
	int nvalues;
};

struct capture_opts {
	const char *db;             /* NULL: $IOTAPE_DB or iotape.db */
	const char *run;            /* the run's name; NULL: "capture", made
				     * unique in the store */
	const char *raw;            /* keep the binary trace in this file;
				     * NULL: a scratch file, removed after */
	const char *devspecs[CAPTURE_MAX_DEVS];  /* as machine_add_device()
				     * takes them; none: the current folder's
				     * disk and every swap disk */
	int ndevspec;
	double interval_s;          /* between /proc samples; 0: 1 s */
	double duration_s;          /* stop after this; 0: when the workloads
				     * end (or at a signal without any) */
	struct capture_cmd cmds[CAPTURE_MAX_CMDS];
	int ncmd;
	struct capture_set sets[CAPTURE_MAX_SETS];
	int nset;
	const char *metrics[CAPTURE_MAX_METRICS]; /* --metric NAME=REGEX: read
				     * from each command's output (see
				     * capture/wlmetric.h) */
	int nmetric;
	const char *labels[CAPTURE_MAX_LABELS]; /* --label KEY=VALUE: stored
				     * as settings at start of every run */
	int nlabel;
	const char *before;         /* --before: a shell command run before each
				     * run (untraced, before the lab is taken,
				     * timed apart); NULL: none */
	const char *after;          /* --after: the same after each run's
				     * tracer stopped; NULL: none */
	int drop_caches;            /* sync and drop the page cache first */
	uint64_t mem_limit;         /* bytes: run the workloads in a memory
				     * cgroup this large; 0: none */
	int repeat;                 /* runs per combination of --set values;
				     * below 1 counts as 1 */
	unsigned buffer_kb;         /* tracefs ring buffer per CPU; 0: 16384 */
	int quiet;                  /* no progress or warnings on stderr */
	const char *state_dir;      /* lab state and lock; NULL: /run/iotape */
	struct machine_paths mp;    /* /proc and /sys; NULLs: the real ones */
	const char *tracefs;        /* NULL: /sys/kernel/tracing */
};

/* Captures one run per combination of o->sets' values and repeat (named
 * NAME, NAME[KEY=V,...], NAME.R; see capture/sweep.h), after checking that
 * no such run is in the store yet. Each run: takes the lab (a lock, so
 * captures never overlap; every change recorded in a state file first and
 * put back on success, error, SIGINT and SIGTERM), applies its settings,
 * snapshots the settings, starts the tracefs blk tracer on the disks and
 * samples /proc every interval on the events' clock while the workloads
 * run, then stops, puts the machine back and stores events, requests,
 * samples, commands, devices, processes and settings at start and end as
 * one run (--before and --after run around it, untraced: their times and
 * exit statuses go to the run's statistics, before.real_s ..., their lines
 * to its settings, capture.before and capture.after; a --before that fails
 * stops the capture), with the workload metrics read from the commands'
 * output: fio's
 * JSON, dd's last line, o->metrics (each command whose line names fio or
 * dd, or every command when o->metrics are given, writes into pipes that
 * pass its output through to iotape's stdout and stderr unchanged, and keep
 * it; see capture/wloutput.h, capture/wlmetric.h). Prints progress and warnings on stderr unless o->quiet. Returns
 * 0, 128 + the signal when one interrupted a run (what was captured is
 * stored, marked interrupted, and no further run starts), or -1 after
 * printing one error line. Needs root. */
int capture_run(const struct capture_opts *o);

#endif
