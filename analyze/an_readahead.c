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
#include "analyze/rsort.h"
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

static uint64_t key_q(uint32_t i, const void *ctx)
{
	return rsort_tkey(rundata_q(ctx, i));
}

/* by_sector()'s sort: ranks in Q order keyed by their row's sector */
struct rank_ctx {
	const struct rundata *rd;
	const uint32_t *p;
};

static uint64_t key_rank_sector(uint32_t rank, const void *ctx)
{
	const struct rank_ctx *c = ctx;

	return rundata_sector(c->rd, c->p[rank]);
}

/* Sorts rows p[0..n) of rd, in Q order, by sector, bios at one sector by
 * Q, then in rundata's order (what sorting by Q and then, stably, by
 * sector gives); tmp has room for n. */
static void by_sector(const struct rundata *rd, uint32_t *p, size_t n,
		      uint32_t *tmp)
{
	struct rank_ctx c = { rd, p };

	for (size_t i = 0; i < n; i++)
		tmp[i] = (uint32_t)i;
	radix_sort_idx(tmp, n, key_rank_sector, &c);
	for (size_t i = 0; i < n; i++)
		tmp[i] = p[tmp[i]];
	memcpy(p, tmp, n * sizeof(*p));
}

/* A read through the page cache's readahead: the A flag (REQ_RAHEAD) is
 * set on both sync and async readahead; direct I/O never has it. */
static int buffered_read(const struct an_io *x)
{
	return (x->flags & AN_RA) && !(x->flags & (AN_WRITE | AN_META)) &&
	       x->q != AN_NONE && x->bytes;
}

/* Least squares of D2C (ns) on bytes over the device's reads: the
 * intercept is the fixed cost of a request, the slope the transfer of a
 * byte. Returns 0, *a_ns and *b_ns (per byte, at least 0) when the sizes
 * vary enough (two size classes of 20 bios), else -1. */
static int fixed_cost(const struct rundata *rd, uint32_t dev, double *a_ns,
		      double *b_ns)
{
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	uint64_t small = 0, large = 0;

	for (size_t i = 0; i < rd->n; i++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, i, &xb);
		double b, d;
		if (x->dev != dev || (x->flags & AN_WRITE) || !(x->flags & AN_HEAD) ||
		    x->d == AN_NONE || x->c == AN_NONE || x->c < x->d || !x->dbytes)
			continue;
		b = x->dbytes;
		d = (double)(x->c - x->d);
		n++;
		sx += b;
		sy += d;
		sxx += b * b;
		sxy += b * d;
		if (x->dbytes <= 16384)
			small++;
		else if (x->dbytes >= 65536)
			large++;
	}
	if (small < 20 || large < 20 || n * sxx - sx * sx <= 0)
		return -1;
	{
		double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
		*b_ns = slope > 0 ? slope : 0;
		*a_ns = (sy - slope * sx) / n;
	}
	return 0;
}

/* qsort's order of (D, C) spans: by D. */
static int cmp_span(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Re-reads: per device, buffered reads sorted by sector; a bio overlapping
 * an earlier-queued one's range read those sectors twice. Adds their bios,
 * MB and the time their requests were at the device (s, the union of
 * their D to C) to s; p and tmp have room for every row of the run. */
static void rereads(const struct an_run *r, struct ra_state *s, uint32_t *p,
		    uint32_t *tmp)
{
	const struct rundata *rd = &r->rd;
	int64_t (*span)[2] = NULL;
	size_t nspan = 0, cap = 0;

	for (size_t k = 0; k < r->ta.ndev; k++) {
		uint32_t dev = r->ta.devs[k].dev;
		struct ev_it it;
		uint32_t row;
		int64_t q;
		size_t np = 0;
		ev_it_init(&it, &r->ord, (size_t)rundata_dev_index(rd, dev), EV_Q);
		while (ev_it_next(&it, &row, &q)) {
			struct an_io xb;
			if (buffered_read(rundata_io(rd, row, &xb)))
				p[np++] = row;
		}
		by_sector(rd, p, np, tmp);
		for (size_t i = 1; i < np; i++) {
			struct an_io ab, xb;
			const struct an_io *a = rundata_io(rd, p[i - 1], &ab);
			const struct an_io *x = rundata_io(rd, p[i], &xb);
			uint64_t end0 = a->sector + a->bytes / 512;
			uint64_t over;
			if (x->sector >= end0)
				continue;
			over = end0 - x->sector;
			if (over > x->bytes / 512)
				over = x->bytes / 512;
			s->reread_bios++;
			s->reread_mb += (double)over * 512 / 1e6;
			if (x->c != AN_NONE && x->d != AN_NONE && x->c >= x->d) {
				if (nspan == cap) {
					cap = cap ? 2 * cap : 256;
					span = xrealloc(span, cap * sizeof(*span));
				}
				span[nspan][0] = x->d;
				span[nspan++][1] = x->c;
			}
		}
	}
	/* the time they were at the device, overlapping ones once: never
	 * more than the run (their D2C summed over 50 in flight was 10.1 s
	 * in a run of 3.8 s) */
	if (nspan)   /* qsort(NULL, 0, ...) is undefined */
		qsort(span, nspan, sizeof(*span), cmp_span);
	for (size_t i = 0, j; i < nspan; i = j) {
		int64_t end = span[i][1];
		for (j = i + 1; j < nspan && span[j][0] <= end; j++)
			if (span[j][1] > end)
				end = span[j][1];
		s->reread_s += (double)(end - span[i][0]) / 1e9;
	}
	free(span);
}

/* The small-request cost of stream st (process and device row, its
 * buffered reads p[0..np) in Q order, counted in st): what the reader
 * waited less what requests of REF_BYTES would have, each request's fixed
 * cost from a fit of D2C on size over the device's reads, else the
 * stream's median D2C; sets st's per_req_us, per_kib_us, need, gap_us,
 * fit and small_cost_s. */
static void small_cost(const struct rundata *rd, const struct ta_row *row,
		       const uint32_t *p, size_t np, struct ra_stream *st)
{
	struct hist d2c = { 0 };
	double need = st->mb * 1e6 / REF_BYTES, gaps = 0, a_ns, b_ns = 0;
	uint64_t ngap = 0;

	for (size_t i = 0; i < np; i++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, p[i], &xb);
		int64_t nq = i + 1 < np ? rundata_q(rd, p[i + 1]) : 0;
		if (x->c != AN_NONE && x->d != AN_NONE && x->c >= x->d)
			hist_add(&d2c, (uint64_t)(x->c - x->d));
		/* the process's time between a completion and
		 * its next request: issuing one synchronously */
		if (i + 1 < np && x->c != AN_NONE && nq > x->c &&
		    nq - x->c < 10000000) {
			gaps += (double)(nq - x->c);
			ngap++;
		}
	}
	st->fit = !fixed_cost(rd, row->dev, &a_ns, &b_ns) && a_ns > 0;
	if (!st->fit) {
		a_ns = hist_pct(&d2c, 50);
		b_ns = 0;
	}
	st->per_req_us = a_ns / 1e3;
	st->per_kib_us = b_ns * 1024 / 1e3;
	st->need = need;
	st->gap_us = ngap ? gaps / (double)ngap / 1e3 : 0;
	/* what it waited (overlapping requests once) less what
	 * the 128 KiB requests would have: the reader's own
	 * time between its reads stays as it was */
	st->small_cost_s = st->waited_s -
			   (need * a_ns + st->mb * 1e6 * b_ns) / 1e9;
	if (st->small_cost_s < 0 || st->nreq <= need)
		st->small_cost_s = 0;
	hist_free(&d2c);
}

/* The re-reads and, of the sequential streams of buffered reads (per
 * process and device, in Q order, MIN_READS at least), the costliest and
 * the sum of those in small requests. NULL when the run has neither. */
static void *ra_build(const struct an_run *r)
{
	const struct rundata *rd = &r->rd;
	struct ra_state *s;
	uint32_t *p, *tmp;
	size_t np = 0;

	if (!rd->n)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	p = xmalloc(rd->n * sizeof(*p));
	tmp = xmalloc(rd->n * sizeof(*tmp));
	rereads(r, s, p, tmp);
	/* sequential streams: per process and device, in Q order */
	for (size_t t = 0; t < r->ta.nrows; t++) {
		const struct ta_row *row = &r->ta.rows[t];
		struct ra_stream st = { .pid = row->pid, .dev = row->dev };
		uint64_t next = UINT64_MAX, dnext = UINT64_MAX;
		/* its bios (in the run's order), then by Q */
		np = 0;
		for (size_t k = 0; k < row->nbio; k++) {
			uint32_t i = r->ta.bio[row->bio_first + k];
			struct an_io xb;
			if (buffered_read(rundata_io(rd, i, &xb)))
				p[np++] = i;
		}
		if (np < MIN_READS)
			continue;
		radix_sort_idx(p, np, key_q, rd);
		for (size_t i = 0; i < np; i++) {
			struct an_io xb;
			const struct an_io *x = rundata_io(rd, p[i], &xb);
			st.reads++;
			st.seq += x->sector == next;
			st.ra += (x->flags & AN_RA) != 0;
			st.mb += x->bytes / 1e6;
			st.nreq += x->dbytes ? (double)x->bytes / x->dbytes : 1;
			next = x->sector + x->bytes / 512;
			if ((x->flags & AN_HEAD) && x->dbytes) {
				st.heads++;
				st.req_seq += x->dsector == dnext;
				dnext = x->dsector + x->dbytes / 512;
			}
		}
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
			small_cost(rd, row, p, np, &st);
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
	free(p);
	free(tmp);
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
	FD_CAT(f, how, "for a sequential stream in small requests laid end to "
	       "end, the time the reader waited on its reads (%.3f s, overlapping ones once) less what "
	       "the %.0f requests of 128 KiB (the default read_ahead_kb) its "
	       "bytes need would have waited, each at a request's fixed cost "
	       "on this device (%.1f us: %s)", s->s.waited_s,
	       s->s.need, s->s.per_req_us, s->s.fit ? "the intercept of D2C "
	       "against size over the device's reads" : "the median D2C of its "
	       "requests, an upper bound");
	if (s->s.fit)
		FD_CAT(f, how, ", and the transfer of its bytes (%.2f us a "
		       "KiB: the slope)", s->s.per_kib_us);
	FD_CAT(f, how, " (%.3f s). The reader's own time between its reads "
	       "(mean %.1f us from a completion to its next Q) stays.",
	       s->s.small_cost_s, s->s.gap_us);
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
	.build = ra_build,
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
