/* A finding: a cause, what it cost in seconds, on what evidence, how sure,
 * and its rank (DESIGN.md "What a finding is"). Analyzers fill them; report
 * and compare rank and print them, in 80-column text and JSON. */
#ifndef IOTAPE_FINDING_H
#define IOTAPE_FINDING_H

#include <stddef.h>

/* How sure a cost is. */
enum fd_conf {
	FD_NONE,     /* the cost cannot be shown here (see needs) */
	FD_LOW,
	FD_MEDIUM,
	FD_HIGH,
};

/* A cause counts when it cost at least this share of the time it is
 * measured against (the run's elapsed time, or the difference between
 * runs), and at least FD_MIN_S. Below that it is reported as costing
 * nothing measurable. */
#define FD_CAUSE_SHARE 0.05
#define FD_CAUSE_SHARE_DIFF 0.10
#define FD_MIN_S 0.010
/* With one run a side, a difference in time under this is no difference a
 * cause can be named for: two captures of one setup of 0.03 to 0.16 s here
 * differed by up to 28 ms (starting the processes, the page cache's
 * state), with their parts moving as much (explain-score's null pairs). */
#define FD_NOISE_S 0.050
/* With one run a side, a cause already in the better run must grow by at
 * least this share of what it was there to be named for the difference:
 * a cause that filled both runs of one setup moved by 7 to 10% between
 * them (explain-score's null pairs: throttled writers, swapping
 * readers), as the runs' times did. */
#define FD_GROWTH 0.25

struct finding {
	const char *analyzer;
	char title[200];        /* the cause, one line */
	int present;            /* the pattern is there at all */
	double cost_s;          /* seconds; 0: nothing measurable */
	char cost_of[120];      /* what the seconds are: "device time of 7,0" */
	int counterfactual;     /* 1: estimated against a counterfactual;
				 * 0: measured directly */
	char how[700];          /* how the cost was estimated */
	char evidence[2400];    /* the numbers, with their definitions */
	double lo_s, hi_s;      /* the window, s from the run's first event */
	enum fd_conf conf;
	char why[400];          /* why that confidence */
	/* what only a run judged alone says (report puts it before why;
	 * compare, which judges two runs, leaves it out): "in one run
	 * sharing the device is the workload ..." */
	char solo[200];
	char needs[300];        /* what would be needed to know the cost */
	double mb;              /* MB swapped (swap), < 0 when not its unit */
	/* who paid, so overlapping costs can be told apart: a pid (0: the
	 * device or every process) and the stages charged (1 << TA_*) */
	unsigned victim_pid;
	unsigned stages;
	int generic;            /* a mechanism (queueing) more specific causes
				 * act through: its cost counts only beyond
				 * theirs when they overlap */
	double x_cost_s, y_cost_s;   /* in compare: each run's own cost */
	char x_title[200];           /* in compare: the better run's title */
	char x_why[400];             /* and the why of that finding */
	/* in compare: the workload's time in this cause in each run, s (x
	 * scaled to the work y did); x_part_s < 0: not measured as a part of
	 * the workload's time (a mix of counts and sizes) */
	double x_part_s, y_part_s;
	/* filled by finding_rank() */
	double score;           /* cost_s over the time it is measured against */
	int cause;
	double cause_min_s;     /* the least cost a cause needed here */
	char overlap[200];
};

/* Starts a finding of analyzer name with an empty cost. */
void finding_init(struct finding *f, const char *analyzer);

/* Appends printf-style text to one of a finding's text fields. */
void fd_cat(char *field, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define FD_CAT(f, field, ...) fd_cat((f)->field, sizeof((f)->field), __VA_ARGS__)

/* Ranks f[0..n): scores each as cost_s / ref_s (the time it is measured
 * against), marks the causes (present, confidence above FD_NONE, cost at
 * least min_cost_s and FD_MIN_S), sorts causes by cost first, then the
 * present rest, then the absent. Costs are parts of the workload's time
 * that do not overlap (critpath.h). */
void finding_rank(struct finding *f, int n, double ref_s, double min_cost_s);

/* The least (in size) a cost in the other run's favour must be to stand
 * in a waterfall of total_s as an offset: a tenth of the total
 * (FD_CAUSE_SHARE_DIFF) and FD_MIN_S. */
double finding_offset_min(double total_s);

/* 1 when f[i] stands in the waterfall of total_s of f[0..n): a cause, or,
 * when some f is a cause, an offset in the other run's favour of
 * finding_offset_min() or more (with no cause there is no waterfall). */
int finding_in_waterfall(const struct finding *f, int n, int i,
			 double total_s);

struct emit;
/* Emits findings as a waterfall: JSON "findings" (every field, and each
 * one's share of total_s and its cost in the figure's unit, unit_per_s per
 * second, when given), and text: the causes' seconds and shares, the
 * offsets (negative costs: in the other run's favour), the rest (rest_s,
 * rest_label) and the total (total_s, total_label), which they add up to;
 * then each cause's evidence, the patterns at no measurable cost, the ones
 * not seen. unit (NULL: none) names the figure's unit. */
void finding_emit_waterfall(struct emit *e, const struct finding *f, int n,
			    const char *heading, double total_s, double rest_s,
			    const char *total_label, const char *rest_label,
			    const char *unit, double unit_per_s);

/* Wraps text at width columns in place (spaces become newlines), keeping
 * indent spaces at the start of each continued line when there is room:
 * out receives the result (at most len bytes). */
void wrap_indent(const char *text, int width, int indent, char *out,
		 size_t len);

/* Wraps text at width columns in place: spaces become newlines. */
void wrap_text(char *text, int width);

/* The confidence's name: "none", "low", "medium", "high". */
const char *fd_conf_name(enum fd_conf c);

#endif
