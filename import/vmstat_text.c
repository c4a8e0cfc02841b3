/* vmstat(8) text logs: header and layout detection, `date` and `-t`
 * timestamps, since-boot rows, `time` report lines, and the check for
 * procps-ng 4.0.2's frozen memory columns. See vmstat_text.h. */
#include "vmstat_text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "import/time_report.h"
#include "lib/util.h"

#define MAX_TOKENS 64
#define PREAMBLE_MAX 20   /* non-blank lines allowed before the first header */

/* Column names vmstat prints in its default (-a, -w, -t) reports. */
static const char *const known_cols[] = {
	"r", "b", "w", "swpd", "free", "buff", "cache", "inact", "active",
	"si", "so", "bi", "bo", "in", "cs", "us", "sy", "id", "wa", "st", "gu",
};

/* Columns watched for the frozen-memory check. */
static const char *const mem_cols[] = {
	"swpd", "free", "buff", "cache", "inact", "active",
};
static const char *const io_cols[] = { "si", "so", "bi", "bo" };
#define N_WATCH (ARRAY_SIZE(mem_cols) + ARRAY_SIZE(io_cols))

/* Splits line in place at whitespace; returns the number of tokens. */
static int split(char *line, char **tok, int max)
{
	int n = 0;
	char *p = line;

	while (*p) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* A plain decimal number (a sign and a fraction are accepted for a CPU %
 * of an edited log: out of 0..100, `iotape vmstat` shows it as '?'). */
static int number(const char *s, double *v)
{
	return dec_double(s, DEC_SIGN | DEC_FRAC, v, NULL);
}

/* The CPU % columns; every other column is a count, kB or a rate, which
 * vmstat prints as an unsigned integer. */
static int cpu_col(const char *name)
{
	static const char *const cpu[] = { "us", "sy", "id", "wa", "st", "gu" };

	for (size_t i = 0; i < ARRAY_SIZE(cpu); i++)
		if (!strcmp(name, cpu[i]))
			return 1;
	return 0;
}

/* The two digits at s (no sign, no blank) as a number, or -1. */
static int two_digits(const char *s)
{
	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
		return -1;
	return (s[0] - '0') * 10 + (s[1] - '0');
}

static int known_col(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(known_cols); i++)
		if (!strcmp(s, known_cols[i]))
			return 1;
	return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), so dates need no
 * time zone database. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* What a date out of an int64_t of ns (2^63 ns either side of 1970) is. */
#define DATE_RANGE "outside the times iotape stores (1677-09-21 to " \
	"2262-04-11 UTC, 2^63 ns either side of 1970)"

/* y-m-d h:mi:s (years up to 9999) read as UTC into ns since 1970 in *ns;
 * 0, or -1 when an int64_t of ns does not hold it (DATE_RANGE). */
static int civil_ns(int y, int mo, int d, int h, int mi, double s, int64_t *ns)
{
	int64_t days = days_from_civil(y, (unsigned)mo, (unsigned)d), v;

	if (__builtin_mul_overflow(days * 86400 + h * 3600 + mi * 60,
				   (int64_t)1000000000, &v) ||
	    __builtin_add_overflow(v, (int64_t)llround(s * 1e9), &v))
		return -1;
	*ns = v;
	return 0;
}

/* "HH:MM:SS" or "HH:MM:SS.fff" */
static int parse_hms(const char *s, int *h, int *mi, double *sec)
{
	if (strlen(s) < 8 || s[2] != ':' || s[5] != ':' ||
	    (*h = two_digits(s)) < 0 || (*mi = two_digits(s + 3)) < 0 ||
	    !isdigit((unsigned char)s[6]) || dec_double(s + 6, DEC_FRAC, sec, NULL))
		return -1;
	if (*h > 24 || *mi > 59 || *sec >= 61)
		return -1;
	return 0;
}

/* "YYYY-MM-DD" */
static int parse_ymd(const char *s, int *y, int *mo, int *d)
{
	int c = 0, y2;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-' ||
	    (c = two_digits(s)) < 0 || (y2 = two_digits(s + 2)) < 0 ||
	    (*mo = two_digits(s + 5)) < 0 || (*d = two_digits(s + 8)) < 0)
		return -1;
	*y = c * 100 + y2;
	return *mo >= 1 && *mo <= 12 && *d >= 1 && *d <= 31 ? 0 : -1;
}

int vmstat_text_parse_date(const char *line, int64_t *ns)
{
	static const char *const months[] = {
		"jan", "feb", "mar", "apr", "may", "jun",
		"jul", "aug", "sep", "oct", "nov", "dec",
	};
	char buf[256], *tok[16];
	int n, y = -1, mo = -1, d = -1, h = -1, mi = 0, pm = -1;
	double sec = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	n = split(buf, tok, 16);
	if (n < 1 || n > 16)
		return -1;
	/* ISO: "2019-08-28 16:02:01" or "2019-08-28T16:02:01[+zone]" */
	if (strlen(tok[0]) >= 10 && tok[0][4] == '-') {
		char date[11];
		const char *t = NULL;
		memcpy(date, tok[0], 10);
		date[10] = '\0';
		if (parse_ymd(date, &y, &mo, &d))
			return -1;
		if (tok[0][10] == 'T')
			t = tok[0] + 11;
		else if (!tok[0][10] && n >= 2)
			t = tok[1];
		if (!t)
			return -1;
		char hms[32];
		size_t k = strspn(t, "0123456789:.");
		if (k >= sizeof(hms))
			return -1;
		memcpy(hms, t, k);
		hms[k] = '\0';
		if (parse_hms(hms, &h, &mi, &sec))
			return -1;
		return civil_ns(y, mo, d, h, mi, sec, ns) ? -2 : 0;
	}
	/* date(1)'s default: "Wed Aug 28 16:02:01 IST 2019" and locale kin */
	for (int i = 0; i < n; i++) {
		const char *t = tok[i];
		size_t len = strlen(t);
		if (strchr(t, ':')) {
			if (h >= 0 || parse_hms(t, &h, &mi, &sec))
				return -1;
		} else if (all_digits(t) && len == 4) {
			y = atoi(t);
		} else if (all_digits(t) && len <= 2) {
			if (d >= 0)
				return -1;
			d = atoi(t);
		} else if (!strcasecmp(t, "AM") || !strcasecmp(t, "PM")) {
			pm = !strcasecmp(t, "PM");
		} else if (len >= 3 && mo < 0) {
			for (int m = 0; m < 12; m++)
				if (!strncasecmp(t, months[m], 3) &&
				    (len == 3 || isalpha((unsigned char)t[3]) || t[3] == '.'))
					mo = m + 1;
		}
	}
	if (y < 1900 || mo < 0 || d < 1 || d > 31 || h < 0)
		return -1;
	if (pm >= 0) {
		if (h > 12)
			return -1;
		h = (h % 12) + (pm ? 12 : 0);
	}
	return civil_ns(y, mo, d, h, mi, sec, ns) ? -2 : 0;
}

/* The frozen-memory check of one invocation: its first row's watched
 * values and whether any later interval row differed. */
struct watch {
	int rows;            /* interval (not since-boot) rows seen */
	int have_mem;        /* the header has a memory column */
	int have_io;
	double mem0[ARRAY_SIZE(mem_cols)];
	double io0[ARRAY_SIZE(io_cols)];
	int mem_seen[ARRAY_SIZE(mem_cols)];
	int io_seen[ARRAY_SIZE(io_cols)];
	int mem_changed, io_changed;
};

struct parser {
	const char *path;
	const struct vmstat_text_opts *opts;
	struct vmstat_text_info *info;
	char *err;
	size_t errlen;

	/* current header */
	int ncol, stamps, header_line;
	char names[VMSTAT_MAX_COLS][8];
	const char *name_ptr[VMSTAT_MAX_COLS];
	int widx_mem[ARRAY_SIZE(mem_cols)], widx_io[ARRAY_SIZE(io_cols)];
	int group_pending;   /* a group line waits for its column line */

	/* invocations */
	int sep;             /* a date or blank line since the last row */
	int64_t sep_date;    /* the date seen in that gap, or -1 */
	int block;
	uint64_t block_row;
	int64_t block_date;
	int date_step_broken;  /* two dated blocks disagreed (info->date_step_ns) */
	struct watch w;
	int frozen, checked;

	/* timestamp steps */
	int64_t last_stamp;
	int last_stamp_block;
	int64_t stamp_shift;  /* added to this invocation's timestamps after
			       * its clock stepped back */
	int64_t *steps;
	size_t nsteps, capsteps;

	/* the `time` reports in the log, each handed to opts->time_line
	 * (with ctx) whole */
	struct time_reader tr;
	void *ctx;
};

/* At the start of a block after one: the whole seconds between rows that
 * the block before (dated, two rows or more) and this block's date give,
 * kept in p->info->date_step_ns while every such pair agrees (see
 * vmstat_text_info). vmstat N M prints M rows N s apart from its start, so
 * the next date comes (M - 1) * N s after the block's own, to the date's
 * 1 s. */
static void date_step(struct parser *p)
{
	struct vmstat_text_info *in = p->info;
	int64_t gap = p->sep_date - p->block_date, k = (int64_t)p->block_row - 1;
	int64_t step;

	if (p->date_step_broken || p->block_date < 0 || p->sep_date < 0 || k < 1)
		return;
	step = (gap + k * 500000000ll) / (k * 1000000000ll) * 1000000000ll;
	if (gap <= 0 || step < 1000000000ll || llabs(gap - step * k) > 1000000000ll ||
	    (in->date_step_ns && in->date_step_ns != step)) {
		p->date_step_broken = 1;
		in->date_step_ns = 0;
		return;
	}
	if (!in->date_step_ns) {
		in->date_gap_ns = gap;
		in->date_gap_rows = p->block_row;
	}
	in->date_step_ns = step;
}

/* Writes "PATH: line N: MESSAGE" into the error buffer; returns -EINVAL. */
static int fail(struct parser *p, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, uint64_t line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s: line %llu: %s", p->path,
			 (unsigned long long)line, msg);
	return -EINVAL;
}

/* Closes the current invocation's frozen-memory check. */
static void watch_end(struct parser *p)
{
	struct watch *w = &p->w;

	if (w->rows >= 3 && w->have_mem && w->have_io && w->io_changed) {
		p->checked++;
		if (!w->mem_changed)
			p->frozen++;
	}
	memset(w, 0, sizeof(*w));
}

static void watch_row(struct parser *p, const double *v, int since_boot)
{
	struct watch *w = &p->w;

	for (size_t i = 0; i < ARRAY_SIZE(mem_cols); i++) {
		int k = p->widx_mem[i];
		if (k < 0)
			continue;
		w->have_mem = 1;
		if (!w->mem_seen[i]) {
			w->mem_seen[i] = 1;
			w->mem0[i] = v[k];
		} else if (v[k] != w->mem0[i]) {
			w->mem_changed = 1;
		}
	}
	/* A since-boot row's rates always differ from the intervals': leave it
	 * out of the rates' comparison. */
	if (since_boot)
		return;
	w->rows++;
	for (size_t i = 0; i < ARRAY_SIZE(io_cols); i++) {
		int k = p->widx_io[i];
		if (k < 0)
			continue;
		w->have_io = 1;
		if (!w->io_seen[i]) {
			w->io_seen[i] = 1;
			w->io0[i] = v[k];
		} else if (v[k] != w->io0[i]) {
			w->io_changed = 1;
		}
	}
}

/* Takes a column-name line (tok[0] is "r") as the current header. */
static int take_header(struct parser *p, char **tok, int n, uint64_t line)
{
	int ncol = n, stamps = 0;

	if (!known_col(tok[n - 1])) {
		/* vmstat -t names the timestamp column by its zone */
		stamps = 1;
		ncol = n - 1;
	}
	if (ncol > VMSTAT_MAX_COLS)
		return fail(p, line, "%d columns is more than vmstat prints", ncol);
	for (int i = 0; i < ncol; i++) {
		if (!known_col(tok[i]))
			return fail(p, line, "unknown vmstat column '%s'", tok[i]);
		for (int j = 0; j < i; j++)
			if (!strcmp(tok[i], tok[j]))
				return fail(p, line, "column '%s' named twice",
					    tok[i]);
	}
	p->ncol = ncol;
	p->stamps = stamps;
	p->header_line = (int)line;
	for (int i = 0; i < ncol; i++) {
		snprintf(p->names[i], sizeof(p->names[i]), "%s", tok[i]);
		p->name_ptr[i] = p->names[i];
	}
	for (size_t i = 0; i < ARRAY_SIZE(mem_cols); i++) {
		p->widx_mem[i] = -1;
		for (int k = 0; k < ncol; k++)
			if (!strcmp(p->names[k], mem_cols[i]))
				p->widx_mem[i] = k;
	}
	for (size_t i = 0; i < ARRAY_SIZE(io_cols); i++) {
		p->widx_io[i] = -1;
		for (int k = 0; k < ncol; k++)
			if (!strcmp(p->names[k], io_cols[i]))
				p->widx_io[i] = k;
	}
	if (stamps) {
		p->info->has_stamps = 1;
		if (!p->info->zone[0])
			snprintf(p->info->zone, sizeof(p->info->zone), "%s", tok[n - 1]);
	}
	if (!p->info->headers) {
		size_t o = 0;
		for (int i = 0; i < ncol && o < sizeof(p->info->columns); i++)
			o += (size_t)snprintf(p->info->columns + o,
					      sizeof(p->info->columns) - o, "%s%s",
					      i ? " " : "", p->names[i]);
	}
	p->info->headers++;
	p->group_pending = 0;
	return 0;
}

static int is_group_line(char **tok, int n, const char *raw)
{
	char first[32];
	size_t k = 0;

	if (n < 2)
		return 0;
	for (const char *s = tok[0]; *s && k < sizeof(first) - 1; s++)
		if (*s != '-')
			first[k++] = *s;
	first[k] = '\0';
	return !strcmp(first, "procs") && strstr(raw, "memory") != NULL;
}

static int is_column_line(char **tok, int n)
{
	return n >= 8 && !strcmp(tok[0], "r") && !strcmp(tok[1], "b") &&
	       known_col(tok[2]);
}

static void push_step(struct parser *p, int64_t step)
{
	if (p->nsteps == p->capsteps) {
		p->capsteps = p->capsteps ? 2 * p->capsteps : 256;
		p->steps = xrealloc(p->steps, p->capsteps * sizeof(*p->steps));
	}
	p->steps[p->nsteps++] = step;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int data_row(struct parser *p, char **tok, int n, uint64_t line,
		    int last_unterminated,
		    int (*fn)(void *, const struct vmstat_row *), void *ctx)
{
	double v[VMSTAT_MAX_COLS];
	struct vmstat_row row = { 0 };
	int want = p->ncol + (p->stamps ? 2 : 0);

	if (n != want) {
		if (last_unterminated && n < want) {
			p->info->truncated = 1;
			return 0;
		}
		return fail(p, line, "%d fields where the header at line %d "
			    "names %d", n, p->header_line, want);
	}
	for (int i = 0; i < p->ncol; i++) {
		uint64_t u;
		if (number(tok[i], &v[i]))
			return fail(p, line, "'%s' is not a number", tok[i]);
		/* a count or a size: stored as a double, so exact below 2^53
		 * (free = 1e26 made `iotape vmstat` 95 columns wide) */
		if (!cpu_col(p->names[i]) &&
		    (dec_u64(tok[i], &u, NULL) || u >= VMSTAT_MAX_COUNT))
			return fail(p, line, "bad value '%s' for %s (a whole "
				    "number from 0 to 2^53 - 1)", tok[i],
				    p->names[i]);
	}
	row.stamp_ns = -1;
	if (p->stamps) {
		int y, mo, d, h, mi;
		double s;
		if (parse_ymd(tok[n - 2], &y, &mo, &d) ||
		    parse_hms(tok[n - 1], &h, &mi, &s))
			return fail(p, line, "'%s %s' is not a timestamp "
				    "\"YYYY-MM-DD HH:MM:SS\"", tok[n - 2], tok[n - 1]);
		if (civil_ns(y, mo, d, h, mi, s, &row.stamp_ns))
			return fail(p, line, "timestamp '%s %s' is " DATE_RANGE,
				    tok[n - 2], tok[n - 1]);
	}

	/* A new invocation at the file's first row and after a date or blank
	 * line. */
	if (p->block < 0 || p->sep) {
		if (p->block >= 0)
			watch_end(p);
		if (p->block >= 0)
			date_step(p);
		p->block++;
		p->block_row = 0;
		p->block_date = p->sep_date;
		p->sep = 0;
		p->sep_date = -1;
		row.since_boot = !p->opts->no_boot_row;
	}
	/* a timestamp before the row before's in one invocation: the clock
	 * stepped back (daylight saving time's end, an NTP step), and every
	 * row after it piled onto the row before's instant; from here the
	 * rows are placed a step after the one before (the interval, else the
	 * last step seen, else 1 s), and the read says where (info) */
	/* the shift holds for the invocations after (their clock is the
	 * stepped one too), and one whose first row is still before the last
	 * row placed is shifted on the same way */
	if (row.stamp_ns >= 0 && p->last_stamp_block >= 0) {
		int64_t t = row.stamp_ns + p->stamp_shift;
		if (t < p->last_stamp) {
			int64_t step = p->opts->interval_ns > 0 ?
				p->opts->interval_ns : p->nsteps ?
				p->steps[p->nsteps - 1] : 1000000000;
			if (!p->info->clock_back_line) {
				p->info->clock_back_line = line;
				p->info->clock_back_ns = p->last_stamp - t;
			}
			p->stamp_shift += p->last_stamp + step - t;
		}
		row.stamp_ns += p->stamp_shift;
	}
	row.index = p->info->rows;
	row.line = line;
	row.block = p->block;
	row.block_row = p->block_row++;
	row.date_ns = p->block_date;
	row.time_ns = row.stamp_ns;
	if (row.time_ns < 0 && row.date_ns >= 0 &&
	    (p->opts->interval_ns > 0 || row.block_row == 0))
		row.time_ns = row.date_ns + (int64_t)row.block_row * p->opts->interval_ns;
	row.ncol = p->ncol;
	row.names = p->name_ptr;
	row.values = v;

	if (row.stamp_ns >= 0) {
		if (p->last_stamp_block == p->block && row.stamp_ns > p->last_stamp)
			push_step(p, row.stamp_ns - p->last_stamp);
		p->last_stamp = row.stamp_ns;
		p->last_stamp_block = p->block;
	}
	watch_row(p, v, row.since_boot);
	p->info->rows++;
	p->info->boot_rows += row.since_boot;
	return fn(ctx, &row);
}

/* A whole `time` report from p's reader: handed to p->opts->time_line
 * with the rows read before it. */
static int give_time(void *vp, const struct time_report *r)
{
	struct parser *p = vp;
	struct vmstat_time_line tl = {
		.line = r->line, .rows_before = p->info->rows,
		.real_s = r->real_s, .user_s = r->user_s, .sys_s = r->sys_s,
		.status = r->status,
	};

	if (!p->opts->time_line)
		return 0;
	snprintf(tl.argv, sizeof(tl.argv), "%s", r->argv);
	return p->opts->time_line(p->ctx, &tl);
}

/* A line of no kind vmstat writes (tok[0] its first word): before the
 * first header a prompt or note, skipped (*first_text: the first; at most
 * PREAMBLE_MAX, *preamble counts them), else not vmstat output. Returns 0
 * to go on, or -EINVAL with the message in p's err. */
static int other_line(struct parser *p, char **tok, uint64_t line,
		      uint64_t *first_text, int *preamble)
{
	if (!p->ncol && !all_digits(tok[0])) {
		/* a prompt or note before the first header */
		if (!*first_text)
			*first_text = line;
		p->info->skipped_lines++;
		if (++*preamble > PREAMBLE_MAX)
			return fail(p, *first_text, "not vmstat output (no "
				    "'r  b  swpd  free ...' header in the "
				    "first %d lines)", PREAMBLE_MAX);
		return 0;
	}
	if (!p->ncol)
		return fail(p, line, "not vmstat output (numbers before any "
			    "'r  b  swpd  free ...' header)");
	return fail(p, line, "not vmstat output: '%.60s' after the "
		    "header at line %d", tok[0], p->header_line);
}

/* At the end of fp (path; lines lines read, first_text the first line
 * that was not vmstat's): a read error, a header cut in half or no header
 * at all is an error; else the last invocation's check closed and the
 * figures of the whole file in p->info (invocations, frozen memory, the
 * timestamps' step). Returns 0, -errno (a read error) or -EINVAL, with the
 * message in p's err. */
static int read_end(struct parser *p, FILE *fp, const char *path,
		    uint64_t line, uint64_t first_text)
{
	struct vmstat_text_info *info = p->info;
	int rc;

	if (ferror(fp)) {
		rc = errno ? -errno : -EIO;
		if (p->err && p->errlen)
			snprintf(p->err, p->errlen, "cannot read '%s': %s", path,
				 strerror(-rc));
		return rc;
	}
	info->lines = line;
	if (p->group_pending)
		return fail(p, line, "the file ends after a header's first line");
	if (!info->headers)
		return fail(p, first_text ? first_text : 1, "not vmstat output (no "
			    "'r  b  swpd  free ...' header)");
	if (p->block >= 0)
		watch_end(p);
	info->blocks = p->block + 1;
	info->frozen_memory = p->frozen > 0 && p->frozen == p->checked;
	if (p->nsteps) {
		qsort(p->steps, p->nsteps, sizeof(*p->steps), cmp_i64);
		info->stamp_step_ns = p->steps[p->nsteps / 2];
	}
	return 0;
}

int vmstat_text_read(FILE *fp, const char *path,
		     const struct vmstat_text_opts *opts,
		     int (*fn)(void *ctx, const struct vmstat_row *row),
		     void *ctx, struct vmstat_text_info *info,
		     char *err, size_t errlen)
{
	static const struct vmstat_text_opts no_opts;
	struct parser p = {
		.path = path, .opts = opts ? opts : &no_opts, .info = info,
		.err = err, .errlen = errlen, .block = -1, .sep_date = -1,
		.block_date = -1, .last_stamp_block = -1,
	};
	char *buf = NULL, *raw = NULL;
	size_t cap = 0, rawcap = 0;
	ssize_t len;
	uint64_t line = 0, first_text = 0;
	int preamble = 0, rc = 0;

	memset(info, 0, sizeof(*info));
	if (err && errlen)
		err[0] = '\0';
	p.ctx = ctx;
	time_report_init(&p.tr, 0, give_time, &p, path, err, errlen);
	while ((len = getline(&buf, &cap, fp)) >= 0) {
		char *tok[MAX_TOKENS + 1];
		int n, unterminated = len == 0 || buf[len - 1] != '\n';
		const char *nul;
		int64_t date;
		int dr;

		line++;
		if (line == 1 && utf8_bom(buf, (size_t)len)) {
			memmove(buf, buf + 3, (size_t)len - 2);
			len -= 3;
		}
		/* as import/formats.c fmt_line_nul(): a C string ends there */
		if ((nul = memchr(buf, '\0', (size_t)len))) {
			rc = fail(&p, line, "a NUL byte (byte %ld of the line): not "
				  "a text line", (long)(nul - buf) + 1);
			goto out;
		}
		if ((size_t)len + 1 > rawcap)
			raw = xrealloc(raw, rawcap = (size_t)len + 1);
		memcpy(raw, buf, (size_t)len + 1);
		n = split(buf, tok, MAX_TOKENS);
		if (n == 0) {
			if (p.block >= 0)
				p.sep = 1;
			continue;
		}
		if (tok[0][0] == '#')
			continue;
		/* the terminal's echo of the Ctrl-C that stopped `vmstat 1`,
		 * the last line of most pasted logs */
		if (n == 1 && !strcmp(tok[0], "^C")) {
			info->skipped_lines++;
			continue;
		}
		if (n <= MAX_TOKENS && is_group_line(tok, n, raw)) {
			if (p.group_pending) {
				rc = fail(&p, line, "expected vmstat's column names "
					  "after the line before");
				goto out;
			}
			p.group_pending = 1;
			continue;
		}
		if (n <= MAX_TOKENS && is_column_line(tok, n)) {
			if ((rc = take_header(&p, tok, n, line)))
				goto out;
			continue;
		}
		if (p.group_pending) {
			rc = fail(&p, line, "expected vmstat's column names after "
				  "the 'procs ---memory---' line");
			goto out;
		}
		if (n <= MAX_TOKENS && all_digits(tok[0]) && p.ncol) {
			/* a report open before it (a -v block cut short) */
			if ((rc = time_report_flush(&p.tr)))
				goto out;
			if ((rc = data_row(&p, tok, n, line, unterminated, fn, ctx)))
				goto out;
			continue;
		}
		if ((dr = vmstat_text_parse_date(raw, &date)) == -2) {
			int rl = (int)strcspn(raw, "\r\n");
			rc = fail(&p, line, "date '%.*s' is " DATE_RANGE,
				  rl < 40 ? rl : 40, raw);
			goto out;
		}
		if (dr == 0) {
			info->date_lines++;
			if (p.block >= 0)
				p.sep = 1;
			p.sep_date = date;
			continue;
		}
		if ((rc = time_report_line(&p.tr, line, raw))) {
			if (rc < 0)
				goto out;
			info->time_lines++;
			rc = 0;
			continue;
		}
		if ((rc = other_line(&p, tok, line, &first_text, &preamble)))
			goto out;
	}
	if ((rc = time_report_flush(&p.tr)))
		goto out;
	rc = read_end(&p, fp, path, line, first_text);
out:
	info->lines = line;
	free(buf);
	free(raw);
	free(p.steps);
	return rc;
}

int vmstat_text_sniff(const uint8_t *buf, size_t len)
{
	char line[512];
	size_t pos = utf8_bom(buf, len);
	int lines = 0;

	while (pos < len && lines < 30) {
		const uint8_t *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		char *tok[MAX_TOKENS + 1];
		int k;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		if (memchr(line, '\0', n))
			return 0;   /* binary */
		pos += (nl ? (size_t)(nl - (buf + pos)) + 1 : len - pos);
		lines++;
		k = split(line, tok, MAX_TOKENS);
		if (k <= MAX_TOKENS && is_column_line(tok, k)) {
			int ok = 1;
			for (int i = 0; i < k - 1 && ok; i++)
				ok = known_col(tok[i]);
			if (ok)
				return 1;
		}
	}
	return 0;
}

int vmstat_text_sniff_file(const char *path)
{
	uint8_t buf[4096];
	struct stat sb;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return 0;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? vmstat_text_sniff(buf, (size_t)n) : 0;
}
