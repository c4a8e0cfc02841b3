/* A stable LSD radix sort by a 64-bit key, for the analyzers' big sorts by
 * time (qsort spent a third of a report on them), and the key helpers. */
#ifndef IOTAPE_RSORT_H
#define IOTAPE_RSORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts n elements of size bytes at base by the 64-bit key key_of gives for
 * each, ascending and stable: 8 bits a pass, passes over key bytes that are
 * alike in every key skipped; insertion sort under 64 elements. Aborts (via
 * xmalloc) when memory runs out. */
void radix_sort(void *base, size_t n, size_t size,
		uint64_t (*key_of)(const void *));

/* A signed time (ns) as an unsigned key of the same order. */
static inline uint64_t rsort_tkey(int64_t t)
{
	return (uint64_t)t ^ (1ull << 63);
}

#endif
