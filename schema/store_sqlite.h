/* Inside the SQLite back end only (schema/store_sqlite*.c): its store, and
 * the prepare-bind-step helpers its three files share. */
#ifndef IOTAPE_STORE_SQLITE_H
#define IOTAPE_STORE_SQLITE_H

#include <sqlite3.h>

#include "schema/store_backend.h"

/* Statements prepared once per store and kept (writes in batches, and the
 * reads every report repeats). */
enum sq_stmt {
	SQ_EVENT, SQ_REQUEST, SQ_PROCESS, SQ_DEVICE, SQ_STAT, SQ_SAMPLE,
	SQ_N
};

/* Events are inserted SQ_EV_BATCH rows per statement: one multi-row INSERT
 * costs SQLite's per-statement work (cursor open, transaction check, halt)
 * once for the batch, not per row (128 rows: 1,408 parameters, far below
 * SQLite's 32,766). */
#define SQ_EV_BATCH 128
#define SQ_EV_COLS 11

struct sq_ev_row {
	int64_t v[SQ_EV_COLS - 1];  /* run .. error, in column order */
	size_t pdu_off;
	uint16_t pdu_len;
};

/* Requests rows too, SQ_RQ_BATCH per statement, flushed with the events. */
#define SQ_RQ_BATCH 64
#define SQ_RQ_COLS 25

struct sq_rq_row {
	int64_t run, id;
	struct store_request rq;
};

struct sqlite_store {
	struct store base;          /* first: the front's view */
	sqlite3 *db;
	sqlite3_stmt *stmt[SQ_N];
	sqlite3_stmt *ev_multi;     /* SQ_EV_BATCH rows */
	/* what ev_multi's parameters hold (bindings outlive a reset): a value
	 * a row slot already holds (run, dev, cpu, error...) is not bound again */
	int64_t ev_bound[SQ_EV_BATCH][SQ_EV_COLS - 1];
	uint8_t ev_bound_null[SQ_EV_BATCH]; /* pdu is bound NULL */
	int ev_bound_ok;            /* ev_bound is what ev_multi holds */
	struct sq_ev_row evb[SQ_EV_BATCH];
	int nev;
	uint8_t *evpdu;             /* payload bytes of the batched rows */
	size_t evpdu_len, evpdu_cap;
	int64_t ev_run, ev_first, ev_last; /* events.id range of the run being written */
	sqlite3_stmt *rq_multi;     /* SQ_RQ_BATCH requests rows */
	/* what rq_multi's integer parameters hold, as ev_bound */
	int64_t rq_bound[SQ_RQ_BATCH][SQ_RQ_COLS];
	uint8_t rq_bound_null[SQ_RQ_BATCH][SQ_RQ_COLS];
	int rq_bound_ok;
	struct sq_rq_row rqb[SQ_RQ_BATCH];
	int nrq;
	int fk_off;                 /* foreign keys off for a bulk transaction */
};

static inline struct sqlite_store *sq(struct store *st)
{
	return (struct sqlite_store *)st;
}

/* Sets the message to "what: SQLite's message"; returns -code. */
int sq_fail(struct sqlite_store *s, int code, const char *what);

/* Writes the batched events and requests rows (before any read or other
 * write that must see them). Returns 0 or -STORE_E_SQLITE. */
int sq_flush_events(struct sqlite_store *s);

/* The kept statement id (prepared on first use); NULL after the message is
 * set. */
sqlite3_stmt *sq_stmt(struct sqlite_store *s, enum sq_stmt id);

/* Prepares sql (a one-off statement) into *stmt; on failure sets the message
 * "what: ..." and returns -STORE_E_SQLITE. */
int sq_prepare(struct sqlite_store *s, const char *sql, sqlite3_stmt **stmt,
	       const char *what);

/* Steps stmt once expecting no row (an INSERT or UPDATE) and resets it.
 * Returns 0 or -STORE_E_SQLITE with "what: ...". */
int sq_step_done(struct sqlite_store *s, sqlite3_stmt *stmt, const char *what);

/* Binds v at i, or NULL when !present. */
void sq_bind_opt_i64(sqlite3_stmt *stmt, int i, int64_t v, int present);

/* Binds text v at i, or NULL when v is NULL. */
void sq_bind_text(sqlite3_stmt *stmt, int i, const char *v);

/* Column i as int64, or none when NULL. */
int64_t sq_col_i64_or(sqlite3_stmt *stmt, int i, int64_t none);

/* Copies text column i into out (len bytes), "" when NULL. */
void sq_col_copy(sqlite3_stmt *stmt, int i, char *out, size_t len);

/* Batched writes (schema/store_sqlite_batch.c). */
int sq_event_add(struct store *st, int64_t run, const struct bt_event *ev);
int sq_request_add(struct store *st, int64_t run, int64_t id,
		   const struct store_request *rq);
int sq_sample_add(struct store *st, int64_t run, int64_t time_ns,
		  const char *source, const char *key, double value);
int sq_replays_add(struct store *st, int64_t run,
		   const struct store_replay *rows, size_t n);

/* Reads (schema/store_sqlite_read.c). */
int sq_run_get(struct store *st, int64_t run, struct store_run *out);
int sq_runs_list(struct store *st, int count_requests,
		 const struct store_run_filter *f,
		 struct store_run_listing **out, size_t *n);
int sq_run_has(struct store *st, int64_t run, enum store_has what);
int sq_settings_get(struct store *st, int64_t run, struct store_setting **out,
		    size_t *n);
int sq_devices_get(struct store *st, int64_t run, struct store_device **out,
		   size_t *n);
int sq_processes_get(struct store *st, int64_t run,
		     struct store_process **out, size_t *n);
int sq_commands_get(struct store *st, int64_t run, struct store_command **out,
		    size_t *n);
int sq_stats_get(struct store *st, int64_t run, struct store_stat **out,
		 size_t *n);
int sq_metrics_get(struct store *st, int64_t run, struct store_metric **out,
		   size_t *n);
/* Run summaries (schema/store_sqlite_summary.c). */
int sq_summary_set(struct store *st, int64_t run, const struct store_summary *s);
int sq_summary_get(struct store *st, int64_t run, struct store_summary *out);
int sq_summary_missing(struct store *st, int64_t **ids, size_t *n);
int sq_fleet_worst(struct store *st, const char *dir, const char *ncol,
		   const char *col, int64_t since_ns, size_t limit,
		   struct store_fleet_row **out, size_t *n);
int sq_cursor_open(struct store *st, enum store_cursor_kind kind, int64_t run,
		   int iarg, unsigned mask, const char *sarg,
		   struct store_cursor **cur);
int sq_cursor_next(struct store_cursor *cur, void *row, int64_t *id);
void sq_cursor_close(struct store_cursor *cur);
int sq_requests_span(struct store *st, int64_t run, uint32_t **devs,
		     size_t *ndev, int64_t *lo, int64_t *hi);
int sq_requests_open_ids(struct store *st, int64_t run, int64_t lo,
			 int64_t hi, unsigned mask, struct store_cursor **cur);

#endif
