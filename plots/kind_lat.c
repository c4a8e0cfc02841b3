/* The lat kind: Q2C and D2C latency of each run as a histogram (share of
 * I/Os per bin, 20 log-spaced bins per decade) and a CDF, reads and writes
 * apart, on a log-scaled axis in us. Pairs as `iotape report` pairs them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"
#include "lib/util.h"
#include "plots/plot_int.h"

#define PER_DECADE 20
#define NBINS (12 * PER_DECADE + 1)   /* 1 ns .. 1000 s; bin 0 holds < 1 ns */

/* [metric][dir] of one run: metric 0 Q2C, 1 D2C; dir 0 read, 1 write. */
struct lat_run {
	uint64_t counts[2][2][NBINS];
	struct hist h[2][2];
};

static const char *const metric_name[2] = { "Q2C", "D2C" };

static int bin_of(int64_t ns)
{
	int k;

	if (ns < 1)
		return 0;
	k = (int)floor(log10((double)ns) * PER_DECADE) + 1;
	return k < NBINS ? k : NBINS - 1;
}

/* The bin's edges in us. */
static double bin_lo_us(int k)
{
	return k ? pow(10, (k - 1) / (double)PER_DECADE) / 1e3 : 0;
}

static double bin_hi_us(int k)
{
	return pow(10, k / (double)PER_DECADE) / 1e3;
}

struct lat_state {
	struct lat_run *lr;
	size_t nrun;
	int kmin, kmax;
};

static void *lat_start(struct plot_ctx *c)
{
	struct lat_state *st = xcalloc(1, sizeof(*st));

	st->lr = xcalloc(c->nrun, sizeof(*st->lr));
	st->nrun = c->nrun;
	st->kmin = NBINS;
	st->kmax = -1;
	return st;
}

static void lat_release(void *state)
{
	struct lat_state *st = state;

	for (size_t i = 0; i < st->nrun; i++)
		for (int m = 0; m < 2; m++)
			for (int w = 0; w < 2; w++)
				hist_free(&st->lr[i].h[m][w]);
	free(st->lr);
	free(st);
}

static int lat_add(void *state, struct plot_ctx *c, size_t i,
		   const struct rundata *rd, char *why, size_t whylen)
{
	struct lat_state *st = state;
	struct lat_run *lr = &st->lr[i];
	uint64_t n = 0;

	for (size_t j = 0; j < rd->n; j++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, j, &xb);
		int w = (x->flags & AN_WRITE) != 0;
		int64_t cn = x->c, start[2] = { x->q, x->d };
		if (!x->bytes || (x->flags & AN_SPLIT) || cn == AN_NONE)
			continue;
		for (int m = 0; m < 2; m++) {
			int64_t v;
			int k;
			if (start[m] == AN_NONE)
				continue;
			if ((v = cn - start[m]) < 0)
				continue;   /* a clock step: report counts them */
			k = bin_of(v);
			lr->counts[m][w][k]++;
			hist_add(&lr->h[m][w], (uint64_t)v);
			st->kmin = k < st->kmin ? k : st->kmin;
			st->kmax = k > st->kmax ? k : st->kmax;
			n++;
		}
	}
	if (!n) {
		snprintf(why, whylen, "run '%s' has no completed requests"
			 " with data", c->runs[i].rv.name);
		return 1;
	}
	return 0;
}

/* lat's small multiples: a row per run (its label in the panels' titles),
 * the CDF of Q2C and of D2C side by side on the same axes, reads and writes
 * in the same two colours throughout; the key once, in the first row. */
static void lat_multiples(struct plot_ctx *c, struct plot_gp *g,
			  const int has_m[2], const int (*idx)[2][2])
{
	char t[300];

	plot_gp_margins(g, 0);
	plot_gp(g, "set ylabel '%% of I/Os <= x'\nset yrange [0:100]\n"
		"set ytics 25\n%s", g->format == PLOT_TXT ? "set key below\n" :
		"set key inside bottom right opaque\n");
	for (size_t i = 0; i < c->nrun; i++)
		for (int m = 0; m < 2; m++) {
			int first = 1;
			if (!has_m[m])
				continue;
			snprintf(t, sizeof(t), "%s: %s CDF", c->runs[i].label,
				 metric_name[m]);
			plot_gp_panel(g, t);
			if (i == 1 && g->format != PLOT_TXT)
				plot_gp(g, "unset key\n");
			plot_gp(g, "plot ");
			/* the key names both directions, also where a run
			 * has one of them */
			if (i == 0 && g->format != PLOT_TXT) {
				plot_gp(g, "keyentry with steps lw 1.5 lc rgb '%s' title "
					"'read', keyentry with steps lw 1.5 lc rgb '%s' "
					"title 'write'", plot_colours[0], plot_colours[1]);
				first = 0;
			}
			for (int w = 0; w < 2; w++) {
				if (idx[i][m][w] < 0)
					continue;
				plot_gp(g, "%sdat index %d using 2:6 with steps lw 1.5 lc"
					" rgb '%s' ", first ? "" : ", \\\n     ",
					idx[i][m][w], plot_colours[w]);
				if (g->format == PLOT_TXT)
					plot_gp(g, "title '%s'", w ? "write" : "read");
				else
					plot_gp(g, "notitle");
				first = 0;
			}
			plot_gp(g, "%s\n", first ? "NaN notitle" : "");
		}
}

/* Write the histograms into d, a block per run, metric and direction (a
 * row per bin from kmin to kmax: its edges, middle, count, % and CDF);
 * idx[i][m][w] gets each block's index, -1 when empty. */
static void lat_write_dat(struct plot_ctx *c, struct plot_dat *d,
			  const struct lat_run *lr, int kmin, int kmax,
			  int (*idx)[2][2])
{
	char buf[512];

	for (size_t i = 0; i < c->nrun; i++)
		for (int m = 0; m < 2; m++)
			for (int w = 0; w < 2; w++) {
				uint64_t n = lr[i].h[m][w].n, cum = 0;
				snprintf(buf, sizeof(buf), "run %s %s %s", c->runs[i].rv.name,
					 metric_name[m], w ? "write" : "read");
				plot_dat_block(d, buf);
				for (int k = kmin; k <= kmax && n; k++) {
					uint64_t cnt = lr[i].counts[m][w][k];
					double lo = bin_lo_us(k), hi = bin_hi_us(k);
					cum += cnt;
					plot_dat_row(d, "%.6g %.6g %.6g %llu %.6g %.6g", lo, hi,
						     k ? sqrt(lo * hi) : hi / 2,
						     (unsigned long long)cnt,
						     100.0 * (double)cnt / (double)n,
						     100.0 * (double)cum / (double)n);
				}
				idx[i][m][w] = plot_dat_end(d);
			}
}

/* The latency axis's tics from xlo to xhi us (into an open "set xtics ("):
 * at 1, 2 and 5 times the powers of ten in range, or 1 and 3, or the
 * powers alone: as many as fit without their labels running together (a
 * label ~6 characters, ~7 px each in png and svg). npanel: the panels side
 * by side. */
static void lat_xtics(struct plot_ctx *c, struct plot_gp *g, int npanel,
		      double xlo, double xhi)
{
	double decades = fmax(log10(xhi / xlo), 0.5), per_decade, room;
	static const int steps[3][4] = { { 1, 2, 5, 0 }, { 1, 3, 0, 0 },
					 { 1, 0, 0, 0 } };
	int pick, ntics = 0;

	/* a panel's width for the axis: half the picture less margins,
	 * or a dumb page's 80 columns less ~12 */
	room = g->format == PLOT_TXT ? 68 * 7 : g->width / 2.0 - 90;
	if (plot_multiples(c) && g->format != PLOT_TXT)
		room = g->width / (double)npanel - 160;
	per_decade = room / decades;
	/* the closest two tics: 0.30 decades (1, 2, 5), 0.48 (1, 3) */
	pick = per_decade * 0.30 >= 44 ? 0 : per_decade * 0.48 >= 44 ? 1 : 2;
	for (double dec = pow(10, floor(log10(xlo))); dec <= xhi; dec *= 10)
		for (int k = 0; k < 4 && steps[pick][k]; k++) {
			double at = steps[pick][k] * dec;
			char lab[16];
			if (at < xlo || at > xhi)
				continue;
			if (at < 1000)
				snprintf(lab, sizeof(lab), "%gus", at);
			else if (at < 1e6)
				snprintf(lab, sizeof(lab), "%gms", at / 1e3);
			else
				snprintf(lab, sizeof(lab), "%gs", at / 1e6);
			plot_gp(g, "%s'%s' %g", ntics++ ? ", " : "", lab, at);
		}
}

/* lat with the runs overlaid: a row of panels per metric the runs have,
 * histogram and CDF side by side, a line per run and direction (its count,
 * mean and p99 in the histogram's key but in text). */
static void lat_overlaid(struct plot_ctx *c, struct plot_gp *g,
			 const struct lat_run *lr, const int has_m[2],
			 const int (*idx)[2][2])
{
	char buf[512];

	for (int m = 0; m < 2; m++)
		for (int cdf = 0; cdf < 2; cdf++) {
			int first = 1;
			if (!has_m[m])
				continue;   /* e.g. D2C of a trace without D */
			snprintf(buf, sizeof(buf), "%s %s", metric_name[m],
				 cdf ? "CDF" : "histogram");
			plot_gp_panel(g, buf);
			plot_gp(g, "set ylabel '%s'\nset yrange [0:%s]\n%s\nplot ",
				cdf ? "% of I/Os <= x" : "% of I/Os", cdf ? "100" : "*",
				/* below the panel, outside the data, an entry a
				 * line: the titles are long */
				g->format == PLOT_TXT ? "set key below" :
				"set key below vertical maxcols 1 Left reverse");
			for (size_t i = 0; i < c->nrun; i++)
				for (int w = 0; w < 2; w++) {
					const struct hist *h = &lr[i].h[m][w];
					char t[160];
					if (idx[i][m][w] < 0)
						continue;
					snprintf(t, sizeof(t), "%s%s%s n %llu, mean %.0f us, p99 %.0f us",
						 c->nrun > 1 ? c->runs[i].label : "",
						 c->nrun > 1 ? " " : "", w ? "write" : "read",
						 (unsigned long long)h->n, hist_mean(h) / 1e3,
						 hist_pct(h, 99) / 1e3);
					if (g->format == PLOT_TXT || cdf)
						snprintf(t, sizeof(t), "%s%s%s",
							 c->nrun > 1 ? c->runs[i].label : "",
							 c->nrun > 1 ? " " : "",
							 w ? "write" : "read");
					plot_gp(g, "%sdat index %d using %s with %s lw 1.5"
						" dt %zu lc rgb '%s' title ",
						first ? "" : ", \\\n     ", idx[i][m][w],
						cdf ? "2:6" : "3:5", cdf ? "steps" : "histeps",
						i % 5 + 1,
						plot_colours[(2 * i + w) % PLOT_NCOLOURS]);
					plot_gp_str(g, t);
					first = 0;
				}
			plot_gp(g, "\n");
		}
}

static int lat_draw(void *state, struct plot_ctx *c, char *why, size_t whylen)
{
	struct lat_state *st = state;
	struct lat_run *lr = st->lr;
	int kmin = st->kmin, kmax = st->kmax, rc = 0;
	int (*idx)[2][2] = xcalloc(c->nrun, sizeof(*idx)); /* block [m][w] */
	struct plot_dat d;
	struct plot_gp g;
	char buf[512], title[256];
	double xlo, xhi;
	int has_m[2] = { 0, 0 };

	(void)why;
	(void)whylen;
	snprintf(title, sizeof(title), "latency: Q2C and D2C, %d bins per decade",
		 PER_DECADE);
	snprintf(buf, sizeof(buf),
		 "Q2C (queue to completion) and D2C (dispatch to completion) of\n"
		 "each bio with data, paired as iotape report and btt pair them;\n"
		 "%d log-spaced bins per decade; lo_us <= latency < hi_us\n"
		 "columns: lo_us hi_us mid_us count pct_of_ios cdf_pct\n"
		 "blocks: one per run, metric and direction", PER_DECADE);
	for (size_t i = 0; i < c->nrun; i++)
		for (int m = 0; m < 2; m++)
			for (int w = 0; w < 2; w++)
				if (lr[i].h[m][w].n)
					has_m[m] = 1;
	/* keys below the panels, an entry a line (~13 px each): a row of
	 * panels wants ~320 px for the plot and axes, plus its key */
	if (plot_dat_open(&d, c, PLOT_LAT, buf) ||
	    (plot_multiples(c) ? plot_gp_open(&g, c, PLOT_LAT, title, (int)c->nrun,
					      PLOT_CELL_PX, 0)
	     : plot_gp_open(&g, c, PLOT_LAT, title, has_m[0] + has_m[1],
			    320 + 26 * (int)c->nrun, 0))) {
		rc = -1;
		goto out;
	}
	lat_write_dat(c, &d, lr, kmin, kmax, idx);

	if (plot_multiples(c))
		plot_gp_panels(&g, (int)c->nrun, has_m[0] + has_m[1], title);
	else
		plot_gp_panels(&g, has_m[0] + has_m[1], 2, title);
	xlo = bin_lo_us(kmin > 0 ? kmin : 1);
	xhi = bin_hi_us(kmax);
	plot_gp(&g, "set logscale x\nset xlabel 'latency (log scale)'\n"
		"set xrange [%.6g:%.6g]\nset xtics (", xlo, xhi);
	lat_xtics(c, &g, has_m[0] + has_m[1], xlo, xhi);
	plot_gp(&g, ")\n");
	if (plot_multiples(c))
		lat_multiples(c, &g, has_m, idx);
	else
		lat_overlaid(c, &g, lr, has_m, idx);
	rc = plot_dat_close(&d);
	if (plot_gp_close(&g))
		rc = -1;
out:
	free(idx);
	return rc;
}

const struct plot_kind_ops plot_kind_lat = {
	"lat", lat_start, lat_add, lat_draw, lat_release,
};
