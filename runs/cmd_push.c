/* `iotape push` and `iotape pull`: copy runs from the local store to a
 * shared one (PostgreSQL) as HOST:RUN, and back; argv parsing only
 * (schema/store_copy.c copies, one transaction per run). */
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
#include "runs/manage.h"
#include "schema/store.h"
#include "schema/store_copy.h"

static const struct opt_def push_options[] = {
	{ "db", 1, 'b', "FILE", "the local database the runs are read from "
	  "(default $IOTAPE_DB or iotape.db)" },
	{ "to", 1, 't', "URL", "the store to copy them to: a PostgreSQL URL "
	  "(postgresql://...) or connection string, or another database file" },
	{ "replace", 0, 'r', NULL, "replace a run of the same name there "
	  "(without it: refused)" },
	{ "help", 0, 'h', NULL, NULL },
};

static const struct opt_def pull_options[] = {
	{ "db", 1, 'b', "FILE", "the local database the runs are copied into "
	  "(default $IOTAPE_DB or iotape.db)" },
	{ "from", 1, 'f', "URL", "the store to copy them from: a PostgreSQL URL "
	  "or connection string, or another database file" },
	{ "replace", 0, 'r', NULL, "replace a run of the same name here "
	  "(without it: refused)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void push_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape push [--db FILE] --to URL [--replace] RUN...\n"
"\n"
"Copies runs to a shared store (a PostgreSQL server: a fleet's runs in one\n"
"place) with their events, requests, samples, replayed I/Os, settings,\n"
"devices, processes, commands and statistics, one transaction a run: a run\n"
"lands whole or not at all. A run is named HOST:RUN there, HOST the machine\n"
"it was recorded on (this one when not known); a name that has a ':'\n"
"already is kept. RUN is a name, an id or a glob over the names.\n"
"Credentials come from libpq's own means (~/.pgpass, PGPASSFILE, PGSERVICE,\n"
"PG* variables), never the URL.\n");
	opt_usage(fp, push_options, ARRAY_SIZE(push_options), 16, NULL);
}

static void pull_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape pull [--db FILE] --from URL [--replace] RUN...\n"
"\n"
"Copies runs from a shared store (as 'iotape push' left them, HOST:RUN)\n"
"into the local database, keeping their names; one transaction a run. RUN\n"
"is a name, an id or a glob over the names there.\n");
	opt_usage(fp, pull_options, ARRAY_SIZE(pull_options), 16, NULL);
}

/* Seconds on the monotonic clock. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Copies the runs args name in from to to; push names them HOST:RUN. */
static int copy_runs(const char *cmd, const char *from, const char *to,
		     int push, int replace, char *const *args, int nargs)
{
	struct store *src = NULL, *dst = NULL;
	struct run_ref *runs = NULL;
	size_t n = 0;
	char err[1024];
	int rc = 0;

	if (store_open_existing(&src, from)) {
		rc = error("%s", store_errmsg(src));
		goto out;
	}
	/* a run without a summary (an older binary's) gets one here, so the
	 * copy carries it */
	run_summary_backfill(src);
	if (manage_resolve(src, args, nargs, &runs, &n, err, sizeof(err))) {
		rc = error("%s", err);
		goto out;
	}
	if (store_open(&dst, to, 1)) {
		rc = error("%s: %s", store_shown(to), store_errmsg(dst));
		goto out;
	}
	run_summary_backfill(dst);
	for (size_t i = 0; i < n && !rc; i++) {
		struct store_copy_counts c;
		double t0 = now_s(), dt;
		if (store_copy_run(src, runs[i].id, dst, push, replace, &c, err,
				   sizeof(err))) {
			rc = error("%s '%s': %s", cmd, runs[i].name, err);
			break;
		}
		dt = now_s() - t0;
		{
			/* one line in 80 columns, else two: the counts the
			 * run is known by first */
			char a[700], b[200];
			snprintf(a, sizeof(a), "%s '%s' as '%s': %" PRId64 " events, %"
				 PRId64 " requests", push ? "pushed" : "pulled",
				 runs[i].name, c.name, c.events, c.requests);
			snprintf(b, sizeof(b), "%" PRId64 " samples, %" PRId64
				 " replayed I/Os; %" PRId64 " rows in %.2f s",
				 c.samples, c.replays, c.rows, dt);
			if (c.retries)
				snprintf(b + strlen(b), sizeof(b) - strlen(b),
					 " (its transaction tried %d more time%s)",
					 c.retries, c.retries > 1 ? "s" : "");
			if (text_cols(a) + 2 + text_cols(b) <= 80)
				printf("%s, %s\n", a, b);
			else
				fprintf_wrapped(stdout, 80, 2, "%s,\n%s", a, b);
		}
	}
	/* runs copied from a source that could not summarise them (a
	 * reader's role) are summarised in the destination */
	if (!rc)
		run_summary_backfill(dst);
out:
	free(runs);
	store_close(src);
	store_close(dst);
	return rc ? -1 : close_stdout();
}

/* push and pull: the same options but for the direction's name. */
static int push_pull(int argc, char **argv, int push)
{
	const struct opt_def *defs = push ? push_options : pull_options;
	const char *cmd = push ? "push" : "pull";
	struct option longopts[ARRAY_SIZE(push_options) + 1];
	const char *db = NULL, *url = NULL;
	int c, replace = 0;

	opt_longopts(defs, ARRAY_SIZE(push_options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 't': case 'f': url = optarg; break;
		case 'r': replace = 1; break;
		case 'h': (push ? push_usage : pull_usage)(stdout); return 0;
		default: return opt_bad(cmd);
		}
	}
	if (!url) {
		error("%s needs %s URL", cmd, push ? "--to" : "--from");
		return opt_bad(cmd);
	}
	if (optind >= argc) {
		error("%s needs a RUN", cmd);
		return opt_bad(cmd);
	}
	db = db_path_default(db);
	return push ? copy_runs(cmd, db, url, 1, replace, argv + optind,
				argc - optind)
		    : copy_runs(cmd, url, db, 0, replace, argv + optind,
				argc - optind);
}

int cmd_push(int argc, char **argv)
{
	return push_pull(argc, argv, 1);
}

int cmd_pull(int argc, char **argv)
{
	return push_pull(argc, argv, 0);
}
