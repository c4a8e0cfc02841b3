/* Importing inputs into runs of the store: one input into a new run of an
 * open store (import_one(), also used by capture and replay for what they
 * recorded), and a whole `iotape import` in one transaction (import_run()). */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"
#include "import/import.h"
#include "import/import_fmt.h"
#include "import/import_input.h"
#include "import/import_pipe.h"
#include "import/import_samples.h"
#include "trace/stitch.h"
#include "trace/trace_input.h"
#include "import/capture_rows.h"
#include "import/vmstat_text.h"
#include "lib/util.h"
#include "schema/store.h"

/* The decoding thread (reader, stitcher, the fields below up to the store
 * writes) hands rows to the writing thread through pipe while the read
 * runs; with pipe NULL (the stitcher's last rows) they go to the store. */
struct import_ctx {
	struct store *st;
	int64_t run;
	struct run_summaries *sums;   /* the run's summary counted */
	struct import_pipe *pipe;
	int pipe_used;    /* the decoding thread ran */
	struct stitch *stitch;
	uint32_t *devs;
	size_t ndev;
	int64_t genesis;
	int have_genesis;
	int64_t first_ns;   /* the first record's time, of any kind */
	int have_first;
	int64_t wall_ns, wall_at_ns;  /* the start-time notify: wall clock, and
				       * the trace clock then */
	int have_wall;
	int64_t start_ns;  /* a start-time notify before the first I/O: when
			    * tracing began (no traced I/O until that one) */
	int have_start;
	uint32_t cpus;    /* 1 + the highest CPU of an I/O record: the CPUs the
			   * machine had at least (run_stats cpus_seen) */
};

static int on_event(void *vctx, const struct bt_event *ev)
{
	struct import_ctx *c = vctx;
	int rc;

	/* The trace starts at its first record that is not a process-name or
	 * timestamp notify (those carry the time they were sent, not of I/O). */
	if (!c->have_genesis && (!bt_is_notify(ev) || bt_code(ev) == BT_N_MESSAGE)) {
		c->genesis = (int64_t)ev->time_ns;
		c->have_genesis = 1;
	}
	if (!c->have_first) {
		c->first_ns = (int64_t)ev->time_ns;
		c->have_first = 1;
	}
	if (!c->have_start && !c->have_genesis && bt_is_notify(ev) &&
	    bt_code(ev) == BT_N_TIMESTAMP) {
		c->start_ns = (int64_t)ev->time_ns;
		c->have_start = 1;
	}
	if (!c->have_wall && bt_is_notify(ev) && bt_code(ev) == BT_N_TIMESTAMP &&
	    !bt_pdu_timestamp(ev, &c->wall_ns)) {
		c->wall_at_ns = (int64_t)ev->time_ns;
		c->have_wall = 1;
	}
	if ((rc = import_pipe_event(c->pipe, ev)))
		return rc;
	if (!bt_is_notify(ev)) {
		size_t i;
		if (ev->cpu < 4096 && ev->cpu + 1 > c->cpus)
			c->cpus = ev->cpu + 1;
		for (i = 0; i < c->ndev && c->devs[i] != ev->dev; i++)
			;
		if (i == c->ndev) {
			c->devs = xrealloc(c->devs, (c->ndev + 1) * sizeof(*c->devs));
			c->devs[c->ndev++] = ev->dev;
		}
	}
	return stitch_event(c->stitch, ev);
}

static int on_process(void *vctx, uint32_t pid, const char *comm)
{
	struct import_ctx *c = vctx;
	return import_pipe_process(c->pipe, pid, comm);
}

static int write_request(void *vctx, int64_t id, const struct store_request *rq);

static int on_request(void *vctx, int64_t id, const struct store_request *rq)
{
	struct import_ctx *c = vctx;

	if (c->pipe)
		return import_pipe_request(c->pipe, id, rq);
	return write_request(vctx, id, rq);
}

/* The writing side: the rows the decoding thread queued, into the store. */
static int write_event(void *vctx, const struct bt_event *ev)
{
	struct import_ctx *c = vctx;
	return store_event_add(c->st, c->run, ev);
}

static int write_process(void *vctx, uint32_t pid, const char *comm)
{
	struct import_ctx *c = vctx;
	return store_process_set(c->st, c->run, pid, comm);
}

static int write_request(void *vctx, int64_t id, const struct store_request *rq)
{
	struct import_ctx *c = vctx;
	int rc = store_request_add(c->st, c->run, id, rq);

	if (!rc)
		run_summaries_add(c->sums, c->run, rq);
	return rc;
}

/* What the decoding thread runs: the whole read, each record through
 * on_event() (bookkeeping, stitcher) into the pipe. */
struct read_job {
	struct import_ctx *c;
	const char *input;
	const struct input_opts *io;
	struct input_stats *is;
	FILE *warn;
	char *err;
	size_t errlen;
};

static int read_on_pipe(void *arg, struct import_pipe *pipe)
{
	struct read_job *j = arg;
	struct event_sink sink = { on_event, on_process, j->c };

	j->c->pipe = pipe;
	j->c->pipe_used = 1;
	return trace_input_read(j->input, j->io, &sink, j->is, j->warn, j->err,
				j->errlen);
}

static int stat_u64(struct store *st, int64_t run, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return store_stat_set(st, run, key, buf);
}

/* Stores what the read and the stitcher counted, for `runs` and reports. */
static int save_stats(struct store *st, int64_t run, const struct input_stats *is,
		      const struct stitch_stats *ss)
{
	const struct { const char *k; uint64_t v; } kv[] = {
		{ "records", is->records }, { "notify", is->notify },
		{ "skipped", is->skipped }, { "unknown_action", is->unknown_action },
		{ "truncated_bytes", is->truncated_bytes },
		{ "cpu_mismatch", is->cpu_mismatch },
		{ "clock_steps", is->clock_steps },
		{ "lost_events_marked", is->lost_events },
		{ "cpu_files", (uint64_t)is->ncpu_files },
		{ "bios", ss->bios }, { "dispatches", ss->dispatches },
		{ "completions", ss->completions }, { "orphan_d", ss->orphan_d },
		{ "unmatched_c", ss->unmatched_c }, { "dup_q", ss->dup_q },
		{ "splits", ss->splits }, { "requeues", ss->requeues },
		{ "remaps", ss->remaps }, { "pending_end", ss->pending_end },
		{ "time_backwards", ss->time_backwards },
		{ "clock_jumps", ss->clock_jumps },
		{ "jump_abandoned", ss->jump_abandoned },
		{ "unmatched_gim", ss->unmatched_gim }, { "c_only", ss->c_only },
		{ "requeued_seeks", ss->requeued_seeks },
		{ "active_span_ns", ss->active_ns }, { "min_ns", ss->min_ns },
		{ "max_ns", ss->max_ns },
	};
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(kv) && !rc; i++)
		rc = stat_u64(st, run, kv[i].k, kv[i].v);
	if (!rc && is->missing_cpus[0])
		rc = store_stat_set(st, run, "missing_cpus", is->missing_cpus);
	return rc;
}

/* The run input goes into: named name, else after the input (or
 * o->name_base) and free in the store (into runname, len bytes); made,
 * with its summary counted in o->sums, into c->run. Returns 0 or the
 * store's error. */
static int import_run_start(struct store *st, const struct import_opts *o,
			    const char *input, const char *name,
			    struct import_ctx *c, char *runname, size_t len)
{
	char abspath[PATH_MAX];
	struct run_info ri = { 0 };
	int rc;

	if (name)
		snprintf(runname, len, "%s", name);
	else {
		char base[200];
		import_run_name(o->name_base ? o->name_base : input, "run", base,
				sizeof(base));
		if ((rc = store_run_free_name(st, base, runname, len)))
			return rc;
	}
	ri.name = runname;
	ri.kind = "import";
	ri.source = o->source ? o->source
			      : realpath(input, abspath) ? abspath : input;
	if ((rc = store_run_create(st, &ri, &c->run)) ||
	    (rc = run_summaries_open(o->sums, st, c->run)))
		return rc;
	return 0;
}

int import_input_once(struct store *st, const struct import_opts *o,
		      const char *sha256, const char *label, char *err,
		      size_t errlen)
{
	char other[256];
	int64_t id;
	int rc;

	if (!o->once)
		return 0;
	rc = store_run_find_input(st, sha256, &id, other, sizeof(other));
	if (rc < 0) {
		import_store_error(st, label, err, errlen);
		return rc;
	}
	if (rc && store_run_made_here(st, id)) {
		/* a run of this same import, not committed: named as given */
		snprintf(err, errlen, "%s: given twice (the same SHA-256 as an "
			 "input before it); give --again to import it twice",
			 label);
		return -EEXIST;
	}
	if (rc) {
		snprintf(err, errlen, "%s: already imported as run '%s' (id %"
			 PRId64 ", the same SHA-256); give --again to "
			 "import it again", label, other, id);
		return -EEXIST;
	}
	return 0;
}

/* What the trace's run holds besides its events: its devices, the
 * reader's and stitcher's counts, the CPUs seen, the trace's wall clock,
 * its format and SHA-256; then the run is complete. Returns 0 or the
 * store's error. */
static int import_run_finish(struct store *st, struct import_ctx *c,
			     const struct input_stats *is)
{
	int rc = 0;

	for (size_t i = 0; i < c->ndev && !rc; i++)
		rc = store_device_add(st, c->run, c->devs[i], NULL, 0, "data");
	if (!rc)
		rc = save_stats(st, c->run, is, stitch_stats(c->stitch));
	if (!rc && c->cpus)
		rc = stat_u64(st, c->run, "cpus_seen", c->cpus);
	if (!rc && c->have_wall) {
		/* for aligning wall-clock logs (vmstat -t) with the trace */
		char v[32];
		snprintf(v, sizeof(v), "%" PRId64, c->wall_ns);
		rc = store_stat_set(st, c->run, "trace.wall_ns", v);
		snprintf(v, sizeof(v), "%" PRId64, c->wall_at_ns);
		if (!rc)
			rc = store_stat_set(st, c->run, "trace.wall_at_ns", v);
	}
	if (!rc && c->have_start && c->have_genesis && c->start_ns <= c->genesis) {
		/* when tracing began (blktrace's start-time record) */
		char v[32];
		snprintf(v, sizeof(v), "%" PRId64, c->start_ns);
		rc = store_stat_set(st, c->run, "trace.start_ns", v);
	}
	if (!rc)
		rc = store_run_set_format(st, c->run, is->format, is->big_endian);
	if (!rc && is->sha256[0])
		rc = store_run_set(st, c->run, "input_sha256", is->sha256);
	if (!rc)
		/* a trace of notify records only (names, no I/O: a run whose
		 * reads all hit the page cache) starts at its first: its
		 * span is 0, not the trace clock's value */
		rc = store_run_finish(st, c->run, "complete", c->have_genesis ?
				      c->genesis : c->have_first ? c->first_ns : 0);
	return rc;
}

/* import_one() on input, a file the readers can map or seek (the input
 * itself or its spool file); o->label, o->source and o->name_base say what
 * the user gave. */
static int import_path(struct store *st, const struct import_opts *o,
		       const char *input, const char *name, int64_t *run_out,
		       char *err, size_t errlen)
{
	struct import_ctx c = { .st = st, .sums = o->sums };
	struct import_pipe_consumer cons = { write_event, write_process,
					     write_request, &c };
	struct input_opts io = { .strict = o->strict, .label = o->label };
	const char *label = o->label ? o->label : input;
	struct input_stats is;
	struct read_job job;
	char runname[256];
	int64_t first_id;
	int rc, wrc;
	const struct import_format *fmt = import_format_sniff_file(input);

	if (fmt && fmt->parse)
		return import_format_one(st, o, fmt, input, name, run_out, err, errlen);
	if (capture_rows_sniff_file(input))
		return import_capture_rows(st, o, input, name, run_out, err, errlen);
	if (vmstat_text_sniff_file(input))
		return import_vmstat_log(st, o, input, name, run_out, err, errlen);
	if ((rc = import_run_start(st, o, input, name, &c, runname,
				   sizeof(runname))))
		goto store_err;
	if ((rc = store_next_request_id(st, &first_id)))
		goto store_err;
	c.stitch = stitch_new(on_request, &c, first_id);
	job = (struct read_job){ &c, input, &io, &is, o->quiet ? NULL : stderr,
				 err, errlen };
	rc = import_pipe_run(read_on_pipe, &job, &cons, &wrc);
	c.pipe = NULL;
	if (wrc) {
		rc = wrc;
		goto store_err;
	}
	if (rc && !c.pipe_used) {
		snprintf(err, errlen, "%s: cannot start the decoding thread: %s",
			 label, strerror(-rc));
		goto out;
	}
	if (rc) {
		if (!err[0])
			import_store_error(st, label, err, errlen);
		goto out;
	}
	if ((rc = import_input_once(st, o, is.sha256, label, err, errlen)))
		goto out;
	if (is.records == 0) {
		snprintf(err, errlen, "%s: offset 0: no complete record (%llu bytes "
			 "cut short)", label, (unsigned long long)is.truncated_bytes);
		rc = -EINVAL;
		goto out;
	}
	if ((rc = stitch_finish(c.stitch)))
		goto store_err;
	if (stitch_stats(c.stitch)->clock_jumps && !o->quiet)
		warning("%s: the trace clock stepped %llu time(s) (back over 1 "
			"s or ahead over 10 min); %llu I/Os in flight then are not "
			"counted as latencies", label,
			(unsigned long long)stitch_stats(c.stitch)->clock_jumps,
			(unsigned long long)stitch_stats(c.stitch)->jump_abandoned);
	/* a binary trace's records are found by offset, text's by line */
	if (is.unknown_action && !o->quiet)
		warning("%s: %s %llu: %llu record(s) with an action no "
			"blktrace version defines were skipped (a damaged "
			"trace?)", label, is.version ? "offset" : "line",
			(unsigned long long)is.unknown_off,
			(unsigned long long)is.unknown_action);
	if (is.far_sector && !o->quiet)
		warning("%s: %s %llu: %llu record(s) with a sector past any "
			"device's end (2^55 sectors; a damaged trace?)", label,
			is.version ? "offset" : "line",
			(unsigned long long)is.far_off,
			(unsigned long long)is.far_sector);
	if ((rc = import_run_finish(st, &c, &is)))
		goto store_err;
	if (run_out)
		*run_out = c.run;
	if (o->summary)
		snprintf(o->summary, o->summary_len, "imported '%s' as run '%s': %"
			 PRIu64 " events, %" PRIu64 " bios, %" PRIu64 " dispatches",
			 label, runname, is.records, stitch_stats(c.stitch)->bios,
			 stitch_stats(c.stitch)->dispatches);
	goto out;
store_err:
	import_store_error(st, label, err, errlen);
out:
	stitch_free(c.stitch);
	free(c.devs);
	return rc;
}

void import_store_error(struct store *st, const char *label, char *err,
			size_t errlen)
{
	snprintf(err, errlen, "%s: importing '%s': %s", store_name(st), label,
		 store_errmsg(st));
}

int import_one(struct store *st, const struct import_opts *o, const char *input,
	       const char *name, int64_t *run_out, char *err, size_t errlen)
{
	struct import_input in;
	struct import_opts oo = *o;
	int rc;

	if ((rc = import_input_open(input, &in, err, errlen)))
		goto out;
	if (in.source[0] || strcmp(in.label, input)) {
		oo.label = in.label;
		oo.source = in.source[0] ? in.source : NULL;
		oo.name_base = in.name_base[0] ? in.name_base : NULL;
	}
	rc = import_path(st, &oo, in.path, name, run_out, err, errlen);
out:
	import_input_close(&in);
	return rc;
}

/* Reads "PID NAME" lines (tracefs saved_cmdlines, `ps -eo pid,comm`) from
 * path into run's process names; names the trace gave win. Returns 0 or -1
 * with a message naming the file and line in err. */
static int import_names(struct store *st, int64_t run, const char *path,
			char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ln = 0, rc = 0;

	if (!fp) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	/* lines of any length (`ps -eo pid,args` names run long: a fixed
	 * buffer read a 1000-byte name's tail as "line 2") */
	while ((len = getline(&line, &cap, fp)) >= 0) {
		const char *p = line + strspn(line, " \t"), *comm;
		uint64_t pid;
		ln++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!line[0] || line[0] == '#' || !strncmp(line, "  PID", 5) ||
		    !strncmp(line, "PID", 3))
			continue;
		comm = NULL;
		if (!dec_u64(p, &pid, &p) && pid <= UINT32_MAX &&
		    (*p == ' ' || *p == '\t'))
			comm = p + strspn(p, " \t");
		if (!comm || !*comm) {
			snprintf(err, errlen, "%s: line %d: not 'PID NAME'", path, ln);
			rc = -1;
			break;
		}
		if (store_process_set(st, run, (uint32_t)pid, comm)) {
			import_store_error(st, path, err, errlen);
			rc = -1;
			break;
		}
	}
	/* a directory opens, and its first read fails (EISDIR) */
	if (!rc && ferror(fp)) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(errno ? errno : EIO));
		rc = -1;
	}
	free(line);
	fclose(fp);
	return rc;
}

int import_run(const struct import_opts *o_in, struct import_result *res,
	       char *err, size_t errlen)
{
	struct import_opts o = *o_in;
	const char *db = db_path_default(o.db);
	struct run_summaries sums = { 0 };
	struct store *st = NULL;
	struct stat sb;
	/* a database file this import makes: gone again when it fails (a
	 * typo's import left an empty iotape.db, and `runs` then said "0
	 * runs" where it had said "no such file") */
	int made = !strstr(db, "://") && stat(db, &sb) < 0 && errno == ENOENT;
	int rc;

	err[0] = '\0';
	if (store_open(&st, db, 1)) {
		snprintf(err, errlen, "%s: %s", store_shown(db), store_errmsg(st));
		store_close(st);
		return -1;
	}
	run_summary_backfill(st);
	if (store_begin_bulk(st)) {
		snprintf(err, errlen, "%s: %s", store_shown(db), store_errmsg(st));
		store_close(st);
		return -1;
	}
	o.sums = &sums;
	rc = 0;
	for (int i = 0; i < o.ninput && !rc; i++) {
		err[0] = '\0';
		memset(&res[i], 0, sizeof(res[i]));
		o.summary = res[i].summary;
		o.summary_len = sizeof(res[i].summary);
		rc = import_one(st, &o, o.inputs[i], o.name, &res[i].run, err, errlen);
		if (!rc && o.names && res[i].run)
			rc = import_names(st, res[i].run, o.names, err, errlen);
	}
	if (rc) {
		store_rollback(st);
		if (!err[0])
			snprintf(err, errlen, "import failed");
	} else if (run_summaries_write(&sums, st) || store_commit(st)) {
		snprintf(err, errlen, "%s: %s", store_shown(db), store_errmsg(st));
		store_rollback(st);
		rc = -1;
	}
	run_summaries_free(&sums);
	/* removed while this process holds the write lock, so that no other
	 * writer has begun in it meanwhile (one that has: left alone) */
	if (rc && made && !store_begin(st)) {
		static const char *const tail[] = { "", "-journal", "-wal", "-shm" };
		for (size_t k = 0; k < sizeof(tail) / sizeof(tail[0]); k++) {
			char p[PATH_MAX + 16];
			snprintf(p, sizeof(p), "%s%s", db, tail[k]);
			unlink(p);
		}
		store_rollback(st);
	}
	store_close(st);
	return rc ? -1 : 0;
}
