/* swap: how much was swapped out and in (vmstat si/so), and what it cost:
 * the time tasks were stalled on memory (PSI memory "some": reclaim,
 * swap-in, thrashing) when the run sampled /proc/pressure, else the time
 * processes waited on swap reads and on swap writes they issued themselves
 * (direct reclaim), from the trace. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

struct swap_state {
	int has_vm, has_psi;
	double out_mb, in_mb, peak_mb;
	double first_out_s;         /* -1: none */
	double psi_some_s, psi_full_s;
	double io_some_s;           /* PSI io some, for the evidence */
	double swapin_wait_s;       /* union of processes' swap reads */
	double direct_wait_s;       /* synchronous swap writes issued by
				     * processes (not kswapd): waited for */
	double trace_wait_s;        /* union of both */
	uint64_t swap_reads, swap_writes;
	/* of the writes, those processes issued (direct reclaim), and of
	 * them the synchronous ones */
	uint64_t direct_writes, direct_sync;
	double min_free_mb;
	int mem_frozen;             /* vmstat's swpd, free and cache never
				     * moved while pages were swapped (1 MB
				     * or more; procps-ng 4.0.2 prints them
				     * frozen): peak_mb, min_free_mb and
				     * vmstat's growth not known */
	/* why it swapped: what pushed pages out */
	double anon_growth_mb;      /* anonymous memory's growth */
	const char *anon_src;       /* "the memory cgroup's rss", ... */
	double dirty_peak_mb;       /* dirty + writeback pages at most */
	const char *dirty_src;
};

/* The growth of series s over [t0, t1] (its peak less its first value),
 * in MB from kB; NAN when it has no samples there. */
static double growth_mb(const struct an_series *s, int64_t t0, int64_t t1)
{
	double first = NAN, peak = NAN;

	for (size_t i = 0; i < s->n; i++) {
		if (s->t[i] < t0 || s->t[i] > t1)
			continue;
		if (isnan(first))
			first = s->v[i];
		if (isnan(peak) || s->v[i] > peak)
			peak = s->v[i];
	}
	return isnan(first) ? NAN : (peak - first) * 1024 / 1e6;
}

static double peak_mb(const struct an_series *a, const struct an_series *b,
		      int64_t t0, int64_t t1)
{
	double peak = NAN;

	for (size_t i = 0; i < a->n; i++) {
		double v;
		if (a->t[i] < t0 || a->t[i] > t1)
			continue;
		v = a->v[i] + (b->n ? series_at(b, a->t[i]) : 0);
		if (isnan(peak) || v > peak)
			peak = v;
	}
	return isnan(peak) ? NAN : peak * 1024 / 1e6;
}

/* What pushed pages out: anonymous growth and dirty pages, from the memory
 * cgroup's memory.stat under --mem-limit, else /proc/meminfo, else
 * vmstat's columns (used = all but free, cache and buffers). */
static void pressure(struct swap_state *s, const struct rundata *rd)
{
	int64_t t0 = rd->t0, t1 = rd->t1 > rd->t0 ? rd->t1 : INT64_MAX;

	s->anon_growth_mb = s->dirty_peak_mb = NAN;
	if (rd->cg_anon_kb.n) {
		s->anon_growth_mb = growth_mb(&rd->cg_anon_kb, t0, t1);
		s->anon_src = "the memory cgroup's rss";
	} else if (rd->anon_kb.n) {
		s->anon_growth_mb = growth_mb(&rd->anon_kb, t0, t1);
		s->anon_src = "AnonPages";
	} else if (rd->nvm && !s->mem_frozen) {
		double first = NAN, low = NAN;
		for (size_t i = 0; i < rd->nvm; i++) {
			const struct an_vm *v = &rd->vm[i];
			double avail;
			if (v->t < t0 || v->t > t1 || !isfinite(v->free) ||
			    !isfinite(v->cache))
				continue;
			avail = v->free + v->cache;
			if (isnan(first))
				first = avail;
			if (isnan(low) || avail < low)
				low = avail;
		}
		if (!isnan(first)) {
			s->anon_growth_mb = (first - low) * 1024 / 1e6;
			s->anon_src = "vmstat (free + cache fell)";
		}
	}
	if (rd->cg_dirty_kb.n) {
		s->dirty_peak_mb = peak_mb(&rd->cg_dirty_kb, &rd->cg_writeback_kb,
					   t0, t1);
		s->dirty_src = "the memory cgroup's";
	} else if (rd->dirty_kb.n) {
		s->dirty_peak_mb = peak_mb(&rd->dirty_kb, &rd->writeback_kb, t0, t1);
		s->dirty_src = "meminfo's";
	}
}

/* The fold's state: the numbers, and the unions of the trace's waits as
 * the Q events pass (by their starts, in order) */
struct swap_fold {
	struct swap_state s;        /* first: the numbers are the state */
	const struct rundata *rd;
	int64_t end;                /* a wait not seen to end ends here */
	struct ta_run reads, direct, both;
};

static void *swap_begin(const struct an_run *r)
{
	const struct rundata *rd = &r->rd;
	struct swap_fold *sf;
	struct swap_state *s;

	if (!rd->nvm && !rd->nswap && !rd->psi[RD_PSI_MEM_SOME].n)
		return NULL;
	sf = xcalloc(1, sizeof(*sf));
	sf->rd = rd;
	sf->end = rd->t1 > 0 ? rd->t1 : rd->rv->last_ns;
	s = &sf->s;
	s->first_out_s = -1;
	s->min_free_mb = -1;
	s->mem_frozen = rd->nvm >= 2;
	for (size_t i = 0; i < rd->nvm; i++) {
		const struct an_vm *v = &rd->vm[i];
		double dt = rundata_vm_dt_s(v);
		if (v->swpd != rd->vm[0].swpd || v->free != rd->vm[0].free ||
		    v->cache != rd->vm[0].cache)
			s->mem_frozen = 0;
		s->has_vm = 1;
		if (isfinite(v->so) && dt > 0) {
			s->out_mb += v->so * dt * 1024 / 1e6;
			s->in_mb += v->si * dt * 1024 / 1e6;
			if (s->first_out_s < 0 && v->so > 0)
				s->first_out_s = rundata_at_s(rd, v->t);
		}
		if (isfinite(v->swpd) && v->swpd * 1024 / 1e6 > s->peak_mb)
			s->peak_mb = v->swpd * 1024 / 1e6;
		if (isfinite(v->free) && (s->min_free_mb < 0 ||
					  v->free * 1024 / 1e6 < s->min_free_mb))
			s->min_free_mb = v->free * 1024 / 1e6;
	}
	if (rd->psi[RD_PSI_MEM_SOME].n >= 2 && rd->t1 > rd->t0) {
		s->has_psi = 1;
		s->psi_some_s = series_delta(&rd->psi[RD_PSI_MEM_SOME], rd->t0,
					     rd->t1) / 1e6;
		s->psi_full_s = series_delta(&rd->psi[RD_PSI_MEM_FULL], rd->t0,
					     rd->t1) / 1e6;
		s->io_some_s = series_delta(&rd->psi[RD_PSI_IO_SOME], rd->t0,
					    rd->t1) / 1e6;
	}
	s->mem_frozen = s->mem_frozen && s->out_mb + s->in_mb >= 1;
	pressure(s, rd);
	return sf;
}

/* Each bio with data on a swap device, at its Q: a read's Q to C is a
 * task waiting for a swap-in; a write's, one issued in direct reclaim
 * (by a process, not kswapd) when it is synchronous (S, FUA or a flush).
 * Reclaim writes pages out asynchronously (pageout(): WB_SYNC_NONE, no
 * S in RWBS) and does not wait for each one, as the critical path counts
 * no wait on an asynchronous write. */
static void swap_ev(void *state, const struct fold_ev *e)
{
	struct swap_fold *sf = state;
	const struct an_io *x = e->io;
	int64_t c;

	if (!x->bytes || !rundata_is_swap(sf->rd, x->dev))
		return;
	c = x->c != AN_NONE ? x->c : sf->end;
	if (!(x->flags & AN_WRITE)) {
		sf->s.swap_reads++;
		ta_run_add(&sf->reads, x->q, c);
		ta_run_add(&sf->both, x->q, c);
	} else {
		const char *comm = runview_comm(sf->rd->rv, x->pid);
		sf->s.swap_writes++;
		if (!comm || !strcmp(ta_role(comm), "")) {
			sf->s.direct_writes++;
			if (!(x->flags & (AN_SYNC | AN_FUA | AN_FLUSH)))
				return;
			sf->s.direct_sync++;
			ta_run_add(&sf->direct, x->q, c);
			ta_run_add(&sf->both, x->q, c);
		}
	}
}

static void *swap_end(const struct an_run *r, void *state)
{
	struct swap_fold *sf = state;

	(void)r;
	sf->s.swapin_wait_s = ta_run_end(&sf->reads);
	sf->s.direct_wait_s = ta_run_end(&sf->direct);
	sf->s.trace_wait_s = ta_run_end(&sf->both);
	return sf;
}

static int swap_finding(const struct an_run *r, const void *state,
			struct finding *f)
{
	const struct swap_state *s = state;
	double trace_s = s->trace_wait_s;

	f->present = s->out_mb + s->in_mb >= 1 || s->swap_reads + s->swap_writes
		     >= 100 || (s->has_psi && s->psi_some_s >= 0.01);
	f->mb = s->out_mb;
	/* the cost is the accounting's (an_run_findings(): CP_SWAP), which
	 * the how below gives; without PSI the trace's waits stand here for
	 * what one run measured (compare's sureness of a side with none) */
	if (s->has_psi) {
		/* PSI's memory stall counts reclaim and the refault of pages
		 * evicted recently (the workingset), not a swap-in of other
		 * pages (that waits as I/O); the trace counts every wait on the
		 * swap device, not reclaim without I/O */
		f->conf = s->out_mb + s->in_mb >= 1 || trace_s > 0 ? FD_HIGH
								  : FD_MEDIUM;
		FD_CAT(f, why, "PSI and the trace count the stalls themselves; "
		       "PSI is system-wide, so other processes' stalls count "
		       "too; the kernel's own CPU time on faults and swap cache "
		       "outside reclaim is not a stall and is not counted");
	} else {
		f->cost_s = trace_s;
		f->conf = r->rd.nswap > 0 ? FD_MEDIUM : FD_NONE;
		FD_CAT(f, why, "%s", f->conf ? "the trace shows the waits on the "
		       "swap device; reclaim without I/O (dropping clean pages) is "
		       "not in it (no PSI samples)" : !r->rd.n ? "no block trace "
		       "(vmstat's samples alone) and no PSI samples: the stall "
		       "is inferred from tasks blocked while pages were swapped, "
		       "not measured" : "no swap device found in the "
		       "trace (none listed, and no device's page-sized I/O "
		       "tracks vmstat's si/so) and no PSI samples: the stall "
		       "cannot be measured");
		if (r->rd.swap_inferred)
			FD_CAT(f, why, "; the swap device was told from the trace: "
			       "page-sized I/O whose volume tracks vmstat's si/so");
		if (!f->conf)
			FD_CAT(f, needs, "a capture with the swap device traced "
			       "(-d SWAPDEV), or PSI (kernel 4.20+)");
	}
	/* the cost is the workload's time the accounting gave swap
	 * (critpath's CP_SWAP: its waits on the swap devices, and the part
	 * of its free time stalled on memory, swap_stall_s); the how says
	 * that sum, with the machine's own figures beside it (a how of PSI's
	 * and the trace's union said 0.03 s beside a cost of 0.00 s) */
	{
		double all = r->cp.cat[CP_SWAP], stall = r->cp.swap_stall_s;
		double io = all - stall > 0 ? all - stall : 0;
		FD_CAT(f, how, "the workload's time the accounting gave swap, "
		       "%.2f s: its waits on I/O to the swap devices while "
		       "nothing else of it was under way, %.2f s (swap-in reads, "
		       "synchronous writes in direct reclaim; reclaim does not "
		       "wait for its asynchronous writes), and %.2f s of its time "
		       "off I/O stalled on memory, %s.", all, io, stall,
		       r->cp.measured ? "from its tasks' memory delays (the "
		       "kernel's delay accounting: reclaim, swap-in, thrashing)"
		       : s->has_psi ? "the share of each moment PSI memory "
		       "\"some\" says a task stalled (reclaim, refaulting "
		       "recently evicted pages; Documentation/accounting/psi.rst)"
		       : "while vmstat counted blocked tasks (b) and pages "
		       "swapped (si + so of 100 kB/s or more)");
		if (s->has_psi)
			FD_CAT(f, how, " Machine-wide, PSI memory some was %.2f s "
			       "(full %.2f s) and every process's waits on the "
			       "swap devices %.2f s.", s->psi_some_s,
			       s->psi_full_s, trace_s);
		else if (r->rd.n)
			FD_CAT(f, how, " Every process's waits on the swap "
			       "devices: %.2f s.", trace_s);
		else
			FD_CAT(f, how, " No block trace: waits on the swap "
			       "devices are not seen.");
	}
	snprintf(f->title, sizeof(f->title), "swap: %.1f MB swapped out, %.1f MB "
		 "in; the workload stalled %.2f s", s->out_mb, s->in_mb,
		 r->cp.cat[CP_SWAP]);
	/* neither PSI nor the kernel's delay accounting counted it: most of
	 * the stall is inferred from vmstat's blocked tasks ("inferred", not
	 * "measured": a vmstat log alone said "measured: 11.000 s" beside
	 * "the stall cannot be measured") */
	f->counterfactual = !s->has_psi && !r->cp.measured &&
			    r->cp.cat[CP_SWAP] > 2 * trace_s + 0.005;
	f->victim_pid = 0;
	f->stages = 0;
	/* frozen memory columns beside swapping: swpd, free and the
	 * growth they give are not what the machine had */
	FD_CAT(f, evidence, "vmstat si/so integrated over the samples: out %.1f "
	       "MB, in %.1f MB", s->out_mb, s->in_mb);
	if (s->mem_frozen)
		FD_CAT(f, evidence, " (vmstat's swpd, free and cache never moved: "
		       "procps-ng 4.0.2 prints them frozen, so swap used and free "
		       "memory are not known)");
	else
		FD_CAT(f, evidence, ", peak swap used %.1f MB", s->peak_mb);
	if (s->first_out_s >= 0)
		FD_CAT(f, evidence, ", first swap-out at %+.1f s", s->first_out_s);
	if (s->min_free_mb >= 0 && !s->mem_frozen)
		FD_CAT(f, evidence, "; free memory down to %.1f MB", s->min_free_mb);
	FD_CAT(f, evidence, "; swap device: %llu reads (waited %.2f s), %llu "
	       "writes", (unsigned long long)s->swap_reads, s->swapin_wait_s,
	       (unsigned long long)s->swap_writes);
	if (!s->direct_writes)
		FD_CAT(f, evidence, "%s", s->swap_writes ? " (all by kswapd)" : "");
	else if (!s->direct_sync)
		FD_CAT(f, evidence, " (%llu by processes in direct reclaim, none "
		       "synchronous: reclaim does not wait for each)",
		       (unsigned long long)s->direct_writes);
	else
		FD_CAT(f, evidence, " (%llu by processes in direct reclaim, %llu "
		       "synchronous: waited %.2f s)",
		       (unsigned long long)s->direct_writes,
		       (unsigned long long)s->direct_sync, s->direct_wait_s);
	if (s->has_psi)
		FD_CAT(f, evidence, "; PSI memory some %.2f s, full %.2f s, io "
		       "some %.2f s", s->psi_some_s, s->psi_full_s, s->io_some_s);
	/* why it swapped: what took the memory */
	if (isfinite(s->anon_growth_mb))
		FD_CAT(f, evidence, "; what pushed pages out: anonymous memory "
		       "grew %.1f MB (%s)", s->anon_growth_mb, s->anon_src);
	if (isfinite(s->dirty_peak_mb))
		FD_CAT(f, evidence, "%s dirty and writeback pages up to %.1f MB "
		       "(%s)", isfinite(s->anon_growth_mb) ? "," : "; what pushed "
		       "pages out:", s->dirty_peak_mb, s->dirty_src);
	if (r->cp.refault_mb >= 1)
		FD_CAT(f, evidence, ", file data read again %.1f MB",
		       r->cp.refault_mb);
	FD_CAT(f, evidence, ".");
	f->lo_s = 0;
	f->hi_s = rundata_elapsed_s(&r->rd);
	return 1;
}

static void swap_emit(struct emit *e, const void *state)
{
	const struct swap_state *s = state;

	emit_num(e, "swap_out_mb", s->out_mb);
	emit_num(e, "swap_in_mb", s->in_mb);
	emit_num(e, "peak_swap_mb", s->peak_mb);
	emit_num(e, "first_swap_s", s->first_out_s);
	emit_num(e, "min_free_mb", s->min_free_mb);
	emit_num(e, "psi_memory_some_s", s->has_psi ? s->psi_some_s : NAN);
	emit_num(e, "psi_memory_full_s", s->has_psi ? s->psi_full_s : NAN);
	emit_u64(e, "swap_reads", s->swap_reads);
	emit_u64(e, "swap_writes", s->swap_writes);
	emit_u64(e, "direct_reclaim_writes", s->direct_writes);
	emit_u64(e, "direct_reclaim_sync_writes", s->direct_sync);
	emit_num(e, "swapin_wait_s", s->swapin_wait_s);
	emit_num(e, "direct_reclaim_wait_s", s->direct_wait_s);
	emit_num(e, "swap_io_wait_s", s->trace_wait_s);
	emit_num(e, "anon_growth_mb", s->anon_growth_mb);
	emit_num(e, "dirty_writeback_peak_mb", s->dirty_peak_mb);
}

static void swap_release(void *state)
{
	free(state);
}

const struct analyzer an_swap = {
	.name = "swap",
	.fold_begin = swap_begin,
	.fold_ev = swap_ev,
	.fold_end = swap_end,
	.fold_kinds = 1u << EV_Q,
	.finding = swap_finding,
	.emit = swap_emit,
	.release = swap_release,
	.cats = 1u << CP_SWAP,
	.definitions =
"swap: swapped out/in MB integrate vmstat so/si over the samples. Cost:\n"
"  the workload's time stalled on memory: its waits on reads from the\n"
"  swap devices and on synchronous swap writes it issued (direct reclaim;\n"
"  reclaim's asynchronous writes are not waited for) while nothing else\n"
"  of it was under way, and of its time off I/O the share PSI memory\n"
"  \"some\" gives each moment, its tasks' memory delays (delay\n"
"  accounting), or else the time vmstat saw tasks blocked with pages\n"
"  swapped.\n",
};
