/* A stable LSD radix sort by a 64-bit key, for the analyzers' big sorts by
 * time (qsort spent a third of a report on them), and the key helpers. */
#ifndef IOTAPE_RSORT_H
#define IOTAPE_RSORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts n elements of size bytes at base by the 64-bit key key_of gives for
 * each, ascending and stable: 8 bits a pass, passes over key bytes that are
 * alike in every key skipped; insertion sort under 64 elements. Each of the
 * sorts here returns after one look when the elements are in order already
 * (times often are). Aborts (via xmalloc) when memory runs out. */
void radix_sort(void *base, size_t n, size_t size,
		uint64_t (*key_of)(const void *));

/* Sorts as radix_sort() does, in place: no memory beyond one element and
 * the stack (an American flag sort, most significant byte first; McIlroy,
 * Bostic and McIlroy 1993). Not stable: elements with equal keys end in
 * the order tie gives them (a qsort comparator; NULL: any order), so a
 * caller that needs radix_sort()'s order passes a tie that compares their
 * positions (an index or pointer the elements carry). For the arrays of
 * one element or more per request, where radix_sort()'s copies of the
 * array and its keys set a report's peak memory. */
void radix_sort_inplace(void *base, size_t n, size_t size,
			uint64_t (*key_of)(const void *),
			int (*tie)(const void *, const void *));

/* Sorts n 32-bit values v (indices, or indices with flags in their low
 * bits) in place by the key key_of gives for each with ctx, equal keys by
 * value: radix_sort()'s order for values listed in ascending order. 4
 * bytes an element, for the sorts of every request's events. */
void radix_sort_idx(uint32_t *v, size_t n,
		    uint64_t (*key_of)(uint32_t, const void *), const void *ctx);

/* A tie for radix_sort_inplace() over an array of pointers into one array
 * (filled in that array's order): the order of what they point to, as
 * radix_sort() would keep it. */
int rsort_ptr_order(const void *a, const void *b);

/* A signed time (ns) as an unsigned key of the same order. */
static inline uint64_t rsort_tkey(int64_t t)
{
	return (uint64_t)t ^ (1ull << 63);
}

#endif
