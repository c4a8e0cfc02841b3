/* fairness: processes that each kept I/O queued on one device, and how the
 * device's throughput was shared while they all did. Cost: how much later
 * the most slowed process finished than at an equal share of the window's
 * throughput (and its own rate after the window). A process that did not
 * keep I/O queued (rate-limited, thinking) does not compete and is not
 * starved. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

#define MAX_COMP 16
#define BOUND_FRAC 0.5        /* had I/O outstanding half its active time */
#define SHARE_MIN 0.05        /* of the device's bytes */

struct comp {
	uint32_t pid;
	double busy_frac;         /* waited / active span */
	double rate_mb_s;         /* in the window */
	double after_mb_s;        /* after it, while it still had I/O */
	double starve_s, starve_at_s;
	double i2d_s;             /* waited in the scheduler queue (I2D) */
	double bytes_mb;
};

struct fair_dev {
	uint32_t dev;
	int ncomp, nbound;        /* processes with a share; of them I/O-bound */
	struct comp c[MAX_COMP];  /* the I/O-bound ones first */
	double w0_s, w1_s;        /* the window, s from the run's start */
	double jain;
	int slow;                 /* index of the most slowed, -1 */
	double deficit_mb, cost_s;
	double eq_finish_s;       /* the slowed one's finish at an equal share,
				   * s after the window's start */
};

struct fair_state {
	struct fair_dev *d;
	int n, worst;
};

/* starvation()'s merge keeps the bios of one process with a Q and data */
struct pev_ctx {
	const struct rundata *rd;
	uint32_t pid;
};

static int keep_pid(const void *ctx, uint32_t i, int rank)
{
	const struct pev_ctx *c = ctx;

	(void)rank;
	return rundata_pid(c->rd, i) == c->pid && rundata_bytes(c->rd, i) &&
	       rundata_q(c->rd, i) != AN_NONE;
}

/* The longest stretch with I/O of pid on dev queued and none completing:
 * its bios' Q and C (at the run's end when never completed) by time, at
 * one time by bio, a bio's Q before its C. */
static void starvation(const struct an_run *r, uint32_t pid, uint32_t dev,
		       struct comp *c)
{
	const struct rundata *rd = &r->rd;
	size_t dk = (size_t)rundata_dev_index(rd, dev);
	size_t i0 = rd->dev_first[dk], i1 = rd->dev_first[dk + 1], nn = 0, cap = 0;
	uint32_t *never = NULL, ev;
	struct pev_ctx ctx = { rd, pid };
	struct ev_it it[3];
	struct ev_merge m;
	int out = 0, kind;
	int64_t open_at = 0, end = rd->t1 > 0 ? rd->t1 : rd->rv->last_ns, t;

	for (size_t i = i0; i < i1; i++)
		if (rundata_c(rd, i) == AN_NONE && keep_pid(&ctx, (uint32_t)i, 0)) {
			if (nn == cap) {
				cap = cap ? 2 * cap : 16;
				never = xrealloc(never, cap * sizeof(*never));
			}
			never[nn++] = (uint32_t)i;
		}
	ev_it_init(&it[0], &r->ord, dk, EV_Q);
	ev_it_init(&it[1], &r->ord, dk, EV_C);
	ev_it_fixed(&it[2], rd, never, nn, end);
	ev_merge_init(&m, it, 3, keep_pid, &ctx);
	while (ev_merge_next(&m, &ev, &t, &kind)) {
		if (!kind) {
			if (out++ == 0)
				open_at = t;
			continue;
		}
		if ((double)(t - open_at) / 1e9 > c->starve_s) {
			c->starve_s = (double)(t - open_at) / 1e9;
			c->starve_at_s = rundata_at_s(rd, open_at);
		}
		open_at = t;
		out--;
	}
	free(never);
}

/* Bytes of pid on dev completed in [lo, hi). */
static double done_mb(const struct rundata *rd, uint32_t pid, uint32_t dev,
		      int64_t lo, int64_t hi)
{
	size_t dk = (size_t)rundata_dev_index(rd, dev);
	double b = 0;

	for (size_t i = rd->dev_first[dk]; i < rd->dev_first[dk + 1]; i++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, i, &xb);
		if (x->pid == pid && x->dev == dev && x->q != AN_NONE &&
		    x->c != AN_NONE && x->c >= lo && x->c < hi)
			b += x->bytes;
	}
	return b / 1e6;
}

static int cmp_comp(const void *a, const void *b)
{
	const struct comp *x = a, *y = b;
	int bx = x->busy_frac >= BOUND_FRAC, by = y->busy_frac >= BOUND_FRAC;
	if (bx != by)
		return by - bx;
	return (x->bytes_mb < y->bytes_mb) - (x->bytes_mb > y->bytes_mb);
}

static void one_dev(const struct an_run *r, struct fair_dev *fd)
{
	const struct rundata *rd = &r->rd;
	const struct timeacct *ta = &r->ta;
	double dev_mb = 0, sum = 0, sum2 = 0, req;
	int64_t w0 = INT64_MIN, w1 = INT64_MAX;

	fd->slow = -1;
	for (size_t i = 0; i < ta->nrows; i++)
		if (ta->rows[i].dev == fd->dev)
			dev_mb += (double)ta->rows[i].bytes / 1e6;
	for (size_t i = 0; i < ta->nrows && fd->ncomp < MAX_COMP; i++) {
		const struct ta_row *t = &ta->rows[i];
		struct comp *c;
		double span = (double)(t->last_c - t->first_q) / 1e9;
		if (t->dev != fd->dev || t->role[0] ||
		    (double)t->bytes / 1e6 < SHARE_MIN * dev_mb)
			continue;
		c = &fd->c[fd->ncomp++];
		c->pid = t->pid;
		c->bytes_mb = (double)t->bytes / 1e6;
		c->busy_frac = span > 0 ? t->waited_s / span : 0;
		c->i2d_s = ta_stage_waited_s(t, TA_I2D) + ta_stage_waited_s(t, TA_Q2G);
		starvation(r, t->pid, t->dev, c);
	}
	qsort(fd->c, (size_t)fd->ncomp, sizeof(fd->c[0]), cmp_comp);
	for (int k = 0; k < fd->ncomp && fd->c[k].busy_frac >= BOUND_FRAC; k++)
		fd->nbound++;
	if (fd->nbound < 2)
		return;
	for (int k = 0; k < fd->nbound; k++) {
		const struct ta_row *t = timeacct_row(ta, fd->c[k].pid, fd->dev);
		if (t->first_q > w0)
			w0 = t->first_q;
		if (t->last_c < w1)
			w1 = t->last_c;
	}
	if (w1 - w0 < 50000000)
		return;      /* they hardly overlapped */
	fd->w0_s = rundata_at_s(rd, w0);
	fd->w1_s = rundata_at_s(rd, w1);
	for (int k = 0; k < fd->nbound; k++) {
		struct comp *c = &fd->c[k];
		c->rate_mb_s = done_mb(rd, c->pid, fd->dev, w0, w1) /
			       ((double)(w1 - w0) / 1e9);
		sum += c->rate_mb_s;
		sum2 += c->rate_mb_s * c->rate_mb_s;
	}
	fd->jain = sum2 > 0 ? sum * sum / ((double)fd->nbound * sum2) : 1;
	req = sum / fd->nbound;
	/* each one's finish at an equal share of the window, then at the
	 * rate it got after it: the bytes it completed from the window's
	 * start at req MB/s, the rest at its after-window rate */
	for (int k = 0; k < fd->nbound; k++) {
		struct comp *c = &fd->c[k];
		const struct ta_row *t = timeacct_row(ta, c->pid, fd->dev);
		double win = (double)(w1 - w0) / 1e9;
		double after = (double)(t->last_c - w1) / 1e9;
		double left = done_mb(rd, c->pid, fd->dev, w0, t->last_c + 1);
		double finish, actual = (double)(t->last_c - w0) / 1e9, cost;
		if (after > 0.01)
			c->after_mb_s = done_mb(rd, c->pid, fd->dev, w1,
						t->last_c + 1) / after;
		if (c->rate_mb_s >= req || req <= 0)
			continue;
		/* held back, not merely asking for less (rate-limited, time-
		 * based): it sped up once the window closed, or waited mostly
		 * in the scheduler queue while the others were served */
		if (!(c->after_mb_s > 2 * c->rate_mb_s) &&
		    !(c->i2d_s > 0.5 * t->waited_s))
			continue;
		if (left <= req * win)
			finish = left / req;
		else if (c->after_mb_s > 0)
			finish = win + (left - req * win) / c->after_mb_s;
		else
			continue;
		cost = actual - finish;
		if (cost > fd->cost_s) {
			fd->cost_s = cost;
			fd->deficit_mb = (req - c->rate_mb_s) * win;
			if (fd->deficit_mb > left)
				fd->deficit_mb = left;
			fd->eq_finish_s = finish;
			fd->slow = k;
		}
	}
}

static void *fair_build(const struct an_run *r)
{
	struct fair_state *s;

	if (!r->rd.n || !r->ta.ndev)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->d = xcalloc(r->ta.ndev, sizeof(*s->d));
	for (size_t k = 0; k < r->ta.ndev; k++) {
		struct fair_dev *fd = &s->d[s->n++];
		fd->dev = r->ta.devs[k].dev;
		one_dev(r, fd);
		if (fd->cost_s > s->d[s->worst].cost_s ||
		    (!s->d[s->worst].nbound && fd->nbound))
			s->worst = s->n - 1;
	}
	return s;
}

static int fair_finding(const struct an_run *r, const void *state,
			struct finding *f)
{
	const struct fair_state *s = state;
	const struct fair_dev *d = &s->d[s->worst];
	char dev[16], who[48], other[48];

	an_dev_name(d->dev, dev, sizeof(dev));
	if (d->nbound < 2 || d->w1_s <= d->w0_s) {
		snprintf(f->title, sizeof(f->title), "fairness: fewer than two "
			 "processes kept I/O queued on %s at once", dev);
		return 1;          /* not present */
	}
	f->present = d->slow >= 0 && d->jain < 0.85;
	if (d->slow < 0) {
		snprintf(f->title, sizeof(f->title), "fairness: %d processes "
			 "shared %s equally (Jain's index %.2f)", d->nbound, dev,
			 d->jain);
	} else {
		const struct comp *c = &d->c[d->slow];
		const struct comp *o = &d->c[d->slow == 0 ? 1 : 0];
		double tot = 0;
		for (int k = 0; k < d->nbound; k++)
			tot += d->c[k].rate_mb_s;
		an_proc_name(r, c->pid, who, sizeof(who));
		an_proc_name(r, o->pid, other, sizeof(other));
		snprintf(f->title, sizeof(f->title), "fairness: %s got %.0f%% of %s "
			 "while %s got %.0f%%, both with I/O queued", who,
			 tot > 0 ? 100 * c->rate_mb_s / tot : 0, dev, other,
			 tot > 0 ? 100 * o->rate_mb_s / tot : 0);
		f->cost_s = d->cost_s;
		snprintf(f->cost_of, sizeof(f->cost_of), "%s's elapsed time", who);
		f->victim_pid = c->pid;
		f->stages = 1u << TA_I2D | 1u << TA_Q2G;
		FD_CAT(f, how, "at an equal share of %s while the %d processes all "
		       "had I/O (%.1f MB/s each, not %.1f) %s would have finished "
		       "%.2f s after the window opened, not %.2f s: its bytes from "
		       "then at the equal share, and what an equal share leaves "
		       "after the window at the %.1f MB/s it got then.", dev,
		       d->nbound, tot / d->nbound, c->rate_mb_s, who, d->eq_finish_s,
		       d->eq_finish_s + d->cost_s, c->after_mb_s);
		f->conf = d->deficit_mb > 10 && d->w1_s - d->w0_s > 0.2 ? FD_HIGH
								  : FD_MEDIUM;
		FD_CAT(f, why, "both processes kept I/O queued (%.0f%% and %.0f%% "
		       "of their active time) while %s was served %.1f times "
		       "faster; %s waited %.2f s in the scheduler queue (Q2G + "
		       "I2D)", 100 * c->busy_frac, 100 * o->busy_frac, other,
		       c->rate_mb_s > 0 ? o->rate_mb_s / c->rate_mb_s : INFINITY,
		       who, c->i2d_s);
	}
	f->counterfactual = 1;
	f->lo_s = d->w0_s;
	f->hi_s = d->w1_s;
	FD_CAT(f, evidence, "on %s from %+.2f to %+.2f s (all %d kept I/O queued), "
	       "Jain's index %.2f over their MB/s:", dev, d->w0_s, d->w1_s,
	       d->nbound, d->jain);
	for (int k = 0; k < d->ncomp && k < 4; k++) {
		const struct comp *c = &d->c[k];
		an_proc_name(r, c->pid, who, sizeof(who));
		FD_CAT(f, evidence, " %s %.1f MB/s, I/O queued %.0f%% of its active "
		       "time, scheduler wait %.2f s, longest starvation %.2f s at "
		       "%+.2f s%s;", who, c->rate_mb_s, 100 * c->busy_frac,
		       c->i2d_s, c->starve_s, c->starve_at_s,
		       k >= d->nbound ? " (not competing)" : "");
	}
	if (!f->why[0])
		FD_CAT(f, why, "no process below an equal share was held back: "
		       "none sped up once the others finished, none waited mostly "
		       "in the scheduler queue");
	return 1;
}

static void fair_emit(struct emit *e, const void *state)
{
	const struct fair_state *s = state;

	emit_arr_begin(e, "devices");
	for (int i = 0; i < s->n; i++) {
		const struct fair_dev *d = &s->d[i];
		char dev[16];
		an_dev_name(d->dev, dev, sizeof(dev));
		emit_obj_begin(e, NULL);
		emit_str(e, "dev", dev);
		emit_u64(e, "competing", (uint64_t)d->nbound);
		emit_num(e, "jain", d->jain);
		emit_num(e, "window_from_s", d->w0_s);
		emit_num(e, "window_to_s", d->w1_s);
		emit_num(e, "deficit_mb", d->deficit_mb);
		emit_num(e, "cost_s", d->cost_s);
		emit_arr_begin(e, "processes");
		for (int k = 0; k < d->ncomp; k++) {
			const struct comp *c = &d->c[k];
			emit_obj_begin(e, NULL);
			emit_u64(e, "pid", c->pid);
			emit_num(e, "busy_frac", c->busy_frac);
			emit_num(e, "mb_s_in_window", c->rate_mb_s);
			emit_num(e, "mb_s_after", c->after_mb_s);
			emit_num(e, "scheduler_wait_s", c->i2d_s);
			emit_num(e, "starve_s", c->starve_s);
			emit_num(e, "starve_at_s", c->starve_at_s);
			emit_obj_end(e);
		}
		emit_arr_end(e);
		emit_obj_end(e);
	}
	emit_arr_end(e);
}

static void fair_release(void *state)
{
	struct fair_state *s = state;
	free(s->d);
	free(s);
}

const struct analyzer an_fairness = {
	.name = "fairness",
	.build = fair_build,
	.finding = fair_finding,
	.emit = fair_emit,
	.release = fair_release,
	.cats = 1u << CP_FAIRNESS,
	.definitions =
"fairness: per device, the processes (kernel threads left out) with 5% of\n"
"  its bytes or more that kept I/O queued or in flight at least half of\n"
"  their active time (first Q to last C): rate-limited or thinking\n"
"  processes do not compete. The window is the time they all were active;\n"
"  Jain's index (sum x)^2 / (n sum x^2) over their MB/s in it. Cost: how\n"
"  much later the most slowed process finished than at an equal share:\n"
"  its bytes from the window's start at the window's total MB/s over n,\n"
"  and what that leaves at the MB/s it got after the window; counted only\n"
"  for a process held back (twice as fast after the window, or half its\n"
"  waiting in the scheduler queue, Q2G + I2D). Starvation:\n"
"  its longest time with I/O queued and none completing.\n",
};
