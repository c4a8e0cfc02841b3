/* The explaining analyzers: swap, seek, fairness, writeback and idle, over
 * one run's stitched requests and samples. Definitions: analysis_definitions
 * below (and docs/iotape.md). */
#include "analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/blktrace_format.h"
#include "lib/emit.h"
#include "lib/util.h"

#define NONE INT64_MIN
/* Dirty data worth writing: below this, an idle device is no finding. */
#define DIRTY_MB 8.0

int io_rows_load(const struct runview *rv, struct io_row **out, size_t *n)
{
	struct store_cursor *cur;
	struct store_request rq;
	size_t cap = 0;
	int step;

	*out = NULL;
	*n = 0;
	if (store_requests_open(rv->st, rv->id, STORE_RQ_ALL, STORE_RQ_Q |
				STORE_RQ_D | STORE_RQ_C | STORE_RQ_SECTOR | STORE_RQ_DISPATCH |
				STORE_RQ_BYTES | STORE_RQ_PID | STORE_RQ_DEV | STORE_RQ_SEEK |
				STORE_RQ_CATS | STORE_RQ_D_HEAD | STORE_RQ_SPLIT, &cur))
		return error("%s", store_errmsg(rv->st));
	while ((step = store_requests_next(cur, &rq, NULL)) > 0) {
		struct io_row *r;
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		r = &(*out)[(*n)++];
		r->q = rq.q_ns;
		r->d = rq.d_ns;
		r->c = rq.c_ns;
		r->dsector = rq.has_d ? rq.d_sector : rq.sector;
		r->bytes = rq.bytes;
		r->dbytes = rq.has_d ? rq.d_bytes : 0;
		r->pid = rq.pid;
		r->dev = rq.dev;
		r->has_seek = (uint8_t)rq.has_seek;
		r->seek = rq.seek_sectors;
		r->write = (rq.cats & (BT_C_WRITE | BT_C_DISCARD)) != 0;
		r->head = (uint8_t)rq.d_head;
		r->split = (uint8_t)rq.split;
	}
	store_cursor_close(cur);
	if (step < 0)
		return error("%s", store_errmsg(rv->st));
	return 0;
}

/* Sorts n elements of size bytes at base by a 64-bit key that key_of gives
 * for each: an LSD radix sort, 8 bits a pass, passes over key bytes that
 * are all alike skipped. Stable. For the analyzers' big sorts by time,
 * which qsort spent a third of a report on. */
static void radix_sort(void *base, size_t n, size_t size,
		       uint64_t (*key_of)(const void *))
{
	uint64_t *key, *key2, all_or = 0, all_and = ~0ull;
	char *tmp, *src = base, *dst;

	if (n < 64) {
		/* insertion sort: tiny arrays */
		char *t = xmalloc(size);
		for (size_t i = 1; i < n; i++) {
			size_t j = i;
			memcpy(t, src + i * size, size);
			while (j > 0 && key_of(src + (j - 1) * size) > key_of(t)) {
				memcpy(src + j * size, src + (j - 1) * size, size);
				j--;
			}
			memcpy(src + j * size, t, size);
		}
		free(t);
		return;
	}
	key = xmalloc(n * sizeof(*key));
	key2 = xmalloc(n * sizeof(*key2));
	tmp = xmalloc(n * size);
	for (size_t i = 0; i < n; i++) {
		key[i] = key_of(src + i * size);
		all_or |= key[i];
		all_and &= key[i];
	}
	dst = tmp;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		if (!(((all_or ^ all_and) >> shift) & 0xff))
			continue;   /* every key has the same byte here */
		for (size_t i = 0; i < n; i++)
			count[((key[i] >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		if (size == sizeof(void *)) {
			void **d = (void **)dst, **sv = (void **)src;
			for (size_t i = 0; i < n; i++) {
				size_t at = count[(key[i] >> shift) & 0xff]++;
				d[at] = sv[i];
				key2[at] = key[i];
			}
		} else
			for (size_t i = 0; i < n; i++) {
				size_t at = count[(key[i] >> shift) & 0xff]++;
				memcpy(dst + at * size, src + i * size, size);
				key2[at] = key[i];
			}
		{ char *t = src; src = dst; dst = t; }
		{ uint64_t *t = key; key = key2; key2 = t; }
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(key);
	free(key2);
	free(tmp);
}

/* keys: times as unsigned with the sign flipped, so order is kept */
static uint64_t tkey(int64_t t)
{
	return (uint64_t)t ^ (1ull << 63);
}

static uint64_t key_d(const void *p)
{
	return tkey((*(const struct io_row *const *)p)->d);
}

static uint64_t key_q(const void *p)
{
	return tkey((*(const struct io_row *const *)p)->q);
}

static uint64_t key_pid(const void *p)
{
	return (*(const struct io_row *const *)p)->pid;
}

/* ---- seek ---- */

static void analyze_seek(struct analysis *a, struct io_row *rows, size_t n)
{
	uint32_t devs[64];
	uint64_t counts[64] = { 0 };
	int ndev = 0, best = 0;
	struct io_row **h;
	size_t nh = 0;
	struct hist dist = { 0 };
	double sw_sum = 0, same_sum = 0, busy = 0, busy_long = 0;
	uint64_t sw = 0, same = 0;

	for (size_t i = 0; i < n; i++) {
		int k;
		if (!rows[i].head || !rows[i].dbytes || !rows[i].has_seek)
			continue;
		for (k = 0; k < ndev && devs[k] != rows[i].dev; k++)
			;
		if (k == ndev && ndev < 64)
			devs[ndev++] = rows[i].dev;
		if (k < 64)
			counts[k]++;
	}
	if (!ndev)
		return;
	for (int k = 1; k < ndev; k++)
		if (counts[k] > counts[best])
			best = k;
	a->seek_dev = devs[best];
	h = xmalloc(counts[best] * sizeof(*h));
	for (size_t i = 0; i < n; i++)
		if (rows[i].head && rows[i].dbytes && rows[i].has_seek &&
		    rows[i].dev == a->seek_dev)
			h[nh++] = &rows[i];
	radix_sort(h, nh, sizeof(*h), key_d);
	a->dispatches = nh;
	for (size_t i = 0; i < nh; i++) {
		uint64_t ad = (uint64_t)llabs(h[i]->seek);
		hist_add(&dist, ad);
		if (ad > 128)
			a->seeks_long++;
		if (h[i]->c != NONE && h[i]->c > h[i]->d) {
			double t = (double)(h[i]->c - h[i]->d);
			busy += t;
			if (ad > 128)
				busy_long += t;
		}
		if (i == 0)
			continue;
		if (h[i]->pid != h[i - 1]->pid) {
			sw++;
			sw_sum += (double)ad;
		} else {
			same++;
			same_sum += (double)ad;
		}
	}
	a->seek_mean = hist_mean(&dist);
	a->seek_median = hist_pct(&dist, 50);
	a->seeks_per_s = a->span_s > 0 ? (double)a->seeks_long / a->span_s : 0;
	a->switch_frac = nh > 1 ? (double)sw / (double)(nh - 1) : 0;
	a->switch_dist = sw ? sw_sum / (double)sw : 0;
	a->same_dist = same ? same_sum / (double)same : 0;
	a->busy_after_long = busy > 0 ? busy_long / busy : 0;
	{
		/* streams: processes with >= 10% of the device's dispatches */
		uint32_t pids[256];
		uint64_t pc[256] = { 0 };
		int np = 0;
		for (size_t i = 0; i < nh; i++) {
			int k;
			for (k = 0; k < np && pids[k] != h[i]->pid; k++)
				;
			if (k == np && np < 256)
				pids[np++] = h[i]->pid;
			if (k < 256)
				pc[k]++;
		}
		for (int k = 0; k < np; k++)
			if (pc[k] * 10 >= nh)
				a->streams++;
	}
	a->interleaved = a->streams >= 2 && a->switch_frac > 0.25 &&
			 a->switch_dist > 4 * fmax(a->same_dist, 128);
	free(h);
	hist_free(&dist);
}

/* ---- per-process: fairness, sequential runs ---- */

struct pev {
	int64_t t;
	int delta;          /* +1 queued, -1 completed */
};

static uint64_t key_pev(const void *p)
{
	return tkey(((const struct pev *)p)->t);
}

static const char *role_of(const char *comm)
{
	if (!comm)
		return "";
	if (!strncmp(comm, "jbd2", 4) || !strncmp(comm, "xfsaild", 7))
		return "journal";
	if (!strncmp(comm, "kswapd", 6))
		return "reclaim";
	if (!strncmp(comm, "kworker", 7) || !strncmp(comm, "flush-", 6) ||
	    !strncmp(comm, "writeback", 9))
		return "writeback";
	return "";
}

static int cmp_share(const void *a, const void *b)
{
	const struct proc_share *x = a, *y = b;
	return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

static void analyze_procs(struct analysis *a, struct io_row *rows, size_t n)
{
	struct io_row **p = xmalloc((n ? n : 1) * sizeof(*p));
	size_t np = 0, cap = 64, nall = 0;
	struct proc_share *all = xcalloc(cap, sizeof(*all));
	uint64_t total_bytes = 0;
	double total_busy = 0, sum_x = 0, sum_x2 = 0;
	int nj = 0;
	int64_t end = a->rv->last_ns;

	/* processes compete for a device: judge them on the busiest one */
	for (size_t i = 0; i < n; i++)
		if (rows[i].q != NONE && rows[i].bytes && rows[i].dev == a->seek_dev)
			p[np++] = &rows[i];
	for (size_t i = 0; i < n; i++) {
		if (rows[i].head && rows[i].c != NONE && rows[i].d != NONE &&
		    rows[i].c > rows[i].d && rows[i].dev == a->seek_dev)
			total_busy += (double)(rows[i].c - rows[i].d);
	}
	/* by pid, then queue time: two stable passes */
	radix_sort(p, np, sizeof(*p), key_q);
	radix_sort(p, np, sizeof(*p), key_pid);
	for (size_t i = 0; i < np;) {
		size_t j = i;
		struct proc_share ps = { .pid = p[i]->pid };
		struct hist q2c = { 0 };
		struct pev *ev;
		size_t nev = 0;
		int64_t open_at = 0;
		int out = 0;
		double busy = 0;
		uint64_t runs = 0, disp = 0;
		uint64_t last_end = UINT64_MAX;

		while (j < np && p[j]->pid == ps.pid)
			j++;
		ps.first_q = p[i]->q;
		ps.last_c = p[i]->q;
		for (size_t k = i; k < j; k++) {
			if (p[k]->q < ps.first_q)
				ps.first_q = p[k]->q;
			if (p[k]->c != NONE && p[k]->c > ps.last_c)
				ps.last_c = p[k]->c;
		}
		ps.row_lo = i;
		ps.row_hi = j;
		ev = xmalloc(2 * (j - i) * sizeof(*ev));
		for (size_t k = i; k < j; k++) {
			struct io_row *r = p[k];
			ps.bytes += r->bytes;
			ev[nev++] = (struct pev){ r->q, +1 };
			ev[nev++] = (struct pev){ r->c != NONE ? r->c : end, -1 };
			if (r->c != NONE && r->c >= r->q && !r->split)
				hist_add(&q2c, (uint64_t)(r->c - r->q));
			if (r->c != NONE)
				a->completions++;
		}
		/* the longest stretch with I/O queued and none completing */
		radix_sort(ev, nev, sizeof(*ev), key_pev);
		for (size_t k = 0; k < nev; k++) {
			if (ev[k].delta > 0) {
				if (out++ == 0)
					open_at = ev[k].t;
			} else {
				double s = (double)(ev[k].t - open_at) / 1e9;
				if (s > ps.starve_s) {
					ps.starve_s = s;
					ps.starve_at_s = (double)(open_at - a->rv->genesis_ns) / 1e9;
				}
				open_at = ev[k].t;
				out--;
			}
		}
		free(ev);
		ps.q2c_p50_ms = hist_pct(&q2c, 50) / 1e6;
		ps.q2c_p99_ms = hist_pct(&q2c, 99) / 1e6;
		hist_free(&q2c);
		/* busy time and sequential runs of its dispatches */
		for (size_t k = i; k < j; k++) {
			struct io_row *r = p[k];
			if (!r->head || r->d == NONE)
				continue;
			disp++;
			if (r->c != NONE && r->c > r->d)
				busy += (double)(r->c - r->d);
			if (r->dsector != last_end)
				runs++;
			last_end = r->dsector + r->dbytes / 512;
		}
		ps.dispatches = disp;
		ps.seq_run = runs ? (double)disp / (double)runs : 0;
		ps.busy_share = total_busy > 0 ? busy / total_busy : 0;
		ps.mb_s = a->span_s > 0 ? (double)ps.bytes / 1e6 / a->span_s : 0;
		{
			const char *comm = runview_comm(a->rv, ps.pid);
			snprintf(ps.comm, sizeof(ps.comm), "%s", comm ? comm : "?");
			snprintf(ps.role, sizeof(ps.role), "%s", role_of(comm));
		}
		total_bytes += ps.bytes;
		if (nall == cap) {
			cap *= 2;
			all = xrealloc(all, cap * sizeof(*all));
		}
		all[nall++] = ps;
		i = j;
	}
	qsort(all, nall, sizeof(*all), cmp_share);
	/* Jain's index over the rates of the processes that did a share of
	 * the I/O (5% of the bytes or more; kernel threads left out), each
	 * measured while all of them had I/O going (the overlap of their
	 * first queue to last completion): who got how much while they
	 * competed. Without an overlap, over the whole run. */
	{
		int64_t w0 = INT64_MIN, w1 = INT64_MAX;
		for (size_t k = 0; k < nall; k++) {
			all[k].bytes_share = total_bytes ? (double)all[k].bytes / (double)total_bytes : 0;
			if (all[k].bytes_share < 0.05 || all[k].role[0])
				continue;
			if (all[k].first_q > w0)
				w0 = all[k].first_q;
			if (all[k].last_c < w1)
				w1 = all[k].last_c;
			if (all[k].starve_s > a->max_starve_s)
				a->max_starve_s = all[k].starve_s;
		}
		a->window_s = w0 != INT64_MIN && w1 != INT64_MAX && w1 > w0 ?
			      (double)(w1 - w0) / 1e9 : 0;
		for (size_t k = 0; k < nall; k++) {
			double x;
			if (all[k].bytes_share < 0.05 || all[k].role[0])
				continue;
			if (a->window_s > 0.05) {
				/* w0, w1 are set when window_s is */
				uint64_t b = 0;
				for (size_t r = all[k].row_lo; r < all[k].row_hi; r++)
					if (p[r]->c != NONE && p[r]->c > w0 && p[r]->c <= w1)
						b += p[r]->bytes;
				x = (double)b / 1e6 / a->window_s;
			} else
				x = all[k].mb_s;
			all[k].window_mb_s = x;
			sum_x += x;
			sum_x2 += x * x;
			nj++;
		}
	}
	a->jain = nj && sum_x2 > 0 ? sum_x * sum_x / ((double)nj * sum_x2) : 1;
	a->fair_procs = nj;
	a->nprocs_all = (int)nall;
	a->nprocs = nall < AN_TOP_PROCS ? (int)nall : AN_TOP_PROCS;
	memcpy(a->procs, all, (size_t)a->nprocs * sizeof(*all));
	/* with no completion at all (a trace that lost them) nothing can be
	 * said of who was served */
	a->starved = nj >= 2 && a->completions && a->max_starve_s > 1 &&
		     a->max_starve_s > 0.2 * a->span_s;
	a->unequal = nj >= 2 && a->completions && a->jain < 0.85;
	free(all);
	free(p);
}

/* ---- swap: writes held behind reads ---- */

struct wq {
	int64_t q, c;
};

static uint64_t key_wq(const void *p)
{
	return tkey(((const struct wq *)p)->q);
}

/* min-heap of pending writes by queue time */
static void wq_push(struct wq *h, size_t *n, struct wq v)
{
	size_t i = (*n)++;
	while (i > 0 && h[(i - 1) / 2].q > v.q) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void wq_pop(struct wq *h, size_t *n)
{
	struct wq last = h[--(*n)];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < *n && h[l].q < last.q)
			m = l;
		if (l + 1 < *n && h[l + 1].q < (m == i ? last.q : h[m].q))
			m = l + 1;
		if (m == i)
			break;
		h[i] = h[m];
		i = m;
	}
	if (*n)
		h[i] = last;
}

static void analyze_rw(struct analysis *a, struct io_row *rows, size_t n)
{
	struct wq *w = xmalloc((n ? n : 1) * sizeof(*w)), *heap;
	struct io_row **rd = xmalloc((n ? n : 1) * sizeof(*rd));
	size_t nw = 0, nr = 0, nheap = 0, wi = 0;
	double rsum = 0, wsum = 0;
	uint64_t rn = 0, wn = 0;
	struct pev *ev;
	size_t nev = 0;
	double pending = 0, area = 0, peak = 0;
	int64_t last_t = 0, end = a->rv->last_ns;

	for (size_t i = 0; i < n; i++) {
		struct io_row *r = &rows[i];
		if (r->q == NONE || !r->bytes || r->split)
			continue;
		if (r->c != NONE && r->c >= r->q) {
			if (r->write) {
				wsum += (double)(r->c - r->q);
				wn++;
			} else {
				rsum += (double)(r->c - r->q);
				rn++;
			}
		}
		if (r->write)
			w[nw++] = (struct wq){ r->q, r->c != NONE ? r->c : end };
	}
	for (size_t i = 0; i < n; i++)
		if (!rows[i].write && rows[i].head && rows[i].d != NONE && rows[i].dbytes)
			rd[nr++] = &rows[i];
	a->read_q2c_ms = rn ? rsum / (double)rn / 1e6 : 0;
	a->write_q2c_ms = wn ? wsum / (double)wn / 1e6 : 0;
	a->rw_latency_ratio = a->read_q2c_ms > 0 ? a->write_q2c_ms / a->read_q2c_ms : 0;
	a->reads_dispatched = nr;
	/* reads dispatched while some write had waited over 100 ms */
	radix_sort(w, nw, sizeof(*w), key_wq);
	radix_sort(rd, nr, sizeof(*rd), key_d);
	heap = xmalloc((nw ? nw : 1) * sizeof(*heap));
	for (size_t i = 0; i < nr; i++) {
		int64_t t = rd[i]->d;
		while (wi < nw && w[wi].q <= t)
			wq_push(heap, &nheap, w[wi++]);
		while (nheap && heap[0].c <= t)
			wq_pop(heap, &nheap);
		/* the heap's top may be done while an older-queued one is not:
		 * pop completed ones lazily; the top is then the oldest pending */
		if (nheap && t - heap[0].q > 100000000)
			a->reads_past_old_writes++;
	}
	free(heap);
	/* write bytes queued and not completed, over time */
	ev = xmalloc((2 * nw + 1) * sizeof(*ev));
	for (size_t i = 0; i < n; i++) {
		struct io_row *r = &rows[i];
		if (r->q == NONE || !r->bytes || !r->write || r->split)
			continue;
		ev[nev++] = (struct pev){ r->q, (int)(r->bytes / 512) };
		ev[nev++] = (struct pev){ r->c != NONE ? r->c : end, -(int)(r->bytes / 512) };
	}
	radix_sort(ev, nev, sizeof(*ev), key_pev);
	for (size_t i = 0; i < nev; i++) {
		if (i)
			area += pending * (double)(ev[i].t - last_t);
		pending += ev[i].delta * 512.0;
		if (pending > peak)
			peak = pending;
		last_t = ev[i].t;
	}
	a->write_pending_peak_mb = peak / 1e6;
	a->write_pending_mean_mb = a->span_s > 0 ? area / 1e9 / a->span_s / 1e6 : 0;
	free(ev);
	free(w);
	free(rd);
}

/* ---- samples: swap volumes, dirty data, bo oscillation, idle ---- */

struct interval {
	int64_t a, b;
};

static uint64_t key_iv(const void *p)
{
	return tkey(((const struct interval *)p)->a);
}

static double setting_value(const struct runview *rv, const char *key)
{
	char v[64];

	if (store_setting_get(rv->st, rv->id, key, STORE_AT_ANY, v, sizeof(v)) <= 0)
		return -1;
	return atof(v);
}

/* A run's meminfo Dirty and Writeback samples, one sample time at a time. */
struct dirty_reader {
	struct store_cursor *cur;
	int have;            /* a sample read ahead: */
	int64_t t;
	int writeback;       /* its key is Writeback (else Dirty) */
	double v;
};

/* The next sample time's Dirty and Writeback, each summed over the time's
 * samples, in MB (2^20 bytes); 0 when not sampled. Returns 1, or 0 when no
 * time is left (or the store failed). */
static int dirty_next(struct dirty_reader *r, int64_t *t, double *dirty,
		      double *wb)
{
	int got = 0;

	*dirty = *wb = 0;
	for (;;) {
		if (!r->have) {
			struct store_sample smp;
			int step;
			do
				step = store_samples_next(r->cur, &smp);
			while (step > 0 && strcmp(smp.key, "Dirty") &&
			       strcmp(smp.key, "Writeback"));
			if (step <= 0)
				break;
			r->t = smp.time_ns;
			r->writeback = smp.key[0] == 'W';
			r->v = smp.value;
			r->have = 1;
		}
		if (got && r->t != *t)
			break;
		*t = r->t;
		got = 1;
		r->have = 0;
		if (!isnan(r->v))
			*(r->writeback ? wb : dirty) += r->v;
	}
	*dirty /= 1024;
	*wb /= 1024;
	return got;
}

static void analyze_samples(struct analysis *a, struct io_row *rows, size_t n)
{
	struct store_cursor *cur;
	struct store_vmstat vm;
	struct dirty_reader dr = { 0 };
	int64_t g = a->rv->genesis_ns, prev_t = 0;
	int have_prev = 0;
	double *bo = NULL, wa_sum = 0;
	size_t nbo = 0, capbo = 0, nwa = 0;
	struct interval *busy;
	size_t nb = 0;

	a->first_swap_s = -1;
	a->min_free_mb = -1;
	a->dirty_bg_ratio = setting_value(a->rv, "vm.dirty_background_ratio");
	a->dirty_ratio = setting_value(a->rv, "vm.dirty_ratio");
	if (store_vmstat_open(a->rv->st, a->rv->id, STORE_VM_ALL, &cur))
		return;
	while (store_vmstat_next(cur, &vm) > 0) {
		int64_t t = vm.time_ns;
		double dt = have_prev ? (double)(t - prev_t) / 1e9 : 0;
		if (vm.since_boot)
			continue;
		a->has_samples = 1;
		if (!isnan(vm.v[STORE_VM_SI]) && dt > 0) {
			double so = isnan(vm.v[STORE_VM_SO]) ? 0 : vm.v[STORE_VM_SO];
			a->swap_in_mb += vm.v[STORE_VM_SI] * dt / 1024;
			a->swap_out_mb += so * dt / 1024;
			if (a->first_swap_s < 0 && so > 0)
				a->first_swap_s = (double)(t - g) / 1e9;
		}
		if (!isnan(vm.v[STORE_VM_SWPD]) &&
		    vm.v[STORE_VM_SWPD] / 1024 > a->peak_swap_mb)
			a->peak_swap_mb = vm.v[STORE_VM_SWPD] / 1024;
		if (!isnan(vm.v[STORE_VM_FREE])) {
			double f = vm.v[STORE_VM_FREE] / 1024;
			if (a->min_free_mb < 0 || f < a->min_free_mb)
				a->min_free_mb = f;
		}
		if (!isnan(vm.v[STORE_VM_BO])) {
			if (nbo == capbo) {
				capbo = capbo ? 2 * capbo : 256;
				bo = xrealloc(bo, capbo * sizeof(*bo));
			}
			bo[nbo++] = vm.v[STORE_VM_BO];
		}
		if (!isnan(vm.v[STORE_VM_WA])) {
			wa_sum += vm.v[STORE_VM_WA];
			nwa++;
		}
		prev_t = t;
		have_prev = 1;
	}
	store_cursor_close(cur);
	a->iowait_pct = nwa ? wa_sum / (double)nwa : 0;
	a->bo_samples = nbo;
	if (nbo > 2) {
		double sum = 0, sq = 0;
		size_t flips = 0;
		for (size_t i = 0; i < nbo; i++) {
			sum += bo[i];
			sq += bo[i] * bo[i];
		}
		a->bo_mean_kbs = sum / (double)nbo;
		a->bo_cv = a->bo_mean_kbs > 0 ?
			sqrt(fmax(sq / (double)nbo - a->bo_mean_kbs * a->bo_mean_kbs, 0)) /
			a->bo_mean_kbs : 0;
		for (size_t i = 1; i + 1 < nbo; i++) {
			double p = bo[i - 1], c = bo[i], x = bo[i + 1];
			if ((c > 1.5 * p && c > 1.5 * x) || (1.5 * c < p && 1.5 * c < x))
				flips++;
		}
		a->bo_alternation = (double)flips / (double)(nbo - 2);
	}
	free(bo);

/* busy intervals of the devices (D to C), merged */
	busy = xmalloc((n ? n : 1) * sizeof(*busy));
	for (size_t i = 0; i < n; i++)
		if (rows[i].head && rows[i].d != NONE && rows[i].c != NONE &&
		    rows[i].c > rows[i].d)
			busy[nb++] = (struct interval){ rows[i].d, rows[i].c };
	radix_sort(busy, nb, sizeof(*busy), key_iv);
	{
		size_t m = 0;
		for (size_t i = 0; i < nb; i++) {
			if (m && busy[i].a <= busy[m - 1].b) {
				if (busy[i].b > busy[m - 1].b)
					busy[m - 1].b = busy[i].b;
			} else
				busy[m++] = busy[i];
		}
		nb = m;
	}
	/* dirty data over time, and the device idle meanwhile */
	if (!store_samples_open(a->rv->st, a->rv->id, "meminfo", &dr.cur)) {
		int64_t pt = 0, t;
		double pdirty = 0, sampled = 0, dirty, wb;
		size_t bi = 0;
		int havep = 0;
		while (dirty_next(&dr, &t, &dirty, &wb)) {
			a->has_meminfo = 1;
			if (dirty > a->dirty_peak_mb)
				a->dirty_peak_mb = dirty;
			if (wb > a->wb_peak_mb)
				a->wb_peak_mb = wb;
			if ((a->first_swap_s < 0 || (double)(t - g) / 1e9 <= a->first_swap_s) &&
			    dirty + wb > a->dirty_before_swap_mb)
				a->dirty_before_swap_mb = dirty + wb;
			/* over the sampled time (a capture samples from before
			 * its first event to after its last) */
			if (havep && t > pt && a->has_trace) {
				int64_t lo0 = pt, hi0 = t;
				double len = (double)(hi0 - lo0), overlap = 0;
				sampled += len;
				if (pdirty > DIRTY_MB) {
					while (bi < nb && busy[bi].b <= pt)
						bi++;
					for (size_t k = bi; k < nb && busy[k].a < hi0; k++) {
						int64_t lo = busy[k].a > lo0 ? busy[k].a : lo0;
						int64_t hi = busy[k].b < hi0 ? busy[k].b : hi0;
						if (hi > lo)
							overlap += (double)(hi - lo);
					}
					double idle = (len - overlap) / 1e9;
					a->idle_dirty_s += idle;
					if (idle > a->longest_idle_dirty_s) {
						a->longest_idle_dirty_s = idle;
						a->longest_idle_dirty_at_s = (double)(lo0 - g) / 1e9;
					}
				}
			}
			pt = t;
			pdirty = dirty;
			havep = 1;
		}
		store_cursor_close(dr.cur);
		a->idle_dirty_frac = sampled > 0 ? a->idle_dirty_s * 1e9 / sampled : 0;
	}
	free(busy);
	a->idle_with_dirty = a->has_trace && a->idle_dirty_s > 1 &&
			     a->idle_dirty_frac > 0.2 && a->dirty_peak_mb > DIRTY_MB &&
			     a->write_q2c_ms > 0;
	a->writes_held = a->swap_out_mb > 1 && a->rw_latency_ratio > 2 &&
			 a->reads_dispatched &&
			 a->reads_past_old_writes * 10 > a->reads_dispatched;
}

int analysis_build(struct analysis *a, const struct runview *rv)
{
	struct io_row *rows;
	size_t n;
	int rc;

	if (io_rows_load(rv, &rows, &n))
		return -1;
	rc = analysis_build_rows(a, rv, rows, n);
	free(rows);
	return rc;
}

int analysis_build_rows(struct analysis *a, const struct runview *rv,
			struct io_row *rows, size_t n)
{
	memset(a, 0, sizeof(*a));
	a->rv = rv;
	snprintf(a->name_short, sizeof(a->name_short), "%.23s", rv->name);
	a->span_s = (double)runview_span_ns(rv) / 1e9;
	a->has_trace = n > 0;
	{
		struct store_command *cmd;
		uint64_t bytes = 0;
		size_t ncmd;
		if (!store_commands_get(rv->st, rv->id, &cmd, &ncmd)) {
			for (size_t i = 0; i < ncmd; i++)
				if (!isnan(cmd[i].real_s))
					a->cmd_real_s += cmd[i].real_s;
			free(cmd);
		}
		for (size_t i = 0; i < n; i++)
			if (rows[i].head && rows[i].c != NONE)
				bytes += rows[i].dbytes;
		a->total_mb_s = a->span_s > 0 ? (double)bytes / 1e6 / a->span_s : 0;
	}
	analyze_seek(a, rows, n);
	analyze_procs(a, rows, n);
	analyze_rw(a, rows, n);
	analyze_samples(a, rows, n);
	return 0;
}

/* ---- findings ---- */

void wrap_text(char *text, int width)
{
	int col = 0;
	char *last_space = NULL;

	for (char *p = text; *p; p++) {
		if (*p == '\n') {
			col = 0;
			last_space = NULL;
			continue;
		}
		if (*p == ' ')
			last_space = p;
		if (++col > width && last_space) {
			*last_space = '\n';
			col = (int)(p - last_space);
			last_space = NULL;
		}
	}
}

static double rel(double x, double y)
{
	double m = fmax(fabs(x), fabs(y));
	return m > 0 ? fabs(x - y) / m : 0;
}

static void add(struct finding *out, int *n, int max, const char *an,
		double score, const char *title, const char *text)
{
	if (*n >= max)
		return;
	out[*n].analyzer = an;
	out[*n].score = score > 1 ? 1 : score;
	snprintf(out[*n].title, sizeof(out[*n].title), "%s", title);
	snprintf(out[*n].text, sizeof(out[*n].text), "%s", text);
	wrap_text(out[*n].text, 76);
	(*n)++;
}

static int cmp_finding(const void *x, const void *y)
{
	const struct finding *a = x, *b = y;
	return (a->score < b->score) - (a->score > b->score);
}

static void seek_text(const struct analysis *a, char *t, size_t len)
{
	snprintf(t, len, "device %u,%u: %llu dispatches, D2D seek mean %.0f "
		 "sectors (median %.0f), %llu over 128 sectors (%.1f/s); %.0f%% "
		 "of consecutive dispatches switch process, seeking %.0f sectors "
		 "on a switch vs %.0f within one process; %.0f%% of busy time "
		 "follows a long seek.", BT_MAJOR(a->seek_dev), BT_MINOR(a->seek_dev),
		 (unsigned long long)a->dispatches, a->seek_mean, a->seek_median,
		 (unsigned long long)a->seeks_long, a->seeks_per_s,
		 100 * a->switch_frac, a->switch_dist, a->same_dist,
		 100 * a->busy_after_long);
}

static void swap_text(const struct analysis *a, char *t, size_t len)
{
	char first[48] = "";

	if (a->first_swap_s >= 0)
		snprintf(first, sizeof(first), ", first at +%.1f s", a->first_swap_s);
	char dirty[64] = "";

	if (a->first_swap_s >= 0 && a->has_meminfo)
		snprintf(dirty, sizeof(dirty), "; dirty + writeback up to %.1f MB "
			 "before", a->dirty_before_swap_mb);
	if (!a->has_samples)
		snprintf(t, len, "no VM samples: swap volume unknown.");
	else
		snprintf(t, len, "swapped out %.1f MB, in %.1f MB (peak swap used "
			 "%.1f MB)%s%s.", a->swap_out_mb, a->swap_in_mb,
			 a->peak_swap_mb, first, dirty);
	if (!a->has_trace || !a->reads_dispatched || a->write_q2c_ms <= 0)
		return;
	snprintf(t + strlen(t), len - strlen(t), " Read Q2C %.2f ms "
		 "vs write %.2f ms (x%.1f); %llu of %llu reads were dispatched "
		 "while a write had waited over 100 ms; write bytes queued and not "
		 "done: peak %.1f MB, mean %.1f MB.", a->read_q2c_ms,
		 a->write_q2c_ms, a->rw_latency_ratio,
		 (unsigned long long)a->reads_past_old_writes,
		 (unsigned long long)a->reads_dispatched, a->write_pending_peak_mb,
		 a->write_pending_mean_mb);
}

static void fair_text(const struct analysis *a, char *t, size_t len)
{
	char win[64];
	size_t o;

	if (!a->completions) {
		snprintf(t, len, "on device %u,%u no I/O completed in the trace "
			 "(completions lost, or on CPUs whose files are missing): "
			 "nothing to say of who was served.", BT_MAJOR(a->seek_dev),
			 BT_MINOR(a->seek_dev));
		return;
	}
	if (a->window_s > 0.05)
		snprintf(win, sizeof(win), "while all of them had I/O going (%.2f s)",
			 a->window_s);
	else
		snprintf(win, sizeof(win), "over the whole run");
	o = (size_t)snprintf(t, len, "on device %u,%u, Jain's index %.2f over the "
			     "MB/s of the processes with 5%% of the bytes or more "
			     "%s; longest starvation %.2f s.",
			     BT_MAJOR(a->seek_dev), BT_MINOR(a->seek_dev), a->jain,
			     win, a->max_starve_s);
	for (int i = 0; i < a->nprocs && i < 4 && o < len; i++) {
		const struct proc_share *p = &a->procs[i];
		o += (size_t)snprintf(t + o, len - o, " %s[%u]%s%s%s: %.0f%% of bytes, "
				      "%.1f MB/s so measured, %.0f%% of busy time, Q2C "
				      "p50 %.2f ms p99 %.2f ms, starved %.2f s%s%.1f s.",
				      p->comm, p->pid,
				      p->role[0] ? " (" : "", p->role,
				      p->role[0] ? ")" : "", 100 * p->bytes_share,
				      p->window_mb_s, 100 * p->busy_share, p->q2c_p50_ms,
				      p->q2c_p99_ms, p->starve_s,
				      p->starve_s > 0 ? " from +" : " at +",
				      p->starve_at_s);
	}
}

static void wb_text(const struct analysis *a, char *t, size_t len)
{
	char dbr[32] = "?", dr[32] = "?";

	if (a->dirty_bg_ratio >= 0)
		snprintf(dbr, sizeof(dbr), "%.0f", a->dirty_bg_ratio);
	if (a->dirty_ratio >= 0)
		snprintf(dr, sizeof(dr), "%.0f", a->dirty_ratio);
	size_t o = 0;

	t[0] = '\0';
	if (a->has_meminfo && a->has_trace)
		o = (size_t)snprintf(t, len, "the devices were idle for %.1f s (%.0f%% "
			"of the sampled time) while more than 8 MB was dirty "
			"(system-wide), the longest %.1f s from %+.1f s; ", a->idle_dirty_s,
			100 * a->idle_dirty_frac, a->longest_idle_dirty_s,
			a->longest_idle_dirty_at_s);
	if (a->has_meminfo && o < len)
		o += (size_t)snprintf(t + o, len - o, "dirty peaked at %.1f MB, "
			"writeback at %.1f MB; ", a->dirty_peak_mb, a->wb_peak_mb);
	if (o < len && a->bo_samples > 2)
		o += (size_t)snprintf(t + o, len - o, "bo averaged %.0f kB/s, "
			"varying %.0f%% (CV), alternating high/low in %.0f%% of "
			"intervals; ", a->bo_mean_kbs, 100 * a->bo_cv,
			100 * a->bo_alternation);
	else if (o < len)
		o += (size_t)snprintf(t + o, len - o, "too few samples (%zu) for "
			"bo's pattern; ", a->bo_samples);
	if (o < len)
		snprintf(t + o, len - o, "dirty_background_ratio %s, dirty_ratio "
			 "%s%s.", dbr, dr, a->has_meminfo ? "" : " (no Dirty "
			 "samples: a vmstat log has none)");
}

int analysis_findings(const struct analysis *a, struct finding *out, int max)
{
	char t[4000];
	int n = 0;

	if (a->has_trace && a->dispatches) {
		seek_text(a, t, sizeof(t));
		add(out, &n, max, "seek", a->interleaved ? 0.9 : a->busy_after_long,
		    a->interleaved ? "seek: two streams interleaved on one device"
				   : "seek", t);
	}
	if (a->has_samples || a->has_trace) {
		swap_text(a, t, sizeof(t));
		add(out, &n, max, "swap", a->writes_held ? 0.95 :
		    a->swap_out_mb > 1 ? 0.5 : 0.05,
		    a->writes_held ? "swap: writes held behind reads -> dirty pages "
				     "pile up -> memory pressure -> swap" : "swap", t);
	}
	if (a->has_trace && a->nprocs) {
		fair_text(a, t, sizeof(t));
		add(out, &n, max, "fairness", a->starved ? 0.9 :
		    a->unequal ? 0.5 + (1 - a->jain) / 2 : (1 - a->jain) / 2,
		    a->starved ? "fairness: a process starved" :
		    a->unequal ? "fairness: unequal shares while sharing the device"
			       : "fairness", t);
	}
	if (a->has_samples) {
		wb_text(a, t, sizeof(t));
		add(out, &n, max, "writeback", a->idle_with_dirty ? 0.8 :
		    a->idle_dirty_frac / 2, a->idle_with_dirty ?
		    "writeback: device idle while dirty data waited" : "writeback", t);
	}
	qsort(out, (size_t)n, sizeof(*out), cmp_finding);
	return n;
}

/* 1 when run x did worse than run y: its commands took longer in all (when
 * both have commands), else it moved fewer bytes per second. */
static int worse(const struct analysis *x, const struct analysis *y)
{
	if (x->cmd_real_s > 0 && y->cmd_real_s > 0)
		return x->cmd_real_s > y->cmd_real_s;
	return x->total_mb_s < y->total_mb_s;
}

int analysis_compare(const struct analysis *a, int n, struct finding *out,
		     int max)
{
	int nf = 0;

	for (int k = 1; k < n; k++) {
		const struct analysis *x = &a[0], *y = &a[k];
		char t[8000], tx[3600], ty[3600], title[900];
		const struct analysis *inter = NULL;
		double sc;

		if (x->has_trace && y->has_trace && x->dispatches && y->dispatches) {
			sc = rel(x->seek_mean, y->seek_mean) *
			     fmax(rel(x->busy_after_long, y->busy_after_long),
				  fabs(x->switch_frac - y->switch_frac));
			if (x->interleaved != y->interleaved)
				sc = fmax(sc, 0.6);
			/* seeking explains a slowdown only if the slower run is
			 * the one that seeks more: a faster run seeking more is a
			 * side effect (a scheduler idling for one process) */
			/* interleaving shows against the other run: many more
			 * process switches and a much longer mean seek */
			{
				const struct analysis *hi = x->switch_frac > y->switch_frac ? x : y;
				const struct analysis *lo = hi == x ? y : x;
				if (hi->switch_frac - lo->switch_frac > 0.15 &&
				    hi->seek_mean > 3 * fmax(lo->seek_mean, 128) &&
				    hi->streams >= 2) {
					sc = fmax(sc, 0.3 + 0.6 * rel(x->seek_mean, y->seek_mean) *
						  fmin(1, 2 * (hi->switch_frac - lo->switch_frac)));
					inter = hi;
				}
			}
			if ((x->seek_mean > y->seek_mean) != worse(x, y)) {
				sc *= 0.3;
				inter = NULL;
			}
			/* serving one process at a time (one starved) removes the
			 * interleaving: then the seek difference follows from the
			 * fairness one */
			if ((x->starved || x->unequal) != (y->starved || y->unequal)) {
				const struct analysis *u = x->starved || x->unequal ? x : y;
				if (u->switch_frac < (u == x ? y : x)->switch_frac)
					sc *= 0.5;
			}
			/* a few hundred dispatches say little about seeking */
			sc *= fmin(1, (double)(x->dispatches < y->dispatches ?
					       x->dispatches : y->dispatches) / 1000);
			seek_text(x, tx, sizeof(tx));
			seek_text(y, ty, sizeof(ty));
			snprintf(title, sizeof(title), "seek%s%s%s (%s vs %s)",
				 inter ? ": two streams interleaved on one device" : "",
				 inter ? " in " : "", inter ? inter->rv->name : "",
				 x->rv->name, y->rv->name);
			snprintf(t, sizeof(t), "%s: %s\n%s: %s", x->rv->name, tx,
				 y->rv->name, ty);
			add(out, &nf, max, "seek", sc, title, t);
		}
		if (x->has_samples || y->has_samples) {
			sc = rel(x->swap_out_mb, y->swap_out_mb);
			if (fmax(x->swap_out_mb, y->swap_out_mb) < 0.5)
				sc = 0;
			if (x->writes_held != y->writes_held)
				sc = fmax(sc, 0.9);
			swap_text(x, tx, sizeof(tx));
			swap_text(y, ty, sizeof(ty));
			snprintf(title, sizeof(title), "swap%s (%s vs %s)",
				 x->writes_held || y->writes_held ?
				 ": writes held behind reads -> dirty pages pile up -> swap" : "",
				 x->rv->name, y->rv->name);
			snprintf(t, sizeof(t), "%s: %s\n%s: %s", x->rv->name, tx,
				 y->rv->name, ty);
			add(out, &nf, max, "swap", sc, title, t);
		}
		if (x->has_trace && y->has_trace && x->nprocs && y->nprocs) {
			sc = fmax(fabs(x->jain - y->jain),
				  rel(x->max_starve_s, y->max_starve_s) *
				  (fmax(x->max_starve_s, y->max_starve_s) > 0.5));
			if (x->starved != y->starved)
				sc = fmax(sc, 0.9);
			else if (x->unequal != y->unequal)
				sc = fmax(sc, 0.7 + fabs(x->jain - y->jain) / 2);
			fair_text(x, tx, sizeof(tx));
			fair_text(y, ty, sizeof(ty));
			snprintf(title, sizeof(title), "fairness%s (%s vs %s)",
				 x->starved != y->starved ? ": one process starved" :
				 x->unequal != y->unequal ? ": unequal shares of the device" : "",
				 x->rv->name, y->rv->name);
			snprintf(t, sizeof(t), "%s: %s\n%s: %s", x->rv->name, tx,
				 y->rv->name, ty);
			add(out, &nf, max, "fairness", sc, title, t);
		}
		if (x->has_samples && y->has_samples) {
			sc = fmax(fabs(x->idle_dirty_frac - y->idle_dirty_frac),
				  fmax(rel(x->dirty_peak_mb, y->dirty_peak_mb) *
				       (fmax(x->dirty_peak_mb, y->dirty_peak_mb) > 8),
				       fabs(x->bo_alternation - y->bo_alternation)));
			if (x->idle_with_dirty != y->idle_with_dirty)
				sc = fmax(sc, 0.8);
			wb_text(x, tx, sizeof(tx));
			wb_text(y, ty, sizeof(ty));
			snprintf(title, sizeof(title), "writeback and idle (%s vs %s)",
				 x->rv->name, y->rv->name);
			snprintf(t, sizeof(t), "%s: %s\n%s: %s", x->rv->name, tx,
				 y->rv->name, ty);
			add(out, &nf, max, "writeback", sc, title, t);
		}
	}
	qsort(out, (size_t)nf, sizeof(*out), cmp_finding);
	return nf;
}

const char analysis_definitions[] =
"seek: on the device with most dispatches, btt's D2D distance per dispatch\n"
"  (sectors from the previous dispatch's end; 0 when they overlap); long\n"
"  seeks are over 128 sectors (seekwatcher's count); a switch is a dispatch\n"
"  of another process than the one before; two streams interleave when two\n"
"  processes have 10% of dispatches or more each, over 25% of dispatches\n"
"  switch, and switches seek 4x farther than same-process ones.\n"
"swap: swap in/out integrate vmstat si/so over the samples; reads past old\n"
"  writes are read dispatches while some write had been queued over 100 ms\n"
"  and not completed; writes are held behind reads when the run swapped\n"
"  over 1 MB, write Q2C is over twice read Q2C and 10% of reads passed\n"
"  old writes.\n"
"fairness: on the device with most dispatches, Jain's index (sum x)^2 /\n"
"  (n sum x^2) over the MB/s of the processes with 5% of its bytes or more\n"
"  (kernel threads, kworker: writeback, jbd2:\n"
"  journal, kswapd: reclaim, left out), each measured while all of them had\n"
"  I/O going; starvation is the longest time a process had I/O queued with\n"
"  none of it completing; one process starved when the index is under 0.85\n"
"  or a starvation lasted over 1 s and a fifth of the run.\n"
"writeback: idle time is sampled time with Dirty over 8 MB and no request\n"
"  at the devices (D to C); bo alternates when an interval is 1.5x above or\n"
"  below both neighbours.\n";

void analysis_emit(struct emit *e, const struct analysis *a)
{
	emit_obj_begin(e, "analysis");
	emit_obj_begin(e, "seek");
	emit_u64(e, "dispatches", a->dispatches);
	emit_num(e, "mean_sectors", a->seek_mean);
	emit_num(e, "median_sectors", a->seek_median);
	emit_u64(e, "long_seeks", a->seeks_long);
	emit_num(e, "long_seeks_per_s", a->seeks_per_s);
	emit_num(e, "switch_frac", a->switch_frac);
	emit_num(e, "switch_mean_sectors", a->switch_dist);
	emit_num(e, "same_process_mean_sectors", a->same_dist);
	emit_num(e, "busy_after_long_seek_frac", a->busy_after_long);
	emit_u64(e, "streams", (uint64_t)a->streams);
	emit_u64(e, "interleaved", (uint64_t)a->interleaved);
	emit_obj_end(e);
	emit_obj_begin(e, "swap");
	emit_num(e, "swap_out_mb", a->swap_out_mb);
	emit_num(e, "swap_in_mb", a->swap_in_mb);
	emit_num(e, "peak_swap_mb", a->peak_swap_mb);
	emit_num(e, "first_swap_s", a->first_swap_s);
	emit_num(e, "dirty_before_swap_mb", a->dirty_before_swap_mb);
	emit_num(e, "read_q2c_ms", a->read_q2c_ms);
	emit_num(e, "write_q2c_ms", a->write_q2c_ms);
	emit_u64(e, "reads_past_old_writes", a->reads_past_old_writes);
	emit_u64(e, "reads_dispatched", a->reads_dispatched);
	emit_num(e, "write_pending_peak_mb", a->write_pending_peak_mb);
	emit_num(e, "write_pending_mean_mb", a->write_pending_mean_mb);
	emit_u64(e, "writes_held", (uint64_t)a->writes_held);
	emit_obj_end(e);
	emit_obj_begin(e, "fairness");
	emit_num(e, "jain", a->jain);
	emit_num(e, "window_s", a->window_s);
	emit_num(e, "max_starve_s", a->max_starve_s);
	emit_num(e, "rw_latency_ratio", a->rw_latency_ratio);
	emit_u64(e, "starved", (uint64_t)a->starved);
	emit_arr_begin(e, "processes");
	for (int i = 0; i < a->nprocs; i++) {
		const struct proc_share *p = &a->procs[i];
		emit_obj_begin(e, NULL);
		emit_u64(e, "pid", p->pid);
		emit_str(e, "comm", p->comm);
		emit_str(e, "role", p->role);
		emit_num(e, "bytes_share", p->bytes_share);
		emit_num(e, "busy_share", p->busy_share);
		emit_num(e, "mb_s_while_sharing", p->window_mb_s);
		emit_num(e, "q2c_p50_ms", p->q2c_p50_ms);
		emit_num(e, "q2c_p99_ms", p->q2c_p99_ms);
		emit_num(e, "starve_s", p->starve_s);
		emit_num(e, "starve_at_s", p->starve_at_s);
		emit_num(e, "seq_run", p->seq_run);
		emit_obj_end(e);
	}
	emit_arr_end(e);
	emit_obj_end(e);
	emit_obj_begin(e, "writeback");
	emit_num(e, "idle_dirty_s", a->idle_dirty_s);
	emit_num(e, "idle_dirty_frac", a->idle_dirty_frac);
	emit_num(e, "longest_idle_dirty_s", a->longest_idle_dirty_s);
	emit_num(e, "longest_idle_dirty_at_s", a->longest_idle_dirty_at_s);
	emit_num(e, "dirty_peak_mb", a->dirty_peak_mb);
	emit_num(e, "writeback_peak_mb", a->wb_peak_mb);
	emit_num(e, "bo_mean_kbs", a->bo_mean_kbs);
	emit_num(e, "bo_cv", a->bo_cv);
	emit_num(e, "bo_alternation", a->bo_alternation);
	emit_num(e, "dirty_background_ratio", a->dirty_bg_ratio);
	emit_num(e, "dirty_ratio", a->dirty_ratio);
	emit_u64(e, "idle_with_dirty", (uint64_t)a->idle_with_dirty);
	emit_obj_end(e);
	emit_num(e, "iowait_pct", a->iowait_pct);
	emit_num(e, "commands_real_s", a->cmd_real_s);
	emit_num(e, "total_mb_s", a->total_mb_s);
	emit_obj_end(e);
}
