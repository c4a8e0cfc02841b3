/* Fitting a profile to a trace of a real disk, and checking a profile
 * against one (see model_fit.h for the method). */
#include "model_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#define HIT_NS 1000000          /* an alone read faster than 1 ms: a hit */
#define NBINS 24

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile (0..1) of v[0 .. n), sorted in place. */
static double quant(double *v, size_t n, double q)
{
	size_t i;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_dbl);
	i = (size_t)(q * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

struct obs {
	double d;               /* cylinders from the previous request's end */
	double d2c_ns, xfer_ns;
	uint8_t write;
};

/* Least squares of y on (1, f(x)) for the points with x in [lo, hi):
 * y = p0 + p1 f. Returns the squared error, INFINITY with fewer than 2. */
static double ls2(const double *x, const double *y, const double *w, int n,
		  double lo, double hi, int sq, double *p0, double *p1)
{
	double sw = 0, sf = 0, sy = 0, sff = 0, sfy = 0, sse = 0, den;
	int k = 0;

	for (int i = 0; i < n; i++) {
		double f;
		if (x[i] < lo || x[i] >= hi)
			continue;
		f = sq ? sqrt(x[i]) : x[i];
		sw += w[i];
		sf += w[i] * f;
		sy += w[i] * y[i];
		sff += w[i] * f * f;
		sfy += w[i] * f * y[i];
		k++;
	}
	if (k < 2)
		return INFINITY;
	den = sw * sff - sf * sf;
	if (fabs(den) < 1e-12)
		return INFINITY;
	*p1 = (sw * sfy - sf * sy) / den;
	*p0 = (sy - *p1 * sf) / sw;
	for (int i = 0; i < n; i++) {
		double f, r;
		if (x[i] < lo || x[i] >= hi)
			continue;
		f = sq ? sqrt(x[i]) : x[i];
		r = y[i] - (*p0 + *p1 * f);
		sse += w[i] * r * r;
	}
	return sse;
}

/* The seek curve (R&W: a + b sqrt(d) below the boundary, c + e d from it)
 * by weighted least squares on the medians of NBINS log bins of distance,
 * each less the overhead, half a turn and the transfer; the boundary with
 * the least squared error. Fills q's seek_* and rep's bins. Returns 0, or
 * -1 when no curve with b, e >= 0 exists. */
static int fit_curve(const struct obs *o, size_t no, double maxd, double rev_ns,
		     double over_ns, double settle_ns, double *tmp,
		     struct disk_profile *q, struct fit_report *rep, int *nbins)
{
	double bx[NBINS], by[NBINS], bw[NBINS], best = INFINITY;
	double a = 0, bb = 0, c = 0, e = 0;
	uint32_t bnd = 0;
	int nb = 0;

	for (int b = 0; b < NBINS; b++) {
		double lo = b ? pow(maxd + 1, (double)b / NBINS) : 1;
		double hi = b == NBINS - 1 ? INFINITY :
			    pow(maxd + 1, (double)(b + 1) / NBINS);
		size_t k = 0;
		double dsum = 0;
		for (size_t i = 0; i < no; i++)
			if (o[i].d >= lo && o[i].d < hi && o[i].d > 0) {
				tmp[k++] = o[i].d2c_ns - o[i].xfer_ns - over_ns -
					   rev_ns / 2 - (o[i].write ? settle_ns : 0);
				dsum += o[i].d;
			}
		if (k < 10)
			continue;
		bx[nb] = dsum / k;
		by[nb] = quant(tmp, k, 0.5) / 1e6;
		if (by[nb] < 0.05)
			by[nb] = 0.05;
		bw[nb] = (double)k;
		rep->bin[nb].d_cyl = bx[nb];
		rep->bin[nb].seek_ms = by[nb];
		rep->bin[nb].n = k;
		nb++;
	}
	*nbins = nb;
	for (int s = 0; s <= nb; s++) {
		double B = s < nb ? bx[s] : maxd + 2, a1 = 0, b1 = 0, c1 = 0, e1 = 0,
		       sse;
		sse = ls2(bx, by, bw, nb, 0, B, 1, &a1, &b1);
		if (s < nb)
			sse += ls2(bx, by, bw, nb, B, INFINITY, 0, &c1, &e1);
		if (!(sse < best) || b1 < 0 || (s < nb && e1 < 0))
			continue;
		best = sse;
		a = a1, bb = b1, c = c1, e = e1;
		bnd = (uint32_t)B;
	}
	if (!isfinite(best))
		return -1;
	if (bnd > maxd) {
		/* sqrt all the way: beyond the data, on along its tangent */
		double B = bnd;
		e = bb / (2 * sqrt(B));
		c = a + bb * sqrt(B) - e * B;
	}
	q->seek_a_ms = a;
	q->seek_b_ms = bb;
	q->seek_c_ms = c;
	q->seek_e_ms = e;
	q->seek_boundary_cyl = bnd;
	return 0;
}

static const double std_rpm[] = { 3600, 4200, 4500, 5400, 5900, 7200, 10000, 15000 };

/* The buffer, from the alone requests: writes done in about the command's
 * time mean a write cache (*wc_on), sequential reads as slow as the rest
 * mean no readahead worth modelling (*ra_on); buffered writes give the bus
 * speed (p->bus_mbs, *bus_fitted) and the overhead (*over_ns,
 * *over_fitted) when they fit D2C = A + sectors x k. tmp has room for n. */
static void fit_buffer(const struct fit_req *reqs, size_t n,
		       const struct disk_profile *base, struct disk_profile *p,
		       double *tmp, int *wc_on, int *ra_on, double *over_ns,
		       int *bus_fitted, int *over_fitted)
{
	size_t nw = 0, nsq = 0;
	double *sq = xcalloc(n ? n : 1, sizeof(*sq));
	for (size_t i = 1; i < n; i++) {
		const struct fit_req *r = &reqs[i];
		if (!r->sectors || r->c_ns <= r->d_ns || reqs[i - 1].c_ns > r->d_ns ||
		    (i + 1 < n && reqs[i + 1].d_ns < r->c_ns))
			continue;
		if (r->write)
			tmp[nw++] = (double)(r->c_ns - r->d_ns);
		else if (r->sector == reqs[i - 1].sector + reqs[i - 1].sectors)
			sq[nsq++] = (double)(r->c_ns - r->d_ns);
	}
	*wc_on = nw >= 10 ? quant(tmp, nw, 0.5) < 1.5e6 : base->write_cache;
	if (*wc_on && nw >= 30) {
		/* a buffered write takes the overhead and the bus transfer:
		 * D2C = A + sectors x k, least squares */
		double sx = 0, sy = 0, sxx = 0, sxy = 0, k, a0;
		size_t m2 = 0;
		for (size_t i = 1; i < n; i++) {
			const struct fit_req *r = &reqs[i];
			double x, y;
			if (!r->write || !r->sectors || r->c_ns <= r->d_ns ||
			    reqs[i - 1].c_ns > r->d_ns ||
			    (i + 1 < n && reqs[i + 1].d_ns < r->c_ns) ||
			    r->c_ns - r->d_ns > 1.5e6)
				continue;
			x = r->sectors;
			y = (double)(r->c_ns - r->d_ns);
			sx += x, sy += y, sxx += x * x, sxy += x * y;
			m2++;
		}
		if (m2 >= 30 && m2 * sxx - sx * sx > 0) {
			k = (m2 * sxy - sx * sy) / (m2 * sxx - sx * sx);
			a0 = (sy - k * sx) / m2;
			if (k > 0 && 512 / k * 1e3 < p->bus_mbs) {
				p->bus_mbs = 512 / k * 1e3;
				*bus_fitted = 1;
			}
			if (a0 > 0) {
				*over_ns = a0;
				*over_fitted = 1;
			}
		}
	}
	*ra_on = nsq >= 10 ? quant(sq, nsq, 0.5) < HIT_NS : base->readahead_kb > 0;
	free(sq);
}

/* The observations of a seek: each request with data alone on the device
 * (nothing else of it in flight between its D and C) that does not follow
 * on from the previous one, is not a write into the cache (wc_on) and not a
 * read from the buffer, into o (room for n), located on m's layout lay.
 * Counts what it passes over into rep and the alone reads into *reads.
 * Returns how many went into o. */
static size_t alone_obs(const struct fit_req *reqs, size_t n, struct disk_model *m,
			const struct model_layout *lay, int wc_on, struct obs *o,
			struct fit_report *rep, size_t *reads)
{
	size_t no = 0;

	for (size_t i = 0; i < n; i++) {
		const struct fit_req *r = &reqs[i];
		struct model_chs a, b;
		uint64_t prev_end;
		int alone = r->c_ns > r->d_ns &&
			    (i == 0 || reqs[i - 1].c_ns <= r->d_ns) &&
			    (i + 1 == n || reqs[i + 1].d_ns >= r->c_ns);

		if (!r->sectors || !alone || i == 0)
			continue;
		rep->alone++;
		prev_end = reqs[i - 1].sector + reqs[i - 1].sectors;
		if (reqs[i - 1].sectors && r->sector == prev_end) {
			rep->sequential++;
			continue;
		}
		if (r->write && wc_on)
			continue;      /* done in the buffer: no mechanism */
		if (!r->write)
			(*reads)++;
		if (!r->write && r->c_ns - r->d_ns < HIT_NS) {
			rep->hits++;
			continue;
		}
		model_locate(m, prev_end ? prev_end - 1 : 0, &a);
		model_locate(m, r->sector, &b);
		o[no].d = a.cyl > b.cyl ? a.cyl - b.cyl : b.cyl - a.cyl;
		o[no].d2c_ns = (double)(r->c_ns - r->d_ns);
		o[no].xfer_ns = (double)r->sectors / b.spt * lay->rev_ns;
		o[no].write = r->write;
		no++;
	}
	return no;
}

/* Flat in distance? Over every alone read that does not follow on from
 * the previous request, hits included: on a device with no head to move,
 * the longest seeks cost what the shortest do. Fills rep's short_ms and
 * long_ms; returns -1 with rep->refused set when D2C is flat, else 0. */
static int flat_in_distance(const struct fit_req *reqs, size_t n,
			    struct fit_report *rep)
{
	size_t nr = 0, ns = 0, nl = 0;
	double *dd = xcalloc(n ? n : 1, sizeof(*dd)), *dv = xcalloc(n ? n : 1,
								     sizeof(*dv));
	double *sv = xcalloc(n ? n : 1, sizeof(*sv)), *lv = xcalloc(n ? n : 1,
								     sizeof(*lv));
	double q1, q3;
	for (size_t i = 1; i < n; i++) {
		const struct fit_req *r = &reqs[i];
		uint64_t pe = reqs[i - 1].sector + reqs[i - 1].sectors;
		if (!r->sectors || r->write || r->c_ns <= r->d_ns ||
		    reqs[i - 1].c_ns > r->d_ns || r->sector == pe ||
		    (i + 1 < n && reqs[i + 1].d_ns < r->c_ns))
			continue;
		dd[nr] = (double)(r->sector > pe ? r->sector - pe : pe - r->sector);
		dv[nr++] = (double)(r->c_ns - r->d_ns);
	}
	if (nr >= FIT_MIN_ALONE / 2) {
		memcpy(sv, dd, nr * sizeof(*sv));
		q1 = quant(sv, nr, 0.25);
		q3 = quant(sv, nr, 0.75);
		for (size_t i = 0; i < nr; i++) {
			if (dd[i] <= q1)
				sv[ns++] = dv[i];
			if (dd[i] >= q3)
				lv[nl++] = dv[i];
		}
		rep->short_ms = quant(sv, ns, 0.5) / 1e6;
		rep->long_ms = quant(lv, nl, 0.5) / 1e6;
	}
	free(dd);
	free(dv);
	free(sv);
	free(lv);
	if (nr >= FIT_MIN_ALONE / 2 &&
	    (!(rep->long_ms >= 1.25 * rep->short_ms) || rep->long_ms < 1)) {
		snprintf(rep->refused, sizeof(rep->refused), "D2C is flat in seek "
			 "distance: median %.3f ms for the shortest quarter of %zu "
			 "alone reads' seeks, %.3f ms for the longest; not a "
			 "rotating disk (an SSD, a loop or virtual device?)",
			 rep->short_ms, nr, rep->long_ms);
		return -1;
	}
	return 0;
}

/* Each standard speed in turn: the seek curve from the per-distance
 * medians less half its turn, then how uniform over one turn the rest of
 * each D2C is (Kolmogorov-Smirnov distance); the most uniform wins, into
 * *p with its overhead *over_ns (the same-cylinder reads' when not
 * over_fitted: *nsame of them), and rep's rpm, turn and bins. o holds no
 * observations up to maxd cylinders apart, tmp has room for them. Returns
 * 0, or -1 with rep->refused set. */
static int fit_speed(const struct obs *o, size_t no, double maxd,
		     const struct disk_profile *base, const struct model_layout *lay,
		     int over_fitted, double *tmp, struct disk_profile *p,
		     double *over_ns, size_t *nsame, struct fit_report *rep)
{
	double rev_ns;

	double best_ks = INFINITY;
	struct disk_profile bestp = *p;
	double best_over = *over_ns;
	int best_nb = 0;

	for (size_t s = 0; s < ARRAY_SIZE(std_rpm); s++) {
		struct disk_profile q = *p;
		double ks = 0, ov = over_fitted ? *over_ns : base->overhead_ms * 1e6;
		size_t ns = 0, k = 0;
		int nb;
		rev_ns = 60e9 / std_rpm[s];
		q.rpm = std_rpm[s];
		for (size_t i = 0; i < no; i++)
			if (o[i].d == 0)
				tmp[ns++] = o[i].d2c_ns - rev_ns / 2 - o[i].xfer_ns;
		if (ns >= 30 && !over_fitted) {
			ov = quant(tmp, ns, 0.5);
			if (ov < 0)
				ov = 0;
		}
		if (fit_curve(o, no, maxd, rev_ns, ov, q.write_settle_ms * 1e6,
			      tmp, &q, rep, &nb))
			continue;
		{
			struct seek_curve sc = { q.seek_a_ms * 1e6, q.seek_b_ms * 1e6,
						 q.seek_c_ms * 1e6, q.seek_e_ms * 1e6,
						 q.seek_boundary_cyl, lay->cylinders };
			for (size_t i = 0; i < no; i++)
				tmp[k++] = (o[i].d2c_ns - ov - o[i].xfer_ns -
					    seek_curve_ns(&sc, (uint32_t)o[i].d) -
					    (o[i].write ? q.write_settle_ms * 1e6 : 0)) /
					   rev_ns;
		}
		qsort(tmp, k, sizeof(*tmp), cmp_dbl);
		for (size_t i = 0; i < k; i++) {
			double u = tmp[i] < 0 ? 0 : tmp[i] > 1 ? 1 : tmp[i];
			double dd = fabs((double)(i + 1) / k - u);
			if (dd > ks)
				ks = dd;
		}
		if (ks < best_ks) {
			best_ks = ks;
			bestp = q;
			best_over = ov;
			best_nb = nb;
			*nsame = ns;
		}
	}
	if (!isfinite(best_ks)) {
		snprintf(rep->refused, sizeof(rep->refused), "the seek times do "
			 "not grow with distance in any way the curve can follow");
		return -1;
	}
	*p = bestp;
	*over_ns = best_over;
	rev_ns = 60e9 / p->rpm;
	rep->rpm_raw = p->rpm;
	rep->rev_ms = rev_ns / 1e6;
	/* the bins of the winner, for the report */
	fit_curve(o, no, maxd, rev_ns, *over_ns, p->write_settle_ms * 1e6, tmp,
		  p, rep, &best_nb);
	rep->nbins = best_nb;
	return 0;
}

/* p's seek figures for a reader (track, average, full stroke) from its
 * fitted curve on lay's cylinders, and how far the model with overhead
 * over_ns and turn rev_ns misses the no observations o (rep's residuals;
 * tmp has room for no). */
static void fit_figures(struct disk_profile *p, const struct model_layout *lay,
			double over_ns, double rev_ns, const struct obs *o,
			size_t no, double *tmp, struct fit_report *rep)
{
	struct seek_curve sc = { p->seek_a_ms * 1e6, p->seek_b_ms * 1e6,
				 p->seek_c_ms * 1e6, p->seek_e_ms * 1e6,
				 p->seek_boundary_cyl, lay->cylinders };
	double sum = 0;
	size_t k = 0;
	p->seek_track_ms = seek_curve_ns(&sc, 1) / 1e6;
	p->seek_avg_ms = seek_curve_avg_ns(&sc) / 1e6;
	p->seek_full_ms = seek_curve_ns(&sc, lay->cylinders - 1) / 1e6;
	/* the curve itself (seek_a..e) is what the model uses; these three
	 * are its figures for a reader, and a curve that crosses 0 near
	 * d = 1 (atlas10k's) must not make a profile that cannot be read
	 * back (profile_check's ranges) */
	if (p->seek_track_ms < 0.01)
		p->seek_track_ms = 0.01;
	if (p->seek_avg_ms < 0.1)
		p->seek_avg_ms = 0.1;
	if (p->seek_full_ms < 0.2)
		p->seek_full_ms = 0.2;
	for (size_t i = 0; i < no; i++) {
		double pred = over_ns + seek_curve_ns(&sc, (uint32_t)o[i].d) +
			      rev_ns / 2 + o[i].xfer_ns;
		sum += pred - o[i].d2c_ns;
		tmp[k++] = fabs(pred - o[i].d2c_ns);
	}
	rep->resid_mean_ms = sum / (double)no / 1e6;
	rep->resid_mad_ms = quant(tmp, k, 0.5) / 1e6;
}

/* Where each of p's values came from (p->src), for the profile file: base
 * for what was not fitted, the fit's evidence for what was. */
static void fit_sources(struct disk_profile *p, const struct disk_profile *base,
			uint64_t capacity, int over_fitted, int bus_fitted,
			size_t nsame, size_t no)
{
	for (int k = 0; k < PK_N; k++)
		snprintf(p->src[k], sizeof(p->src[k]), "from %s", base->name);
	snprintf(p->src[PK_RPM], sizeof(p->src[PK_RPM]), "fitted: D2C less seek spreads "
		 "most evenly over this speed's turn");
	snprintf(p->src[PK_WRITE_CACHE], sizeof(p->src[PK_WRITE_CACHE]), "fitted: median "
		 "alone write %s 1.5 ms", p->write_cache ? "under" : "over");
	if (!p->readahead_kb)
		snprintf(p->src[PK_READAHEAD], sizeof(p->src[PK_READAHEAD]), "fitted: "
			 "sequential reads no faster than others");
	snprintf(p->src[PK_CAPACITY], sizeof(p->src[PK_CAPACITY]), "%s",
		 capacity ? "from the trace (its highest sector)" : p->src[PK_CAPACITY]);
	snprintf(p->src[PK_OVERHEAD], sizeof(p->src[PK_OVERHEAD]), "%s",
		 over_fitted ? "fitted: buffered writes, D2C = A + size x k" :
		 nsame >= 30 ? "fitted: same-cylinder reads" : "from the base profile");
	if (bus_fitted)
		snprintf(p->src[PK_BUS], sizeof(p->src[PK_BUS]), "fitted: buffered "
			 "writes, D2C = A + size x k");
	snprintf(p->src[PK_SEEK_TRACK], sizeof(p->src[PK_SEEK_TRACK]), "fitted curve");
	snprintf(p->src[PK_SEEK_AVG], sizeof(p->src[PK_SEEK_AVG]), "fitted curve");
	snprintf(p->src[PK_SEEK_FULL], sizeof(p->src[PK_SEEK_FULL]), "fitted curve");
	for (int k = PK_SEEK_A; k <= PK_SEEK_BOUNDARY; k++)
		snprintf(p->src[k], sizeof(p->src[k]), "fitted: %zu requests alone", no);
	snprintf(p->src[PK_HIT_RATE], sizeof(p->src[PK_HIT_RATE]),
		 "fitted: alone reads under 1 ms");
}

int model_fit(const struct fit_req *reqs, size_t n, const struct disk_profile *base,
	      uint64_t capacity, struct disk_profile *out, struct fit_report *rep)
{
	struct disk_profile p = *base;
	struct disk_model *m;
	struct model_layout lay;
	struct obs *o;
	double *tmp, rev_ns, over_ns = base->overhead_ms * 1e6, maxd;
	size_t no = 0, reads = 0, nsame = 0;
	int wc_on, ra_on, bus_fitted = 0, over_fitted = 0;
	char err[256];
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	rep->n = n;
	if (capacity)
		p.capacity_sectors = capacity;
	p.seek_a_ms = p.seek_b_ms = p.seek_c_ms = p.seek_e_ms = 0;
	p.seek_boundary_cyl = 0;
	p.hit_rate = 0;
	p.seek_b_ms = 1;       /* any curve: only the layout is wanted here */
	m = model_new(&p, 0, 1, err, sizeof(err));
	p.seek_b_ms = 0;
	if (!m) {
		snprintf(rep->refused, sizeof(rep->refused), "%s", err);
		return -1;
	}
	model_layout(m, &lay);
	o = xcalloc(n ? n : 1, sizeof(*o));
	tmp = xcalloc(n ? n : 1, sizeof(*tmp));
	/* the buffer, from the alone requests */
	fit_buffer(reqs, n, base, &p, tmp, &wc_on, &ra_on, &over_ns, &bus_fitted,
		   &over_fitted);
	p.write_cache = wc_on;
	if (!ra_on)
		p.readahead_kb = 0;
	no = alone_obs(reqs, n, m, &lay, wc_on, o, rep, &reads);
	rep->used = no;
	if (flat_in_distance(reqs, n, rep))
		goto out;
	rep->hit_rate = reads ? (double)rep->hits / reads : 0;
	if (rep->alone < FIT_MIN_ALONE || no < FIT_MIN_ALONE / 2) {
		snprintf(rep->refused, sizeof(rep->refused), "too few requests alone "
			 "on the device: %zu of %zu with data (%zu after buffer hits "
			 "and sequential ones); a fit needs %d (a trace taken at "
			 "queue depth 1, or with idle gaps)", rep->alone, n, no,
			 FIT_MIN_ALONE);
		goto out;
	}
	maxd = 1;
	for (size_t i = 0; i < no; i++)
		if (o[i].d > maxd)
			maxd = o[i].d;
	if (fit_speed(o, no, maxd, base, &lay, over_fitted, tmp, &p, &over_ns,
		      &nsame, rep))
		goto out;
	rev_ns = 60e9 / p.rpm;
	p.overhead_ms = over_ns / 1e6;
	p.hit_rate = rep->hit_rate;
	fit_figures(&p, &lay, over_ns, rev_ns, o, no, tmp, rep);
	fit_sources(&p, base, capacity, over_fitted, bus_fitted, nsame, no);
	*out = p;
	rc = 0;
out:
	free(o);
	free(tmp);
	model_free(m);
	return rc;
}

int model_check(const struct fit_req *reqs, size_t n, const struct disk_profile *p,
		struct fit_check *out, char *err, size_t errlen)
{
	struct model_req *mr = xcalloc(n ? n : 1, sizeof(*mr));
	int64_t *svc = xcalloc(n ? n : 1, sizeof(*svc)), *d2c = xcalloc(n ? n : 1,
									sizeof(*d2c));
	double *a = xcalloc(n ? n : 1, sizeof(*a)), *b = xcalloc(n ? n : 1, sizeof(*b));
	size_t k = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		if (!reqs[i].sectors || reqs[i].c_ns < reqs[i].d_ns)
			continue;
		mr[k] = (struct model_req){ .lba = reqs[i].sector,
					    .sectors = reqs[i].sectors,
					    .op = reqs[i].write ? MOP_WRITE : MOP_READ,
					    .arrive_ns = reqs[i].d_ns };
		a[k] = (double)(reqs[i].c_ns - reqs[i].d_ns) / 1e6;
		k++;
	}
	if (!k) {
		snprintf(err, errlen, "no requests with data to check");
		goto out;
	}
	if (model_device_times(p, mr, k, svc, d2c, err, errlen))
		goto out;
	out->n = k;
	for (size_t i = 0; i < k; i++) {
		out->real_mean_ms += a[i] / k;
		b[i] = (double)d2c[i] / 1e6;
		out->model_mean_ms += b[i] / k;
	}
	out->real_p50_ms = quant(a, k, 0.5);
	out->real_p95_ms = quant(a, k, 0.95);
	out->model_p50_ms = quant(b, k, 0.5);
	out->model_p95_ms = quant(b, k, 0.95);
	out->err_mean = out->model_mean_ms / out->real_mean_ms - 1;
	out->err_p50 = out->model_p50_ms / out->real_p50_ms - 1;
	out->err_p95 = out->model_p95_ms / out->real_p95_ms - 1;
	rc = 0;
out:
	free(mr);
	free(svc);
	free(d2c);
	free(a);
	free(b);
	return rc;
}
