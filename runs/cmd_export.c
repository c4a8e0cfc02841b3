/* `iotape export RUN --format fio|blktrace|csv|blkparse [-o FILE]`: a stored
 * run written in a format fio, btt, blkparse, seekwatcher, iowatcher or a
 * spreadsheet reads (runs/export.c). Parses argv, then exports. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runs/export.h"
#include "analyze/runview.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/outfile.h"
#include "lib/util.h"

struct export_opts {
	const char *db;
	const char *run;
	const char *out;          /* NULL: stdout */
	enum export_format fmt;
	int quiet;
	struct rv_filter filt;
};

static void export_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape export [--db FILE] --format fio|blktrace|csv|blkparse\n"
"                     [-o FILE] [--quiet] [--from T] [--to T] [--dev M,m]... RUN\n"
"\n"
"Writes RUN in a format other tools read:\n"
"  --format fio       fio iolog v3: one line per Q (per D when the run has\n"
"                     no Q) at its time in us, for fio's read_iolog (and\n"
"                     replay_redirect onto another device)\n"
"  --format blktrace  blktrace binary v7 as blkparse -d writes it, for btt,\n"
"                     blkparse, seekwatcher, iowatcher\n"
"  --format csv       one line per request: times in ns since the run's\n"
"                     start and btt's stage times (Q2G G2I Q2M I2D M2D Q2D\n"
"                     D2C Q2C) in us, with a header\n"
"  --format blkparse  blkparse's text, as iotape dump prints it\n"
"  -o, --output FILE  write FILE, made whole or not at all, keeping its mode\n"
"                     (a character device, FIFO, symlink or hard-linked\n"
"                     file: written in place; never a block device, an\n"
"                     SQLite file or an image with a file system); '-' or\n"
"                     none: stdout (a file named '-': ./-)\n"
"  --db FILE          the database (default $IOTAPE_DB or iotape.db)\n"
"  --quiet            no summary on stderr\n"
"  --from T           only what starts at or after T (a duration from the\n"
"                     run's first event: 2.5s, 500ms, 1m); a request counts\n"
"                     by its Q time, as btt -t does; events by their time\n"
"  --to T             only what starts before T (btt -T)\n"
"  --dev M,m          only device major,minor (8,0); repeat for several\n");
}

/* Exports o->run; prints one error line on failure. */
static int export_do(const struct export_opts *o)
{
	struct runview rv;
	struct export_stats st;
	struct out_file of;
	char err[512] = "";
	FILE *fp = stdout;
	int rc, werr;

	if (!o->out && o->fmt == EXPORT_BLKTRACE && isatty(STDOUT_FILENO))
		return error("blktrace records are binary: give -o FILE or a pipe");
	if (runview_open(&rv, db_path_default(o->db), o->run))
		return -1;
	if (runview_set_filter(&rv, &o->filt)) {
		runview_close(&rv);
		return -1;
	}
	/* a window or device with nothing in it: say so (as report does)
	 * rather than write a file of no I/O, which fio and import refuse */
	if (rv.filtered && (rc = runview_has_requests(&rv)) <= 0) {
		char why[512];
		if (!rc)
			error("run '%s': %s", rv.name,
			      runview_why_empty(&rv, why, sizeof(why)));
		runview_close(&rv);
		return -1;
	}
	if (o->out) {
		if ((rc = out_file_open(&of, o->out))) {
			rc = error("cannot write '%s': %s", o->out, out_file_error(rc));
			runview_close(&rv);
			return rc;
		}
		fp = of.fp;
	}
	rc = export_run(&rv, o->fmt, fp, &st, err, sizeof(err));
	werr = errno;
	if (o->out && rc) {
		/* a write error names the file the user gave, not the run */
		if (!ferror(fp))
			werr = 0;
		out_file_discard(&of);
	} else if (o->out && (rc = out_file_commit(&of))) {
		werr = -rc;
	} else {
		werr = 0;
	}
	if (werr)
		snprintf(err, sizeof(err), "cannot write '%s': %s", o->out,
			 strerror(werr));
	if (rc) {
		if (err[0])
			error("%s", err);
	} else if (!o->quiet) {
		if (o->fmt == EXPORT_FIO) {
			fprintf(stderr, "iotape: exported run '%s' as a fio iolog: %"
				PRIu64 " reads, %" PRIu64 " writes, %" PRIu64 " trims, %"
				PRIu64 " syncs (from %s events)%s\n", rv.name, st.reads,
				st.writes, st.trims, st.syncs, st.from_d ? "D" : "Q",
				st.skipped ? "; zero-length non-flush events left out" : "");
			/* what the iolog cannot say, a line each */
			for (char *l = st.note, *e; (e = strchr(l, '\n')); l = e + 1)
				fprintf(stderr, "iotape: %.*s\n", (int)(e - l), l);
		} else {
			fprintf(stderr, "iotape: exported run '%s': %" PRIu64 " %s%s\n",
				rv.name, st.records, o->fmt == EXPORT_BLKTRACE ? "records"
				: o->fmt == EXPORT_CSV ? "requests" : "lines",
				st.skipped ? " (v8-only categories dropped from some)" : "");
		}
	}
	runview_close(&rv);
	return rc ? -1 : 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "from", required_argument, NULL, RV_OPT_FROM },
		{ "to", required_argument, NULL, RV_OPT_TO },
		{ "dev", required_argument, NULL, RV_OPT_DEV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_opts o = { 0 };
	int c;

	rv_filter_init(&o.filt);
	optind = 1;
	while ((c = opt_next(argc, argv, "ho:", longopts)) != -1) {
		switch (c) {
		case 'b': o.db = optarg; break;
		case 'f':
			if (!(o.fmt = export_format_parse(optarg))) {
				error("invalid value '%s' for --format (fio, blktrace, "
				      "csv, blkparse)", optarg);
				return 2;
			}
			break;
		/* '-' is stdout, as import reads '-' from stdin */
		case 'o': o.out = strcmp(optarg, "-") ? optarg : NULL; break;
		case 'q': o.quiet = 1; break;
		case RV_OPT_FROM: case RV_OPT_TO: case RV_OPT_DEV:
			if (rv_filter_opt(&o.filt, c, optarg))
				return 2;
			break;
		case 'h': export_usage(stdout); return 0;
		default: return opt_bad("export");
		}
	}
	if (optind != argc - 1 || !o.fmt) {
		error(!o.fmt ? "export needs --format FMT" : optind == argc ?
		      "export needs a RUN" : "export takes one RUN");
		return opt_bad("export");
	}
	o.run = argv[optind];
	return export_do(&o);
}
