/* `iotape compare`: runs side by side: which took longer and whether that
 * is beyond run-to-run noise, the headline figures with % change against
 * the first (or between groups of a sweep), where the time went, and the
 * findings ranked by what they cost; text for a mailing list (80 columns),
 * --markdown for web trackers, --json for scripts. Parses argv and calls
 * compare_load() and compare_emit() (analyze/compare.c). */
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare.h"
#include "analyze/crosstab.h"
#include "runs/manage.h"
#include "commands.h"
#include "lib/emit.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/model.h"

#define MAX_RUNS CMP_MAX_RUNS

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "group-by", 1, 'g', "KEY", "group runs of a sweep with repeats by a "
	  "setting's value (vm.dirty_ratio, loop0:queue/scheduler) or by "
	  "run-name globs ('one*,two*'): median and min-max per group, % change "
	  "between group medians, and the noise test" },
	{ "metric", 1, 'M', "EXPR", "the question's figure: a key of --json's "
	  "figures or a workload metric (iotape metric RUN), a sum A+B, total "
	  "(every timed command), span; NAME:higher or :lower says which is "
	  "better (default: the workload's own result, else the timed "
	  "commands' total, else the workload's span); with --across, the "
	  "workload metric to table (default real_s)" },
	{ "across", 1, 'A', "SETTING", "a two-way table of a workload metric "
	  "instead: a column per value of SETTING (a label, a key capture set, "
	  "kernel, host), a row per value of --group-by's (a setting here), "
	  "cells the median [min-max] over repeats with % change against the "
	  "first column; RUNs optional (default: every run)" },
	{ "model", 1, 'P', "PROFILE", "also cost each run's seeks on a modelled "
	  "rotating disk: a built-in profile (iotape model list) or a profile "
	  "file (\"on a 2006 disk these seeks would have cost N s\")" },
	{ "json", 0, 'j', NULL, "the same numbers and findings as JSON" },
	{ "markdown", 0, 'm', NULL, "tables in Markdown, for web trackers" },
	{ "help", 0, 'h', NULL, NULL },
};

static void compare_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape compare [--db FILE] [--json | --markdown] [--metric EXPR]\n"
"                      [--group-by SETTING|GLOB,GLOB...] [--model PROFILE]\n"
"                      RUN RUN [RUN...]\n"
"       iotape compare [--db FILE] [--json | --markdown] --across SETTING\n"
"                      [--group-by SETTING] [--metric NAME] [RUN...]\n"
"\n"
"The question (one figure, which way is better), which run is worse, by how\n"
"much, and whether that is beyond run-to-run noise; headline figures of each\n"
"run with the %% change against the first: elapsed s (runs that timed\n"
"commands), trace span s, workload span s, each command's real s (cmd1 ...),\n"
"the workload's metrics; read and write MB/s and IOPS (per device too, in\n"
"device order, '-' for a run without the device); Q2C and D2C p50/p99 in us\n"
"for reads and writes, as report prints them; long seeks (>128 sectors)\n"
"per s and the D2D seek mean; swap out/in MB, peak swap used, peak dirty and\n"
"writeback MB, minimum free MB, CPU iowait %% (of the vmstat rows over the\n"
"run's window). Then where the time went (each process family's waited time\n"
"and its change by btt stage) and why:\n"
"a waterfall of causes, each with what it cost the worse run in seconds,\n"
"that with the offsets and what is not explained adds up to the difference.\n"
"\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 19, NULL);
	fprintf(fp, "\n");
	compare_print_definitions(fp);
}

/* compare --across: the runs args name (every run when none) in a
 * crosstab (analyze/crosstab.c). */
static int compare_across(const char *db, char **args, int nargs,
			  const char *group_by, const char *across,
			  const char *metric, int fmt)
{
	struct store *st = NULL;
	struct crosstab x;
	struct emit e;
	char err[1024];
	int rc = 0;

	memset(&x, 0, sizeof(x));
	if (group_by && strpbrk(group_by, "*?[,")) {
		error("--across takes a setting for --group-by, not run-name globs");
		return 2;
	}
	if (store_open_existing(&st, db)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	if (crosstab_load_args(&x, st, args, nargs, group_by, across, metric, err,
			       sizeof(err)))
		rc = error("%s: %s", store_shown(db), err);
	else {
		emit_init(&e, stdout, fmt == CMP_JSON);
		crosstab_emit(&x, &e, fmt == CMP_JSON ? XT_JSON :
			      fmt == CMP_MARKDOWN ? XT_MARKDOWN : XT_TEXT);
	}
	crosstab_free(&x);
	store_close(st);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL, *group_by = NULL, *metric = NULL, *across = NULL;
	struct store *st = NULL;
	struct compare cmp;
	struct emit e;
	struct disk_profile model_buf;
	const struct disk_profile *model = NULL;
	char **names, err[512];
	int c, fmt = CMP_TEXT, n, rc = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'j': fmt = CMP_JSON; break;
		case 'm': fmt = CMP_MARKDOWN; break;
		case 'g': group_by = optarg; break;
		case 'M': metric = optarg; break;
		case 'A': across = optarg; break;
		case 'P':
			if (profile_resolve(&model_buf, optarg, err, sizeof(err)))
				return error("%s", err);
			model = &model_buf;
			break;
		case 'h': compare_usage(stdout); return 0;
		default: return opt_bad("compare");
		}
	}
	db = db_path_default(db);
	if (across)
		return compare_across(db, argv + optind, argc - optind, group_by,
				      across, metric, fmt);
	if (argc - optind < 1) {
		error("compare needs two or more RUNs (names, ids or globs such "
		      "as 'sweep*')");
		return 2;
	}
	if (store_open_existing(&st, db)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	/* RUN arguments may be globs over the run names, in run order */
	rc = compare_expand_runs(st, argv + optind, argc - optind, &names, &n);
	if (!rc && n < 2) {
		error("compare needs two or more runs; %d given", n);
		rc = 2;
	}
	if (rc) {
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
		store_close(st);
		return rc;
	}
	rc = compare_load(&cmp, st, names, n, group_by, metric, model, 0);
	if (!rc) {
		emit_init(&e, stdout, fmt == CMP_JSON);
		compare_emit(&cmp, &e, fmt);
		/* the figures are printed; but no comparison had the question's
		 * value on both sides: the question was not answered */
		if (cmp.ng > 1 && cmp.unanswered == cmp.ng - 1) {
			fflush(stdout);
			rc = error("compare: no run of one side has %s: nothing "
				   "compared (--metric names a figure both sides "
				   "have)", cmp.q.label);
		}
	}
	compare_free(&cmp);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	store_close(st);
	return rc;
}
