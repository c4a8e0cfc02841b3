/* Unit tests of the analyzers' in-place sorts: radix_sort_inplace() with a
 * tie and radix_sort_idx() must give exactly radix_sort()'s stable order,
 * on keys with many ties, wide and negative times, and sizes around the
 * insertion-sort cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/rsort.h"
#include "tests/unit/xorshift.h"

struct rec {
	int64_t t;
	uint32_t idx;     /* its place in the array before sorting */
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	return xorshift64(&rng);
}

static uint64_t key_rec(const void *p)
{
	return rsort_tkey(((const struct rec *)p)->t);
}

static int tie_rec(const void *a, const void *b)
{
	uint32_t x = ((const struct rec *)a)->idx, y = ((const struct rec *)b)->idx;
	return (x > y) - (x < y);
}

static uint64_t key_idx(uint32_t v, const void *ctx)
{
	return rsort_tkey(((const struct rec *)ctx)[v].t);
}

/* Fills n records: kind 0 few distinct times (ties), 1 wide times with
 * negative ones and INT64_MIN, 2 all equal, 3 already sorted, 4 reversed. */
static void fill(struct rec *r, size_t n, int kind)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = next_rand();
		switch (kind) {
		case 0: r[i].t = (int64_t)(x % 17) * 1000; break;
		case 1: r[i].t = x % 50 == 0 ? INT64_MIN : (int64_t)x; break;
		case 2: r[i].t = 42; break;
		case 3: r[i].t = (int64_t)i * 3; break;
		default: r[i].t = (int64_t)(n - i) * 3; break;
		}
		r[i].idx = (uint32_t)i;
	}
}

static void check(size_t n, int kind)
{
	struct rec *ref = malloc((n + 1) * sizeof(*ref));
	struct rec *in = malloc((n + 1) * sizeof(*in));
	uint32_t *ix = malloc((n + 1) * sizeof(*ix));

	fill(ref, n, kind);
	memcpy(in, ref, n * sizeof(*ref));
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	radix_sort_idx(ix, n, key_idx, ref);  /* keyed through the unsorted */
	radix_sort(ref, n, sizeof(*ref), key_rec);
	radix_sort_inplace(in, n, sizeof(*in), key_rec, tie_rec);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(in[i].idx, ref[i].idx);
		assert_true(in[i].t == ref[i].t);
		assert_int_equal(ix[i], ref[i].idx);
	}
	free(ref);
	free(in);
	free(ix);
}

static void test_stable_order(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 5, 31, 32, 33, 63, 64, 65,
					1000, 4099, 100000 };

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int kind = 0; kind < 5; kind++)
			check(sizes[s], kind);
}

static uint64_t key_ptr_mod(const void *p)
{
	return (uint64_t)(**(const int *const *)p % 7);
}

/* An array of pointers into one array, in its order, with rsort_ptr_order
 * as the tie: the pointers' order within each key. */
static void test_ptr_order(void **state)
{
	int v[500];
	const int *p[500], *q[500];

	(void)state;
	for (int i = 0; i < 500; i++) {
		v[i] = (int)(next_rand() % 1000);
		p[i] = q[i] = &v[i];
	}
	radix_sort(p, 500, sizeof(*p), key_ptr_mod);
	radix_sort_inplace(q, 500, sizeof(*q), key_ptr_mod, rsort_ptr_order);
	for (int i = 0; i < 500; i++)
		assert_ptr_equal(p[i], q[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable_order),
		cmocka_unit_test(test_ptr_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
