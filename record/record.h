/* `iotape record`, the flight recorder, as a function tests can call
 * without argv: the tracefs blk tracer drained into a bounded ring with
 * /proc samples (record/recring.h), triggers (record/rectrig.h: latency,
 * PSI, swap-out, dirty, writeback, stuck; manual), and each incident's
 * window saved as an ordinary run, with a hook (record/rechook.h) after. */
#ifndef IOTAPE_RECORD_H
#define IOTAPE_RECORD_H

#include <stdint.h>

#include "capture/machine.h"
#include "record/reclat.h"
#include "record/rectrig.h"

#define RECORD_MAX_DEVS 16

struct record_opts {
	const char *db;             /* NULL: $IOTAPE_DB or iotape.db */
	const char *devspecs[RECORD_MAX_DEVS];   /* as machine_add_device() */
	int ndevspec;
	double window_s;            /* age bound of the ring (default 120) */
	uint64_t keep_bytes;        /* byte bound of the ring (default 64M) */
	uint64_t mem_bytes;         /* of it in memory (0: all); the rest
				     * spills to out_dir */
	const char *out_dir;        /* the spill's folder, or NULL */
	int allow_traced;           /* saves or spill may be on a traced disk */
	double pre_s, post_s;       /* a save's window around its trigger
				     * (default 60 and 30) */
	double cooldown_s;          /* one automatic save per this (60) */
	double interval_s;          /* between /proc samples (1) */
	struct rectrig trig[RECTRIG_MAX];   /* record/rectrig.h */
	int ntrig;
	const char *hook;           /* --hook: run after each save, or NULL */
	unsigned buffer_kb;         /* tracefs per-CPU buffer (4096) */
	int quiet;
	const char *state_dir;      /* lock, state and pid file (/run/iotape) */
	struct machine_paths mp;
	const char *tracefs;        /* /sys/kernel/tracing */
};

/* Records until SIGINT or SIGTERM: takes the capture lock (waiting for a
 * capture that holds it), refuses when the tracer is in use, nices itself
 * (nice 10, best-effort I/O priority 7), writes its pid to
 * STATE_DIR/record.pid, refuses a database or out_dir on a traced disk
 * (recsafe.h) unless allow_traced, locks the ring in memory (a failed
 * mlock() is a warning), spills it to out_dir past mem_bytes (recring.h;
 * a failed spill is a warning, once, and the ring keeps its memory bound),
 * starts the blk tracer on the disks into the ring, samples /proc (and
 * /proc/diskstats of the traced disks) every interval into it, evaluates
 * the triggers every 100 ms (record/rectrig.h) and on SIGUSR1 takes a
 * manual trigger. A trigger at time T asks for
 * [T - pre, T + post]; once T + post (and a second for the tracer's
 * buffers) is past, the window is imported as a run named
 * incident-YYYY-MM-DDTHH:MM:SS (local time of T), with the trigger, its
 * threshold and value, the window and the ring's dropped counts in its
 * settings and stats. A trigger while a save waits extends it (windows
 * merge); an automatic trigger within cooldown of the last saved one is
 * counted and skipped. A failed save is said on stderr and recording goes
 * on. After each save the hook, if any, is started and not waited for
 * (its exit status is said on stderr once reaped). At the end the tracer and every setting go back. Progress on stderr
 * unless quiet. Returns 0 when stopped by a signal after a clean start, or
 * -1 after printing one error line. Needs root. */
int record_run(const struct record_opts *o);

/* `iotape record --save`: sends SIGUSR1 to the recorder whose pid is in
 * state_dir/record.pid (checking it is an iotape). Returns 0, or -1 after
 * printing why. */
int record_signal_save(const char *state_dir);

#endif
