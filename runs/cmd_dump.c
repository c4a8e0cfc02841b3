/* `iotape dump`: print a run's events in blkparse's default per-event format
 * (blkparse(1); blkparse_fmt.c process_default()), so a stored run can be
 * read, grepped and diffed as engineers read blkparse output. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs/blkparse_print.h"
#include "analyze/runview.h"
#include "trace/blktrace_format.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"

struct dump_ctx {
	FILE *fp;
	int64_t genesis;
	const struct runview *rv;
	int werr;            /* errno of a failed write to fp */
	uint64_t n;          /* events printed */
};

static int dump_cb(void *vctx, const struct bt_event *ev)
{
	struct dump_ctx *d = vctx;

	errno = 0;
	d->n++;
	blkparse_print_event(d->fp, ev, d->genesis, runview_comm(d->rv, ev->pid));
	if (ferror(d->fp)) {
		d->werr = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	RV_FILTER_OPTS,
	{ "help", 0, 'h', NULL, NULL },
};

static void dump_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape dump [--db FILE] [--from T] [--to T] [--dev M,m]... RUN\n"
"\n"
"Prints RUN's events as blkparse prints them by default (one line per event:\n"
"dev cpu sequence seconds.nanoseconds pid action RWBS details), times\n"
"relative to the first event. No summary. --from and --to keep the events\n"
"whose time is in [from, to).\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 13, NULL);
}

int cmd_dump(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL;
	struct runview rv;
	struct dump_ctx d;
	struct rv_filter filt;
	int c, rc;

	rv_filter_init(&filt);
	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case RV_OPT_FROM: case RV_OPT_TO: case RV_OPT_DEV:
			if (rv_filter_opt(&filt, c, optarg))
				return 2;
			break;
		case 'h': dump_usage(stdout); return 0;
		default: return opt_bad("dump");
		}
	}
	if (optind != argc - 1) {
		error(optind == argc ? "dump needs a RUN" : "dump takes one RUN");
		return opt_bad("dump");
	}
	if (runview_open(&rv, db_path_default(db), argv[optind]))
		return -1;
	if (runview_set_filter(&rv, &filt)) {
		runview_close(&rv);
		return -1;
	}
	d.fp = stdout;
	d.genesis = rv.genesis_ns;
	d.rv = &rv;
	d.werr = 0;
	d.n = 0;
	rc = runview_events(&rv, dump_cb, &d);
	/* nothing printed and nothing said: a run of samples or commands
	 * alone (an iostat log, a time paste) read as an empty dump */
	if (!rc && !d.n)
		notice("run '%s' has no block events%s (iotape report, vmstat or "
		       "iostat shows what it has)", rv.name, filt.from_ns > 0 ||
		       filt.to_ns != INT64_MAX || filt.ndev ? " in the range asked" : "");
	runview_close(&rv);
	if (!rc && fflush(stdout)) {
		d.werr = errno ? errno : EIO;
		rc = -1;
	}
	if (rc && d.werr)
		return error("dump of '%s': cannot write to standard output: %s",
			     argv[optind], strerror(d.werr));
	return rc ? error("dump of '%s' failed", argv[optind]) : 0;
}
