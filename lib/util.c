/* Helpers shared by the subcommands: messages, allocation, numbers. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

/* A message's control bytes (an input's own bytes quoted in it: an ESC
 * sequence in a damaged log) as <0xNN>, so they never reach the terminal.
 * Newlines and tabs stay only where the format itself has a newline (a
 * message of several lines by design) and one_line (notice()) is 0: a
 * newline in what the message quotes (a run name, an option's value, a
 * path) is no new line of the message. */
static void vreport(const char *prefix, int one_line, const char *fmt,
		    va_list ap)
{
	char buf[4096], *msg = buf;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(buf) && (msg = malloc((size_t)n + 1)))
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
	else if (n >= (int)sizeof(buf))
		msg = buf;
	fflush(stdout);
	fprintf(stderr, "iotape: %s", prefix);
	if (n > 0)
		fput_shown(stderr, msg, strlen(msg),
			   one_line || !strchr(fmt, '\n') ? "" : "\n\t");
	fputc('\n', stderr);
	if (msg != buf)
		free(msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", 0, fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", 0, fmt, ap);
	va_end(ap);
}

void notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", 1, fmt, ap);
	va_end(ap);
}

static void *oom(size_t n)
{
	fprintf(stderr, "iotape: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	return p ? p : oom(n * size);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom(n);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	return p ? p : oom(strlen(s));
}

size_t dec_span(const char *s, unsigned flags)
{
	const char *p = s;
	size_t digits;

	if ((flags & DEC_SIGN) && *p == '-')
		p++;
	digits = strspn(p, "0123456789");
	p += digits;
	if ((flags & DEC_FRAC) && *p == '.') {
		size_t frac = strspn(p + 1, "0123456789");
		if (digits || frac) {
			digits += frac;
			p += 1 + frac;
		}
	}
	if (!digits)
		return 0;
	if ((flags & DEC_EXP) && (*p == 'e' || *p == 'E')) {
		const char *e = p + 1;
		if (*e == '-' || *e == '+')
			e++;
		if (isdigit((unsigned char)*e))
			p = e + strspn(e, "0123456789");
	}
	return (size_t)(p - s);
}

int dec_double(const char *s, unsigned flags, double *v, const char **end)
{
	size_t n = dec_span(s, flags);
	char small[64], *buf = small, *e;
	double x;

	if (!n || (!end && s[n]))
		return -1;
	/* strtod() on a copy, so it cannot read on past the number ("1e5"
	 * without DEC_EXP is 1 followed by "e5") */
	if (n >= sizeof(small))
		buf = xmalloc(n + 1);
	memcpy(buf, s, n);
	buf[n] = '\0';
	x = strtod(buf, &e);
	if (buf != small)
		free(buf);
	if (!isfinite(x))
		return -1;
	*v = x;
	if (end)
		*end = s + n;
	return 0;
}

int dec_u64(const char *s, uint64_t *v, const char **end)
{
	size_t n = dec_span(s, 0);
	uint64_t x = 0;

	if (!n || (!end && s[n]))
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	if (end)
		*end = s + n;
	return 0;
}

int dec_devnum(const char *s, unsigned *maj, unsigned *min)
{
	uint64_t a, b;
	const char *p;

	if (dec_u64(s, &a, &p) || (*p != ':' && *p != ',') ||
	    dec_u64(p + 1, &b, NULL) || a >= 4096 || b >= (1u << 20))
		return -1;
	*maj = (unsigned)a;
	*min = (unsigned)b;
	return 0;
}

int parse_u64(const char *s, const char *opt, uint64_t *out)
{
	if (!s || dec_u64(s, out, NULL))
		return error("invalid value '%s' for %s", s ? s : "", opt);
	return 0;
}

int parse_u64_range(const char *s, const char *opt, uint64_t lo, uint64_t hi,
		    const char *unit, uint64_t *out)
{
	if (!s || dec_u64(s, out, NULL) || *out < lo || *out > hi)
		return error("invalid value '%s' for %s (%" PRIu64 " to %" PRIu64
			     "%s%s)", s ? s : "", opt, lo, hi, unit ? " " : "",
			     unit ? unit : "");
	return 0;
}

int parse_seconds(const char *s, const char *opt, double *out)
{
	double v;

	if (!s || dec_double(s, DEC_FRAC, &v, NULL) || !(v > 0) || v > 1e9)
		return error("invalid value '%s' for %s", s ? s : "", opt);
	*out = v;
	return 0;
}

int run_name_is_id(const char *name)
{
	if (!*name)
		return 0;
	for (; *name; name++)
		if (*name < '0' || *name > '9')
			return 0;
	return 1;
}

size_t utf8_seq(const void *s, size_t avail)
{
	const unsigned char *p = s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;         /* no overlong form */
		else if (p[0] == 0xed)
			hi = 0x9f;         /* no surrogate */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;         /* none past U+10FFFF */
	} else
		return 0;
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

size_t utf8_cut(const char *s, size_t max)
{
	size_t i = 0, k;

	while (s[i]) {
		k = utf8_seq(s + i, SIZE_MAX);
		if (!k)
			k = 1;
		if (i + k > max)
			break;
		i += k;
	}
	return i;
}

char *utf8_fixed(const char *s, size_t n, size_t *outn)
{
	size_t i = 0, o = 0, k;
	char *d;

	while (i < n && s[i] && (k = utf8_seq(s + i, n - i)))
		i += k;
	if (i == n)
		return NULL;
	d = xmalloc(3 * n + 1);     /* each byte at most U+FFFD's three */
	memcpy(d, s, o = i);
	while (i < n) {
		if (s[i] && (k = utf8_seq(s + i, n - i))) {
			memcpy(d + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		memcpy(d + o, "\xef\xbf\xbd", 3);
		o += 3;
		i++;
	}
	d[o] = '\0';
	*outn = o;
	return d;
}

/* 1 when p starts a C1 control, U+0080 to U+009F (U+009B is CSI to an
 * 8-bit terminal). */
static int is_c1(const unsigned char *p)
{
	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0;
}

/* The length of the character at p, a NUL-terminated string, when it is a
 * UTF-8 character no terminal acts on; else 0 and why not in what (len
 * bytes), s being the string p is in: "control character 0xNN at byte N"
 * (C0, DEL or C1, by its code) or "byte 0xNN at byte N is not UTF-8". */
static size_t shown_char(const unsigned char *s, const unsigned char *p,
			 char *what, size_t len)
{
	size_t k = utf8_seq(p, SIZE_MAX), at = (size_t)(p - s);

	if (*p < 0x20 || *p == 0x7f || is_c1(p))
		snprintf(what, len, "control character 0x%02x at byte %zu",
			 is_c1(p) ? p[1] : *p, at);
	else if (!k)
		snprintf(what, len, "byte 0x%02x at byte %zu is not UTF-8", *p,
			 at);
	else
		return k;
	return 0;
}

/* The first character from from on (in string s, whose offsets what
 * counts) that shown_char() refuses, why in what (len bytes); NULL when
 * none is. */
static const unsigned char *first_unshown(const char *s, const char *from,
					  char *what, size_t len)
{
	const unsigned char *p = (const unsigned char *)from;
	size_t k;

	while (*p && (k = shown_char((const unsigned char *)s, p, what, len)))
		p += k;
	return *p ? p : NULL;
}

int run_name_clean(char *name)
{
	unsigned char *p = (unsigned char *)name;
	char what[64];
	int n = 0;

	if (*p == '-') {            /* check_run_name()'s leading '-' */
		*p++ = '_';
		n++;
	}
	while ((p = (unsigned char *)first_unshown(name, (char *)p, what,
						   sizeof(what)))) {
		/* a C1 control's two bytes as one '_' */
		if (is_c1(p))
			memmove(p + 1, p + 2, strlen((char *)p + 2) + 1);
		*p++ = '_';
		n++;
	}
	return n;
}

int check_run_name(const char *name)
{
	size_t len = strlen(name);
	char what[64];

	/* a name too long is shown cut: a 5000-byte one filled the screen */
	if (!len || len > 200)
		return error("invalid run name '%.60s%s' (%zu bytes: 1 to 200)",
			     name, len > 60 ? "..." : "", len);
	/* PostgreSQL's text takes UTF-8 only (push would fail), and JSON
	 * shows other bytes as U+FFFD */
	if (first_unshown(name, name, what, sizeof(what)))
		return error("invalid run name: %s", what);
	if (run_name_is_id(name))
		return error("invalid run name '%s': digits only would read as a "
			     "run id", name);
	/* `iotape report -x` is an option; the run would need `--` */
	if (name[0] == '-')
		return error("invalid run name '%s': a leading '-' would read as "
			     "an option", name);
	return 0;
}

int check_label(const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t kl = eq ? (size_t)(eq - kv) : 0;
	char what[64];

	if (!eq || !kl || kl > 95 || !eq[1] || strlen(eq + 1) > 255)
		return error("invalid label '%s' (KEY=VALUE, such as fs=ext2)", kv);
	for (size_t i = 0; i < kl; i++)
		if (!isalnum((unsigned char)kv[i]) && !strchr("_.:/-", kv[i]))
			return error("invalid label key '%.*s' (letters, digits, "
				     "_ . : / -)", (int)kl, kv);
	if (!strncmp(kv, "capture.", 8))
		return error("invalid label key '%.*s': capture.* are the "
			     "capture's own settings", (int)kl, kv);
	if (first_unshown(kv, eq + 1, what, sizeof(what)))
		return error("invalid label '%s': %s", kv, what);
	return 0;
}

int str_distance(const char *a, const char *b)
{
	/* d[i][j]: distance between the first i bytes of a, j of b */
	int d[65][65];
	size_t la = strlen(a), lb = strlen(b);

	if (la > 63 || lb > 63)
		return 64;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* Wide and fullwidth code points (Unicode East Asian Width W and F), as
 * Markus Kuhn's wcwidth.c (2007) lists them, with the emoji blocks. */
static const uint32_t wide_ranges[][2] = {
	{ 0x1100, 0x115f }, { 0x2329, 0x232a }, { 0x2e80, 0x303e },
	{ 0x3041, 0x33ff }, { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff },
	{ 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
	{ 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f }, { 0xff00, 0xff60 },
	{ 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f }, { 0x1f900, 0x1f9ff },
	{ 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};

/* Combining marks (zero columns): the main blocks of general category Mn. */
static const uint32_t zero_ranges[][2] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
	{ 0x0610, 0x061a }, { 0x064b, 0x065f }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x20d0, 0x20ff },
	{ 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f },
};

static int in_ranges(uint32_t c, const uint32_t (*r)[2], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c >= r[i][0] && c <= r[i][1])
			return 1;
	return 0;
}

int text_cols_n(const char *s, long n)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = n < 0 ? NULL : p + n;
	int cols = 0;

	while (*p && (!end || p < end)) {
		uint32_t c = *p;
		int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;

		if (c >= 0x80 && c < 0xc0) {    /* a stray continuation byte */
			p++;
			continue;
		}
		c &= more == 3 ? 0x07 : more == 2 ? 0x0f : more ? 0x1f : 0x7f;
		p++;
		for (; more && (*p & 0xc0) == 0x80 && (!end || p < end); more--)
			c = c << 6 | (*p++ & 0x3f);
		if (in_ranges(c, zero_ranges, ARRAY_SIZE(zero_ranges)))
			continue;
		cols += in_ranges(c, wide_ranges, ARRAY_SIZE(wide_ranges)) ? 2 : 1;
	}
	return cols;
}

int fput_cut(FILE *fp, const char *s, int cols, int head)
{
	const char *p = s, *tail;
	int k = 0;

	if (text_cols(s) <= cols) {
		fputs(s, fp);
		return text_cols(s);
	}
	while (*p) {    /* whole characters up to head columns */
		const char *q = p + 1;
		while ((*q & 0xc0) == 0x80)
			q++;
		if (k + text_cols_n(p, q - p) > head)
			break;
		k += text_cols_n(p, q - p);
		p = q;
	}
	fwrite(s, 1, (size_t)(p - s), fp);
	for (tail = p; *tail && text_cols(tail) > cols - 1 - k; tail++)
		;
	while ((*tail & 0xc0) == 0x80)
		tail++;
	fprintf(fp, "\xe2\x80\xa6%s", tail);
	return k + 1 + text_cols(tail);
}

int fput_padded(FILE *fp, const char *s, int cols)
{
	int w = text_cols(s);

	fputs(s, fp);
	if (w < cols)
		fprintf(fp, "%*s", cols - w, "");
	return w < cols ? cols : w;
}

char *text_wrap(const char *text, int width, int indent, char *out, size_t len)
{
	size_t o = 0;
	int col = 0;
	const char *p = text;

	if (!len)
		return out;
#define PUT(ch) do { if (o + 1 < len) out[o++] = (ch); } while (0)
	while (*p) {
		const char *w = p;
		int wc;

		if (*p == '\n') {
			PUT('\n');
			for (int k = 0; k < indent; k++)
				PUT(' ');
			col = indent;
			p++;
			continue;
		}
		if (*p == ' ' && (p == text || p[-1] == '\n')) {
			for (; *p == ' '; p++, col++)    /* a line's own indent */
				PUT(' ');
			continue;
		}
		if (*p == ' ') {    /* spaces between words: one, or the break */
			while (*p == ' ')
				p++;
			w = p;
			while (*w && *w != ' ' && *w != '\n')
				w++;
			wc = text_cols_n(p, w - p);
			if (*p && *p != '\n' && col > indent && col + 1 + wc > width) {
				PUT('\n');
				for (int k = 0; k < indent; k++)
					PUT(' ');
				col = indent;
			} else if (*p && *p != '\n') {
				PUT(' ');
				col++;
			}
			continue;
		}
		while (*w && *w != ' ' && *w != '\n')
			w++;
		col += text_cols_n(p, w - p);
		for (; p < w; p++)
			PUT(*p);
	}
#undef PUT
	out[o] = '\0';
	return out;
}

int fprintf_wrapped(FILE *fp, int width, int indent, const char *fmt, ...)
{
	char text[2048], wrapped[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return fprintf(fp, "%s\n", text_wrap(text, width, indent, wrapped,
					     sizeof(wrapped)));
}

int shell_has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	if (!n)
		return 0;
	for (const char *w = s; (w = strstr(w, word)); w++)
		if ((w == s || strchr(" \t/(;|&", w[-1])) &&
		    (!w[n] || strchr(" \t);|&", w[n])))
			return 1;
	return 0;
}

const char *shell_quote(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return buf;
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789%+,-./:=@_") == strlen(s)) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	/* one quote each side, '\'' for a quote inside */
	if (o + 1 < len)
		buf[o++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t n = piece ? 4 : 1;
		if (o + n + 1 >= len)
			break;
		if (piece)
			memcpy(buf + o, piece, n);
		else
			buf[o] = *s;
		o += n;
	}
	if (o + 1 < len)
		buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

const char *see_report(const char *db_opt, const char *run, char *buf,
		       size_t len)
{
	char qdb[1100] = "", qrun[600];
	int quoted;

	shell_quote(run, qrun, sizeof(qrun));
	if (db_opt)
		shell_quote(db_opt, qdb, sizeof(qdb));
	quoted = qrun[0] == '\'' || qdb[0] == '\'';
	snprintf(buf, len, "see%siotape report %s%s%s%s", quoted ? ": " : " '",
		 db_opt ? "--db " : "", qdb, db_opt ? " " : "", qrun);
	if (!quoted && strlen(buf) + 1 < len)
		strcat(buf, "'");
	return buf;
}

const char *db_path_default(const char *opt)
{
	const char *env;

	if (opt)
		return opt;
	env = getenv("IOTAPE_DB");
	return env && *env ? env : "iotape.db";
}

int close_stdout(void)
{
	if (fflush(stdout) || ferror(stdout))
		return error("write error on standard output: %s", strerror(errno));
	return 0;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t now_mono_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
int64_t now_real_ns(void) { return clock_ns(CLOCK_REALTIME); }

/* parse_duration() naming the units the option takes (units) when s
 * has a word no unit is */
static int duration(const char *s, const char *opt, double *out,
		    const char *units)
{
	const char *end;
	double v;

	if (dec_double(s, DEC_FRAC, &v, &end) || v > 1e12)
		return error("invalid duration '%s' for %s", s, opt);
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		v *= 60;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		/* a word after the number is a unit; "0x2s" is no number */
		return error("invalid duration '%s' for %s%s", s, opt,
			     end[strspn(end, "abcdefghijklmnopqrstuvwxyz")] ? ""
			     : units);
	*out = v;
	return 0;
}

int parse_duration(const char *s, const char *opt, double *out)
{
	return duration(s, opt, out, " (units: ms s m h)");
}

int parse_age(const char *s, const char *opt, double *out)
{
	size_t len = strlen(s);
	const char *end;
	double d;

	if (len < 2 || s[len - 1] != 'd')
		return duration(s, opt, out, " (units: ms s m h d)");
	if (dec_double(s, DEC_FRAC, &d, &end) || end != s + len - 1 || d > 1e7)
		return error("invalid duration '%s' for %s", s, opt);
	*out = d * 86400;
	return 0;
}

int parse_size(const char *s, const char *opt, uint64_t *out)
{
	const char *end;
	double v;
	double mult = 1;

	if (dec_double(s, DEC_FRAC, &v, &end) || !(v > 0))
		return error("invalid size '%s' for %s", s, opt);
	switch (*end) {
	case 'k': case 'K': mult = 1024.0; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case '\0': break;
	default: return error("invalid size '%s' for %s", s, opt);
	}
	if (*end && strcmp(end, "iB") && strcmp(end, "B"))
		return error("invalid size '%s' for %s", s, opt);
	if (v * mult >= 1.8e19)     /* past UINT64_MAX (and inf) */
		return error("invalid size '%s' for %s", s, opt);
	*out = (uint64_t)(v * mult);
	return 0;
}

int mkdir_p(const char *dir, unsigned mode, char *err, size_t errlen)
{
	char p[4096];
	size_t n = strlen(dir);
	struct stat sb;

	if (n >= sizeof(p)) {
		snprintf(err, errlen, "cannot create '%s': name too long", dir);
		return -1;
	}
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create '%s': %s", p,
				 strerror(errno));
			return -1;
		}
		p[i] = i < n ? '/' : '\0';
	}
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "'%s' is not a folder", dir);
		return -1;
	}
	return 0;
}

int loop_status(const char *dev_path, struct loop_info64 *li)
{
	int fd, rc;

	if ((fd = open(dev_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return -1;
	rc = ioctl(fd, LOOP_GET_STATUS64, li);
	close(fd);
	return rc ? -1 : 0;
}

int loop_file_stat(const char *dev_path, struct stat *st)
{
	struct loop_info64 li;

	if (loop_status(dev_path, &li))
		return -1;
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFREG;
	st->st_dev = (dev_t)li.lo_device;
	st->st_ino = (ino_t)li.lo_inode;
	return 0;
}

void fput_shown(FILE *fp, const char *s, size_t n, const char *keep)
{
	const char *run = s;

	for (const char *p = s; p < s + n; p++) {
		unsigned char c = (unsigned char)*p;
		size_t k;
		if ((c >= 0x20 && c < 0x7f) ||
		    (c && c < 0x80 && strchr(keep, c)))
			continue;
		/* a UTF-8 character whole, but a C1 control */
		if (c >= 0x80 && (k = utf8_seq(p, (size_t)(s + n - p))) > 1 &&
		    !is_c1((const unsigned char *)p)) {
			p += k - 1;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), fp);
		fprintf(fp, "<0x%02x>", c);
		run = p + 1;
	}
	fwrite(run, 1, (size_t)(s + n - run), fp);
}

/* A unit's quantity (1 time, 2 bytes, 3 bytes per second) and its size in
 * the quantity's base unit (s, B, B/s); 0 when not one of them. */
static int unit_of(const char *u, double *size)
{
	static const struct { const char *name; double s; } t[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 },
		{ "ms", 1e-3 }, { "s", 1 }, { "sec", 1 }, { "seconds", 1 },
		{ "min", 60 }, { "h", 3600 },
	}, b[] = {
		{ "B", 1 }, { "bytes", 1 }, { "kB", 1e3 }, { "KB", 1e3 }, { "MB", 1e6 },
		{ "GB", 1e9 }, { "TB", 1e12 }, { "KiB", 1024.0 },
		{ "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
		{ "TiB", 1099511627776.0 },
	};
	size_t n = strlen(u);

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(u, t[i].name)) {
			*size = t[i].s;
			return 1;
		}
	for (size_t i = 0; i < ARRAY_SIZE(b); i++) {
		size_t k = strlen(b[i].name);
		if (!strcmp(u, b[i].name)) {
			*size = b[i].s;
			return 2;
		}
		if (n == k + 2 && !strncmp(u, b[i].name, k) &&
		    !strcmp(u + k, "/s")) {
			*size = b[i].s;
			return 3;
		}
	}
	return 0;
}

int unit_factor(const char *from, const char *to, double *f)
{
	double a, b;
	int qa, qb;

	*f = 1;
	if (!from || !to || !*from || !*to || !strcmp(from, to))
		return 0;
	qa = unit_of(from, &a);
	qb = unit_of(to, &b);
	if (!qa || qa != qb)
		return -1;
	*f = a / b;
	return 0;
}
