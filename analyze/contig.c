/* Contiguous requests in a sliding window: a ring of the last requests and
 * two hash tables over it (linear probing, deletion by backward shift:
 * Knuth, TAOCP vol. 3, 6.4 Algorithm R). */
#include "analyze/contig.h"

#include <stdlib.h>

#include "lib/util.h"

struct contig_ring {
	uint64_t start, end;
	int open;                  /* it went into the open table unmatched */
};

struct contig_slot {
	uint64_t key;
	uint32_t count;            /* 0: a free slot */
};

static size_t slot_of(const struct contig *c, uint64_t key)
{
	/* Fibonacci hashing (Knuth 6.4): the top bits of key times 2^64/phi,
	 * which every bit of the key reaches (the device's too) */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> c->shift);
}

static struct contig_slot *find(const struct contig *c, struct contig_slot *t,
				uint64_t key)
{
	for (size_t i = slot_of(c, key);; i = (i + 1) & c->mask) {
		if (!t[i].count)
			return NULL;
		if (t[i].key == key)
			return &t[i];
	}
}

static struct contig_slot *put(const struct contig *c, struct contig_slot *t,
			       uint64_t key)
{
	size_t i = slot_of(c, key);

	while (t[i].count && t[i].key != key)
		i = (i + 1) & c->mask;
	if (!t[i].count)
		t[i].key = key;
	return &t[i];
}

/* Empties slot s of t, moving back the slots after it that probed past it. */
static void del(const struct contig *c, struct contig_slot *t,
		struct contig_slot *s)
{
	size_t i = (size_t)(s - t), j = i;

	t[i].count = 0;
	for (;;) {
		size_t home;

		j = (j + 1) & c->mask;
		if (!t[j].count)
			return;
		home = slot_of(c, t[j].key);
		/* t[j] stays when its home lies cyclically in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		t[i] = t[j];
		t[j].count = 0;
		i = j;
	}
}

void contig_init(struct contig *c, size_t n_hint)
{
	size_t cap = 16;
	int bits = 5;              /* log2(2 * cap) */

	while (cap < n_hint && cap < CONTIG_WINDOW) {
		cap *= 2;
		bits++;
	}
	*c = (struct contig){ .cap = cap, .mask = 2 * cap - 1,
			      .shift = 64 - bits };
	c->ring = xmalloc(cap * sizeof(*c->ring));
	c->ends = xcalloc(2 * cap, sizeof(*c->ends));
	c->open = xcalloc(2 * cap, sizeof(*c->open));
}

/* Takes the oldest request of the window out of both tables. */
static void evict(struct contig *c, const struct contig_ring *o)
{
	struct contig_slot *s = find(c, c->ends, o->end);

	if (s && !--s->count)
		del(c, c->ends, s);
	if (!o->open)
		return;
	/* Still there unless a request that ends at its start matched it;
	 * that one is newer, so still in the window, and any request of the
	 * same start since found its end and was never open. */
	s = find(c, c->open, o->start);
	if (s && !--s->count)
		del(c, c->open, s);
}

void contig_add(struct contig *c, uint64_t start, uint64_t end)
{
	struct contig_ring *r = &c->ring[c->n % c->cap];
	struct contig_slot *s;
	int hit;

	if (c->n >= c->cap)
		evict(c, r);
	hit = find(c, c->ends, start) != NULL;
	/* requests before it that start where it ends: they continue it */
	s = find(c, c->open, end);
	if (s) {
		c->hit += s->count;
		del(c, c->open, s);
	}
	*r = (struct contig_ring){ start, end, !hit };
	if (hit) {
		c->hit++;
	} else {
		s = put(c, c->open, start);
		s->count++;
	}
	s = put(c, c->ends, end);
	s->count++;
	c->n++;
}

void contig_free(struct contig *c)
{
	free(c->ring);
	free(c->ends);
	free(c->open);
	*c = (struct contig){ 0 };
}
