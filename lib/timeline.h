/* The time that had activity: event times in trace order, kept as a few
 * pieces of the timeline, split at each clock step (back by over a second,
 * ahead by over ten minutes, or ahead onto time already covered: the clock
 * coming back after a step back) and where nothing happened for long, so
 * rates are over the time that had I/O, a stepped clock never makes a span
 * negative, and a single record stamped far from its neighbours (a clock
 * glitch) adds nothing. */
#ifndef IOTAPE_TIMELINE_H
#define IOTAPE_TIMELINE_H

#include <stdint.h>

#define TIMELINE_GAP_NS (600ull * 1000000000)  /* 10 min: a gap splits */
#define TIMELINE_BACK_NS 1000000000ull         /* 1 s back: a step */
#define TIMELINE_PIECES 32

struct timeline {
	uint64_t gap_ns;            /* 0: TIMELINE_GAP_NS */
	struct { uint64_t lo, hi; } iv[TIMELINE_PIECES];  /* sorted, disjoint */
	unsigned niv;
	int have_last;
	uint64_t last;              /* the clock: the latest time stepped to */
};

/* Moves the clock to t (ns), the next time in the trace's order. A move
 * from the previous time that is back by at most TIMELINE_BACK_NS (records
 * a little out of order) or ahead by at most gap_ns covers the time between
 * them (the piece the clock was in grows over it, joining the pieces it
 * reaches). Anything else is a clock step: back by over TIMELINE_BACK_NS,
 * ahead by over gap_ns, or ahead by over TIMELINE_BACK_NS onto (within
 * TIMELINE_BACK_NS of) another piece, the clock coming back to where it was
 * before a step back. A step covers nothing: t joins the piece it falls in
 * (within TIMELINE_BACK_NS), else starts one; past TIMELINE_PIECES pieces
 * the two closest are joined. Zero the struct to start. Returns 1 when the
 * move was a step, else 0. */
int timeline_step(struct timeline *s, uint64_t t);

/* Something in progress from the clock's time to end (an I/O from its
 * start, which timeline_step() moved the clock to, to its completion):
 * the clock's piece grows to end, without moving the clock. */
void timeline_cover(struct timeline *s, uint64_t end);

/* The pieces' lengths added up, ns (0 for one time or none). */
uint64_t timeline_total(const struct timeline *s);

#endif
