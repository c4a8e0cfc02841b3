/* Runs side by side (compare.h): figures, noise, where the time went and
 * why. The figures table prints each number once for text, Markdown and
 * JSON through one emitter. */
#include "compare.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmp_notes.h"
#include "analyze/stats.h"
#include "trace/blktrace_format.h"
#include "lib/util.h"
#include "model/model.h"

/* ---- loading ---- */

static void group_of(struct run_figs *r, const char *by)
{
	char v[100];

	snprintf(r->group, sizeof(r->group), "%s", "(none)");
	if (strpbrk(by, "*?[,")) {
		char *pats = xstrdup(by), *save, *tok;
		for (tok = strtok_r(pats, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			if (!fnmatch(tok, r->rv.name, 0)) {
				snprintf(r->group, sizeof(r->group), "%s", tok);
				break;
			}
		free(pats);
		return;
	}
	if (!rundata_setting(&r->an.rd, by, v, sizeof(v)))
		snprintf(r->group, sizeof(r->group), "%s=%s", by, v);
}

/* A figure of run i by key, for question_value(): compare's figures, the
 * workload's span (its critical path's window when no command was timed). */
struct figctx {
	const struct compare *c;
	int i;
};

static double fig_of(void *ctx, const char *key)
{
	const struct figctx *x = ctx;
	const struct run_figs *r = &x->c->rf[x->i];

	for (int k = 0; k < x->c->fs.n; k++)
		if (!strcmp(x->c->fs.f[k].key, key) && r->has[k])
			return r->v[k];
	/* a run with events but no workload I/O in them (a buffered writer
	 * whose data was written after the trace) took no time of it */
	if (!strcmp(key, "workload_span_s") || !strcmp(key, "model_time_s")) {
		if (r->an.cp.elapsed_s > 0 || r->rv.last_event)
			return r->an.cp.elapsed_s;
		/* a run watched (a vmstat log, samples) whose trace holds no
		 * block I/O at all: its workload issued none while traced */
		return r->an.rd.nvm + r->an.rd.nvm_boot > 0 && !r->an.rd.ncmd ?
		       0 : NAN;
	}
	return NAN;
}

/* The value the comparison explains for run i (the question's figure);
 * NAN when the run has none. */
static double ref_value(const struct compare *c, int i)
{
	struct figctx x = { c, i };

	return question_value(&c->q, &c->rf[i].qr, fig_of, &x);
}

double compare_value(const struct compare *c, int run)
{
	return ref_value(c, run);
}

int compare_load(struct compare *c, struct store *st, char **names, int n,
		 const char *group_by, const char *metric,
		 const struct disk_profile *model, int keep_rows)
{
	struct q_run *qr;
	char err[400];

	memset(c, 0, sizeof(*c));
	c->rf = xcalloc((size_t)n, sizeof(*c->rf));
	/* the runs, their workload metrics and commands: the question */
	for (int i = 0; i < n; i++) {
		struct run_figs *r = &c->rf[i];
		if (runview_load(&r->rv, st, names[i]))
			return -1;
		c->n = i + 1;
		if (store_metrics_get(st, r->rv.id, &r->wm, &r->nwm) ||
		    store_commands_get(st, r->rv.id, &r->cmds, &r->ncmds))
			return error("reading run '%s': %s", r->rv.name,
				     store_errmsg(st));
		r->qr = (struct q_run){ r->wm, r->nwm, r->cmds, r->ncmds,
					r->rv.last_event != 0 };
	}
	qr = xcalloc((size_t)n, sizeof(*qr));
	for (int i = 0; i < n; i++)
		qr[i] = c->rf[i].qr;
	if (question_choose(&c->q, metric, qr, (size_t)n, err, sizeof(err))) {
		free(qr);
		return error("%s", err);
	}
	free(qr);
	/* --model without a figure: the workload's time with its I/O on the
	 * modelled disk (critpath_model()) */
	if (model && !metric) {
		struct question *q = &c->q;
		q->kind = Q_SPAN;
		snprintf(q->key, sizeof(q->key), "model_time_s");
		snprintf(q->terms[0], sizeof(q->terms[0]), "model_time_s");
		q->nterms = 1;
		snprintf(q->label, sizeof(q->label), "the workload's time on %s "
			 "(modelled)", model->name);
		snprintf(q->why, sizeof(q->why), "--model: %s, with the I/O's "
			 "device time the modelled disk's", q->kind == Q_COMMANDS ?
			 "the commands' time" : "the workload's span");
		snprintf(q->unit, sizeof(q->unit), "s");
		q->lower_better = q->duration = 1;
		q->unit_scale = 1;
	}
	for (int i = 0; i < n; i++) {
		struct run_figs *r = &c->rf[i];
		struct an_opts o = { model, c->q.cmd_mask,
				     c->q.reads ? FAM_READS : FAM_ALL, keep_rows };
		struct an_side side;
		/* the figures built beside the analyzers */
		report_side(&r->rep, &side);
		if (an_run_load_with(&r->an, &r->rv, &o, &side, 2))
			return -1;
		if (group_by) {
			group_of(r, group_by);
			if (!strcmp(r->group, "(none)") && !strpbrk(group_by, "*?[,"))
				return error("run '%s' has no setting '%s' to group by",
					     r->rv.name, group_by);
		}
		figures(&c->fs, r);
		/* what the rows give beyond the builds, then the rows back */
		r->has_tail = cmp_run_tail(&c->q, r, &r->tail);
		if (!keep_rows)
			an_run_drop_rows(&r->an);
	}
	if (metric) {
		int some = 0;
		for (int i = 0; i < c->n; i++)
			some |= isfinite(ref_value(c, i));
		if (!some)
			return error("no figure '%s' to explain in these runs (see "
				     "compare --json for the figures, iotape metric "
				     "RUN for a run's metrics)", metric);
	}
	c->grouped = group_by != NULL;
	if (c->grouped)
		c->ng = make_groups(c->rf, c->n, c->gidx, c->gname);
	else {
		c->ng = c->n;
		for (int i = 0; i < c->n; i++) {
			c->gidx[i] = i;
			snprintf(c->gname[i], sizeof(c->gname[i]), "%s",
				 c->rf[i].rv.name);
		}
	}
	return 0;
}

void compare_free(struct compare *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->rf[i].wm);
		free(c->rf[i].cmds);
		report_free(&c->rf[i].rep);
		an_run_free(&c->rf[i].an);
		runview_close(&c->rf[i].rv);
	}
	free(c->rf);
	memset(c, 0, sizeof(*c));
}

/* ---- which took longer, and is it noise ---- */

static void side_of(const struct compare *c, int g, struct cmp_side *s)
{
	double v[CMP_MAX_RUNS];
	int nv = 0;

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < c->n; i++)
		if (c->gidx[i] == g) {
			s->run[s->n++] = i;
			if (isfinite(ref_value(c, i)))
				v[nv++] = ref_value(c, i);
		}
	s->med = median_of(v, nv);
	s->rep = s->run[0];
	for (int k = 1; k < s->n; k++)
		if (fabs(ref_value(c, s->run[k]) - s->med) <
		    fabs(ref_value(c, s->rep) - s->med))
			s->rep = s->run[k];
}

static void side_values(const struct compare *c, const struct cmp_side *s,
			double *v, int *nv)
{
	*nv = 0;
	for (int k = 0; k < s->n; k++)
		if (isfinite(ref_value(c, s->run[k])))
			v[(*nv)++] = ref_value(c, s->run[k]);
}

/* Whether two sides differ beyond their spread: 1 yes, 0 no, -1 cannot
 * tell (one run a side); the test's description in test. */
static int significant(const double *a, int na, const double *b, int nb,
		       char *test, size_t len)
{
	if (na < 2 || nb < 2) {
		snprintf(test, len, "one run on a side cannot separate the "
			 "difference from run-to-run noise (repeat the runs: "
			 "--repeat N)");
		return -1;
	}
	if (na >= 4 && nb >= 4) {
		double p = mann_whitney_p(a, na, b, nb);
		snprintf(test, len, "Mann-Whitney U over %d and %d repeats: p = "
			 "%.3f", na, nb, p);
		return p < 0.05;
	}
	int clear = ranges_clear(a, na, b, nb);
	snprintf(test, len, "the ranges of %d and %d repeats %s", na, nb,
		 clear ? "do not overlap" : ranges_apart(a, na, b, nb) ?
		 "do not overlap, but are closer than either is wide" :
		 "overlap");
	return clear;
}

/* 1 when value a is worse than b for q. */
static int worse(const struct question *q, double a, double b)
{
	return q->lower_better ? a > b : a < b;
}

/* The timed commands of question q in runs x and y: their real times'
 * sums into *sx and *sy; 1 when each run has two or more of them and they
 * ran apart in either, an untimed pause between them (its window a tenth
 * longer than their real times), else 0. */
static int cmds_ran_apart(const struct compare *c, int x, int y, double *sx,
			  double *sy)
{
	int nx = cmp_cmds_real_s(&c->q, &c->rf[x].an.rd, sx);
	int ny = cmp_cmds_real_s(&c->q, &c->rf[y].an.rd, sy);

	return nx >= 2 && ny >= 2 && (c->rf[x].an.cp.elapsed_s > 1.1 * *sx ||
				      c->rf[y].an.cp.elapsed_s > 1.1 * *sy);
}

/* The time the workloads of runs x and y took, s, into *ex and *ey: their
 * windows' (critpath's elapsed), or their timed commands' real times added
 * up where those ran apart in either run (the windows hold the pauses).
 * Returns 1 for the commands' times, 0 for the windows'. */
static int work_times(const struct compare *c, int x, int y, double *ex,
		      double *ey)
{
	double sx, sy;

	*ex = c->rf[x].an.cp.elapsed_s;
	*ey = c->rf[y].an.cp.elapsed_s;
	if (!cmds_ran_apart(c, x, y, &sx, &sy))
		return 0;
	*ex = sx;
	*ey = sy;
	return 1;
}

/* The times of runs x and y, s, that the question's difference is of,
 * into *ex and *ey: for a figure of some commands (q.cmd_mask: cmd2's
 * read_iops, cmd1_real_s + cmd2_real_s) or one that is no duration where
 * lower is better (a latency), the commands' own (work_times(): their
 * window, which compare_load() made the commands' when cmd_mask names
 * them, or their real times added up where they ran apart); for any other
 * figure, the workload's window. Returns work_times()'s 1 when they are
 * real times added up, else 0. */
static int question_times(const struct compare *c, int x, int y, double *ex,
			  double *ey)
{
	if (c->q.cmd_mask || (!c->q.duration && c->q.lower_better))
		return work_times(c, x, y, ex, ey);
	*ex = c->rf[x].an.cp.elapsed_s;
	*ey = c->rf[y].an.cp.elapsed_s;
	return 0;
}

/* Of a rate's difference in seconds (scale under 1: y did less of x's
 * work), what is held in categories y spent no more of its time in than
 * x did, unscaled: y's seconds there less x's scaled, summed (an_compare_
 * findings() gives them no cost); 0 for scale 1 and over. */
static double unscaled_held(const struct critpath *x, const struct critpath *y,
			    double scale)
{
	double h = 0;

	if (scale >= 1)
		return 0;
	for (int k = 0; k < CP_NCAT; k++)
		if (y->cat[k] <= x->cat[k] && y->cat[k] > scale * x->cat[k])
			h += y->cat[k] - scale * x->cat[k];
	return h;
}

/* The difference the findings of run y (worse, value vy) against run x
 * (vx) explain, in seconds of y's time, and how much of x's work y did
 * (scale, for critpath_diff()): a duration's own difference; for a rate,
 * the time y lost doing less in its time, E_y (1 - vy / vx) (a rate is work
 * over time); for another figure where lower is better (a latency, bytes
 * swapped), which is no share of the workload's time, the workload's own
 * time's difference, E_y - E_x, x's work as y's: the causes are of the time
 * y's workload took longer (0 when it took no longer: nothing of its time
 * to explain). E is question_times()'s: a figure of one command (fio's
 * read_iops beside a writer) is costed over that command's time, not the
 * whole run's (its 6.58 s, not the writer's 7.62 s), and a workload of
 * timed commands that ran apart in either run took its commands' real
 * times, not its window's (which holds the pause: `dd; sleep 1.5; sync`
 * whose sync grew 1.2 s took "no longer"). */
static double time_diff(const struct compare *c, int x, int y, double vx,
			double vy, double *scale)
{
	double ex, ey, d;

	question_times(c, x, y, &ex, &ey);
	if (c->q.duration)
		d = (vy - vx) * c->q.unit_scale;
	else if (!c->q.lower_better)
		d = vx != 0 ? ey * (1 - vy / vx) : 0;
	else {
		*scale = 1;
		return ey > ex ? ey - ex : 0;
	}
	*scale = ex > 0 ? (ey - d) / ex : 1;
	if (*scale < 0)
		*scale = 0;
	return d;
}

/* The cost of analyzer name comparing the worse of runs x and y with the
 * better, 0 when none. */
static double pair_cost(const struct compare *c, int x, int y,
			const char *name)
{
	struct finding f[AN_MAX];
	double vx = ref_value(c, x), vy = ref_value(c, y), scale, d;
	int n;

	if (!isfinite(vx) || !isfinite(vy))
		return 0;
	if (worse(&c->q, vx, vy)) {
		int t = x;
		double tv = vx;
		x = y;
		y = t;
		vx = vy;
		vy = tv;
	}
	d = time_diff(c, x, y, vx, vy, &scale);
	n = an_compare_findings(&c->rf[x].an, &c->rf[y].an, d, scale, f,
				AN_MAX, NULL);
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].analyzer, name))
			return f[i].cost_s;
	return 0;
}

/* The cost of analyzer name in run r against run ref, s, signed: what it
 * cost r beyond ref (pair_cost()), or, when ref is the worse, less what it
 * cost ref beyond r; 0 for ref itself. */
static double run_cost(const struct compare *c, int ref, int r,
		       const char *name)
{
	if (r == ref)
		return 0;
	/* pair_cost() explains the worse of the two against the other */
	if (worse(&c->q, ref_value(c, ref), ref_value(c, r)))
		return -pair_cost(c, ref, r, name);
	return pair_cost(c, ref, r, name);
}

/* With repeats on both sides, a cause stays a cause when it cost the worse
 * side's runs more than the better side's: one value a run, its cost
 * against the better side's representative run (fast->rep, whose findings
 * are explained; 0 for that run itself), the two sides' values tested as
 * the question's are (significant(): a rank test over both sides' runs,
 * ranges below four a side). Every pair of runs gave a value before, the
 * test counting pairs as repeats (12 and 9 for 3 runs a side, two of each
 * pair within a side the same pair twice). */
static void noise_check(const struct compare *c, const struct cmp_side *fast,
			const struct cmp_side *slow, struct finding *f, int nf)
{
	for (int i = 0; i < nf; i++) {
		double good[CMP_MAX_RUNS], bad[CMP_MAX_RUNS], mb, mg, mx = 0;
		int ng = 0, nb = 0, sig;
		char test[200];
		if (!f[i].cause)
			continue;
		for (int k = 0; k < fast->n; k++)
			if (isfinite(ref_value(c, fast->run[k])))
				good[ng++] = run_cost(c, fast->rep, fast->run[k],
						      f[i].analyzer);
		for (int k = 0; k < slow->n; k++)
			if (isfinite(ref_value(c, slow->run[k])))
				bad[nb++] = run_cost(c, fast->rep, slow->run[k],
						     f[i].analyzer);
		sig = significant(good, ng, bad, nb, test, sizeof(test));
		for (int k = 0; k < ng; k++)
			mx = good[k] > mx ? good[k] : mx;
		mb = median_of(bad, nb);
		mg = median_of(good, ng);
		/* with few repeats the test cannot separate much (ranges
		 * closer than either is wide): a typical cost in the worse
		 * side's runs above its cost in every run of the better side
		 * also counts */
		if (mb <= mg || (sig == 0 && mb <= mx))
			f[i].cause = 0;
		fd_cat(f[i].why, sizeof(f[i].why), "; against the repeats, its "
		       "cost in each run against %s: %s%s",
		       c->rf[fast->rep].rv.name, test, sig == 0 && mb > mx ?
		       "; kept: its median over the worse side's runs is above "
		       "every run of the better side" : "");
	}
}

/* The process rows of pid summed over devices. */
struct pwait {
	struct ta_pkey k;
	double waited, st[TA_NSTAGE];
	int64_t first_q, last_c;
};

/* The key of pid's family in r for matching across runs: its name (a
 * command's processes by name, kernel threads by role); 0 when it has no
 * name (a tracefs capture: its processes are keyed one by one by what
 * they did, ta_pkey_of()). */
static int family_key(const struct an_run *r, uint32_t pid, char *out,
		      size_t len)
{
	const struct families *fs = &r->cp.fam;
	int k = family_of(fs, pid);

	if (k < 0 || !strncmp(fs->f[k].name, "pid ", 4))
		return 0;
	snprintf(out, len, "%s", fs->f[k].name);
	return 1;
}

/* Each process family's waits, summed over its processes and devices. */
static int proc_waits(const struct an_run *r, struct pwait *out, int max)
{
	int n = 0;

	for (size_t i = 0; i < r->ta.nrows; i++) {
		const struct ta_row *t = &r->ta.rows[i];
		struct ta_pkey key;
		int k;
		memset(&key, 0, sizeof(key));
		if (family_key(r, t->pid, key.key, sizeof(key.key)))
			snprintf(key.kind, sizeof(key.kind), "%s", key.key);
		else
			ta_pkey_of(&r->ta, t->pid, &key);
		for (k = 0; k < n && strcmp(out[k].k.key, key.key); k++)
			;
		if (k == n) {
			if (n == max)
				continue;
			memset(&out[n], 0, sizeof(out[n]));
			key.first_q = t->first_q;
			out[n].k = key;
			out[n].first_q = t->first_q;
			out[n].last_c = t->last_c;
			n++;
		}
		if (t->first_q < out[k].first_q)
			out[k].first_q = out[k].k.first_q = t->first_q;
		if (t->last_c > out[k].last_c)
			out[k].last_c = t->last_c;
		out[k].waited += t->waited_s;
		for (int s = 0; s < TA_NSTAGE; s++)
			out[k].st[s] += ta_stage_waited_s(t, s);
	}
	return n;
}

struct pdiff {
	char key[40];
	char xkey[40];          /* its pair in x, when in both runs */
	double wx, wy, d[TA_NSTAGE];
	double sx, sy;          /* span: first Q to last C, s */
	int both;               /* in both runs */
};

static int cmp_pdiff(const void *a, const void *b)
{
	const struct pdiff *x = a, *y = b;
	double dx = fmax(fabs(x->sy - x->sx), fabs(x->wy - x->wx));
	double dy = fmax(fabs(y->sy - y->sx), fabs(y->wy - y->wx));
	if (x->both != y->both)
		return y->both - x->both;
	return (dx < dy) - (dx > dy);
}

/* NaN (no figure, JSON null) when nothing of the process completed */
static double span_of(const struct pwait *p)
{
	return p->last_c > p->first_q ? (double)(p->last_c - p->first_q) / 1e9
				      : NAN;
}

/* Bios and requests of a run that completed, all devices */
static uint64_t completions_of(const struct an_run *a)
{
	uint64_t n = 0;

	for (size_t i = 0; i < a->ta.ndev; i++)
		n += a->ta.devs[i].completions;
	return n;
}

/* A figure of width w with two decimals (sign when sign), "-" for none */
static void emit_fig(struct emit *e, double v, int sign)
{
	if (isfinite(v))
		emit_text(e, sign ? " %+6.2f" : " %6.2f", v);
	else
		emit_text(e, " %6s", "-");
}

/* The families of y paired with x's (ta_pair), then x's unpaired: each
 * one's waiting, span and change by btt's stage, in pd (up to 512);
 * sorted by the change. Returns how many. */
static int where_rows(const struct pwait *px, int nx, const struct pwait *py,
		      int ny, struct pdiff *pd)
{
	const struct ta_pkey *kx[256], *ky[256];
	int pair[256], paired[256] = { 0 }, nd = 0;

	for (int k = 0; k < nx; k++)
		kx[k] = &px[k].k;
	for (int i = 0; i < ny; i++)
		ky[i] = &py[i].k;
	ta_pair(kx, (size_t)nx, ky, (size_t)ny, pair);
	for (int i = 0; i < ny; i++) {
		struct pdiff *d = &pd[nd++];
		int k = pair[i];
		snprintf(d->key, sizeof(d->key), "%s", py[i].k.key);
		d->wy = py[i].waited;
		d->sy = span_of(&py[i]);
		for (int s = 0; s < TA_NSTAGE; s++)
			d->d[s] = py[i].st[s];
		if (k >= 0) {
			snprintf(d->xkey, sizeof(d->xkey), "%s", px[k].k.key);
			d->wx = px[k].waited;
			d->sx = span_of(&px[k]);
			d->both = 1;
			for (int s = 0; s < TA_NSTAGE; s++)
				d->d[s] -= px[k].st[s];
			paired[k] = 1;
		}
	}
	for (int k = 0; k < nx; k++)
		if (!paired[k]) {
			struct pdiff *d = &pd[nd++];
			snprintf(d->key, sizeof(d->key), "%s", px[k].k.key);
			d->wx = px[k].waited;
			d->sx = span_of(&px[k]);
			for (int s = 0; s < TA_NSTAGE; s++)
				d->d[s] = -px[k].st[s];
		}
	qsort(pd, (size_t)nd, sizeof(*pd), cmp_pdiff);
	return nd;
}

/* One family's row: JSON members, and in text (the first 10) the key in kw
 * columns (a longer one on its own line) and the eight figures. staged: the
 * stages were measured in both runs. */
static void where_row(struct emit *e, const struct pdiff *d, int i, int kw,
		      int staged)
{
	emit_obj_begin(e, NULL);
	emit_str(e, "process", d->key);
	/* paired by kind (ta_pair) when the keys differ */
	if (d->both)
		emit_str(e, "base_process", d->xkey);
	emit_num(e, "base_span_s", d->sx);
	emit_num(e, "span_s", d->sy);
	emit_num(e, "base_waited_s", d->wx);
	emit_num(e, "waited_s", d->wy);
	for (int s = 0; s < TA_NSTAGE; s++) {
		char k[16];
		snprintf(k, sizeof(k), "%s_change_s", ta_stage_name[s]);
		for (char *p = k; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		emit_num(e, k, staged ? d->d[s] : NAN);
	}
	emit_obj_end(e);
	if (i >= 10)
		return;
	if ((int)strlen(d->key) > kw)
		emit_text(e, "%s\n%*s", d->key, kw, "");
	else
		emit_text(e, "%-*s", kw, d->key);
	emit_fig(e, d->sx, 0);
	emit_fig(e, d->sy, 0);
	emit_fig(e, d->wx, 0);
	emit_fig(e, d->wy, 0);
	emit_fig(e, staged ? d->d[TA_Q2G] + d->d[TA_Q2M] : NAN, 1);
	emit_fig(e, staged ? d->d[TA_G2I] : NAN, 1);
	emit_fig(e, staged ? d->d[TA_I2D] : NAN, 1);
	emit_fig(e, staged ? d->d[TA_D2C] : NAN, 1);
	emit_text(e, "\n");
}

/* The sentence under the table of a family that moved (d): how
 * much of its span's change was waiting on I/O, in which stage, and how
 * much was outside the block layer. */
static void where_sentence(struct emit *e, const struct pdiff *d)
{
	char line[600], buf[1200];
	int top = 0;
	double dw = d->wy - d->wx, ds = d->sy - d->sx;

	for (int s = 1; s < TA_NSTAGE; s++)
		if (fabs(d->d[s]) > fabs(d->d[top]))
			top = s;
	snprintf(line, sizeof(line), "%s's span %s %.3f s: its waiting on I/O "
		 "%s %.3f s (%s %+.3f s), the rest %+.3f s outside the block "
		 "layer (CPU, think time, page cache hits)", d->key,
		 ds >= 0 ? "grew" : "shrank", fabs(ds), dw >= 0 ? "grew" :
		 "shrank", fabs(dw),
		 /* TA_I2D holds btt's I2D and M2D */
		 top == TA_I2D ? "I2D+M2D" : ta_stage_name[top], d->d[top],
		 ds - dw);
	wrap_indent(line, 78, 2, buf, sizeof(buf));
	emit_text(e, "%s\n", buf);
}

/* Column names of runs a and b, 6 bytes at most each, that tell them
 * apart: their first 6 bytes, else their last 6, else "1st" and "2nd" (and
 * those for a name not all ASCII, which a cut could split). */
static void col_names(const char *a, const char *b, char ca[8], char cb[8])
{
	size_t la = strlen(a), lb = strlen(b);
	int ascii = 1;

	for (const char *p = a; *p; p++)
		ascii &= !((unsigned char)*p & 0x80);
	for (const char *p = b; *p; p++)
		ascii &= !((unsigned char)*p & 0x80);
	snprintf(ca, 8, "%.6s", a);
	snprintf(cb, 8, "%.6s", b);
	if (ascii && strcmp(ca, cb))
		return;
	snprintf(ca, 8, "%s", la > 6 ? a + la - 6 : a);
	snprintf(cb, 8, "%s", lb > 6 ? b + lb - 6 : b);
	if (ascii && strcmp(ca, cb))
		return;
	snprintf(ca, 8, "1st");
	snprintf(cb, 8, "2nd");
}

/* The row of pd (nd, sorted by how much each moved) the sentence under
 * the table is about: the first that moved of a family of the commands
 * the question asks about (its cmd_mask: by name in their command lines),
 * else of a user process (a kernel thread's span is no one's time: the
 * flushers' grows when the dirty data comes later), else the first.
 * -1 when none moved in both runs. */
static int where_pick(const struct pdiff *pd, int nd, const struct question *q,
		      const struct an_run *y)
{
	int first = -1, user = -1, asked = -1;

	for (int i = 0; i < nd; i++) {
		const struct pdiff *d = &pd[i];
		int k;
		if (!d->both || !isfinite(d->sx) || !isfinite(d->sy) ||
		    fmax(fabs(d->wy - d->wx), fabs(d->sy - d->sx)) < 0.001)
			continue;
		if (first < 0)
			first = i;
		for (k = 0; k < y->cp.fam.n && strcmp(y->cp.fam.f[k].name, d->key); k++)
			;
		if (user < 0 && k < y->cp.fam.n && y->cp.fam.f[k].role &&
		    !*y->cp.fam.f[k].role)
			user = i;
		for (size_t c = 0; asked < 0 && q->cmd_mask && c < y->rd.ncmd; c++) {
			int idx = y->rd.cmds[c].idx;
			if (idx >= 0 && idx < 64 && ((q->cmd_mask >> idx) & 1) &&
			    shell_has_word(y->rd.cmds[c].argv, d->key))
				asked = i;
		}
	}
	return asked >= 0 ? asked : user >= 0 ? user : first;
}

/* Where the time went: matched processes' waited time in x and y; the
 * sentence under it of the family where_pick() chooses for question q. */
static void emit_where(struct emit *e, const struct an_run *x,
		       const struct an_run *y, const struct question *q)
{
	struct pwait *px = xcalloc(256, sizeof(*px)), *py = xcalloc(256, sizeof(*py));
	struct pdiff *pd = xcalloc(512, sizeof(*pd));
	int nx = proc_waits(x, px, 256), ny = proc_waits(y, py, 256), nd = 0;
	/* without completions, no stage of either run is measured */
	int staged = completions_of(x) && completions_of(y);
	int kw = 7;

	/* neither run traced a process (pasted times, a vmstat log): no
	 * section, an empty "where" in JSON */
	if (nx || ny)
		nd = where_rows(px, nx, py, ny, pd);
	emit_arr_begin(e, "where");
	if (!nd) {
		emit_arr_end(e);
		goto out;
	}
	emit_heading(e, "where the time went");
	{
		/* the run names whole (up to 255 bytes each), the caption
		 * wrapped to 80 columns around them */
		char cap[1024], wrapped[1100];
		snprintf(cap, sizeof(cap), "each process family (a command's "
			 "processes by name, kernel threads by role: writeback, "
			 "journal, reclaim; a nameless one by what it did) in %s, "
			 "then in %s: its span (first Q to last C) and its "
			 "processes' time waiting on I/O (queued or in flight), "
			 "s; the change in waiting split by btt's stages, s",
			 x->rd.rv->name, y->rd.rv->name);
		wrap_indent(cap, 80, 0, wrapped, sizeof(wrapped));
		emit_text(e, "%s\n", wrapped);
	}
	/* the key column as wide as the keys shown, up to what leaves the
	 * eight figures (7 columns each) in 80; a longer key, whole on its
	 * own line, the figures under it: a cut key could name two rows */
	for (int i = 0; i < nd && i < 10; i++)
		if ((int)strlen(pd[i].key) > kw)
			kw = (int)strlen(pd[i].key);
	if (kw > 80 - 8 * 7)
		kw = 80 - 8 * 7;
	/* the two runs' columns by name (their first 6 bytes, else their
	 * last, else 1st and 2nd): "span this waited this" read as a puzzle */
	{
		char cx[8], cy[8];
		col_names(x->rd.rv->name, y->rd.rv->name, cx, cy);
		emit_text(e, "%-*s %-13s %-13s %s\n", kw, "", " ---- span, s",
			  " -- waited, s", " change in waiting, s");
		emit_text(e, "%-*s %6s %6s %6s %6s %6s %6s %6s %6s\n", kw, "process",
			  cx, cy, cx, cy, "Q2G+M", "G2I", "I2D+M", "D2C");
	}
	for (int i = 0; i < nd; i++)
		where_row(e, &pd[i], i, kw, staged);
	emit_arr_end(e);
	if (staged) {
		int i = where_pick(pd, nd, q, y);
		if (i >= 0)
			where_sentence(e, &pd[i]);
	}
out:
	free(px);
	free(py);
	free(pd);
}

/* The question's value as text: "12.345 s", "949.0 tps"; big is the
 * largest value shown beside it (the decimals follow it). */
static void fmt_value(const struct question *q, double v, double big,
		      char *out, size_t len)
{
	if (q->duration && q->unit_scale == 1)
		snprintf(out, len, "%.3f s", v);
	else if (fabs(big) >= 1e6)
		snprintf(out, len, "%.4g%s%s", v, q->unit[0] ? " " : "", q->unit);
	else
		snprintf(out, len, "%.*f%s%s", fabs(big) >= 100 ? 1 :
			 fabs(big) >= 1 ? 2 : 4, v, q->unit[0] ? " " : "", q->unit);
}

static void emit_wrapped(struct emit *e, const char *line, int indent)
{
	char buf[1600];

	wrap_indent(line, 78, indent, buf, sizeof(buf));
	emit_text(e, "%s\n", buf);
}

/* 1 when run y's timed commands of question q took longer in all than
 * x's (their real times, both runs with some): its workload's time did
 * move, whatever its window (which spans untimed pauses) says. */
static int cmds_grew(const struct question *q, const struct rundata *x,
		     const struct rundata *y)
{
	double sx, sy;

	return cmp_cmds_real_s(q, x, &sx) && cmp_cmds_real_s(q, y, &sy) &&
	       sy > 1.05 * sx + 0.0005;
}

/* A sum of command times (the default total, --metric total, cmdA_real_s
 * + cmdB_real_s) whose commands ran apart, an untimed pause between them
 * in either run (their window a tenth longer than their times): the
 * window's causes would be the pause's too, and the better run's work
 * scaled to the sum. Each command is compared alone instead, over its own
 * window, and each cause's costs added up over the commands (the sum's
 * difference is theirs). Returns how many findings f holds (AN_MAX room),
 * 0 when the question is no such sum or a run could not be read. */
static int by_command(struct compare *c, int good, int bad, double diff_s,
		      struct finding *f)
{
	const struct question *q = &c->q;
	struct run_figs *x = &c->rf[good], *y = &c->rf[bad];
	const struct rundata *dx = &x->an.rd, *dy = &y->an.rd;
	struct finding *fk = xcalloc(AN_MAX, sizeof(*fk));
	double sx, sy, best[AN_MAX] = { 0 };
	int n = 0, done = 0;

	/* a sum of command times, or a figure that is no time (a latency)
	 * whose workload's time is its commands' (time_diff()) */
	if (!(cmp_commands_sum(q) || (!q->duration && q->lower_better)) ||
	    !cmds_ran_apart(c, good, bad, &sx, &sy)) {
		free(fk);
		return 0;
	}
	for (size_t i = 0; i < dy->ncmd; i++) {
		const struct an_cmd *cy = &dy->cmds[i], *cx = NULL;
		struct an_run ax, ay;
		int idx = cy->idx, nk;
		if (idx < 0 || idx >= 64 || !isfinite(cy->real_s) ||
		    (q->cmd_mask && !((q->cmd_mask >> idx) & 1)))
			continue;
		for (size_t k = 0; k < dx->ncmd; k++)
			if (dx->cmds[k].idx == idx && isfinite(dx->cmds[k].real_s))
				cx = &dx->cmds[k];
		if (!cx)
			continue;
		if (an_run_load_with(&ax, &x->rv, &(struct an_opts){ x->an.model,
				     1ull << idx, FAM_ALL, 0 }, NULL, 2))
			break;
		an_run_drop_rows(&ax);
		if (an_run_load_with(&ay, &y->rv, &(struct an_opts){ y->an.model,
				     1ull << idx, FAM_ALL, 0 }, NULL, 2)) {
			an_run_free(&ax);
			break;
		}
		an_run_drop_rows(&ay);
		nk = an_compare_findings(&ax, &ay, cy->real_s - cx->real_s, 1, fk,
					 AN_MAX, NULL);
		/* each analyzer's costs added up; its words from the command
		 * where it cost most */
		for (int a = 0; a < nk; a++) {
			int m;
			for (m = 0; m < n && strcmp(f[m].analyzer, fk[a].analyzer); m++)
				;
			if (m == n) {
				if (n == AN_MAX)
					continue;
				f[n++] = fk[a];
				best[m] = fabs(fk[a].cost_s);
				continue;
			}
			{
				double cost = f[m].cost_s + fk[a].cost_s;
				double xp = f[m].x_part_s + fk[a].x_part_s;
				double yp = f[m].y_part_s + fk[a].y_part_s;
				int present = f[m].present || fk[a].present;
				if (fabs(fk[a].cost_s) > best[m]) {
					best[m] = fabs(fk[a].cost_s);
					f[m] = fk[a];
				}
				f[m].cost_s = cost;
				f[m].x_part_s = xp;
				f[m].y_part_s = yp;
				f[m].present = present;
			}
		}
		an_run_free(&ax);
		an_run_free(&ay);
		done++;
	}
	free(fk);
	if (done < 2)
		return 0;
	finding_rank(f, n, fabs(diff_s), fmax(fmax(FD_CAUSE_SHARE_DIFF *
						   fabs(diff_s), FD_MIN_S),
					      FD_CAUSE_SHARE * sy));
	return n;
}

/* With one run a side: un-names each cause of f[0..n) that was in the
 * better run (named good) already and grew by less than FD_GROWTH of what
 * it was there (the same cause in both runs, its time moving as two runs
 * of one setup do), saying so in its why. */
static void same_cause_check(struct finding *f, int n, const char *good)
{
	for (int i = 0; i < n; i++) {
		if (!f[i].cause || f[i].x_part_s <= 0 ||
		    f[i].cost_s >= FD_GROWTH * f[i].x_part_s)
			continue;
		f[i].cause = 0;
		/* the growth is its cost against its time there (the cost
		 * is not y less x where x was scaled to the work or carved:
		 * "0.804 s ..., 0.941 s here (+22%)" read as a wrong sum) */
		snprintf(f[i].why, sizeof(f[i].why), "the same cause in both "
			 "runs: %.3f s of the workload's time in %s, %.3f s "
			 "here; its cost, %+.3f s, is %+.0f%% of its time there; "
			 "with one run a side a cause that grew by under %.0f%% "
			 "cannot be told from run-to-run noise (repeat the "
			 "runs: --repeat N)", f[i].x_part_s, good, f[i].y_part_s,
			 f[i].cost_s, 100 * f[i].cost_s / f[i].x_part_s,
			 100 * FD_GROWTH);
	}
}

int compare_pair(struct compare *c, int g, struct cmp_pair *p)
{
	const struct question *q = &c->q;
	const struct cmp_side *good, *bad;
	double a[CMP_MAX_RUNS], b[CMP_MAX_RUNS], shown = 0;
	int na, nb;

	memset(p, 0, sizeof(*p));
	p->g = g;
	p->worse = -1;
	p->f = xcalloc(AN_MAX, sizeof(*p->f));
	side_of(c, 0, &p->s0);
	side_of(c, g, &p->s1);
	side_values(c, &p->s0, a, &na);
	side_values(c, &p->s1, b, &nb);
	if (!na || !nb) {
		p->none = 1;
		return 1;
	}
	p->diff = p->s1.med - p->s0.med;
	p->same_work[0] = cmp_same_work(&c->rf[p->s0.rep].an, &c->rf[p->s1.rep].an);
	p->same_work[1] = cmp_same_work(&c->rf[p->s1.rep].an, &c->rf[p->s0.rep].an);
	cmp_cmds_past_trace(q, &c->rf[p->s0.rep], &p->past[0]);
	cmp_cmds_past_trace(q, &c->rf[p->s1.rep], &p->past[1]);
	p->worse = worse(q, p->s0.med, p->s1.med) ? 0 : 1;
	bad = p->worse ? &p->s1 : &p->s0;
	good = p->worse ? &p->s0 : &p->s1;
	p->size_moved = cmp_request_size(q, &c->rf[good->rep], &c->rf[bad->rep],
					 p->kib);
	p->sig = significant(a, na, b, nb, p->test, sizeof(p->test));
	/* a run against itself, or a difference that prints as 0.000: no
	 * side is worse */
	p->same_run = p->s0.n == 1 && p->s1.n == 1 &&
		      c->rf[p->s0.rep].rv.id == c->rf[p->s1.rep].rv.id;
	p->tie = p->same_run || fabs(p->diff) <= 1e-9 * fmax(fabs(p->s0.med), 1) ||
		 (q->duration && fabs(p->diff) * q->unit_scale < 0.0005);
	p->scale = 1;
	/* a rate that moved with the requests' size alone (the other rate
	 * held), in a run whose workload took no longer than the better
	 * run's: IOPS fell because each request carried more, and nothing of
	 * its time went (read_ahead_kb 128 against 0: the IOPS 78% down, the
	 * same bytes read 4.4 s sooner, and volume got a cost) */
	if (!p->tie && p->size_moved && !q->duration &&
	    c->rf[bad->rep].an.cp.elapsed_s <= c->rf[good->rep].an.cp.elapsed_s)
		p->no_time_cost = 1;
	else if (!p->tie) {
		p->dtime = time_diff(c, good->rep, bad->rep, good->med, bad->med,
				     &p->scale);
		p->nf = by_command(c, good->rep, bad->rep, p->dtime, p->f);
		if (p->nf)
			p->scale = 1;
		else
			p->nf = an_compare_findings(&c->rf[good->rep].an,
						    &c->rf[bad->rep].an, p->dtime,
						    p->scale, p->f, AN_MAX, NULL);
		/* time_diff(): a lower-is-better figure that is no duration
		 * gives the time the workload took longer, here none */
		p->no_time_cost = !q->duration && q->lower_better &&
				  p->dtime == 0 &&
				  !cmds_grew(q, &c->rf[good->rep].an.rd,
					     &c->rf[bad->rep].an.rd);
	}
	/* a latency percentile: what the slowest requests met, the worse
	 * run's first (measured once for the text, the JSON and mail) */
	for (int k = 0; k < 2 && !p->tie; k++) {
		const struct run_figs *r = &c->rf[(k ? good : bad)->rep];
		if (r->has_tail) {
			p->tail[p->ntail] = r->tail;
			p->tail_run[p->ntail++] = r;
		}
	}
	if (p->sig == 1 && good->n > 1 && bad->n > 1)
		noise_check(c, good, bad, p->f, p->nf);
	if (p->sig < 0)
		same_cause_check(p->f, p->nf, c->gname[good == &p->s0 ? 0 : p->g]);
	/* with one run a side a difference counts when it is over 5% of the
	 * better run's time, a cause accounts for a quarter of it and the
	 * causes for half but not over twice it (two captures of one setup on
	 * a busy machine differ by a few percent, and their noise has parts
	 * too: a part several times the difference, taken back by others or
	 * by the rest, is parts moving in noise), and a time over FD_NOISE_S */
	{
		/* the offsets the waterfall shows (in the other run's
		 * favour) take back from the causes: when what is left is
		 * under half the difference, the verdict says so (causes of
		 * +1.0 s against an offset of -1.25 s left 401% "not
		 * explained" under "the causes below account for it") */
		double top = 0, all = 0, off = 0, held;
		double off_min = finding_offset_min(p->dtime);
		for (int i = 0; i < p->nf; i++)
			if (p->f[i].cause) {
				all += p->f[i].cost_s;
				top = fmax(top, p->f[i].cost_s);
			} else if (p->f[i].cost_s <= -off_min) {
				off += p->f[i].cost_s;
			}
		/* ... judged against the part of a rate's difference in
		 * seconds that is not held in categories the worse run spent
		 * no more of its time in (other processes' work the figure
		 * does not measure, scaled away: a writer's 3.9 s beside a
		 * reader whose IOPS fell left the reader's queueing at 40%),
		 * at least half of it */
		held = unscaled_held(&c->rf[good->rep].an.cp,
				     &c->rf[bad->rep].an.cp, p->scale);
		held = fabs(p->dtime) - fmin(held, 0.5 * fabs(p->dtime));
		p->explained = top >= 0.25 * held && all >= 0.5 * held &&
			       all <= 2 * fabs(p->dtime) &&
			       fabs(p->dtime) >= FD_NOISE_S &&
			       fabs(p->dtime) >= FD_CAUSE_SHARE *
						 c->rf[good->rep].an.cp.elapsed_s;
		p->offset_heavy = all + off < 0.5 * fabs(p->dtime);
	}
	if (p->sig == 0 || (p->sig < 0 && !p->explained))
		for (int i = 0; i < p->nf; i++)
			p->f[i].cause = 0;
	/* offsets only beside causes: with none there is no waterfall (compare
	 * says "no cause named"; mail showed an offset alone as the why) */
	for (int i = 0; i < p->nf; i++) {
		p->in_waterfall[i] = finding_in_waterfall(p->f, p->nf, i, p->dtime);
		if (p->in_waterfall[i])
			shown += p->f[i].cost_s;
	}
	p->rest = p->dtime - shown;
	p->verdict = p->sig == 1 || (p->sig < 0 && p->explained) ?
		     "different" : "no significant difference";
	/* a figure that is no share of the time (swapped MB, a latency)
	 * moved while the workload took no longer: nothing of its time to
	 * cost, which says nothing of whether the figure moved */
	if (p->no_time_cost)
		p->verdict = "no time cost";
	return 0;
}

void compare_pair_free(struct cmp_pair *p)
{
	free(p->f);
	p->f = NULL;
}

/* Run r's commands past its trace (cmp_cmds_past_trace(): pt) in words
 * under the question. */
static void overlap_note(struct emit *e, const struct run_figs *r,
			 const struct cmp_past *pt)
{
	char line[1000];

	if (!pt->n)
		return;
	snprintf(line, sizeof(line), "%s: its %d commands' real times add up to "
		 "%.3f s, longer than its trace (%.3f s): they ran at the "
		 "same time (the total then counts that time more than once), "
		 "or the trace missed part of them (a buffered writer's data "
		 "goes to disk later; tracing began after them); times with "
		 "their start and end (capture --cmd, start_s= and end_s= "
		 "lines, `time a & time b`) would tell", r->rv.name, pt->n,
		 pt->sum_s, pt->span_s);
	emit_wrapped(e, line, 2);
}

int compare_tail_sentence(struct compare *c, const struct cmp_pair *p,
			  int brief, char *buf, size_t len)
{
	if (p->none || !p->ntail || p->tail_run[0] !=
	    &c->rf[(p->worse ? &p->s1 : &p->s0)->rep])
		return 0;
	cmp_tail_sentence(p->tail_run[0], &p->tail[0], brief ? CMP_TAIL_BRIEF
			  : CMP_TAIL_FULL, buf, len);
	return 1;
}

/* The commands of mask (bit idx) by name, each "cmdN" (N from 1), then
 * suffix: "cmd2's", "cmd1 and cmd3's", "cmd1, cmd2 and cmd3's"; into out
 * (len bytes). */
static void cmds_named(uint64_t mask, const char *suffix, char *out,
		       size_t len)
{
	int n = 0, all = __builtin_popcountll(mask);
	size_t o = 0;

	out[0] = 0;
	for (int i = 0; i < 64 && o < len; i++)
		if ((mask >> i) & 1) {
			n++;
			o += (size_t)snprintf(out + o, len - o, "%scmd%d",
					      n == 1 ? "" : n == all ? " and " :
					      ", ", i + 1);
		}
	if (o < len)
		snprintf(out + o, len - o, "%s", suffix);
}

/* For each of the question's terms whose value is a workload metric in
 * some runs and the trace's figure (or another source's metric) in
 * others, a sentence into out (len bytes), "; " between them: `iotape
 * metric before read_q2c_p99_us=5` against after's measured 3096.6 us read
 * as 619x worse. Returns 1 when there is one. */
static int sources_line(const struct compare *c, char *out, size_t len)
{
	const struct question *q = &c->q;
	size_t o = 0;

	out[0] = 0;
	for (int k = 0; k < q->nterms && o < len; k++) {
		const char *sa = question_term_source(q, &c->rf[0].qr, k), *sb = NULL;
		int other = -1;
		for (int i = 1; i < c->n && other < 0; i++) {
			sb = question_term_source(q, &c->rf[i].qr, k);
			if (!sa != !sb || (sa && strcmp(sa, sb)))
				other = i;
		}
		if (other < 0)
			continue;
		o += (size_t)snprintf(out + o, len - o, "%stwo sources: %s is %s%s%s "
				      "in %s and %s%s%s in %s, not one measure "
				      "(iotape metric RUN lists a run's)",
				      o ? "; " : "", q->terms[k],
				      sa ? "a workload metric (" : "the trace's figure",
				      sa ? sa : "", sa ? ")" : "", c->rf[0].rv.name,
				      sb ? "a workload metric (" : "the trace's figure",
				      sb ? sb : "", sb ? ")" : "", c->rf[other].rv.name);
	}
	return out[0] != 0;
}

/* The question's lines of pair pr (side g against side 0): the figure in
 * both, which is worse and by how much (for a rate, also in the worse
 * run's time), why this figure, and whether the difference is beyond
 * noise. */
static void question_text(struct compare *c, struct emit *e, int g,
			  const struct cmp_pair *pr, const char *bad_name)
{
	const struct question *q = &c->q;
	const struct cmp_side *s0 = &pr->s0, *s1 = &pr->s1;
	const struct cmp_side *bad = pr->worse ? s1 : s0, *good = pr->worse ? s0 : s1;
	double big = fmax(fabs(s0->med), fabs(s1->med));
	char line[1200], v0[48], v1[48], dv[48];
	int len;
	/* "so this explains what made B better" only where something is
	 * explained: a null pair 1% apart read as a finding, and a figure
	 * with no time cost */
	int explains = pr->verdict && !strcmp(pr->verdict, "different");

	emit_heading(e, "the question");
	fmt_value(q, s0->med, big, v0, sizeof(v0));
	fmt_value(q, s1->med, big, v1, sizeof(v1));
	fmt_value(q, fabs(pr->diff), big, dv, sizeof(dv));
	len = snprintf(line, sizeof(line), "%s (%s is better): %s %s, %s %s: ",
		       q->label, q->lower_better ? "lower" : "higher",
		       c->gname[0], v0, c->gname[g], v1);
	if (pr->same_run)
		snprintf(line + len, sizeof(line) - len, "the same run on both "
			 "sides, nothing to compare");
	else if (pr->tie)
		snprintf(line + len, sizeof(line) - len, "%s", q->duration ?
			 "they took the same time" : "the same");
	else {
		char pct[32] = "from 0";
		double r = good->med != 0 ? bad->med / good->med : 0;
		if (good->med != 0 && fabs(r) >= 10)
			snprintf(pct, sizeof(pct), "%.0fx", fabs(r));
		else if (good->med != 0)
			snprintf(pct, sizeof(pct), "%+.1f%%", 100 *
				 (bad->med - good->med) / fabs(good->med));
		snprintf(line + len, sizeof(line) - len, "%s is worse by %s (%s)%s",
			 bad_name, dv, pct, bad == s0 && explains ?
			 ", so this explains what made " : "");
	}
	if (!pr->tie && bad == s0 && explains)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "%s better", c->gname[g]);
	emit_wrapped(e, line, 2);
	if (!pr->tie && !q->duration && !q->lower_better && !pr->no_time_cost) {
		double eb, eg;
		char whose[120] = "its";
		question_times(c, good->rep, bad->rep, &eg, &eb);
		if (q->cmd_mask)
			cmds_named(q->cmd_mask, "'s", whose, sizeof(whose));
		snprintf(line, sizeof(line), "in %s's time: %.3f s of %s %.3f s "
			 "(what it lost doing less in the same time)", bad_name,
			 pr->dtime, whose, eb);
		emit_wrapped(e, line, 2);
	} else if (!pr->tie && !q->duration) {
		double eb, eg;
		char what[120] = "its workload";
		if (question_times(c, good->rep, bad->rep, &eg, &eb))
			snprintf(what, sizeof(what), "its timed commands");
		else if (q->cmd_mask)
			cmds_named(q->cmd_mask, "", what, sizeof(what));
		if (pr->dtime > 0)
			snprintf(line, sizeof(line), "in %s's time: %s took "
				 "%.3f s longer (%.3f s against %.3f s); the "
				 "causes below are of that time, not of the figure "
				 "itself", bad_name, what, pr->dtime, eb, eg);
		else
			snprintf(line, sizeof(line), "in %s's time: %s took no "
				 "longer (%.3f s against %.3f s): no time of its to "
				 "explain the figure by", bad_name, what, eb, eg);
		emit_wrapped(e, line, 2);
	}
	snprintf(line, sizeof(line), "(chosen: %s)", q->why);
	emit_wrapped(e, line, 1);
	if (sources_line(c, line, sizeof(line)))
		emit_wrapped(e, line, 2);
	for (int k = 0; k < 2; k++)
		overlap_note(e, &c->rf[(k ? s1 : s0)->rep], &pr->past[k]);
	if (fmin(pr->same_work[0], pr->same_work[1]) < CMP_SAME_WORK) {
		snprintf(line, sizeof(line), "different work: %.0f%% of %s's "
			 "bytes came from processes of a name %s has too, %.0f%% "
			 "of %s's; the difference is between workloads, not only "
			 "settings (compare runs of one workload)",
			 100 * pr->same_work[0], c->gname[0], c->gname[g],
			 100 * pr->same_work[1], c->gname[g]);
		emit_wrapped(e, line, 2);
	}
	{
		/* no kind of device in common (majors: a loop device against
		 * a CSV's 0,0; loop devices renumbered between captures are
		 * one kind): the figures are of different disks, which a
		 * reader should know before reading them as one disk's */
		const struct rundata *a = &c->rf[s0->rep].an.rd;
		const struct rundata *b = &c->rf[s1->rep].an.rd;
		int common = 0;
		for (size_t i = 0; i < a->ndevs && !common; i++)
			for (size_t j = 0; j < b->ndevs && !common; j++)
				common = BT_MAJOR(a->devs[i]) == BT_MAJOR(b->devs[j]);
		if (!common && a->ndevs && b->ndevs) {
			snprintf(line, sizeof(line), "different devices: %s traced "
				 "%u,%u%s, %s %u,%u%s; no kind of device is in both "
				 "(are they runs on one disk?)", c->gname[0],
				 BT_MAJOR(a->devs[0]), BT_MINOR(a->devs[0]),
				 a->ndevs > 1 ? " and others" : "", c->gname[g],
				 BT_MAJOR(b->devs[0]), BT_MINOR(b->devs[0]),
				 b->ndevs > 1 ? " and others" : "");
			emit_wrapped(e, line, 2);
		}
	}
	if (pr->size_moved && !pr->tie) {
		int iops = strstr(q->key, "_iops") != NULL;
		char ratio[48];
		if (iops)
			snprintf(ratio, sizeof(ratio), "%.1f times",
				 pr->kib[1] / pr->kib[0]);
		else
			snprintf(ratio, sizeof(ratio), "1/%.1f of",
				 pr->kib[0] / pr->kib[1]);
		snprintf(line, sizeof(line), "%s requests: %s's %s averaged %.1f "
			 "KiB against %s's %.1f KiB (%s the size): %s moved "
			 "with the requests' size, not their speed",
			 iops ? "fewer, larger" : "smaller", bad_name,
			 strstr(q->key, "read") ? "reads" : "writes", pr->kib[1],
			 good == s1 ? c->gname[g] : c->gname[0], pr->kib[0],
			 ratio, iops ? "its IOPS" : "its MB/s");
		emit_wrapped(e, line, 2);
	}
	if (pr->same_run || pr->tie)
		line[0] = 0;
	else if (pr->sig == 1)
		snprintf(line, sizeof(line), "significant: %s", pr->test);
	else if (pr->sig == 0)
		snprintf(line, sizeof(line), "no significant difference: %s",
			 pr->test);
	else if (pr->explained && pr->offset_heavy)
		snprintf(line, sizeof(line), "the causes below are what moved "
			 "most, but with what moved in the other run's favour "
			 "they leave most of it not explained; and %s", pr->test);
	else if (pr->explained)
		snprintf(line, sizeof(line), "the causes below account for it; "
			 "but %s", pr->test);
	else if (pr->no_time_cost)
		snprintf(line, sizeof(line), "no time cost: the figure moved, but "
			 "not the workload's time, so no cause is costed in "
			 "seconds; what the runs show is below, and %s", pr->test);
	else if (!q->duration)
		/* the figure moved (19x, a reader's p99 beside a writer's
		 * flushes): what is not significant is the time, which the
		 * causes are of; "no significant difference" under "worse by
		 * 19x" read as a contradiction */
		snprintf(line, sizeof(line), "no significant difference in its "
			 "time: no cause accounts for %s's %+.3f s, and %s",
			 bad_name, pr->dtime, pr->test);
	else
		snprintf(line, sizeof(line), "no significant difference: no cause "
			 "accounts for it, and %s", pr->test);
	if (line[0])
		emit_wrapped(e, line, 2);
	/* a latency percentile: what its requests met, the worse run's first
	 * in whole */
	for (int k = 0; k < pr->ntail; k++) {
		cmp_tail_sentence(pr->tail_run[k], &pr->tail[k],
				  pr->tail_run[k] == &c->rf[bad->rep] ?
				  CMP_TAIL_FULL : CMP_TAIL_SHORT, line, sizeof(line));
		emit_wrapped(e, line, 2);
	}
}

/* Command line argv in at most width bytes into out (width + 1 room):
 * whole, or cut at a word's end with "..." after it, not inside a word
 * ("bs=1M" cut to "bs=1" reads as another command), nor inside a UTF-8
 * character. */
static void cmd_label(const char *argv, char *out, size_t width)
{
	size_t n = strlen(argv), cut;

	if (n <= width) {
		memcpy(out, argv, n + 1);
		return;
	}
	cut = width - 3;
	while (cut > 0 && argv[cut] != ' ')
		cut--;
	if (cut < width / 2)   /* one long word: cut it at a character */
		for (cut = width - 3; cut > 0 &&
		     ((unsigned char)argv[cut] & 0xC0) == 0x80; cut--)
			;
	memcpy(out, argv, cut);
	memcpy(out + cut, "...", 4);
}

/* Each timed command's real time in both runs (dx, dy; the first 8 of
 * dy's), and the change: "cmd1 ARGV  A s  B s  +D s" (text). */
static void emit_cmd_times(struct emit *e, const struct rundata *dx,
			   const struct rundata *dy)
{
	for (size_t i = 0; i < dy->ncmd && i < 8; i++)
		for (size_t k = 0; k < dx->ncmd; k++)
			if (dx->cmds[k].idx == dy->cmds[i].idx &&
			    isfinite(dx->cmds[k].real_s) &&
			    isfinite(dy->cmds[i].real_s)) {
				char label[40];
				cmd_label(dy->cmds[i].argv, label, 32);
				emit_text(e, "  cmd%-2d %-32s %8.3f s %8.3f s "
					  "%+8.3f s\n", dy->cmds[i].idx + 1,
					  label, dx->cmds[k].real_s,
					  dy->cmds[i].real_s,
					  dy->cmds[i].real_s - dx->cmds[k].real_s);
				/* paired by their place: another command in
				 * the first run says so ("fio r.fio" beside
				 * "fio w.fio" read as one command) */
				if (strcmp(dx->cmds[k].argv, dy->cmds[i].argv)) {
					/* 8 + 4 + 20 + 2 + 44 + 1 columns */
					char xl[56];
					cmd_label(dx->cmds[k].argv, xl, 44);
					emit_text(e, "        (in %.20s: %s)\n",
						  dx->rv->name, xl);
				}
				/* a command that failed: its time is no
				 * comparable run of it (a dd that exited 1
				 * at 0.01 s read as 100x faster) */
				for (int side = 0; side < 2; side++) {
					const struct rundata *d = side ? dy : dx;
					int st = side ? dy->cmds[i].status
						      : dx->cmds[k].status;
					if (st)
						emit_text(e, "        (it exited with "
							  "status %d in %.30s: a failed "
							  "run of it)\n", st, d->rv->name);
				}
			}
}

/* Under the command table of a question of all the commands' time (the
 * default, or --metric total): the one command whose time moved most, when
 * it moved far more than the total did (tx in dx, ty in dy: the question's
 * values), with the question that asks of it (nrreq's reader took 16x as
 * long while the total, the writer's, moved 0.1%: "no significant
 * difference"). JSON: "command_hint" (its --metric name), or null. */
static void emit_cmd_hint(struct emit *e, const struct question *q,
			  const struct rundata *dx, const struct rundata *dy,
			  double tx, double ty)
{
	double best = 0;
	int bi = -1, bk = -1;
	char name[32] = "";

	if (!cmp_commands_sum(q) || q->cmd_mask || dy->ncmd < 2) {
		emit_str(e, "command_hint", NULL);
		return;
	}
	for (size_t i = 0; i < dy->ncmd; i++)
		for (size_t k = 0; k < dx->ncmd; k++) {
			double a = dx->cmds[k].real_s, b = dy->cmds[i].real_s;
			if (dx->cmds[k].idx != dy->cmds[i].idx || !isfinite(a) ||
			    !isfinite(b))
				continue;
			if (a > 0 && fabs(b - a) >= 0.1 && fabs(b - a) / a > best) {
				best = fabs(b - a) / a;
				bi = (int)i;
				bk = (int)k;
			}
		}
	/* half its own time or more, and five times the total's change */
	if (bi < 0 || best < 0.5 || !(tx > 0) || !isfinite(ty) ||
	    best < 5 * fabs(ty - tx) / tx) {
		emit_str(e, "command_hint", NULL);
		return;
	}
	snprintf(name, sizeof(name), "cmd%d_real_s", dy->cmds[bi].idx + 1);
	emit_str(e, "command_hint", name);
	{
		char line[300];
		double a = dx->cmds[bk].real_s, b = dy->cmds[bi].real_s;
		snprintf(line, sizeof(line), "cmd%d's time moved %+.3f s (%+.0f%%) "
			 "while the total moved %+.1f%%: to ask of it, --metric %s",
			 dy->cmds[bi].idx + 1, b - a, 100 * (b - a) / a,
			 100 * (ty - tx) / tx, name);
		emit_wrapped(e, line, 2);
	}
}

/* One comparison of side g against side 0: the question and which side is
 * worse, where the time went, and why (the waterfall of causes). */
static void emit_pair(struct compare *c, struct emit *e, int g)
{
	const struct question *q = &c->q;
	struct cmp_pair pr;
	const struct cmp_side *s0, *s1, *good, *bad;
	const char *bad_name, *good_name;
	char line[600];

	compare_pair(c, g, &pr);
	emit_obj_begin(e, NULL);
	emit_str(e, "base", c->gname[0]);
	emit_str(e, "this", c->gname[g]);
	if (pr.none) {
		c->unanswered++;
		emit_text(e, "%s vs %s: no %s to compare\n", c->gname[0],
			  c->gname[g], q->label);
		emit_obj_end(e);
		compare_pair_free(&pr);
		return;
	}
	s0 = &pr.s0;
	s1 = &pr.s1;
	bad = pr.worse ? s1 : s0;
	good = pr.worse ? s0 : s1;
	bad_name = c->gname[bad == s1 ? g : 0];
	good_name = c->gname[bad == s1 ? 0 : g];
	emit_num(e, "base_value", s0->med);
	emit_num(e, "value", s1->med);
	emit_num(e, "difference", pr.diff);
	emit_str(e, "explains", q->key);
	emit_obj_begin(e, "question");
	emit_str(e, "figure", q->key);
	emit_str(e, "label", q->label);
	emit_str(e, "unit", q->unit);
	emit_str(e, "direction", q->lower_better ? "lower is better"
						 : "higher is better");
	emit_u64(e, "direction_assumed", (uint64_t)q->assumed);
	emit_str(e, "chosen", q->why);
	{
		char src[1200];
		emit_str(e, "two_sources", sources_line(c, src, sizeof(src)) ?
			 src : NULL);
	}
	emit_obj_end(e);
	emit_str(e, "worse", pr.tie ? NULL : bad_name);
	emit_str(e, "better", pr.tie ? NULL : good_name);
	emit_num(e, "difference_s", pr.dtime);
	emit_num(e, "scale", pr.scale);
	emit_num(e, "not_explained_s", pr.rest);
	emit_str(e, "noise_test", pr.test);
	emit_arr_begin(e, "tail");
	for (int k = 0; k < pr.ntail; k++)
		cmp_tail_json(e, pr.tail_run[k], &pr.tail[k]);
	emit_arr_end(e);
	emit_arr_begin(e, "commands_past_trace");
	for (int k = 0; k < 2; k++)
		if (pr.past[k].n)
			emit_str(e, NULL, c->rf[(k ? s1 : s0)->rep].rv.name);
	emit_arr_end(e);
	emit_obj_begin(e, "same_work");
	emit_num(e, "base", pr.same_work[0]);
	emit_num(e, "this", pr.same_work[1]);
	emit_u64(e, "differs", fmin(pr.same_work[0], pr.same_work[1]) < CMP_SAME_WORK);
	emit_obj_end(e);
	emit_str(e, "verdict", pr.verdict);
	if (pr.size_moved) {
		emit_obj_begin(e, "request_size");
		emit_num(e, "better_kib", pr.kib[0]);
		emit_num(e, "worse_kib", pr.kib[1]);
		emit_obj_end(e);
	} else
		emit_str(e, "request_size", NULL);
	question_text(c, e, g, &pr, bad_name);
	emit_cmd_times(e, &c->rf[s0->rep].an.rd, &c->rf[s1->rep].an.rd);
	emit_cmd_hint(e, q, &c->rf[s0->rep].an.rd, &c->rf[s1->rep].an.rd,
		      s0->med, s1->med);
	emit_where(e, &c->rf[s0->rep].an, &c->rf[s1->rep].an, q);
	if (pr.tie)
		snprintf(line, sizeof(line), "why: causes by cost");
	else
		snprintf(line, sizeof(line), "why %s is worse than %s",
			 bad_name, good_name);
	if (strlen(line) > 70)
		snprintf(line, sizeof(line), "why: causes by cost");
	finding_emit_waterfall(e, pr.f, pr.nf, line, pr.tie ? 0 : pr.dtime,
			       pr.rest, "difference", "not explained: outside "
			       "what the trace and samples tell apart (the "
			       "workload's own CPU and think time, noise)",
			       q->duration || q->lower_better ? NULL : q->unit,
			       pr.dtime != 0 && !q->duration && !q->lower_better ?
			       (bad->med - good->med) / pr.dtime : 0);
	emit_obj_end(e);
	compare_pair_free(&pr);
}

void compare_emit_missing(struct compare *c, struct emit *e)
{
	emit_arr_begin(e, "missing");
	for (int i = 0; i < c->n; i++) {
		char why[256], line[600], buf[800];
		if (!c->rf[i].rep.ndev || completions_of(&c->rf[i].an))
			continue;
		report_no_completions(&c->rf[i].rv, why, sizeof(why));
		snprintf(line, sizeof(line), "%s: %s: no Q2C, D2C or span figures",
			 c->rf[i].rv.name, why);
		emit_obj_begin(e, NULL);
		emit_str(e, "run", c->rf[i].rv.name);
		emit_str(e, "why", why);
		emit_obj_end(e);
		wrap_indent(line, 78, 2, buf, sizeof(buf));
		emit_text(e, "%s\n", buf);
	}
	emit_arr_end(e);
}

void compare_emit_why(struct compare *c, struct emit *e)
{
	emit_arr_begin(e, "comparisons");
	for (int g = 1; g < c->ng; g++)
		emit_pair(c, e, g);
	emit_arr_end(e);
}

void compare_emit(struct compare *c, struct emit *e, int fmt)
{
	emit_obj_begin(e, NULL);
	if (fmt == CMP_MARKDOWN)
		emit_text(e, "### iotape compare\n\n");
	print_table(e, fmt, &c->fs, c->rf, c->n, c->grouped);
	compare_emit_missing(c, e);
	emit_arr_begin(e, "analyses");
	for (int i = 0; i < c->n; i++) {
		emit_obj_begin(e, NULL);
		emit_str(e, "run", c->rf[i].rv.name);
		an_run_emit(e, &c->rf[i].an);
		emit_obj_end(e);
	}
	emit_arr_end(e);
	if (fmt == CMP_MARKDOWN)
		emit_text(e, "\n```\n");
	compare_emit_why(c, e);
	if (fmt == CMP_MARKDOWN)
		emit_text(e, "```\n");
	emit_text(e, "\ndefinitions: iotape compare --help\n");
	emit_obj_end(e);
	emit_finish(e);
}

void compare_print_definitions(FILE *fp)
{
	fprintf(fp, "the question: the figure --metric names (a "
		"figure, a workload metric, a sum\n  A+B, total, span; "
		"NAME:higher or :lower), else the workload's own result\n  "
		"every run has, else the timed commands' total real time, else "
		"the\n  workload's span (first Q to last C of the families "
		"that issued its I/O);\n  times lower is better, rates higher. "
		"A rate's difference in the worse run's\n  seconds: E (1 - "
		"worse/better), E the workload's time, or the commands'\n  "
		"when the figure is of some commands (cmd2_read_iops). With "
		"repeats\n  (--group-by), the groups' medians, and whether the "
		"difference is beyond\n  the spread: Mann-Whitney U (p < 0.05) "
		"with 4 runs a side or more, else\n  non-overlapping ranges; "
		"with one run a side it cannot be told from noise,\n  and the "
		"difference counts only when it is 5%% of the better run's "
		"time, a\n  cause accounts for a quarter of it and the causes "
		"for half. A finding of\n  repeats stays a cause when it cost "
		"the worse group's runs more than the\n  better group's: its "
		"cost in each run against the better group's\n  representative "
		"run, by the same tests (or its median in the worse group\n  "
		"above every value of the better).\nwaterfall: each cause's "
		"time on the workload's critical path in the worse run\n  less "
		"the better run's (scaled to the work done); with the offsets "
		"(in the\n  other run's favour) and what is not explained it "
		"adds up to the difference.\n");
	an_print_definitions(fp);
}

int compare_expand_runs(struct store *st, char **args, int nargs,
			char ***names, int *n)
{
	struct store_run_listing *runs = NULL;
	size_t nruns = 0;
	int rc = 0;

	*names = xcalloc(CMP_MAX_RUNS, sizeof(**names));
	*n = 0;
	for (int i = 0; i < nargs && !rc; i++) {
		int matched = 0;
		int64_t id;
		/* a run's whole name, glob characters and all, is that run
		 * (replay --set's 'name[key=value]') */
		if (!strpbrk(args[i], "*?[") || !store_run_find(st, args[i], &id)) {
			if (*n < CMP_MAX_RUNS)
				(*names)[(*n)++] = xstrdup(args[i]);
			else
				rc = error("more than %d runs", CMP_MAX_RUNS);
			continue;
		}
		if (!runs && store_runs_list(st, 0, &runs, &nruns)) {
			rc = error("%s", store_errmsg(st));
			break;
		}
		for (size_t k = 0; k < nruns; k++) {
			const char *nm = runs[k].run.name;
			if (fnmatch(args[i], nm, 0))
				continue;
			matched = 1;
			if (*n < CMP_MAX_RUNS)
				(*names)[(*n)++] = xstrdup(nm);
			else if (!rc)
				rc = error("more than %d runs: '%s' matches too many",
					   CMP_MAX_RUNS, args[i]);
		}
		if (!matched && !rc)
			rc = error("no run matches '%s'", args[i]);
	}
	free(runs);
	return rc;
}

int compare_expand_runs_db(const char *db, char **args, int nargs,
			   char ***names, int *n)
{
	struct store *st = NULL;
	int rc;

	*names = NULL;
	*n = 0;
	if (store_open_existing(&st, db)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	rc = compare_expand_runs(st, args, nargs, names, n);
	store_close(st);
	return rc;
}

void compare_runs_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
