/* iotape: record, replay and explain block I/O. main() only dispatches to
 * the subcommand named by argv[1], looked up in one table (as git.c does).
 *
 * Adding a subcommand:
 *  1. write STAGE/cmd_NAME.c with `int cmd_NAME(int argc, char **argv)` that
 *     parses argv into a struct and calls a function tests can call directly;
 *  2. declare it in commands.h and add a row to commands[] below;
 *  3. nothing in the Makefile: it builds every .c of each stage's folder;
 *  4. add tests under tests/ and a section to docs/iotape.md (the help and the
 *     doc are checked against each other by tests/cli/t_help.sh). The man page
 *     is built from that doc and shell completion reads --help: no edit there. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "lib/util.h"

static const struct command commands[] = {
	{ "capture", cmd_capture, "record a run: block events, /proc samples, timings" },
	{ "record", cmd_record, "flight recorder: keep recent I/O, save incidents as runs" },
	{ "import", cmd_import, "read traces, iologs, iostat and time logs into runs" },
	{ "runs", cmd_runs, "list the runs in the database" },
	{ "rm", cmd_rm, "delete runs (names, ids, globs) with all their rows" },
	{ "mv", cmd_mv, "rename a run" },
	{ "label", cmd_label, "label runs KEY=VALUE (fs=ext2) for compare to group by" },
	{ "metric", cmd_metric, "list a run's workload metrics, or set them by hand" },
	{ "vacuum", cmd_vacuum, "give deleted runs' space back; sizes before, after" },
	{ "push", cmd_push, "copy runs to a shared store (PostgreSQL) as HOST:RUN" },
	{ "pull", cmd_pull, "copy runs from a shared store into the local one" },
	{ "fleet", cmd_fleet, "rank a shared store's runs by a latency figure" },
	{ "dump", cmd_dump, "print a run's events as blkparse does" },
	{ "report", cmd_report, "per-device and per-process I/O figures (btt's terms)" },
	{ "compare", cmd_compare, "runs side by side, and why they differ" },
	{ "export", cmd_export, "write a run for fio, btt, blkparse or a spreadsheet" },
	{ "plot", cmd_plot, "gnuplot pictures of runs: seek, tput, lat, qd, vm, ..." },
	{ "mail", cmd_mail, "one 80-column text of runs compared, to paste in mail" },
	{ "iostat", cmd_iostat, "iostat -x's table per interval, from a run's trace" },
	{ "vmstat", cmd_vmstat, "a run's samples as vmstat(8)'s table" },
	{ "replay", cmd_replay, "reissue a run's I/O on a device or file, stored as a run" },
	{ "model", cmd_model, "modelled rotating disks: list profiles, fit one to a trace" },
	{ "disk", cmd_disk, "a modelled disk as a block device, in real time (FUSE, loop)" },
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: iotape [--version] [--help] COMMAND [ARGS]\n\n"
		    "commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(fp, "   %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(fp, "\nEvery command takes --db FILE (default $IOTAPE_DB or "
		    "iotape.db) and --help.\n"
		    "A RUN is a run's name or its id; a new run's name is not "
		    "digits only.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* An unknown command: one line, with the closest commands of the table
 * when a typo explains it (git's help_unknown_cmd(): "did you mean"). The
 * bound: at most 2 edits, and fewer than the name has bytes. */
static int unknown_command(const char *name)
{
	int best = 3, n = 0;
	char list[256] = "";

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		int d = str_distance(name, commands[i].name);
		if (d < best && d < (int)strlen(name))
			best = d;
	}
	for (size_t i = 0; best <= 2 && i < ARRAY_SIZE(commands); i++)
		if (str_distance(name, commands[i].name) == best) {
			size_t o = strlen(list);
			snprintf(list + o, sizeof(list) - o, "%s'%s'", n++ ? ", " : "",
				 commands[i].name);
		}
	if (n)
		error("'%s' is not an iotape command; did you mean %s%s?", name,
		      n > 1 ? "one of " : "", list);
	else
		error("'%s' is not an iotape command; see 'iotape --help'", name);
	return 2;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int rc;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2 && (cmd = find_command(argv[2]))) {
			char *av[] = { argv[2], "--help", NULL };
			return cmd->fn(2, av) ? 1 : 0;
		}
		/* "iotape help nosuch" as "iotape nosuch": said, exit 2 */
		if (argc > 2)
			return unknown_command(argv[2]);
		usage(stdout);
		return close_stdout() ? 1 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("iotape %s\n", IOTAPE_VERSION);
		return close_stdout() ? 1 : 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	{
		/* "iotape CMD" in opt_next()'s messages */
		char self[64];
		snprintf(self, sizeof(self), "iotape %s", cmd->name);
		argv[1] = self;
		rc = cmd->fn(argc - 1, argv + 1);
	}
	if (!rc && close_stdout())
		rc = -1;
	return rc < 0 ? 1 : rc;
}
