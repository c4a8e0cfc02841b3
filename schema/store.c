/* The store's front: picks the back end from the path or URL being opened
 * and passes every call to it through its ops table (store_backend.h);
 * derives what needs no back end of its own (free run names, one setting);
 * builds the one-block lists the *_get functions return. */
#include "store.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/store_backend.h"

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

/* The back ends, by the start of what is opened: the first row whose prefix
 * matches (or whose test takes it) is used; a row with neither takes every
 * plain path. A URL ("scheme://...") no row takes is refused, not made a
 * file. */
static const struct {
	const char *prefix;
	int (*takes)(const char *path);
	const struct store_backend *be;
} backends[] = {
	{ "postgresql://", NULL, &store_pg_backend },
	{ "postgres://", NULL, &store_pg_backend },
	{ NULL, is_conninfo, &store_pg_backend },
	{ NULL, NULL, &store_sqlite_backend },
};

/* The store handed out when even the back end's struct could not be made. */
static struct store oom_store = { .be = NULL, .msg = "out of memory" };

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

/* The back end that takes path, or NULL (a URL of no back end's). */
static const struct store_backend *backend_of(const char *path)
{
	size_t slen = 0;
	int url = is_url(path, &slen);

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		const char *p = backends[i].prefix;
		if (p ? !strncmp(path, p, strlen(p))
		      : backends[i].takes ? backends[i].takes(path) : !url)
			return backends[i].be;
	}
	return NULL;
}

const char *store_shown(const char *path)
{
	/* two buffers: two calls in one message keep both */
	static char buf[2][512];
	static int k;
	const struct store_backend *be;
	char *out = buf[k ^= 1];

	if (!path)
		return "";
	be = backend_of(path);
	if (!be || !be->shown)
		return path;
	be->shown(path, out, sizeof(buf[0]));
	return out;
}

int store_is_file(const char *path)
{
	return backend_of(path) == &store_sqlite_backend;
}

static int open_with(struct store **out, const char *path,
		     enum store_open_mode m)
{
	const struct store_backend *be = backend_of(path);
	int rc;

	if (!be) {
		struct store *st = calloc(1, sizeof(*st));
		size_t slen = 0;
		is_url(path, &slen);   /* the scheme, for the message */
		*out = st ? st : &oom_store;
		if (!st)
			return -ENOMEM;
		return store_fail(st, STORE_E_BACKEND, "no store back end for "
				  "'%.*s://' in this iotape", (int)slen, path);
	}
	rc = be->open(out, path, m);
	if (!*out) {
		*out = &oom_store;
		return -ENOMEM;
	}
	(*out)->be = be;
	snprintf((*out)->name, sizeof((*out)->name), "%s", store_shown(path));
	return rc ? rc : store_summary_backfill(*out, m);
}

int store_open(struct store **out, const char *path, int create)
{
	return open_with(out, path, create ? STORE_OPEN_CREATE : STORE_OPEN_WRITE);
}

int store_open_existing(struct store **out, const char *path)
{
	return open_with(out, path, STORE_OPEN_EXISTING);
}

void store_close(struct store *st)
{
	if (!st || st == &oom_store)
		return;
	store_summary_forget(st);
	free(st->pending);
	free(st->streams);
	if (st->be)
		st->be->close(st);
	else
		free(st);
}

const char *store_errmsg(const struct store *st)
{
	return st ? st->msg : "out of memory";
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
	return st->be->schema_version(st, version);
}

int store_begin(struct store *st)
{
	int rc;

	store_summary_forget(st);
	rc = st->be->begin(st);
	st->in_txn = !rc;
	return rc;
}

int store_begin_bulk(struct store *st)
{
	int rc;

	store_summary_forget(st);
	rc = st->be->begin_bulk ? st->be->begin_bulk(st) : st->be->begin(st);
	st->in_txn = !rc;
	return rc;
}

int store_commit(struct store *st)
{
	int rc = store_summary_pending(st);

	store_summary_forget(st);
	st->in_txn = 0;
	return rc ? rc : st->be->commit(st);
}

int store_rollback(struct store *st)
{
	store_summary_forget(st);
	st->in_txn = 0;
	return st->be->rollback(st);
}

/* ---- runs ---- */

int store_run_create(struct store *st, const struct run_info *ri, int64_t *id)
{
	int rc = st->be->run_create(st, ri, id);

	return rc || !st->in_txn ? rc : store_summary_stream_open(st, *id);
}

int store_run_free_name(struct store *st, const char *prefix, char *out,
			size_t outlen)
{
	for (int n = 1; n < 100000; n++) {
		int64_t id;
		int rc;
		if (n == 1)
			snprintf(out, outlen, "%s", prefix);
		else
			snprintf(out, outlen, "%s-%d", prefix, n);
		rc = store_run_find(st, out, &id);
		if (rc == -STORE_E_NOTFOUND)
			return 0;
		if (rc)
			return rc;
	}
	return store_fail(st, STORE_E_EXISTS, "no free run name for '%s'", prefix);
}

int store_run_find(struct store *st, const char *name_or_id, int64_t *id)
{
	return st->be->run_find(st, name_or_id, id);
}

int store_run_finish(struct store *st, int64_t run, const char *status,
		     int64_t genesis_ns)
{
	int rc = st->be->run_finish(st, run, status, genesis_ns);

	return rc ? rc : store_summary_note(st, run);
}

int store_run_set(struct store *st, int64_t run, const char *column,
		  const char *value)
{
	return st->be->run_set(st, run, column, value);
}

int store_run_set_format(struct store *st, int64_t run, const char *format,
			 int big_endian)
{
	return st->be->run_set_format(st, run, format, big_endian);
}

int store_run_set_parent(struct store *st, int64_t run, int64_t parent)
{
	return st->be->run_set_parent(st, run, parent);
}

int store_run_get(struct store *st, int64_t run, struct store_run *out)
{
	return st->be->run_get(st, run, out);
}

int store_runs_list(struct store *st, int count_requests,
		    struct store_run_listing **out, size_t *n)
{
	return st->be->runs_list(st, count_requests, NULL, out, n);
}

int store_runs_list_where(struct store *st, int count_requests,
			  const struct store_run_filter *f,
			  struct store_run_listing **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (f && f->nwhere > STORE_FILTER_MAX_WHERE)
		return store_fail(st, STORE_E_SQLITE, "at most %d settings to "
				  "match", STORE_FILTER_MAX_WHERE);
	return st->be->runs_list(st, count_requests, f, out, n);
}

int store_filter_sql(const struct store_run_filter *f, char mark, int first,
		     char *sql, size_t len, const char **params,
		     char (*num)[24], int *np)
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
		ADD(" AND host = %c%d", mark, k++);
		params[(*np)++] = f->host;
	}
	if (f->kernel) {
		ADD(" AND kernel = %c%d", mark, k++);
		params[(*np)++] = f->kernel;
	}
	if (f->kind) {
		ADD(" AND kind = %c%d", mark, k++);
		params[(*np)++] = f->kind;
	}
	if (f->since_ns != INT64_MIN) {
		ADD(" AND created_ns >= CAST(%c%d AS bigint)", mark, k++);
		snprintf(num[0], sizeof(num[0]), "%lld", (long long)f->since_ns);
		params[(*np)++] = num[0];
	}
	if (f->until_ns != INT64_MAX) {
		ADD(" AND created_ns < CAST(%c%d AS bigint)", mark, k++);
		snprintf(num[1], sizeof(num[1]), "%lld", (long long)f->until_ns);
		params[(*np)++] = num[1];
	}
	for (size_t i = 0; i < f->nwhere; i++) {
		ADD(" AND (SELECT s.value FROM settings s WHERE s.run = runs.id "
		    "AND s.key = %c%d ORDER BY s.at = 'start' DESC LIMIT 1) = "
		    "%c%d", mark, k, mark, k + 1);
		k += 2;
		params[(*np)++] = f->keys[i];
		params[(*np)++] = f->values[i];
	}
#undef ADD
	return o < len ? 0 : -1;
}

int store_run_has(struct store *st, int64_t run, enum store_has what)
{
	return st->be->run_has(st, run, what);
}

int store_run_delete(struct store *st, int64_t run, int64_t *kept_replays)
{
	return st->be->run_delete(st, run, kept_replays);
}

int store_run_rename(struct store *st, int64_t run, const char *name)
{
	return st->be->run_rename(st, run, name);
}

int store_run_find_input(struct store *st, const char *sha256, int64_t *id,
			 char *name, size_t namelen)
{
	return st->be->run_find_input(st, sha256, id, name, namelen);
}

int store_size(struct store *st, int64_t *bytes)
{
	return st->be->size(st, bytes);
}

int store_cache_limit(struct store *st, int kib)
{
	return st->be->cache_limit ? st->be->cache_limit(st, kib) : 0;
}

int store_vacuum(struct store *st, int64_t *before, int64_t *after)
{
	return st->be->vacuum(st, before, after);
}

/* ---- settings, devices, processes, commands, statistics ---- */

int store_setting_add(struct store *st, int64_t run, const char *key,
		      const char *value, const char *at)
{
	return st->be->setting_add(st, run, key, value, at);
}

int store_settings_get(struct store *st, int64_t run,
		       struct store_setting **out, size_t *n)
{
	return st->be->settings_get(st, run, out, n);
}

int store_setting_get(struct store *st, int64_t run, const char *key,
		      enum store_at at, char *value, size_t len)
{
	struct store_setting *s;
	const struct store_setting *hit = NULL;
	size_t n;
	int rc;

	if (len)
		value[0] = '\0';
	if ((rc = store_settings_get(st, run, &s, &n)))
		return rc;
	/* by key, start before end: the first row of key is the start one
	 * when it was read then */
	for (size_t i = 0; i < n && !hit; i++)
		if (!strcmp(s[i].key, key) && (at == STORE_AT_ANY || s[i].at == at))
			hit = &s[i];
	rc = hit && hit->value;
	if (rc && len)
		snprintf(value, len, "%s", hit->value);
	free(s);
	return rc;
}

int store_device_add(struct store *st, int64_t run, uint32_t dev,
		     const char *name, int64_t size_bytes, const char *role)
{
	return st->be->device_add(st, run, dev, name, size_bytes, role);
}

int store_devices_get(struct store *st, int64_t run,
		      struct store_device **out, size_t *n)
{
	return st->be->devices_get(st, run, out, n);
}

int store_process_set(struct store *st, int64_t run, uint32_t pid,
		      const char *comm)
{
	return st->be->process_set(st, run, pid, comm);
}

int store_processes_copy(struct store *st, int64_t run, int64_t from)
{
	return st->be->processes_copy(st, run, from);
}

int store_processes_get(struct store *st, int64_t run,
			struct store_process **out, size_t *n)
{
	return st->be->processes_get(st, run, out, n);
}

int store_command_add(struct store *st, int64_t run,
		      const struct store_command *c)
{
	return st->be->command_add(st, run, c);
}

int store_commands_get(struct store *st, int64_t run,
		       struct store_command **out, size_t *n)
{
	return st->be->commands_get(st, run, out, n);
}

int store_stat_set(struct store *st, int64_t run, const char *key,
		   const char *value)
{
	return st->be->stat_set(st, run, key, value);
}

int store_stats_get(struct store *st, int64_t run, struct store_stat **out,
		    size_t *n)
{
	return st->be->stats_get(st, run, out, n);
}

/* ---- batched writes ---- */

int store_event_add(struct store *st, int64_t run, const struct bt_event *ev)
{
	return st->be->event_add(st, run, ev);
}

int store_request_add(struct store *st, int64_t run, int64_t id,
		      const struct store_request *rq)
{
	int rc = st->be->request_add(st, run, id, rq);

	if (!rc && st->nstreams)
		store_summary_stream_add(st, run, rq);
	return rc;
}

int store_next_request_id(struct store *st, int64_t *id)
{
	return st->be->next_request_id(st, id);
}

int store_sample_add(struct store *st, int64_t run, int64_t time_ns,
		     const char *source, const char *key, double value)
{
	return st->be->sample_add(st, run, time_ns, source, key, value);
}

int store_replays_add(struct store *st, int64_t run,
		      const struct store_replay *rows, size_t n)
{
	return st->be->replays_add(st, run, rows, n);
}

/* ---- cursors ---- */

int store_requests_open(struct store *st, int64_t run,
			enum store_rq_order order, unsigned cols,
			struct store_cursor **cur)
{
	return st->be->cursor_open(st, STORE_CUR_REQUESTS, run, (int)order, cols,
				   NULL, cur);
}

int store_events_open(struct store *st, int64_t run, struct store_cursor **cur)
{
	return st->be->cursor_open(st, STORE_CUR_EVENTS, run, 0, 0, NULL, cur);
}

/* Gives cursor cur range r (NULL: none); closes it on a bad range. */
static int set_range(struct store *st, struct store_cursor **cur,
		     const struct store_range *r)
{
	if (!r)
		return 0;
	if (r->ndev > STORE_RANGE_MAX_DEVS) {
		store_cursor_close(*cur);
		*cur = NULL;
		return store_fail(st, STORE_E_SQLITE, "more than %d devices asked "
				  "for", STORE_RANGE_MAX_DEVS);
	}
	(*cur)->ranged = 1;
	(*cur)->range = *r;
	if (r->ndev)
		memcpy((*cur)->devs, r->devs, r->ndev * sizeof(*r->devs));
	(*cur)->range.devs = (*cur)->devs;
	return 0;
}

int store_requests_open_range(struct store *st, int64_t run,
			      enum store_rq_order order, unsigned cols,
			      const struct store_range *range,
			      struct store_cursor **cur)
{
	int rc;

	if (range)
		cols |= STORE_RQ_DEV | STORE_RQ_Q | STORE_RQ_D | STORE_RQ_C;
	if ((rc = store_requests_open(st, run, order, cols, cur)))
		return rc;
	return set_range(st, cur, range);
}

int store_events_open_range(struct store *st, int64_t run,
			    const struct store_range *range,
			    struct store_cursor **cur)
{
	int rc;

	if ((rc = store_events_open(st, run, cur)))
		return rc;
	return set_range(st, cur, range);
}

int store_requests_span(struct store *st, int64_t run, uint32_t **devs,
			size_t *ndev, int64_t *lo, int64_t *hi)
{
	*devs = NULL;
	*ndev = 0;
	*lo = 0;
	*hi = -1;
	if (!st->be->requests_span)
		return store_fail(st, ENOTSUP, "%s: no reading in parts",
				  st->be->name);
	return st->be->requests_span(st, run, devs, ndev, lo, hi);
}

int store_requests_open_ids(struct store *st, int64_t run, int64_t lo,
			    int64_t hi, unsigned cols,
			    const struct store_range *range,
			    struct store_cursor **cur)
{
	int rc;

	*cur = NULL;
	if (!st->be->requests_open_ids)
		return store_fail(st, ENOTSUP, "%s: no reading in parts",
				  st->be->name);
	if (range)
		cols |= STORE_RQ_DEV | STORE_RQ_Q | STORE_RQ_D | STORE_RQ_C;
	if ((rc = st->be->requests_open_ids(st, run, lo, hi, cols, cur)))
		return rc;
	return set_range(st, cur, range);
}

int store_open_reader(struct store *st, struct store **out)
{
	int rc;

	*out = NULL;
	if (!st->be || !st->be->open_reader)
		return store_fail(st, ENOTSUP, "no second handle on this store");
	if ((rc = st->be->open_reader(st, out)))
		return rc;
	(*out)->be = st->be;
	return 0;
}

int store_samples_open(struct store *st, int64_t run, const char *source,
		       struct store_cursor **cur)
{
	return st->be->cursor_open(st, STORE_CUR_SAMPLES, run, 0, 0, source, cur);
}

int store_vmstat_open(struct store *st, int64_t run,
		      enum store_vm_source source, struct store_cursor **cur)
{
	return st->be->cursor_open(st, STORE_CUR_VMSTAT, run, (int)source, 0,
				   NULL, cur);
}

int store_replays_open(struct store *st, int64_t run, struct store_cursor **cur)
{
	return st->be->cursor_open(st, STORE_CUR_REPLAYS, run, 0, 0, NULL, cur);
}

/* next() of a cursor of kind: a cursor of another kind is a caller's bug,
 * refused with a message rather than writing the wrong row type. */
static int next(struct store_cursor *cur, enum store_cursor_kind kind,
		void *row, int64_t *id)
{
	if (cur->kind != kind)
		return store_fail(cur->st, STORE_E_SQLITE, "reading from a cursor "
				  "of another kind");
	return cur->st->be->cursor_next(cur, row, id);
}

/* 1 when a row of dev at time t (STORE_NO_TIME: none) is in cur's range */
static int in_range(const struct store_cursor *cur, uint32_t dev, int64_t t)
{
	const struct store_range *r = &cur->range;
	int open = r->from_ns == INT64_MIN && r->to_ns == INT64_MAX;

	if (r->ndev) {
		size_t i = 0;
		while (i < r->ndev && r->devs[i] != dev)
			i++;
		if (i == r->ndev)
			return 0;
	}
	if (open)
		return 1;
	return t != STORE_NO_TIME && t >= r->from_ns && t < r->to_ns;
}

int store_requests_next(struct store_cursor *cur, struct store_request *rq,
			int64_t *id)
{
	int rc;

	while ((rc = next(cur, STORE_CUR_REQUESTS, rq, id)) == 1 && cur->ranged &&
	       !in_range(cur, rq->dev, rq->q_ns != STORE_NO_TIME ? rq->q_ns
			 : rq->d_ns != STORE_NO_TIME ? rq->d_ns : rq->c_ns))
		;
	return rc;
}

int store_events_next(struct store_cursor *cur, struct bt_event *ev)
{
	int rc;

	while ((rc = next(cur, STORE_CUR_EVENTS, ev, NULL)) == 1 && cur->ranged &&
	       !in_range(cur, ev->dev, (int64_t)ev->time_ns))
		;
	return rc;
}

int store_samples_next(struct store_cursor *cur, struct store_sample *s)
{
	return next(cur, STORE_CUR_SAMPLES, s, NULL);
}

int store_vmstat_next(struct store_cursor *cur, struct store_vmstat *row)
{
	return next(cur, STORE_CUR_VMSTAT, row, NULL);
}

int store_replays_next(struct store_cursor *cur, struct store_replay *r)
{
	return next(cur, STORE_CUR_REPLAYS, r, NULL);
}

void store_cursor_close(struct store_cursor *cur)
{
	if (cur)
		cur->st->be->cursor_close(cur);
}

/* ---- across runs ---- */

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
