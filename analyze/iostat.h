/* iostat -x's per-interval device table computed from a run's stitched
 * requests instead of /proc/diskstats (sysstat iostat(1); the counters
 * are the kernel's Documentation/admin-guide/iostats.rst). No printing. */
#ifndef IOTAPE_IOSTAT_H
#define IOTAPE_IOSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/rundata.h"

/* Whether row x stands for one of its device's requests as the kernel's
 * counters count them (r/s w/s, await, aqu-sz): with dispatches traced
 * (heads: the device has AN_HEAD rows) a dispatch with data or an empty
 * flush, else a completed bio not merged into another, with data or a
 * flush; discards not. *start gets its start: its first of Q, G, I, D
 * (AN_NONE when none; the kernel's start_time_ns). */
static inline int iostat_request(const struct an_io *x, int heads,
				 int64_t *start)
{
	int req = heads ? (x->flags & AN_HEAD) &&
			  (x->dbytes > 0 || (x->flags & AN_FLUSH))
			: x->c != AN_NONE && !(x->flags & AN_MERGED) &&
			  (x->bytes > 0 || (x->flags & AN_FLUSH));

	*start = x->q != AN_NONE ? x->q : x->g != AN_NONE ? x->g
		 : x->i != AN_NONE ? x->i : x->d;
	return req && !(x->flags & AN_DISCARD);
}

/* One device over one interval, in iostat -x's columns and units:
 *   r/s w/s        requests completed (C) in the interval per second: one
 *                  per dispatch (D) with data; a trace without D counts
 *                  its completed bios; flushes and discards not counted
 *   rkB/s wkB/s    kB (1024 bytes) of those requests per second
 *   rrqm/s wrqm/s  bios merged (M or F) into a request in the interval
 *   r_await w_await  mean ms from the request's start (its first bio's Q,
 *                  else G, I, D) to its C, over requests completed in the
 *                  interval (the kernel's start_time_ns to completion);
 *                  NAN when none had a start
 *   aqu-sz         requests in flight (start to C), time-weighted over the
 *                  interval (the kernel adds each request's whole time at
 *                  its completion: the same mean over a run, smoother)
 *   rareq-sz wareq-sz  mean kB of those requests
 *   %util          % of the interval with some request between D and C
 * A request with no C in the trace (not completed when it ends, or its C
 * paired with a later request of the same sector, as btt pairs them) adds
 * no time to aqu-sz and %util. */
struct iostat_row {
	int64_t t0_ns, t1_ns;        /* the interval, on the events' clock */
	uint32_t dev;
	uint64_t r, w;               /* requests completed (w: empty
				      * flushes too, as the kernel counts) */
	uint64_t f;                  /* flushes completed (preflush or empty) */
	uint64_t rsec, wsec;         /* their 512-byte sectors */
	uint64_t rmerge, wmerge;     /* bios merged */
	double r_s, w_s, rkb_s, wkb_s, rrqm_s, wrqm_s, f_s;
	double r_await_ms, w_await_ms;   /* NAN with no start to time from */
	double aqu_sz;
	double rareq_sz, wareq_sz;   /* kB; NAN with no request */
	double util_pct;
};

struct iostat_opts {
	int64_t interval_ns;         /* > 0 */
	int64_t from_ns, to_ns;      /* the intervals cut [from, to), absolute
				      * ns; to INT64_MAX: to the last event */
};

/* Builds the rows of rd's requests (every device that appears, by dev, then
 * each interval in time order; intervals start at from_ns, the last one
 * ends at to_ns, else 1 ns after the last time seen, so it may be shorter:
 * its rates are over its own length). Returns 0 with *rows (malloc'd: free()) and *nrows
 * (0 and NULL when io has no times in the window), or -EINVAL for a bad
 * interval or more than 10 million rows. */
int iostat_build(const struct rundata *rd, const struct iostat_opts *o,
		 struct iostat_row **rows, size_t *nrows);

#endif
