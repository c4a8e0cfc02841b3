/* A format parser's records into the store (see import_fmt.h): traces as
 * runs of events and requests, sample logs and `time` pastes as samples and
 * commands of a run. The parsers stay pure; everything store-side is here. */
#include "import_fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#include "trace/stitch.h"
#include "lib/timeline.h"
#include "lib/util.h"

/* Events of one I/O may come out of file order (C after later Qs, traces
 * a little unsorted): they wait in a heap until the trace is this far past
 * them. */
#define REORDER_NS 1000000000ll
#define MAX_NOTES 16384

/* ---- what every kind shares ---- */

struct common {
	struct store *st;
	const struct import_format *f;
	const char *path;      /* the input as messages name it */
	const char *source;    /* the run's source, NULL: path's real path */
	const char *name_base; /* default run names from this, NULL: path */
	char *err;
	size_t errlen;
	char *notes;          /* joined note lines */
	size_t notes_len;
	int64_t run;          /* the run being written, 0 before it exists */
	struct run_summaries *sums;   /* its summary counted (import_opts) */
	int store_failed;     /* a store call failed: its message is the one */
};

static int c_note(void *vctx, const char *text)
{
	struct common *c = vctx;
	size_t n = strlen(text);

	if (c->notes_len + n + 2 > MAX_NOTES)
		return 0;
	c->notes = xrealloc(c->notes, c->notes_len + n + 2);
	if (c->notes_len)
		c->notes[c->notes_len++] = '\n';
	memcpy(c->notes + c->notes_len, text, n + 1);
	c->notes_len += n;
	return 0;
}

static int c_stat(void *vctx, const char *key, const char *value)
{
	struct common *c = vctx;
	int rc;

	if (!c->run)
		return 0;
	if ((rc = store_stat_set(c->st, c->run, key, value)))
		c->store_failed = 1;
	return rc;
}

/* Strips the first of ext[0 .. n) that ends b (of length *bl) and is not
 * all of it. */
static void strip_ext(char *b, size_t *bl, const char *const *ext, size_t n)
{
	for (size_t i = 0, el; i < n; i++)
		if (*bl > (el = strlen(ext[i])) && !strcmp(b + *bl - el, ext[i])) {
			b[*bl -= el] = '\0';
			return;
		}
}

void import_run_name(const char *path, const char *fallback, char *out,
		     size_t len)
{
	static const char *const packed[] = { ".gz", ".xz", ".zst", ".bz2",
					      ".lz4", ".lzma", ".Z" };
	static const char *const text[] = { ".txt", ".log", ".csv", ".iolog",
					    ".load", ".out" };
	static const char *const trace[] = { ".blktrace", ".bin" };
	char tmp[PATH_MAX], *b;
	size_t bl, d;

	snprintf(tmp, sizeof(tmp), "%s", path);
	bl = strlen(b = basename(tmp));
	/* at most one of each, outermost first: compression, text or log,
	 * then blktrace's own (".blktrace.N" with its CPU number) */
	strip_ext(b, &bl, packed, ARRAY_SIZE(packed));
	strip_ext(b, &bl, text, ARRAY_SIZE(text));
	for (d = bl; d > 0 && b[d - 1] >= '0' && b[d - 1] <= '9'; d--)
		;
	if (d < bl && d > 10 && !strncmp(b + d - 10, ".blktrace.", 10))
		b[bl = d - 10] = '\0';
	else
		strip_ext(b, &bl, trace, ARRAY_SIZE(trace));
	if (run_name_is_id(b))   /* "7.bin": "run-7", not a name hiding run 7 */
		snprintf(out, len, "%s-%s", fallback, b);
	else
		snprintf(out, len, "%s", *b && strcmp(b, ".") && strcmp(b, "/") ? b
									       : fallback);
	run_name_clean(out);     /* $'new\nline.bin': "new_line", as --run
				  * refuses control characters */
}

/* Makes a new run named name (or after the file, made unique, with
 * "-suffix" when suffix is set). */
static int new_run(struct common *c, const char *name, const char *suffix,
		   char *runname, size_t len)
{
	struct run_info ri = { 0 };
	char abspath[PATH_MAX], base[220];
	int rc;

	if (name)
		snprintf(base, sizeof(base), "%s", name);
	else
		import_run_name(c->name_base ? c->name_base : c->path, "run", base,
				sizeof(base));
	if (suffix && *suffix) {
		size_t n = strlen(base);
		snprintf(base + n, sizeof(base) - n, "-%s", suffix);
		/* the stream is the trace's: an MSR Hostname "ho\e[31mst" */
		run_name_clean(base);
	}
	if (name && (!suffix || !*suffix))
		snprintf(runname, len, "%s", base);
	else if ((rc = store_run_free_name(c->st, base, runname, len)))
		return rc;
	ri.name = runname;
	ri.kind = "import";
	ri.source = c->source ? c->source
			      : realpath(c->path, abspath) ? abspath : c->path;
	ri.format = c->f->name;
	return (rc = store_run_create(c->st, &ri, &c->run)) ? rc
	       : run_summaries_open(c->sums, c->st, c->run);
}

static int put_notes(struct common *c)
{
	if (!c->notes_len)
		return 0;
	return store_run_set(c->st, c->run, "notes", c->notes);
}

static int put_stat_u64(struct common *c, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return store_stat_set(c->st, c->run, key, buf);
}

/* ---- traces ---- */

struct pend {
	struct bt_event ev;
	uint64_t order;
};

struct tdev {
	uint32_t dev;
	int64_t last_start, last_end;   /* btt D2D seek state */
};

struct trace {
	struct common c;
	char **keys;           /* streams seen by the scan, in order */
	size_t nkeys;
	const char *want;      /* the stream this pass takes */
	char runname[256];
	struct pend *heap;
	size_t n, cap;
	uint64_t order, seq;
	int64_t next_id, high;
	struct tdev *devs;
	size_t ndev;
	int64_t genesis, last_out;
	int have_out;
	uint64_t ios, qs, ds, cs, backwards, steps;
	struct timeline tl;    /* the time that had I/O, in file order */
};

static int pend_less(const struct pend *a, const struct pend *b)
{
	if (a->ev.time_ns != b->ev.time_ns)
		return a->ev.time_ns < b->ev.time_ns;
	return a->order < b->order;
}

static void heap_push(struct trace *t, const struct pend *p)
{
	size_t i;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->heap = xrealloc(t->heap, t->cap * sizeof(*t->heap));
	}
	for (i = t->n++; i > 0 && pend_less(p, &t->heap[(i - 1) / 2]); i = (i - 1) / 2)
		t->heap[i] = t->heap[(i - 1) / 2];
	t->heap[i] = *p;
}

static struct pend heap_pop(struct trace *t)
{
	struct pend top = t->heap[0], last = t->heap[--t->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= t->n)
			break;
		if (l + 1 < t->n && pend_less(&t->heap[l + 1], &t->heap[l]))
			m = l + 1;
		if (!pend_less(&t->heap[m], &last))
			break;
		t->heap[i] = t->heap[m];
		i = m;
	}
	if (t->n)
		t->heap[i] = last;
	return top;
}

/* Stores the waiting events up to time upto (all when upto is INT64_MAX). */
static int drain(struct trace *t, int64_t upto)
{
	while (t->n && (int64_t)t->heap[0].ev.time_ns <= upto) {
		struct pend p = heap_pop(t);
		int64_t tm = (int64_t)p.ev.time_ns;
		int rc;

		if (!t->have_out) {
			t->genesis = tm;
			t->have_out = 1;
		} else if (tm < t->last_out)
			t->backwards++;
		t->last_out = tm;
		p.ev.sequence = (uint32_t)++t->seq;
		if ((rc = store_event_add(t->c.st, t->c.run, &p.ev))) {
			t->c.store_failed = 1;
			return rc;
		}
	}
	return 0;
}

static void push_event(struct trace *t, const struct fmt_io *io, unsigned act,
		       uint32_t cat, int64_t time)
{
	struct pend p = { .order = t->order++ };

	p.ev.time_ns = (uint64_t)time;
	p.ev.sector = io->sector;
	p.ev.bytes = io->bytes;
	p.ev.action = act | ((uint64_t)(io->cats | cat) << 16);
	p.ev.pid = io->pid;
	p.ev.dev = io->dev;
	heap_push(t, &p);
}

static struct tdev *dev_of(struct trace *t, const struct fmt_io *io, int *rc)
{
	for (size_t i = 0; i < t->ndev; i++)
		if (t->devs[i].dev == io->dev)
			return &t->devs[i];
	t->devs = xrealloc(t->devs, (t->ndev + 1) * sizeof(*t->devs));
	memset(&t->devs[t->ndev], 0, sizeof(*t->devs));
	t->devs[t->ndev].dev = io->dev;
	if (io->device) {
		/* the trace's name for it (an MSR host, a fio file name):
		 * shown in reports, so no control characters */
		char *name = xstrdup(io->device);
		run_name_clean(name);
		*rc = store_device_add(t->c.st, t->c.run, io->dev, name, 0, "data");
		free(name);
	} else
		*rc = store_device_add(t->c.st, t->c.run, io->dev, NULL, 0, "data");
	if (*rc)
		t->c.store_failed = 1;
	return &t->devs[t->ndev++];
}

static int scan_io(void *vctx, const struct fmt_io *io)
{
	struct trace *t = vctx;
	const char *k = io->stream ? io->stream : "";

	for (size_t i = 0; i < t->nkeys; i++)
		if (!strcmp(t->keys[i], k))
			return 0;
	t->keys = xrealloc(t->keys, (t->nkeys + 1) * sizeof(*t->keys));
	t->keys[t->nkeys++] = xstrdup(k);
	return 0;
}

static int take_io(void *vctx, const struct fmt_io *io)
{
	struct trace *t = vctx;
	struct store_request rq = { 0 };
	struct bt_event fake = { 0 };
	struct tdev *d;
	int64_t first = INT64_MAX;
	int rc = 0;

	if (strcmp(io->stream ? io->stream : "", t->want))
		return 0;
	d = dev_of(t, io, &rc);
	if (rc)
		return rc;
	rq.dev = io->dev;
	rq.sector = io->sector;
	rq.bytes = io->bytes;
	rq.cats = io->cats;
	rq.pid = io->pid;
	fake.action = (uint64_t)io->cats << 16;
	fake.bytes = io->bytes;
	bt_rwbs(&fake, rq.rwbs);
	rq.q_ns = io->q_ns == FMT_NO_TIME ? STORE_NO_TIME : io->q_ns;
	rq.g_ns = rq.m_ns = rq.i_ns = STORE_NO_TIME;
	rq.d_ns = io->d_ns == FMT_NO_TIME ? STORE_NO_TIME : io->d_ns;
	rq.c_ns = io->c_ns == FMT_NO_TIME ? STORE_NO_TIME : io->c_ns;
	if (io->q_ns != FMT_NO_TIME) {
		push_event(t, io, BT_A_QUEUE, BT_C_QUEUE, io->q_ns);
		first = io->q_ns;
		t->qs++;
	}
	if (io->d_ns != FMT_NO_TIME) {
		push_event(t, io, BT_A_ISSUE, BT_C_ISSUE, io->d_ns);
		first = first < io->d_ns ? first : io->d_ns;
		rq.has_d = 1;
		rq.d_sector = io->sector;
		rq.d_bytes = io->bytes;
		rq.d_head = 1;
		rq.has_seek = 1;
		rq.seek_sectors = stitch_seek_dist(&d->last_start, &d->last_end,
						   (int64_t)io->sector,
						   (int64_t)(io->sector + io->bytes / 512));
		t->ds++;
	}
	if (io->c_ns != FMT_NO_TIME) {
		push_event(t, io, BT_A_COMPLETE, BT_C_COMPLETE, io->c_ns);
		first = first < io->c_ns ? first : io->c_ns;
		t->cs++;
	}
	if (first == INT64_MAX)
		return 0;
	/* the clock in file order: each line's first time, its I/O in
	 * flight to its last (a line stamped seconds off its neighbours
	 * is a step, not time that had I/O) */
	t->steps += (uint64_t)timeline_step(&t->tl, (uint64_t)first);
	{
		int64_t last = io->c_ns != FMT_NO_TIME ? io->c_ns
			       : io->d_ns != FMT_NO_TIME ? io->d_ns : first;
		timeline_cover(&t->tl, (uint64_t)last);
	}
	t->ios++;
	if ((rc = store_request_add(t->c.st, t->c.run, t->next_id++, &rq))) {
		t->c.store_failed = 1;
		return rc;
	}
	run_summaries_add(t->c.sums, t->c.run, &rq);
	if (first > t->high)
		t->high = first;
	return t->high > INT64_MIN + REORDER_NS ? drain(t, t->high - REORDER_NS) : 0;
}

/* One pass over fp taking the stream t->want into a new run. */
static int trace_pass(struct trace *t, FILE *fp, const struct fmt_opts *fo,
		      const char *name, int many)
{
	struct fmt_sink sink = { .io = take_io, .note = c_note, .stat = c_stat,
				 .ctx = t };
	int rc;

	t->c.run = 0;
	t->c.notes_len = 0;
	t->n = t->ndev = 0;
	t->seq = t->ios = t->qs = t->ds = t->cs = t->backwards = t->steps = 0;
	memset(&t->tl, 0, sizeof(t->tl));
	t->have_out = 0;
	t->high = INT64_MIN;
	rewind(fp);
	/* the run is made at the first I/O; make it now for its name */
	if ((rc = new_run(&t->c, name, many ? t->want : NULL, t->runname,
			  sizeof(t->runname))))
		return rc;
	if ((rc = store_process_set(t->c.st, t->c.run, 0, t->c.f->name)))
		return rc;
	rc = t->c.f->parse(fp, t->c.path, fo, &sink, t->c.err, t->c.errlen);
	if (!rc)
		rc = drain(t, INT64_MAX);
	if (rc)
		return rc;
	if (t->backwards)
		c_note(&t->c, "events out of time order by over 1 s in the trace "
		       "were stored in file order (run_stats time_backwards)");
	if ((rc = put_notes(&t->c)) ||
	    (rc = put_stat_u64(&t->c, "ios", t->ios)) ||
	    (rc = put_stat_u64(&t->c, "records", t->seq)) ||
	    (rc = put_stat_u64(&t->c, "bios", t->qs)) ||
	    (rc = put_stat_u64(&t->c, "dispatches", t->ds)) ||
	    (rc = put_stat_u64(&t->c, "completions", t->cs)) ||
	    (rc = put_stat_u64(&t->c, "time_backwards", t->backwards)) ||
	    (rc = put_stat_u64(&t->c, "clock_jumps", t->steps)) ||
	    (rc = put_stat_u64(&t->c, "active_span_ns", timeline_total(&t->tl))))
		return rc;
	return store_run_finish(t->c.st, t->c.run, "complete", t->genesis);
}

static int import_trace(struct common *c, FILE *fp, const struct import_opts *o,
			const char *name, int64_t *run_out, char *summary,
			size_t slen, const char *sha)
{
	struct fmt_opts fo = { .split = o->split, .quiet = o->quiet };
	struct fmt_sink scan = { .io = scan_io };
	struct trace t = { .c = *c };
	uint64_t ios = 0, cs = 0;
	size_t o_len = 0;
	int rc;

	/* a scan first: the streams (runs) and a check of every line before
	 * anything is stored */
	scan.ctx = &t;
	rc = c->f->parse(fp, c->path, &fo, &scan, c->err, c->errlen);
	if (!rc && !t.nkeys) {
		snprintf(c->err, c->errlen, "%s: no I/O in the trace", c->path);
		rc = -EINVAL;
	}
	if (!rc && store_next_request_id(c->st, &t.next_id))
		t.c.store_failed = 1, rc = -1;
	fo.quiet = 1;   /* the scan has warned */
	for (size_t i = 0; !rc && i < t.nkeys; i++) {
		t.want = t.keys[i];
		rc = trace_pass(&t, fp, &fo, name, t.nkeys > 1);
		/* each run of the input holds its SHA-256, as a blktrace
		 * input's does (import_input_once()) */
		if (!rc && sha && store_run_set(c->st, t.c.run, "input_sha256", sha))
			t.c.store_failed = 1, rc = -1;
		ios += t.ios;
		cs += t.cs;
		if (!rc && summary && o_len < slen)
			o_len += (size_t)snprintf(summary + o_len, slen - o_len,
				"%s'%s'", i ? ", " : "", t.runname);
	}
	if (rc && (t.c.store_failed || !c->err[0]))
		import_store_error(c->st, c->path, c->err, c->errlen);
	if (!rc && run_out)
		*run_out = t.c.run;
	if (!rc && summary) {
		char runs[400];
		snprintf(runs, sizeof(runs), "%s", summary);
		snprintf(summary, slen, "imported '%s' (%s) as run%s %s: %" PRIu64
			 " I/Os, %" PRIu64 " with a completion", c->path, c->f->name,
			 t.nkeys > 1 ? "s" : "", runs, ios, cs);
	}
	for (size_t i = 0; i < t.nkeys; i++)
		free(t.keys[i]);
	free(t.keys);
	free(t.heap);
	free(t.devs);
	c->notes = t.c.notes;
	return rc;
}

/* ---- sample logs ---- */

struct samples {
	struct common c;
	int no_boot;          /* --no-boot-row: no report is since boot */
	int all_timed;
	int64_t wall0, prev_wall, base, interval_ns;
	uint64_t prev_report, reports, values, boot_marked;
	int have_prev, have_boot;
	int64_t *steps;
	size_t nsteps;
};

static int scan_sample(void *vctx, const struct fmt_sample *s)
{
	struct samples *x = vctx;

	if (!x->reports) {
		x->all_timed = 1;
		x->wall0 = s->wall_ns;
	}
	if (s->wall_ns < 0)
		x->all_timed = 0;
	if (x->have_prev && s->report != x->prev_report && s->wall_ns >= 0 &&
	    x->prev_wall >= 0 && s->wall_ns > x->prev_wall) {
		x->steps = xrealloc(x->steps, (x->nsteps + 1) * sizeof(*x->steps));
		x->steps[x->nsteps++] = s->wall_ns - x->prev_wall;
	}
	if (!x->have_prev || s->report != x->prev_report)
		x->reports++;
	x->have_prev = 1;
	x->prev_report = s->report;
	x->prev_wall = s->wall_ns;
	return 0;
}

static int put_sample(void *vctx, const struct fmt_sample *s)
{
	struct samples *x = vctx;
	int64_t t = x->all_timed ? x->base + (s->wall_ns - x->wall0)
				 : x->base + (int64_t)s->report * x->interval_ns;
	int rc;

	if (s->since_boot && !x->no_boot &&
	    (!x->have_boot || x->boot_marked != s->report)) {
		x->have_boot = 1;
		x->boot_marked = s->report;
		if ((rc = store_sample_add(x->c.st, x->c.run, t, "iostat",
					   "since_boot", 1)))
			goto fail;
	}
	if ((rc = store_sample_add(x->c.st, x->c.run, t, "iostat", s->key,
				   s->value)))
		goto fail;
	x->values++;
	return 0;
fail:
	x->c.store_failed = 1;
	return rc;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The run to join (name names an existing run) or a new one; *genesis is
 * the joined run's start, or 0. */
/* Whether run has samples of source: 1, 0, or -STORE_E_SQLITE. */
static int has_samples(struct store *st, int64_t run, const char *source)
{
	struct store_cursor *cur;
	struct store_sample sm;
	int rc;

	if ((rc = store_samples_open(st, run, source, &cur)))
		return rc;
	rc = store_samples_next(cur, &sm);
	store_cursor_close(cur);
	return rc;
}

static int join_or_new(struct common *c, const char *name, const char *source,
		       int *attach, int64_t *genesis, char *runname, size_t len)
{
	struct store_run r;
	int rc;

	*attach = 0;
	*genesis = 0;
	if (name && store_run_find(c->st, name, &c->run) == 0) {
		*attach = 1;
		if (source) {
			if ((rc = has_samples(c->st, c->run, source)) < 0)
				return rc;
			if (rc) {
				snprintf(c->err, c->errlen, "%s: run '%s' already has "
					 "%s samples", c->path, name, source);
				return -EEXIST;
			}
		}
		snprintf(runname, len, "%s", name);
		if ((rc = store_run_get(c->st, c->run, &r)))
			return rc;
		*genesis = r.genesis_ns == STORE_NO_TIME ? 0 : r.genesis_ns;
		return 0;
	}
	c->run = 0;
	return new_run(c, name, NULL, runname, len);
}

static int import_samples(struct common *c, FILE *fp, const struct import_opts *o,
			  const char *name, int64_t *run_out, char *summary,
			  size_t slen)
{
	struct fmt_sink sink = { .sample = scan_sample, .note = c_note };
	struct fmt_opts fo = { 0 };
	struct samples x = { .c = *c, .prev_wall = -1, .no_boot = o->no_boot_row };
	char runname[256];
	const char *from;
	double interval_s;
	int attach, rc;

	sink.ctx = &x;
	fo.quiet = o->quiet;
	rc = c->f->parse(fp, c->path, &fo, &sink, c->err, c->errlen);
	if (!rc && !x.reports) {
		snprintf(c->err, c->errlen, "%s: no reports in the log", c->path);
		rc = -EINVAL;
	}
	if (rc)
		goto out;
	if (o->interval_s > 0) {
		interval_s = o->interval_s;
		from = "option";
	} else if (x.nsteps) {
		qsort(x.steps, x.nsteps, sizeof(*x.steps), cmp_i64);
		interval_s = (double)x.steps[x.nsteps / 2] / 1e9;
		from = "timestamps";
	} else {
		interval_s = 1;
		from = "assumed";
		if (!o->quiet && x.reports > 1 && !x.all_timed)
			warning("%s: the log does not say its interval; assuming 1 s "
				"between reports (give --interval)", c->path);
	}
	x.interval_ns = (int64_t)llround(interval_s * 1e9);
	if ((rc = join_or_new(&x.c, name, "iostat", &attach, &x.base, runname,
			      sizeof(runname))))
		goto store;
	if (!attach && x.all_timed)
		x.base = x.wall0;
	x.c.notes_len = 0;
	sink = (struct fmt_sink){ .sample = put_sample, .note = c_note,
				  .stat = c_stat, .ctx = &x };
	rewind(fp);
	fo.quiet = 1;   /* the first pass has warned */
	if ((rc = c->f->parse(fp, c->path, &fo, &sink, c->err, c->errlen)))
		goto store;
	{
		char v[32];
		snprintf(v, sizeof(v), "%g", interval_s);
		if ((rc = store_stat_set(c->st, x.c.run, "iostat.interval_s", v)) ||
		    (rc = store_stat_set(c->st, x.c.run, "iostat.interval_from", from)) ||
		    (rc = put_stat_u64(&x.c, "iostat.reports", x.reports)))
			goto store;
	}
	if (!attach && ((rc = put_notes(&x.c)) ||
			(rc = store_run_finish(c->st, x.c.run, "complete", x.base))))
		goto store;
	if (attach && x.all_timed && !o->quiet)
		/* iostat -t prints local time with no zone: not to be set
		 * against the trace's clock */
		warning("%s: its -t times carry no time zone: its first report "
			"is placed at the first event of run '%s', not by the clock",
			c->path, runname);
	if (run_out)
		*run_out = x.c.run;
	if (summary)
		snprintf(summary, slen, "imported '%s' (%s) %s run '%s': %" PRIu64
			 " reports, %" PRIu64 " values, %g s apart", c->path,
			 c->f->name, attach ? "into" : "as", runname, x.reports,
			 x.values, interval_s);
	goto out;
store:
	if (x.c.store_failed || !c->err[0])
		import_store_error(c->st, c->path, c->err, c->errlen);
out:
	free(x.steps);
	c->notes = x.c.notes;
	return rc;
}

/* ---- timed commands ---- */

struct commands {
	struct common c;
	int64_t at;          /* where the next command starts */
	/* the paste's zero on the run's clock, set by its first command
	 * with a measured start (INT64_MIN before) */
	int64_t base;
	int64_t prev_start;  /* the command before's start */
	int64_t last_end;    /* the latest end of all before (`wait`) */
	int idx, n, measured;
	uint64_t untimed_line; /* the first report with no real time, or 0 */
};

static int put_dd(struct commands *x, int idx, const struct fmt_command *k)
{
	char key[64], v[64];
	int rc = 0;

	if (k->dd_bytes >= 0) {
		snprintf(key, sizeof(key), "command.%d.dd_bytes", idx);
		snprintf(v, sizeof(v), "%" PRId64, k->dd_bytes);
		rc = store_stat_set(x->c.st, x->c.run, key, v);
	}
	if (!rc && !isnan(k->dd_s)) {
		snprintf(key, sizeof(key), "command.%d.dd_seconds", idx);
		snprintf(v, sizeof(v), "%g", k->dd_s);
		rc = store_stat_set(x->c.st, x->c.run, key, v);
	}
	if (!rc && !isnan(k->dd_rate)) {
		snprintf(key, sizeof(key), "command.%d.dd_bytes_per_s", idx);
		snprintf(v, sizeof(v), "%.0f", k->dd_rate);
		rc = store_stat_set(x->c.st, x->c.run, key, v);
	}
	if (!rc && k->dd_in_full >= 0) {
		snprintf(key, sizeof(key), "command.%d.dd_records", idx);
		snprintf(v, sizeof(v), "%" PRId64 "+%" PRId64 " in, %" PRId64 "+%"
			 PRId64 " out", k->dd_in_full, k->dd_in_partial,
			 k->dd_out_full, k->dd_out_partial);
		rc = store_stat_set(x->c.st, x->c.run, key, v);
	}
	return rc;
}

static int put_command(void *vctx, const struct fmt_command *k)
{
	struct commands *x = vctx;
	struct store_command sc = { 0 };
	char argv[600];
	double real = isnan(k->real_s) ? k->dd_s : k->real_s;
	/* the paste measured its start and end (start_s=, end_s=) */
	int measured = k->start_s >= 0 && k->end_s >= k->start_s;
	char key[48];
	int rc;

	if (isnan(real)) {
		if (!x->untimed_line)
			x->untimed_line = k->line;
		return 0;
	}
	if (k->argv)
		snprintf(argv, sizeof(argv), "%s", k->argv);
	else
		snprintf(argv, sizeof(argv), "(a `time` report in %s line %" PRIu64
			 ")", x->c.path, k->line);
	sc.idx = x->idx;
	sc.argv = argv;
	/* after the one before, or beside it when that one ran in the
	 * background ("time a & time b") */
	sc.start_ns = k->follows == FMT_NEXT_AT_ONCE && x->n ? x->prev_start
		      : k->follows == FMT_NEXT_WAIT && x->n ? x->last_end : x->at;
	sc.end_ns = sc.start_ns + (int64_t)llround(real * 1e9);
	if (measured) {
		/* measured on the paste's clock: kept apart as measured (at
		 * once, or with a pause), the first from where it would go */
		if (x->base == INT64_MIN)
			x->base = x->at - (int64_t)llround(k->start_s * 1e9);
		sc.start_ns = x->base + (int64_t)llround(k->start_s * 1e9);
		sc.end_ns = x->base + (int64_t)llround(k->end_s * 1e9);
	}
	sc.real_s = real;
	/* a time the report had not (its cut last line left out): unknown,
	 * not 0 s */
	sc.user_s = k->user_s;
	sc.sys_s = k->sys_s;
	sc.status = k->status;
	/* its start and end are placed here, after the one before it, not
	 * measured: compare says so when they add up past the trace; or
	 * measured on the paste's clock, which the trace's is not ("offset":
	 * analyses move them all together onto it, rundata.c) */
	snprintf(key, sizeof(key), "command.%d.%s", x->idx,
		 measured ? "offset" : "placed");
	x->measured += measured;
	if ((rc = store_command_add(x->c.st, x->c.run, &sc)) ||
	    (rc = store_stat_set(x->c.st, x->c.run, key, "1")) ||
	    (rc = put_dd(x, x->idx, k))) {
		x->c.store_failed = 1;
		return rc;
	}
	/* what the command line said came between it and the one before
	 * (compare places the commands by the trace: rundata.c) */
	if (k->follows != FMT_NEXT_UNKNOWN) {
		snprintf(key, sizeof(key), "command.%d.follows", x->idx);
		if ((rc = store_stat_set(x->c.st, x->c.run, key,
					 k->follows == FMT_NEXT_AFTER ? "after"
					 : k->follows == FMT_NEXT_AT_ONCE ? "at_once"
					 : k->follows == FMT_NEXT_WAIT ? "wait"
					 : "pause"))) {
			x->c.store_failed = 1;
			return rc;
		}
	}
	/* the next starts when this one ended (a shell runs the next line
	 * after its foreground command, whatever ran in the background), or
	 * after the last end when the paste measured them */
	if (!measured || sc.end_ns > x->at)
		x->at = sc.end_ns;
	x->prev_start = sc.start_ns;
	if (!x->n || sc.end_ns > x->last_end)
		x->last_end = sc.end_ns;
	x->idx++;
	x->n++;
	return 0;
}

/* Whether run already took a paste of SHA-256 sha (its run_stats key
 * "input_sha256.SHA", set by import_commands()): 1, 0, or a store error. */
static int paste_taken(struct store *st, int64_t run, const char *sha)
{
	struct store_stat *s;
	size_t n;
	char key[96];
	int rc, found = 0;

	snprintf(key, sizeof(key), "input_sha256.%s", sha);
	if ((rc = store_stats_get(st, run, &s, &n)))
		return rc;
	for (size_t i = 0; i < n && !found; i++)
		found = !strcmp(s[i].key, key);
	free(s);
	return found;
}

static int import_commands(struct common *c, FILE *fp, const char *name,
			   int64_t *run_out, char *summary, size_t slen,
			   const char *sha, const struct import_opts *o)
{
	struct fmt_opts fo = { 0 };
	struct commands x = { .c = *c, .base = INT64_MIN };
	struct fmt_sink sink = { .command = put_command, .note = c_note,
				 .stat = c_stat, .ctx = &x };
	char runname[256];
	int attach, rc;

	if ((rc = join_or_new(&x.c, name, NULL, &attach, &x.at, runname,
			      sizeof(runname))))
		goto store;
	/* a paste into a new run: as a trace's input (import_input_once()) */
	if (!attach && (rc = import_input_once(c->st, o, sha, c->path, c->err,
					       c->errlen)))
		goto out;
	/* a paste joined twice to one run doubled its commands, silently */
	if (o->once && attach && (rc = paste_taken(c->st, x.c.run, sha))) {
		if (rc < 0)
			goto store;
		snprintf(c->err, c->errlen, "%s: already imported into run '%s' "
			 "(the same SHA-256); give --again to import it again",
			 c->path, runname);
		rc = -EEXIST;
		goto out;
	}
	/* commands given to a run that has some go after them */
	{
		struct store_command *cmds;
		size_t ncmd;
		if ((rc = store_commands_get(c->st, x.c.run, &cmds, &ncmd)))
			goto store;
		for (size_t k = 0; k < ncmd; k++) {
			if (cmds[k].idx >= x.idx)
				x.idx = cmds[k].idx + 1;
			if (attach && cmds[k].end_ns > x.at)
				x.at = cmds[k].end_ns;
		}
		free(cmds);
	}
	if ((rc = c->f->parse(fp, c->path, &fo, &sink, c->err, c->errlen)))
		goto store;
	if (!x.n && x.untimed_line)
		snprintf(c->err, c->errlen, "%s: line %" PRIu64 ": a time report "
			 "without its real time (no timed command in the text)",
			 c->path, x.untimed_line);
	else if (!x.n)
		snprintf(c->err, c->errlen, "%s: no timed command in the text", c->path);
	if (!x.n) {
		rc = -EINVAL;
		goto out;
	}
	/* measured starts and ends for all of a run's commands or none: the
	 * analyses move a measured set onto the trace as one, and place
	 * unmeasured ones by the trace; a mix is neither (a dd timed by dd
	 * has none beside a report with them; a second paste without them
	 * into a run with them) */
	{
		struct store_stat *ss;
		size_t ns;
		int off = 0, placed = 0;
		if ((rc = store_stats_get(c->st, x.c.run, &ss, &ns)))
			goto store;
		for (size_t k = 0; k < ns; k++) {
			size_t l = strlen(ss[k].key);
			if (strncmp(ss[k].key, "command.", 8) || l < 16)
				continue;
			off += !strcmp(ss[k].key + l - 7, ".offset");
			placed += !strcmp(ss[k].key + l - 7, ".placed");
		}
		free(ss);
		if (off && placed) {
			snprintf(c->err, c->errlen, "%s: start_s and end_s given for "
				 "some commands of run '%s', not for others (a dd "
				 "timed by dd, another paste): give them for every "
				 "command or none", c->path, runname);
			rc = -EINVAL;
			goto out;
		}
	}
	c_note(&x.c, x.measured == x.n ? "commands from a pasted time output "
	       "with their start and end (start_s=, end_s=): kept apart as "
	       "measured, placed together on the trace by their processes' "
	       "first I/O" : "commands from a pasted time/dd output: each "
	       "starts when the one before ended (start and end are estimates "
	       "from their real seconds)");
	if (!attach && ((rc = put_notes(&x.c)) ||
			(rc = store_run_finish(c->st, x.c.run, "complete", 0))))
		goto store;
	{
		char key[96];
		snprintf(key, sizeof(key), "input_sha256.%s", sha);
		if ((rc = store_stat_set(c->st, x.c.run, key, c->path)) ||
		    (!attach && (rc = store_run_set(c->st, x.c.run, "input_sha256",
						    sha))))
			goto store;
	}
	if (run_out)
		*run_out = x.c.run;
	if (summary)
		snprintf(summary, slen, "imported '%s' (%s) %s run '%s': %d timed "
			 "command%s", c->path, c->f->name, attach ? "into" : "as",
			 runname, x.n, x.n == 1 ? "" : "s");
	goto out;
store:
	if (x.c.store_failed || !c->err[0])
		import_store_error(c->st, c->path, c->err, c->errlen);
out:
	c->notes = x.c.notes;
	return rc;
}

/* The SHA-256 (FIPS 180-4, nettle) of fp's bytes as hex into out (65
 * bytes), fp rewound after. Returns 0, or -1 with errno on a read error. */
static int file_sha256(FILE *fp, char *out)
{
	struct sha256_ctx h;
	uint8_t buf[65536], d[SHA256_DIGEST_SIZE];
	size_t n;

	sha256_init(&h);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		sha256_update(&h, n, buf);
	if (ferror(fp))
		return -1;
	rewind(fp);
	sha256_digest(&h, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	return 0;
}

int import_format_one(struct store *st, const struct import_opts *o,
		      const struct import_format *f, const char *path,
		      const char *name, int64_t *run_out, char *err,
		      size_t errlen)
{
	struct common c = { .st = st, .f = f, .path = o->label ? o->label : path,
			    .source = o->source, .name_base = o->name_base,
			    .sums = o->sums, .err = err, .errlen = errlen };
	char sha[65];
	FILE *fp;
	int rc;

	err[0] = '\0';
	if (!f->parse) {
		snprintf(err, errlen, "%s: format %s has no parser here", c.path,
			 f->name);
		return -EINVAL;
	}
	if (!(fp = fopen(path, "r"))) {
		rc = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", c.path, strerror(errno));
		return rc;
	}
	switch (f->kind) {
	case FMT_TRACE:
		/* as a blktrace input: its bytes once (a fio log imported
		 * twice made fio-v2 and fio-v2-2, silently); their SHA-256
		 * kept with --again too, for the next import's check */
		if (file_sha256(fp, sha)) {
			rc = -EIO;
			snprintf(err, errlen, "cannot read '%s': %s", c.path,
				 strerror(errno));
			break;
		}
		if ((rc = import_input_once(st, o, sha, c.path, err, errlen)))
			break;
		rc = import_trace(&c, fp, o, name, run_out, o->summary,
				  o->summary_len, sha);
		break;
	case FMT_SAMPLES:
		rc = import_samples(&c, fp, o, name, run_out, o->summary,
				    o->summary_len);
		break;
	case FMT_COMMANDS:
		/* once, as a trace: into a new run (import_input_once()) or
		 * into one run (its run_stats); checked in import_commands(),
		 * which knows which */
		if (file_sha256(fp, sha)) {
			rc = -EIO;
			snprintf(err, errlen, "cannot read '%s': %s", c.path,
				 strerror(errno));
			break;
		}
		rc = import_commands(&c, fp, name, run_out, o->summary,
				     o->summary_len, sha, o);
		break;
	default:
		snprintf(err, errlen, "%s: format %s is read elsewhere", c.path,
			 f->name);
		rc = -EINVAL;
	}
	free(c.notes);
	fclose(fp);
	return rc;
}
