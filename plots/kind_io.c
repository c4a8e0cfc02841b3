/* The time-axis kinds drawn from requests: seek (sector vs time, sampled to
 * at most SEEK_MAX_POINTS), tput (MB/s and IOPS in ~200 bins, from
 * completions) and qd (mean requests in flight per bin, D to C). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "plots/plot_int.h"

#define SEEK_MAX_POINTS 200000
#define TIME_BINS 200
#define SEEK_PANELS 8

/* 1 when run has any d_head row (dispatches traced), 0 when none, -1 on
 * error. */
static int has_dispatches(struct plot_ctx *c, const struct plot_run *r)
{
	int rc = store_run_has(c->st, r->rv.id, STORE_HAS_DISPATCHES);

	return rc < 0 ? error("%s", store_errmsg(c->st)) : rc;
}

/* ================================ seek ================================ */

struct seek_pt {
	uint64_t i;          /* row number among the run's rows (sampling) */
	double t, sector;
	uint32_t dev, pid, bytes;
	int w;
	int rank;            /* the process's colour, set after ranking */
};

struct pid_bytes {
	uint32_t dev, pid;
	uint64_t bytes;
	int rank;            /* colour 0..7, or PLOT_NCOLOURS for other */
};

struct seek_run {
	struct seek_pt *pts;
	size_t n, cap;
	uint64_t rows, stride;
	struct pid_bytes *pb;
	size_t npb, last;    /* last: pb index of the last lookup */
	int from_q;          /* positions are Q times and sectors */
};

static struct pid_bytes *pid_of(struct seek_run *s, uint32_t dev, uint32_t pid)
{
	/* few processes per run: a linear search, the last hit first */
	if (s->last < s->npb && s->pb[s->last].pid == pid &&
	    s->pb[s->last].dev == dev)
		return &s->pb[s->last];
	for (size_t i = 0; i < s->npb; i++)
		if (s->pb[i].pid == pid && s->pb[i].dev == dev)
			return &s->pb[s->last = i];
	s->pb = xrealloc(s->pb, (s->npb + 1) * sizeof(*s->pb));
	memset(&s->pb[s->npb], 0, sizeof(*s->pb));
	s->pb[s->npb].dev = dev;
	s->pb[s->npb].pid = pid;
	return &s->pb[s->last = s->npb++];
}

static int cmp_pb(const void *a, const void *b)
{
	const struct pid_bytes *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Takes run r's positions from rd, keeping 1 in stride rows (stride
 * doubles when more than budget are kept). */
static int seek_read(struct plot_ctx *c, struct plot_run *r, struct seek_run *s,
		     const struct rundata *rd, size_t budget)
{
	int hd;

	if ((hd = has_dispatches(c, r)) < 0)
		return -1;
	s->from_q = !hd;
	s->stride = 1;
	for (size_t n = 0; n < rd->n; n++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, n, &xb);
		uint64_t i;
		uint32_t dev = x->dev, pid = x->pid, bytes;
		int64_t t, sector;
		struct seek_pt *p;

		/* D rows: dispatches with data (a head row has its dispatch's
		 * sector and size); Q rows: queued bios with data */
		if (hd ? !(x->flags & AN_HEAD) || !x->dbytes || x->d == AN_NONE
		       : x->q == AN_NONE || !x->bytes)
			continue;
		i = s->rows++;
		bytes = hd ? x->dbytes : x->bytes;
		t = hd ? x->d : x->q;
		sector = (int64_t)(hd ? x->dsector : x->sector);
		pid_of(s, dev, pid)->bytes += bytes;
		if (i % s->stride)
			continue;
		if (s->n == budget) {
			size_t k = 0;
			s->stride *= 2;
			for (size_t j = 0; j < s->n; j++)
				if (s->pts[j].i % s->stride == 0)
					s->pts[k++] = s->pts[j];
			s->n = k;
			if (i % s->stride)
				continue;
		}
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 4096;
			s->pts = xrealloc(s->pts, s->cap * sizeof(*s->pts));
		}
		p = &s->pts[s->n++];
		p->i = i;
		p->dev = dev;
		p->pid = pid;
		p->bytes = bytes;
		p->w = (x->flags & AN_WRITE) != 0;
		p->t = plot_t(r, t);
		p->sector = (double)sector;
	}
	return 0;
}

struct seek_state {
	struct seek_run *sr;
	size_t nrun;
	uint64_t stride, total;
	int q_any, ranked;
};

static void *seek_start(struct plot_ctx *c)
{
	struct seek_state *st = xcalloc(1, sizeof(*st));

	st->sr = xcalloc(c->nrun, sizeof(*st->sr));
	st->nrun = c->nrun;
	st->stride = 1;
	return st;
}

static void seek_release(void *state)
{
	struct seek_state *st = state;

	for (size_t i = 0; i < st->nrun; i++) {
		free(st->sr[i].pts);
		free(st->sr[i].pb);
	}
	free(st->sr);
	free(st);
}

static int seek_add(void *state, struct plot_ctx *c, size_t i,
		    const struct rundata *rd, char *why, size_t whylen)
{
	struct seek_state *st = state;
	struct seek_run *s = &st->sr[i];

	if (seek_read(c, &c->runs[i], s, rd, SEEK_MAX_POINTS / c->nrun))
		return -1;
	if (!s->rows) {
		snprintf(why, whylen, "run '%s' has no requests with data",
			 c->runs[i].rv.name);
		return 1;
	}
	st->stride = s->stride > st->stride ? s->stride : st->stride;
	st->total += s->rows;
	st->q_any |= s->from_q;
	return 0;
}

/* Bring the runs' points to one stride, so densities compare, and give
 * each point its process family's colour, the same in every panel and
 * picture of these runs (plot_proc_colour()). Once: a later pass draws
 * the same points. */
static void seek_rank(struct seek_state *st, struct plot_ctx *c)
{
	for (size_t i = 0; i < c->nrun && !st->ranked; i++) {
		struct seek_run *s = &st->sr[i];
		size_t k = 0;
		for (size_t j = 0; j < s->n; j++)
			if (s->pts[j].i % st->stride == 0)
				s->pts[k++] = s->pts[j];
		s->n = k;
		qsort(s->pb, s->npb, sizeof(*s->pb), cmp_pb);
		for (size_t j = 0; j < s->npb; j++)
			s->pb[j].rank = plot_proc_colour(c, i, s->pb[j].pid);
		s->last = 0;
		for (size_t j = 0; j < s->n; j++)
			s->pts[j].rank = pid_of(s, s->pts[j].dev, s->pts[j].pid)->rank;
	}
	st->ranked = 1;
}

/* Count the panels, (run, device) pairs: *npanel drawn (at most
 * SEEK_PANELS), *nleft left out; and their keys' entries (read, write and
 * a process per colour used): *key_rows and *key_chars raised to the
 * tallest and widest key. */
static void seek_count_panels(struct plot_ctx *c, const struct seek_run *sr,
			      size_t *npanel, size_t *nleft, int *key_rows,
			      int *key_chars)
{
	for (size_t i = 0; i < c->nrun; i++) {
		for (size_t j = 0; j < sr[i].npb; j++) {
			int n = 0;
			if (j && sr[i].pb[j].dev == sr[i].pb[j - 1].dev)
				continue;
			if (*npanel >= SEEK_PANELS) {
				(*nleft)++;
				continue;
			}
			(*npanel)++;
			for (size_t k = j; k < sr[i].npb &&
			     sr[i].pb[k].dev == sr[i].pb[j].dev; k++) {
				const char *label = plot_colour_name(c, sr[i].pb[k].rank);
				if (n < PLOT_NCOLOURS + 1)
					n++;
				if ((int)strlen(label) > *key_chars)
					*key_chars = (int)strlen(label);
			}
			if (n + 2 > *key_rows)
				*key_rows = n + 2;
		}
	}
}

/* Draw run i's panel of device dev from s: its title, sector ticks, and a
 * data block and series per colour and direction (points of size rps for
 * reads, wps for writes), a key entry per colour used. */
static void seek_draw_panel(struct plot_ctx *c, struct plot_dat *d,
			    struct plot_gp *g, size_t i, const struct seek_run *s,
			    uint32_t dev, const char *rps, const char *wps)
{
	char buf[256], dn[32];
	double div;

	plot_devname(dev, dn, sizeof(dn));
	snprintf(buf, sizeof(buf), "%s, device %s%s", c->runs[i].label,
		 dn, s->from_q ? " (Q positions: no D in trace)" : "");
	plot_gp_panel(g, buf);
	/* at most ~5 sector ticks, in millions or thousands when
	 * that is shorter: wide tick labels crowd a short panel */
	{
		double lo = INFINITY, hi = -INFINITY, step;
		for (size_t p = 0; p < s->n; p++)
			if (s->pts[p].dev == dev) {
				lo = fmin(lo, s->pts[p].sector);
				hi = fmax(hi, s->pts[p].sector);
			}
		div = hi >= 1e6 ? 1e6 : hi >= 1e4 ? 1e3 : 1;
		step = plot_tick_step((hi - lo) / div);
		plot_gp(g, "set ylabel '%s'\nset ytics %.10g\n",
			div == 1e6 ? "sector (millions)" : div == 1e3 ?
			"sector (thousands)" : "sector", step);
	}
	plot_gp(g, "plot keyentry with points pt 7 ps 0.6 lc rgb 'black'"
		" title 'read', \\\n     keyentry with points pt 2 ps 0.8"
		" lc rgb 'black' title 'write'");
	/* series: colour rank 0..8 (8 = other), then direction */
	for (int rank = 0; rank <= PLOT_NCOLOURS; rank++) {
		char label[64];
		int titled = 0;
		snprintf(label, sizeof(label), "%s",
			 plot_colour_name(c, rank));
		for (int w = 0; w <= 1; w++) {
			int idx;
			snprintf(buf, sizeof(buf), "run %.100s dev %s %s %s",
				 c->runs[i].rv.name, dn, label,
				 w ? "write" : "read");
			plot_dat_block(d, buf);
			for (size_t p = 0; p < s->n; p++) {
				struct seek_pt *pt = &s->pts[p];
				if (pt->dev != dev || pt->w != w ||
				    pt->rank != rank)
					continue;
				plot_dat_row(d, "%.9f %.0f %u %u", pt->t,
					     pt->sector, pt->bytes, pt->pid);
			}
			if ((idx = plot_dat_end(d)) < 0)
				continue;
			plot_gp(g, ", \\\n     dat index %d using 1:($2/%g) with"
				" points pt %s ps %s lc rgb '%s' ", idx, div,
				g->format == PLOT_TXT ? (w ? "'w'" : "'r'")
				: w ? "2" : "7", w ? wps : rps,
				rank < PLOT_NCOLOURS ? plot_colours[rank]
						      : PLOT_GREY);
			plot_gp(g, "notitle");
			if (titled)
				continue;
			/* the key's sample a square big enough to
			 * tell the colour (the points are tiny) */
			plot_gp(g, ", \\\n     keyentry with points pt 5 ps"
				" 0.9 lc rgb '%s' title ", rank < PLOT_NCOLOURS
				? plot_colours[rank] : PLOT_GREY);
			plot_gp_str(g, label);
			titled = 1;
		}
	}
	plot_gp(g, "\n");
}

static int seek_draw(void *state, struct plot_ctx *c, char *why, size_t whylen)
{
	struct seek_state *st = state;
	struct seek_run *sr = st->sr;
	size_t npanel = 0, nleft = 0;
	uint64_t stride = st->stride, total = st->total;
	struct plot_dat d;
	struct plot_gp g;
	char title[512], buf[256];
	const char *rps, *wps;
	size_t kept = 0;
	int rc = 0, q_any = st->q_any, key_rows = 2, key_chars = 6;

	(void)why;
	(void)whylen;
	seek_rank(st, c);

	if (stride > 1)
		snprintf(title, sizeof(title), "seek: sector vs time, 1 in %" PRIu64
			 " points (of %" PRIu64 "); flushes and empty requests"
			 " left out", stride, total);
	else
		snprintf(title, sizeof(title), "seek: sector vs time, every request;"
			 " flushes and empty requests left out");
	snprintf(buf, sizeof(buf),
		 "position of each request over time%s\n"
		 "%s\n"
		 "columns: time_s sector(512 B) bytes pid\n"
		 "blocks: one per run, device, process (top 8 by bytes, then other)"
		 " and direction",
		 stride > 1 ? "" : " (every request)",
		 q_any ? "D rows: dispatch time and sector; Q rows where a run has no D"
		       : "dispatch (D) time and sector of each request");
	seek_count_panels(c, sr, &npanel, &nleft, &key_rows, &key_chars);
	/* a panel tall enough for its key in one column beside it (the
	 * key's entries ~16 px, title, tick labels and the time axis ~110
	 * px) and for sector tick labels that do not touch */
	if (plot_dat_open(&d, c, PLOT_SEEK, buf) ||
	    plot_gp_open(&g, c, PLOT_SEEK, title, (int)npanel,
			 key_rows * 16 + 110 > 220 ? key_rows * 16 + 110 : 220, 0)) {
		plot_dat_close(&d);
		return -1;
	}
	if (stride > 1)
		plot_dat_comment(&d, "sampled: 1 in %" PRIu64 " rows kept", stride);

	plot_gp_panels(&g, (int)npanel, 1, title);
	plot_gp_margins(&g, key_chars);
	/* dense pictures need smaller points */
	for (size_t i = 0; i < c->nrun; i++)
		kept += sr[i].n;
	rps = kept > 50000 ? "0.2" : kept > 5000 ? "0.3" : "0.45";
	wps = kept > 50000 ? "0.3" : kept > 5000 ? "0.45" : "0.6";
	plot_gp(&g, "set xlabel 'time (s)'\n"
		"set format y '%%.10g'\nset xrange [%.9g:%.9g]\n",
		c->x0, c->x1 > c->x0 ? c->x1 : c->x0 + 1e-3);
	if (g.format == PLOT_TXT)   /* mono: letters tell reads from writes */
		plot_gp(&g, "set key off\nset label 'r read, w write' at graph 0.02,"
			" graph 1.04 left\n");

	npanel = 0;
	for (size_t i = 0; i < c->nrun; i++) {
		struct seek_run *s = &sr[i];
		for (size_t j = 0; j < s->npb; j++) {
			uint32_t dev = s->pb[j].dev;
			if (j && dev == s->pb[j - 1].dev)
				continue;
			if (npanel++ >= SEEK_PANELS)
				continue;
			seek_draw_panel(c, &d, &g, i, s, dev, rps, wps);
		}
	}
	if (nleft && !c->dat_written)   /* said once, not per pass */
		warning("seek: %zu more device panels left out (at most %d)",
			nleft, SEEK_PANELS);
	rc = plot_dat_close(&d);
	if (plot_gp_close(&g))
		rc = -1;
	return rc;
}

const struct plot_kind_ops plot_kind_seek = {
	"seek", seek_start, seek_add, seek_draw, seek_release,
};

/* ============================ tput and qd ============================= */

struct bins {
	double w, b0;        /* width and first bin's start, s */
	size_t n;
	char text[32];       /* "25 ms" */
};

static void bins_init(const struct plot_ctx *c, struct bins *b)
{
	double span = c->x1 - c->x0;

	b->w = plot_bin_width(span, TIME_BINS, b->text, sizeof(b->text));
	b->b0 = floor(c->x0 / b->w) * b->w;
	b->n = (size_t)floor((c->x1 - b->b0) / b->w) + 1;
}

static size_t bin_of(const struct bins *b, double t)
{
	double k = floor((t - b->b0) / b->w);

	if (k < 0)
		return 0;
	if (k >= (double)b->n)
		return b->n - 1;
	return (size_t)k;
}

struct tput_state {
	struct bins b;
	double *acc;        /* per run: bins x {rbytes, wbytes, rn, wn} */
};

static void *tput_start(struct plot_ctx *c)
{
	struct tput_state *st = xcalloc(1, sizeof(*st));

	bins_init(c, &st->b);
	st->acc = xcalloc(c->nrun * st->b.n * 4, sizeof(*st->acc));
	return st;
}

static void tput_release(void *state)
{
	struct tput_state *st = state;

	free(st->acc);
	free(st);
}

static int tput_add(void *state, struct plot_ctx *c, size_t i,
		    const struct rundata *rd, char *why, size_t whylen)
{
	struct tput_state *st = state;
	struct plot_run *r = &c->runs[i];
	double *a = st->acc + i * st->b.n * 4;
	uint64_t rows = 0;
	int hd;

	if ((hd = has_dispatches(c, r)) < 0)
		return -1;
	for (size_t n = 0; n < rd->n; n++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, n, &xb);
		size_t k;
		int w;
		/* as report: dispatches by direction, or completed bios
		 * when the trace has no D */
		if (x->c == AN_NONE ||
		    (hd ? !(x->flags & AN_HEAD) : x->q == AN_NONE ||
			  x->d != AN_NONE || (x->flags & AN_SPLIT)))
			continue;
		k = bin_of(&st->b, plot_t(r, x->c));
		w = (x->flags & AN_WRITE) != 0;
		/* a head row has its dispatch's size */
		a[k * 4 + w] += (double)(hd ? x->dbytes : x->bytes);
		a[k * 4 + 2 + w] += 1;
		rows++;
	}
	if (!rows) {
		snprintf(why, whylen, "run '%s' has no completed requests",
			 r->rv.name);
		return 1;
	}
	return 0;
}

/* tput's small multiples: a row per run (its label the panels' title), MB/s
 * and IOPS side by side, every panel on the same axes (y up to top[0] MB/s
 * and top[1] IOPS), reads and writes in the same two colours throughout. */
static int tput_multiples(struct plot_ctx *c, struct plot_gp *g,
			  const struct bins *b, const int *idx, const double *top,
			  const char *title)
{
	char t[300];

	plot_gp_panels(g, (int)c->nrun, 2, title);
	/* margins fixed, so every panel's axes line up; the key once, in
	 * the first row (txt: a page a panel, each with its key) */
	plot_gp_margins(g, 0);
	plot_gp(g, "set xlabel 'time (s)'\nset xrange [%.9g:%.9g]\n%s", b->b0,
		b->b0 + b->n * b->w, g->format == PLOT_TXT ? "" :
		"set key inside top right opaque\n");
	for (size_t i = 0; i < c->nrun; i++)
		for (int panel = 0; panel < 2; panel++) {
			snprintf(t, sizeof(t), "%s: %s", c->runs[i].label, panel ?
				 "IOPS" : "MB/s");
			plot_gp_panel(g, t);
			if (i == 1 && g->format != PLOT_TXT)
				plot_gp(g, "unset key\n");
			plot_gp(g, "set ylabel '%s'\nset yrange [0:%.6g]\n"
				"set ytics %.6g\nplot ", panel ? "IOPS" : "MB/s",
				top[panel] > 0 ? top[panel] * 1.05 : 1,
				plot_tick_step(top[panel] > 0 ? top[panel] : 1));
			if (idx[i] < 0) {   /* nothing completed in the window */
				plot_gp(g, "NaN notitle\n");
				continue;
			}
			for (int w = 0; w <= 1; w++)
				plot_gp(g, "%sdat index %d using 1:%d with histeps lw 1.2"
					" lc rgb '%s' title '%s'", w ? ", \\\n     " : "",
					idx[i], 2 + 2 * panel + w, plot_colours[w],
					w ? "write" : "read");
			plot_gp(g, "\n");
		}
	return 0;
}

static int tput_draw(void *state, struct plot_ctx *c, char *why, size_t whylen)
{
	struct tput_state *st = state;
	struct bins b = st->b;
	struct plot_dat d;
	struct plot_gp g;
	const double *acc = st->acc;
	int *idx = xcalloc(c->nrun, sizeof(*idx));
	char title[256], buf[512];
	int rc = 0, multi = plot_multiples(c);
	double top[2] = { 0, 0 };   /* the largest MB/s and IOPS of any run */

	(void)why;
	(void)whylen;
	snprintf(title, sizeof(title), "throughput: completions in bins of %s"
		 " (MB = 10^6 bytes)", b.text);
	snprintf(buf, sizeof(buf),
		 "read and write throughput over time, from completions (C) of\n"
		 "dispatched requests (completed bios when a run has no D)\n"
		 "bins of %s (%.9g s); time_s is the bin's middle\n"
		 "columns: time_s read_MB/s write_MB/s read_IOPS write_IOPS\n"
		 "blocks: one per run", b.text, b.w);
	if (plot_dat_open(&d, c, PLOT_TPUT, buf) ||
	    (multi ? plot_gp_open(&g, c, PLOT_TPUT, title, (int)c->nrun,
				  PLOT_CELL_PX, 0)
		   : plot_gp_open(&g, c, PLOT_TPUT, title, 2,
				  (int)(26 * c->nrun) + 100, 0))) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < c->nrun; i++) {
		const struct plot_run *r = &c->runs[i];
		const double *a = acc + i * b.n * 4;
		size_t k0 = bin_of(&b, r->t0), k1 = bin_of(&b, r->t1);
		snprintf(buf, sizeof(buf), "run %s", r->rv.name);
		plot_dat_block(&d, buf);
		for (size_t k = k0; k <= k1; k++) {
			plot_dat_row(&d, "%.9g %.6g %.6g %.6g %.6g",
				     b.b0 + (k + 0.5) * b.w, a[k * 4] / 1e6 / b.w,
				     a[k * 4 + 1] / 1e6 / b.w, a[k * 4 + 2] / b.w,
				     a[k * 4 + 3] / b.w);
			for (int j = 0; j < 4; j++)
				top[j / 2] = fmax(top[j / 2], a[k * 4 + j] /
						  (j < 2 ? 1e6 : 1) / b.w);
		}
		idx[i] = plot_dat_end(&d);
	}
	if (multi) {
		rc = tput_multiples(c, &g, &b, idx, top, title);
		goto close;
	}
	plot_gp_panels(&g, 2, 1, title);
	plot_gp_margins(&g, plot_label_chars(c) + 6);
	plot_gp(&g, "set xlabel 'time (s)'\nset xrange [%.9g:%.9g]\n"
		"set yrange [0:*]\n", b.b0, b.b0 + b.n * b.w);
	for (int panel = 0; panel < 2; panel++) {
		plot_gp_panel(&g, panel ? "IOPS" : "MB/s");
		plot_gp(&g, "set ylabel '%s'\nplot ", panel ? "IOPS" : "MB/s");
		for (size_t i = 0; i < c->nrun; i++)
			for (int w = 0; w <= 1; w++) {
				char t[128];
				snprintf(t, sizeof(t), "%s%s%s",
					 c->nrun > 1 ? c->runs[i].label : "",
					 c->nrun > 1 ? " " : "", w ? "write" : "read");
				plot_gp(&g, "%sdat index %d using 1:%d with histeps"
					" lw 1.5 dt %zu lc rgb '%s' title ",
					i || w ? ", \\\n     " : "", idx[i],
					2 + 2 * panel + w, i % 5 + 1,
					plot_colours[(2 * i + w) % PLOT_NCOLOURS]);
				plot_gp_str(&g, t);
			}
		plot_gp(&g, "\n");
	}
close:
	if (plot_dat_close(&d))
		rc = -1;
	if (plot_gp_close(&g))
		rc = -1;
out:
	free(idx);
	return rc;
}

const struct plot_kind_ops plot_kind_tput = {
	"tput", tput_start, tput_add, tput_draw, tput_release,
};

struct qd_series {
	size_t run;
	uint32_t dev;
	double *busy;        /* per bin: in-flight request-seconds */
};

struct qd_state {
	struct bins b;
	struct qd_series *qs;
	size_t nqs;
};

static void *qd_start(struct plot_ctx *c)
{
	struct qd_state *st = xcalloc(1, sizeof(*st));

	bins_init(c, &st->b);
	return st;
}

static void qd_release(void *state)
{
	struct qd_state *st = state;

	for (size_t q = 0; q < st->nqs; q++)
		free(st->qs[q].busy);
	free(st->qs);
	free(st);
}

static int qd_add(void *state, struct plot_ctx *c, size_t i,
		  const struct rundata *rd, char *why, size_t whylen)
{
	struct qd_state *st = state;
	struct bins *b = &st->b;
	struct plot_run *r = &c->runs[i];
	size_t first = st->nqs, last = st->nqs;
	uint64_t rows = 0;

	for (size_t n = 0; n < rd->n; n++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, n, &xb);
		uint32_t dev = x->dev;
		double t0, t1, *busy;
		size_t k0, k1;

		if (!(x->flags & AN_HEAD) || x->d == AN_NONE ||
		    x->c == AN_NONE || x->c < x->d)
			continue;
		t0 = plot_t(r, x->d);
		t1 = plot_t(r, x->c);
		k0 = bin_of(b, t0);
		k1 = bin_of(b, t1);

		if (last == st->nqs || st->qs[last].dev != dev) {
			for (last = first; last < st->nqs && st->qs[last].dev != dev; last++)
				;
			if (last == st->nqs) {
				st->qs = xrealloc(st->qs, (st->nqs + 1) * sizeof(*st->qs));
				st->qs[st->nqs].run = i;
				st->qs[st->nqs].dev = dev;
				st->qs[st->nqs].busy = xcalloc(b->n, sizeof(double));
				st->nqs++;
			}
		}
		busy = st->qs[last].busy;
		/* spread [t0, t1] over the bins it overlaps */
		for (size_t k = k0; k <= k1; k++) {
			double lo = b->b0 + k * b->w, hi = lo + b->w;
			double a = t0 > lo ? t0 : lo, z = t1 < hi ? t1 : hi;
			if (k == b->n - 1)
				z = t1;   /* the last bin takes the rest */
			if (k == 0 && t0 < lo)
				a = t0;
			if (z > a)
				busy[k] += z - a;
		}
		rows++;
	}
	if (!rows) {
		snprintf(why, whylen, "run '%s' has no dispatches with"
			 " completions", r->rv.name);
		return 1;
	}
	return 0;
}

static int qd_draw(void *state, struct plot_ctx *c, char *why, size_t whylen)
{
	struct qd_state *st = state;
	struct bins b = st->b;
	struct plot_dat d;
	struct plot_gp g;
	const struct qd_series *qs = st->qs;
	size_t nqs = st->nqs;
	int *idx = NULL;
	char title[256], buf[512], dn[32];
	int rc = 0;

	(void)why;
	(void)whylen;
	snprintf(title, sizeof(title), "requests in flight at the device (D to C),"
		 " mean over bins of %s", b.text);
	snprintf(buf, sizeof(buf),
		 "requests in flight at each device (dispatched, not completed),\n"
		 "time-averaged over bins of %s (%.9g s); time_s is the bin's middle\n"
		 "columns: time_s in_flight\n"
		 "blocks: one per run and device", b.text, b.w);
	if (plot_dat_open(&d, c, PLOT_QD, buf) ||
	    plot_gp_open(&g, c, PLOT_QD, title, 1, (int)(13 * nqs) + 100, 0)) {
		rc = -1;
		goto out;
	}
	idx = xcalloc(nqs, sizeof(*idx));
	for (size_t q = 0; q < nqs; q++) {
		const struct plot_run *r = &c->runs[qs[q].run];
		size_t k0 = bin_of(&b, r->t0), k1 = bin_of(&b, r->t1);
		plot_devname(qs[q].dev, dn, sizeof(dn));
		snprintf(buf, sizeof(buf), "run %s dev %s", r->rv.name, dn);
		plot_dat_block(&d, buf);
		for (size_t k = k0; k <= k1; k++)
			plot_dat_row(&d, "%.9g %.6g", b.b0 + (k + 0.5) * b.w,
				     qs[q].busy[k] / b.w);
		idx[q] = plot_dat_end(&d);
	}
	plot_gp(&g, "set title ");
	plot_gp_str(&g, title);
	plot_gp(&g, "\nset xlabel 'time (s)'\nset ylabel 'requests in flight'\n"
		"set xrange [%.9g:%.9g]\nset yrange [0:*]\nplot ", b.b0,
		b.b0 + b.n * b.w);
	for (size_t q = 0; q < nqs; q++) {
		char t[128];
		plot_devname(qs[q].dev, dn, sizeof(dn));
		snprintf(t, sizeof(t), "%s%s%s", c->nrun > 1 ? c->runs[qs[q].run].label
			 : "", c->nrun > 1 ? " " : "", dn);
		plot_gp(&g, "%sdat index %d using 1:2 with histeps lw 1.5 lc rgb '%s'"
			" title ", q ? ", \\\n     " : "", idx[q],
			plot_colours[q % PLOT_NCOLOURS]);
		plot_gp_str(&g, t);
	}
	plot_gp(&g, "\n");
	rc = plot_dat_close(&d);
	if (plot_gp_close(&g))
		rc = -1;
out:
	free(idx);
	return rc;
}

const struct plot_kind_ops plot_kind_qd = {
	"qd", qd_start, qd_add, qd_draw, qd_release,
};
