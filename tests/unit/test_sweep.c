/* Unit tests of the --set x --repeat sweep: the order of the combinations,
 * the run names and tags capture and replay store, single values left out
 * of the tag, and no runs for a key without values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "capture/sweep.h"

/* Every run of s as "NAME|TAG|PICKS" lines into out. */
static void collect(struct sweep *s, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	while (sweep_next(s)) {
		o += (size_t)snprintf(out + o, len - o, "%s|%s|", s->name, s->tag);
		for (int i = 0; i < s->nkey; i++)
			o += (size_t)snprintf(out + o, len - o, "%d", s->pick[i]);
		o += (size_t)snprintf(out + o, len - o, "\n");
	}
}

static void test_no_keys(void **state)
{
	struct sweep s;
	char out[512];

	sweep_init(&s, "cap", 1);
	collect(&s, out, sizeof(out));
	assert_string_equal(out, "cap||\n");
	sweep_init(&s, "cap", 3);
	collect(&s, out, sizeof(out));
	assert_string_equal(out, "cap.1||\ncap.2||\ncap.3||\n");
	assert_int_equal(sweep_next(&s), 0);
}

static void test_two_keys(void **state)
{
	char *a[] = { "1", "30" }, *b[] = { "bfq" }, *c[] = { "none", "kyber" };
	struct sweep s;
	char out[1024];

	sweep_init(&s, "sw", 0);
	assert_int_equal(sweep_add(&s, "vm.dirty_background_ratio", a, 2), 0);
	assert_int_equal(sweep_add(&s, "loop1:queue/scheduler", b, 1), 0);
	assert_int_equal(sweep_add(&s, "queue/scheduler", c, 2), 0);
	collect(&s, out, sizeof(out));
	assert_string_equal(out,
		"sw[vm.dirty_background_ratio=1,queue/scheduler=none]|"
		"vm.dirty_background_ratio=1,queue/scheduler=none|000\n"
		"sw[vm.dirty_background_ratio=30,queue/scheduler=none]|"
		"vm.dirty_background_ratio=30,queue/scheduler=none|100\n"
		"sw[vm.dirty_background_ratio=1,queue/scheduler=kyber]|"
		"vm.dirty_background_ratio=1,queue/scheduler=kyber|001\n"
		"sw[vm.dirty_background_ratio=30,queue/scheduler=kyber]|"
		"vm.dirty_background_ratio=30,queue/scheduler=kyber|101\n");
}

static void test_repeats(void **state)
{
	char *a[] = { "10", "20" }, *one[] = { "5" };
	struct sweep s;
	char out[512];

	sweep_init(&s, "r", 2);
	sweep_add(&s, "vm.swappiness", one, 1);
	sweep_add(&s, "vm.dirty_ratio", a, 2);
	collect(&s, out, sizeof(out));
	assert_string_equal(out,
		"r[vm.dirty_ratio=10].1|vm.dirty_ratio=10|00\n"
		"r[vm.dirty_ratio=10].2|vm.dirty_ratio=10|00\n"
		"r[vm.dirty_ratio=20].1|vm.dirty_ratio=20|01\n"
		"r[vm.dirty_ratio=20].2|vm.dirty_ratio=20|01\n");
	assert_int_equal(s.rep, 2);
	assert_int_equal(s.combo, 1);
}

static void test_empty_and_full(void **state)
{
	char *a[] = { "1" };
	struct sweep s;

	sweep_init(&s, "e", 2);
	sweep_add(&s, "k", a, 0);
	assert_int_equal(sweep_next(&s), 0);
	sweep_init(&s, "f", 1);
	for (int i = 0; i < SWEEP_MAX_KEYS; i++)
		assert_int_equal(sweep_add(&s, "k", a, 1), 0);
	assert_int_equal(sweep_add(&s, "k", a, 1), -1);
	assert_int_equal(sweep_next(&s), 1);
	assert_string_equal(s.name, "f");
	assert_int_equal(sweep_next(&s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_keys),
		cmocka_unit_test(test_two_keys),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_empty_and_full),
	};
	return cmocka_run_group_tests_name("sweep", tests, NULL, NULL);
}
