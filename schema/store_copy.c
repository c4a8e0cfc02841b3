/* Copying a run between stores through the store API (store_copy.h): read
 * from one, write to the other, in one transaction of the destination, tried
 * again when the destination says so (store_again()). */
#include "schema/store_copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schema/store_driver.h"

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

/* Settings, devices, processes, commands, statistics and workload metrics
 * (the stored ones: a command's times come with its command, an imported
 * dd's figures with the statistics) of run into to. */
static int copy_small(struct store *src, int64_t run, struct store *dst,
		      int64_t to, struct store_copy_counts *c, char *err,
		      size_t errlen)
{
	struct store_setting *set = NULL;
	struct store_device *dev = NULL;
	struct store_process *proc = NULL;
	struct store_command *cmd = NULL;
	struct store_stat *stat = NULL;
	struct store_metric *met = NULL;
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
	RD(store_metrics_get(src, run, &met, &n));
	for (size_t i = 0; i < n; i++)
		if (!met[i].derived && (c->rows++, 1))
			WR(store_metric_set(dst, to, met[i].name, met[i].value,
					    met[i].unit, met[i].source));
	rc = 0;
out:
	free(set);
	free(dev);
	free(proc);
	free(cmd);
	free(stat);
	free(met);
	return rc;
}

#define REPLAY_BATCH 256

/* op as the static string of its name ("read" when none matches: the
 * table allows no other). */
static const char *op_name(const char *op)
{
	static const char *const ops[] = { "read", "write", "flush", "discard" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (op && !strcmp(op, ops[i]))
			return ops[i];
	return ops[0];
}

/* Events, requests, samples and replayed I/Os of run into to, each through
 * a cursor; request ids (and the ids rows name: merged_into, split_from)
 * moved by off, the source requests replays name by parent_off. */
static int copy_bulk(struct store *src, int64_t run, struct store *dst,
		     int64_t to, int64_t off, int64_t parent_off,
		     struct store_copy_counts *c, char *err, size_t errlen)
{
	struct store_cursor *cur = NULL;
	struct bt_event ev;
	struct store_request rq;
	struct store_sample smp;
	struct store_replay rp[REPLAY_BATCH];
	size_t nrp = 0;
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
		if (rq.merged_into)
			rq.merged_into += off;
		if (rq.split_from)
			rq.split_from += off;
		WR(store_request_add(dst, to, id + off, &rq));
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
	store_cursor_close(cur);
	/* in batches; a row's op (it points into the cursor's row) as one of
	 * the four names the table allows */
	RD(store_replays_open(src, run, &cur));
	while (1) {
		int more;
		RD(store_replays_next(cur, &rp[nrp]));
		if ((more = rc)) {
			rp[nrp].op = op_name(rp[nrp].op);
			if (rp[nrp].src_request)
				rp[nrp].src_request += parent_off;
		}
		if (more && ++nrp < REPLAY_BATCH)
			continue;
		if (nrp)
			WR(store_replays_add(dst, to, rp, nrp));
		c->replays += (int64_t)nrp;
		nrp = 0;
		if (!more)
			break;
	}
	rc = 0;
out:
	store_cursor_close(cur);
	c->rows += c->events + c->requests + c->samples + c->replays;
	return rc;
}

/* This machine's name, or "localhost". */
static void this_host(char *out, size_t len)
{
	if (gethostname(out, len - 1))
		snprintf(out, len, "localhost");
	out[len - 1] = 0;
}

void store_copy_fleet_name(const struct store_run *r, char *out, size_t len)
{
	char host[128] = "localhost";

	if (strchr(r->name, ':')) {
		snprintf(out, len, "%s", r->name);
		return;
	}
	if (r->host[0])
		snprintf(host, sizeof(host), "%s", r->host);
	else
		this_host(host, sizeof(host));
	snprintf(out, len, "%s:%s", host, r->name);
}

/* The lowest id of run's requests in st into *lo (0 with none). */
static int request_lo(struct store *st, int64_t run, int64_t *lo, int64_t *hi)
{
	uint32_t *devs = NULL;
	size_t ndev = 0;
	int rc = store_requests_span(st, run, &devs, &ndev, lo, hi);

	free(devs);
	return rc;
}

/* How much run's request ids move in dst: not at all while their ids are
 * free there (a file that has none of them; a store keyed by run), else to
 * dst's first free id, so runs of many machines (each numbered from 1)
 * land in one file. Into *off. */
static int id_offset(struct store *src, int64_t run, struct store *dst,
		     int64_t *off, char *err, size_t errlen)
{
	int64_t lo, hi, next;
	int rc;

	*off = 0;
	RD(request_lo(src, run, &lo, &hi));
	if (hi < lo)
		return 0;
	WR(store_request_ids_free(dst, lo, hi));
	if (rc == 1)
		return 0;
	WR(store_next_request_id(dst, &next));
	*off = next - lo;
	return 0;
out:
	return rc;
}

/* How much the ids of run's parent's requests moved from src to dst (the
 * parent found by name there), for its replays' src_request; 0 when it has
 * none there. */
static int parent_offset(struct store *src, int64_t sp, struct store *dst,
			 int64_t dp, int64_t *off, char *err, size_t errlen)
{
	int64_t slo, shi, dlo, dhi;
	int rc;

	*off = 0;
	if (!sp || !dp)
		return 0;
	RD(request_lo(src, sp, &slo, &shi));
	WR(request_lo(dst, dp, &dlo, &dhi));
	if (shi >= slo && dhi >= dlo)
		*off = dlo - slo;
	return 0;
out:
	return rc;
}

/* One try of store_copy_run(): its transaction in dst. */
static int copy_once(struct store *src, int64_t run, const struct store_run *r,
		     struct store *dst, int fleet, int replace,
		     struct store_copy_counts *c, char *err, size_t errlen)
{
	struct store_run parent;
	struct store_summary sum;
	struct run_info ri = { 0 };
	char pname[sizeof(c->name)], host[128];
	const char *name = c->name;
	int64_t old, to, off, poff = 0, sparent = 0;
	int rc, began = 0;

	c->events = c->requests = c->samples = c->replays = c->rows = 0;
	err[0] = '\0';
	WR(store_begin(dst));
	began = 1;
	rc = store_run_find(dst, name, &old);
	if (rc == 0 && !replace) {
		snprintf(err, errlen, "a run named '%s' is there already (--replace"
			 " to overwrite it)", name);
		rc = -STORE_E_EXISTS;
		goto out;
	}
	/* a replace of the same name that ran at the same time deleted it
	 * first: the whole transaction again, which finds that one's run */
	if (rc == 0) {
		if ((rc = store_run_delete(dst, old, NULL)) == -STORE_E_NOTFOUND)
			rc = -STORE_E_RETRY;
		WR(rc);
	} else if (rc != -STORE_E_NOTFOUND) {
		WR(rc);
	}
	ri.name = name;
	ri.kind = r->kind;
	/* the machine it was recorded on; pushed, this one when not known (as
	 * its name says) */
	if (r->host[0])
		ri.host = r->host;
	else if (fleet) {
		this_host(host, sizeof(host));
		ri.host = host;
	}
	ri.kernel = r->kernel[0] ? r->kernel : NULL;
	ri.source = r->source[0] ? r->source : NULL;
	ri.format = r->format[0] ? r->format : NULL;
	ri.notes = r->notes[0] ? r->notes : NULL;
	ri.big_endian = r->big_endian;
	ri.created_ns = r->created_ns;
	/* the parent, when the destination has a run of its name */
	if (r->parent && !store_run_get(src, r->parent, &parent)) {
		if (fleet)
			store_copy_fleet_name(&parent, pname, sizeof(pname));
		else
			snprintf(pname, sizeof(pname), "%s", parent.name);
		if (store_run_find(dst, pname, &old) == 0) {
			ri.parent = old;
			sparent = r->parent;
		}
	}
	if ((rc = id_offset(src, run, dst, &off, err, errlen)) ||
	    (rc = parent_offset(src, sparent, dst, ri.parent, &poff, err, errlen)))
		goto out;
	rc = store_run_create(dst, &ri, &to);
	/* a concurrent push of that name landed first: --replace tries again */
	if (rc == -STORE_E_EXISTS && replace)
		rc = -STORE_E_RETRY;
	WR(rc);
	c->id = to;
	c->rows = 1;
	if (r->input_sha256[0])
		WR(store_run_set(dst, to, "input_sha256", r->input_sha256));
	if ((rc = copy_small(src, run, dst, to, c, err, errlen)) ||
	    (rc = copy_bulk(src, run, dst, to, off, poff, c, err, errlen)))
		goto out;
	WR(store_run_finish(dst, to, r->status[0] ? r->status : "complete",
			    r->genesis_ns));
	/* the summary as the source computed it (the same rows give the same
	 * figures): the destination need not read the run back */
	if ((rc = store_summary_get(src, run, &sum)) < 0)
		RD(rc);
	if (rc == 1)
		WR(store_summary_set(dst, to, &sum));
	WR(store_commit(dst));
	return 0;
out:
	if (began)
		store_rollback(dst);
	return rc < 0 ? rc : -STORE_E_SQLITE;
}

int store_copy_run(struct store *src, int64_t run, struct store *dst,
		   int fleet, int replace, struct store_copy_counts *c,
		   char *err, size_t errlen)
{
	struct store_run r;
	int rc;

	memset(c, 0, sizeof(*c));
	err[0] = '\0';
	RD(store_run_get(src, run, &r));
	if (fleet)
		store_copy_fleet_name(&r, c->name, sizeof(c->name));
	else
		snprintf(c->name, sizeof(c->name), "%s", r.name);
	for (int k = 0; ; k++) {
		rc = copy_once(src, run, &r, dst, fleet, replace, c, err, errlen);
		if (!store_again(dst, rc, k))
			break;
		c->retries++;
	}
	/* the message after the tries (store_again() adds how many) */
	if (rc == -STORE_E_RETRY)
		fail(rc, dst, "writing", err, errlen);
	return rc;
out:
	return rc;
}
