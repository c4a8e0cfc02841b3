/* Read access to one stored run: its row, process names and events. */
#include "runview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"

static void copy_col(sqlite3_stmt *s, int i, char *out, size_t len)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	snprintf(out, len, "%s", t ? (const char *)t : "");
}

static void comm_put(struct runview *rv, uint32_t pid, const char *comm)
{
	size_t i;

	if (!rv->cap) {
		rv->cap = 1024;
		rv->pids = xcalloc(rv->cap, sizeof(*rv->pids));
		rv->comms = xcalloc(rv->cap, sizeof(*rv->comms));
	}
	for (i = (pid * 2654435761u) & (rv->cap - 1); rv->comms[i];
	     i = (i + 1) & (rv->cap - 1))
		if (rv->pids[i] == pid)
			return;
	rv->pids[i] = pid;
	rv->comms[i] = xstrdup(comm);
}

const char *runview_comm(const struct runview *rv, uint32_t pid)
{
	if (!rv->cap)
		return NULL;
	for (size_t i = (pid * 2654435761u) & (rv->cap - 1); rv->comms[i];
	     i = (i + 1) & (rv->cap - 1))
		if (rv->pids[i] == pid)
			return rv->comms[i];
	return NULL;
}

/* "active_span_ns=N,min_ns=N,max_ns=N" (any order, any missing). */
static void span_stats(struct runview *rv, const char *kv)
{
	static const char *const keys[] = { "active_span_ns=", "min_ns=", "max_ns=" };
	int64_t *out[] = { &rv->active_ns, &rv->min_ns, &rv->max_ns };

	for (int i = 0; kv && i < 3; i++) {
		const char *p = strstr(kv, keys[i]);
		if (p)
			*out[i] = strtoll(p + strlen(keys[i]), NULL, 10);
	}
}

int64_t runview_span_ns(const struct runview *rv)
{
	if (!rv->last_event)
		return 0;
	if (rv->active_ns > 0)
		return rv->active_ns;
	return rv->last_ns > rv->genesis_ns ? rv->last_ns - rv->genesis_ns : 0;
}

int runview_load(struct runview *rv, struct store *st, const char *run)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	size_t nproc = 0;
	int rc;

	memset(rv, 0, sizeof(*rv));
	rv->st = st;
	if (store_run_find(st, run, &rv->id))
		return error("%s", store_errmsg(st));
	rc = sqlite3_prepare_v2(db,
		"SELECT name, kind, status, coalesce(format,''), coalesce(source,''),"
		" coalesce(genesis_ns,0), coalesce(first_event,0),"
		" coalesce(last_event,0),"
		" coalesce((SELECT time_ns FROM events WHERE id = runs.last_event),0),"
		" (SELECT count(*) FROM processes WHERE run = runs.id),"
		" (SELECT group_concat(key || '=' || value) FROM run_stats"
		"  WHERE run = runs.id AND key IN ('active_span_ns', 'min_ns',"
		"  'max_ns'))"
		" FROM runs WHERE id = ?", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return error("reading run '%s': %s", run, sqlite3_errmsg(db));
	sqlite3_bind_int64(s, 1, rv->id);
	if (sqlite3_step(s) == SQLITE_ROW) {
		copy_col(s, 0, rv->name, sizeof(rv->name));
		copy_col(s, 1, rv->kind, sizeof(rv->kind));
		copy_col(s, 2, rv->status, sizeof(rv->status));
		copy_col(s, 3, rv->format, sizeof(rv->format));
		copy_col(s, 4, rv->source, sizeof(rv->source));
		rv->genesis_ns = sqlite3_column_int64(s, 5);
		rv->first_event = sqlite3_column_int64(s, 6);
		rv->last_event = sqlite3_column_int64(s, 7);
		rv->last_ns = sqlite3_column_int64(s, 8);
		nproc = (size_t)sqlite3_column_int64(s, 9);
		span_stats(rv, (const char *)sqlite3_column_text(s, 10));
	}
	sqlite3_finalize(s);
	rv->cap = 1024;
	while (rv->cap < 2 * nproc)
		rv->cap *= 2;
	rv->pids = xcalloc(rv->cap, sizeof(*rv->pids));
	rv->comms = xcalloc(rv->cap, sizeof(*rv->comms));
	rc = sqlite3_prepare_v2(db, "SELECT pid, comm FROM processes WHERE run = ?",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return error("reading processes: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(s, 1, rv->id);
	while (sqlite3_step(s) == SQLITE_ROW)
		comm_put(rv, (uint32_t)sqlite3_column_int64(s, 0),
			 (const char *)sqlite3_column_text(s, 1));
	sqlite3_finalize(s);
	return 0;
}

struct store *store_open_existing(const char *db)
{
	struct store *st = NULL;

	if (access(db, F_OK) != 0) {
		error("cannot open database '%s': no such file", db);
		return NULL;
	}
	if (store_open(&st, db, 0)) {
		error("%s: %s", db, store_errmsg(st));
		store_close(st);
		return NULL;
	}
	return st;
}

int runview_open(struct runview *rv, const char *db, const char *run)
{
	struct store *st = store_open_existing(db);

	if (!st) {
		memset(rv, 0, sizeof(*rv));
		return -1;
	}
	if (runview_load(rv, st, run)) {
		runview_close(rv);
		store_close(st);
		return -1;
	}
	rv->owns_store = 1;
	return 0;
}

void runview_close(struct runview *rv)
{
	int owned = rv->owns_store;

	for (size_t i = 0; i < rv->cap; i++)
		free(rv->comms[i]);
	free(rv->comms);
	free(rv->pids);
	if (owned)
		store_close(rv->st);
	memset(rv, 0, sizeof(*rv));
}

int runview_events(struct runview *rv,
		   int (*fn)(void *ctx, const struct bt_event *ev), void *ctx)
{
	sqlite3 *db = store_db(rv->st);
	sqlite3_stmt *s;
	int rc = 0, step;

	if (!rv->first_event)
		return 0;
	if (sqlite3_prepare_v2(db,
		"SELECT time_ns, sequence, sector, bytes, action, pid, dev, cpu,"
		" error, pdu FROM events WHERE id BETWEEN ? AND ? ORDER BY id",
		-1, &s, NULL) != SQLITE_OK)
		return error("reading events: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(s, 1, rv->first_event);
	sqlite3_bind_int64(s, 2, rv->last_event);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct bt_event ev;
		ev.time_ns = (uint64_t)sqlite3_column_int64(s, 0);
		ev.sequence = (uint32_t)sqlite3_column_int64(s, 1);
		ev.sector = (uint64_t)sqlite3_column_int64(s, 2);
		ev.bytes = (uint32_t)sqlite3_column_int64(s, 3);
		ev.action = (uint64_t)sqlite3_column_int64(s, 4);
		ev.pid = (uint32_t)sqlite3_column_int64(s, 5);
		ev.dev = (uint32_t)sqlite3_column_int64(s, 6);
		ev.cpu = (uint32_t)sqlite3_column_int64(s, 7);
		ev.error = (uint16_t)sqlite3_column_int(s, 8);
		ev.pdu = sqlite3_column_blob(s, 9);
		ev.pdu_len = (uint16_t)sqlite3_column_bytes(s, 9);
		if ((rc = fn(ctx, &ev)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = error("reading events: %s", sqlite3_errmsg(db));
	sqlite3_finalize(s);
	return rc;
}
