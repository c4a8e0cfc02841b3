/* Inside the PostgreSQL back end only (schema/store_pg*.c): its store, the
 * binary COPY buffer its writes go through, and the helpers its three files
 * share (every value a bound parameter, one error path). */
#ifndef IOTAPE_STORE_PG_H
#define IOTAPE_STORE_PG_H

#include "schema/pq_dl.h"

#include "schema/store_backend.h"

/* The tables written with COPY ... FROM STDIN (BINARY). */
enum pg_copy {
	PG_COPY_EVENTS, PG_COPY_REQUESTS, PG_COPY_SAMPLES, PG_COPY_REPLAYS,
	PG_COPY_N
};

/* One table's rows in COPY's binary format, not yet sent. */
struct pg_copy_buf {
	unsigned char *buf;
	size_t len, cap;
	int64_t run;            /* the run of the rows waiting */
	int oom;                /* it could not grow */
};

/* A list of run ids (runs whose tables wait for their attach or drop). */
struct pg_runs {
	int64_t *id;
	size_t n, cap;
};

struct pg_store {
	struct store base;          /* first: the front's view */
	PGconn *conn;
	char *where;                /* the server as messages name it (no
				     * password) */
	struct pg_copy_buf copy[PG_COPY_N]; /* rows waiting for their COPY */
	int copying;                /* the table whose COPY is open (its rows
				     * stream as they come), or -1 */
	int copy_failed;            /* sending to that COPY failed */
	int64_t ev_run;             /* the run events were last added to, */
	int64_t ev_first, ev_last;  /* and the ids this connection gave them */
	struct pg_runs loading;     /* runs made in this transaction whose
				     * tables are not attached yet */
	struct pg_runs dropping;    /* runs deleted in this transaction whose
				     * tables are dropped at commit */
	int ncursors;               /* cursors open */
	int implicit;               /* a transaction begun for cursors only */
};

static inline struct pg_store *pg(struct store *st)
{
	return (struct pg_store *)st;
}

/* Sets the message to "what: the server's message" (its first line);
 * returns -STORE_E_SQLITE, or -STORE_E_EXISTS for a unique violation when
 * exists is set. */
int pg_fail(struct pg_store *s, const char *what, const PGresult *res);

/* Writes the rows waiting in the COPY buffers, one COPY a table (they
 * become part of the transaction). Every other statement calls it first, so
 * it sees them. Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int pg_copy_end(struct pg_store *s);

/* Drops the rows waiting in the COPY buffers (a rollback). */
void pg_copy_drop(struct pg_store *s);

/* Frees the COPY buffers. */
void pg_copy_free(struct pg_store *s);

/* Whether run's tables are not attached yet (made in this transaction):
 * its rows are COPYed into them, not the parents. */
int pg_loading(const struct pg_store *s, int64_t run);

/* Attaches the tables of run (0: of every run) made in this transaction
 * and not attached yet (their rows in: iotape_run_attach() builds their
 * keys), so the statements after see its rows through the parents. Reads
 * call it first. Returns as pg_exec(). */
int pg_attach_loading(struct pg_store *s, int64_t run);

/* Runs sql with nparams text parameters (NULL is SQL NULL) after ending any
 * COPY; *res gets the result (PQclear() it) when res is not NULL. Returns
 * 0 (rows or command done), -STORE_E_EXISTS on a unique violation, or
 * -STORE_E_SQLITE with "what: ...". */
int pg_exec(struct pg_store *s, const char *sql, int nparams,
	    const char *const *params, PGresult **res, const char *what);

/* Formats v in decimal into buf (24 bytes) and returns buf. */
const char *pg_i64(char *buf, int64_t v);

/* Field (row, col) of res as int64; none when NULL. */
int64_t pg_get_i64(const PGresult *res, int row, int col, int64_t none);

/* Field (row, col) of res as a double; NAN when NULL. */
double pg_get_double(const PGresult *res, int row, int col);

/* Copies field (row, col) of res into out (len bytes), "" when NULL. */
void pg_get_copy(const PGresult *res, int row, int col, char *out, size_t len);

/* The ops of schema/store_pg_copy.c and schema/store_pg_read.c. */
int pg_event_add(struct store *st, int64_t run, const struct bt_event *ev);
int pg_request_add(struct store *st, int64_t run, int64_t id,
		   const struct store_request *rq);
int pg_sample_add(struct store *st, int64_t run, int64_t time_ns,
		  const char *source, const char *key, double value);
int pg_replays_add(struct store *st, int64_t run,
		   const struct store_replay *rows, size_t n);
int pg_run_get(struct store *st, int64_t run, struct store_run *out);
int pg_runs_list(struct store *st, int count_requests,
		 const struct store_run_filter *f,
		 struct store_run_listing **out, size_t *n);
int pg_run_has(struct store *st, int64_t run, enum store_has what);
int pg_settings_get(struct store *st, int64_t run, struct store_setting **out,
		    size_t *n);
int pg_devices_get(struct store *st, int64_t run, struct store_device **out,
		   size_t *n);
int pg_processes_get(struct store *st, int64_t run,
		     struct store_process **out, size_t *n);
int pg_commands_get(struct store *st, int64_t run, struct store_command **out,
		    size_t *n);
int pg_stats_get(struct store *st, int64_t run, struct store_stat **out,
		 size_t *n);
int pg_metrics_get(struct store *st, int64_t run, struct store_metric **out,
		   size_t *n);
int pg_cursor_open(struct store *st, enum store_cursor_kind kind, int64_t run,
		   int iarg, unsigned mask, const char *sarg,
		   struct store_cursor **cur);
int pg_cursor_next(struct store_cursor *cur, void *row, int64_t *id);
void pg_cursor_close(struct store_cursor *cur);
/* Run summaries (schema/store_pg_summary.c). */
int pg_summary_set(struct store *st, int64_t run, const struct store_summary *s);
int pg_summary_get(struct store *st, int64_t run, struct store_summary *out);
int pg_summary_missing(struct store *st, int64_t **ids, size_t *n);
int pg_fleet_worst(struct store *st, const char *dir, const char *ncol,
		   const char *col, int64_t since_ns, size_t limit,
		   struct store_fleet_row **out, size_t *n);

#endif
