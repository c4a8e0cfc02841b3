/* The analyzers' table and the drivers report and compare call
 * (analyzer.h). */
#include "analyzer.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/blktrace_format.h"
#include "lib/emit.h"
#include "lib/util.h"

const struct analyzer *const analyzers[] = {
	&an_seek, &an_fairness, &an_queue, &an_readahead, &an_writeback,
	&an_swap,
};
const int n_analyzers = (int)ARRAY_SIZE(analyzers);

/* The order the builds are handed to the threads: the longest first (on the
 * 5.1M-event bench queue takes 0.13 s, fairness 0.06, seek 0.04), so the
 * two threads end together; analyzers not named follow in table order. */
static const struct analyzer *const build_first[] = {
	&an_queue, &an_fairness, &an_seek,
};

void an_proc_name(const struct an_run *r, uint32_t pid, char *out, size_t len)
{
	const char *comm = runview_comm(r->rd.rv, pid);
	snprintf(out, len, "%.15s[%u]", comm ? comm : "?", pid);
}

void an_dev_name(uint32_t dev, char *out, size_t len)
{
	snprintf(out, len, "%u,%u", BT_MAJOR(dev), BT_MINOR(dev));
}

/* The builds of an_run_load_with(), shared by its threads: the tasks in
 * order, each taken by the next free thread; each writes its own part of
 * r (its state[] slot), or the side task its own ctx. */
struct load_work {
	struct an_run *r;
	const struct an_side *side;
	int task[AN_MAX + 1];       /* analyzers[] indices; -1: the side task */
	int ntask, next;
	pthread_mutex_t lock;
};

/* The next task of w, or -2 when there are none. */
static int next_task(struct load_work *w)
{
	int t;

	pthread_mutex_lock(&w->lock);
	t = w->next < w->ntask ? w->task[w->next++] : -2;
	pthread_mutex_unlock(&w->lock);
	return t;
}

static void *build_worker(void *arg)
{
	struct load_work *w = arg;
	int t;

	while ((t = next_task(w)) != -2) {
		if (t == -1)
			w->side->fn(w->side->ctx, w->r);
		else
			w->r->state[t] = analyzers[t]->build(w->r);
	}
	return NULL;
}

/* The second thread's half of the accounting: the Q order (which only the
 * process rows and the analyzers read), then the process rows. */
static void *rows_worker(void *arg)
{
	struct an_run *r = arg;

	evorder_add(&r->ord, 1u << EV_Q);
	timeacct_rows(&r->ta, &r->rd, &r->ord);
	return NULL;
}

int an_run_load_with(struct an_run *r, const struct runview *rv,
		     const struct disk_profile *model,
		     const struct an_side *side, int threads)
{
	struct load_work w = { .r = r, .side = side };
	pthread_t th;
	int two = threads > 1, started;

	memset(r, 0, sizeof(*r));
	r->model = model;
	if (rundata_load_parts(&r->rd, rv, two ? 2 : 1))
		return -1;
	/* the orders and the accounting: processes on one thread, devices
	 * (D and C orders) on the other */
	evorder_build(&r->ord, &r->rd, 0);
	timeacct_begin(&r->ta, &r->rd);
	started = two && !pthread_create(&th, NULL, rows_worker, r);
	evorder_add(&r->ord, 1u << EV_D | 1u << EV_C);
	timeacct_devs(&r->ta, &r->rd, &r->ord);
	if (started)
		pthread_join(th, NULL);
	else
		rows_worker(r);
	timeacct_end(&r->ta);
	/* the builds, the longest first, and the side task after them */
	for (size_t k = 0; k < ARRAY_SIZE(build_first); k++)
		for (int i = 0; i < n_analyzers && i < AN_MAX; i++)
			if (analyzers[i] == build_first[k])
				w.task[w.ntask++] = i;
	for (int i = 0; i < n_analyzers && i < AN_MAX; i++) {
		int listed = 0;
		for (size_t k = 0; k < ARRAY_SIZE(build_first); k++)
			listed |= analyzers[i] == build_first[k];
		if (!listed)
			w.task[w.ntask++] = i;
	}
	if (side)
		w.task[w.ntask++] = -1;
	pthread_mutex_init(&w.lock, NULL);
	started = two && !pthread_create(&th, NULL, build_worker, &w);
	build_worker(&w);
	if (started)
		pthread_join(th, NULL);
	pthread_mutex_destroy(&w.lock);
	/* what only the builds read: memory back before the next run loads
	 * (compare holds several) */
	evorder_free(&r->ord);
	timeacct_drop_bios(&r->ta);
	return 0;
}

int an_run_load(struct an_run *r, const struct runview *rv,
		const struct disk_profile *model)
{
	return an_run_load_with(r, rv, model, NULL, 2);
}

void an_run_free(struct an_run *r)
{
	for (int i = 0; i < n_analyzers && i < AN_MAX; i++)
		if (r->state[i])
			analyzers[i]->release(r->state[i]);
	timeacct_free(&r->ta);
	evorder_free(&r->ord);
	rundata_free(&r->rd);
	memset(r, 0, sizeof(*r));
}

int an_run_findings(const struct an_run *r, struct finding *out, int max)
{
	double el = rundata_elapsed_s(&r->rd);
	int n = 0;

	for (int i = 0; i < n_analyzers && n < max; i++) {
		finding_init(&out[n], analyzers[i]->name);
		/* no data for it: listed as not seen */
		if (!r->state[i] ||
		    analyzers[i]->finding(r, r->state[i], &out[n]))
			n++;
	}
	finding_rank(out, n, el, FD_CAUSE_SHARE * el);
	return n;
}

/* The default comparison: y's cost less x's, with both runs' evidence. */
static int compare_costs(const struct analyzer *a, const struct an_run *x,
			 const void *sx, const struct an_run *y, const void *sy,
			 struct finding *f)
{
	struct finding fx, fy;
	int hx, hy;

	finding_init(&fx, a->name);
	finding_init(&fy, a->name);
	hx = sx && a->finding(x, sx, &fx);
	hy = sy && a->finding(y, sy, &fy);
	if (!hx && !hy)
		return 0;
	*f = hy ? fy : fx;
	f->present = (hy && fy.present) || (hx && fx.present);
	f->cost_s = (hy ? fy.cost_s : 0) - (hx ? fx.cost_s : 0);
	if (f->cost_s < 0)
		f->cost_s = 0;
	/* as sure as the less sure side; a side that measured nothing (cost
	 * 0, no confidence: the pattern is absent there) does not make the
	 * other's cost unsure */
	if (hx && hy && !(fx.conf == FD_NONE && fx.cost_s == 0) &&
	    !(fy.conf == FD_NONE && fy.cost_s == 0))
		f->conf = fx.conf < fy.conf ? fx.conf : fy.conf;
	else
		f->conf = hy && !(fy.conf == FD_NONE && fy.cost_s == 0) ? fy.conf
									 : fx.conf;
	f->how[0] = f->evidence[0] = f->why[0] = '\0';
	FD_CAT(f, how, "%.2f s in %s less %.2f s in %s; each: ",
	       hy ? fy.cost_s : 0, y->rd.rv->name, hx ? fx.cost_s : 0,
	       x->rd.rv->name);
	FD_CAT(f, how, "%s", hy ? fy.how : fx.how);
	if (hy)
		FD_CAT(f, evidence, "%s: %s", y->rd.rv->name, fy.evidence);
	if (hx)
		FD_CAT(f, evidence, "%s%s: %s", hy ? "\n" : "", x->rd.rv->name,
		       fx.evidence);
	FD_CAT(f, why, "%s", hy ? fy.why : fx.why);
	if (hy && hx && fx.mb >= 0 && fy.mb >= 0)
		f->mb = fy.mb - fx.mb;
	return 1;
}

int an_compare_findings(const struct an_run *x, const struct an_run *y,
			double diff_s, struct finding *out, int max)
{
	double el = rundata_elapsed_s(&y->rd);
	double min_cost;
	int n = 0;

	for (int i = 0; i < n_analyzers && n < max; i++) {
		const struct analyzer *a = analyzers[i];
		int got;
		finding_init(&out[n], a->name);
		if (!x->state[i] && !y->state[i])
			got = 1;        /* not seen in either */
		else if (a->compare)
			got = a->compare(x, x->state[i], y, y->state[i], &out[n]);
		else
			got = compare_costs(a, x, x->state[i], y, y->state[i],
					    &out[n]);
		n += got;
	}
	/* a cause must account for a tenth of the difference, and be above
	 * what run-to-run noise moves a cost by (a share of the run) */
	min_cost = fmax(FD_CAUSE_SHARE_DIFF * diff_s, FD_CAUSE_SHARE * el);
	finding_rank(out, n, diff_s, min_cost);
	return n;
}

void an_run_emit(struct emit *e, const struct an_run *r)
{
	emit_obj_begin(e, "analysis");
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
