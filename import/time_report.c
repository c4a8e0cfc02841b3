/* `time` reports read line by line (time_report.h): bash's "real", "user"
 * and "sys" lines (time -p's too), zsh's one line, GNU time's two lines and
 * its -v block. Sources: bash(1) TIMEFORMAT default and `time -p`;
 * zshparam(1) TIMEFMT default; GNU time(1) default format and -v. */
#include "import/time_report.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"

/* Tokens of a line the reader looks at, and the bytes of it it copies: a
 * longer line is no report's (zsh's job name past that is cut). */
#define TR_TOKENS 64
#define TR_LINE 2048

int time_report_duration(const char *s, double *out)
{
	double total = 0, v;
	const char *end, *comma = strchr(s, ',');
	char dot[64];
	int parts = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	if (comma) {
		/* a decimal comma, as bash prints under a locale that writes
		 * one ("0m1,234s" in de_DE): one, and no point beside it */
		if (strchr(comma + 1, ',') || strchr(s, '.') ||
		    strlen(s) >= sizeof(dot))
			return -1;
		memcpy(dot, s, strlen(s) + 1);
		dot[comma - s] = '.';
		s = dot;
	}
	if (strchr(s, ':')) {
		/* [h:]m:ss.ss */
		while (*s) {
			if (dec_double(s, DEC_FRAC, &v, &end))
				return -1;
			total = total * 60 + v;
			s = end;
			if (*s == ':')
				s++;
			else if (*s)
				return -1;
			if (++parts > 3)
				return -1;
		}
		*out = total;
		return isfinite(total) && total <= 1e9 ? 0 : -1;
	}
	while (*s) {
		if (dec_double(s, DEC_FRAC, &v, &end))
			return -1;
		switch (*end) {
		case 'h': total += v * 3600; end++; break;
		case 'm': total += v * 60; end++; break;
		case 's': total += v; end++; break;
		case '\0': total += v; break;
		default: return -1;
		}
		s = end;
	}
	*out = total;
	return isfinite(total) && total <= 1e9 ? 0 : -1;
}

void time_report_init(struct time_reader *r, int strict,
		      int (*report)(void *ctx, const struct time_report *rep),
		      void *ctx, const char *path, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->strict = strict;
	r->report = report;
	r->ctx = ctx;
	r->path = path;
	r->err = err;
	r->errlen = errlen;
}

/* A line shaped as a report's with a bad value: strict's error, else "not
 * a report's line" (0). */
static int bad(struct time_reader *r, uint64_t line, const char *what,
	       const char *value)
{
	if (!r->strict)
		return 0;
	if (r->err && r->errlen)
		snprintf(r->err, r->errlen, "%s: line %" PRIu64 ": bad %s '%.40s'",
			 r->path, line, what, value);
	return -EINVAL;
}

int time_report_flush(struct time_reader *r)
{
	if (!r->open)
		return 0;
	r->open = r->verbose = 0;
	return r->report ? r->report(r->ctx, &r->rep) : 0;
}

/* Hands on the open report and starts one at line. */
static int start(struct time_reader *r, uint64_t line)
{
	int rc = time_report_flush(r);

	memset(&r->rep, 0, sizeof(r->rep));
	r->rep.line = line;
	r->rep.real_s = r->rep.user_s = r->rep.sys_s = NAN;
	r->open = 1;
	return rc;
}

/* Whether s ends with tail. */
static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* A line of GNU time -v's block, the block open: its times, its exit status
 * (which ends it) and its other counters ("Name (unit): value"). Returns 1
 * when s was one, 0 when the block has ended before s (handed on), <0 on
 * error. */
static int verbose_line(struct time_reader *r, uint64_t line, const char *s)
{
	const char *c;
	uint64_t st;
	double v;
	int rc;

	if (!strncmp(s, "User time (seconds): ", 21) ||
	    !strncmp(s, "System time (seconds): ", 23)) {
		int user = s[0] == 'U';
		c = s + (user ? 21 : 23);
		if (dec_double(c, DEC_FRAC, &v, NULL))
			return bad(r, line, user ? "user time" : "system time", c) ?: 1;
		*(user ? &r->rep.user_s : &r->rep.sys_s) = v;
		return 1;
	}
	if (!strncmp(s, "Elapsed (wall clock) time", 25)) {
		c = strstr(s, "): ");
		if (!c || time_report_duration(c + 3, &v))
			return bad(r, line, "elapsed time", c ? c + 3 : s) ?: 1;
		r->rep.real_s = v;
		return 1;
	}
	if (!strncmp(s, "Exit status: ", 13)) {
		if (dec_u64(s + 13, &st, NULL) || st > 255)
			return bad(r, line, "exit status", s + 13) ?: 1;
		r->rep.status = (int)st;
		return (rc = time_report_flush(r)) ? rc : 1;
	}
	if (strchr(s, ':'))
		return 1;               /* the block's other counters */
	return (rc = time_report_flush(r)) ? rc : 0;
}

/* GNU time's "Command exited with non-zero status N" and "Command
 * terminated by signal N", whose status is the next report's. Returns 1
 * when s was one, 0 when not, <0 on error. */
static int status_line(struct time_reader *r, uint64_t line, const char *s)
{
	static const char exited[] = "Command exited with non-zero status ";
	static const char killed[] = "Command terminated by signal ";
	int sig = !strncmp(s, killed, sizeof(killed) - 1);
	const char *v;
	uint64_t st;

	if (!sig && strncmp(s, exited, sizeof(exited) - 1))
		return 0;
	v = s + (sig ? sizeof(killed) : sizeof(exited)) - 1;
	if (dec_u64(v, &st, NULL) || st > (sig ? 127u : 255u))
		return bad(r, line, "exit status", v);
	r->status = (int)st + (sig ? 128 : 0);
	return 1;
}

/* A report of one line: its times, the status seen before it, the job it
 * names (job, jlen bytes; may be 0); handed on at once. */
static int one_line(struct time_reader *r, uint64_t line, double real_s,
		    double user_s, double sys_s, const char *job, size_t jlen)
{
	int rc;

	if ((rc = start(r, line)))
		return rc;
	r->rep.real_s = real_s;
	r->rep.user_s = user_s;
	r->rep.sys_s = sys_s;
	r->rep.status = r->status;
	r->status = 0;
	snprintf(r->rep.argv, sizeof(r->rep.argv), "%.*s", (int)jlen, job);
	return (rc = time_report_flush(r)) ? rc : 1;
}

/* bash's (and time -p's) "real X", "user X", "sys X". Returns 1 when s was
 * one, 0 when not, <0 on error. */
static int bash_line(struct time_reader *r, uint64_t line, char **tok)
{
	const char *w = tok[0], *v = tok[1];
	double secs;
	int rc;

	if (strcmp(w, "real") && strcmp(w, "user") && strcmp(w, "sys"))
		return 0;
	/* "real X" is a report's first line whatever X is (a bad time is an
	 * error naming the line); "user X" and "sys X" are one's when X is a
	 * number or a report is open, not prose such as "user root" */
	if (w[0] != 'r' && !isdigit((unsigned char)v[0]) && !r->open)
		return 0;
	if (time_report_duration(v, &secs))
		return bad(r, line, w[0] == 'r' ? "real time" : w[0] == 'u' ?
			   "user time" : "sys time", v);
	if (w[0] == 'r' || !r->open ||
	    (w[0] == 'u' && !isnan(r->rep.user_s)) ||
	    (w[0] == 's' && !isnan(r->rep.sys_s)))
		if ((rc = start(r, line)))
			return rc;
	if (w[0] == 'r')
		r->rep.real_s = secs;
	else if (w[0] == 'u')
		r->rep.user_s = secs;
	else {
		r->rep.sys_s = secs;
		if ((rc = time_report_flush(r)))
			return rc;
	}
	return 1;
}

int time_report_line(struct time_reader *r, uint64_t line, const char *s)
{
	char text[TR_LINE], copy[TR_LINE], *tok[TR_TOKENS], *q, *save = NULL;
	size_t len;
	int n = 0, rc;
	double u, y, t;

	s += strspn(s, " \t");
	for (len = strlen(s); len && isspace((unsigned char)s[len - 1]); len--)
		;
	if (len >= sizeof(text))
		return (rc = time_report_flush(r)) ? rc : 0;
	memcpy(text, s, len);
	text[len] = '\0';
	s = text;
	if (!strncmp(s, "Command being timed: ", 21)) {
		const char *c = s + 21;
		size_t clen = strlen(c);
		if ((rc = start(r, line)))
			return rc;
		if (*c == '"') {        /* its quotes */
			c++;
			clen--;
			if (clen && c[clen - 1] == '"')
				clen--;
		}
		snprintf(r->rep.argv, sizeof(r->rep.argv), "%.*s", (int)clen, c);
		r->rep.status = r->status;
		r->status = 0;
		r->verbose = 1;
		return 1;
	}
	if (r->verbose && (rc = verbose_line(r, line, s)))
		return rc;
	if ((rc = status_line(r, line, s)))
		return rc < 0 ? rc : (rc = time_report_flush(r)) ? rc : 1;
	memcpy(copy, text, len + 1);
	for (q = strtok_r(copy, " \t", &save); q && n < TR_TOKENS;
	     q = strtok_r(NULL, " \t", &save))
		tok[n++] = q;
	if (n == 2 && (rc = bash_line(r, line, tok)))
		return rc;
	/* GNU time: "0.38user 11.85system 0:48.77elapsed 25%CPU (...)" */
	if (n >= 3 && ends_with(tok[0], "user") && ends_with(tok[1], "system") &&
	    strstr(tok[2], "elapsed")) {
		*strstr(tok[2], "elapsed") = '\0';
		tok[0][strlen(tok[0]) - 4] = '\0';    /* "user" */
		tok[1][strlen(tok[1]) - 6] = '\0';    /* "system" */
		if (dec_double(tok[0], DEC_FRAC, &u, NULL))
			return bad(r, line, "user time", tok[0]);
		if (dec_double(tok[1], DEC_FRAC, &y, NULL))
			return bad(r, line, "system time", tok[1]);
		if (time_report_duration(tok[2], &t))
			return bad(r, line, "elapsed time", tok[2]);
		return one_line(r, line, t, u, y, "", 0);
	}
	/* its second line: "0inputs+8outputs (0major+95minor)pagefaults ..." */
	if (n >= 2 && strstr(tok[0], "inputs+") && strstr(tok[0], "outputs"))
		return (rc = time_report_flush(r)) ? rc : 1;
	/* zsh: "CMD  0.38s user 11.85s system 24% cpu 48.776 total" (the
	 * total as "1:02.345" past a minute) */
	if (n >= 8 && !strcmp(tok[n - 1], "total") && !strcmp(tok[n - 3], "cpu") &&
	    !strcmp(tok[n - 5], "system") && !strcmp(tok[n - 7], "user")) {
		const char *job_end = s + (tok[n - 8] - copy);
		if (time_report_duration(tok[n - 8], &u))
			return bad(r, line, "user time", tok[n - 8]);
		if (time_report_duration(tok[n - 6], &y))
			return bad(r, line, "system time", tok[n - 6]);
		if (time_report_duration(tok[n - 2], &t))
			return bad(r, line, "total time", tok[n - 2]);
		while (job_end > s && (job_end[-1] == ' ' || job_end[-1] == '\t'))
			job_end--;
		return one_line(r, line, t, u, y, s, (size_t)(job_end - s));
	}
	return (rc = time_report_flush(r)) ? rc : 0;
}
