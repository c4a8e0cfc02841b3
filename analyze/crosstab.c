/* compare --group-by G --across A (crosstab.h): a metric's medians over
 * repeats in a two-way table, with % change against the first column, for
 * text, Markdown and JSON through one emitter. */
#include "analyze/crosstab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs/manage.h"
#include "analyze/stats.h"
#include "lib/util.h"

double crosstab_pct(double a, double base)
{
	if (!isfinite(a) || !isfinite(base) || base == 0)
		return NAN;
	return 100 * (a - base) / fabs(base);
}

/* A setting of run into out: its settings first (labels, --set values,
 * sysctls), else its row's kernel, host or name for those keys. Returns 1,
 * 0 when the run has none, or a negative store code. */
static int run_value(struct store *st, int64_t run, const char *key,
		     char *out, size_t len)
{
	struct store_run r;
	int rc = store_setting_get(st, run, key, STORE_AT_ANY, out, len);

	if (rc)
		return rc;
	if (strcmp(key, "kernel") && strcmp(key, "host") && strcmp(key, "name"))
		return 0;
	if ((rc = store_run_get(st, run, &r)))
		return rc;
	snprintf(out, len, "%.*s", (int)len - 1, !strcmp(key, "kernel") ?
		 r.kernel : !strcmp(key, "host") ? r.host : r.name);
	return out[0] != '\0';
}

/* The index of v in list (adding it); -1 when the list is full. */
static int slot(char list[][128], int *n, const char *v)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(list[i], v))
			return i;
	if (*n == XT_MAX_VALS)
		return -1;
	snprintf(list[*n], 128, "%s", v);
	return (*n)++;
}

/* The metric of run into *v (and its unit). Returns 1, 0 when the run has
 * none, or a negative store code. */
static int run_metric(struct store *st, int64_t run, const char *name,
		      double *v, char *unit, size_t ulen)
{
	struct store_metric *m;
	size_t n;
	int rc = store_metrics_get(st, run, &m, &n), found = 0;

	if (rc)
		return rc;
	for (size_t i = 0; i < n && !found; i++)
		if (!strcmp(m[i].name, name)) {
			*v = m[i].value;
			snprintf(unit, ulen, "%s", m[i].unit ? m[i].unit : "");
			found = 1;
		}
	free(m);
	return found;
}

static void add_value(struct xt_cell *c, double v)
{
	c->v = xrealloc(c->v, (size_t)(c->n + 1) * sizeof(*c->v));
	c->v[c->n++] = v;
}

int crosstab_load(struct crosstab *x, struct store *st, const int64_t *ids,
		  size_t n, const char *group_by, const char *across,
		  const char *metric, char *err, size_t errlen)
{
	int have_unit = 0;

	memset(x, 0, sizeof(*x));
	x->group_by = group_by;
	x->across = across;
	snprintf(x->metric, sizeof(x->metric), "%s", metric ? metric : "real_s");
	for (size_t i = 0; i < n; i++) {
		char g[128] = "all", a[128], unit[32];
		double v = NAN;
		int r, c, rc;

		if ((rc = run_value(st, ids[i], across, a, sizeof(a))) < 0 ||
		    (rc > 0 && group_by &&
		     (rc = run_value(st, ids[i], group_by, g, sizeof(g))) < 0))
			goto store_err;
		if (!rc) {
			x->no_setting++;
			continue;
		}
		if ((rc = run_metric(st, ids[i], x->metric, &v, unit,
				     sizeof(unit))) < 0)
			goto store_err;
		if (!rc) {
			x->no_metric++;
			continue;
		}
		if ((r = slot(x->rows, &x->nrows, g)) < 0 ||
		    (c = slot(x->cols, &x->ncols, a)) < 0) {
			snprintf(err, errlen, "more than %d values of '%s'",
				 XT_MAX_VALS, r < 0 ? group_by : across);
			return -1;
		}
		if (!have_unit) {
			snprintf(x->unit, sizeof(x->unit), "%s", unit);
			have_unit = 1;
		} else if (strcmp(x->unit, unit)) {
			x->units_differ = 1;
		}
		add_value(&x->cell[r][c], v);
		x->used++;
		continue;
store_err:
		snprintf(err, errlen, "%s", store_errmsg(st));
		return -1;
	}
	if (!x->used) {
		snprintf(err, errlen, "no run has %s%s%s and the metric '%s' (%d "
			 "without the setting%s, %d without the metric; see "
			 "'iotape label' and 'iotape metric')", group_by ? group_by : "",
			 group_by ? " and " : "", across, x->metric, x->no_setting,
			 group_by ? "s" : "", x->no_metric);
		return -1;
	}
	for (int r = 0; r < x->nrows; r++)
		for (int c = 0; c < x->ncols; c++) {
			struct xt_cell *cl = &x->cell[r][c];
			cl->median = median_of(cl->v, cl->n);   /* sorts v */
			cl->min = cl->n ? cl->v[0] : NAN;
			cl->max = cl->n ? cl->v[cl->n - 1] : NAN;
		}
	return 0;
}

void crosstab_free(struct crosstab *x)
{
	for (int r = 0; r < XT_MAX_VALS; r++)
		for (int c = 0; c < XT_MAX_VALS; c++) {
			free(x->cell[r][c].v);
			x->cell[r][c].v = NULL;
		}
}

/* ---- output ---- */

/* The decimals every number of the table gets, from its largest median:
 * about 4 significant digits there (1000 and over: none). */
static int table_decimals(const struct crosstab *x)
{
	double big = 0;

	for (int r = 0; r < x->nrows; r++)
		for (int c = 0; c < x->ncols; c++)
			if (x->cell[r][c].n && fabs(x->cell[r][c].median) > big)
				big = fabs(x->cell[r][c].median);
	return big >= 1000 ? 0 : big >= 100 ? 1 : big >= 10 ? 2 : big >= 1 ? 3
	       : big >= 0.01 ? 5 : 9;
}

static void fmt_num(double v, int dec, char *out, size_t len)
{
	if (!isfinite(v))
		snprintf(out, len, "-");
	else
		snprintf(out, len, "%.*f", dec, v);
}

static double pct_of(const struct crosstab *x, int r, int c)
{
	return crosstab_pct(x->cell[r][c].median, x->cell[r][0].median);
}

int crosstab_within_spread(const struct crosstab *x, int r, int c)
{
	const struct xt_cell *a = &x->cell[r][c], *b = &x->cell[r][0];

	if (!c || !a->n || !b->n || (a->n == 1 && b->n == 1))
		return 0;
	return a->min <= b->max && b->min <= a->max;
}

/* Whether the table has a one-run cell, and a change within the spread. */
static void marks_used(const struct crosstab *x, int *one, int *within)
{
	*one = *within = 0;
	for (int r = 0; r < x->nrows; r++)
		for (int c = 0; c < x->ncols; c++) {
			*one |= x->cell[r][c].n == 1;
			*within |= crosstab_within_spread(x, r, c);
		}
}

/* The footnotes of the marks the table uses, one line each. */
static void footnotes(const struct crosstab *x, struct emit *e)
{
	int one, within;

	marks_used(x, &one, &within);
	if (one)
		emit_text(e, "%s one run: its spread is not known, so a change to "
			  "or from it cannot be\n  told from run-to-run noise "
			  "(repeat the runs)\n", XT_MARK_ONE);
	if (within)
		emit_text(e, "%s within the spread: the runs' range overlaps the "
			  "first column's, so the\n  change cannot be told from "
			  "run-to-run noise\n", XT_MARK_WITHIN);
}

/* "median [min-max]" (or "median" for one run, "-" for none). */
static void fmt_cell(const struct crosstab *x, const struct xt_cell *c,
		     char *out, size_t len)
{
	int dec = table_decimals(x);
	char m[48], lo[48], hi[48];

	if (!c->n) {
		snprintf(out, len, "-");
		return;
	}
	fmt_num(c->median, dec, m, sizeof(m));
	if (c->n == 1) {
		snprintf(out, len, "%s%s", m, XT_MARK_ONE);
		return;
	}
	fmt_num(c->min, dec, lo, sizeof(lo));
	fmt_num(c->max, dec, hi, sizeof(hi));
	snprintf(out, len, "%s [%s-%s]", m, lo, hi);
}

static void fmt_pct(double p, char *out, size_t len)
{
	if (isfinite(p))
		snprintf(out, len, "%+.1f%%", p);
	else
		snprintf(out, len, "-");
}

/* The % change of cell (r, c) against the first column's, marked when
 * the two ranges overlap. */
static void fmt_change(const struct crosstab *x, int r, int c, char *out,
		       size_t len)
{
	double p = c ? pct_of(x, r, c) : NAN;

	fmt_pct(p, out, len);
	if (isfinite(p) && crosstab_within_spread(x, r, c))
		snprintf(out + strlen(out), len - strlen(out), "%s",
			 XT_MARK_WITHIN);
}

/* The text of cell (r, c) as the wide table prints it: for columns after
 * the first, its % change after it. */
static void wide_cell(const struct crosstab *x, int r, int c, char *out,
		      size_t len)
{
	char cell[96], p[24];

	fmt_cell(x, &x->cell[r][c], cell, sizeof(cell));
	if (!c) {
		snprintf(out, len, "%s", cell);
		return;
	}
	fmt_change(x, r, c, p, sizeof(p));
	snprintf(out, len, "%s %s", cell, p);
}

/* The sentences: "% change of M from A=X to A=Y: ext2 -5.9%, ..." wrapped
 * at 80 columns. */
static void sentences(const struct crosstab *x, struct emit *e)
{
	for (int c = 1; c < x->ncols; c++) {
		char line[256];
		int col;

		col = snprintf(line, sizeof(line), "%% change of %s from %s=%s to "
			       "%s=%s:", x->metric, x->across, x->cols[0], x->across,
			       x->cols[c]);
		emit_text(e, "%s", line);
		for (int r = 0; r < x->nrows; r++) {
			char p[24], item[200];
			int w;
			fmt_change(x, r, c, p, sizeof(p));
			w = snprintf(item, sizeof(item), " %s %s%s", x->rows[r], p,
				     r + 1 < x->nrows ? "," : "");
			if (col + w > 80) {
				emit_text(e, "\n ");
				col = 1;
			}
			emit_text(e, "%s", item);
			col += w;
		}
		emit_text(e, "\n");
	}
}

static void emit_head(const struct crosstab *x, struct emit *e)
{
	char head[1200], wrapped[1400], part[2][80];
	int np = 0, col;

	/* in 80 columns: the second line wrapped where setting values and
	 * names are long, each "N without ... left out" kept whole */
	emit_text(e, "%s%s%s%s: median [min-max] of the runs of each cell, %% "
		  "change against\n", x->metric, x->unit[0] ? " (" : "", x->unit,
		  x->unit[0] ? ")" : "");
	snprintf(head, sizeof(head), "%s=%s; rows by %s, columns by %s (%d runs",
		 x->across, x->cols[0], x->group_by ? x->group_by : "(none)",
		 x->across, x->used);
	if (x->no_setting)
		snprintf(part[np++], sizeof(part[0]), "%d without the setting%s left "
			 "out", x->no_setting, x->group_by ? "s" : "");
	if (x->no_metric)
		snprintf(part[np++], sizeof(part[0]), "%d without the metric left out",
			 x->no_metric);
	text_wrap(head, 80, 2, wrapped, sizeof(wrapped));
	emit_text(e, "%s", wrapped);
	col = text_cols(strrchr(wrapped, '\n') ? strrchr(wrapped, '\n') + 1 : wrapped);
	for (int i = 0; i < np; i++) {
		int w = text_cols(part[i]) + 2 + (i + 1 == np);   /* "; " ... ")" */
		if (col + w > 80) {
			emit_text(e, ";\n  %s", part[i]);
			col = 2 + text_cols(part[i]);
		} else {
			emit_text(e, "; %s", part[i]);
			col += w - (i + 1 == np);
		}
	}
	emit_text(e, ")\n");
	if (x->units_differ)
		emit_text(e, "warning: the runs give %s in different units\n",
			  x->metric);
	emit_text(e, "\n");
}

static void emit_textual(const struct crosstab *x, struct emit *e)
{
	const char *gname = x->group_by ? x->group_by : "";
	int gw = (int)strlen(gname), cw[XT_MAX_VALS], total;
	char buf[160];

	for (int r = 0; r < x->nrows; r++)
		if ((int)strlen(x->rows[r]) > gw)
			gw = (int)strlen(x->rows[r]);
	total = gw;
	for (int c = 0; c < x->ncols; c++) {
		cw[c] = (int)strlen(x->cols[c]);
		for (int r = 0; r < x->nrows; r++) {
			wide_cell(x, r, c, buf, sizeof(buf));
			if ((int)strlen(buf) > cw[c])
				cw[c] = (int)strlen(buf);
		}
		total += 2 + cw[c];
	}
	emit_head(x, e);
	if (total <= 80) {
		emit_text(e, "%-*s", gw, gname);
		for (int c = 0; c < x->ncols; c++)
			emit_text(e, "  %*s", cw[c], x->cols[c]);
		emit_text(e, "\n");
		for (int r = 0; r < x->nrows; r++) {
			emit_text(e, "%-*s", gw, x->rows[r]);
			for (int c = 0; c < x->ncols; c++) {
				wide_cell(x, r, c, buf, sizeof(buf));
				emit_text(e, "  %*s", cw[c], buf);
			}
			emit_text(e, "\n");
		}
	} else {
		/* one line per cell */
		int aw = (int)strlen(x->across);
		for (int c = 0; c < x->ncols; c++)
			if ((int)strlen(x->cols[c]) > aw)
				aw = (int)strlen(x->cols[c]);
		emit_text(e, "%-*s  %-*s  %24s  %3s  %8s\n", gw, gname, aw,
			  x->across, "median [min-max]", "n", "change");
		for (int r = 0; r < x->nrows; r++)
			for (int c = 0; c < x->ncols; c++) {
				char p[24];
				fmt_cell(x, &x->cell[r][c], buf, sizeof(buf));
				fmt_change(x, r, c, p, sizeof(p));
				emit_text(e, "%-*s  %-*s  %24s  %3d  %8s\n", gw,
					  x->rows[r], aw, x->cols[c], buf,
					  x->cell[r][c].n, p);
			}
	}
	if (x->ncols > 1)
		emit_text(e, "\n");
	sentences(x, e);
	footnotes(x, e);
}

static void emit_markdown(const struct crosstab *x, struct emit *e)
{
	char buf[160];

	emit_head(x, e);
	emit_text(e, "| %s |", x->group_by ? x->group_by : "");
	for (int c = 0; c < x->ncols; c++) {
		emit_text(e, " %s=%s |", x->across, x->cols[c]);
		if (c)
			emit_text(e, " %% vs %s |", x->cols[0]);
	}
	emit_text(e, "\n|---|");
	for (int c = 0; c < x->ncols; c++)
		emit_text(e, "%s", c ? "---:|---:|" : "---:|");
	emit_text(e, "\n");
	for (int r = 0; r < x->nrows; r++) {
		emit_text(e, "| %s |", x->rows[r]);
		for (int c = 0; c < x->ncols; c++) {
			char p[24];
			fmt_cell(x, &x->cell[r][c], buf, sizeof(buf));
			emit_text(e, " %s |", buf);
			if (c) {
				fmt_change(x, r, c, p, sizeof(p));
				emit_text(e, " %s |", p);
			}
		}
		emit_text(e, "\n");
	}
	if (x->ncols > 1)
		emit_text(e, "\n");
	sentences(x, e);
	footnotes(x, e);
}

static void emit_json(const struct crosstab *x, struct emit *e)
{
	emit_obj_begin(e, NULL);
	emit_str(e, "metric", x->metric);
	emit_str(e, "unit", x->unit[0] ? x->unit : NULL);
	emit_str(e, "group_by", x->group_by);
	emit_str(e, "across", x->across);
	emit_str(e, "spread", "min-max");
	emit_u64(e, "runs", (uint64_t)x->used);
	emit_u64(e, "runs_without_setting", (uint64_t)x->no_setting);
	emit_u64(e, "runs_without_metric", (uint64_t)x->no_metric);
	emit_arr_begin(e, "columns");
	for (int c = 0; c < x->ncols; c++)
		emit_str(e, NULL, x->cols[c]);
	emit_arr_end(e);
	emit_arr_begin(e, "rows");
	for (int r = 0; r < x->nrows; r++) {
		emit_obj_begin(e, NULL);
		emit_str(e, "group", x->rows[r]);
		emit_arr_begin(e, "cells");
		for (int c = 0; c < x->ncols; c++) {
			const struct xt_cell *cl = &x->cell[r][c];
			emit_obj_begin(e, NULL);
			emit_str(e, "column", x->cols[c]);
			emit_u64(e, "n", (uint64_t)cl->n);
			emit_num(e, "median", cl->median);
			emit_num(e, "min", cl->min);
			emit_num(e, "max", cl->max);
			emit_num(e, "pct_change", c ? pct_of(x, r, c) : 0);
			emit_u64(e, "one_run", (uint64_t)(cl->n == 1));
			emit_u64(e, "within_spread",
				 (uint64_t)crosstab_within_spread(x, r, c));
			emit_obj_end(e);
		}
		emit_arr_end(e);
		emit_obj_end(e);
	}
	emit_arr_end(e);
	emit_obj_end(e);
}

void crosstab_emit(const struct crosstab *x, struct emit *e, int fmt)
{
	if (fmt == XT_JSON)
		emit_json(x, e);
	else if (fmt == XT_MARKDOWN)
		emit_markdown(x, e);
	else
		emit_textual(x, e);
	emit_finish(e);
}

int crosstab_load_args(struct crosstab *x, struct store *st, char *const *args,
		       int nargs, const char *group_by, const char *across,
		       const char *metric, char *err, size_t errlen)
{
	struct run_ref *runs = NULL;
	int64_t *ids = NULL;
	size_t n = 0;
	int rc = 0;

	memset(x, 0, sizeof(*x));
	if (nargs) {
		if (manage_resolve(st, args, nargs, &runs, &n, err, errlen))
			rc = -1;
		ids = xcalloc(n ? n : 1, sizeof(*ids));
		for (size_t i = 0; i < n && !rc; i++)
			ids[i] = runs[i].id;
	} else {
		struct store_run_listing *all = NULL;
		if (store_runs_list(st, 0, &all, &n)) {
			snprintf(err, errlen, "%s", store_errmsg(st));
			rc = -1;
		}
		ids = xcalloc(n ? n : 1, sizeof(*ids));
		for (size_t i = 0; i < n && !rc; i++)
			ids[i] = all[i].run.id;
		free(all);
	}
	if (!rc)
		rc = crosstab_load(x, st, ids, n, group_by, across, metric, err,
				   errlen);
	free(ids);
	free(runs);
	return rc;
}
