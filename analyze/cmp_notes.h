/* What compare says beside its verdict, of each side's run: whether the
 * runs did the same work (by the names of the processes that did the
 * I/O), whether a run's pasted command times add up past its trace (they
 * may have run at once), and for a latency percentile, what its slowest
 * requests met (tail.h). compare.c prints them under the question, in text
 * and JSON; mail prints the tail under its verdict. */
#ifndef IOTAPE_CMP_NOTES_H
#define IOTAPE_CMP_NOTES_H

#include <stddef.h>

#include "analyze/compare.h"
#include "analyze/tail.h"

struct emit;

/* Under this share of either run's bytes from processes the other run has
 * (by name), the runs did different work: compare says so. */
#define CMP_SAME_WORK 0.5

/* Of run a's bytes from user processes with a name (not "pid N": a
 * tracefs capture names none; not a kernel thread's role: writeback,
 * journal, reclaim write whoever dirtied the data; not the one process
 * import names after a format that has none: fio-iolog, msr-csv), the
 * share from names run b has too; NAN when under half of a's bytes, or of
 * b's, come from such processes. */
double cmp_same_work(const struct an_run *a, const struct an_run *b);

/* 1 when question q is a sum of command times: the default total,
 * --metric total, cmdN_real_s and their sums. */
int cmp_commands_sum(const struct question *q);

/* The commands of question q in run rd (q->cmd_mask; 0: all) with a real
 * time: their real times' sum into *sum; how many. */
int cmp_cmds_real_s(const struct question *q, const struct rundata *rd,
		    double *sum);

/* 1 when run r's commands of question q (its cmd_mask; 0: all), timed
 * with a start and end import placed one after another (a pasted `time`:
 * rv.cmds_placed), have real times that add up to over 1.2 times its
 * trace's span, and q is a sum of command times (the default total,
 * --metric total, cmdN_real_s sums): they may have run at once, which a
 * sum counts more than once (the times alone cannot tell); *out says so.
 * Commands a capture timed have their own start and end: never. 0 (and
 * out->n 0) when not. */
int cmp_cmds_past_trace(const struct question *q, const struct run_figs *r,
			struct cmp_past *out);

/* For a question of the trace's read or write IOPS or MB/s (read_iops,
 * write_mb_s), the mean request of that direction in runs x (the better)
 * and y (the worse), KiB, into kib[0] and kib[1]: 1 when its size moved
 * the way that makes the figure worse by itself (IOPS: larger requests;
 * MB/s: smaller ones) by over 2x while the other rate held (MB/s for
 * IOPS, IOPS for MB/s: 90% of the better run's or more), so the figure
 * moved with the requests' size, not their speed; else 0. */
int cmp_request_size(const struct question *q, const struct run_figs *x,
		     const struct run_figs *y, double kib[2]);

/* The tail of question q's figure in run r (a latency percentile of 90 or
 * more: tail_figure(), tail_measure()) into t; 1, or 0 when the figure is
 * none or r has no request in its tail. */
int cmp_run_tail(const struct question *q, const struct run_figs *r,
		 struct tail *t);

/* How much of a tail cmp_tail_sentence() says. */
enum cmp_tail_style {
	CMP_TAIL_SHORT,         /* the better run's, under the worse run's */
	CMP_TAIL_FULL,          /* the worse run's, in compare */
	CMP_TAIL_BRIEF,         /* the worse run's in mail's one line */
};

/* What the tail t of run r met, as a sentence in line (size bytes): full
 * ("the tail: after's 11 slowest reads (1%, Q2C 3111.5 us or more): 8 with
 * a cache flush in flight on their device (...), against 2% of its other
 * reads; ..."), short (the counts alone), or brief ("the tail: 8 of
 * after's 11 slowest reads (1% by Q2C) had a cache flush in flight (2% of
 * the others), ..."). */
void cmp_tail_sentence(const struct run_figs *r, const struct tail *t,
		       enum cmp_tail_style style, char *line, size_t size);

/* t's numbers as one JSON object of compare's "tail" array. */
void cmp_tail_json(struct emit *e, const struct run_figs *r,
		   const struct tail *t);

#endif
