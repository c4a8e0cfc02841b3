/* `iotape fleet`: rank a store's runs by a latency figure of their
 * summaries, in the store's SQL (store_fleet_worst()); the store's owner's
 * upkeep (--migrate: store_migrate(); --expire: store_expire()); argv
 * parsing and the table only. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/summary.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "schema/store.h"

static const struct opt_def options[] = {
	{ "db", 1, 'b', "URL", "the store: a PostgreSQL URL or connection string,"
	  " or an SQLite file (default $IOTAPE_DB or iotape.db)" },
	{ "worst", 1, 'w', "FIGURE", "rank by FIGURE, worst first: "
	  STORE_FLEET_METRICS " (us; default read_q2c_p99)" },
	{ "since", 1, 's', "AGE", "only runs made in the last AGE (30m, 12h, 7d; "
	  "default: every run)" },
	{ "limit", 1, 'n', "N", "at most N runs (default 20)" },
	{ "migrate", 0, 'm', NULL, "the store's owner: bring the store to this "
	  "iotape's schema and give the roles iotape_reader and iotape_writer "
	  "their grants again (nothing else is done)" },
	{ "expire", 1, 'e', "AGE", "the store's owner: delete the runs made "
	  "more than AGE ago (90d), whole months' partitions dropped (nothing "
	  "else is done)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape fleet [--db URL] [--worst FIGURE] [--since AGE] [--limit N]\n"
"       iotape fleet [--db URL] --migrate | --expire AGE\n"
"\n"
"Ranks the runs of a store (a shared PostgreSQL one, or an SQLite file) by a\n"
"latency figure, worst first: the mean, p50, p99 or max of their read or\n"
"write requests' Q2C or D2C, as `iotape report` and `iotape compare` give\n"
"them. The figures are each run's summary, written when the run landed, so\n"
"no run's requests are read; the ranking runs in the server and only the\n"
"ranked rows travel. One line a run: rank, name, host, kernel, the requests\n"
"measured and the figure (its column headed FIGURE_us), in 80 columns: a\n"
"longer name on a line of its own, a longer host or kernel cut in the\n"
"middle (…). --migrate and --expire are the store's owner's upkeep\n"
"of a shared store: its schema and grants, and retention.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 18, NULL);
}

/* --migrate: the store brought up to date, its grants given again */
static int migrate(const char *db)
{
	struct store *st = NULL;
	int from, to, rc = 0;

	if (store_migrate(&st, db, &from, &to))
		rc = error("%s", store_errmsg(st));
	else if (from == to)
		printf("%s: schema version %d, as this iotape's; grants given again\n",
		       store_name(st), to);
	else
		printf("%s: schema version %d -> %d; grants given again\n",
		       store_name(st), from, to);
	store_close(st);
	return rc ? -1 : close_stdout();
}

/* --expire AGE: the runs made before now - age deleted */
static int expire(const char *db, double age)
{
	struct store *st = NULL;
	int64_t before = (int64_t)time(NULL) * 1000000000 - (int64_t)(age * 1e9);
	int64_t runs = 0, dropped = 0;
	time_t t = (time_t)(before / 1000000000);
	char when[32];
	int rc = 0;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	if (store_open_existing(&st, db) || run_summary_backfill(st) ||
	    store_expire(st, before, &runs, &dropped))
		rc = error("%s: %s", store_name(st), store_errmsg(st));
	else
		printf("%s: %" PRId64 " runs made before %s deleted; %" PRId64
		       " tables of whole months dropped\n", store_name(st), runs,
		       when, dropped);
	store_close(st);
	return rc ? -1 : close_stdout();
}

/* s in cols columns, padded; when wider, cut in the middle (fput_cut) */
static void put_cut(const char *s, int cols)
{
	int w = fput_cut(stdout, s, cols, (cols - 1) / 2);

	if (w < cols)
		printf("%*s", cols - w, "");
}

/* The ranking in 80 columns, one header line: the value column headed by
 * the figure and its unit (read_q2c_p99_us); a run name wider than its
 * column on a line of its own, the rest under it; host and kernel cut in
 * the middle when too wide. */
static void print_ranking(const char *metric, const struct store_fleet_row *rows,
			  size_t n)
{
	enum { RUN_COLS = 22, HOST_COLS = 10, KERNEL_COLS = 14 };
	char head[64];

	snprintf(head, sizeof(head), "%s_us", metric);
	printf("%4s %-*s %-*s %-*s %8s %17s\n", "rank", RUN_COLS, "run", HOST_COLS,
	       "host", KERNEL_COLS, "kernel", "requests", head);
	for (size_t i = 0; i < n; i++) {
		printf("%4zu ", i + 1);
		if (text_cols(rows[i].name) > RUN_COLS)
			printf("%s\n%4s %-*s", rows[i].name, "", RUN_COLS, "");
		else
			fput_padded(stdout, rows[i].name, RUN_COLS);
		putchar(' ');
		put_cut(rows[i].host[0] ? rows[i].host : "-", HOST_COLS);
		putchar(' ');
		put_cut(rows[i].kernel[0] ? rows[i].kernel : "-", KERNEL_COLS);
		printf(" %8" PRId64 " %17.1f\n", rows[i].n, rows[i].value);
	}
}

int cmd_fleet(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL, *metric = "read_q2c_p99";
	struct store *st = NULL;
	struct store_fleet_row *rows = NULL;
	size_t n = 0, limit = 20;
	int64_t since = 0;
	double age, expire_age = -1;
	int c, rc = 0, upkeep = 0, ranking = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'w': metric = optarg; ranking = 1; break;
		case 'm': upkeep |= 1; break;
		case 'e':
			if (parse_age(optarg, "--expire", &expire_age))
				return 2;
			upkeep |= 2;
			break;
		case 's':
			ranking = 1;
			if (parse_age(optarg, "--since", &age))
				return 2;
			since = (int64_t)time(NULL) * 1000000000 - (int64_t)(age * 1e9);
			break;
		case 'n': {
			uint64_t v;
			if (dec_u64(optarg, &v, NULL) || !v || v > SIZE_MAX) {
				error("invalid count '%s' for --limit", optarg);
				return opt_bad("fleet");
			}
			limit = (size_t)v;
			ranking = 1;
			break;
		}
		case 'h': usage(stdout); return 0;
		default: return opt_bad("fleet");
		}
	}
	if (optind != argc) {
		error("fleet takes no RUN arguments ('%s')", argv[optind]);
		return opt_bad("fleet");
	}
	if (upkeep == 3 || (upkeep && ranking)) {
		error("--migrate, --expire and ranking are done one at a time");
		return opt_bad("fleet");
	}
	db = db_path_default(db);
	if (upkeep == 1)
		return migrate(db);
	if (upkeep == 2)
		return expire(db, expire_age);
	if (store_open_existing(&st, db) || run_summary_backfill(st) ||
	    store_fleet_worst(st, metric, since, limit, &rows, &n)) {
		rc = error("%s", store_errmsg(st));
		goto out;
	}
	print_ranking(metric, rows, n);
out:
	free(rows);
	store_close(st);
	return rc ? -1 : close_stdout();
}
