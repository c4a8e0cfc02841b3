/* Read access to one stored run for the analyzers and printers: the run's
 * row, its process names, and its events in time order. */
#ifndef IOTAPE_RUNVIEW_H
#define IOTAPE_RUNVIEW_H

#include <stdint.h>

#include "trace/blktrace_format.h"
#include "schema/store.h"

/* What a reader keeps of a run (--from, --to, --dev; btt -t/-T, blkparse
 * reading one device's file): struct store_range's rule (schema/store.h),
 * a request by its first time (Q, else D, else C: btt counts a request by
 * its Q), with times in ns from the run's first event. */
#define RV_MAX_DEVS 16
struct rv_filter {
	int64_t from_ns;        /* 0: from the start */
	int64_t to_ns;          /* INT64_MAX: to the end */
	uint32_t devs[RV_MAX_DEVS];   /* major << 20 | minor */
	int ndev;               /* 0: every device */
};

/* getopt values of the filter's options; RV_FILTER_OPTS are their rows
 * for a command's opt_def table (lib/options.h). */
enum { RV_OPT_FROM = 0x2f0, RV_OPT_TO, RV_OPT_DEV };
#define RV_FILTER_OPTS \
	{ "from", 1, RV_OPT_FROM, "T", "only what starts at or after T " \
	  "(a duration from the run's first event: 2.5s, 500ms, 1m); a " \
	  "request counts by its Q time, as btt -t does" }, \
	{ "to", 1, RV_OPT_TO, "T", "only what starts before T (btt -T)" }, \
	{ "dev", 1, RV_OPT_DEV, "M,m", "only device major,minor (8,0); " \
	  "repeat for several" }

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
	/* when tracing began, ns on the events' clock, and the wall clock then
	 * (0 when unknown): a capture's start (run_stats capture_start_ns,
	 * capture_start_wall_ns), or an imported trace's start-time record
	 * (blktrace's BLK_TN_TIMESTAMP: trace.start_ns, and trace.wall_ns at
	 * trace.wall_at_ns); genesis_ns when neither says. The devices did no
	 * traced I/O from then to the first event. */
	int64_t traced_from_ns, traced_wall_ns;
	/* from import (run_stats), -1 when not recorded: bios queued but not
	 * completed when the trace ends, completions recorded; the CPU
	 * numbers a per-CPU set had no file for ("1-28", "" for none) */
	int64_t pending_end, completions;
	char missing_cpus[128];
	/* a replay on a modelled disk (run_stats replay.engine "model"): its
	 * device times are the model's; what it replayed on
	 * (replay.targets), "" otherwise */
	int modelled;
	char model_targets[128];
	/* commands whose start and end import placed one after another (a
	 * pasted `time`: run_stats command.N.placed), not measured */
	int cmds_placed;
	/* commands whose start and end a pasted `time` output measured on
	 * its own clock (run_stats command.N.offset): apart as measured, the
	 * whole set still to be put on the trace's clock */
	int cmds_offset;
	/* of them (bit idx), those the pasted command line showed right
	 * after the one before, nothing between ("time a; time b": run_stats
	 * command.N.follows "after") */
	uint64_t cmds_after;
	/* of them (bit idx), those the pasted command line showed beside
	 * the one before, which ran in the background ("time a & time b":
	 * run_stats command.N.follows "at_once") */
	uint64_t cmds_at_once;
	/* of them (bit idx), those after a `wait`: once every one before it
	 * ended (run_stats command.N.follows "wait") */
	uint64_t cmds_wait;
	/* dd's own rate of command N (run_stats command.N.dd_bytes_per_s,
	 * a pasted dd report), bytes/s; NAN when none */
	double dd_bytes_per_s[8];
	/* pid → comm, open addressing */
	uint32_t *pids;
	char **comms;
	size_t cap;
	/* what readers keep (runview_set_filter); from, to absolute ns */
	int filtered;
	int64_t from_abs, to_abs;
	uint32_t devs[RV_MAX_DEVS];
	int ndev;
	struct store_range range;   /* the same, for the store's cursors */
};

/* An empty filter (everything kept). */
void rv_filter_init(struct rv_filter *f);

/* Takes option opt (RV_OPT_FROM, RV_OPT_TO or RV_OPT_DEV) with its
 * argument arg into f: a duration by parse_duration() (lib/util.h) or a
 * device "major,minor". Returns 0, or -1 after printing one error line. */
int rv_filter_opt(struct rv_filter *f, int opt, const char *arg);

/* Makes every reader of rv keep only what f keeps: runview_events(),
 * runview_requests_open() (rundata_load(), export, plots),
 * runview_span_ns(). Returns 0, or -1 after
 * printing one error line: --to not after --from, or a device asked for
 * (--dev) that the run does not have (naming the run's own; a typo must
 * not pass for an idle disk). */
int runview_set_filter(struct runview *rv, const struct rv_filter *f);

/* store_requests_open_range() over rv's run with rv's filter: the cursor
 * gives the requests the filter keeps. Returns 0 and *cur, or -1 after
 * printing one error line. */
int runview_requests_open(const struct runview *rv, enum store_rq_order order,
			  unsigned cols, struct store_cursor **cur);

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
 * the time across the step does not count), else last minus first event;
 * with a --from/--to window, the part of first to last event inside it. */
int64_t runview_span_ns(const struct runview *rv);

/* The process name of pid in this run, or NULL. */
const char *runview_comm(const struct runview *rv, uint32_t pid);

/* Calls fn(ctx, ev) for each event of the run in stored (time) order (those
 * the filter keeps: runview_set_filter()); stops
 * and returns fn's non-zero result, or -1 on a database error. */
int runview_events(struct runview *rv,
		   int (*fn)(void *ctx, const struct bt_event *ev), void *ctx);

/* 1 when rv's filter keeps at least one request, 0 when none, or -1 after
 * printing one error line. */
int runview_has_requests(const struct runview *rv);

/* Writes into buf (len bytes) why rv keeps no request: a run of samples
 * only (pointing at iotape vmstat or iostat), none in the run, none of
 * the devices asked for (--dev), or the window (--from, --to) empty
 * (naming the run's span), as iostat names what is empty.
 * Returns buf. */
const char *runview_why_empty(const struct runview *rv, char *buf, size_t len);

#endif
