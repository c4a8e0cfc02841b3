/* A run's summary (store.h struct store_summary) computed as `iotape
 * report` computes its figures, by whoever stores the run: a writer counts
 * its runs' requests as it stores them and writes their summaries before it
 * commits (struct run_summaries); run_summary_backfill() summarises the runs
 * an older binary stored without one. */
#ifndef IOTAPE_SUMMARY_H
#define IOTAPE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"

/* Reads run from st (inside the caller's transaction, rows not yet
 * committed included) and fills *out: per direction ([0] read, [1] write
 * and discard) the dispatched requests with data and their bytes (report's
 * per-device reads and writes, added up), and the n, mean, p50, p99 (by
 * analyze/stats.c's histogram, within 0.8%) and max of Q2C and D2C in ns
 * (report_build()'s q2c_dir and d2c_dir), NAN with n 0; the span for rates
 * (runview_span_ns(), ns). Returns 0, or -1 with a line in err (errlen
 * bytes). */
int run_summarize(struct store *st, int64_t run, struct store_summary *out,
		  char *err, size_t errlen);

struct report;

/* The summaries of the runs one transaction of a writer makes, counted
 * from their requests as the writer stores them (report_add() a row at a
 * time), so a landing run is not read back. Zeroed to start. */
struct run_summaries {
	struct run_summary_acc {
		int64_t run;
		struct report *rep;
	} *v;
	size_t n, cap;
};

/* Starts counting run, just made by store_run_create() in the writer's
 * transaction into st. s NULL: nothing. Returns 0, or -ENOMEM with st's
 * message set. */
int run_summaries_open(struct run_summaries *s, struct store *st, int64_t run);

/* Counts rq, a requests row of run that the writer stored (s NULL, or a run
 * not opened: nothing); s's list is only read (a writer thread may count
 * while the transaction's owner holds s). */
void run_summaries_add(const struct run_summaries *s, int64_t run,
		       const struct store_request *rq);

/* Writes the summary of each run counted into st (store_summary_set()),
 * inside the writer's transaction just before store_commit(), the span read
 * from the rows as they then are; then forgets them. s NULL: nothing.
 * Returns 0, or a negative store code with the store's message set
 * ("summarising run N: ..."). */
int run_summaries_write(struct run_summaries *s, struct store *st);

/* Forgets what s counted (after a rollback) and frees it. */
void run_summaries_free(struct run_summaries *s);

/* Summarises the runs of st that have none (stored by a binary or a schema
 * from before summaries), in a transaction of their own. Called by the
 * commands that store or manage runs, after opening the store. Returns 0:
 * never fails (a reader, a role that may not write or a read-only file,
 * reads the runs as they are, and fleet leaves out runs without). */
int run_summary_backfill(struct store *st);

#endif
