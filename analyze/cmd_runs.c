/* `iotape runs`: list the runs of a database, one line each. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze/runview.h"
#include "commands.h"
#include "lib/util.h"
#include "schema/store.h"

static void runs_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape runs [--db FILE]\n"
"\n"
"Lists the runs: id, name, kind, status, events, requests (stitched I/Os),\n"
"time span in seconds, devices (major,minor) and source.\n"
"  --db FILE  the database (default $IOTAPE_DB or iotape.db)\n");
}

int cmd_runs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = NULL;
	struct store *st = NULL;
	sqlite3_stmt *s;
	int c, width = 20;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'h': runs_usage(stdout); return 0;
		default: runs_usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		runs_usage(stderr);
		return 2;
	}
	db = db_path_default(db);
	if (!(st = store_open_existing(db)))
		return -1;
	if (sqlite3_prepare_v2(store_db(st),
		"SELECT id, name, kind, status,"
		" coalesce(last_event - first_event + 1, 0),"
		" (SELECT count(*) FROM requests WHERE run = r.id),"
		" coalesce((SELECT CAST(value AS INTEGER) FROM run_stats WHERE run = r.id"
		"   AND key = 'active_span_ns') / 1e9,"
		"   max((SELECT time_ns FROM events WHERE id = r.last_event)"
		"   - genesis_ns, 0) / 1e9, 0),"
		" (SELECT group_concat((dev >> 20) || ',' || (dev & 1048575), ' ')"
		"   FROM devices WHERE run = r.id),"
		" coalesce(source, '')"
		" FROM runs r ORDER BY id", -1, &s, NULL) != SQLITE_OK) {
		error("%s: %s", db, sqlite3_errmsg(store_db(st)));
		store_close(st);
		return -1;
	}
	{
		/* the name column as wide as the longest name (up to 48) */
		int64_t w = 20;
		store_query_i64(st, "SELECT max(length(name)) FROM runs", 0, NULL, &w);
		width = w < 20 ? 20 : w > 48 ? 48 : (int)w;
	}
	printf("%4s %-*s %-7s %-11s %10s %9s %9s %s\n", "id", width, "name", "kind",
	       "status", "events", "requests", "span_s", "devices");
	while (sqlite3_step(s) == SQLITE_ROW) {
		printf("%4" PRId64 " %-*s %-7s %-11s %10" PRId64 " %9" PRId64
		       " %9.3f %s\n", (int64_t)sqlite3_column_int64(s, 0), width,
		       sqlite3_column_text(s, 1), sqlite3_column_text(s, 2),
		       sqlite3_column_text(s, 3),
		       (int64_t)sqlite3_column_int64(s, 4),
		       (int64_t)sqlite3_column_int64(s, 5),
		       sqlite3_column_double(s, 6),
		       sqlite3_column_text(s, 7) ? (const char *)sqlite3_column_text(s, 7) : "-");
	}
	sqlite3_finalize(s);
	store_close(st);
	return 0;
}
