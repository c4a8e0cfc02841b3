/* Copying a run between stores through the store API (store_copy.h): read
 * from one, write to the other, in one transaction of the destination. */
#include "schema/store_copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "reading: MSG" or "writing: MSG" into err; returns rc. */
static int fail(int rc, struct store *st, const char *how, char *err,
		size_t errlen)
{
	snprintf(err, errlen, "%s: %s", how, store_errmsg(st));
	return rc;
}

#define RD(expr) do { if ((rc = (expr)) < 0) { \
	fail(rc, src, "reading", err, errlen); goto out; } } while (0)
#define WR(expr) do { if ((rc = (expr)) < 0) { \
	fail(rc, dst, "writing", err, errlen); goto out; } } while (0)

/* Settings, devices, processes, commands and statistics of run into to. */
static int copy_small(struct store *src, int64_t run, struct store *dst,
		      int64_t to, struct store_copy_counts *c, char *err,
		      size_t errlen)
{
	struct store_setting *set = NULL;
	struct store_device *dev = NULL;
	struct store_process *proc = NULL;
	struct store_command *cmd = NULL;
	struct store_stat *stat = NULL;
	size_t n;
	int rc;

	RD(store_settings_get(src, run, &set, &n));
	for (size_t i = 0; i < n; i++, c->rows++)
		WR(store_setting_add(dst, to, set[i].key, set[i].value,
				     set[i].at == STORE_AT_END ? "end" : "start"));
	RD(store_devices_get(src, run, &dev, &n));
	for (size_t i = 0; i < n; i++, c->rows++)
		WR(store_device_add(dst, to, dev[i].dev, dev[i].name,
				    dev[i].size_bytes, dev[i].role));
	RD(store_processes_get(src, run, &proc, &n));
	for (size_t i = 0; i < n; i++, c->rows++)
		WR(store_process_set(dst, to, proc[i].pid, proc[i].comm));
	RD(store_commands_get(src, run, &cmd, &n));
	for (size_t i = 0; i < n; i++, c->rows++)
		WR(store_command_add(dst, to, &cmd[i]));
	RD(store_stats_get(src, run, &stat, &n));
	for (size_t i = 0; i < n; i++, c->rows++)
		WR(store_stat_set(dst, to, stat[i].key, stat[i].value));
	rc = 0;
out:
	free(set);
	free(dev);
	free(proc);
	free(cmd);
	free(stat);
	return rc;
}

/* Events, requests and samples of run into to, each through a cursor. */
static int copy_bulk(struct store *src, int64_t run, struct store *dst,
		     int64_t to, struct store_copy_counts *c, char *err,
		     size_t errlen)
{
	struct store_cursor *cur = NULL;
	struct bt_event ev;
	struct store_request rq;
	struct store_sample smp;
	int64_t id;
	int rc;

	RD(store_events_open(src, run, &cur));
	while (1) {
		RD(store_events_next(cur, &ev));
		if (!rc)
			break;
		WR(store_event_add(dst, to, &ev));
		c->events++;
	}
	store_cursor_close(cur);
	RD(store_requests_open(src, run, STORE_RQ_ALL, STORE_RQ_COLS_ALL, &cur));
	while (1) {
		RD(store_requests_next(cur, &rq, &id));
		if (!rc)
			break;
		WR(store_request_add(dst, to, id, &rq));
		c->requests++;
	}
	store_cursor_close(cur);
	RD(store_samples_open(src, run, NULL, &cur));
	while (1) {
		RD(store_samples_next(cur, &smp));
		if (!rc)
			break;
		WR(store_sample_add(dst, to, smp.time_ns, smp.source, smp.key,
				    smp.value));
		c->samples++;
	}
	rc = 0;
out:
	store_cursor_close(cur);
	c->rows += c->events + c->requests + c->samples;
	return rc;
}

int store_copy_run(struct store *src, int64_t run, struct store *dst,
		   const char *name, int replace, struct store_copy_counts *c,
		   char *err, size_t errlen)
{
	struct store_run r, parent;
	struct run_info ri = { 0 };
	int64_t old, to;
	int rc, began = 0;

	memset(c, 0, sizeof(*c));
	err[0] = '\0';
	RD(store_run_get(src, run, &r));
	WR(store_begin(dst));
	began = 1;
	rc = store_run_find(dst, name, &old);
	if (rc == 0 && !replace) {
		snprintf(err, errlen, "a run named '%s' is there already (--replace"
			 " to overwrite it)", name);
		rc = -STORE_E_EXISTS;
		goto out;
	}
	if (rc == 0)
		WR(store_run_delete(dst, old, NULL));
	else if (rc != -STORE_E_NOTFOUND)
		WR(rc);
	ri.name = name;
	ri.kind = r.kind;
	ri.host = r.host[0] ? r.host : NULL;
	ri.kernel = r.kernel[0] ? r.kernel : NULL;
	ri.source = r.source[0] ? r.source : NULL;
	ri.format = r.format[0] ? r.format : NULL;
	ri.big_endian = r.big_endian;
	/* the parent, when the destination has a run of its name */
	if (r.parent && !store_run_get(src, r.parent, &parent) &&
	    store_run_find(dst, parent.name, &old) == 0)
		ri.parent = old;
	WR(store_run_create(dst, &ri, &to));
	c->id = to;
	c->rows = 1;
	if ((rc = copy_small(src, run, dst, to, c, err, errlen)) ||
	    (rc = copy_bulk(src, run, dst, to, c, err, errlen)))
		goto out;
	WR(store_run_finish(dst, to, r.status[0] ? r.status : "complete",
			    r.genesis_ns));
	WR(store_commit(dst));
	return 0;
out:
	if (began)
		store_rollback(dst);
	return rc < 0 ? rc : -STORE_E_SQLITE;
}
