/* The model engine: each target a modelled rotating disk (model/model.c),
 * on a simulated clock that only the engine and the scheduler's waits move,
 * so a replay never sleeps and runs much faster than real time; and the
 * model targets ("model:PROFILE") behind the engine's ops, which replay.c
 * opens, times and stores without naming them. */
#include "engine.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/emit.h"
#include "lib/util.h"
#include "model/model.h"
#include "replay/sched.h"
#include "replay/target.h"
#include "schema/store.h"

#define MODEL_TARGET_PREFIX "model:"
#define MAX_DISKS 16
#define GATE_EVERY 4096   /* scheduler interrupt checks between real ones */

struct model_priv;

struct model_set {
	int n;                                  /* targets (some not model) */
	int is_model[MAX_DISKS];
	struct disk_profile prof[MAX_DISKS];
	uint32_t dev[MAX_DISKS];                /* the source device */
	int64_t vclock;                         /* simulated time, ns */
	struct sched_clock clk;
	struct model_priv *priv;                /* the engine, once set up */
	int (*inner)(void *ctx);                /* the real interrupt check */
	void *inner_ctx;
	unsigned gate;
	int64_t wall0, wall_ns, vt0;
	size_t ios;
};

struct prepped {
	uint32_t idx;
	uint16_t target;
	struct model_req r;
};

struct model_priv {
	struct model_set *ms;
	struct disk_model *disk[MAX_DISKS];
	int ndisk;
	unsigned depth;
	struct prepped *prep;
	unsigned nprep;
	int32_t *res;      /* per disk slot: bytes a completion reports */
};

/* 1 when path is a modelled disk ("model:PROFILE"). */
static int model_target_path(const char *path)
{
	return path && !strncmp(path, MODEL_TARGET_PREFIX,
				strlen(MODEL_TARGET_PREFIX));
}

/* ---- the clock ---- */

static int64_t v_now(void *ctx)
{
	return ((struct model_set *)ctx)->vclock;
}

static void v_wait(void *ctx, int64_t t)
{
	struct model_set *ms = ctx;

	if (t > ms->vclock)
		ms->vclock = t;
}

static int gate(void *ctx)
{
	struct model_set *ms = ctx;

	if (!ms->inner || ++ms->gate % GATE_EVERY)
		return 0;
	return ms->inner(ms->inner_ctx);
}

/* ---- the engine ---- */

static int disks_new(struct model_priv *p, char *err, size_t errlen)
{
	struct model_set *ms = p->ms;

	for (int i = 0; i < p->ndisk; i++) {
		model_free(p->disk[i]);
		p->disk[i] = NULL;
		if (!ms->is_model[i])
			continue;
		if (!(p->disk[i] = model_new(&ms->prof[i], ms->vclock, p->depth + 1,
					     err, errlen)))
			return -1;
	}
	return 0;
}

static int m_init(struct replay_engine *e, const struct engine_setup *s)
{
	struct model_priv *p = xcalloc(1, sizeof(*p));
	char err[256];

	e->priv = p;
	if (!s->conf || s->ntargets > MAX_DISKS)
		return -EINVAL;
	p->ms = s->conf;
	p->ms->priv = p;
	p->ndisk = s->ntargets;
	p->depth = s->depth ? s->depth : 1;
	p->prep = xcalloc(p->depth, sizeof(*p->prep));
	p->ms->vclock = now_mono_ns();
	for (int i = 0; i < p->ndisk; i++)
		if (!p->ms->is_model[i])
			return -EINVAL;
	return disks_new(p, err, sizeof(err)) ? -EINVAL : 0;
}

static int m_prep(struct replay_engine *e, const struct rio *io, uint32_t idx)
{
	struct model_priv *p = e->priv;
	struct prepped *pp;
	static const uint8_t ops[] = { MOP_READ, MOP_WRITE, MOP_FLUSH, MOP_DISCARD };

	if (p->nprep == p->depth)
		return -EBUSY;
	if (io->target >= p->ndisk || io->op > RIO_DISCARD)
		return -EINVAL;
	pp = &p->prep[p->nprep++];
	pp->idx = idx;
	pp->target = io->target;
	pp->r = (struct model_req){
		.lba = io->off / 512, .sectors = (io->len + 511) / 512,
		.op = (io->flags & RIO_AS_READ) ? MOP_READ : ops[io->op],
		.fua = !!(io->flags & RIO_FUA), .tag = idx,
	};
	return 0;
}

static void run_all(struct model_priv *p, int64_t t, int inclusive)
{
	for (int i = 0; i < p->ndisk; i++)
		model_run(p->disk[i], t, inclusive);
}

static unsigned ready_count(struct model_priv *p)
{
	unsigned n = 0;

	for (int i = 0; i < p->ndisk; i++)
		n += model_ready(p->disk[i]);
	return n;
}

/* Hands the prepared commands to their disks at the simulated now, then
 * moves the clock from one completion to the next until wait_nr are ready
 * or the deadline comes. A disk starts its next command at a time t only
 * once nothing more can arrive at t: before now, or at now when the
 * scheduler waits (it issues nothing until a completion). */
static int m_commit(struct replay_engine *e, unsigned wait_nr, int64_t deadline_ns)
{
	struct model_priv *p = e->priv;
	struct model_set *ms = p->ms;
	int64_t now = ms->vclock;

	for (unsigned k = 0; k < p->nprep; k++) {
		p->prep[k].r.arrive_ns = now;
		if (model_submit(p->disk[p->prep[k].target], &p->prep[k].r))
			return -EBUSY;
	}
	p->nprep = 0;
	if (!wait_nr) {
		run_all(p, now, 0);
		return 0;
	}
	for (;;) {
		int64_t next = INT64_MAX;

		run_all(p, now, 0);
		if (ready_count(p) >= wait_nr)
			break;
		run_all(p, now, 1);
		if (ready_count(p) >= wait_nr)
			break;
		for (int i = 0; i < p->ndisk; i++) {
			int64_t b = model_busy_until(p->disk[i]);
			if (b < next)
				next = b;
		}
		if (next == INT64_MAX)
			break;             /* nothing in flight */
		if (deadline_ns && deadline_ns < next) {
			if (deadline_ns > now)
				now = deadline_ns;
			ms->vclock = now;
			run_all(p, now, 0);
			break;
		}
		now = ms->vclock = next;
	}
	return 0;
}

static unsigned m_reap(struct replay_engine *e, struct engine_cqe *out,
		       unsigned max)
{
	struct model_priv *p = e->priv;
	unsigned n = 0;

	run_all(p, p->ms->vclock, 0);
	for (int i = 0; i < p->ndisk && n < max; i++) {
		struct model_done d;
		while (n < max && model_pop(p->disk[i], &d))
			out[n++] = (struct engine_cqe){ d.tag, 0, d.done_ns };
	}
	return n;
}

static void m_exit(struct replay_engine *e)
{
	struct model_priv *p = e->priv;

	if (!p)
		return;
	for (int i = 0; i < p->ndisk; i++)
		model_free(p->disk[i]);
	if (p->ms)
		p->ms->priv = NULL;
	free(p->prep);
	free(p);
	e->priv = NULL;
}


/* ---- model targets, behind the engine's ops ---- */

/* Adds target number target, the modelled disk path ("model:NAME", a
 * built-in profile or a profile file) standing for the source device dev,
 * to *own (a struct model_set, made on first use), and fills *t as
 * replay.c's other targets are (no descriptor, the profile's capacity,
 * 512-byte unit). Returns 0, or -1 with a message in err (an unknown
 * profile, a bad profile file). */
static int model_set_add(void **own, int target, const char *path,
			 uint32_t dev, struct replay_target *t, char *err,
			 size_t errlen)
{
	struct model_set *ms = *own;
	const char *spec = path + strlen(MODEL_TARGET_PREFIX);

	if (target >= MAX_DISKS) {
		snprintf(err, errlen, "too many modelled disks (at most %d)", MAX_DISKS);
		return -1;
	}
	if (!ms) {
		ms = *own = xcalloc(1, sizeof(*ms));
		ms->clk = (struct sched_clock){ v_now, v_wait, v_wait, ms };
	}
	if (profile_resolve(&ms->prof[target], spec, err, errlen))
		return -1;
	ms->is_model[target] = 1;
	ms->dev[target] = dev;
	if (target >= ms->n)
		ms->n = target + 1;
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->fd = -1;
	t->blkdev = 1;           /* a fixed size: runs beyond it need --wrap */
	t->writable = 1;         /* nothing is written: writes stay writes */
	t->dev = dev;
	t->size = ms->prof[target].capacity_sectors * 512;
	t->lbs = 512;
	t->mem_align = 512;
	return 0;
}

/* Before one replay on the model engine: fresh disks, the simulated clock
 * at CLOCK_MONOTONIC now; sp's interrupt check made sparse (the simulated
 * clock passes 10 ms at almost every I/O) and its spin window 0. Returns
 * the clock to give sched_run(). */
static const struct sched_clock *model_set_begin(void *own,
						 struct sched_params *sp)
{
	struct model_set *ms = own;
	char err[256];

	ms->vclock = now_mono_ns();
	ms->vt0 = ms->vclock;
	/* a fresh disk for each replay: repeats start alike */
	if (ms->priv)
		disks_new(ms->priv, err, sizeof(err));
	ms->inner = sp->interrupted;
	ms->inner_ctx = sp->ctx;
	ms->gate = 0;
	sp->interrupted = gate;
	sp->ctx = ms;
	sp->spin_ns = 0;         /* nothing to spin for on a simulated clock */
	ms->wall0 = now_mono_ns();
	return &ms->clk;
}

/* After it: ios I/Os were simulated; the CPU time it took is kept. */
static void model_set_end(void *own, size_t ios)
{
	struct model_set *ms = own;

	ms->wall_ns = now_mono_ns() - ms->wall0;
	ms->ios = ios;
}

static double sim_rate(const struct model_set *ms)
{
	return ms->wall_ns > 0 ? (double)ms->ios / ((double)ms->wall_ns / 1e9) : 0;
}

/* The replay's model figures into run_stats (replay.model.*: simulation
 * speed, each disk's profile as a profile file). Returns 0 or the store's
 * negative error. */
static int model_set_store(const void *own, struct store *st, int64_t run)
{
	const struct model_set *ms = own;
	char b[64], key[64], *text;
	int rc = 0;

	snprintf(b, sizeof(b), "%.6f", (double)ms->wall_ns / 1e9);
	rc |= store_stat_set(st, run, "replay.model.sim_wall_s", b);
	snprintf(b, sizeof(b), "%.0f", sim_rate(ms));
	rc |= store_stat_set(st, run, "replay.model.sim_ios_per_s", b);
	snprintf(b, sizeof(b), "%.6f", (double)(ms->vclock - ms->vt0) / 1e9);
	rc |= store_stat_set(st, run, "replay.model.simulated_s", b);
	text = xmalloc(16384);
	for (int i = 0; i < ms->n; i++) {
		if (!ms->is_model[i])
			continue;
		snprintf(key, sizeof(key), "replay.model.profile.%u,%u",
			 ms->dev[i] >> 20, ms->dev[i] & 0xfffff);
		profile_format(&ms->prof[i], text, 16384);
		rc |= store_stat_set(st, run, key, text);
	}
	free(text);
	return rc;
}

/* The same figures as text and JSON ("model"). */
static void model_set_emit(const void *own, struct emit *e)
{
	const struct model_set *ms = own;

	emit_obj_begin(e, "model");
	emit_num(e, "sim_wall_s", (double)ms->wall_ns / 1e9);
	emit_num(e, "sim_ios_per_s", sim_rate(ms));
	emit_num(e, "simulated_s", (double)(ms->vclock - ms->vt0) / 1e9);
	emit_arr_begin(e, "disks");
	for (int i = 0; i < ms->n; i++) {
		char dev[32];
		if (!ms->is_model[i])
			continue;
		snprintf(dev, sizeof(dev), "%u,%u", ms->dev[i] >> 20,
			 ms->dev[i] & 0xfffff);
		emit_obj_begin(e, NULL);
		emit_str(e, "dev", dev);
		emit_str(e, "profile", ms->prof[i].name);
		emit_obj_end(e);
		emit_text(e, "  modelled disk for %s: %s\n", dev, ms->prof[i].name);
	}
	emit_arr_end(e);
	emit_obj_end(e);
	emit_text(e, "  simulated %zu I/Os in %.3f s of CPU time (%.0f I/Os/s, "
		  "%.0fx real time)\n", ms->ios, (double)ms->wall_ns / 1e9,
		  sim_rate(ms), ms->wall_ns > 0 ? (double)(ms->vclock - ms->vt0) /
		  (double)ms->wall_ns : 0);
}

static void model_set_free(void *own)
{
	free(own);
}

const struct replay_engine_ops engine_model_ops = {
	.name = "model",
	.inline_io = 0,
	.init = m_init,
	.prep = m_prep,
	.commit = m_commit,
	.reap = m_reap,
	.exit = m_exit,
	.serves = model_target_path,
	.targets_name = "modelled disks",
	.targets_only = "the model engine drives modelled disks only: "
			"--target model:PROFILE or --map DEV=model:PROFILE",
	.no_lab = "--set and --trace do not apply to a modelled disk",
	.target_add = model_set_add,
	.replay_begin = model_set_begin,
	.replay_end = model_set_end,
	.replay_store = model_set_store,
	.replay_emit = model_set_emit,
	.own_free = model_set_free,
};
