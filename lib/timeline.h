/* The time that had activity: event times, in any order, kept as a few
 * pieces of the timeline split where nothing happened for long (a clock
 * step either way, or an idle gap), so rates are over the time that had
 * I/O and a stepped clock never makes a span negative. */
#ifndef IOTAPE_TIMELINE_H
#define IOTAPE_TIMELINE_H

#include <stdint.h>

#define TIMELINE_GAP_NS (600ull * 1000000000)  /* 10 min: a gap splits */
#define TIMELINE_PIECES 32

struct timeline {
	uint64_t gap_ns;            /* 0: TIMELINE_GAP_NS */
	struct { uint64_t lo, hi; } iv[TIMELINE_PIECES];  /* sorted, disjoint */
	unsigned niv, ivhit;
};

/* Adds time t (ns): into the piece it falls in or within gap_ns of
 * (joining pieces it bridges), else a new piece; past TIMELINE_PIECES
 * pieces the two closest are joined. Zero the struct to start. */
void timeline_add(struct timeline *s, uint64_t t);

/* The pieces' lengths added up, ns (0 for one time or none). */
uint64_t timeline_total(const struct timeline *s);

#endif
