/* `iotape label`: labels runs with KEY=VALUE (fs=ext2, kernel=2.6.1-mm4),
 * stored as settings read at start, so compare --group-by and --across
 * (and every reader of settings) treat them as a capture's own. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs/manage.h"
#include "analyze/summary.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "schema/store.h"

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void label_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape label [--db FILE] RUN [KEY=VALUE...]\n"
"\n"
"With KEY=VALUE, labels the runs RUN picks (a name, an id or a glob such as\n"
"'dbt2-ext2-*') in one transaction: each label is stored as a setting read\n"
"at the start, replacing one of the same key, as capture's label option\n"
"does, for compare --group-by KEY and --across KEY. KEY: letters, digits,\n"
"_ . : / - (not capture.*). Without, prints each run's settings read at\n"
"the start (labels, sysctls, queue attributes) as KEY=VALUE lines.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 15, NULL);
}

static int print_settings(struct store *st, const struct run_ref *r, int many)
{
	struct store_setting *s;
	size_t n;

	if (store_settings_get(st, r->id, &s, &n))
		return error("%s", store_errmsg(st));
	for (size_t i = 0; i < n; i++)
		if (s[i].at == STORE_AT_START)
			printf("%s%s%s=%s\n", many ? r->name : "", many ? ": " : "",
			       s[i].key, s[i].value ? s[i].value : "");
	free(s);
	return 0;
}

int cmd_label(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL;
	struct store *st = NULL;
	struct run_ref *runs = NULL;
	size_t n = 0;
	char err[1024];
	int c, rc = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'h': label_usage(stdout); return 0;
		default: return opt_bad("label");
		}
	}
	if (optind >= argc) {
		error("label needs a RUN; see 'iotape label --help'");
		return 2;
	}
	for (int i = optind + 1; i < argc; i++)
		if (check_label(argv[i]))
			return 2;
	db = db_path_default(db);
	if (store_open_existing(&st, db) || run_summary_backfill(st)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	if (manage_resolve(st, argv + optind, 1, &runs, &n, err, sizeof(err))) {
		rc = error("%s: %s", store_shown(db), err);
	} else if (optind + 1 == argc) {
		for (size_t k = 0; k < n && !rc; k++)
			rc = print_settings(st, &runs[k], n > 1);
	} else if (store_begin(st)) {
		rc = error("%s: %s", store_shown(db), store_errmsg(st));
	} else {
		for (size_t k = 0; k < n && !rc; k++)
			for (int i = optind + 1; i < argc && !rc; i++) {
				const char *eq = strchr(argv[i], '=');
				char key[96];
				snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]),
					 argv[i]);
				if (store_setting_add(st, runs[k].id, key, eq + 1, "start"))
					rc = error("%s: %s", store_shown(db), store_errmsg(st));
			}
		if (rc)
			store_rollback(st);
		else if (store_commit(st))
			rc = error("%s: %s", store_shown(db), store_errmsg(st));
	}
	free(runs);
	store_close(st);
	return rc;
}
