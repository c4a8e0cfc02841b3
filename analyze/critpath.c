/* The workload's time, instant by instant (critpath.h).
 *
 * One walk over every request's Q, D and C in time order (all devices
 * merged) and the workload processes' lives. Each instant of the window
 * goes to the processes alive then, 1/n each; a process waiting on its own
 * I/O shares its part equally among those I/Os. A process's part per I/O
 * is integrated lazily as a potential (phi): an I/O's share is phi at its
 * C less phi at its Q, split at its D into the wait before dispatch and
 * the time at the device. What is not a wait on the workload's own I/O is
 * its free time, kept by stretch of time and classified at the end from
 * the samples (vmstat, meminfo) or the tasks' delay accounting. */
#include "critpath.h"

#include <math.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/contig.h"
#include "analyze/fold.h"
#include "analyze/secmap.h"
#include "analyze/timeacct.h"
#include "lib/emit.h"
#include "lib/util.h"

const char *const cp_cat_name[CP_NCAT] = {
	"device", "seek", "queue", "fairness", "swap", "refault", "writeback",
	"wbwait", "throttle", "journal", "cpu", "other",
};

const char *const cp_cat_desc[CP_NCAT] = {
	"waited on its I/O at the device's own speed",
	"waited on the device seeking",
	"waited behind other I/O",
	"waited in the scheduler beyond the other processes",
	"waited on swap and memory",
	"waited re-reading data it had read",
	"waited on writeback the idle time before could have done",
	"waited for writeback at the device's speed",
	"was blocked issuing no I/O (dirty throttling, I/O held above the "
	"block layer)",
	"waited for the journal's commits (its writes, cache flushes, FUA)",
	"waited for a CPU",
	"ran or thought",
};

/* the seek bands' upper ends, sectors (btt/seekwatcher: a long seek is
 * over 128 sectors) */
static const int64_t band_end[CP_BANDS - 1] = { 128, 16384, 1 << 20 };

static int band_of(int64_t seek)
{
	int b = 0;

	if (seek < 0)
		seek = -seek;
	while (b < CP_BANDS - 1 && seek > band_end[b])
		b++;
	return b;
}
#define MIN_BASE 20            /* bios for a baseline */

/* ---- small open-addressed tables ---- */

struct unit {
	uint32_t pid;
	int fam;
	int k;                  /* blocking I/Os in flight */
	int alive;
	double phi;             /* seconds of share per I/O so far */
	int64_t t_upd;
	int64_t born, died;     /* its life, ns */
	int proxy;              /* a flusher standing for a buffered writer */
	int told;               /* its life from delay accounting (not a
				 * sleeper()) */
	int syncs;              /* it queued synchronous writes or flushes in
				 * the window (user_sync()) */
	double blocked_s, free_s;   /* critical seconds */
	double io_union_s;      /* its process time waiting on its own I/O */
	int64_t io_since;       /* k went above 0 then */
	double swap_wait_s;     /* of it on swap devices */
};

struct fly {                /* a blocking I/O of a unit, in flight */
	uint32_t row;
	int used;
	int unit;
	double phi_q, phi_d;
	int has_d;
	int shared_q;           /* others' I/O queued or in flight at Q or D */
	int shared_d;           /* others' I/O in flight at D */
	uint64_t others_at_d;   /* others' dispatches so far, at D */
	double others_frac;     /* of the I/O ahead of it at the device at D,
				 * the share other processes' */
	double jfrac_q, jfrac_d;/* of the others' I/O queued or in flight at
				 * Q (at D: in flight), the journal's share */
	double tagfrac;         /* of its Q2D, the wait for a request beyond
				 * the device's usual Q2G with others' I/O
				 * queued or in flight at its Q (tag_wait()) */
	int refault;            /* it re-read sectors (refault_at_q()) */
};

struct devpid {
	uint32_t dev, pid;
	int used;
	int queued, disp;
	uint64_t ndisp;
	/* the unit's waits before dispatch on this device: critical
	 * seconds while others were present, and Q2D for fairness */
	double sq_shared;
	double sq_tag;          /* of sq_shared, waiting for a request (tag) */
	double q2d_sum_ns;
	uint64_t q2d_n;
	uint64_t blocking;      /* the unit's blocking bios on the device */
};

struct dstate {
	int queued, disp;
	int jqueued, jdisp;     /* of them, the journal's (journal_io()) */
	uint64_t ndisp;
	int64_t last_c;         /* the device's latest completion */
};

struct walk {
	const struct rundata *rd;
	struct critpath *cp;
	struct unit *u;
	int nu;
	int *ualive;            /* alive units */
	int nalive, nfree;      /* alive; alive with no I/O in flight */
	uint32_t *upid;         /* units by pid (sorted) for lookup */
	int *uidx;
	struct fly *fly;
	size_t fcap, fn;
	struct devpid *dp;
	size_t dpcap, dpn;
	struct dstate *ds;
	int64_t now;
	int ndisp_all;          /* dispatched, not completed, every device */
	int nasync;             /* asynchronous writes queued or in flight */
	int nblocked;           /* units with I/O in flight */
	struct secmap *read;    /* each device's sectors the workload's
				 * buffered reads covered so far */
	int user_sync;          /* the workload's user processes queued
				 * synchronous writes or flushes */
	int njournal;           /* a journal thread's I/O queued or in
				 * flight (completed in the trace) */
	int nsync_free;         /* alive units that sync (unit.syncs) with
				 * no I/O in flight */
	/* each device's mean service time per request of a direction and size
	 * (the utilization law over the run: Sum of C - max(D, previous C) /
	 * requests), ns: [dev index][dir][size] */
	double (*svc_mean)[2][CP_SIZES];
	/* each device's usual Q2G (its median), ns: a request was free */
	double *q2g_usual;
	/* cells: [dir][size][seek band]: the bios' critical time in their own
	 * service at the device and its sum over their service time */
	struct {
		double n, sd, sdr;      /* bios, critical s, s per ns of service */
		struct hist svc;        /* service time, ns */
	} cell[2][CP_SIZES][CP_BANDS];
};

static int size_class(uint32_t bytes)
{
	int b = 0;
	while (b < CP_SIZES - 1 && bytes > (4096u << b))
		b++;
	return b;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int unit_of(const struct walk *w, uint32_t pid)
{
	const uint32_t *at;

	if (!w->nu)
		return -1;
	at = bsearch(&pid, w->upid, (size_t)w->nu, sizeof(*w->upid), cmp_u32);
	return at ? w->uidx[at - w->upid] : -1;
}

static struct fly *fly_slot(struct walk *w, uint32_t row, int add)
{
	size_t h;

	if (add && 2 * (w->fn + 1) > w->fcap) {
		size_t nc = w->fcap ? 2 * w->fcap : 1024;
		struct fly *nf = xcalloc(nc, sizeof(*nf));
		for (size_t i = 0; i < w->fcap; i++) {
			if (!w->fly[i].used)
				continue;
			h = (w->fly[i].row * 2654435761u) & (nc - 1);
			while (nf[h].used)
				h = (h + 1) & (nc - 1);
			nf[h] = w->fly[i];
		}
		free(w->fly);
		w->fly = nf;
		w->fcap = nc;
	}
	if (!w->fcap)
		return NULL;
	h = (row * 2654435761u) & (w->fcap - 1);
	while (w->fly[h].used && w->fly[h].row != row)
		h = (h + 1) & (w->fcap - 1);
	if (w->fly[h].used)
		return &w->fly[h];
	if (!add)
		return NULL;
	memset(&w->fly[h], 0, sizeof(w->fly[h]));
	w->fly[h].used = 1;
	w->fly[h].row = row;
	w->fn++;
	return &w->fly[h];
}

/* Removes f (linear probing: the cluster after it moves up). */
static void fly_del(struct walk *w, struct fly *f)
{
	size_t i = (size_t)(f - w->fly), j = i;

	w->fly[i].used = 0;
	w->fn--;
	for (;;) {
		size_t h;
		j = (j + 1) & (w->fcap - 1);
		if (!w->fly[j].used)
			break;
		h = (w->fly[j].row * 2654435761u) & (w->fcap - 1);
		/* j's home outside (i, j]: it may move to i */
		if ((i < j) ? (h <= i || h > j) : (h <= i && h > j)) {
			w->fly[i] = w->fly[j];
			w->fly[j].used = 0;
			i = j;
		}
	}
}

static struct devpid *dp_of(struct walk *w, uint32_t dev, uint32_t pid)
{
	uint64_t key = (uint64_t)dev << 32 | pid;
	size_t h;

	if (2 * (w->dpn + 1) > w->dpcap) {
		size_t nc = w->dpcap ? 2 * w->dpcap : 256;
		struct devpid *nd = xcalloc(nc, sizeof(*nd));
		for (size_t i = 0; i < w->dpcap; i++) {
			uint64_t k;
			if (!w->dp[i].used)
				continue;
			k = (uint64_t)w->dp[i].dev << 32 | w->dp[i].pid;
			h = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & (nc - 1);
			while (nd[h].used)
				h = (h + 1) & (nc - 1);
			nd[h] = w->dp[i];
		}
		free(w->dp);
		w->dp = nd;
		w->dpcap = nc;
	}
	h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (w->dpcap - 1);
	while (w->dp[h].used && (w->dp[h].dev != dev || w->dp[h].pid != pid))
		h = (h + 1) & (w->dpcap - 1);
	if (!w->dp[h].used) {
		memset(&w->dp[h], 0, sizeof(w->dp[h]));
		w->dp[h].used = 1;
		w->dp[h].dev = dev;
		w->dp[h].pid = pid;
		w->dpn++;
	}
	return &w->dp[h];
}

/* ---- time and shares ---- */

/* The part of [a, b] inside the window, seconds. */
static double in_win(const struct critpath *cp, int64_t a, int64_t b)
{
	if (a < cp->t0)
		a = cp->t0;
	if (b > cp->t1)
		b = cp->t1;
	return b > a ? (double)(b - a) / 1e9 : 0;
}

/* Spreads rate x seconds of [a, b] (in the window) over the bins, into
 * the field at offset off of struct cp_bin. */
static void bins_add(struct critpath *cp, int64_t a, int64_t b, size_t off,
		     double rate)
{
	if (a < cp->t0)
		a = cp->t0;
	if (b > cp->t1)
		b = cp->t1;
	if (b <= a || rate == 0 || !cp->nbin)
		return;
	while (a < b) {
		size_t j = (size_t)((a - cp->t0) / cp->bin_ns);
		int64_t end;
		if (j >= cp->nbin)
			j = cp->nbin - 1;
		end = cp->t0 + (int64_t)(j + 1) * cp->bin_ns;
		if (end > b || j == cp->nbin - 1)
			end = b;
		*(double *)((char *)&cp->bin[j] + off) +=
			rate * (double)(end - a) / 1e9;
		a = end;
	}
}

/* Adds v to the field at offset off of the bin holding t (in the window). */
static void bin_count(struct critpath *cp, int64_t t, size_t off, double v)
{
	size_t j;

	if (t < cp->t0 || t > cp->t1 || !cp->nbin)
		return;
	j = (size_t)((t - cp->t0) / cp->bin_ns);
	if (j >= cp->nbin)
		j = cp->nbin - 1;
	*(double *)((char *)&cp->bin[j] + off) += v;
}

/* Brings unit u's potential up to t. */
static void unit_upd(struct walk *w, struct unit *u, int64_t t)
{
	if (u->alive && u->k > 0 && w->nalive > 0)
		u->phi += in_win(w->cp, u->t_upd, t) / (double)w->nalive /
			  (double)u->k;
	u->t_upd = t;
}

/* Time passes from w->now to t: the free time and the bins' signals. */
static void advance(struct walk *w, int64_t t)
{
	struct critpath *cp = w->cp;
	int64_t a = w->now;

	if (t <= a)
		return;
	if (w->nalive)
		bins_add(cp, a, t, offsetof(struct cp_bin, free_s),
			 (double)w->nfree / (double)w->nalive);
	else
		bins_add(cp, a, t, offsetof(struct cp_bin, free_s), 1);
	if (w->ndisp_all > 0)
		bins_add(cp, a, t, offsetof(struct cp_bin, busy_s), 1);
	if (w->nasync > 0)
		bins_add(cp, a, t, offsetof(struct cp_bin, wb_s), 1);
	if (w->nblocked > 0)
		bins_add(cp, a, t, offsetof(struct cp_bin, own_io_s), 1);
	/* waiting for a journal commit the workload's syncs asked for: the
	 * processes that sync, alive and free of I/O of their own (a reader
	 * beside a `dd; sync` is not waiting for jbd2's periodic commit,
	 * stuck 2.4 s behind the writeback, seconds before sync ran) */
	if (w->nsync_free > 0 && w->njournal > 0)
		bins_add(cp, a, t, offsetof(struct cp_bin, jfree_s),
			 w->nalive ? (double)w->nsync_free / (double)w->nalive : 1);
	/* each unit's free critical time, for the families */
	if (w->nalive)
		for (int i = 0; i < w->nalive; i++) {
			struct unit *u = &w->u[w->ualive[i]];
			double s = in_win(cp, a, t) / (double)w->nalive;
			if (u->k)
				u->blocked_s += s;
			else
				u->free_s += s;
		}
	w->now = t;
}

/* Every alive unit's potential up to now (before nalive changes). */
static void all_upd(struct walk *w)
{
	for (int i = 0; i < w->nalive; i++)
		unit_upd(w, &w->u[w->ualive[i]], w->now);
}

static void unit_life(struct walk *w, int ui, int born)
{
	struct unit *u = &w->u[ui];

	if (born == u->alive)
		return;
	all_upd(w);
	if (born) {
		u->alive = 1;
		u->t_upd = w->now;
		w->ualive[w->nalive++] = ui;
		if (!u->k) {
			w->nfree++;
			w->nsync_free += u->syncs;
		}
	} else {
		for (int i = 0; i < w->nalive; i++)
			if (w->ualive[i] == ui) {
				w->ualive[i] = w->ualive[--w->nalive];
				break;
			}
		u->alive = 0;
		if (!u->k) {
			w->nfree--;
			w->nsync_free -= u->syncs;
		}
	}
}

/* Whether row x blocks its unit: reads, synchronous writes and flushes;
 * every write of a flusher standing for a buffered writer. Each piece of a
 * read an X split blocks (a split tail carries the bio's Q): the reader
 * waits until the last piece completes, and a 1 MiB read split into 128
 * pieces of 8 KiB, only its first counted, read as a reader free 95% of
 * the time. A split write counts by its first piece only: the writeback
 * analysis (a sync's or a flusher's writes against the idle time before)
 * is measured so; its pieces' share is not yet told apart. */
static int blocks(const struct unit *u, const struct an_io *x)
{
	if ((x->flags & AN_SPLIT_TAIL) && (x->flags & AN_WRITE))
		return 0;
	if (!(x->flags & AN_WRITE))
		return 1;
	if (u->proxy)
		return 1;
	return (x->flags & (AN_SYNC | AN_FUA | AN_FLUSH)) != 0;
}

static int is_swap(const struct critpath *cp, uint32_t dev)
{
	for (int i = 0; i < cp->nswap; i++)
		if (cp->swap_dev[i] == dev)
			return 1;
	return 0;
}

/* Whether x is I/O of a commit the workload's syncs wait for, which the
 * trace saw complete, not the workload's own: 2 for a journal thread's
 * (ta_role() "journal"), 1 for a cache flush issued by another (the block
 * layer's flush sequence: kblockd's flushes carry no Q, only D and C), 0
 * for any other. */
static int journal_io(const struct walk *w, const struct an_io *x)
{
	int64_t start = x->q != AN_NONE ? x->q : x->d;
	int k;

	if (start == AN_NONE || x->c == AN_NONE || x->c < start)
		return 0;
	k = family_of(&w->cp->fam, x->pid);
	if (k >= 0 && w->cp->fam.f[k].workload)
		return 0;
	if (k >= 0 && !strcmp(w->cp->fam.f[k].role, "journal"))
		return 2;
	return (x->flags & AN_FLUSH) != 0;
}

/* A commit's I/O (journal_io() gave kind) starting now, at its Q or (none)
 * its D: counted, in the window, under the first journal thread seen (a
 * flush's issuer when none is). */
static void journal_start(struct walk *w, const struct an_io *x, int kind)
{
	struct critpath *cp = w->cp;

	w->njournal++;
	if (w->now < cp->t0 || w->now > cp->t1)
		return;
	if (!cp->journal_pid || (kind == 2 && !cp->journal_named)) {
		cp->journal_pid = x->pid;
		cp->journal_named = kind == 2;
	}
	cp->journal_bios++;
	cp->journal_flushes += (x->flags & AN_FLUSH) != 0;
	cp->journal_fua += (x->flags & AN_FUA) != 0;
	cp->journal_mb += x->bytes / 1e6;
}

/* Of bio x's Q2D, the share it waited for a request (a tag, nr_requests)
 * beyond the device's usual Q2G (usual ns, its median: a tag was free):
 * when its Q2G took four times that and 20 us more, as the queue analyzer
 * tells a wait for a tag; 0 otherwise (0 to 1). */
static double tag_wait(const struct an_io *x, double usual)
{
	double q2g, q2d;

	if (x->g == AN_NONE || x->d == AN_NONE || x->g < x->q || x->d <= x->q)
		return 0;
	q2g = (double)(x->g - x->q);
	q2d = (double)(x->d - x->q);
	if (q2g <= 4 * usual + 20000)
		return 0;
	return q2g - usual >= q2d ? 1 : (q2g - usual) / q2d;
}

/* Whether buffered read x (at its Q, device index dk) of the workload
 * read sectors the workload read before (pages evicted and read again):
 * buffered reads only (direct I/O re-reads on purpose), each device's in
 * Q order against the sectors its earlier reads covered (a bit a sector,
 * struct secmap). */
static int refault_at_q(struct walk *w, int dk, const struct an_io *x)
{
	uint32_t len = (x->bytes + 511) / 512;

	if ((x->flags & (AN_WRITE | AN_SYNC)) || !x->bytes ||
	    !family_is_workload(&w->cp->fam, x->pid) ||
	    x->sector >= SM_END - len || is_swap(w->cp, x->dev))
		return 0;
	return secmap_count_set(&w->read[dk], x->sector, len) != 0;
}

static void on_q(struct walk *w, uint32_t row, const struct an_io *x)
{
	int dk = rundata_dev_index(w->rd, x->dev), ui, k, refault;
	struct devpid *own = dp_of(w, x->dev, x->pid);
	struct dstate *d = &w->ds[dk];
	struct fly *f;
	struct unit *u;

	if ((x->flags & AN_WRITE) && !(x->flags & (AN_SYNC | AN_FUA | AN_FLUSH))) {
		w->nasync++;
		bin_count(w->cp, w->now, offsetof(struct cp_bin, wb_mb),
			  x->bytes / 1e6);
	} else if ((x->flags & (AN_WRITE | AN_FLUSH)) &&
		   family_is_workload(&w->cp->fam, x->pid))
		bin_count(w->cp, w->now, offsetof(struct cp_bin, sync_mb),
			  x->bytes ? x->bytes / 1e6 : 1);
	if ((k = journal_io(w, x))) {
		journal_start(w, x, k);
		d->jqueued++;
	}
	ui = unit_of(w, x->pid);
	refault = refault_at_q(w, dk, x);
	if (ui >= 0 && blocks(&w->u[ui], x) && x->c != AN_NONE && x->c >= x->q) {
		u = &w->u[ui];
		unit_upd(w, u, w->now);
		f = fly_slot(w, row, 1);
		f->unit = ui;
		f->refault = refault;
		f->phi_q = u->phi;
		f->shared_q = d->queued + d->disp - own->queued - own->disp > 0;
		f->jfrac_q = f->shared_q ? (double)(d->jqueued + d->jdisp) /
			     (double)(d->queued + d->disp - own->queued -
				      own->disp) : 0;
		if (f->jfrac_q > 1)
			f->jfrac_q = 1;
		if (f->shared_q)
			f->tagfrac = tag_wait(x, w->q2g_usual[dk]);
		own->blocking++;
		if (u->k++ == 0) {
			if (u->alive) {
				w->nfree--;
				w->nsync_free -= u->syncs;
			}
			w->nblocked++;
			u->io_since = w->now;
		}
	}
	own->queued++;
	d->queued++;
}

static void on_d(struct walk *w, uint32_t row, const struct an_io *x)
{
	int dk = rundata_dev_index(w->rd, x->dev), k;
	struct devpid *own = dp_of(w, x->dev, x->pid);
	struct dstate *d = &w->ds[dk];
	struct fly *f = fly_slot(w, row, 0);

	if ((k = journal_io(w, x))) {
		if (x->q == AN_NONE)
			journal_start(w, x, k);
		else
			d->jqueued--;
		d->jdisp++;
	}
	if (x->q != AN_NONE) {
		own->queued--;
		d->queued--;
		if (x->d >= x->q && !(x->flags & AN_SPLIT_TAIL)) {
			own->q2d_sum_ns += (double)(x->d - x->q);
			own->q2d_n++;
		}
	}
	if (f) {
		struct unit *u = &w->u[f->unit];
		unit_upd(w, u, w->now);
		f->phi_d = u->phi;
		f->has_d = 1;
		if (d->queued + d->disp - own->queued - own->disp > 0)
			f->shared_q = 1;
		f->shared_d = d->disp - own->disp > 0;
		f->others_at_d = d->ndisp - own->ndisp;
		f->others_frac = d->disp > 0 ? (double)(d->disp - own->disp) /
				 (double)d->disp : 0;
		f->jfrac_d = d->disp - own->disp > 0 ? (double)d->jdisp /
			     (double)(d->disp - own->disp) : 0;
		if (f->jfrac_d > 1)
			f->jfrac_d = 1;
	}
	own->disp++;
	own->ndisp++;
	d->disp++;
	d->ndisp++;
	w->ndisp_all++;
}

/* Puts a blocking I/O's critical share (sq before dispatch, sd at the
 * device) into the categories. Its time at the device is its own service
 * (svc ns: since the device's previous completion or its D, whichever was
 * later: the utilization law's service time) and, before that, a wait
 * behind the I/O ahead of it; the part of that wait behind other
 * processes' I/O is queueing. */
static const struct an_vm *vm_at(const struct rundata *rd, int64_t t);

static void classify(struct walk *w, struct fly *f, uint32_t row,
		     const struct an_io *x, double sq, double sd, int64_t svc)
{
	int dk = rundata_dev_index(w->rd, x->dev);
	struct critpath *cp = w->cp;
	struct unit *u = &w->u[f->unit];
	int dir = !!(x->flags & AN_WRITE);
	uint32_t db = x->dbytes ? x->dbytes : x->bytes;
	int sc = size_class(db);
	int far = (x->flags & AN_HAS_SEEK) ? band_of(x->seek) : 0;
	int64_t d2c = f->has_d ? x->c - x->d : x->c - x->q;
	struct cp_class *c = &cp->cls[dir][sc];
	struct devpid *own;
	double qpart = 0;

	if (is_swap(cp, x->dev)) {
		cp->cat[CP_SWAP] += sq + sd;
		u->swap_wait_s += (double)(x->c - x->q) / 1e9;
		return;
	}
	/* a flusher standing for a writer the trace does not show: while
	 * vmstat counted a task blocked, the writer waited for it, at the
	 * dirty limit (throttle), or in sync or fsync when the workload's own
	 * processes queued synchronous writes or flushes (waiting for
	 * writeback) */
	if (u->proxy) {
		const struct an_vm *v = vm_at(w->rd, w->now);
		if (v && isfinite(v->b) && v->b >= 1) {
			cp->cat[w->user_sync ? CP_WBWAIT : CP_THROTTLE] += sq + sd;
			if (!w->user_sync)
				cp->proxy_throttle_s += sq + sd;
			return;
		}
	}
	if (f->refault) {
		cp->cat[CP_REFAULT] += sq + sd;
		cp->refault_mb += x->bytes / 1e6;
		cp->refault_bios++;
		return;
	}
	if (!f->has_d)
		sd += sq, sq = 0;
	/* a synchronous write or flush (fsync, sync, O_SYNC): writeback's
	 * counterfactual may claim its time (settle_free()) */
	if (dir && (x->flags & (AN_SYNC | AN_FUA | AN_FLUSH))) {
		bin_count(cp, w->now, offsetof(struct cp_bin, syncw_s), sq + sd);
		c->sync_s += sq + sd;
	}
	if (f->shared_q) {
		/* behind the journal's own writes (data=journal writing the
		 * data again, a commit): the journal's, not other load's */
		double j = sq * f->jfrac_q;
		own = dp_of(w, x->dev, x->pid);
		own->sq_shared += sq - j;
		own->sq_tag += (sq - j) * f->tagfrac;
		cp->cat[CP_JOURNAL] += j;
		cp->journal_queue_s += j;
	} else {
		cp->cat[CP_DEVICE] += sq;
		c->dev_s += sq;
		c->devb_s[far] += sq;
	}
	c->n++;
	c->nreq += db ? (double)x->bytes / db : 1;
	c->bytes += x->bytes;
	c->nb[far]++;
	c->d2c_sum_ns += (double)d2c;
	if (d2c <= 0) {
		cp->cat[CP_DEVICE] += sd;
		c->dev_s += sd;
		c->devb_s[far] += sd;
		return;
	}
	/* completed with the one before it (a device that serves several at
	 * once, or hands them back together): no service time of its own */
	if (svc < 0 || svc > d2c)
		svc = svc < 0 ? 0 : d2c;
	c->svc_sum_ns += (double)svc;
	/* the wait before its service, the other processes' share of it:
	 * beyond the device's mean service of a request of its direction and
	 * size (one bio's own service, from completion times, is too rough a
	 * measure on devices that hand requests back in bursts) */
	if (f->shared_d) {
		double mean = w->svc_mean[dk][dir][sc];
		if (mean > 0 && mean < d2c)
			qpart = sd * (1 - mean / (double)d2c) * f->others_frac;
	}
	cp->cat[CP_QUEUE] += qpart * (1 - f->jfrac_d);
	cp->cat[CP_JOURNAL] += qpart * f->jfrac_d;
	cp->journal_queue_s += qpart * f->jfrac_d;
	c->queue_s += qpart * (1 - f->jfrac_d);
	sd -= qpart;
	w->cell[dir][sc][far].n++;
	w->cell[dir][sc][far].sd += sd;
	/* per ns of its service (of its D2C when it had none of its own) */
	w->cell[dir][sc][far].sdr += sd / (double)(svc > 0 ? svc : d2c);
	if (svc > 0)
		hist_add(&w->cell[dir][sc][far].svc, (uint64_t)svc);
}

static void on_c(struct walk *w, uint32_t row, const struct an_io *x)
{
	int dk = rundata_dev_index(w->rd, x->dev);
	struct devpid *own = dp_of(w, x->dev, x->pid);
	struct dstate *d = &w->ds[dk];
	struct fly *f = fly_slot(w, row, 0);

	int64_t svc = 0;

	if (x->d != AN_NONE) {
		own->disp--;
		d->disp--;
		w->ndisp_all--;
		/* the utilization law's service time: from the device's
		 * previous completion, or this request's D when the device was
		 * idle (btt/iostat's svctm per request) */
		if (x->flags & AN_HEAD) {
			svc = x->c - (x->d > d->last_c ? x->d : d->last_c);
			if (x->c > d->last_c)
				d->last_c = x->c;
		} else
			svc = x->c - x->d;
	} else if (x->q != AN_NONE) {
		/* completed with no D seen (a Q and C trace) */
		own->queued--;
		d->queued--;
	}
	if ((x->flags & AN_WRITE) && !(x->flags & (AN_SYNC | AN_FUA | AN_FLUSH)) &&
	    x->q != AN_NONE)
		w->nasync--;
	if (journal_io(w, x)) {
		w->njournal--;
		if (x->d != AN_NONE)
			d->jdisp--;
		else
			d->jqueued--;
	}
	if (f) {
		struct unit *u = &w->u[f->unit];
		double sq, sd;
		unit_upd(w, u, w->now);
		if (!f->has_d)
			f->phi_d = f->phi_q;
		if (d->ndisp - own->ndisp > f->others_at_d)
			f->shared_d = 1;
		sq = f->phi_d - f->phi_q;
		sd = u->phi - f->phi_d;
		classify(w, f, row, x, sq, sd, svc);
		fly_del(w, f);
		if (--u->k == 0) {
			if (u->alive) {
				w->nfree++;
				w->nsync_free += u->syncs;
			}
			w->nblocked--;
			u->io_union_s += in_win(w->cp, u->io_since, w->now);
		}
	}
}

/* A unit's birth or death. */
struct life {
	int64_t t;
	int unit, born;
};

static int cmp_life(const void *a, const void *b)
{
	const struct life *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return y->born - x->born;   /* births first */
}

/* ---- before the walk ---- */

/* The swap devices (rundata's: the capture's list, or told from the
 * trace) and what vmstat swapped over the window. */
static void find_swap(struct critpath *cp, const struct rundata *rd)
{
	double so = 0, si = 0;

	for (int i = 0; i < rd->nswap && i < 8; i++)
		cp->swap_dev[cp->nswap++] = rd->swap_dev[i];
	cp->swap_inferred = rd->swap_inferred;
	for (size_t i = 0; i < rd->nvm; i++) {
		double dt = rundata_vm_dt_s(&rd->vm[i]);
		int64_t mid = rd->vm[i].t - (int64_t)(dt * 1e9) / 2;
		if (dt <= 0 || mid < cp->t0 || mid > cp->t1)
			continue;
		if (isfinite(rd->vm[i].so))
			so += rd->vm[i].so * dt * 1024 / 1e6;
		if (isfinite(rd->vm[i].si))
			si += rd->vm[i].si * dt * 1024 / 1e6;
	}
	cp->swap_out_mb = so;
	cp->swap_in_mb = si;
}

/* The first pass before the walk, over each request once and the C
 * events: each device's mean service time per request of a direction and
 * size (its requests in C order, each served from the later of its D and
 * the previous completion to its C: the utilization law, a device that
 * serves one at a time is busy for their sum) and usual Q2G (w->q2g_usual,
 * the median over its bios with a G; 0 with none: no wait for a tag
 * told); the units' first Q and last C where the tasks did not say;
 * whether the workload wrote data. */
struct pass1 {
	struct walk *w;
	double (*sum)[2][CP_SIZES], (*n)[2][CP_SIZES];
	int64_t *last;
	struct hist *q2g;
};

static void pass1_ev(void *ctx, const struct fold_ev *e)
{
	struct pass1 *p = ctx;
	struct walk *w = p->w;
	const struct an_io *x = e->io;
	int ui;

	if (e->kind == EV_C) {
		int dir, sc;
		int64_t from, *last = &p->last[e->devk];
		if (!(x->flags & AN_HEAD) || x->d == AN_NONE || x->c < x->d)
			return;
		from = x->d > *last ? x->d : *last;
		if (x->c > *last)
			*last = x->c;
		dir = !!(x->flags & AN_WRITE);
		sc = size_class(x->dbytes ? x->dbytes : x->bytes);
		p->sum[e->devk][dir][sc] += (double)(x->c - from);
		p->n[e->devk][dir][sc]++;
		return;
	}
	if (x->q != AN_NONE && x->g != AN_NONE && x->g >= x->q)
		hist_add(&p->q2g[e->devk], (uint64_t)(x->g - x->q));
	if ((x->flags & AN_WRITE) && !(x->flags & AN_DISCARD) && x->bytes &&
	    (family_is_workload(&w->cp->fam, x->pid) || w->cp->fam.proxy_writeback))
		w->cp->workload_wrote = 1;
	if (x->q != AN_NONE && (ui = unit_of(w, x->pid)) >= 0) {
		struct unit *u = &w->u[ui];
		int told = u->told;
		if ((!told || u->born == INT64_MAX) && x->q < u->born)
			u->born = x->q;
		if (!told || u->died == INT64_MIN) {
			int64_t end = x->c != AN_NONE ? x->c : x->q;
			if (end > u->died)
				u->died = end;
		}
	}
}

static void pass1(struct walk *w, const struct evorder *ord)
{
	const struct rundata *rd = w->rd;
	size_t nd = rd->ndevs ? rd->ndevs : 1;
	struct pass1 p = { .w = w };

	p.sum = xcalloc(nd, sizeof(*p.sum));
	p.n = xcalloc(nd, sizeof(*p.n));
	p.last = xmalloc(nd * sizeof(*p.last));
	p.q2g = xcalloc(nd, sizeof(*p.q2g));
	for (size_t k = 0; k < nd; k++)
		p.last[k] = INT64_MIN;
	fold_run(rd, ord, &(struct fold_sink){ pass1_ev, &p,
			 1u << FOLD_ROW | 1u << EV_C }, 1);
	w->svc_mean = xcalloc(nd, sizeof(*w->svc_mean));
	w->q2g_usual = xcalloc(nd, sizeof(*w->q2g_usual));
	for (size_t k = 0; k < rd->ndevs; k++) {
		for (int dir = 0; dir < 2; dir++)
			for (int sc = 0; sc < CP_SIZES; sc++)
				w->svc_mean[k][dir][sc] = p.n[k][dir][sc] > 0 ?
					p.sum[k][dir][sc] / p.n[k][dir][sc] : 0;
		if (p.q2g[k].n)
			w->q2g_usual[k] = hist_pct(&p.q2g[k], 50);
		hist_free(&p.q2g[k]);
	}
	free(p.sum);
	free(p.n);
	free(p.last);
	free(p.q2g);
}

/* The second pass before the walk, over each request once, the window
 * known: the writes in and out of timed commands' windows
 * (critpath_diff()'s writes_moved: commands' windows only); whether the
 * workload issued synchronous writes or flushes itself in the window
 * (fsync, O_SYNC, sync), not its kernel threads, and which units did
 * (unit.syncs); the workload's buffered reads (cp->buf_read_mb); and how
 * many of the workload's read requests (dispatches with data, swap apart)
 * start where another of its read requests on the device ends
 * (cp->read_reqs, cp->read_contig): the file's blocks laid end to end,
 * read in pieces (a readahead window, a request size) when most do,
 * scattered (a fragmented file, random reads) when few do. In either
 * order, within CONTIG_WINDOW requests (contig.h). */
struct pass2 {
	struct walk *w;
	struct contig reads;
};

static void pass2_ev(void *ctx, const struct fold_ev *e)
{
	struct pass2 *p = ctx;
	struct walk *w = p->w;
	struct critpath *cp = w->cp;
	const struct an_io *x = e->io;
	uint32_t fl = x->flags;
	int64_t t = x->q;
	uint64_t dk = (uint64_t)e->devk << 48;
	int k = family_of(&cp->fam, x->pid), ui;

	if (cp->from_cmds && (fl & AN_WRITE) && !(fl & AN_DISCARD)) {
		cp->run_write_bytes += x->bytes;
		if (t == AN_NONE)
			t = x->d;
		if (t != AN_NONE && t >= cp->t0 && t <= cp->t1)
			cp->win_write_bytes += x->bytes;
	}
	if (k >= 0 && cp->fam.f[k].workload && !*cp->fam.f[k].role &&
	    x->q != AN_NONE && x->q >= cp->t0 && x->q <= cp->t1 &&
	    ((fl & AN_FLUSH) || ((fl & AN_WRITE) && (fl & (AN_SYNC | AN_FUA))))) {
		w->user_sync = 1;
		if ((ui = unit_of(w, x->pid)) >= 0)
			w->u[ui].syncs = 1;
	}
	if (!(fl & (AN_WRITE | AN_SYNC)) && x->bytes && x->q != AN_NONE &&
	    k >= 0 && cp->fam.f[k].workload)
		cp->buf_read_mb += x->bytes / 1e6;
	/* a whole sector at least: a start and an end apart */
	if ((fl & (AN_WRITE | AN_HEAD)) != AN_HEAD || x->dbytes < 512 ||
	    x->dsector >= (1ull << 47) || is_swap(cp, x->dev) ||
	    k < 0 || !cp->fam.f[k].workload)
		return;
	contig_add(&p->reads, dk | x->dsector, dk | (x->dsector + x->dbytes / 512));
}

static void pass2(struct walk *w)
{
	struct pass2 p = { .w = w };

	contig_init(&p.reads, w->rd->n);
	fold_run(w->rd, NULL, &(struct fold_sink){ pass2_ev, &p,
			 1u << FOLD_ROW }, 1);
	w->cp->read_reqs = (double)p.reads.n;
	w->cp->read_contig = (double)p.reads.hit;
	contig_free(&p.reads);
}

/* ---- after the walk ---- */

/* What a seek of band b adds to the service of a dispatch of class (dir,
 * sc), ns: its median service over a near one's, when 25% and 20 us more (a
 * device that shows seeks); 0 when it does not, -1 when it cannot be told
 * here (too few of either). */
static double seek_extra(struct walk *w, int dir, int sc, int b)
{
	double bn, bb;

	if (!b || w->cell[dir][sc][0].svc.n < MIN_BASE ||
	    w->cell[dir][sc][b].svc.n < MIN_BASE)
		return -1;
	bn = hist_pct(&w->cell[dir][sc][0].svc, 50);
	bb = hist_pct(&w->cell[dir][sc][b].svc, 50);
	return bb > 1.25 * bn && bb - bn > 20e3 ? bb - bn : 0;
}

/* The service time of the cells: the device's own speed and seeks (a
 * band's extra over a near dispatch of the class, or the device's where
 * the class has too few near ones to say). */
static void settle_cells(struct walk *w)
{
	struct critpath *cp = w->cp;
	double gextra[CP_BANDS] = { 0 };

	for (int b = 1; b < CP_BANDS; b++) {
		double xsum = 0, xn = 0;
		for (int dir = 0; dir < 2; dir++)
			for (int sc = 0; sc < CP_SIZES; sc++) {
				double e = seek_extra(w, dir, sc, b);
				double n = (double)w->cell[dir][sc][b].svc.n;
				if (e >= 0) {
					xsum += e * n;
					xn += n;
				}
			}
		gextra[b] = xn > 0 ? xsum / xn : 0;
	}
	for (int dir = 0; dir < 2; dir++)
		for (int sc = 0; sc < CP_SIZES; sc++) {
			struct cp_class *c = &cp->cls[dir][sc];
			for (int b = 0; b < CP_BANDS; b++) {
				double sd = w->cell[dir][sc][b].sd;
				double sdr = w->cell[dir][sc][b].sdr;
				double extra = seek_extra(w, dir, sc, b), seek = 0;
				if (w->cell[dir][sc][b].svc.n)
					cp->base_ns[dir][sc][b] =
						hist_pct(&w->cell[dir][sc][b].svc, 50);
				if (sd <= 0)
					continue;
				if (extra < 0)
					extra = gextra[b];
				if (b && extra > 0) {
					seek = extra * sdr;
					if (seek > sd)
						seek = sd;
				}
				cp->cat[CP_SEEK] += seek;
				cp->cat[CP_DEVICE] += sd - seek;
				c->seek_s += seek;
				c->dev_s += sd - seek;
				c->devb_s[b] += sd;
			}
		}
}

/* 1 when pid is a user process: its family has no kernel thread's role
 * (family.c, ta_role()), or it has none. */
static int user_pid(const struct critpath *cp, uint32_t pid)
{
	int k = family_of(&cp->fam, pid);

	return k < 0 || !*cp->fam.f[k].role;
}

/* A user process's wait before dispatch beyond what the other user
 * processes on its device waited (Q2D means), from its waits while others
 * were present: fairness, as an_fairness.c judges it (kernel threads left
 * out: a reader's wait behind the flushers' writes is queueing); the rest
 * of those waits: queueing (of it, the waits for a tag in queue_tag_s). */
static void settle_queue(struct walk *w)
{
	struct critpath *cp = w->cp;
	size_t nd = w->rd->ndevs ? w->rd->ndevs : 1;
	double *usum = xcalloc(nd, sizeof(*usum));
	uint64_t *un = xcalloc(nd, sizeof(*un));
	char *user = xcalloc(w->dpcap ? w->dpcap : 1, 1);

	for (size_t i = 0; i < w->dpcap; i++) {
		const struct devpid *p = &w->dp[i];
		int dk;
		if (!p->used || !(user[i] = (char)user_pid(cp, p->pid)))
			continue;
		dk = rundata_dev_index(w->rd, p->dev);
		usum[dk] += p->q2d_sum_ns;
		un[dk] += p->q2d_n;
	}
	for (size_t i = 0; i < w->dpcap; i++) {
		struct devpid *p = &w->dp[i];
		double mine, others, unfair = 0;
		int dk;
		if (!p->used || p->sq_shared <= 0)
			continue;
		dk = rundata_dev_index(w->rd, p->dev);
		mine = p->q2d_n ? p->q2d_sum_ns / (double)p->q2d_n : 0;
		others = user[i] && un[dk] > p->q2d_n ? (usum[dk] - p->q2d_sum_ns) /
			 (double)(un[dk] - p->q2d_n) : 0;
		if (user[i] && p->q2d_n >= MIN_BASE && un[dk] - p->q2d_n >= MIN_BASE &&
		    mine > 2 * others && mine - others > 50e3)
			unfair = p->sq_shared * (1 - others / mine);
		cp->cat[CP_FAIRNESS] += unfair;
		cp->cat[CP_QUEUE] += p->sq_shared - unfair;
		/* the waits for a tag, in the queue's part as in the whole */
		cp->queue_tag_s += p->sq_tag * (1 - unfair / p->sq_shared);
	}
	free(usum);
	free(un);
	free(user);
}

/* vmstat's row whose interval holds t, or NULL. */
static const struct an_vm *vm_at(const struct rundata *rd, int64_t t)
{
	size_t lo = 0, hi = rd->nvm;
	int64_t iv;

	if (!rd->nvm)
		return NULL;
	/* a run shorter than two intervals of a vmstat 1 log has one row:
	 * it stands for the second before it, give or take half of one */
	if (rd->nvm == 1)
		return t > rd->vm[0].t - 1500000000LL && t <= rd->vm[0].t + 500000000LL
		       ? &rd->vm[0] : NULL;
	iv = rd->vm[rd->nvm - 1].t - rd->vm[rd->nvm - 2].t;
	if (t > rd->vm[rd->nvm - 1].t + iv)
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rd->vm[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return t >= rd->vm[0].t - (rd->vm[1].t - rd->vm[0].t) ? &rd->vm[0]
								    : NULL;
	if (lo >= rd->nvm)
		return &rd->vm[rd->nvm - 1];
	/* a gap no row covers (between one vmstat run's last row and the
	 * next run's first interval, its since-boot row left out) */
	if (rd->vm[lo].t0 != AN_NONE && t <= rd->vm[lo].t0)
		return NULL;
	return &rd->vm[lo];
}

/* Dirty + Writeback over the point where the kernel throttles writers
 * ((background + dirty threshold) / 2: mm/page-writeback.c
 * dirty_freerun_ceiling()): 1, 0 not, -1 unknown. */
static int throttling(const struct rundata *rd, int64_t t)
{
	double d = series_at(&rd->dirty_kb, t), th = series_at(&rd->dirty_thresh_kb, t);
	double bg = series_at(&rd->bg_thresh_kb, t), wb = series_at(&rd->writeback_kb, t);

	if (!isfinite(d) || !isfinite(th) || !isfinite(bg))
		return -1;
	return d + (isfinite(wb) ? wb : 0) > (th + bg) / 2;
}

/* The machine's own level of blocked tasks (vmstat b) when the workload
 * was not running: the median over the samples outside the window (other
 * jobs' I/O waits), 0 with too few of them. */
static double b_background(const struct critpath *cp, const struct rundata *rd)
{
	double v[512];
	int n = 0;

	for (size_t i = 0; i < rd->nvm && n < 512; i++)
		if ((rd->vm[i].t < cp->t0 || rd->vm[i].t > cp->t1 + cp->bin_ns * 10) &&
		    isfinite(rd->vm[i].b))
			v[n++] = rd->vm[i].b;
	return n >= 3 ? median_of(v, n) : 0;
}

/* The dirty limit the run set, bytes (vm.dirty_bytes, else the kernel's
 * threshold samples); 0 when unknown. */
static double dirty_limit_bytes(const struct rundata *rd)
{
	char v[32];
	double x;

	if (!rundata_setting(rd, "vm.dirty_bytes", v, sizeof(v)) &&
	    (x = atof(v)) > 0)
		return x;
	if (rd->dirty_thresh_kb.n)
		return series_at(&rd->dirty_thresh_kb, rd->t0) * 1024;
	return 0;
}

/* The share of its time a runnable task waited for a CPU in the interval
 * of vmstat row v (NULL: none) on ncpu CPUs (0: unknown, taken as 1): with
 * the CPUs saturated, or more runnable tasks than CPUs by two (vmstat
 * counts itself in r) while some CPU idles (tasks pinned to one CPU wait
 * there as vmstat's id shows the other idle), the tasks other than the
 * sampler itself (r - 1) share the CPUs that were busy (n less the idle
 * share: tasks pinned to one of two CPUs share one), each waiting
 * 1 - busy/(r - 1); 0 otherwise. r is a count at the sample's instant,
 * id the interval's mean: a queue for a pinned CPU keeps that CPU busy, so
 * less than 0.9 of a CPU busy over the interval is a moment's spike of r
 * (a writer's r of 4 with the CPUs 67% idle read as 0.4 s of waiting). */
static double cpu_wait_share(const struct an_vm *v, int ncpu)
{
	int n = ncpu > 0 ? ncpu : 1;
	double r, busy;

	if (!v || !isfinite(v->r) || !isfinite(v->id) ||
	    !(v->id < 10 || v->r >= n + 2))
		return 0;
	r = v->r - 1 > 1 ? v->r - 1 : 1;
	busy = n * (1 - fmin(fmax(v->id, 0), 100) / 100);
	if (busy < 0.9)
		return 0;
	if (busy < 1)
		busy = 1;
	return r > busy ? 1 - busy / r : 0;
}

/* PSI memory "some" over the bin centred at t, len seconds long
 * (Documentation/accounting/psi.rst): the share of it some task stalled on
 * memory (reclaim, refaults); of the workload's free time f that share
 * goes to memory stall (CP_SWAP). Returns the seconds taken from f. */
static double psi_mem_stall(struct critpath *cp, const struct rundata *rd,
			    int64_t t, double len, double f)
{
	double p;

	if (rd->psi[RD_PSI_MEM_SOME].n < 2)
		return 0;
	p = series_delta(&rd->psi[RD_PSI_MEM_SOME], t - cp->bin_ns / 2,
			 t + cp->bin_ns / 2) / 1e6 / len;
	if (p > 1)
		p = 1;
	if (p <= 0.01)
		return 0;
	cp->cat[CP_SWAP] += f * p;
	cp->swap_stall_s += f * p;
	cp->swap_active_s += f * p;
	return f * p;
}

/* Classifies the free time of each bin from the samples: blocked tasks
 * (vmstat b over the machine's own level) with swapping under way are
 * memory stalls; blocked while writeback ran, dirty throttling when the
 * dirty data was over the throttling point or the limit far below what
 * was written, a wait for writeback otherwise (writeback's cost where idle
 * time with dirty data came before); blocked with no I/O at all, I/O held
 * above the block layer; runnable with the CPUs saturated, CPU; the rest
 * other. */
static int workload_wrote(const struct critpath *cp, const struct rundata *rd);

/* The bins where data is taken as dirty without meminfo (a trace and a
 * vmstat log): from the window's start where the writer began dirtying
 * pages to the first write that went out, in the gaps between the
 * flushers' bursts (the next burst writes what waited), and where vmstat's
 * cache grew with nothing read or written (buffered writes not yet written
 * back), until the next write. With meminfo, none (Dirty says). Returns
 * cp->nbin flags (at least one byte), freed by the caller. */
static uint8_t *pending_dirty(const struct critpath *cp,
			      const struct rundata *rd)
{
	uint8_t *pend = xcalloc(cp->nbin ? cp->nbin : 1, 1);
	ssize_t last = -1;

	if (rd->dirty_kb.n)
		return pend;
	/* from the window's start (where the writer began dirtying pages) to
	 * the first write that went out; also where the window is the
	 * commands', begun before the first event while the trace ran (its
	 * start-time record) and saw no I/O at all: a workload that wrote
	 * did nothing the devices saw until then but dirty pages (`dd; sync`
	 * whose dd left its 160 MB for sync) */
	int traced = cp->from_cmds && rd->rv &&
		     rd->rv->traced_from_ns <= cp->t0 &&
		     cp->t0 < rd->rv->genesis_ns && workload_wrote(cp, rd);
	for (size_t j = 0; (cp->dirtying_first || traced) && j < cp->nbin &&
	     cp->bin[j].wb_mb < 0.5 && !cp->bin[j].sync_mb &&
	     (cp->dirtying_first || cp->bin[j].busy_s <= 0); j++)
		pend[j] = 1;
	for (size_t j = 0; j < cp->nbin; j++)
		if (cp->bin[j].wb_mb >= 0.5) {
			for (ssize_t k = last + 1; last >= 0 && k < (ssize_t)j; k++)
				pend[k] = 1;
			last = (ssize_t)j;
		}
	for (size_t j = 0; j < cp->nbin; j++) {
		int64_t t = cp->t0 + (int64_t)j * cp->bin_ns + cp->bin_ns / 2;
		const struct an_vm *v = vm_at(rd, t);
		size_t vi;
		if (!v || v == rd->vm)
			continue;
		vi = (size_t)(v - rd->vm);
		if (isfinite(v->cache) && isfinite(rd->vm[vi - 1].cache) &&
		    v->cache - rd->vm[vi - 1].cache >= 8 * 1024 &&
		    isfinite(v->bi) && isfinite(v->bo) && v->bi + v->bo < 1024)
			/* the rest of the window until the next write */
			for (size_t k = j; k < cp->nbin && cp->bin[k].wb_mb < 0.5 &&
			     !cp->bin[k].sync_mb; k++)
				pend[k] = 1;
	}
	return pend;
}

/* With meminfo: the share of the workload's synchronous writes (sync_total
 * MB) that were data dirtied in the window: Dirty's rise before the first
 * of them, over their volume (dirty data of other jobs on the machine
 * idling beside an fsync'ing writer is not its writeback); 1 without. */
static double own_sync_share(const struct critpath *cp,
			     const struct rundata *rd, double sync_total)
{
	double lo = INFINITY, rise = 0;

	if (!rd->dirty_kb.n || sync_total <= 0)
		return 1;
	for (size_t j = 0; j < cp->nbin; j++) {
		int64_t t = cp->t0 + (int64_t)j * cp->bin_ns;
		double d = series_at(&rd->dirty_kb, t) / 1024;
		if (isfinite(d)) {
			lo = d < lo ? d : lo;
			rise = d - lo > rise ? d - lo : rise;
		}
		if (cp->bin[j].sync_mb)
			break;
	}
	return rise / sync_total < 1 ? rise / sync_total : 1;
}

/* Moves from_sync seconds of the workload's synchronous writes (what the
 * idle time with dirty data before could have written) from the device's
 * time to writeback's, class by class as their share. */
static void sync_to_writeback(struct critpath *cp, double from_sync)
{
	double sync_all = 0;

	for (int sc = 0; sc < CP_SIZES; sc++)
		sync_all += cp->cls[1][sc].sync_s;
	if (from_sync <= 0 || sync_all <= 0)
		return;
	if (from_sync > cp->cat[CP_DEVICE])
		from_sync = cp->cat[CP_DEVICE];
	cp->cat[CP_WRITEBACK] += from_sync;
	cp->cat[CP_DEVICE] -= from_sync;
	cp->wb_sync_s = from_sync;
	for (int sc = 0; sc < CP_SIZES; sc++) {
		struct cp_class *c = &cp->cls[1][sc];
		double part = from_sync * c->sync_s / sync_all, all = 0;
		c->dev_s -= part;
		for (int b = 0; b < CP_BANDS; b++)
			all += c->devb_s[b];
		for (int b = 0; b < CP_BANDS && all > 0; b++)
			c->devb_s[b] -= part * c->devb_s[b] / all;
	}
}

/* 1 when at least half the vm rows whose intervals overlap the window
 * counted blocked tasks (b) over the machine's own level bbg. */
static int mostly_blocked(const struct critpath *cp, const struct rundata *rd,
			  double bbg)
{
	int n = 0, blocked = 0;

	for (size_t i = 0; i < rd->nvm; i++) {
		const struct an_vm *v = &rd->vm[i];
		int64_t from = v->t0 != AN_NONE ? v->t0 : v->t;
		if (v->t <= cp->t0 || from >= cp->t1 || !isfinite(v->b))
			continue;
		n++;
		blocked += v->b - bbg >= 1;
	}
	return n && 2 * blocked >= n;
}

static void settle_free(struct critpath *cp, const struct rundata *rd)
{
	int ncpu = rd->ncpu;
	double idle_dirty = 0, bbg = b_background(cp, rd), wb_total = 0;
	double limit = dirty_limit_bytes(rd), sync_total = 0, from_sync = 0;
	double wb_free = 0, own_share;
	const struct an_vm *held_vm[2] = { NULL, NULL };   /* samples saying
							     * held */
	const struct an_vm *thr_vm[2] = { NULL, NULL };    /* samples saying
							     * throttled,
							     * inferred */
	double thr_inferred = 0;
	uint8_t *pend = pending_dirty(cp, rd);

	for (size_t j = 0; j < cp->nbin; j++) {
		wb_total += cp->bin[j].wb_mb;
		sync_total += cp->bin[j].sync_mb;
	}
	own_share = own_sync_share(cp, rd, sync_total);
	for (size_t j = 0; j < cp->nbin; j++) {
		struct cp_bin *b = &cp->bin[j];
		int64_t t = cp->t0 + (int64_t)j * cp->bin_ns + cp->bin_ns / 2;
		double len = in_win(cp, t - cp->bin_ns / 2, t + cp->bin_ns / 2);
		const struct an_vm *v = vm_at(rd, t);
		double f = b->free_s, fc = 0;
		double dirty = series_at(&rd->dirty_kb, t);
		int blocked, writing;
		if (len <= 0)
			continue;
		/* devices idle with dirty data waiting (meminfo), for the
		 * writeback that a later wait could have used */
		if (((isfinite(dirty) && dirty * 1024 / 1e6 >= 8) || pend[j]) &&
		    b->busy_s < 0.1 * len)
			idle_dirty += len - b->busy_s;
		/* the workload's own synchronous writes of dirty data after the
		 * devices idled with it: what the idle time could have done */
		if (b->syncw_s > 0 && idle_dirty > 0) {
			double c = b->syncw_s * own_share;
			c = c < idle_dirty ? c : idle_dirty;
			from_sync += c;
			idle_dirty -= c;
		}
		if (f <= 0)
			continue;
		/* free while the journal committed what its syncs asked for */
		if (b->jfree_s > 0) {
			double jf = b->jfree_s < f ? b->jfree_s : f;
			cp->cat[CP_JOURNAL] += jf;
			f -= jf;
			if (f <= 0)
				continue;
		}
		fc = cpu_wait_share(v, ncpu);
		/* blocked (procs_blocked: tasks in I/O wait, counted also when
		 * the CPUs are busy, unlike wa) first: a blocked task is not
		 * waiting for a CPU */
		/* the share PSI says some task stalled on memory */
		f -= psi_mem_stall(cp, rd, t, len, f);

		blocked = v && isfinite(v->b) && v->b - bbg >= 1;
		writing = b->wb_mb >= 0.5 || b->wb_s >= 0.3 * len;
		if (blocked && v->si + v->so >= 100 && rd->psi[RD_PSI_MEM_SOME].n < 2) {
			cp->cat[CP_SWAP] += f;
			cp->swap_stall_s += f;
			cp->swap_active_s += f;
		} else if (blocked && writing) {
			int th = throttling(rd, t);
			cp->wb_active_s += f;
			if (th == 1 || (limit > 0 && limit * 2 < wb_total * 1e6))
				cp->cat[CP_THROTTLE] += f;
			else if (th < 0 && !limit && !sync_total && idle_dirty <= 0) {
				/* no Dirty, no limit: the blocked tasks
				 * alone say it */
				cp->cat[CP_THROTTLE] += f;
				thr_inferred += f;
				if (v != thr_vm[0] && v != thr_vm[1])
					thr_vm[thr_vm[0] != NULL] = v;
			} else if (idle_dirty > 0) {
				/* a wait the idle time before could have
				 * saved: writeback's cost */
				double c = f < idle_dirty ? f : idle_dirty;
				cp->cat[CP_WRITEBACK] += c;
				cp->cat[CP_WBWAIT] += f - c;
				idle_dirty -= c;
				wb_free += c;
			} else
				cp->cat[CP_WBWAIT] += f;
		} else if (blocked && b->busy_s < 0.1 * len && b->own_io_s > 0) {
			/* issuing its I/O slowly with the devices idle: held
			 * before the block layer saw it (blk-throttle) */
			cp->cat[CP_THROTTLE] += f;
			cp->held_s += f;
			if (v != held_vm[0] && v != held_vm[1])
				held_vm[held_vm[0] != NULL] = v;
		} else {
			cp->cat[CP_CPU] += f * fc;
			if (fc > 0)
				cp->cpu_busy_s += f;
			if (fc > 0 && v->id >= 10)
				cp->cpu_pinned_s += f * fc;
			cp->cat[CP_OTHER] += f * (1 - fc);
		}
	}
	/* held on one sample's word: b counts tasks in I/O wait at an
	 * instant; a rate-limited reader in D state once, with the devices 8%
	 * busy, held for the whole second is no evidence of a limit (a
	 * healthy run's report said throttle): two samples at least */
	if (cp->held_s > 0 && !held_vm[1]) {
		cp->cat[CP_THROTTLE] -= cp->held_s;
		cp->cat[CP_OTHER] += cp->held_s;
		cp->held_s = 0;
	}
	/* the same for dirty throttling told from blocked tasks alone (no
	 * Dirty sampled, no limit known): one sample of b while the flushers
	 * wrote, among others over the run that saw none, is a task caught in
	 * D state (a log with b = 1 once in four rows named throttle first);
	 * a short run's one or two rows, blocked, still say it */
	if (thr_inferred > 0 && !thr_vm[1] && !mostly_blocked(cp, rd, bbg)) {
		cp->cat[CP_THROTTLE] -= thr_inferred;
		cp->cat[CP_OTHER] += thr_inferred;
	}
	/* the flushers' I/O the workload waited on in its sync (the walk's
	 * CP_WBWAIT, a trace and a vmstat log alone) after the devices idled
	 * with the dirty data, as a wait in its free time is: the idle time
	 * could have written it, writeback's cost (with meminfo the kernel's
	 * delay accounting splits it: settle_measured()) */
	if (!rd->dirty_kb.n && idle_dirty > 0 && cp->cat[CP_WBWAIT] > 0) {
		double c = cp->cat[CP_WBWAIT] < idle_dirty ? cp->cat[CP_WBWAIT]
							   : idle_dirty;
		cp->cat[CP_WBWAIT] -= c;
		cp->cat[CP_WRITEBACK] += c;
		idle_dirty -= c;
		wb_free += c;
	}
	/* what the free time could still take: the idle time left, and what
	 * the samples' split gave it (settle_measured() splits again) */
	cp->idle_dirty_s = idle_dirty + wb_free;
	cp->dirty_limited = limit > 0 && limit * 2 < wb_total * 1e6;
	free(pend);
	/* what writeback claimed of the synchronous writes leaves the device's
	 * time */
	sync_to_writeback(cp, from_sync);
}

static int sleeper(const struct an_task *t);

/* 1 when a task of the workload's families has pid as its parent. */
static int has_child(const struct rundata *rd, const struct critpath *cp,
		     uint32_t pid)
{
	for (size_t i = 0; i < rd->ntask; i++)
		if (rd->tasks[i].ppid == pid &&
		    family_is_workload(&cp->fam, rd->tasks[i].pid))
			return 1;
	return 0;
}

/* With the tasks' delay accounting: the free time split as the workload's
 * tasks spent theirs (waiting for a CPU, in reclaim, blocked beyond their
 * traced I/O), replacing what the samples suggested. Tasks that only
 * waited for their children (a shell, xargs) are left out: their wait is
 * their children's time. */
static void settle_measured(struct critpath *cp, const struct rundata *rd,
			    const struct walk *w)
{
	/* the free time less the journal's commits (settle_free()), which
	 * the walk told from the trace */
	double cpu = 0, mem = 0, held = 0, freep = 0, sum, h;
	double f = cp->free_s - cp->cat[CP_JOURNAL];
	double sleep_w = 0, wb_seen;
	int th_bins = 0, bins = 0, ok = 0;

	for (size_t i = 0; i < rd->ntask; i++) {
		const struct an_task *t = &rd->tasks[i];
		int ui = unit_of(w, t->pid);
		double life, io = ui >= 0 ? w->u[ui].io_union_s : 0;
		double swio = ui >= 0 ? w->u[ui].swap_wait_s : 0;
		double v[AT_NFIELD], busy;
		if (!family_is_workload(&cp->fam, t->pid))
			continue;
		for (int k = 0; k < AT_NFIELD; k++)
			v[k] = rundata_task_s(t, k, cp->t0);
		int no_blkio = isnan(v[AT_BLKIO]);
		for (int k = 0; k < AT_NFIELD; k++)
			if (isnan(v[k]))
				v[k] = 0;
		life = in_win(cp, t->start != AN_NONE ? t->start : cp->t0,
			      t->exit != AN_NONE ? t->exit : cp->t1);
		/* a block I/O delay the capture dropped (not measured): the
		 * task's life beyond its CPU time, its wait for a CPU and
		 * its memory stalls, at least its traced waits (a task of
		 * the workload that is not idle sleeps on I/O) */
		double rest = life - v[AT_CPU] - v[AT_CPU_DELAY] -
			      v[AT_FREEPAGES] - v[AT_THRASHING] -
			      v[AT_COMPACT] - v[AT_SWAPIN];
		/* ... but a parent of the workload's tasks that mostly slept
		 * (sleeper()) waited for its children: a shell whose delay
		 * was dropped read as 4.8 s held above the block layer */
		if (no_blkio)
			v[AT_BLKIO] = rest > io && !(sleeper(t) &&
						     has_child(rd, cp, t->pid)) ?
				      rest : io;
		busy = v[AT_CPU] + v[AT_CPU_DELAY] + v[AT_BLKIO];
		if (life <= 0 || busy < 0.2 * life)
			continue;
		/* asleep beyond all of those: a wait the kernel does not
		 * count as block I/O (sync(2) waiting for the flushers'
		 * work, wb_wait_for_completion) */
		if (!no_blkio && rest - v[AT_BLKIO] > 0)
			sleep_w += rest - v[AT_BLKIO];
		ok = 1;
		cpu += v[AT_CPU_DELAY];
		mem += v[AT_FREEPAGES] + v[AT_THRASHING] + v[AT_COMPACT];
		if (v[AT_SWAPIN] > swio)
			mem += v[AT_SWAPIN] - swio;
		if (v[AT_BLKIO] > io)
			held += v[AT_BLKIO] - io;
		freep += life - io > 0 ? life - io : 0;
	}
	if (!ok || f <= 0)
		return;
	/* the sleeps count as held where the samples saw the workload
	 * blocked while writeback ran (vmstat b: D state, machine-wide), up
	 * to what they saw */
	wb_seen = cp->cat[CP_WRITEBACK] - cp->wb_sync_s + cp->cat[CP_WBWAIT] +
		  cp->cat[CP_THROTTLE] - cp->held_s;
	if (cp->wb_active_s > 0 && wb_seen > 0)
		held += sleep_w < wb_seen ? sleep_w : wb_seen;
	else if (cp->wb_sync_s > 0 && cp->idle_dirty_s > 0) {
		/* or where the workload wrote dirty data back itself after
		 * the devices idled with it (its sync): waiting on that, in
		 * proportion to those writes (a sync that waited 0.15 s wrote
		 * for 0.07 s; a writer's fsyncs of 1 ms are no reason to take
		 * its parent's sleep for writeback) */
		double cap = 4 * cp->wb_sync_s;
		if (cap > cp->idle_dirty_s)
			cap = cp->idle_dirty_s;
		held += sleep_w < cap ? sleep_w : cap;
	}
	cp->measured = 1;
	cp->dly_cpu_s = cpu;
	cp->dly_mem_s = mem;
	cp->dly_blkio_s = held;
	sum = cpu + mem + held;
	if (sum > freep)
		freep = sum;
	if (freep <= 0)
		return;
	/* the tasks' own seconds, scaled down only where tasks that ran at
	 * once add up to more than the workload's free time; an idle task's
	 * (sleep, a waiting shell) time stays think time */
	if (freep < f)
		freep = f;
	for (size_t j = 0; j < cp->nbin; j++) {
		int64_t t = cp->t0 + (int64_t)j * cp->bin_ns + cp->bin_ns / 2;
		if (cp->bin[j].free_s <= 0)
			continue;
		bins++;
		th_bins += throttling(rd, t) == 1;
	}
	cp->cat[CP_CPU] = f * cpu / freep;
	cp->cat[CP_SWAP] += f * mem / freep - cp->swap_stall_s;
	cp->swap_stall_s = f * mem / freep;
	h = f * held / freep;
	/* held: dirty throttling when dirty data was over the throttling point
	 * most of the free time, else waiting for writeback (or I/O held above
	 * the block layer) */
	if ((bins && th_bins * 2 > bins) || cp->dirty_limited) {
		cp->cat[CP_THROTTLE] = h;
		cp->cat[CP_WRITEBACK] = cp->wb_sync_s;
		cp->cat[CP_WBWAIT] = 0;
	} else {
		double c = h < cp->idle_dirty_s ? h : cp->idle_dirty_s;
		/* writeback's only where the held time was a wait on it: the
		 * flushers wrote while the workload was blocked, or it synced
		 * dirty data of its own (as much as held took for that, 4x
		 * its writes' time at most). The devices idle with dirty data
		 * alone say nothing of whose it was, nor that the wait was
		 * for it: make demo's capture right after its build (over 8
		 * MB dirty system-wide, the loop device idle 0.39 s; the
		 * writer's fsyncs found 0.7 of their 33.6 MB dirty before
		 * them) gave writeback 0.26 s of the writer's held time */
		if (cp->wb_active_s <= 0)
			c = fmin(c, 4 * cp->wb_sync_s);
		cp->cat[CP_THROTTLE] = cp->wb_active_s > 0 || c > 0 ? 0 : h;
		/* the synchronous writes' part (walk) stays: it is device
		 * time, not the free time split here */
		cp->cat[CP_WRITEBACK] = c + cp->wb_sync_s;
		cp->cat[CP_WBWAIT] = cp->wb_active_s > 0 || c > 0 ? h - c : 0;
	}
	cp->cat[CP_OTHER] = f * (1 - sum / freep);
}

/* ---- the build ---- */

/* 1 when the workload's I/O (its families', or the flushers' for it)
 * holds writes with data (pass1()). */
static int workload_wrote(const struct critpath *cp, const struct rundata *rd)
{
	(void)rd;
	return cp->workload_wrote;
}

/* Where buffered writing began before t (a trace shows no writer that
 * only dirties pages: DESIGN.md, a trace and a vmstat log alone): going
 * back from the vmstat interval holding t, through intervals where nothing
 * was written back (bo under 1 MB/s: what was dirtied stayed dirty) or the
 * cache grew, to 10 s before t, the start of the earliest interval where
 * the cache grew by 8 MB or more with little read (bi under 1 MB/s); t when
 * there is none. */
static int64_t dirtying_since(const struct rundata *rd, int64_t t, int wrote)
{
	int64_t from = t;
	size_t i;

	int frozen = 1;

	if (rd->dirty_kb.n || rd->nvm < 1)
		return t;       /* meminfo shows the dirty data itself */
	/* procps 4.0's `vmstat 1` (Debian 12) repeats its first memory
	 * figures on every row: cache cannot grow there */
	for (i = 1; i < rd->nvm; i++)
		if (rd->vm[i].cache != rd->vm[0].cache ||
		    rd->vm[i].free != rd->vm[0].free)
			frozen = 0;
	for (i = 1; i < rd->nvm && rd->vm[i].t < t; i++)
		;
	if (i >= rd->nvm)
		i = rd->nvm - 1;
	for (; i < rd->nvm; i--) {
		const struct an_vm *v = &rd->vm[i], *p = i ? &rd->vm[i - 1] : NULL;
		int64_t start = p ? p->t : v->t - 1000000000LL;
		int grew = p && isfinite(v->cache) && isfinite(p->cache) &&
			   v->cache - p->cache >= 8 * 1024 &&
			   !(isfinite(v->bi) && v->bi >= 1024);
		int unread = !(isfinite(v->bi) && v->bi >= 1024);
		int quiet = isfinite(v->bo) && v->bo < 1024 && unread;
		/* frozen memory columns: the log's intervals before a buffered
		 * writer's data went out, with little read, stand for the
		 * time it was written into the page cache (the log started
		 * with the workload, as `vmstat 1 > log & workload` does) */
		int early = frozen && wrote && unread;
		if (v->t > t && i && !early)
			continue;
		if (t - start > 10000000000LL || (!grew && !quiet && !early))
			break;
		if ((grew || early) && start < from)
			from = start;
		if (!i)
			break;
	}
	return from;
}

static void window(struct critpath *cp, const struct rundata *rd,
		   uint64_t mask)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (size_t i = 0; mask && i < rd->ncmd; i++) {
		const struct an_cmd *c = &rd->cmds[i];
		if (c->idx < 0 || c->idx >= 64 || !((mask >> c->idx) & 1) ||
		    c->start == AN_NONE || c->end == AN_NONE)
			continue;
		if (c->start < lo)
			lo = c->start;
		if (c->end > hi)
			hi = c->end;
	}
	if (hi > lo) {
		cp->t0 = lo;
		cp->t1 = hi;
		cp->from_cmds = 1;
		snprintf(cp->window_why, sizeof(cp->window_why), "the start to "
			 "the end of the commands asked about");
	} else if (rd->elapsed_from_cmds) {
		cp->t0 = rd->t0;
		cp->t1 = rd->t1;
		cp->from_cmds = 1;
		snprintf(cp->window_why, sizeof(cp->window_why), "the timed "
			 "commands' first start to last end");
	} else if (cp->fam.t1 > cp->fam.t0) {
		int64_t early = dirtying_since(rd, cp->fam.t0,
					       workload_wrote(cp, rd));
		cp->t0 = cp->fam.t0;
		cp->t1 = cp->fam.t1;
		if (rd->rv && rd->rv->filtered) {
			if (cp->t0 < rd->t0)
				cp->t0 = rd->t0;
			if (cp->t1 > rd->t1)
				cp->t1 = rd->t1;
		}
		snprintf(cp->window_why, sizeof(cp->window_why), "the workload's "
			 "first Q to last C (%s)", cp->fam.why);
		if (early < cp->t0 && !(rd->rv && rd->rv->filtered)) {
			size_t o = strlen(cp->window_why);
			cp->t0 = early;
			cp->dirtying_first = 1;
			snprintf(cp->window_why + o, sizeof(cp->window_why) - o,
				 ", from when vmstat's cache began to grow with "
				 "nothing read (buffered writes) before it");
		}
	} else {
		cp->t0 = rd->t0;
		cp->t1 = rd->t1;
		snprintf(cp->window_why, sizeof(cp->window_why), "%s",
			 rd->n ? "the trace's first to last event"
			 : "the samples' first to last (no I/O traced)");
	}
	if (cp->t1 < cp->t0)
		cp->t1 = cp->t0;
	cp->elapsed_s = (double)(cp->t1 - cp->t0) / 1e9;
}

/* 1 when task t mostly slept over its life (its CPU time, its wait for a
 * CPU and its block I/O under a fifth of it): a shell or xargs waiting for
 * its children, whose life is no lane of the workload's own. */
static int sleeper(const struct an_task *t)
{
	double life, busy = 0;

	if (t->start == AN_NONE || t->exit == AN_NONE || t->exit <= t->start)
		return 0;
	life = (double)(t->exit - t->start) / 1e9;
	for (int k = AT_CPU; k <= AT_BLKIO; k++) {
		double v = rundata_task_s(t, k, t->start);
		if (isfinite(v))
			busy += v;
	}
	return busy < 0.2 * life;
}

/* The units: the workload's processes that issued I/O, alive from their
 * start to exit (delay accounting) or first Q to last C. A task that
 * mostly slept (sleeper()) lives from its first Q to its last C, as
 * without delay accounting: a shell that read its script and then waited
 * for its children shares none of their time. */
static void make_units(struct walk *w)
{
	const struct rundata *rd = w->rd;
	struct families *fs = &w->cp->fam;

	w->u = xcalloc(fs->npid ? fs->npid : 1, sizeof(*w->u));
	for (size_t i = 0; i < fs->npid; i++) {
		const struct family *fm = &fs->f[fs->fam[i]];
		struct unit *u;
		const struct an_task *t;
		if (!fm->workload || !fm->bios)
			continue;
		u = &w->u[w->nu];
		u->pid = fs->pid[i];
		u->fam = fs->fam[i];
		u->proxy = fs->proxy_writeback && !strcmp(fm->role, "writeback");
		t = rundata_task(rd, u->pid);
		if (t && sleeper(t))
			t = NULL;
		u->born = t && t->start != AN_NONE ? t->start : INT64_MAX;
		u->died = t && t->exit != AN_NONE ? t->exit : INT64_MIN;
		u->told = t != NULL;
		w->nu++;
	}
	/* sorted pids for unit_of() (fs->pid is sorted, the units in order) */
	w->upid = xmalloc((w->nu ? w->nu : 1) * sizeof(*w->upid));
	w->uidx = xmalloc((w->nu ? w->nu : 1) * sizeof(*w->uidx));
	for (int i = 0; i < w->nu; i++) {
		w->upid[i] = w->u[i].pid;
		w->uidx[i] = i;
	}
}

/* The units' lives in time order (lives, nl of them), the window known:
 * their first Q and last C (pass1()) where the tasks did not say. */
static void unit_lives(struct walk *w, struct life **lives, size_t *nl)
{
	struct critpath *cp = w->cp;
	size_t cap = 0;

	*lives = NULL;
	*nl = 0;
	w->ualive = xmalloc((w->nu ? w->nu : 1) * sizeof(*w->ualive));
	for (int i = 0; i < w->nu; i++) {
		struct unit *u = &w->u[i];
		if (u->born == INT64_MAX)
			u->born = cp->t0;
		if (u->died == INT64_MIN || u->died < u->born)
			u->died = cp->t1;
		if (*nl + 2 > cap) {
			cap = cap ? 2 * cap : 64;
			*lives = xrealloc(*lives, cap * sizeof(**lives));
		}
		(*lives)[(*nl)++] = (struct life){ u->born, i, 1 };
		(*lives)[(*nl)++] = (struct life){ u->died, i, 0 };
	}
	if (*nl)    /* qsort(NULL, 0, ...) is undefined: a run with no units */
		qsort(*lives, *nl, sizeof(**lives), cmp_life);
}

/* The walk: each device's Q, D and C in time order (a heap over the
 * per-device orders), and the units' births and deaths (lives, nl of
 * them, in time order) between them, advancing the workload's time. */
static void walk_events(struct walk *w, const struct evorder *ord,
			const struct life *lives, size_t nl)
{
	struct critpath *cp = w->cp;
	struct fold f;
	struct fold_ev e;
	int64_t t;
	size_t li = 0;

	fold_open(&f, w->rd, ord, 1u << EV_Q | 1u << EV_D | 1u << EV_C);
	t = fold_peek(&f);
	w->now = t == INT64_MAX || cp->t0 < t ? cp->t0 : t;
	if (nl && lives[0].t < w->now)
		w->now = lives[0].t;
	for (;;) {
		t = fold_peek(&f);
		if (li < nl && (t == INT64_MAX || lives[li].t <= t)) {
			advance(w, lives[li].t);
			unit_life(w, lives[li].unit, lives[li].born);
			li++;
			continue;
		}
		if (!fold_next(&f, &e))
			break;
		advance(w, e.t);
		if (e.kind == EV_Q)
			on_q(w, e.row, e.io);
		else if (e.kind == EV_D)
			on_d(w, e.row, e.io);
		else
			on_c(w, e.row, e.io);
	}
	fold_close(&f);
}

/* How many of the workload's processes shared a device: on each, the
 * effective number of them with blocking I/O there (inverse Simpson over
 * their bios: two alike are 2, one with a stray read beside it 1), a mean
 * weighted by the device's bios. */
static double sharers(const struct walk *w)
{
	const struct rundata *rd = w->rd;
	double num = 0, den = 0;

	for (size_t k = 0; k < rd->ndevs; k++) {
		double n = 0, n2 = 0;
		for (size_t i = 0; i < w->dpcap; i++)
			if (w->dp[i].used && w->dp[i].blocking &&
			    w->dp[i].dev == rd->devs[k]) {
				double b = (double)w->dp[i].blocking;
				n += b;
				n2 += b * b;
			}
		if (n2 > 0) {
			num += n * n / n2 * n;
			den += n;
		}
	}
	return den > 0 ? num / den : 0;
}

void critpath_build(struct critpath *cp, const struct rundata *rd,
		    const struct evorder *ord, uint64_t cmd_mask, int focus)
{
	struct walk *w = xcalloc(1, sizeof(*w));
	struct life *lives;
	size_t nl;

	memset(cp, 0, sizeof(*cp));
	cp->dly_cpu_s = cp->dly_blkio_s = cp->dly_mem_s = cp->dly_swapin_s = NAN;
	w->rd = rd;
	w->cp = cp;
	families_build(&cp->fam, rd, focus);
	make_units(w);
	pass1(w, ord);
	window(cp, rd, cmd_mask);
	find_swap(cp, rd);
	cp->bin_ns = 100000000;     /* 100 ms, fewer for long windows */
	if (cp->t1 - cp->t0 > (int64_t)20000 * cp->bin_ns)
		cp->bin_ns = (cp->t1 - cp->t0) / 20000 + 1;
	cp->nbin = (size_t)((cp->t1 - cp->t0) / cp->bin_ns) + 1;
	cp->bin = xcalloc(cp->nbin, sizeof(*cp->bin));
	w->ds = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*w->ds));
	w->read = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*w->read));
	pass2(w);
	unit_lives(w, &lives, &nl);
	/* the walks: Q, D and C of each device */
	walk_events(w, ord, lives, nl);
	advance(w, cp->t1);
	/* I/O still in flight at the end: its share so far, as at the device */
	for (size_t i = 0; i < w->fcap; i++)
		if (w->fly[i].used) {
			struct unit *u = &w->u[w->fly[i].unit];
			unit_upd(w, u, w->now);
			cp->cat[CP_DEVICE] += u->phi - w->fly[i].phi_q;
		}
	settle_cells(w);
	settle_queue(w);
	cp->sharers = sharers(w);
	for (size_t j = 0; j < cp->nbin; j++)
		cp->free_s += cp->bin[j].free_s;
	for (int k = 0; k < CP_NCAT; k++)
		cp->blocked_s += cp->cat[k];
	settle_free(cp, rd);
	settle_measured(cp, rd, w);
	cp->fam_blocked_s = xcalloc(cp->fam.n ? (size_t)cp->fam.n : 1, sizeof(double));
	cp->fam_free_s = xcalloc(cp->fam.n ? (size_t)cp->fam.n : 1, sizeof(double));
	for (int i = 0; i < w->nu; i++) {
		cp->fam_blocked_s[w->u[i].fam] += w->u[i].blocked_s;
		cp->fam_free_s[w->u[i].fam] += w->u[i].free_s;
	}
	for (int dir = 0; dir < 2; dir++)
		for (int sc = 0; sc < CP_SIZES; sc++)
			for (int b = 0; b < CP_BANDS; b++)
				hist_free(&w->cell[dir][sc][b].svc);
	free(lives);
	free(w->u);
	free(w->ualive);
	free(w->upid);
	free(w->uidx);
	free(w->fly);
	free(w->dp);
	free(w->ds);
	for (size_t k = 0; k < rd->ndevs; k++)
		secmap_free(&w->read[k]);
	free(w->read);
	free(w->svc_mean);
	free(w->q2g_usual);
	free(w);
}

void critpath_model(struct critpath *cp, double svc_s, double seq_s,
		    double d2c_s, const char *model)
{
	double crit = 0, d2c = 0, ratio, was, now;
	size_t o;

	if (svc_s <= 0)
		return;
	for (int dir = 0; dir < 2; dir++)
		for (int sc = 0; sc < CP_SIZES; sc++) {
			const struct cp_class *c = &cp->cls[dir][sc];
			crit += c->dev_s + c->seek_s + c->queue_s;
			d2c += c->d2c_sum_ns / 1e9;
		}
	if (d2c <= 0)
		return;
	ratio = crit / d2c;
	if (ratio > 1)
		ratio = 1;
	was = cp->cat[CP_DEVICE] + cp->cat[CP_SEEK] + cp->cat[CP_QUEUE];
	cp->cat[CP_DEVICE] = seq_s * ratio;
	cp->cat[CP_SEEK] = (svc_s - seq_s) * ratio;
	/* the open loop's queueing (d2c_s) is not a slower disk's: the
	 * workload, waiting on it, would have issued later; queueing behind
	 * other I/O is left out with the measured device */
	(void)d2c_s;
	cp->cat[CP_QUEUE] = 0;
	cp->queue_tag_s = 0;
	now = cp->cat[CP_DEVICE] + cp->cat[CP_SEEK] + cp->cat[CP_QUEUE];
	cp->elapsed_s += now - was;
	cp->blocked_s += now - was;
	cp->modelled = 1;
	o = strlen(cp->window_why);
	snprintf(cp->window_why + o, sizeof(cp->window_why) - o, ", its I/O "
		 "on the modelled disk %s", model);
}

void critpath_free(struct critpath *cp)
{
	families_free(&cp->fam);
	free(cp->bin);
	free(cp->fam_blocked_s);
	free(cp->fam_free_s);
	memset(cp, 0, sizeof(*cp));
}

/* ---- two runs ---- */

/* The least work of its own (CP_OTHER) a run needs for its wait per second
 * of work to be told (diff_cpu()), s. */
#define FD_SPLIT_MIN_S 0.010

/* critpath_diff()'s split of waiting for a CPU: the contention's change
 * in d[CP_CPU], more work at x's contention in d[CP_OTHER] (or d[CP_SWAP]
 * under memory pressure). */
static void diff_cpu(const struct critpath *x, const struct critpath *y,
		     double scale, struct cp_diff *o)
{
	/* waiting for a CPU is the work the workload did on one (CP_OTHER, W)
	 * times how long it waited per second of it (k = CP_CPU / W): a run
	 * that did more work waits more at the same contention. The cpu cause
	 * is the contention's change, W_y (k_y - k_x); the more work, at x's
	 * contention, (W_y - scale W_x)(1 + k_x), stays with the rest (or with
	 * swap, below) */
	/* (a run with next to no work of its own has no wait per second of
	 * it to tell: 3 ms of work against 37 ms of waiting gave k = 12 and
	 * a contention change of -0.33 s in a 0.19 s run; and the change
	 * split is never larger than the waiting and the work changed, nor
	 * than what either run waited) */
	double wx = x->cat[CP_OTHER], wy = y->cat[CP_OTHER];
	int split = wx >= FD_SPLIT_MIN_S && wy >= FD_SPLIT_MIN_S;
	double kx = split ? x->cat[CP_CPU] / wx : 0;
	double ky = split ? y->cat[CP_CPU] / wy : 0;
	double cont = split ? wy * (ky - kx) : o->d[CP_CPU];
	double lim = fabs(o->d[CP_CPU]) + fabs(o->d[CP_OTHER]);
	double work;

	/* both inferred from vmstat: the wait is a share of the free time
	 * with the CPUs saturated (1 - n/r of each such interval), so the
	 * contention is that share, known from the samples however little
	 * work the runs did: its change over y's saturated free time. Two
	 * runs beside the same busy loops (r 8 and 7 on 2 CPUs) whose
	 * workload had 0.02 and 0.80 s of free time (its writes went out
	 * early in one, late in the other) waited for a CPU 0.01 and 0.53 s:
	 * more free time exposed, at no more contention, not a CPU cause */
	if (!x->measured && !y->measured && x->cpu_busy_s > 0 &&
	    y->cpu_busy_s > 0) {
		double sx = x->cat[CP_CPU] / x->cpu_busy_s;
		double sy = y->cat[CP_CPU] / y->cpu_busy_s;
		cont = y->cpu_busy_s * (sy - sx);
	}

	cont = fmax(-lim, fmin(lim, cont));
	/* nor than either run waited: contention cannot take back more
	 * waiting than the better run had (-1.56 s against 0.86 s waited) */
	cont = fmax(-scale * x->cat[CP_CPU], fmin(y->cat[CP_CPU], cont));
	work = o->d[CP_CPU] + o->d[CP_OTHER] - cont;
	/* more work under memory pressure: reclaim and page faults are
	 * work the workload did for the pressure; with the worse run
	 * swapping or stalling on memory more, it is swap's */
	int pressure = o->d[CP_SWAP] > 0 &&
		       (y->swap_out_mb + y->swap_in_mb >
			scale * (x->swap_out_mb + x->swap_in_mb) + 1 ||
			y->swap_stall_s > scale * x->swap_stall_s);
	/* the split needs both runs' waits from one source: both
	 * measured (delay accounting), or both from vmstat, where the
	 * wait per second on a CPU is r/n - 1 of each saturated
	 * interval (two runs beside the same busy loops differ by 12%
	 * in time and not in r: more work, no more contention); a
	 * measured run against an inferred one only where memory
	 * pressure says why there was more work */
	if (x->measured == y->measured || pressure) {
		o->d[CP_CPU] = cont;
		o->d[CP_OTHER] = work;
		o->more_work_s = work;
		if (work > 0 && pressure) {
			o->d[CP_SWAP] += work;
			o->d[CP_OTHER] = 0;
			o->work_to_swap_s = work;
		}
	}
}

/* critpath_diff()'s split of the device's time, class by class: speed
 * (d[CP_DEVICE]), seeks (d[CP_SEEK]), and the requests' count and size
 * (mix_s, volume_s). */
static void diff_device(const struct critpath *x, const struct critpath *y,
			double scale, struct cp_diff *o)
{
	double split = 0, dev;

	/* the device's time (its speed and seeks), class by class: of a class
	 * in both runs, y's requests at y's cost per request less at x's is
	 * speed (the part from more far dispatches, at x's far-near
	 * difference, is seeks); the rest is the requests' count and size */
	for (int dir = 0; dir < 2; dir++) {
		double bx = 0, by = 0, nx = 0, ny = 0, mix = 0, dx = 0;
		for (int sc = 0; sc < CP_SIZES; sc++) {
			const struct cp_class *a = &x->cls[dir][sc], *b = &y->cls[dir][sc];
			bx += a->bytes;
			by += b->bytes;
			nx += a->nreq;
			ny += b->nreq;
			dx += a->dev_s + a->seek_s;
			/* requests against requests: a class is its dispatches'
			 * size, and 16 bios merged into one request of 64 KiB
			 * are one request's time, not 16 (bios counted at a
			 * request's cost made 1.5 s of device difference 2.2) */
			if (a->nreq >= MIN_BASE && b->nreq >= MIN_BASE) {
				double ma = (a->dev_s + a->seek_s) / a->nreq;
				double mb = (b->dev_s + b->seek_s) / b->nreq;
				double mnear = a->nb[0] > 0 ? a->devb_s[0] / a->nb[0] : 0;
				double sm = 0;
				/* each band's share of y's dispatches less x's, at
				 * x's cost of that band over a near dispatch */
				for (int k = 1; k < CP_BANDS && a->nb[0] > 0; k++) {
					double mk = a->nb[k] > 0 ? a->devb_s[k] / a->nb[k] : 0;
					if (a->nb[k] > 0 && mk > mnear)
						sm += b->n * (b->nb[k] / b->n - a->nb[k] / a->n) *
						      (mk - mnear);
				}
				o->seekmix_s += sm;
				o->speed_s += b->nreq * (mb - ma) - sm;
				if (dir)
					o->speed_w_s += b->nreq * (mb - ma) - sm;
				mix += (b->nreq - scale * a->nreq) * ma;
			} else
				mix += (b->dev_s + b->seek_s) -
				       scale * (a->dev_s + a->seek_s);
		}
		o->volume_s[dir] = bx > 0 ? (by - scale * bx) * dx / bx : 0;
		o->mix_s[dir] = mix - o->volume_s[dir];
		o->mean_kb[0][dir] = nx > 0 ? bx / nx / 1024 : 0;
		o->mean_kb[1][dir] = ny > 0 ? by / ny / 1024 : 0;
		split += mix;
	}
	o->contig[0] = x->read_reqs > 0 ? x->read_contig / x->read_reqs : 0;
	o->contig[1] = y->read_reqs > 0 ? y->read_contig / y->read_reqs : 0;
	split += o->speed_s + o->seekmix_s;
	/* CP_DEVICE + CP_SEEK is the whole of it: what the classes do not hold
	 * (I/O in flight at the ends) goes with the speed */
	dev = o->d[CP_DEVICE] + o->d[CP_SEEK];
	o->d[CP_SEEK] = o->seekmix_s;
	o->d[CP_DEVICE] = dev - o->seekmix_s - (split - o->speed_s - o->seekmix_s);
}

/* critpath_diff()'s queueing: the part of y's growth that its slower
 * service brings, and with as many processes sharing each device, what
 * more time at the device brings, go to the device's parts. */
static void diff_queue(const struct critpath *x, const struct critpath *y,
		       double scale, struct cp_diff *o)
{
	/* the growth of the waits for a tag other processes' requests held
	 * stays the queue's: more of them is no slower device (a reader's
	 * 6.09 s for a tag behind a writer's requests at nr_requests 4, the
	 * device's own time the same, went to the device and to the bytes'
	 * volume) */
	double tag = y->queue_tag_s - scale * x->queue_tag_s;
	double q;

	/* queueing behind other processes' I/O grows with the device's
	 * service time as well as with the sharing: of y's queueing in a class,
	 * the part that y's I/O would not have waited at x's service time
	 * (the same sharing, x's speed) is the device's */
	for (int dir = 0; dir < 2; dir++)
		for (int sc = 0; sc < CP_SIZES; sc++) {
			const struct cp_class *a = &x->cls[dir][sc], *b = &y->cls[dir][sc];
			double sa, sb, part;
			if (a->n < MIN_BASE || b->n < MIN_BASE || b->queue_s <= 0)
				continue;
			sa = a->svc_sum_ns / a->n;
			sb = b->svc_sum_ns / b->n;
			if (sb <= sa || sb <= 0)
				continue;
			part = b->queue_s * (1 - sa / sb);
			o->d[CP_QUEUE] -= part;
			o->d[CP_DEVICE] += part;
			o->speed_s += part;
		}
	/* as many processes sharing each device as before: more queueing is
	 * what more time at the device brings when they overlap more (smaller
	 * requests, a slower device), the device's difference's to carry, in
	 * proportion to its parts that grew */
	q = o->d[CP_QUEUE] - (tag > 0 ? tag : 0);
	if (q > 0 && y->sharers <= 1.2 * x->sharers && x->sharers > 1) {
		double parts[4] = { o->d[CP_DEVICE], o->d[CP_SEEK], o->mix_s[0],
				    o->mix_s[1] }, sum = 0;
		for (int i = 0; i < 4; i++)
			sum += parts[i] > 0 ? parts[i] : 0;
		if (sum > 0) {
			o->d[CP_QUEUE] -= q;
			o->d[CP_DEVICE] += parts[0] > 0 ? q * parts[0] / sum : 0;
			o->d[CP_SEEK] += parts[1] > 0 ? q * parts[1] / sum : 0;
			o->mix_s[0] += parts[2] > 0 ? q * parts[2] / sum : 0;
			o->mix_s[1] += parts[3] > 0 ? q * parts[3] / sum : 0;
			o->queue_moved_s = q;
		}
	}
}

/* critpath_diff()'s cache flushes: of the writes' slower service at the
 * device (requests of a size taking longer), the part the worse run's
 * journal's cache flushes brought when the better run's issued few: write
 * barriers (ext4's barrier=1: a REQ_PREFLUSH before each commit, its commit
 * block FUA; Documentation/block/writeback_cache_control.rst). A flush has
 * the device put its write cache on the media before it completes, so the
 * writes beside it wait for the media rather than the cache: their slower
 * service is the barriers' cost, the journal's, not a slower device (ext4
 * on a loop device over a 2,000 IOPS disk: dd's O_DSYNC writes took 1164
 * us at the device against 398, beside 4,506 flushes against none). Only
 * when y's journal issued at least FLUSH_MIN flushes, FLUSH_GROWTH times
 * x's, and one for every 10 of y's write requests or more. */
#define FLUSH_MIN 20
#define FLUSH_GROWTH 4
static void diff_flushes(const struct critpath *x, const struct critpath *y,
			 double scale, struct cp_diff *o)
{
	double fx = scale * x->journal_flushes, fy = y->journal_flushes;
	double wreq = 0, move;

	o->flushes[0] = fx;
	o->flushes[1] = fy;
	for (int sc = 0; sc < CP_SIZES; sc++)
		wreq += y->cls[1][sc].nreq;
	if (fy < FLUSH_MIN || fy < FLUSH_GROWTH * fx || fy < 0.1 * wreq)
		return;
	move = fmin(o->speed_w_s, o->d[CP_DEVICE]);
	if (move <= 0)
		return;
	o->d[CP_DEVICE] -= move;
	o->d[CP_JOURNAL] += move;
	o->flush_speed_s = move;
}

double critpath_diff(const struct critpath *x, const struct critpath *y,
		     double scale, struct cp_diff *o)
{
	memset(o, 0, sizeof(*o));
	for (int k = 0; k < CP_NCAT; k++)
		o->d[k] = y->cat[k] - scale * x->cat[k];
	o->total_s = y->elapsed_s - scale * x->elapsed_s;
	diff_cpu(x, y, scale, o);
	/* a modelled disk's time is already split into its mechanism's parts */
	if (x->modelled || y->modelled)
		return o->total_s;
	diff_device(x, y, scale, o);
	diff_queue(x, y, scale, o);
	diff_flushes(x, y, scale, o);
	{
		/* of the window's difference in written bytes, the part that
		 * is no difference in what the runs wrote in all: written
		 * back at another time (in one run by the flushers in a pause
		 * outside the commands asked about, in the other by a sync in
		 * them) */
		double wx = x->run_write_bytes, wy = y->run_write_bytes;
		double dw = y->win_write_bytes - x->win_write_bytes;
		double more = wy - wx;
		if (x->from_cmds && y->from_cmds && wx > 0 && wy > 0 &&
		    fabs(dw) > 0.1 * fmax(wx, wy))
			o->writes_moved = dw * more < 0 ? 1 :
					  fmax(0, (fabs(dw) - fabs(more)) / fabs(dw));
	}
	return o->total_s;
}

void critpath_emit(struct emit *e, const struct critpath *cp)
{
	emit_obj_begin(e, "time");
	emit_str(e, "window", cp->window_why);
	emit_num(e, "elapsed_s", cp->elapsed_s);
	emit_num(e, "waiting_on_io_s", cp->blocked_s);
	emit_num(e, "not_waiting_on_io_s", cp->free_s);
	emit_u64(e, "measured_by_kernel", (uint64_t)cp->measured);
	emit_num(e, "sharers", cp->sharers);
	emit_obj_begin(e, "by_cause_s");
	for (int k = 0; k < CP_NCAT; k++)
		emit_num(e, cp_cat_name[k], cp->cat[k]);
	emit_obj_end(e);
	emit_arr_begin(e, "families");
	for (int i = 0; i < cp->fam.n; i++) {
		const struct family *f = &cp->fam.f[i];
		emit_obj_begin(e, NULL);
		emit_str(e, "name", f->name);
		emit_u64(e, "processes", (uint64_t)f->nproc);
		emit_u64(e, "workload", (uint64_t)f->workload);
		emit_u64(e, "bytes", f->bytes);
		emit_num(e, "waited_s", cp->fam_blocked_s[i]);
		emit_num(e, "free_s", cp->fam_free_s[i]);
		emit_obj_end(e);
	}
	emit_arr_end(e);
	emit_obj_end(e);
}
