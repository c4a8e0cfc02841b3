/* Unit tests of a workload's output passed through and kept
 * (capture/wloutput.c): a real child writes to both pipes; what reaches
 * the destinations is byte for byte what it wrote, in order, and the same
 * is kept; more than a pipe holds; a background child holding the pipes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/wloutput.h"

/* Runs sh -c script with o's pipes, copied into two temp files; returns
 * the files' contents through out and err (malloc'd). */
static void run(struct wl_output *o, const char *script, int wait_ms,
		char **out, size_t *olen, char **err, size_t *elen)
{
	char path[2][64];
	FILE *fp[2];
	pid_t pid;
	int status;

	assert_int_equal(wl_output_open(o), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "/tmp/iotape-wlo.XXXXXX");
		o->to[i] = mkstemp(path[i]);
		assert_true(o->to[i] >= 0);
	}
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		wl_output_child(o);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(wl_output_parent(o), 0);
	waitpid(pid, &status, 0);
	wl_output_finish(o, wait_ms);
	for (int i = 0; i < 2; i++) {
		char **b = i ? err : out;
		size_t *l = i ? elen : olen;
		fp[i] = fdopen(o->to[i], "r");
		rewind(fp[i]);
		*b = malloc(1 << 22);
		*l = fread(*b, 1, (1 << 22) - 1, fp[i]);
		(*b)[*l] = '\0';
		fclose(fp[i]);
		unlink(path[i]);
	}
}

static void test_pass_and_keep(void **state)
{
	struct wl_output o;
	char *out, *err;
	size_t olen, elen;

	run(&o, "printf 'one\\n'; printf 'e1\\n' >&2; printf 'two\\0three'; "
	    "printf 'e2 \\r\\n' >&2", 2000, &out, &olen, &err, &elen);
	assert_int_equal(olen, 13);
	assert_memory_equal(out, "one\ntwo\0three", 13);
	assert_string_equal(err, "e1\ne2 \r\n");
	/* kept as passed */
	assert_int_equal(o.len[0], 13);
	assert_memory_equal(o.buf[0], "one\ntwo\0three", 13);
	assert_string_equal(o.buf[1], "e1\ne2 \r\n");
	assert_int_equal(o.truncated, 0);
	free(out);
	free(err);
	wl_output_release(&o);
}

static void test_large(void **state)
{
	struct wl_output o;
	char *out, *err;
	size_t olen, elen;

	/* 1 MiB: far more than a pipe holds, so the copying must keep up */
	run(&o, "head -c 1048576 /dev/zero | tr '\\0' x; echo done >&2", 5000,
	    &out, &olen, &err, &elen);
	assert_int_equal(olen, 1048576);
	assert_int_equal(o.len[0], 1048576);
	assert_true(out[0] == 'x' && out[olen - 1] == 'x');
	assert_string_equal(o.buf[1], "done\n");
	free(out);
	free(err);
	wl_output_release(&o);
}

static void test_background_holder(void **state)
{
	struct wl_output o;
	char *out, *err;
	size_t olen, elen;

	/* a child left running with the pipes open: finish gives up after
	 * its wait and keeps what came */
	run(&o, "echo first; sleep 3 & exit 0", 200, &out, &olen, &err, &elen);
	assert_string_equal(out, "first\n");
	assert_string_equal(o.buf[0], "first\n");
	free(out);
	free(err);
	wl_output_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass_and_keep),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_background_holder),
	};
	return cmocka_run_group_tests_name("wloutput", tests, NULL, NULL);
}
