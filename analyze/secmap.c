/* A bitmap of the sectors read so far, in leaves made when touched
 * (secmap.h). */
#include "analyze/secmap.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

uint32_t secmap_count_set(struct secmap *m, uint64_t s, uint32_t len)
{
	uint32_t seen = 0;

	while (len) {
		size_t li = (size_t)(s >> SM_SHIFT);
		uint32_t off = (uint32_t)(s & (SM_LEAF - 1));
		uint32_t run = SM_LEAF - off < len ? SM_LEAF - off : len;
		uint64_t *leaf;

		if (li >= m->nleaf) {
			size_t n = li + 1 > 2 * m->nleaf ? li + 1 : 2 * m->nleaf;
			m->leaf = xrealloc(m->leaf, n * sizeof(*m->leaf));
			memset(m->leaf + m->nleaf, 0,
			       (n - m->nleaf) * sizeof(*m->leaf));
			m->nleaf = n;
		}
		if (!(leaf = m->leaf[li]))
			leaf = m->leaf[li] = xcalloc(SM_LEAF / 64, sizeof(*leaf));
		s += run;
		len -= run;
		while (run) {
			uint32_t b = off & 63, k = 64 - b < run ? 64 - b : run;
			uint64_t mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << b;
			seen += (uint32_t)__builtin_popcountll(leaf[off >> 6] & mask);
			leaf[off >> 6] |= mask;
			off += k;
			run -= k;
		}
	}
	return seen;
}

void secmap_free(struct secmap *m)
{
	for (size_t i = 0; i < m->nleaf; i++)
		free(m->leaf[i]);
	free(m->leaf);
	memset(m, 0, sizeof(*m));
}
