/* Unit tests of import/import_input.c: compression told from magic bytes
 * (each format's documented magic, and near misses), the committed capture
 * compressed here with libarchive's writers read back byte for byte from the
 * spool file, a pipe spooled, a plain file read in place, and a truncated
 * stream refused with the offset reached. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
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

#include "import/import_input.h"

static char tmpdir[] = "/tmp/iotape-unit-input.XXXXXX";

static void fixture_path(char *out, size_t len)
{
	const char *root = getenv("REPO_ROOT");
	snprintf(out, len, "%s/tests/fixtures/loop-fio-small.bin", root ? root : ".");
}

/* Reads all of path into a malloc'd buffer; *len its size. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	assert_non_null(fp);
	do {
		if (n == cap)
			buf = realloc(buf, cap = cap ? 2 * cap : 65536);
		got = fread(buf + n, 1, cap - n, fp);
		n += got;
	} while (got);
	fclose(fp);
	*len = n;
	return buf;
}

/* Writes data compressed with libarchive's filter code into path. */
static void compress_to(const char *path, int filter, const uint8_t *data,
			size_t len)
{
	struct archive *a = archive_write_new();
	struct archive_entry *ent = archive_entry_new();

	assert_int_equal(archive_write_add_filter(a, filter), ARCHIVE_OK);
	assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	/* the raw format writes one regular entry's data, nothing else */
	archive_entry_set_filetype(ent, AE_IFREG);
	archive_entry_set_pathname(ent, "data");
	assert_int_equal(archive_write_header(a, ent), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, data, len), (la_ssize_t)len);
	archive_entry_free(ent);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

static void test_sniff(void **state)
{
	static const uint8_t gz[] = { 0x1f, 0x8b, 0x08, 0x00 };
	static const uint8_t gz_bad_method[] = { 0x1f, 0x8b, 0x07, 0x00 };
	static const uint8_t xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00, 0x00 };
	static const uint8_t zst[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x24 };
	static const uint8_t bz[] = { 'B', 'Z', 'h', '9', 0x31, 0x41, 0x59, 0x26,
				      0x53, 0x59 };
	static const uint8_t bz_empty[] = { 'B', 'Z', 'h', '9', 0x17, 0x72, 0x45,
					    0x38, 0x50, 0x90 };
	static const uint8_t bz0[] = { 'B', 'Z', 'h', '0', 0x31, 0x41, 0x59, 0x26,
				       0x53, 0x59 };
	static const uint8_t blktrace[] = { 0x65, 0x61, 0x74, 0x07 };

	(void)state;
	assert_string_equal(import_compression_sniff(gz, sizeof(gz)), "gzip");
	assert_null(import_compression_sniff(gz_bad_method, sizeof(gz_bad_method)));
	assert_null(import_compression_sniff(gz, 2));
	assert_string_equal(import_compression_sniff(xz, sizeof(xz)), "xz");
	assert_null(import_compression_sniff(xz, 5));
	assert_string_equal(import_compression_sniff(zst, sizeof(zst)), "zstd");
	assert_string_equal(import_compression_sniff(bz, sizeof(bz)), "bzip2");
	assert_string_equal(import_compression_sniff(bz_empty, sizeof(bz_empty)),
			    "bzip2");
	assert_null(import_compression_sniff(bz0, sizeof(bz0)));
	assert_null(import_compression_sniff((const uint8_t *)"BZh91AY&SY", 4));
	assert_null(import_compression_sniff(blktrace, sizeof(blktrace)));
	assert_null(import_compression_sniff(NULL, 0));
}

static void test_plain_in_place(void **state)
{
	struct import_input in;
	char fx[4096], err[512] = "";

	(void)state;
	fixture_path(fx, sizeof(fx));
	assert_int_equal(import_input_open(fx, &in, err, sizeof(err)), 0);
	assert_string_equal(in.path, fx);
	assert_string_equal(in.label, fx);
	assert_int_equal(in.spooled, 0);
	assert_null(in.compression);
	assert_string_equal(in.source, "");
	import_input_close(&in);
	/* no such file: left to the readers (a per-CPU set's base name) */
	assert_int_equal(import_input_open("/nonexistent/sda", &in, err,
					   sizeof(err)), 0);
	assert_string_equal(in.path, "/nonexistent/sda");
	import_input_close(&in);
}

static void test_compressed(void **state)
{
	static const struct { int filter; const char *name, *ext; } f[] = {
		{ ARCHIVE_FILTER_GZIP, "gzip", ".gz" },
		{ ARCHIVE_FILTER_XZ, "xz", ".xz" },
		{ ARCHIVE_FILTER_ZSTD, "zstd", ".zst" },
		{ ARCHIVE_FILTER_BZIP2, "bzip2", ".bz2" },
	};
	char fx[4096], path[256], want[300], err[512];
	size_t len, glen;
	uint8_t *data = (fixture_path(fx, sizeof(fx)), slurp(fx, &len));

	(void)state;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct import_input in;
		uint8_t *got;

		snprintf(path, sizeof(path), "%s/t.bin%s", tmpdir, f[i].ext);
		compress_to(path, f[i].filter, data, len);
		err[0] = '\0';
		assert_int_equal(import_input_open(path, &in, err, sizeof(err)), 0);
		assert_int_equal(in.spooled, 1);
		assert_non_null(in.compression);
		assert_string_equal(in.compression, f[i].name);
		assert_int_equal(in.spooled_bytes, len);
		snprintf(want, sizeof(want), "%s (%s)", path, f[i].name);
		assert_string_equal(in.source, want);
		snprintf(want, sizeof(want), "%s/t.bin", tmpdir);
		assert_string_equal(in.name_base, want);
		snprintf(want, sizeof(want), "%s (%s-decompressed)", path, f[i].name);
		assert_string_equal(in.label, want);
		got = slurp(in.path, &glen);
		assert_int_equal(glen, len);
		assert_memory_equal(got, data, len);
		free(got);
		import_input_close(&in);
	}
	free(data);
}

static void test_truncated(void **state)
{
	char fx[4096], path[256], cut[256], err[512] = "";
	struct import_input in;
	size_t len, zlen, big;
	uint8_t *data = (fixture_path(fx, sizeof(fx)), slurp(fx, &len));
	uint8_t *rep, *z;
	FILE *fp;

	(void)state;
	/* 1 MB, so that the cut lands past the first decompressed block */
	big = 6 * len;
	rep = malloc(big);
	for (int k = 0; k < 6; k++)
		memcpy(rep + (size_t)k * len, data, len);
	snprintf(path, sizeof(path), "%s/big.gz", tmpdir);
	compress_to(path, ARCHIVE_FILTER_GZIP, rep, big);
	z = slurp(path, &zlen);
	snprintf(cut, sizeof(cut), "%s/cut.gz", tmpdir);
	fp = fopen(cut, "wb");
	assert_int_equal(fwrite(z, 1, zlen * 2 / 3, fp), zlen * 2 / 3);
	fclose(fp);
	assert_true(import_input_open(cut, &in, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "cut.gz: offset "));
	assert_non_null(strstr(err, " of the decompressed gzip stream (after "));
	/* the offset is where good data ends, to 64 KiB */
	{
		unsigned long long off = strtoull(strstr(err, "offset ") + 7, NULL, 10);
		assert_true(off > 0 && off <= big * 2 / 3 + 65536 && off % 65536 == 0);
	}
	import_input_close(&in);
	free(z);
	free(rep);
	free(data);
}

static void test_pipe(void **state)
{
	char fx[4096], path[64], err[512] = "";
	struct import_input in;
	size_t len, glen;
	uint8_t *data = (fixture_path(fx, sizeof(fx)), slurp(fx, &len)), *got;
	int p[2], status;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		for (size_t o = 0; o < len; ) {
			ssize_t n = write(p[1], data + o, len - o);
			if (n <= 0)
				_exit(1);
			o += (size_t)n;
		}
		_exit(0);
	}
	close(p[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	assert_int_equal(import_input_open(path, &in, err, sizeof(err)), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	close(p[0]);
	assert_int_equal(in.spooled, 1);
	assert_null(in.compression);
	assert_string_equal(in.name_base, "pipe");
	assert_non_null(strstr(in.source, " (pipe)"));
	got = slurp(in.path, &glen);
	assert_int_equal(glen, len);
	assert_memory_equal(got, data, len);
	free(got);
	import_input_close(&in);
	free(data);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_plain_in_place),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_pipe),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
