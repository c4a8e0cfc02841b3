/* One run's per-device and per-process figures in btt's terms (btt(1)):
 * requests, bytes, IOPS and MB/s by direction, Q2C, D2C and Q2D latency,
 * merge ratio, in-flight average, D2D seeks; then where the time went and
 * the findings; text for a mailing list (80 columns) or JSON from one
 * emitter. Used by `iotape report` and plots. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

static struct dev_stats *dev_of(struct report *r, uint32_t dev)
{
	for (size_t i = 0; i < r->ndev; i++)
		if (r->devs[i].dev == dev)
			return &r->devs[i];
	r->devs = xrealloc(r->devs, (r->ndev + 1) * sizeof(*r->devs));
	memset(&r->devs[r->ndev], 0, sizeof(*r->devs));
	r->devs[r->ndev].dev = dev;
	return &r->devs[r->ndev++];
}

static struct proc_stats *proc_of(struct report *r, uint32_t pid)
{
	size_t i;

	if (!r->pcap) {
		r->pcap = 256;
		r->pidx = xcalloc(r->pcap, sizeof(*r->pidx));
	}
	for (i = (pid * 2654435761u) & (r->pcap - 1); r->pidx[i];
	     i = (i + 1) & (r->pcap - 1))
		if (r->procs[r->pidx[i] - 1].pid == pid)
			return &r->procs[r->pidx[i] - 1];
	if (2 * (r->nproc + 1) > r->pcap) {
		size_t ncap = r->pcap * 2;
		free(r->pidx);
		r->pidx = xcalloc(ncap, sizeof(*r->pidx));
		r->pcap = ncap;
		for (size_t k = 0; k < r->nproc; k++) {
			size_t j = (r->procs[k].pid * 2654435761u) & (ncap - 1);
			while (r->pidx[j])
				j = (j + 1) & (ncap - 1);
			r->pidx[j] = k + 1;
		}
		for (i = (pid * 2654435761u) & (r->pcap - 1); r->pidx[i];
		     i = (i + 1) & (r->pcap - 1))
			;
	}
	r->procs = xrealloc(r->procs, (r->nproc + 1) * sizeof(*r->procs));
	memset(&r->procs[r->nproc], 0, sizeof(*r->procs));
	r->procs[r->nproc].pid = pid;
	r->pidx[i] = ++r->nproc;
	return &r->procs[r->nproc - 1];
}


/* A whole split bio (splitjoin.h) into the issuers' Q2C. */
static void split_done(void *ctx, const struct split_bio *b)
{
	struct report *r = ctx;

	hist_add(&r->bio_q2c_dir[b->w], (uint64_t)(b->c - b->q));
	hist_add(&dev_of(r, b->dev)->q2c_whole, (uint64_t)(b->c - b->q));
}

void report_begin(struct report *r, const struct runview *rv)
{
	memset(r, 0, sizeof(*r));
	splitjoin_init(&r->sj, split_done, r);
	r->rv = rv;
	/* a run of samples only (a vmstat log) has no event span */
	r->span_ns = rv ? runview_span_ns(rv) : 0;
}

void report_add(struct report *r, const struct an_io *x)
{
	int64_t bytes = x->bytes, q = x->q, d = x->d, c = x->c;
	int hq = q != AN_NONE, hd = d != AN_NONE, hc = c != AN_NONE;
	int64_t dbytes = x->dbytes, seek = x->seek;
	int head = !!(x->flags & AN_HEAD);
	int hseek = !!(x->flags & AN_HAS_SEEK);
	int split = !!(x->flags & AN_SPLIT);
	uint32_t pid = x->pid;
	struct dev_stats *ds = dev_of(r, x->dev);
	int w = !!(x->flags & AN_WRITE);

	if (hc)
		ds->completions++;
	/* btt 2.09 trace_queue.c: one per Q with data; an X adds
	 * no Q (btt also counts each R: not here) */
	if (hq && bytes > 0 && !(x->flags & AN_SPLIT_TAIL))
		ds->btt_q++;
	if (x->flags & AN_SPLIT_TAIL)
		ds->x_splits++;
	splitjoin_add(&r->sj, x, 0);
	if (split && hq) {
		/* btt pairs neither half of a split bio (its D and C
		 * cover only part of the Q): keep them apart. */
		ds->split_bios++;
		if (hc && c >= q)
			hist_add(&ds->q2c_split, (uint64_t)(c - q));
		hq = 0;
	}
	if (hq || split) {
		struct proc_stats *ps = proc_of(r, pid);
		ds->bios++;
		ps->bios++;
		ps->bytes += (uint64_t)bytes;
		r->total_bytes += (uint64_t)bytes;
		/* flush bios with no size too: a process's commits
		 * (jbd2's "Q FWFS") wait for them */
		if (hq && hc && c >= q)
			hist_add(&ps->q2c, (uint64_t)(c - q));
	}
	if (hq && hc && bytes > 0) {
		if (c >= q) {
			hist_add(&ds->q2c, (uint64_t)(c - q));
			hist_add(&r->q2c_dir[w], (uint64_t)(c - q));
			hist_add(&r->bio_q2c_dir[w], (uint64_t)(c - q));
		} else
			ds->negative++;
		if (!hd)
			ds->q2c_no_d++;
	}
	if (!split && hd && hc && bytes > 0) {
		if (c >= d) {
			hist_add(&ds->d2c, (uint64_t)(c - d));
			hist_add(&r->d2c_dir[w], (uint64_t)(c - d));
		} else
			ds->negative++;
	}
	if (hq && hd && bytes > 0 && d >= q)
		hist_add(&ds->q2d, (uint64_t)(d - q));
	if (bytes > 0) {
		int64_t g = x->g, in = x->i, m = x->m;
		const int64_t st[RP_NSTAGE][2] = {
			[RP_Q2G] = { q, g },
			[RP_G2I] = { g, in },
			[RP_Q2M] = { q, m },
			[RP_I2D] = { split ? AN_NONE : in, d },
			[RP_M2D] = { split ? AN_NONE : m, d },
		};
		for (int k = 0; k < RP_NSTAGE; k++)
			if (st[k][0] != AN_NONE && st[k][1] != AN_NONE &&
			    st[k][1] >= st[k][0])
				hist_add(&ds->stage[k],
					 (uint64_t)(st[k][1] - st[k][0]));
	}
	if (hq && !hd && !hc && bytes > 0 && !(x->flags & AN_SPLIT_TAIL)) {
		/* issued only: the last stand-ins (dir_ios()) */
		ds->dir[w].q_only_ios++;
		ds->dir[w].q_only_bytes += (uint64_t)bytes;
	}
	if (hc && !hd) {
		/* Q and C only (D masked out), or C only (action mask
		 * C): completed bios stand in for dispatches. */
		ds->dir[w].c_only_ios++;
		ds->dir[w].c_only_bytes += (uint64_t)bytes;
		/* in flight from Q: what the host counts (iostat's aqu-sz) */
		if (hq && c >= q && bytes > 0)
			ds->qc_ns += (uint64_t)(c - q);
	}
	if (head && !dbytes) {
		/* zero-length requests (flushes): neither reads nor
		 * writes, counted apart */
		ds->flushes++;
	} else if (head) {
		ds->dir[w].ios++;
		ds->dir[w].bytes += (uint64_t)dbytes;
	}
	if (head && hc && c >= d)
		ds->busy_ns += (uint64_t)(c - d);
	if (hseek) {
		hist_add(&ds->seek, (uint64_t)llabs(seek));
		if (llabs(seek) > 128)
			ds->seeks_128++;
	}
}

void report_end(struct report *r)
{
	splitjoin_end(&r->sj);
	for (size_t i = 0; i < r->ndev; i++) {
		hist_merge(&r->all_q2c, &r->devs[i].q2c);
		hist_merge(&r->all_d2c, &r->devs[i].d2c);
		hist_merge(&r->all_q2d, &r->devs[i].q2d);
		for (int k = 0; k < RP_NSTAGE; k++)
			hist_merge(&r->all_stage[k], &r->devs[i].stage[k]);
	}
}

int report_build(struct report *r, const struct rundata *rd)
{
	report_begin(r, rd->rv);
	for (size_t i = 0; i < rd->n; i++) {
		struct an_io xb;
		report_add(r, rundata_io(rd, i, &xb));
	}
	report_end(r);
	return 0;
}

static void side_begin(void *ctx, const struct an_run *a)
{
	report_begin(ctx, a->rd.rv);
}

static void side_ev(void *ctx, const struct fold_ev *e)
{
	report_add(ctx, e->io);
}

static void side_end(void *ctx, const struct an_run *a)
{
	(void)a;
	report_end(ctx);
}

void report_side(struct report *r, struct an_side *out)
{
	*out = (struct an_side){ side_begin, side_ev, side_end, r,
				 1u << FOLD_ROW };
}
void report_free(struct report *r)
{
	for (size_t i = 0; i < r->ndev; i++) {
		hist_free(&r->devs[i].q2c);
		hist_free(&r->devs[i].d2c);
		hist_free(&r->devs[i].q2d);
		hist_free(&r->devs[i].seek);
		hist_free(&r->devs[i].q2c_split);
		hist_free(&r->devs[i].q2c_whole);
		for (int k = 0; k < RP_NSTAGE; k++)
			hist_free(&r->devs[i].stage[k]);
	}
	for (int k = 0; k < RP_NSTAGE; k++)
		hist_free(&r->all_stage[k]);
	for (size_t i = 0; i < r->nproc; i++)
		hist_free(&r->procs[i].q2c);
	hist_free(&r->all_q2c);
	hist_free(&r->all_d2c);
	for (int w = 0; w < 2; w++) {
		hist_free(&r->q2c_dir[w]);
		hist_free(&r->d2c_dir[w]);
		hist_free(&r->bio_q2c_dir[w]);
	}
	hist_free(&r->all_q2d);
	free(r->devs);
	free(r->procs);
	free(r->pidx);
}

/* ---- output: one emitter for text and JSON ---- */

const char *report_no_completions(const struct runview *rv, char *buf,
				  size_t len)
{
	int n = snprintf(buf, len, "no completions in this trace");

	if (rv->pending_end >= 0 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ": %" PRId64 " request%s "
			      "pending at its end", rv->pending_end,
			      rv->pending_end == 1 ? "" : "s");
	if (rv->missing_cpus[0] && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; CPU%s %s missing",
			 strpbrk(rv->missing_cpus, ",-") ? "s" : "",
			 rv->missing_cpus);
	return buf;
}


/* A latency statistic in us, NaN (JSON null) when nothing was measured */
static double us_or_nan(const struct hist *h, double p)
{
	if (!h->n)
		return NAN;
	return (p > 0 ? hist_pct(h, p) : p < 0 ? (double)h->max
					       : hist_mean(h)) / 1e3;
}

static void emit_lat(struct emit *e, const char *key, const char *label,
		     const struct hist *h)
{
	emit_obj_begin(e, key);
	emit_u64(e, "n", h->n);
	emit_num(e, "mean_us", us_or_nan(h, 0));
	emit_num(e, "p50_us", us_or_nan(h, 50));
	emit_num(e, "p90_us", us_or_nan(h, 90));
	emit_num(e, "p99_us", us_or_nan(h, 99));
	emit_num(e, "max_us", us_or_nan(h, -1));
	emit_obj_end(e);
	/* no row of zeros for a latency nothing measured */
	if (!h->n)
		return;
	emit_text(e, "  %-5s %9" PRIu64 " %11.1f %11.1f %11.1f %11.1f %11.1f\n",
		  label, h->n, hist_mean(h) / 1e3, hist_pct(h, 50) / 1e3,
		  hist_pct(h, 90) / 1e3, hist_pct(h, 99) / 1e3,
		  (double)h->max / 1e3);
}

/* btt's stage rows under the latency table */
static void emit_stages(struct emit *e, const struct hist *h)
{
	static const char *const key[RP_NSTAGE] = { "q2g", "g2i", "q2m", "i2d",
						     "m2d" };
	static const char *const label[RP_NSTAGE] = { "Q2G", "G2I", "Q2M", "I2D",
						       "M2D" };

	for (int k = 0; k < RP_NSTAGE; k++)
		emit_lat(e, key[k], label[k], &h[k]);
}

/* text wrapped at 80 columns, each line indented by two spaces */
static void emit_wrapped(struct emit *e, const char *s)
{
	while (*s) {
		size_t n = strlen(s), cut = n;
		if (n > 76) {
			for (cut = 76; cut > 0 && s[cut] != ' '; cut--)
				;
			if (!cut)
				cut = 76;
		}
		emit_text(e, "  %.*s\n", (int)cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

static void emit_dir(struct emit *e, const char *key, const struct dir_stats *d,
		     double span_s, int c_only)
{
	uint64_t ios = dir_ios(d, c_only);
	uint64_t bytes = dir_bytes(d, c_only);
	double iops = span_s > 0 ? (double)ios / span_s : 0;
	double mbs = span_s > 0 ? (double)bytes / 1e6 / span_s : 0;

	emit_obj_begin(e, key);
	emit_u64(e, "requests", ios);
	emit_u64(e, "bytes", bytes);
	emit_num(e, "iops", iops);
	emit_num(e, "mb_s", mbs);
	emit_obj_end(e);
	emit_text(e, "  %-6s %12" PRIu64 " %12.2f %12.1f %12.2f\n", key, ios,
		  (double)bytes / 1e6, iops, mbs);
}

static int cmp_proc_bytes(const void *a, const void *b)
{
	const struct proc_stats *x = a, *y = b;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1
		: (x->pid > y->pid) - (x->pid < y->pid);
}

/* btt's counts of device d in one line: Q bios (as btt counts #Q, its X
 * splits and flushes apart), D requests disp, the merge ratio Q/D (merge;
 * NAN: no D) and the mean I/Os in flight (inflight; NAN for a span of 0
 * s) */
static void emit_counts_line(struct emit *e, const struct dev_stats *d,
			     uint64_t disp, double merge, double inflight)
{
	char line[512];
	int k = snprintf(line, sizeof(line), "Q bios %" PRIu64 ": %" PRIu64
			 " with data as btt counts #Q", d->bios, d->btt_q);

	if (disp > d->btt_q)
		k += snprintf(line + k, sizeof(line) - (size_t)k, " (btt prints "
			      "%" PRIu64 ", never below #D)", disp);
	if (d->x_splits)
		k += snprintf(line + k, sizeof(line) - (size_t)k, ", %" PRIu64
			      " more from X splits", d->x_splits);
	if (d->bios > d->btt_q + d->x_splits)
		k += snprintf(line + k, sizeof(line) - (size_t)k, ", %" PRIu64
			      " empty (flushes)", d->bios - d->btt_q - d->x_splits);
	k += snprintf(line + k, sizeof(line) - (size_t)k, "; D requests %" PRIu64
		      " (and %" PRIu64 " empty: flushes)", disp, d->flushes);
	if (isfinite(merge))
		k += snprintf(line + k, sizeof(line) - (size_t)k, ", merge ratio "
			      "Q/D %.2f", merge);
	/* completions all at one time: a span of 0 has no average (JSON
	 * null); said, not printed as nan */
	if (d->completions && isfinite(inflight))
		snprintf(line + k, sizeof(line) - (size_t)k, ", avg in flight "
			 "%.2f over the span", inflight);
	else if (d->completions)
		snprintf(line + k, sizeof(line) - (size_t)k, ", no avg in flight "
			 "(a span of 0 s)");
	emit_wrapped(e, line);
}

/* One device's section of the report: requests, MB, IOPS and MB/s by
 * direction over span_s seconds, btt's counts, D2D seeks, latencies and
 * btt's stages, what is missing (run_c: completions on all devices), X
 * split halves. */
static void emit_device(struct emit *e, const struct report *r,
			const struct dev_stats *d, double span_s, uint64_t run_c)
{
	uint64_t disp = d->dir[0].ios + d->dir[1].ios;
	int c_only = disp == 0;
	/* no D traced (Q and C only): in flight from Q to C */
	double inflight = span_s > 0 ? (double)(c_only ? d->qc_ns : d->busy_ns) /
				       (double)r->span_ns : NAN;
	/* btt's Device Merge Information: #Q / #D, #Q never below #D */
	double merge = disp ? (double)(d->btt_q > disp ? d->btt_q : disp) /
			      (double)disp : NAN;
	char devname[32], title[48];

	snprintf(devname, sizeof(devname), "%u,%u", BT_MAJOR(d->dev),
		 BT_MINOR(d->dev));
	emit_obj_begin(e, NULL);
	emit_str(e, "dev", devname);
	snprintf(title, sizeof(title), "device %s", devname);
	emit_heading(e, title);
	emit_text(e, "  %-6s %12s %12s %12s %12s\n", "", "requests", "MB",
		  "IOPS", "MB/s");
	emit_dir(e, "read", &d->dir[0], span_s, c_only);
	emit_dir(e, "write", &d->dir[1], span_s, c_only);
	emit_u64(e, "bios", d->bios);
	emit_u64(e, "dispatches", disp);
	emit_u64(e, "flushes", d->flushes);
	emit_num(e, "merge_ratio", merge);
	emit_u64(e, "completions", d->completions);
	emit_num(e, "avg_inflight", d->completions ? inflight : NAN);
	emit_u64(e, "q_with_data", d->btt_q);
	emit_u64(e, "btt_q", d->btt_q > disp ? d->btt_q : disp);
	emit_u64(e, "x_splits", d->x_splits);
	emit_counts_line(e, d, disp, merge, inflight);
	emit_obj_begin(e, "seeks");
	emit_str(e, "definition", "btt D2D");
	emit_u64(e, "n", d->seek.n);
	emit_num(e, "mean_sectors", d->seek.n ? hist_mean(&d->seek) : NAN);
	emit_num(e, "median_sectors", d->seek.n ? hist_pct(&d->seek, 50) : NAN);
	emit_u64(e, "over_128_sectors", d->seeks_128);
	emit_obj_end(e);
	if (d->seek.n)
		emit_text(e, "  D2D seeks %" PRIu64 ": mean %.1f, median %.0f "
			  "sectors; %" PRIu64 " over 128\n", d->seek.n,
			  hist_mean(&d->seek), hist_pct(&d->seek, 50),
			  d->seeks_128);
	if (d->q2c.n || d->d2c.n || d->q2d.n)
		emit_text(e, "\n  %-5s %9s %11s %11s %11s %11s %11s\n", "us",
			  "n", "mean", "p50", "p90", "p99", "max");
	emit_lat(e, "q2c", "Q2C", &d->q2c);
	emit_lat(e, "d2c", "D2C", &d->d2c);
	emit_lat(e, "q2d", "Q2D", &d->q2d);
	emit_stages(e, d->stage);
	if (!d->completions) {
		char why[256], line[400];
		report_no_completions(r->rv, why, sizeof(why));
		snprintf(line, sizeof(line), "%s: no Q2C, D2C or time in flight "
			 "to show", run_c ? "no completions on this device" : why);
		emit_str(e, "missing", line);
		emit_text(e, "\n");
		emit_wrapped(e, line);
	}
	emit_u64(e, "split_bios", d->split_bios);
	emit_num(e, "split_q2c_mean_us", us_or_nan(&d->q2c_split, 0));
	/* wrapped: with large figures these ran past 80 columns (83) */
	if (d->split_bios && d->q2c_split.n) {
		char line[200];
		snprintf(line, sizeof(line), "split bios (X halves) %" PRIu64
			 ", Q2C mean %.1f us, are left out above as by btt",
			 d->split_bios, hist_mean(&d->q2c_split) / 1e3);
		emit_wrapped(e, line);
	} else if (d->split_bios)
		emit_text(e, "  split bios (X halves) %" PRIu64 ", none "
			  "completed, are left out above as by btt\n",
			  d->split_bios);
	/* the bios they were, whole: what their issuers waited (the
	 * question's Q2C figures count them so) */
	emit_u64(e, "split_whole_bios", d->q2c_whole.n);
	emit_num(e, "split_whole_q2c_p50_us", us_or_nan(&d->q2c_whole, 50));
	emit_num(e, "split_whole_q2c_p99_us", us_or_nan(&d->q2c_whole, 99));
	if (d->q2c_whole.n) {
		char line[200];
		snprintf(line, sizeof(line), "as %" PRIu64 " whole bios (Q to "
			 "the last piece's C): Q2C p50 %.1f us, p99 %.1f us",
			 d->q2c_whole.n, hist_pct(&d->q2c_whole, 50) / 1e3,
			 hist_pct(&d->q2c_whole, 99) / 1e3);
		emit_wrapped(e, line);
	}
	emit_obj_end(e);
}

/* The processes by bytes queued (sorts r->procs): pid, comm, bios, MB,
 * share, Q2C mean and p99; max_procs in text, all in JSON. */
static void emit_processes(struct emit *e, struct report *r, size_t max_procs)
{
	if (r->nproc)
		qsort(r->procs, r->nproc, sizeof(*r->procs), cmp_proc_bytes);
	emit_arr_begin(e, "processes");
	emit_heading(e, "processes (by bytes queued)");
	emit_text(e, "  %7s %-16s %8s %10s %7s %11s %11s\n", "pid", "comm",
		  "bios", "MB", "share%", "Q2C mean", "Q2C p99");
	for (size_t i = 0; i < r->nproc; i++) {
		struct proc_stats *p = &r->procs[i];
		const char *comm = runview_comm(r->rv, p->pid);
		double share = r->total_bytes ? 100.0 * (double)p->bytes /
						(double)r->total_bytes : 0;
		if (!emit_row_shown(e, i, max_procs))
			continue;
		emit_obj_begin(e, NULL);
		emit_u64(e, "pid", p->pid);
		emit_str(e, "comm", comm);
		emit_u64(e, "bios", p->bios);
		emit_u64(e, "bytes", p->bytes);
		emit_num(e, "share_pct", share);
		emit_num(e, "q2c_mean_us", us_or_nan(&p->q2c, 0));
		emit_num(e, "q2c_p99_us", us_or_nan(&p->q2c, 99));
		emit_obj_end(e);
		emit_text(e, "  %7u %-16.16s %8" PRIu64 " %10.2f %7.1f",
			  p->pid, comm ? comm : "?", p->bios,
			  (double)p->bytes / 1e6, share);
		if (p->q2c.n)
			emit_text(e, " %11.1f %11.1f\n", hist_mean(&p->q2c) / 1e3,
				  hist_pct(&p->q2c, 99) / 1e3);
		else
			emit_text(e, " %11s %11s\n", "-", "-");
	}
	emit_more(e, r->nproc, max_procs, "processes");
	emit_arr_end(e);
}

void report_emit(struct report *r, struct emit *e, size_t max_procs,
		 const struct an_run *an, const struct finding *f, int nf)
{
	const struct runview *rv = r->rv;
	double span_s = (double)r->span_ns / 1e9;
	uint64_t run_c = 0;   /* completions in the run, all devices */

	for (size_t i = 0; i < r->ndev; i++)
		run_c += r->devs[i].completions;
	/* a run of samples alone: the time they cover (as iotape runs
	 * lists it), not 0 s */
	if (!rv->last_event && an && an->rd.t1 > an->rd.t0)
		span_s = (double)(an->rd.t1 - an->rd.t0) / 1e9;
	emit_obj_begin(e, NULL);
	emit_str(e, "run", rv->name);
	emit_str(e, "kind", rv->kind);
	emit_str(e, "status", rv->status);
	emit_str(e, "format", rv->format);
	emit_num(e, "span_s", span_s);
	{
		/* wrapped at 80 columns: a long name */
		char head[600], wrapped[700];
		snprintf(head, sizeof(head), "run '%s' (%s, %s, %s): %.3f s%s, "
			 "%zu device%s", rv->name, rv->kind, rv->status,
			 rv->format[0] ? rv->format : "-", span_s,
			 rv->last_event ? "" : " of samples", r->ndev,
			 r->ndev == 1 ? "" : "s");
		emit_text(e, "%s\n", text_wrap(head, 80, 2, wrapped,
						 sizeof(wrapped)));
	}
	if (!r->ndev) {
		char why[512];

		runview_why_empty(rv, why, sizeof(why));
		emit_str(e, "empty", why);
		emit_wrapped(e, why);
		/* a window or device with nothing in it, or a run of
		 * samples alone: the sections would be empty tables, an
		 * elapsed of 0 s and causes judged over no time (JSON keeps
		 * them); the note names the command that shows the samples */
		emit_text_stop(e);
	}

	emit_arr_begin(e, "devices");
	for (size_t i = 0; i < r->ndev; i++)
		emit_device(e, r, &r->devs[i], span_s, run_c);
	emit_arr_end(e);

	emit_obj_begin(e, "all");
	emit_heading(e, "all devices");
	if (r->all_q2c.n || r->all_d2c.n || r->all_q2d.n)
		emit_text(e, "  %-5s %9s %11s %11s %11s %11s %11s\n", "us", "n",
			  "mean", "p50", "p90", "p99", "max");
	emit_lat(e, "q2c", "Q2C", &r->all_q2c);
	emit_lat(e, "d2c", "D2C", &r->all_d2c);
	emit_lat(e, "q2d", "Q2D", &r->all_q2d);
	emit_stages(e, r->all_stage);
	if (r->ndev && !run_c) {
		char why[256];
		emit_wrapped(e, report_no_completions(rv, why, sizeof(why)));
	}
	emit_obj_end(e);

	emit_processes(e, r, max_procs);
	if (an) {
		double own = an->cp.elapsed_s;
		timeacct_emit(e, &an->ta, &an->rd, max_procs);
		an_run_emit(e, an);
		for (int i = 0; i < nf; i++)
			if (f[i].cause)
				own -= f[i].cost_s;
		/* a run of samples alone (a vmstat log, with a `time` paste
		 * or not): its device sections were left out, its causes are
		 * judged over the time the samples or commands cover, as the
		 * JSON has them (the text stopped at "see iotape vmstat") */
		if (!rv->last_event && an->cp.elapsed_s > 0)
			emit_text_resume(e);
		/* the workload's time is not the span shown above (buffered
		 * writes before the first event, its own first Q to last C):
		 * said, or "1.83 s of workload's time" reads against "elapsed
		 * 1.225 s" */
		if (fabs(an->cp.elapsed_s - an->ta.elapsed_s) >= 0.0005) {
			char line[700], buf[800];
			snprintf(line, sizeof(line), "the workload's time below: "
				 "%.3f s, %s", an->cp.elapsed_s, an->cp.window_why);
			wrap_indent(line, 80, 2, buf, sizeof(buf));
			emit_text(e, "\n%s\n", buf);
		}
		finding_emit_waterfall(e, f, nf, "why: causes by what they cost",
				       an->cp.elapsed_s, own, "workload's time",
				       "the workload's own time: its I/O at the "
				       "device's speed, its CPU and think time",
				       NULL, 0);
	}
	/* the terms of the tables a run of samples alone has none of */
	if (rv->last_event)
		emit_text(e, "\n%s", report_footer);
	emit_str(e, "definitions", report_footer);
	emit_obj_end(e);
	emit_finish(e);
}

const char report_footer[] =
"Q2C: queue to completion of each bio with data, D2C: its dispatch to\n"
"completion, Q2D: queue to dispatch; btt's stages Q2G (to get request),\n"
"G2I (to insert), Q2M (to merge), I2D, M2D (to dispatch); all in us, as\n"
"btt(1) pairs them (halves of a bio an X split count in Q2G G2I Q2M).\n"
"requests: dispatches (D) with data by direction, discards as writes,\n"
"empty ones (flushes) apart (completed bios when the trace has no D); IOPS\n"
"and MB/s over the run's span; MB = 10^6 bytes. In flight: sum of\n"
"D2C over the span (of Q2C when the trace has no D). Seeks: btt's D2D\n"
"distance from the previous dispatch's end (0 when they overlap), in\n"
"512-byte sectors.\n";

