/* `iotape runs`: list the runs of a database, one line each. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/runview.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "schema/store.h"

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void runs_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape runs [--db FILE]\n"
"\n"
"Lists the runs: id, name, kind, status, events, requests (stitched I/Os),\n"
"time span in seconds, devices (major,minor) and source.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 13, NULL);
}

int cmd_runs(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL;
	struct store *st = NULL;
	struct store_run_listing *runs = NULL;
	size_t n = 0;
	int c, width = 20, rc = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'h': runs_usage(stdout); return 0;
		default: return opt_bad("runs");
		}
	}
	if (optind != argc) {
		error("runs takes no RUN arguments ('%s')", argv[optind]);
		return opt_bad("runs");
	}
	db = db_path_default(db);
	if (store_open_existing(&st, db) || store_runs_list(st, 1, &runs, &n)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	/* the name column as wide as the longest name (in characters, up
	 * to 48) */
	for (size_t i = 0; i < n; i++) {
		int w = 0;
		for (const char *p = runs[i].run.name; *p; p++)
			w += ((unsigned char)*p & 0xc0) != 0x80;
		width = w > width ? w : width;
	}
	width = width > 48 ? 48 : width;
	printf("%4s %-*s %-7s %-11s %10s %9s %9s %s  %s\n", "id", width, "name",
	       "kind", "status", "events", "requests", "span_s", "devices",
	       "source");
	for (size_t i = 0; i < n && !rc; i++) {
		const struct store_run *r = &runs[i].run;
		struct store_device *devs;
		size_t ndev;
		char list[1024] = "-";
		double span = 0;
		if ((rc = store_devices_get(st, r->id, &devs, &ndev))) {
			error("%s", store_errmsg(st));
			break;
		}
		for (size_t k = 0, len = 0; k < ndev && len < sizeof(list); k++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u,%u",
						k ? " " : "", BT_MAJOR(devs[k].dev),
						BT_MINOR(devs[k].dev));
		free(devs);
		if (r->last_event && r->genesis_ns != STORE_NO_TIME)
			span = (double)(r->last_ns - r->genesis_ns) / 1e9;
		{
			/* over the time that had I/O when the trace's clock
			 * stepped (import counts it in run_stats) */
			struct store_stat *ss;
			size_t ns;
			if ((rc = store_stats_get(st, r->id, &ss, &ns))) {
				error("%s", store_errmsg(st));
				break;
			}
			for (size_t k = 0; k < ns; k++)
				if (!strcmp(ss[k].key, "active_span_ns") && ss[k].value)
					span = (double)strtoll(ss[k].value, NULL, 10) / 1e9;
			free(ss);
		}
		if (span < 0)
			span = 0;
		printf("%4" PRId64 " %-*s %-7s %-11s %10" PRId64 " %9" PRId64
		       " %9.3f %s  %s\n", r->id, width, r->name, r->kind,
		       r->status, r->events, runs[i].requests, span, list,
		       r->source[0] ? r->source : "-");
	}
	free(runs);
	store_close(st);
	return rc ? -1 : 0;
}
