/* Importing one input into a new run of an open store, for `iotape import`
 * and for capture, which imports what it recorded. */
#ifndef IOTAPE_IMPORT_H
#define IOTAPE_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"

struct import_opts {
	int strict; /* a cut-short record is an error */
	int quiet;  /* no warnings on stderr */
	char *summary;      /* if set, a one-line summary of the import goes here */
	size_t summary_len;
	double interval_s;  /* vmstat logs: seconds between rows (0: from the
			     * log's timestamps, else 1) */
	int no_boot_row;    /* vmstat logs: no row is a since-boot average */
};

/* Reads input (see trace_input_read()) into a new run named name (NULL: from
 * the file name, made unique) inside the caller's transaction: events,
 * processes, devices, stitched requests and import statistics. Returns 0 and
 * *run_out (may be NULL), or a negative code with a one-line message naming
 * the file and offset in err; the caller then rolls back. */
int import_one(struct store *st, const struct import_opts *o, const char *input,
	       const char *name, int64_t *run_out, char *err, size_t errlen);

#endif
