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
#include "analyze/rsort.h"
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

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The flushers' write bursts (writeback from the trace alone: DESIGN.md):
 * asynchronous writes (no S, FUA or flush) by time, a new burst after a
 * gap of BURST_GAP; the gaps between bursts are time the written data
 * waited dirty. And vmstat's bo: how often it swung from high to low. */
static void bursts(struct wb_state *s, const struct rundata *rd)
{
	int64_t *t = NULL, lo = rd->t0, hi = rd->t1 > rd->t0 ? rd->t1 : INT64_MAX;
	double *mb = NULL, total = 0;
	size_t n = 0, cap = 0;
	int64_t first_start = 0, last_start = 0, prev = 0;
	int state = 0;

	for (size_t i = 0; i < rd->n; i++) {
		uint32_t f = rundata_flags(rd, i);
		int64_t q = rundata_q(rd, i);
		if (!(f & AN_WRITE) || (f & (AN_SYNC | AN_FUA | AN_FLUSH)) ||
		    q == AN_NONE || q < lo || q > hi || !rundata_bytes(rd, i))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			t = xrealloc(t, cap * sizeof(*t));
		}
		t[n++] = q;
		total += rundata_bytes(rd, i) / 1e6;
	}
	(void)mb;
	if (n) {
		qsort(t, n, sizeof(*t), cmp_i64);
		s->bursts = 1;
		first_start = last_start = prev = t[0];
		for (size_t i = 1; i < n; i++) {
			if (t[i] - prev >= BURST_GAP) {
				s->bursts++;
				s->burst_idle_s += (double)(t[i] - prev) / 1e9;
				last_start = t[i];
			}
			prev = t[i];
		}
		s->burst_mb = total / s->bursts;
		s->burst_every_s = s->bursts > 1 ? (double)(last_start - first_start) /
				   1e9 / (s->bursts - 1) : 0;
	}
	free(t);
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

static uint64_t key_a(const void *p)
{
	return rsort_tkey(((const struct ta_iv *)p)->a);
}

/* Dirty + Writeback in MB at t. */
static double dirty_mb(const struct rundata *rd, int64_t t)
{
	double d = series_at(&rd->dirty_kb, t), w = series_at(&rd->writeback_kb, t);
	return ((isfinite(d) ? d : 0) + (isfinite(w) ? w : 0)) * 1024 / 1e6;
}

/* Idle time of every traced device while dirty data was over DIRTY_MB
 * within [lo, hi]; busy holds the merged [D, C] intervals. */
static double idle_dirty(const struct rundata *rd, const struct ta_iv *busy,
			 size_t nb, int64_t lo, int64_t hi, double *longest,
			 double *longest_at)
{
	const struct an_series *s = &rd->dirty_kb;
	double idle = 0, lim = DIRTY_MB * 1e6 / 1024;

	for (size_t i = 1; i < s->n; i++) {
		int64_t a = s->t[i - 1], b = s->t[i];
		double va = s->v[i - 1], vb = s->v[i], gap;
		/* the part of the interval over the limit, between samples
		 * linearly */
		if (va <= lim && vb <= lim)
			continue;
		if (va <= lim)
			a += (int64_t)((double)(b - a) * (lim - va) / (vb - va));
		else if (vb <= lim)
			b = a + (int64_t)((double)(b - a) * (va - lim) / (va - vb));
		if (a < lo)
			a = lo;
		if (b > hi)
			b = hi;
		if (b <= a)
			continue;
		gap = (double)(b - a) / 1e9 - ta_overlap_s(busy, nb, a, b);
		idle += gap;
		if (longest && gap > *longest) {
			*longest = gap;
			*longest_at = rundata_at_s(rd, a);
		}
	}
	return idle;
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

/* The dispatched requests' [D, C] of rd into busy (room for rd->n),
 * merged; returns how many. */
static size_t busy_intervals(const struct rundata *rd, struct ta_iv *busy)
{
	size_t nb = 0;

	for (size_t i = 0; i < rd->n; i++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, i, &xb);
		if ((x->flags & AN_HEAD) && x->d != AN_NONE && x->c != AN_NONE &&
		    x->c > x->d)
			busy[nb++] = (struct ta_iv){ x->d, x->c };
	}
	return ta_merge(busy, nb);
}

/* Process row t's synchronous data writes (in the run's order) as [Q, C]
 * into iv; *mb their MB, *first their first Q, *last their last C (ns).
 * Returns how many. */
static size_t sync_writes(const struct an_run *r, const struct ta_row *t,
			  struct ta_iv *iv, double *mb, int64_t *first,
			  int64_t *last)
{
	const struct rundata *rd = &r->rd;
	size_t n = 0;

	for (size_t k2 = 0; k2 < t->nbio; k2++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, r->ta.bio[t->bio_first +
						k2], &xb);
		if (x->c == AN_NONE || x->c < x->q || !x->bytes ||
		    (x->flags & (AN_WRITE | AN_SYNC)) != (AN_WRITE | AN_SYNC))
			continue;
		iv[n++] = (struct ta_iv){ x->q, x->c };
		*mb += x->bytes / 1e6;
		if (x->q < *first)
			*first = x->q;
		if (x->c > *last)
			*last = x->c;
	}
	return n;
}

/* Whether writes iv[0..n) (sorted here by Q) were queued together, at
 * least half of them while an earlier one was in flight: writeback of
 * dirty pages queues many bios at once (fsync plugs them); a process
 * writing O_DIRECT one at a time queues each after the last completed.
 * Returns 1 or 0. */
static int queued_together(struct ta_iv *iv, size_t n)
{
	size_t over = 0;
	int64_t hi = INT64_MIN;

	radix_sort(iv, n, sizeof(*iv), key_a);
	for (size_t i = 0; i < n; i++) {
		over += iv[i].a < hi;
		if (iv[i].b > hi)
			hi = iv[i].b;
	}
	return over * 2 >= n;
}

/* Appends to iv[0..n) the flushes and FUA writes of any process (journal
 * commits, cache flushes) queued from first to 50 ms after last (ns), as
 * [Q, C]; returns the new count. */
static size_t add_flushes(const struct rundata *rd, struct ta_iv *iv,
			  size_t n, int64_t first, int64_t last)
{
	for (size_t i = 0; i < rd->n; i++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, i, &xb);
		if ((x->flags & (AN_FLUSH | AN_FUA)) && x->q != AN_NONE &&
		    x->c != AN_NONE && x->c >= x->q && x->q >= first &&
		    x->q <= last + 50000000)
			iv[n++] = (struct ta_iv){ x->q, x->c };
	}
	return n;
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

/* The process that waited longest on synchronous writes into s: each
 * process's synchronous data writes queued together, and the flushes
 * (journal commits, cache flushes of any process) that its sync waited
 * for, those queued from its first sync write to 50 ms after its last;
 * its wait (their union, s), MB, start, the devices' idle time while
 * dirty before it (busy[0..nb): merged [D, C]) and the dirty data made
 * before it. iv has room for every row of the run. */
static void sync_waiter(struct wb_state *s, const struct an_run *r,
			const struct ta_iv *busy, size_t nb, struct ta_iv *iv)
{
	const struct rundata *rd = &r->rd;

	for (size_t k = 0; k < r->ta.nrows; k++) {
		const struct ta_row *t = &r->ta.rows[k];
		size_t n;
		double mb = 0, wait;
		int64_t first = INT64_MAX, last = INT64_MIN;
		if (t->role[0] || !t->wr_bytes)
			continue;
		n = sync_writes(r, t, iv, &mb, &first, &last);
		if (!n || !queued_together(iv, n))
			continue;
		n = add_flushes(rd, iv, n, first, last);
		wait = ta_union_s(iv, n);
		if (wait <= s->sync_wait_s)
			continue;
		s->pid = t->pid;
		s->sync_wait_s = wait;
		s->sync_mb = mb;
		s->sync_from_s = rundata_at_s(rd, first);
		s->idle_before_s = idle_dirty(rd, busy, nb, rd->t0 < first ?
					      rd->t0 : first, first, NULL, NULL);
		s->dirty_rise_mb = dirty_rise(rd, first);
	}
}

/* The writeback state of run r: the flushers' bursts, and with meminfo's
 * Dirty, its peaks, the devices' idle time while dirty, the longest
 * synchronous writer and the cost (s). NULL when the run has neither
 * Dirty nor bursts nor vmstat rows. */
static void *wb_build(const struct an_run *r)
{
	const struct rundata *rd = &r->rd;
	struct wb_state *s;
	struct ta_iv *busy, *iv;
	size_t nb;

	s = xcalloc(1, sizeof(*s));
	an_dirty_limits(rd, s->limits, sizeof(s->limits));
	bursts(s, rd);
	if (!rd->dirty_kb.n) {
		/* a trace and a vmstat log: the bursts are the evidence */
		if (s->bursts < 2 && !rd->nvm) {
			free(s);
			return NULL;
		}
		return s;
	}
	s->has_meminfo = 1;
	dirty_peaks(s, rd);
	busy = xmalloc((rd->n ? rd->n : 1) * sizeof(*busy));
	iv = xmalloc((rd->n ? rd->n : 1) * sizeof(*iv));
	nb = busy_intervals(rd, busy);
	if (rd->t1 > rd->t0)
		s->idle_dirty_s = idle_dirty(rd, busy, nb, rd->t0, rd->t1,
					     &s->longest_idle_s,
					     &s->longest_at_s);
	sync_waiter(s, r, busy, nb, iv);
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
	free(iv);
	free(busy);
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
	} else
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
	       "inferred: the writer's pages went into the page cache (vmstat: "
	       "nothing read, no bo) and out only when the workload waited for "
	       "them" : "without meminfo samples the dirty data is inferred: "
	       "what a burst wrote waited dirty in the gap before it");
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
	.build = wb_build,
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
