/* Runs side by side: which took longer and whether that is more than
 * run-to-run noise, the headline figures with % change, where the time
 * went (btt's stages per process), and the findings ranked by what they
 * cost. For `iotape compare` and `iotape mail`. */
#ifndef IOTAPE_COMPARE_H
#define IOTAPE_COMPARE_H

#include "analyze/analyzer.h"
#include "analyze/question.h"
#include "analyze/report.h"
#include "analyze/runview.h"
#include "analyze/tail.h"
#include "lib/emit.h"

#define CMP_MAX_RUNS 64
/* a group's or run's name as compare shows it: a whole run name (at most
 * 200 bytes, check_run_name()) */
#define CMP_NAME_BYTES 256
#define CMP_MAX_FIG 48

enum { CMP_TEXT, CMP_MARKDOWN, CMP_JSON };

struct cmp_figure {
	char key[40];       /* JSON key */
	char label[32];     /* text label, with unit */
	int lower_better;
	int decimals;
	char unit[64];      /* a workload metric's unit in the first run that
			     * has it: the others' values are read in it */
};

struct figset {
	struct cmp_figure f[CMP_MAX_FIG];
	int n;
};

struct run_figs {
	struct runview rv;
	struct report rep;
	struct an_run an;
	double v[CMP_MAX_FIG];
	int has[CMP_MAX_FIG];
	/* v[i] is a workload metric's (fio's, one set by hand): the
	 * trace's figure of that name, as the question, gives way to it */
	unsigned char wm_set[CMP_MAX_FIG];
	char group[128];
	/* the workload's metrics and commands (the question's values) */
	struct store_metric *wm;
	size_t nwm;
	struct store_command *cmds;
	size_t ncmds;
	struct q_run qr;
	/* the tail of the question's figure (a latency percentile of 90 or
	 * more), measured at load while the rows are in memory */
	struct tail tail;
	int has_tail;
};

struct disk_profile;

struct compare {
	struct run_figs *rf;
	int n;
	struct figset fs;
	int grouped;
	int gidx[CMP_MAX_RUNS], ng;
	char gname[CMP_MAX_RUNS][CMP_NAME_BYTES];
	struct question q;      /* what the findings explain */
	int unanswered;         /* comparisons emitted with no value of the
				 * question on a side (compare_emit()) */
};

/* Loads runs names[0..n) of st (each: report, time accounting, analyzers)
 * and, when group_by is given, groups them by that setting's value or by
 * run-name globs ("one*,two*"). metric is the question's figure (question.h:
 * a figure or workload metric, a sum "A+B", "total", NAME:higher; NULL:
 * the workload's own result, else its commands' total real time, else its
 * span); model (NULL: none) a modelled disk for the analyzers
 * (an_run_load_with()). Each run's request rows are freed once it is
 * analysed (one run's at a time in memory) unless keep_rows is 1 (mail's
 * plots read them: c->rf[i].an.rd). Returns 0, or -1 after an error line
 * (what was loaded is freed by compare_free()). */
int compare_load(struct compare *c, struct store *st, char **names, int n,
		 const char *group_by, const char *metric,
		 const struct disk_profile *model, int keep_rows);

/* Emits everything: which took longer, the figures, where the time went,
 * the findings; fmt is CMP_TEXT, CMP_MARKDOWN or CMP_JSON. */
void compare_emit(struct compare *c, struct emit *e, int fmt);

/* Emits only the explanation (which took longer, where the time went,
 * findings) in text, for mail. */
void compare_emit_why(struct compare *c, struct emit *e);

/* Run i's value of the question (c->q), in the figure's unit; NAN when it
 * has none. For mail's table of the figure per run. */
double compare_value(const struct compare *c, int run);

/* One side of a comparison: the runs (rf indices) of a group, the one
 * whose value is nearest the median (its analysis is the one explained)
 * and that median. */
struct cmp_side {
	int run[CMP_MAX_RUNS];
	int n;
	int rep;
	double med;
};

/* One comparison of group g against group 0, as compare prints it; mail
 * reads it so that nothing of the explanation is worked out twice. */
/* A run's timed commands that add up past its trace (cmp_notes.h
 * cmp_cmds_past_trace()). */
struct cmp_past {
	int n;                  /* the commands; 0: they do not */
	double sum_s;           /* their real times added up */
	double span_s;          /* the trace's span */
};

struct cmp_pair {
	struct cmp_side s0, s1;   /* group 0, group g */
	int g;
	int none;                 /* a side has no value of the question */
	int same_run, tie;        /* no side is worse */
	int no_time_cost;         /* a figure that is no duration moved, the
				   * workload's time did not: verdict "no time
				   * cost" */
	int worse;                /* 1: s1 is the worse side, 0: s0 (-1 none) */
	double diff;              /* s1.med - s0.med, in the figure's unit */
	double dtime;             /* the difference in the worse run's
				   * seconds (0 on a tie) */
	double scale;             /* the better run's work done by the worse */
	double rest;              /* "not explained", s: dtime less the
				   * waterfall's causes and offsets */
	int sig;                  /* beyond the spread: 1, 0 no, -1 cannot
				   * tell (one run a side) */
	int explained;            /* one run a side: a cause accounts for
				   * half of it */
	int offset_heavy;         /* the causes less the offsets are under
				   * half of it */
	char test[300];           /* the noise test, as a sentence */
	const char *verdict;      /* "different", "no significant difference" */
	struct finding *f;        /* the nf findings, ranked (causes first) */
	int nf;
	int in_waterfall[AN_MAX]; /* 1: f[i] is a cause or an offset (in the
				   * other run's favour) of the waterfall */
	/* s0's and s1's representative runs: the share of each one's bytes
	 * from process names the other has (cmp_same_work(): NAN when not
	 * told), and their pasted command times past the trace
	 * (cmp_cmds_past_trace(): n 0 when not) */
	double same_work[2];
	struct cmp_past past[2];
	/* an IOPS or MB/s question whose figure moved with the requests'
	 * size (cmp_request_size()): the mean request of the better run,
	 * then the worse's, KiB */
	int size_moved;
	double kib[2];
	/* a latency percentile's question: the tail of the worse run's
	 * figure, then the better's (ntail of them: cmp_run_tail()) */
	struct tail tail[2];
	const struct run_figs *tail_run[2];
	int ntail;
};

/* Works out comparison g (1 .. c->ng - 1) against group 0 into p, as
 * compare_emit() prints it. Returns 0, or 1 when a side has no value of
 * the question (p->none; nothing else set). Free with
 * compare_pair_free() whichever it returns. */
int compare_pair(struct compare *c, int g, struct cmp_pair *p);
void compare_pair_free(struct cmp_pair *p);

/* The tail of comparison p's figure in its worse side's run, as one
 * sentence into buf (len bytes), cmp_tail_sentence()'s full one or, brief,
 * mail's one line; returns 1, or 0 (buf untouched) when the question is no
 * latency percentile of 90 or more, or no side is worse (analyze/tail.h). */
int compare_tail_sentence(struct compare *c, const struct cmp_pair *p,
			  int brief, char *buf, size_t len);

/* Emits, for each run with block events and no completion, one line (and
 * a JSON "missing" array entry) saying why, from report_no_completions(),
 * so the figures left out of the table are accounted for. */
void compare_emit_missing(struct compare *c, struct emit *e);

void compare_free(struct compare *c);

/* Expands args[0..nargs) (run names or ids, or globs over the run names,
 * matched in run order; a run whose whole name has glob characters is
 * that run) into *names (*n of them, at most CMP_MAX_RUNS, each
 * malloc'd; free them and *names also on error). Returns 0, or -1 after
 * an error line (a glob no run matches, more than CMP_MAX_RUNS runs, a
 * store error). */
int compare_expand_runs(struct store *st, char **args, int nargs,
			char ***names, int *n);

/* compare_expand_runs() on the database at db (opened to read and closed
 * again): for the commands that take runs as compare does (plot, mail).
 * Returns 0, or -1 after an error line (the database's too). */
int compare_expand_runs_db(const char *db, char **args, int nargs,
			   char ***names, int *n);

/* Frees the n names compare_expand_runs() gave, and the array. */
void compare_runs_free(char **names, int n);

/* The definitions printed by compare --help. */
void compare_print_definitions(FILE *fp);

/* analyze/figures.c, for compare.c: */

/* Adds run r's headline figures to fs (the figure set grows as runs bring
 * figures others lack) and r->v, r->has. */
void figures(struct figset *fs, struct run_figs *r);

/* Groups runs rf[0..n) by their group name: returns the number of groups,
 * gidx[run] its group, names[g] the group's name. */
int make_groups(struct run_figs *rf, int n, int *gidx,
		char names[][CMP_NAME_BYTES]);

/* Emits the figures table: runs (or groups with median and min-max when
 * grouped) as columns with the % change against the first; fmt is
 * CMP_TEXT, CMP_MARKDOWN or CMP_JSON. */
void print_table(struct emit *e, int fmt, struct figset *fs,
		 struct run_figs *rf, int n, int grouped);

#endif
