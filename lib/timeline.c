/* The time that had activity: event times, in any order, kept as a few
 * pieces of the timeline split where nothing happened for long (a clock
 * step either way, or an idle gap). */
#include "timeline.h"

#include <string.h>

void timeline_add(struct timeline *s, uint64_t t)
{
	const uint64_t g = s->gap_ns ? s->gap_ns : TIMELINE_GAP_NS;
	unsigned i = s->ivhit, j;

	if (i < s->niv && t + g >= s->iv[i].lo && t <= s->iv[i].hi + g)
		goto extend;
	for (i = 0; i < s->niv && s->iv[i].hi + g < t; i++)
		;
	if (i == s->niv || t + g < s->iv[i].lo) {
		if (s->niv == TIMELINE_PIECES) {     /* merge the closest two */
			unsigned k = 0;
			for (j = 1; j + 1 < s->niv; j++)
				if (s->iv[j + 1].lo - s->iv[j].hi <
				    s->iv[k + 1].lo - s->iv[k].hi)
					k = j;
			s->iv[k].hi = s->iv[k + 1].hi;
			memmove(&s->iv[k + 1], &s->iv[k + 2],
				(s->niv - k - 2) * sizeof(s->iv[0]));
			s->niv--;
			if (i > k)
				i--;
		}
		memmove(&s->iv[i + 1], &s->iv[i], (s->niv - i) * sizeof(s->iv[0]));
		s->iv[i].lo = s->iv[i].hi = t;
		s->niv++;
	}
extend:
	if (t < s->iv[i].lo)
		s->iv[i].lo = t;
	if (t > s->iv[i].hi)
		s->iv[i].hi = t;
	while (i + 1 < s->niv && s->iv[i].hi + g >= s->iv[i + 1].lo) {
		if (s->iv[i + 1].hi > s->iv[i].hi)
			s->iv[i].hi = s->iv[i + 1].hi;
		memmove(&s->iv[i + 1], &s->iv[i + 2],
			(s->niv - i - 2) * sizeof(s->iv[0]));
		s->niv--;
	}
	while (i > 0 && s->iv[i - 1].hi + g >= s->iv[i].lo) {
		s->iv[i - 1].hi = s->iv[i].hi > s->iv[i - 1].hi ? s->iv[i].hi
							      : s->iv[i - 1].hi;
		if (s->iv[i].lo < s->iv[i - 1].lo)
			s->iv[i - 1].lo = s->iv[i].lo;
		memmove(&s->iv[i], &s->iv[i + 1], (s->niv - i - 1) * sizeof(s->iv[0]));
		s->niv--;
		i--;
	}
	s->ivhit = i;
}

uint64_t timeline_total(const struct timeline *s)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < s->niv; i++)
		sum += s->iv[i].hi - s->iv[i].lo;
	return sum;
}
