/* The one reader of `time` reports as bug reports paste them, line by
 * line, for both places they come in: pasted alone (fmt_time.c) and inside
 * a `vmstat 1` log (vmstat_text.c). It knows bash's three lines (and
 * `time -p`'s), zsh's one line, GNU time's default two lines and its -v
 * block; it hands on each report whole, once. Sources: bash(1) TIMEFORMAT
 * default and `time -p`; zshparam(1) TIMEFMT default ("%J  %U user %S
 * system %P cpu %*E total"); GNU time(1), its default format and -v. Pure:
 * no I/O. */
#ifndef IOTAPE_TIME_REPORT_H
#define IOTAPE_TIME_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* One report, whole. Seconds NAN when the report does not give them. */
struct time_report {
	uint64_t line;          /* its first line, 1-based */
	double real_s, user_s, sys_s;
	int status;             /* exit status the report gives (GNU time's
				 * "Command exited with non-zero status N" line
				 * before it, "Command terminated by signal N":
				 * 128 + N, -v's "Exit status: N"), else 0 */
	char argv[512];         /* the command the report names (zsh's job,
				 * -v's "Command being timed"), or "" */
};

/* A reader's state: set it up with time_report_init(). */
struct time_reader {
	/* set by time_report_init() */
	int strict;
	int (*report)(void *ctx, const struct time_report *r);
	void *ctx;
	const char *path;
	char *err;
	size_t errlen;
	/* the report being gathered */
	struct time_report rep;
	int open;               /* rep holds a report not yet handed on */
	int verbose;            /* inside a GNU time -v block */
	int status;             /* a status line seen, for the next report */
};

/* Sets up r: each whole report goes to report(ctx, rep), which returns 0
 * or a negative code that the reader returns as it is. strict 1: a line
 * shaped as a report's whose value is bad ("real 0mXs") is an error,
 * "PATH: line N: bad real time 'VALUE'" in err (errlen bytes); strict 0:
 * such a line is not a report's (the vmstat reader's other rules judge
 * it). */
void time_report_init(struct time_reader *r, int strict,
		      int (*report)(void *ctx, const struct time_report *rep),
		      void *ctx, const char *path, char *err, size_t errlen);

/* Reads line number line, s (no line end; leading blanks allowed).
 * Returns 1 when s is a line of a report, 0 when it is not (a report open
 * before it is handed on first: a report's lines come together), or a
 * negative code (strict's -EINVAL with err, or report()'s). */
int time_report_line(struct time_reader *r, uint64_t line, const char *s);

/* Hands on the report being gathered, if any (at the end of the input,
 * or before a line the caller took as its own). Returns 0 or report()'s
 * code. */
int time_report_flush(struct time_reader *r);

/* A duration as `time` prints one into seconds: "0m48.776s", "1h2m3.5s",
 * "0.38s", "48.77" (time -p), "1:02.3" or "1:02:03" (GNU time's elapsed,
 * zsh past a minute), with a decimal point or, as bash prints under a
 * locale that writes one, a decimal comma ("0m1,234s"). Returns 0, or -1
 * for anything else or a value over 10^9 s (32 years: no command's). */
int time_report_duration(const char *s, double *out);

#endif
