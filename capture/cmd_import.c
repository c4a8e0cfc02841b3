/* `iotape import`: parses argv into struct import_opts and calls
 * import_run() (capture/import.c), which reads blktrace files (single stream
 * or per-CPU set), blkparse text or vmstat logs into runs of the store. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture/import.h"
#include "commands.h"
#include "lib/util.h"

static void import_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape import [--db FILE] [--run NAME] [--strict] [--quiet]\n"
"                     [--interval SEC] [--no-boot-row] [--names FILE] INPUT...\n"
"\n"
"Reads each INPUT into a run of its own, in one transaction: nothing is\n"
"stored unless every input reads cleanly.\n"
"  INPUT      a blktrace binary stream (tracefs blk tracer output, a blkparse\n"
"             -d dump), a per-CPU set (NAME for NAME.blktrace.N, or any\n"
"             member), blkparse's default text output, or a vmstat(8) log\n"
"  --db FILE  the database (default $IOTAPE_DB or iotape.db)\n"
"  --run NAME name of the run (one INPUT only; default: the file's name);\n"
"             a vmstat log given an existing run's name joins that run\n"
"  --strict   a trace cut short inside a record is an error, not a warning\n"
"  --quiet    no summary or warnings on stderr\n"
"  --names FILE  process names: 'PID NAME' lines (tracefs saved_cmdlines,\n"
"             ps -eo pid,comm); for traces that carry none (tracefs)\n"
"  --interval SEC  vmstat logs: seconds between rows (default: from the\n"
"             log's timestamps, else 1)\n"
"  --no-boot-row  vmstat logs: the first row is an interval's, not the\n"
"             since-boot average (logs of 'vmstat -t 1 2 | tail -n 1')\n");
}

int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'b' },
		{ "run", required_argument, NULL, 'r' },
		{ "strict", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "names", required_argument, NULL, 'N' },
		{ "interval", required_argument, NULL, 'i' },
		{ "no-boot-row", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct import_opts o = { 0 };
	struct import_result *res;
	char err[1024];
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.db = optarg; break;
		case 'r': o.name = optarg; break;
		case 's': o.strict = 1; break;
		case 'q': o.quiet = 1; break;
		case 'N': o.names = optarg; break;
		case 'i':
			if (parse_seconds(optarg, "--interval", &o.interval_s))
				return 2;
			break;
		case 'n': o.no_boot_row = 1; break;
		case 'h': import_usage(stdout); return 0;
		default: import_usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		import_usage(stderr);
		return 2;
	}
	if (o.name && argc - optind > 1)
		return error("--run names one run; give one INPUT with it");
	if (o.name && check_run_name(o.name))
		return 2;
	o.inputs = argv + optind;
	o.ninput = argc - optind;
	res = xcalloc((size_t)o.ninput, sizeof(*res));
	rc = import_run(&o, res, err, sizeof(err));
	if (rc)
		error("%s", err);
	for (int i = 0; i < o.ninput && !rc && !o.quiet; i++)
		fprintf(stderr, "iotape: %s\n", res[i].summary);
	free(res);
	return rc ? -1 : 0;
}
