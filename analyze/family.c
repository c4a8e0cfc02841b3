/* Process families and the workload (family.h). */
#include "family.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static struct pstat *proc_stats(const struct rundata *rd, size_t *np)
{
	size_t cap = 1024, n = 0;
	struct pstat *p = xcalloc(cap, sizeof(*p));
	uint8_t *used = xcalloc(cap, 1);

	for (size_t i = 0; i <= rd->n + rd->ntask; i++) {
		uint32_t pid;
		const struct an_io *x = NULL;
		struct an_io xb;
		size_t h;
		if (i < rd->n) {
			x = rundata_io(rd, i, &xb);
			if (x->q == AN_NONE || (x->flags & AN_SPLIT_TAIL))
				continue;
			pid = x->pid;
		} else if (i < rd->n + rd->ntask)
			pid = rd->tasks[i - rd->n].pid;
		else
			break;
		if (2 * (n + 1) > cap) {
			/* grow and rehash */
			size_t nc = 2 * cap;
			struct pstat *q = xcalloc(nc, sizeof(*q));
			uint8_t *u = xcalloc(nc, 1);
			for (size_t k = 0; k < cap; k++) {
				if (!used[k])
					continue;
				h = (p[k].pid * 2654435761u) & (nc - 1);
				while (u[h])
					h = (h + 1) & (nc - 1);
				q[h] = p[k];
				u[h] = 1;
			}
			free(p);
			free(used);
			p = q;
			used = u;
			cap = nc;
		}
		h = (pid * 2654435761u) & (cap - 1);
		while (used[h] && p[h].pid != pid)
			h = (h + 1) & (cap - 1);
		if (!used[h]) {
			used[h] = 1;
			p[h] = (struct pstat){ .pid = pid, .first_q = INT64_MAX,
					       .last_c = INT64_MIN };
			n++;
		}
		if (!x)
			continue;
		p[h].bytes += x->bytes;
		p[h].bios++;
		if (x->flags & AN_WRITE) {
			p[h].wr += x->bytes;
			if (x->flags & (AN_SYNC | AN_FUA))
				p[h].swr += x->bytes;
		} else
			p[h].rd += x->bytes;
		if (x->q < p[h].first_q)
			p[h].first_q = x->q;
		if (x->c != AN_NONE && x->c > p[h].last_c)
			p[h].last_c = x->c;
		else if (x->c == AN_NONE && x->q > p[h].last_c)
			p[h].last_c = x->q;
	}
	/* packed to the front, by pid */
	{
		size_t m = 0;
		for (size_t k = 0; k < cap; k++)
			if (used[k])
				p[m++] = p[k];
		free(used);
		if (m)
			qsort(p, m, sizeof(*p), cmp_pid);
		*np = m;
	}
	return p;
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

/* The workload's span: its bios' first Q to last C, a stretch at either
 * end that holds under 1% of the bytes and is cut off from the rest by
 * empty time of a fifth of the span or more left out. */
static void workload_span(struct families *fs, const struct rundata *rd)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, w;
	double bin[SPAN_BINS] = { 0 }, total = 0, acc;
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
	for (size_t i = 0; i < rd->n; i++) {
		int64_t q = rundata_q(rd, i);
		if (q == AN_NONE || !family_is_workload(fs, rundata_pid(rd, i)))
			continue;
		bin[(q - lo) / w] += rundata_bytes(rd, i) + 1;
		total += rundata_bytes(rd, i) + 1;
	}
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
	{
		int64_t klo = lo + a * w, khi = lo + (int64_t)(b + 1) * w;
		int64_t t0 = INT64_MAX, t1 = INT64_MIN;
		for (size_t i = 0; i < rd->n; i++) {
			int64_t q = rundata_q(rd, i), c = rundata_c(rd, i);
			if (q == AN_NONE || q < klo || q >= khi ||
			    !family_is_workload(fs, rundata_pid(rd, i)))
				continue;
			if (q < t0)
				t0 = q;
			if ((c != AN_NONE ? c : q) > t1)
				t1 = c != AN_NONE ? c : q;
		}
		fs->t0 = t1 > t0 ? t0 : lo;
		fs->t1 = t1 > t0 ? t1 : hi;
	}
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
