/* Samples into the store: a vmstat(8) text log as a run's "vmstat-log"
 * samples (attached to an existing run or as a run of its own), and the
 * /proc samplers' values as a run's raw samples, for live capture. */
#ifndef IOTAPE_IMPORT_SAMPLES_H
#define IOTAPE_IMPORT_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "import/import.h"
#include "schema/store.h"

/* Imports the vmstat text log at path (see vmstat_text_read()) inside the
 * caller's transaction. When name names an existing run, the rows become
 * that run's samples; else a new run (kind import, format "vmstat-text")
 * is made, named name or after the file (made unique). Each row is stored
 * as samples (source "vmstat-log", key = column name, value as printed,
 * plus key "since_boot" = 1 on since-boot rows) at one time_ns:
 *  - in a new run: the log's wall clock (printed local time read as UTC,
 *    ns) when every row's time is known (vmstat -t, or `date` lines with
 *    the interval), else row index x interval; genesis_ns = the first row's;
 *  - in an existing run: its genesis_ns + the row's offset from the first
 *    row (by those times, or row index x interval).
 * The interval is o->interval_s when > 0, else the median step of the
 * log's timestamps, else 1 s. Times are made strictly increasing (a row
 * that would share the time of the one before moves 1 ns later). What was
 * read goes into run_stats under "vmstat_log.*". `time` reports in the log
 * (bash's real/user/sys lines, GNU time's, zsh's) become commands of the
 * run (argv names the file and line; end = the last row's time before the
 * report, start = end - real: an estimate). Unless o->quiet, prints
 * warnings (memory columns frozen: VMSTAT_FROZEN_WARNING; an assumed
 * interval) on stderr; writes a one-line summary into o->summary when set.
 * Returns 0 and *run_out (may be NULL), or a
 * negative code with a one-line message naming the file (and line) in err:
 * -EINVAL for input that is not vmstat output, -EEXIST when the existing
 * run already has vmstat-log samples, -errno, or a store code. */
int import_vmstat_log(struct store *st, const struct import_opts *o,
		      const char *path, const char *name, int64_t *run_out,
		      char *err, size_t errlen);

/* Reads proc_root's vmstat, meminfo, stat and pressure files (see
 * procstat_sample()) and stores every value as a sample of run at t_ns
 * (sources "vmstat", "meminfo", "stat", "psi"), inside the caller's
 * transaction. Returns 0, or a negative code with a message in err. */
int procstat_sample_store(struct store *st, int64_t run, const char *proc_root,
			  int64_t t_ns, char *err, size_t errlen);

#endif
