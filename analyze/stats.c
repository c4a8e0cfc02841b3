/* Log-linear histograms for latency and seek-distance statistics. */
#include "stats.h"

#include <math.h>
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

/* U of a against b: pairs (x in a, y in b) with x > y, ties half. */
static double u_stat(const double *a, int na, const double *b, int nb)
{
	double u = 0;

	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	return u;
}

double mann_whitney_p(const double *a, int na, const double *b, int nb)
{
	double u, mean;

	if (na < 1 || nb < 1)
		return 1;
	u = u_stat(a, na, b, nb);
	mean = (double)na * nb / 2;
	if (na + nb <= 20) {
		/* the distribution of U under H0: count[k] = number of ways
		 * m of the first i + m ranks (i from a) give U = k, by
		 * f(m, n, k) = f(m - 1, n, k - n) + f(m, n - 1, k) */
		int max = na * nb;
		double *f = calloc((size_t)(na + 1) * (nb + 1) * (max + 1),
				   sizeof(*f));
		double total = 0, tail = 0, d = fabs(u - mean);
		if (!f)
			return 1;
#define F(m, n, k) f[((size_t)(m) * (nb + 1) + (n)) * (max + 1) + (k)]
		for (int m = 0; m <= na; m++)
			for (int n = 0; n <= nb; n++)
				for (int k = 0; k <= max; k++) {
					if (!m || !n) {
						F(m, n, k) = k == 0;
						continue;
					}
					F(m, n, k) = (k >= n ? F(m - 1, n, k - n) : 0) +
						     F(m, n - 1, k);
				}
		for (int k = 0; k <= max; k++) {
			total += F(na, nb, k);
			if (fabs(k - mean) >= d - 1e-9)
				tail += F(na, nb, k);
		}
#undef F
		free(f);
		return total > 0 ? tail / total : 1;
	}
	{
		double sd = sqrt((double)na * nb * (na + nb + 1) / 12);
		double z = (fabs(u - mean) - 0.5) / sd;
		return z <= 0 ? 1 : erfc(z / sqrt(2));
	}
}

/* The least and greatest of v[0..n) into *lo and *hi (n >= 1). */
static void span_of(const double *v, int n, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int i = 0; i < n; i++) {
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
	}
}

int ranges_apart(const double *a, int na, const double *b, int nb)
{
	double amin, amax, bmin, bmax;

	if (na < 1 || nb < 1)
		return 0;
	span_of(a, na, &amin, &amax);
	span_of(b, nb, &bmin, &bmax);
	return amax < bmin || bmax < amin;
}

int ranges_clear(const double *a, int na, const double *b, int nb)
{
	double amin, amax, bmin, bmax, gap;

	if (!ranges_apart(a, na, b, nb))
		return 0;
	span_of(a, na, &amin, &amax);
	span_of(b, nb, &bmin, &bmax);
	gap = amax < bmin ? bmin - amax : amin - bmax;
	return gap >= fmax(amax - amin, bmax - bmin);
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

double median_of(double *v, int n)
{
	if (n < 1)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
