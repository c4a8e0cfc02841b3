/* Inside schema/ only: the store over thin drivers. The store (store.c,
 * store_runs.c, store_rows.c, store_summary.c, store_metric.c) holds every
 * statement, every row decoder and the schema (schema/NNN_*.sql) once; a
 * driver (store_sqlite.c: SQLite; store_pg*.c: PostgreSQL through libpq)
 * only opens, prepares, binds, steps, reads columns, runs transactions and
 * loads rows in bulk (SQLite: multi-row INSERTs; PostgreSQL: binary COPY).
 * Statements are written with numbered parameters (?1, ?2 ...; a driver
 * rewrites them to its own), and a statement that must differ gives its
 * dialect's text beside the common one (struct store_sql).
 * Adding a driver: one file defining a const struct store_driver and a row
 * in drivers[] (store.c) saying which paths or URLs it takes; its dialect's
 * migrations come from the same schema files (schema/embed.sh). */
#ifndef IOTAPE_STORE_DRIVER_H
#define IOTAPE_STORE_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"

/* How a store is opened. */
enum store_open_mode {
	STORE_OPEN_WRITE,       /* must exist; schema migrated */
	STORE_OPEN_CREATE,      /* created when absent; schema migrated */
	STORE_OPEN_EXISTING,    /* must exist, with the checks and messages of
				 * store_open_existing() */
	STORE_OPEN_MIGRATE,     /* as EXISTING, and migrated whatever the
				 * driver's migrate_on_open (store_migrate()) */
};

/* The SQL dialects a statement may differ in (struct store_sql). */
enum store_dialect {
	STORE_DIALECT_SQLITE,
	STORE_DIALECT_PG,
	STORE_NDIALECTS
};

/* A statement written once: sql for every driver, or its dialect's
 * override when one is given (the same parameters in the same places). */
struct store_sql {
	const char *sql;
	const char *dialect[STORE_NDIALECTS];
};

/* Statements the store keeps prepared (store_stmt_kept()): run for each row
 * of a run that has many (processes, devices, statistics), so they are
 * prepared once per store. */
enum store_kept {
	STORE_K_PROCESS, STORE_K_DEVICE, STORE_K_STAT, STORE_K_SETTING,
	STORE_K_NKEPT
};

/* The tables written in bulk (store_driver.bulk_add()). */
enum store_bulk {
	STORE_BULK_EVENTS, STORE_BULK_REQUESTS, STORE_BULK_SAMPLES,
	STORE_BULK_REPLAYS, STORE_NBULK
};

/* A column's type, for drivers whose bulk format is typed (COPY binary). */
enum store_ctype { STORE_C_I64, STORE_C_I32, STORE_C_F64, STORE_C_TEXT,
		   STORE_C_BLOB };

#define STORE_BULK_MAXCOLS 25

/* A bulk table: its name and its columns in the order of the values
 * bulk_add() is given (store_rows.c defines them). */
struct store_bulk_def {
	const char *table;
	int ncols;
	const char *names[STORE_BULK_MAXCOLS];
	enum store_ctype types[STORE_BULK_MAXCOLS];
};

extern const struct store_bulk_def store_bulk_defs[STORE_NBULK];

/* One value of a bulk row: NULL, or a value of its column's type (i for
 * the integer types, d for STORE_C_F64, p and n for text and blobs; the
 * bytes need live only until bulk_add() returns). */
struct store_val {
	int null;
	int64_t i;
	double d;
	const void *p;
	uint32_t n;
};

struct store_stmt;

/* The part of every driver's store the rest of schema/ knows: a driver's
 * own struct starts with it. */
struct store {
	const struct store_driver *drv;
	char msg[512];          /* the last error, store_errmsg() */
	char name[512];         /* the path as messages show it, store_name() */
	int in_txn;             /* store_begin() ... commit or rollback */
	/* the statements kept prepared (enum store_kept) */
	struct store_stmt *kept[STORE_K_NKEPT];
	/* the run events were last added to, and the ids they got (runs.
	 * first_event .. last_event) */
	int64_t ev_run, ev_first, ev_last;
	/* the runs this transaction created and the requests rows each got
	 * (runs.requests, written by store_run_finish()) */
	struct store_made { int64_t run, requests; int made; } *made;
	size_t nmade, mcap;
};

/* The part of every cursor the front knows. */
enum store_cursor_kind {
	STORE_CUR_REQUESTS, STORE_CUR_EVENTS, STORE_CUR_SAMPLES, STORE_CUR_VMSTAT,
	STORE_CUR_REPLAYS,
};

struct store_cursor {
	struct store *st;
	enum store_cursor_kind kind;
	struct store_stmt *q;
	const char *what;       /* "reading requests", for messages */
	unsigned mask;          /* requests: the columns selected */
	int done;               /* stepped to the end */
	/* store_*_open_range(): rows outside it are skipped */
	int ranged;
	struct store_range range;
	uint32_t devs[STORE_RANGE_MAX_DEVS];
};

/* Flags of prepare(). */
#define STORE_STMT_KEEP   1u   /* prepared once and run many times */
#define STORE_STMT_STREAM 2u   /* rows read one by one, maybe many millions:
				* the driver streams them (a server-side
				* cursor) rather than holding them all */
#define STORE_STMT_NOFLUSH 8u  /* reads no bulk table: rows waiting in
				* bulk_add()'s batches need not be written
				* first (a driver may write them anyway) */
#define STORE_STMT_GUARDED 4u  /* its failure (a unique key's violation)
				* leaves the caller's transaction usable */
#define STORE_STMT_KEYORDER 16u /* a stream whose ORDER BY is an index's
				* key (the run's rows by id): the driver has
				* them read down the index, never a whole
				* table scanned and sorted */

/* A driver. Every function taking a store sets st->msg on error and
 * returns 0 (or what it says) or a negative store code: -STORE_E_EXISTS for
 * a unique key's violation, -STORE_E_SQLITE otherwise (-ENOMEM, -ENOTSUP
 * where said). Statements are run one at a time per store, except that
 * cursors (STORE_STMT_STREAM) may be open while others run. Rows waiting
 * in bulk_add()'s batches are written before any other statement runs. */
struct store_driver {
	const char *name;
	enum store_dialect dialect;
	/* this dialect's schema/NNN_*.sql, slot N - 1 holding version N
	 * (NULL: no migration of that number in this build) */
	const char *const *migrations;
	const int *nmigrations;

	/* path as messages may show it (secrets left out) into out (len
	 * bytes); NULL: path as it is */
	void (*shown)(const char *path, char *out, size_t len);
	/* Allocates the driver's store into *out (NULL only when out of
	 * memory) and opens path, with its checks of the file or server (each
	 * message naming path when m is STORE_OPEN_EXISTING); no migration. */
	int (*open)(struct store **out, const char *path, enum store_open_mode m);
	void (*close)(struct store *st);

	/* ---- schema versions (store.c migrates) ----
	 * version: the store's schema version into *v (0 for a database
	 * without iotape's schema that may be given one) and the oldest
	 * client's schema that may still use it into *min_client; -STORE_E_NOTDB
	 * for another program's database, -STORE_E_MISSING for one without the
	 * schema when m is STORE_OPEN_EXISTING and the driver does not make
	 * stores on reading (each with its message) */
	int (*version)(struct store *st, enum store_open_mode m, int *v,
		       int *min_client);
	/* 1: an older store is migrated by whoever opens it (one user's
	 * file); 0: only by store_migrate() (a shared server's, the owner's) */
	int migrate_on_open;
	/* after store_migrate() (migrations done or not): the grants again;
	 * NULL: nothing */
	int (*after_migrate)(struct store *st);
	/* a transaction that migrates: taken so no other writer migrates at
	 * the same time */
	int (*migrate_begin)(struct store *st);
	/* records version v as applied (in the migration's transaction) */
	int (*set_version)(struct store *st, int v);

	/* ---- transactions ---- bulk: a load that only adds rows to runs
	 * it creates (the driver may skip checks such rows always pass) */
	int (*begin)(struct store *st, int bulk);
	int (*commit)(struct store *st);
	int (*rollback)(struct store *st);
	/* runs sql (one or more statements, no parameters, no rows) */
	int (*exec)(struct store *st, const char *sql, const char *what);

	/* ---- statements ----
	 * prepare: sql with ?N parameters, flags STORE_STMT_*; what names it
	 * in messages ("reading runs"); *q NULL on failure */
	int (*prepare)(struct store *st, const char *sql, unsigned flags,
		       const char *what, struct store_stmt **q);
	/* parameters, 1-based; text is copied (or used until the next step) */
	void (*bind_null)(struct store_stmt *q, int i);
	void (*bind_i64)(struct store_stmt *q, int i, int64_t v);
	void (*bind_f64)(struct store_stmt *q, int i, double v);
	void (*bind_text)(struct store_stmt *q, int i, const char *v);
	/* the next row: 1, 0 when there are no more (or the statement returns
	 * none), or a negative code */
	int (*step)(struct store_stmt *q);
	/* columns of the current row, 0-based: NULL reads as 0, 0.0, NULL;
	 * text and blobs are valid until the next step */
	int (*col_null)(struct store_stmt *q, int i);
	int64_t (*col_i64)(struct store_stmt *q, int i);
	double (*col_f64)(struct store_stmt *q, int i);
	const char *(*col_text)(struct store_stmt *q, int i);
	const void *(*col_blob)(struct store_stmt *q, int i, size_t *len);
	/* rows the last step of an INSERT, UPDATE or DELETE changed */
	int64_t (*changes)(struct store_stmt *q);
	/* ready to run again (bindings kept) */
	void (*reset)(struct store_stmt *q);
	void (*finalize)(struct store_stmt *q);

	/* ---- bulk rows ----
	 * one row of table t (its store_bulk_defs[] columns, values[] in that
	 * order); written by the next statement, commit or bulk_flush() */
	int (*bulk_add)(struct store *st, enum store_bulk t,
			const struct store_val *values);
	int (*bulk_flush)(struct store *st);

	/* ---- the database ---- */
	int (*size)(struct store *st, int64_t *bytes);
	int (*vacuum)(struct store *st);
	int (*cache_limit)(struct store *st, int kib);   /* NULL: no cache */
	/* a second handle for a reader on another thread (store.h
	 * store_open_reader()); NULL: -ENOTSUP */
	int (*open_reader)(struct store *st, struct store **out);
	/* connects again after the connection was lost (the transaction is
	 * gone); NULL: nothing to do */
	int (*reconnect)(struct store *st);
	/* whether the role may act as the store's owner (migrate, expire);
	 * NULL: yes */
	int (*admin)(struct store *st);
	/* store_expire()'s second part: drops the partitions that hold only
	 * rows of runs made before day before_day (days since 1970), *dropped
	 * the tables dropped; NULL: nothing to drop. keep_from (a driver's
	 * setting for the transaction that deletes the runs first) is what
	 * expire_begin() sets: rows in the partitions about to go are not
	 * deleted one by one */
	int (*expire_begin)(struct store *st, int before_day);
	int (*expire)(struct store *st, int before_day, int64_t *dropped);
};

/* The SQLite driver (schema/store_sqlite.c). */
extern const struct store_driver store_sqlite_driver;

/* The PostgreSQL driver (schema/store_pg.c), for libpq URIs and connection
 * strings. */
extern const struct store_driver store_pg_driver;

/* ---- statements, for the store's own files ---- */

/* The text of s in st's dialect. */
const char *store_sql_text(const struct store *st, const struct store_sql *s);

/* Prepares s (store_sql_text()) with flags into *q and binds its parameters
 * from fmt, one letter each, from ?1 on:
 *   'i' int64_t            'o' int64_t, int present: the value, or NULL
 *   'd' double (NULL when not finite)
 *   't' const char * (NULL stays NULL)   'n' none: NULL
 * Returns 0 or a negative code (message "what: ..."). */
int store_prep(struct store *st, const struct store_sql *s, unsigned flags,
	       const char *what, struct store_stmt **q, const char *fmt, ...);

/* store_prep() of s, stepped to its end and finalized, expecting no row:
 * the rows it changed into *changed unless NULL. Returns 0, -STORE_E_EXISTS
 * on a unique key's violation, or a negative code. */
int store_do(struct store *st, const struct store_sql *s, const char *what,
	     int64_t *changed, const char *fmt, ...);

/* The first column of the first row of s as an int64 (0 when there is no
 * row or it is NULL) into *out. */
int store_one_i64(struct store *st, const struct store_sql *s,
		  const char *what, int64_t *out, const char *fmt, ...);

/* The kept statement k (prepared on first use); NULL after the message is
 * set. Bind it, step it, then reset it. */
struct store_stmt *store_stmt_kept(struct store *st, enum store_kept k);

/* Steps q once expecting no row, then resets it. */
int store_step_done(struct store *st, struct store_stmt *q);

/* Adds a row of table t (bulk_add()). */
int store_bulk(struct store *st, enum store_bulk t, const struct store_val *v);

/* Sets st->msg from a printf format; returns -code. */
int store_fail(struct store *st, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- schema/store_runs.c ---- */

/* The metrics table's rows of run (store_metric.c adds the commands'). */
int store_metric_row_set(struct store *st, int64_t run, const char *name,
			 double value, const char *unit, const char *source);
int store_metric_rows_get(struct store *st, int64_t run,
			  struct store_metric **out, size_t *n);

/* run_summary's rows: read (1, or 0 when the run has none) and the ranking of store_fleet_worst() by
 * column col (a fixed name from store_summary.c, with its count ncol) of
 * direction dir ("read", "write"), the value divided by 1e3 (us). */
int store_summary_read(struct store *st, int64_t run,
		       struct store_summary *out);
int store_fleet_rank(struct store *st, const char *dir, const char *ncol,
		     const char *col, int64_t since_ns, size_t limit,
		     struct store_fleet_row **out, size_t *n);

/* One more requests row of run, counted when this transaction made it. */
void store_runs_count_request(struct store *st, int64_t run);

/* At the commit: runs.requests of each run this transaction wrote requests
 * of (or made): the count when it made the run, else NULL. */
int store_runs_counts(struct store *st);

/* Forgets what st knows of run's events (it is being deleted). */
void store_runs_forget(struct store *st, int64_t run);

/* 1 when run ids lo..hi (inclusive) may be given to a new run's requests:
 * SQLite's ids are the file's (a run pulled in may need new ones),
 * PostgreSQL keys them per run; 0 when some are taken; or a negative code. */
int store_request_ids_free(struct store *st, int64_t lo, int64_t hi);

/* ---- schema/store_summary.c ---- */
/* writes run's two rows unless it has them */
int store_summary_write(struct store *st, int64_t run,
			const struct store_summary *s);

/* The most parameters store_filter_sql() makes. */
#define STORE_FILTER_MAX_PARAMS (5 + 2 * STORE_FILTER_MAX_WHERE)

/* Turns f (NULL: nothing) into " AND ..." conditions on the runs table
 * (its rows as `runs`) in sql (len bytes), each value a parameter ?N (N from
 * first up), the values into params[*np] (times as decimal text in num[0],
 * num[1]; compared as CAST(... AS bigint)). Returns 0, or -1 when sql is too
 * short. */
int store_filter_sql(const struct store_run_filter *f, int first, char *sql,
		     size_t len, const char **params, char (*num)[24], int *np);

/* ---- building the lists the *_get functions return ----
 * Rows and their strings go into one malloc'd block the caller free()s:
 * rows are appended with store_list_row(), strings with store_list_str()
 * (which keeps an offset in the row's const char * field until
 * store_list_finish() turns the offsets into pointers). */
struct store_list {
	size_t row_size;
	const size_t *str_fields;  /* offsetof() each const char * field */
	size_t nstr;
	char *rows;
	size_t n, cap;
	char *pool;
	size_t plen, pcap;
	int oom;
};

/* Starts an empty list of rows of row_size bytes with nstr string fields at
 * the offsets str_fields. */
void store_list_init(struct store_list *l, size_t row_size,
		     const size_t *str_fields, size_t nstr);

/* A new zeroed row (NULL when out of memory; the list remembers). */
void *store_list_row(struct store_list *l);

/* Copies s (NULL stays NULL) into the list; store the result in a string
 * field of a row of this list. */
const char *store_list_str(struct store_list *l, const char *s);

/* Hands the rows out as one block (*out, *n; *out NULL when there are no
 * rows) and frees the list. Returns 0 or -ENOMEM (message in st). */
int store_list_finish(struct store *st, struct store_list *l, void **out,
		      size_t *n);

/* Frees the list without handing it out. */
void store_list_free(struct store_list *l);

#endif
