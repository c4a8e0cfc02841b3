/* Process families and the workload (family.h). */
#include "family.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/fold.h"
#include "analyze/timeacct.h"
#include "lib/util.h"

#define SPAN_BINS 1000

struct pstat {
	uint32_t pid;
	uint64_t bytes, bios, rd, wr, swr;
	int64_t first_q, last_c;
};

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = ((const struct pstat *)a)->pid;
	uint32_t y = ((const struct pstat *)b)->pid;
	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Each process's I/O, by pid, and the tasks with none: an open-addressed
 * table of pids (a shell loop has thousands), then sorted. */
struct pstats {
	struct pstat *p;
	uint8_t *used;
	size_t cap, n;
};

static struct pstat *pstat_of(struct pstats *ps, uint32_t pid)
{
	size_t h;

	if (2 * (ps->n + 1) > ps->cap) {
		/* grow and rehash */
		size_t nc = ps->cap ? 2 * ps->cap : 1024;
		struct pstat *q = xcalloc(nc, sizeof(*q));
		uint8_t *u = xcalloc(nc, 1);
		for (size_t k = 0; k < ps->cap; k++) {
			if (!ps->used[k])
				continue;
			h = (ps->p[k].pid * 2654435761u) & (nc - 1);
			while (u[h])
				h = (h + 1) & (nc - 1);
			q[h] = ps->p[k];
			u[h] = 1;
		}
		free(ps->p);
		free(ps->used);
		ps->p = q;
		ps->used = u;
		ps->cap = nc;
	}
	h = (pid * 2654435761u) & (ps->cap - 1);
	while (ps->used[h] && ps->p[h].pid != pid)
		h = (h + 1) & (ps->cap - 1);
	if (!ps->used[h]) {
		ps->used[h] = 1;
		ps->p[h] = (struct pstat){ .pid = pid, .first_q = INT64_MAX,
					    .last_c = INT64_MIN };
		ps->n++;
	}
	return &ps->p[h];
}

/* Each request with a Q once (a split's tail apart: its bio's Q counted
 * on the other half). */
static void pstat_ev(void *ctx, const struct fold_ev *e)
{
	const struct an_io *x = e->io;
	struct pstat *p;

	if (x->q == AN_NONE || (x->flags & AN_SPLIT_TAIL))
		return;
	p = pstat_of(ctx, x->pid);
	p->bytes += x->bytes;
	p->bios++;
	if (x->flags & AN_WRITE) {
		p->wr += x->bytes;
		if (x->flags & (AN_SYNC | AN_FUA))
			p->swr += x->bytes;
	} else
		p->rd += x->bytes;
	if (x->q < p->first_q)
		p->first_q = x->q;
	if (x->c != AN_NONE && x->c > p->last_c)
		p->last_c = x->c;
	else if (x->c == AN_NONE && x->q > p->last_c)
		p->last_c = x->q;
}

static struct pstat *proc_stats(const struct rundata *rd, size_t *np)
{
	struct pstats ps = { 0 };

	fold_run(rd, NULL, &(struct fold_sink){ pstat_ev, &ps,
						1u << FOLD_ROW }, 1);
	for (size_t i = 0; i < rd->ntask; i++)
		pstat_of(&ps, rd->tasks[i].pid);
	/* packed to the front, by pid */
	{
		size_t m = 0;
		for (size_t k = 0; k < ps.cap; k++)
			if (ps.used[k])
				ps.p[m++] = ps.p[k];
		free(ps.used);
		if (m)
			qsort(ps.p, m, sizeof(*ps.p), cmp_pid);
		*np = m;
	}
	return ps.p;
}

static void family_name(const struct rundata *rd, uint32_t pid, char *out,
			const char **role)
{
	const char *comm = rd->rv ? runview_comm(rd->rv, pid) : NULL;

	*role = ta_role(comm);
	if (**role)
		snprintf(out, FAM_NAME, "%s", *role);
	else if (comm && *comm && strcmp(comm, "?"))
		snprintf(out, FAM_NAME, "%.*s", FAM_NAME - 1, comm);
	else
		snprintf(out, FAM_NAME, "pid %" PRIu32, pid);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct family *x = *(const struct family *const *)a;
	const struct family *y = *(const struct family *const *)b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* workload_span()'s passes over the workload's bios with a Q: their
 * bytes (and one for each) by Q in bins of w from lo, then the first Q
 * and last C (Q without) of those queued in [klo, khi) */
struct span_pass {
	const struct families *fs;
	int64_t lo, w;
	double *bin, total;
	int64_t klo, khi, t0, t1;
};

static void span_bins_ev(void *ctx, const struct fold_ev *e)
{
	struct span_pass *sp = ctx;
	const struct an_io *x = e->io;

	if (x->q == AN_NONE || !family_is_workload(sp->fs, x->pid))
		return;
	sp->bin[(x->q - sp->lo) / sp->w] += x->bytes + 1;
	sp->total += x->bytes + 1;
}

static void span_ends_ev(void *ctx, const struct fold_ev *e)
{
	struct span_pass *sp = ctx;
	const struct an_io *x = e->io;
	int64_t q = x->q, c = x->c;

	if (q == AN_NONE || q < sp->klo || q >= sp->khi ||
	    !family_is_workload(sp->fs, x->pid))
		return;
	if (q < sp->t0)
		sp->t0 = q;
	if ((c != AN_NONE ? c : q) > sp->t1)
		sp->t1 = c != AN_NONE ? c : q;
}

/* The workload's span: its bios' first Q to last C, a stretch at either
 * end that holds under 1% of the bytes and is cut off from the rest by
 * empty time of a fifth of the span or more left out. */
static void workload_span(struct families *fs, const struct rundata *rd)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, w;
	double bin[SPAN_BINS] = { 0 }, total, acc;
	struct span_pass sp;
	int a, b, gap;

	for (int i = 0; i < fs->n; i++)
		if (fs->f[i].workload && fs->f[i].bios) {
			if (fs->f[i].first_q < lo)
				lo = fs->f[i].first_q;
			if (fs->f[i].last_c > hi)
				hi = fs->f[i].last_c;
		}
	fs->t0 = fs->t1 = 0;
	if (hi <= lo)
		return;
	w = (hi - lo) / SPAN_BINS + 1;
	sp = (struct span_pass){ .fs = fs, .lo = lo, .w = w, .bin = bin };
	fold_run(rd, NULL, &(struct fold_sink){ span_bins_ev, &sp,
						1u << FOLD_ROW }, 1);
	total = sp.total;
	/* from each end: a small lump before a long empty stretch goes */
	a = 0;
	b = SPAN_BINS - 1;
	for (int pass = 0; pass < 2; pass++) {
		int from = pass ? b : a, dir = pass ? -1 : 1, k = from;
		acc = 0;
		while (k >= a && k <= b) {
			acc += bin[k];
			if (acc > 0.01 * total)
				break;
			/* the empty run after k */
			gap = 0;
			while (k + dir * (gap + 1) >= a && k + dir * (gap + 1) <= b &&
			       bin[k + dir * (gap + 1)] == 0)
				gap++;
			if (acc > 0 && gap >= SPAN_BINS / 5) {
				if (pass)
					b = k - gap - 1;
				else
					a = k + gap + 1;
				break;
			}
			k += dir * (gap + 1);
		}
	}
	if (a == 0 && b == SPAN_BINS - 1) {
		fs->t0 = lo;
		fs->t1 = hi;
		return;
	}
	/* the exact ends within the kept bins */
	sp.klo = lo + a * w;
	sp.khi = lo + (int64_t)(b + 1) * w;
	sp.t0 = INT64_MAX;
	sp.t1 = INT64_MIN;
	fold_run(rd, NULL, &(struct fold_sink){ span_ends_ev, &sp,
						1u << FOLD_ROW }, 1);
	fs->t0 = sp.t1 > sp.t0 ? sp.t0 : lo;
	fs->t1 = sp.t1 > sp.t0 ? sp.t1 : hi;
}

void families_build(struct families *fs, const struct rundata *rd,
		    int focus)
{
	size_t np;
	struct pstat *p = proc_stats(rd, &np);
	struct family **by;
	uint64_t user = 0, all = 0;
	int wb = -1;

	memset(fs, 0, sizeof(*fs));
	fs->pid = xmalloc((np ? np : 1) * sizeof(*fs->pid));
	fs->fam = xmalloc((np ? np : 1) * sizeof(*fs->fam));
	fs->f = xcalloc(np ? np : 1, sizeof(*fs->f));
	fs->has_tasks = rd->ntask > 0;
	for (size_t i = 0; i < np; i++) {
		char name[FAM_NAME];
		const char *role;
		int k;
		family_name(rd, p[i].pid, name, &role);
		for (k = 0; k < fs->n && strcmp(fs->f[k].name, name); k++)
			;
		if (k == fs->n) {
			snprintf(fs->f[k].name, FAM_NAME, "%s", name);
			fs->f[k].role = role;
			fs->f[k].first_q = INT64_MAX;
			fs->f[k].last_c = INT64_MIN;
			fs->n++;
		}
		fs->pid[i] = p[i].pid;
		fs->fam[i] = k;
		fs->f[k].nproc++;
		fs->f[k].bytes += p[i].bytes;
		fs->f[k].bios += p[i].bios;
		fs->f[k].rd_bytes += p[i].rd;
		fs->f[k].wr_bytes += p[i].wr;
		fs->f[k].sync_wr_bytes += p[i].swr;
		if (p[i].first_q < fs->f[k].first_q)
			fs->f[k].first_q = p[i].first_q;
		if (p[i].last_c > fs->f[k].last_c)
			fs->f[k].last_c = p[i].last_c;
		/* the capture's tasks, but kernel threads (kthreadd's children)
		 * it recorded for their roles */
		if (fs->has_tasks && !*role && rundata_task(rd, p[i].pid) &&
		    rundata_task(rd, p[i].pid)->ppid != 2 && p[i].pid != 2)
			fs->f[k].workload = 1;
	}
	fs->npid = np;
	free(p);
	by = xmalloc((fs->n ? fs->n : 1) * sizeof(*by));
	for (int k = 0; k < fs->n; k++) {
		by[k] = &fs->f[k];
		all += fs->f[k].bytes;
		if (!*fs->f[k].role)
			user += fs->f[k].bytes;
		if (!strcmp(fs->f[k].role, "writeback"))
			wb = k;
	}
	qsort(by, (size_t)fs->n, sizeof(*by), cmp_rank);
	for (int k = 0; k < fs->n; k++)
		by[k]->rank = k;
	free(by);
	if (!fs->has_tasks && focus == FAM_READS) {
		uint64_t reads = 0;
		int any = 0;
		for (int k = 0; k < fs->n; k++)
			if (!*fs->f[k].role)
				reads += fs->f[k].rd_bytes;
		for (int k = 0; k < fs->n; k++)
			if (!*fs->f[k].role && fs->f[k].rd_bytes &&
			    (double)fs->f[k].rd_bytes >= 0.02 * (double)reads)
				any = fs->f[k].workload = 1;
		if (any) {
			snprintf(fs->why, sizeof(fs->why), "the processes that "
				 "issued its reads (2%% of the reads' bytes or "
				 "more): the figure is of reads");
			workload_span(fs, rd);
			return;
		}
	}
	if (fs->has_tasks)
		snprintf(fs->why, sizeof(fs->why), "the processes the commands "
			 "ran (the capture's delay accounting)");
	else {
		for (int k = 0; k < fs->n; k++)
			if (!*fs->f[k].role && fs->f[k].bytes &&
			    (double)fs->f[k].bytes >= 0.02 * (double)user)
				fs->f[k].workload = 1;
		snprintf(fs->why, sizeof(fs->why), "the processes that issued "
			 "its I/O (2%% of the bytes or more)");
	}
	if (wb >= 0 && fs->f[wb].bytes && (double)user < all / 3.0) {
		fs->f[wb].workload = 1;
		fs->proxy_writeback = 1;
		snprintf(fs->why + strlen(fs->why), sizeof(fs->why) - strlen(fs->why),
			 "%s, and the writeback flushers that wrote most of it",
			 user ? "" : ": none; the writeback flushers wrote it");
	}
	if (!user && !fs->proxy_writeback)
		for (int k = 0; k < fs->n; k++)
			if (fs->f[k].bytes && (double)fs->f[k].bytes >= 0.02 * all)
				fs->f[k].workload = 1;
	workload_span(fs, rd);
}

static long pid_index(const struct families *fs, uint32_t pid)
{
	const uint32_t *at;

	if (!fs->npid)
		return -1;
	at = bsearch(&pid, fs->pid, fs->npid, sizeof(*fs->pid), cmp_u32);
	return at ? at - fs->pid : -1;
}

int family_of(const struct families *fs, uint32_t pid)
{
	long i = pid_index(fs, pid);
	return i < 0 ? -1 : fs->fam[i];
}

int family_is_workload(const struct families *fs, uint32_t pid)
{
	int k = family_of(fs, pid);
	return k >= 0 && fs->f[k].workload;
}

void families_free(struct families *fs)
{
	free(fs->f);
	free(fs->pid);
	free(fs->fam);
	memset(fs, 0, sizeof(*fs));
}
