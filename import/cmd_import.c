/* `iotape import`: parses argv into struct import_opts and calls
 * import_run() (import/import.c), which reads each input, in any format of
 * import_formats[] (import/formats.c), blktrace files (single stream or
 * per-CPU set), blkparse text or vmstat logs, into runs of the store. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/formats.h"
#include "import/import.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "run", 1, 'r', "NAME", "name of the run (one INPUT only; default: the "
	  "file's name without a .gz/.xz/.zst/.bz2, or stdin; 7.bin: run-7); not digits only, which read as a run id; a vmstat or iostat log or a time paste given an "
	  "existing run's name joins that run" },
	{ "strict", 0, 's', NULL, "a trace cut short inside a record is an "
	  "error, not a warning" },
	{ "quiet", 0, 'q', NULL, "no summary or warnings on stderr" },
	{ "split", 0, 'S', NULL, "traces of several disks (MSR, SYSTOR): one run "
	  "per disk, not one per host" },
	{ "names", 1, 'N', "FILE", "process names: 'PID NAME' lines (tracefs "
	  "saved_cmdlines, ps -eo pid,comm); for traces that carry none "
	  "(tracefs)" },
	{ "interval", 1, 'i', "SEC", "vmstat and iostat logs: seconds between "
	  "rows (default: from the log's timestamps, else from its date lines "
	  "(vmstat), else 1)" },
	{ "no-boot-row", 0, 'n', NULL, "vmstat and iostat logs: the first row is "
	  "an interval's, not the since-boot average ('vmstat -t 1 2 | tail -n "
	  "1', iostat -y)" },
	{ "again", 0, 'A', NULL, "import a trace (blktrace, blkparse, fio, MSR...) whose bytes "
	  "(SHA-256) a run already holds (without it: refused, naming the run)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void import_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape import [--db FILE] [--run NAME] [--strict] [--quiet] [--split]\n"
"                     [--interval SEC] [--no-boot-row] [--names FILE] [--again]\n"
"                     INPUT...\n"
"\n"
"Reads each INPUT into a run of its own, in one transaction: nothing is\n"
"stored unless every input reads cleanly. INPUT is a file in one of the\n"
"formats below, told from its content (a per-CPU set also as NAME for\n"
"NAME.blktrace.N); '-' is stdin, and a pipe or <(...) works too. gzip, xz,\n"
"zstd and bzip2 inputs (told from their magic bytes) are decompressed;\n"
"stdin, pipes and compressed inputs are spooled into $TMPDIR (default\n"
"/tmp) while they are read.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 18, NULL);
	fprintf(fp, "\nformats (docs/IMPORT.md maps their fields):\n");
	for (size_t i = 0; i < import_nformats; i++)
		fprintf(fp, "  %-17s %s\n", import_formats[i].name,
			import_formats[i].what);
}

int cmd_import(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct import_opts o = { 0 };
	struct import_result *res;
	char err[1024];
	int c, rc, again = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': o.db = optarg; break;
		case 'r': o.name = optarg; break;
		case 's': o.strict = 1; break;
		case 'q': o.quiet = 1; break;
		case 'S': o.split = 1; break;
		case 'N': o.names = optarg; break;
		case 'i':
			if (parse_seconds(optarg, "--interval", &o.interval_s))
				return 2;
			break;
		case 'n': o.no_boot_row = 1; break;
		case 'A': again = 1; break;
		case 'h': import_usage(stdout); return 0;
		default: return opt_bad("import");
		}
	}
	if (optind >= argc) {
		error("import needs an INPUT");
		return opt_bad("import");
	}
	if (o.name && argc - optind > 1)
		return error("--run names one run; give one INPUT with it");
	if (o.name && check_run_name(o.name))
		return 2;
	o.once = !again;
	o.inputs = argv + optind;
	o.ninput = argc - optind;
	res = xcalloc((size_t)o.ninput, sizeof(*res));
	rc = import_run(&o, res, err, sizeof(err));
	if (rc)
		error("%s", err);
	for (int i = 0; i < o.ninput && !rc && !o.quiet; i++)
		notice("%s", res[i].summary);   /* it quotes the input's path */
	free(res);
	return rc ? -1 : 0;
}
