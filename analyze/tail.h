/* The tail of a latency figure (read_q2c_p99_us and its kin): the requests
 * of one direction at or over the figure, and what their device was doing
 * while they waited, against the run's other requests of that direction.
 * A p99 that grew 43x is a few requests; what they shared (a cache flush in
 * flight, another process's writes) is what a reporter asks about, and the
 * workload's time the causes are costed in does not say it. */
#ifndef IOTAPE_TAIL_H
#define IOTAPE_TAIL_H

#include <stdint.h>

#include "analyze/rundata.h"

struct tail {
	int dir;                /* 0 reads, 1 writes */
	int d2c;                /* 1: D2C (dispatch to completion), 0: Q2C */
	int pct;                /* the percentile of the figure */
	int64_t thr_ns;         /* the tail: requests taking this or longer
				 * (the slowest (100 - pct)% of them, ties
				 * in; 0 when the run has none) */
	uint64_t n, n_rest;     /* requests in the tail, and the others */
	/* with a cache flush (an empty or pre-flush, a FUA write: RWBS F) of
	 * the device in flight while they waited (Q to C; D to C for D2C) */
	uint64_t flush_n, flush_rest_n;
	/* with another process's write dispatched on the device while they
	 * waited */
	uint64_t write_n, write_rest_n;
	double q2d_s, d2c_s;    /* the time before dispatch and at the device
				 * of the n_d tail requests with a D (Q2C) */
	uint64_t n_d;
	uint64_t flushes;       /* the device's flushes with a D and C */
	double flush_d2c_mean_us;
	uint32_t flush_pid;     /* the process with most of the flushes the
				 * tail met (0: none) */
};

/* Parses figure ("read_q2c_p99_us", "write_d2c_p99_us") into t's dir, d2c
 * and pct. Returns 1 for a latency figure of percentile 90 or more (a
 * tail), else 0. */
int tail_figure(const char *figure, struct tail *t);

/* Fills t (its dir, d2c and pct from tail_figure()) from rd's requests:
 * those the figure is built from (report's: bios with data of the
 * direction, start and C seen; a bio an X split once, by its last piece,
 * for Q2C, never for D2C) are in the tail, the
 * slowest (100 - pct)% of them by their exact latency (at least one, ties
 * with the last in), or the rest. Takes an array of the latencies and of
 * the flushes and writes (aborts when memory runs out). */
void tail_measure(const struct rundata *rd, struct tail *t);

#endif
