/* `iotape report`: per-device and per-process figures of one run, in btt's
 * terms (btt(1)): requests, bytes, IOPS and MB/s by direction, Q2C, D2C and
 * Q2D latency, merge ratio, in-flight average, D2D seeks; text for a mailing
 * list (80 columns) or --json with the same numbers. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/report.h"
#include "analyze/runview.h"
#include "analyze/stats.h"
#include "commands.h"
#include "lib/emit.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/model.h"

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "json", 0, 'j', NULL, "the same numbers as one JSON object" },
	RV_FILTER_OPTS,
	{ "model", 1, 'M', "PROFILE", "also cost the run's seeks on a modelled "
	  "rotating disk: a built-in profile (iotape model list) or a profile "
	  "file" },
	{ "help", 0, 'h', NULL, NULL },
};

static void report_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape report [--db FILE] [--json] [--from T] [--to T] [--dev M,m]...\n"
"                     [--model PROFILE] RUN\n"
"\n"
"Per-device figures of RUN (requests, MB, IOPS and MB/s for reads and\n"
"writes; bios queued and dispatched, merge ratio, average in flight; D2D\n"
"seeks; Q2C, D2C and Q2D latency: n, mean, p50, p90, p99, max in us), the\n"
"same latencies over all devices, a per-process table; where the time went\n"
"(btt's stages per process and device, busy %%, request sizes, flushes);\n"
"and the findings: each cause with what it cost in seconds, how that was\n"
"estimated, its evidence and confidence, causes ranked by cost, patterns\n"
"that cost nothing measurable listed apart.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 19, NULL);
	fprintf(fp, "\n%s\n", report_footer);
	an_print_definitions(fp);
}

int cmd_report(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL;
	struct runview rv;
	struct report r;
	struct an_run *an;
	struct an_side side;
	struct finding f[AN_MAX];
	struct emit e;
	struct disk_profile model_buf;
	const struct disk_profile *model = NULL;
	char err[512];
	struct rv_filter filt;
	int c, json = 0, nf;

	rv_filter_init(&filt);
	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'j': json = 1; break;
		case RV_OPT_FROM: case RV_OPT_TO: case RV_OPT_DEV:
			if (rv_filter_opt(&filt, c, optarg))
				return 2;
			break;
		case 'M':
			if (profile_resolve(&model_buf, optarg, err, sizeof(err)))
				return error("%s", err);
			model = &model_buf;
			break;
		case 'h': report_usage(stdout); return 0;
		default: return opt_bad("report");
		}
	}
	if (optind != argc - 1) {
		error(optind == argc ? "report needs a RUN" : "report takes one "
		      "RUN; for several: iotape compare");
		return opt_bad("report");
	}
	if (runview_open(&rv, db_path_default(db), argv[optind]))
		return -1;
	if (runview_set_filter(&rv, &filt)) {
		runview_close(&rv);
		return -1;
	}
	an = xcalloc(1, sizeof(*an));
	/* the figures built beside the analyzers */
	report_side(&r, &side);
	if (an_run_load_with(an, &rv, &(struct an_opts){ .model = model },
			     &side, 2)) {
		free(an);
		runview_close(&rv);
		return -1;
	}
	nf = an_run_findings(an, f, AN_MAX, NULL);
	emit_init(&e, stdout, json);
	report_emit(&r, &e, 20, an, f, nf);
	report_free(&r);
	an_run_free(an);
	free(an);
	runview_close(&rv);
	return 0;
}
