/* The analyzers' radix sort (see rsort.h). */
#include "rsort.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* Sorts n elements of size bytes at base by a 64-bit key that key_of gives
 * for each: an LSD radix sort, 8 bits a pass, passes over key bytes that
 * are all alike skipped. Stable. For the analyzers' big sorts by time,
 * which qsort spent a third of a report on. */
void radix_sort(void *base, size_t n, size_t size,
		       uint64_t (*key_of)(const void *))
{
	uint64_t *key, *key2, all_or = 0, all_and = ~0ull;
	char *tmp, *src = base, *dst;

	if (n < 64) {
		/* insertion sort: tiny arrays */
		char *t = xmalloc(size);
		for (size_t i = 1; i < n; i++) {
			size_t j = i;
			memcpy(t, src + i * size, size);
			while (j > 0 && key_of(src + (j - 1) * size) > key_of(t)) {
				memcpy(src + j * size, src + (j - 1) * size, size);
				j--;
			}
			memcpy(src + j * size, t, size);
		}
		free(t);
		return;
	}
	key = xmalloc(n * sizeof(*key));
	key2 = xmalloc(n * sizeof(*key2));
	tmp = xmalloc(n * size);
	for (size_t i = 0; i < n; i++) {
		key[i] = key_of(src + i * size);
		all_or |= key[i];
		all_and &= key[i];
	}
	dst = tmp;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		if (!(((all_or ^ all_and) >> shift) & 0xff))
			continue;   /* every key has the same byte here */
		for (size_t i = 0; i < n; i++)
			count[((key[i] >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		if (size == sizeof(void *)) {
			void **d = (void **)dst, **sv = (void **)src;
			for (size_t i = 0; i < n; i++) {
				size_t at = count[(key[i] >> shift) & 0xff]++;
				d[at] = sv[i];
				key2[at] = key[i];
			}
		} else
			for (size_t i = 0; i < n; i++) {
				size_t at = count[(key[i] >> shift) & 0xff]++;
				memcpy(dst + at * size, src + i * size, size);
				key2[at] = key[i];
			}
		{ char *t = src; src = dst; dst = t; }
		{ uint64_t *t = key; key = key2; key2 = t; }
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(key);
	free(key2);
	free(tmp);
}

