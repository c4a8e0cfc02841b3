/* The pieces of a bio an X split, put back together: each piece is a row
 * of its own (its D and C), and every piece carries the bio's Q (stitching
 * gives the split-off half the Q it came from). The bio's latency as its
 * issuer sees it is from that Q to its last piece's C. Rows come in one at
 * a time (report_add()'s stream, a pass over a run's rows); pieces of one
 * bio are told by (device, process, Q time) and kept open in a small table
 * until it is full, then the oldest is handed on; the end hands on the
 * rest. */
#ifndef IOTAPE_SPLITJOIN_H
#define IOTAPE_SPLITJOIN_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/rundata.h"

/* Bios open at once: pieces of one bio arrive within a few rows of each
 * other (stitching writes them as their X and D come). */
#define SPLITJOIN_OPEN 64

/* A whole split bio: its device, direction (AN_WRITE set: 1), Q and its
 * last piece's C (ns), bytes (all pieces), and the row of that last
 * piece. */
struct split_bio {
	uint32_t dev;
	int w;
	int64_t q, c;
	uint64_t bytes;
	size_t row;
};

struct splitjoin {
	struct {
		uint32_t dev, pid;
		struct split_bio b;
		uint64_t age;
		int used;
	} g[SPLITJOIN_OPEN];
	uint64_t tick;
	void (*done)(void *ctx, const struct split_bio *b);
	void *ctx;
};

/* Starts s: each whole bio goes to done(ctx, bio). */
void splitjoin_init(struct splitjoin *s,
		    void (*done)(void *ctx, const struct split_bio *b),
		    void *ctx);

/* Takes row (its index, for struct split_bio's row) x: a piece of a split
 * bio with data, its Q and C seen in order, joins its bio; any other row
 * is left alone. Returns 1 when x was taken. */
int splitjoin_add(struct splitjoin *s, const struct an_io *x, size_t row);

/* Hands on every bio still open. */
void splitjoin_end(struct splitjoin *s);

#endif
