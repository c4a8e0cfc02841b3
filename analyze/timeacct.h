/* Time accounting: where each process's I/O time went, in btt's stages
 * (Q2G, Q2M, G2I, I2D, D2C; btt(1) "Device Overhead"), per process and
 * device, and each device's busy time, queue size and request sizes. The
 * first thing report and compare show, and what the analyzers build on. */
#ifndef IOTAPE_TIMEACCT_H
#define IOTAPE_TIMEACCT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/fold.h"
#include "analyze/rundata.h"
#include "analyze/stats.h"

/* The stages of a bio's Q2C. For each bio with Q, D and C (C >= Q): Q2G is
 * Q to G (get request), Q2M Q to M (merged into a request; no G then), G2I
 * G to I (insert into the scheduler), TA_I2D the rest up to D (time in the
 * scheduler queue; with no I event, as blk-mq without a scheduler traces,
 * from G or M to D), D2C D to C (the device). They add up to its Q2C.
 * TA_I2D is btt's I2D and M2D together: a merged bio's wait from M to D is
 * btt's M2D (ta_stages.m2d_s), the others' btt's I2D (btt(1) "Device
 * Overhead" shows I2D alone: the text and JSON keep them apart). */
enum { TA_Q2G, TA_Q2M, TA_G2I, TA_I2D, TA_D2C, TA_NSTAGE };

/* The stage names as btt prints them. */
extern const char *const ta_stage_name[TA_NSTAGE];

struct ta_stages {
	double sum_s[TA_NSTAGE];    /* seconds, over the bios of the row */
	double q2c_s;               /* sum of Q2C, seconds */
	struct hist h[TA_NSTAGE];   /* ns: p50, p99 */
	uint64_t bios;              /* bios with Q, D and C */
	uint64_t merged;            /* of them merged (M) */
	/* btt's M2D: the part of sum_s[TA_I2D] from merged bios, seconds,
	 * and its samples (ns); h[TA_I2D] holds the others' (btt's I2D) */
	double m2d_s;
	struct hist m2d_h;
};

/* One process on one device. */
struct ta_row {
	uint32_t pid, dev;
	char comm[16];
	const char *role;           /* "", "writeback", "journal", "reclaim" */
	uint64_t ios, bytes;        /* bios queued (Q) and their bytes */
	uint64_t rd_bytes, wr_bytes;
	struct ta_stages st;
	/* time with I/O of it queued or in flight: the union of its bios'
	 * [Q, C] (C missing: to the run's end), seconds */
	double waited_s;
	int64_t first_q, last_c;    /* ns */
	double flush_waited_s;      /* the same union over its flushes and
				     * FUA writes only */
	uint64_t flushes, fua;
};

/* Request sizes: dispatches with data by log2 of their size, 4 KiB (and
 * less) up to 1 MiB (and more). */
#define TA_SIZE_BUCKETS 9

struct ta_dev {
	uint32_t dev;
	struct ta_stages st;        /* all processes */
	double busy_s;              /* union of [D, C] of its dispatches */
	double d2c_sum_s;
	/* each request's start to its C, summed (iostat_request()): aqu-sz
	 * over a span, as iostat counts requests in flight, not bios; [1]
	 * with dispatches standing for requests (has_d), [0] completed bios */
	double aqu_sum_s[2];
	unsigned max_inflight;      /* dispatched, not completed */
	uint64_t sizes[2][TA_SIZE_BUCKETS];   /* [read, write] */
	uint64_t flushes, fua;
	double flush_d2c_s;         /* D2C of flushes and FUA writes */
	uint64_t completions;       /* bios and requests with a C */
	int has_d;                  /* a row with a D was seen; without, busy,
				     * in flight and aqu-sz are from Q to C */
	double qc_sum_s;            /* Q2C of bios with no D */
};

/* Device d's requests' time in flight, s, start to C: over a span, its
 * aqu-sz as iostat computes it (analyze/iostat.h). */
static inline double timeacct_aqu_s(const struct ta_dev *d)
{
	return d->aqu_sum_s[d->has_d];
}

struct ta_acc;

struct timeacct {
	struct ta_row *rows;        /* by device, then waited_s descending */
	size_t nrows;
	struct ta_dev *devs;        /* by device number */
	size_t ndev;
	double elapsed_s;           /* the run's (rundata_elapsed_s) */
	struct ta_acc *acc;         /* the fold's state, until timeacct_end() */
};

/* Accounts rd's bios as a fold (fold.h): timeacct_begin(), then
 * timeacct_ev(ta, e) for each event of the kinds TA_FOLD_KINDS in the
 * stream's order (a fold_sink), then timeacct_end() (the unions, and
 * sorts the rows and devices). Never fails (aborts when memory runs
 * out). */
#define TA_FOLD_KINDS (1u << FOLD_ROW | 1u << EV_Q | 1u << EV_D | 1u << EV_C)
void timeacct_begin(struct timeacct *ta, const struct rundata *rd);
void timeacct_ev(void *ta, const struct fold_ev *e);
void timeacct_end(struct timeacct *ta);

void timeacct_free(struct timeacct *ta);

/* The process row of pid on dev, or NULL. */
const struct ta_row *timeacct_row(const struct timeacct *ta, uint32_t pid,
				  uint32_t dev);

/* The device's row, or NULL. */
const struct ta_dev *timeacct_dev(const struct timeacct *ta, uint32_t dev);

/* A stage's share of a row's waited time: waited_s x sum_s[k] / q2c_s
 * (seconds; 0 without Q2C). */
double ta_stage_waited_s(const struct ta_row *r, int k);

/* The role of a kernel thread by its name: "journal" (jbd2, xfsaild),
 * "reclaim" (kswapd), "writeback" (kworker, flush-), else "". */
const char *ta_role(const char *comm);

/* The key that matches a process across runs: its name, whether it mostly
 * read or wrote, its mean bio size as a power of two, its bytes as a power
 * of four of MB, and its rank by first Q among the processes alike
 * ("dd:R64K:256M#2"). */
void ta_match_key(const struct timeacct *ta, uint32_t pid, char *out,
		  size_t len);

/* What pairs a process of one run with one of another: its
 * ta_match_key(), the same without the bytes and rank ("dd:R64K", the
 * process's kind) and its first Q (ns). */
struct ta_pkey {
	char key[40];
	char kind[40];
	int64_t first_q;
};

/* Fills k for pid of ta. */
void ta_pkey_of(const struct timeacct *ta, uint32_t pid, struct ta_pkey *k);

/* Pairs the processes of run y with those of run x: pair[i] is the index
 * in x of y's i-th (x[] and y[] point at their keys), or -1 for none.
 * Equal ta_match_key()s pair first; those left pair by kind, in their
 * order of first Q among the ones left, so that a process whose bytes
 * crossed a power of four between two runs of one workload (two fio jobs
 * splitting a device 60:180 MB in one run, 140:140 in the next) still
 * meets itself. No allocation; nx and ny at most 4096. */
void ta_pair(const struct ta_pkey *const *x, size_t nx,
	     const struct ta_pkey *const *y, size_t ny, int *pair);

/* An interval of time, ns. */
struct ta_iv {
	int64_t a, b;
};

/* Sorts iv[0..n) by start and merges overlapping ones in place; returns
 * how many remain. */
size_t ta_merge(struct ta_iv *iv, size_t n);

/* The union length, in seconds, of n intervals (sorted and merged in place
 * by ta_merge()). */
double ta_union_s(struct ta_iv *iv, size_t n);

/* A union of intervals given one at a time by their starts in order
 * (a stream's Q events, say), summed as ta_union_s() sums it (the same
 * merged intervals, in the same order, to the same double): no array.
 * Starts zeroed; ta_run_add() adds [a, b], ta_run_end() returns the
 * length in seconds and empties u. */
struct ta_run {
	int64_t a, b;
	int open;
	double s;
};

static inline void ta_run_add(struct ta_run *u, int64_t a, int64_t b)
{
	if (u->open && a <= u->b) {
		if (b > u->b)
			u->b = b;
		return;
	}
	if (u->open)
		u->s += (double)(u->b - u->a);
	u->a = a;
	u->b = b;
	u->open = 1;
}

static inline double ta_run_end(struct ta_run *u)
{
	double s = u->s;

	if (u->open)
		s += (double)(u->b - u->a);
	u->a = u->b = 0;
	u->open = 0;
	u->s = 0;
	return s / 1e9;
}

/* The length, in seconds, of the part of [lo, hi] that merged intervals
 * iv[0..n) cover. */
double ta_overlap_s(const struct ta_iv *iv, size_t n, int64_t lo, int64_t hi);

struct emit;
/* Emits the accounting: text (80 columns: a table of processes by waited
 * time, at most max_rows, and one line of btt's device overhead per
 * device) and JSON (every row). */
void timeacct_emit(struct emit *e, const struct timeacct *ta,
		   const struct rundata *rd, size_t max_rows);

/* The definitions under the table, for --help and footers. */
extern const char timeacct_definitions[];

#endif
