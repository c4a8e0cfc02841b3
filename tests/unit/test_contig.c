/* Unit tests of contig.c: within its window, the count of contiguous
 * requests must be the order-free one (each request whose start is another
 * one's end, found by sorting every start and end), on pieces of files
 * read in order, backwards and shuffled, with re-reads and several
 * devices; beyond the window, only pieces close in the order are found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/contig.h"
#include "tests/unit/xorshift.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	return xorshift64(&rng);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The order-free count: requests whose start is in the set of ends. */
static size_t exact(const uint64_t *st, const uint64_t *en, size_t n)
{
	uint64_t *e = malloc(n * sizeof(*e));
	size_t hit = 0;

	memcpy(e, en, n * sizeof(*e));
	qsort(e, n, sizeof(*e), cmp_u64);
	for (size_t i = 0; i < n; i++)
		hit += bsearch(&st[i], e, n, sizeof(*e), cmp_u64) != NULL;
	free(e);
	return hit;
}

/* n pieces of files on 3 devices: runs of 1 to 40 pieces of 8 to 256
 * sectors end to end, scattered, a few read twice; shuffled locally
 * (kind 1: swaps within 50 places, 2: every run backwards). */
static void make(uint64_t *st, uint64_t *en, size_t n, int kind)
{
	size_t i = 0;

	while (i < n) {
		uint64_t dev = (next_rand() % 3) << 48;
		uint64_t s = next_rand() % (1ull << 40);
		size_t run = 1 + next_rand() % 40, first = i;
		for (; run-- && i < n; i++) {
			uint64_t len = 8 + next_rand() % 249;
			if (next_rand() % 20 == 0 && i > first)
				s = st[i - 1] - dev;          /* a re-read */
			st[i] = dev | s;
			en[i] = dev | (s + len);
			s += len;
		}
		if (kind == 2)
			for (size_t a = first, b = i - 1; a < b; a++, b--) {
				uint64_t t = st[a], u = en[a];
				st[a] = st[b], en[a] = en[b];
				st[b] = t, en[b] = u;
			}
	}
	if (kind == 1)
		for (size_t a = 0; a + 50 < n; a++) {
			size_t b = a + next_rand() % 50;
			uint64_t t = st[a], u = en[a];
			st[a] = st[b], en[a] = en[b];
			st[b] = t, en[b] = u;
		}
}

static void test_within_window(void **state)
{
	size_t sizes[] = { 1, 2, 17, 1000, CONTIG_WINDOW / 2 + 3, CONTIG_WINDOW };

	(void)state;
	for (int kind = 0; kind < 3; kind++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
			size_t n = sizes[k];
			uint64_t *st = malloc(n * sizeof(*st));
			uint64_t *en = malloc(n * sizeof(*en));
			struct contig c;
			make(st, en, n, kind);
			contig_init(&c, n);
			for (size_t i = 0; i < n; i++)
				contig_add(&c, st[i], en[i]);
			assert_int_equal(c.n, n);
			assert_int_equal(c.hit, exact(st, en, n));
			contig_free(&c);
			free(st);
			free(en);
		}
}

/* Past the window: a run of pieces read in order over many windows finds
 * every piece but the first, and a piece's neighbour 3 windows away is not
 * found (the state is bounded). A hint smaller than the run is no limit. */
static void test_beyond_window(void **state)
{
	size_t n = 3 * (size_t)CONTIG_WINDOW + 5;
	struct contig c;

	(void)state;
	contig_init(&c, 10);
	for (size_t i = 0; i < n; i++)
		contig_add(&c, 8 * i, 8 * i + 8);
	assert_int_equal(c.hit, n - 1);
	contig_free(&c);

	contig_init(&c, n);
	contig_add(&c, 1000, 1008);           /* continued only far later */
	for (size_t i = 0; i < 3 * (size_t)CONTIG_WINDOW; i++)
		contig_add(&c, (1ull << 40) + 16 * i, (1ull << 40) + 16 * i + 8);
	contig_add(&c, 992, 1000);
	assert_int_equal(c.hit, 0);
	contig_add(&c, 1008, 1016);           /* continues a piece 3 windows
					       * back: not found */
	assert_int_equal(c.hit, 0);
	contig_add(&c, 984, 992);             /* continued by 992: found */
	assert_int_equal(c.hit, 1);
	contig_free(&c);
}

/* The window slides: with a window of w (a small hint), a request counts
 * when a request at most w - 1 places before or after it in the order
 * ends at its start, counted one by one over streams many windows long
 * (runs read in order, backwards, shuffled, re-reads; and few keys, so
 * that ends and starts repeat within a window). */
static void test_sliding(void **state)
{
	size_t hints[] = { 16, 100 }, n = 20000;
	uint64_t *st = malloc(n * sizeof(*st)), *en = malloc(n * sizeof(*en));

	(void)state;
	for (int kind = 0; kind < 4; kind++)
		for (size_t h = 0; h < sizeof(hints) / sizeof(*hints); h++) {
			struct contig c;
			size_t want = 0, w;
			if (kind < 3) {
				make(st, en, n, kind);
			} else {
				/* 40 sectors, pieces of 1 to 3: many repeats */
				for (size_t i = 0; i < n; i++) {
					st[i] = next_rand() % 40;
					en[i] = st[i] + 1 + next_rand() % 3;
				}
			}
			contig_init(&c, hints[h]);
			w = c.cap;
			assert_true(w < n / 10);
			for (size_t i = 0; i < n; i++)
				contig_add(&c, st[i], en[i]);
			for (size_t i = 0; i < n; i++) {
				size_t lo = i >= w - 1 ? i - (w - 1) : 0;
				size_t hi = i + (w - 1) < n ? i + (w - 1) : n - 1;
				for (size_t j = lo; j <= hi; j++)
					if (j != i && en[j] == st[i]) {
						want++;
						break;
					}
			}
			assert_int_equal(c.n, n);
			assert_int_equal(c.hit, want);
			contig_free(&c);
		}
	free(st);
	free(en);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_within_window),
		cmocka_unit_test(test_beyond_window),
		cmocka_unit_test(test_sliding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
