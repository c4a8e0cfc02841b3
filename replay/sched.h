/* The replay scheduler: issues a plan's I/Os on an engine at their
 * scheduled times (absolute CLOCK_MONOTONIC targets from one start time,
 * never cumulative sleeps; the last spin_ns busy-waited), as fast as
 * possible, or scaled; at most depth in flight; each stream in its own
 * order; an I/O marked RIO_DEP only when its stream has nothing in flight.
 * The clock is a parameter so tests run it on simulated time. */
#ifndef IOTAPE_REPLAY_SCHED_H
#define IOTAPE_REPLAY_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "replay/engine.h"
#include "replay/plan.h"

struct sched_clock {
	int64_t (*now)(void *ctx);                  /* ns */
	void (*sleep_until)(void *ctx, int64_t t);  /* coarse wait, no I/O pending */
	void (*spin_until)(void *ctx, int64_t t);   /* busy wait; NULL: the
						     * scheduler spins on now() */
	void *ctx;
};

/* CLOCK_MONOTONIC and clock_nanosleep(TIMER_ABSTIME); its spin_until is
 * NULL: the scheduler spins on now() itself, reaping completions. */
extern const struct sched_clock sched_clock_mono;

struct sched_params {
	double scale;        /* 0: as fast as possible; X > 0: X times as fast
			      * as the original (1: original timing) */
	unsigned depth;      /* most I/Os in flight (>= 1) */
	int64_t spin_ns;     /* busy-wait this long before a scheduled time */
	int64_t lead_ns;     /* the schedule starts this long after the call */
	/* Called about every 10 ms, and no wait (a sleep, or the engine's
	 * wait for completions) lasts longer than SCHED_WAKE_NS before it is
	 * called again, so a long gap or a stuck device never keeps a signal
	 * waiting; non-zero stops issuing (what is in flight is waited for,
	 * in the same slices). NULL: never. */
	int (*interrupted)(void *ctx);
	void *ctx;
	/* For a reader in another thread (replay_writer.c), both optional:
	 * done[i] is set to 1 (release order) once res[i] is final;
	 * issue_log[0 .. *issue_n) lists the I/Os in the order their
	 * issue_ns was set, *issue_n stored with release order after each
	 * entry. Each holds plan->n entries. */
	uint8_t *done;
	uint32_t *issue_log;
	size_t *issue_n;
	/* res is all zero already (fresh spill memory, spill.h): not cleared,
	 * so that its pages are touched only as the I/Os are */
	int res_zeroed;
	/* Optional: the memory of plan->io and of res (spill.h), whose pages
	 * far behind the last I/O issued leave the resident set as the
	 * replay goes on (a reader behind, replay_writer.c, reads them back
	 * from the file) */
	struct spill *plan_mem, *res_mem;
	/* Optional: the highest plan index issued so far, stored (relaxed)
	 * after each issue, for a thread that prefaults the pages the
	 * scheduler writes next (replay.c) */
	size_t *progress;
};

#define SCHED_WAKE_NS 20000000   /* 20 ms */

struct sched_stats {
	int64_t t0;          /* the schedule's start (time 0 of the plan) */
	int64_t first_issue, last_complete;
	size_t issued;       /* handed to the engine (some may have failed) */
	size_t failed;       /* completed with a negative result */
	size_t dep_waits;    /* I/Os made late by waiting for their stream */
	unsigned max_inflight;
	int interrupted;
};

/* The time the schedule wants an I/O at t_ns after the plan's start:
 * t0 + t_ns / scale, or t0 when scale is 0 (as fast as possible). */
int64_t sched_time(int64_t t0, int64_t t_ns, double scale);

/* Issues plan->io[0 .. plan->n) on e (initialised for p->depth) and fills
 * res[i] for each (sched_ns 0 for I/Os never issued, after an interrupt)
 * and *out. Returns 0, or a negative errno when the engine failed (what
 * was issued is complete in res). */
int sched_run(const struct plan *plan, const struct sched_params *p,
	      struct replay_engine *e, const struct sched_clock *clk,
	      struct rio_result *res, struct sched_stats *out);

#endif
