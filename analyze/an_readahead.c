/* readahead: buffered sequential read streams, their request sizes and
 * readahead (A) share, and sectors read twice within the run (told, not
 * costed: pages the page cache dropped and the disk read again are
 * refault's, an_refault.c). Cost: for a sequential stream read in small
 * requests laid end to end, the time the reader waited on its reads (the
 * union of their Q to C) beyond what reading the same bytes in requests
 * of the kernel's default readahead (128 KiB) would have waited: each such
 * request's fixed cost, and the transfer of the bytes where the device's
 * D2C by size gives it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/secmap.h"
#include "lib/emit.h"
#include "lib/util.h"

#define REF_BYTES (128 * 1024)   /* the default read_ahead_kb */
#define MIN_READS 100

struct ra_stream {
	uint32_t pid, dev;
	uint64_t reads, seq, ra;     /* bios; sequential; readahead-flagged */
	uint64_t heads, req_seq;     /* its dispatches; of them, starting
				      * where its previous one ended */
	double nreq;                 /* requests: each bio its share of its
				      * dispatch (merged bios make one) */
	double mb, mean_kb, waited_s;   /* mean_kb: per request */
	double per_req_us;           /* the fixed cost of one request */
	double per_kib_us;           /* transfer of a KiB (0: not known) */
	double need;                 /* requests of 128 KiB the bytes need */
	double gap_us;               /* mean C to next Q: issuing one */
	int fit;                     /* per_req_us from a fit over sizes */
	double small_cost_s;
};

struct ra_state {
	struct ra_stream s;          /* the costliest stream */
	int nstreams;
	int nsmall;                  /* streams in small requests */
	double small_mb, small_cost_s;   /* theirs, summed */
	double reread_mb, reread_s;  /* re-read bytes; the time their
				      * requests were at the device (the
				      * union of their D to C) */
	uint64_t reread_bios;
	double cost_s;
};

/* A read through the page cache's readahead: the A flag (REQ_RAHEAD) is
 * set on both sync and async readahead; direct I/O never has it. */
static int buffered_read(const struct an_io *x)
{
	return (x->flags & AN_RA) && !(x->flags & (AN_WRITE | AN_META)) &&
	       x->q != AN_NONE && x->bytes;
}

/* One process's buffered reads on one device as its Q events pass (in Q
 * order, then row): the stream's counts and what small_cost() needs. */
struct ra_acc {
	uint32_t pid;
	struct ra_stream st;
	uint64_t next, dnext;        /* where the next bio, dispatch would
				      * continue the stream */
	struct hist d2c;
	double gaps;
	uint64_t ngap;
	int64_t prev_c;              /* the previous read's C */
};

/* Least squares of D2C (ns) on bytes over a device's reads: the intercept
 * is the fixed cost of a request, the slope the transfer of a byte. */
struct ra_fit {
	double n, sx, sy, sxx, sxy;
	uint64_t small, large;
};

struct ra_dev {
	struct ra_acc *a;            /* its processes' streams */
	size_t na;
	struct secmap read;          /* the sectors its buffered reads covered */
	struct ra_fit fit;
};

struct ra_fold {
	struct ra_state *s;
	struct ra_dev *d;            /* by the run's device index */
	struct fold_map reread;      /* re-reads queued, not yet dispatched */
	struct ta_run at_dev;        /* the union of their D to C */
};

/* Returns 0, *a_ns and *b_ns (per byte, at least 0) of fit f when the
 * sizes vary enough (two size classes of 20 bios), else -1. */
static int fixed_cost(const struct ra_fit *f, double *a_ns, double *b_ns)
{
	double n = f->n, sx = f->sx, sy = f->sy, sxx = f->sxx, sxy = f->sxy;

	if (f->small < 20 || f->large < 20 || n * sxx - sx * sx <= 0)
		return -1;
	{
		double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
		*b_ns = slope > 0 ? slope : 0;
		*a_ns = (sy - slope * sx) / n;
	}
	return 0;
}

/* The small-request cost of stream st (its bios' D2C in d2c, their gaps
 * from a C to the next Q gaps over ngap): what the reader waited less what
 * requests of REF_BYTES would have, each request's fixed cost from a fit
 * of D2C on size over the device's reads (fit), else the stream's median
 * D2C; sets st's per_req_us, per_kib_us, need, gap_us, fit and
 * small_cost_s. */
static void small_cost(const struct ra_fit *fit, const struct ra_acc *a,
		       struct ra_stream *st)
{
	double need = st->mb * 1e6 / REF_BYTES, a_ns, b_ns = 0;

	st->fit = !fixed_cost(fit, &a_ns, &b_ns) && a_ns > 0;
	if (!st->fit) {
		a_ns = hist_pct(&a->d2c, 50);
		b_ns = 0;
	}
	st->per_req_us = a_ns / 1e3;
	st->per_kib_us = b_ns * 1024 / 1e3;
	st->need = need;
	st->gap_us = a->ngap ? a->gaps / (double)a->ngap / 1e3 : 0;
	/* what it waited (overlapping requests once) less what
	 * the 128 KiB requests would have: the reader's own
	 * time between its reads stays as it was */
	st->small_cost_s = st->waited_s -
			   (need * a_ns + st->mb * 1e6 * b_ns) / 1e9;
	if (st->small_cost_s < 0 || st->nreq <= need)
		st->small_cost_s = 0;
}

static void *ra_begin(const struct an_run *r)
{
	struct ra_fold *f;

	if (!r->rd.n)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->s = xcalloc(1, sizeof(*f->s));
	f->d = xcalloc(r->rd.ndevs ? r->rd.ndevs : 1, sizeof(*f->d));
	fold_map_init(&f->reread, 1);
	return f;
}

static struct ra_acc *acc_of(struct ra_dev *d, uint32_t pid)
{
	for (size_t i = 0; i < d->na; i++)
		if (d->a[i].pid == pid)
			return &d->a[i];
	d->a = xrealloc(d->a, (d->na + 1) * sizeof(*d->a));
	memset(&d->a[d->na], 0, sizeof(*d->a));
	d->a[d->na].pid = pid;
	d->a[d->na].next = d->a[d->na].dnext = UINT64_MAX;
	d->a[d->na].prev_c = AN_NONE;
	return &d->a[d->na++];
}

/* A buffered read x at its Q: its stream's counts and the sectors it read
 * again (any its device's buffered reads covered before, in Q order). */
static void ra_q(struct ra_fold *f, struct ra_dev *d, const struct fold_ev *e)
{
	const struct an_io *x = e->io;
	struct ra_acc *a = acc_of(d, x->pid);
	struct ra_stream *st = &a->st;
	uint32_t len = (x->bytes + 511) / 512, over;

	/* the process's time between a completion and its next request:
	 * issuing one synchronously */
	if (a->prev_c != AN_NONE && x->q > a->prev_c &&
	    x->q - a->prev_c < 10000000) {
		a->gaps += (double)(x->q - a->prev_c);
		a->ngap++;
	}
	a->prev_c = x->c;
	if (x->c != AN_NONE && x->d != AN_NONE && x->c >= x->d)
		hist_add(&a->d2c, (uint64_t)(x->c - x->d));
	st->reads++;
	st->seq += x->sector == a->next;
	st->ra += (x->flags & AN_RA) != 0;
	st->mb += x->bytes / 1e6;
	st->nreq += x->dbytes ? (double)x->bytes / x->dbytes : 1;
	a->next = x->sector + x->bytes / 512;
	if ((x->flags & AN_HEAD) && x->dbytes) {
		st->heads++;
		st->req_seq += x->dsector == a->dnext;
		a->dnext = x->dsector + x->dbytes / 512;
	}
	if (x->sector >= SM_END - len ||
	    !(over = secmap_count_set(&d->read, x->sector, len)))
		return;
	if (over > x->bytes / 512)
		over = x->bytes / 512;
	f->s->reread_bios++;
	f->s->reread_mb += (double)over * 512 / 1e6;
	if (x->c != AN_NONE && x->d != AN_NONE && x->c >= x->d && x->d >= x->q)
		*(unsigned char *)fold_map_get(&f->reread, e->row, 1) = 1;
}

/* Buffered reads at their Q; the device's reads for the fit (each once,
 * in the run's order); re-reads at their D, for the time they were at
 * the device (the union of their D to C, overlapping ones once: never
 * more than the run; their D2C summed over 50 in flight was 10.1 s in a
 * run of 3.8 s). */
static void ra_ev(void *state, const struct fold_ev *e)
{
	struct ra_fold *f = state;
	struct ra_dev *d = &f->d[e->devk];
	const struct an_io *x = e->io;

	if (e->kind == FOLD_ROW) {
		struct ra_fit *fit = &d->fit;
		double b, dt;
		if ((x->flags & AN_WRITE) || !(x->flags & AN_HEAD) ||
		    x->d == AN_NONE || x->c == AN_NONE || x->c < x->d || !x->dbytes)
			return;
		b = x->dbytes;
		dt = (double)(x->c - x->d);
		fit->n++;
		fit->sx += b;
		fit->sy += dt;
		fit->sxx += b * b;
		fit->sxy += b * dt;
		if (x->dbytes <= 16384)
			fit->small++;
		else if (x->dbytes >= 65536)
			fit->large++;
	} else if (e->kind == EV_Q) {
		if (buffered_read(x))
			ra_q(f, d, e);
	} else if (fold_map_get(&f->reread, e->row, 0)) {
		ta_run_add(&f->at_dev, x->d, x->c);
		fold_map_del(&f->reread, e->row);
	}
}

/* The re-reads and, of the sequential streams of buffered reads (per
 * process and device, in Q order, MIN_READS at least), the costliest and
 * the sum of those in small requests. NULL when the run has neither. */
static void *ra_end(const struct an_run *r, void *state)
{
	struct ra_fold *f = state;
	struct ra_state *s = f->s;

	s->reread_s = ta_run_end(&f->at_dev);
	/* sequential streams: per process and device, in the accounting's
	 * order */
	for (size_t t = 0; t < r->ta.nrows; t++) {
		const struct ta_row *row = &r->ta.rows[t];
		int dk = rundata_dev_index(&r->rd, row->dev);
		struct ra_dev *d;
		struct ra_acc *a = NULL;
		struct ra_stream st;
		if (dk < 0)
			continue;
		d = &f->d[dk];
		for (size_t i = 0; i < d->na && !a; i++)
			if (d->a[i].pid == row->pid)
				a = &d->a[i];
		if (!a || a->st.reads < MIN_READS)
			continue;
		st = a->st;
		st.pid = row->pid;
		st.dev = row->dev;
		if (st.seq * 10 < st.reads * 8)
			continue;            /* not a sequential stream */
		s->nstreams++;
		/* requests, not bios: 16 bios of 4 KiB merged into a request
		 * of 64 KiB are read in 64 KiB */
		st.mean_kb = st.mb * 1e6 / 1024 / (st.nreq > 0 ? st.nreq : 1);
		st.waited_s = row->waited_s;
		/* a smaller window over the stream: its requests laid end to
		 * end (a fragmented file's extents, each a request with a gap
		 * before the next, are its layout's, not readahead's) */
		if (st.mean_kb * 1024 < REF_BYTES / 2 &&
		    (!st.heads || st.req_seq * 2 >= st.heads)) {
			small_cost(&d->fit, a, &st);
			s->nsmall++;
			s->small_mb += st.mb;
			s->small_cost_s += st.small_cost_s;
		}
		if (st.small_cost_s >= s->s.small_cost_s || !s->s.reads)
			s->s = st;
	}
	/* the streams' costs add: a loop's readers one after another; where
	 * they ran at once the finding caps it at the workload's device time */
	s->cost_s = s->small_cost_s;
	for (size_t k = 0; k < r->rd.ndevs; k++) {
		for (size_t i = 0; i < f->d[k].na; i++)
			hist_free(&f->d[k].a[i].d2c);
		free(f->d[k].a);
		secmap_free(&f->d[k].read);
	}
	free(f->d);
	fold_map_free(&f->reread);
	free(f);
	if (!s->nstreams && !s->reread_bios) {
		free(s);
		return NULL;
	}
	return s;
}

static int ra_finding(const struct an_run *r, const void *state,
		      struct finding *f)
{
	const struct ra_state *s = state;
	char who[48] = "-", dev[16] = "-";

	if (s->s.reads) {
		an_proc_name(r, s->s.pid, who, sizeof(who));
		an_dev_name(s->s.dev, dev, sizeof(dev));
	}
	f->present = s->nsmall > 0;
	if (s->nsmall > 1)
		snprintf(f->title, sizeof(f->title), "readahead: %d readers (%s "
			 "and %d more) read %.1f MB sequentially in small requests "
			 "(%s: %.0f KiB)", s->nsmall, who, s->nsmall - 1,
			 s->small_mb, who, s->s.mean_kb);
	else if (s->nsmall)
		snprintf(f->title, sizeof(f->title), "readahead: %s read %.1f MB "
			 "sequentially from %s in %.0f KiB requests", who, s->s.mb,
			 dev, s->s.mean_kb);
	else if (s->s.reads)
		snprintf(f->title, sizeof(f->title), "readahead: %s read %.1f MB "
			 "sequentially from %s in %.0f KiB requests", who, s->s.mb,
			 dev, s->s.mean_kb);
	else
		snprintf(f->title, sizeof(f->title), "readahead: no sequential "
			 "stream of buffered reads");
	/* on the workload's critical path: never more than its device time
	 * and, in report, its waiting behind its own processes' small
	 * requests (an_readahead.draws) */
	f->cost_s = s->cost_s;
	snprintf(f->cost_of, sizeof(f->cost_of), "%s", s->nsmall > 1 ?
		 "the readers' elapsed time" : "the reader's elapsed time");
	f->counterfactual = 1;
	/* none in small requests laid end to end: no estimate to describe
	 * (its how read "the 0 requests of 128 KiB ... at 0.0 us") */
	if (!s->nsmall)
		FD_CAT(f, how, "no sequential stream of buffered reads in small "
		       "requests laid end to end: no time estimated.");
	else
		FD_CAT(f, how, "for a sequential stream in small requests laid "
		       "end to end, the time the reader waited on its reads "
		       "(%.3f s, overlapping ones once) less what the %.0f "
		       "requests of 128 KiB (the default read_ahead_kb) its bytes "
		       "need would have waited, each at a request's fixed cost "
		       "on this device (%.1f us: %s)", s->s.waited_s, s->s.need,
		       s->s.per_req_us, s->s.fit ? "the intercept of D2C "
		       "against size over the device's reads" : "the median D2C "
		       "of its requests, an upper bound");
	if (s->nsmall && s->s.fit)
		FD_CAT(f, how, ", and the transfer of its bytes (%.2f us a "
		       "KiB: the slope)", s->s.per_kib_us);
	if (s->nsmall)
		FD_CAT(f, how, " (%.3f s). The reader's own time between its "
		       "reads (mean %.1f us from a completion to its next Q) "
		       "stays.", s->s.small_cost_s, s->s.gap_us);
	if (s->nsmall > 1)
		FD_CAT(f, how, " The same for each of the %d streams in "
		       "small requests: %.3f s in all.", s->nsmall,
		       s->small_cost_s);
	if (s->s.reads)
		FD_CAT(f, evidence, "%s on %s: %llu buffered reads, %.0f%% "
		       "sequential, %.0f%% flagged readahead (A), in %.0f "
		       "requests of %.1f KiB, %.0f%% of them starting where the "
		       "previous ended, %.1f MB, waited %.3f s. ", who, dev,
		       (unsigned long long)s->s.reads,
		       100.0 * (double)s->s.seq / (double)s->s.reads,
		       100.0 * (double)s->s.ra / (double)s->s.reads, s->s.nreq,
		       s->s.mean_kb, s->s.heads ? 100.0 * (double)s->s.req_seq /
		       (double)s->s.heads : 0, s->s.mb, s->s.waited_s);
	if (s->reread_bios)
		FD_CAT(f, evidence, "Read twice within the run: %.1f MB in %llu "
		       "bios, %.3f s at the device (refault's: the page cache "
		       "dropped them).", s->reread_mb,
		       (unsigned long long)s->reread_bios, s->reread_s);
	f->lo_s = 0;
	f->hi_s = rundata_elapsed_s(&r->rd);
	f->victim_pid = s->s.pid;
	f->stages = 1u << TA_D2C;
	if (s->nsmall && !s->s.fit) {
		f->conf = FD_MEDIUM;
		FD_CAT(f, why, "its requests are all small, so a request's fixed "
		       "cost is taken as their median D2C (the transfer of a small "
		       "request is counted in: the cost is an upper bound); CPU "
		       "time to copy the pages is not in the trace");
	} else {
		f->conf = s->cost_s > 0 ? FD_MEDIUM : FD_LOW;
		FD_CAT(f, why, "from the trace's own D2C by request size; page "
		       "cache hits and CPU time per request are not in it");
	}
	return 1;
}

static void ra_emit(struct emit *e, const void *state)
{
	const struct ra_state *s = state;

	emit_u64(e, "streams", (uint64_t)s->nstreams);
	emit_u64(e, "stream_pid", s->s.pid);
	emit_u64(e, "stream_reads", s->s.reads);
	emit_num(e, "stream_mean_kib", s->s.mean_kb);
	emit_num(e, "stream_seq_frac", s->s.reads ? (double)s->s.seq /
		 (double)s->s.reads : 0);
	emit_num(e, "stream_ra_frac", s->s.reads ? (double)s->s.ra /
		 (double)s->s.reads : 0);
	emit_num(e, "per_request_us", s->s.per_req_us);
	emit_num(e, "per_kib_us", s->s.fit ? s->s.per_kib_us : NAN);
	emit_u64(e, "per_request_fit", (uint64_t)s->s.fit);
	emit_num(e, "issue_gap_us", s->s.gap_us);
	emit_num(e, "small_request_cost_s", s->s.small_cost_s);
	emit_u64(e, "small_streams", (uint64_t)s->nsmall);
	emit_num(e, "small_streams_mb", s->small_mb);
	emit_num(e, "small_streams_cost_s", s->small_cost_s);
	emit_num(e, "reread_mb", s->reread_mb);
	emit_num(e, "reread_s", s->reread_s);
	emit_num(e, "cost_s", s->cost_s);
}

static void ra_release(void *state)
{
	free(state);
}

/* In compare: the reads' count and size part of the device's difference
 * (critpath_diff()), when the worse run read in smaller requests laid end
 * to end (a smaller window over the same stream); smaller requests that
 * are scattered are the layout's (an_seek.c). */
static double ra_mix(const struct cp_diff *d)
{
	return cp_reads_cut(d) ? d->mix_s[0] : 0;
}

/* The title when ra_mix() is most of the cost, and the runs gave no
 * finding of their own (direct I/O is never readahead): the reads' sizes,
 * and where a smaller size comes from. */
static void ra_mix_title(const struct cp_diff *d, const struct an_run *x,
			 const struct an_run *y, struct finding *f)
{
	double n[2], mb[2];

	if (f->title[0] && f->present)
		return;
	snprintf(f->title, sizeof(f->title), "readahead: smaller reads: %.30s's "
		 "requests averaged %.1f KiB, %.30s's %.1f KiB (the reader's "
		 "own size, read_ahead_kb or max_sectors_kb)",
		 y->rd.rv->name,
		 d->mean_kb[1][0], x->rd.rv->name, d->mean_kb[0][0]);
	/* the workload's blocking reads, class by class (critpath.h) */
	cp_read_reqs(&x->cp, &n[0], &mb[0]);
	cp_read_reqs(&y->cp, &n[1], &mb[1]);
	if (!f->evidence[0])
		FD_CAT(f, evidence, "%s: %.0f read requests the workload "
		       "waited on, %.1f MB, %.0f%% of the run's read requests "
		       "starting where another ended; %s: %.0f requests, %.1f MB, "
		       "%.0f%%", y->rd.rv->name, n[1], mb[1], 100 * d->contig[1],
		       x->rd.rv->name, n[0], mb[0], 100 * d->contig[0]);
	if (!f->why[0])
		snprintf(f->why, sizeof(f->why), "both runs' requests, class by "
			 "class, each at its own run's time per request");
	f->lo_s = 0;
	f->hi_s = y->cp.elapsed_s;
}

const struct analyzer an_readahead = {
	.name = "readahead",
	.fold_begin = ra_begin,
	.fold_ev = ra_ev,
	.fold_end = ra_end,
	.fold_kinds = 1u << FOLD_ROW | 1u << EV_Q | 1u << EV_D,
	.finding = ra_finding,
	.emit = ra_emit,
	.release = ra_release,
	.mix_cost = ra_mix,
	.mix_title = ra_mix_title,
	/* smaller requests are more device time, and more waiting behind
	 * each other where the workload's readers share a device */
	.draws = 1u << CP_DEVICE | 1u << CP_QUEUE,
	.definitions =
"readahead: buffered reads (flagged A: readahead, sync or async; direct\n"
"  I/O never is) of a process on a device form a sequential stream when\n"
"  80% of them start where the previous ended (100 reads or more).\n"
"  Re-reads: sectors a later buffered read read again, told with the\n"
"  time their requests were at the device (overlapping ones once), costed\n"
"  by refault. Cost: for a stream whose requests (merged bios one) average\n"
"  under 64 KiB, half or more starting where its previous one ended, the\n"
"  reader's time waiting on its reads (the union of their Q to C) less\n"
"  what the 128 KiB requests its bytes need would wait: each the fixed\n"
"  cost of a request (the intercept of D2C against size over the device's\n"
"  reads; with one size only, the median D2C, an upper bound) and, with\n"
"  the fit, the bytes' transfer (slope).\n",
};
