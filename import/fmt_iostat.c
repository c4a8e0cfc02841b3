/* iostat(1) text logs (sysstat), as kept by `iostat -x [-t] N` or pasted in
 * tickets: a banner "Linux VERSION (HOST) DATE ARCH (N CPU)", reports of an
 * optional timestamp line (-t), an avg-cpu table and device tables under a
 * "Device" header whose columns name the values (every sysstat version's
 * set: rrqm/s..avgrq-sz avgqu-sz await svctm of sysstat <= 11, aqu-sz
 * rareq-sz of 11.5 and 12, d/s f/s of 12.1 and later; tps kB_read/s
 * without -x; --pretty tables with Device last). Each value becomes a
 * sample "DEVICE:COLUMN" ("cpu:COLUMN" for avg-cpu). Pure. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"
#include "lib/util.h"

#define MAX_COLS 48

static const char *const known_cols[] = { "r/s", "w/s", "tps", "rrqm/s",
	"wrqm/s", "%util", "rkB/s", "wkB/s", "kB_read/s", "rMB/s", "await",
	"aqu-sz", "avgqu-sz", "rsec/s", "Blk_read/s", "r_await", "d/s" };

/* Splits s (modified) at blanks into at most max tokens. */
static int tokens(char *s, char **t, int max)
{
	int n = 0;

	for (char *p = strtok(s, " \t"); p && n < max; p = strtok(NULL, " \t"))
		t[n++] = p;
	return n;
}

/* Is this the column line of a device table? Returns the Device column's
 * index, or -1. */
static int device_header(char **t, int n)
{
	int dev = -1, known = 0;

	for (int i = 0; i < n; i++) {
		if (!strcmp(t[i], "Device:") || !strcmp(t[i], "Device"))
			dev = i;
		for (size_t k = 0; k < sizeof(known_cols) / sizeof(known_cols[0]); k++)
			known += !strcmp(t[i], known_cols[k]);
	}
	return (dev == 0 || dev == n - 1) && known ? dev : -1;
}

int fmt_iostat_sniff(const uint8_t *buf, size_t len)
{
	size_t i = 0;
	int lines = 0;

	while (i < len && lines < 400) {
		char line[1024], *t[MAX_COLS];
		size_t n = 0;
		while (i < len && buf[i] != '\n') {
			if (!buf[i])
				return 0;
			if (n < sizeof(line) - 1)
				line[n++] = (char)buf[i];
			i++;
		}
		i++;
		lines++;
		line[n] = '\0';
		if (device_header(t, tokens(line, t, MAX_COLS)) >= 0)
			return 80;
	}
	return 0;
}

struct iparse {
	const char *path;
	int quiet;              /* fmt_opts.quiet */
	const struct fmt_sink *sink;
	char *err;
	size_t errlen;
	char cols[MAX_COLS][24];
	int ncols, devcol;        /* the current table's header; -1: none */
	int cpu_next;             /* the next line holds avg-cpu values */
	char cpu_cols[MAX_COLS][24];
	int ncpu;
	uint64_t report;          /* the current report, counted from 1 */
	int in_report;            /* the report has a table already */
	char seen[8][MAX_COLS * 12]; /* headers of its device tables */
	int nseen;
	int banner;               /* a banner came before the current report */
	int banner_blanks;        /* blank lines right after it: iostat -y
				   * (no since-boot report) prints two, sysstat
				   * 11 and 12 alike */
	int blanks_done;          /* a line other than blank came since */
	int since_boot;
	int64_t wall;             /* the report's timestamp, or -1 */
	uint64_t values;
};

static void new_report(struct iparse *p)
{
	p->report++;
	p->in_report = 0;
	p->nseen = 0;
	p->since_boot = p->banner && p->banner_blanks < 2;
	p->banner = 0;
	p->wall = -1;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* days since 1970-01-01 of a proleptic Gregorian date */
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* The decimal digits at s as *v (at most 9999), and the text after them, or
 * NULL (also when s is NULL). */
static const char *field(const char *s, int *v)
{
	uint64_t x;
	const char *end;

	if (!s || dec_u64(s, &x, &end) || x > 9999)
		return NULL;
	*v = (int)x;
	return end;
}

/* s after the character c, or NULL. */
static const char *sep(const char *s, char c)
{
	return s && *s == c ? s + 1 : NULL;
}

/* iostat -t's timestamp line: "06/01/20 12:53:20", "06/01/2020 12:53:20 PM",
 * "2020-06-01 12:53:20", "2020-06-01T12:53:20+0200" (the zone is ignored:
 * times are the printed local time read as UTC). Returns 0 and *ns; -1 when
 * s is no timestamp; -2 when it is one that an int64_t of ns does not hold
 * (before 1677-09-21 or after 2262-04-11). */
static int stamp(const char *s, int64_t *ns)
{
	int y, mo, d, h, mi, sec;
	const char *rest;

	/* "Y-M-D[ T]h:m:s" or "M/D/Y h:m:s" */
	rest = field(sep(field(sep(field(s, &y), '-'), &mo), '-'), &d);
	if (rest && (*rest == ' ' || *rest == 'T'))
		rest++;
	else {
		rest = field(sep(field(sep(field(s, &mo), '/'), &d), '/'), &y);
		if (rest && *rest == ' ')
			rest += strspn(rest, " ");
		else
			rest = NULL;
	}
	rest = field(sep(field(sep(field(rest, &h), ':'), &mi), ':'), &sec);
	if (rest) {
		if (!strcmp(rest, " PM") || !strcmp(rest, " AM")) {
			if (rest[1] == 'P' && h < 12)
				h += 12;
			else if (rest[1] == 'A' && h == 12)
				h = 0;
			rest += 3;
		} else if (*rest == '+' || *rest == '-' || *rest == 'Z')
			rest += strspn(rest, "+-Z0123456789:");
		if (*rest)
			return -1;
		if (y < 100)
			y += 2000;
		if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
		    sec > 60 || y > 9999)
			return -1;
		if (__builtin_mul_overflow(((days_from_civil(y, (unsigned)mo,
				(unsigned)d) * 24 + h) * 60 + mi) * 60 + sec,
				(int64_t)1000000000, ns))
			return -2;
		return 0;
	}
	return -1;
}

static int fail(struct iparse *p, uint64_t line, const char *what)
{
	snprintf(p->err, p->errlen, "%s: line %" PRIu64 ": %s", p->path, line, what);
	return -EINVAL;
}

/* fail() with "bad value 'VALUE' for COLUMN". */
static int bad_value(struct iparse *p, uint64_t line, const char *value,
		     const char *col)
{
	snprintf(p->err, p->errlen, "%s: line %" PRIu64 ": bad value '%.40s' for "
		 "%s", p->path, line, value, col);
	return -EINVAL;
}

/* A value as iostat prints it: a plain decimal number (dec_double()), a
 * decimal comma read as a point, never below 0 (every column is a rate, a
 * size, a time or a %). */
static int value(const char *s, double *v)
{
	char tmp[64];

	snprintf(tmp, sizeof(tmp), "%s", s);
	for (char *c = tmp; *c; c++)
		if (*c == ',')
			*c = '.';   /* locales with a decimal comma */
	/* no exponent: sysstat prints %.2f (7.135e3 is no value iostat
	 * wrote; docs/IMPORT.md) */
	return dec_double(tmp, DEC_SIGN | DEC_FRAC, v, NULL) || *v < 0 ? -1 : 0;
}

static int put(struct iparse *p, const char *who, const char *col, double v)
{
	struct fmt_sample s = { .report = p->report - 1, .wall_ns = p->wall,
				.since_boot = p->since_boot, .value = v };
	char key[96];

	snprintf(key, sizeof(key), "%s:%s", who, col);
	s.key = key;
	p->values++;
	return p->sink->sample ? p->sink->sample(p->sink->ctx, &s) : 0;
}

static int take_line(struct iparse *p, uint64_t line, char *raw, int cut)
{
	char copy[4096], *t[MAX_COLS + 1];
	int n, dev, rc = 0, st;
	int64_t ns;

	snprintf(copy, sizeof(copy), "%s", raw);
	n = tokens(copy, t, MAX_COLS + 1);
	if (!n) {
		p->ncols = 0;
		p->cpu_next = 0;
		if (p->banner && !p->blanks_done)
			p->banner_blanks++;
		return 0;
	}
	if (!strcmp(t[0], "Linux") && strchr(raw, '(')) {
		p->banner = 1;
		p->banner_blanks = p->blanks_done = 0;
		p->ncols = 0;
		return 0;
	}
	p->blanks_done = 1;
	if ((st = stamp(raw + strspn(raw, " \t"), &ns)) == -2) {
		snprintf(p->err, p->errlen, "%s: line %" PRIu64 ": timestamp "
			 "'%.40s' is outside the times iotape stores (1677-09-21 "
			 "to 2262-04-11 UTC, 2^63 ns either side of 1970)", p->path,
			 line, raw + strspn(raw, " \t"));
		return -EINVAL;
	}
	if (st == 0) {
		new_report(p);
		p->wall = ns;
		return 0;
	}
	if (!strcmp(t[0], "avg-cpu:")) {
		if (!p->report || p->in_report)
			new_report(p);
		p->in_report = 1;
		p->ncpu = 0;
		for (int i = 1; i < n && p->ncpu < MAX_COLS; i++)
			snprintf(p->cpu_cols[p->ncpu++], sizeof(p->cpu_cols[0]), "%s", t[i]);
		p->cpu_next = 1;
		p->ncols = 0;
		return 0;
	}
	/* a last row with no newline: a log copied while iostat wrote it
	 * ("18.80" read as "18.8", or a row short of columns) */
	if ((p->cpu_next || p->ncols) && cut) {
		p->cpu_next = 0;
		if (!p->quiet)
			warning("%s: line %" PRIu64 ": the last line is cut short (no "
				"newline); left out", p->path, line);
		return 0;
	}
	if (p->cpu_next) {
		p->cpu_next = 0;
		if (n != p->ncpu)
			return fail(p, line, "avg-cpu values do not match its "
				    "header");
		for (int i = 0; i < n && !rc; i++) {
			double v;
			if (value(t[i], &v))
				return bad_value(p, line, t[i], p->cpu_cols[i]);
			rc = put(p, "cpu", p->cpu_cols[i], v);
		}
		return rc;
	}
	if ((dev = device_header(t, n)) >= 0) {
		char sig[MAX_COLS * 12] = "";
		int again = 0;
		for (int i = 0; i < n; i++) {
			size_t l = strlen(sig);
			snprintf(sig + l, sizeof(sig) - l, "%s ", t[i]);
		}
		for (int i = 0; i < p->nseen; i++)
			again |= !strcmp(p->seen[i], sig);
		if (!p->report || again)
			new_report(p);
		if (p->nseen < 8)
			snprintf(p->seen[p->nseen++], sizeof(p->seen[0]), "%s", sig);
		p->in_report = 1;
		p->devcol = dev;
		p->ncols = n;
		for (int i = 0; i < n; i++)
			snprintf(p->cols[i], sizeof(p->cols[0]), "%s", t[i]);
		return 0;
	}
	if (!p->ncols)
		return 0;   /* text outside a table: a prompt, a comment */
	if (n != p->ncols)
		return fail(p, line, "a device row whose values do not match "
			    "its header");
	for (int i = 0; i < n && !rc; i++) {
		double v;
		if (i == p->devcol)
			continue;
		if (value(t[i], &v))
			return bad_value(p, line, t[i], p->cols[i]);
		rc = put(p, t[p->devcol], p->cols[i], v);
	}
	return rc;
}

int fmt_iostat_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		     const struct fmt_sink *sink, char *err, size_t errlen)
{
	struct iparse p = { .path = path, .sink = sink, .err = err,
			    .errlen = errlen, .wall = -1, .devcol = -1 };
	char *buf = NULL;
	size_t cap = 0;
	uint64_t line = 0;
	int rc = 0, cut;
	long len;

	p.quiet = o->quiet;
	while (!rc && (len = fmt_getline(fp, &buf, &cap, &cut)) >= 0)
		if (!(rc = fmt_line_nul(buf, len, path, ++line, err, errlen)))
			rc = take_line(&p, line, buf, cut);
	if (!rc && !p.values)
		rc = fail(&p, line, "no iostat device or avg-cpu values");
	if (!rc && sink->note)
		rc = sink->note(sink->ctx, "iostat log: each value a sample "
				"'DEVICE:COLUMN' (cpu:COLUMN for avg-cpu) as iostat "
				"printed it; a report's time is its -t timestamp "
				"(printed local time read as UTC), else its number "
				"x the interval; the first report after a banner "
				"averages since boot (sample since_boot = 1)");
	free(buf);
	return rc;
}
