/* Read access to one stored run: its row, process names and events. */
#include "runview.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

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

void rv_filter_init(struct rv_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->to_ns = INT64_MAX;
}

int rv_filter_opt(struct rv_filter *f, int opt, const char *arg)
{
	unsigned ma, mi;
	double s;

	if (opt == RV_OPT_DEV) {
		if (!strchr(arg, ',') || dec_devnum(arg, &ma, &mi))
			return error("invalid device '%s' for --dev (major,minor: "
				     "8,0)", arg);
		if (f->ndev == RV_MAX_DEVS)
			return error("too many --dev (at most %d)", RV_MAX_DEVS);
		f->devs[f->ndev++] = (uint32_t)(ma << 20 | mi);
		return 0;
	}
	if (parse_duration(arg, opt == RV_OPT_FROM ? "--from" : "--to", &s))
		return -1;
	if (s > 9e9)
		return error("invalid duration '%s' for %s (too long)", arg,
			     opt == RV_OPT_FROM ? "--from" : "--to");
	if (opt == RV_OPT_FROM)
		f->from_ns = (int64_t)llround(s * 1e9);
	else
		f->to_ns = (int64_t)llround(s * 1e9);
	return 0;
}

/* 0 when every device f asks for is in rv's run (or the run names no
 * devices: a run of samples only, which runview_why_empty() explains), else
 * -1 after one error line naming the missing ones and the run's own. */
static int filter_devs_in_run(const struct runview *rv,
			      const struct rv_filter *f)
{
	struct store_device *devs = NULL;
	size_t ndev = 0;
	char miss[RV_MAX_DEVS * 24] = "", have[512] = "";
	int n = 0, m = 0;

	if (!f->ndev)
		return 0;
	if (store_devices_get(rv->st, rv->id, &devs, &ndev))
		return error("%s", store_errmsg(rv->st));
	for (int i = 0; i < f->ndev && ndev; i++) {
		size_t k = 0;
		while (k < ndev && devs[k].dev != f->devs[i])
			k++;
		if (k == ndev && n >= 0 && (size_t)n < sizeof(miss))
			n += snprintf(miss + n, sizeof(miss) - (size_t)n,
				      "%s%u,%u", n ? " or " : "",
				      BT_MAJOR(f->devs[i]), BT_MINOR(f->devs[i]));
	}
	for (size_t k = 0; n && k < ndev && m >= 0 && (size_t)m < sizeof(have); k++)
		m += snprintf(have + m, sizeof(have) - (size_t)m, "%s%u,%u",
			      k ? ", " : "", BT_MAJOR(devs[k].dev),
			      BT_MINOR(devs[k].dev));
	free(devs);
	if (n)
		return error("run '%s': no device %s in this run; it has %s",
			     rv->name, miss, have);
	return 0;
}

int runview_set_filter(struct runview *rv, const struct rv_filter *f)
{
	if (f->to_ns <= f->from_ns)
		return error("--to must be after --from");
	if (filter_devs_in_run(rv, f))
		return -1;
	rv->filtered = f->from_ns > 0 || f->to_ns != INT64_MAX || f->ndev;
	rv->from_abs = rv->genesis_ns + f->from_ns;
	rv->to_abs = f->to_ns == INT64_MAX ? INT64_MAX : rv->genesis_ns + f->to_ns;
	memcpy(rv->devs, f->devs, sizeof(rv->devs));
	rv->ndev = f->ndev;
	rv->range.from_ns = f->from_ns > 0 ? rv->from_abs : INT64_MIN;
	rv->range.to_ns = rv->to_abs;
	rv->range.devs = rv->devs;
	rv->range.ndev = (size_t)rv->ndev;
	return 0;
}

int runview_requests_open(const struct runview *rv, enum store_rq_order order,
			  unsigned cols, struct store_cursor **cur)
{
	if (store_requests_open_range(rv->st, rv->id, order, cols,
				      rv->filtered ? &rv->range : NULL, cur))
		return error("reading requests: %s", store_errmsg(rv->st));
	return 0;
}

int64_t runview_span_ns(const struct runview *rv)
{
	if (!rv->last_event)
		return 0;
	if (rv->filtered && (rv->from_abs > rv->genesis_ns ||
			     rv->to_abs != INT64_MAX)) {
		int64_t lo = rv->from_abs, hi = rv->to_abs;
		if (hi > rv->last_ns)
			hi = rv->last_ns;
		return hi > lo ? hi - lo : 0;
	}
	if (rv->active_ns > 0)
		return rv->active_ns;
	return rv->last_ns > rv->genesis_ns ? rv->last_ns - rv->genesis_ns : 0;
}

int runview_load(struct runview *rv, struct store *st, const char *run)
{
	struct store_process *procs = NULL;
	struct store_run r;
	size_t nproc = 0;

	memset(rv, 0, sizeof(*rv));
	rv->st = st;
	if (store_run_find(st, run, &rv->id) || store_run_get(st, rv->id, &r))
		return error("%s", store_errmsg(st));
	snprintf(rv->name, sizeof(rv->name), "%s", r.name);
	snprintf(rv->kind, sizeof(rv->kind), "%s", r.kind);
	snprintf(rv->status, sizeof(rv->status), "%s", r.status);
	snprintf(rv->format, sizeof(rv->format), "%s", r.format);
	snprintf(rv->source, sizeof(rv->source), "%s", r.source);
	rv->genesis_ns = r.genesis_ns == STORE_NO_TIME ? 0 : r.genesis_ns;
	rv->first_event = r.first_event;
	rv->last_event = r.last_event;
	rv->last_ns = r.last_ns;
	if (store_processes_get(st, rv->id, &procs, &nproc))
		return error("%s", store_errmsg(st));
	{
		/* the span over the time that had I/O, when import counted
		 * clock steps (run_stats) */
		struct store_stat *ss;
		size_t ns;
		rv->pending_end = rv->completions = -1;
		for (int k = 0; k < 8; k++)
			rv->dd_bytes_per_s[k] = NAN;
		if (store_stats_get(st, rv->id, &ss, &ns)) {
			free(procs);
			return error("%s", store_errmsg(st));
		}
		int64_t cap_from = 0, cap_wall = 0, rec_at = 0, rec_wall = 0;
		int64_t rec_wall_at = 0;
		for (size_t i = 0; i < ns; i++) {
			int64_t *to = !strcmp(ss[i].key, "active_span_ns") ? &rv->active_ns
				      : !strcmp(ss[i].key, "capture_start_ns") ? &cap_from
				      : !strcmp(ss[i].key, "capture_start_wall_ns") ? &cap_wall
				      : !strcmp(ss[i].key, "trace.start_ns") ? &rec_at
				      : !strcmp(ss[i].key, "trace.wall_ns") ? &rec_wall
				      : !strcmp(ss[i].key, "trace.wall_at_ns") ? &rec_wall_at
				      : !strcmp(ss[i].key, "min_ns") ? &rv->min_ns
				      : !strcmp(ss[i].key, "max_ns") ? &rv->max_ns
				      : !strcmp(ss[i].key, "pending_end") ? &rv->pending_end
				      : !strcmp(ss[i].key, "completions") ? &rv->completions
				      : NULL;
			{
				/* command.N.KEY: placed, offset, dd_bytes_per_s,
				 * follows */
				int k;
				char tail[24];
				if (sscanf(ss[i].key, "command.%d.%23s", &k, tail) == 2 &&
				    k >= 0) {
					if (!strcmp(tail, "placed"))
						rv->cmds_placed++;
					else if (!strcmp(tail, "offset"))
						rv->cmds_offset++;
					else if (!strcmp(tail, "dd_bytes_per_s") &&
						 k < 8 && ss[i].value)
						rv->dd_bytes_per_s[k] =
							strtod(ss[i].value, NULL);
					else if (!strcmp(tail, "follows") && k < 64 &&
						 ss[i].value) {
						const char *v = ss[i].value;
						uint64_t *m = !strcmp(v, "after") ? &rv->cmds_after
							: !strcmp(v, "at_once") ? &rv->cmds_at_once
							: !strcmp(v, "wait") ? &rv->cmds_wait : NULL;
						if (m)
							*m |= 1ull << k;
					}
				}
			}
			if (!strcmp(ss[i].key, "replay.engine") && ss[i].value &&
			    !strcmp(ss[i].value, "model"))
				rv->modelled = 1;
			if (!strcmp(ss[i].key, "replay.targets") && ss[i].value)
				snprintf(rv->model_targets, sizeof(rv->model_targets),
					 "%s", ss[i].value);
			if (!strcmp(ss[i].key, "missing_cpus") && ss[i].value)
				snprintf(rv->missing_cpus, sizeof(rv->missing_cpus),
					 "%s", ss[i].value);
			if (to && ss[i].value)
				*to = strtoll(ss[i].value, NULL, 10);
		}
		free(ss);
		/* when tracing began: no later than the first event */
		rv->traced_from_ns = rv->genesis_ns;
		if (cap_from && cap_from <= rv->genesis_ns) {
			rv->traced_from_ns = cap_from;
			rv->traced_wall_ns = cap_wall;
		} else if (rec_at && rec_at <= rv->genesis_ns) {
			rv->traced_from_ns = rec_at;
			rv->traced_wall_ns = rec_wall ? rec_wall -
					     (rec_wall_at - rec_at) : 0;
		}
	}
	rv->cap = 1024;
	while (rv->cap < 2 * nproc)
		rv->cap *= 2;
	rv->pids = xcalloc(rv->cap, sizeof(*rv->pids));
	rv->comms = xcalloc(rv->cap, sizeof(*rv->comms));
	for (size_t i = 0; i < nproc; i++)
		comm_put(rv, procs[i].pid, procs[i].comm);
	free(procs);
	return 0;
}

int runview_open(struct runview *rv, const char *db, const char *run)
{
	struct store *st;

	if (store_open_existing(&st, db)) {
		error("%s", store_errmsg(st));
		store_close(st);
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
	struct store_cursor *cur;
	struct bt_event ev;
	int rc = 0, step;

	if (!rv->first_event)
		return 0;
	if (store_events_open_range(rv->st, rv->id, rv->filtered ? &rv->range
				    : NULL, &cur))
		return error("%s", store_errmsg(rv->st));
	while ((step = store_events_next(cur, &ev)) > 0)
		if ((rc = fn(ctx, &ev)))
			break;
	if (!rc && step < 0)
		rc = error("%s", store_errmsg(rv->st));
	store_cursor_close(cur);
	return rc;
}

const char *runview_why_empty(const struct runview *rv, char *buf, size_t len)
{
	char from[32], to[32];

	if (!rv->last_event) {
		/* what the run holds instead, and the command that shows it:
		 * a time or dd paste has timed commands only */
		char q[300];
		const char *cmd = store_run_has(rv->st, rv->id,
						STORE_HAS_IOSTAT_SAMPLES) > 0 ? "iostat"
			: store_run_has(rv->st, rv->id, STORE_HAS_LOG_SAMPLES) > 0 ||
			  store_run_has(rv->st, rv->id, STORE_HAS_PROC_SAMPLES) > 0
			? "vmstat" : NULL;
		shell_quote(rv->name, q, sizeof(q));
		if (cmd)
			snprintf(buf, len, "no block events in this run (samples "
				 "only: see iotape %s %s)", cmd, q);
		else
			snprintf(buf, len, "no block events or samples in this run "
				 "(timed commands only: see iotape metric %s)", q);
		return buf;
	}
	if (!rv->filtered)
		return snprintf(buf, len, "no requests in this run"), buf;
	if (rv->from_abs <= rv->genesis_ns && rv->to_abs == INT64_MAX)
		return snprintf(buf, len, "no requests of the devices asked for "
				"in this run"), buf;
	snprintf(from, sizeof(from), "%.3f s", (double)(rv->from_abs -
		 rv->genesis_ns) / 1e9);
	if (rv->to_abs == INT64_MAX)
		snprintf(to, sizeof(to), "the end");
	else
		snprintf(to, sizeof(to), "%.3f s", (double)(rv->to_abs -
			 rv->genesis_ns) / 1e9);
	snprintf(buf, len, "no requests %sin the window %s to %s: the run's "
		 "events are from 0.000 to %.3f s", rv->ndev ? "of the devices "
		 "asked for " : "", from, to,
		 (double)(rv->last_ns - rv->genesis_ns) / 1e9);
	return buf;
}

int runview_has_requests(const struct runview *rv)
{
	struct store_cursor *cur;
	struct store_request rq;
	int step;

	if (runview_requests_open(rv, STORE_RQ_ALL_ANY, STORE_RQ_DEV, &cur))
		return -1;
	step = store_requests_next(cur, &rq, NULL);
	store_cursor_close(cur);
	if (step < 0)
		return error("reading requests: %s", store_errmsg(rv->st));
	return step > 0;
}
