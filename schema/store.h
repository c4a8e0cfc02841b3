/* The iotape store: runs with their events, stitched requests, samples,
 * settings, devices, processes and commands, behind one API in the store's
 * own terms (runs, rows, times). Which back end holds them is decided when a
 * store is opened (schema/store.c: today an SQLite file; the SQL is the back
 * end's business). Never prints and never exits: functions return 0 (or 1
 * for "yes" / "a row") or a negative code and leave a one-line message in
 * store_errmsg(). Times are int64 ns; sectors are 512 bytes; dev is
 * major << 20 | minor. The schema lives in schema/NNN_*.sql.
 *
 * Adding a table (or a column):
 *  1. schema/NNN_NAME.sql, the next number, written once for both dialects
 *     (schema/embed.sh -d: `-- sqlite:` and `-- postgresql:` lines where
 *     they must differ), with CREATE ... IF NOT EXISTS (tests fake an older
 *     store by lowering its version); for PostgreSQL, a table that holds a
 *     machine's rows gets row-level security and a new iotape_grant() (it
 *     names the tables); the Makefile embeds every .sql of schema/;
 *  2. STORE_SCHEMA_VERSION below, and the API calls of it in this header,
 *     their statements in the store_*.c of their kind (store_runs.c: a
 *     run's own rows), once for both drivers;
 *  3. where the table holds a run's rows: store_copy.c (push and pull carry
 *     it), PG_TABLES in store_pg.c (vacuum), and the README's list of the
 *     tables Citus distributes;
 *  4. a case in tests/unit/test_store.c (it runs on both drivers).
 * Nothing else: commands and analyses reach it through the API. */
#ifndef IOTAPE_STORE_H
#define IOTAPE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "schema/trace_record.h"

#define STORE_SCHEMA_VERSION 10

enum store_err {
	STORE_E_SQLITE = 1,   /* the back end failed; see store_errmsg() */
	STORE_E_NEWER = 2,    /* the store's schema is newer than this binary's */
	STORE_E_NOTDB = 3,    /* not an iotape store (not SQLite, or another
			       * program's database) */
	STORE_E_NOTFOUND = 4, /* no such run */
	STORE_E_EXISTS = 5,   /* a run of that name exists */
	STORE_E_MISSING = 6,  /* the database file (or its folder) does not exist */
	STORE_E_BACKEND = 7,  /* no back end for that URL in this build */
	STORE_E_RETRY = 8,    /* a failure the whole transaction may be tried
			       * again for (a deadlock, a serialization failure,
			       * the connection lost before the commit):
			       * store_again() */
	STORE_E_OLDER = 9,    /* the store's schema is older than this binary
			       * needs, and is not this opener's to migrate */
	STORE_E_DENIED = 10,  /* the role may not do that (not the store's
			       * owner, or not its machine's run) */
};

struct store;

/* ==== opening ==== */

/* Opens (creating when create is 1) the store at path and brings its schema
 * to STORE_SCHEMA_VERSION inside a transaction; for writers (import,
 * capture). path is a file name (SQLite), or a URL whose scheme names a
 * back end ("postgresql://..." once that back end exists). Concurrent
 * writers wait up to 10 s for each other. Returns 0 and *out, or -ENOMEM,
 * -STORE_E_NOTDB, -STORE_E_NEWER, -STORE_E_BACKEND, -STORE_E_SQLITE with
 * *out set anyway (when memory allowed) so store_errmsg() works, without
 * the path in the message; release *out with store_close(). */
int store_open(struct store **out, const char *path, int create);

/* Opens the existing store at path for the commands that read it (report,
 * plot, replay ...): never creates one. The checks, each with its message
 * (always naming path, ready to print as it is):
 *   "cannot open database 'P': no such file"           -STORE_E_MISSING
 *   "cannot open database 'P': no folder 'DIR'"         -STORE_E_MISSING
 *   "cannot open database 'P': it is a folder"          -STORE_E_MISSING
 *   "P: not an iotape database (not SQLite)"            -STORE_E_NOTDB
 *   "P: not an iotape database (an empty file)"         -STORE_E_NOTDB
 *   "P: not an iotape database (an SQLite file with N other objects); ..."
 *                                                       -STORE_E_NOTDB
 *   "P: database schema version V is newer than this iotape's (N)"
 *                                                       -STORE_E_NEWER
 *   other failures (permissions, I/O): a line naming P  -STORE_E_SQLITE
 * An older schema is brought up to date as store_open() does. Returns 0 and
 * *out, or one of the codes above (or -ENOMEM) with *out set so that
 * store_errmsg() works; release it with store_close(). */
int store_open_existing(struct store **out, const char *path);

/* Brings the store at path to this iotape's schema and gives its roles
 * their grants again (PostgreSQL: iotape_grant(); `iotape fleet --migrate`):
 * the one way a PostgreSQL store that exists is migrated (other openers of
 * an older one are refused with -STORE_E_OLDER, naming the versions); the
 * store's owner's to run. The versions before and after into *from and *to.
 * Returns 0 or a negative code with *out set as store_open_existing()'s. */
int store_migrate(struct store **out, const char *path, int *from, int *to);

/* path (as store_open() takes it) as a message may show it: a PostgreSQL
 * URI or connection string rebuilt as key=value pairs by libpq's
 * PQconninfoParse() without its password (or sslpassword), anything else
 * as it is. Every message that names a store names it so. Returns a
 * static buffer (valid until the call after next; not thread-safe). */
const char *store_shown(const char *path);

/* 1 when path names a store in a local file (SQLite), 0 for a server's
 * (a PostgreSQL URI or connection string) or a URL no back end takes. */
int store_is_file(const char *path);

/* Closes the store (writes nothing pending: commit first); NULL is fine. */
void store_close(struct store *st);

/* The last error's one-line message (no newline); "out of memory" for a
 * NULL store. */
const char *store_errmsg(const struct store *st);

/* Sets st's message back to msg (a caller's copy of store_errmsg() taken
 * before a rollback, which may set its own). */
void store_fail_keep(struct store *st, const char *msg);

/* The path st was opened with as a message shows it (store_shown()), so a
 * caller far from the open can say which database failed; "" for a NULL
 * store or one that could not be allocated. */
const char *store_name(const struct store *st);

/* The schema version the store holds, into *version. Returns 0 or
 * -STORE_E_SQLITE. */
int store_schema_version(struct store *st, int *version);

/* Transactions: one writer at a time (BEGIN IMMEDIATE in SQLite). Commit
 * writes the batched rows first. Return 0 or -STORE_E_SQLITE. */
int store_begin(struct store *st);
int store_commit(struct store *st);
int store_rollback(struct store *st);

/* A transaction as store_begin() for a bulk load that only adds rows, each
 * naming a run that exists (created or found inside it: an import): the back
 * end may skip per-row checks such rows always pass (SQLite: the foreign key
 * lookup of runs(id) for each events and requests row, a fifth of an
 * import's time; SQLite switches it only outside a transaction, so it is off
 * from here until the commit or rollback). Deleting runs inside it is not
 * allowed (no cascade). Returns 0 or -STORE_E_SQLITE. */
int store_begin_bulk(struct store *st);

/* ==== runs ==== */

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
	int64_t created_ns;  /* wall clock ns since 1970; 0: now (a copy keeps
			      * its original's) */
};

/* Inserts a run (created now by the wall clock, unless ri->created_ns);
 * returns 0 and its id in
 * *id, -STORE_E_EXISTS when the name is taken, or -STORE_E_SQLITE. */
int store_run_create(struct store *st, const struct run_info *ri, int64_t *id);

/* The longest run name check_run_name() takes, bytes. */
#define STORE_NAME_MAX 200

/* Picks a free run name "PREFIX", "PREFIX-2", ... into out (outlen bytes),
 * PREFIX cut (between two UTF-8 characters) so that the name is at most
 * STORE_NAME_MAX bytes. Returns 0, -STORE_E_EXISTS when 100000 are taken,
 * or -STORE_E_SQLITE. */
int store_run_free_name(struct store *st, const char *prefix, char *out,
			size_t outlen);

/* Finds a run by name, or by its id written in decimal (leading zeros
 * read as a number reads them: "01" is id 1); a name first; returns 0 and *id,
 * -STORE_E_NOTFOUND ("no run named 'X'"), or -STORE_E_SQLITE. */
int store_run_find(struct store *st, const char *name_or_id, int64_t *id);

/* Sets the run's status, genesis time (ns, the first event's) and event
 * range (from the events this connection inserted for it). Returns 0 or
 * -STORE_E_SQLITE. */
int store_run_finish(struct store *st, int64_t run, const char *status,
		     int64_t genesis_ns);

/* Sets a text column of run: one of "kind", "host", "kernel", "source",
 * "format", "status", "notes", "input_sha256" (others are refused with -STORE_E_SQLITE). */
int store_run_set(struct store *st, int64_t run, const char *column,
		  const char *value);

/* Sets the run's trace format ("blktrace-v7", "blktrace-v8",
 * "blkparse-text") and the byte order its records had (1: big-endian).
 * Returns 0 or -STORE_E_SQLITE. */
int store_run_set_format(struct store *st, int64_t run, const char *format,
			 int big_endian);

/* Sets the run's parent (the run it replayed; 0 for none). Returns 0 or
 * -STORE_E_SQLITE. */
int store_run_set_parent(struct store *st, int64_t run, int64_t parent);

/* Deletes run and every row that belongs to it (events, requests, samples,
 * settings, devices, processes, commands, run_stats, replays, metrics: the
 * foreign keys of schema/004_cascade.sql and 005_metrics.sql cascade). Replays of run (runs whose
 * parent it was) are kept with their parent cleared; their number goes to
 * *kept_replays unless it is NULL. Call inside a transaction
 * (store_begin()) so several deletes are one. Returns 0, -STORE_E_NOTFOUND
 * ("no run with id N") or -STORE_E_SQLITE. */
int store_run_delete(struct store *st, int64_t run, int64_t *kept_replays);

/* Renames run to name (the caller checks it with check_run_name()).
 * Returns 0, -STORE_E_EXISTS ("a run named 'X' exists") when another run
 * has that name, -STORE_E_NOTFOUND or -STORE_E_SQLITE. */
int store_run_rename(struct store *st, int64_t run, const char *name);

/* 1 when run was created by the transaction now open on st (not yet
 * committed), 0 otherwise. */
int store_run_made_here(const struct store *st, int64_t run);

/* Finds the run whose input had the SHA-256 digest sha256 (64 lowercase
 * hex digits, as store_run_set(st, run, "input_sha256", hex) recorded it);
 * the first such run by id. Returns 1 with *id and its name (cut to
 * namelen bytes), 0 when no run has it, or -STORE_E_SQLITE. */
int store_run_find_input(struct store *st, const char *sha256, int64_t *id,
			 char *name, size_t namelen);

/* The store's size on disk in bytes (SQLite: page_count x page_size, the
 * main file without its journal) into *bytes. Returns 0 or -STORE_E_SQLITE. */
int store_size(struct store *st, int64_t *bytes);

/* The cache of database pages store_open() sets, KiB: what writers keep. */
#define STORE_WRITER_CACHE_KIB 32768

/* Caps the store's cache of database pages at kib KiB (SQLite: PRAGMA
 * cache_size = -kib; back ends without one: nothing), for a reader that
 * reads each row once, in index order (report, explain, compare): writers
 * keep the large cache store_open() sets (STORE_WRITER_CACHE_KIB); a
 * writer that reads first sets it back before it writes. Returns 0 or
 * -STORE_E_SQLITE. */
int store_cache_limit(struct store *st, int kib);

/* Gives the space of deleted rows back to the file system (SQLite VACUUM:
 * rewrites the database; needs about its size free on disk and no open
 * transaction; PostgreSQL: VACUUM of the store's tables, which makes the
 * space reusable and gives back little). *before and *after (bytes, as
 * store_size()) unless NULL. Returns 0, -STORE_E_DENIED when the role owns
 * none of the tables (nothing was done), or -STORE_E_SQLITE. */
int store_vacuum(struct store *st, int64_t *before, int64_t *after);

/* Deletes every run made before before_ns (wall clock ns since 1970) with
 * its rows (their replays kept, unparented), in transactions of up to 100
 * runs; on PostgreSQL then drops each month's partitions that held only
 * such runs (DETACH PARTITION ... CONCURRENTLY, DROP: no run is deleted row
 * by row there). The store's owner's: -STORE_E_DENIED for another role. The
 * runs deleted into *runs and the partitions dropped (tables) into
 * *dropped. Returns 0 or a negative code. */
int store_expire(struct store *st, int64_t before_ns, int64_t *runs,
		 int64_t *dropped);

/* A transaction that failed with -STORE_E_RETRY (after its rollback) may be
 * run again: returns 1 after waiting the backoff of attempt (0, 1, ...:
 * 50 ms doubled each time, a random part added, at most 2 s) and connecting
 * again when the connection was lost; 0 when rc is another failure or
 * STORE_RETRIES attempts were made (then the message is the failure's,
 * saying how many tries). */
#define STORE_RETRIES 6
int store_again(struct store *st, int rc, int attempt);

/* A time not seen or not known (stored as NULL). */
#define STORE_NO_TIME INT64_MIN

/* One run's row, as read. Strings are "" when not recorded (cut to their
 * buffers). */
struct store_run {
	int64_t id;
	char name[256];
	char kind[16];          /* import, capture, replay */
	char status[16];        /* complete, interrupted, failed */
	char format[32];        /* blktrace-v7, blktrace-v8, blkparse-text, ... */
	char source[1024];      /* input paths or capture back end */
	char host[128];
	char kernel[128];
	int64_t parent;         /* the run it replayed, 0 for none */
	int64_t created_ns;     /* wall clock when it was made, ns since 1970 */
	int64_t genesis_ns;     /* its first event's time; STORE_NO_TIME unset */
	int64_t first_event;    /* the ids of its first and last events (in */
	int64_t last_event;     /* store order), 0 when it has none */
	int64_t events;         /* its events: last - first + 1, or 0 */
	int64_t last_ns;        /* its last event's time; 0 when no events */
	int big_endian;         /* byte order of the original records */
	char notes[1024];       /* runs.notes */
	char input_sha256[65];  /* the SHA-256 of the input it was imported
				 * from, hex; "" when none */
};

/* Reads run id's row into *out. Returns 0, -STORE_E_NOTFOUND or
 * -STORE_E_SQLITE. */
int store_run_get(struct store *st, int64_t run, struct store_run *out);

/* A run as `iotape runs` lists it. */
struct store_run_listing {
	struct store_run run;
	int64_t requests;       /* its request rows (stitched I/Os), or -1 */
	int64_t sample_first_ns;/* its first and last samples' times (the */
	int64_t sample_last_ns; /* events' clock); STORE_NO_TIME without any */
};

/* Every run, in id (creation) order, into *out (*n of them; one malloc'd
 * block: free() it; NULL when there are none); with count_requests, each
 * run's request rows counted too (that reads an index of every run's
 * requests: -1 without); each run's first and last sample times always (two
 * index look-ups a run). Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int store_runs_list(struct store *st, int count_requests,
		    struct store_run_listing **out, size_t *n);

/* Which runs store_runs_list_where() lists: every condition given must
 * hold (values are compared as they are: bound parameters, never SQL). */
struct store_run_filter {
	const char *host;       /* runs.host equal to it; NULL: any */
	const char *kernel;     /* runs.kernel equal to it; NULL: any */
	const char *kind;       /* "import", "capture", "replay"; NULL: any */
	int64_t since_ns;       /* made (created_ns, wall clock ns since 1970) */
	int64_t until_ns;       /* in [since_ns, until_ns); INT64_MIN and
				 * INT64_MAX: open */
	const char *const *keys;   /* nwhere settings the run has with these */
	const char *const *values; /* values (the value read at start, else */
	size_t nwhere;             /* at end: STORE_AT_ANY) */
};

/* An open filter (every run). */
#define STORE_RUN_FILTER_ALL { NULL, NULL, NULL, INT64_MIN, INT64_MAX, NULL, \
			       NULL, 0 }

/* At most this many settings in a filter. */
#define STORE_FILTER_MAX_WHERE 16

/* store_runs_list() keeping the runs f keeps (NULL: all), chosen in the
 * back end's SQL. Returns as store_runs_list(), or -STORE_E_SQLITE for more
 * than STORE_FILTER_MAX_WHERE settings. */
int store_runs_list_where(struct store *st, int count_requests,
			  const struct store_run_filter *f,
			  struct store_run_listing **out, size_t *n);

/* Questions store_run_has() answers about a run. */
enum store_has {
	STORE_HAS_DISPATCHES,   /* a request row standing for a dispatch (D) */
	STORE_HAS_PROC_SAMPLES, /* samples from the /proc samplers (sources
				 * vmstat, meminfo, stat) */
	STORE_HAS_LOG_SAMPLES,  /* samples of an imported vmstat log */
	STORE_HAS_IOSTAT_SAMPLES, /* samples of an imported iostat log */
};

/* Returns 1 when run has what, 0 when not, or -STORE_E_SQLITE. Cheap: stops
 * at the first row. */
int store_run_has(struct store *st, int64_t run, enum store_has what);

/* ==== settings, devices, processes, commands, import statistics ==== */

/* When a setting was read: before or after the run's workload. */
enum store_at {
	STORE_AT_START,
	STORE_AT_END,
	STORE_AT_ANY,           /* lookups: at start if recorded then, else at end */
};

/* Records setting key = value of run, read at "start" or "end". Returns 0
 * or -STORE_E_SQLITE. */
int store_setting_add(struct store *st, int64_t run, const char *key,
		      const char *value, const char *at);

/* The first of the n settings in list (store_settings_get()'s order: by
 * key, start before end) with key, read at at (STORE_AT_ANY: either), or
 * NULL. No store needed: for settings read once and kept. */
const struct store_setting *store_setting_find(const struct store_setting *list,
					       size_t n, const char *key,
					       enum store_at at);

/* Copies the value of setting key of run, read at at, into value (len
 * bytes). Returns 1 when found, 0 when the run has no such setting (or it
 * was recorded with no value), or -STORE_E_SQLITE / -ENOMEM. */
int store_setting_get(struct store *st, int64_t run, const char *key,
		      enum store_at at, char *value, size_t len);

/* One setting of a run. */
struct store_setting {
	const char *key;        /* vm.dirty_ratio, loop0:queue/scheduler */
	const char *value;      /* NULL when recorded with no value */
	enum store_at at;       /* STORE_AT_START or STORE_AT_END */
};

/* Every setting of run, by key (strcmp order), the start value before the
 * end one, into *out (*n of them; one malloc'd block with its strings:
 * free() it). Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int store_settings_get(struct store *st, int64_t run,
		       struct store_setting **out, size_t *n);

/* Records a device of run (name and size may be NULL/0; role "data" or
 * "swap"). Returns 0 or -STORE_E_SQLITE. */
int store_device_add(struct store *st, int64_t run, uint32_t dev,
		     const char *name, int64_t size_bytes, const char *role);

/* One device of a run. */
struct store_device {
	uint32_t dev;           /* major << 20 | minor */
	const char *name;       /* "loop0", NULL when not known */
	int64_t size_bytes;     /* 0 when not known */
	const char *role;       /* "data" or "swap" */
};

/* The devices of run by dev, into *out (*n; one malloc'd block: free()
 * it). Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int store_devices_get(struct store *st, int64_t run,
		      struct store_device **out, size_t *n);

/* Records pid→comm for run (the first name seen wins). Returns 0 or
 * -STORE_E_SQLITE. */
int store_process_set(struct store *st, int64_t run, uint32_t pid,
		      const char *comm);

/* Gives run the process names of run from (the names it does not have
 * yet): a replay keeps its source's names. Returns 0 or -STORE_E_SQLITE. */
int store_processes_copy(struct store *st, int64_t run, int64_t from);

/* One process of a run. */
struct store_process {
	uint32_t pid;
	const char *comm;
};

/* The processes of run by pid, into *out (*n; one malloc'd block: free()
 * it). Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int store_processes_get(struct store *st, int64_t run,
			struct store_process **out, size_t *n);

/* One workload of a run: argv as one line, start and end on the events'
 * clock (ns; STORE_NO_TIME when not known), real/user/sys seconds (wait4
 * rusage; stored only with both times; NAN when read back without), exit
 * status (128+signal when killed; -1 when it never started). */
struct store_command {
	int idx;                /* 0, 1, ... in the order given */
	const char *argv;
	int64_t start_ns, end_ns;
	double real_s, user_s, sys_s;
	int status;
};

/* Records command c of run. Returns 0 or -STORE_E_SQLITE. */
int store_command_add(struct store *st, int64_t run,
		      const struct store_command *c);

/* The commands of run by idx, into *out (*n; one malloc'd block with the
 * argv strings: free() it). Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int store_commands_get(struct store *st, int64_t run,
		       struct store_command **out, size_t *n);

/* Records one key/value of run's import statistics (run_stats); replaces
 * an earlier value. Returns 0 or -STORE_E_SQLITE. */
int store_stat_set(struct store *st, int64_t run, const char *key,
		   const char *value);

/* One import or replay statistic of a run. */
struct store_stat {
	const char *key;        /* "lost_events", "replay.iops", ... */
	const char *value;      /* NULL when recorded with none */
};

/* The statistics of run by key, into *out (*n; one malloc'd block: free()
 * it). Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int store_stats_get(struct store *st, int64_t run, struct store_stat **out,
		    size_t *n);

/* ==== workload metrics (schema/005_metrics.sql) ==== */

/* One number the workload gave about itself, or a user set, for a run. */
struct store_metric {
	const char *name;       /* read_iops, dd_bytes_per_s, real_s, tps ... */
	double value;           /* in unit */
	const char *unit;       /* "bytes", "s", "IO/s" ...; NULL: a plain number */
	const char *source;     /* "time", "fio", "dd", "regex", "manual" */
	int derived;            /* 1: read back from the commands (their
				 * times, an imported dd's figures), no row
				 * of the metrics table */
};

/* Records metric name = value (unit may be NULL) of run from source (one
 * of "time", "fio", "dd", "regex", "manual"); replaces an earlier value of
 * that name. value must be finite. Returns 0, -STORE_E_BACKEND when the
 * back end keeps no metrics, or -STORE_E_SQLITE (also for a source or value
 * the schema refuses). */
int store_metric_set(struct store *st, int64_t run, const char *name,
		     double value, const char *unit, const char *source);

/* Every metric of run by name (strcmp order) into *out (*n; one malloc'd
 * block with its strings: free() it): the stored rows, and each command's
 * real, user and sys seconds (commands table, wait4 rusage or a time log)
 * as metrics of source "time", unit "s", and the figures of dd's output
 * an import kept for a command (run_stats command.N.dd_bytes, dd_seconds,
 * dd_bytes_per_s) as dd_bytes (bytes), dd_s (s) and dd_bytes_per_s
 * (bytes/s) of source "dd", as capture names them; each named as is when
 * the run has one command (real_s, user_s, sys_s, dd_bytes ...), cmdN_NAME
 * (N from 1: cmd1_real_s, cmd2_dd_bytes_per_s ...) when it has several;
 * these read-back ones are marked derived, and a stored row of the same
 * name wins. Returns 0 or -STORE_E_SQLITE / -ENOMEM. */
int store_metrics_get(struct store *st, int64_t run, struct store_metric **out,
		      size_t *n);

/* ==== events, requests, samples: batched writes ==== */

/* Appends one event of run (ev as decoded; pdu stored as it is). Batched:
 * written by the next commit, store_run_finish() or read. Returns 0 or
 * -STORE_E_SQLITE / -ENOMEM. Call inside a transaction. */
int store_event_add(struct store *st, int64_t run, const struct bt_event *ev);

/* One stitched I/O; times are STORE_NO_TIME when the action was not seen
 * (stored NULL), d_sector/d_bytes are NULL unless has_d, merged_into and
 * split_from NULL when 0. */
struct store_request {
	uint32_t dev;
	uint64_t sector;
	uint32_t bytes;
	char rwbs[8];
	uint64_t cats;         /* BT_C_* category bits */
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

/* The first free request id (inside the caller's write transaction).
 * Returns 0 or -STORE_E_SQLITE. */
int store_next_request_id(struct store *st, int64_t *id);

/* Appends one sample of run: time_ns on the events' clock, source
 * ("vmstat", "meminfo", "stat", "psi" from the /proc samplers, "vmstat-log"
 * from an imported vmstat text log), key and value as the source names and
 * counts them (see capture/procstat.h, import/vmstat_text.h). A non-finite
 * value is stored as NULL. Returns 0 or -STORE_E_SQLITE. Call inside a
 * transaction for speed. store_vmstat_open() reads them as vmstat rows. */
int store_sample_add(struct store *st, int64_t run, int64_t time_ns,
		     const char *source, const char *key, double value);

/* One I/O of a replay (the replays table, schema/003_replay.sql). */
struct store_replay {
	int64_t idx;            /* place in the schedule */
	uint32_t stream;        /* 0.. : one per original pid */
	uint32_t pid;           /* the original process */
	uint32_t dev;           /* the target */
	int has_sector;         /* 0 for flushes (stored NULL) */
	uint64_t sector;        /* on the target, 512-byte sectors */
	uint32_t bytes;         /* on the target */
	const char *op;         /* "read", "write", "flush", "discard" */
	int fua;                /* a write with RWF_DSYNC */
	int as_read;            /* a write replayed as a read */
	int64_t src_request;    /* the source run's request id */
	int64_t sched_ns;       /* when the schedule wanted it issued */
	int64_t ready_ns;       /* when it was free to go */
	int64_t issue_ns;       /* when it was handed to the kernel */
	int64_t complete_ns;    /* when its completion was seen; STORE_NO_TIME */
	int64_t result;         /* bytes done, or -errno */
};

/* Writes the n replays rows of run (many rows per statement). Returns 0 or
 * -STORE_E_SQLITE. Call inside a transaction. */
int store_replays_add(struct store *st, int64_t run,
		      const struct store_replay *rows, size_t n);

/* ==== cursors: a run's rows in order, one at a time ====
 * Open one, call its next() until it returns 0 (no more rows; it keeps
 * returning 0) or a negative code (-STORE_E_SQLITE, message in
 * store_errmsg()), then close it. Pointers
 * inside a row stay valid until the next call. A cursor reads what was
 * stored before it was opened; write nothing to the store while one is
 * open. */
struct store_cursor;

/* Which requests a requests cursor gives, in which order. */
enum store_rq_order {
	STORE_RQ_ALL,           /* every row, by device, then as stored */
	STORE_RQ_QUEUED,        /* rows with a Q time, by (q_ns, id) */
	STORE_RQ_DISPATCHED,    /* rows standing for a dispatch (d_head) with a
				 * D time, by (d_ns, id) */
	STORE_RQ_FIRST,         /* every row, by its first time (Q, else D,
				 * else C; rows with none first), then id */
	/* The rows of STORE_RQ_ALL, _QUEUED and _DISPATCHED in no set order
	 * (as the back end finds them: no sort before the first row; on
	 * SQLite a third of the time of the ordered ones on a 400k-request
	 * run), for callers that order them themselves or need no order. */
	STORE_RQ_ALL_ANY,
	STORE_RQ_QUEUED_ANY,
	STORE_RQ_DISPATCHED_ANY,
};

/* The columns of a request row, for the mask of store_requests_open(): a
 * cursor fills the columns asked for and leaves the others 0 (times
 * STORE_NO_TIME). Each column costs time on a big run (on a 235k-request
 * run, all of them take 3 times as long as the four a plot needs). */
enum store_rq_col {
	STORE_RQ_DEV = 1u << 0,
	STORE_RQ_SECTOR = 1u << 1,
	STORE_RQ_BYTES = 1u << 2,
	STORE_RQ_RWBS = 1u << 3,
	STORE_RQ_CATS = 1u << 4,
	STORE_RQ_PID = 1u << 5,
	STORE_RQ_Q = 1u << 6,
	STORE_RQ_G = 1u << 7,
	STORE_RQ_M = 1u << 8,
	STORE_RQ_I = 1u << 9,
	STORE_RQ_D = 1u << 10,
	STORE_RQ_C = 1u << 11,
	STORE_RQ_DISPATCH = 1u << 12,    /* has_d, d_sector, d_bytes */
	STORE_RQ_REQUEUES = 1u << 13,
	STORE_RQ_ERROR = 1u << 14,
	STORE_RQ_MERGED_INTO = 1u << 15,
	STORE_RQ_D_HEAD = 1u << 16,
	STORE_RQ_SEEK = 1u << 17,        /* has_seek, seek_sectors */
	STORE_RQ_SPLIT_FROM = 1u << 18,
	STORE_RQ_SPLIT = 1u << 19,
	STORE_RQ_ORIG = 1u << 20,        /* has_orig, orig_dev, orig_sector */
	STORE_RQ_COLS_ALL = (1u << 21) - 1,
};

/* Opens a cursor over run's requests (the rows order picks, in its order)
 * that fills the columns in cols (enum store_rq_col bits). Returns 0 and
 * *cur, or -STORE_E_SQLITE / -ENOMEM. */
int store_requests_open(struct store *st, int64_t run,
			enum store_rq_order order, unsigned cols,
			struct store_cursor **cur);

/* The next request: the cursor's columns into *rq (times not seen are
 * STORE_NO_TIME; has_d, has_seek, has_orig say whether those columns were
 * stored), its id into *id unless id is NULL. Returns 1, 0 at the end, or
 * -STORE_E_SQLITE. */
int store_requests_next(struct store_cursor *cur, struct store_request *rq,
			int64_t *id);

/* A part of a run for a reader (iotape's --from, --to, --dev; btt -t/-T):
 * a request row is in it when its first time (Q, else D, else C) is in
 * [from_ns, to_ns) (btt counts a request by its Q) and its dev is one of
 * devs; an event when its time is in [from_ns, to_ns) and its dev one of
 * devs. A row with none of Q, D, C is in it only with an open window. */
#define STORE_RANGE_MAX_DEVS 16
struct store_range {
	int64_t from_ns;        /* events' clock; INT64_MIN: from the start */
	int64_t to_ns;          /* INT64_MAX: to the end */
	const uint32_t *devs;   /* ndev of them (copied); ndev 0: all */
	size_t ndev;
};

/* store_requests_open() keeping only the rows in range (NULL: all). The
 * cursor also fills dev, q_ns, d_ns and c_ns, asked for or not. Returns 0
 * and *cur, or -STORE_E_SQLITE (more than STORE_RANGE_MAX_DEVS devices,
 * with a message) / -ENOMEM. */
int store_requests_open_range(struct store *st, int64_t run,
			      enum store_rq_order order, unsigned cols,
			      const struct store_range *range,
			      struct store_cursor **cur);

/* ---- one run's requests read in parts, on several handles at once ----
 * A reader that splits a run's requests between threads: each thread opens
 * its own handle (store_open_reader()) and a cursor over one part of the
 * ids (store_requests_open_ids()); store_requests_span() says where the
 * run's ids lie. Back ends without them (PostgreSQL) return -ENOTSUP: read
 * with store_requests_open_range() then. */

/* The devices of run's requests, ascending (*devs, malloc'd, *ndev of
 * them; NULL and 0 when it has none), and the lowest and highest id of its
 * requests (*lo, *hi; 0 and -1 when it has none), looked up in the index
 * without reading the rows. Returns 0, -ENOMEM, -ENOTSUP or
 * -STORE_E_SQLITE. */
int store_requests_span(struct store *st, int64_t run, uint32_t **devs,
			size_t *ndev, int64_t *lo, int64_t *hi);

/* Opens a cursor over run's requests with lo <= id < hi, in id order,
 * filling cols (enum store_rq_col bits) and keeping only the rows in range
 * (NULL: all) as store_requests_open_range() does. Rows of one run have
 * consecutive ids, so this reads them in table order, without the index:
 * the fastest way through a run. Returns 0 and *cur, or -ENOTSUP,
 * -ENOMEM, -STORE_E_SQLITE. */
int store_requests_open_ids(struct store *st, int64_t run, int64_t lo,
			    int64_t hi, unsigned cols,
			    const struct store_range *range,
			    struct store_cursor **cur);

/* A second handle on st's store, for reading in another thread at the same
 * time as st (each handle used by one thread at a time): it only reads
 * (SQLite: the same file opened read only, no schema check or migration;
 * its page cache 512 KiB). It sees what is committed: refused while st has a
 * transaction open (whose rows it would not see). Returns 0 and *out
 * (release it with store_close()), or -ENOTSUP (a back end or an SQLite
 * library without threads, or a store not in a file), -EBUSY (st's
 * transaction), -ENOMEM or -STORE_E_SQLITE, with the message in st's
 * store_errmsg(). */
int store_open_reader(struct store *st, struct store **out);

/* store_events_open() keeping only the events in range (NULL: all).
 * Returns as store_requests_open_range(). */
int store_events_open_range(struct store *st, int64_t run,
			    const struct store_range *range,
			    struct store_cursor **cur);

/* Opens a cursor over run's events in store (time) order. Returns 0 and
 * *cur, or -STORE_E_SQLITE / -ENOMEM. */
int store_events_open(struct store *st, int64_t run,
		      struct store_cursor **cur);

/* The next event into *ev (ev->pdu valid until the next call). Returns 1,
 * 0 at the end, or -STORE_E_SQLITE. */
int store_events_next(struct store_cursor *cur, struct bt_event *ev);

/* One raw sample. */
struct store_sample {
	int64_t time_ns;
	const char *source;     /* vmstat, meminfo, stat, psi, vmstat-log */
	const char *key;        /* as the source names it */
	double value;           /* NAN when stored without one */
};

/* Opens a cursor over run's samples of source (NULL: every source), by
 * time (the samples of one time in the order stored). Returns 0 and *cur,
 * or -STORE_E_SQLITE / -ENOMEM. */
int store_samples_open(struct store *st, int64_t run, const char *source,
		       struct store_cursor **cur);

/* The next sample into *s. Returns 1, 0 at the end, or -STORE_E_SQLITE. */
int store_samples_next(struct store_cursor *cur, struct store_sample *s);

/* vmstat(8)'s classic columns, in its order: indexes into
 * store_vmstat.v[]. Units: r b processes; swpd free buff cache kB; si so
 * kB/s swapped in/out; bi bo kB/s read/written (1 kB blocks); in cs per
 * second; us sy id wa st % of CPU time. */
enum store_vm_col {
	STORE_VM_R, STORE_VM_B, STORE_VM_SWPD, STORE_VM_FREE, STORE_VM_BUFF,
	STORE_VM_CACHE, STORE_VM_SI, STORE_VM_SO, STORE_VM_BI, STORE_VM_BO,
	STORE_VM_IN, STORE_VM_CS, STORE_VM_US, STORE_VM_SY, STORE_VM_ID,
	STORE_VM_WA, STORE_VM_ST, STORE_VM_NCOLS
};

/* Where vmstat rows come from. */
enum store_vm_source {
	STORE_VM_ALL,           /* both */
	STORE_VM_PROC,          /* the /proc samplers' counters, as procps-ng's
				 * vmstat computes them from two samples */
	STORE_VM_LOG,           /* an imported vmstat log's rows, as printed */
};

/* One vmstat row of a run (schema/002_vmstat_view.sql defines them). */
struct store_vmstat {
	int64_t time_ns;
	int from_log;           /* 1: a vmstat log's row; 0: /proc samples */
	int since_boot;         /* a log row vmstat printed as averages since
				 * boot, not over an interval */
	double v[STORE_VM_NCOLS]; /* NAN when not known (a first sample's
				   * rates; a column the log lacks) */
	double dirty_kb;        /* /proc/meminfo Dirty and Writeback sampled */
	double writeback_kb;    /* at the same time, kB; NAN when not sampled */
};

/* Opens a cursor over run's vmstat rows from source, by time. Returns 0
 * and *cur, or -STORE_E_SQLITE / -ENOMEM. */
int store_vmstat_open(struct store *st, int64_t run,
		      enum store_vm_source source, struct store_cursor **cur);

/* The next vmstat row into *row. Returns 1, 0 at the end, or
 * -STORE_E_SQLITE. */
int store_vmstat_next(struct store_cursor *cur, struct store_vmstat *row);

/* Opens a cursor over run's replayed I/Os (the replays table), by idx.
 * Returns 0 and *cur, or -STORE_E_SQLITE / -ENOMEM. */
int store_replays_open(struct store *st, int64_t run, struct store_cursor **cur);

/* The next replayed I/O into *r (r->op valid until the next call). Returns
 * 1, 0 at the end, or -STORE_E_SQLITE. */
int store_replays_next(struct store_cursor *cur, struct store_replay *r);

/* Closes a cursor of any kind; NULL is fine. */
void store_cursor_close(struct store_cursor *cur);

/* ==== across runs (a fleet's store) ==== */

/* A run's headline figures in one direction, as `iotape report` computes
 * them (analyze/summary.c), kept in run_summary (schema/007_summary.sql). */
struct store_lat {
	int64_t n;              /* requests measured; the rest NAN when 0 */
	double mean_ns, p50_ns, p99_ns, max_ns;
};

struct store_summary_dir {
	int64_t requests;       /* dispatched requests (D) with data */
	int64_t bytes;          /* their bytes */
	struct store_lat q2c, d2c;
};

struct store_summary {
	int64_t span_ns;        /* the run's span for rates */
	struct store_summary_dir dir[2];  /* [0] read, [1] write (and discard) */
};

/* Writes run's summary (a run that has one keeps it: a writer's role needs
 * no UPDATE, and two openers back-filling one run do not collide). The
 * store computes none: whoever stores a run writes its summary before it
 * commits (analyze/summary.h). Returns 0 or -STORE_E_SQLITE. */
int store_summary_set(struct store *st, int64_t run,
		      const struct store_summary *s);

/* Reads run's summary into *out. Returns 1, 0 when it has none, or
 * -STORE_E_SQLITE. */
int store_summary_get(struct store *st, int64_t run, struct store_summary *out);

/* The runs without a summary (by id, malloc'd into *ids, *n of them; none
 * for a role that may not write one). Returns 0 or -STORE_E_SQLITE. */
int store_summary_missing(struct store *st, int64_t **ids, size_t *n);

/* One run ranked by store_fleet_worst(). */
struct store_fleet_row {
	int64_t run;
	char name[256];
	char host[128];
	char kernel[128];
	int64_t created_ns;     /* wall clock ns since 1970 */
	int64_t n;              /* the requests the figure is over */
	double value;           /* the figure, in its unit (us) */
};

/* The figures store_fleet_worst() ranks by, from the runs' summaries: the
 * mean, 50th and 99th percentiles (report's, within 0.8%) and maximum of
 * Q2C or D2C in us of the read or write requests with data. */
#define STORE_FLEET_METRICS "{read,write}_{q2c,d2c}_{mean,p50,p99,max}"

/* The runs made since since_ns (wall clock ns since 1970) ranked by metric
 * (as STORE_FLEET_METRICS names them, e.g. read_q2c_p99), worst (largest)
 * first, at most limit of them, into *out (*n; malloc'd: free() it), read
 * from run_summary in the back end's SQL (no run's requests are read).
 * Runs without that figure (no such requests) are left out. Returns 0,
 * -STORE_E_NOTFOUND for an unknown metric, or -STORE_E_SQLITE / -ENOMEM. */
int store_fleet_worst(struct store *st, const char *metric, int64_t since_ns,
		      size_t limit, struct store_fleet_row **out, size_t *n);


#endif
