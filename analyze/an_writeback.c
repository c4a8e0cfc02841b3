/* writeback: dirty data that waited while the devices idled, and what it
 * cost: the time a process then waited writing it synchronously (fsync,
 * sync, O_SYNC: its own S writes while the dirty total fell), up to the
 * idle time before (had writeback used that time, the wait would have been
 * that much shorter), plus the time writers may have been throttled
 * (dirty over the kernel's throttling point). Runs with no dirty data
 * (O_DIRECT only) have no writeback finding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

#define DIRTY_MB 8.0          /* dirty data worth writing */

struct wb_state {
	int has_meminfo;
	double dirty_peak_mb, wb_peak_mb;
	double idle_dirty_s;          /* over the elapsed time */
	double longest_idle_s, longest_at_s;
	/* the process that waited longest on synchronous writes */
	uint32_t pid;
	double sync_wait_s;           /* union of its S writes' Q to C */
	double sync_mb;               /* their bytes */
	double sync_from_s;           /* its first S write, s from start */
	double idle_before_s;         /* idle while dirty before that */
	double dirty_rise_mb;         /* dirty + writeback rise before them */
	double throttle_s;            /* dirty over (bg + thresh) / 2 */
	double cost_s;
	/* the flushers' bursts, from the trace: asynchronous writes with
	 * gaps under BURST_GAP between them */
	int bursts;
	double burst_mb, burst_every_s, burst_idle_s;
	double bo_min, bo_max;        /* vmstat bo over the run, kB/s */
	int bo_swings;                /* rows from over half bo_max to under
				       * a quarter of it, or back */
	char limits[160];             /* as set, bytes or ratio */
};

#define BURST_GAP 200000000LL   /* 200 ms */

/* vmstat's bo within [lo, hi]: how often it swung from high to low. */
static void bo_swings(struct wb_state *s, const struct rundata *rd, int64_t lo,
		      int64_t hi)
{
	int state = 0;

	s->bo_min = s->bo_max = NAN;
	for (size_t i = 0; i < rd->nvm; i++) {
		double bo = rd->vm[i].bo;
		if (!isfinite(bo) || rd->vm[i].t < lo || rd->vm[i].t > hi)
			continue;
		if (isnan(s->bo_min) || bo < s->bo_min)
			s->bo_min = bo;
		if (isnan(s->bo_max) || bo > s->bo_max)
			s->bo_max = bo;
	}
	for (size_t i = 0; i < rd->nvm && isfinite(s->bo_max) && s->bo_max > 0; i++) {
		double bo = rd->vm[i].bo;
		if (!isfinite(bo) || rd->vm[i].t < lo || rd->vm[i].t > hi)
			continue;
		if (bo > 0.5 * s->bo_max && state != 1) {
			s->bo_swings += state != 0;
			state = 1;
		} else if (bo < 0.25 * s->bo_max && state != -1) {
			s->bo_swings += state != 0;
			state = -1;
		}
	}
}

/* Dirty + Writeback in MB at t. */
static double dirty_mb(const struct rundata *rd, int64_t t)
{
	double d = series_at(&rd->dirty_kb, t), w = series_at(&rd->writeback_kb, t);
	return ((isfinite(d) ? d : 0) + (isfinite(w) ? w : 0)) * 1024 / 1e6;
}

/* Time within [lo, hi] with dirty + writeback over the point where the
 * kernel starts throttling writers, (background + dirty threshold) / 2
 * (mm/page-writeback.c dirty_freerun_ceiling). */
static double throttled(const struct rundata *rd, int64_t lo, int64_t hi)
{
	const struct an_series *s = &rd->dirty_kb;
	double t = 0;

	if (!rd->dirty_thresh_kb.n || !rd->bg_thresh_kb.n)
		return 0;
	for (size_t i = 1; i < s->n; i++) {
		int64_t a = s->t[i - 1] > lo ? s->t[i - 1] : lo;
		int64_t b = s->t[i] < hi ? s->t[i] : hi;
		double ceil = (series_at(&rd->dirty_thresh_kb, a) +
			       series_at(&rd->bg_thresh_kb, a)) / 2;
		if (b > a && dirty_mb(rd, a) * 1e6 / 1024 > ceil)
			t += (double)(b - a) / 1e9;
	}
	return t;
}

/* The peaks (MB) of meminfo's Dirty and Writeback within the run (every
 * sample when the run has no span), into s. */
static void dirty_peaks(struct wb_state *s, const struct rundata *rd)
{
	for (size_t i = 0; i < rd->dirty_kb.n; i++) {
		int64_t t = rd->dirty_kb.t[i];
		double d = rd->dirty_kb.v[i] * 1024 / 1e6;
		double w = series_at(&rd->writeback_kb, t) * 1024 / 1e6;
		if ((rd->t1 > rd->t0) && (t < rd->t0 || t > rd->t1))
			continue;
		if (d > s->dirty_peak_mb)
			s->dirty_peak_mb = d;
		if (isfinite(w) && w > s->wb_peak_mb)
			s->wb_peak_mb = w;
	}
}

/* Dirty data made before first (ns): the largest rise (MB) of dirty +
 * writeback from the run's start to first, at a sample or at first. */
static double dirty_rise(const struct rundata *rd, int64_t first)
{
	double most = 0;

	for (size_t i = 0; i < rd->dirty_kb.n; i++) {
		int64_t ts = rd->dirty_kb.t[i];
		double rise;
		if (ts < rd->t0 || ts > first)
			continue;
		rise = dirty_mb(rd, ts) - dirty_mb(rd, rd->t0);
		if (rise > most)
			most = rise;
	}
	if (dirty_mb(rd, first) - dirty_mb(rd, rd->t0) > most)
		most = dirty_mb(rd, first) - dirty_mb(rd, rd->t0);
	return most;
}

/* The cumulative time the devices were busy (the union of the dispatched
 * requests' [D, C]) up to a time, B(t) in ns: the D events come in time
 * order, so at an event at t every interval starting before t is known and
 * B(t) is the closed intervals' sum plus the open one's part before t.
 * The overlap of the busy time with [a, b] is B(b) - B(a) (what
 * ta_overlap_s() of the merged intervals gave, as exactly). */
struct busy_clock {
	int64_t closed, a, b;
	int open;
};

static void busy_add(struct busy_clock *c, int64_t a, int64_t b)
{
	if (c->open && a <= c->b) {
		if (b > c->b)
			c->b = b;
		return;
	}
	if (c->open)
		c->closed += c->b - c->a;
	c->a = a;
	c->b = b;
	c->open = 1;
}

/* B(t), every interval starting before t added */
static int64_t busy_at(const struct busy_clock *c, int64_t t)
{
	int64_t open = 0;

	if (c->open && t > c->a)
		open = (t < c->b ? t : c->b) - c->a;
	return c->closed + open;
}

/* The parts of the dirty series over DIRTY_MB: [a, b] between samples,
 * linearly */
struct dirty_win {
	int64_t a, b;
	int64_t ba, bb;            /* B(a), B(b) */
};

/* A process's synchronous data writes on a device (a ta row's), as its Q
 * events pass: whether they were queued together (at least half of them
 * while an earlier one was in flight: writeback of dirty pages queues many
 * bios at once, fsync plugs them; a process writing O_DIRECT one at a time
 * queues each after the last completed), and the union of their [Q, C]
 * with the flushes and FUA writes of any process (journal commits, cache
 * flushes) queued from its first to 50 ms after its last C. A flush after
 * its last write's Q is in that window unless it came 50 ms after the
 * last C (a later write of its own would start after the flush, and end
 * after it too), so the union is kept as it was before the first flush
 * past the window (cut), dropped when another write comes. */
struct wb_sync {
	uint32_t pid, dev;
	size_t n, over;
	int64_t first, last, hi;
	int64_t b_first;           /* B(first) */
	double mb;
	struct ta_run u, cut;
	int have_cut;
};

struct wb_fold {
	struct wb_state *s;
	const struct an_run *r;
	int64_t lo, hi;            /* the bursts' window */
	/* the bursts: the flushers' asynchronous writes by Q */
	double total_mb;
	size_t nw;
	int64_t first_start, last_start, prev;
	/* with meminfo: the busy clock, read at the dirty windows' ends and
	 * t0, t1 (pts, their values bv) as the stream passes them */
	struct busy_clock busy;
	struct dirty_win *win;
	size_t nwin;
	int64_t *pts, *bv;
	size_t npts, next_pt;
	struct wb_sync *sy;
	size_t nsy;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* B at pts[k] == t (a time the clock was read at) */
static int64_t busy_pt(const struct wb_fold *f, int64_t t)
{
	size_t lo = 0, hi = f->npts;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->pts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return f->bv[lo];
}

/* The windows where dirty data was over DIRTY_MB (meminfo's Dirty). */
static void dirty_windows(struct wb_fold *f, const struct rundata *rd)
{
	const struct an_series *s = &rd->dirty_kb;
	double lim = DIRTY_MB * 1e6 / 1024;

	f->win = xmalloc((s->n ? s->n : 1) * sizeof(*f->win));
	for (size_t i = 1; i < s->n; i++) {
		int64_t a = s->t[i - 1], b = s->t[i];
		double va = s->v[i - 1], vb = s->v[i];
		if (va <= lim && vb <= lim)
			continue;
		if (va <= lim)
			a += (int64_t)((double)(b - a) * (lim - va) / (vb - va));
		else if (vb <= lim)
			b = a + (int64_t)((double)(b - a) * (va - lim) / (va - vb));
		f->win[f->nwin++] = (struct dirty_win){ a, b, 0, 0 };
	}
	f->pts = xmalloc((2 * f->nwin + 2) * sizeof(*f->pts));
	for (size_t i = 0; i < f->nwin; i++) {
		f->pts[f->npts++] = f->win[i].a;
		f->pts[f->npts++] = f->win[i].b;
	}
	f->pts[f->npts++] = rd->t0;
	f->pts[f->npts++] = rd->t1;
	qsort(f->pts, f->npts, sizeof(*f->pts), cmp_i64);
	f->bv = xcalloc(f->npts, sizeof(*f->bv));
}

/* Reads the busy clock at the points before t (all: INT64_MAX). */
static void read_clock(struct wb_fold *f, int64_t t)
{
	while (f->next_pt < f->npts && f->pts[f->next_pt] <= t) {
		f->bv[f->next_pt] = busy_at(&f->busy, f->pts[f->next_pt]);
		f->next_pt++;
	}
}

/* Idle time of every traced device while dirty data was over DIRTY_MB
 * within [lo, hi] (b_lo, b_hi: B there); *longest (may be NULL) the
 * longest such stretch, at *longest_at (s from the start). */
static double idle_dirty(const struct wb_fold *f, int64_t lo, int64_t b_lo,
			 int64_t hi, int64_t b_hi, double *longest,
			 double *longest_at)
{
	double idle = 0;

	for (size_t i = 0; i < f->nwin; i++) {
		int64_t a = f->win[i].a, b = f->win[i].b, ba, bb;
		double gap;
		if (a < lo)
			a = lo;
		if (b > hi)
			b = hi;
		if (b <= a)
			continue;
		ba = a == lo ? b_lo : busy_pt(f, a);
		bb = b == hi ? b_hi : busy_pt(f, b);
		gap = (double)(b - a) / 1e9 - (double)(bb - ba) / 1e9;
		idle += gap;
		if (longest && gap > *longest) {
			*longest = gap;
			*longest_at = rundata_at_s(&f->r->rd, a);
		}
	}
	return idle;
}

static void *wb_begin(const struct an_run *r)
{
	const struct rundata *rd = &r->rd;
	struct wb_fold *f = xcalloc(1, sizeof(*f));

	f->r = r;
	f->s = xcalloc(1, sizeof(*f->s));
	f->lo = rd->t0;
	f->hi = rd->t1 > rd->t0 ? rd->t1 : INT64_MAX;
	an_dirty_limits(rd, f->s->limits, sizeof(f->s->limits));
	bo_swings(f->s, rd, f->lo, f->hi);
	if (rd->dirty_kb.n) {
		dirty_windows(f, rd);
		/* the processes that wrote: candidates for the sync waiter */
		for (size_t k = 0; k < r->ta.nrows; k++) {
			const struct ta_row *t = &r->ta.rows[k];
			if (t->role[0] || !t->wr_bytes)
				continue;
			f->sy = xrealloc(f->sy, (f->nsy + 1) * sizeof(*f->sy));
			memset(&f->sy[f->nsy], 0, sizeof(*f->sy));
			f->sy[f->nsy].pid = t->pid;
			f->sy[f->nsy].dev = t->dev;
			f->sy[f->nsy].first = INT64_MAX;
			f->sy[f->nsy].last = f->sy[f->nsy].hi = INT64_MIN;
			f->nsy++;
		}
	}
	return f;
}

static void sync_write(struct wb_fold *f, struct wb_sync *w,
		       const struct an_io *x)
{
	if (!w->n) {
		w->first = x->q;
		w->b_first = busy_at(&f->busy, x->q);
	}
	w->n++;
	w->over += x->q < w->hi;
	if (x->c > w->hi)
		w->hi = x->c;
	w->mb += x->bytes / 1e6;
	if (x->c > w->last)
		w->last = x->c;
	w->have_cut = 0;
	ta_run_add(&w->u, x->q, x->c);
}

static void flush_of_any(struct wb_sync *w, const struct an_io *x)
{
	if (!w->n)
		return;
	if (x->q > w->last + 50000000 && !w->have_cut) {
		w->cut = w->u;
		w->have_cut = 1;
	}
	ta_run_add(&w->u, x->q, x->c);
}

static void wb_ev(void *state, const struct fold_ev *e)
{
	struct wb_fold *f = state;
	const struct an_io *x = e->io;

	if (e->kind == FOLD_ROW) {
		/* the bursts' bytes, in the run's order */
		if ((x->flags & AN_WRITE) && !(x->flags & (AN_SYNC | AN_FUA |
							    AN_FLUSH)) &&
		    x->q != AN_NONE && x->q >= f->lo && x->q <= f->hi && x->bytes)
			f->total_mb += x->bytes / 1e6;
		return;
	}
	read_clock(f, e->t - 1);
	if (e->kind == EV_D) {
		if ((x->flags & AN_HEAD) && x->c != AN_NONE && x->c > x->d)
			busy_add(&f->busy, x->d, x->c);
		return;
	}
	/* Q: the flushers' bursts (asynchronous writes: no S, FUA or flush,
	 * by Q; a new burst after a gap of BURST_GAP: the gaps are time the
	 * written data waited dirty) */
	if ((x->flags & AN_WRITE) && !(x->flags & (AN_SYNC | AN_FUA | AN_FLUSH)) &&
	    x->q >= f->lo && x->q <= f->hi && x->bytes) {
		struct wb_state *s = f->s;
		if (!f->nw++) {
			s->bursts = 1;
			f->first_start = f->last_start = f->prev = x->q;
		} else {
			if (x->q - f->prev >= BURST_GAP) {
				s->bursts++;
				s->burst_idle_s += (double)(x->q - f->prev) / 1e9;
				f->last_start = x->q;
			}
			f->prev = x->q;
		}
	}
	if (!f->nsy || x->c == AN_NONE || x->c < x->q)
		return;
	if ((x->flags & (AN_WRITE | AN_SYNC)) == (AN_WRITE | AN_SYNC) && x->bytes)
		for (size_t k = 0; k < f->nsy; k++)
			if (f->sy[k].pid == x->pid && f->sy[k].dev == x->dev) {
				sync_write(f, &f->sy[k], x);
				break;
			}
	if (x->flags & (AN_FLUSH | AN_FUA))
		for (size_t k = 0; k < f->nsy; k++)
			if (!((x->flags & (AN_WRITE | AN_SYNC)) == (AN_WRITE | AN_SYNC) &&
			      x->bytes && f->sy[k].pid == x->pid &&
			      f->sy[k].dev == x->dev))
				flush_of_any(&f->sy[k], x);
}

/* The writeback state of run r: the flushers' bursts, and with meminfo's
 * Dirty, its peaks, the devices' idle time while dirty, the longest
 * synchronous writer (the process that waited longest on its synchronous
 * writes queued together, with the flushes its sync waited for; the
 * devices' idle time while dirty before it, and the dirty data made
 * before it) and the cost (s). NULL when the run has neither Dirty nor
 * bursts nor vmstat rows. */
static void *wb_end(const struct an_run *r, void *state)
{
	const struct rundata *rd = &r->rd;
	struct wb_fold *f = state;
	struct wb_state *s = f->s;

	if (f->nw) {
		s->burst_mb = f->total_mb / s->bursts;
		s->burst_every_s = s->bursts > 1 ? (double)(f->last_start -
							    f->first_start) /
				   1e9 / (s->bursts - 1) : 0;
	}
	if (!rd->dirty_kb.n) {
		free(f);
		/* a trace and a vmstat log: the bursts are the evidence */
		if (s->bursts < 2 && !rd->nvm) {
			free(s);
			return NULL;
		}
		return s;
	}
	read_clock(f, INT64_MAX);
	s->has_meminfo = 1;
	dirty_peaks(s, rd);
	if (rd->t1 > rd->t0)
		s->idle_dirty_s = idle_dirty(f, rd->t0, busy_pt(f, rd->t0), rd->t1,
					     busy_pt(f, rd->t1), &s->longest_idle_s,
					     &s->longest_at_s);
	for (size_t k = 0; k < f->nsy; k++) {
		struct wb_sync *w = &f->sy[k];
		double wait;
		int64_t lo;
		if (!w->n || w->over * 2 < w->n)
			continue;
		wait = ta_run_end(w->have_cut ? &w->cut : &w->u);
		if (wait <= s->sync_wait_s)
			continue;
		s->pid = w->pid;
		s->sync_wait_s = wait;
		s->sync_mb = w->mb;
		s->sync_from_s = rundata_at_s(rd, w->first);
		lo = rd->t0 < w->first ? rd->t0 : w->first;
		s->idle_before_s = idle_dirty(f, lo, lo == w->first ? w->b_first :
					      busy_pt(f, lo), w->first, w->b_first,
					      NULL, NULL);
		s->dirty_rise_mb = dirty_rise(rd, w->first);
	}
	s->throttle_s = rd->t1 > rd->t0 ? throttled(rd, rd->t0, rd->t1) : 0;
	/* what the synchronous writes cost beyond writeback that could have
	 * run in the idle time: only as far as they wrote dirty data (the
	 * dirty total rose by as much before: not O_DIRECT) */
	if (s->sync_wait_s > 0 && s->sync_mb > 0 &&
	    s->dirty_rise_mb >= 0.5 * s->sync_mb) {
		double part = fmin(1, s->dirty_rise_mb / s->sync_mb);
		s->cost_s = fmin(s->idle_before_s, s->sync_wait_s) * part;
	}
	s->cost_s += s->throttle_s;
	free(f->win);
	free(f->pts);
	free(f->bv);
	free(f->sy);
	free(f);
	return s;
}

static int wb_finding(const struct an_run *r, const void *state,
		      struct finding *f)
{
	const struct wb_state *s = state;
	const struct rundata *rd = &r->rd;
	char who[48] = "";
	int waited;     /* a trace and a vmstat log: the critical path's
			 * window began where the writer dirtied pages, and
			 * the workload then waited writing them (critpath.c,
			 * dirtying_since) */

	if (s->pid)
		an_proc_name(r, s->pid, who, sizeof(who));
	f->present = (s->dirty_peak_mb > DIRTY_MB &&
		      (s->idle_dirty_s > 0.05 || s->throttle_s > 0)) ||
		     (s->bursts >= 3 && s->burst_idle_s >= 1 &&
		      s->burst_mb >= 0.5) ||
		     r->cp.cat[CP_WRITEBACK] >= FD_MIN_S;
	f->cost_s = s->cost_s;
	f->counterfactual = 1;
	if (s->pid && s->cost_s > s->throttle_s && s->sync_wait_s < 0.01)
		/* its own writes took no time: it waited for the flushers'
		 * (a sync), which "waited 0.00 s" misread */
		snprintf(f->title, sizeof(f->title), "writeback: the devices "
			 "idled %.2f s with dirty data that %s then waited to "
			 "have written (%.60s)", s->idle_before_s, who, s->limits);
	else if (s->pid && s->cost_s > s->throttle_s)
		snprintf(f->title, sizeof(f->title), "writeback: %s waited %.2f s "
			 "writing dirty data synchronously after the devices "
			 "idled %.2f s with it (%.60s)", who, s->sync_wait_s,
			 s->idle_before_s, s->limits);
	else if (s->bursts >= 3 && s->burst_idle_s >= 1 && s->burst_mb >= 0.5 &&
		 s->idle_dirty_s < 0.05 && r->cp.idle_dirty_s < 0.05)
		/* between bursts the flushers queued nothing; whether the
		 * devices idled then (what was queued, or a reader's I/O,
		 * may have kept them busy) the gaps alone do not say */
		snprintf(f->title, sizeof(f->title), "writeback: the flushers "
			 "queued writes in %d bursts of %.1f MB every %.1f s, "
			 "none queued %.1f s between them (%.60s)", s->bursts,
			 s->burst_mb, s->burst_every_s, s->burst_idle_s, s->limits);
	else if (r->cp.dirtying_first && s->idle_dirty_s < 0.05 &&
		 r->cp.idle_dirty_s < 0.05) {
		/* a trace and a frozen vmstat log: the window starts where
		 * the writer dirtied pages; the first write went out at */
		size_t j = 0;
		while (j < r->cp.nbin && r->cp.bin[j].wb_mb < 0.5 &&
		       !r->cp.bin[j].sync_mb)
			j++;
		snprintf(f->title, sizeof(f->title), "writeback: nothing was "
			 "written back for %.2f s after the writer began dirtying "
			 "pages; the workload then waited %.2f s for its data "
			 "(%.60s)", (double)j * (double)r->cp.bin_ns / 1e9,
			 r->cp.cat[CP_WRITEBACK], s->limits);
	} else if (!s->has_meminfo)
		/* no Dirty sampled: "over 8 MB was dirty" said what no sample
		 * showed; the critical path inferred the data pending */
		snprintf(f->title, sizeof(f->title), "writeback: the devices idled "
			 "%.2f s with dirty data pending, inferred (no Dirty sampled) "
			 "(%.60s)", r->cp.idle_dirty_s, s->limits);
	else
		snprintf(f->title, sizeof(f->title), "writeback: the devices idled "
			 "%.2f s while over 8 MB was dirty (%.60s)", s->idle_dirty_s > 0 ?
			 s->idle_dirty_s : r->cp.idle_dirty_s,
			 s->limits);
	snprintf(f->cost_of, sizeof(f->cost_of), "%s", s->pid ?
		 "the writer's elapsed time" : "writers' elapsed time");
	waited = !s->has_meminfo && r->cp.dirtying_first &&
		 r->cp.cat[CP_WRITEBACK] >= FD_MIN_S;
	if (waited)
		FD_CAT(f, how, "the workload's time from when its writer began "
		       "dirtying pages (the samples' first interval with nothing "
		       "written out, before its first traced I/O) to the first "
		       "write that went out, the devices idle: the time its later "
		       "waits for that data would have been shorter had writeback "
		       "started there");
	else
		FD_CAT(f, how, "had writeback run while the devices idled with "
		       "dirty data, the synchronous writes of that data (fsync, "
		       "sync) and the flushes they waited for would have waited "
		       "up to that much less: the smaller of the idle time before "
		       "them and their wait, times the share of their bytes the "
		       "dirty total had risen by before them (O_DIRECT writes "
		       "leave nothing dirty)");
	/* report's cost is the critical path's category: its part off the
	 * traced I/O, when there is one, is said too, or the cost is more
	 * than the sentence above gives */
	if (!waited && r->cp.cat[CP_WRITEBACK] - r->cp.wb_sync_s >= FD_MIN_S)
		FD_CAT(f, how, "; and %.2f s of the workload's time off its "
		       "traced I/O that it was held (%s) while the flushers "
		       "wrote or its syncs waited, up to the devices' idle time "
		       "with dirty data that the synchronous writes' part left "
		       "(%.2f s)",
		       r->cp.cat[CP_WRITEBACK] - r->cp.wb_sync_s, r->cp.measured ?
		       "the kernel's delay accounting" : "vmstat's blocked tasks",
		       r->cp.idle_dirty_s);
	if (s->throttle_s > 0)
		FD_CAT(f, how, "; plus %.2f s with dirty data over the throttling "
		       "point (writers sleep in balance_dirty_pages)", s->throttle_s);
	FD_CAT(f, how, ".");
	if (s->has_meminfo)
		FD_CAT(f, evidence, "dirty (system-wide) peaked at %.1f MB, "
		       "writeback at %.1f MB; the devices idled %.2f s of the "
		       "elapsed time while over 8 MB was dirty (longest %.2f s at "
		       "%+.2f s); ", s->dirty_peak_mb, s->wb_peak_mb,
		       s->idle_dirty_s, s->longest_idle_s, s->longest_at_s);
	FD_CAT(f, evidence, "%s", s->limits);
	if (s->bursts)
		FD_CAT(f, evidence, "; the trace's asynchronous writes (the "
		       "flushers') were queued in %d burst%s (a gap of 0.2 s or more "
		       "between two), %.1f MB each, %s%.1f s between them with "
		       "none",
		       s->bursts, s->bursts == 1 ? "" : "s", s->burst_mb,
		       s->bursts > 1 ? "one every " : "", s->bursts > 1 ?
		       s->burst_every_s : 0);
	if (s->bursts > 1)
		FD_CAT(f, evidence, " (%.1f s in all)", s->burst_idle_s);
	if (isfinite(s->bo_max))
		FD_CAT(f, evidence, "; vmstat bo (machine-wide) between %.0f and "
		       "%.0f kB/s, swinging %d time%s from over half its peak to "
		       "under a quarter or back", s->bo_min, s->bo_max, s->bo_swings,
		       s->bo_swings == 1 ? "" : "s");
	if (s->pid)
		FD_CAT(f, evidence, "; %s's synchronous writes from %+.2f s: %.1f "
		       "MB, waited %.2f s with the flushes they waited for; dirty "
		       "rose %.1f MB before them, the devices idling %.2f s of "
		       "that time", who, s->sync_from_s, s->sync_mb, s->sync_wait_s,
		       s->dirty_rise_mb, s->idle_before_s);
	FD_CAT(f, evidence, ".");
	f->lo_s = rundata_at_s(rd, rd->t0);
	f->hi_s = rundata_at_s(rd, rd->t1);
	f->victim_pid = s->pid;
	f->stages = 1u << TA_D2C;
	f->conf = s->has_meminfo ? (s->cost_s > 0 ? FD_MEDIUM : FD_LOW) :
		  s->bursts >= 2 || waited ? FD_LOW : FD_NONE;
	FD_CAT(f, why, "%s", s->has_meminfo ? "Dirty and Writeback are sampled "
	       "system-wide (other processes' dirty data counts) every sample "
	       "interval" : waited ? "without meminfo samples the dirty data is "
	       "inferred: the writer's pages went into the page cache before "
	       "the first write-back (vmstat: nothing read then) and out only "
	       "when the workload waited for them" : "without meminfo samples "
	       "the dirty data is inferred: what a burst wrote waited dirty in "
	       "the gap before it");
	if (f->present && s->cost_s < 0.001 && !waited)
		FD_CAT(f, why, "; no process then waited writing that data in the "
		       "run (it was written later, or not by a waiting process)");
	return 1;
}

static void wb_emit(struct emit *e, const void *state)
{
	const struct wb_state *s = state;

	emit_num(e, "dirty_peak_mb", s->dirty_peak_mb);
	emit_num(e, "writeback_peak_mb", s->wb_peak_mb);
	emit_num(e, "idle_dirty_s", s->idle_dirty_s);
	emit_num(e, "longest_idle_dirty_s", s->longest_idle_s);
	emit_u64(e, "sync_writer_pid", s->pid);
	emit_num(e, "sync_wait_s", s->sync_wait_s);
	emit_num(e, "sync_mb", s->sync_mb);
	emit_num(e, "idle_before_sync_s", s->idle_before_s);
	emit_num(e, "dirty_rise_mb", s->dirty_rise_mb);
	emit_num(e, "throttle_s", s->throttle_s);
	emit_num(e, "cost_s", s->cost_s);
	emit_u64(e, "bursts", (uint64_t)s->bursts);
	emit_num(e, "burst_mb", s->burst_mb);
	emit_num(e, "burst_every_s", s->burst_every_s);
	emit_num(e, "burst_idle_s", s->burst_idle_s);
	emit_u64(e, "bo_swings", (uint64_t)s->bo_swings);
	emit_str(e, "limits", s->limits);
}

static void wb_release(void *state)
{
	free(state);
}

/* In compare: when both runs wrote as much but one wrote more of it in
 * the workload's time (critpath_diff()'s writes_moved), that part of the
 * device's difference is data written back at another time: the pause's
 * background writeback in one run, the workload's sync or fsync in the
 * other. */
static double wb_mix(const struct cp_diff *d)
{
	return d->writes_moved * (d->volume_s[1] + d->mix_s[1]);
}

/* The title when wb_mix() is most of the cost: the data written back in
 * the one run's timed commands and outside the other's. */
static void wb_mix_title(const struct cp_diff *d, const struct an_run *x,
			 const struct an_run *y, struct finding *f)
{
	double bx = x->cp.win_write_bytes, by = y->cp.win_write_bytes;
	double moved = d->writes_moved * fabs(by - bx);
	const struct an_run *in, *out;

	in = by >= bx ? y : x;
	out = by >= bx ? x : y;
	double wx = x->cp.run_write_bytes, wy = y->cp.run_write_bytes;
	char all[48];

	if (fabs(wx - wy) <= 0.05 * fmax(wx, wy))
		snprintf(all, sizeof(all), "each run wrote %.1f MB in all", wy / 1e6);
	else
		snprintf(all, sizeof(all), "%.1f MB in all, against %.1f MB",
			 (in == y ? wy : wx) / 1e6, (in == y ? wx : wy) / 1e6);
	snprintf(f->title, sizeof(f->title), "writeback: %.1f MB written during "
		 "%.20s's commands asked about that %.20s wrote back at another "
		 "time (%s)", moved / 1e6, in->rd.rv->name, out->rd.rv->name, all);
}

const struct analyzer an_writeback = {
	.name = "writeback",
	.fold_begin = wb_begin,
	.fold_ev = wb_ev,
	.fold_end = wb_end,
	.fold_kinds = 1u << FOLD_ROW | 1u << EV_Q | 1u << EV_D,
	.finding = wb_finding,
	.emit = wb_emit,
	.release = wb_release,
	.cats = 1u << CP_WRITEBACK,
	.mix_cost = wb_mix,
	.mix_title = wb_mix_title,
	.mix_how = "the same data written in both runs, more of it in the "
		   "workload's time in one (written back at another time in "
		   "the other): its part of the device's difference",
	.definitions =
"writeback: idle time is sampled time with Dirty over 8 MB and no request\n"
"  at any traced device (D to C). Cost: for the process that waited longest\n"
"  on its synchronous writes (S: fsync, sync, O_SYNC) and the flushes\n"
"  queued meanwhile, the smaller of that wait and the idle-while-dirty\n"
"  time before it, times the share of its bytes by which Dirty + Writeback\n"
"  had risen since the start (at least half of them: else, and when\n"
"  most were queued only after the one before completed, they were O_DIRECT\n"
"  writes, not dirty data); plus the time dirty\n"
"  data stood over the throttling point ((dirty_background_threshold +\n"
"  dirty_threshold) / 2 from /proc/vmstat).\n",
};
