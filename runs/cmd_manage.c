/* `iotape rm`, `iotape mv`, `iotape vacuum`: delete and rename runs, give
 * the space of deleted runs back; argv parsing only (runs/manage.c and
 * the store do the work). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runs/manage.h"
#include "analyze/summary.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "schema/store.h"

static const struct opt_def rm_options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "force", 0, 'f', NULL, "delete when RUN... picks more than one run "
	  "(without it: asked on a terminal, refused otherwise)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void rm_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape rm [--db FILE] [--force] RUN...\n"
"\n"
"Deletes runs with everything stored for them (events, requests, samples,\n"
"settings, devices, processes, commands, statistics, replayed I/Os), in one\n"
"transaction. RUN is a name, an id or a glob over the names ('seed-*').\n"
"Replays of a deleted run are kept, with no parent. The file keeps its size\n"
"until 'iotape vacuum'.\n");
	opt_usage(fp, rm_options, ARRAY_SIZE(rm_options), 15, "f");
}

/* Asks on the terminal whether to delete n runs; 1 for yes. */
static int confirm(size_t n)
{
	char line[16];

	fprintf(stderr, "iotape: delete these %zu runs? [y/N] ", n);
	fflush(stderr);
	return fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
}

int cmd_rm(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(rm_options) + 1];
	const char *db = NULL;
	struct store *st = NULL;
	struct run_ref *runs = NULL;
	size_t n = 0;
	int64_t kept = 0;
	char err[1024];
	int c, force = 0, rc;

	opt_longopts(rm_options, ARRAY_SIZE(rm_options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "fh", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'f': force = 1; break;
		case 'h': rm_usage(stdout); return 0;
		default: return opt_bad("rm");
		}
	}
	if (optind >= argc) {
		error("rm needs a RUN");
		return opt_bad("rm");
	}
	db = db_path_default(db);
	if (store_open(&st, db, 0) || run_summary_backfill(st)) {
		error("%s: %s", store_shown(db), store_errmsg(st));
		store_close(st);
		return -1;
	}
	rc = manage_resolve(st, argv + optind, argc - optind, &runs, &n, err,
			    sizeof(err));
	if (!rc && n > 1 && !force) {
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "  %" PRId64 " %s\n", runs[i].id, runs[i].name);
		if (!isatty(STDIN_FILENO) || !confirm(n)) {
			error("%zu runs match; give --force to delete them all", n);
			free(runs);
			store_close(st);
			return 2;
		}
	}
	if (!rc && (rc = manage_rm(st, runs, n, &kept, err, sizeof(err)))) {
		/* the store and the runs a failed delete left as they were
		 * ("deleting run: attempt to write a readonly database" said
		 * neither) */
		if (n == 1)
			error("%s: run '%.60s' not deleted: %s", store_shown(db),
			      runs[0].name, err);
		else
			error("%s: %zu runs not deleted: %s", store_shown(db), n, err);
	} else if (rc)
		error("%s", err);
	for (size_t i = 0; i < n && !rc; i++)
		fprintf_wrapped(stdout, 80, 2, "deleted run '%s' (id %" PRId64 ")",
				runs[i].name, runs[i].id);
	if (!rc && kept)
		printf("kept %" PRId64 " replay(s) of them, now with no parent\n", kept);
	free(runs);
	store_close(st);
	return rc ? -1 : 0;
}

static const struct opt_def mv_options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void mv_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape mv [--db FILE] OLD NEW\n"
"\n"
"Renames run OLD (a name or an id) to NEW; refuses a name another run has,\n"
"and a NEW of digits only (it would read as a run id).\n");
	opt_usage(fp, mv_options, ARRAY_SIZE(mv_options), 13, NULL);
}

int cmd_mv(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(mv_options) + 1];
	const char *db = NULL;
	struct store *st = NULL;
	char err[1024];
	int c, rc;

	opt_longopts(mv_options, ARRAY_SIZE(mv_options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'h': mv_usage(stdout); return 0;
		default: return opt_bad("mv");
		}
	}
	if (argc - optind != 2) {
		error("mv needs OLD and NEW");
		return opt_bad("mv");
	}
	if (check_run_name(argv[optind + 1]))
		return 2;
	db = db_path_default(db);
	if (store_open(&st, db, 0) || run_summary_backfill(st)) {
		error("%s: %s", store_shown(db), store_errmsg(st));
		store_close(st);
		return -1;
	}
	rc = manage_mv(st, argv[optind], argv[optind + 1], err, sizeof(err));
	if (rc)
		error("%s: %s", store_shown(db), err);
	store_close(st);
	return rc ? -1 : 0;
}

static const struct opt_def vacuum_options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void vacuum_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape vacuum [--db FILE]\n"
"\n"
"Rewrites the database so the space of deleted runs goes back to the file\n"
"system (SQLite's VACUUM; needs about the database's size free on disk), and\n"
"prints its size before and after. On PostgreSQL, VACUUM of the store's\n"
"tables (their owner's to run: another role is told nothing was done) makes\n"
"the space reusable and gives little back.\n");
	opt_usage(fp, vacuum_options, ARRAY_SIZE(vacuum_options), 13, NULL);
}

int cmd_vacuum(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(vacuum_options) + 1];
	const char *db = NULL;
	struct store *st = NULL;
	int64_t before = 0, after = 0;
	int c;

	opt_longopts(vacuum_options, ARRAY_SIZE(vacuum_options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'h': vacuum_usage(stdout); return 0;
		default: return opt_bad("vacuum");
		}
	}
	if (optind != argc) {
		error("vacuum takes no arguments ('%s')", argv[optind]);
		return opt_bad("vacuum");
	}
	db = db_path_default(db);
	/* an opening's message names the store itself ("future.db: database
	 * schema version 99 is newer ..."), as `runs` prints it */
	if (store_open_existing(&st, db)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	if (run_summary_backfill(st) || store_vacuum(st, &before, &after)) {
		error("%s: %s", store_shown(db), store_errmsg(st));
		store_close(st);
		return -1;
	}
	/* the store as messages name it: no password of a URL */
	if (after <= before)
		fprintf_wrapped(stdout, 80, 2, "%s: %" PRId64 " bytes before, %"
				PRId64 " after (%.1f MiB freed)", store_name(st),
				before, after,
				(double)(before - after) / (1024.0 * 1024.0));
	else
		fprintf_wrapped(stdout, 80, 2, "%s: %" PRId64 " bytes before, %"
				PRId64 " after (nothing freed: %.1f MiB more, the "
				"server keeps deleted rows' space for new ones)",
				store_name(st), before, after,
				(double)(after - before) / (1024.0 * 1024.0));
	store_close(st);
	return 0;
}
