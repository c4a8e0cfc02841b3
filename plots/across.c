/* The picture of compare --across's table (analyze/crosstab.h): grouped
 * bars, a group per row (filesystem) and a bar per column (kernel), each the
 * median of its runs with an error bar from their min to max, the % change
 * against the first column printed over the bar, marked as compare marks it
 * (a cell of one run, a change within the spread). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/crosstab.h"
#include "lib/util.h"
#include "plots/plot_int.h"

/* s with characters other than letters, digits, '.', '_', '-' made '_',
 * for a file stem. */
static void stem_part(char *out, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++)
		out[i++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			   (*s >= '0' && *s <= '9') || strchr("._-", *s) ? *s : '_';
	out[i] = 0;
}

/* The text over bar (r, c): its % change against the first column with
 * compare's marks; the first column's bar says "base". */
static void bar_label(const struct crosstab *x, int r, int c, char *out,
		      size_t len)
{
	const struct xt_cell *cell = &x->cell[r][c];
	double p = c ? crosstab_pct(cell->median, x->cell[r][0].median) : NAN;

	if (!cell->n)
		snprintf(out, len, "none");
	else if (!c)
		snprintf(out, len, "base%s", cell->n == 1 ? XT_MARK_ONE : "");
	else if (isnan(p))
		snprintf(out, len, "-%s", cell->n == 1 ? XT_MARK_ONE : "");
	else
		snprintf(out, len, "%+.1f%%%s%s", p, cell->n == 1 ? XT_MARK_ONE : "",
			 crosstab_within_spread(x, r, c) ? XT_MARK_WITHIN : "");
}

/* The data: a line per row of x, then per column its median, min, max and
 * the text over its bar (quoted); "?" where a cell has no run. *one: some
 * cell has one run; *within: some change is within the spread; *top: the
 * highest max. Returns 0 or -1 (said). */
static int across_write_dat(struct plot_ctx *c, const struct crosstab *x,
			    int *one, int *within, double *top)
{
	struct plot_dat d;
	char buf[1024], lab[32];

	snprintf(buf, sizeof(buf),
		 "%s%s%s: median of the runs of each cell, min and max, %% change\n"
		 "against %s=%s; rows by %s, columns by %s\n"
		 "columns: row, then per column: median min max label",
		 x->metric, x->unit[0] ? " " : "", x->unit, x->across, x->cols[0],
		 x->group_by ? x->group_by : "(one row)", x->across);
	if (plot_dat_open(&d, c, PLOT_ACROSS, buf))
		return -1;
	plot_dat_block(&d, "the table");
	for (int r = 0; r < x->nrows; r++) {
		int len = snprintf(buf, sizeof(buf), "\"%s\"", x->rows[r]);
		for (int k = 0; k < x->ncols; k++) {
			const struct xt_cell *cell = &x->cell[r][k];
			bar_label(x, r, k, lab, sizeof(lab));
			*one |= cell->n == 1;
			*within |= k && crosstab_within_spread(x, r, k);
			if (cell->n) {
				len += snprintf(buf + len, sizeof(buf) - len,
						" %.10g %.10g %.10g \"%s\"", cell->median,
						cell->min, cell->max, lab);
				*top = fmax(*top, cell->max);
			} else {
				len += snprintf(buf + len, sizeof(buf) - len,
						" ? ? ? \"%s\"", lab);
			}
		}
		plot_dat_row(&d, "%s", buf);
	}
	plot_dat_end(&d);
	return plot_dat_close(&d) ? -1 : 0;
}

/* The marks' footnotes under the picture, when some cell has one run
 * (one) or some change is within the spread (within). */
static void across_footnotes(struct plot_gp *g, int one, int within)
{
	char buf[256];

	if (!one && !within)
		return;
	snprintf(buf, sizeof(buf), "%s%s%s", one ? XT_MARK_ONE " one run: no "
		 "spread known" : "", one && within ? "; " : "", within ?
		 XT_MARK_WITHIN " within the spread: the ranges overlap" : "");
	plot_gp(g, "set label 1 ");
	plot_gp_str(g, buf);
	plot_gp(g, " at screen 0.01, screen 0.02 left\n");
	if (g->format != PLOT_TXT)
		plot_gp(g, "set bmargin 5\n");
}

/* The plot command: a bar series per column of x with its error bars,
 * keyed by the column's value, then the labels over the bars. */
static void across_plot_bars(struct plot_gp *g, const struct crosstab *x)
{
	char buf[1024];

	plot_gp(g, "plot ");
	for (int k = 0; k < x->ncols; k++) {
		plot_gp(g, "%sdat using %d:%d:%d%s lc rgb '%s' title ", k ? ", \\\n     "
			: "", 2 + 4 * k, 3 + 4 * k, 4 + 4 * k, k ? "" : ":xtic(1)",
			plot_colours[k % PLOT_NCOLOURS]);
		/* txt: the key has no room for a bar's sample; the title
		 * names the character the dumb terminal draws it with */
		if (g->format == PLOT_TXT) {
			snprintf(buf, sizeof(buf), "%s (%c)", x->cols[k],
				 "*#$%@&=-"[k % 8]);
			plot_gp_str(g, buf);
		} else {
			plot_gp_str(g, x->cols[k]);
		}
	}
	/* the labels over the bars: a cluster of ncols bars is centred on
	 * the row's x, each bar 1 / (ncols + gap) wide */
	for (int k = 0; k < x->ncols; k++)
		plot_gp(g, ", \\\n     dat using ($0 + %.6g):%d:%d with labels "
			"offset 0,%s notitle", (k - (x->ncols - 1) / 2.0) /
			(x->ncols + 1), 4 + 4 * k, 5 + 4 * k, g->format == PLOT_TXT ?
			"1" : "0.8");
	plot_gp(g, "\n");
}

int plot_across(const struct plot_opts *o, const struct crosstab *x)
{
	struct plot_ctx c;
	struct plot_gp g;
	char title[512], buf[1024], metric[64], rows[64], cols[64];
	char path[PATH_MAX + 256], tmp[240];
	struct plot_made made = { 0 };
	struct stat sb;
	int one = 0, within = 0, is_new, rc;
	double top = 0;

	memset(&c, 0, sizeof(c));
	memset(&g, 0, sizeof(g));
	c.o = o;
	c.dir = o->dir;
	c.format = o->format;
	c.dat_prefix = "";
	stem_part(metric, sizeof(metric), x->metric);
	stem_part(rows, sizeof(rows), x->group_by ? x->group_by : "");
	stem_part(cols, sizeof(cols), x->across);
	if (o->name)
		snprintf(c.stem, sizeof(c.stem), "%s", o->name);
	else
		snprintf(c.stem, sizeof(c.stem), "%.36s%s%.36s-across-%.36s", metric,
			 x->group_by ? "-by-" : "", x->group_by ? rows : "", cols);
	c.made = o->made ? o->made : &made;
	if (plot_make_dir(o->dir, c.made))
		return -1;
	if (across_write_dat(&c, x, &one, &within, &top))
		goto fail;

	snprintf(title, sizeof(title), "%s%s%s%s%s across %s: median of the "
		 "runs, bars min to max, %% change against %s=%s", x->metric,
		 x->unit[0] ? " " : "", x->unit, x->group_by ? " by " : "",
		 x->group_by ? x->group_by : "", x->across, x->across, x->cols[0]);
	if (plot_gp_open(&g, &c, PLOT_ACROSS, title, 1, PLOT_HEIGHT - PLOT_TITLE_PX,
			 0))
		goto fail;
	plot_gp(&g, "set title ");
	if (g.format == PLOT_TXT) {
		/* 80 columns: the title over two lines */
		snprintf(buf, sizeof(buf), "%s%s%s%s%s across %s: median, min-max;"
			 "\n%% change against %s=%s", x->metric, x->unit[0] ? " " :
			 "", x->unit, x->group_by ? " by " : "", x->group_by ?
			 x->group_by : "", x->across, x->across, x->cols[0]);
		plot_gp_dstr(&g, buf);
	} else {
		plot_gp_str(&g, title);
	}
	plot_gp(&g, "\nset datafile missing '?'\n"
		"set style data histogram\n"
		"set style histogram errorbars gap 1 lw 1\n"
		"set style fill %s\n"
		"set boxwidth 0.9 relative\n"
		"set xtics nomirror scale 0\nset xlabel '%s'\n"
		"set ylabel '%s%s%s'\nset yrange [0:%.10g]\n",
		g.format == PLOT_TXT ? "empty" : "solid 0.85 border -1",
		x->group_by ? x->group_by : "", x->metric, x->unit[0] ? ", " : "",
		x->unit, top > 0 ? top * 1.15 : 1);
	plot_gp(&g, "set key %s title '%s'\n", g.format == PLOT_TXT ?
		"below horizontal" : "outside right top vertical", x->across);
	across_footnotes(&g, one, within);
	across_plot_bars(&g, x);
	if (plot_gp_close(&g))
		goto fail;
	snprintf(path, sizeof(path), "%s/%s", o->dir, g.out);
	is_new = lstat(path, &sb) != 0;
	if (plot_picture_tmp(o->dir, g.out, tmp, sizeof(tmp), c.made))
		goto fail;
	if ((rc = plot_picture_draw(o->dir, g.file, tmp, g.out, g.format, buf,
				    sizeof(buf)))) {
		error("%s", buf);
		if (rc == -2) {
			/* no gnuplot: the data and script stay for a later
			 * run, as the error line says */
			plot_made_tmp_clean(c.made);
			if (!o->made)
				plot_made_free(&made);
			return -1;
		}
		goto fail;
	}
	if (is_new)
		plot_made_add(c.made, path, PLOT_MADE_FILE);
	plot_made_tmp_clean(c.made);
	if (!o->made)
		plot_made_free(&made);
	if (o->list)
		fprintf(o->list, "%s/%s\n", o->dir, g.out);
	return 0;
fail:
	/* nothing of a failed picture left behind */
	if (g.fp)
		out_file_discard(&g.of);
	plot_made_tmp_clean(c.made);
	if (!o->made)
		plot_made_undo(&made);
	return -1;
}
