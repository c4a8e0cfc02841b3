/* Unit tests of the workload metric readers (capture/wlmetric.c) on real
 * output: fio and dd run here on a scratch file (skipped when fio is not
 * installed), so what is parsed is what these tools print on this machine;
 * plus dd's other line forms, command classification and --metric regexes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/wlmetric.h"

static char scratch[256];

/* Runs cmd through the shell and returns its output (malloc'd), or NULL
 * when it fails. */
static char *run(const char *cmd, size_t *len)
{
	FILE *fp = popen(cmd, "r");
	size_t cap = 1 << 16, n;
	char *buf;

	if (!fp)
		return NULL;
	buf = malloc(cap);
	*len = 0;
	while ((n = fread(buf + *len, 1, cap - *len - 1, fp)) > 0) {
		*len += n;
		if (*len + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	buf[*len] = '\0';
	if (pclose(fp) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const struct wlm *get(const struct wlm_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->m[i].name, name))
			return &s->m[i];
	return NULL;
}

static double val(const struct wlm_set *s, const char *name)
{
	const struct wlm *m = get(s, name);
	if (!m)
		fail_msg("no metric %s", name);
	return m->value;
}

static int have_fio(void)
{
	return system("command -v fio >/dev/null 2>&1") == 0;
}

/* fio on a 4 MiB scratch file, 4 KiB random reads and writes. */
static char *fio(const char *extra, size_t *len)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "fio --name=t --filename=%s --size=4M "
		 "--bs=4k --rw=randrw --ioengine=psync %s 2>/dev/null", scratch,
		 extra);
	return run(cmd, len);
}

static void check_fio(const struct wlm_set *s, double total)
{
	double rb = val(s, "read_io_bytes"), wb = val(s, "write_io_bytes");

	/* fio does --size bytes in all, each I/O one 4 KiB block */
	assert_true(rb + wb == total);
	assert_true(val(s, "read_total_ios") * 4096 == rb);
	assert_true(val(s, "write_total_ios") * 4096 == wb);
	assert_true(val(s, "read_iops") > 0 && val(s, "write_iops") > 0);
	assert_true(val(s, "read_bw_bytes") > 0);
	assert_string_equal(get(s, "read_bw_bytes")->unit, "bytes/s");
	assert_string_equal(get(s, "read_iops")->source, "fio");
	assert_true(val(s, "read_clat_ns_mean") > 0);
	assert_true(val(s, "read_lat_ns_mean") >= val(s, "read_clat_ns_mean"));
	assert_null(get(s, "trim_iops"));
}

static void test_fio_json(void **state)
{
	struct wlm_set s = { 0 };
	char err[256];
	size_t len;
	char *out;

	if (!have_fio())
		skip();
	out = fio("--output-format=json", &len);
	assert_non_null(out);
	assert_true(wlm_fio_json(out, len, &s, err, sizeof(err)) > 10);
	check_fio(&s, 4 << 20);
	/* fio's default clat percentiles, named without trailing zeros */
	assert_true(val(&s, "read_clat_ns_p50") <= val(&s, "read_clat_ns_p99"));
	assert_true(val(&s, "read_clat_ns_p99") <= val(&s, "read_clat_ns_p99.9"));
	assert_string_equal(get(&s, "write_clat_ns_p99.99")->unit, "ns");
	wlm_free(&s);
	free(out);
}

static void test_fio_json_plus_and_normal(void **state)
{
	struct wlm_set s = { 0 };
	char err[256];
	size_t len;
	char *out;

	if (!have_fio())
		skip();
	/* json+ adds latency bins; normal,json prints text before the JSON */
	out = fio("--output-format=json+", &len);
	assert_non_null(out);
	assert_true(strstr(out, "\"bins\"") != NULL);
	assert_true(wlm_fio_json(out, len, &s, err, sizeof(err)) > 0);
	check_fio(&s, 4 << 20);
	wlm_free(&s);
	free(out);
	out = fio("--output-format=normal,json", &len);
	assert_non_null(out);
	assert_true(out[0] != '{');
	assert_true(wlm_fio_json(out, len, &s, err, sizeof(err)) > 0);
	check_fio(&s, 4 << 20);
	wlm_free(&s);
	free(out);
}

static void test_fio_two_jobs(void **state)
{
	struct wlm_set s = { 0 };
	char err[256];
	size_t len;
	char *out;

	if (!have_fio())
		skip();
	/* two jobs without group_reporting: totals summed, no percentiles */
	out = fio("--numjobs=2 --output-format=json", &len);
	assert_non_null(out);
	assert_true(wlm_fio_json(out, len, &s, err, sizeof(err)) > 0);
	check_fio(&s, 2 * (4 << 20));
	assert_null(get(&s, "read_clat_ns_p99"));
	wlm_free(&s);
	free(out);
}

static void test_fio_bad(void **state)
{
	static const char cut[] = "fio-3.33\n{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [";
	static const char nojobs[] = "{\"fio version\": \"fio-3.33\"}\n";
	struct wlm_set s = { 0 };
	char err[256];

	assert_int_equal(wlm_fio_json("no json here\n", 13, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "no JSON object in fio's output");
	assert_int_equal(wlm_fio_json(cut, sizeof(cut) - 1, &s, err, sizeof(err)), -1);
	assert_true(strstr(err, "fio's JSON at offset") != NULL);
	assert_int_equal(wlm_fio_json(nojobs, sizeof(nojobs) - 1, &s, err,
				      sizeof(err)), -1);
	assert_true(strstr(err, "has no \"jobs\"") != NULL);
	assert_int_equal((int)s.n, 0);
}

static void test_dd_real(void **state)
{
	struct wlm_set s = { 0 };
	char cmd[512];
	size_t len;
	char *out;
	double rate;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C dd if=/dev/zero of=%s bs=64k "
		 "count=16 2>&1", scratch);
	out = run(cmd, &len);
	assert_non_null(out);
	assert_int_equal(wlm_dd(out, len, &s), 1);
	assert_true(val(&s, "dd_bytes") == 1048576);
	assert_true(val(&s, "dd_s") > 0);
	/* dd's rate is rounded to about 2 digits: within 10% of bytes / s */
	rate = val(&s, "dd_bytes_per_s");
	assert_true(fabs(rate - 1048576 / val(&s, "dd_s")) <= 0.1 * rate);
	assert_string_equal(get(&s, "dd_s")->unit, "s");
	wlm_free(&s);
	free(out);
}

static void test_dd_forms(void **state)
{
	/* coreutils' forms: one byte; no parenthesis (older dd); SI and IEC
	 * rates; the last of several statistics lines (status=progress) */
	static const char one[] = "1+0 records in\n1+0 records out\n"
		"1 byte copied, 5e-05 s, 20.0 kB/s\n";
	static const char old[] = "512 bytes (512 B) copied, 0.000123 s, 4.2 MB/s\n";
	static const char iec[] = "3145728 bytes (3.1 MB, 3.0 MiB) copied, 2 s, "
		"1.5 MiB/s\n";
	static const char progress[] = "1048576 bytes (1.0 MB, 1.0 MiB) copied, "
		"1 s, 1.0 MB/s\r2097152 bytes (2.1 MB, 2.0 MiB) copied, 2 s, 1.0 MB/s\n"
		"2+0 records in\n2+0 records out\n3000000 bytes (3.0 MB, 2.9 MiB) "
		"copied, 2.5 s, 1.2 MB/s\n";
	struct wlm_set s = { 0 };

	assert_int_equal(wlm_dd(one, sizeof(one) - 1, &s), 1);
	assert_true(val(&s, "dd_bytes") == 1 && val(&s, "dd_bytes_per_s") == 20000);
	assert_int_equal(wlm_dd(old, sizeof(old) - 1, &s), 1);
	assert_true(val(&s, "dd_bytes") == 512 && val(&s, "dd_s") == 0.000123);
	assert_true(val(&s, "dd_bytes_per_s") == 4.2e6);
	assert_int_equal(wlm_dd(iec, sizeof(iec) - 1, &s), 1);
	assert_true(val(&s, "dd_bytes_per_s") == 1.5 * 1048576);
	assert_int_equal(wlm_dd(progress, sizeof(progress) - 1, &s), 1);
	assert_true(val(&s, "dd_bytes") == 3000000 && val(&s, "dd_s") == 2.5);
	wlm_free(&s);
	assert_int_equal(wlm_dd("dd: error writing 'x': No space left\n", 36, &s), 0);
	assert_int_equal((int)s.n, 0);
}

static void test_classify(void **state)
{
	char out[256];

	assert_int_equal(wlm_classify("fio --output-format=json job.fio", out,
				      sizeof(out)), WLM_FIO_JSON);
	assert_string_equal(out, "");
	assert_int_equal(wlm_classify("/usr/bin/fio --output-format=normal,json+ "
				      "--output=/tmp/r.json j", out, sizeof(out)),
			 WLM_FIO_JSON);
	assert_string_equal(out, "/tmp/r.json");
	assert_int_equal(wlm_classify("fio job.fio", out, sizeof(out)), 0);
	assert_int_equal(wlm_classify("fio --output-format=terse j", out,
				      sizeof(out)), 0);
	assert_int_equal(wlm_classify("sync; /bin/dd if=/dev/zero of=x", out,
				      sizeof(out)), WLM_DD);
	assert_int_equal(wlm_classify("ddrescue a b", out, sizeof(out)), 0);
	assert_int_equal(wlm_classify("dd if=a of=b&&fio --output-format=json j",
				      out, sizeof(out)), WLM_DD | WLM_FIO_JSON);
}

static void test_regex(void **state)
{
	static const char text[] = "warmup tps: 12.5\ntps: 40.0\nsummary\n"
		"tps: 41.25 (median)\nlatency: n/a ms\n";
	struct wlm_regex r;
	char err[256];
	double v = 0;

	assert_int_equal(wlm_regex_compile(&r, "tps=^tps: ([0-9.]+)", err,
					   sizeof(err)), 0);
	assert_string_equal(r.name, "tps");
	/* the last matching line; ^ anchors at each line */
	assert_int_equal(wlm_regex_match(&r, text, sizeof(text) - 1, &v, err,
					 sizeof(err)), 1);
	assert_true(v == 41.25);
	assert_int_equal(wlm_regex_match(&r, "nothing\n", 8, &v, err, sizeof(err)), 0);
	wlm_regex_free(&r);
	assert_int_equal(wlm_regex_compile(&r, "lat=latency: ([^ ]+) ms", err,
					   sizeof(err)), 0);
	assert_int_equal(wlm_regex_match(&r, text, sizeof(text) - 1, &v, err,
					 sizeof(err)), -1);
	assert_string_equal(err, "--metric lat: 'n/a' is not a number");
	wlm_regex_free(&r);
	assert_int_equal(wlm_regex_compile(&r, "tps=tps: [0-9]+", err, sizeof(err)), -1);
	assert_true(strstr(err, "no capture group") != NULL);
	assert_int_equal(wlm_regex_compile(&r, "tps=(", err, sizeof(err)), -1);
	assert_true(strstr(err, "invalid --metric regex") != NULL);
	assert_int_equal(wlm_regex_compile(&r, "t ps=(x)", err, sizeof(err)), -1);
	assert_int_equal(wlm_regex_compile(&r, "=(x)", err, sizeof(err)), -1);
}

static int setup(void **state)
{
	int fd;

	snprintf(scratch, sizeof(scratch), "%s/iotape-wlm.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if ((fd = mkstemp(scratch)) < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(scratch);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fio_json),
		cmocka_unit_test(test_fio_json_plus_and_normal),
		cmocka_unit_test(test_fio_two_jobs),
		cmocka_unit_test(test_fio_bad),
		cmocka_unit_test(test_dd_real),
		cmocka_unit_test(test_dd_forms),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_regex),
	};
	return cmocka_run_group_tests_name("wlmetric", tests, setup, teardown);
}
