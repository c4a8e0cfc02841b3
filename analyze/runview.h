/* Read access to one stored run for the analyzers and printers: the run's
 * row, its process names, and its events in time order. */
#ifndef IOTAPE_RUNVIEW_H
#define IOTAPE_RUNVIEW_H

#include <stdint.h>

#include "capture/blktrace_format.h"
#include "schema/store.h"

struct runview {
	struct store *st;
	int owns_store;         /* runview_open opened st */
	int64_t id;
	char name[256];
	char kind[16];
	char status[16];
	char format[32];
	char source[1024];
	int64_t genesis_ns;     /* first event's time */
	int64_t first_event, last_event; /* events.id range, 0 when none */
	int64_t last_ns;        /* last event's time */
	/* from import (run_stats), 0 for older runs: the events' earliest and
	 * latest times, and the time that had I/O (span split at clock
	 * steps, the pieces added up) */
	int64_t min_ns, max_ns, active_ns;
	/* from import (run_stats), -1 when not recorded: bios queued but not
	 * completed when the trace ends, completions recorded; the CPU
	 * numbers a per-CPU set had no file for ("1-28", "" for none) */
	int64_t pending_end, completions;
	char missing_cpus[128];
	/* pid → comm, open addressing */
	uint32_t *pids;
	char **comms;
	size_t cap;
};

/* Opens the database at db (which must exist: store_open_existing()) and
 * the run named (or numbered) run. Prints one error line and returns -1 on
 * failure. */
int runview_open(struct runview *rv, const char *db, const char *run);

/* Loads run into rv from an already open store (rv->st = st, not owned). */
int runview_load(struct runview *rv, struct store *st, const char *run);

/* Releases what runview_open/runview_load took (closes the store only when
 * runview_open opened it). */
void runview_close(struct runview *rv);

/* The run's span for rates (IOPS, MB/s), ns, never negative: the time that
 * had I/O when import measured it (a clock step splits the timeline and
 * the time across the step does not count), else last minus first event. */
int64_t runview_span_ns(const struct runview *rv);

/* The process name of pid in this run, or NULL. */
const char *runview_comm(const struct runview *rv, uint32_t pid);

/* Calls fn(ctx, ev) for each event of the run in stored (time) order; stops
 * and returns fn's non-zero result, or -1 on a database error. */
int runview_events(struct runview *rv,
		   int (*fn)(void *ctx, const struct bt_event *ev), void *ctx);

#endif
