/* seek: how far the device's head (if it has one) moved between dispatches
 * (btt's D2D distance), whether processes' streams interleave, and what it
 * cost: the device time above what the same device took for sequential
 * dispatches of the same direction and size in the same run. A device whose
 * D2C does not grow with distance (SSDs, loop devices, VMs) shows the
 * pattern at no measurable cost. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"
#include "model/model.h"

#define NEAR_SECTORS 128      /* seekwatcher's and btt's "long seek" */
#define SIZE_CLASSES 9        /* log2 buckets of 4 KiB .. 1 MiB */
#define NBANDS 4              /* near, <16K, <1M, beyond (sectors) */
#define MIN_N 20              /* dispatches per side of a comparison */

static const char *const band_name[NBANDS] = {
	"<=128", "128-16K", "16K-1M", ">1M"
};

struct seek_dev {
	uint32_t dev;
	uint64_t dispatches, long_seeks;
	double mean, median;                /* |D2D| sectors */
	double switch_frac, switch_dist, same_dist;
	int streams, interleaved;
	/* the fit: median D2C (us) by band, of the busiest (dir, size) class */
	double band_us[NBANDS];
	uint64_t band_n[NBANDS];
	int fit_dir, fit_size;              /* that class */
	uint64_t near_n, far_n;             /* in classes with both sides */
	double extra_us;                    /* its far - near median */
	double cost_s;                      /* device time over sequential */
	int measurable;                     /* the fit is not flat */
	int comparable;                     /* some class had both sides */
	/* --model: the dispatches on the modelled disk, as dispatched and
	 * laid end to end (mechanism time, s) */
	int modelled;
	double model_s, model_seq_s;
	double model_d2c_s;                 /* modelled completion less
					     * arrival: with the queueing a
					     * slower disk adds */
};

struct seek_state {
	struct seek_dev *d;
	int n;
	int worst;                          /* index of the costliest */
};

static int size_class(uint32_t bytes)
{
	int b = 0;
	while (b < SIZE_CLASSES - 1 && bytes > (4096u << b))
		b++;
	return b;
}

static int band_of(uint64_t dist)
{
	return dist <= NEAR_SECTORS ? 0 : dist < 16384 ? 1 : dist < 1048576 ? 2
									    : 3;
}

/* One device's dispatches with a distance (btt's D2D seek) as the D
 * events pass, in D order (then row): the pattern's numbers and the fit's
 * histograms, no array of them (but the modelled disk's requests, with
 * --model). The fit sees each dispatch with the next one's D (was
 * nothing else in flight?), so it lags the stream by one. */
struct seek_acc {
	/* pattern() */
	struct hist dist;
	double sw_sum, same_sum;
	uint64_t sw, same, n, long_seeks;
	uint32_t pids[64], prev;
	uint64_t pc[64];
	int np;
	/* fit() */
	struct hist bh[2][SIZE_CLASSES][NBANDS];
	struct hist far[2][SIZE_CLASSES];
	uint64_t nfar[2][SIZE_CLASSES];
	int64_t maxc;
	struct an_io pend;          /* the dispatch before (have_pend) */
	int have_pend;
	/* model_dev(): the dispatches on the modelled disk */
	struct model_req *rq;
	size_t nrq, rqcap;
};

struct seek_fold {
	const struct an_run *r;
	struct seek_acc *acc;       /* by the run's device index */
};

/* Pattern numbers of dispatch x (the stream's next on its device). */
static void pattern_add(struct seek_acc *a, const struct an_io *x)
{
	uint64_t ad = (uint64_t)llabs(x->seek);
	int k;

	hist_add(&a->dist, ad);
	a->long_seeks += ad > NEAR_SECTORS;
	for (k = 0; k < a->np && a->pids[k] != x->pid; k++)
		;
	if (k == a->np && a->np < 64)
		a->pids[a->np++] = x->pid;
	if (k < 64)
		a->pc[k]++;
	if (a->n && x->pid != a->prev) {
		a->sw++;
		a->sw_sum += (double)ad;
	} else if (a->n) {
		a->same++;
		a->same_sum += (double)ad;
	}
	a->prev = x->pid;
	a->n++;
}

/* The pattern of one device's dispatches; returns how many. */
static size_t pattern_end(struct seek_dev *s, struct seek_acc *a)
{
	size_t n = a->n;

	s->dispatches = n;
	s->long_seeks = a->long_seeks;
	s->mean = hist_mean(&a->dist);
	s->median = hist_pct(&a->dist, 50);
	s->switch_frac = n > 1 ? (double)a->sw / (double)(n - 1) : 0;
	s->switch_dist = a->sw ? a->sw_sum / (double)a->sw : 0;
	s->same_dist = a->same ? a->same_sum / (double)a->same : 0;
	for (int k = 0; k < a->np; k++)
		s->streams += a->pc[k] * 10 >= n;
	s->interleaved = s->streams >= 2 && s->switch_frac > 0.25 &&
			 s->switch_dist > 4 * fmax(s->same_dist, NEAR_SECTORS);
	return n;
}

/* The fit's part of dispatch x, next_d the D of the device's next
 * dispatch (more 0: none): D2C by distance from dispatches alone on the
 * device (nothing else in flight from their D to their C): on a device
 * that serves one request at a time (a loop device's worker, a disk
 * without a queue) a dispatch behind another process's waits for it, and
 * that wait, not the seek, would grow with the distance of a switch.
 * Every far dispatch is counted for the cost. */
static void fit_add(struct seek_acc *a, const struct an_io *x, int more,
		    int64_t next_d)
{
	int w = !!(x->flags & AN_WRITE), sc = size_class(x->dbytes), alone;
	uint64_t ad = (uint64_t)llabs(x->seek);

	if (x->c == AN_NONE || x->c < x->d)
		return;
	alone = a->maxc <= x->d && (!more || next_d >= x->c);
	a->maxc = x->c > a->maxc ? x->c : a->maxc;
	if (ad > NEAR_SECTORS)
		a->nfar[w][sc]++;
	if (!alone)
		return;
	hist_add(&a->bh[w][sc][band_of(ad)], (uint64_t)(x->c - x->d));
	if (ad > NEAR_SECTORS)
		hist_add(&a->far[w][sc], (uint64_t)(x->c - x->d));
}

/* The cost: per (direction, size) class, far dispatches' median D2C above
 * near ones', times their number. */
static void fit_end(struct seek_dev *s, struct seek_acc *a)
{
	uint64_t best = 0;

	for (int w = 0; w < 2; w++)
		for (int sc = 0; sc < SIZE_CLASSES; sc++) {
			struct hist *nh = &a->bh[w][sc][0], *fh = &a->far[w][sc];
			double mn, mf;
			if (nh->n < MIN_N || fh->n < MIN_N)
				continue;
			s->comparable = 1;
			mn = hist_pct(nh, 50);
			mf = hist_pct(fh, 50);
			s->near_n += nh->n;
			s->far_n += fh->n;
			/* not flat: far dispatches take a quarter longer and
			 * 20 us more than near ones of the same size */
			if (mf > 1.25 * mn && mf - mn > 20000) {
				s->measurable = 1;
				s->cost_s += (double)a->nfar[w][sc] * (mf - mn) / 1e9;
			}
			if (fh->n > best) {
				best = fh->n;
				s->fit_dir = w;
				s->fit_size = sc;
				s->extra_us = (mf - mn) / 1e3;
				for (int b = 0; b < NBANDS; b++) {
					s->band_n[b] = a->bh[w][sc][b].n;
					s->band_us[b] = hist_pct(&a->bh[w][sc][b], 50) / 1e3;
				}
			}
		}
}

/* Dispatch x as a request to the modelled disk of profile p, the nrq-th
 * of its device. Sectors past the modelled disk's end wrap. */
static void model_add(struct seek_acc *a, const struct an_io *x,
		      const struct disk_profile *p)
{
	uint64_t cap = p->capacity_sectors;
	uint32_t sec = x->dbytes / 512 ? x->dbytes / 512 : 1;

	if (sec >= cap)
		sec = (uint32_t)(cap / 2);
	if (a->nrq == a->rqcap) {
		a->rqcap = a->rqcap ? 2 * a->rqcap : 1024;
		a->rq = xrealloc(a->rq, a->rqcap * sizeof(*a->rq));
	}
	a->rq[a->nrq] = (struct model_req){
		.lba = x->dsector % (cap - sec), .sectors = sec,
		.op = (x->flags & AN_WRITE) ? MOP_WRITE : MOP_READ,
		.tag = (uint32_t)a->nrq, .arrive_ns = x->d,
	};
	a->nrq++;
}

/* The n dispatches rq of one device (in D order) on a fresh disk of
 * profile p, open loop at their own D times (model_device_times()): their
 * mechanism time, and what of it was not positioning: each one's command
 * overhead and media transfer at its zone's rate (what it costs
 * streaming, the head already there). */
static void model_dev(struct seek_dev *s, const struct model_req *rq,
		      size_t n, const struct disk_profile *p)
{
	int64_t *svc = xmalloc((n ? n : 1) * sizeof(*svc));
	int64_t *d2c = xmalloc((n ? n : 1) * sizeof(*d2c));
	struct disk_model *m = NULL;
	char err[256];
	double t = 0, xfer = 0;

	if (model_device_times(p, rq, n, svc, d2c, err, sizeof(err)) ||
	    !(m = model_new(p, 0, 1, err, sizeof(err))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		t += (double)svc[i] / 1e9;
		s->model_d2c_s += (double)d2c[i] / 1e9;
		xfer += p->overhead_ms / 1e3 + (double)rq[i].sectors * 512 /
			(model_rate_mbs(m, rq[i].lba) * 1e6);
	}
	s->modelled = 1;
	s->model_s = t;
	s->model_seq_s = xfer < t ? xfer : t;
out:
	model_free(m);
	free(svc);
	free(d2c);
}

static void *seek_begin(const struct an_run *r)
{
	struct seek_fold *f;

	if (!r->rd.n)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->r = r;
	f->acc = xcalloc(r->rd.ndevs ? r->rd.ndevs : 1, sizeof(*f->acc));
	for (size_t k = 0; k < r->rd.ndevs; k++)
		f->acc[k].maxc = INT64_MIN;
	return f;
}

/* Each dispatch with a distance, at its D. */
static void seek_ev(void *state, const struct fold_ev *e)
{
	struct seek_fold *f = state;
	struct seek_acc *a = &f->acc[e->devk];
	const struct an_io *x = e->io;

	if ((x->flags & (AN_HEAD | AN_HAS_SEEK)) != (AN_HEAD | AN_HAS_SEEK) ||
	    !x->dbytes)
		return;
	pattern_add(a, x);
	if (a->have_pend)
		fit_add(a, &a->pend, 1, x->d);
	a->pend = *x;
	a->have_pend = 1;
	if (f->r->model)
		model_add(a, x, f->r->model);
}

static void acc_free(struct seek_acc *a)
{
	hist_free(&a->dist);
	for (int w = 0; w < 2; w++)
		for (int sc = 0; sc < SIZE_CLASSES; sc++) {
			for (int b = 0; b < NBANDS; b++)
				hist_free(&a->bh[w][sc][b]);
			hist_free(&a->far[w][sc]);
		}
	free(a->rq);
}

static void *seek_end(const struct an_run *r, void *state)
{
	const struct rundata *rd = &r->rd;
	struct seek_fold *f = state;
	struct seek_state *s = xcalloc(1, sizeof(*s));

	for (size_t k = 0; k < rd->ndevs; k++)
		if (f->acc[k].have_pend)
			fit_add(&f->acc[k], &f->acc[k].pend, 0, 0);
	/* the devices in the accounting's order */
	for (size_t k = 0; k < r->ta.ndev; k++) {
		uint32_t dev = r->ta.devs[k].dev;
		struct seek_acc *a = &f->acc[rundata_dev_index(rd, dev)];
		struct seek_dev *sd;
		s->d = xrealloc(s->d, (size_t)(s->n + 1) * sizeof(*s->d));
		sd = &s->d[s->n];
		memset(sd, 0, sizeof(*sd));
		sd->dev = dev;
		if (pattern_end(sd, a) < 2)
			continue;       /* not one with two dispatches */
		s->n++;
		fit_end(sd, a);
		if (r->model) {
			model_dev(sd, a->rq, a->nrq, r->model);
			if (sd->modelled)
				sd->cost_s = fmax(0, sd->model_s - sd->model_seq_s);
		}
		if (sd->cost_s > s->d[s->worst].cost_s ||
		    (sd->cost_s == s->d[s->worst].cost_s &&
		     sd->long_seeks > s->d[s->worst].long_seeks))
			s->worst = s->n - 1;
	}
	for (size_t k = 0; k < rd->ndevs; k++)
		acc_free(&f->acc[k]);
	free(f->acc);
	free(f);
	if (!s->n) {
		free(s->d);     /* the slot of a device with too few */
		free(s);
		return NULL;
	}
	return s;
}

static int seek_finding(const struct an_run *r, const void *state,
			struct finding *f)
{
	const struct seek_state *s = state;
	const struct seek_dev *d = &s->d[s->worst];
	double total = 0;
	char dev[16];

	for (int i = 0; i < s->n; i++)
		total += s->d[i].cost_s;
	an_dev_name(d->dev, dev, sizeof(dev));
	f->present = d->long_seeks * 10 >= d->dispatches && d->long_seeks >= 20;
	if (d->interleaved)
		snprintf(f->title, sizeof(f->title), "seek: %d streams interleaved "
			 "on %s (D2D mean %.0f sectors)", d->streams, dev, d->mean);
	else
		snprintf(f->title, sizeof(f->title), "seek: %.0f%% of dispatches on "
			 "%s seek over 128 sectors (D2D mean %.0f)",
			 100.0 * (double)d->long_seeks / (double)d->dispatches, dev,
			 d->mean);
	f->cost_s = d->measurable ? total : 0;
	snprintf(f->cost_of, sizeof(f->cost_of), "device time of %s", dev);
	f->counterfactual = 1;
	FD_CAT(f, how, "the dispatches that sought over 128 sectors at the median "
	       "D2C of this device's sequential dispatches of the same direction "
	       "and size in this run would have taken that much less device "
	       "time.");
	FD_CAT(f, evidence, "%s: %llu dispatches, D2D seek mean %.0f sectors "
	       "(median %.0f), %llu over 128 sectors; %.0f%% of consecutive "
	       "dispatches switch process, seeking %.0f sectors on a switch vs "
	       "%.0f within one process. ", dev,
	       (unsigned long long)d->dispatches, d->mean, d->median,
	       (unsigned long long)d->long_seeks, 100 * d->switch_frac,
	       d->switch_dist, d->same_dist);
	if (d->comparable) {
		FD_CAT(f, evidence, "Median D2C of %s %s KiB dispatches by D2D "
		       "distance (sectors):", d->fit_dir ? "write" : "read",
		       (const char *[]){ "<=4", "8", "16", "32", "64", "128",
					 "256", "512", ">=1024" }[d->fit_size]);
		for (int b = 0, k = 0; b < NBANDS; b++)
			if (d->band_n[b])
				FD_CAT(f, evidence, "%s %s %.1f us (n %llu)",
				       k++ ? ";" : "", band_name[b], d->band_us[b],
				       (unsigned long long)d->band_n[b]);
		FD_CAT(f, evidence, ".");
	}
	f->lo_s = 0;
	f->hi_s = rundata_elapsed_s(&r->rd);
	f->victim_pid = 0;
	f->stages = 1u << TA_D2C;
	if (r->model && d->modelled) {
		double as = 0, seq = 0;
		for (int i = 0; i < s->n; i++) {
			as += s->d[i].model_s;
			seq += s->d[i].model_seq_s;
		}
		f->cost_s = r->cp.cat[CP_SEEK];
		snprintf(f->cost_of, sizeof(f->cost_of), "the workload's time on "
			 "the modelled disk %s", r->model->name);
		f->how[0] = '\0';
		FD_CAT(f, how, "each device's dispatches replayed open loop on "
		       "its own modelled disk %s (%s; model/model.c, after "
		       "Ruemmler and Wilkes 1994) at their recorded D times and in "
		       "their order took %.2f s of mechanism time, of which "
		       "%.2f s command overhead and media transfer at each "
		       "zone's rate (what they take streaming, the head already "
		       "in place): the rest, %.2f s, is seek and rotation; the "
		       "workload's time on that disk counts it on its critical "
		       "path as its own device time was (overlapping I/O once).",
		       r->model->name, r->model->desc, as, seq, as - seq);
		f->conf = FD_MEDIUM;
		FD_CAT(f, why, "modelled, not measured: the order and times of "
		       "the dispatches are this run's (a slower disk would have "
		       "queued more of them to reorder, and the page cache would "
		       "have behaved otherwise); the model's errors on real disks: "
		       "iotape model, docs/iotape.md. On the traced device itself "
		       "%s", d->measurable ? "seeks cost time too" :
		       "seeks cost nothing measurable");
		return 1;
	}
	if (!d->comparable) {
		f->conf = FD_NONE;
		FD_CAT(f, why, "no direction and size with %d sequential and %d "
		       "far dispatches alone on the device each to compare: what "
		       "seeking cost here "
		       "cannot be told", MIN_N, MIN_N);
		FD_CAT(f, needs, "sequential I/O of the same size on this device "
		       "in the run, or a rotating-disk model");
	} else if (!d->measurable) {
		f->conf = FD_NONE;
		FD_CAT(f, why, "D2C does not grow with seek distance on %s (far "
		       "dispatches within 25%% or 20 us of sequential ones of the "
		       "same size, %llu vs %llu dispatches): seeking costs nothing "
		       "measurable on this device, as on SSDs, loop devices and "
		       "VMs", dev, (unsigned long long)d->far_n,
		       (unsigned long long)d->near_n);
		FD_CAT(f, needs, "a rotating disk: run it there, or replay it on "
		       "a disk model");
	} else {
		f->conf = d->near_n >= 200 && d->far_n >= 200 ? FD_HIGH : FD_MEDIUM;
		FD_CAT(f, why, "far dispatches alone on the device took %.1f us "
		       "more than sequential "
		       "ones of the same size (median, %llu far and %llu near "
		       "dispatches)", d->extra_us, (unsigned long long)d->far_n,
		       (unsigned long long)d->near_n);
	}
	return 1;
}

static void seek_emit(struct emit *e, const void *state)
{
	const struct seek_state *s = state;

	emit_arr_begin(e, "devices");
	for (int i = 0; i < s->n; i++) {
		const struct seek_dev *d = &s->d[i];
		char dev[16];
		an_dev_name(d->dev, dev, sizeof(dev));
		emit_obj_begin(e, NULL);
		emit_str(e, "dev", dev);
		emit_u64(e, "dispatches", d->dispatches);
		emit_num(e, "mean_sectors", d->mean);
		emit_num(e, "median_sectors", d->median);
		emit_u64(e, "long_seeks", d->long_seeks);
		emit_num(e, "switch_frac", d->switch_frac);
		emit_num(e, "switch_mean_sectors", d->switch_dist);
		emit_num(e, "same_process_mean_sectors", d->same_dist);
		emit_u64(e, "streams", (uint64_t)d->streams);
		emit_u64(e, "interleaved", (uint64_t)d->interleaved);
		emit_u64(e, "comparable", (uint64_t)d->comparable);
		emit_u64(e, "measurable", (uint64_t)d->measurable);
		emit_num(e, "far_extra_d2c_us", d->extra_us);
		emit_num(e, "cost_s", d->cost_s);
		if (d->modelled) {
			emit_num(e, "model_device_s", d->model_s);
			emit_num(e, "model_transfer_s", d->model_seq_s);
		}
		emit_obj_end(e);
	}
	emit_arr_end(e);
}

static void seek_release(void *state)
{
	struct seek_state *s = state;
	free(s->d);
	free(s);
}

void an_seek_modelled(const struct an_run *r, const void *state,
		      double *svc_s, double *seq_s, double *d2c_s)
{
	const struct seek_state *s = state;

	(void)r;
	*svc_s = *seq_s = *d2c_s = 0;
	for (int i = 0; s && i < s->n; i++)
		if (s->d[i].modelled) {
			*svc_s += s->d[i].model_s;
			*seq_s += s->d[i].model_seq_s;
			*d2c_s += s->d[i].model_d2c_s;
		}
}

/* In compare: the reads' count and size part of the device's difference
 * (critpath_diff()) when the worse run's read requests got smaller and
 * scattered where the better run's lay end to end: the same bytes in
 * more, smaller pieces because of where they are on the device (a
 * fragmented file's extents), each piece a request. */
static double seek_mix(const struct cp_diff *d)
{
	return cp_reads_scattered(d) ? d->mix_s[0] : 0;
}

/* The title when seek_mix() is most of the cost: the layout. */
static void seek_mix_title(const struct cp_diff *d, const struct an_run *x,
			   const struct an_run *y, struct finding *f)
{
	double n[2], mb[2];

	cp_read_reqs(&x->cp, &n[0], &mb[0]);
	cp_read_reqs(&y->cp, &n[1], &mb[1]);
	snprintf(f->title, sizeof(f->title), "seek: layout: %.30s read %.1f MB "
		 "in %.0f scattered requests of %.1f KiB, %.30s in %.0f of %.1f "
		 "KiB end to end (a fragmented file)",
		 y->rd.rv->name, mb[1], n[1], d->mean_kb[1][0], x->rd.rv->name,
		 n[0], d->mean_kb[0][0]);
	f->evidence[0] = 0;
	FD_CAT(f, evidence, "%s: %.0f read requests the workload waited on, "
	       "%.1f MB, %.0f%% of the run's read requests starting where "
	       "another ended; %s: %.0f requests, %.1f MB, %.0f%%",
	       y->rd.rv->name, n[1], mb[1], 100 * d->contig[1], x->rd.rv->name,
	       n[0], mb[0], 100 * d->contig[0]);
	snprintf(f->why, sizeof(f->why), "both runs' requests, class by class, "
		 "each at its own run's time per request; the pieces' sizes "
		 "and places are the trace's, the file's extents are not in it");
	f->needs[0] = 0;
	f->lo_s = 0;
	f->hi_s = y->cp.elapsed_s;
}

const struct analyzer an_seek = {
	.name = "seek",
	.fold_begin = seek_begin,
	.fold_ev = seek_ev,
	.fold_end = seek_end,
	.fold_kinds = 1u << EV_D,
	.finding = seek_finding,
	.emit = seek_emit,
	.release = seek_release,
	.cats = 1u << CP_SEEK,
	.mix_cost = seek_mix,
	.mix_how = "the part of the device's difference from the reads' count "
		   "and size, class by class, where the worse run's read "
		   "requests got smaller and scattered (under half starting "
		   "where another ends) and the better run's lay end to end "
		   "more (a quarter of them at least)",
	.mix_title = seek_mix_title,
	.definitions =
"seek: per device, btt's D2D distance of each dispatch (sectors from the\n"
"  previous dispatch's end, 0 when they overlap); a long seek is over 128\n"
"  sectors (seekwatcher's count). Streams interleave when two processes\n"
"  have 10% of the dispatches or more each, over 25% of dispatches switch\n"
"  process and switches seek 4x farther than same-process ones. Cost: for\n"
"  each direction and size (log2 classes) with 20 near and 20 far\n"
"  dispatches alone on the device (nothing else in flight), the far ones'\n"
"  number times their median D2C above the near ones' (counted when 25%\n"
"  and 20 us above): device time. None to compare, or no growth with\n"
"  distance: no measurable cost.\n"
"  With --model PROFILE: the device time the dispatches took on the\n"
"  modelled disk (open loop, their D times and order) less their command\n"
"  overhead and media transfer: the seek and rotation time.\n"
"  In compare, also the layout: where the worse run's read requests got\n"
"  smaller (mean under 0.8 of the better run's) and scattered (under half\n"
"  start where another of the workload's read requests ends) while the\n"
"  better run's lay end to end more (by a quarter of them at least), the\n"
"  part of the device's difference from the reads' count and size (a\n"
"  fragmented file).\n",
};
