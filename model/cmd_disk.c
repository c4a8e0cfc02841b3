/* `iotape disk start|list|stop|stats`: parses argv into struct disk_opts
 * and calls model/disk.c, which serves a modelled rotating disk as a loop
 * device in real time; prints the disks and how faithful each one's timing
 * was. Each option is defined once, in options[], with its help beside it. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "lib/emit.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/disk.h"

static const struct opt_def options[] = {
	{ "name", 1, 'n', "NAME", "start: the disk's name (letters, digits, . _ "
	  "-), as list, stop, stats, capture -d and replay --target take it" },
	{ "model", 1, 'm', "PROFILE", "start: a built-in profile (iotape model "
	  "list) or a profile file, fitted ones too (default desktop-2006)" },
	{ "size", 1, 's', "SIZE", "start: the disk's size (512M, 20G); the "
	  "profile's zones and seek figures are spread over it (default: the "
	  "profile's capacity, or the backing file's size)" },
	{ "backing", 1, 'B', "FILE", "start: keep the data in FILE (made sparse "
	  "when absent; never shrunk, never removed at stop; never a database, "
	  "a device, active swap or a file another loop device uses) (default: "
	  "a new sparse file in $TMPDIR or /var/tmp, removed at stop)" },
	{ "scheduler", 1, 'S', "NAME", "start: the loop device's I/O scheduler "
	  "(default mq-deadline, as for a SATA disk)" },
	{ "keep", 0, 'k', NULL, "start, stop: keep the default backing file "
	  "(the one in $TMPDIR or /var/tmp)" },
	{ "foreground", 0, 'f', NULL, "start: serve in the foreground, the loop "
	  "device's path on stdout, until Ctrl-C or SIGTERM" },
	{ "zero-time", 0, 'z', NULL, "start: answer every request at once, the "
	  "model not consulted (the host's own ceiling, for benchmarks)" },
	{ "compensate", 0, 'c', NULL, "start: stamp each request's arrival at "
	  "the disk earlier by the host's FUSE and loop overhead measured so far "
	  "(its median), so the trace's D2C is the model's time, not the model's "
	  "plus the host's" },
	{ "spin", 1, 'p', "US", "start: busy-wait the last US microseconds "
	  "before each answer instead of sleeping to it, a quarter of a second "
	  "each second at most (default 100; 0: never)" },
	{ "force", 0, 'F', NULL, "stop: even when the device is mounted or "
	  "open (its users get I/O errors)" },
	{ "json", 0, 'j', NULL, "list, stats: JSON" },
	{ "state-dir", 1, 'D', "DIR", "the lab folder, disks in DIR/disk/NAME "
	  "(default /run/iotape)" },
	{ "db", 1, 'b', "FILE", "taken as every command takes it; a disk keeps "
	  "no runs (capture -d NAME stores them)" },
	{ "help", 0, 'h', NULL, NULL },
};

#define HELP_COL 20

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape disk start --name NAME [--model PROFILE] [--size SIZE]\n"
"                         [--backing FILE] [--scheduler NAME] [--keep]\n"
"                         [--foreground] [--zero-time] [--compensate]\n"
"                         [--spin US]\n"
"       iotape disk list [--json]\n"
"       iotape disk stop NAME... [--force] [--keep]\n"
"       iotape disk stats NAME [--json]\n"
"\n"
"A modelled rotating disk as a block device, in real time: a FUSE file\n"
"whose every read, write and flush is answered when the disk model says\n"
"the disk would have finished it (seek, rotation, transfer, head switch,\n"
"command overhead, buffer, queue), under a loop device with direct I/O.\n"
"start prints the loop device (/dev/loop3); the disk serves until 'stop',\n"
"SIGTERM or 'iotape capture --reset'. stats: the model's times, how late\n"
"the answers were, and the host's FUSE and loop overhead per request.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), HELP_COL, NULL);
	fprintf(fp, "Needs root and /dev/fuse (libfuse3: apt-get install "
		"libfuse3-3).\n");
}

static const char *state_dir(const char *opt)
{
	return opt ? opt : DISK_DIR_DEFAULT;
}

/* ---- list ---- */

static int list(const char *dir, int json)
{
	struct disk_info *d;
	struct emit e;
	size_t n;
	char err[512];

	if (disk_list(dir, &d, &n, err, sizeof(err)))
		return error("%s", err);
	emit_init(&e, stdout, json);
	emit_arr_begin(&e, NULL);
	if (!n)
		emit_text(&e, "no disks (iotape disk start --name NAME)\n");
	else
		emit_text(&e, "%-12s %-11s %-7s %-16s %8s %8s %-7s\n", "name",
			  "device", "dev", "profile", "GB", "pid", "state");
	for (size_t i = 0; i < n; i++) {
		char dev[24] = "-";
		const char *state = d[i].alive ? "serving" : "dead";
		if (d[i].loop[0])
			snprintf(dev, sizeof(dev), "%u,%u", d[i].major, d[i].minor);
		emit_obj_begin(&e, NULL);
		emit_str(&e, "name", d[i].name);
		emit_str(&e, "device", d[i].loop[0] ? d[i].loop : NULL);
		emit_str(&e, "dev", d[i].loop[0] ? dev : NULL);
		emit_str(&e, "profile", d[i].profile);
		emit_u64(&e, "size_bytes", d[i].size_bytes);
		emit_num(&e, "pid", d[i].pid);
		emit_str(&e, "state", state);
		emit_str(&e, "backing", d[i].backing);
		emit_num(&e, "zero_time", d[i].zero_time);
		emit_obj_end(&e);
		emit_text(&e, "%-12s %-11s %-7s %-16s %8.1f %8d %-7s\n", d[i].name,
			  d[i].loop[0] ? d[i].loop : "-", dev, d[i].profile,
			  (double)d[i].size_bytes / 1e9, d[i].pid, state);
		emit_text(&e, "%12s backing %s%s%s\n", "", d[i].backing,
			  d[i].made_backing && !d[i].keep ? " (removed at stop)" : "",
			  d[i].zero_time ? "; zero time (no model)" : "");
	}
	emit_arr_end(&e);
	emit_finish(&e);
	free(d);
	return 0;
}

/* ---- stats ---- */

static const char *const op_names[] = { "read", "write", "flush", "discard" };

static void hist_row(struct emit *e, const char *key, const char *label,
		     const struct disk_hsum *h)
{
	emit_obj_begin(e, key);
	emit_u64(e, "n", h->n);
	emit_num(e, "mean_us", h->mean / 1e3);
	emit_num(e, "p50_us", h->p50 / 1e3);
	emit_num(e, "p99_us", h->p99 / 1e3);
	emit_num(e, "max_us", h->max / 1e3);
	emit_obj_end(e);
	emit_text(e, "  %-26s %8" PRIu64 " %10.1f %10.1f %10.1f %10.1f\n", label,
		  h->n, h->mean / 1e3, h->p50 / 1e3, h->p99 / 1e3, h->max / 1e3);
}

static int stats(const char *dir, const char *name, int json)
{
	struct disk_info d;
	struct disk_stats s;
	struct emit e;
	char err[512], dev[24];
	uint64_t total = 0;

	if (disk_info_read(dir, name, &d, err, sizeof(err)) ||
	    disk_stats_read(dir, name, &s, err, sizeof(err)))
		return error("%s", err);
	snprintf(dev, sizeof(dev), "%u,%u", d.major, d.minor);
	emit_init(&e, stdout, json);
	emit_obj_begin(&e, NULL);
	emit_str(&e, "name", name);
	emit_str(&e, "device", d.loop);
	emit_str(&e, "dev", dev);
	emit_str(&e, "profile", d.profile);
	emit_u64(&e, "size_bytes", d.size_bytes);
	emit_str(&e, "state", d.alive ? "serving" : "dead");
	emit_num(&e, "up_s", (double)s.up_ns / 1e9);
	emit_text(&e, "disk '%s': %s on %s (%s), %.1f GB, %s %.1f s%s\n", name,
		  d.profile, d.loop[0] ? d.loop : "-", dev,
		  (double)d.size_bytes / 1e9, d.alive ? "serving for" : "dead after",
		  (double)s.up_ns / 1e9, d.zero_time ? "; zero time (no model)" : "");
	emit_text(&e, "\n  %-10s %10s %12s\n", "", "requests", "MB");
	emit_obj_begin(&e, "ops");
	for (int i = 0; i < 4; i++) {
		emit_obj_begin(&e, op_names[i]);
		emit_u64(&e, "requests", s.ops[i]);
		emit_u64(&e, "bytes", s.bytes[i]);
		emit_obj_end(&e);
		emit_text(&e, "  %-10s %10" PRIu64 " %12.2f\n", op_names[i], s.ops[i],
			  (double)s.bytes[i] / 1e6);
		total += s.ops[i];
	}
	emit_obj_end(&e);
	emit_u64(&e, "errors", s.errors);
	emit_u64(&e, "held_max", s.held_max);
	emit_text(&e, "  at most %" PRIu64 " requests held at once\n", s.held_max);
	if (s.errors)
		emit_text(&e, "  %" PRIu64 " answered with an error (the backing "
			  "file failed)\n", s.errors);
	emit_text(&e, "\n  %-26s %8s %10s %10s %10s %10s\n", "us", "n", "mean",
		  "p50", "p99", "max");
	hist_row(&e, "model_service", "model: service", &s.h[DH_SERVICE]);
	hist_row(&e, "model_response", "model: response (queued)", &s.h[DH_RESPONSE]);
	hist_row(&e, "answer", "answered after arrival", &s.h[DH_ANSWER]);
	hist_row(&e, "late", "late (answer - model)", &s.h[DH_LATE]);
	hist_row(&e, "overhead", "host overhead (FUSE, loop)", &s.h[DH_OVERHEAD]);
	emit_u64(&e, "late_over_1ms", s.late);
	emit_num(&e, "realtime", s.realtime);
	emit_num(&e, "compensate_us", s.compensate ? (double)s.comp_ns / 1e3 : 0);
	emit_u64(&e, "overhead_unmatched", s.ov_unmatched);
	emit_str(&e, "overhead_why", s.ov_why[0] ? s.ov_why : NULL);
	emit_obj_end(&e);
	emit_text(&e, "\n  late over 1 ms: %" PRIu64 " of %" PRIu64 " (%.2f%%): a "
		  "request answered later than the\n  model's completion is a "
		  "fidelity error, as a replay's late issue is\n", s.late, total,
		  total ? 100.0 * (double)s.late / (double)total : 0.0);
	if (!s.realtime && total)
		emit_text(&e, "  the server runs at normal priority (SCHED_FIFO "
			  "refused): on a busy machine\n  its timer wakes late\n");
	if (s.compensate)
		emit_text(&e, "  compensated: arrivals stamped %.1f us earlier (the host "
			  "overhead's median)\n", (double)s.comp_ns / 1e3);
	if (s.ov_why[0])
		emit_text(&e, "  host overhead not measured: %s\n", s.ov_why);
	else
		emit_text(&e, "  host overhead: D2C of the loop device (tracefs "
			  "block_rq_issue to\n  block_rq_complete) less the daemon's "
			  "answer time, per request%s\n", s.ov_unmatched ?
			  "; some traced requests had no answer to pair with" : "");
	emit_finish(&e);
	return 0;
}

/* ---- start, stop ---- */

int cmd_disk(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct disk_opts o = {
		.model = "desktop-2006", .scheduler = "mq-deadline", .spin_us = 100,
	};
	const char *dir = NULL, *verb;
	int c, json = 0, force = 0, rc = 0;
	uint64_t v;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'n': o.name = optarg; break;
		case 'm': o.model = optarg; break;
		case 's':
			if (parse_size(optarg, "--size", &o.size_bytes))
				return 2;
			break;
		case 'B': o.backing = optarg; break;
		case 'S': o.scheduler = optarg; break;
		case 'k': o.keep = 1; break;
		case 'f': o.foreground = 1; break;
		case 'z': o.zero_time = 1; break;
		case 'c': o.compensate = 1; break;
		case 'p':
			if (parse_u64_range(optarg, "--spin", 0, 100000,
					    "microseconds", &v))
				return 2;
			o.spin_us = (unsigned)v;
			break;
		case 'F': force = 1; break;
		case 'j': json = 1; break;
		case 'D': dir = optarg; break;
		case 'b': break;
		case 'h': usage(stdout); return 0;
		default: return opt_bad("disk");
		}
	}
	if (optind >= argc) {
		error("no verb: start, list, stop or stats");
		return opt_bad("disk");
	}
	verb = argv[optind++];
	o.dir = state_dir(dir);
	if (!strcmp(verb, "list")) {
		if (optind < argc) {
			error("list takes no NAME");
			return 2;
		}
		return list(o.dir, json);
	}
	if (!strcmp(verb, "stats")) {
		if (argc - optind != 1) {
			error(optind < argc ? "stats takes one NAME" : "no NAME: iotape "
			      "disk stats NAME");
			return 2;
		}
		return stats(o.dir, argv[optind], json);
	}
	if (!strcmp(verb, "stop")) {
		if (optind >= argc) {
			error("no NAME: iotape disk stop NAME...");
			return 2;
		}
		for (; optind < argc; optind++) {
			char err[512];
			if (disk_stop(o.dir, argv[optind], force, o.keep, err,
				      sizeof(err))) {
				error("%s", err);
				rc = -1;
			}
		}
		return rc;
	}
	if (!strcmp(verb, "start")) {
		char loop[64], err[512];
		const char *tmp = getenv("TMPDIR");
		if (optind < argc) {
			error("start takes options only (--name NAME)");
			return 2;
		}
		if (!o.name) {
			error("no --name: iotape disk start --name NAME");
			return 2;
		}
		o.tmpdir = tmp && *tmp ? tmp : "/var/tmp";
		if (disk_start(&o, loop, sizeof(loop), err, sizeof(err)))
			return error("%s", err);
		if (!o.foreground)
			printf("%s\n", loop);
		return 0;
	}
	error("unknown verb '%s' (start, list, stop or stats)", verb);
	return 2;
}
