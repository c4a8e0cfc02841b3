/* Inside schema/ only: what a store back end implements (struct
 * store_backend, one ops table per back end) and what the front
 * (schema/store.c) and the back ends share. Adding a back end: one file
 * store_NAME.c defining a const struct store_backend, and one row in
 * backends[] in store.c saying which paths or URLs it takes. */
#ifndef IOTAPE_STORE_BACKEND_H
#define IOTAPE_STORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"

/* How a store is opened. */
enum store_open_mode {
	STORE_OPEN_WRITE,       /* must exist; schema migrated */
	STORE_OPEN_CREATE,      /* created when absent; schema migrated */
	STORE_OPEN_EXISTING,    /* must exist, with the checks and messages of
				 * store_open_existing() */
};

/* The part of every back end's store the front knows: a back end's own
 * struct starts with it. */
struct store {
	const struct store_backend *be;
	char msg[512];          /* the last error, store_errmsg() */
	char name[512];         /* the path as messages show it, store_name() */
	/* runs store_run_finish() finished in this transaction that need a
	 * summary at commit (schema/store_summary.c) */
	int64_t *pending;
	size_t npending, pcap;
	int in_txn;             /* store_begin() ... commit or rollback */
	/* runs created in this transaction, each with the summary stream's
	 * accumulator fed their rows as they are written */
	struct store_stream { int64_t run; void *acc; } *streams;
	size_t nstreams, scap;
};

/* The part of every back end's cursor the front knows. */
enum store_cursor_kind {
	STORE_CUR_REQUESTS, STORE_CUR_EVENTS, STORE_CUR_SAMPLES, STORE_CUR_VMSTAT,
	STORE_CUR_REPLAYS,
};

struct store_cursor {
	struct store *st;
	enum store_cursor_kind kind;
	/* store_*_open_range(): rows outside it are skipped by store.c (the
	 * back ends calloc their cursors: no range) */
	int ranged;
	struct store_range range;
	uint32_t devs[STORE_RANGE_MAX_DEVS];
};

/* A back end: the same functions as store.h, less what the front derives
 * (store_run_free_name, store_setting_get, store_errmsg). Each returns what
 * its store.h namesake returns and sets st->msg on error. open() allocates
 * the back end's store (NULL only when out of memory) even when it fails;
 * close() frees it. A cursor's next() writes into the row type of its kind
 * (struct store_request plus id, struct bt_event, struct store_sample,
 * struct store_vmstat, struct store_replay). */
struct store_backend {
	const char *name;
	/* path as messages may show it (secrets left out) into out (len
	 * bytes); NULL: path as it is */
	void (*shown)(const char *path, char *out, size_t len);
	int (*open)(struct store **out, const char *path, enum store_open_mode m);
	void (*close)(struct store *st);
	int (*schema_version)(struct store *st, int *version);
	int (*begin)(struct store *st);
	int (*begin_bulk)(struct store *st);  /* NULL: begin */
	int (*commit)(struct store *st);
	int (*rollback)(struct store *st);

	int (*run_create)(struct store *st, const struct run_info *ri, int64_t *id);
	int (*run_find)(struct store *st, const char *name_or_id, int64_t *id);
	int (*run_finish)(struct store *st, int64_t run, const char *status,
			  int64_t genesis_ns);
	int (*run_set)(struct store *st, int64_t run, const char *column,
		       const char *value);
	int (*run_set_format)(struct store *st, int64_t run, const char *format,
			      int big_endian);
	int (*run_set_parent)(struct store *st, int64_t run, int64_t parent);
	int (*run_get)(struct store *st, int64_t run, struct store_run *out);
	/* f NULL: every run (store_filter_sql() turns f into SQL) */
	int (*runs_list)(struct store *st, int count_requests,
			 const struct store_run_filter *f,
			 struct store_run_listing **out, size_t *n);
	int (*run_has)(struct store *st, int64_t run, enum store_has what);
	int (*run_delete)(struct store *st, int64_t run, int64_t *kept_replays);
	int (*run_rename)(struct store *st, int64_t run, const char *name);
	int (*run_find_input)(struct store *st, const char *sha256, int64_t *id,
			      char *name, size_t namelen);
	int (*size)(struct store *st, int64_t *bytes);
	int (*vacuum)(struct store *st, int64_t *before, int64_t *after);
	int (*cache_limit)(struct store *st, int kib);   /* NULL: no cache */

	int (*setting_add)(struct store *st, int64_t run, const char *key,
			   const char *value, const char *at);
	int (*settings_get)(struct store *st, int64_t run,
			    struct store_setting **out, size_t *n);
	int (*device_add)(struct store *st, int64_t run, uint32_t dev,
			  const char *name, int64_t size_bytes, const char *role);
	int (*devices_get)(struct store *st, int64_t run,
			   struct store_device **out, size_t *n);
	int (*process_set)(struct store *st, int64_t run, uint32_t pid,
			   const char *comm);
	int (*processes_copy)(struct store *st, int64_t run, int64_t from);
	int (*processes_get)(struct store *st, int64_t run,
			     struct store_process **out, size_t *n);
	int (*command_add)(struct store *st, int64_t run,
			   const struct store_command *c);
	int (*commands_get)(struct store *st, int64_t run,
			    struct store_command **out, size_t *n);
	int (*stat_set)(struct store *st, int64_t run, const char *key,
			const char *value);
	int (*stats_get)(struct store *st, int64_t run, struct store_stat **out,
			 size_t *n);

	int (*metric_set)(struct store *st, int64_t run, const char *name,
			  double value, const char *unit, const char *source);
	/* the stored rows only, by name (the front adds the commands'); both
	 * may be NULL in a back end without metrics (the front then refuses
	 * writes and reads only the commands') */
	int (*metrics_get)(struct store *st, int64_t run,
			   struct store_metric **out, size_t *n);

	int (*event_add)(struct store *st, int64_t run, const struct bt_event *ev);
	int (*request_add)(struct store *st, int64_t run, int64_t id,
			   const struct store_request *rq);
	int (*next_request_id)(struct store *st, int64_t *id);
	int (*sample_add)(struct store *st, int64_t run, int64_t time_ns,
			  const char *source, const char *key, double value);
	int (*replays_add)(struct store *st, int64_t run,
			   const struct store_replay *rows, size_t n);

	/* cursors: iarg is the order (requests) or the enum store_vm_source
	 * (vmstat); mask the columns (requests); sarg the source or NULL
	 * (samples); the rest 0 */
	int (*cursor_open)(struct store *st, enum store_cursor_kind kind,
			   int64_t run, int iarg, unsigned mask, const char *sarg,
			   struct store_cursor **cur);
	int (*cursor_next)(struct store_cursor *cur, void *row, int64_t *id);
	void (*cursor_close)(struct store_cursor *cur);
	/* a run's requests in parts (store.h); NULL: -ENOTSUP. open_reader
	 * allocates the second handle (NULL on failure, the message in st) */
	int (*requests_span)(struct store *st, int64_t run, uint32_t **devs,
			     size_t *ndev, int64_t *lo, int64_t *hi);
	int (*requests_open_ids)(struct store *st, int64_t run, int64_t lo,
				 int64_t hi, unsigned mask,
				 struct store_cursor **cur);
	int (*open_reader)(struct store *st, struct store **out);

	/* run_summary (schema/007_summary.sql): set writes the run's rows
	 * unless it has them;
	 * get returns 1 or 0 (none); missing lists the runs without rows, by
	 * id (malloc'd); fleet_worst ranks by column col (a fixed name from
	 * schema/store_summary.c, with its count ncol) of direction dir
	 * ("read", "write"), the value divided by 1e3 (us) */
	int (*summary_set)(struct store *st, int64_t run,
			   const struct store_summary *s);
	int (*summary_get)(struct store *st, int64_t run,
			   struct store_summary *out);
	int (*summary_missing)(struct store *st, int64_t **ids, size_t *n);
	int (*fleet_worst)(struct store *st, const char *dir, const char *ncol,
			   const char *col, int64_t since_ns, size_t limit,
			   struct store_fleet_row **out, size_t *n);
};

/* The SQLite back end (schema/store_sqlite.c). */
extern const struct store_backend store_sqlite_backend;

/* The PostgreSQL back end (schema/store_pg.c), for libpq URIs and
 * connection strings. */
extern const struct store_backend store_pg_backend;

/* The summary front (schema/store_summary.c): store_run_finish() notes run
 * (when a summarizer is set), store_commit() summarises the noted runs,
 * store_begin()/store_rollback() forget them, open back-fills the runs that
 * have none (in a transaction of its own; a failure is not the open's:
 * the runs stay without), store_close() frees the list. Each returns 0 or a negative
 * store code with st->msg set. */
int store_summary_note(struct store *st, int64_t run);
/* The stream (store_set_summary_stream()): store_run_create() inside a
 * transaction opens run's accumulator, store_request_add() feeds it a row;
 * store_summary_pending() and _forget() close them. */
int store_summary_stream_open(struct store *st, int64_t run);
void store_summary_stream_add(struct store *st, int64_t run,
			      const struct store_request *rq);
int store_summary_pending(struct store *st);
void store_summary_forget(struct store *st);
int store_summary_backfill(struct store *st, enum store_open_mode m);

/* The most parameters store_filter_sql() makes. */
#define STORE_FILTER_MAX_PARAMS (5 + 2 * STORE_FILTER_MAX_WHERE)

/* Turns f (NULL: nothing) into " AND ..." conditions on the runs table
 * (its rows as `runs`) in sql (len bytes), each value a parameter written
 * MARK N (mark '$' for PostgreSQL, '?' for SQLite; N from first up), the
 * values into params[*np] (times as decimal text in num[0], num[1]; compared
 * as CAST(... AS bigint)). Returns 0, or -1 when sql is too short. */
int store_filter_sql(const struct store_run_filter *f, char mark, int first,
		     char *sql, size_t len, const char **params,
		     char (*num)[24], int *np);

/* Sets st->msg from a printf format; returns -code. */
int store_fail(struct store *st, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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
