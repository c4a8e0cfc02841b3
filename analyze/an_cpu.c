/* cpu: the workload runnable but not on a CPU. Its cost is the workload's
 * time not waiting on its own I/O while the CPUs were saturated, in the
 * share the runnable tasks beyond the CPUs' number had to wait (vmstat r
 * over the machine's CPUs: with r runnable on n CPUs, each waits 1 - n/r
 * of the time); with the capture's delay accounting, the share its tasks
 * measured waiting for a CPU (taskstats cpu_delay_total, /proc/PID/
 * schedstat's run delay: Documentation/scheduler/sched-stats.rst). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

struct cpu_state {
	double r_mean, r_max, id_mean, us_sy_mean;
	int nvm;
};

static void *cpu_build(const struct an_run *r)
{
	const struct rundata *rd = &r->rd;
	struct cpu_state *s;

	if (!rd->nvm && !rd->ntask)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	for (size_t i = 0; i < rd->nvm; i++) {
		const struct an_vm *v = &rd->vm[i];
		if (v->t < rd->t0 || (rd->t1 > rd->t0 && v->t > rd->t1 +
				      (int64_t)1000000000) || !isfinite(v->r) ||
		    !isfinite(v->id))
			continue;
		s->nvm++;
		s->r_mean += v->r;
		s->id_mean += v->id;
		s->us_sy_mean += (isfinite(v->us) ? v->us : 0) +
				 (isfinite(v->sy) ? v->sy : 0);
		if (v->r > s->r_max)
			s->r_max = v->r;
	}
	if (s->nvm) {
		s->r_mean /= s->nvm;
		s->id_mean /= s->nvm;
		s->us_sy_mean /= s->nvm;
	}
	return s;
}

static int cpu_finding(const struct an_run *r, const void *state,
		       struct finding *f)
{
	const struct cpu_state *s = state;
	const struct critpath *cp = &r->cp;
	double c = cp->cat[CP_CPU];
	int pinned;

	f->present = c >= FD_MIN_S;
	snprintf(f->title, sizeof(f->title), "cpu: the workload waited %.2f s "
		 "for a CPU (runnable, not running)", c);
	f->counterfactual = !cp->measured;
	if (cp->measured)
		FD_CAT(f, how, "the workload's tasks' run "
		       "delay (taskstats cpu_delay_total, %.2f s summed over its "
		       "tasks), as its share of the time they did not wait on "
		       "their traced I/O.", cp->dly_cpu_s);
	else
		FD_CAT(f, how, "of the workload's time not waiting on "
		       "its own I/O, the part when vmstat showed more runnable "
		       "tasks (r, less vmstat itself) than CPUs busy: the CPUs "
		       "saturated (id under 10%%), or r of %d or more with a CPU "
		       "busy (tasks pinned to it wait while another idles); each "
		       "waits 1 - busy CPUs / runnable tasks.",
		       (r->rd.ncpu ? r->rd.ncpu : 1) + 2);
	FD_CAT(f, evidence, "vmstat over the run: r mean %.1f, max %.0f, on %d "
	       "CPU%s%s; us+sy mean %.0f%%, id mean %.0f%%; %.2f s of the "
	       "workload's free time had runnable tasks waiting", s->r_mean, s->r_max,
	       r->rd.ncpu, r->rd.ncpu == 1 ? "" : "s", r->rd.ncpu ? "" :
	       " (the count unknown: taken as 1)", s->us_sy_mean, s->id_mean,
	       cp->cpu_busy_s);
	/* most of it told with a CPU idle: only tasks pinned to the busy
	 * ones wait so, and vmstat cannot show pinning */
	pinned = !cp->measured && cp->cpu_pinned_s > 0.5 * c;
	f->conf = cp->measured ? FD_HIGH : s->nvm >= 2 ? (r->rd.ncpu && !pinned ?
						  FD_MEDIUM : FD_LOW) : FD_NONE;
	FD_CAT(f, why, "%s", cp->measured ? "the kernel counted the waits" :
	       "vmstat's r is a count at each sample, machine-wide: other "
	       "processes' runnable time counts too");
	if (pinned)
		FD_CAT(f, why, "; %.2f s of it with a CPU idle (vmstat id): so "
		       "only if the tasks were pinned to the busy CPUs (taskset, "
		       "cpusets), which vmstat does not show", cp->cpu_pinned_s);
	if (!s->nvm && !cp->measured)
		FD_CAT(f, needs, "vmstat samples (a vmstat 1 log) or a capture");
	f->lo_s = 0;
	f->hi_s = cp->elapsed_s;
	return 1;
}

static void cpu_emit(struct emit *e, const void *state)
{
	const struct cpu_state *s = state;

	emit_num(e, "r_mean", s->r_mean);
	emit_num(e, "r_max", s->r_max);
	emit_num(e, "id_mean_pct", s->id_mean);
}

static void cpu_release(void *state)
{
	free(state);
}

const struct analyzer an_cpu = {
	.name = "cpu",
	.build = cpu_build,
	.finding = cpu_finding,
	.emit = cpu_emit,
	.release = cpu_release,
	.cats = 1u << CP_CPU,
	.definitions =
"cpu: the workload's time runnable but not on a CPU. Inferred from vmstat:\n"
"  of its time not waiting on its own I/O, with more runnable tasks r (less\n"
"  vmstat) than busy CPUs b (the CPUs saturated, id under 10%, or r of n +\n"
"  2 or more: pinned tasks), the share 1 - b/r; measured, with the\n"
"  capture's delay accounting, as its tasks' run delay.\n",
};
