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

/* What the fold keeps of one process of a device's share (a comp): its
 * longest stretch with I/O queued and none completing, and its bytes
 * completed in the window's ranges. */
struct comp_acc {
	int out;                  /* its bios queued, not completed */
	int64_t open_at;          /* since the last Q or C that opened or
				   * moved the stretch */
	uint32_t *never;          /* its bios that never complete, by row:
				   * they end at the run's end */
	size_t nnever, capnever;
	double b_win, b_left, b_after;   /* bytes completed in [w0, w1),
					  * [w0, last C], (w1, last C] */
	int64_t last_c;
};

struct fair_fold {
	struct fair_state *s;
	const struct rundata *rd;
	int64_t end;              /* the run's end */
	int *of_dev;              /* s->d's index of each device, or -1 */
	int64_t *w0, *w1;         /* each device's window (ns) */
	int *windowed;            /* each device's comps overlapped */
	struct comp_acc (*acc)[MAX_COMP];
};

static int cmp_comp(const void *a, const void *b)
{
	const struct comp *x = a, *y = b;
	int bx = x->busy_frac >= BOUND_FRAC, by = y->busy_frac >= BOUND_FRAC;
	if (bx != by)
		return by - bx;
	return (x->bytes_mb < y->bytes_mb) - (x->bytes_mb > y->bytes_mb);
}

/* One device's comps from the time accounting (each process's share of
 * the device's bytes and how busy it kept it), the I/O-bound first, and
 * the window they all were active (*w0, *w1); returns 1 when two or more
 * were bound and overlapped (the fold then measures their rates). */
static int dev_begin(const struct an_run *r, struct fair_dev *fd,
		     int64_t *w0, int64_t *w1)
{
	const struct timeacct *ta = &r->ta;
	double dev_mb = 0;

	*w0 = INT64_MIN;
	*w1 = INT64_MAX;
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
	}
	qsort(fd->c, (size_t)fd->ncomp, sizeof(fd->c[0]), cmp_comp);
	for (int k = 0; k < fd->ncomp && fd->c[k].busy_frac >= BOUND_FRAC; k++)
		fd->nbound++;
	if (fd->nbound < 2)
		return 0;
	for (int k = 0; k < fd->nbound; k++) {
		const struct ta_row *t = timeacct_row(ta, fd->c[k].pid, fd->dev);
		if (t->first_q > *w0)
			*w0 = t->first_q;
		if (t->last_c < *w1)
			*w1 = t->last_c;
	}
	return *w1 - *w0 >= 50000000;   /* else they hardly overlapped */
}

/* A Q, C or (at the run's end, never completed) end of comp c's bios at
 * t: the longest stretch with its I/O queued and none completing
 * (starve_s, from starve_at_s). */
static void starve_at(const struct rundata *rd, struct comp *c,
		      struct comp_acc *a, int is_q, int64_t t)
{
	if (is_q) {
		if (a->out++ == 0)
			a->open_at = t;
		return;
	}
	if ((double)(t - a->open_at) / 1e9 > c->starve_s) {
		c->starve_s = (double)(t - a->open_at) / 1e9;
		c->starve_at_s = rundata_at_s(rd, a->open_at);
	}
	a->open_at = t;
	a->out--;
}

/* The ends at the run's end, before an event at (t, row) (all of them:
 * t INT64_MAX): the order a merge of the bios' Q, C and the never
 * completed at the end, by (time, row), gives. */
static void never_before(struct fair_fold *f, struct comp *c,
			 struct comp_acc *a, int64_t t, uint32_t row)
{
	size_t k = 0;

	while (k < a->nnever && (f->end < t || (f->end == t &&
						 a->never[k] < row)))
		starve_at(f->rd, c, a, 0, f->end), k++;
	if (k) {
		memmove(a->never, a->never + k, (a->nnever - k) * sizeof(*a->never));
		a->nnever -= k;
	}
}

static void *fair_begin(const struct an_run *r)
{
	const struct rundata *rd = &r->rd;
	struct fair_fold *f;
	struct fair_state *s;

	if (!rd->n || !r->ta.ndev)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->s = s = xcalloc(1, sizeof(*s));
	f->rd = rd;
	f->end = rd->t1 > 0 ? rd->t1 : rd->rv->last_ns;
	s->d = xcalloc(r->ta.ndev, sizeof(*s->d));
	f->of_dev = xmalloc((rd->ndevs ? rd->ndevs : 1) * sizeof(*f->of_dev));
	for (size_t k = 0; k < rd->ndevs; k++)
		f->of_dev[k] = -1;
	f->w0 = xcalloc(r->ta.ndev, sizeof(*f->w0));
	f->w1 = xcalloc(r->ta.ndev, sizeof(*f->w1));
	f->windowed = xcalloc(r->ta.ndev, sizeof(*f->windowed));
	f->acc = xcalloc(r->ta.ndev, sizeof(*f->acc));
	for (size_t k = 0; k < r->ta.ndev; k++) {
		struct fair_dev *fd = &s->d[s->n++];
		int dk;
		fd->dev = r->ta.devs[k].dev;
		f->windowed[k] = dev_begin(r, fd, &f->w0[k], &f->w1[k]);
		if ((dk = rundata_dev_index(rd, fd->dev)) >= 0)
			f->of_dev[dk] = (int)k;
		for (int j = 0; j < fd->ncomp; j++)
			f->acc[k][j].last_c = timeacct_row(&r->ta, fd->c[j].pid,
							   fd->dev)->last_c;
	}
	return f;
}

/* Each bio with a Q and data of a comp, at its Q and its C. */
static void fair_ev(void *state, const struct fold_ev *e)
{
	struct fair_fold *f = state;
	const struct an_io *x = e->io;
	struct fair_dev *fd;
	struct comp_acc *a;
	int k = f->of_dev[e->devk], j;

	if (k < 0 || x->q == AN_NONE)
		return;
	fd = &f->s->d[k];
	for (j = 0; j < fd->ncomp && fd->c[j].pid != x->pid; j++)
		;
	if (j == fd->ncomp)
		return;
	a = &f->acc[k][j];
	if (e->kind == EV_C && j < fd->nbound && f->windowed[k]) {
		if (x->c >= f->w0[k] && x->c < f->w1[k])
			a->b_win += x->bytes;
		if (x->c >= f->w0[k] && x->c <= a->last_c)
			a->b_left += x->bytes;
		if (x->c >= f->w1[k] && x->c <= a->last_c)
			a->b_after += x->bytes;
	}
	if (!x->bytes)
		return;
	never_before(f, &fd->c[j], a, e->t, e->row);
	starve_at(f->rd, &fd->c[j], a, e->kind == EV_Q, e->t);
	if (e->kind == EV_Q && x->c == AN_NONE) {
		size_t i = a->nnever;
		if (a->nnever == a->capnever) {
			a->capnever = a->capnever ? 2 * a->capnever : 16;
			a->never = xrealloc(a->never, a->capnever * sizeof(*a->never));
		}
		while (i && a->never[i - 1] > e->row) {
			a->never[i] = a->never[i - 1];
			i--;
		}
		a->never[i] = e->row;
		a->nnever++;
	}
}

/* Device k's rates in its window, and the cost: how much later the most
 * slowed bound comp finished than at an equal share. */
static void dev_end(struct fair_fold *f, size_t k, const struct timeacct *ta)
{
	struct fair_dev *fd = &f->s->d[k];
	int64_t w0 = f->w0[k], w1 = f->w1[k];
	double sum = 0, sum2 = 0, req;

	fd->w0_s = rundata_at_s(f->rd, w0);
	fd->w1_s = rundata_at_s(f->rd, w1);
	for (int j = 0; j < fd->nbound; j++) {
		struct comp *c = &fd->c[j];
		c->rate_mb_s = f->acc[k][j].b_win / 1e6 / ((double)(w1 - w0) / 1e9);
		sum += c->rate_mb_s;
		sum2 += c->rate_mb_s * c->rate_mb_s;
	}
	fd->jain = sum2 > 0 ? sum * sum / ((double)fd->nbound * sum2) : 1;
	req = sum / fd->nbound;
	/* each one's finish at an equal share of the window, then at the
	 * rate it got after it: the bytes it completed from the window's
	 * start at req MB/s, the rest at its after-window rate */
	for (int j = 0; j < fd->nbound; j++) {
		struct comp *c = &fd->c[j];
		const struct ta_row *t = timeacct_row(ta, c->pid, fd->dev);
		double win = (double)(w1 - w0) / 1e9;
		double after = (double)(t->last_c - w1) / 1e9;
		double left = f->acc[k][j].b_left / 1e6;
		double finish, actual = (double)(t->last_c - w0) / 1e9, cost;
		if (after > 0.01)
			c->after_mb_s = f->acc[k][j].b_after / 1e6 / after;
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
			fd->slow = j;
		}
	}
}

static void *fair_end(const struct an_run *r, void *state)
{
	struct fair_fold *f = state;
	struct fair_state *s = f->s;

	for (int k = 0; k < s->n; k++) {
		struct fair_dev *fd = &s->d[k];
		for (int j = 0; j < fd->ncomp; j++) {
			never_before(f, &fd->c[j], &f->acc[k][j], INT64_MAX, 0);
			free(f->acc[k][j].never);
		}
		if (f->windowed[k])
			dev_end(f, (size_t)k, &r->ta);
		if (fd->cost_s > s->d[s->worst].cost_s ||
		    (!s->d[s->worst].nbound && fd->nbound))
			s->worst = k;
	}
	free(f->of_dev);
	free(f->w0);
	free(f->w1);
	free(f->windowed);
	free(f->acc);
	free(f);
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
		/* the accounting's own test (a process's Q2D mean over twice
		 * the other processes') may still give it time: said, so a
		 * cost never stands without a word */
		if (r->cp.cat[CP_FAIRNESS] >= 0.0005)
			FD_CAT(f, why, "the accounting gave %.3f s to a process's "
			       "waits before dispatch beyond the other processes' "
			       "(its Q2D mean over twice theirs), but no two kept "
			       "I/O queued half their time to compare their shares",
			       r->cp.cat[CP_FAIRNESS]);
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
	.fold_begin = fair_begin,
	.fold_ev = fair_ev,
	.fold_end = fair_end,
	.fold_kinds = 1u << EV_Q | 1u << EV_C,
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
