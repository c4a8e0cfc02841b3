/* `iotape capture`: parses argv into struct capture_opts and calls
 * capture_run() (capture/capture.c), which records real runs into the
 * store. Each option is defined once, in options[], with its help text
 * beside it; --help prints that table. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/wlmetric.h"
#include "capture/lab.h"
#include "capture/machine.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/disk.h"

static const struct opt_def options[] = {
	{ "device", 1, 'd', "DEV", "a device to trace (path, or major:minor; a "
	  "file's path\nmeans the disk holding it; the NAME of a disk of\n"
	  "'iotape disk' its loop device); repeatable;\ndefault: the "
	  "disk of the current folder and every disk\nholding active swap; "
	  "partitions map to their disk" },
	{ "interval", 1, 'i', "SEC", "seconds between /proc samples (default 1; "
	  "0.1 works)" },
	{ "duration", 1, 'D', "SEC", "stop after this long (units ms s m h; "
	  "default: when the\ncommands end, or at Ctrl-C without commands)" },
	{ "cmd", 1, 'c', "'COMMAND'", "a workload run with /bin/sh -c; repeatable: "
	  "several\n--cmd run at once; all are numbered cmd1, cmd2, ..." },
	{ "then", 1, 't', "'COMMAND'", "a workload that starts once every command "
	  "before it\nhas ended: the next step, timed on its own; more\n--cmd "
	  "after it run with it" },
	{ "before", 1, 'B', "'CMD'", "run before each run (each repeat and "
	  "swept value),\nuntraced, before the lab is taken; its time and exit\n"
	  "status are the run's before.* statistics; a failure\nstops the capture" },
	{ "after", 1, 'A', "'CMD'", "run after each run's tracer stopped, "
	  "untraced; its\ntime and status are after.* statistics" },
	{ "start-after", 1, 'a', "DUR", "start the preceding --cmd this long "
	  "after the start" },
	{ "start-when", 1, 'w', "KEY>VALUE", "start the preceding --cmd when a "
	  "sample says so:\nswap_used (kB), a /proc/vmstat counter (its "
	  "increase\nsince the start, e.g. pswpout>0) or gauge (nr_dirty),\na "
	  "meminfo or psi value; ops > >= < <= ==" },
	{ "set", 1, 's', "KEY=VALUE", "a sysctl (vm.dirty_ratio=10) or a queue "
	  "attribute\n(loop0:queue/scheduler=bfq) for the run, restored after;"
	  "\nV1,V2,... sweeps: one run per value (NAME[KEY=V])" },
	{ "metric", 1, 'E', "NAME=REGEX", "a workload metric: the first group of "
	  "REGEX (POSIX\nextended, regex(7)) on the last matching line of the "
	  "\ncommands' stdout (else stderr), as a number; repeatable.\nfio's "
	  "JSON results and dd's last line are read anyway" },
	{ "label", 1, 'L', "KEY=VALUE", "a label of the run (fs=ext2), stored as "
	  "a setting,\nfor compare to group and table runs by; repeatable" },
	{ "drop-caches", 0, 'C', NULL, "sync and drop the page cache before each "
	  "run" },
	{ "mem-limit", 1, 'm', "SIZE", "run the commands in a memory cgroup of "
	  "SIZE (512M, 1G)" },
	{ "repeat", 1, 'n', "N", "N runs, named NAME.1 .. NAME.N" },
	{ "raw", 1, 'R', "FILE", "keep the binary trace in FILE (blkparse -i - < "
	  "FILE); never the database, another SQLite file or a block device" },
	{ "buffer-kb", 1, 'k', "KB", "tracefs ring buffer per CPU (default "
	  "16384)" },
	{ "reset", 0, 'Z', NULL, "put back what a killed capture or replay left"
	  "\nchanged (run it again until it is clean), and stop every\n"
	  "disk of 'iotape disk'" },
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "run", 1, 'r', "NAME", "name of the run (default: capture); not digits "
	  "only,\nwhich read as a run id" },
	{ "quiet", 0, 'q', NULL, "no progress or warnings on stderr" },
	{ "proc", 1, 'P', "DIR", NULL },
	{ "tracefs", 1, 'T', "DIR", NULL },
	{ "state-dir", 1, 'S', "DIR", "where /proc, tracefs and the\nlock and "
	  "state file are (for tests)" },
	{ "help", 0, 'h', NULL, NULL },
};

/* The column where option help starts, and the options with a short form. */
#define HELP_COL 20
#define SHORT_OPTS "d"

static void capture_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape capture [--db FILE] [--run NAME] [-d DEV]... [--interval SEC]\n"
"                      [--duration SEC] [--cmd 'SHELL COMMAND']...\n"
"                      [--then 'SHELL COMMAND']... [--before 'COMMAND']\n"
"                      [--after 'COMMAND']\n"
"                      [--start-after DUR] [--start-when KEY>VALUE]\n"
"                      [--set KEY=VALUE[,VALUE...]]... [--drop-caches]\n"
"                      [--metric NAME=REGEX]... [--label KEY=VALUE]...\n"
"                      [--mem-limit SIZE] [--repeat N] [--raw FILE]\n"
"                      [--buffer-kb KB] [-- CMD [ARG...]]\n"
"       iotape capture --reset\n"
"\n"
"Records block events of the devices, /proc samples, each command's timings\n"
"and the settings at start and end into one run; puts back every setting it\n"
"changed (also on Ctrl-C and SIGTERM).\n");
	opt_usage(fp, options, ARRAY_SIZE(options), HELP_COL, SHORT_OPTS);
	fprintf(fp, "Needs root. Captures never overlap (a lock in /run/iotape, and one on\n"
		"tracefs for captures in other containers).\n");
}

/* ---- option values ---- */

/* "KEY>VALUE" (also >=, <, <=, ==, =). */
static int parse_cond(const char *s, struct capture_cmd *w)
{
	const char *p = s;
	size_t klen;

	while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '(' ||
		      *p == ')'))
		p++;
	klen = (size_t)(p - s);
	if (!klen || klen >= sizeof(w->when_key))
		return error("invalid --start-when '%s' (KEY>VALUE, e.g. swap_used>0)", s);
	memcpy(w->when_key, s, klen);
	w->when_key[klen] = '\0';
	if (!strncmp(p, ">=", 2)) { w->when_op = CAPTURE_GE; p += 2; }
	else if (!strncmp(p, "<=", 2)) { w->when_op = CAPTURE_LE; p += 2; }
	else if (!strncmp(p, "==", 2)) { w->when_op = CAPTURE_EQ; p += 2; }
	else if (*p == '>') { w->when_op = CAPTURE_GT; p++; }
	else if (*p == '<') { w->when_op = CAPTURE_LT; p++; }
	else if (*p == '=') { w->when_op = CAPTURE_EQ; p++; }
	else
		return error("invalid --start-when '%s' (KEY>VALUE, e.g. swap_used>0)", s);
	if (dec_double(p, DEC_SIGN | DEC_FRAC, &w->when_value, NULL))
		return error("invalid --start-when '%s': '%s' is not a number", s, p);
	w->has_when = 1;
	return 0;
}

static int parse_set(struct capture_opts *o, const char *arg)
{
	/* the key is checked here, its file found in capture_run() */
	const struct machine_paths any = { .proc = "/proc", .sys = "/sys" };
	struct capture_set *so;
	const char *eq = strchr(arg, '=');
	char *vals, *tok, *save, path[512];

	if (o->nset >= CAPTURE_MAX_SETS)
		return error("too many --set options (at most %d)", CAPTURE_MAX_SETS);
	so = &o->sets[o->nset];
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(so->key) || !eq[1])
		return error("invalid --set '%s' (KEY=VALUE or KEY=V1,V2,...)", arg);
	memcpy(so->key, arg, (size_t)(eq - arg));
	so->key[eq - arg] = '\0';
	if (machine_setting_path(&any, so->key, path, sizeof(path)))
		return error("invalid --set key '%s' (a sysctl such as "
			     "vm.dirty_ratio, or DEV:queue/ATTR)", so->key);
	vals = xstrdup(eq + 1);
	for (tok = strtok_r(vals, ",", &save); tok && so->nvalues < CAPTURE_MAX_VALUES;
	     tok = strtok_r(NULL, ",", &save))
		so->values[so->nvalues++] = xstrdup(tok);
	free(vals);
	if (!so->nvalues)
		return error("invalid --set '%s'", arg);
	o->nset++;
	return 0;
}

/* One option into o; *last is the latest --cmd, which --start-after and
 * --start-when apply to. Returns 0, or the exit code after printing why. */
static int parse_option(struct capture_opts *o, int c, struct capture_cmd **last)
{
	uint64_t v;
	int step;

	switch (c) {
	case 'b': o->db = optarg; break;
	case 'r': o->run = optarg; break;
	case 'd':
		if (o->ndevspec >= CAPTURE_MAX_DEVS)
			return error("too many devices (at most %d)", CAPTURE_MAX_DEVS);
		o->devspecs[o->ndevspec++] = optarg;
		break;
	case 'i':
		/* one message: the duration's, else the range's */
		if (parse_duration(optarg, "--interval", &o->interval_s))
			return 2;
		if (o->interval_s < 0.01 || o->interval_s > 3600)
			{ error("--interval takes 0.01 s to 1 h"); return 2; }
		break;
	case 'D':
		if (parse_duration(optarg, "--duration", &o->duration_s))
			return 2;
		break;
	case 'c':
	case 't':
		if (o->ncmd >= CAPTURE_MAX_CMDS)
			{ error("too many commands (at most %d)", CAPTURE_MAX_CMDS); return 2; }
		/* --cmd joins the step of the command before it, --then
		 * starts the next */
		step = o->ncmd ? o->cmds[o->ncmd - 1].step + (c == 't') : 0;
		*last = &o->cmds[o->ncmd++];
		(*last)->shell = optarg;
		(*last)->step = step;
		break;
	case 'B': o->before = optarg; break;
	case 'A': o->after = optarg; break;
	case 'a':
		if (!*last)
			{ error("--start-after needs a --cmd before it"); return 2; }
		if (parse_duration(optarg, "--start-after", &(*last)->after_s))
			return 2;
		break;
	case 'w':
		if (!*last)
			{ error("--start-when needs a --cmd before it"); return 2; }
		if (parse_cond(optarg, *last))
			return 2;
		break;
	case 's':
		if (parse_set(o, optarg))
			return 2;
		break;
	case 'E':
		if (o->nmetric >= CAPTURE_MAX_METRICS)
			{ error("too many --metric options (at most %d)",
				CAPTURE_MAX_METRICS); return 2; }
		{
			/* a usage error, before the root check and the lock */
			struct wlm_regex re;
			char err[400];
			if (wlm_regex_compile(&re, optarg, err, sizeof(err)))
				{ error("%s", err); return 2; }
			wlm_regex_free(&re);
		}
		o->metrics[o->nmetric++] = optarg;
		break;
	case 'L':
		if (o->nlabel >= CAPTURE_MAX_LABELS)
			{ error("too many --label options (at most %d)",
				CAPTURE_MAX_LABELS); return 2; }
		if (check_label(optarg))
			return 2;
		o->labels[o->nlabel++] = optarg;
		break;
	case 'C': o->drop_caches = 1; break;
	case 'm':
		if (parse_size(optarg, "--mem-limit", &o->mem_limit))
			return 2;
		break;
	case 'n':
		if (parse_u64_range(optarg, "--repeat", 1, 1000, NULL, &v))
			return 2;
		o->repeat = (int)v;
		break;
	case 'R': o->raw = optarg; break;
	case 'k':
		if (parse_u64_range(optarg, "--buffer-kb", 64, 4194304, NULL, &v))
			return 2;
		o->buffer_kb = (unsigned)v;
		break;
	case 'q': o->quiet = 1; break;
	case 'T': o->tracefs = optarg; break;
	case 'P': o->mp.proc = optarg; break;
	case 'S': o->state_dir = optarg; break;
	default: return opt_bad("capture");
	}
	return 0;
}

/* --reset's second half: stops every disk of `iotape disk` under dir (as
 * `disk stop --force`), a line each. Returns 0, or -1 when one could not be
 * stopped (said). */
static int stop_disks(const char *dir)
{
	struct disk_info *d;
	size_t n;
	char err[512];
	int rc = 0;

	if (disk_list(dir, &d, &n, err, sizeof(err)))
		return error("%s", err);
	for (size_t i = 0; i < n; i++) {
		if (disk_stop(dir, d[i].name, 1, 0, err, sizeof(err)))
			rc = error("%s", err);
		else
			printf("stopped disk '%s'%s%s%s\n", d[i].name, d[i].loop[0] ?
			       " (" : "", d[i].loop, d[i].loop[0] ? ")" : "");
	}
	free(d);
	return rc;
}

int cmd_capture(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct capture_opts o = {
		.interval_s = 1, .repeat = 1, .buffer_kb = 16384,
		.mp = { .proc = "/proc", .sys = "/sys" },
		.tracefs = "/sys/kernel/tracing", .state_dir = LAB_DIR_DEFAULT,
	};
	struct capture_cmd *last = NULL;
	char disk_paths[CAPTURE_MAX_DEVS][64];
	int c, reset = 0, rc;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "+hd:", longopts)) != -1) {
		if (c == 'h') {
			capture_usage(stdout);
			return 0;
		}
		if (c == 'Z')
			reset = 1;
		else if ((rc = parse_option(&o, c, &last)))
			return rc;
	}
	if (reset) {
		/* the lab as it was: settings, then the modelled disks
		 * (not under a capture that runs: its workload may use them) */
		rc = lab_reset(o.state_dir) ? -1 : 0;
		if (!lab_busy(o.state_dir) && stop_disks(o.state_dir))
			rc = -1;
		return rc;
	}
	for (int i = 0; i < o.ndevspec; i++) {
		char err[512];
		int r = disk_resolve(o.state_dir, o.devspecs[i], disk_paths[i],
				     sizeof(disk_paths[i]), err, sizeof(err));
		if (r < 0)
			return error("%s", err);
		if (r > 0)
			o.devspecs[i] = disk_paths[i];
	}
	if (o.run && check_run_name(o.run))
		return 2;
	if (optind < argc) {
		if (o.ncmd >= CAPTURE_MAX_CMDS)
			return error("too many commands (at most %d)", CAPTURE_MAX_CMDS);
		o.cmds[o.ncmd].step = o.ncmd ? o.cmds[o.ncmd - 1].step : 0;
		o.cmds[o.ncmd++].argv = argv + optind;
	}
	if (geteuid() != 0)
		return error("capture needs root (tracefs, sysfs settings)");
	rc = capture_run(&o);
	for (int i = 0; i < o.nset; i++)
		for (int k = 0; k < o.sets[i].nvalues; k++)
			free(o.sets[i].values[k]);
	return rc;
}
