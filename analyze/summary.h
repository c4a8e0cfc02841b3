/* A run's summary (store.h struct store_summary) computed as `iotape
 * report` computes its figures; the store's summarizer (iotape.c sets it). */
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
 * bytes). A store_summarize_fn. */
int run_summarize(struct store *st, int64_t run, struct store_summary *out,
		  char *err, size_t errlen);

/* The same figures counted from a run's rows as they are written
 * (report_add() a row at a time; the span read at commit), for
 * store_set_summary_stream(): a landing run is not read back. */
extern const struct store_summary_stream run_summary_stream;

#endif
