/* `iotape replay` as a function tests can call without argv: what to
 * replay, where, how, under which settings; each replay stored as a run of
 * kind replay whose parent is the source run. */
#ifndef IOTAPE_REPLAY_H
#define IOTAPE_REPLAY_H

#include <stdint.h>

#include "capture/machine.h"
#include "replay/plan.h"

#define REPLAY_MAX_TARGETS 16
#define REPLAY_MAX_SETS 32
#define REPLAY_MAX_VALUES 32

/* The default busy-wait before each scheduled time. Waking from a sleep
 * takes 30 us at the median and 90 us at p99 on a 2-vCPU VM (KVM, Linux
 * 6.18); spinning much longer starves the softirq and loop workers that
 * complete the I/O on the same CPU and makes things worse. */
#define REPLAY_SPIN_NS 200000

/* --map DEV=PATH: DEV is "major,minor", "major:minor" or the device's name
 * in the run's devices table. */
struct replay_map {
	const char *dev;
	const char *path;
};

/* --set KEY=V1[,V2...]: KEY is a queue attribute of every target's disk
 * ("queue/scheduler"), or as capture takes it ("loop0:queue/scheduler",
 * "vm.dirty_ratio"). */
struct replay_set {
	char key[96];
	char *values[REPLAY_MAX_VALUES];
	int nvalues;
};

struct replay_opts {
	const char *db;             /* NULL: $IOTAPE_DB or iotape.db */
	const char *run;            /* the source run, name or id */
	const char *name;           /* name of the replay run; NULL: SRC-replay */
	const char *target;         /* every device to this path, or NULL */
	struct replay_map maps[REPLAY_MAX_TARGETS];
	int nmap;
	enum replay_level level;
	double scale;               /* 0 afap, 1 original, X: X times as fast */
	unsigned depth;             /* 0: the most the source had in flight */
	int single_stream;          /* --streams single */
	const char *engine;         /* an engine's name (engine_find());
				     * NULL: io_uring */
	uint64_t offset;            /* sectors added to every position */
	int wrap, allow_write, trace, json, quiet;
	const char *sig_ok;         /* --overwrite-signature TYPE: with
				     * allow_write, write over this signature
				     * (target_open()) */
	struct replay_set sets[REPLAY_MAX_SETS];
	int nset;
	int repeat;                 /* runs per combination of --set values */
	const char *state_dir;      /* lab state and lock; NULL: /run/iotape */
	struct machine_paths mp;    /* /proc and /sys; NULLs: the real ones */
	const char *tracefs;        /* NULL: /sys/kernel/tracing */
	int64_t spin_ns;            /* busy-wait window; 0: REPLAY_SPIN_NS */
	/* Timed replays' scheduling thread (tuning, $IOTAPE_REPLAY_FIFO,
	 * _CPU and _MLOCK; docs/iotape.md; the bench measures each): */
	int no_fifo;                /* 1: stay SCHED_OTHER even when allowed */
	int cpu1;                   /* N > 0: pinned to CPU N - 1; 0: anywhere */
	int mlock;                  /* 1: mlockall(MCL_CURRENT | MCL_FUTURE |
				     * MCL_ONFAULT) for the schedule */
	int64_t max_gap_ns;         /* timed replays: gaps between I/Os longer
				     * than this (original time) are shortened
				     * to it; 0: every gap kept. `iotape
				     * replay` defaults to REPLAY_MAX_GAP_NS */
};

/* --max-gap's default: a replay never idles more than 10 s (original
 * time) waiting for the next I/O; the run says how much it left out. */
#define REPLAY_MAX_GAP_NS (10ll * 1000000000)

/* Replays o->run once per combination of --set values and repeat: checks
 * everything first (the run has I/Os at the level, every device has a
 * target, targets open with O_DIRECT, are large enough, are safe to write),
 * then for each: applies the settings (through the lab, so they are put
 * back on success, error, SIGINT and SIGTERM), issues the I/Os, stores the
 * run (replays rows, a requests row per I/O or the traced requests with
 * --trace, settings at start and end, fidelity in run_stats) and prints
 * the fidelity (text, or JSON with o->json). Returns 0, 130 when
 * interrupted (what was done is stored, marked interrupted), or -1 after
 * printing one error line. */
int replay_run(const struct replay_opts *o);

#endif
