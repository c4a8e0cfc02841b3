/* The question an explanation answers (DESIGN.md "What a finding is"):
 * which figure, which way is better, how each run's value is read, and so
 * which run is the worse one. Chosen in this order: the user's --metric
 * EXPR; else the workload's own result when every run has it (a regex or
 * hand-set metric; fio's or dd's when it was the whole workload); else the
 * timed commands' total real time; else the span of the workload's
 * processes (family.h), never the raw trace span. */
#ifndef IOTAPE_QUESTION_H
#define IOTAPE_QUESTION_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"

#define Q_MAX_TERMS 8

enum q_kind {
	Q_METRIC,       /* --metric EXPR */
	Q_WORKLOAD,     /* the workload's own result */
	Q_COMMANDS,     /* the timed commands' real time */
	Q_SPAN,         /* the workload's span */
};

struct question {
	enum q_kind kind;
	char key[160];          /* as --json names it: "tps", "total",
				 * "cmd1_real_s+cmd2_real_s", "span_s" */
	char label[160];        /* in text: "total real time (cmd1 + cmd2)" */
	char unit[24];          /* "s", "tps", "bytes/s", "" */
	int lower_better;
	int duration;           /* a time the workload took, in seconds: the
				 * costs are its seconds */
	int assumed;            /* the direction was guessed from the name */
	char terms[Q_MAX_TERMS][64];  /* summed; "total": every command */
	char tunit[Q_MAX_TERMS][64];  /* each term's unit in the first run
				       * (a workload metric's; "" for the
				       * others): other runs' values are
				       * read in it (unit_factor()) */
	int nterms;
	double unit_scale;      /* value x unit_scale = seconds, for durations */
	char why[200];          /* how it was chosen */
	uint64_t cmd_mask;      /* the commands (bit idx) whose time it is,
				 * 0: the whole run */
	int reads;              /* a figure of reads (every term names them:
				 * read_iops, read_bw), no command's: its
				 * time is the reading processes' (the
				 * workload families_build() tells with
				 * FAM_READS), not a writer's beside them */
};

/* One run's side of the question: its workload metrics (store_metrics_get:
 * "time" ones named as `iotape metric` lists them, cmdN_real_s with N from
 * 1) and its commands. */
struct q_run {
	const struct store_metric *m;
	size_t nm;
	const struct store_command *c;
	size_t nc;
	int traced;             /* the run has block events (not a vmstat log
				 * alone): its span is its I/O's */
};

/* The direction of a figure or metric from its name and unit: 1 when lower
 * is better (times, latencies, bytes swapped), 0 when higher is (rates:
 * IOPS, MB/s, tps, ops, bytes per second), -1 when the name does not say. */
int q_direction(const char *name, const char *unit);

/* Parses expr (NULL: choose) against runs r[0..n) into q: "NAME",
 * "NAME:higher" or ":lower", "A+B+...", "total" (every timed command),
 * "elapsed"/"span". Terms that are workload metrics or commands are
 * resolved here; any other term is taken as a figure key (compare's
 * figures), checked by question_value(). Returns 0, or -1 with a message in
 * err. */
int question_choose(struct question *q, const char *expr,
		    const struct q_run *r, size_t n, char *err, size_t errlen);

/* Run r's value of q: the sum of its terms, each a workload metric of r,
 * else fig(ctx, key) (NAN when the run has none). NAN when a term is
 * missing. */
double question_value(const struct question *q, const struct q_run *r,
		      double (*fig)(void *ctx, const char *key), void *ctx);

/* Where run r's value of q's term k comes from: a workload metric's
 * source ("fio", "manual", ...) when question_value() reads one, else NULL
 * (the trace's figure, a command's time). Compare says so when the runs'
 * sources differ: a value set by hand against the trace's figure of the
 * same name is two measures, not one. */
const char *question_term_source(const struct question *q,
				 const struct q_run *r, int k);

/* Run r's real time of the commands of q's cmd_mask (or every command),
 * seconds: their first start to last end, or the sum of their real times
 * when they carry no times. NAN when none. */
double q_commands_s(const struct q_run *r, uint64_t mask);

#endif
