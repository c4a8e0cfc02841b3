/* `iotape replay RUN --target PATH [options]`: parses argv into struct
 * replay_opts and calls replay_run(). Each option is defined once, in
 * options[], with its help text beside it; --help prints that table. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/machine.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/disk.h"
#include "replay/engine.h"
#include "replay/replay.h"
#include "replay/target.h"

static const struct opt_def options[] = {
	{ "target", 1, 't', "PATH", "replay every device of the run on PATH: a "
	  "block device, or a regular file (a new one is created and extended "
	  "as needed; see --allow-write for what is written); model:PROFILE: "
	  "each device on its own modelled disk (iotape model list), in "
	  "simulated time; the NAME of a disk of 'iotape disk': its loop "
	  "device, the modelled disk in real time (./NAME for a file)" },
	{ "map", 1, 'm', "DEV=PATH", "replay the run's device DEV (major,minor or "
	  "its name in the run, /dev/ or not) on PATH; repeatable; every device "
	  "needs one" },
	{ "level", 1, 'l', "queue|dispatch", "queue: the bios processes "
	  "submitted (Q), before merging (default); dispatch: the requests the "
	  "device saw (D) (default on a modelled disk)" },
	{ "timing", 1, 'T', "MODE", "original: at the recorded times (default);"
	  " scale:X: X times as fast (scale:2 takes half the time, scale:0.5 "
	  "twice); afap: as fast as possible" },
	{ "max-gap", 1, 'g', "SECONDS", "a timed replay waits at most SECONDS "
	  "(original time) between one I/O and the next: longer gaps (idle "
	  "time, a clock step) are shortened, and the run says so (default 10;"
	  " 0 keeps every gap)" },
	{ "depth", 1, 'd', "N", "at most N I/Os in flight (default: the most the "
	  "run had in flight at that level)" },
	{ "streams", 1, 's', "pid|single", "pid: one stream per original process,"
	  " each in its own order, a process that waited for each I/O waits "
	  "again (default); single: one stream in the run's order" },
	{ "engine", 1, 'e', "NAME", "io_uring (default), sync (one I/O at a time)"
	  ", null (no I/O: tests the scheduler); model (implied by model: "
	  "targets)" },
	{ "offset", 1, 'o', "SECTORS", "add SECTORS (512 bytes) to every position" },
	{ "wrap", 0, 'w', NULL, "positions beyond the target's end wrap around "
	  "(default: refuse a run that reaches beyond it)" },
	{ "allow-write", 0, 'W', NULL, "write and discard where writes are "
	  "otherwise replayed as reads. The rule: " TARGET_WRITE_RULE "." },
	{ "overwrite-signature", 1, 'O', "TYPE", "with --allow-write, write over "
	  "the TYPE signature libblkid finds on the target (ext4, swap, dos, "
	  "LVM2_member...: the type the refusal names); a partition table "
	  "only when none of its partitions holds one" },
	{ "set", 1, 'S', "KEY=V[,V...]", "a setting for the replay, restored "
	  "after: an attribute of the target's disk (queue/scheduler=bfq), "
	  "DEV:queue/ATTR or a sysctl; V1,V2 sweeps: one replay per value "
	  "(NAME[KEY=V])" },
	{ "repeat", 1, 'n', "N", "N replays of each combination, NAME.1 .. NAME.N" },
	{ "trace", 0, 'R', NULL, "also record the target's block events (tracefs"
	  " blk tracer); the run's requests then come from the trace" },
	{ "run", 1, 'r', "NAME", "name of the replay run (default: RUN-replay); not "
	  "digits\nonly, which read as a run id" },
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "json", 0, 'j', NULL, "print the figures as JSON" },
	{ "quiet", 0, 'q', NULL, "no messages on stderr" },
	{ "state-dir", 1, 'D', "DIR", "the lab's lock and state file (default "
	  "/run/iotape)" },
	{ "help", 0, 'h', NULL, "this text" },
};

/* The column where option help starts. */
#define HELP_COL 22

static void replay_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape replay [--db FILE] RUN (--target PATH | --map DEV=PATH...)\n"
"                     [--level queue|dispatch] [--timing original|afap|scale:X]\n"
"                     [--depth N] [--streams pid|single]\n"
"                     [--engine io_uring|sync|null|model] [--offset N]\n"
"                     [--wrap] [--allow-write [--overwrite-signature TYPE]]\n"
"                     [--set KEY=V[,V...]]...\n"
"                     [--repeat N] [--trace] [--run NAME] [--json]\n"
"\n"
"Reissues RUN's I/O with O_DIRECT on the targets and stores each replay as\n"
"a run (kind replay, parent RUN) with every I/O's scheduled, issue and\n"
"completion time; prints how faithful it was. Settings changed are put back\n"
"(also on Ctrl-C and SIGTERM).\n");
	opt_usage(fp, options, ARRAY_SIZE(options), HELP_COL, NULL);
	fprintf(fp, "Needs root for devices, --set and --trace.\n");
}

/* "original", "afap", "scale:X" (X > 0). */
static int parse_timing(const char *s, double *scale)
{
	double x;

	if (!strcmp(s, "original")) {
		*scale = 1;
		return 0;
	}
	if (!strcmp(s, "afap")) {
		*scale = 0;
		return 0;
	}
	if (!strncmp(s, "scale:", 6)) {
		if (!dec_double(s + 6, DEC_FRAC, &x, NULL) && x > 0 && x < 1e9) {
			*scale = x;
			return 0;
		}
	}
	return error("invalid --timing '%s' (original, scale:X with X > 0, or "
		     "afap)", s);
}

static int parse_set(struct replay_opts *o, const char *arg)
{
	struct replay_set *s;
	const char *eq = strchr(arg, '=');
	char *vals, *tok, *save;

	if (o->nset >= REPLAY_MAX_SETS)
		return error("too many --set options (at most %d)", REPLAY_MAX_SETS);
	s = &o->sets[o->nset];
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(s->key) || !eq[1])
		return error("invalid --set '%s' (KEY=VALUE or KEY=V1,V2,...)", arg);
	memcpy(s->key, arg, (size_t)(eq - arg));
	s->key[eq - arg] = '\0';
	/* a file under the target's disk's /sys/block/DISK (queue/ATTR),
	 * another disk's (DEV:queue/ATTR) or /proc/sys: never one elsewhere
	 * ("..", a path from /) */
	{
		struct machine_paths any = { "/proc", "/sys" };
		char path[512];
		int bare = !strchr(s->key, ':') && strchr(s->key, '/');
		if (strstr(s->key, "..") || s->key[0] == '/' ||
		    (!bare && machine_setting_path(&any, s->key, path, sizeof(path))))
			return error("invalid --set key '%s' (queue/ATTR of the "
				     "target, DEV:queue/ATTR or a sysctl such as "
				     "vm.dirty_ratio)", s->key);
	}
	vals = xstrdup(eq + 1);
	for (tok = strtok_r(vals, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (s->nvalues == REPLAY_MAX_VALUES) {
			free(vals);
			return error("too many values in --set '%s' (at most %d)", arg,
				     REPLAY_MAX_VALUES);
		}
		s->values[s->nvalues++] = xstrdup(tok);
	}
	free(vals);
	if (!s->nvalues)
		return error("invalid --set '%s'", arg);
	o->nset++;
	return 0;
}

/* Targets that name a disk of `iotape disk` (a NAME without '/') become
 * its loop device, kept in paths. Returns 0, or -1 after an error line
 * (the disk is there but not serving). */
static int resolve_disks(struct replay_opts *o,
			 char (*paths)[64])
{
	const char *dir = o->state_dir ? o->state_dir : DISK_DIR_DEFAULT;
	const char **spec[REPLAY_MAX_TARGETS + 1];
	char err[512];
	int n = 0;

	if (o->target)
		spec[n++] = &o->target;
	for (int i = 0; i < o->nmap; i++)
		spec[n++] = &o->maps[i].path;
	for (int i = 0; i < n; i++) {
		int r = disk_resolve(dir, *spec[i], paths[i], 64, err, sizeof(err));
		if (r < 0)
			return error("%s", err);
		if (r > 0)
			*spec[i] = paths[i];
	}
	return 0;
}

/* --map DEV=PATH into o->maps (arg cut at its '='). Returns 0, or -1
 * after an error line. */
static int parse_map(struct replay_opts *o, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1])
		return error("invalid --map '%s' (DEV=PATH)", arg);
	if (o->nmap == REPLAY_MAX_TARGETS)
		return error("too many --map options (at most %d)",
			     REPLAY_MAX_TARGETS);
	*eq = '\0';
	o->maps[o->nmap].dev = arg;
	o->maps[o->nmap++].path = eq + 1;
	return 0;
}

/* --level queue|dispatch. Returns 0, or -1 after an error line. */
static int parse_level(const char *s, enum replay_level *level)
{
	if (!strcmp(s, "queue"))
		*level = REPLAY_QUEUE;
	else if (!strcmp(s, "dispatch"))
		*level = REPLAY_DISPATCH;
	else
		return error("invalid --level '%s' (queue or dispatch)", s);
	return 0;
}

/* --streams pid|single (*single 0 or 1). Returns 0, or -1 after an error
 * line. */
static int parse_streams(const char *s, int *single)
{
	if (!strcmp(s, "single"))
		*single = 1;
	else if (!strcmp(s, "pid"))
		*single = 0;
	else
		return error("invalid --streams '%s' (pid or single)", s);
	return 0;
}

/* --max-gap SECONDS (0 or more) into *ns. Returns 0, or -1 after an
 * error line. */
static int parse_max_gap(const char *s, int64_t *ns)
{
	double g;

	if (dec_double(s, DEC_FRAC, &g, NULL) || g > 1e9)
		return error("invalid --max-gap '%s' (seconds, 0 or more)", s);
	*ns = (int64_t)(g * 1e9);
	return 0;
}

/* A 0-or-1 switch from environment variable name into *on (left as it was
 * when unset or empty). Returns 0, or -1 after an error line naming it. */
static int env_switch(const char *name, int *on)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return 0;
	if (strcmp(v, "0") && strcmp(v, "1"))
		return error("invalid value '%s' for %s (0 or 1)", v, name);
	*on = v[0] == '1';
	return 0;
}

/* The timed replay's tuning from the environment (docs/iotape.md) into o:
 * $IOTAPE_REPLAY_SPIN_US, the spin window (us); $IOTAPE_REPLAY_FIFO=0,
 * no SCHED_FIFO; $IOTAPE_REPLAY_CPU=N, the scheduling thread on CPU N;
 * $IOTAPE_REPLAY_MLOCK=1, its memory locked. Returns 0, or -1 after an
 * error line naming the variable. */
static int parse_tuning_env(struct replay_opts *o)
{
	const char *spin = getenv("IOTAPE_REPLAY_SPIN_US");
	const char *cpu = getenv("IOTAPE_REPLAY_CPU");
	int fifo = 1, mlk = 0;
	double us;
	uint64_t v;

	if (spin) {
		if (dec_double(spin, DEC_FRAC, &us, NULL) || us > 1e9)
			return error("invalid value '%s' for IOTAPE_REPLAY_SPIN_US",
				     spin);
		o->spin_ns = (int64_t)(us * 1000);
	}
	if (env_switch("IOTAPE_REPLAY_FIFO", &fifo) ||
	    env_switch("IOTAPE_REPLAY_MLOCK", &mlk))
		return -1;
	o->no_fifo = !fifo;
	o->mlock = mlk;
	if (cpu && *cpu) {
		if (dec_u64(cpu, &v, NULL) || v >= 4096)
			return error("invalid value '%s' for IOTAPE_REPLAY_CPU "
				     "(a CPU number)", cpu);
		o->cpu1 = (int)v + 1;
	}
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct replay_opts o = { .scale = 1, .repeat = 1,
				 .max_gap_ns = REPLAY_MAX_GAP_NS };
	char disk_paths[REPLAY_MAX_TARGETS + 1][64];
	uint64_t v;
	int c, rc, level_given = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 't':
			/* one target: a second would silently win, and the
			 * first named may be the one the user checked */
			if (o.target) {
				error("--target given twice ('%s' and '%s'); give one, "
				      "or --map DEV=PATH for each device",
				      o.target, optarg);
				return 2;
			}
			o.target = optarg;
			break;
		case 'm':
			if (parse_map(&o, optarg))
				return 2;
			break;
		case 'l':
			level_given = 1;
			if (parse_level(optarg, &o.level))
				return 2;
			break;
		case 'T':
			if (parse_timing(optarg, &o.scale))
				return 2;
			break;
		case 'd':
			if (parse_u64_range(optarg, "--depth", 1, 65536, NULL, &v))
				return 2;
			o.depth = (unsigned)v;
			break;
		case 's':
			if (parse_streams(optarg, &o.single_stream))
				return 2;
			break;
		case 'e':
			if (!engine_find(optarg)) {
				char names[128];
				error("unknown --engine '%s' (%s)", optarg,
				      engine_names(names, sizeof(names)));
				return 2;
			}
			o.engine = optarg;
			break;
		case 'g':
			if (parse_max_gap(optarg, &o.max_gap_ns))
				return 2;
			break;
		case 'o':
			if (parse_u64(optarg, "--offset", &o.offset))
				return 2;
			break;
		case 'w': o.wrap = 1; break;
		case 'W': o.allow_write = 1; break;
		case 'O': o.sig_ok = optarg; break;
		case 'S':
			if (parse_set(&o, optarg))
				return 2;
			break;
		case 'n':
			if (parse_u64_range(optarg, "--repeat", 1, 1000, NULL, &v))
				return 2;
			o.repeat = (int)v;
			break;
		case 'R': o.trace = 1; break;
		case 'r': o.name = optarg; break;
		case 'b': o.db = optarg; break;
		case 'j': o.json = 1; break;
		case 'q': o.quiet = 1; break;
		case 'D': o.state_dir = optarg; break;
		case 'h': replay_usage(stdout); return 0;
		default: return opt_bad("replay");
		}
	}
	if (optind + 1 != argc) {
		error(optind < argc ? "replay takes one RUN" : "no RUN to replay");
		return opt_bad("replay");
	}
	o.run = argv[optind];
	if (o.name && check_run_name(o.name))
		return 2;
	/* a target an engine serves (a modelled disk) stands for the device: it
	 * gets what the device got */
	if (!level_given && (engine_serving(o.target) ||
			     (o.nmap && engine_serving(o.maps[0].path))))
		o.level = REPLAY_DISPATCH;
	if (!o.target == !o.nmap) {
		error(o.target ? "--target and --map do not go together"
			       : "no target: give --target PATH or --map DEV=PATH");
		return 2;
	}
	if (o.sig_ok && !o.allow_write) {
		error("--overwrite-signature goes with --allow-write");
		return 2;
	}
	if (resolve_disks(&o, disk_paths))
		return -1;
	if ((o.nset || o.trace) && geteuid() != 0)
		return error("--set and --trace need root");
	if (parse_tuning_env(&o))
		return 2;
	rc = replay_run(&o);
	for (int i = 0; i < o.nset; i++)
		for (int k = 0; k < o.sets[i].nvalues; k++)
			free(o.sets[i].values[k]);
	return rc;
}
