/* Contiguous requests in a sliding window: a ring of the last requests,
 * and two tables over it (linear probing, Knuth, TAOCP vol. 3, 6.4), of
 * the latest request ending at each key and of the latest one starting
 * there unmatched; the ring chains each unmatched request to the one
 * before of the same start. Neither table has deletions: a request's
 * entry tells its place in the order, which says whether it is still in
 * the window, and both tables are made again from the ring once a
 * window, so that what has left it does not fill them. */
#include "analyze/contig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

struct contig_ring {
	uint64_t start, end;
	uint32_t prev;             /* open: the request before it with its
				    * start and open then, + 1; 0: none */
	unsigned char open;        /* nothing before it continued it, and
				    * nothing after it has yet */
};

/* 12 bytes, unaligned: two tables of 4 * CONTIG_WINDOW of them stay in
 * the caches (and in the resident set) at 384 KiB */
struct __attribute__((packed)) contig_key {
	uint64_t key;
	uint32_t seq;              /* the request, + 1; 0: a free slot */
};

/* The slot of key in t (its own, or the free one where it would go).
 * Fibonacci hashing (Knuth 6.4): the top bits of key times 2^64/phi, which
 * every bit of the key reaches (the device's too). */
static struct contig_key *slot(const struct contig *c, struct contig_key *t,
			       uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> c->shift);

	while (t[i].seq && t[i].key != key)
		i = (i + 1) & c->mask;
	return &t[i];
}

static void put(const struct contig *c, struct contig_key *t, uint64_t key,
		size_t seq)
{
	struct contig_key *s = slot(c, t, key);

	s->key = key;
	s->seq = (uint32_t)(seq + 1);
}

/* Whether request seq (+ 1: 0 is none) is among the cap - 1 before the
 * next one, c->n: the window a request is matched in. */
static int in_window(const struct contig *c, uint32_t seq1)
{
	return seq1 && seq1 + c->cap > c->n + 1;
}

void contig_init(struct contig *c, size_t n_hint)
{
	size_t cap = 16;
	int bits = 6;              /* log2(4 * cap) */

	while (cap < n_hint && cap < CONTIG_WINDOW) {
		cap *= 2;
		bits++;
	}
	*c = (struct contig){ .cap = cap, .mask = 4 * cap - 1,
			      .shift = 64 - bits };
	c->ring = xmalloc(cap * sizeof(*c->ring));
	c->ends = xcalloc(4 * cap, sizeof(*c->ends));
	c->open = xcalloc(4 * cap, sizeof(*c->open));
}

/* Both tables made again from the ring, requests n - cap to n - 1: they
 * held those and the cap before, each a key at most, so half full. */
static void again(struct contig *c)
{
	memset(c->ends, 0, 4 * c->cap * sizeof(*c->ends));
	memset(c->open, 0, 4 * c->cap * sizeof(*c->open));
	for (size_t k = c->n - c->cap; k < c->n; k++) {
		const struct contig_ring *r = &c->ring[k % c->cap];
		put(c, c->ends, r->end, k);
		if (r->open)
			put(c, c->open, r->start, k);
	}
}

void contig_add(struct contig *c, uint64_t start, uint64_t end)
{
	struct contig_ring *r;
	struct contig_key *s;
	int hit;

	if (c->n >= c->cap && !(c->n % c->cap))
		again(c);
	/* a request before it in the window that ends at its start */
	hit = in_window(c, slot(c, c->ends, start)->seq);
	/* requests before it in the window that start where it ends and
	 * nothing continued: it continues each (the chain of that start,
	 * newest first, ends at the first that left the window or was
	 * matched, as all before it were) */
	for (uint32_t seq1 = slot(c, c->open, end)->seq; in_window(c, seq1);) {
		struct contig_ring *o = &c->ring[(seq1 - 1) % c->cap];
		if (!o->open)
			break;
		o->open = 0;
		c->hit++;
		seq1 = o->prev;
	}
	r = &c->ring[c->n % c->cap];
	*r = (struct contig_ring){ start, end, 0, !hit };
	if (hit) {
		c->hit++;
	} else {
		s = slot(c, c->open, start);
		r->prev = s->seq;
		s->key = start;
		s->seq = (uint32_t)(c->n + 1);
	}
	put(c, c->ends, end, c->n);
	c->n++;
}

void contig_free(struct contig *c)
{
	free(c->ring);
	free(c->ends);
	free(c->open);
	*c = (struct contig){ 0 };
}
