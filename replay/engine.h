/* Replay I/O engines as an ops table (fio's ioengines.h): io_uring
 * (liburing, the default), sync (pread/pwrite/fdatasync, one I/O at a time),
 * null (no I/O: completes after a set latency, on real or simulated time,
 * to test the scheduler, as fio's engines/null.c tests fio) and model (a
 * modelled disk on a simulated clock, serving targets of its own).
 *
 * Adding an engine:
 *  1. write replay/engine_NAME.c with `const struct replay_engine_ops
 *     engine_NAME_ops` (and, for an engine that serves targets of its own,
 *     their ops below: replay.c names no engine);
 *  2. declare it below and add it to all[] in replay/engine.c;
 *  3. nothing in the Makefile: it builds every .c of replay/;
 *  4. a test (tests/unit/test_replay_sched.c drives an engine without a
 *     run), its name in `replay --engine`'s help and docs/iotape.md. */
#ifndef IOTAPE_REPLAY_ENGINE_H
#define IOTAPE_REPLAY_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "replay/plan.h"

/* One open target as an engine sees it. */
struct engine_target {
	int fd;              /* opened with O_DIRECT */
	int blkdev;          /* discards: BLKDISCARD (1) or a punched hole (0) */
};

/* The null engine's knobs. */
struct null_conf {
	int64_t latency_ns;  /* every I/O completes this long after issue */
	int64_t *vclock;     /* simulated time (ns) that only waits move; NULL:
			      * CLOCK_MONOTONIC */
};

struct replay_target;
struct sched_clock;
struct sched_params;
struct store;
struct emit;

struct engine_setup {
	const struct engine_target *targets;
	int ntargets;
	unsigned depth;      /* most I/Os in flight at once */
	uint32_t max_len;    /* largest read or write, bytes */
	size_t align;        /* buffer alignment, bytes (a power of two) */
	/* the engine's own settings and targets, opaque to the caller: the
	 * null engine's struct null_conf (NULL: no latency), an engine's
	 * served targets as its target_add made them */
	void *conf;
};

/* One completion. */
struct engine_cqe {
	uint32_t idx;        /* the index given to prep */
	int32_t res;         /* bytes done (0 for flushes and discards), or
			      * -errno */
	int64_t t_ns;        /* when it completed, when the engine knows
			      * (sync, null); 0: when it was reaped */
};

struct replay_engine;

struct replay_engine_ops {
	const char *name;
	/* 1 when prep does the I/O itself (the caller stamps the issue time
	 * before each prep); 0 when commit hands prepared I/Os over. */
	int inline_io;
	/* Sets up for s (buffers, rings). Returns 0 or -errno. */
	int (*init)(struct replay_engine *e, const struct engine_setup *s);
	/* Prepares io, known as idx in its completion. Returns 0, -EBUSY
	 * when the engine must commit first, or another -errno (the I/O is
	 * then not issued). */
	int (*prep)(struct replay_engine *e, const struct rio *io, uint32_t idx);
	/* Hands the prepared I/Os to the kernel, then waits until wait_nr
	 * completions are ready or the CLOCK_MONOTONIC time deadline_ns (0:
	 * none) passes. Returns 0 or -errno (-ETIME and -EINTR are not
	 * errors). */
	int (*commit)(struct replay_engine *e, unsigned wait_nr,
		      int64_t deadline_ns);
	/* Takes up to max ready completions into out without waiting.
	 * Returns how many. */
	unsigned (*reap)(struct replay_engine *e, struct engine_cqe *out,
			 unsigned max);
	/* Releases what init took; safe after a failed init. */
	void (*exit)(struct replay_engine *e);

	/* ---- targets the engine serves itself, not files or devices (the
	 * model engine's "model:PROFILE"); all NULL for the other engines.
	 * Such targets stand for the run's devices (one each, replayed at
	 * the dispatch level by default), on the engine's simulated clock;
	 * `own` is what target_add made, passed to init as engine_setup's
	 * conf. ---- */
	/* 1 when path names a target this engine serves. */
	int (*serves)(const char *path);
	/* For messages: what its targets are ("modelled disks"); why this
	 * engine cannot run without them; why --set and --trace do not
	 * apply to them. */
	const char *targets_name, *targets_only, *no_lab;
	/* Adds target number target (path, standing for the source device
	 * dev) to *own (made on first use) and fills *t as replay.c's other
	 * targets are (no descriptor; size, logical block size). Returns 0,
	 * or -1 with a message in err. */
	int (*target_add)(void **own, int target, const char *path, uint32_t dev,
			  struct replay_target *t, char *err, size_t errlen);
	/* Before one replay: fresh targets; may change sp (interrupt checks,
	 * spinning). Returns the clock to give sched_run(). */
	const struct sched_clock *(*replay_begin)(void *own,
						  struct sched_params *sp);
	/* After it: ios I/Os were replayed. */
	void (*replay_end)(void *own, size_t ios);
	/* The engine's figures of the replay into run_stats. Returns 0 or the
	 * store's negative error. */
	int (*replay_store)(const void *own, struct store *st, int64_t run);
	/* The same figures as text and JSON. */
	void (*replay_emit)(const void *own, struct emit *e);
	/* Frees own (NULL: nothing). */
	void (*own_free)(void *own);
};

struct replay_engine {
	const struct replay_engine_ops *ops;
	void *priv;
};

/* The engines: io_uring (engine_uring.c), sync and null (engine.c), model
 * (engine_model.c: modelled disks on a simulated clock, never sleeping). */
extern const struct replay_engine_ops engine_uring_ops;
extern const struct replay_engine_ops engine_sync_ops;
extern const struct replay_engine_ops engine_null_ops;
extern const struct replay_engine_ops engine_model_ops;

/* The engine named name ("io_uring", "sync", "null", "model"), or NULL. */
const struct replay_engine_ops *engine_find(const char *name);

/* The engines' names, ", " between them, in buf (len bytes, cut if
 * short): for messages, so that no other file lists them. Returns buf. */
const char *engine_names(char *buf, size_t len);

/* The engine that serves the target path itself (its serves() says so),
 * or NULL: a file or a device (or path NULL). */
const struct replay_engine_ops *engine_serving(const char *path);

/* Does io on t synchronously with buffers rbuf (reads) and wbuf (writes),
 * both at least io->len bytes and aligned for O_DIRECT. Returns bytes
 * done (0 for flushes and discards), or -errno. Used by the sync engine and for what
 * io_uring cannot queue (discards on devices). */
int rio_do_sync(const struct engine_target *t, const struct rio *io,
		void *rbuf, const void *wbuf);

/* Allocates an aligned buffer of len bytes (at least one page) filled
 * with a fixed pattern; NULL when out of memory. Free with free(). */
void *engine_buffer(size_t len, size_t align);

#endif
