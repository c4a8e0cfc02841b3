/* The table of input formats and the small text helpers their parsers
 * share. See formats.h; one row per format. */
#include "formats.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/capture_rows.h"
#include "trace/trace_input.h"
#include "import/vmstat_text.h"
#include "lib/util.h"

static int sniff_blktrace(const uint8_t *buf, size_t len)
{
	struct bt_stream bs;

	return bt_stream_detect(&bs, buf, len) != -BT_E_MAGIC ? 100 : 0;
}

static int sniff_blkparse(const uint8_t *buf, size_t len)
{
	return blkparse_text_sniff(buf, len) ? 90 : 0;
}

static int sniff_vmstat(const uint8_t *buf, size_t len)
{
	return vmstat_text_sniff(buf, len) ? 85 : 0;
}

static int sniff_capture_rows(const uint8_t *buf, size_t len)
{
	size_t n = strlen(CAPTURE_ROWS_MAGIC);

	return len > n && !memcmp(buf, CAPTURE_ROWS_MAGIC, n) && buf[n] == '\n'
	       ? 100 : 0;
}

const struct import_format import_formats[] = {
	{ "blktrace", "blktrace v7/v8: tracefs stream, blkparse -d, per-CPU set", "docs/FORMAT.md; blktrace_api.h",
	  FMT_NATIVE, sniff_blktrace, NULL },
	{ "blkparse-text", "blkparse's default text output",
	  "blkparse(1)", FMT_NATIVE, sniff_blkparse, NULL },
	{ "vmstat-text", "a vmstat(8) log (and `time` reports in it)",
	  "vmstat(8)", FMT_NATIVE, sniff_vmstat, NULL },
	{ "capture-rows", "what a capture kept when it could not store (FILE.rows)",
	  "import/capture_rows.h", FMT_NATIVE, sniff_capture_rows, NULL },
	{ "fio-iolog", "fio iolog v2 and v3 (write_iolog, read_iolog)",
	  "fio HOWTO \"Trace file format\"; fio iolog.c", FMT_TRACE,
	  fmt_fio_sniff, fmt_fio_parse },
	{ "msr-csv", "MSR Cambridge CSV (SNIA), Q2C = ResponseTime",
	  "SNIA IOTTA MSR Cambridge README", FMT_TRACE,
	  fmt_msr_sniff, fmt_msr_parse },
	{ "systor17-csv", "SYSTOR '17 CSV (SNIA), Q2C = Response",
	  "SNIA IOTTA SYSTOR '17 README", FMT_TRACE,
	  fmt_systor_sniff, fmt_systor_parse },
	{ "cloudphysics-csv", "CloudPhysics CSV as libCacheSim ships it",
	  "libCacheSim vscsi reader, data/cloudPhysicsIO.csv", FMT_TRACE,
	  fmt_cloudphysics_sniff, fmt_cloudphysics_parse },
	{ "blkreplay-load", "blkreplay .load files (and its result lines)",
	  "schoebel/blkreplay src/blkreplay.c", FMT_TRACE,
	  fmt_blkreplay_sniff, fmt_blkreplay_parse },
	{ "iostat-text", "an iostat -x log (sysstat, any column set)",
	  "sysstat iostat(1), iostat.c", FMT_SAMPLES,
	  fmt_iostat_sniff, fmt_iostat_parse },
	{ "time-text", "time, /usr/bin/time [-v] and dd output pasted alone",
	  "bash(1) time, GNU time(1), coreutils dd(1)", FMT_COMMANDS,
	  fmt_time_sniff, fmt_time_parse },
};
const size_t import_nformats = sizeof(import_formats) / sizeof(import_formats[0]);

const struct import_format *import_format_sniff(const uint8_t *buf, size_t len)
{
	const struct import_format *best = NULL;
	int best_c = 0;

	size_t bom = utf8_bom(buf, len);

	buf += bom;     /* the readers skip it too (fmt_getline()) */
	len -= bom;
	if (!len)
		return NULL;
	for (size_t i = 0; i < import_nformats; i++) {
		int c = import_formats[i].sniff(buf, len);
		if (c > best_c) {
			best_c = c;
			best = &import_formats[i];
		}
	}
	return best;
}

int import_format_known(const uint8_t *buf, size_t len)
{
	/* the native readers' own sniffs read 4 KiB (trace/trace_input.c,
	 * import/vmstat_text.c) */
	const size_t native = 4096;

	if (len > FMT_SNIFF_BYTES)
		len = FMT_SNIFF_BYTES;
	return import_format_sniff(buf, len) ||
	       import_format_sniff(buf, len < native ? len : native);
}

const struct import_format *import_format_sniff_file(const char *path)
{
	uint8_t *buf;
	struct stat sb;
	ssize_t n;
	size_t got = 0;
	const struct import_format *f = NULL;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return NULL;
	}
	buf = malloc(FMT_SNIFF_BYTES);
	if (!buf) {
		close(fd);
		return NULL;
	}
	while (got < FMT_SNIFF_BYTES &&
	       (n = read(fd, buf + got, FMT_SNIFF_BYTES - got)) > 0)
		got += (size_t)n;
	close(fd);
	f = import_format_sniff(buf, got);
	free(buf);
	return f;
}

const struct import_format *import_format_find(const char *name)
{
	for (size_t i = 0; i < import_nformats; i++)
		if (!strcmp(import_formats[i].name, name))
			return &import_formats[i];
	return NULL;
}

/* ---- helpers ---- */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int fmt_split(char *line, char sep, char **f, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		char *q = strchr(p, sep);
		if (q)
			*q = '\0';
		f[n++] = trim(p);
		if (!q)
			break;
		p = q + 1;
	}
	return n;
}

int fmt_u64(const char *s, int hex, uint64_t *v)
{
	char *end;

	if (!s)
		return -1;
	if (hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (!*s || s[strspn(s, "0123456789abcdefABCDEF")])
			return -1;
		errno = 0;
		*v = strtoull(s, &end, 16);
		return errno ? -1 : 0;
	}
	return dec_u64(s, v, NULL);
}

int fmt_double(const char *s, double *v)
{
	return s ? dec_double(s, DEC_SIGN | DEC_FRAC | DEC_EXP, v, NULL) : -1;
}

int fmt_seconds_ns(const char *s, int64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		if (sec > (uint64_t)INT64_MAX / 10000000000ull)
			return -1;
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				digits++;
			}
			p++;
		}
	}
	if (*p)
		return -1;
	while (digits++ < 9)
		frac *= 10;
	/* up to 9223372039 s pass the loop: past 2^63 - 1 ns the cast would
	 * give a negative time */
	if (sec > ((uint64_t)INT64_MAX - frac) / 1000000000ull)
		return -1;
	*ns = (int64_t)(sec * 1000000000ull + frac);
	return 0;
}

long fmt_getline(FILE *fp, char **buf, size_t *cap, int *cut)
{
	off_t at = ftello(fp);
	ssize_t n = getline(buf, cap, fp);
	size_t bom;

	if (n < 0)
		return -1;
	if (at == 0 && (bom = utf8_bom(*buf, (size_t)n))) {
		memmove(*buf, *buf + bom, (size_t)n - bom + 1);
		n -= (ssize_t)bom;
	}
	*cut = !(n > 0 && (*buf)[n - 1] == '\n');
	while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
		(*buf)[--n] = '\0';
	return (long)n;
}

int fmt_line_nul(const char *buf, long len, const char *path, uint64_t line,
		 char *err, size_t errlen)
{
	const char *z = len > 0 ? memchr(buf, '\0', (size_t)len) : NULL;

	if (!z)
		return 0;
	snprintf(err, errlen, "%s: line %" PRIu64 ": a NUL byte (byte %ld of the "
		 "line): not a text line", path, line, (long)(z - buf) + 1);
	return -EINVAL;
}

void fmt_unknown(const uint8_t *head, size_t n, const char *label, char *err,
		 size_t errlen)
{
	size_t k = 0, blank = utf8_bom(head, n);
	int sqlite = n >= 16 && !memcmp(head, "SQLite format 3", 16);
	/* a --db to read it with: a plain file's path, not stdin, a pipe
	 * (/dev/fd/63) or a label with a decompressor's note */
	struct stat sb;
	int named = !stat(label, &sb) && S_ISREG(sb.st_mode);

	/* printable ASCII, tabs, line ends and UTF-8's bytes up to the NUL */
	while (k < n && head[k] && (head[k] >= 0x20 || head[k] == '\t' ||
				    head[k] == '\n' || head[k] == '\r') &&
	       head[k] != 0x7f)
		k++;
	while (blank < n && head[blank] && strchr(" \t\r\n", head[blank]))
		blank++;
	if (n && blank == n)
		snprintf(err, errlen, "%s: offset %zu: nothing but blank lines: no "
			 "trace, log or paste in it", label, n);
	else if (sqlite)
		/* the database's header (sqlite.org/fileformat.html 1.3) */
		snprintf(err, errlen, "%s: offset 0: an SQLite database, not a "
			 "trace%s%s%s", label, named ? " (an iotape store? read "
			 "it with --db " : "", named ? label : "", named ? ")" : "");
	else if (k >= 16 && k < n && !head[k])
		snprintf(err, errlen, "%s: offset %zu: a NUL byte in a text file: no "
			 "text format has one (a block a crash left zeroed, or "
			 "binary data)", label, k);
	else
		snprintf(err, errlen, "%s: offset 0: " FMT_UNKNOWN, label);
}

int fmt_cut_line(const char *path, uint64_t line, const struct fmt_opts *o,
		 const struct fmt_sink *sink)
{
	char msg[120];

	if (!o || !o->quiet)
		warning("%s: line %" PRIu64 ": the last line is cut short (no "
			"newline); left out", path, line);
	if (!sink->note)
		return 0;
	snprintf(msg, sizeof(msg), "line %" PRIu64 ", the last, was cut short "
		 "(no newline) and left out", line);
	return sink->note(sink->ctx, msg);
}
