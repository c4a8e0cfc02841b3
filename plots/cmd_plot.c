/* `iotape plot`: parses argv into struct plot_opts and calls plot_run(),
 * which writes each picture's data, its gnuplot script and the picture. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare.h"
#include "analyze/crosstab.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "plots/plot.h"

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "kind", 1, 'k', "K[,K...]", "the kinds to draw (default all)" },
	{ "output", 1, 'o', "DIR", "where the files go (default .; made if "
	  "missing, but not its parent)" },
	{ "format", 1, 'f', "F", "png (default), svg, or txt: gnuplot's dumb "
	  "terminal, 80 columns x 24 lines a panel, for plain-text mail" },
	{ "align", 1, 'a', "A", "start: time 0 is each run's first event "
	  "(default); cmd:N: each run's command N (from 0) starts at 0" },
	{ "width", 1, 'W', "PX", "picture width in pixels (png, svg)" },
	{ "height", 1, 'H', "PX", "picture height in pixels (png, svg)" },
	{ "across", 1, 'A', "SETTING", "instead of the kinds, compare --across's "
	  "table as grouped bars (NAME.across.png): a bar per value of SETTING, "
	  "the median of its runs with their min-max, its % change over it; "
	  "RUNs optional (every run)" },
	{ "group-by", 1, 'g', "SETTING", "with --across: a group of bars per "
	  "value of SETTING (default one group)" },
	{ "metric", 1, 'M', "NAME", "with --across: the workload metric (default "
	  "real_s)" },
	RV_FILTER_OPTS,
	{ "help", 0, 'h', NULL, NULL },
};

static void plot_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape plot [--db FILE] [--kind K[,K...]] [-o DIR]\n"
"                   [--format png|svg|txt] [--align start|cmd:N]\n"
"                   [--width PX] [--height PX] [--from T] [--to T]\n"
"                   [--dev M,m]... RUN [RUN...]\n"
"       iotape plot [--db FILE] [-o DIR] [--format png|svg|txt]\n"
"                   --across SETTING [--group-by SETTING] [--metric NAME]\n"
"                   [RUN...]\n"
"\n"
"Draws pictures of the runs with gnuplot. Each picture is DIR/NAME.KIND.png\n"
"(or .svg, .txt) beside its data NAME.KIND.dat and script NAME.KIND.gp, which\n"
"re-runs as `gnuplot NAME.KIND.gp` in DIR. NAME is the runs' names joined by\n"
"-vs-. A RUN may be a glob over the run names ('sweep*'). Each file is\n"
"written whole or not at all: on a failure (a full disk, a cut picture)\n"
"what plot made is removed. Several runs share one time axis. Kinds:\n"
"  seek     sector vs time, a colour per process family (8 with most bytes\n"
"           over the runs, then other; the same in every panel), reads and\n"
"           writes apart; at most 200k points (1 in N)\n"
"  tput     read and write MB/s and IOPS over time, ~200 bins\n"
"  lat      Q2C and D2C histogram and CDF, reads and writes apart (log us)\n"
"  qd       requests in flight at each device over time (D to C)\n"
"  vm       free, cache, dirty, writeback, swap used, si/so, bi/bo from the\n"
"           samples, with each command's start and end marked\n"
"  procs    each process's share of bytes and of busy time\n"
"  compare  headline figures, %% change against the first run (2+ runs)\n"
"  all      every kind the runs have data for (the default); the others\n"
"           are named on stderr with the reason\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 22, "o");
	fprintf(fp, "Pictures are %d pixels wide and %d high, taller when they "
		"stack more panels\n(devices, runs), unless --width and --height "
		"say otherwise. Keys sit\noutside the data. Prints the path of "
		"each picture written. Needs gnuplot\n($IOTAPE_GNUPLOT names "
		"another program).\n", PLOT_WIDTH, PLOT_HEIGHT);
}

static int parse_px(const char *s, const char *opt, int *out)
{
	uint64_t v;

	if (parse_u64(s, opt, &v))
		return -1;
	if (v < 100 || v > 20000)
		return error("%s must be 100 to 20000 pixels, not '%s'", opt, s);
	*out = (int)v;
	return 0;
}

static int parse_align(const char *s, int *out)
{
	uint64_t n;

	if (!strcmp(s, "start")) {
		*out = -1;
		return 0;
	}
	/* one message for any bad value (parse_u64() would print one more) */
	if (!strncmp(s, "cmd:", 4) && !dec_u64(s + 4, &n, NULL) && n < 1000000) {
		*out = (int)n;
		return 0;
	}
	return error("invalid value '%s' for --align (start or cmd:N)", s);
}

/* plot --across: the runs' crosstab (as compare --across reads it) drawn
 * by plot_across(). Returns 0, or -1 after one error line. */
static int plot_table(const struct plot_opts *o, const char *across,
		      const char *group_by, const char *metric, char **args,
		      int nargs)
{
	struct store *st = NULL;
	struct crosstab x;
	char err[1024];
	int rc;

	memset(&x, 0, sizeof(x));
	if (store_open_existing(&st, o->db)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	if ((rc = crosstab_load_args(&x, st, args, nargs, group_by, across, metric,
				     err, sizeof(err))))
		error("%s: %s", store_shown(o->db), err);
	else
		rc = plot_across(o, &x);
	crosstab_free(&x);
	store_close(st);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct plot_opts o = {
		.dir = ".", .format = PLOT_PNG, .align_cmd = -1,
		.width = PLOT_WIDTH, .height = 0,
		.kinds = PLOT_ALL, .list = stdout,
	};
	const char *db = NULL, *across = NULL, *group_by = NULL, *metric = NULL;
	struct rv_filter filt;
	int c, filtered = 0;

	rv_filter_init(&filt);
	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "ho:", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'k':
			if (plot_parse_kinds(optarg, &o.kinds))
				return 2;
			o.named_kinds = strcmp(optarg, "all") != 0;
			break;
		case 'o':
			/* "mail/" as "mail": paths printed without a "//" */
			for (size_t n = strlen(optarg); n > 1 && optarg[n - 1] == '/'; n--)
				optarg[n - 1] = '\0';
			o.dir = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "png")) o.format = PLOT_PNG;
			else if (!strcmp(optarg, "svg")) o.format = PLOT_SVG;
			else if (!strcmp(optarg, "txt")) o.format = PLOT_TXT;
			else {
				error("invalid value '%s' for --format (png, svg, txt)", optarg);
				return 2;
			}
			break;
		case 'a':
			if (parse_align(optarg, &o.align_cmd))
				return 2;
			break;
		case 'W':
			if (parse_px(optarg, "--width", &o.width))
				return 2;
			break;
		case 'H':
			if (parse_px(optarg, "--height", &o.height))
				return 2;
			break;
		case RV_OPT_FROM: case RV_OPT_TO: case RV_OPT_DEV:
			if (rv_filter_opt(&filt, c, optarg))
				return 2;
			filtered = 1;
			break;
		case 'A': across = optarg; break;
		case 'g': group_by = optarg; break;
		case 'M': metric = optarg; break;
		case 'h': plot_usage(stdout); return 0;
		default: return opt_bad("plot");
		}
	}
	o.db = db_path_default(db);
	if (across)
		return plot_table(&o, across, group_by, metric, argv + optind,
				  argc - optind);
	if (group_by || metric) {
		error("--group-by and --metric go with --across");
		return opt_bad("plot");
	}
	if (optind >= argc) {
		error("plot needs a RUN");
		return opt_bad("plot");
	}
	o.db = db_path_default(db);
	o.filter = filtered ? &filt : NULL;
	/* RUN arguments may be globs over the run names, as compare's and
	 * mail's: the same helper expands them */
	{
		char **names = NULL;
		int n = 0, rc;
		rc = compare_expand_runs_db(o.db, argv + optind, argc - optind,
					    &names, &n);
		if (!rc) {
			o.runs = (const char *const *)names;
			o.nrun = (size_t)n;
			rc = plot_run(&o);
		}
		compare_runs_free(names, n);
		return rc;
	}
}
