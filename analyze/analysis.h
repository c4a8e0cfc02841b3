/* The explaining analyzers of one run: swap, seek, fairness, writeback and
 * idle. Each reads the run's stitched requests and samples once and keeps
 * numbers a reader can check, with their definitions; compare.c ranks their
 * differences between runs. */
#ifndef IOTAPE_ANALYSIS_H
#define IOTAPE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/runview.h"
#include "analyze/stats.h"

#define AN_TOP_PROCS 8

/* One stitched I/O of a run as the analyzers read it (requests table). */
struct io_row {
	int64_t q, d, c;         /* ns; INT64_MIN when not seen */
	uint64_t dsector;        /* the dispatch's sector (or the bio's) */
	uint32_t bytes, dbytes, pid, dev;
	int64_t seek;            /* btt D2D distance, on d_head rows */
	uint8_t write, head, has_seek, split;
};

/* Reads run rv's requests into *out (*n rows, malloc'd; free() it).
 * Returns 0 or -1 after an error line. */
int io_rows_load(const struct runview *rv, struct io_row **out, size_t *n);

struct proc_share {
	uint32_t pid;
	char comm[32];
	char role[16];            /* "", "writeback", "journal", "reclaim" */
	uint64_t bytes;           /* queued (Q) bytes */
	double bytes_share;       /* of all queued bytes, 0..1 */
	double busy_share;        /* of device busy time (sum of its D2C), 0..1 */
	double q2c_p50_ms, q2c_p99_ms;
	double starve_s;          /* longest time with I/O queued, none done */
	double starve_at_s;       /* when that stretch began, s from start */
	double mb_s;              /* throughput over the run's span */
	uint64_t dispatches;
	double seq_run;           /* mean length of its contiguous dispatch runs */
	double window_mb_s;       /* MB/s while all sharing processes had I/O */
	int64_t first_q, last_c;  /* its first queue and last completion, ns */
	size_t row_lo, row_hi;    /* its rows (internal) */
};

struct analysis {
	const struct runview *rv;
	char name_short[24];         /* the run's name, cut for titles */
	double span_s;
	int has_trace, has_samples;
	int has_meminfo;             /* Dirty/Writeback samples (captures) */

	/* seek (on the busiest device: most dispatches) */
	uint32_t seek_dev;
	uint64_t dispatches;
	double seek_mean, seek_median;       /* btt D2D, sectors */
	uint64_t seeks_long;                 /* D2D distance > 128 sectors */
	double seeks_per_s;                  /* long seeks per second */
	double switch_frac;                  /* consecutive dispatches of another pid */
	double switch_dist, same_dist;       /* mean |D2D| at switches / not */
	double busy_after_long;              /* share of D2C after a long seek */
	int streams;                         /* processes with >= 10% of dispatches */
	int interleaved;                     /* the pattern is there */

	/* swap */
	double swap_in_mb, swap_out_mb, peak_swap_mb;
	double first_swap_s;                 /* first sample showing swap-out, -1 */
	double dirty_peak_mb, wb_peak_mb, dirty_before_swap_mb;
	double min_free_mb;
	double read_q2c_ms, write_q2c_ms;    /* means */
	double write_pending_peak_mb;        /* write bytes queued, not completed */
	double write_pending_mean_mb;
	uint64_t reads_past_old_writes;      /* reads dispatched while a write
					      * had waited > 100 ms */
	uint64_t reads_dispatched;
	int writes_held;                     /* the pattern is there */

	/* fairness */
	struct proc_share procs[AN_TOP_PROCS];
	int nprocs;                          /* filled, by bytes */
	int nprocs_all;
	double jain;                         /* over per-process MB/s, 0..1 */
	double window_s;                     /* time they all had I/O going */
	int fair_procs;                      /* processes in the index */
	double max_starve_s;
	double rw_latency_ratio;             /* write Q2C mean / read Q2C mean */
	int starved;                         /* the pattern is there */
	int unequal;                         /* Jain's index under 0.85 */
	uint64_t completions;                /* on the busiest device */

	/* writeback and idle */
	double dirty_bg_ratio, dirty_ratio;  /* settings, -1 unknown */
	double idle_dirty_s;                 /* device idle while Dirty > 1 MB */
	double idle_dirty_frac;              /* of the sampled time */
	double longest_idle_dirty_s, longest_idle_dirty_at_s;
	size_t bo_samples;
	double bo_mean_kbs, bo_cv, bo_alternation; /* alternation: share of
						     * intervals that flip
						     * high/low by > 1.5x */
	int idle_with_dirty;                 /* the pattern is there */

	double iowait_pct;
	double cmd_real_s;                   /* sum of the commands' real s */
	double total_mb_s;                   /* dispatched bytes completed / span */
};

/* Analyzes run rv (reads its requests, samples, settings). Returns 0 or -1
 * after an error line. */
int analysis_build(struct analysis *a, const struct runview *rv);

/* The same over rows already read with io_rows_load() (sorted in place). */
int analysis_build_rows(struct analysis *a, const struct runview *rv,
			struct io_row *rows, size_t n);

/* One finding of an analyzer, ranked by score (0..1, how much of a
 * difference between runs, or how strongly one run shows the pattern). */
struct finding {
	const char *analyzer;   /* "swap", "seek", "fairness", "writeback" */
	double score;
	char title[900];
	char text[8000];        /* a paragraph, wrapped at 78 columns */
};

/* Findings for a single run (report): one per analyzer that has data. */
int analysis_findings(const struct analysis *a, struct finding *out, int max);

/* Findings comparing runs a[0..n) against a[0], ranked by score. */
int analysis_compare(const struct analysis *a, int n, struct finding *out,
		     int max);

struct emit;
/* Emits a's numbers as an "analysis" JSON object (nothing in text mode). */
void analysis_emit(struct emit *e, const struct analysis *a);

/* Wraps text at width columns in place (spaces become newlines). */
void wrap_text(char *text, int width);

/* The definitions of the analyzers' numbers, for --help and footers. */
extern const char analysis_definitions[];

#endif
