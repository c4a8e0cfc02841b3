/* The time that had activity: the clock's moves through a trace, kept as a
 * few pieces of the timeline split at clock steps and long idle gaps. */
#include "timeline.h"

#include <string.h>

/* The piece t falls in, or within tol of; s->niv when none. */
static unsigned piece_at(const struct timeline *s, uint64_t t, uint64_t tol)
{
	for (unsigned i = 0; i < s->niv; i++)
		if (t + tol >= s->iv[i].lo && t <= s->iv[i].hi + tol)
			return i;
	return s->niv;
}

static void drop(struct timeline *s, unsigned i)
{
	memmove(&s->iv[i], &s->iv[i + 1], (s->niv - i - 1) * sizeof(s->iv[0]));
	s->niv--;
}

/* Grows piece i over [a, b] and joins the pieces it then overlaps. */
static void grow(struct timeline *s, unsigned i, uint64_t a, uint64_t b)
{
	if (a < s->iv[i].lo)
		s->iv[i].lo = a;
	if (b > s->iv[i].hi)
		s->iv[i].hi = b;
	while (i + 1 < s->niv && s->iv[i].hi >= s->iv[i + 1].lo) {
		if (s->iv[i + 1].hi > s->iv[i].hi)
			s->iv[i].hi = s->iv[i + 1].hi;
		drop(s, i + 1);
	}
	while (i > 0 && s->iv[i - 1].hi >= s->iv[i].lo) {
		if (s->iv[i].hi > s->iv[i - 1].hi)
			s->iv[i - 1].hi = s->iv[i].hi;
		if (s->iv[i].lo < s->iv[i - 1].lo)
			s->iv[i - 1].lo = s->iv[i].lo;
		drop(s, i);
		i--;
	}
}

/* A new piece [t, t]; when all are used, the two closest are joined first
 * (the gap between them counted, the least a bound on pieces can cost). */
static void insert(struct timeline *s, uint64_t t)
{
	unsigned i, k = 0;

	if (s->niv == TIMELINE_PIECES) {
		for (unsigned j = 1; j + 1 < s->niv; j++)
			if (s->iv[j + 1].lo - s->iv[j].hi < s->iv[k + 1].lo - s->iv[k].hi)
				k = j;
		s->iv[k].hi = s->iv[k + 1].hi;
		drop(s, k + 1);
	}
	for (i = 0; i < s->niv && s->iv[i].lo < t; i++)
		;
	memmove(&s->iv[i + 1], &s->iv[i], (s->niv - i) * sizeof(s->iv[0]));
	s->iv[i].lo = s->iv[i].hi = t;
	s->niv++;
	grow(s, i, t, t);
}

int timeline_step(struct timeline *s, uint64_t t)
{
	const uint64_t g = s->gap_ns ? s->gap_ns : TIMELINE_GAP_NS;
	const uint64_t back = TIMELINE_BACK_NS;
	unsigned cur, p;
	int step;

	if (!s->have_last || (cur = piece_at(s, s->last, 0)) == s->niv) {
		insert(s, t);
		s->have_last = 1;
		s->last = t;
		return 0;
	}
	step = (t < s->last && s->last - t > back) ||
	       (t > s->last && t - s->last > g);
	if (!step && t > s->last && t - s->last > back) {
		/* ahead onto time already seen: the clock came back */
		p = piece_at(s, t, back);
		step = p < s->niv && p != cur;
	}
	if (!step)
		grow(s, cur, t < s->last ? t : s->last, t > s->last ? t : s->last);
	else if ((p = piece_at(s, t, back)) < s->niv)
		grow(s, p, t, t);
	else
		insert(s, t);
	s->last = t;
	return step;
}

void timeline_cover(struct timeline *s, uint64_t end)
{
	unsigned cur;

	if (!s->have_last || end <= s->last ||
	    (cur = piece_at(s, s->last, 0)) == s->niv)
		return;
	grow(s, cur, end, end);
}

uint64_t timeline_total(const struct timeline *s)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < s->niv; i++)
		sum += s->iv[i].hi - s->iv[i].lo;
	return sum;
}
