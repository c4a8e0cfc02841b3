/* Unit tests of the out-of-core arrays (lib/spill.c): what is written stays
 * through a release and a growth, a release takes the pages out of the
 * resident set (RssFile in /proc/self/status), and without a place for the
 * file the array is anonymous memory that a release leaves alone; a small
 * array is in memory until it grows past 8 MiB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>

#include "lib/spill.h"

static int fcntl_is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

/* This process's resident file-backed memory, KiB. */
static long rss_file_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssFile: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void fill(uint32_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)(i * 2654435761u);
}

static int same(const uint32_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != (uint32_t)(i * 2654435761u))
			return 0;
	return 1;
}

static void test_release_keeps_data(void **state)
{
	const size_t n = (64u << 20) / 4;   /* 64 MiB */
	struct spill s;
	long before, full, after;

	(void)state;
	assert_int_equal(spill_init(&s, n * 4), 0);
	assert_true(s.fd >= 0);
	before = rss_file_kb();
	fill(s.p, n);
	full = rss_file_kb();
	assert_true(full - before > 60 * 1024);
	spill_release(&s, n * 4);
	after = rss_file_kb();
	assert_true(full - after > 60 * 1024);
	/* read back from the file: unchanged */
	assert_true(same(s.p, n));
	/* a range in the middle, then a growth that keeps the contents */
	spill_release_range(&s, 1000, (n / 2) * 4);
	assert_int_equal(spill_grow(&s, 2 * n * 4), 0);
	assert_true(same(s.p, n));
	assert_int_equal(((uint32_t *)s.p)[n + 5], 0);   /* the new part: zero */
	/* a second pass counts from the start again */
	spill_rewind(&s);
	assert_int_equal(s.released, 0);
	spill_free(&s);
	assert_null(s.p);
	spill_free(&s);   /* twice: nothing */
}

static void test_anonymous(void **state)
{
	const size_t n = (8u << 20) / 4;
	const char *tmpdir = getenv("TMPDIR");
	struct spill s, z = { 0 };

	(void)state;
	setenv("TMPDIR", "/nonexistent-iotape-test", 1);
	assert_int_equal(spill_init(&s, n * 4), 0);
	assert_true(s.fd < 0);
	fill(s.p, n);
	spill_release(&s, n * 4);         /* anonymous: would lose the data */
	spill_release_range(&s, 0, n * 4);
	assert_true(same(s.p, n));
	assert_int_equal(spill_grow(&s, 2 * n * 4), 0);
	assert_true(same(s.p, n));
	spill_free(&s);
	spill_free(&z);   /* a zeroed one: its fd 0 is not closed */
	assert_int_equal(fcntl_is_open(0), 1);
	if (tmpdir)
		setenv("TMPDIR", tmpdir, 1);
	else
		unsetenv("TMPDIR");
}

/* Under 8 MiB an array stays in memory; grown past it, it moves into a
 * file with what it held. */
static void test_small_then_file(void **state)
{
	const size_t n = (1u << 20) / 4;   /* 1 MiB */
	struct spill s;

	(void)state;
	assert_int_equal(spill_init(&s, n * 4), 0);
	assert_true(s.fd < 0);
	fill(s.p, n);
	spill_prefault(&s, 0, n * 4);      /* in memory too: nothing changes */
	assert_true(same(s.p, n));
	assert_int_equal(spill_grow(&s, 16 * n * 4), 0);
	assert_true(s.fd >= 0);
	assert_true(same(s.p, n));
	spill_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_keeps_data),
		cmocka_unit_test(test_anonymous),
		cmocka_unit_test(test_small_then_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
