/* `iotape record`: parses argv into struct record_opts and calls
 * record_run() (record/record.c), the flight recorder; `--save` asks a
 * running one to save, `--reset` puts back what a killed one left. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/lab.h"
#include "record/record.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"

static const struct opt_def options[] = {
	{ "device", 1, 'd', "DEV", "a device to trace (path, or major:minor); "
	  "repeatable;\ndefault: the disk of the current folder and every\ndisk "
	  "holding active swap" },
	{ "window", 1, 'W', "DUR", "keep this much history (units ms s m h; "
	  "default 120s)" },
	{ "keep", 1, 'K', "SIZE", "history kept, events and samples (K M G;\n"
	  "default 64M; at least 320K); over --mem\nneeds --out" },
	{ "mem", 1, 'M', "SIZE", "of it in memory (default: all of --keep;\n"
	  "with --out 64M or --keep if smaller); the\nrest spills to --out" },
	{ "out", 1, 'O', "DIR", "spill the ring past --mem to files in DIR,\n"
	  "and save to DIR/incidents.db unless --db" },
	{ "allow-traced", 0, 'A', NULL, "let --db or --out be on a traced disk" },
	{ "pre", 1, 'p', "DUR", "a save starts this long before its trigger "
	  "(default 60s)" },
	{ "post", 1, 'o', "DUR", "and ends this long after it (default 30s)" },
	{ "trigger", 1, 't', "EXPR", "save when EXPR holds; repeatable (at most "
	  "8):\n"
	  "[read_|write_]q2c_p99>50ms[/5s][@DEV] (q2c or d2c;\np50 p90 p95 p99 "
	  "p999 max; over a sliding window,\ndefault 5s; on DEV only: a name or "
	  "MAJ,MIN),\npsi_io_some>150ms/1s (io memory cpu; some full),\n"
	  "swapout>10MB/s[/5s] (/proc/vmstat pswpout per s\nover the window),\n"
	  "dirty>1G, writeback>200M (/proc/meminfo Dirty,\nWriteback),\n"
	  "stuck>10s[@DEV] (a disk with I/O issued and none\ncompleted for 10s)" },
	{ "hook", 1, 'H', "CMD", "after each save run sh -c CMD, not waited "
	  "for, with\nIOTAPE_RUN, IOTAPE_TRIGGER, IOTAPE_THRESHOLD,\n"
	  "IOTAPE_VALUE and IOTAPE_DB set; its exit status\ngoes to stderr" },
	{ "cooldown", 1, 'c', "DUR", "one automatic save per this (default 60s)" },
	{ "interval", 1, 'i', "DUR", "between /proc samples (default 1s)" },
	{ "buffer-kb", 1, 'k', "KB", "tracefs ring buffer per CPU (default 4096)" },
	{ "save", 0, 'V', NULL, "ask the running recorder to save now (as "
	  "SIGUSR1)" },
	{ "reset", 0, 'Z', NULL, "put back what a killed recorder or capture "
	  "left changed" },
	{ "db", 1, 'b', "FILE", "the database the saves go to (default\n"
	  "DIR/incidents.db with --out, else $IOTAPE_DB\nor iotape.db)" },
	{ "quiet", 0, 'q', NULL, "no progress on stderr" },
	{ "proc", 1, 'P', "DIR", NULL },
	{ "tracefs", 1, 'T', "DIR", NULL },
	{ "state-dir", 1, 'S', "DIR", "where /proc, tracefs and the\nlock, state "
	  "and pid file are (for tests)" },
	{ "help", 0, 'h', NULL, NULL },
};

#define HELP_COL 20
#define SHORT_OPTS "d"

/* parse_duration(), and more than 0 (a window, pre, post, cooldown or
 * interval of nothing is no setting). */
static int parse_dur(const char *s, const char *opt, double *out)
{
	double v;

	if (parse_duration(s, opt, &v))
		return -1;
	if (!(v > 0))
		return error("invalid duration '%s' for %s", s, opt);
	*out = v;
	return 0;
}

static void record_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape record [--out DIR] [--db FILE] [-d DEV]... [--window DUR]\n"
"                     [--keep SIZE] [--mem SIZE] [--pre DUR] [--post DUR]\n"
"                     [--trigger EXPR]... [--cooldown DUR] [--interval DUR]\n"
"                     [--buffer-kb KB] [--hook CMD] [--allow-traced]\n"
"       iotape record --save | --reset\n"
"\n"
"The flight recorder: keeps the last --window of block events and /proc\n"
"samples in a ring of --keep bytes (in memory, past --mem in files in --out;\n"
"oldest dropped first), and on a trigger (or SIGUSR1, or --save) stores\n"
"[trigger - pre, trigger + post] as a run named incident-YYYY-MM-DDTHH:MM:SS.\n"
"Triggers within --cooldown of a saved one are skipped; one during a save's\n"
"window extends it. Samples /proc/vmstat, meminfo, stat, pressure and the\n"
"traced disks' diskstats. Runs until SIGINT or SIGTERM, then puts tracefs\n"
"back. A save that fails (a full disk) stores nothing and is tried again at\n"
"the next trigger.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), HELP_COL, SHORT_OPTS);
	fprintf(fp,
"Budget: memory --mem (locked with mlock() when the memlock limit allows)\n"
"plus the tracer's reader buffer (2 MiB), the latency table (2 MiB with a\n"
"latency trigger) and a few MB; CPU: about 0.3%% of a core idle and 3%% at\n"
"40k I/Os per second (the drain of the events; make bench, on a 2-core VM),\n"
"at nice 10 and best-effort I/O priority 7; disk: --keep - --mem in --out,\n"
"and the saves.\n"
"Needs root. Takes the capture lock in /run/iotape while it runs.\n");
}

static int parse_option(struct record_opts *o, int c)
{
	char err[256];
	uint64_t v;

	switch (c) {
	case 'b': o->db = optarg; break;
	case 'd':
		if (o->ndevspec >= RECORD_MAX_DEVS)
			return error("too many devices (at most %d)", RECORD_MAX_DEVS);
		o->devspecs[o->ndevspec++] = optarg;
		break;
	case 'W': return parse_dur(optarg, "--window", &o->window_s);
	case 'p': return parse_dur(optarg, "--pre", &o->pre_s);
	case 'o': return parse_dur(optarg, "--post", &o->post_s);
	case 'c': return parse_dur(optarg, "--cooldown", &o->cooldown_s);
	case 'i':
		/* one message: the duration's, else the range's */
		if (parse_dur(optarg, "--interval", &o->interval_s))
			return -1;
		if (o->interval_s < 0.01 || o->interval_s > 3600)
			return error("--interval takes 10ms to 1h");
		break;
	case 'K':
		if (parse_size(optarg, "--keep", &o->keep_bytes))
			return -1;
		break;
	case 'M':
		if (parse_size(optarg, "--mem", &o->mem_bytes))
			return -1;
		break;
	case 'O': o->out_dir = optarg; break;
	case 'A': o->allow_traced = 1; break;
	case 't':
		if (o->ntrig >= RECLAT_MAX_TRIG)
			return error("too many triggers (at most %d)", RECLAT_MAX_TRIG);
		if (rectrig_parse(optarg, &o->trig[o->ntrig], err, sizeof(err)))
			return error("%s", err);
		o->ntrig++;
		break;
	case 'k':
		if (parse_u64_range(optarg, "--buffer-kb", 64, 4194304, NULL, &v))
			return 2;
		o->buffer_kb = (unsigned)v;
		break;
	case 'q': o->quiet = 1; break;
	case 'H': o->hook = optarg; break;
	case 'T': o->tracefs = optarg; break;
	case 'P': o->mp.proc = optarg; break;
	case 'S': o->state_dir = optarg; break;
	default: return opt_bad("record");
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct record_opts o = {
		.window_s = 120, .keep_bytes = 64u << 20, .pre_s = 60, .post_s = 30,
		.cooldown_s = 60, .interval_s = 1, .buffer_kb = 4096,
		.mp = { .proc = "/proc", .sys = "/sys" },
		.tracefs = "/sys/kernel/tracing", .state_dir = LAB_DIR_DEFAULT,
	};
	int c, reset = 0, save = 0;
	static char dbpath[4096];

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "hd:", longopts)) != -1) {
		if (c == 'h') {
			record_usage(stdout);
			return 0;
		}
		if (c == 'Z')
			reset = 1;
		else if (c == 'V')
			save = 1;
		else if (c == '?')
			return opt_bad("record");
		else if (parse_option(&o, c))
			return 2;
	}
	if (optind < argc)
		return error("unexpected argument '%s'", argv[optind]), 2;
	if (reset)
		return lab_reset(o.state_dir) ? -1 : 0;
	if (save)
		return record_signal_save(o.state_dir);
	if (!o.mem_bytes)
		o.mem_bytes = !o.out_dir ? o.keep_bytes : o.keep_bytes < (64u << 20)
			      ? o.keep_bytes : 64u << 20;
	if (o.mem_bytes > o.keep_bytes)
		o.keep_bytes = o.mem_bytes;
	if (o.keep_bytes > o.mem_bytes && !o.out_dir)
		return error("--keep (%" PRIu64 " MiB) over --mem (%" PRIu64 " MiB) "
			     "needs --out DIR to spill to", o.keep_bytes >> 20,
			     o.mem_bytes >> 20), 2;
	if (o.out_dir && !o.db) {
		snprintf(dbpath, sizeof(dbpath), "%s/incidents.db", o.out_dir);
		o.db = dbpath;
	}
	if (o.pre_s + o.post_s > o.window_s)
		return error("--pre + --post (%g s) must fit in --window (%g s)",
			     o.pre_s + o.post_s, o.window_s), 2;
	if (geteuid() != 0)
		return error("record needs root (tracefs)");
	return record_run(&o);
}
