/* Samples into the store: vmstat text logs (two passes: the first decides
 * the interval and the time base, the second stores) and /proc sampler
 * values. See import_samples.h. */
#include "import_samples.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "import/import_fmt.h"
#include "capture/procstat.h"
#include "import/vmstat_text.h"
#include "lib/util.h"

/* What the first pass learns. */
struct scan {
	int all_timed;       /* every row has a -t stamp or a date line */
	int64_t wall0;       /* the first row's log wall-clock time, or -1 */
	int dated_multirow;  /* a date-block log whose blocks have > 1 row */
	double *io_kb;       /* each interval row's bi + bo (kB/s), by index;
			      * NAN for a since-boot row */
	size_t nrow, cap;
};

static int scan_row(void *vctx, const struct vmstat_row *r)
{
	struct scan *s = vctx;
	double io = 0;

	if ((size_t)r->index < 1u << 20) {
		for (int i = 0; i < r->ncol; i++)
			if (!strcmp(r->names[i], "bi") || !strcmp(r->names[i], "bo"))
				io += r->values[i];
		while (s->nrow <= (size_t)r->index) {
			if (s->nrow == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 64;
				s->io_kb = xrealloc(s->io_kb, s->cap * sizeof(*s->io_kb));
			}
			s->io_kb[s->nrow++] = NAN;
		}
		s->io_kb[r->index] = r->since_boot ? NAN : io;
	}

	if (r->index == 0) {
		s->all_timed = 1;
		s->wall0 = r->stamp_ns >= 0 ? r->stamp_ns : r->date_ns;
	}
	if (r->stamp_ns < 0 && r->date_ns < 0)
		s->all_timed = 0;
	if (r->stamp_ns < 0 && r->date_ns >= 0 && r->block_row > 0)
		s->dated_multirow = 1;
	return 0;
}

/* The second pass: rows into samples. */
struct put {
	struct store *st;
	int64_t run;
	int all_timed;
	int64_t wall0;       /* subtracted from row times (when all_timed) */
	int64_t base;        /* added to the offsets */
	int64_t interval_ns;
	int64_t prev;
	int have_prev;
	/* `time` reports */
	const char *path;
	int next_idx;        /* commands.idx of the next one */
	int commands;        /* stored */
	uint64_t last_rows;  /* the rows before the last one stored */
	int64_t last_end;    /* and its end */
};

static int put_row(void *vctx, const struct vmstat_row *r)
{
	struct put *p = vctx;
	int64_t t;
	int rc;

	if (p->all_timed)
		t = p->base + (r->time_ns - p->wall0);
	else
		t = p->base + (int64_t)r->index * p->interval_ns;
	if (p->have_prev && t <= p->prev)
		t = p->prev + 1;
	p->prev = t;
	p->have_prev = 1;
	for (int i = 0; i < r->ncol; i++)
		if ((rc = store_sample_add(p->st, p->run, t, "vmstat-log",
					   r->names[i], r->values[i])))
			return rc;
	if (r->since_boot &&
	    (rc = store_sample_add(p->st, p->run, t, "vmstat-log", "since_boot", 1)))
		return rc;
	return 0;
}

/* Stores a `time` report as a command of the run: it ends at the last row
 * printed before it (or the run's start) and started real_s before that;
 * a report after another with no row between them ran after it (commands
 * timed one after another: `time a; time b`), from its end. Reports
 * without a real time are dropped. */
static int put_command(void *vctx, const struct vmstat_time_line *t)
{
	struct put *p = vctx;
	struct store_command c = { 0 };
	char argv[512];
	int rc;

	if (isnan(t->real_s))
		return 0;
	if (t->argv[0])
		snprintf(argv, sizeof(argv), "%s", t->argv);
	else
		snprintf(argv, sizeof(argv), "(a `time` report in %s line %" PRIu64
			 ")", p->path, t->line);
	c.idx = p->next_idx;
	c.argv = argv;
	c.end_ns = p->have_prev ? p->prev : p->base;
	c.start_ns = c.end_ns - (int64_t)llround(t->real_s * 1e9);
	if (p->commands && t->rows_before == p->last_rows) {
		c.start_ns = p->last_end;
		c.end_ns = c.start_ns + (int64_t)llround(t->real_s * 1e9);
	}
	c.real_s = t->real_s;
	c.user_s = isnan(t->user_s) ? 0 : t->user_s;
	c.sys_s = isnan(t->sys_s) ? 0 : t->sys_s;
	c.status = t->status;
	if ((rc = store_command_add(p->st, p->run, &c)))
		return rc;
	p->last_rows = t->rows_before;
	p->last_end = c.end_ns;
	p->next_idx++;
	p->commands++;
	return 0;
}

/* The offset of zone (a vmstat -t column name: "UTC", "CET") from UTC at
 * wall_ns, in ns (local = UTC + offset), from the system's tz database.
 * Returns 0, or -1 when the zone is empty or unknown there. */
static int zone_offset_ns(const char *zone, int64_t wall_ns, int64_t *off)
{
	char path[96], *old;
	time_t t = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	if (!strcmp(zone, "UTC") || !strcmp(zone, "GMT")) {
		*off = 0;
		return 0;
	}
	snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", zone);
	if (!zone[0] || strstr(zone, "..") || access(path, R_OK))
		return -1;
	old = getenv("TZ") ? xstrdup(getenv("TZ")) : NULL;
	setenv("TZ", zone, 1);
	tzset();
	localtime_r(&t, &tm);
	*off = (int64_t)tm.tm_gmtoff * 1000000000;
	if (old)
		setenv("TZ", old, 1);
	else
		unsetenv("TZ");
	tzset();
	free(old);
	return 0;
}

/* "YYYY-MM-DD HH:MM:SS" of a log wall-clock time. */
static void wall_string(int64_t ns, char *out, size_t len)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(out, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static int save_stats(struct store *st, int64_t run, const char *path,
		      const struct vmstat_text_info *in, double interval_s,
		      const char *interval_from, int64_t wall0, int commands)
{
	char v[64];
	const struct { const char *k; uint64_t v; } n[] = {
		{ "vmstat_log.rows", in->rows },
		{ "vmstat_log.since_boot_rows", in->boot_rows },
		{ "vmstat_log.headers", (uint64_t)in->headers },
		{ "vmstat_log.blocks", (uint64_t)in->blocks },
		{ "vmstat_log.date_lines", (uint64_t)in->date_lines },
		{ "vmstat_log.time_lines", (uint64_t)in->time_lines },
		{ "vmstat_log.frozen_memory", (uint64_t)in->frozen_memory },
		{ "vmstat_log.truncated", (uint64_t)in->truncated },
	};
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(n) && !rc; i++) {
		snprintf(v, sizeof(v), "%" PRIu64, n[i].v);
		rc = store_stat_set(st, run, n[i].k, v);
	}
	if (!rc) {
		snprintf(v, sizeof(v), "%d", commands);
		rc = store_stat_set(st, run, "vmstat_log.time_commands", v);
	}
	if (!rc)
		rc = store_stat_set(st, run, "vmstat_log.path", path);
	if (!rc)
		rc = store_stat_set(st, run, "vmstat_log.columns", in->columns);
	if (!rc && in->zone[0])
		rc = store_stat_set(st, run, "vmstat_log.zone", in->zone);
	if (!rc) {
		snprintf(v, sizeof(v), "%g", interval_s);
		rc = store_stat_set(st, run, "vmstat_log.interval_s", v);
	}
	if (!rc)
		rc = store_stat_set(st, run, "vmstat_log.interval_from", interval_from);
	if (!rc && wall0 >= 0) {
		wall_string(wall0, v, sizeof(v));
		rc = store_stat_set(st, run, "vmstat_log.first_time", v);
	}
	return rc;
}

/* For an untimed log attached to a run with a trace: the shift of its rows
 * (row i at genesis + shift + i * interval) whose bi + bo best match the
 * trace's bytes completed in the same intervals (least absolute
 * difference, 0.1 s steps, from the log's whole length before the first
 * event to the trace's span after it; ties keep the shift nearest 0). A
 * `vmstat 1` started with the workload and a trace that shows its I/O only
 * at the end (a buffered writer's sync) line up where they wrote. Returns
 * the shift in ns (0 when the trace has no I/O or the log no bi/bo), or a
 * negative store error through *rc. */
static int64_t match_shift(struct store *st, int64_t run, int64_t genesis,
			   const struct scan *sc, int64_t interval_ns, int *rc)
{
	enum { STEP_NS = 100000000 };
	struct store_cursor *cur;
	struct store_request rq;
	double *kb = NULL, best = INFINITY;
	size_t nb = 0, cap = 0, rows = 0;
	int64_t lo, hi, bin = STEP_NS, best_shift = 0;

	*rc = 0;
	for (size_t i = 0; i < sc->nrow; i++)
		rows += isfinite(sc->io_kb[i]);
	if (rows < 1 || interval_ns <= 0)
		return 0;
	if ((*rc = store_requests_open(st, run, STORE_RQ_ALL_ANY,
				       STORE_RQ_BYTES | STORE_RQ_C, &cur)))
		return 0;
	while ((*rc = store_requests_next(cur, &rq, NULL)) > 0) {
		size_t k;
		if (rq.c_ns == STORE_NO_TIME || rq.c_ns < genesis || !rq.bytes)
			continue;
		k = (size_t)((rq.c_ns - genesis) / bin);
		if (k >= 1u << 22)
			continue;
		if (k >= cap) {
			size_t nc = cap ? cap : 64;
			while (nc <= k)
				nc *= 2;
			kb = xrealloc(kb, nc * sizeof(*kb));
			memset(kb + cap, 0, (nc - cap) * sizeof(*kb));
			cap = nc;
		}
		kb[k] += rq.bytes / 1024.0;
		if (k + 1 > nb)
			nb = k + 1;
	}
	store_cursor_close(cur);
	if (*rc < 0 || !nb) {
		free(kb);
		*rc = *rc < 0 ? *rc : 0;
		return 0;
	}
	*rc = 0;
	lo = -(int64_t)sc->nrow * interval_ns;
	hi = (int64_t)nb * bin;
	for (int64_t sh = lo; sh <= hi; sh += STEP_NS) {
		double cost = 0, trace_in = 0, total = 0;
		for (size_t k = 0; k < nb; k++)
			total += kb[k];
		for (size_t i = 0; i < sc->nrow; i++) {
			/* row i covers (t - interval, t], t = shift + i * interval */
			int64_t t1 = sh + (int64_t)i * interval_ns, t0 = t1 - interval_ns;
			double got = 0;
			if (!isfinite(sc->io_kb[i]))
				continue;
			for (int64_t b0 = t0 > 0 ? t0 / bin * bin : 0; b0 < t1 &&
			     b0 / bin < (int64_t)nb; b0 += bin)
				if (b0 >= t0)
					got += kb[b0 / bin];
			trace_in += got;
			cost += fabs(sc->io_kb[i] * ((double)interval_ns / 1e9) - got);
		}
		/* what the trace wrote outside every row counts as missed */
		cost += total - trace_in;
		if (cost < best - 1e-9 ||
		    (fabs(cost - best) <= 1e-9 && llabs(sh) < llabs(best_shift))) {
			best = cost;
			best_shift = sh;
		}
	}
	free(kb);
	return best_shift;
}

/* The log's interval in seconds: --interval, else the timestamps' step,
 * else the step its `date` lines and blocks agree on (warned of), else 1 s
 * (warned of when the log has several rows and does not say); *from says
 * which ("option", "timestamps", "dates", "assumed"). */
static double log_interval(const struct import_opts *o,
			   const struct vmstat_text_info *in, const struct scan *sc,
			   const char *path, const char **from)
{
	if (o->interval_s > 0) {
		*from = "option";
		return o->interval_s;
	}
	if (in->stamp_step_ns > 0) {
		*from = "timestamps";
		return in->stamp_step_ns / 1e9;
	}
	if (in->date_step_ns > 0 && (!sc->all_timed || sc->dated_multirow)) {
		*from = "dates";
		if (!o->quiet)
			warning("%s: the log does not say its interval; its date "
				"lines, %.0f s after a block of %llu rows, give %.0f "
				"s between rows (give --interval if not)", path,
				in->date_gap_ns / 1e9,
				(unsigned long long)in->date_gap_rows,
				in->date_step_ns / 1e9);
		return in->date_step_ns / 1e9;
	}
	*from = "assumed";
	if (!o->quiet && (in->rows > 1 && (!sc->all_timed || sc->dated_multirow)))
		warning("%s: the log does not say its interval; assuming "
			"1 s between rows (give --interval)", path);
	return 1;
}

/* A timestamped log joined to run: aligned with the trace's start-time
 * record (run_stats trace.wall_ns and trace.wall_at_ns) when the run has
 * one, its rows' local wall clock against the record's UTC (sc->wall0,
 * *genesis and *align set). Returns 0 or the store's negative code. */
static int align_to_trace(struct store *st, int64_t run,
			  const struct vmstat_text_info *in, struct scan *sc,
			  int64_t *genesis, const char **align)
{
	int64_t wall = 0, at = 0, off;
	struct store_stat *ss;
	size_t ns;
	int rc;

	if ((rc = store_stats_get(st, run, &ss, &ns)))
		return rc;
	for (size_t i = 0; i < ns; i++) {
		if (!ss[i].value)
			continue;
		if (!strcmp(ss[i].key, "trace.wall_ns"))
			wall = strtoll(ss[i].value, NULL, 10);
		else if (!strcmp(ss[i].key, "trace.wall_at_ns"))
			at = strtoll(ss[i].value, NULL, 10);
	}
	free(ss);
	if (wall && zone_offset_ns(in->zone, wall, &off) == 0) {
		*genesis = at;
		sc->wall0 = wall + off;
		*align = "trace-timestamp";
	}
	return 0;
}

/* A new run for the log: named name, else after the file (made unique),
 * into runname (len bytes) and *run, counted for its summary. Returns 0 or
 * the store's negative code. */
static int new_log_run(struct store *st, const struct import_opts *o,
		       const char *path, const char *name, char *runname,
		       size_t len, int64_t *run)
{
	struct run_info ri = { 0 };
	char abspath[PATH_MAX];
	int rc;

	if (name)
		snprintf(runname, len, "%s", name);
	else {
		char base[200];
		import_run_name(o->name_base ? o->name_base : path, "vmstat", base,
				sizeof(base));
		if ((rc = store_run_free_name(st, base, runname, len)))
			return rc;
	}
	ri.name = runname;
	ri.kind = "import";
	ri.source = o->source ? o->source : realpath(path, abspath) ? abspath : path;
	ri.format = "vmstat-text";
	if ((rc = store_run_create(st, &ri, run)))
		return rc;
	return run_summaries_open(o->sums, st, *run);
}

/* The index the log's first timed command gets: after run's commands.
 * Returns 0 or the store's negative code. */
static int next_command_idx(struct store *st, int64_t run, int64_t *n)
{
	struct store_command *cmd;
	size_t ncmd;
	int rc;

	if ((rc = store_commands_get(st, run, &cmd, &ncmd)))
		return rc;
	*n = 0;
	for (size_t i = 0; i < ncmd; i++)
		if (cmd[i].idx + 1 > *n)
			*n = cmd[i].idx + 1;
	free(cmd);
	return 0;
}

int import_vmstat_log(struct store *st, const struct import_opts *o,
		      const char *file, const char *name, int64_t *run_out,
		      char *err, size_t errlen)
{
	const char *path = o->label ? o->label : file;   /* for messages */
	struct vmstat_text_opts vo = { .no_boot_row = o->no_boot_row };
	struct vmstat_text_info in;
	struct scan sc = { .wall0 = -1 };
	struct put p = { .st = st };
	char runname[256];
	const char *interval_from;
	int64_t run = 0, genesis = 0, n;
	int attach = 0, rc;
	const char *align;
	double interval_s;
	FILE *fp;

	err[0] = '\0';
	fp = fopen(file, "r");
	if (!fp) {
		rc = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return rc;
	}
	rc = vmstat_text_read(fp, path, &vo, scan_row, &sc, &in, err, errlen);
	if (rc)
		goto out;
	if (!in.rows) {
		snprintf(err, errlen, "%s: line %" PRIu64 ": no vmstat rows", path,
			 in.lines);
		rc = -EINVAL;
		goto out;
	}

	interval_s = log_interval(o, &in, &sc, path, &interval_from);
	p.interval_ns = (int64_t)llround(interval_s * 1e9);
	vo.interval_ns = p.interval_ns;

	/* An existing run named so gets the samples; else a new run. */
	if (name && store_run_find(st, name, &run) == 0) {
		struct store_run r;
		attach = 1;
		if ((rc = store_run_has(st, run, STORE_HAS_LOG_SAMPLES)) < 0)
			goto store_err;
		if (rc) {
			snprintf(err, errlen, "%s: run '%s' already has a vmstat log's "
				 "samples", path, name);
			rc = -EEXIST;
			goto out;
		}
		if ((rc = store_run_get(st, run, &r)))
			goto store_err;
		genesis = r.genesis_ns == STORE_NO_TIME ? 0 : r.genesis_ns;
		snprintf(runname, sizeof(runname), "%s", name);
		align = "first-event";
		if (sc.all_timed &&
		    (rc = align_to_trace(st, run, &in, &sc, &genesis, &align)))
			goto store_err;
	} else {
		if ((rc = new_log_run(st, o, path, name, runname, sizeof(runname),
				      &run)))
			goto store_err;
		genesis = sc.all_timed ? sc.wall0 : 0;
		align = sc.all_timed ? "wall-clock" : "interval";
	}
	/* rows with no clock of the trace's to go by (no -t stamps, or
	 * stamps and a trace with no wall-clock record): placed where their
	 * bi/bo match the trace's I/O (a -t log was left at the first event,
	 * its busy rows after the trace's end) */
	if (attach && (!sc.all_timed || !strcmp(align, "first-event"))) {
		int timed = sc.all_timed;
		int64_t sh = match_shift(st, run, genesis, &sc, p.interval_ns, &rc);
		if (rc)
			goto store_err;
		genesis += sh;
		align = sh ? (timed ? "first-event, shifted to the trace's I/O"
			      : "interval, shifted to the trace's I/O")
			   : timed ? "first-event" : "interval";
	}

	if ((rc = next_command_idx(st, run, &n)))
		goto store_err;
	p.next_idx = (int)n;
	p.path = path;
	vo.time_line = put_command;
	p.run = run;
	p.all_timed = sc.all_timed;
	p.wall0 = sc.wall0;
	p.base = genesis;
	rewind(fp);
	rc = vmstat_text_read(fp, path, &vo, put_row, &p, &in, err, errlen);
	if (rc) {
		if (!err[0])
			goto store_err;
		goto out;
	}
	if ((rc = save_stats(st, run, path, &in, interval_s, interval_from,
			     sc.all_timed ? sc.wall0 : -1, p.commands)) ||
	    (rc = store_stat_set(st, run, "vmstat_log.alignment", align)))
		goto store_err;
	if (!attach && (rc = store_run_finish(st, run, "complete", genesis)))
		goto store_err;
	if (in.frozen_memory && !o->quiet)
		warning("%s: %s", path, VMSTAT_FROZEN_WARNING);
	if (in.truncated && !o->quiet)
		warning("%s: the last line is cut short; dropped it", path);
	if (in.clock_back_line && !o->quiet)
		warning("%s: line %" PRIu64 ": the timestamps go back %.0f s (the "
			"clock stepped: daylight saving time, NTP); the rows from "
			"there are placed one interval after the row before",
			path, in.clock_back_line, (double)in.clock_back_ns / 1e9);
	if (run_out)
		*run_out = run;
	if (o->summary)
		snprintf(o->summary, o->summary_len, "imported '%s' %s run '%s': %"
			 PRIu64 " vmstat rows (%" PRIu64 " since boot), %g s apart%s",
			 path, attach ? "into" : "as", runname, in.rows,
			 in.boot_rows, interval_s,
			 in.frozen_memory ? "; memory columns frozen" : "");
	goto out;
store_err:
	import_store_error(st, path, err, errlen);
out:
	free(sc.io_kb);
	fclose(fp);
	return rc;
}

struct store_sample_ctx {
	struct store *st;
	int64_t run;
	int failed;   /* the store refused a sample: its message is the one */
};

static int store_one(void *vctx, int64_t t_ns, const char *source,
		     const char *key, double value)
{
	struct store_sample_ctx *c = vctx;
	int rc = store_sample_add(c->st, c->run, t_ns, source, key, value);

	c->failed = rc != 0;
	return rc;
}

int procstat_sample_store(struct store *st, int64_t run, const char *proc_root,
			  int64_t t_ns, char *err, size_t errlen)
{
	struct store_sample_ctx c = { st, run, 0 };
	int rc = procstat_sample(proc_root, t_ns, store_one, &c, err, errlen);

	if (rc && c.failed && err)
		snprintf(err, errlen, "storing samples: %s", store_errmsg(st));
	return rc;
}
