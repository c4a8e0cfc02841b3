/* `time` and `dd` output pasted alone, as in kernel bug reports: bash's
 * real/user/sys lines (and `time -p`'s), zsh's one-line report, GNU
 * time's default two lines and its -v block, coreutils dd's "records
 * in/out" and "bytes ... copied" lines (BSD dd's "transferred in"). Each
 * time report becomes one command (the dd output before it joins it; a dd
 * with no report is a command of its own, timed by dd); command lines such
 * as "time dd ...; time sync" name them in order, and a report that names
 * its command itself (-v's "Command being timed", zsh's job) takes that
 * name and the queued line of it. Sources: bash(1) TIMEFORMAT default and
 * `time -p`, zshparam(1) TIMEFMT default ("%J  %U user %S system %P cpu
 * %*E total"), GNU time(1) default and -v formats, coreutils dd(1). Pure. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"
#include "lib/util.h"

#define MAX_QUEUE 64

struct tparse {
	const char *path;
	const struct fmt_sink *sink;
	char *err;
	size_t errlen;
	char *queue[MAX_QUEUE];     /* command lines not yet reported */
	int qfollows[MAX_QUEUE];    /* each one's FMT_NEXT_* */
	int nq;
	struct fmt_command rep;     /* the report being gathered */
	int have_rep, rep_has_sys;
	struct fmt_command dd;      /* dd output waiting for its report */
	int have_dd, dd_out;
	int status;                 /* GNU time's "exited with status N" */
	char verbose_cmd[512];
	char job[512];              /* the command zsh's report names */
	int n;
};

static void cmd_init(struct fmt_command *c)
{
	memset(c, 0, sizeof(*c));
	c->real_s = c->user_s = c->sys_s = c->dd_s = c->dd_rate = NAN;
	c->dd_bytes = c->dd_in_full = c->dd_in_partial = -1;
	c->dd_out_full = c->dd_out_partial = -1;
}

/* The plain decimal number (dec_double() with flags) at s into *v; returns
 * the text after it, NULL when s does not start with one. */
static const char *num(const char *s, unsigned flags, double *v)
{
	const char *end;

	return s && !dec_double(s, flags, v, &end) ? end : NULL;
}

/* s after the text lit, NULL when s does not start with it (s may be
 * NULL). */
static const char *lit(const char *s, const char *lit)
{
	size_t n = strlen(lit);

	return s && !strncmp(s, lit, n) ? s + n : NULL;
}

/* "0m48.776s", "1h2m3.5s", "48.77" (time -p), "1:02.3" into seconds; -1
 * for a bad one or one over 10^9 s (32 years: no command's, and the store
 * kept 99999999999m as no time at all while the import said it took it). */
static int duration(const char *s, double *out)
{
	double total = 0, v;
	const char *end;
	int parts = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	if (strchr(s, ':')) {
		/* [h:]m:ss.ss (GNU time's elapsed) */
		while (*s) {
			if (!(end = num(s, DEC_FRAC, &v)))
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
		if (!(end = num(s, DEC_FRAC, &v)))
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

static int fail(struct tparse *p, uint64_t line, const char *what)
{
	snprintf(p->err, p->errlen, "%s: line %" PRIu64 ": %s", p->path, line, what);
	return -EINVAL;
}

/* fail() with "bad WHAT 'VALUE'". */
static int bad(struct tparse *p, uint64_t line, const char *what,
	       const char *value)
{
	snprintf(p->err, p->errlen, "%s: line %" PRIu64 ": bad %s '%.40s'",
		 p->path, line, what, value);
	return -EINVAL;
}

static int emit(struct tparse *p, struct fmt_command *c)
{
	char *name = NULL;
	int rc;

	if (p->verbose_cmd[0] || p->job[0]) {
		/* the report names its command: that command's line in the
		 * queue ("$ /usr/bin/time -v CMD") is this report's */
		c->argv = p->verbose_cmd[0] ? p->verbose_cmd : p->job;
		for (int i = 0; i < p->nq; i++)
			if (!strcmp(p->queue[i], c->argv)) {
				name = p->queue[i];
				c->follows = p->qfollows[i];
				memmove(p->queue + i, p->queue + i + 1,
					(size_t)(p->nq - i - 1) * sizeof(*p->queue));
				memmove(p->qfollows + i, p->qfollows + i + 1,
					(size_t)(p->nq - i - 1) * sizeof(*p->qfollows));
				p->nq--;
				break;
			}
	} else if (p->nq) {
		name = p->queue[0];
		c->follows = p->qfollows[0];
		memmove(p->queue, p->queue + 1, (size_t)(p->nq - 1) * sizeof(*p->queue));
		memmove(p->qfollows, p->qfollows + 1,
			(size_t)(p->nq - 1) * sizeof(*p->qfollows));
		p->nq--;
		c->argv = name;
	}
	if (p->have_dd) {
		c->dd_bytes = p->dd.dd_bytes;
		c->dd_s = p->dd.dd_s;
		c->dd_rate = p->dd.dd_rate;
		c->dd_in_full = p->dd.dd_in_full;
		c->dd_in_partial = p->dd.dd_in_partial;
		c->dd_out_full = p->dd.dd_out_full;
		c->dd_out_partial = p->dd.dd_out_partial;
		p->have_dd = p->dd_out = 0;
	}
	p->n++;
	rc = p->sink->command ? p->sink->command(p->sink->ctx, c) : 0;
	free(name);
	p->verbose_cmd[0] = p->job[0] = '\0';
	return rc;
}

static int flush_rep(struct tparse *p)
{
	if (!p->have_rep)
		return 0;
	p->have_rep = p->rep_has_sys = 0;
	return emit(p, &p->rep);
}

/* Ends the report being read and starts one at line with real, user and
 * system seconds (NAN: not read yet). Returns 0 or the sink's error. */
static int new_rep(struct tparse *p, int line, double real_s, double user_s,
		   double sys_s)
{
	int rc;

	if ((rc = flush_rep(p)))
		return rc;
	cmd_init(&p->rep);
	p->rep.line = line;
	p->rep.real_s = real_s;
	p->rep.user_s = user_s;
	p->rep.sys_s = sys_s;
	p->have_rep = 1;
	return 0;
}

/* A dd block with no time report of its own: a command timed by dd. */
static int flush_dd(struct tparse *p)
{
	struct fmt_command c;

	if (!p->have_dd)
		return 0;
	cmd_init(&c);
	c.line = p->dd.line;
	return emit(p, &c);
}

/* "time A; time B && C" or "$ /usr/bin/time -v dd ...": queue the timed
 * commands' text. */
static void queue_commands(struct tparse *p, char *s)
{
	char *seg = s, *next;
	int timed = 0, pause = 0;   /* on this line so far */

	for (; seg; seg = next) {
		char *q;
		next = strchr(seg, ';');
		if (next)
			*next++ = '\0';
		while (*seg == ' ' || *seg == '\t' || *seg == '$' || *seg == '#' ||
		       *seg == '>')
			seg++;
		if (!strncmp(seg, "time ", 5))
			seg += 5;             /* bash's, zsh's keyword */
		else if (!strncmp(seg, "/usr/bin/time ", 14))
			seg += 14;
		else {
			/* an untimed command between two timed ones */
			if (timed && seg[strspn(seg, " \t")])
				pause = 1;
			continue;
		}
		seg += strspn(seg, " \t");
		while (*seg == '-') {         /* options: bash's -p, GNU time's -v */
			seg += strcspn(seg, " \t");
			seg += strspn(seg, " \t");
		}
		for (q = seg + strlen(seg); q > seg && isspace((unsigned char)q[-1]); )
			*--q = '\0';
		if (*seg && p->nq < MAX_QUEUE) {
			p->qfollows[p->nq] = !timed ? FMT_NEXT_UNKNOWN :
					     pause ? FMT_NEXT_PAUSE : FMT_NEXT_AFTER;
			p->queue[p->nq++] = strdup(seg);
			timed = 1;
			pause = 0;
		}
	}
}

/* A size with an SI or IEC prefix per second ("333 MB/s", "1.5 GB/s"). */
static double rate_of(double v, const char *unit)
{
	static const char pre[] = "kKMGTP";
	double mult = 1;
	const char *u = unit, *c = *u ? strchr(pre, *u) : NULL;

	if (c) {
		int e = c - pre < 2 ? 1 : (int)(c - pre);
		int iec = u[1] == 'i';
		mult = pow(iec ? 1024 : 1000, e);
		u += 1 + iec;
	}
	return strncmp(u, "B/s", 3) ? NAN : v * mult;
}

/* The dd lines; returns 1 when line was one, 0 if not, <0 on error. */
static int dd_line(struct tparse *p, uint64_t line, char *s)
{
	uint64_t full, part;
	const char *word = NULL, *e;

	/* "F+P records in", "F+P records out" */
	if (!dec_u64(s, &full, &e) && *e == '+' && !dec_u64(e + 1, &part, &e) &&
	    full <= INT64_MAX && part <= INT64_MAX)
		word = lit(e, " records ");
	if (word && (!strcmp(word, "in") || !strcmp(word, "out"))) {
		if (word[0] == 'i') {
			if (p->have_dd && p->dd_out) {
				int rc = flush_dd(p);
				if (rc)
					return rc;
			}
			if (!p->have_dd)
				cmd_init(&p->dd);
			p->have_dd = 1;
			p->dd.line = line;
			p->dd.dd_in_full = (int64_t)full;
			p->dd.dd_in_partial = (int64_t)part;
		} else {
			if (!p->have_dd) {
				cmd_init(&p->dd);
				p->dd.line = line;
			}
			p->have_dd = p->dd_out = 1;
			p->dd.dd_out_full = (int64_t)full;
			p->dd.dd_out_partial = (int64_t)part;
		}
		return 1;
	}
	{
		uint64_t bytes;
		double secs, rate;
		const char *c = strstr(s, " copied, "), *b = NULL, *r = NULL;
		if (!dec_u64(s, &bytes, &b) && bytes <= INT64_MAX)
			b = lit(b, " byte");
		else
			b = NULL;
		/* coreutils prints the seconds with %g: 1.5e-05 */
		if (b && c && (c = num(c + 9, DEC_FRAC | DEC_EXP, &secs)))
			r = lit(c, " s, ");
		if (r) {
			if (!p->have_dd) {
				cmd_init(&p->dd);
				p->dd.line = line;
				p->have_dd = 1;
			}
			p->dd_out = 1;
			p->dd.dd_bytes = (int64_t)bytes;
			p->dd.dd_s = secs;
			/* "186 MB/s"; "Infinity B/s" after 0 s is no rate */
			p->dd.dd_rate = (r = num(r, DEC_FRAC | DEC_EXP, &rate)) &&
					*r == ' ' ? rate_of(rate, r + 1) : NAN;
			return 1;
		}
		/* BSD: "N bytes transferred in S secs (R bytes/sec)" */
		r = NULL;
		if (!dec_u64(s, &bytes, &b) && bytes <= INT64_MAX &&
		    (b = num(lit(b, " bytes transferred in "), DEC_FRAC | DEC_EXP,
			     &secs)) && (b = lit(b, " secs (")) &&
		    (b = num(b, DEC_FRAC | DEC_EXP, &rate)))
			r = lit(b, " bytes/sec)");
		if (r) {
			if (!p->have_dd) {
				cmd_init(&p->dd);
				p->dd.line = line;
				p->have_dd = 1;
			}
			p->dd_out = 1;
			p->dd.dd_bytes = (int64_t)bytes;
			p->dd.dd_s = secs;
			p->dd.dd_rate = rate;
			return 1;
		}
	}
	return 0;
}

/* GNU time -v's lines. Returns 1 when line was one. */
static int verbose_line(struct tparse *p, uint64_t line, const char *s, int *rc)
{
	double v;

	if (!strncmp(s, "Command being timed: \"", 22)) {
		size_t n = strlen(s + 22);
		if ((*rc = flush_rep(p)))
			return 1;
		snprintf(p->verbose_cmd, sizeof(p->verbose_cmd), "%.*s",
			 (int)(n && s[22 + n - 1] == '"' ? n - 1 : n), s + 22);
		cmd_init(&p->rep);
		p->rep.line = line;
		p->have_rep = 1;
		return 1;
	}
	if (!p->have_rep || !p->verbose_cmd[0])
		return 0;
	if (!strncmp(s, "User time (seconds): ", 21)) {
		if (fmt_double(s + 21, &v))
			*rc = bad(p, line, "user time", s + 21);
		p->rep.user_s = v;
	} else if (!strncmp(s, "System time (seconds): ", 23)) {
		if (fmt_double(s + 23, &v))
			*rc = bad(p, line, "system time", s + 23);
		p->rep.sys_s = v;
	} else if (!strncmp(s, "Elapsed (wall clock) time", 25)) {
		const char *c = strstr(s, "): ");
		if (!c || duration(c + 3, &v))
			*rc = bad(p, line, "elapsed time", c ? c + 3 : s);
		p->rep.real_s = v;
	} else if (!strncmp(s, "Exit status: ", 13)) {
		uint64_t st;
		if (dec_u64(s + 13, &st, NULL) || st > 255)
			*rc = bad(p, line, "exit status", s + 13);
		else {
			p->rep.status = (int)st;
			*rc = flush_rep(p);
		}
	} else
		return strchr(s, ':') != NULL;   /* the block's other counters */
	return 1;
}

/* Whether s ends with tail; if so, cuts it off. */
static int cut_tail(char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	if (n < t || strcmp(s + n - t, tail))
		return 0;
	s[n - t] = '\0';
	return 1;
}

static int time_line(struct tparse *p, uint64_t line, char *s)
{
	char a[32], b[64], c[64], d[64];
	double v, u, y, r;
	uint64_t st;
	const char *e;
	int rc = 0;

	/* GNU time: "0.38user 11.85system 0:48.77elapsed 25%CPU (...)" */
	if (sscanf(s, "%31s %63s %63s", a, b, c) == 3 && cut_tail(a, "user") &&
	    cut_tail(b, "system") && strstr(c, "elapsed")) {
		*strstr(c, "elapsed") = '\0';
		if (dec_double(a, DEC_FRAC, &u, NULL))
			return bad(p, line, "user time", a);
		if (dec_double(b, DEC_FRAC, &y, NULL))
			return bad(p, line, "system time", b);
		if (duration(c, &r))
			return bad(p, line, "elapsed time", c);
		if ((rc = new_rep(p, line, r, u, y)))
			return rc;
		p->rep.status = p->status;
		p->status = 0;
		return (rc = flush_rep(p)) ? rc : 1;
	}
	if ((e = lit(s, "Command exited with non-zero status "))) {
		if (dec_u64(e, &st, NULL) || st > 255)
			return bad(p, line, "exit status", e);
		p->status = (int)st;
		return 1;
	}
	/* zsh: "CMD  0.38s user 11.85s system 24% cpu 48.776 total" (the
	 * total as "1:02.345" past a minute) */
	{
		char copy[1024], *t[64], *q;
		int n = 0;
		snprintf(copy, sizeof(copy), "%s", s);
		for (q = strtok(copy, " \t"); q && n < 64; q = strtok(NULL, " \t"))
			t[n++] = q;
		if (n >= 8 && !strcmp(t[n - 1], "total") &&
		    !strcmp(t[n - 3], "cpu") && !strcmp(t[n - 5], "system") &&
		    !strcmp(t[n - 7], "user")) {
			const char *start = s + (t[n - 8] - copy);
			if (!cut_tail(t[n - 8], "s") || duration(t[n - 8], &u))
				return bad(p, line, "user time", t[n - 8]);
			if (!cut_tail(t[n - 6], "s") || duration(t[n - 6], &y))
				return bad(p, line, "system time", t[n - 6]);
			if (duration(t[n - 2], &r))
				return bad(p, line, "total time", t[n - 2]);
			if ((rc = new_rep(p, line, r, u, y)))
				return rc;
			/* the job's name zsh prints before the times */
			while (start > s && (start[-1] == ' ' || start[-1] == '\t'))
				start--;
			snprintf(p->job, sizeof(p->job), "%.*s", (int)(start - s), s);
			return (rc = flush_rep(p)) ? rc : 1;
		}
	}
	/* bash: "real\t0m48.776s" / time -p: "real 48.77" */
	if (sscanf(s, "%31s %63s %63s", a, b, d) != 2 ||
	    (strcmp(a, "real") && strcmp(a, "user") && strcmp(a, "sys")))
		return 0;
	/* "real X" is a report's first line whatever X is (a bad time is an
	 * error naming the line); "user X" and "sys X" are one's when X is a
	 * number or a report is open, not prose such as "user root" */
	if (a[0] != 'r' && !isdigit((unsigned char)b[0]) && !p->have_rep)
		return 0;
	if (duration(b, &v))
		return bad(p, line, a[0] == 'r' ? "real time" :
			   a[0] == 'u' ? "user time" : "sys time", b);
	if (a[0] == 'r' || !p->have_rep || (a[0] == 'u' && !isnan(p->rep.user_s))) {
		if ((rc = new_rep(p, line, NAN, NAN, NAN)))
			return rc;
	}
	if (a[0] == 'r')
		p->rep.real_s = v;
	else if (a[0] == 'u')
		p->rep.user_s = v;
	else {
		p->rep.sys_s = v;
		if ((rc = flush_rep(p)))
			return rc;
	}
	return 1;
}

static int scan_line(struct tparse *p, uint64_t line, char *raw)
{
	char *s = raw;
	int k, rc = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	if ((k = dd_line(p, line, s)))
		return k < 0 ? k : 0;
	if (verbose_line(p, line, s, &rc))
		return rc;
	if ((k = time_line(p, line, s)))
		return k < 0 ? k : 0;
	if (strstr(s, "time ") && (strncmp(s, "time ", 5) == 0 ||
				   strstr(s, "$ time ") || strstr(s, "# time ") ||
				   strstr(s, "; time ") || strstr(s, "/usr/bin/time ")))
		queue_commands(p, s);
	return 0;
}

int fmt_time_sniff(const uint8_t *buf, size_t len)
{
	/* two of them: any one report alone (bash's three lines, time -p's,
	 * zsh's line: "s user ", "s system ", "% cpu "; GNU time's:
	 * "elapsed ", "%CPU"; its -v block: "Command being timed: ",
	 * "Elapsed (wall clock) time") or dd's lines */
	static const char *const marks[] = { "\nreal\t", "\nreal ", "\nuser\t",
		"\nuser ", "\nsys\t", "\nsys ", " records in\n",
		" records out\n", "elapsed ", "%CPU", "Command being timed: ",
		"Elapsed (wall clock) time", " bytes (", "s user ", "s system ",
		"% cpu " };
	char tmp[FMT_SNIFF_BYTES + 2];
	int hits = 0;

	tmp[0] = '\n';
	memcpy(tmp + 1, buf, len);
	tmp[len + 1] = '\0';
	for (size_t i = 0; i < len; i++)
		if (!buf[i])
			return 0;   /* not text */
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strstr(tmp, marks[i]))
			hits++;
	return hits >= 2 ? 60 : 0;
}

int fmt_time_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		   const struct fmt_sink *sink, char *err, size_t errlen)
{
	struct tparse p = { .path = path, .sink = sink, .err = err,
			    .errlen = errlen };
	char *buf = NULL;
	size_t cap = 0;
	uint64_t line = 0;
	int rc = 0, cut;

	(void)o;
	err[0] = '\0';
	while (!rc && fmt_getline(fp, &buf, &cap, &cut) >= 0)
		rc = scan_line(&p, ++line, buf);
	if (!rc)
		rc = flush_rep(&p);
	if (!rc)
		rc = flush_dd(&p);
	if (!rc && !p.n)
		rc = fail(&p, line, "no time or dd report");
	for (int i = 0; i < p.nq; i++)
		free(p.queue[i]);
	free(buf);
	return rc;
}
