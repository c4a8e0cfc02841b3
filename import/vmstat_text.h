/* Reading vmstat(8) text output as pasted in bug reports and kept in logs:
 * rows of numbers under repeated headers, with `vmstat -t` timestamps or
 * `date` lines between runs, old and new column layouts. Pure: a stream in,
 * rows out through a callback; the store import is in import_samples.c. */
#ifndef IOTAPE_VMSTAT_TEXT_H
#define IOTAPE_VMSTAT_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most columns a vmstat header line may name. */
#define VMSTAT_MAX_COLS 24

/* What to warn when vmstat_text_info.frozen_memory is set. */
#define VMSTAT_FROZEN_WARNING \
	"memory columns never change: vmstat continuous mode may have frozen " \
	"them (procps-ng 4.0.2); prefer one vmstat -t 1 2 per interval"

/* One data row of a vmstat log. Times are "log wall-clock" ns: the printed
 * local date and time read as if it were UTC (the zone the log names is in
 * vmstat_text_info.zone), good for differences, not for absolute time. */
struct vmstat_row {
	uint64_t index;      /* 0-based number among the file's data rows */
	uint64_t line;       /* 1-based line number in the file */
	int block;           /* 0-based number of the vmstat invocation */
	uint64_t block_row;  /* 0-based row number within its invocation */
	int since_boot;      /* vmstat printed it as averages since boot (the
			      * first row of an invocation), not over an
			      * interval: rates and % are not of this interval */
	int64_t stamp_ns;    /* the row's `vmstat -t` timestamp, or -1 */
	int64_t date_ns;     /* the `date` line before its invocation, or -1 */
	int64_t time_ns;     /* best known time: stamp_ns, else date_ns +
			      * block_row x the options' interval (when given,
			      * or on a block's first row), else -1 */
	int ncol;            /* number of values */
	const char *const *names; /* column names as the header has them: r b
			      * [w] swpd free buff cache [inact active] si so bi
			      * bo in cs us sy id wa [st] [gu] */
	const double *values;/* the numbers as printed (kB, kB/s, /s, %) */
};

/* One `time` report found in the log, whole (import/time_report.h reads
 * them: bash's "real", "user" and "sys" lines, time -p's, zsh's line, GNU
 * time's two lines and its -v block). Unknown fields are NAN. */
struct vmstat_time_line {
	uint64_t line;       /* 1-based line number */
	uint64_t rows_before;/* data rows read before it */
	double real_s, user_s, sys_s;
	int status;          /* GNU time's "Command exited with non-zero
			      * status N" before it, else 0 */
	char argv[512];      /* the command the report names (zsh's job,
			      * GNU time -v's "Command being timed"), or "" */
};

/* Options of a read; all-zero is the default. */
struct vmstat_text_opts {
	int64_t interval_ns; /* the log's interval when known (vmstat N: N s),
			      * for row times in `date`-separated blocks;
			      * 0: unknown */
	int no_boot_row;     /* no row is a since-boot average: the log was
			      * assembled from `vmstat -t 1 2 | tail -n 1` */
	/* Called per `time` report, once it is whole (may be NULL: such
	 * lines are then skipped). Returns 0 or a negative code that stops
	 * the read. */
	int (*time_line)(void *ctx, const struct vmstat_time_line *t);
};

/* What a read saw. */
struct vmstat_text_info {
	uint64_t rows;        /* data rows delivered */
	uint64_t boot_rows;   /* of which since-boot averages */
	uint64_t lines;       /* lines read */
	int headers;          /* column-name lines */
	int blocks;           /* vmstat invocations (see vmstat_text_read()) */
	int date_lines;       /* `date` lines */
	int time_lines;       /* `time` report lines */
	int has_stamps;       /* rows carry `vmstat -t` timestamps */
	int truncated;        /* the last line was cut short and dropped */
	int frozen_memory;    /* swpd/free/buff/cache never change within any
			       * invocation while si/so/bi/bo do: see
			       * VMSTAT_FROZEN_WARNING */
	uint64_t skipped_lines; /* text before the first header */
	char zone[16];        /* the timestamp column's zone ("UTC"), or "" */
	char columns[128];    /* the first header's column names, space-separated */
	int64_t stamp_step_ns;/* median step between successive timestamped
			       * interval rows of one invocation, 0 unknown */
	/* `date` + `vmstat N M` blocks (a cron job, a loop): the whole seconds
	 * between rows that every dated block of two rows or more and the date
	 * after it agree on (their gap over its intervals, to the date's 1 s);
	 * 0 when they do not agree or no such pair is in the log. The first
	 * such gap and its block's rows, for the message. */
	int64_t date_step_ns;
	int64_t date_gap_ns;
	uint64_t date_gap_rows;
	/* the first row whose `vmstat -t` timestamp was before the row
	 * before's in one invocation (a clock step back), 0: none; by how
	 * much. The rows from there are placed a step after the row before. */
	uint64_t clock_back_line;
	int64_t clock_back_ns;
};

/* Counts and sizes of a vmstat row are below 2^53, exact as doubles. */
#define VMSTAT_MAX_COUNT ((uint64_t)1 << 53)

/* Reads vmstat(8) output from fp (named path in messages) and calls fn once
 * per data row in file order (fn returns 0, or a negative code that stops
 * the read and is returned). Understands: one header or repeated headers
 * (the "procs ---memory---..." group line, optional, and the column-name
 * line); `vmstat -t` timestamps ("2019-03-01 10:00:01" after the numbers,
 * the zone as the last column name); layouts with and without st, with gu
 * (procps-ng 4), with w (procps 2.0, Linux 2.4), -a (inact active), -w;
 * `date` lines ("Mon Mar  4 10:00:00 UTC 2019", or "2019-03-04 10:00:00")
 * and blank lines, which start a new invocation: the first row after the
 * file's first header and after each header that follows a `date` or blank
 * line is marked since_boot, as vmstat prints it first (unless
 * opts->no_boot_row). Repeated headers with no such line between them are
 * one continuous invocation. Text before the first header (a shell prompt)
 * is skipped; `time` report lines and lines starting with '#' anywhere.
 * Sets *info (frozen_memory is decided at the end). Returns 0; -EINVAL for
 * input that is not vmstat output (no header, a row whose numbers do not
 * match its header, unknown text after a header) or a value that cannot be
 * (a count, kB or rate that is not a whole number from 0 to
 * VMSTAT_MAX_COUNT - 1; CPU % are any plain decimal number and kept as
 * printed) with a message naming path and line in err (errlen bytes);
 * -errno on a read error. A last line
 * cut short (no newline, too few fields) is dropped and counted in
 * info->truncated. Format source: vmstat(8), procps-ng vmstat.c output. */
int vmstat_text_read(FILE *fp, const char *path,
		     const struct vmstat_text_opts *opts,
		     int (*fn)(void *ctx, const struct vmstat_row *row),
		     void *ctx, struct vmstat_text_info *info,
		     char *err, size_t errlen);

/* Returns 1 when the first bytes of a file (buf, len) look like vmstat
 * output: a header's column-name line ("r b swpd free ..." or with w) in
 * the first lines, else 0. */
int vmstat_text_sniff(const uint8_t *buf, size_t len);

/* vmstat_text_sniff() on the first 4 KiB of the regular file path; 0 when it
 * is not one or cannot be read. */
int vmstat_text_sniff_file(const char *path);

/* Parses a `date` line ("Wed Aug 28 16:02:01 IST 2019", "Wed 28 Aug 2019
 * 04:02:01 PM IST", "2019-08-28 16:02:01", "2019-08-28T16:02:01") into log
 * wall-clock ns (the printed time read as UTC; the zone is ignored).
 * Returns 0, -1 when the line is not a date, or -2 when it is one that an
 * int64_t of ns does not hold (before 1677-09-21 or after 2262-04-11). */
int vmstat_text_parse_date(const char *line, int64_t *ns);

#endif
