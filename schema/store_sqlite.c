/* The SQLite driver of the store (store_driver.h): opens a file (with the
 * checks of an existing store and the reasons SQLite does not give),
 * prepares, binds, steps and reads columns, and loads the bulk tables in
 * multi-row INSERTs (one statement's fixed cost per batch, not per row),
 * binding only the values that changed since the last batch. */
#include "schema/store_driver.h"
#include "lib/outfile.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Generated from schema/NNN_*.sql by the Makefile (schema_sql.c). */
extern const char *const store_migrations[];
extern const int store_n_migrations;

/* Rows per multi-row INSERT of each bulk table: events 128 (1,536
 * parameters, far below SQLite's 32,766), requests 64, replays 32; samples
 * go one by one through a kept statement (a run has few). */
static const int batch_rows[STORE_NBULK] = {
	[STORE_BULK_EVENTS] = 128, [STORE_BULK_REQUESTS] = 64,
	[STORE_BULK_SAMPLES] = 1, [STORE_BULK_REPLAYS] = 32,
};

/* What a parameter of a kept multi-row statement holds (bindings outlive a
 * reset): a value a row slot holds already is not bound again (most of a
 * row's values repeat from one batch to the next: run, dev, NULLs). */
enum { B_UNKNOWN, B_INT, B_NULL, B_OTHER };

/* A bulk table's rows waiting for their INSERT. */
struct sq_batch {
	sqlite3_stmt *multi;    /* batch_rows rows */
	sqlite3_stmt *single;   /* one row */
	struct store_val *v;    /* batch_rows x ncols values; text and blobs
				 * as offsets into pool */
	int n;                  /* rows waiting */
	unsigned char *pool;
	size_t plen, pcap;
	int64_t *bound;         /* multi's parameters: values, */
	unsigned char *kind;    /* and what each holds (B_*) */
	int oom;
};

struct sqlite_store {
	struct store base;          /* first: the front's view */
	sqlite3 *db;
	struct sq_batch batch[STORE_NBULK];
	int waiting;                /* rows wait in some batch */
	int fk_off;                 /* foreign keys off for a bulk transaction */
};

struct sq_stmt {
	struct sqlite_store *s;
	sqlite3_stmt *q;
	const char *what;
	unsigned flags;
	int fresh;                  /* not stepped since prepare or reset */
	int64_t changes;
};

static inline struct sqlite_store *sq(struct store *st)
{
	return (struct sqlite_store *)st;
}

#define Q(x) ((struct sq_stmt *)(x))

/* ---- errors ---- */

/* Why SQLite could not write or make the database file (SQLite says only
 * "attempt to write a readonly database" or "unable to open database
 * file"): " (folder 'DIR' is not writable: Read-only file system)" or
 * " ('FILE' is not writable: Permission denied)" into buf, or "" when both
 * are writable. */
static const char *why_not_writable(const struct sqlite_store *s, char *buf,
				    size_t len)
{
	char dir[PATH_MAX];
	const char *path = s->base.name;

	snprintf(dir, sizeof(dir), "%s", path);
	buf[0] = '\0';
	if (!*path)
		return buf;
	if (access(dirname(dir), W_OK | X_OK)) {
		int e = errno;
		snprintf(dir, sizeof(dir), "%s", path);
		snprintf(buf, len, " (folder '%s' is not writable: %s)",
			 dirname(dir), strerror(e));
	} else if (access(path, W_OK) && errno != ENOENT) {
		snprintf(buf, len, " ('%s' is not writable: %s)", path,
			 strerror(errno));
	}
	return buf;
}

/* " (why)" after a failure of s's file that why_not_writable() explains. */
static const char *fs_why(const struct sqlite_store *s, char *buf, size_t len)
{
	int code = s->db ? sqlite3_errcode(s->db) : SQLITE_OK;

	buf[0] = '\0';
	if (code == SQLITE_BUSY) {
		/* waited its 10 s (sqlite3_busy_timeout) for another writer */
		snprintf(buf, len, " (another iotape, an import or a capture, "
			 "was writing it for over 10 s: run this when it ends)");
		return buf;
	}
	return code == SQLITE_READONLY || code == SQLITE_CANTOPEN
	       ? why_not_writable(s, buf, len) : buf;
}

/* Sets the message to "what: SQLite's message"; returns -STORE_E_EXISTS
 * for a unique key's violation, else -code. */
static int sq_fail(struct sqlite_store *s, int code, const char *what)
{
	char why[PATH_MAX + 64];
	int ext = s->db ? sqlite3_extended_errcode(s->db) : SQLITE_OK;

	snprintf(s->base.msg, sizeof(s->base.msg), "%s: %s%s", what,
		 s->db ? sqlite3_errmsg(s->db) : "no database",
		 fs_why(s, why, sizeof(why)));
	if (ext == SQLITE_CONSTRAINT_UNIQUE || ext == SQLITE_CONSTRAINT_PRIMARYKEY)
		return -STORE_E_EXISTS;
	return -code;
}

static int exec(struct sqlite_store *s, const char *sql)
{
	char *e = NULL, why[PATH_MAX + 64];

	if (sqlite3_exec(s->db, sql, NULL, NULL, &e) != SQLITE_OK) {
		snprintf(s->base.msg, sizeof(s->base.msg), "%s%s",
			 e ? e : "sqlite error", fs_why(s, why, sizeof(why)));
		sqlite3_free(e);
		return -STORE_E_SQLITE;
	}
	return 0;
}

static int flush(struct sqlite_store *s);

/* SQLite's messages are whole: what is not added */
static int sq_exec(struct store *st, const char *sql, const char *what)
{
	int rc = flush(sq(st));

	(void)what;
	return rc ? rc : exec(sq(st), sql);
}

/* ---- statements ---- */

static int sq_prepare(struct store *st, const char *sql, unsigned flags,
		      const char *what, struct store_stmt **out)
{
	struct sqlite_store *s = sq(st);
	struct sq_stmt *q = calloc(1, sizeof(*q));

	*out = NULL;
	if (!q)
		return store_fail(st, ENOMEM, "out of memory");
	if (sqlite3_prepare_v3(s->db, sql, -1, flags & STORE_STMT_KEEP ?
			       SQLITE_PREPARE_PERSISTENT : 0, &q->q, NULL)
	    != SQLITE_OK) {
		free(q);
		return sq_fail(s, STORE_E_SQLITE, what);
	}
	q->s = s;
	q->what = what;
	q->flags = flags;
	q->fresh = 1;
	*out = (struct store_stmt *)q;
	return 0;
}

static void sq_bind_null(struct store_stmt *q, int i)
{
	sqlite3_bind_null(Q(q)->q, i);
}

static void sq_bind_i64(struct store_stmt *q, int i, int64_t v)
{
	sqlite3_bind_int64(Q(q)->q, i, v);
}

static void sq_bind_f64(struct store_stmt *q, int i, double v)
{
	sqlite3_bind_double(Q(q)->q, i, v);
}

static void sq_bind_text(struct store_stmt *q, int i, const char *v)
{
	sqlite3_bind_text(Q(q)->q, i, v, -1, SQLITE_TRANSIENT);
}

static int sq_step(struct store_stmt *qq)
{
	struct sq_stmt *q = Q(qq);
	struct sqlite_store *s = q->s;
	int rc;

	/* the batched rows first: the statement may read them; a statement
	 * that reads no bulk table need not wait for them */
	if (q->fresh) {
		q->fresh = 0;
		if (s->waiting && !(q->flags & STORE_STMT_NOFLUSH) &&
		    (rc = flush(s)))
			return rc;
	}
	rc = sqlite3_step(q->q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE) {
		q->changes = sqlite3_changes(s->db);
		return 0;
	}
	return sq_fail(s, STORE_E_SQLITE, q->what);
}

static int sq_col_null(struct store_stmt *q, int i)
{
	return sqlite3_column_type(Q(q)->q, i) == SQLITE_NULL;
}

static int64_t sq_col_i64(struct store_stmt *q, int i)
{
	return sqlite3_column_int64(Q(q)->q, i);
}

static double sq_col_f64(struct store_stmt *q, int i)
{
	return sqlite3_column_double(Q(q)->q, i);
}

static const char *sq_col_text(struct store_stmt *q, int i)
{
	return (const char *)sqlite3_column_text(Q(q)->q, i);
}

static const void *sq_col_blob(struct store_stmt *q, int i, size_t *len)
{
	const void *p = sqlite3_column_blob(Q(q)->q, i);

	*len = (size_t)sqlite3_column_bytes(Q(q)->q, i);
	return p;
}

static int64_t sq_changes(struct store_stmt *q)
{
	return Q(q)->changes;
}

static void sq_reset(struct store_stmt *q)
{
	sqlite3_reset(Q(q)->q);
	Q(q)->fresh = 1;
}

static void sq_finalize(struct store_stmt *q)
{
	if (!q)
		return;
	sqlite3_finalize(Q(q)->q);
	free(q);
}

/* ---- bulk rows ---- */

/* "INSERT INTO table (cols) VALUES (?,..),.." for rows rows of t's
 * columns, prepared to keep; NULL after the message is set. */
static sqlite3_stmt *prepare_multi(struct sqlite_store *s, enum store_bulk t,
				   int rows)
{
	const struct store_bulk_def *d = &store_bulk_defs[t];
	sqlite3_stmt *q = NULL;
	sqlite3_str *b = sqlite3_str_new(s->db);
	char *sql;

	sqlite3_str_appendf(b, "INSERT INTO %s (", d->table);
	for (int c = 0; c < d->ncols; c++)
		sqlite3_str_appendf(b, "%s%s", c ? ", " : "", d->names[c]);
	sqlite3_str_appendall(b, ") VALUES ");
	for (int i = 0; i < rows; i++) {
		sqlite3_str_appendall(b, i ? ",(?" : "(?");
		for (int c = 1; c < d->ncols; c++)
			sqlite3_str_appendall(b, ",?");
		sqlite3_str_appendall(b, ")");
	}
	sql = sqlite3_str_finish(b);
	if (!sql || sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				       &q, NULL) != SQLITE_OK) {
		sq_fail(s, STORE_E_SQLITE, "preparing statement");
		q = NULL;
	}
	sqlite3_free(sql);
	return q;
}

/* Binds row r of batch b at parameter offset base of q; with cache set (a
 * row slot of b's kept multi-row statement), a value the slot holds
 * already is not bound again. Text and blobs are bound where they wait. */
static void bind_row(struct sq_batch *b, const struct store_bulk_def *d,
		     sqlite3_stmt *q, int base, int r, int cache)
{
	const struct store_val *v = &b->v[(size_t)r * (size_t)d->ncols];
	int64_t *bound = b->bound + (size_t)r * (size_t)d->ncols;
	unsigned char *kind = b->kind + (size_t)r * (size_t)d->ncols;

	for (int c = 0; c < d->ncols; c++) {
		int p = base + c + 1;
		if (v[c].null) {
			if (!cache || kind[c] != B_NULL)
				sqlite3_bind_null(q, p);
			if (cache)
				kind[c] = B_NULL;
			continue;
		}
		switch (d->types[c]) {
		case STORE_C_I64:
		case STORE_C_I32:
			if (!cache || kind[c] != B_INT || bound[c] != v[c].i)
				sqlite3_bind_int64(q, p, v[c].i);
			if (cache) {
				kind[c] = B_INT;
				bound[c] = v[c].i;
			}
			break;
		case STORE_C_F64:
			sqlite3_bind_double(q, p, v[c].d);
			if (cache)
				kind[c] = B_OTHER;
			break;
		case STORE_C_TEXT:
			sqlite3_bind_text(q, p, (const char *)b->pool +
					  (uintptr_t)v[c].p, (int)v[c].n,
					  SQLITE_STATIC);
			if (cache)
				kind[c] = B_OTHER;
			break;
		case STORE_C_BLOB:
			sqlite3_bind_blob(q, p, b->pool + (uintptr_t)v[c].p,
					  (int)v[c].n, SQLITE_STATIC);
			if (cache)
				kind[c] = B_OTHER;
			break;
		}
	}
}

static int step_done(struct sqlite_store *s, sqlite3_stmt *q, const char *what)
{
	int rc = sqlite3_step(q);

	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : sq_fail(s, STORE_E_SQLITE, what);
}

/* Writes batch t's rows: one multi-row INSERT for a full batch, single rows
 * otherwise. */
static int flush_batch(struct sqlite_store *s, enum store_bulk t)
{
	const struct store_bulk_def *d = &store_bulk_defs[t];
	struct sq_batch *b = &s->batch[t];
	int n = b->n, rc = 0;

	if (!n)
		return 0;
	b->n = 0;
	if (b->oom) {
		b->oom = 0;
		b->plen = 0;
		return store_fail(&s->base, ENOMEM, "out of memory");
	}
	if (n == batch_rows[t] && n > 1) {
		if (!b->multi && !(b->multi = prepare_multi(s, t, n)))
			return -STORE_E_SQLITE;
		for (int r = 0; r < n; r++)
			bind_row(b, d, b->multi, r * d->ncols, r, 1);
		rc = step_done(s, b->multi, "storing rows");
	} else {
		if (!b->single && !(b->single = prepare_multi(s, t, 1)))
			return -STORE_E_SQLITE;
		for (int r = 0; r < n && !rc; r++) {
			bind_row(b, d, b->single, 0, r, 0);
			rc = step_done(s, b->single, "storing rows");
		}
	}
	b->plen = 0;
	return rc;
}

static int flush(struct sqlite_store *s)
{
	static const enum store_bulk order[] = { STORE_BULK_EVENTS,
		STORE_BULK_REQUESTS, STORE_BULK_REPLAYS };
	int rc;

	if (!s->waiting)
		return 0;
	s->waiting = 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if ((rc = flush_batch(s, order[i]))) {
			for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
				s->batch[order[k]].n = 0;
			return rc;
		}
	return 0;
}

static int sq_bulk_flush(struct store *st)
{
	return flush(sq(st));
}

/* Copies n bytes of p into b's pool; their offset (as a pointer) */
static const void *pool_add(struct sq_batch *b, const void *p, size_t n)
{
	size_t off = b->plen;

	/* room for one more byte: the pool exists even for empty text */
	if (b->plen + n + 1 > b->pcap) {
		size_t cap = b->pcap ? 2 * b->pcap : 4096;
		unsigned char *q;
		while (cap < b->plen + n + 1)
			cap *= 2;
		if (!(q = realloc(b->pool, cap))) {
			b->oom = 1;
			return NULL;
		}
		b->pool = q;
		b->pcap = cap;
	}
	if (n)
		memcpy(b->pool + off, p, n);
	b->plen += n;
	return (const void *)(uintptr_t)off;
}

static int sq_bulk_add(struct store *st, enum store_bulk t,
		       const struct store_val *v)
{
	struct sqlite_store *s = sq(st);
	const struct store_bulk_def *d = &store_bulk_defs[t];
	struct sq_batch *b = &s->batch[t];
	struct store_val *row;

	if (batch_rows[t] == 1) {
		/* one by one, straight away (no batch to wait in) */
		if (!b->single && !(b->single = prepare_multi(s, t, 1)))
			return -STORE_E_SQLITE;
		for (int c = 0; c < d->ncols; c++) {
			int p = c + 1;
			if (v[c].null)
				sqlite3_bind_null(b->single, p);
			else if (d->types[c] == STORE_C_F64)
				sqlite3_bind_double(b->single, p, v[c].d);
			else if (d->types[c] == STORE_C_TEXT)
				sqlite3_bind_text(b->single, p, v[c].p, (int)v[c].n,
						  SQLITE_STATIC);
			else if (d->types[c] == STORE_C_BLOB)
				sqlite3_bind_blob(b->single, p, v[c].p, (int)v[c].n,
						  SQLITE_STATIC);
			else
				sqlite3_bind_int64(b->single, p, v[c].i);
		}
		return step_done(s, b->single, "storing rows");
	}
	if (!b->v) {
		size_t cells = (size_t)batch_rows[t] * (size_t)d->ncols;
		b->v = calloc(cells, sizeof(*b->v));
		b->bound = calloc(cells, sizeof(*b->bound));
		b->kind = calloc(cells, 1);
		if (!b->v || !b->bound || !b->kind)
			return store_fail(st, ENOMEM, "out of memory");
	}
	row = &b->v[(size_t)b->n * (size_t)d->ncols];
	memcpy(row, v, (size_t)d->ncols * sizeof(*v));
	for (int c = 0; c < d->ncols; c++)
		if (!v[c].null && (d->types[c] == STORE_C_TEXT ||
				   d->types[c] == STORE_C_BLOB))
			row[c].p = pool_add(b, v[c].p, v[c].n);
	b->n++;
	s->waiting = 1;
	return b->n == batch_rows[t] ? flush_batch(s, t) : 0;
}

/* ---- open, versions, transactions ---- */

static int user_version(struct sqlite_store *s, int *v)
{
	sqlite3_stmt *stmt;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &stmt, NULL);

	if (rc != SQLITE_OK)
		return rc == SQLITE_NOTADB ? -STORE_E_NOTDB
			: sq_fail(s, STORE_E_SQLITE, "reading schema version");
	rc = sqlite3_step(stmt);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
	sqlite3_finalize(stmt);
	if (rc == SQLITE_NOTADB)
		return -STORE_E_NOTDB;
	if (rc != SQLITE_ROW)
		return sq_fail(s, STORE_E_SQLITE, "reading schema version");
	return 0;
}

/* An SQLite file is never used by an older iotape: min_client is its
 * version. */
static int sq_version(struct store *st, enum store_open_mode m, int *v,
		      int *min_client)
{
	struct sqlite_store *s = sq(st);
	sqlite3_stmt *q;
	int64_t n = 0;
	int rc = user_version(s, v);

	(void)m;
	*min_client = *v;
	if (rc == -STORE_E_NOTDB)
		return store_fail(st, STORE_E_NOTDB, "not an iotape database (not "
				  "SQLite)");
	if (!rc && *v < 0)
		/* no version iotape ever writes: someone's PRAGMA */
		return store_fail(st, STORE_E_NOTDB, "not an iotape database "
				  "(schema version %d)", *v);
	if (rc || *v)
		return rc;
	/* A fresh file, or another program's database: never add iotape's
	 * tables to someone else's data. */
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1,
			       &q, NULL) != SQLITE_OK)
		return sq_fail(s, STORE_E_SQLITE, "reading schema");
	if ((rc = sqlite3_step(q)) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return sq_fail(s, STORE_E_SQLITE, "reading schema");
	if (n)
		return store_fail(st, STORE_E_NOTDB, "not an iotape database (an "
				  "SQLite file with %lld other objects); give "
				  "another --db", (long long)n);
	return 0;
}

static int sq_migrate_begin(struct store *st)
{
	return exec(sq(st), "BEGIN IMMEDIATE");
}

static int sq_set_version(struct store *st, int v)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	return exec(sq(st), sql);
}

/* The checks of a database's path before SQLite sees it (whose message for
 * all of these is "unable to open database file"): a folder, a missing or
 * non-folder parent (named), and, when it must exist (m is
 * STORE_OPEN_EXISTING), a missing file. Returns 0, or -STORE_E_MISSING
 * (-STORE_E_SQLITE when stat() fails otherwise) with the message set. */
static int check_path(struct sqlite_store *s, const char *path,
		      enum store_open_mode m)
{
	char dir[PATH_MAX], head[PATH_MAX + 32] = "";
	struct stat sb;

	/* store_open()'s callers put the path first themselves */
	if (m == STORE_OPEN_EXISTING)
		snprintf(head, sizeof(head), "cannot open database '%s': ", path);

	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return store_fail(&s->base, STORE_E_MISSING, "%sit is a "
					  "folder", head);
		/* SQLite writes its header over whatever it opens: a block
		 * device (size 0 to stat, so "new") lost its file system */
		if (!S_ISREG(sb.st_mode))
			return store_fail(&s->base, STORE_E_NOTDB, "%sit is %s, "
					  "not a database file", head,
					  S_ISBLK(sb.st_mode) ? "a block device" :
					  S_ISCHR(sb.st_mode) ? "a character device" :
					  S_ISFIFO(sb.st_mode) ? "a FIFO" :
					  S_ISSOCK(sb.st_mode) ? "a socket" :
					  "no regular file");
		/* SQLite would make an empty file a database: a command that
		 * only reads leaves it as it is */
		if (m == STORE_OPEN_EXISTING && S_ISREG(sb.st_mode) && !sb.st_size)
			return store_fail(&s->base, STORE_E_NOTDB, "%s: not an "
					  "iotape database (an empty file)", path);
		return 0;
	}
	if (errno != ENOENT && errno != ENOTDIR)
		return store_fail(&s->base, STORE_E_SQLITE, "%s%s", head,
				  strerror(errno));
	snprintf(dir, sizeof(dir), "%s", path);
	/* dirname() of "x.db" is ".", which exists: then the file is missing */
	if (stat(dirname(dir), &sb) != 0) {
		snprintf(dir, sizeof(dir), "%s", path);
		return store_fail(&s->base, STORE_E_MISSING, "%sfolder '%s' does "
				  "not exist", head, dirname(dir));
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(dir, sizeof(dir), "%s", path);
		return store_fail(&s->base, STORE_E_MISSING, "%s'%s' is not a "
				  "folder", head, dirname(dir));
	}
	if (m == STORE_OPEN_EXISTING)
		return store_fail(&s->base, STORE_E_MISSING, "cannot open "
				  "database '%s': no such file", path);
	return 0;
}

/* A new store file's page size, bytes. SQLite's default is 4096; 16 KiB
 * pages hold four times the rows a page, so a bulk insert splits and
 * writes fewer of them: importing the bench's 5M-event trace took 3.79 s
 * against 4.10 to 4.28 s with 4 KiB pages (64 KiB: 3.87 s), report the
 * same (SQLite's page size: https://www.sqlite.org/pragma.html#pragma_page_size). */
#define STORE_PAGE_BYTES 16384
#define STORE_STR_(x) #x
#define STORE_STR(x) STORE_STR_(x)

static int sq_open_db(struct sqlite_store *s, const char *path,
		      enum store_open_mode m)
{
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		    (m == STORE_OPEN_CREATE ? SQLITE_OPEN_CREATE : 0);
	int rc;

	/* No memory statistics (a global mutex per allocation) and no
	 * mutexes on a connection (NOMUTEX: each is used by one thread at a
	 * time), but SQLite's own global state guarded: readers on other
	 * threads open connections of their own (store_open_reader()). Only
	 * takes effect before SQLite's first use; harmless after. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK)
		return sq_fail(s, STORE_E_SQLITE, "cannot open database");
	/* no output file (export -o, mail, model -o) and no replay target of
	 * this process may be the database or its journal (lib/outfile.h) */
	out_file_guard(path);
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 0);
	/* Imports are single transactions: a journal in memory is not enough to
	 * survive a crash, so keep the default rollback journal on disk; large
	 * page cache and temp store in memory speed up the big inserts. A new
	 * file's pages are STORE_PAGE_BYTES (an existing file keeps its own
	 * until `iotape vacuum` rebuilds it). */
	rc = exec(s, "PRAGMA page_size = " STORE_STR(STORE_PAGE_BYTES) ";"
		     " PRAGMA foreign_keys = ON; PRAGMA cache_size = -"
		     STORE_STR(STORE_WRITER_CACHE_KIB) ";"
		     " PRAGMA temp_store = MEMORY; PRAGMA synchronous = NORMAL");
	if (rc && (strstr(s->base.msg, "not a database") ||
		   strstr(s->base.msg, "encrypted")))
		return store_fail(&s->base, STORE_E_NOTDB,
				  "not an iotape database (not SQLite)");
	return rc;
}

static int sq_open(struct store **out, const char *path, enum store_open_mode m)
{
	struct sqlite_store *s = calloc(1, sizeof(*s));
	int rc;

	*out = (struct store *)s;
	if (!s)
		return -ENOMEM;
	/* for why_not_writable() before store.c sets it too */
	snprintf(s->base.name, sizeof(s->base.name), "%s", path);
	if ((rc = check_path(s, path, m)))
		return rc;
	rc = sq_open_db(s, path, m);
	if (rc && m == STORE_OPEN_EXISTING) {
		/* name the file: the message is printed as it is */
		char msg[sizeof(s->base.msg)];
		snprintf(msg, sizeof(msg), "%s", s->base.msg);
		store_fail(&s->base, -rc, "%s: %s", path, msg);
	}
	return rc;
}

/* store_open_reader(): the same file, read only, as it is (no checks or
 * migration: st opened it); a small page cache (the reader reads each row
 * once, in table order). */
static int sq_open_reader(struct store *st, struct store **out)
{
	struct sqlite_store *s = sq(st), *r;
	const char *file = sqlite3_db_filename(s->db, "main");

	*out = NULL;
	/* a library built without threads, or a database in memory */
	if (!sqlite3_threadsafe() || !file || !*file)
		return store_fail(st, ENOTSUP, "no second handle on this store");
	/* st's open transaction: another connection would not see its rows
	 * (and would wait on its locks) */
	if (!sqlite3_get_autocommit(s->db))
		return store_fail(st, EBUSY, "a transaction is open on this store");
	if (!(r = calloc(1, sizeof(*r))))
		return store_fail(st, ENOMEM, "out of memory");
	if (sqlite3_open_v2(file, &r->db, SQLITE_OPEN_READONLY |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		store_fail(st, STORE_E_SQLITE, "cannot open database again: %s",
			   r->db ? sqlite3_errmsg(r->db) : "out of memory");
		sqlite3_close(r->db);
		free(r);
		return -STORE_E_SQLITE;
	}
	sqlite3_busy_timeout(r->db, 10000);
	sqlite3_extended_result_codes(r->db, 0);
	if (exec(r, "PRAGMA cache_size = -512")) {
		store_fail(st, STORE_E_SQLITE, "%s", r->base.msg);
		sqlite3_close(r->db);
		free(r);
		return -STORE_E_SQLITE;
	}
	*out = &r->base;
	return 0;
}

static void sq_close(struct store *st)
{
	struct sqlite_store *s = sq(st);

	for (int t = 0; t < STORE_NBULK; t++) {
		struct sq_batch *b = &s->batch[t];
		sqlite3_finalize(b->multi);
		sqlite3_finalize(b->single);
		free(b->v);
		free(b->pool);
		free(b->bound);
		free(b->kind);
	}
	sqlite3_close(s->db);
	free(s);
}

/* Foreign keys back on once no transaction is open (the pragma is a no-op
 * inside one); the caller's message is kept. */
static void fk_restore(struct sqlite_store *s)
{
	if (s->fk_off && sqlite3_get_autocommit(s->db)) {
		sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
		s->fk_off = 0;
	}
}

/* BEGIN IMMEDIATE: one writer at a time. A bulk load with foreign keys off:
 * every row it adds names a run it created, so the per-row look-up of
 * runs(id) (a fifth of an import's time) can only pass; SQLite switches
 * them only outside a transaction. */
static int sq_begin(struct store *st, int bulk)
{
	struct sqlite_store *s = sq(st);
	int rc;

	if (bulk) {
		if ((rc = exec(s, "PRAGMA foreign_keys = OFF")))
			return rc;
		s->fk_off = 1;
	}
	if ((rc = exec(s, "BEGIN IMMEDIATE")))
		fk_restore(s);
	return rc;
}

static int sq_commit(struct store *st)
{
	int rc = flush(sq(st));

	if (!rc)
		rc = exec(sq(st), "COMMIT");
	fk_restore(sq(st));
	return rc;
}

static int sq_rollback(struct store *st)
{
	struct sqlite_store *s = sq(st);
	int rc;

	for (int t = 0; t < STORE_NBULK; t++) {
		s->batch[t].n = 0;
		s->batch[t].plen = 0;
		s->batch[t].oom = 0;
	}
	s->waiting = 0;
	rc = exec(s, "ROLLBACK");
	fk_restore(s);
	return rc;
}

/* ---- the database ---- */

static int pragma_i64(struct sqlite_store *s, const char *sql, int64_t *out)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return sq_fail(s, STORE_E_SQLITE, "reading size");
	rc = sqlite3_step(q);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : sq_fail(s, STORE_E_SQLITE, "reading size");
}

/* page_count x page_size: the main file without its journal */
static int sq_size(struct store *st, int64_t *bytes)
{
	int64_t pages, size;
	int rc;

	if ((rc = flush(sq(st))) ||
	    (rc = pragma_i64(sq(st), "PRAGMA page_count", &pages)) ||
	    (rc = pragma_i64(sq(st), "PRAGMA page_size", &size)))
		return rc;
	*bytes = pages * size;
	return 0;
}

static int sq_cache_limit(struct store *st, int kib)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%d", kib > 0 ? kib : 1);
	return exec(sq(st), sql);
}

/* VACUUM rewrites the file: needs about its size free and no transaction */
static int sq_vacuum(struct store *st)
{
	return exec(sq(st), "VACUUM");
}

const struct store_driver store_sqlite_driver = {
	.name = "sqlite",
	.dialect = STORE_DIALECT_SQLITE,
	.migrations = store_migrations,
	.nmigrations = &store_n_migrations,
	.open = sq_open,
	.close = sq_close,
	.version = sq_version,
	.migrate_on_open = 1,
	.migrate_begin = sq_migrate_begin,
	.set_version = sq_set_version,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.exec = sq_exec,
	.prepare = sq_prepare,
	.bind_null = sq_bind_null,
	.bind_i64 = sq_bind_i64,
	.bind_f64 = sq_bind_f64,
	.bind_text = sq_bind_text,
	.step = sq_step,
	.col_null = sq_col_null,
	.col_i64 = sq_col_i64,
	.col_f64 = sq_col_f64,
	.col_text = sq_col_text,
	.col_blob = sq_col_blob,
	.changes = sq_changes,
	.reset = sq_reset,
	.finalize = sq_finalize,
	.bulk_add = sq_bulk_add,
	.bulk_flush = sq_bulk_flush,
	.size = sq_size,
	.vacuum = sq_vacuum,
	.cache_limit = sq_cache_limit,
	.open_reader = sq_open_reader,
};
