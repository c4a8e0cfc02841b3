/* Inside the PostgreSQL driver only (schema/store_pg*.c): its store, and
 * the binary COPY its bulk rows go through. */
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

/* A list of run ids (runs whose tables wait for their attach or drop). */
struct pg_runs {
	int64_t *id;
	size_t n, cap;
};

struct pg_store {
	struct store base;          /* first: the front's view */
	PGconn *conn;
	struct pg_copy_buf copy[STORE_NBULK]; /* rows waiting for their COPY */
	int copying;                /* the table whose COPY is open (its rows
				     * stream as they come), or -1 */
	int copy_failed;            /* sending to that COPY failed */
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
 * returns -STORE_E_EXISTS for a unique key's violation, else
 * -STORE_E_SQLITE. */
int pg_fail(struct pg_store *s, const char *what, const PGresult *res);

/* Runs sql (one or more statements, no parameters) after ending any COPY;
 * *res gets the result (PQclear() it) when res is not NULL. Returns 0 or a
 * negative code with "what: ..." */
int pg_exec(struct pg_store *s, const char *sql, PGresult **res,
	    const char *what);

/* Writes the rows waiting in the COPY buffers, one COPY a table (they
 * become part of the transaction). Every other statement calls it first, so
 * it sees them. Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int pg_copy_end(struct pg_store *s);

/* Drops the rows waiting in the COPY buffers (a rollback). */
void pg_copy_drop(struct pg_store *s);

/* Frees the COPY buffers. */
void pg_copy_free(struct pg_store *s);

/* store_driver.bulk_add() and bulk_flush(). */
int pg_bulk_add(struct store *st, enum store_bulk t,
		const struct store_val *v);
int pg_bulk_flush(struct store *st);

/* Whether run's tables are not attached yet (made in this transaction):
 * its rows are COPYed into them, not the parents. */
int pg_loading(const struct pg_store *s, int64_t run);

#endif
