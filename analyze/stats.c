/* Log-linear histograms for latency and seek-distance statistics. */
#include "stats.h"

#include <stdlib.h>

#include "lib/util.h"

static unsigned bucket_of(uint64_t v)
{
	unsigned msb, shift;

	if (v < 128)
		return (unsigned)v;
	msb = 63 - (unsigned)__builtin_clzll(v);
	shift = msb - 6;
	return 128 + (shift - 1) * 64 + (unsigned)((v >> shift) - 64);
}

/* Lowest value and width of bucket b. */
static void bucket_range(unsigned b, double *lo, double *width)
{
	unsigned shift;

	if (b < 128) {
		*lo = b;
		*width = 1;
		return;
	}
	shift = (b - 128) / 64 + 1;
	*lo = (double)((uint64_t)((b - 128) % 64 + 64) << shift);
	*width = (double)(1ull << shift);
}

void hist_add(struct hist *h, uint64_t v)
{
	if (!h->counts)
		h->counts = xcalloc(HIST_BUCKETS, sizeof(*h->counts));
	if (!h->n || v < h->min)
		h->min = v;
	if (!h->n || v > h->max)
		h->max = v;
	h->n++;
	h->sum += (double)v;
	h->counts[bucket_of(v)]++;
}

double hist_mean(const struct hist *h)
{
	return h->n ? h->sum / (double)h->n : 0;
}

double hist_pct(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = (uint64_t)((p / 100.0) * (double)h->n + 0.999999);
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->counts[b];
		if (seen >= rank) {
			double lo, w, v;
			bucket_range(b, &lo, &w);
			v = w > 1 ? lo + w / 2 : lo;
			if (v < (double)h->min)
				v = (double)h->min;
			if (v > (double)h->max)
				v = (double)h->max;
			return v;
		}
	}
	return (double)h->max;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->n)
		return;
	if (!dst->counts)
		dst->counts = xcalloc(HIST_BUCKETS, sizeof(*dst->counts));
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (!dst->n || src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		dst->counts[b] += src->counts[b];
}

void hist_free(struct hist *h)
{
	free(h->counts);
	h->counts = NULL;
}
