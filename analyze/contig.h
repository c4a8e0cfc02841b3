/* Contiguous requests counted as they stream past, in bounded memory: of
 * the requests added, how many start where another one ends (the file's
 * blocks laid end to end, read in pieces), each matched against the
 * window - 1 requests added before it and after it (the window:
 * CONTIG_WINDOW, or less for a short run, contig_init()). */
#ifndef IOTAPE_CONTIG_H
#define IOTAPE_CONTIG_H

#include <stddef.h>
#include <stdint.h>

/* How many requests on either side of one are looked at for the one it
 * continues: a reader's next piece follows within it however many other
 * readers take turns at the device (4 Ki requests), while the state stays
 * at 480 KiB, in the CPU's caches, however long the run (at 64 Ki the
 * tables' cache misses cost a report of 43M events seconds). */
#define CONTIG_WINDOW (1u << 12)

struct contig_key;

struct contig {
	size_t n;                  /* requests added */
	size_t hit;                /* of them, contiguous with another */
	size_t cap;                /* the window's slots (ring) in use */
	struct contig_ring *ring;  /* the last cap requests, oldest at
				    * n % cap once full */
	struct contig_key *ends;   /* end key -> the latest request ending
				    * there */
	struct contig_key *open;   /* start key -> the latest request
				    * starting there that nothing before it
				    * continued (the ring chains the rest) */
	size_t mask;               /* of both tables (4 * cap slots, made
				    * again from the ring every cap requests:
				    * never emptied one by one) */
	int shift;                 /* 64 - log2(4 * cap): a key's slot is the
				    * top bits of its hash */
};

/* An empty count for about n_hint requests: the window is the smallest
 * power of two of 16 or more that holds n_hint, CONTIG_WINDOW at most
 * (more requests than n_hint are still counted, in that window). */
void contig_init(struct contig *c, size_t n_hint);

/* Adds one request: start and end are keys of one space (the device in
 * the high bits, the first sector and the sector after the last in the
 * low ones), end != start. A request counts as contiguous (c->hit) when
 * another within the window ends at its start, whichever came first.
 * At most 2^32 - 2 requests in all (a run has at most AN_MAX_IO). Aborts
 * when memory runs out. */
void contig_add(struct contig *c, uint64_t start, uint64_t end);

void contig_free(struct contig *c);

#endif
