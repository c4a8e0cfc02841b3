/* The iotape store: one SQLite file holding runs, their events, stitched
 * requests, samples and settings. A thin API over SQLite that never prints
 * and never exits: functions return 0 or a negative code and leave a message
 * in store_errmsg(). The schema lives in schema/NNN_*.sql. */
#ifndef IOTAPE_STORE_H
#define IOTAPE_STORE_H

#include <stdint.h>
#include <sqlite3.h>

#include "../capture/blktrace_format.h"

#define STORE_SCHEMA_VERSION 3

enum store_err {
	STORE_E_SQLITE = 1,   /* an SQLite call failed; see store_errmsg() */
	STORE_E_NEWER = 2,    /* the file's schema is newer than this binary's */
	STORE_E_NOTDB = 3,    /* the file is not an SQLite database */
	STORE_E_NOTFOUND = 4, /* no such run */
	STORE_E_EXISTS = 5,   /* a run of that name exists */
};

struct store;

/* Opens (creating when create is 1) the database at path and brings its
 * schema to STORE_SCHEMA_VERSION inside a transaction. Sets a 10 s busy
 * timeout so concurrent writers wait. Returns 0 and *out, or -STORE_E_NOTDB,
 * -STORE_E_NEWER, -STORE_E_SQLITE with *out set anyway so store_errmsg()
 * works (release it with store_close()). */
int store_open(struct store **out, const char *path, int create);

/* Closes the database; NULL is fine. */
void store_close(struct store *st);

/* The last error's one-line message (no file name, no newline). */
const char *store_errmsg(const struct store *st);

/* The SQLite handle, for analyzers' own read-only queries. */
sqlite3 *store_db(struct store *st);

/* Transactions: BEGIN IMMEDIATE / COMMIT / ROLLBACK. Return 0 or -STORE_E_SQLITE. */
int store_begin(struct store *st);
int store_commit(struct store *st);
int store_rollback(struct store *st);

/* What a new run row holds. Strings may be NULL. */
struct run_info {
	const char *name;
	const char *kind;    /* "import", "capture", "replay" */
	int64_t parent;      /* 0 for none */
	const char *host;
	const char *kernel;
	const char *source;
	const char *format;
	int big_endian;
	const char *notes;
};

/* Inserts a run; returns 0 and its id in *id, -STORE_E_EXISTS when the name
 * is taken, or -STORE_E_SQLITE. */
int store_run_create(struct store *st, const struct run_info *ri, int64_t *id);

/* Picks a free run name "PREFIX", "PREFIX-2", ... into out (outlen bytes). */
int store_run_free_name(struct store *st, const char *prefix, char *out,
			size_t outlen);

/* Finds a run by name or by numeric id string; returns 0 and *id, or
 * -STORE_E_NOTFOUND. */
int store_run_find(struct store *st, const char *name_or_id, int64_t *id);

/* Sets the run's status, genesis time and event id range (from the events
 * this connection inserted for it). Returns 0 or -STORE_E_SQLITE. */
int store_run_finish(struct store *st, int64_t run, const char *status,
		     int64_t genesis_ns);

/* Appends one event of run (ev as decoded; pdu stored as a BLOB). Returns 0
 * or -STORE_E_SQLITE. Call inside a transaction for speed. */
int store_event_add(struct store *st, int64_t run, const struct bt_event *ev);

/* A time not seen (stored as NULL). */
#define STORE_NO_TIME INT64_MIN

/* One stitched I/O; times are STORE_NO_TIME when the action was not seen
 * (stored NULL), d_sector/d_bytes are NULL unless has_d, merged_into and
 * split_from NULL when 0. */
struct store_request {
	uint32_t dev;
	uint64_t sector;
	uint32_t bytes;
	char rwbs[8];
	uint64_t cats;
	uint32_t pid;
	int64_t q_ns, g_ns, m_ns, i_ns, d_ns, c_ns;
	uint64_t d_sector;
	uint32_t d_bytes;
	int has_d;
	uint32_t requeues;
	int error;
	int64_t merged_into;
	int d_head;            /* this row stands for its dispatch (one per D) */
	int has_seek;
	int64_t seek_sectors;  /* btt D2D distance of that dispatch */
	int64_t split_from;
	int split;             /* one half of a bio an X split */
	int has_orig;
	uint32_t orig_dev;
	uint64_t orig_sector;
};

/* Inserts a request row with the given id (ids are handed out by the
 * caller, from store_next_request_id(), so merged rows can name their head
 * before it is written). Returns 0 or -STORE_E_SQLITE. */
int store_request_add(struct store *st, int64_t run, int64_t id,
		      const struct store_request *rq);

/* The first free requests.id (inside the caller's write transaction). */
int store_next_request_id(struct store *st, int64_t *id);

/* Records pid→comm for run (the first name seen wins). */
int store_process_set(struct store *st, int64_t run, uint32_t pid,
		      const char *comm);

/* Records a device of run (name and size may be NULL/0; role "data"/"swap"). */
int store_device_add(struct store *st, int64_t run, uint32_t dev,
		     const char *name, int64_t size_bytes, const char *role);

/* Records one key/value of run's import statistics (run_stats). */
int store_stat_set(struct store *st, int64_t run, const char *key,
		   const char *value);

/* Runs one SQL statement with up to 4 int64 parameters bound to ?1..?4 and
 * returns the first column of the first row in *out (0 when no row).
 * Returns 0 or -STORE_E_SQLITE. A helper for analyzers' scalar queries. */
int store_query_i64(struct store *st, const char *sql, int nargs,
		    const int64_t *args, int64_t *out);

/* Appends one sample of run: time_ns on the events' clock, source
 * ("vmstat", "meminfo", "stat", "psi" from the /proc samplers, "vmstat-log"
 * from an imported vmstat text log), key and value as the source names and
 * counts them (see capture/procstat.h, capture/vmstat_text.h). A non-finite
 * value is stored as NULL. Returns 0 or -STORE_E_SQLITE. Call inside a
 * transaction for speed. The views vmstat, vmstat_proc and vmstat_log
 * (schema/002_vmstat_view.sql) read them. */
int store_sample_add(struct store *st, int64_t run, int64_t time_ns,
		     const char *source, const char *key, double value);



/* Sets a text column of run: one of "kind", "host", "kernel", "source",
 * "format", "status", "notes" (others are refused with -STORE_E_SQLITE). */
int store_run_set(struct store *st, int64_t run, const char *column,
		  const char *value);

/* Records setting key = value of run, read at "start" or "end". */
int store_setting_add(struct store *st, int64_t run, const char *key,
		      const char *value, const char *at);

/* One workload of a run: argv as one line, start and end on the events'
 * clock (ns), real/user/sys seconds (wait4 rusage), exit status (128+signal
 * when killed; -1 when it never started). */
struct store_command {
	int idx;
	const char *argv;
	int64_t start_ns, end_ns;
	double real_s, user_s, sys_s;
	int status;
};
int store_command_add(struct store *st, int64_t run,
		      const struct store_command *c);

#endif
