/* The bar-chart kinds: procs (each process's share of bytes queued and of
 * device busy time) and compare (headline figures of several runs from
 * report_build, as % change against the first run). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "lib/util.h"
#include "plots/plot_int.h"

/* ================================ procs =============================== */

#define PROCS_TOP 8

struct pshare {
	uint32_t pid;
	double bytes, busy_ns;
};

static int cmp_pshare(const void *a, const void *b)
{
	const struct pshare *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_pid(const void *a, const void *b)
{
	const struct pshare *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Each process of run r (by pid, into *out, *n; malloc'd) from rd: the
 * bytes it queued (bios with a Q, and split halves) and its dispatches'
 * D2C summed. */
static void procs_read(const struct rundata *rd, struct pshare **out, size_t *n)
{
	struct pacc { uint32_t pid; int used; uint64_t bytes; int64_t busy; };
	struct pacc *h = NULL;
	size_t cap = 256, used = 0;

	*out = NULL;
	*n = 0;
	h = xcalloc(cap, sizeof(*h));
	for (size_t j = 0; j < rd->n; j++) {
		struct an_io xb;
		const struct an_io *x = rundata_io(rd, j, &xb);
		size_t k;
		if (2 * (used + 1) > cap) {   /* grow the pid table */
			struct pacc *old = h;
			h = xcalloc(cap * 2, sizeof(*h));
			for (size_t i = 0; i < cap; i++)
				if (old[i].used) {
					for (k = (old[i].pid * 2654435761u) & (2 * cap - 1);
					     h[k].used; k = (k + 1) & (2 * cap - 1))
						;
					h[k] = old[i];
				}
			free(old);
			cap *= 2;
		}
		for (k = (x->pid * 2654435761u) & (cap - 1);
		     h[k].used && h[k].pid != x->pid; k = (k + 1) & (cap - 1))
			;
		if (!h[k].used) {
			h[k].used = 1;
			h[k].pid = x->pid;
			used++;
		}
		if (x->q != AN_NONE || (x->flags & AN_SPLIT))
			h[k].bytes += x->bytes;
		if ((x->flags & AN_HEAD) && x->d != AN_NONE &&
		    x->c != AN_NONE && x->c >= x->d)
			h[k].busy += x->c - x->d;
	}
	*out = xcalloc(used ? used : 1, sizeof(**out));
	for (size_t k = 0; k < cap; k++)
		if (h[k].used) {
			(*out)[*n].pid = h[k].pid;
			(*out)[*n].bytes = (double)h[k].bytes;
			(*out)[*n].busy_ns = (double)h[k].busy;
			(*n)++;
		}
	free(h);
	qsort(*out, *n, sizeof(**out), cmp_pid);
}

/* Each run's processes (procs_read()), by run. */
struct procs_state {
	struct pshare **ps;
	size_t *n, nrun;
};

static void *procs_start(struct plot_ctx *c)
{
	struct procs_state *st = xcalloc(1, sizeof(*st));

	st->ps = xcalloc(c->nrun, sizeof(*st->ps));
	st->n = xcalloc(c->nrun, sizeof(*st->n));
	st->nrun = c->nrun;
	return st;
}

static void procs_release(void *state)
{
	struct procs_state *st = state;

	for (size_t i = 0; i < st->nrun; i++)
		free(st->ps[i]);
	free(st->ps);
	free(st->n);
	free(st);
}

static int procs_add(void *state, struct plot_ctx *c, size_t i,
		     const struct rundata *rd, char *why, size_t whylen)
{
	struct procs_state *st = state;
	double tb = 0;

	procs_read(rd, &st->ps[i], &st->n[i]);
	for (size_t k = 0; k < st->n[i]; k++)
		tb += st->ps[i][k].bytes;
	if (!(tb > 0)) {
		snprintf(why, whylen, "run '%s' has no queued bytes",
			 c->runs[i].rv.name);
		return 1;
	}
	return 0;
}

/* A label without double quotes (they end a gnuplot data column). */
static void clean_label(char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < ' ')
			*s = '\'';
}

static int procs_draw(void *state, struct plot_ctx *c, char *why, size_t whylen)
{
	struct procs_state *st = state;
	struct plot_dat d;
	struct plot_gp g;
	char buf[512], title[256];
	int rc = 0, nrows = 0, no_busy = 0;

	snprintf(buf, sizeof(buf),
		 "each process's share of its run's bytes queued (Q, as iotape\n"
		 "report counts them) and of device busy time (sum of D2C of the\n"
		 "requests it dispatched); top %d by bytes per run, then other\n"
		 "columns: \"label\" bytes_pct busy_pct MB busy_s", PROCS_TOP);
	if (plot_dat_open(&d, c, PLOT_PROCS, buf))
		return -1;
	plot_dat_block(&d, "all runs");
	for (size_t i = 0; i < c->nrun && !rc; i++) {
		struct plot_run *r = &c->runs[i];
		struct pshare *ps, other = { 0, 0, 0 };
		size_t n = st->n[i];
		double tb = 0, tbusy = 0;

		/* a copy: a later pass sorts the same rows again */
		ps = xcalloc(n ? n : 1, sizeof(*ps));
		memcpy(ps, st->ps[i], n * sizeof(*ps));
		for (size_t k = 0; k < n; k++) {
			tb += ps[k].bytes;
			tbusy += ps[k].busy_ns;
		}
		if (!(tb > 0)) {
			snprintf(why, whylen, "run '%s' has no queued bytes", r->rv.name);
			free(ps);
			rc = 1;
			break;
		}
		no_busy |= !(tbusy > 0);
		qsort(ps, n, sizeof(*ps), cmp_pshare);
		for (size_t k = PROCS_TOP; k < n; k++) {
			other.bytes += ps[k].bytes;
			other.busy_ns += ps[k].busy_ns;
		}
		for (size_t k = 0; k < n && k <= PROCS_TOP; k++) {
			struct pshare *p = k < PROCS_TOP ? &ps[k] : &other;
			char label[160], who[64];
			if (k == PROCS_TOP)
				snprintf(label, sizeof(label), "%s%sother (%zu)",
					 c->nrun > 1 ? r->label : "", c->nrun > 1 ? ": " : "",
					 n - PROCS_TOP);
			else {
				plot_proc_label(&r->rv, p->pid, who, sizeof(who));
				snprintf(label, sizeof(label), "%.80s%s%s",
					 c->nrun > 1 ? r->label : "", c->nrun > 1 ? ": " : "",
					 who);
			}
			clean_label(label);
			plot_dat_row(&d, "\"%s\" %.6g %.6g %.6g %.6g", label,
				     100 * p->bytes / tb,
				     tbusy > 0 ? 100 * p->busy_ns / tbusy : 0,
				     p->bytes / 1e6, p->busy_ns / 1e9);
			nrows++;
		}
		free(ps);
	}
	if (!rc)
		plot_dat_end(&d);
	if (plot_dat_close(&d) && !rc)
		rc = -1;
	if (rc)
		return rc;

	snprintf(title, sizeof(title), "processes: share of bytes and of busy"
		 " time%s", no_busy ? " (no D in a trace: busy 0)" : "");
	/* a bar pair ~18 px (two lines each in txt: bytes and busy time
	 * apart, and no two labels on one line) */
	if (plot_gp_open(&g, c, PLOT_PROCS, title, 1, 18 * nrows + 140,
			 2 * nrows + 10))
		return -1;
	/* horizontal bars: the processes' names read across, also in txt */
	plot_gp(&g, "set title ");
	plot_gp_str(&g, title);
	/* txt: fixed margins and a range a line above the first bar and
	 * below the last, so each process gets exactly two lines (the plot
	 * spans 2 * nrows + 1 lines between its borders, half a unit
	 * each), its bytes on the first and its busy time on the second */
	if (g.format == PLOT_TXT)
		plot_gp(&g, "\nset tmargin 3\nset bmargin 5");
	plot_gp(&g, "\nset style fill solid 0.8 border -1\n"
		"set xrange [0:100]\nset xlabel '%% of the run'\n"
		"set yrange [%g:%g]\nset ytics scale 0 nomirror\n"
		"set grid noytics\nset key %s\n"
		"plot dat using (column(2)/2):(-$0+0.25):(column(2)/2):(0.2):ytic(1)"
		" with boxxyerror lc rgb '%s' title 'bytes', \\\n"
		"     dat using (column(3)/2):(-$0-0.25):(column(3)/2):(0.2)"
		" with boxxyerror lc rgb '%s' title 'busy time'\n",
		g.format == PLOT_TXT ? -nrows + 0.25 : -nrows + 0.5,
		g.format == PLOT_TXT ? 0.75 : 0.5,
		g.format == PLOT_TXT ? "below" : "outside right top",
		plot_colours[0], plot_colours[3]);
	return plot_gp_close(&g);
}

const struct plot_kind_ops plot_kind_procs = {
	"procs", procs_start, procs_add, procs_draw, procs_release,
};

/* =============================== compare ============================== */

void plot_headline_of(const struct runview *rv, const struct rundata *rd,
		      const struct report *r, double v[PLOT_NHEAD])
{
	double span = (double)r->span_ns / 1e9;
	uint64_t ios = 0, bytes[2] = { 0, 0 };

	for (size_t i = 0; i < r->ndev; i++) {
		const struct dev_stats *ds = &r->devs[i];
		int c_only = !(ds->dir[0].ios + ds->dir[1].ios);
		for (int w = 0; w < 2; w++) {
			ios += dir_ios(&ds->dir[w], c_only);
			bytes[w] += dir_bytes(&ds->dir[w], c_only);
		}
	}
	v[PLOT_H_ELAPSED] = rd->elapsed_from_cmds ? rundata_elapsed_s(rd) : NAN;
	v[PLOT_H_SPAN] = rv->last_event ? span : NAN;
	v[PLOT_H_READ_MBS] = span > 0 ? (double)bytes[0] / 1e6 / span : 0;
	v[PLOT_H_WRITE_MBS] = span > 0 ? (double)bytes[1] / 1e6 / span : 0;
	v[PLOT_H_IOPS] = span > 0 ? (double)ios / span : 0;
	v[PLOT_H_Q2C_MEAN] = r->all_q2c.n ? hist_mean(&r->all_q2c) / 1e3 : NAN;
	v[PLOT_H_Q2C_P99] = r->all_q2c.n ? hist_pct(&r->all_q2c, 99) / 1e3 : NAN;
	v[PLOT_H_D2C_MEAN] = r->all_d2c.n ? hist_mean(&r->all_d2c) / 1e3 : NAN;
	v[PLOT_H_D2C_P99] = r->all_d2c.n ? hist_pct(&r->all_d2c, 99) / 1e3 : NAN;
}

const char *const plot_headline_names[PLOT_NHEAD] = {
	"elapsed s", "trace span s", "read MB/s", "write MB/s", "IOPS",
	"Q2C mean us", "Q2C p99 us",
	"D2C mean us", "D2C p99 us",
};

/* For 80 columns: at most 8 characters each. */
static const char *const short_names[PLOT_NHEAD] = {
	"elapsed", "span s", "rd MB/s", "wr MB/s", "IOPS", "Q2C avg", "Q2C p99", "D2C avg", "D2C p99",
};

const int plot_headline_lower_better[PLOT_NHEAD] = { 1, 1, 0, 0, 0, 1, 1, 1, 1 };

double plot_pct_change(double base, double v)
{
	if (isnan(base) || isnan(v) || base == 0)
		return NAN;
	return 100.0 * (v - base) / base;
}

/* v in at most 6 characters for a tick label: 3 significant digits, whole
 * numbers up to 99999, then k and M ("5271", "27.4", "1.2M"); "-" for
 * none. */
static void short_value(char *out, size_t len, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(out, len, "-");
	else if (a >= 1e8)
		snprintf(out, len, "%.0fM", v / 1e6);
	else if (a >= 1e6)
		snprintf(out, len, "%.3gM", v / 1e6);
	else if (a >= 1e5)
		snprintf(out, len, "%.0fk", v / 1e3);
	else if (a >= 100)
		snprintf(out, len, "%.0f", v);
	else
		snprintf(out, len, "%.3g", v);
}

/* Write the compare data: a row per figure in shown[0..nshown) with each
 * run's value, each later run's % change against the first, and 1 when
 * lower is better. *lo and *hi widen to the changes' range. Returns 0 or
 * -1 on an error (said). */
static int compare_write_dat(struct plot_ctx *c, const double (*v)[PLOT_NHEAD],
			     const int *shown, int nshown, double *lo, double *hi)
{
	struct plot_dat d;
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "headline figures of each run (iotape report's numbers: MB/s and\n"
		 "IOPS over the run's span, MB = 10^6 bytes; Q2C and D2C over all\n"
		 "devices, us) and the %% change of each later run against '%s'\n"
		 "columns: \"figure\" then each run's value, then each later run's"
		 " %% change,\nthen 1 when lower is better (latency)",
		 c->runs[0].rv.name);
	if (plot_dat_open(&d, c, PLOT_COMPARE, buf))
		return -1;
	for (size_t i = 0; i < c->nrun; i++)
		plot_dat_comment(&d, "run %zu: '%s'", i + 1, c->runs[i].rv.name);
	plot_dat_block(&d, "figures");
	for (int x = 0; x < nshown; x++) {
		int h = shown[x];
		int len = snprintf(buf, sizeof(buf), "\"%s\"", plot_headline_names[h]);
		for (size_t i = 0; i < c->nrun; i++)
			len += snprintf(buf + len, sizeof(buf) - len, isnan(v[i][h])
					? " ?" : " %.6g", v[i][h]);
		for (size_t i = 1; i < c->nrun; i++) {
			double p = plot_pct_change(v[0][h], v[i][h]);
			len += snprintf(buf + len, sizeof(buf) - len, isnan(p) ? " ?"
					: " %.4g", p);
			if (!isnan(p)) {
				*lo = fmin(*lo, p);
				*hi = fmax(*hi, p);
			}
		}
		len += snprintf(buf + len, sizeof(buf) - len, " %d",
				plot_headline_lower_better[h]);
		plot_dat_row(&d, "%s", buf);
	}
	plot_dat_end(&d);
	return plot_dat_close(&d) ? -1 : 0;
}

/* Name the bars' groups on the x axis, a figure each: with two runs (but
 * in text) the two values under the name; short names in text. */
static void compare_xtics(struct plot_gp *g, struct plot_ctx *c,
			  const double (*v)[PLOT_NHEAD], const int *shown,
			  int nshown)
{
	char buf[1024];

	for (int x = 0; x < nshown; x++) {
		int h = shown[x];
		/* two runs: the values under the name */
		if (c->nrun == 2 && g->format != PLOT_TXT) {
			char a[16], b[16];
			short_value(a, sizeof(a), v[0][h]);
			short_value(b, sizeof(b), v[1][h]);
			snprintf(buf, sizeof(buf), "%s\n%s -> %s",
				 plot_headline_names[h], a, b);
		}
		else
			snprintf(buf, sizeof(buf), "%s", g->format == PLOT_TXT ?
				 short_names[h] : plot_headline_names[h]);
		plot_gp(g, "%s", x ? ", " : "");
		plot_gp_dstr(g, buf);
		plot_gp(g, " %d", x);
	}
}

/* The plot command: a bar per later run and figure (two runs: green
 * better, red worse; more: a colour per run, keyed), bw wide, with its %
 * change over it; lo and hi the changes' range (for the labels' offset). */
static void compare_plot_bars(struct plot_gp *g, struct plot_ctx *c,
			      double bw, double lo, double hi)
{
	plot_gp(g, "plot ");
	for (size_t i = 1; i < c->nrun; i++) {
		int col = 1 + (int)c->nrun + (int)i;
		double off = ((double)i - 1 - (double)(c->nrun - 2) / 2) * bw;
		if (c->nrun == 2) {
			/* one run against another: green better, red worse */
			int lb = 2 * (int)c->nrun + 1;
			plot_gp(g, "dat using ($0%+.4f):%d:(%.4f):((column(%d) <= 0)"
				" == (column(%d) == 1) ? 0x2ca02c : 0xd62728) with boxes"
				" lc rgb variable ", off, col, bw, col, lb);
			plot_gp(g, "notitle");   /* the title names it */
		} else {
			plot_gp(g, "%sdat using ($0%+.4f):%d:(%.4f) with boxes lc"
				" rgb '%s' title ", i > 1 ? ", \\\n     " : "", off,
				col, bw, plot_colours[(i - 1) % PLOT_NCOLOURS]);
			plot_gp_str(g, c->runs[i].label);
		}
		/* the % over each bar: level for up to 2 bars a figure,
		 * turned upright past that (side by side they overlapped);
		 * none in txt past 2, where upright text cannot be drawn */
		if (c->nrun > 3 && g->format == PLOT_TXT)
			continue;
		if (c->nrun <= 3) {
			plot_gp(g, ", \\\n     dat using ($0%+.4f):(column(%d) + "
				"(column(%d) < 0 ? -%.4g : %.4g)):(sprintf('%%+.1f%%%%', "
				"column(%d))) with labels font ',8' notitle", off, col,
				col, (hi - lo) * 0.05, (hi - lo) * 0.05, col);
			continue;
		}
		/* upright: from the bar's end outwards, up or down */
		for (int neg = 0; neg < 2; neg++)
			plot_gp(g, ", \\\n     dat using ($0%+.4f):(column(%d) %s 0 ?"
				" column(%d) %c %.4g : NaN):(sprintf('%%+.1f%%%%', "
				"column(%d))) with labels font ',8' rotate by 90 %s "
				"notitle", off, col, neg ? "<" : ">=", col, neg ? '-' :
				'+', (hi - lo) * 0.01, col, neg ? "right" : "left");
	}
	plot_gp(g, "\n");
}

static int compare_draw(void *state, struct plot_ctx *c, char *why, size_t whylen)
{
	const double (*v)[PLOT_NHEAD] = (const double (*)[PLOT_NHEAD])c->head;
	struct plot_gp g;
	char buf[1024], title[256];
	double lo = 0, hi = 0, bw;
	int shown[PLOT_NHEAD], nshown = 0;

	(void)state;
	if (c->nrun < 2 || !v) {
		snprintf(why, whylen, "needs two or more runs");
		return 1;
	}
	/* the figures some run has (elapsed: only runs that timed commands) */
	for (int h = 0; h < PLOT_NHEAD; h++) {
		int any = 0;
		for (size_t i = 0; i < c->nrun; i++)
			any |= !isnan(v[i][h]);
		if (any)
			shown[nshown++] = h;
	}
	if (compare_write_dat(c, v, shown, nshown, &lo, &hi))
		return -1;

	if (c->nrun == 2)
		snprintf(title, sizeof(title), "%% change of '%.24s' against '%.24s'"
			 " (latency: lower is better)", c->runs[1].rv.name,
			 c->runs[0].rv.name);
	else
		snprintf(title, sizeof(title), "%% change against '%.40s' (latency:"
			 " lower is better)", c->runs[0].rv.name);
	if (plot_gp_open(&g, c, PLOT_COMPARE, title, 1, 0, 0))
		return -1;
	if (hi - lo < 1e-9)
		lo = -1, hi = 1;
	plot_gp(&g, "set title ");
	if (c->nrun == 2 && g.format != PLOT_TXT) {
		snprintf(buf, sizeof(buf), "%s\ngreen: better, red: worse", title);
		plot_gp_dstr(&g, buf);
	} else {
		plot_gp_str(&g, title);
	}
	plot_gp(&g, "\nset datafile missing '?'\nset style fill solid 0.8 border -1\n"
		"set ylabel '%% change'\nset xzeroaxis lt -1\n"
		"set yrange [%.4g:%.4g]\nset xrange [-0.6:%d.6]\nset xtics (",
		lo - (hi - lo) * 0.15, hi + (hi - lo) * 0.15, nshown - 1);
	compare_xtics(&g, c, v, shown, nshown);
	/* two runs: the title names them, colours say better or worse */
	/* more runs: the key in a column beside the bars (below, it ran
	 * into the figures' names) */
	plot_gp(&g, ")\n%s", c->nrun > 2 ? (g.format == PLOT_TXT ? "" :
		"set key outside right top vertical\n") : g.format == PLOT_TXT ?
		"set key off\n" : "set key off\nset bmargin 4\n");
	/* txt: narrower, or neighbours merge into one block of characters */
	bw = (g.format == PLOT_TXT ? 0.6 : 0.8) / (double)(c->nrun - 1);
	compare_plot_bars(&g, c, bw, lo, hi);
	return plot_gp_close(&g);
}

const struct plot_kind_ops plot_kind_compare = {
	"compare", NULL, NULL, compare_draw, NULL,
};
