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
	{
		/* in order already (often, for times): nothing to do */
		size_t i = 1;
		uint64_t prev = key_of(src);
		for (; i < n; i++) {
			uint64_t k = key_of(src + i * size);
			if (k < prev)
				break;
			prev = k;
		}
		if (i == n)
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


/* Swaps the size-byte elements a and b through t. */
static void swap_el(char *a, char *b, char *t, size_t size)
{
	memcpy(t, a, size);
	memcpy(a, b, size);
	memcpy(b, t, size);
}

/* Orders elements a and b by key, then by tie (NULL: equal keys are
 * equal): <0, 0, >0 as qsort's comparators. */
static int cmp_full(const char *a, const char *b,
		    uint64_t (*key_of)(const void *),
		    int (*tie)(const void *, const void *))
{
	uint64_t ka = key_of(a), kb = key_of(b);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return tie ? tie(a, b) : 0;
}

static void insertion_sort(char *base, size_t n, size_t size, char *t,
			   uint64_t (*key_of)(const void *),
			   int (*tie)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++) {
		size_t j = i;
		if (cmp_full(base + (i - 1) * size, base + i * size, key_of,
			     tie) <= 0)
			continue;
		memcpy(t, base + i * size, size);
		while (j > 0 && cmp_full(base + (j - 1) * size, t, key_of, tie) > 0) {
			memcpy(base + j * size, base + (j - 1) * size, size);
			j--;
		}
		memcpy(base + j * size, t, size);
	}
}

/* One level of the in-place sort: n elements at base whose keys agree
 * above bit shift + 8, bucketed by bits shift..shift+7 (McIlroy, Bostic
 * and McIlroy, "Engineering Radix Sort", Computing Systems 6(1), 1993:
 * the American flag sort's cycle of swaps), then each bucket below. */
static void flag_sort(char *base, size_t n, size_t size, int shift, char *t,
		      uint64_t (*key_of)(const void *),
		      int (*tie)(const void *, const void *))
{
	size_t count[256] = { 0 }, head[256], end[256], at = 0, from = 0;

	if (n < 32) {
		insertion_sort(base, n, size, t, key_of, tie);
		return;
	}
	if (shift < 0) {
		/* equal keys: the caller's order for them (often the order
		 * they are in: no copy, no n log n then) */
		size_t i = 1;
		if (!tie)
			return;
		while (i < n && tie(base + (i - 1) * size, base + i * size) <= 0)
			i++;
		if (i < n)
			qsort(base, n, size, tie);
		return;
	}
	for (size_t i = 0; i < n; i++)
		count[(key_of(base + i * size) >> shift) & 0xff]++;
	for (int b = 0; b < 256; b++) {
		head[b] = at;
		at += count[b];
		end[b] = at;
	}
	for (int b = 0; b < 256; b++)
		while (head[b] < end[b]) {
			char *e = base + head[b] * size;
			unsigned k = (key_of(e) >> shift) & 0xff;
			if (k == (unsigned)b)
				head[b]++;
			else
				swap_el(e, base + head[k]++ * size, t, size);
		}
	for (int b = 0; b < 256; b++) {
		if (count[b] > 1)
			flag_sort(base + from * size, count[b], size, shift - 8,
				  t, key_of, tie);
		from = end[b];
	}
}

void radix_sort_inplace(void *base, size_t n, size_t size,
			uint64_t (*key_of)(const void *),
			int (*tie)(const void *, const void *))
{
	uint64_t all_or = 0, all_and = ~0ull, diff;
	char *src = base, *t;
	int shift = 56;

	int sorted = 1;

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_of(src + i * size);
		if (sorted && i && cmp_full(src + (i - 1) * size, src + i * size,
					    key_of, tie) > 0)
			sorted = 0;
		all_or |= k;
		all_and &= k;
	}
	if (sorted)
		return;     /* in order already (often, for times) */
	diff = all_or ^ all_and;
	/* start at the highest byte that differs between keys */
	while (shift >= 0 && !((diff >> shift) & 0xff))
		shift -= 8;
	t = xmalloc(size);
	flag_sort(src, n, size, shift, t, key_of, tie);
	free(t);
}

int rsort_ptr_order(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* flag_sort() over 32-bit indices whose keys key_of gives with ctx; equal
 * keys by index. */
static void flag_sort_idx(uint32_t *v, size_t n, int shift,
			  uint64_t (*key_of)(uint32_t, const void *),
			  const void *ctx)
{
	size_t count[256] = { 0 }, head[256], end[256], at = 0, from = 0;

	if (n < 32) {
		for (size_t i = 1; i < n; i++) {
			uint32_t t = v[i];
			uint64_t kt = key_of(t, ctx);
			size_t j = i;
			while (j > 0) {
				uint64_t kj = key_of(v[j - 1], ctx);
				if (kj < kt || (kj == kt && v[j - 1] < t))
					break;
				v[j] = v[j - 1];
				j--;
			}
			v[j] = t;
		}
		return;
	}
	if (shift < 0) {
		size_t i = 1;
		while (i < n && v[i - 1] <= v[i])
			i++;
		if (i < n)
			qsort(v, n, sizeof(*v), cmp_u32);
		return;
	}
	for (size_t i = 0; i < n; i++)
		count[(key_of(v[i], ctx) >> shift) & 0xff]++;
	for (int b = 0; b < 256; b++) {
		head[b] = at;
		at += count[b];
		end[b] = at;
	}
	for (int b = 0; b < 256; b++)
		while (head[b] < end[b]) {
			uint32_t e = v[head[b]];
			unsigned k = (key_of(e, ctx) >> shift) & 0xff;
			if (k == (unsigned)b)
				head[b]++;
			else {
				v[head[b]] = v[head[k]];
				v[head[k]++] = e;
			}
		}
	for (int b = 0; b < 256; b++) {
		if (count[b] > 1)
			flag_sort_idx(v + from, count[b], shift - 8, key_of, ctx);
		from = end[b];
	}
}

void radix_sort_idx(uint32_t *v, size_t n,
		    uint64_t (*key_of)(uint32_t, const void *), const void *ctx)
{
	uint64_t all_or = 0, all_and = ~0ull, diff, prev = 0;
	int shift = 56, sorted = 1;

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_of(v[i], ctx);
		if (i && (k < prev || (k == prev && v[i] < v[i - 1])))
			sorted = 0;
		prev = k;
		all_or |= k;
		all_and &= k;
	}
	if (sorted)
		return;     /* in order already (often, for times) */
	diff = all_or ^ all_and;
	while (shift >= 0 && !((diff >> shift) & 0xff))
		shift -= 8;
	flag_sort_idx(v, n, shift, key_of, ctx);
}
