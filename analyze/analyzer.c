/* The analyzers' table and the drivers report and compare call
 * (analyzer.h). */
#include "analyzer.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/blktrace_format.h"
#include "lib/emit.h"
#include "lib/util.h"
#include "model/model.h"

const struct analyzer *const analyzers[] = {
	&an_seek, &an_fairness, &an_queue, &an_readahead, &an_writeback,
	&an_swap, &an_cpu, &an_throttle, &an_journal, &an_device, &an_refault,
	&an_volume,
};
const int n_analyzers = (int)ARRAY_SIZE(analyzers);

void an_proc_name(const struct an_run *r, uint32_t pid, char *out, size_t len)
{
	const char *comm = runview_comm(r->rd.rv, pid);
	snprintf(out, len, "%.15s[%u]", comm ? comm : "?", pid);
}

void an_dev_name(uint32_t dev, char *out, size_t len)
{
	snprintf(out, len, "%u,%u", BT_MAJOR(dev), BT_MINOR(dev));
}

void an_dirty_limits(const struct rundata *rd, char *out, size_t len)
{
	static const char *const keys[2][2] = {
		{ "vm.dirty_background_bytes", "vm.dirty_bytes" },
		{ "vm.dirty_background_ratio", "vm.dirty_ratio" },
	};
	char v[2][2][32];
	int have[2][2];

	for (int u = 0; u < 2; u++)
		for (int k = 0; k < 2; k++)
			have[u][k] = !rundata_setting(rd, keys[u][k], v[u][k],
						      sizeof(v[u][k]));
	out[0] = 0;
	for (int k = 0; k < 2; k++) {
		/* bytes win when set (non-zero): writing one zeroes the other */
		int u = have[0][k] && strcmp(v[0][k], "0") ? 0 : 1;
		size_t o = strlen(out);
		if (!have[u][k])
			continue;
		snprintf(out + o, len - o, "%s%s %s", o ? ", " : "",
			 keys[u][k] + 3, v[u][k]);
	}
	if (!out[0])
		snprintf(out, len, "dirty limits unknown");
}

/* an_run_load_with()'s critical path, on a thread of its own: it reads
 * the rows (through its folds) and writes r->cp only, which nothing else
 * reads before the join. */
struct cp_work {
	struct an_run *r;
	uint64_t cmd_mask;
	int focus;
};

static void *cp_worker(void *arg)
{
	struct cp_work *w = arg;

	critpath_build(&w->r->cp, &w->r->rd, &w->r->ord, w->cmd_mask, w->focus);
	return NULL;
}

/* The analyzers that fold (analyzer.fold_*): one pass over r's events
 * for all of them, each one's numbers into its state[] slot. */
static void run_folds(struct an_run *r, const struct an_side *side)
{
	struct fold_sink s[AN_MAX + 1];
	int idx[AN_MAX], n = 0;

	for (int i = 0; i < n_analyzers && i < AN_MAX; i++) {
		const struct analyzer *a = analyzers[i];
		void *st;
		if (!a->fold_begin || !(st = a->fold_begin(r)))
			continue;
		s[n] = (struct fold_sink){ a->fold_ev, st, a->fold_kinds };
		idx[n++] = i;
	}
	if (side) {
		side->begin(side->ctx, r);
		s[n] = (struct fold_sink){ side->ev, side->ctx, side->kinds };
	}
	if (!n && !side)
		return;
	fold_run(&r->rd, &r->ord, s, n + (side != NULL));
	for (int k = 0; k < n; k++)
		r->state[idx[k]] = analyzers[idx[k]]->fold_end(r, s[k].ctx);
	if (side)
		side->end(side->ctx, r);
}

/* The second thread's part of the orders: Q (which only the accounting
 * and the analyzers read). */
static void *q_worker(void *arg)
{
	struct an_run *r = arg;

	evorder_add(&r->ord, 1u << EV_Q);
	return NULL;
}

int an_run_load_with(struct an_run *r, const struct runview *rv,
		     const struct an_opts *o,
		     const struct an_side *side, int threads)
{
	struct cp_work w = { .r = r, .cmd_mask = o ? o->cmd_mask : 0,
			     .focus = o ? o->focus : FAM_ALL };
	pthread_t th;
	int two = threads > 1, started;

	memset(r, 0, sizeof(*r));
	r->model = o ? o->model : NULL;
	/* a replay on a modelled disk costed on a model again: its D2C holds
	 * the model's queueing already, and the modelled time came out at a
	 * hundredth of the run's (0.256 s of 20.8 s) */
	if (r->model && rv->modelled) {
		fprintf(stderr, "iotape: --model: run '%s' was replayed on %s: its "
			"device times are the model's already; leave --model "
			"out\n", rv->name, rv->model_targets[0] ?
			rv->model_targets : "a modelled disk");
		return -1;
	}
	/* the rows in a temporary file, read by the folds as streams, unless
	 * the caller reads them itself after */
	if (rundata_load_to(&r->rd, rv, two ? 2 : 1, !(o && o->rows_in_memory)))
		return -1;
	/* rows in memory: their orders (Q on one thread, D and C on the
	 * other) for the folds; then the accounting, a fold over the run's
	 * events */
	if (!r->rd.rows_file) {
		evorder_build(&r->ord, &r->rd, 0);
		started = two && !pthread_create(&th, NULL, q_worker, r);
		evorder_add(&r->ord, 1u << EV_D | 1u << EV_C);
		if (started)
			pthread_join(th, NULL);
		else
			q_worker(r);
	}
	/* the critical path on one thread (its passes need nothing of the
	 * rest); on this one the accounting, a fold over the run's events,
	 * then the analyzers' folds (which build on the accounting) and the
	 * side task's in one more pass, and any analyzer's build */
	started = two && !pthread_create(&th, NULL, cp_worker, &w);
	if (!started)
		cp_worker(&w);
	timeacct_begin(&r->ta, &r->rd);
	fold_run(&r->rd, &r->ord, &(struct fold_sink){ timeacct_ev, &r->ta,
						      TA_FOLD_KINDS }, 1);
	timeacct_end(&r->ta);
	run_folds(r, side);
	for (int i = 0; i < n_analyzers && i < AN_MAX; i++)
		if (analyzers[i]->build)
			r->state[i] = analyzers[i]->build(r);
	if (started)
		pthread_join(th, NULL);
	/* --model: the workload's I/O at the modelled disk's times */
	if (r->model)
		for (int i = 0; i < n_analyzers; i++)
			if (analyzers[i] == &an_seek && r->state[i]) {
				double svc, seq, d2c;
				an_seek_modelled(r, r->state[i], &svc, &seq, &d2c);
				critpath_model(&r->cp, svc, seq, d2c, r->model->name);
			}
	/* what only the builds read: memory back before the next run loads
	 * (compare holds several) */
	evorder_free(&r->ord);
	return 0;
}

void an_run_drop_rows(struct an_run *r)
{
	rundata_drop_rows(&r->rd);
}

void an_run_free(struct an_run *r)
{
	for (int i = 0; i < n_analyzers && i < AN_MAX; i++)
		if (r->state[i])
			analyzers[i]->release(r->state[i]);
	timeacct_free(&r->ta);
	critpath_free(&r->cp);
	evorder_free(&r->ord);
	rundata_free(&r->rd);
	memset(r, 0, sizeof(*r));
}

/* The seconds of categories cats (1 << CP_*) in v. */
static double cats_sum(const double *v, unsigned cats)
{
	double s = 0;

	for (int k = 0; k < CP_NCAT; k++)
		if (cats & (1u << k))
			s += v[k];
	return s;
}

/* A finding for analyzer a from its categories alone, when its own finding()
 * had nothing to say of run r (too few bios for its evidence, say) but the
 * workload's time in them is there. Returns 1 when it made one. */
static int generic_finding(const struct analyzer *a, const struct an_run *r,
			   struct finding *f)
{
	double c = 0;
	int k1 = -1;

	for (int k = 0; k < CP_NCAT; k++)
		if (a->cats & (1u << k)) {
			c += r->cp.cat[k];
			if (k1 < 0)
				k1 = k;
		}
	if (k1 < 0 || c < FD_MIN_S)
		return 0;
	finding_init(f, a->name);
	f->present = 1;
	snprintf(f->title, sizeof(f->title), "%s: the workload %s %.2f s",
		 a->name, cp_cat_desc[k1], c);
	FD_CAT(f, how, "the workload's time on its critical path in this "
	       "category (iotape compare --help)");
	FD_CAT(f, evidence, "%.2f s of the workload's %.2f s", c,
	       r->cp.elapsed_s);
	f->conf = FD_MEDIUM;
	FD_CAT(f, why, "the critical path's accounting of the trace and samples");
	f->lo_s = 0;
	f->hi_s = r->cp.elapsed_s;
	return 1;
}

/* The costs of run r's findings out[0..n) as parts of the workload's time
 * that do not overlap: the categories' seconds are a budget; a finding with
 * its own cost (analyzer.draws) takes from its categories, those no other
 * present finding names first, and is capped by them; a finding of
 * categories (analyzer.cats) gets what is left of its own. an[i] is
 * out[i]'s analyzer. */
static void carve(const struct an_run *r, struct finding *out,
		  const struct analyzer *const *an, int n)
{
	double left[CP_NCAT];
	unsigned named = 0;

	for (int k = 0; k < CP_NCAT; k++)
		left[k] = r->cp.cat[k];
	for (int i = 0; i < n; i++)
		if (an[i]->cats && !an[i]->compare_only && out[i].present)
			named |= an[i]->cats;
	for (int i = 0; i < n; i++) {
		unsigned d = an[i]->draws ? an[i]->draws : 1u << CP_DEVICE;
		double want = out[i].cost_s, got = 0;
		if (an[i]->cats || want <= 0)
			continue;
		for (int pass = 0; pass < 2; pass++)
			for (int k = 0; k < CP_NCAT && got < want; k++) {
				double take;
				if (!(d & (1u << k)) ||
				    !!(named & (1u << k)) != pass)
					continue;
				take = fmin(left[k], want - got);
				left[k] -= take;
				got += take;
			}
		out[i].cost_s = got;
	}
	for (int i = 0; i < n; i++)
		if (an[i]->cats && !an[i]->compare_only &&
		    out[i].cost_s > cats_sum(left, an[i]->cats))
			out[i].cost_s = cats_sum(left, an[i]->cats);
}

int an_run_findings(const struct an_run *r, struct finding *out, int max,
		    double *own_s)
{
	double el = r->cp.elapsed_s, causes = 0;
	const struct analyzer *an[AN_MAX];
	int n = 0;

	for (int i = 0; i < n_analyzers && n < max; i++) {
		const struct analyzer *a = analyzers[i];
		struct finding *f = &out[n];
		finding_init(f, a->name);
		/* no data for it: listed as not seen */
		if (!r->state[i] || a->finding(r, r->state[i], f) ||
		    (a->cats && !a->compare_only && generic_finding(a, r, f))) {
			if (a->cats && r->state[i] && !a->compare_only) {
				f->cost_s = cats_sum(r->cp.cat, a->cats);
				if (r->cp.modelled && r->model)
					snprintf(f->cost_of, sizeof(f->cost_of),
						 "the workload's time on the "
						 "modelled disk %s", r->model->name);
				else
					snprintf(f->cost_of, sizeof(f->cost_of),
						 "the workload's time");
			}
			/* a cost never larger than the run */
			if (f->cost_s > el)
				f->cost_s = el;
			/* what only a run alone says goes before its why */
			if (f->solo[0]) {
				char why[sizeof(f->why)];
				memcpy(why, f->why, sizeof(why));
				f->why[0] = '\0';
				FD_CAT(f, why, "%s%s%s", f->solo, why[0] ? "; " : "",
				       why);
			}
			an[n++] = a;
		}
	}
	carve(r, out, an, n);
	finding_rank(out, n, el, FD_CAUSE_SHARE * el);
	for (int i = 0; i < n; i++)
		if (out[i].cause)
			causes += out[i].cost_s;
	if (own_s)
		*own_s = el - causes;
	return n;
}

/* The evidence of both runs for analyzer a: y's finding, with x's beside
 * it. Returns 1 when either run has one. */
static int both_findings(const struct analyzer *a, const struct an_run *x,
			 const void *sx, const struct an_run *y, const void *sy,
			 struct finding *f)
{
	struct finding fx, fy;
	int hx, hy;

	finding_init(&fx, a->name);
	finding_init(&fy, a->name);
	hx = sx && a->finding(x, sx, &fx);
	hy = sy && a->finding(y, sy, &fy);
	/* the categories alone, when the analyzer had nothing to say */
	if (!hx && a->cats)
		hx = generic_finding(a, x, &fx);
	if (!hy && a->cats)
		hy = generic_finding(a, y, &fy);
	if (!hx && !hy)
		return 0;
	*f = hy ? fy : fx;
	f->present = (hy && fy.present) || (hx && fx.present);
	/* as sure as the less sure side that measured something */
	if (hx && hy && !(fx.conf == FD_NONE && fx.cost_s == 0) &&
	    !(fy.conf == FD_NONE && fy.cost_s == 0))
		f->conf = fx.conf < fy.conf ? fx.conf : fy.conf;
	else
		f->conf = hy && !(fy.conf == FD_NONE && fy.cost_s == 0) ? fy.conf
									 : fx.conf;
	f->evidence[0] = f->why[0] = '\0';
	/* a run whose finding gave no numbers gets no line */
	if (hy && fy.evidence[0])
		FD_CAT(f, evidence, "%s: %s", y->rd.rv->name, fy.evidence);
	if (hx && fx.evidence[0])
		FD_CAT(f, evidence, "%s%s: %s", f->evidence[0] ? "\n" : "",
		       x->rd.rv->name, fx.evidence);
	FD_CAT(f, why, "%s", hy ? fy.why : fx.why);
	if (hy && hx && fx.mb >= 0 && fy.mb >= 0)
		f->mb = fy.mb - fx.mb;
	f->x_cost_s = hx ? fx.cost_s : 0;
	snprintf(f->x_title, sizeof(f->x_title), "%s", hx ? fx.title : "");
	snprintf(f->x_why, sizeof(f->x_why), "%s", hx ? fx.why : "");
	f->y_cost_s = hy ? fy.cost_s : 0;
	return 1;
}

/* What critpath_diff() moved out of category k between runs x and y (x
 * scaled by scale): the categories' own difference less d's, s (the
 * queueing y's slower service brought, given the device; the wait for a
 * CPU that came with more or less work, given the workload's own time). */
static double diff_moved_s(const struct an_run *x, const struct an_run *y,
			   double scale, const struct cp_diff *d, int k)
{
	return (y->cp.cat[k] - scale * x->cp.cat[k]) - d->d[k];
}

/* The device finding's "how" in compare: how its cost comes from the
 * categories, so the figures it shows add up (critpath_diff()): the device
 * and seek categories' differences, and the queueing y's slower service
 * brought, make the device's difference, split class by class into
 * requests of a size taking longer (this cost), farther seeks (seek's) and
 * the requests' count and size (volume's, readahead's). */
static void device_how(struct finding *f, const struct an_run *x,
		       const struct an_run *y, double scale,
		       const struct cp_diff *d)
{
	double dev = y->cp.cat[CP_DEVICE] - scale * x->cp.cat[CP_DEVICE];
	double seek = y->cp.cat[CP_SEEK] - scale * x->cp.cat[CP_SEEK];
	double q = diff_moved_s(x, y, scale, d, CP_QUEUE);
	double mix = d->mix_s[0] + d->mix_s[1] + d->volume_s[0] + d->volume_s[1];

	/* nothing split: the category's difference is the cost */
	if (fabs(d->d[CP_DEVICE] - dev) < 0.0005 && fabs(seek) < 0.0005 &&
	    fabs(q) < 0.0005)
		return;
	FD_CAT(f, how, " (%+.3f s); with seeks' %+.3f s", dev, seek);
	if (fabs(q) >= 0.0005)
		FD_CAT(f, how, " and %+.3f s of queueing that slower service "
		       "brought", q);
	FD_CAT(f, how, ", the device's %+.3f s, split class by class "
	       "(direction and size): requests of a size taking longer %+.3f s "
	       "(this cost), farther seeks %+.3f s (seek), the requests' count "
	       "and size %+.3f s", dev + seek + q, d->d[CP_DEVICE],
	       d->d[CP_SEEK], mix);
	if (d->flush_speed_s > 0)
		FD_CAT(f, how, ", writes beside the journal's cache flushes "
		       "%+.3f s (journal)", d->flush_speed_s);
}

int an_compare_findings(const struct an_run *x, const struct an_run *y,
			double diff_s, double scale, struct finding *out,
			int max, double *unexplained_s)
{
	struct cp_diff d;
	double min_cost, sum = 0;
	int n = 0;

	critpath_diff(&x->cp, &y->cp, scale, &d);
	for (int i = 0; i < n_analyzers && n < max; i++) {
		const struct analyzer *a = analyzers[i];
		struct finding *f = &out[n];
		int got, fell = 0;
		finding_init(f, a->name);
		if (!x->state[i] && !y->state[i])
			got = 1;        /* not seen in either */
		else
			got = both_findings(a, x, x->state[i], y, y->state[i], f);
		if (!got)
			continue;
		f->cost_s = 0;
		if (a->cats) {
			f->cost_s = cats_sum(d.d, a->cats);
			f->x_part_s = scale * cats_sum(x->cp.cat, a->cats);
			f->y_part_s = cats_sum(y->cp.cat, a->cats);
			/* y did less of x's work (a rate asked about): time
			 * its categories took no more of in y than in x, in
			 * seconds, did not make it do less; its cost would
			 * be the scale's alone (a writer's 4.53 s blocked
			 * beside a reader, 7.18 s in x, read as +3.87 s at
			 * the reader's IOPS ratio, 0.09) */
			if (scale < 1 && f->cost_s > 0 &&
			    f->y_part_s <= cats_sum(x->cp.cat, a->cats)) {
				f->cost_s = 0;
				fell = 1;
			}
		}
		if (a->mix_cost) {
			double m = a->mix_cost(&d);
			f->cost_s += m;
			if (a->mix_title && fabs(m) >= FD_MIN_S &&
			    fabs(m) > 0.5 * fabs(f->cost_s))
				a->mix_title(&d, x, y, f);
		}
		/* a cost with no finding in either run to name it (the mix
		 * alone): the analyzer's name and what it measured */
		if (!f->title[0])
			snprintf(f->title, sizeof(f->title), "%s: its part of the "
				 "difference", a->name);
		if (!a->cats && !a->mix_cost) {
			f->cost_s = f->y_cost_s - scale * f->x_cost_s;
			f->x_part_s = scale * f->x_cost_s;
			f->y_part_s = f->y_cost_s;
		}
		snprintf(f->cost_of, sizeof(f->cost_of), "%.40s's time beyond "
			 "%.40s's", y->rd.rv->name, x->rd.rv->name);
		f->how[0] = 0;
		if (a->cats) {
			FD_CAT(f, how, "%.3f s of the workload's time in %s less "
			       "%.3f s in %s", cats_sum(y->cp.cat, a->cats),
			       y->rd.rv->name, cats_sum(x->cp.cat, a->cats),
			       x->rd.rv->name);
			if (scale != 1)
				FD_CAT(f, how, " (%s's scaled by %.3f to the work "
				       "%s did)", x->rd.rv->name, scale,
				       y->rd.rv->name);
			if (fell)
				FD_CAT(f, how, "; not counted: no more of %s's "
				       "time than of %s's, unscaled (less work "
				       "done in the same time is no cause of "
				       "doing less)", y->rd.rv->name,
				       x->rd.rv->name);
		}
		if (a->cats & (1u << CP_DEVICE))
			device_how(f, x, y, scale, &d);
		/* the queueing y's slower service brought is the device's
		 * (device_how()): the cost is less than the line above by it
		 * ("0.106 s ... less 0.000 s", cost 0.07 s, said nowhere) */
		if (a->cats & (1u << CP_QUEUE)) {
			double q = diff_moved_s(x, y, scale, &d, CP_QUEUE);
			if (fabs(q) >= 0.0005)
				FD_CAT(f, how, "; of that, %+.3f s of queueing that "
				       "slower service brought is the device's "
				       "(device)", q);
		}
		/* critpath_diff() split the wait for a CPU: the cost is the
		 * contention's change, the rest came with more or less work
		 * at x's contention ("0.326 s ... less 0.863 s" beside a
		 * cost of -0.04 s, said nowhere) */
		if (a->cats == 1u << CP_CPU && !fell && !a->mix_cost) {
			double w = diff_moved_s(x, y, scale, &d, CP_CPU);
			if (fabs(w) >= 0.0005)
				FD_CAT(f, how, "; the cost is the change in its wait "
				       "per second of its work on a CPU (contention); "
				       "the other %+.3f s came with %s work at %s's "
				       "wait per second, the workload's own", w,
				       w > 0 ? "more" : "less", x->rd.rv->name);
		}
		/* critpath_diff() gave the journal the writes' slower
		 * service beside its cache flushes (write barriers): say so,
		 * and count it in the worse run's part */
		if (d.flush_speed_s > 0 && (a->cats & (1u << CP_JOURNAL))) {
			FD_CAT(f, how, ", and %.3f s of the workload's writes' "
			       "slower service at the device beside the "
			       "journal's %.0f cache flushes (%.0f in %s): "
			       "write barriers have the device put its cache "
			       "on the media, and the writes beside them wait "
			       "for it", d.flush_speed_s, d.flushes[1],
			       d.flushes[0], x->rd.rv->name);
			f->y_part_s += d.flush_speed_s;
		} else if (d.flush_speed_s > 0 && (a->cats & (1u << CP_DEVICE)))
			f->y_part_s -= d.flush_speed_s;
		/* critpath_diff() gave swap the more work done under memory
		 * pressure: say so, or the cost is more than the "less" above
		 * says (17.00 s from "11.000 s less 0.000 s") */
		if ((a->cats & (1u << CP_SWAP)) && fabs(d.work_to_swap_s) >= 0.0005)
			FD_CAT(f, how, ", and %.3f s more of the workload's own "
			       "time (on a CPU, faulting and reclaiming) under the "
			       "memory pressure", d.work_to_swap_s);
		if ((a->cats & (1u << CP_SEEK)) && fabs(d.seekmix_s) >= FD_MIN_S)
			FD_CAT(f, how, "; of the device's difference, %.3f s from "
			       "dispatches seeking farther (each class's time at "
			       "the other run's seek distances, btt's bands)",
			       d.seekmix_s);
		/* a writer the trace does not show (it only dirtied pages):
		 * the flushers' writes while it was blocked stand for its wait,
		 * as report says; here too, or "1.43 s" reads against the
		 * evidence's "0.10 s blocked while writeback ran" */
		if ((a->cats & (1u << CP_THROTTLE)) &&
		    (y->cp.proxy_throttle_s >= 0.0005 ||
		     x->cp.proxy_throttle_s >= 0.0005))
			FD_CAT(f, how, "; of those, the flushers' writes while "
			       "vmstat counted a task blocked stand for the "
			       "writer's wait (it only dirtied pages: not in the "
			       "trace): %.3f s in %s, %.3f s in %s",
			       y->cp.proxy_throttle_s, y->rd.rv->name,
			       x->cp.proxy_throttle_s, x->rd.rv->name);
		/* and its share of the queueing that more time at the device
		 * brought (critpath_diff(): as many processes sharing), or the
		 * cost is more than the how says (0.95 s beside 0.429 s) */
		if ((a->cats & (1u << CP_SEEK)) &&
		    fabs(d.d[CP_SEEK] - d.seekmix_s) >= 0.0005)
			FD_CAT(f, how, ", and %+.3f s of the queueing that the "
			       "longer time at the device brought (as many "
			       "processes sharing it)", d.d[CP_SEEK] - d.seekmix_s);
		/* an analyzer of categories claims the mix only at times
		 * (seek: a layout's): its how says so only then */
		if (a->mix_cost && a->mix_how &&
		    (!a->cats || fabs(a->mix_cost(&d)) >= 0.0005))
			FD_CAT(f, how, "%s%s: %.3f s", f->how[0] ? "; " : "",
			       a->mix_how, a->mix_cost(&d));
		else if (a->mix_cost)
			FD_CAT(f, how, "%sthe part of the device's difference "
			       "from the reads' count and size, class by class "
			       "(mean read request %.1f KiB in %s, %.1f KiB in %s): "
			       "%.3f s",
			       f->how[0] ? "; " : "", d.mean_kb[1][0],
			       y->rd.rv->name, d.mean_kb[0][0], x->rd.rv->name,
			       a->mix_cost(&d));
		/* a cost in the better run's favour: what the better run had,
		 * and why, in its own figures */
		if (f->cost_s < 0 && f->x_title[0]) {
			snprintf(f->title, sizeof(f->title), "%.60s: %.130s",
				 x->rd.rv->name, f->x_title);
			snprintf(f->why, sizeof(f->why), "%s", f->x_why);
		}
		/* a compare-only cause's one-run why ("a cause only against
		 * another run") reads wrong here, where it is against one */
		if (a->compare_only)
			snprintf(f->why, sizeof(f->why), "its part of the "
				 "difference, from both runs' %s", a->cats ?
				 "accounting" : "requests, class by class");
		/* a part of the workload's time measured in both runs: sure
		 * enough to count, whatever one run alone could say */
		if (fabs(f->cost_s) >= FD_MIN_S) {
			f->present = 1;
			if (f->conf == FD_NONE && (a->cats || a->mix_cost)) {
				/* the one-run reason ("what seeking cost here
				 * cannot be told") is not this cost's: said as
				 * what one run alone could not say */
				char one[sizeof(f->why)];
				snprintf(one, sizeof(one), "%s", f->why);
				/* a compare-only analyzer's is already this */
				if (!strncmp(one, "its part of the difference", 26))
					one[0] = '\0';
				f->conf = x->cp.measured && y->cp.measured ? FD_HIGH
									   : FD_MEDIUM;
				snprintf(f->why, sizeof(f->why), "its part of the "
					 "difference, from both runs' accounting%s%.*s%s",
					 one[0] ? " (of one run alone: " : "",
					 (int)sizeof(one) - 80, one, one[0] ? ")" : "");
			}
		}
		sum += f->cost_s;
		n++;
	}
	if (unexplained_s)
		*unexplained_s = diff_s - sum;
	/* a cause must account for a tenth of the difference, and be above
	 * what run-to-run noise moves a cost by (a share of the run) */
	min_cost = fmax(fmax(FD_CAUSE_SHARE_DIFF * fabs(diff_s), FD_MIN_S),
			FD_CAUSE_SHARE * y->cp.elapsed_s);
	finding_rank(out, n, fabs(diff_s), min_cost);
	return n;
}

void an_run_emit(struct emit *e, const struct an_run *r)
{
	emit_obj_begin(e, "analysis");
	critpath_emit(e, &r->cp);
	for (int i = 0; i < n_analyzers; i++)
		if (r->state[i] && analyzers[i]->emit) {
			emit_obj_begin(e, analyzers[i]->name);
			analyzers[i]->emit(e, r->state[i]);
			emit_obj_end(e);
		}
	emit_obj_end(e);
}

void an_print_definitions(FILE *fp)
{
	fprintf(fp, "%s", timeacct_definitions);
	fprintf(fp, "findings: each names a cause and what it cost in seconds "
		"(cost), how that was\n  estimated (measured directly, or "
		"against a counterfactual), its evidence,\n  its window and "
		"confidence. A cause costs at least %.0f%% of the run's time "
		"in\n  report (in compare: %.0f%% of the difference and %.0f%% of "
		"the slower run);\n  the score is the cost's share of that time. "
		"Patterns that cost less are\n  listed as present with no "
		"measurable cost.\n", 100 * FD_CAUSE_SHARE,
		100 * FD_CAUSE_SHARE_DIFF, 100 * FD_CAUSE_SHARE);
	for (int i = 0; i < n_analyzers; i++)
		fprintf(fp, "%s", analyzers[i]->definitions);
}
