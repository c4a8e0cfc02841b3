/* `iotape replay`'s work: check the source run and the targets, then for
 * each combination of settings apply them through the lab, run the
 * schedule, store the replay as a run (kind replay, parent the source) and
 * print how faithful it was (those two in replay_store.c). */
#include "replay/replay_int.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "trace/blktrace_format.h"
#include "capture/lab.h"
#include "capture/sweep.h"
#include "capture/tracefs.h"
#include "lib/util.h"
#include "model/disk.h"

/* ---- setup ---- */

static int setup_plan(struct ctx *c, char *err, size_t errlen);

static int find_target(struct ctx *c, const char *path)
{
	for (int i = 0; i < c->ntg; i++)
		if (!strcmp(c->tg[i].path, path))
			return i;
	return -1;
}

/* Does map spec name device dev (name from the run's devices table)? A
 * name matches with or without "/dev/" on either side: a capture stores
 * "sdb", a fio iolog "/dev/sdb" (the file it names). */
static int map_matches(const char *spec, uint32_t dev, const char *name)
{
	unsigned ma, mi;

	if (!dec_devnum(spec, &ma, &mi))
		return BT_MKDEV(ma, mi) == dev;
	if (!name)
		return 0;
	if (!strncmp(spec, "/dev/", 5))
		spec += 5;
	if (!strncmp(name, "/dev/", 5))
		name += 5;
	return !strcmp(spec, name);
}

/* The name of the source run's device dev ("" when not known). */
static void dev_name(struct ctx *c, uint32_t dev, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t k = 0; k < c->ndevinfo; k++)
		if (c->devinfo[k].dev == dev && c->devinfo[k].name)
			snprintf(out, len, "%s", c->devinfo[k].name);
}

/* Which target each of the run's devices goes to; targets listed in
 * c->tg (paths only, opened later). */
static int map_devices(struct ctx *c, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;

	c->dev_target = xcalloc(c->src.ndev, sizeof(*c->dev_target));
	if (o->target && engine_serving(o->target)) {
		/* each device its own served target (a modelled disk), as in
		 * the run */
		for (size_t k = 0; k < c->src.ndev && k < REPLAY_MAX_TARGETS; k++) {
			snprintf(c->tg[k].path, sizeof(c->tg[k].path), "%s", o->target);
			c->dev_target[k] = (int)k;
			c->ntg = (int)k + 1;
		}
		return 0;
	}
	if (o->target) {
		snprintf(c->tg[0].path, sizeof(c->tg[0].path), "%s", o->target);
		c->ntg = 1;
		return 0;
	}
	for (size_t k = 0; k < c->src.ndev; k++) {
		uint32_t dev = c->src.devs[k];
		char name[64];
		int m, t;

		dev_name(c, dev, name, sizeof(name));
		for (m = 0; m < o->nmap; m++)
			if (map_matches(o->maps[m].dev, dev, name[0] ? name : NULL))
				break;
		for (int m2 = m + 1; m < o->nmap && m2 < o->nmap; m2++)
			if (map_matches(o->maps[m2].dev, dev, name[0] ? name : NULL)) {
				snprintf(err, errlen, "device %u,%u%s%s%s of run '%s' "
					 "is in --map twice ('%s' and '%s')",
					 BT_MAJOR(dev), BT_MINOR(dev), name[0] ? " (" : "",
					 name, name[0] ? ")" : "", c->src_name,
					 o->maps[m].dev, o->maps[m2].dev);
				return -1;
			}
		if (m == o->nmap) {
			snprintf(err, errlen, "device %u,%u%s%s%s of run '%s' is not "
				 "in --map (add --map %u,%u=PATH)", BT_MAJOR(dev),
				 BT_MINOR(dev), name[0] ? " (" : "", name,
				 name[0] ? ")" : "", c->src_name, BT_MAJOR(dev),
				 BT_MINOR(dev));
			return -1;
		}
		if ((t = find_target(c, o->maps[m].path)) < 0 ||
		    engine_serving(o->maps[m].path)) {
			if (c->ntg == REPLAY_MAX_TARGETS) {
				snprintf(err, errlen, "too many targets (at most %d)",
					 REPLAY_MAX_TARGETS);
				return -1;
			}
			t = c->ntg++;
			snprintf(c->tg[t].path, sizeof(c->tg[t].path), "%s",
				 o->maps[m].path);
		}
		c->dev_target[k] = t;
	}
	for (int m = 0; m < o->nmap; m++) {
		int used = 0;
		for (size_t k = 0; k < c->src.ndev && !used; k++) {
			char name[64];
			dev_name(c, c->src.devs[k], name, sizeof(name));
			used = map_matches(o->maps[m].dev, c->src.devs[k],
					   name[0] ? name : NULL);
		}
		if (!used && !o->quiet)
			warning("--map %s: run '%s' has no I/O on that device",
				o->maps[m].dev, c->src_name);
	}
	return 0;
}

/* Whether block device rdev (a disk or partition) is the loop device of an
 * `iotape disk` under dir whose backing file is in use otherwise (backing
 * another loop device, active swap: target_file_busy()): the disk's loop
 * device is over its FUSE file, which hides the backing file behind it,
 * so writing the disk writes into that file unseen. 1 with why. */
static int disk_backing_busy(const char *dir, const char *sys, dev_t rdev,
			     char *why, size_t len)
{
	struct disk_info *d = NULL;
	char e[256], w[300];
	size_t n = 0;
	int found = 0;

	if (disk_list(dir, &d, &n, e, sizeof(e)))
		return 0;
	for (size_t i = 0; !found && i < n; i++) {
		dev_t dd = makedev(d[i].major, d[i].minor);
		if (!d[i].alive || !d[i].major || !d[i].backing[0] ||
		    (dd != rdev && !target_blk_nested(sys, dd, rdev)))
			continue;
		if (target_file_busy(d[i].backing, w, sizeof(w))) {
			snprintf(why, len, "it is disk '%s', whose backing file "
				 "%.200s is in use: %.160s", d[i].name,
				 d[i].backing, w);
			found = 1;
		}
	}
	free(d);
	return found;
}

/* The path a target name will have, into out: the name resolved
 * (realpath()), or for a name not there yet its folder resolved and its
 * last part ("new" and "./new" are one file to make). 0, or -1 when
 * neither resolves. */
static int target_canon(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (realpath(path, real)) {
		snprintf(out, len, "%s", real);
		return 0;
	}
	if (errno != ENOENT)
		return -1;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? (slash == path ? "/" : path) : ".");
	if (!realpath(dir, real))
		return -1;
	snprintf(out, len, "%.3000s/%.1000s", real, slash ? slash + 1 : path);
	return 0;
}

static int open_targets(struct ctx *c, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;
	int want[REPLAY_MAX_TARGETS] = { 0 };
	char paths[REPLAY_MAX_TARGETS][1024];

	spill_rewind(&c->src.io_mem);
	for (size_t i = 0; i < c->src.n; i++) {
		const struct src_io *io = &c->src.io[i];
		size_t k;

		spill_at(&c->src.io_mem, i, sizeof(*io));
		if (!io->bytes || !(io->cats & (BT_C_WRITE | BT_C_DISCARD)))
			continue;
		for (k = 0; k < c->src.ndev && c->src.devs[k] != io->dev; k++)
			;
		want[c->dev_target[k]] = 1;
	}
	for (int i = 0; i < c->ntg; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s", c->tg[i].path);
	for (int i = 0; i < c->ntg; i++) {
		c->tg[i].fd = -1;
	}
	/* one file or device by two names (a symlink, a hard link): as two
	 * targets they would interleave, and the second's open would break
	 * the first's lease */
	for (int i = 0; i < c->ntg; i++)
		for (int j = i + 1; j < c->ntg; j++) {
			struct stat a, b;
			if (!engine_serving(paths[i]) && !stat(paths[i], &a) &&
			    !stat(paths[j], &b) &&
			    ((a.st_dev == b.st_dev && a.st_ino == b.st_ino) ||
			     (S_ISBLK(a.st_mode) && S_ISBLK(b.st_mode) &&
			      a.st_rdev == b.st_rdev))) {
				snprintf(err, errlen, "'%.900s' and '%.900s' are one %s: map "
					 "the devices to one name", paths[i], paths[j],
					 S_ISBLK(a.st_mode) ? "device" : "file");
				return -1;
			}
			/* one file not there yet, by two names: made by
			 * the first, the second's open met its own lease */
			{
				char ca[PATH_MAX], cb[PATH_MAX];
				if (!engine_serving(paths[i]) &&
				    !target_canon(paths[i], ca, sizeof(ca)) &&
				    !target_canon(paths[j], cb, sizeof(cb)) &&
				    !strcmp(ca, cb)) {
					snprintf(err, errlen, "'%.900s' and '%.900s' are "
						 "one file: map the devices to one name",
						 paths[i], paths[j]);
					return -1;
				}
			}
			/* a disk and its own partition: the second open
			 * would find the first's hold and blame another */
			if (!engine_serving(paths[i]) && !stat(paths[i], &a) &&
			    !stat(paths[j], &b) && S_ISBLK(a.st_mode) &&
			    S_ISBLK(b.st_mode) &&
			    target_blk_nested(o->mp.sys, a.st_rdev, b.st_rdev)) {
				snprintf(err, errlen, "'%.900s' and '%.900s' overlap (a disk "
					 "and one of its partitions): map the devices "
					 "to targets apart", paths[i], paths[j]);
				return -1;
			}
		}
	for (int i = 0; i < c->ntg; i++) {
		const struct replay_engine_ops *eo = engine_serving(paths[i]);
		if (eo) {
			size_t k = 0;
			while (k + 1 < c->src.ndev && c->dev_target[k] != i)
				k++;
			if (c->own_ops && c->own_ops != eo) {
				snprintf(err, errlen, "%s and %s do not mix in one "
					 "replay ('%s')", c->own_ops->targets_name,
					 eo->targets_name, paths[i]);
				return -1;
			}
			c->own_ops = eo;
			if (eo->target_add(&c->own, i, paths[i], c->src.devs[k],
					   &c->tg[i], err, errlen))
				return -1;
			continue;
		}
		if (target_open(&c->tg[i], paths[i], want[i], o->allow_write,
				o->sig_ok, o->mp.sys, o->mp.proc, err, errlen))
			return -1;
		if (c->tg[i].writable && c->tg[i].blkdev) {
			struct stat sb;
			char why[600];
			if (!fstat(c->tg[i].fd, &sb) &&
			    disk_backing_busy(o->state_dir ? o->state_dir :
					      DISK_DIR_DEFAULT, o->mp.sys,
					      sb.st_rdev, why, sizeof(why))) {
				snprintf(err, errlen, "refusing to write to '%.600s': "
					 "%s", paths[i], why);
				return -1;
			}
		}
		if (want[i] && c->tg[i].writable && !c->tg[i].owned &&
		    c->tg[i].stacked && !o->quiet)
			warning("'%s' is on %s, where another name may write it "
				"unseen: its writes are written as asked (--allow-"
				"write), but one writing it by another name meanwhile "
				"does not stop them", paths[i], c->tg[i].stacked);
		if (want[i] && !c->tg[i].writable && !c->tg[i].blkdev && !o->quiet)
		{
			if (c->tg[i].stacked)
				warning("'%s' is on %s, where another name may write "
					"it unseen: only a file the replay creates there "
					"is its own; its writes are replayed as reads "
					"(--allow-write writes them)", paths[i],
					c->tg[i].stacked);
			else if (c->tg[i].busy && c->tg[i].lease_errno != EAGAIN &&
				 c->tg[i].lease_errno != EBUSY)
				warning("'%s' cannot be watched for other writers "
					"(no write lease: %s): its writes are replayed "
					"as reads (--allow-write writes them)", paths[i],
					strerror(c->tg[i].lease_errno));
			else {
				/* busy: the lease was refused; a loop device or
				 * swap over it is said as that, not as a process */
				char why[300];
				if (c->tg[i].busy &&
				    target_file_busy(paths[i], why, sizeof(why)))
					warning("'%s': %s: its writes are replayed as "
						"reads", paths[i], why);
				else
					warning(c->tg[i].busy ? "'%s' is open "
						"elsewhere (another process, or a "
						"descriptor of this one): its writes are "
						"replayed as reads (--allow-write writes "
						"them)" : "'%s' holds data: its writes are "
						"replayed as reads (--allow-write writes "
						"them)", paths[i]);
			}
		}
	}
	for (int i = 0; c->own_ops && i < c->ntg; i++)
		if (!engine_serving(paths[i])) {
			snprintf(err, errlen, "%s and real targets do not mix in "
				 "one replay ('%s')", c->own_ops->targets_name,
				 paths[i]);
			return -1;
		}
	return 0;
}

/* Whether a --set file, path, is where its key says once sysfs's links are
 * followed: a disk's attribute inside that disk's folder (SYS/block/DISK,
 * resolved: "subsystem/vda/queue/..." or "bdi/..." lead to another device
 * or to the machine's), a sysctl inside PROC/sys. 1 when it is. */
static int set_path_inside(const struct replay_opts *o, const char *path)
{
	char real[PATH_MAX], root[PATH_MAX], base[PATH_MAX];
	size_t lb = strlen(o->mp.sys), l;
	const char *slash;

	if (!realpath(path, real))
		return 0;
	if (!strncmp(path, o->mp.sys, lb) && !strncmp(path + lb, "/block/", 7) &&
	    (slash = strchr(path + lb + 7, '/')))
		snprintf(base, sizeof(base), "%.*s", (int)(slash - path), path);
	else
		snprintf(base, sizeof(base), "%s/sys", o->mp.proc);
	if (!realpath(base, root))
		return 0;
	l = strlen(root);
	return !strncmp(real, root, l) && real[l] == '/';
}

/* Resolves each --set key to the files it writes. */
static int resolve_sets(struct ctx *c, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;

	for (int i = 0; i < o->nset; i++) {
		const char *key = o->sets[i].key;
		int bare = !strchr(key, ':') && strchr(key, '/');
		int ndisk = 0;

		for (int t = 0; bare && t < c->ntg; t++) {
			int dup = 0;
			if (!c->tg[t].disk[0])
				continue;
			for (int u = 0; u < t; u++)
				dup |= !strcmp(c->tg[u].disk, c->tg[t].disk);
			if (dup)
				continue;
			if (c->nsp == MAX_SET_PATHS)
				break;
			c->sp[c->nsp].set = i;
			snprintf(c->sp[c->nsp].key, sizeof(c->sp[c->nsp].key), "%s:%s",
				 c->tg[t].disk, key);
			snprintf(c->sp[c->nsp].path, sizeof(c->sp[c->nsp].path),
				 "%s/block/%s/%s", o->mp.sys, c->tg[t].disk, key);
			c->nsp++;
			ndisk++;
		}
		if (bare && !ndisk) {
			snprintf(err, errlen, "--set %s needs a target on a block "
				 "device (no disk holds '%s')", key, c->tg[0].path);
			return -1;
		}
		if (!bare) {
			if (c->nsp == MAX_SET_PATHS ||
			    machine_setting_path(&o->mp, key, c->sp[c->nsp].path,
						 sizeof(c->sp[c->nsp].path))) {
				snprintf(err, errlen, "invalid --set key '%s' (queue/ATTR "
					 "of the target, DEV:queue/ATTR or a sysctl "
					 "such as vm.dirty_ratio)", key);
				return -1;
			}
			c->sp[c->nsp].set = i;
			snprintf(c->sp[c->nsp].key, sizeof(c->sp[c->nsp].key), "%s", key);
			c->nsp++;
		}
	}
	for (int k = 0; k < c->nsp; k++) {
		char v[256];
		int rc = sysfs_read(c->sp[k].path, v, sizeof(v));
		if (!rc && !set_path_inside(o, c->sp[k].path)) {
			snprintf(err, errlen, "invalid --set key '%s': '%s' leads out "
				 "of the disk's folder (a link to another device)",
				 c->o->sets[c->sp[k].set].key, c->sp[k].path);
			return -1;
		}
		if (rc) {
			snprintf(err, errlen, "cannot use --set %s: '%s': %s",
				 c->o->sets[c->sp[k].set].key, c->sp[k].path,
				 strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/* The source run's latencies, read on a second connection while the main
 * thread loads the plan: a large run's two scans take turns otherwise. */
struct lat_job {
	const char *db;
	int64_t run;
	struct lat *lat;
	int rc;
	char err[512];
};

static void *lat_thread(void *arg)
{
	struct lat_job *j = arg;
	struct store *st = NULL;

	/* (one pass over the rows: a reader's small cache) */
	if (store_open_existing(&st, j->db) || store_cache_limit(st, 512)) {
		snprintf(j->err, sizeof(j->err), "%s", store_errmsg(st));
		j->rc = -1;
	} else {
		j->rc = replay_lat_load(st, j->run, j->lat, j->err, sizeof(j->err));
	}
	store_close(st);
	return NULL;
}

static int setup(struct ctx *c, char *err, size_t errlen)
{
	int rc0 = setup_plan(c, err, errlen);
	struct lat_job *j = c->lat_job;

	if (j) {
		pthread_join(c->lat_th, NULL);
		if (!rc0 && j->rc) {
			snprintf(err, errlen, "%s", j->err);
			rc0 = -1;
		}
		free(j);
		c->lat_job = NULL;
	}
	return rc0;
}

/* Opens the store, finds the source run and loads its requests at the
 * replay's level into c->src (its latencies read on a thread meanwhile).
 * Returns 0, or -1 with a message in err (no such run, no requests). */
static int load_source(struct ctx *c, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;
	const char *level = o->level == REPLAY_QUEUE ? "queue" : "dispatch";

	if (store_open_existing(&c->st, db_path_default(o->db))) {
		snprintf(err, errlen, "%s", store_errmsg(c->st));
		return -1;
	}
	run_summary_backfill(c->st);
	{
		struct store_run r;
		if (store_run_find(c->st, o->run, &c->src_run) ||
		    store_run_get(c->st, c->src_run, &r) ||
		    store_devices_get(c->st, c->src_run, &c->devinfo, &c->ndevinfo)) {
			snprintf(err, errlen, "%s", store_errmsg(c->st));
			return -1;
		}
		snprintf(c->src_name, sizeof(c->src_name), "%s", r.name);
	}
	{
		struct lat_job *j = xcalloc(1, sizeof(*j));
		j->db = db_path_default(o->db);
		j->run = c->src_run;
		j->lat = &c->src_lat;
		if (pthread_create(&c->lat_th, NULL, lat_thread, j))
			free(j);   /* read below, in turn */
		else
			c->lat_job = j;
	}
	if (!o->quiet && isatty(2))
		fprintf(stderr, "iotape: loading run '%s'...\n", c->src_name);
	/* the rows are read once: a reader's cache while they are, the
	 * writer's after (the replay's rows are written through it) */
	if (store_cache_limit(c->st, 512) ||
	    source_load(c->st, c->src_run, o->level, &c->src, err, errlen) ||
	    store_cache_limit(c->st, STORE_WRITER_CACHE_KIB)) {
		if (!err[0])
			snprintf(err, errlen, "%s", store_errmsg(c->st));
		return -1;
	}
	if (!c->src.n) {
		snprintf(err, errlen, "run '%s' has no requests at the %s level "
			 "(%s)%s", c->src_name, level,
			 o->level == REPLAY_QUEUE ? "no Q" : "no D",
			 o->level == REPLAY_QUEUE ? "; try --level dispatch"
						  : "; try --level queue");
		return -1;
	}
	return 0;
}

/* Sets up the engine named engine for the planned targets (buffers
 * aligned to align bytes, c->depth I/Os in flight). Returns 0, or -1 with a
 * message in err. */
static int start_engine(struct ctx *c, const char *engine, size_t align,
			char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;
	struct engine_target *et = c->et;
	struct engine_setup es = { 0 };
	int rc;

	c->depth = o->depth ? o->depth : c->plan.depth_orig;
	for (int i = 0; i < c->ntg; i++)
		et[i] = (struct engine_target){ c->tg[i].fd, c->tg[i].blkdev };
	es.targets = et;
	es.ntargets = c->ntg;
	es.depth = c->depth;
	es.max_len = c->plan.max_len;
	es.align = align;
	es.conf = c->own;
	c->eng.ops = engine_find(engine);
	c->eng_ok = 1;
	if ((rc = c->eng.ops->init(&c->eng, &es))) {
		snprintf(err, errlen, "cannot set up the %s engine: %s%s", engine,
			 strerror(-rc), strcmp(engine, "sync") ?
			 " (--engine sync works everywhere)" : "");
		return -1;
	}
	return 0;
}

/* c->targets_desc: the targets, "a, b"; one path that every device is
 * replayed on is named once, with how many devices ("model:X (a disk for
 * each of 3 devices)": a model gives each its own). */
static void targets_describe(struct ctx *c)
{
	size_t l = 0;
	int same = 1;

	for (int i = 1; i < c->ntg; i++)
		same &= !strcmp(c->tg[i].path, c->tg[0].path);
	if (c->ntg > 1 && same) {
		snprintf(c->targets_desc, sizeof(c->targets_desc),
			 "%.*s (%s %d devices)",
			 (int)sizeof(c->targets_desc) - 48, c->tg[0].path, strncmp(c->tg[0].path, "model:", 6)
			 ? "all" : "a disk for each of", c->ntg);
		return;
	}
	for (int i = 0; i < c->ntg && l < sizeof(c->targets_desc); i++)
		l += (size_t)snprintf(c->targets_desc + l,
				      sizeof(c->targets_desc) - l, "%s%s",
				      i ? ", " : "", c->tg[i].path);
}

/* What a replay needs before it starts: the source run, its targets, the
 * plan and the engine. Returns 0, or -1 with a message in err. */
static int setup_plan(struct ctx *c, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;
	struct plan_target pt[REPLAY_MAX_TARGETS];
	const char *engine = o->engine ? o->engine : "io_uring";
	size_t align = 4096;

	if (load_source(c, err, errlen))
		return -1;
	if (!engine_find(engine)) {
		char names[128];
		snprintf(err, errlen, "unknown --engine '%s' (%s)", engine,
			 engine_names(names, sizeof(names)));
		return -1;
	}
	if (map_devices(c, err, errlen) || open_targets(c, err, errlen))
		return -1;
	if (c->own_ops || engine_find(engine)->serves) {
		/* an engine that serves its targets drives those only */
		const struct replay_engine_ops *own =
			c->own_ops ? c->own_ops : engine_find(engine);

		if (!c->own_ops || (o->engine && strcmp(o->engine, own->name))) {
			snprintf(err, errlen, "%s", own->targets_only);
			return -1;
		}
		if (o->nset || o->trace) {
			snprintf(err, errlen, "%s", own->no_lab);
			return -1;
		}
		engine = own->name;
	}
	for (int i = 0; i < c->ntg; i++) {
		pt[i] = (struct plan_target){
			.name = c->tg[i].path, .size = c->tg[i].size,
			.lbs = c->tg[i].lbs, .writable = c->tg[i].writable,
			.extend = c->tg[i].may_extend, .wrap = o->wrap,
		};
		if (c->tg[i].mem_align > align)
			align = c->tg[i].mem_align;
	}
	if (plan_build(&c->src, c->dev_target, pt, c->ntg, o->single_stream,
		       o->offset, &c->plan, err, errlen))
		return -1;
	/* the plan holds what the replay needs: the rows go (RSS) */
	spill_free(&c->src.io_mem);
	c->src.io = NULL;
	if (o->scale > 0)
		c->gaps = plan_cap_gaps(&c->plan, o->max_gap_ns, &c->gap_removed_ns);
	for (int i = 0; i < c->ntg; i++) {
		if (engine_serving(c->tg[i].path))
			continue;
		if (c->tg[i].may_extend && !(o->wrap && c->tg[i].size) &&
		    target_extend(&c->tg[i], c->plan.need[i], err, errlen))
			return -1;
		if (target_check_direct(&c->tg[i], err, errlen))
			return -1;
	}
	if (start_engine(c, engine, align, err, errlen))
		return -1;
	for (int i = 0; i < c->ntg; i++) {
		char e2[256];
		if (!c->tg[i].disk[0])
			continue;
		machine_add_device(&o->mp, c->tg[i].path, 0, c->caps, &c->ncap,
				   REPLAY_MAX_TARGETS, e2, sizeof(e2));
	}
	if (resolve_sets(c, err, errlen))
		return -1;
	if (o->trace && !c->ncap) {
		snprintf(err, errlen, "--trace needs a target on a block device");
		return -1;
	}
	if (!c->lat_job &&
	    replay_lat_load(c->st, c->src_run, &c->src_lat, err, errlen))
		return -1;
	if (o->scale <= 0)
		snprintf(c->timing, sizeof(c->timing), "afap");
	else if (o->scale == 1)
		snprintf(c->timing, sizeof(c->timing), "original");
	else
		snprintf(c->timing, sizeof(c->timing), "scale:%g", o->scale);
	targets_describe(c);
	return 0;
}

/* Reads one block at offset 0 of each target through the engine, before
 * the schedule's clock starts (and before --trace's tracing): a ring's and
 * a task's first block I/O take a cold path (the ring's first submission,
 * the task's I/O context, the device's first request from this CPU), which
 * made the first traced Q of a timed replay 57 us later than the rest (76
 * us in all: every offset measured from it was off by that much). Nothing
 * for targets an engine serves (a modelled disk: its clock is simulated)
 * or targets whose blocks are larger than the engine's buffer. */
static void warm_up(struct ctx *c)
{
	struct engine_cqe cqe[4];
	unsigned want = 0, got = 0;

	if (c->own_ops || !c->eng_ok)
		return;
	for (int i = 0; i < c->ntg; i++) {
		struct rio io = { .op = RIO_READ, .target = (uint16_t)i,
				  .len = c->tg[i].lbs };
		if (c->tg[i].fd < 0 || !c->tg[i].lbs || c->tg[i].size < c->tg[i].lbs ||
		    c->tg[i].lbs > (c->plan.max_len ? c->plan.max_len : 4096))
			continue;
		if (c->eng.ops->prep(&c->eng, &io, UINT32_MAX) == 0)
			want++;
		if (c->eng.ops->commit(&c->eng, 1, now_mono_ns() + 1000000000ll))
			break;
		/* one at a time: the engine has room for one at least */
		for (int tries = 0; got < want && tries < 1000; tries++) {
			got += c->eng.ops->reap(&c->eng, cqe, 4);
			if (got < want)
				c->eng.ops->commit(&c->eng, 1, now_mono_ns() + 1000000ll);
		}
	}
}

/* ---- the pages the scheduler writes, faulted in ahead of it ---- */

#define PF_AHEAD 65536          /* I/Os ahead of the scheduler */

/* A thread that keeps the next PF_AHEAD I/Os' result pages (and the
 * writer's done[] and issue log) faulted in and writable ahead of the
 * scheduler (spill_prefault()), so that its stores never fault through
 * the file system. */
struct prefaulter {
	pthread_t th;
	int started, stop;        /* stop: set (release) to end it */
	size_t progress;          /* sched_params.progress */
	size_t n;                 /* the plan's I/Os */
	struct spill *res, *done, *log;   /* done, log: NULL without a writer */
	const size_t *log_n;      /* the issue log's length */
	size_t res_to, log_to;    /* prefaulted up to (I/Os, log entries) */
};

/* Prefaults up to PF_AHEAD past the scheduler, in steps of a quarter. */
static void prefault_step(struct prefaulter *p)
{
	size_t to = __atomic_load_n(&p->progress, __ATOMIC_RELAXED) + PF_AHEAD;

	if (to > p->n)
		to = p->n;
	if (to >= p->res_to + PF_AHEAD / 4 || (to == p->n && p->res_to < to)) {
		spill_prefault(p->res, p->res_to * sizeof(struct rio_result),
			       to * sizeof(struct rio_result));
		if (p->done)
			spill_prefault(p->done, p->res_to, to);
		p->res_to = to;
	}
	if (p->log) {
		size_t l = __atomic_load_n(p->log_n, __ATOMIC_ACQUIRE) + PF_AHEAD;
		if (l > p->n)
			l = p->n;
		if (l >= p->log_to + PF_AHEAD / 4 || (l == p->n && p->log_to < l)) {
			spill_prefault(p->log, p->log_to * sizeof(uint32_t),
				       l * sizeof(uint32_t));
			p->log_to = l;
		}
	}
}

static void *prefault_main(void *arg)
{
	struct prefaulter *p = arg;

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 1000000 };
		prefault_step(p);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* The first PF_AHEAD I/Os' pages now, then a thread for the rest; sp
 * publishes the scheduler's progress to it. Without the thread the
 * scheduler faults its own pages: slower, still right. */
static void prefault_start(struct prefaulter *p, struct spill *res,
			   struct replay_writer *w, size_t n,
			   struct sched_params *sp)
{
	memset(p, 0, sizeof(*p));
	p->n = n;
	p->res = res;
	if (w->started) {
		p->done = &w->done_mem;
		p->log = &w->log_mem;
		p->log_n = &w->log_n;
	}
	prefault_step(p);
	sp->progress = &p->progress;
	if (!pthread_create(&p->th, NULL, prefault_main, p))
		p->started = 1;
}

static void prefault_stop(struct prefaulter *p)
{
	if (!p->started)
		return;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	pthread_join(p->th, NULL);
	p->started = 0;
}

/* ---- signals ---- */

static int check_signals(void *ctx)
{
	struct ctx *c = ctx;
	struct signalfd_siginfo si;

	while (c->sfd >= 0 && read(c->sfd, &si, sizeof(si)) == sizeof(si))
		c->got_signal = (int)si.ssi_signo;
	/* another process opened a file the replay writes: stop writing */
	if (target_lease_broken())
		c->lease_stop = 1;
	return c->got_signal != 0 || c->lease_stop;
}

/* The machine's steal and total CPU ticks so far (proc/stat's cpu line):
 * time the hypervisor gave this VM's CPUs to others, which no priority
 * inside it wins back. Returns 0, or -1 when unreadable. */
static int cpu_ticks(const char *proc, uint64_t *steal, uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	char path[512];
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "%s/stat", proc);
	if (!(fp = fopen(path, "r")))
		return -1;
	n = fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(fp);
	if (n < 8)
		return -1;
	*steal = v[7];
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	return 0;
}

/* ---- one replay ---- */

/* The lab for one combination of --set's values (pick: the value of each
 * --set): taken (lab_begin(), *lab_on set) when the replay sets or traces
 * anything, else only checked for what an earlier run left (not for a
 * modelled disk, which no setting of the machine moves); then each --set
 * path written. Returns 0, or -1 with a message in err. */
static int lab_apply(struct ctx *c, struct lab *lab, int *lab_on, const int *pick,
		     char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;
	const char *sdir = o->state_dir ? o->state_dir : LAB_DIR_DEFAULT;

	if (o->nset || o->trace) {
		if (lab_begin(lab, sdir, err, errlen))
			return -1;
		*lab_on = 1;
	} else if (!c->own_ops && lab_check(sdir, err, errlen)) {
		return -1;
	}
	for (int k = 0; k < c->nsp; k++) {
		const struct replay_set *s = &o->sets[c->sp[k].set];
		if (lab_set(lab, c->sp[k].path, s->values[pick[c->sp[k].set]], err,
			    errlen))
			return -1;
	}
	return 0;
}

/* --trace: the targets' devices traced through tracefs into a scratch
 * file of the lab's (its path into raw, rawlen bytes). Returns 0, or -1
 * with a message in err. */
static int trace_begin(struct ctx *c, struct lab *lab, struct tracefs *tf,
		       char *raw, size_t rawlen, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;
	char devs[TRACEFS_MAX_DEVS][64], sysblock[512];
	int nd = 0;

	if (lab_scratch_file(lab, "iotape-replay", raw, rawlen, err, errlen))
		return -1;
	for (int i = 0; i < c->ncap && nd < TRACEFS_MAX_DEVS; i++)
		snprintf(devs[nd++], sizeof(devs[0]), "%s", c->caps[i].name);
	snprintf(sysblock, sizeof(sysblock), "%s/block", o->mp.sys);
	return tracefs_start(tf, lab, o->tracefs ? o->tracefs : "/sys/kernel/tracing",
			     sysblock, devs, nd, 16384, raw, err, errlen);
}

/* Stops --trace's tracing (lost: room for 256 CPUs' lost events, *ncpu
 * set), warning of each CPU that lost events. Returns 0, or -1 with a
 * message in err. */
static int trace_end(struct ctx *c, struct tracefs *tf, uint64_t *lost,
		     int *ncpu, char *err, size_t errlen)
{
	if (tracefs_stop(tf, lost, 256, ncpu, err, errlen))
		return -1;
	for (int k = 0; k < *ncpu; k++)
		if (lost[k] && !c->o->quiet)
			warning("CPU %d lost %" PRIu64 " trace events", k, lost[k]);
	return 0;
}

/* The rows of replay name written behind the I/O, in one transaction: the
 * run made (*pre_run) and the writer started on the results in res_mem.
 * Returns 0, or -1 with a message in err (nothing left open). */
static int store_behind(struct ctx *c, const char *name, int64_t *pre_run,
			struct replay_writer *wr, struct spill *res_mem,
			struct sched_params *sp, char *err, size_t errlen)
{
	int wrc;

	if (replay_store_begin(c, name, pre_run, err, errlen))
		return -1;
	if ((wrc = replay_writer_start(wr, c, *pre_run, res_mem, sp))) {
		snprintf(err, errlen, "cannot start storing the replay: %s",
			 wrc == -STORE_E_SQLITE ? store_errmsg(c->st)
			 : strerror(-wrc));
		store_rollback(c->st);
		run_summaries_free(&c->sums);
		*pre_run = 0;
		return -1;
	}
	return 0;
}

/* The message for a replay whose target refused nfailed I/Os, naming the
 * first one's error (res: the results in res_mem). */
static void failed_message(struct ctx *c, struct spill *res_mem,
			   const struct rio_result *res, uint64_t nfailed,
			   const char *name, char *err, size_t errlen)
{
	int first = 0;

	spill_rewind(res_mem);
	for (size_t i = 0; i < c->plan.n && !first; i++) {
		spill_at(res_mem, i, sizeof(*res));
		if (res[i].res < 0)
			first = (int)-res[i].res;
	}
	snprintf(err, errlen, "%" PRIu64 " I/Os failed on the target (the first: "
		 "%s); what was done is stored in run '%s', marked failed", nfailed,
		 strerror(first ? first : EIO), name);
}

/* Says (but --quiet) how many gaps over --max-gap the plan shortened
 * and the idle time that left out. */
static void say_gaps(struct ctx *c)
{
	const struct replay_opts *o = c->o;

	if (!o->quiet && c->gaps)
		fprintf(stderr, "iotape: %zu gap%s over --max-gap %g s shortened to "
			"it: %.3f s of idle time left out (--max-gap 0 keeps "
			"every gap)\n", c->gaps, c->gaps == 1 ? "" : "s",
			(double)o->max_gap_ns / 1e9, (double)c->gap_removed_ns / 1e9);
}

/* The clock the schedule runs on: a modelled disk's simulated time, else
 * the monotonic clock. A timed replay's thread then runs at SCHED_FIFO
 * priority 1 where allowed (root, c->realtime set; not with
 * $IOTAPE_REPLAY_FIFO=0): on a busy machine a normal thread wakes
 * milliseconds late. Not for afap, whose loop never sleeps long and would
 * starve the workers that complete the I/O on its CPU. With
 * $IOTAPE_REPLAY_CPU the thread is pinned (c->pinned), with
 * $IOTAPE_REPLAY_MLOCK its memory locked as it is touched (c->locked);
 * sched_normal() undoes all three. */
static const struct sched_clock *sched_begin(struct ctx *c,
					     struct sched_params *sp)
{
	const struct replay_opts *o = c->o;

	if (c->own_ops)
		return c->own_ops->replay_begin(c->own, sp);   /* simulated time */
	if (o->scale > 0 && !o->no_fifo) {
		struct sched_param prio = { .sched_priority = 1 };
		c->realtime = sched_setscheduler(0, SCHED_FIFO, &prio) == 0;
	}
	if (o->scale > 0 && o->cpu1 &&
	    !sched_getaffinity(0, sizeof(c->cpus0), &c->cpus0)) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(o->cpu1 - 1, &one);
		c->pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
		if (!c->pinned && !o->quiet)
			warning("cannot pin the replay to CPU %d: %s", o->cpu1 - 1,
				strerror(errno));
	}
	if (o->scale > 0 && o->mlock) {
		/* MCL_ONFAULT: the run's mapped files are not read in */
		c->locked = mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0;
		if (!c->locked && !o->quiet)
			warning("cannot lock the replay's memory: %s", strerror(errno));
	}
	return &sched_clock_mono;
}


/* How the replay ends, once stored: -1 with a message in err when the
 * engine failed (srun < 0) or the target refused I/Os; else the line
 * naming the run stored (but --quiet), and 1 when interrupted, 0 when
 * complete. */
static int replay_verdict(struct ctx *c, const char *name, int srun,
			  const struct sched_stats *ss, const struct fidelity *f,
			  struct spill *res_mem, const struct rio_result *res,
			  char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;

	if (srun < 0) {
		snprintf(err, errlen, "the %s engine failed: %s (what was done "
			 "is stored in run '%s', marked failed)", c->eng.ops->name,
			 strerror(-srun), name);
		return -1;
	}
	if (f->failed) {
		failed_message(c, res_mem, res, f->failed, name, err, errlen);
		return -1;
	}
	if (!o->quiet) {
		/* a name with brackets is a glob to a shell: quoted */
		char see[1800];
		fprintf(stderr, "iotape: stored replay run '%s'%s; %s\n", name,
			ss->interrupted ? " (interrupted)" : "",
			see_report(o->db ? store_shown(o->db) : NULL, name, see,
				   sizeof(see)));
	}
	return ss->interrupted ? 1 : 0;
}

/* Each I/O's result, in res_mem (out of the resident set behind the
 * writer), zeroed, and sp told of it and of the plan's memory. Returns the
 * results, or NULL (said) when there is no memory for them. */
static struct rio_result *results_init(struct ctx *c, struct spill *res_mem,
				       struct sched_params *sp)
{
	if (spill_init(res_mem, (c->plan.n ? c->plan.n : 1) *
		       sizeof(struct rio_result))) {
		error("no memory for the results of %zu I/Os", c->plan.n);
		return NULL;
	}
	sp->res_zeroed = 1;
	sp->plan_mem = &c->plan.io_mem;
	sp->res_mem = res_mem;
	c->res_mem = res_mem;
	return res_mem->p;
}

/* The thread back to a normal one after a timed replay (sched_begin()):
 * SCHED_OTHER, its CPUs as before, its memory unlocked. */
static void sched_normal(struct ctx *c)
{
	if (c->realtime) {
		struct sched_param prio = { .sched_priority = 0 };
		sched_setscheduler(0, SCHED_OTHER, &prio);
	}
	if (c->pinned)
		sched_setaffinity(0, sizeof(c->cpus0), &c->cpus0);
	if (c->locked)
		munlockall();
	c->pinned = c->locked = 0;
}

/* The % of the machine's CPU time stolen by the hypervisor since steal0
 * and total0 ticks (have_ticks: they were read), or -1 when not known. */
static double steal_since(const struct replay_opts *o, int have_ticks,
			  uint64_t steal0, uint64_t total0)
{
	uint64_t steal1 = 0, total1 = 0;

	if (have_ticks && !cpu_ticks(o->mp.proc, &steal1, &total1) &&
	    total1 > total0)
		return 100.0 * (double)(steal1 - steal0) /
		       (double)(total1 - total0);
	return -1;
}

/* The writer stores the rows it has left (wr_lat: the replay's
 * latencies). Returns 0, or -1 with a message in err. */
static int writer_drain(struct ctx *c, struct replay_writer *wr,
			struct lat *wr_lat, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;

	if (!o->quiet && isatty(2))
		fprintf(stderr, "iotape: storing the replay...\n");
	if (replay_writer_finish(wr, wr_lat)) {
		snprintf(err, errlen, "%s: %s", store_shown(db_path_default(o->db)),
			 store_errmsg(c->st));
		return -1;
	}
	return 0;
}

static int replay_one(struct ctx *c, const int *pick, const char *name,
		      const char *tag)
{
	const struct replay_opts *o = c->o;
	struct lab lab = { .lock_fd = -1, .state_fd = -1, .tracer_fd = -1 };
	int lab_on = 0, rc = -1, ncpu = 0, traced = 0;
	char err[2048] = "", raw[600] = "";
	struct setting *set0 = NULL, *set1 = NULL;
	int nset0 = 0, nset1 = 0;
	struct tracefs tf = { .pipe_fd = -1, .out_fd = -1 };
	uint64_t lost[256] = { 0 };
	struct spill res_mem = { .fd = -1 };
	struct prefaulter pf = { 0 };
	struct rio_result *res;
	struct sched_stats ss = { 0 };
	struct fidelity f = { 0 };
	struct sched_params sp = {
		.scale = o->scale, .depth = c->depth,
		.spin_ns = o->spin_ns ? o->spin_ns : REPLAY_SPIN_NS,
		.lead_ns = 2000000,
		.interrupted = check_signals, .ctx = c,
	};
	int64_t run = 0;
	uint64_t steal0 = 0, total0 = 0;
	const struct sched_clock *clk;
	int srun, have_ticks;
	struct replay_writer wr = { 0 };
	struct lat wr_lat = { 0 };
	int64_t pre_run = 0;   /* the run, while its transaction is open */

	if (!(res = results_init(c, &res_mem, &sp)))
		return -1;
	if (lab_apply(c, &lab, &lab_on, pick, err, sizeof(err)))
		goto out;
	machine_settings(&o->mp, c->caps, c->ncap, &set0, &nset0);
	warm_up(c);
	if (o->trace) {
		if (trace_begin(c, &lab, &tf, raw, sizeof(raw), err, sizeof(err)))
			goto out;
		traced = 1;
	}
	say_gaps(c);
	if (!o->trace && store_behind(c, name, &pre_run, &wr, &res_mem, &sp, err,
				      sizeof(err)))
		goto out;
	if (!o->quiet && isatty(2))
		fprintf(stderr, "iotape: replaying %zu I/Os of '%s' (timing %s, "
			"depth %u)...\n", c->plan.n, c->src_name, c->timing, c->depth);
	/* (before SCHED_FIFO: the thread is a normal one) */
	if (!c->own_ops)
		prefault_start(&pf, &res_mem, &wr, c->plan.n, &sp);
	clk = sched_begin(c, &sp);
	have_ticks = !cpu_ticks(o->mp.proc, &steal0, &total0);
	srun = sched_run(&c->plan, &sp, &c->eng, clk, res, &ss);
	prefault_stop(&pf);
	/* a lease broke: nothing more is issued and what was in flight is
	 * done, so the process waiting to open the file may go on now */
	if (target_lease_broken())
		for (int i = 0; i < c->ntg; i++)
			target_lease_release(&c->tg[i]);
	if (pre_run && writer_drain(c, &wr, &wr_lat, err, sizeof(err)))
		goto out;
	if (c->own_ops)
		c->own_ops->replay_end(c->own, c->plan.n);
	f.steal_pct = steal_since(o, have_ticks, steal0, total0);
	sched_normal(c);
	if (traced) {
		if (trace_end(c, &tf, lost, &ncpu, err, sizeof(err)))
			goto out;
		traced = 0;
	}
	machine_settings(&o->mp, c->caps, c->ncap, &set1, &nset1);
	/* everything changed goes back before the store is written */
	if (lab_on && lab_end(&lab))
		warning("some settings were not restored; see above");
	lab_on = 0;
	replay_fidelity_compute(c, res, &ss, &f);
	{
		struct outcome oc = {
			.res = res, .ss = &ss, .set0 = set0, .set1 = set1,
			.nset0 = nset0, .nset1 = nset1, .raw = raw[0] ? raw : NULL,
			/* I/Os the target refused (it went away, or
			 * failed): what was done is stored, marked failed */
			.status = srun < 0 || f.failed ? "failed" :
				  ss.interrupted ? "interrupted" : "complete",
			.tag = tag, .run = pre_run, .lat = &wr_lat,
		};
		pre_run = 0;   /* replay_store_one commits or rolls back */
		if (replay_store_one(c, name, &oc, &f, &run, err, sizeof(err)))
			goto out;
		replay_emit_fidelity(c, name, oc.status, tag, &f, &ss);
	}
	rc = replay_verdict(c, name, srun, &ss, &f, &res_mem, res, err,
			    sizeof(err));
out:
	prefault_stop(&pf);
	replay_writer_finish(&wr, NULL);   /* nothing left when done */
	if (pre_run)
		store_rollback(c->st);
	run_summaries_free(&c->sums);
	replay_lat_free(&wr_lat);
	if (traced || tf.pipe_fd >= 0 || tf.out_fd >= 0) {
		char e2[256];
		tracefs_stop(&tf, lost, 256, &ncpu, e2, sizeof(e2));
	}
	if (lab_on && lab_end(&lab))
		warning("some settings were not restored; see above");
	if (raw[0])
		unlink(raw);
	tracefs_free(&tf);
	free(set0);
	free(set1);
	spill_free(&res_mem);
	c->res_mem = NULL;
	hist_free(&f.err);
	hist_free(&f.own);
	replay_lat_free(&f.lat);
	if (rc < 0)
		error("%s", err[0] ? err : "replay failed");
	return rc;
}

/* ---- the command ---- */

int replay_run(const struct replay_opts *o_in)
{
	struct replay_opts o = *o_in;
	struct ctx *c = xcalloc(1, sizeof(*c));
	char err[2048] = "", base[300];
	int rc = 0, any_io = 0;
	struct sweep sw;
	sigset_t mask;

	sigemptyset(&mask);
	if (!o.mp.proc)
		o.mp.proc = "/proc";
	if (!o.mp.sys)
		o.mp.sys = "/sys";
	if (o.repeat < 1)
		o.repeat = 1;
	c->o = &o;
	c->sfd = -1;
	for (int i = 0; i < REPLAY_MAX_TARGETS; i++)
		c->tg[i].fd = -1;
	if (setup(c, err, sizeof(err))) {
		rc = error("%s", err);
		goto out;
	}
	if (o.name)
		snprintf(base, sizeof(base), "%s", o.name);
	else {
		char prefix[280];
		snprintf(prefix, sizeof(prefix), "%s-replay", c->src_name);
		if (store_run_free_name(c->st, prefix, base, sizeof(base))) {
			rc = error("%s", store_errmsg(c->st));
			goto out;
		}
	}
	sweep_init(&sw, base, o.repeat);
	for (int i = 0; i < o.nset; i++)
		sweep_add(&sw, o.sets[i].key, o.sets[i].values, o.sets[i].nvalues);
	/* every run name the sweep will take is free, before any I/O (a
	 * target file made for it is removed again below): a copy of the
	 * sweep stepped through */
	{
		struct sweep dry = sw;
		int64_t id;
		while (sweep_next(&dry))
			if (!store_run_find(c->st, dry.name, &id)) {
				rc = error("%s: a run named '%s' exists; give "
					   "another --run", store_name(c->st),
					   dry.name);
				goto out;
			}
	}
	/* From here on signals are read from a signalfd, so settings are put
	 * back and what was replayed is stored whatever arrives. */
	c->sfd = lab_signals(&mask, 0);
	/* wake-ups as asked, not up to 50 us later */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	emit_init(&c->em, stdout, o.json);
	emit_arr_begin(&c->em, NULL);   /* the replays, one object each */
	while (rc == 0 && sweep_next(&sw)) {
		if (check_signals(c)) {
			rc = 1;
			break;
		}
		rc = replay_one(c, sw.pick, sw.name, sw.tag[0] ? sw.tag : NULL);
		any_io = 1;
	}
	emit_arr_end(&c->em);
	emit_finish(&c->em);
	if (rc == 1 && c->lease_stop && !c->got_signal) {
		for (int i = 0; i < c->ntg; i++)
			if (c->tg[i].lease_lost && (c->tg[i].lease_said = 1))
				error("stopped: another process opened '%s' while "
				      "the replay wrote it; nothing more was written "
				      "(it waited for the writes in flight)%s",
				      c->tg[i].path, c->tg[i].owned ? ", and the "
				      "file is no longer taken for a replay's own" : "");
		rc = -1;
	} else if (rc == 1 && !o.quiet)
		fprintf(stderr, "iotape: interrupted (%s)\n",
			strsignal(c->got_signal ? c->got_signal : SIGINT));
	/* a signal's exit: 128 + its number, as a shell reports a command
	 * the signal killed (130 for SIGINT, 143 for SIGTERM) */
	rc = rc < 0 ? -1 : rc == 1 ? 128 + (c->got_signal ? c->got_signal
							   : SIGINT) : 0;
out:
	if (c->sfd >= 0) {
		close(c->sfd);
		sigprocmask(SIG_UNBLOCK, &mask, NULL);
	}
	if (c->eng_ok)
		c->eng.ops->exit(&c->eng);
	for (int i = 0; i < c->ntg; i++) {
		c->tg[i].ran = any_io;
		target_close(&c->tg[i]);
		/* a file made for a replay that never ran is removed again
		 * (while its name is still the file it made) */
		if (c->tg[i].created && !any_io)
			target_remove_made(&c->tg[i]);
	}
	plan_free(&c->plan);
	if (c->own_ops)
		c->own_ops->own_free(c->own);
	source_free(&c->src);
	replay_lat_free(&c->src_lat);
	free(c->dev_target);
	free(c->devinfo);
	store_close(c->st);
	free(c);
	return rc;
}
