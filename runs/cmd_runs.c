/* `iotape runs`: list the runs of a database, one line each. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/runview.h"
#include "analyze/summary.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "schema/store.h"

/* The widest name column; with the other columns, 80 in all. */
#define NAME_MAX_COLS 24
#define LINE_COLS 80

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "host", 1, 'H', "H", "only runs recorded on host H" },
	{ "kernel", 1, 'k', "K", "only runs recorded under kernel K (uname -r)" },
	{ "kind", 1, 'K', "import|capture|replay", "only runs of that kind" },
	{ "since", 1, 's', "AGE", "only runs made in the last AGE (30m, 12h, 7d)" },
	{ "until", 1, 'u', "AGE", "only runs made more than AGE ago" },
	{ "where", 1, 'w', "KEY=VALUE", "only runs whose setting KEY (as recorded "
	  "at the start, else at the end) is VALUE, e.g. vm.dirty_ratio=20; "
	  "repeat: all must hold" },
	{ "names", 0, 'N', NULL, "only the names, one a line, oldest first (for "
	  "scripts and shell completion)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void runs_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape runs [--db FILE] [--host H] [--kernel K]\n"
"                   [--kind import|capture|replay] [--since AGE] [--until AGE]\n"
"                   [--where KEY=VALUE]... [--names]\n"
"\n"
"Lists the runs in 80 columns: id, name, kind, status, events, requests\n"
"(stitched I/Os) and time span in seconds (of the events; of the samples for a\n"
"run with none: first to last), then on a second line devices (major,minor)\n"
"and source (its end when too long). A name over %d characters takes a line\n"
"of its own (its start and end when too long). Last, the database's size.\n"
"The filters keep the runs that match all of them, in the store's SQL.\n",
		NAME_MAX_COLS);
	opt_usage(fp, options, ARRAY_SIZE(options), 20, NULL);
}

/* One run: its line, and the line of its devices and source. */
static int print_run(struct store *st, const struct store_run_listing *l,
		     int width)
{
	const struct store_run *r = &l->run;
	struct store_device *devs;
	struct store_stat *ss;
	size_t ndev, ns;
	char list[1024] = "-";
	double span = 0;
	int len;

	if (store_devices_get(st, r->id, &devs, &ndev))
		return error("%s", store_errmsg(st));
	for (size_t k = 0, o = 0; k < ndev && o < sizeof(list); k++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%u,%u",
				      k ? " " : "", BT_MAJOR(devs[k].dev),
				      BT_MINOR(devs[k].dev));
	free(devs);
	if (r->last_event && r->genesis_ns != STORE_NO_TIME)
		span = (double)(r->last_ns - r->genesis_ns) / 1e9;
	else if (!r->events && l->sample_first_ns != STORE_NO_TIME)
		span = (double)(l->sample_last_ns - l->sample_first_ns) / 1e9;
	/* over the time that had I/O when the trace's clock stepped (import
	 * counts it in run_stats) */
	if (store_stats_get(st, r->id, &ss, &ns))
		return error("%s", store_errmsg(st));
	for (size_t k = 0; k < ns; k++)
		if (!strcmp(ss[k].key, "active_span_ns") && ss[k].value)
			span = (double)strtoll(ss[k].value, NULL, 10) / 1e9;
	free(ss);
	if (span < 0)
		span = 0;
	if (text_cols(r->name) > width) {
		printf("%4" PRId64 " ", r->id);
		fput_cut(stdout, r->name, LINE_COLS - 5, (LINE_COLS - 6) / 2);
		printf("\n%4s %-*s", "", width, "");
	} else {
		printf("%4" PRId64 " ", r->id);
		fput_padded(stdout, r->name, width);
	}
	printf(" %-7s %-11s %10" PRId64 " %9" PRId64 " %9.3f\n", r->kind,
	       r->status, r->events, l->requests, span);
	len = printf("%4s dev %s", "", list);
	if (r->source[0] && len + 6 < LINE_COLS) {
		/* a path's control characters (a newline, an escape sequence
		 * in a file's name) as '?', one column each, as ls(1) shows
		 * them on a terminal: the listing stays one line a run */
		char src[sizeof(r->source)];
		snprintf(src, sizeof(src), "%s", r->source);
		for (char *c = src; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		printf("  src ");
		fput_cut(stdout, src, LINE_COLS - len - 6, 0);
	}
	putchar('\n');
	return 0;
}

int cmd_runs(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL;
	struct store *st = NULL;
	struct store_run_listing *runs = NULL;
	struct store_run_filter f = STORE_RUN_FILTER_ALL;
	const char *keys[STORE_FILTER_MAX_WHERE], *values[STORE_FILTER_MAX_WHERE];
	char *eq;
	size_t n = 0;
	int64_t size = 0, now = (int64_t)time(NULL) * 1000000000;
	double age;
	int c, width = 4, rc = 0, names = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	f.keys = keys;
	f.values = values;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'H': f.host = optarg; break;
		case 'k': f.kernel = optarg; break;
		case 'K':
			if (strcmp(optarg, "import") && strcmp(optarg, "capture") &&
			    strcmp(optarg, "replay")) {
				error("invalid kind '%s' for --kind (import, capture, "
				      "replay)", optarg);
				return opt_bad("runs");
			}
			f.kind = optarg;
			break;
		case 's':
		case 'u':
			if (parse_age(optarg, c == 's' ? "--since" : "--until", &age))
				return opt_bad("runs");
			if (c == 's')
				f.since_ns = now - (int64_t)(age * 1e9);
			else
				f.until_ns = now - (int64_t)(age * 1e9);
			break;
		case 'w':
			/* KEY=VALUE: the key up to the first '=' (keys have none) */
			if (!(eq = strchr(optarg, '=')) || eq == optarg) {
				error("invalid setting '%s' for --where (KEY=VALUE)",
				      optarg);
				return opt_bad("runs");
			}
			if (f.nwhere == STORE_FILTER_MAX_WHERE) {
				error("at most %d --where", STORE_FILTER_MAX_WHERE);
				return opt_bad("runs");
			}
			*eq = '\0';
			keys[f.nwhere] = optarg;
			values[f.nwhere++] = eq + 1;
			break;
		case 'N': names = 1; break;
		case 'h': runs_usage(stdout); return 0;
		default: return opt_bad("runs");
		}
	}
	if (optind != argc) {
		error("runs takes no RUN arguments ('%s')", argv[optind]);
		return opt_bad("runs");
	}
	db = db_path_default(db);
	if (store_open_existing(&st, db) || run_summary_backfill(st) ||
	    store_runs_list_where(st, 1, &f, &runs, &n)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	if (names) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", runs[i].run.name);
		free(runs);
		store_close(st);
		return close_stdout();
	}
	/* the name column as wide as the longest name, 4 to NAME_MAX_COLS
	 * characters: a longer name takes a line of its own */
	for (size_t i = 0; i < n; i++) {
		int w = text_cols(runs[i].run.name);
		width = w > width && w <= NAME_MAX_COLS ? w : width;
	}
	printf("%4s %-*s %-7s %-11s %10s %9s %9s\n", "id", width, "name", "kind",
	       "status", "events", "requests", "span_s");
	for (size_t i = 0; i < n && !rc; i++)
		rc = print_run(st, &runs[i], width);
	if (!rc && !store_size(st, &size))
		printf("%zu run%s; database %s: %.1f MiB\n", n, n == 1 ? "" : "s",
		       store_shown(db), (double)size / (1024.0 * 1024.0));
	else if (!rc)
		rc = error("%s", store_errmsg(st));
	free(runs);
	store_close(st);
	return rc ? -1 : 0;
}
