/* The explaining analyzers as one table (as plots/plot.c kinds[]): each is
 * one file an_NAME.c that measures one run and says what its cause cost.
 *
 * Adding an analyzer:
 *  1. write analyze/an_NAME.c with `const struct analyzer an_NAME` (build,
 *     or better a fold: fold_begin, fold_ev, fold_end, fold_kinds; then
 *     finding, emit, release, definitions; compare when the difference
 *     between two runs is more than the difference of their costs);
 *  2. declare it below and add a row to analyzers[] in analyzer.c;
 *  3. nothing in the Makefile: it builds every .c of analyze/;
 *  4. add a controlled experiment to tests/cli/t_explain.sh that plants the
 *     cause and checks its rank and cost, and its definitions to
 *     docs/iotape.md (report --help prints them). */
#ifndef IOTAPE_ANALYZER_H
#define IOTAPE_ANALYZER_H

#include <stdio.h>

#include "analyze/critpath.h"
#include "analyze/evorder.h"
#include "analyze/finding.h"
#include "analyze/fold.h"
#include "analyze/rundata.h"
#include "analyze/timeacct.h"

#define AN_MAX 16

/* One run as the analyzers see it. */
struct an_run {
	struct rundata rd;
	struct evorder ord;        /* rd's rows by Q, D and C time, for the
				    * builds (an_run_load_with() frees it
				    * after) */
	struct timeacct ta;
	struct critpath cp;        /* the workload's time by cause */
	void *state[AN_MAX];       /* each analyzer's numbers, or NULL */
	const struct disk_profile *model;  /* --model: a disk to cost the
					    * run's I/O on (model/model.h),
					    * or NULL */
};

struct emit;
struct disk_profile;

struct analyzer {
	const char *name;
	/* Measures run r; returns its numbers (malloc'd), or NULL when the
	 * run has nothing this analyzer reads (no trace, no samples). */
	void *(*build)(const struct an_run *r);
	/* Or, instead of build, a fold over the run's events (fold.h), for
	 * an analyzer that keeps no state per row: fold_begin(r) returns its
	 * state (NULL: nothing to read, as build's NULL), fold_ev(state, e)
	 * takes each event of the kinds in fold_kinds (1 << EV_Q, ...,
	 * 1 << FOLD_ROW) in the stream's order, and fold_end(r, state)
	 * returns its numbers (as build's; it may return state itself, or
	 * free it and return NULL). Every fold runs in one pass. */
	void *(*fold_begin)(const struct an_run *r);
	void (*fold_ev)(void *state, const struct fold_ev *e);
	void *(*fold_end)(const struct an_run *r, void *state);
	unsigned fold_kinds;
	/* The finding of one run from its numbers: what the cause cost there.
	 * Returns 1, or 0 when the analyzer has nothing to say. */
	int (*finding)(const struct an_run *r, const void *state,
		       struct finding *f);
	/* The finding of run y against run x (the faster): what the cause
	 * cost y more than x. NULL: the difference of the two runs' costs,
	 * with both runs' evidence. Returns 1 or 0. */
	int (*compare)(const struct an_run *x, const void *sx,
		       const struct an_run *y, const void *sy,
		       struct finding *f);
	/* The numbers as one JSON object (key: the analyzer's name). */
	void (*emit)(struct emit *e, const void *state);
	void (*release)(void *state);
	/* What its numbers and costs mean, for --help. */
	const char *definitions;
	/* The categories of the workload's time (1 << CP_*, critpath.h) its
	 * cost is: in report, their seconds in the run; in compare, their
	 * difference between the runs. 0: the cost is finding()'s own. */
	unsigned cats;
	/* In compare, the part of the device's difference that is the
	 * requests' count and size (critpath_diff()'s mix) it claims, given
	 * the runs' difference d; NULL: none. */
	double (*mix_cost)(const struct cp_diff *d);
	/* What mix_cost measures, for the finding's "how" (NULL: the reads'
	 * count and size, class by class, with the mean read of each run). */
	const char *mix_how;
	/* In compare, when mix_cost is most of the cost: the finding's title
	 * for it, from the difference d of runs x and y (NULL: the title
	 * stays the analyzer's own). */
	void (*mix_title)(const struct cp_diff *d, const struct an_run *x,
			  const struct an_run *y, struct finding *f);
	/* 1: its categories are a cause only between runs (in one run they
	 * are the workload's own time) */
	int compare_only;
	/* In report, for an analyzer whose cost is finding()'s own (cats 0):
	 * the categories that cost is carved from (1 << CP_*), those no
	 * other cause's first; what it takes of another analyzer's category
	 * that analyzer's cost gives up (costs stay parts of the workload's
	 * time that do not overlap). 0: CP_DEVICE. */
	unsigned draws;

};

extern const struct analyzer an_seek, an_fairness, an_swap, an_writeback,
	an_readahead, an_queue, an_cpu, an_throttle, an_device, an_refault,
	an_volume, an_journal;

/* The table, in the order their numbers are printed. */
extern const struct analyzer *const analyzers[];
extern const int n_analyzers;

/* What the analyzers are to judge a run over: cmd_mask (bit idx of each
 * command; 0: the whole run) names the timed commands whose time the
 * question is (question.h), the critical path's window. */
struct an_opts {
	const struct disk_profile *model;
	uint64_t cmd_mask;
	int focus;                 /* FAM_* (family.h): the workload whose
				    * figure the question is */
	int rows_in_memory;        /* keep the rows in memory (rundata_io()
				    * after the load: plots); else a
				    * temporary file the folds stream */
};

/* A fold to run beside the analyzers' (report's and compare's btt
 * figures): begin(ctx, r) with r->rd loaded, ev(ctx, e) for each event of
 * the kinds in kinds (fold.h), end(ctx, r), in the analyzers' one pass
 * over the events, on one of an_run_load_with()'s threads; it may write
 * only its own ctx. */
struct an_side {
	void (*begin)(void *ctx, const struct an_run *r);
	void (*ev)(void *ctx, const struct fold_ev *e);
	void (*end)(void *ctx, const struct an_run *r);
	void *ctx;
	unsigned kinds;
};

/* Loads run rv (rundata_load), accounts its time and builds every
 * analyzer, on threads threads (at most 2 are used; 1: all on this one),
 * running side (NULL: none) beside the builds; o->model (NULL: none) is a
 * modelled disk the analyzers that can cost the run's I/O on it (seek) do
 * so with. Reading the rows, the orders and the accounting, and the
 * builds each share the threads; every analyzer's numbers are the same on
 * one thread or two. Returns 0 or -1 after an error line. */
int an_run_load_with(struct an_run *r, const struct runview *rv,
		     const struct an_opts *o,
		     const struct an_side *side, int threads);

/* Frees r's request rows (rundata_drop_rows(); r->rd.n stays their
 * count): an_run_load_with()'s builds, critical path and side task read
 * them, the findings, compare and the emitters do not. A caller that holds
 * several runs drops each one's rows once loaded, so that one run's rows
 * at a time are in memory. */
void an_run_drop_rows(struct an_run *r);

void an_run_free(struct an_run *r);

/* The findings of one run, ranked against its elapsed time (finding_rank):
 * each cause's cost is the time it took from the workload (critpath.h);
 * *own_s (may be NULL) gets the rest of the elapsed time, the workload's
 * own (its I/O at the device's speed, its CPU and think time). Returns how
 * many (at most max). */
int an_run_findings(const struct an_run *r, struct finding *out, int max,
		    double *own_s);

/* The findings of run y (the worse) against run x, their costs what each
 * cause took from y beyond x, in y's seconds: the difference of their
 * critical paths (critpath_diff(), x scaled by scale: how much of x's work
 * y did). diff_s is the difference the question measured, in y's seconds;
 * the causes, offsets (negative costs) and *unexplained_s (may be NULL)
 * add up to it. Ranked against diff_s; returns how many. */
int an_compare_findings(const struct an_run *x, const struct an_run *y,
			double diff_s, double scale, struct finding *out,
			int max, double *unexplained_s);

/* Emits every analyzer's numbers of r as a JSON object "analysis". */
void an_run_emit(struct emit *e, const struct an_run *r);

/* Prints every analyzer's definitions and the time accounting's. */
void an_print_definitions(FILE *fp);

/* Helpers for analyzers. */

/* "dd[1234]" for a process of r. */
void an_proc_name(const struct an_run *r, uint32_t pid, char *out, size_t len);

/* "7,0". */
void an_dev_name(uint32_t dev, char *out, size_t len);

/* The seek analyzer's dispatches on the modelled disk (--model), summed over
 * devices, seconds: mechanism time svc_s, of it overhead and transfer
 * seq_s, and completion less arrival d2c_s (with the queueing a slower disk
 * adds). Zeros when not modelled. */
void an_seek_modelled(const struct an_run *r, const void *state,
		      double *svc_s, double *seq_s, double *d2c_s);

/* The dirty limits as the run set them, bytes when set in bytes:
 * "dirty_background_bytes 4000000, dirty_bytes 8000000" or
 * "dirty_background_ratio 10, dirty_ratio 20"; "dirty limits unknown". */
void an_dirty_limits(const struct rundata *rd, char *out, size_t len);

#endif
