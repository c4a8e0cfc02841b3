/* `iotape replay`'s work: check the source run and the targets, then for
 * each combination of settings apply them through the lab, run the
 * schedule, store the replay as a run (kind replay, parent the source) and
 * print how faithful it was. */
#include "replay.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/stats.h"
#include "capture/blktrace_format.h"
#include "capture/import.h"
#include "capture/lab.h"
#include "capture/tracefs.h"
#include "lib/emit.h"
#include "lib/util.h"
#include "replay/engine.h"
#include "replay/sched.h"
#include "replay/target.h"
#include "schema/store.h"

#define LATE_NS 1000000          /* an I/O issued over 1 ms late is late */
#define MAX_SET_PATHS 256

/* One file a --set value is written to. */
struct set_path {
	int set;                 /* index into o->sets */
	char key[160];           /* as recorded: "loop3:queue/scheduler" */
	char path[512];
};

struct lat {
	struct hist q2c, d2c;    /* ns */
};

struct ctx {
	const struct replay_opts *o;
	struct store *st;
	int64_t src_run;
	char src_name[256];
	struct source src;
	struct replay_target tg[REPLAY_MAX_TARGETS];
	int ntg;
	int *dev_target;
	struct plan plan;
	unsigned depth;
	struct replay_engine eng;
	struct engine_target et[REPLAY_MAX_TARGETS];   /* the engine's view */
	int eng_ok;
	struct capdev caps[REPLAY_MAX_TARGETS];
	int ncap;
	struct set_path sp[MAX_SET_PATHS];
	int nsp;
	struct lat src_lat;
	int sfd;
	int got_signal;
	int realtime;             /* the last replay ran at SCHED_FIFO */
	struct emit em;
	struct model_set *ms;     /* modelled disks (model:PROFILE targets) */
	char timing[64];
	char targets_desc[1024];
};

/* ---- setup ---- */

static int find_target(struct ctx *c, const char *path)
{
	for (int i = 0; i < c->ntg; i++)
		if (!strcmp(c->tg[i].path, path))
			return i;
	return -1;
}

/* Does map spec name device dev (name from the run's devices table)? */
static int map_matches(const char *spec, uint32_t dev, const char *name)
{
	unsigned ma, mi;
	char x;

	if (sscanf(spec, "%u%*[:,]%u%c", &ma, &mi, &x) == 2)
		return BT_MKDEV(ma, mi) == dev;
	if (!strncmp(spec, "/dev/", 5))
		spec += 5;
	return name && !strcmp(spec, name);
}

static void dev_name(struct ctx *c, uint32_t dev, char *out, size_t len)
{
	int64_t args[2] = { c->src_run, dev };
	sqlite3_stmt *s;

	out[0] = '\0';
	if (sqlite3_prepare_v2(store_db(c->st), "SELECT name FROM devices WHERE "
			       "run = ?1 AND dev = ?2", -1, &s, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(s, 1, args[0]);
	sqlite3_bind_int64(s, 2, args[1]);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

/* Which target each of the run's devices goes to; targets listed in
 * c->tg (paths only, opened later). */
static int map_devices(struct ctx *c, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;

	c->dev_target = xcalloc(c->src.ndev, sizeof(*c->dev_target));
	if (o->target && model_target_path(o->target)) {
		/* each device its own modelled disk, as in the run */
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
		if (m == o->nmap) {
			snprintf(err, errlen, "device %u,%u%s%s%s of run '%s' is not "
				 "in --map (add --map %u,%u=PATH)", BT_MAJOR(dev),
				 BT_MINOR(dev), name[0] ? " (" : "", name,
				 name[0] ? ")" : "", c->src_name, BT_MAJOR(dev),
				 BT_MINOR(dev));
			return -1;
		}
		if ((t = find_target(c, o->maps[m].path)) < 0 ||
		    model_target_path(o->maps[m].path)) {
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

static int open_targets(struct ctx *c, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;
	int want[REPLAY_MAX_TARGETS] = { 0 };
	char paths[REPLAY_MAX_TARGETS][1024];

	for (size_t i = 0; i < c->src.n; i++) {
		const struct src_io *io = &c->src.io[i];
		size_t k;
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
	for (int i = 0; i < c->ntg; i++) {
		if (model_target_path(paths[i])) {
			size_t k = 0;
			while (k + 1 < c->src.ndev && c->dev_target[k] != i)
				k++;
			if (model_set_add(&c->ms, i, paths[i], c->src.devs[k],
					  &c->tg[i], err, errlen))
				return -1;
			continue;
		}
		if (target_open(&c->tg[i], paths[i], want[i], o->allow_write,
				o->mp.sys, o->mp.proc, err, errlen))
			return -1;
	}
	for (int i = 0; c->ms && i < c->ntg; i++)
		if (!model_target_path(paths[i])) {
			snprintf(err, errlen, "modelled disks and real targets do "
				 "not mix in one replay ('%s')", paths[i]);
			return -1;
		}
	return 0;
}

/* Latencies of run's requests as report pairs them: Q2C of bios with data
 * (split halves apart), D2C of dispatches with data. */
static int lat_load(struct store *st, int64_t run, struct lat *l, char *err,
		    size_t errlen)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	memset(l, 0, sizeof(*l));
	if (sqlite3_prepare_v2(db, "SELECT q_ns, d_ns, c_ns, bytes, d_bytes, "
			       "d_head, split FROM requests WHERE run = ?1 AND "
			       "c_ns IS NOT NULL", -1, &s, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "reading requests: %s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(s, 1, run);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int hq = sqlite3_column_type(s, 0) != SQLITE_NULL;
		int hd = sqlite3_column_type(s, 1) != SQLITE_NULL;
		int64_t q = sqlite3_column_int64(s, 0), d = sqlite3_column_int64(s, 1);
		int64_t cc = sqlite3_column_int64(s, 2);
		if (hq && sqlite3_column_int64(s, 3) > 0 && !sqlite3_column_int(s, 6) &&
		    cc >= q)
			hist_add(&l->q2c, (uint64_t)(cc - q));
		if (hd && sqlite3_column_int(s, 5) && sqlite3_column_int64(s, 4) > 0 &&
		    cc >= d)
			hist_add(&l->d2c, (uint64_t)(cc - d));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "reading requests: %s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

static void lat_free(struct lat *l)
{
	hist_free(&l->q2c);
	hist_free(&l->d2c);
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
		if (rc) {
			snprintf(err, errlen, "cannot use --set %s: '%s': %s",
				 c->o->sets[c->sp[k].set].key, c->sp[k].path,
				 strerror(-rc));
			return -1;
		}
	}
	return 0;
}

static int setup(struct ctx *c, char *err, size_t errlen)
{
	const struct replay_opts *o = c->o;
	struct plan_target pt[REPLAY_MAX_TARGETS];
	const char *level = o->level == REPLAY_QUEUE ? "queue" : "dispatch";
	const char *engine = o->engine ? o->engine : "io_uring";
	struct engine_target *et = c->et;
	struct engine_setup es = { 0 };
	size_t align = 4096;
	int rc;

	if (store_open(&c->st, db_path_default(o->db), 0)) {
		snprintf(err, errlen, "%s: %s", db_path_default(o->db),
			 store_errmsg(c->st));
		return -1;
	}
	if (store_run_find(c->st, o->run, &c->src_run)) {
		snprintf(err, errlen, "%s", store_errmsg(c->st));
		return -1;
	}
	{
		sqlite3_stmt *s;
		sqlite3_prepare_v2(store_db(c->st), "SELECT name FROM runs WHERE id = ?",
				   -1, &s, NULL);
		sqlite3_bind_int64(s, 1, c->src_run);
		if (sqlite3_step(s) == SQLITE_ROW)
			snprintf(c->src_name, sizeof(c->src_name), "%s",
				 (const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
	}
	if (source_load(c->st, c->src_run, o->level, &c->src, err, errlen))
		return -1;
	if (!c->src.n) {
		snprintf(err, errlen, "run '%s' has no requests at the %s level "
			 "(%s)%s", c->src_name, level,
			 o->level == REPLAY_QUEUE ? "no Q" : "no D",
			 o->level == REPLAY_QUEUE ? "; try --level dispatch"
						  : "; try --level queue");
		return -1;
	}
	if (!engine_find(engine)) {
		snprintf(err, errlen, "unknown --engine '%s' (io_uring, sync, null)",
			 engine);
		return -1;
	}
	if (map_devices(c, err, errlen) || open_targets(c, err, errlen))
		return -1;
	if (c->ms || !strcmp(engine, "model")) {
		if (!c->ms || (o->engine && strcmp(o->engine, "model"))) {
			snprintf(err, errlen, "the model engine drives modelled disks "
				 "only: --target model:PROFILE or --map DEV=model:PROFILE");
			return -1;
		}
		if (o->nset || o->trace) {
			snprintf(err, errlen, "--set and --trace do not apply to a "
				 "modelled disk");
			return -1;
		}
		engine = "model";
	}
	for (int i = 0; i < c->ntg; i++) {
		pt[i] = (struct plan_target){
			.name = c->tg[i].path, .size = c->tg[i].size,
			.lbs = c->tg[i].lbs, .writable = c->tg[i].writable,
			.extend = !c->tg[i].blkdev, .wrap = o->wrap,
		};
		if (c->tg[i].mem_align > align)
			align = c->tg[i].mem_align;
	}
	if (plan_build(&c->src, c->dev_target, pt, c->ntg, o->single_stream,
		       o->offset, &c->plan, err, errlen))
		return -1;
	for (int i = 0; i < c->ntg; i++) {
		if (model_target_path(c->tg[i].path))
			continue;
		if (!c->tg[i].blkdev && !(o->wrap && c->tg[i].size) &&
		    target_extend(&c->tg[i], c->plan.need[i], err, errlen))
			return -1;
		if (target_check_direct(&c->tg[i], err, errlen))
			return -1;
	}
	c->depth = o->depth ? o->depth : c->plan.depth_orig;
	for (int i = 0; i < c->ntg; i++)
		et[i] = (struct engine_target){ c->tg[i].fd, c->tg[i].blkdev };
	es.targets = et;
	es.ntargets = c->ntg;
	es.depth = c->depth;
	es.max_len = c->plan.max_len;
	es.align = align;
	es.model = c->ms;
	c->eng.ops = engine_find(engine);
	c->eng_ok = 1;
	if ((rc = c->eng.ops->init(&c->eng, &es))) {
		snprintf(err, errlen, "cannot set up the %s engine: %s%s", engine,
			 strerror(-rc), strcmp(engine, "sync") ?
			 " (--engine sync works everywhere)" : "");
		return -1;
	}
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
	if (lat_load(c->st, c->src_run, &c->src_lat, err, errlen))
		return -1;
	if (o->scale <= 0)
		snprintf(c->timing, sizeof(c->timing), "afap");
	else if (o->scale == 1)
		snprintf(c->timing, sizeof(c->timing), "original");
	else
		snprintf(c->timing, sizeof(c->timing), "scale:%g", o->scale);
	{
		size_t l = 0;
		for (int i = 0; i < c->ntg && l < sizeof(c->targets_desc); i++)
			l += (size_t)snprintf(c->targets_desc + l,
					      sizeof(c->targets_desc) - l, "%s%s",
					      i ? ", " : "", c->tg[i].path);
	}
	return 0;
}

/* ---- signals ---- */

static int check_signals(void *ctx)
{
	struct ctx *c = ctx;
	struct signalfd_siginfo si;

	while (c->sfd >= 0 && read(c->sfd, &si, sizeof(si)) == sizeof(si))
		c->got_signal = (int)si.ssi_signo;
	return c->got_signal != 0;
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

/* ---- the figures ---- */

struct fidelity {
	double steal_pct;         /* CPU time the hypervisor took, %; <0 unknown */
	struct hist err;          /* issue - sched, ns */
	struct hist own;          /* issue - free to go: the replayer's own lag */
	uint64_t late, own_late, held, issued, failed, bytes;
	int64_t span_ns;
	double iops, mbs, src_iops, src_mbs;
	struct lat lat;
};

static void fidelity_compute(struct ctx *c, const struct rio_result *res,
			     const struct sched_stats *ss, struct fidelity *f)
{
	const struct plan *p = &c->plan;
	double src_s = (double)p->src_span_ns / 1e9;

	for (size_t i = 0; i < p->n; i++) {
		int64_t e;
		if (!res[i].sched_ns)
			continue;
		f->issued++;
		e = res[i].issue_ns - res[i].sched_ns;
		hist_add(&f->err, (uint64_t)(e > 0 ? e : 0));
		if (e > LATE_NS)
			f->late++;
		e = res[i].issue_ns - res[i].free_ns;
		hist_add(&f->own, (uint64_t)(e > 0 ? e : 0));
		if (e > LATE_NS)
			f->own_late++;
		if (res[i].free_ns > res[i].sched_ns)
			f->held++;
		if (res[i].res < 0)
			f->failed++;
		if (p->io[i].op != RIO_FLUSH)
			f->bytes += p->io[i].len;
	}
	f->span_ns = ss->last_complete - ss->first_issue;
	if (f->span_ns > 0) {
		f->iops = (double)f->issued / ((double)f->span_ns / 1e9);
		f->mbs = (double)f->bytes / 1e6 / ((double)f->span_ns / 1e9);
	}
	if (src_s > 0) {
		f->src_iops = (double)p->src_n / src_s;
		f->src_mbs = (double)p->src_bytes / 1e6 / src_s;
	}
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static void emit_row(struct emit *e, const char *label, const char *key,
		     double orig, double rep, int decimals)
{
	char o[32], r[32], q[32];

	emit_obj_begin(e, key);
	emit_num(e, "original", orig);
	emit_num(e, "replay", rep);
	emit_obj_end(e);
	snprintf(o, sizeof(o), "%.*f", decimals, orig);
	snprintf(r, sizeof(r), "%.*f", decimals, rep);
	if (isfinite(ratio(rep, orig)))
		snprintf(q, sizeof(q), "%.2f", ratio(rep, orig));
	else
		snprintf(q, sizeof(q), "-");
	emit_text(e, "  %-16s %14s %14s %14s\n", label, o, r, q);
}

static void emit_fidelity(struct ctx *c, const char *name, const char *status,
			  const char *tag, const struct fidelity *f,
			  const struct sched_stats *ss)
{
	struct emit *e = &c->em;
	const struct plan *p = &c->plan;
	const char *level = c->o->level == REPLAY_QUEUE ? "queue" : "dispatch";
	int afap = c->o->scale <= 0;

	emit_obj_begin(e, NULL);
	emit_str(e, "run", name);
	emit_str(e, "source", c->src_name);
	emit_str(e, "status", status);
	emit_str(e, "tag", tag);
	emit_str(e, "level", level);
	emit_str(e, "timing", c->timing);
	emit_str(e, "engine", c->eng.ops->name);
	emit_u64(e, "depth", c->depth);
	emit_u64(e, "streams", p->nstreams);
	emit_u64(e, "serial_streams", p->serial_streams);
	emit_str(e, "targets", c->targets_desc);
	emit_u64(e, "ios", f->issued);
	emit_u64(e, "failed", f->failed);
	emit_u64(e, "writes_as_reads", p->as_read);
	emit_u64(e, "flush_writes", p->flush_writes);
	emit_u64(e, "aligned", p->aligned);
	emit_u64(e, "wrapped", p->wrapped);
	emit_u64(e, "discards_skipped", p->discards_skipped);
	emit_u64(e, "dep_waits", ss->dep_waits);
	emit_text(e, "replay '%s' of run '%s': %s, %" PRIu64 " I/Os in %.3f s\n",
		  name, c->src_name, status, f->issued, (double)f->span_ns / 1e9);
	emit_u64(e, "realtime", (uint64_t)c->realtime);
	emit_text(e, "  %s level, timing %s, %s%s, depth %u, %u stream%s (%u "
		  "serial)\n", level, c->timing, c->eng.ops->name,
		  c->realtime ? " (SCHED_FIFO)" : "", c->depth, p->nstreams,
		  p->nstreams == 1 ? "" : "s", p->serial_streams);
	emit_text(e, "  on %s\n", c->targets_desc);
	if (c->ms)
		model_set_emit(c->ms, e);
	emit_text(e, "  writes as reads %" PRIu64 ", flush+writes %" PRIu64
		  ", aligned %" PRIu64 ", wrapped %" PRIu64 ", failed %" PRIu64
		  "\n", p->as_read, p->flush_writes, p->aligned, p->wrapped,
		  f->failed);
	if (p->discards_skipped)
		emit_text(e, "  discards skipped (target not writable) %" PRIu64 "\n",
			  p->discards_skipped);
	emit_num(e, "steal_pct", f->steal_pct >= 0 ? f->steal_pct : NAN);
	if (f->steal_pct >= 1)
		emit_text(e, "  the hypervisor took %.0f%% of this machine's CPU time "
			  "during the replay (steal):\n  timing suffers whatever "
			  "the replayer does\n", f->steal_pct);

	emit_obj_begin(e, "issue_error_us");
	emit_u64(e, "n", f->err.n);
	emit_num(e, "p50", afap ? NAN : hist_pct(&f->err, 50) / 1e3);
	emit_num(e, "p99", afap ? NAN : hist_pct(&f->err, 99) / 1e3);
	emit_num(e, "max", afap ? NAN : (double)f->err.max / 1e3);
	emit_u64(e, "late_1ms", afap ? 0 : f->late);
	emit_u64(e, "held", afap ? 0 : f->held);
	emit_obj_end(e);
	emit_obj_begin(e, "own_error_us");
	emit_u64(e, "n", f->own.n);
	emit_num(e, "p50", afap ? NAN : hist_pct(&f->own, 50) / 1e3);
	emit_num(e, "p99", afap ? NAN : hist_pct(&f->own, 99) / 1e3);
	emit_num(e, "max", afap ? NAN : (double)f->own.max / 1e3);
	emit_u64(e, "late_1ms", afap ? 0 : f->own_late);
	emit_obj_end(e);
	if (afap) {
		emit_text(e, "\n  issue error: none to measure (as fast as "
			  "possible)\n");
	} else {
		emit_text(e, "\n  issue error (us)         n        p50        p99"
			  "        max  late >1ms\n");
		emit_text(e, "  vs schedule   %11" PRIu64 " %10.1f %10.1f %10.1f %10"
			  PRIu64 "\n", f->err.n, hist_pct(&f->err, 50) / 1e3,
			  hist_pct(&f->err, 99) / 1e3, (double)f->err.max / 1e3,
			  f->late);
		emit_text(e, "  vs free to go %11" PRIu64 " %10.1f %10.1f %10.1f %10"
			  PRIu64 "\n", f->own.n, hist_pct(&f->own, 50) / 1e3,
			  hist_pct(&f->own, 99) / 1e3, (double)f->own.max / 1e3,
			  f->own_late);
		emit_text(e, "  (%" PRIu64 " I/O%s waited past %s time for %s "
			  "process's previous I/O or\n  a free slot; free to go: "
			  "the later of the schedule and that)\n", f->held,
			  f->held == 1 ? "" : "s", f->held == 1 ? "its" : "their",
			  f->held == 1 ? "its" : "their");
	}
	emit_text(e, "\n  %-16s %14s %14s %14s\n", "", "original", "replay",
		  "replay/orig");
	emit_row(e, "I/Os", "ios", (double)p->src_n, (double)f->issued, 0);
	emit_row(e, "span s", "span_s", (double)p->src_span_ns / 1e9,
		 (double)f->span_ns / 1e9, 3);
	emit_row(e, "IOPS", "iops", f->src_iops, f->iops, 1);
	emit_row(e, "MB/s", "mb_s", f->src_mbs, f->mbs, 2);
	emit_row(e, "Q2C mean us", "q2c_mean_us", hist_mean(&c->src_lat.q2c) / 1e3,
		 hist_mean(&f->lat.q2c) / 1e3, 1);
	emit_row(e, "Q2C p99 us", "q2c_p99_us", hist_pct(&c->src_lat.q2c, 99) / 1e3,
		 hist_pct(&f->lat.q2c, 99) / 1e3, 1);
	emit_row(e, "D2C mean us", "d2c_mean_us", hist_mean(&c->src_lat.d2c) / 1e3,
		 hist_mean(&f->lat.d2c) / 1e3, 1);
	emit_row(e, "D2C p99 us", "d2c_p99_us", hist_pct(&c->src_lat.d2c, 99) / 1e3,
		 hist_pct(&f->lat.d2c, 99) / 1e3, 1);
	if (!c->o->trace)
		emit_text(e, "  (the replay's Q2C and D2C are submission to "
			  "completion as iotape saw them;\n  --trace gives the "
			  "block layer's)\n");
	emit_text(e, "\n");
	emit_obj_end(e);
	fflush(e->fp);
}

/* ---- storing ---- */

static void stat_num(struct store *st, int64_t run, const char *key, double v,
		     int decimals)
{
	char b[64];

	if (!isfinite(v))
		return;
	snprintf(b, sizeof(b), "%.*f", decimals, v);
	store_stat_set(st, run, key, b);
}

static void stat_u64(struct store *st, int64_t run, const char *key, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	store_stat_set(st, run, key, b);
}

static void rio_rwbs(const struct rio *io, char *rwbs, uint64_t *cats)
{
	switch (io->op) {
	case RIO_WRITE:
		snprintf(rwbs, 8, "W%sS", io->flags & RIO_FUA ? "F" : "");
		*cats = BT_C_WRITE | BT_C_SYNC | (io->flags & RIO_FUA ? BT_C_FUA : 0);
		break;
	case RIO_FLUSH:
		snprintf(rwbs, 8, "FWS");
		*cats = BT_C_WRITE | BT_C_FLUSH | BT_C_SYNC;
		break;
	case RIO_DISCARD:
		snprintf(rwbs, 8, "DS");
		*cats = BT_C_DISCARD | BT_C_SYNC;
		break;
	default:
		snprintf(rwbs, 8, "R");
		*cats = BT_C_READ;
	}
}

static int cmp_issue(const void *a, const void *b, void *arg)
{
	const struct rio_result *r = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (r[x].issue_ns != r[y].issue_ns)
		return r[x].issue_ns < r[y].issue_ns ? -1 : 1;
	return (x > y) - (x < y);
}

/* The requests rows of an untraced replay: one per I/O, queued and
 * dispatched when it was issued, with btt's D2D seek distance per target
 * in issue order. */
static int store_requests(struct ctx *c, int64_t run,
			  const struct rio_result *res)
{
	const struct plan *p = &c->plan;
	uint32_t *ord = xmalloc((p->n ? p->n : 1) * sizeof(*ord));
	uint64_t prev_end[REPLAY_MAX_TARGETS];
	int have_prev[REPLAY_MAX_TARGETS] = { 0 };
	size_t n = 0;
	int64_t id;
	int rc;

	for (size_t i = 0; i < p->n; i++)
		if (res[i].sched_ns)
			ord[n++] = (uint32_t)i;
	qsort_r(ord, n, sizeof(*ord), cmp_issue, (void *)res);
	if ((rc = store_next_request_id(c->st, &id)))
		goto out;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = ord[k];
		const struct rio *io = &p->io[i];
		struct store_request rq = { 0 };
		rq.dev = c->tg[io->target].dev;
		rq.sector = io->off / 512;
		rq.bytes = io->len;
		rio_rwbs(io, rq.rwbs, &rq.cats);
		rq.pid = io->pid;
		rq.q_ns = rq.d_ns = res[i].issue_ns;
		rq.g_ns = rq.m_ns = rq.i_ns = STORE_NO_TIME;
		rq.c_ns = res[i].complete_ns ? res[i].complete_ns : STORE_NO_TIME;
		rq.has_d = 1;
		rq.d_sector = rq.sector;
		rq.d_bytes = rq.bytes;
		rq.d_head = 1;
		rq.error = res[i].res < 0 ? -res[i].res : 0;
		if (io->len && io->op != RIO_DISCARD) {
			uint64_t s = rq.sector, e = s + io->len / 512;
			if (have_prev[io->target]) {
				uint64_t pe = prev_end[io->target];
				rq.has_seek = 1;
				rq.seek_sectors = s >= pe ? (int64_t)(s - pe) :
						  e <= pe ? (int64_t)(pe - s) : 0;
			}
			have_prev[io->target] = 1;
			prev_end[io->target] = e;
		}
		if ((rc = store_request_add(c->st, run, id++, &rq)))
			goto out;
	}
out:
	free(ord);
	return rc;
}

/* Binds the replays row of I/O i at parameter offset base. */
static void bind_replay(struct ctx *c, sqlite3_stmt *s, int base, int64_t run,
			size_t i, const struct rio_result *r)
{
	const struct rio *io = &c->plan.io[i];

	sqlite3_bind_int64(s, base + 1, run);
	sqlite3_bind_int64(s, base + 2, (int64_t)i);
	sqlite3_bind_int64(s, base + 3, io->stream);
	sqlite3_bind_int64(s, base + 4, io->pid);
	sqlite3_bind_int64(s, base + 5, c->tg[io->target].dev);
	if (io->op == RIO_FLUSH)
		sqlite3_bind_null(s, base + 6);
	else
		sqlite3_bind_int64(s, base + 6, (int64_t)(io->off / 512));
	sqlite3_bind_int64(s, base + 7, io->len);
	sqlite3_bind_text(s, base + 8, rio_op_name(io->op), -1, SQLITE_STATIC);
	sqlite3_bind_int(s, base + 9, !!(io->flags & RIO_FUA));
	sqlite3_bind_int(s, base + 10, !!(io->flags & RIO_AS_READ));
	sqlite3_bind_int64(s, base + 11, io->src_id);
	sqlite3_bind_int64(s, base + 12, r->sched_ns);
	sqlite3_bind_int64(s, base + 13, r->issue_ns);
	if (r->complete_ns)
		sqlite3_bind_int64(s, base + 14, r->complete_ns);
	else
		sqlite3_bind_null(s, base + 14);
	sqlite3_bind_int64(s, base + 15, r->res);
	sqlite3_bind_int64(s, base + 16, r->free_ns);
}

#define REPLAY_COLS 16
#define REPLAY_BATCH 32

/* The replays rows of the I/Os issued, REPLAY_BATCH rows per INSERT (one
 * statement's fixed cost per batch, as the store does for events).
 * Returns 0 or -STORE_E_SQLITE. */
static int store_replays(struct ctx *c, int64_t run, const struct rio_result *res)
{
	const struct plan *p = &c->plan;
	sqlite3 *db = store_db(c->st);
	sqlite3_stmt *s[2] = { NULL, NULL };
	size_t *pend = xmalloc(REPLAY_BATCH * sizeof(*pend)), np = 0;
	char sql[256 + REPLAY_BATCH * (2 * REPLAY_COLS + 4)];
	int rc = 0;

	for (int k = 0; k < 2 && !rc; k++) {
		int rows = k ? 1 : REPLAY_BATCH;
		size_t l = (size_t)sprintf(sql, "INSERT INTO replays (run, idx, stream,"
			" pid, dev, sector, bytes, op, fua, as_read, src_request, "
			"sched_ns, issue_ns, complete_ns, result, ready_ns) VALUES ");
		for (int r = 0; r < rows; r++) {
			sql[l++] = r ? ',' : ' ';
			sql[l++] = '(';
			for (int col = 0; col < REPLAY_COLS; col++) {
				sql[l++] = col ? ',' : '?';
				if (col)
					sql[l++] = '?';
			}
			sql[l++] = ')';
		}
		sql[l] = '\0';
		if (sqlite3_prepare_v2(db, sql, -1, &s[k], NULL) != SQLITE_OK)
			rc = -STORE_E_SQLITE;
	}
	for (size_t i = 0; i <= p->n && !rc; i++) {
		if (i < p->n && !res[i].sched_ns)
			continue;
		if (i < p->n)
			pend[np++] = i;
		if (np == REPLAY_BATCH) {
			for (size_t b = 0; b < np; b++)
				bind_replay(c, s[0], (int)b * REPLAY_COLS, run, pend[b],
					    &res[pend[b]]);
			if (sqlite3_step(s[0]) != SQLITE_DONE)
				rc = -STORE_E_SQLITE;
			sqlite3_reset(s[0]);
			np = 0;
		} else if (i == p->n) {
			for (size_t b = 0; b < np && !rc; b++) {
				bind_replay(c, s[1], 0, run, pend[b], &res[pend[b]]);
				if (sqlite3_step(s[1]) != SQLITE_DONE)
					rc = -STORE_E_SQLITE;
				sqlite3_reset(s[1]);
			}
		}
	}
	sqlite3_finalize(s[0]);
	sqlite3_finalize(s[1]);
	free(pend);
	return rc;
}

static int add_note_event(struct store *st, int64_t run, int64_t t, uint32_t dev,
			  const char *msg)
{
	struct bt_event ev = {
		.time_ns = (uint64_t)t,
		.action = BT_N_MESSAGE | ((uint64_t)BT_C_NOTIFY << 16),
		.pid = (uint32_t)getpid(), .dev = dev,
		.pdu_len = (uint16_t)strlen(msg), .pdu = (const uint8_t *)msg,
	};
	return store_event_add(st, run, &ev);
}

static void save_settings(struct store *st, int64_t run, struct setting *s,
			  int n, const char *at)
{
	for (int i = 0; i < n; i++)
		store_setting_add(st, run, s[i].key, s[i].value, at);
}

struct outcome {
	const struct rio_result *res;
	const struct sched_stats *ss;
	struct setting *set0, *set1;
	int nset0, nset1;
	const char *raw;          /* the trace, or NULL */
	const char *status;
	const char *tag;
};

/* Stores one replay as run name; fills f (the replay's latencies come from
 * the stored requests). Returns 0 and *run_out, or -1 with err. */
static int store_one(struct ctx *c, const char *name, const struct outcome *oc,
		     struct fidelity *f, int64_t *run_out, char *err,
		     size_t errlen)
{
	const struct replay_opts *o = c->o;
	struct store *st = c->st;
	struct stat sb;
	int64_t run = 0, args[2];
	char src[1400];
	int rc, traced = 0;

	snprintf(src, sizeof(src), "replay of '%s' on %s", c->src_name,
		 c->targets_desc);
	if ((rc = store_begin(st)))
		goto fail;
	if (oc->raw && stat(oc->raw, &sb) == 0 && sb.st_size > 0) {
		struct import_opts io = { .quiet = 1 };
		if ((rc = import_one(st, &io, oc->raw, name, &run, err, errlen)))
			goto out;
		traced = 1;
		if ((rc = store_run_set(st, run, "kind", "replay")) ||
		    (rc = store_run_set(st, run, "source", src)) ||
		    (rc = store_run_set(st, run, "status", oc->status)))
			goto fail;
	} else {
		struct run_info ri = { .name = name, .kind = "replay",
				       .parent = c->src_run, .source = src };
		uint32_t dev0 = c->tg[0].dev;
		if ((rc = store_run_create(st, &ri, &run)))
			goto fail;
		if ((rc = add_note_event(st, run, oc->ss->t0, dev0,
					 "iotape replay start")) ||
		    (rc = add_note_event(st, run,
					 oc->ss->last_complete > oc->ss->t0 ?
					 oc->ss->last_complete : oc->ss->t0,
					 dev0, "iotape replay end")) ||
		    (rc = store_run_finish(st, run, oc->status, oc->ss->t0)))
			goto fail;
	}
	args[0] = run;
	args[1] = c->src_run;
	{
		int64_t dummy;
		if ((rc = store_query_i64(st, "UPDATE runs SET parent = ?2 WHERE "
					  "id = ?1", 2, args, &dummy)) ||
		    (rc = store_query_i64(st, "INSERT OR IGNORE INTO processes (run,"
					  " pid, comm) SELECT ?1, pid, comm FROM "
					  "processes WHERE run = ?2", 2, args, &dummy)))
			goto fail;
	}
	for (int i = 0; i < oc->nset0 && !rc; i++) {
		if (!strcmp(oc->set0[i].key, "host"))
			rc = store_run_set(st, run, "host", oc->set0[i].value);
		else if (!strcmp(oc->set0[i].key, "kernel.release"))
			rc = store_run_set(st, run, "kernel", oc->set0[i].value);
	}
	if (rc)
		goto fail;
	save_settings(st, run, oc->set0, oc->nset0, "start");
	save_settings(st, run, oc->set1, oc->nset1, "end");
	for (int i = 0; i < c->ntg; i++) {
		const char *nm = c->tg[i].blkdev && c->tg[i].disk[0] ? c->tg[i].disk
								      : c->tg[i].path;
		if ((rc = store_device_add(st, run, c->tg[i].dev, nm,
					   (int64_t)c->tg[i].size, "data")))
			goto fail;
	}
	if ((rc = store_replays(c, run, oc->res))) {
		snprintf(err, errlen, "%s: storing replays: %s",
			 db_path_default(o->db), sqlite3_errmsg(store_db(st)));
		goto out;
	}
	if (!traced && (rc = store_requests(c, run, oc->res)))
		goto fail;
	if (lat_load(st, run, &f->lat, err, errlen)) {
		rc = -1;
		goto out;
	}
	{
		int afap = o->scale <= 0;
		const struct plan *p = &c->plan;
		store_stat_set(st, run, "replay.source", c->src_name);
		store_stat_set(st, run, "replay.level",
			       o->level == REPLAY_QUEUE ? "queue" : "dispatch");
		store_stat_set(st, run, "replay.timing", c->timing);
		store_stat_set(st, run, "replay.engine", c->eng.ops->name);
		store_stat_set(st, run, "replay.streams",
			       o->single_stream ? "single" : "pid");
		store_stat_set(st, run, "replay.targets", c->targets_desc);
		store_stat_set(st, run, "replay.traced", traced ? "1" : "0");
		store_stat_set(st, run, "replay.realtime", c->realtime ? "1" : "0");
		if (f->steal_pct >= 0)
			stat_num(st, run, "replay.steal_pct", f->steal_pct, 2);
		stat_u64(st, run, "replay.depth", c->depth);
		stat_u64(st, run, "replay.depth_original", p->depth_orig);
		stat_u64(st, run, "replay.ios", f->issued);
		stat_u64(st, run, "replay.ios_original", p->src_n);
		stat_u64(st, run, "replay.failed", f->failed);
		stat_u64(st, run, "replay.writes_as_reads", p->as_read);
		stat_u64(st, run, "replay.flush_writes", p->flush_writes);
		stat_u64(st, run, "replay.aligned", p->aligned);
		stat_u64(st, run, "replay.wrapped", p->wrapped);
		stat_u64(st, run, "replay.discards_skipped", p->discards_skipped);
		stat_u64(st, run, "replay.dep_waits", oc->ss->dep_waits);
		stat_u64(st, run, "replay.streams_n", p->nstreams);
		stat_u64(st, run, "replay.serial_streams", p->serial_streams);
		if (!afap) {
			stat_num(st, run, "replay.issue_err_p50_us",
				 hist_pct(&f->err, 50) / 1e3, 3);
			stat_num(st, run, "replay.issue_err_p99_us",
				 hist_pct(&f->err, 99) / 1e3, 3);
			stat_num(st, run, "replay.issue_err_max_us",
				 (double)f->err.max / 1e3, 3);
			stat_u64(st, run, "replay.late_1ms", f->late);
			stat_u64(st, run, "replay.held", f->held);
			stat_num(st, run, "replay.own_err_p50_us",
				 hist_pct(&f->own, 50) / 1e3, 3);
			stat_num(st, run, "replay.own_err_p99_us",
				 hist_pct(&f->own, 99) / 1e3, 3);
			stat_num(st, run, "replay.own_err_max_us",
				 (double)f->own.max / 1e3, 3);
			stat_u64(st, run, "replay.own_late_1ms", f->own_late);
		}
		stat_num(st, run, "replay.span_s", (double)f->span_ns / 1e9, 6);
		stat_num(st, run, "replay.span_s_original",
			 (double)p->src_span_ns / 1e9, 6);
		stat_num(st, run, "replay.iops", f->iops, 1);
		stat_num(st, run, "replay.iops_original", f->src_iops, 1);
		stat_num(st, run, "replay.mb_s", f->mbs, 3);
		stat_num(st, run, "replay.mb_s_original", f->src_mbs, 3);
		stat_num(st, run, "replay.q2c_mean_us", hist_mean(&f->lat.q2c) / 1e3,
			 3);
		stat_num(st, run, "replay.q2c_p99_us", hist_pct(&f->lat.q2c, 99) / 1e3,
			 3);
		stat_num(st, run, "replay.d2c_mean_us", hist_mean(&f->lat.d2c) / 1e3,
			 3);
		stat_num(st, run, "replay.d2c_p99_us", hist_pct(&f->lat.d2c, 99) / 1e3,
			 3);
		stat_num(st, run, "replay.q2c_mean_us_original",
			 hist_mean(&c->src_lat.q2c) / 1e3, 3);
		stat_num(st, run, "replay.q2c_p99_us_original",
			 hist_pct(&c->src_lat.q2c, 99) / 1e3, 3);
		stat_num(st, run, "replay.d2c_mean_us_original",
			 hist_mean(&c->src_lat.d2c) / 1e3, 3);
		stat_num(st, run, "replay.d2c_p99_us_original",
			 hist_pct(&c->src_lat.d2c, 99) / 1e3, 3);
		if (oc->tag)
			store_stat_set(st, run, "tag", oc->tag);
		if (c->ms)
			model_set_store(c->ms, st, run);
	}
	if ((rc = store_commit(st)))
		goto fail;
	*run_out = run;
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", db_path_default(o->db), store_errmsg(st));
out:
	store_rollback(st);
	return -1;
}

/* ---- one replay ---- */

static int replay_one(struct ctx *c, const int *pick, const char *name,
		      const char *tag)
{
	const struct replay_opts *o = c->o;
	struct lab lab = { .lock_fd = -1, .state_fd = -1 };
	int lab_on = 0, rc = -1, ncpu = 0, traced = 0;
	char err[2048] = "", raw[600] = "";
	struct setting *set0 = NULL, *set1 = NULL;
	int nset0 = 0, nset1 = 0;
	struct tracefs tf = { .pipe_fd = -1, .out_fd = -1 };
	uint64_t lost[256] = { 0 };
	struct rio_result *res = xcalloc(c->plan.n ? c->plan.n : 1, sizeof(*res));
	struct sched_stats ss = { 0 };
	struct fidelity f = { 0 };
	struct sched_params sp = {
		.scale = o->scale, .depth = c->depth,
		.spin_ns = o->spin_ns ? o->spin_ns : REPLAY_SPIN_NS,
		.lead_ns = 2000000,
		.interrupted = check_signals, .ctx = c,
	};
	int64_t run = 0;
	uint64_t steal0 = 0, total0 = 0, steal1 = 0, total1 = 0;
	const struct sched_clock *clk = &sched_clock_mono;
	int srun, have_ticks;

	if (o->nset || o->trace) {
		if (lab_begin(&lab, o->state_dir ? o->state_dir : "/run/iotape", err,
			      sizeof(err)))
			goto out;
		lab_on = 1;
	}
	for (int k = 0; k < c->nsp; k++) {
		const struct replay_set *s = &o->sets[c->sp[k].set];
		if (lab_set(&lab, c->sp[k].path, s->values[pick[c->sp[k].set]], err,
			    sizeof(err)))
			goto out;
	}
	machine_settings(&o->mp, c->caps, c->ncap, &set0, &nset0);
	if (o->trace) {
		char devs[TRACEFS_MAX_DEVS][64], sysblock[512];
		int nd = 0;

		if (lab_scratch_file(&lab, "iotape-replay", raw, sizeof(raw), err,
				     sizeof(err)))
			goto out;
		for (int i = 0; i < c->ncap && nd < TRACEFS_MAX_DEVS; i++)
			snprintf(devs[nd++], sizeof(devs[0]), "%s", c->caps[i].name);
		snprintf(sysblock, sizeof(sysblock), "%s/block", o->mp.sys);
		if (tracefs_start(&tf, &lab, o->tracefs ? o->tracefs
				  : "/sys/kernel/tracing", sysblock, devs, nd, 16384,
				  raw, err, sizeof(err)))
			goto out;
		traced = 1;
	}
	if (!o->quiet && isatty(2))
		fprintf(stderr, "iotape: replaying %zu I/Os of '%s' (timing %s, "
			"depth %u)...\n", c->plan.n, c->src_name, c->timing, c->depth);
	/* A timed replay runs at SCHED_FIFO priority 1 where allowed (root):
	 * on a busy machine a normal thread wakes milliseconds late. Not for
	 * afap, whose loop never sleeps long and would starve the workers
	 * that complete the I/O on its CPU. */
	if (c->ms)
		clk = model_set_begin(c->ms, &sp);   /* simulated time */
	else if (o->scale > 0) {
		struct sched_param prio = { .sched_priority = 1 };
		c->realtime = sched_setscheduler(0, SCHED_FIFO, &prio) == 0;
	}
	f.steal_pct = -1;
	have_ticks = !cpu_ticks(o->mp.proc, &steal0, &total0);
	srun = sched_run(&c->plan, &sp, &c->eng, clk, res, &ss);
	if (c->ms)
		model_set_end(c->ms, c->plan.n);
	if (have_ticks && !cpu_ticks(o->mp.proc, &steal1, &total1) &&
	    total1 > total0)
		f.steal_pct = 100.0 * (double)(steal1 - steal0) /
			      (double)(total1 - total0);
	if (c->realtime) {
		struct sched_param prio = { .sched_priority = 0 };
		sched_setscheduler(0, SCHED_OTHER, &prio);
	}
	if (traced) {
		if (tracefs_stop(&tf, lost, 256, &ncpu, err, sizeof(err)))
			goto out;
		traced = 0;
		for (int k = 0; k < ncpu; k++)
			if (lost[k] && !o->quiet)
				warning("CPU %d lost %" PRIu64 " trace events", k,
					lost[k]);
	}
	machine_settings(&o->mp, c->caps, c->ncap, &set1, &nset1);
	/* everything changed goes back before the store is written */
	if (lab_on && lab_end(&lab))
		warning("some settings were not restored; see above");
	lab_on = 0;
	fidelity_compute(c, res, &ss, &f);
	{
		struct outcome oc = {
			.res = res, .ss = &ss, .set0 = set0, .set1 = set1,
			.nset0 = nset0, .nset1 = nset1, .raw = raw[0] ? raw : NULL,
			/* I/Os the target refused (it went away, or
			 * failed): what was done is stored, marked failed */
			.status = srun < 0 || f.failed ? "failed" :
				  ss.interrupted ? "interrupted" : "complete",
			.tag = tag,
		};
		if (store_one(c, name, &oc, &f, &run, err, sizeof(err)))
			goto out;
		emit_fidelity(c, name, oc.status, tag, &f, &ss);
	}
	if (srun < 0) {
		snprintf(err, sizeof(err), "the %s engine failed: %s (what was done "
			 "is stored in run '%s', marked failed)", c->eng.ops->name,
			 strerror(-srun), name);
		goto out;
	}
	if (f.failed) {
		int first = 0;
		for (size_t i = 0; i < c->plan.n && !first; i++)
			if (res[i].res < 0)
				first = (int)-res[i].res;
		snprintf(err, sizeof(err), "%" PRIu64 " I/Os failed on the target "
			 "(the first: %s); what was done is stored in run '%s', "
			 "marked failed", f.failed, strerror(first ? first : EIO),
			 name);
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "iotape: stored replay run '%s'%s; see 'iotape "
			"report %s'\n", name, ss.interrupted ? " (interrupted)" : "",
			name);
	rc = ss.interrupted ? 1 : 0;
out:
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
	free(res);
	hist_free(&f.err);
	hist_free(&f.own);
	lat_free(&f.lat);
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
	int rc = 0, combos = 1, pick[REPLAY_MAX_SETS] = { 0 }, any_io = 0;
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
	for (int i = 0; i < o.nset; i++)
		combos *= o.sets[i].nvalues;
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
	/* From here on signals are read from a signalfd, so settings are put
	 * back and what was replayed is stored whatever arrives. */
	c->sfd = lab_signals(&mask, 0);
	/* wake-ups as asked, not up to 50 us later */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	emit_init(&c->em, stdout, o.json);
	if (o.json)
		emit_arr_begin(&c->em, NULL);
	for (int k = 0; k < combos && rc == 0; k++) {
		char tag[1024] = "", name[1400];
		int rest = k;
		size_t tl = 0;

		for (int i = 0; i < o.nset; i++) {
			pick[i] = rest % o.sets[i].nvalues;
			rest /= o.sets[i].nvalues;
			if (o.sets[i].nvalues > 1 && tl < sizeof(tag))
				tl += (size_t)snprintf(tag + tl, sizeof(tag) - tl,
						       "%s%s=%s", tl ? "," : "",
						       o.sets[i].key,
						       o.sets[i].values[pick[i]]);
		}
		for (int r = 1; r <= o.repeat && rc == 0; r++) {
			snprintf(name, sizeof(name), "%s%s%s%s", base, tag[0] ? "[" : "",
				 tag, tag[0] ? "]" : "");
			if (o.repeat > 1) {
				size_t l = strlen(name);
				snprintf(name + l, sizeof(name) - l, ".%d", r);
			}
			if (check_signals(c)) {
				rc = 1;
				break;
			}
			rc = replay_one(c, pick, name, tag[0] ? tag : NULL);
			any_io = 1;
		}
	}
	if (o.json) {
		emit_arr_end(&c->em);
		emit_finish(&c->em);
	}
	if (rc == 1 && !o.quiet)
		fprintf(stderr, "iotape: interrupted (%s)\n",
			strsignal(c->got_signal ? c->got_signal : SIGINT));
	rc = rc < 0 ? -1 : rc == 1 ? 130 : 0;
out:
	if (c->sfd >= 0) {
		close(c->sfd);
		sigprocmask(SIG_UNBLOCK, &mask, NULL);
	}
	if (c->eng_ok)
		c->eng.ops->exit(&c->eng);
	for (int i = 0; i < c->ntg; i++) {
		target_close(&c->tg[i]);
		/* a file made for a replay that never ran is removed again */
		if (c->tg[i].created && !any_io)
			unlink(c->tg[i].path);
	}
	plan_free(&c->plan);
	model_set_free(c->ms);
	source_free(&c->src);
	lat_free(&c->src_lat);
	free(c->dev_target);
	store_close(c->st);
	free(c);
	return rc;
}
