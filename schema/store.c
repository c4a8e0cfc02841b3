/* The store's front: picks the driver from the path or URL being opened,
 * brings the schema up to date (the versions of schema/NNN_*.sql in the
 * driver's dialect), runs transactions, and holds the helpers the store's
 * files prepare, bind and step their statements with (store_driver.h), and
 * the one-block lists the *_get functions return. */
#include "store.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema/store_driver.h"

/* A libpq "key=value ..." connection string: its first word is a keyword
 * and "=" (a file named so is opened as ./NAME). */
static int is_conninfo(const char *path)
{
	const char *p = path;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isalpha((unsigned char)*p))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '=';
}

/* The drivers, by the start of what is opened: the first row whose prefix
 * matches (or whose test takes it) is used; a row with neither takes every
 * plain path. A URL ("scheme://...") no row takes is refused, not made a
 * file. */
static const struct {
	const char *prefix;
	int (*takes)(const char *path);
	const struct store_driver *drv;
} drivers[] = {
	{ "postgresql://", NULL, &store_pg_driver },
	{ "postgres://", NULL, &store_pg_driver },
	{ NULL, is_conninfo, &store_pg_driver },
	{ NULL, NULL, &store_sqlite_driver },
};

/* The store handed out when even the driver's struct could not be made. */
static struct store oom_store = { .drv = NULL, .msg = "out of memory" };

static int is_url(const char *path, size_t *scheme_len)
{
	size_t i = 0;

	if (!isalpha((unsigned char)path[0]))
		return 0;
	while (isalnum((unsigned char)path[i]) || path[i] == '+' ||
	       path[i] == '-' || path[i] == '.')
		i++;
	*scheme_len = i;
	return !strncmp(path + i, "://", 3);
}

/* The driver that takes path, or NULL (a URL of no driver's). */
static const struct store_driver *driver_of(const char *path)
{
	size_t slen = 0;
	int url = is_url(path, &slen);

	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		const char *p = drivers[i].prefix;
		if (p ? !strncmp(path, p, strlen(p))
		      : drivers[i].takes ? drivers[i].takes(path) : !url)
			return drivers[i].drv;
	}
	return NULL;
}

const char *store_shown(const char *path)
{
	/* two buffers: two calls in one message keep both */
	static char buf[2][512];
	static int k;
	const struct store_driver *drv;
	char *out = buf[k ^= 1];

	if (!path)
		return "";
	if (!*path)
		return "--db ''";   /* open_with() refuses it */
	drv = driver_of(path);
	if (!drv || !drv->shown)
		return path;
	drv->shown(path, out, sizeof(buf[0]));
	return out;
}

int store_is_file(const char *path)
{
	return driver_of(path) == &store_sqlite_driver;
}

/* ---- schema versions ---- */

/* Brings st's schema to its dialect's newest version in one transaction of
 * the driver's (no other writer migrates at the same time: the version is
 * read again inside it), where this opener may: an empty database, a
 * driver that migrates on open (SQLite), or store_migrate(). A newer store
 * is used as it is while its min_client allows this binary. */
static int migrate(struct store *st, enum store_open_mode m)
{
	const struct store_driver *d = st->drv;
	int n = *d->nmigrations, v, mc, rc;

	if ((rc = d->version(st, m, &v, &mc)))
		return rc;
	if (v > n && mc > n)
		return store_fail(st, STORE_E_NEWER, "database schema version %d "
				  "is newer than this iotape's (%d)%s", v, n,
				  mc > v || mc <= 0 ? "" : ": it needs an iotape of "
				  "that schema or later");
	if (v >= n)
		return 0;
	if (v > 0 && !d->migrate_on_open && m != STORE_OPEN_MIGRATE)
		return store_fail(st, STORE_E_OLDER, "database schema version %d is "
				  "older than this iotape's (%d): the store's owner "
				  "updates it with 'iotape fleet --migrate'", v, n);
	if ((rc = d->migrate_begin(st)))
		return rc;
	if ((rc = d->version(st, m, &v, &mc)))
		goto out;
	for (; v < n; v++) {
		/* a number with no migration in this build (schema/embed.sh) */
		if ((d->migrations[v] &&
		     (rc = d->exec(st, d->migrations[v], "migrating"))) ||
		    (rc = d->set_version(st, v + 1)))
			goto out;
	}
	return d->commit(st);
out:
	{
		/* the failure's message, not the rollback's */
		char msg[sizeof(st->msg)];
		snprintf(msg, sizeof(msg), "%s", st->msg);
		d->rollback(st);
		snprintf(st->msg, sizeof(st->msg), "%s", msg);
	}
	return rc;
}

static int open_with(struct store **out, const char *path,
		     enum store_open_mode m)
{
	const struct store_driver *drv = driver_of(path);
	int rc;

	if (!*path) {
		/* SQLite takes "" as a private temporary database, deleted at
		 * close: an import into it said it stored a run and kept
		 * nothing (`--db "$DB"` with DB unset) */
		struct store *st = calloc(1, sizeof(*st));
		*out = st ? st : &oom_store;
		if (!st)
			return -ENOMEM;
		return store_fail(st, STORE_E_MISSING, "the database path is empty: "
				  "name a file, or leave --db out for $IOTAPE_DB "
				  "or iotape.db");
	}
	if (!drv) {
		struct store *st = calloc(1, sizeof(*st));
		size_t slen = 0;
		is_url(path, &slen);   /* the scheme, for the message */
		*out = st ? st : &oom_store;
		if (!st)
			return -ENOMEM;
		return store_fail(st, STORE_E_BACKEND, "no store back end for "
				  "'%.*s://' in this iotape", (int)slen, path);
	}
	rc = drv->open(out, path, m);
	if (!*out) {
		*out = &oom_store;
		return -ENOMEM;
	}
	(*out)->drv = drv;
	snprintf((*out)->name, sizeof((*out)->name), "%s", store_shown(path));
	if (!rc && (rc = migrate(*out, m)) && (m == STORE_OPEN_EXISTING ||
						m == STORE_OPEN_MIGRATE)) {
		/* name the store: the message is printed as it is */
		char msg[sizeof((*out)->msg)];
		snprintf(msg, sizeof(msg), "%s", (*out)->msg);
		store_fail(*out, -rc, "%s: %s", (*out)->name, msg);
	}
	return rc;
}

int store_open(struct store **out, const char *path, int create)
{
	return open_with(out, path, create ? STORE_OPEN_CREATE : STORE_OPEN_WRITE);
}

int store_open_existing(struct store **out, const char *path)
{
	return open_with(out, path, STORE_OPEN_EXISTING);
}

int store_migrate(struct store **out, const char *path, int *from, int *to)
{
	int mc, rc, admin;

	*from = *to = 0;
	/* the version before, and whose it is to migrate: a first open that
	 * does not migrate */
	rc = open_with(out, path, STORE_OPEN_EXISTING);
	if (rc == -STORE_E_MISSING && store_is_file(path))
		return rc;      /* a file is made by what writes runs into it */
	if (rc && rc != -STORE_E_OLDER && rc != -STORE_E_MISSING)
		return rc;
	/* a server's database without the store: made here */
	if (rc != -STORE_E_MISSING &&
	    (rc = (*out)->drv->version(*out, STORE_OPEN_EXISTING, from, &mc)))
		return rc;
	admin = !(*out)->drv->admin || (*out)->drv->admin(*out);
	if (!admin)
		return store_fail(*out, STORE_E_DENIED, "%s: only the store's owner "
				  "migrates it (this role may not)", (*out)->name);
	store_close(*out);
	if ((rc = open_with(out, path, STORE_OPEN_MIGRATE)) ||
	    (rc = (*out)->drv->version(*out, STORE_OPEN_EXISTING, to, &mc)))
		return rc;
	if ((*out)->drv->after_migrate && (rc = (*out)->drv->after_migrate(*out)))
		return rc;
	return 0;
}

void store_close(struct store *st)
{
	if (!st || st == &oom_store)
		return;
	free(st->made);
	if (st->drv) {
		for (int k = 0; k < STORE_K_NKEPT; k++)
			if (st->kept[k])
				st->drv->finalize(st->kept[k]);
		st->drv->close(st);
	} else {
		free(st);
	}
}

const char *store_errmsg(const struct store *st)
{
	return st ? st->msg : "out of memory";
}

void store_fail_keep(struct store *st, const char *msg)
{
	if (st && msg != st->msg)
		snprintf(st->msg, sizeof(st->msg), "%s", msg);
}

const char *store_name(const struct store *st)
{
	return st ? st->name : "";
}

int store_fail(struct store *st, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
	va_end(ap);
	return -code;
}

int store_schema_version(struct store *st, int *version)
{
	int mc, rc = st->drv->version(st, STORE_OPEN_WRITE, version, &mc);

	return rc ? -STORE_E_SQLITE : 0;
}

/* ---- transactions ---- */

static int begin(struct store *st, int bulk)
{
	int rc;

	st->nmade = 0;
	rc = st->drv->begin(st, bulk);
	st->in_txn = !rc;
	return rc;
}

int store_begin(struct store *st)
{
	return begin(st, 0);
}

int store_begin_bulk(struct store *st)
{
	return begin(st, 1);
}

int store_commit(struct store *st)
{
	int rc = store_runs_counts(st);

	st->in_txn = 0;
	st->nmade = 0;
	return rc ? rc : st->drv->commit(st);
}

int store_rollback(struct store *st)
{
	st->in_txn = 0;
	st->ev_run = 0;
	st->nmade = 0;
	return st->drv->rollback(st);
}

int store_size(struct store *st, int64_t *bytes)
{
	return st->drv->size(st, bytes);
}

int store_cache_limit(struct store *st, int kib)
{
	return st->drv->cache_limit ? st->drv->cache_limit(st, kib) : 0;
}

int store_vacuum(struct store *st, int64_t *before, int64_t *after)
{
	int64_t b;
	int rc;

	if ((rc = store_size(st, &b)))
		return rc;
	if (before)
		*before = b;
	if ((rc = st->drv->vacuum(st)))
		return rc;
	return after ? store_size(st, after) : 0;
}

/* The days since 1970 of wall clock ns t (the day PostgreSQL's iotape_day()
 * gives a run). */
static int day_of(int64_t t)
{
	return (int)(t >= 0 ? t / 86400000000000LL
			    : -((-t + 86400000000000LL - 1) / 86400000000000LL));
}

int store_expire(struct store *st, int64_t before_ns, int64_t *runs,
		 int64_t *dropped)
{
	static const struct store_sql old = { .sql = "SELECT id FROM runs WHERE "
		"created_ns < ?1 ORDER BY id LIMIT 100" };
	int day = day_of(before_ns), rc;

	*runs = *dropped = 0;
	if (st->drv->admin && !st->drv->admin(st))
		return store_fail(st, STORE_E_DENIED, "only the store's owner expires "
				  "runs (this role may not)");
	/* up to 100 runs a transaction, oldest first */
	for (;;) {
		struct store_stmt *q;
		int64_t ids[100], n = 0;
		if ((rc = store_prep(st, &old, 0, "expiring runs", &q, "i",
				     before_ns)))
			return rc;
		while (n < 100 && (rc = st->drv->step(q)) > 0)
			ids[n++] = st->drv->col_i64(q, 0);
		st->drv->finalize(q);
		if (rc < 0)
			return rc;
		if (!n)
			break;
		if ((rc = store_begin(st)) ||
		    (st->drv->expire_begin && (rc = st->drv->expire_begin(st, day))))
			goto fail;
		for (int64_t i = 0; i < n; i++)
			if ((rc = store_run_delete(st, ids[i], NULL)) &&
			    rc != -STORE_E_NOTFOUND)
				goto fail;
		if ((rc = store_commit(st)))
			goto fail;
		*runs += n;
	}
	return st->drv->expire ? st->drv->expire(st, day, dropped) : 0;
fail:
	{
		char msg[sizeof(st->msg)];
		snprintf(msg, sizeof(msg), "%s", st->msg);
		store_rollback(st);
		snprintf(st->msg, sizeof(st->msg), "%s", msg);
	}
	return rc;
}

int store_again(struct store *st, int rc, int attempt)
{
	struct timespec ts;
	long ms;

	if (rc != -STORE_E_RETRY)
		return 0;
	if (attempt + 1 >= STORE_RETRIES) {
		char msg[sizeof(st->msg) - 40];
		snprintf(msg, sizeof(msg), "%.*s", (int)sizeof(msg) - 1, st->msg);
		snprintf(st->msg, sizeof(st->msg), "%s (tried %d times)", msg,
			 attempt + 1);
		return 0;
	}
	ms = 50L << attempt;
	ms += rand() % (ms / 2 + 1);
	if (ms > 2000)
		ms = 2000;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	if (st->drv->reconnect && st->drv->reconnect(st))
		return 0;
	return 1;
}

int store_open_reader(struct store *st, struct store **out)
{
	int rc;

	*out = NULL;
	if (!st->drv || !st->drv->open_reader)
		return store_fail(st, ENOTSUP, "no second handle on this store");
	if ((rc = st->drv->open_reader(st, out)))
		return rc;
	(*out)->drv = st->drv;
	snprintf((*out)->name, sizeof((*out)->name), "%s", st->name);
	return 0;
}

/* ---- statements ---- */

const char *store_sql_text(const struct store *st, const struct store_sql *s)
{
	const char *o = s->dialect[st->drv->dialect];

	return o ? o : s->sql;
}

/* Binds fmt's parameters (store_prep()) from ap. */
static void bind_va(struct store *st, struct store_stmt *q, const char *fmt,
		    va_list ap)
{
	const struct store_driver *d = st->drv;

	for (int i = 1; fmt && *fmt; fmt++, i++) {
		switch (*fmt) {
		case 'i':
			d->bind_i64(q, i, va_arg(ap, int64_t));
			break;
		case 'o': {
			int64_t v = va_arg(ap, int64_t);
			if (va_arg(ap, int))
				d->bind_i64(q, i, v);
			else
				d->bind_null(q, i);
			break;
		}
		case 'd': {
			double v = va_arg(ap, double);
			if (isfinite(v))
				d->bind_f64(q, i, v);
			else
				d->bind_null(q, i);
			break;
		}
		case 't': {
			const char *v = va_arg(ap, const char *);
			if (v)
				d->bind_text(q, i, v);
			else
				d->bind_null(q, i);
			break;
		}
		default:
			d->bind_null(q, i);
			break;
		}
	}
}

static int prep_va(struct store *st, const struct store_sql *s, unsigned flags,
		   const char *what, struct store_stmt **q, const char *fmt,
		   va_list ap)
{
	int rc = st->drv->prepare(st, store_sql_text(st, s), flags, what, q);

	if (rc)
		return rc;
	bind_va(st, *q, fmt, ap);
	return 0;
}

int store_prep(struct store *st, const struct store_sql *s, unsigned flags,
	       const char *what, struct store_stmt **q, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = prep_va(st, s, flags, what, q, fmt, ap);
	va_end(ap);
	return rc;
}

int store_do(struct store *st, const struct store_sql *s, const char *what,
	     int64_t *changed, const char *fmt, ...)
{
	struct store_stmt *q;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = prep_va(st, s, 0, what, &q, fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	while ((rc = st->drv->step(q)) > 0)
		;
	if (!rc && changed)
		*changed = st->drv->changes(q);
	st->drv->finalize(q);
	return rc;
}

int store_one_i64(struct store *st, const struct store_sql *s,
		  const char *what, int64_t *out, const char *fmt, ...)
{
	struct store_stmt *q;
	va_list ap;
	int rc;

	*out = 0;
	va_start(ap, fmt);
	rc = prep_va(st, s, 0, what, &q, fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	if ((rc = st->drv->step(q)) > 0) {
		*out = st->drv->col_i64(q, 0);
		rc = 0;
	}
	st->drv->finalize(q);
	return rc;
}

/* The statements kept prepared, by enum store_kept. */
static const struct store_sql kept_sql[STORE_K_NKEPT] = {
	[STORE_K_PROCESS] = { .sql = "INSERT INTO processes (run, pid, comm) VALUES "
		"(?1, ?2, ?3) ON CONFLICT DO NOTHING" },
	[STORE_K_DEVICE] = { .sql = "INSERT INTO devices (run, dev, name, size_bytes, "
		"role) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (run, dev) DO UPDATE"
		" SET name = excluded.name, size_bytes = excluded.size_bytes, "
		"role = excluded.role" },
	[STORE_K_STAT] = { .sql = "INSERT INTO run_stats (run, key, value) VALUES (?1, "
		"?2, ?3) ON CONFLICT (run, key) DO UPDATE SET value = "
		"excluded.value" },
	[STORE_K_SETTING] = { .sql = "INSERT INTO settings (run, key, value, at) VALUES"
		" (?1, ?2, ?3, ?4) ON CONFLICT (run, key, at) DO UPDATE SET "
		"value = excluded.value" },
};

static const char *const kept_what[STORE_K_NKEPT] = {
	[STORE_K_PROCESS] = "storing process",
	[STORE_K_DEVICE] = "storing device",
	[STORE_K_STAT] = "storing run statistics",
	[STORE_K_SETTING] = "storing setting",
};

struct store_stmt *store_stmt_kept(struct store *st, enum store_kept k)
{
	/* a process's name is added as an import first meets it, between
	 * its events: the events need not be written first */
	unsigned flags = STORE_STMT_KEEP |
			 (k == STORE_K_PROCESS ? STORE_STMT_NOFLUSH : 0);

	if (!st->kept[k] &&
	    st->drv->prepare(st, store_sql_text(st, &kept_sql[k]), flags,
			     kept_what[k], &st->kept[k]))
		return NULL;
	return st->kept[k];
}

int store_step_done(struct store *st, struct store_stmt *q)
{
	int rc;

	while ((rc = st->drv->step(q)) > 0)
		;
	st->drv->reset(q);
	return rc;
}

int store_bulk(struct store *st, enum store_bulk t, const struct store_val *v)
{
	return st->drv->bulk_add(st, t, v);
}

/* ---- run filters ---- */

int store_filter_sql(const struct store_run_filter *f, int first, char *sql,
		     size_t len, const char **params, char (*num)[24], int *np)
{
	/* the text is fixed fragments and parameter numbers only */
	size_t o = 0;
	int k = first;

	sql[0] = 0;
	*np = 0;
#define ADD(...) do { o += (size_t)snprintf(sql + o, o < len ? len - o : 0, \
					    __VA_ARGS__); } while (0)
	if (!f)
		return 0;
	if (f->host) {
		ADD(" AND host = ?%d", k++);
		params[(*np)++] = f->host;
	}
	if (f->kernel) {
		ADD(" AND kernel = ?%d", k++);
		params[(*np)++] = f->kernel;
	}
	if (f->kind) {
		ADD(" AND kind = ?%d", k++);
		params[(*np)++] = f->kind;
	}
	if (f->since_ns != INT64_MIN) {
		ADD(" AND created_ns >= CAST(?%d AS bigint)", k++);
		snprintf(num[0], sizeof(num[0]), "%lld", (long long)f->since_ns);
		params[(*np)++] = num[0];
	}
	if (f->until_ns != INT64_MAX) {
		ADD(" AND created_ns < CAST(?%d AS bigint)", k++);
		snprintf(num[1], sizeof(num[1]), "%lld", (long long)f->until_ns);
		params[(*np)++] = num[1];
	}
	for (size_t i = 0; i < f->nwhere; i++) {
		ADD(" AND (SELECT s.value FROM settings s WHERE s.run = runs.id "
		    "AND s.key = ?%d ORDER BY s.at = 'start' DESC LIMIT 1) = "
		    "?%d", k, k + 1);
		k += 2;
		params[(*np)++] = f->keys[i];
		params[(*np)++] = f->values[i];
	}
#undef ADD
	return o < len ? 0 : -1;
}

/* ---- one-block lists ---- */

void store_list_init(struct store_list *l, size_t row_size,
		     const size_t *str_fields, size_t nstr)
{
	memset(l, 0, sizeof(*l));
	l->row_size = row_size;
	l->str_fields = str_fields;
	l->nstr = nstr;
}

void *store_list_row(struct store_list *l)
{
	if (l->oom)
		return NULL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char *r = realloc(l->rows, cap * l->row_size);
		if (!r) {
			l->oom = 1;
			return NULL;
		}
		l->rows = r;
		l->cap = cap;
	}
	memset(l->rows + l->n * l->row_size, 0, l->row_size);
	return l->rows + l->n++ * l->row_size;
}

const char *store_list_str(struct store_list *l, const char *s)
{
	size_t len;

	if (!s || l->oom)
		return NULL;
	len = strlen(s) + 1;
	if (l->plen + len > l->pcap) {
		size_t cap = l->pcap ? 2 * l->pcap : 256;
		char *p;
		while (cap < l->plen + len)
			cap *= 2;
		if (!(p = realloc(l->pool, cap))) {
			l->oom = 1;
			return NULL;
		}
		l->pool = p;
		l->pcap = cap;
	}
	memcpy(l->pool + l->plen, s, len);
	l->plen += len;
	/* an offset + 1 until store_list_finish(): 0 stays NULL */
	return (const char *)(uintptr_t)(l->plen - len + 1);
}

int store_list_finish(struct store *st, struct store_list *l, void **out,
		      size_t *n)
{
	size_t rows = l->n * l->row_size;
	char *block, *pool;

	*out = NULL;
	*n = 0;
	if (l->oom) {
		store_list_free(l);
		return store_fail(st, ENOMEM, "out of memory");
	}
	if (!l->n) {
		store_list_free(l);
		return 0;
	}
	if (!(block = malloc(rows + l->plen + 1))) {
		store_list_free(l);
		return store_fail(st, ENOMEM, "out of memory");
	}
	memcpy(block, l->rows, rows);
	pool = block + rows;
	if (l->plen)
		memcpy(pool, l->pool, l->plen);
	for (size_t i = 0; i < l->n; i++)
		for (size_t f = 0; f < l->nstr; f++) {
			const char **p = (const char **)(block + i * l->row_size +
							 l->str_fields[f]);
			uintptr_t off = (uintptr_t)*p;
			*p = off ? pool + off - 1 : NULL;
		}
	*out = block;
	*n = l->n;
	store_list_free(l);
	return 0;
}

void store_list_free(struct store_list *l)
{
	free(l->rows);
	free(l->pool);
	memset(l, 0, sizeof(*l));
}
