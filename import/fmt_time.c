/* `time` and `dd` output pasted alone, as in kernel bug reports: the
 * `time` reports time_report.c reads (bash's, time -p's, zsh's, GNU
 * time's default and -v), coreutils dd's "records in/out" and "bytes ...
 * copied" lines (BSD dd's "transferred in"). Each time report becomes one
 * command (the dd output before it joins it; a dd with no report is a
 * command of its own, timed by dd); command lines such as "time dd ...;
 * time sync" name them in order, and a report that names its command
 * itself (-v's "Command being timed", zsh's job) takes that name and the
 * queued line of it; "start_s=" / "end_s=" lines before a report give
 * its measured start and end on the paste's clock, and a "[label] command
 * line" just before them names it (the corpus's seed captures write
 * both).
 * Source: coreutils dd(1). Pure. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"
#include "import/time_report.h"
#include "lib/util.h"

#define MAX_QUEUE 64
/* dd blocks kept for the time report after them */
#define MAX_DDQ 64

struct tparse {
	const char *path;
	const struct fmt_sink *sink;
	char *err;
	size_t errlen;
	char *queue[MAX_QUEUE];     /* command lines not yet reported */
	int qfollows[MAX_QUEUE];    /* each one's FMT_NEXT_* */
	int nq;
	struct time_reader tr;      /* the `time` reports */
	struct fmt_command dd;      /* dd output waiting for its report */
	int have_dd, dd_out;
	/* whole dd blocks before dd, no report between them: each a command
	 * timed by dd, or that of the report after them when they ran under
	 * it (at once, `time ... | xargs -P4 dd`, or one after another,
	 * `time (for ...; do dd ...; done)`: fold_dd()) */
	struct fmt_command ddq[MAX_DDQ];
	int nddq;
	/* "start_s=" and "end_s=" lines for the next report (NAN: none),
	 * the line of the first of them (0: none pending) */
	double start_s, end_s;
	uint64_t off_line;
	/* reports with both and without them: all or none (offsets on some
	 * commands alone put a later one before an earlier one); the first
	 * report without them */
	int n_off, n_plain;
	uint64_t plain_line;
	/* a "[label] command line" seen, queued when start_s= or end_s=
	 * follows it: its line, else "" (a bracketed line of a program's own
	 * output, "[INFO] BUILD SUCCESS", names nothing) */
	char label[512];
	int bg;                     /* the last command line queued ended
				     * with a timed command in the background
				     * ("time A &"): the next runs beside it */
	int waited;                 /* a `wait` since the last command
				     * queued: the next starts after all */
	/* untimed command lines that run dd ("$ dd if=... of=..."), kept to
	 * the end: the next dd block's name (last_dd, NULL once taken) */
	char *ddlines[MAX_QUEUE];
	int nddlines;
	const char *last_dd;
	int n;
};

static void cmd_init(struct fmt_command *c)
{
	memset(c, 0, sizeof(*c));
	c->real_s = c->user_s = c->sys_s = c->dd_s = c->dd_rate = NAN;
	c->dd_bytes = c->dd_in_full = c->dd_in_partial = -1;
	c->dd_out_full = c->dd_out_partial = -1;
	c->start_s = c->end_s = NAN;
}

/* The plain decimal number (dec_double() with flags) at s into *v; returns
 * the text after it, NULL when s does not start with one. */
static const char *num(const char *s, unsigned flags, double *v)
{
	const char *end;

	return s && !dec_double(s, flags, v, &end) ? end : NULL;
}

/* num() that also takes a decimal comma between digits, as coreutils dd
 * prints its seconds and rate under a locale that writes one
 * (LC_NUMERIC=de_DE.UTF-8: "copied, 0,0123 s, 170 MB/s"): bash's time
 * with it is read by time_report_duration(). A number with a point and a
 * comma stops at the second separator, so its unit does not follow and
 * the line is no dd line (a thousands separator is not guessed at). */
static const char *num_dc(const char *s, unsigned flags, double *v)
{
	char tmp[64];
	const char *end;
	size_t i = 0;

	if (!s)
		return NULL;
	for (; i < sizeof(tmp) - 1 && s[i]; i++) {
		if (s[i] == ',' && i && isdigit((unsigned char)s[i - 1]) &&
		    isdigit((unsigned char)s[i + 1]))
			tmp[i] = '.';
		else if (isdigit((unsigned char)s[i]) || strchr(".eE+-", s[i]))
			tmp[i] = s[i];
		else
			break;
	}
	tmp[i] = '\0';
	if (dec_double(tmp, flags, v, &end))
		return NULL;
	return s + (end - tmp);
}

/* s after the text lit, NULL when s does not start with it (s may be
 * NULL). */
static const char *lit(const char *s, const char *lit)
{
	size_t n = strlen(lit);

	return s && !strncmp(s, lit, n) ? s + n : NULL;
}

static int fail(struct tparse *p, uint64_t line, const char *what)
{
	snprintf(p->err, p->errlen, "%s: line %" PRIu64 ": %s", p->path, line, what);
	return -EINVAL;
}

/* Hands on command c: named by the report (named: -v's "Command being
 * timed", zsh's job; that line's place in the queue is taken out) or by
 * the queue's next command line; the dd output before it joined to it. */
static int emit(struct tparse *p, struct fmt_command *c, const char *named)
{
	char *name = NULL;
	int rc;

	if (named && named[0]) {
		/* the report names its command: that command's line in the
		 * queue ("$ /usr/bin/time -v CMD") is this report's */
		c->argv = named;
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
		/* the last command queued has ended: nothing runs in the
		 * background beside the next */
		if (!p->nq)
			p->bg = 0;
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
	return rc;
}

/* The kept dd blocks (p->ddq), each a command timed by dd. Returns 0 or
 * the sink's code. */
static int flush_ddq(struct tparse *p)
{
	struct fmt_command cur = p->dd;
	int have = p->have_dd, out = p->dd_out, rc = 0;

	/* each through emit(), as the current block would be: named by the
	 * queue's next command line */
	for (int i = 0; i < p->nddq && !rc; i++) {
		struct fmt_command c;
		p->dd = p->ddq[i];
		p->have_dd = 1;
		cmd_init(&c);
		c.line = p->ddq[i].line;
		rc = emit(p, &c, p->ddq[i].argv);
	}
	p->nddq = 0;
	p->dd = cur;
	p->have_dd = have;
	p->dd_out = out;
	return rc;
}

/* a + b, one of dd's counts (-1: not printed), into a. */
static void add_count(int64_t *a, int64_t b)
{
	if (b >= 0)
		*a = *a < 0 ? b : *a + b;
}

/* The command line report r will take (its own name, else the queue's
 * next line), NULL when the paste gives none. */
static const char *report_command(const struct tparse *p,
				  const struct time_report *r)
{
	return r->argv[0] ? r->argv : p->nq ? p->queue[0] : NULL;
}

/* Whether the kept dd blocks and the current one are all the output of the
 * one command report r timed, two blocks or more, each within its real
 * time:
 *  - at once (`time ls ... | xargs -P4 dd`): their seconds add up past
 *    its real time;
 *  - one after another (`time (for i in 1 2 3; do dd ...; done)`): their
 *    seconds add up to about its real time (within it, short of it by
 *    under a tenth of it and 5 ms a dd for each dd's start), and the
 *    command line, when the paste gives it, runs dd (not `dd; dd; time
 *    sync`, whose dd ran before the sync).
 * If so they are folded into p->dd (bytes, records added up; dd's seconds
 * the longest at once, their sum one after another; the rate over the
 * report's real time at once, over dd's seconds one after another) and the
 * kept ones dropped. */
static int fold_dd(struct tparse *p, const struct time_report *r)
{
	double sum = 0, longest = 0, slack;
	int64_t bytes = 0;
	const char *cmd;
	int at_once;

	if (!p->nddq || !p->have_dd || !(r->real_s > 0))
		return 0;
	for (int i = 0; i <= p->nddq; i++) {
		const struct fmt_command *d = i < p->nddq ? &p->ddq[i] : &p->dd;
		/* each within the report: a dd longer than it ran before it
		 * (`dd; dd; time sync`) */
		if (!(d->dd_s >= 0) || d->dd_bytes < 0 || d->dd_s > 1.05 * r->real_s)
			return 0;
		sum += d->dd_s;
		longest = fmax(longest, d->dd_s);
		bytes += d->dd_bytes;
	}
	at_once = sum > 1.05 * r->real_s;
	slack = 0.1 * r->real_s + 0.005 * (p->nddq + 1);
	cmd = report_command(p, r);
	if (!at_once && (sum < r->real_s - slack ||
			 (cmd && !shell_has_word(cmd, "dd"))))
		return 0;
	p->dd.line = p->ddq[0].line;
	for (int i = 0; i < p->nddq; i++) {
		add_count(&p->dd.dd_in_full, p->ddq[i].dd_in_full);
		add_count(&p->dd.dd_in_partial, p->ddq[i].dd_in_partial);
		add_count(&p->dd.dd_out_full, p->ddq[i].dd_out_full);
		add_count(&p->dd.dd_out_partial, p->ddq[i].dd_out_partial);
	}
	p->dd.dd_bytes = bytes;
	p->dd.dd_s = at_once ? longest : sum;
	p->dd.dd_rate = at_once ? (double)bytes / r->real_s :
			sum > 0 ? (double)bytes / sum : NAN;
	p->nddq = 0;
	return 1;
}

/* A whole `time` report from the reader: one command (the dd output before
 * it joined to it; dd blocks before that each a command of their own,
 * unless they were all this report's command's, at once or in a loop:
 * fold_dd()). */
static int take_report(void *ctx, const struct time_report *r)
{
	struct tparse *p = ctx;
	struct fmt_command c;
	int rc;

	if (!fold_dd(p, r) && (rc = flush_ddq(p)))
		return rc;
	/* one dd block before a report that is not its own: the report's
	 * command line runs no dd ("$ dd ...", its output, "$ time sync"), or
	 * dd took longer than the report's real time (it ran before): a
	 * command timed by dd, not sync's bytes and rate */
	if (p->have_dd && p->dd_out && r->real_s > 0) {
		const char *cmd = report_command(p, r);
		if ((cmd && !shell_has_word(cmd, "dd")) ||
		    p->dd.dd_s > 1.05 * r->real_s) {
			int nq = p->nq;
			cmd_init(&c);
			c.line = p->dd.line;
			p->nq = 0;          /* the queue's next is the report's */
			rc = emit(p, &c, p->dd.argv);
			p->nq = nq;
			if (rc)
				return rc;
		}
	}
	cmd_init(&c);
	c.line = r->line;
	c.real_s = r->real_s;
	c.user_s = r->user_s;
	c.sys_s = r->sys_s;
	c.status = r->status;
	/* the start and end measured before it: both, in order, their span
	 * its real time (to 5% and 50 ms: the seed captures' end_s - start_s
	 * is real within 25 ms) */
	if (p->off_line && r->real_s >= 0) {
		char what[200];
		if (!(p->start_s >= 0) || !(p->end_s >= 0))
			return fail(p, p->off_line, !(p->start_s >= 0) ?
				    "end_s without start_s before its report" :
				    "start_s without end_s before its report");
		if (p->end_s < p->start_s) {
			snprintf(what, sizeof(what), "end_s %.9g before start_s %.9g",
				 p->end_s, p->start_s);
			return fail(p, p->off_line, what);
		}
		if (fabs(p->end_s - p->start_s - r->real_s) > 0.05 * r->real_s + 0.05) {
			snprintf(what, sizeof(what), "start_s %.9g to end_s %.9g is "
				 "%.9g s, not its report's real time %.3f s",
				 p->start_s, p->end_s, p->end_s - p->start_s,
				 r->real_s);
			return fail(p, p->off_line, what);
		}
		c.start_s = p->start_s;
		c.end_s = p->end_s;
		p->start_s = p->end_s = NAN;
		p->off_line = 0;
		p->n_off++;
	} else if (r->real_s >= 0 && !p->n_plain++)
		p->plain_line = r->line;
	return emit(p, &c, r->argv);
}

/* A dd block with no time report of its own: a command timed by dd (the
 * kept ones first). */
static int flush_dd(struct tparse *p)
{
	struct fmt_command c;
	int rc;

	if ((rc = flush_ddq(p)))
		return rc;
	if (!p->have_dd)
		return 0;
	cmd_init(&c);
	c.line = p->dd.line;
	return emit(p, &c, p->dd.argv);
}

/* The first ';', "&&", "||" or lone '&' of s that ends a command: outside
 * quotes, parentheses and braces (`time (for i in 1 2; do dd ...; done)` is
 * one command; bash's `time` times one pipeline, so `time a && b` times
 * a); not a pipe's "|&", nor the '&' of a redirection ("2>&1", "&>f",
 * "<&3"). *len is the separator's length (1 or 2); *bg is set to 1 when it
 * is '&' (the command before it ran in the background), else 0. NULL when
 * there is none. */
static char *command_end(char *s, int *len, int *bg)
{
	const char *start = s;
	int depth = 0;
	char quote = 0;

	*bg = 0;
	*len = 1;
	for (; *s; s++)
		if (quote)
			quote = *s == quote ? 0 : quote;
		else if (*s == '\'' || *s == '"')
			quote = *s;
		else if (*s == '(' || *s == '{')
			depth++;
		else if ((*s == ')' || *s == '}') && depth)
			depth--;
		else if (depth)
			continue;
		else if (*s == ';')
			return s;
		else if ((*s == '&' && s[1] == '&') || (*s == '|' && s[1] == '|')) {
			*len = 2;
			return s;
		} else if (*s == '&') {
			if (s[1] == '>' || (s > start && strchr("|<>", s[-1])))
				continue;
			*bg = 1;
			return s;
		}
	return NULL;
}

/* s after a shell prompt before `time` or `/usr/bin/time` ("[root@box
 * ~]# time sync", "user@host:~$ time dd ...", zsh's "host% time ..."),
 * looked for before any quote (not "# time " inside an argument); s when
 * there is none. */
static char *after_prompt(char *s)
{
	static const char *const marks[] = { "# time ", "$ time ", "% time ",
		"# /usr/bin/time ", "$ /usr/bin/time ", "% /usr/bin/time ",
		"# (time ", "$ (time ", "% (time ", "# { time ", "$ { time ",
		"% { time " };
	size_t lim = strcspn(s, "'\"");
	char *best = NULL;

	for (size_t k = 0; k < sizeof(marks) / sizeof(marks[0]); k++) {
		char *m = strstr(s, marks[k]);
		if (m && (size_t)(m - s) < lim && (!best || m < best))
			best = m;
	}
	return best ? best + 2 : s;
}

/* 1 when command s is the shell's `wait` (for every background job). */
static int is_wait(const char *s)
{
	s += strspn(s, " \t");
	return !strncmp(s, "wait", 4) && (!s[4] || isspace((unsigned char)s[4]));
}

/* Cuts s at a shell comment: a '#' at its start or after a blank,
 * outside quotes ("time sync # flush; time dd" times sync alone). */
static void cut_comment(char *s)
{
	char quote = 0;

	for (char *c = s; *c; c++)
		if (quote)
			quote = *c == quote ? 0 : quote;
		else if (*c == '\'' || *c == '"')
			quote = *c;
		else if (*c == '#' && (c == s || c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			return;
		}
}

/* 1 when GNU time's options at s send its report elsewhere or in a form
 * of the caller's (-o FILE, -f FORMAT, --output, --format): no report of
 * the usual shape comes for that command. */
static int report_elsewhere(const char *s)
{
	while (*s == '-') {
		if (!strncmp(s, "-o", 2) || !strncmp(s, "-f", 2) ||
		    !strncmp(s, "--output", 8) || !strncmp(s, "--format", 8))
			return 1;
		s += strcspn(s, " \t");
		s += strspn(s, " \t");
	}
	return 0;
}

/* "time A; time B && C", "time A & time B" or "$ /usr/bin/time -v dd
 * ...": queue the timed commands' text, each with what came between it
 * and the timed one before (a line that ended with "time A &" runs A
 * beside the next line's). */
static void queue_commands(struct tparse *p, char *s)
{
	char *seg, *next;
	int timed = 0, pause = 0;   /* on this line so far */
	int bg = p->bg, ended_bg;   /* the timed one before ran in the
				     * background, nothing untimed since */

	p->bg = 0;
	s = after_prompt(s);
	cut_comment(s);
	for (seg = s; seg; seg = next) {
		char *q;
		int sep;
		next = command_end(seg, &sep, &ended_bg);
		if (next) {
			*next = '\0';
			next += sep;
		}
		while (*seg == ' ' || *seg == '\t' || *seg == '$' || *seg == '#' ||
		       *seg == '>')
			seg++;
		/* a time in a loop reports once a pass, how many unknown; in a
		 * subshell or group of several commands, for any of them: the
		 * reports from here on are not named by this line (the first
		 * pass's report took the command after the loop, before) */
		if (!strncmp(seg, "for ", 4) || !strncmp(seg, "while ", 6) ||
		    !strncmp(seg, "until ", 6)) {
			if (strstr(seg, "time ") || (next && strstr(next, "time ")))
				return;
			continue;
		}
		if ((*seg == '(' || *seg == '{') && strstr(seg, "time ")) {
			/* "(time dd ...)", "{ time dd ...; }": one command in
			 * it, timed */
			char close = *seg == '(' ? ')' : '}';
			size_t n = strlen(seg);
			while (n && isspace((unsigned char)seg[n - 1]))
				n--;
			if (n < 2 || seg[n - 1] != close)
				return;
			seg[--n] = '\0';
			while (n && isspace((unsigned char)seg[n - 1]))
				seg[--n] = '\0';
			if (n && seg[n - 1] == ';')
				seg[--n] = '\0';
			if (strchr(seg, ';') || strstr(seg, "&&") || strstr(seg, "||"))
				return;
			seg++;
			seg += strspn(seg, " \t");
		}
		if (!strncmp(seg, "time ", 5))
			seg += 5;             /* bash's, zsh's keyword */
		else if (!strncmp(seg, "/usr/bin/time ", 14))
			seg += 14;
		else {
			/* an untimed command between two timed ones; `wait`:
			 * the next starts once all before it ended */
			if (is_wait(seg))
				p->waited = 1;
			if (timed && seg[strspn(seg, " \t")]) {
				pause = 1;
				bg = p->bg = 0;
			}
			continue;
		}
		seg += strspn(seg, " \t");
		/* GNU time writing its report to a file or in a format of the
		 * caller's: none of the usual shape follows (its command took
		 * the next report, before); an untimed command here */
		if (report_elsewhere(seg)) {
			if (timed) {
				pause = 1;
				bg = p->bg = 0;
			}
			continue;
		}
		while (*seg == '-') {         /* options: bash's -p, GNU time's -v */
			seg += strcspn(seg, " \t");
			seg += strspn(seg, " \t");
		}
		for (q = seg + strlen(seg); q > seg && isspace((unsigned char)q[-1]); )
			*--q = '\0';
		if (*seg && p->nq < MAX_QUEUE) {
			p->qfollows[p->nq] = bg ? FMT_NEXT_AT_ONCE :
					     p->waited ? FMT_NEXT_WAIT :
					     !timed ? FMT_NEXT_UNKNOWN :
					     pause ? FMT_NEXT_PAUSE : FMT_NEXT_AFTER;
			p->waited = 0;
			p->queue[p->nq++] = xstrdup(seg);
			timed = 1;
			pause = 0;
			bg = ended_bg;
			p->bg = ended_bg;
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
				/* a whole block: kept for the report after it */
				if (p->nddq == MAX_DDQ) {
					int rc = flush_ddq(p);
					if (rc)
						return rc;
				}
				p->ddq[p->nddq++] = p->dd;
				p->have_dd = p->dd_out = 0;
			}
			if (!p->have_dd)
				cmd_init(&p->dd);
			p->have_dd = 1;
			p->dd.line = line;
			p->dd.argv = p->last_dd;   /* "$ dd ..." above it */
			p->last_dd = NULL;
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
		if (b && c && (c = num_dc(c + 9, DEC_FRAC | DEC_EXP, &secs)))
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
			p->dd.dd_rate = (r = num_dc(r, DEC_FRAC | DEC_EXP, &rate)) &&
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

/* "start_s=1.017" or "end_s=4.095" (seconds, from a zero the paste's
 * commands share: iotape's unit-suffixed key=value, as the corpus's seed
 * captures write them before each report; blanks around '=' allowed) for
 * the next report, which take_report() checks them against. Returns 1
 * when s was one, 0 when not, -EINVAL for a bad value or a second one
 * before a report. */
static int offset_line(struct tparse *p, uint64_t line, const char *s)
{
	const char *v = lit(s, "start_s"), *e;
	double *to = &p->start_s, x;
	char what[96];
	int klen = 7;

	if (!v && (v = lit(s, "end_s"))) {
		to = &p->end_s;
		klen = 5;
	}
	if (!v)
		return 0;
	v += strspn(v, " \t");
	if (*v++ != '=')
		return 0;
	v += strspn(v, " \t");
	if (dec_double(v, DEC_FRAC, &x, &e) || e[strspn(e, " \t")] ||
	    !isfinite(x) || x < 0 || x > 1e9) {
		snprintf(what, sizeof(what), "bad %.*s value '%.40s'", klen, s, v);
		return fail(p, line, what);
	}
	if (!isnan(*to)) {
		snprintf(what, sizeof(what), "a second %.*s before its report",
			 klen, s);
		return fail(p, line, what);
	}
	*to = x;
	if (!p->off_line)
		p->off_line = line;
	/* the label just before names it */
	if (p->label[0] && p->nq < MAX_QUEUE) {
		p->qfollows[p->nq] = FMT_NEXT_UNKNOWN;
		p->queue[p->nq++] = xstrdup(p->label);
	}
	p->label[0] = '\0';
	return 1;
}

/* "[debsums] find /usr -type f ..." (a label in brackets, a letter first,
 * then the command line; not a dmesg time "[  12.3]" nor a prompt
 * "[root@host ~]# time ..."): kept, and the command line of the next
 * report when start_s= or end_s= follows it (offset_line()). Returns 1
 * when s was one, 0 when not. */
static int label_line(struct tparse *p, const char *s)
{
	const char *e;
	size_t n;

	if (s[0] != '[' || !isalpha((unsigned char)s[1]))
		return 0;
	for (e = s + 1; isalnum((unsigned char)*e) || strchr("_.-", *e); e++)
		;
	if (*e != ']' || (e[1] != ' ' && e[1] != '\t'))
		return 0;
	e += 1 + strspn(e + 1, " \t");
	for (n = strlen(e); n && isspace((unsigned char)e[n - 1]); n--)
		;
	/* "[sudo] password for alice:" asks; it runs nothing */
	if (!n || n >= sizeof(p->label) || e[n - 1] == ':')
		return 0;
	memcpy(p->label, e, n);
	p->label[n] = '\0';
	return 1;
}

static int scan_line(struct tparse *p, uint64_t line, char *raw)
{
	char *s = raw;
	int k;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	if ((k = dd_line(p, line, s)))
		return k < 0 ? k : 0;
	if ((k = time_report_line(&p->tr, line, s)))
		return k < 0 ? k : 0;
	if ((k = offset_line(p, line, s)))
		return k < 0 ? k : 0;
	if (label_line(p, s))
		return 0;
	p->label[0] = '\0';
	if (strstr(s, "time ") && (strncmp(s, "time ", 5) == 0 ||
				   after_prompt(s) != s || strstr(s, "; time ") ||
				   strstr(s, "& time ") || strstr(s, "| time ") ||
				   strstr(s, "(time ") || strstr(s, "{ time ") ||
				   strstr(s, "/usr/bin/time "))) {
		int nq = p->nq;
		queue_commands(p, s);
		if (p->nq > nq)
			return 0;
	}
	/* a command line that timed nothing ("$ sleep 5"): the shell waited
	 * for it, so what ran in the background before is no longer known
	 * to run beside the next timed one */
	{
		size_t lim = strcspn(s, "'\""), at = strcspn(s, "$#%");
		if (at < lim && at < 80 && s[at + 1] == ' ') {
			p->bg = 0;
			if (is_wait(s + at + 2))
				p->waited = 1;
			/* "$ dd if=... of=...": the name of the dd block
			 * after it, a command timed by dd */
			if (shell_has_word(s + at + 2, "dd") && p->nddlines < MAX_QUEUE) {
				char *d = xstrdup(s + at + 2 + strspn(s + at + 2, " \t"));
				for (char *q = d + strlen(d); q > d &&
				     isspace((unsigned char)q[-1]); )
					*--q = '\0';
				p->ddlines[p->nddlines++] = d;
				p->last_dd = d;
			}
		}
	}
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
	if (hits >= 2)
		return 60;
	/* a paste whose first line, a `time` command line, runs past the
	 * window (40 KB of arguments): its report comes after it, unseen */
	if (len == FMT_SNIFF_BYTES && !memchr(buf, '\n', len))
		for (const char *const *m = (const char *const[]){ "time ",
		     "$ time ", "# time ", "/usr/bin/time ", NULL }; *m; m++)
			if (!strncmp((const char *)buf, *m, strlen(*m)))
				return 30;
	return 0;
}

/* 1 when s, the file's last line with no newline, shows it was cut: a
 * bash time line whose value lacks its closing 's' ("sys\t0m0.0" of
 * "0m0.010s"), or dd's rate line without its "/s" ("336 MB/"). A line
 * that reads whole is kept: a paste often ends with no newline, and
 * time -p's "sys 0.01" has no end to tell a cut by. */
static int cut_short(const char *s)
{
	char w[8], v[64];
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (strstr(s, " copied, "))
		return n < 2 || s[n - 2] != '/' || s[n - 1] != 's';
	if (sscanf(s, " %7s %63s", w, v) == 2 &&
	    (!strcmp(w, "real") || !strcmp(w, "user") || !strcmp(w, "sys")) &&
	    isdigit((unsigned char)v[0]) && strchr(v, 'm'))
		return v[strlen(v) - 1] != 's';
	return 0;
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
	long len;

	err[0] = '\0';
	p.start_s = p.end_s = NAN;
	time_report_init(&p.tr, 1, take_report, &p, path, err, errlen);
	while (!rc && (len = fmt_getline(fp, &buf, &cap, &cut)) >= 0) {
		if ((rc = fmt_line_nul(buf, len, path, line + 1, err, errlen)))
			break;
		if (cut && cut_short(buf)) {
			rc = fmt_cut_line(path, ++line, o, sink);
			break;
		}
		rc = scan_line(&p, ++line, buf);
	}
	if (!rc)
		rc = time_report_flush(&p.tr);
	if (!rc)
		rc = flush_dd(&p);
	if (!rc && !p.n)
		rc = fail(&p, line, "no time or dd report");
	if (!rc && p.off_line)
		rc = fail(&p, p.off_line, "start_s or end_s after the last report "
			  "(they go before the report they time)");
	if (!rc && p.n_off && p.n_plain)
		rc = fail(&p, p.plain_line, "a report without start_s and end_s "
			  "where others have them (give them for every report or "
			  "none)");
	for (int i = 0; i < p.nq; i++)
		free(p.queue[i]);
	for (int i = 0; i < p.nddlines; i++)
		free(p.ddlines[i]);
	free(buf);
	return rc;
}
