/* Inside replay/ only: the state one `iotape replay` carries from setup
 * through each replay (struct ctx), and what replay.c and replay_store.c
 * share: the latencies and fidelity figures of a replay, and storing it. */
#ifndef IOTAPE_REPLAY_INT_H
#define IOTAPE_REPLAY_INT_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/stats.h"
#include "analyze/summary.h"
#include "capture/machine.h"
#include "lib/emit.h"
#include "replay/engine.h"
#include "replay/plan.h"
#include "replay/replay.h"
#include "replay/sched.h"
#include "replay/target.h"
#include "schema/store.h"

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
	struct store_device *devinfo;  /* the source run's devices */
	size_t ndevinfo;
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
	int lease_stop;          /* stopped: a target's lease broke */
	int realtime;             /* the last replay ran at SCHED_FIFO */
	int pinned, locked;       /* ... on o->cpu1 - 1; with its memory locked */
	cpu_set_t cpus0;          /* the CPUs allowed before it was pinned */
	struct emit em;
	/* the engine that serves the targets itself (engine_serving(): the
	 * model engine's model:PROFILE), NULL for files and devices; what its
	 * target_add made */
	const struct replay_engine_ops *own_ops;
	void *own;
	struct run_summaries sums;   /* the replay run's summary counted */
	char timing[64];
	char targets_desc[1024];
	size_t gaps;              /* gaps over --max-gap shortened */
	int64_t gap_removed_ns;   /* the time they lost, original time */
	struct lat_job *lat_job;  /* src_lat being read by lat_th */
	pthread_t lat_th;
	struct spill *res_mem;    /* the results of the replay under way
				   * (replay_one()): passes over them
				   * release what they leave behind */
};

struct fidelity {
	double steal_pct;         /* CPU time the hypervisor took, %; <0 unknown */
	struct hist err;          /* issue - sched, ns */
	struct hist own;          /* issue - free to go: the replayer's own lag */
	uint64_t late, own_late, held, issued, failed, bytes;
	int64_t span_ns;
	double iops, mbs, src_iops, src_mbs;
	struct lat lat;
};

/* Writes an untraced replay's rows while it runs (replay_writer.c). */
struct replay_writer {
	struct ctx *c;
	int64_t run;
	const struct rio_result *res;
	struct spill *res_mem;    /* res's memory */
	struct spill done_mem, log_mem;
	uint8_t *done;            /* sched_params.done */
	uint32_t *log;            /* sched_params.issue_log */
	size_t log_n;             /* sched_params.issue_n */
	int finished;             /* set (release) when sched_run returned */
	pthread_t th;
	int started, rc;
	size_t rp_next, rq_next;  /* next plan index, next issue_log place */
	int64_t next_id;          /* next requests.id */
	uint64_t prev_end[REPLAY_MAX_TARGETS];
	int have_prev[REPLAY_MAX_TARGETS];
	struct store_replay *buf;
	size_t nbuf;
	struct lat lat;           /* the replay's Q2C and D2C, ns */
};

/* Starts a thread that stores, inside the caller's open transaction, the
 * replays row (schedule order) and the requests row (issue order, ids
 * from store_next_request_id()) of run's I/Os as they complete, res being
 * the scheduler's results; sets sp->done, sp->issue_log and sp->issue_n
 * for it. Nothing else may use c->st until replay_writer_finish(). Returns
 * 0, or a negative code (-errno, -STORE_E_SQLITE: message in
 * store_errmsg()) with nothing started. */
int replay_writer_start(struct replay_writer *w, struct ctx *c, int64_t run,
			struct spill *res, struct sched_params *sp);

/* After sched_run() returned (or failed): stores every row left, waits for
 * the thread and frees w; the replay's latencies into *lat when lat is not
 * NULL (replay_lat_free() them). Safe on a w that never started. Returns
 * 0, or the first store error (-STORE_E_SQLITE). */
int replay_writer_finish(struct replay_writer *w, struct lat *lat);

/* The replays row of plan I/O i from its result (replay_writer.c). */
void replay_row(const struct ctx *c, const struct rio_result *res, size_t i,
		struct store_replay *r);

/* The RWBS text and BT_C_* categories a replayed I/O's requests row has. */
void replay_rwbs(const struct rio *io, char *rwbs, uint64_t *cats);

/* Begins the store transaction of an untraced replay and creates its run
 * (kind replay, parent the source) named name, before any I/O: the rows
 * go in while it runs (replay_writer). Returns 0 and *run, or -1 with a
 * message in err (rolled back). */
int replay_store_begin(struct ctx *c, const char *name, int64_t *run,
		       char *err, size_t errlen);

/* What one replay left, to store. */
struct outcome {
	const struct rio_result *res;
	const struct sched_stats *ss;
	struct setting *set0, *set1;
	int nset0, nset1;
	const char *raw;          /* the trace, or NULL */
	const char *status;
	const char *tag;
	int64_t run;              /* made by replay_store_begin(), rows
				   * stored by a replay_writer; 0: none */
	struct lat *lat;          /* with run: the replay's latencies */
};

/* Latencies of run's requests: Q2C of bios with data (split halves
 * apart), as report pairs them; D2C of dispatches with data (report's D2C
 * is btt's, a bio's: a request merged from bios counts once for each),
 * what a replay issues; into *l (zeroed
 * first). Returns 0, or -1 with a message in err. */
int replay_lat_load(struct store *st, int64_t run, struct lat *l, char *err,
		    size_t errlen);

/* Frees what replay_lat_load() filled. */
void replay_lat_free(struct lat *l);

/* The fidelity figures of one replay from its results res (one per plan
 * I/O) and the scheduler's stats into *f (zeroed by the caller; f->lat is
 * filled by replay_store_one()). */
void replay_fidelity_compute(struct ctx *c, const struct rio_result *res,
			     const struct sched_stats *ss, struct fidelity *f);

/* Prints (or emits as JSON) how faithful replay name was. */
void replay_emit_fidelity(struct ctx *c, const char *name, const char *status,
			  const char *tag, const struct fidelity *f,
			  const struct sched_stats *ss);

/* Stores one replay as run name in one transaction (the run, its settings,
 * devices, replays rows, requests, statistics); fills f->lat from the
 * stored requests. Returns 0 and *run_out, or -1 with a message in err
 * (nothing stored). */
int replay_store_one(struct ctx *c, const char *name, const struct outcome *oc,
		     struct fidelity *f, int64_t *run_out, char *err,
		     size_t errlen);

#endif
