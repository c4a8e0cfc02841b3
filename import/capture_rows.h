/* A capture's rows besides its trace (settings, devices, commands, samples,
 * metrics, statistics, process names) as a text file beside the raw trace,
 * which names it: capture writes it and stores the run by importing it, so
 * a capture whose store fails (a full disk) keeps both, and `iotape import
 * FILE.rows` stores them later through the same code. */
#ifndef IOTAPE_CAPTURE_ROWS_H
#define IOTAPE_CAPTURE_ROWS_H

#include <stdint.h>
#include <stdio.h>

#include "import/import.h"

/* The file's first line. Then one row a line, fields separated by tabs,
 * each field with backslash, tab and newline written as \\, \t and \n:
 *   run NAME; trace PATH (the raw trace; absent: no events); genesis NS
 *   (the run's start when it has no events) -- these first, then
 *   kind|status|source|host|kernel VALUE (the runs row's columns);
 *   setting start|end KEY VALUE; device DEV NAME SIZE_BYTES ROLE;
 *   command IDX START_NS END_NS REAL_S USER_S SYS_S STATUS ARGV ("-" for
 *   a time not known); sample TIME_NS SOURCE KEY VALUE; metric NAME VALUE
 *   UNIT SOURCE; stat KEY VALUE; process PID COMM.
 * Times are ns on the trace's clock (CLOCK_MONOTONIC for a capture). */
#define CAPTURE_ROWS_MAGIC "iotape capture rows 1"

/* Writes one row: kind, then the n fields, escaped, tab-separated. Errors
 * show in ferror(fp). */
void capture_rows_put(FILE *fp, const char *kind, int n, const char *const *f);

/* Whether the file at path starts with CAPTURE_ROWS_MAGIC. */
int capture_rows_sniff_file(const char *path);

/* Stores the rows file at path as a run inside the caller's transaction:
 * its trace (the path it names; else the file of that name beside it) as
 * import_one() reads one, into a run named name (NULL: the file's run
 * name), or a run with no events; then every row. A run of that name must
 * not exist. Returns 0 and *run_out (may be NULL), or a negative code with
 * one line naming the file and line in err; the caller rolls back. */
int import_capture_rows(struct store *st, const struct import_opts *o,
			const char *path, const char *name, int64_t *run_out,
			char *err, size_t errlen);

#endif
