/* throttle: the workload blocked while it issued no I/O of its own. With
 * the writeback flushers writing and dirty data over the throttling point
 * (mm/page-writeback.c: balance_dirty_pages() puts a writer to sleep once
 * dirty pages pass (background + dirty threshold) / 2), it is dirty
 * throttling: a buffered writer made to wait for the disk. With no I/O on
 * the traced devices at all it is I/O held above the block layer (blk-
 * throttle or another cgroup I/O limit delays a bio before its Q). Its cost
 * is that time: from vmstat's blocked tasks (b) against the trace, or, with
 * the capture's delay accounting, the workload's block I/O delay beyond the
 * time the trace shows it waiting on its own I/O. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

struct thr_state {
	double dirty_peak_mb;
	int sampled;              /* Dirty was sampled (meminfo) */
	char limits[160];
};

static void *thr_build(const struct an_run *r)
{
	const struct rundata *rd = &r->rd;
	struct thr_state *s;

	if (!rd->nvm && !rd->ntask && !rd->dirty_kb.n)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	for (size_t i = 0; i < rd->dirty_kb.n; i++)
		if (rd->dirty_kb.v[i] * 1024 / 1e6 > s->dirty_peak_mb)
			s->dirty_peak_mb = rd->dirty_kb.v[i] * 1024 / 1e6;
	s->sampled = rd->dirty_kb.n > 0;
	an_dirty_limits(rd, s->limits, sizeof(s->limits));
	return s;
}

static int thr_finding(const struct an_run *r, const void *state,
		       struct finding *f)
{
	const struct thr_state *s = state;
	const struct critpath *cp = &r->cp;
	double c = cp->cat[CP_THROTTLE];
	int dirty = cp->wb_active_s + cp->proxy_throttle_s > cp->held_s;

	f->present = c >= FD_MIN_S;
	if (dirty && s->sampled)
		snprintf(f->title, sizeof(f->title), "throttle: the writer was "
			 "blocked %.2f s at the dirty limit (%.120s)", c, s->limits);
	else if (dirty)
		/* no Dirty samples: the limit is inferred from blocked
		 * tasks while the flushers wrote, and said so */
		snprintf(f->title, sizeof(f->title), "throttle: the writer was "
			 "blocked %.2f s while the flushers wrote (Dirty not "
			 "sampled; %.60s)", c, s->limits);
	else
		snprintf(f->title, sizeof(f->title), "throttle: the workload was "
			 "blocked %.2f s with no I/O traced (on an untraced "
			 "device, or held above the block layer: blk-throttle, a "
			 "cgroup I/O limit)", c);
	f->counterfactual = !cp->measured;
	if (cp->measured)
		FD_CAT(f, how, "the workload's tasks' "
		       "block I/O delay beyond the time the trace shows them "
		       "waiting on their own I/O (%.2f s summed over its tasks), "
		       "as its share of their time not on traced I/O.",
		       cp->dly_blkio_s);
	else
		FD_CAT(f, how, "the workload's time not waiting on its "
		       "own traced I/O while vmstat counted blocked tasks (b) and "
		       "%s.", dirty && s->sampled ? "the flushers' writes were "
		       "in flight with dirty data over the throttling point" :
		       dirty ? "the flushers' writes were in flight (Dirty not "
		       "sampled: its being over the throttling point is "
		       "inferred)" : "no traced device had I/O in flight");
	if (cp->proxy_throttle_s > 0)
		FD_CAT(f, how, " The writer itself is not in the trace (it "
		       "only dirtied pages): %.2f s of the flushers' writes while "
		       "vmstat counted a task blocked and no process of the "
		       "workload synced stand for its wait.", cp->proxy_throttle_s);
	/* no meminfo samples (a vmstat log has no Dirty column): unknown,
	 * not 0 */
	if (s->sampled)
		FD_CAT(f, evidence, "%s; peak Dirty %.1f MB", s->limits,
		       s->dirty_peak_mb);
	else
		FD_CAT(f, evidence, "%s; Dirty not sampled", s->limits);
	FD_CAT(f, evidence, "; %.2f s of the workload's free time blocked while "
	       "writeback ran, %.2f s blocked with the devices idle",
	       cp->wb_active_s, cp->held_s);
	/* blocked tasks while the flushers wrote, with no Dirty to show the
	 * limit was reached: a reader waiting on other I/O looks the same */
	f->conf = cp->measured ? FD_HIGH : dirty && !s->sampled ? FD_LOW
								 : FD_MEDIUM;
	FD_CAT(f, why, "%s", cp->measured ? "the kernel counted the waits" :
	       dirty && !s->sampled ? "vmstat's b counts every task in I/O "
	       "wait, machine-wide, and no Dirty sample shows the limit reached"
	       : "vmstat's b counts every task in I/O wait, machine-wide");
	f->lo_s = 0;
	f->hi_s = cp->elapsed_s;
	return 1;
}

static void thr_emit(struct emit *e, const void *state)
{
	const struct thr_state *s = state;

	emit_num(e, "dirty_peak_mb", s->sampled ? s->dirty_peak_mb : NAN);
	emit_str(e, "limits", s->limits);
}

static void thr_release(void *state)
{
	free(state);
}

const struct analyzer an_throttle = {
	.name = "throttle",
	.build = thr_build,
	.finding = thr_finding,
	.emit = thr_emit,
	.release = thr_release,
	.cats = 1u << CP_THROTTLE,
	.definitions =
"throttle: the workload blocked (vmstat b) while issuing no I/O of its own:\n"
"  with the flushers writing and dirty data over (background + dirty\n"
"  threshold) / 2, dirty throttling (balance_dirty_pages); with no I/O on\n"
"  the traced devices, I/O on a device not traced or held above the block\n"
"  layer (blk-throttle). With delay accounting: the block I/O delay beyond\n"
"  the traced waits.\n",
};
