/* A two-way table of a workload metric over runs (compare --group-by G
 * --across A --metric M; issue 15 item 11): one row per value of setting
 * G, one column per value of setting A, each cell the median of M over the
 * runs (repeats) that have both values, with their min-max and count, and
 * the % change of each cell's median against the first column's. Settings
 * are the runs' settings (capture --set, capture --label, iotape label),
 * else the run's own kernel, host or name for those keys; metrics are
 * store_metrics_get()'s. Never prints: emits through lib/emit.h. */
#ifndef IOTAPE_CROSSTAB_H
#define IOTAPE_CROSSTAB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/emit.h"
#include "schema/store.h"

#define XT_MAX_VALS 32          /* rows, and columns, at most */

enum { XT_TEXT, XT_MARKDOWN, XT_JSON };

/* One cell: the metric's values of its runs. */
struct xt_cell {
	double *v;              /* malloc'd; sorted after crosstab_load() */
	int n;
	double median, min, max;/* NAN when n is 0 */
};

struct crosstab {
	const char *group_by;   /* NULL: one row, "all" */
	const char *across;
	char metric[64];
	char unit[32];          /* the first run's unit of it, "" for none */
	char rows[XT_MAX_VALS][128];
	char cols[XT_MAX_VALS][128];
	int nrows, ncols;
	struct xt_cell cell[XT_MAX_VALS][XT_MAX_VALS];
	int used;               /* runs in the table */
	int no_setting;         /* runs without the group-by or across value */
	int no_metric;          /* runs without the metric */
	int units_differ;       /* runs gave the metric in different units */
};

/* Reads runs ids[0 .. n) of st into x: rows are the values of setting
 * group_by (NULL: one row) and columns the values of setting across, each
 * in the order the runs first show them (ids in creation order: the oldest
 * run's value is the first column, the baseline); metric NULL means
 * "real_s" (a command's real time). Runs without one of the settings or
 * without the metric are counted and left out. Returns 0, or -1 with a
 * message in err (errlen bytes): a store error, no run with both settings
 * and the metric, more than XT_MAX_VALS values. Free with crosstab_free()
 * (also after an error). */
int crosstab_load(struct crosstab *x, struct store *st, const int64_t *ids,
		  size_t n, const char *group_by, const char *across,
		  const char *metric, char *err, size_t errlen);

/* Emits the table: fmt XT_TEXT (80 columns: one row per group with each
 * column's "median [min-max]" and the % change against the first column,
 * or, when that does not fit, one line per cell; then the % change as one
 * sentence per column: "% change of M from A=X to A=Y: ext2 -5.9%, ..."),
 * XT_MARKDOWN (a pipe table with the same cells, then the same sentences)
 * or XT_JSON (rows of cells with median, min, max, n, pct_change, one_run
 * and within_spread). Text and Markdown mark a one-run cell XT_MARK_ONE
 * and a change within the spread XT_MARK_WITHIN, with a footnote each. */
void crosstab_emit(const struct crosstab *x, struct emit *e, int fmt);

/* crosstab_load() of the runs args[0 .. nargs) name (names, ids or globs,
 * as manage_resolve() reads them; every run of st when nargs is 0).
 * Returns 0, or -1 with a message in err (no such run, and
 * crosstab_load()'s errors). Free with crosstab_free() (also after an
 * error). */
int crosstab_load_args(struct crosstab *x, struct store *st, char *const *args,
		       int nargs, const char *group_by, const char *across,
		       const char *metric, char *err, size_t errlen);

void crosstab_free(struct crosstab *x);

/* The marks of a table's noise: a cell of one run (no spread known), and
 * a % change between cells whose ranges (min-max of their runs) overlap;
 * each explained in a footnote under the table. */
#define XT_MARK_ONE "*"
#define XT_MARK_WITHIN "~"

/* 1 when cell (r, c) (c > 0) and the first column's cell of row r have
 * runs and their min-max ranges overlap, not both of one run: the % change
 * between them is within the runs' spread. 0 otherwise. */
int crosstab_within_spread(const struct crosstab *x, int r, int c);

/* The % change of a against base: 100 (a - base) / |base|; NAN when base is
 * 0 or either is not finite. */
double crosstab_pct(double a, double base);

#endif
