/* Latency statistics in flat memory: a log-linear histogram (128 exact
 * buckets, then 64 per power of two: values within 1/64 relative) that gives
 * count, exact mean, min and max, and percentiles to within 0.8%. */
#ifndef IOTAPE_STATS_H
#define IOTAPE_STATS_H

#include <stdint.h>

#define HIST_BUCKETS (128 + 57 * 64)

struct hist {
	uint64_t n;
	double sum;          /* of values, for the exact mean */
	uint64_t min, max;
	uint64_t *counts;    /* HIST_BUCKETS, allocated on first add */
};

/* Adds one value (ns, sectors, ...). Negative values are not allowed:
 * callers count them elsewhere. */
void hist_add(struct hist *h, uint64_t v);

/* Mean of the values added, 0 when none. */
double hist_mean(const struct hist *h);

/* The p-th percentile (0 < p <= 100) as the midpoint of its bucket clamped
 * to [min, max]; 0 when empty. Nearest-rank definition. */
double hist_pct(const struct hist *h, double p);

/* Adds every value of src into dst. */
void hist_merge(struct hist *dst, const struct hist *src);

/* Frees the buckets. */
void hist_free(struct hist *h);

/* The two-sided p-value of the Mann-Whitney U test (Mann & Whitney 1947)
 * that samples a[0..na) and b[0..nb) come from one distribution: exact (by
 * counting rank orders; ties share ranks) when na + nb <= 20, else the
 * normal approximation with continuity correction. 1 when either is empty. */
double mann_whitney_p(const double *a, int na, const double *b, int nb);

/* 1 when every value of a is below every value of b, or every one above:
 * the ranges do not overlap (the test for two or three repeats a side,
 * where no Mann-Whitney p can reach 0.05). */
int ranges_apart(const double *a, int na, const double *b, int nb);

/* 1 when the ranges of a and b do not overlap (ranges_apart()) and the gap
 * between them is at least the wider of the two: the test for two or
 * three repeats a side (two setups alike keep their ranges apart one time
 * in three with two a side: 3.360/3.336 s against 3.329/3.324 s, 7 ms
 * apart with 24 ms within one side, is none). */
int ranges_clear(const double *a, int na, const double *b, int nb);

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
double median_of(double *v, int n);

#endif
