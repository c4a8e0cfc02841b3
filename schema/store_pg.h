/* Inside the PostgreSQL driver only (schema/store_pg*.c): its store, its
 * connection's settings, and the binary COPY its bulk rows go through. */
#ifndef IOTAPE_STORE_PG_H
#define IOTAPE_STORE_PG_H

#include "schema/pq_dl.h"

#include "schema/store_driver.h"

/* One table's rows in COPY's binary format, not yet sent. */
struct pg_copy_buf {
	unsigned char *buf;
	size_t len, cap;
	int64_t run;            /* the run of the rows waiting */
	int oom;                /* it could not grow */
};

/* The server settings iotape gives a session a value of its own when the
 * server's is 0 (none: the URL's options, PGOPTIONS, the role's or the
 * database's settings win), and what is in force, for messages. */
enum pg_limit { PG_LOCK_TIMEOUT, PG_STATEMENT_TIMEOUT, PG_IDLE_TIMEOUT,
		PG_NLIMITS };

struct pg_store {
	struct store base;          /* first: the front's view */
	PGconn *conn;
	char *conninfo;             /* what was opened: for connecting again,
				     * a reader's and a side connection */
	char connect_timeout[16];   /* connect_timeout in force (s) */
	char limit[PG_NLIMITS][32]; /* the settings in force */
	int version;                /* the store's schema version at open */
	struct pg_copy_buf copy[STORE_NBULK]; /* rows waiting for their COPY */
	int copying;                /* the table whose COPY is open (its rows
				     * stream as they come), or -1 */
	int copy_failed;            /* sending to that COPY failed */
	size_t copy_sent;           /* bytes sent into the open COPY, */
	int64_t copy_run;           /* and the run of its rows */
	int staged;                 /* -1 not known yet; 1: bulk rows go into
				     * this session's load tables and then
				     * iotape_land() (a writer role); 0:
				     * straight into the tables (the owner) */
	int load_tables;            /* the load tables are made */
	int64_t day_run;            /* the run whose day (partition key) */
	int day;                    /* is known */
	struct pg_stmt *streaming;  /* the statement whose stream (COPY TO)
				     * holds the connection: pg_settle() */
	struct { int day; int64_t rows; } loaded[8]; /* rows loaded in this */
	int nloaded;                /* transaction, by day: iotape_analyze() */
	int implicit;               /* a transaction begun for a reader's
				     * snapshot */
	int snapshot;               /* a reader's store: its reads in one
				     * snapshot (REPEATABLE READ), from the
				     * first until a write or the close */
	char snapshot_id[64];       /* a reader's snapshot to share
				     * (pg_export_snapshot()), or "" */
	int in_commit;              /* COMMIT sent: a lost connection then is
				     * no failure to try again */
};

static inline struct pg_store *pg(struct store *st)
{
	return (struct pg_store *)st;
}

struct pg_stmt;

/* Takes the rest of an open stream's rows into memory (its statement reads
 * them from there), so the connection is free for another statement;
 * every statement calls it first. */
void pg_settle(struct pg_store *s);

/* Sets the message to "what: the server's message" (its first line; a
 * timeout's names the setting and its value) and returns its code:
 * -STORE_E_EXISTS for a unique key's violation, -STORE_E_RETRY for a
 * deadlock, a serialization failure or a connection lost before the
 * commit, -STORE_E_DENIED for a privilege the role lacks, else
 * -STORE_E_SQLITE. */
int pg_fail(struct pg_store *s, const char *what, const PGresult *res);

/* res's verdict: 0 for rows or a command done, else pg_fail()'s. */
int pg_verdict(struct pg_store *s, PGresult *r, const char *what);

/* Runs sql (one or more statements, no parameters) after ending any COPY;
 * *res gets the result (PQclear() it) when res is not NULL. Returns 0 or a
 * negative code with "what: ..." */
int pg_exec(struct pg_store *s, const char *sql, PGresult **res,
	    const char *what);

/* The partition key of run's rows (iotape_day() of its created_ns) into
 * s->day, its month's partitions made first when they are not there yet
 * (iotape_partition() on a connection of its own, committed at once).
 * Returns 0 or a negative code. */
int pg_run_day(struct pg_store *s, int64_t run);

/* A reader's store (s->snapshot): begins its snapshot's transaction when
 * none is open, so every read of a command sees one state of the store (a
 * run replaced between its look-up and its rows is not missed). Returns 0
 * or a negative code. */
int pg_snapshot(struct pg_store *s, const char *what);

/* Whether bulk rows go through the load tables (s->staged, found out on
 * first use). Returns 0 or a negative code. */
int pg_staging(struct pg_store *s);

/* Writes the rows waiting in the COPY buffers, one COPY a table (they
 * become part of the transaction). Every other statement calls it first, so
 * it sees them. Returns 0 or a negative code. */
int pg_copy_end(struct pg_store *s);

/* Drops the rows waiting in the COPY buffers (a rollback). */
void pg_copy_drop(struct pg_store *s);

/* Frees the COPY buffers. */
void pg_copy_free(struct pg_store *s);

/* The driver's operations in schema/store_pg_copy.c and
 * schema/store_pg_stmt.c (store_driver.h says what each does). */
int pg_bulk_add(struct store *st, enum store_bulk t,
		const struct store_val *v);
int pg_bulk_flush(struct store *st);
int pg_prepare(struct store *st, const char *sql, unsigned flags,
	       const char *what, struct store_stmt **out);
void pg_bind_null(struct store_stmt *q, int i);
void pg_bind_i64(struct store_stmt *q, int i, int64_t v);
void pg_bind_f64(struct store_stmt *q, int i, double v);
void pg_bind_text(struct store_stmt *q, int i, const char *v);
int pg_step(struct store_stmt *q);
int pg_col_null(struct store_stmt *q, int i);
int64_t pg_col_i64(struct store_stmt *q, int i);
double pg_col_f64(struct store_stmt *q, int i);
const char *pg_col_text(struct store_stmt *q, int i);
const void *pg_col_blob(struct store_stmt *q, int i, size_t *len);
int64_t pg_changes(struct store_stmt *q);
void pg_reset(struct store_stmt *q);
void pg_finalize(struct store_stmt *q);

#endif
