/* The seek curve of Ruemmler and Wilkes 1994 ("An introduction to disk drive
 * modeling", section "Seek time": a + b sqrt(d) for short seeks, c + e d for
 * long ones), derived from a data sheet's three seek figures. */
#include "model.h"

#include <math.h>
#include <string.h>

#define MS 1e6                  /* ns */

/* The weights of the data sheets' average: distance d taken by
 * (cylinders - d) of all pairs; integrals of the continuous form. */
static double w_int(double C, double x0, double x1)
{
	return C * (x1 - x0) - (x1 * x1 - x0 * x0) / 2;
}

/* Integral of (C - x) sqrt(x) over [x0, x1]. */
static double w_sqrt_int(double C, double x0, double x1)
{
	double f1 = C * 2.0 / 3 * pow(x1, 1.5) - 2.0 / 5 * pow(x1, 2.5);
	double f0 = C * 2.0 / 3 * pow(x0, 1.5) - 2.0 / 5 * pow(x0, 2.5);
	return f1 - f0;
}

/* Integral of (C - x)(x - B) over [B, X]. */
static double w_lin_int(double C, double B, double X)
{
	/* (C - x)(x - B) = -x^2 + (C + B) x - C B */
	double F1 = -X * X * X / 3 + (C + B) * X * X / 2 - C * B * X;
	double F0 = -B * B * B / 3 + (C + B) * B * B / 2 - C * B * B;
	return F1 - F0;
}

/* The weighted mean of a curve with boundary B (a = track - b; the linear
 * piece runs from the sqrt piece's end at B to full at C - 1). */
static double curve_mean(double C, double B, double track, double full,
			 double b)
{
	double a = track - b, tB = a + b * sqrt(B), L = C - 1 - B;
	double e = L > 0 ? (full - tB) / L : 0;
	double num = a * w_int(C, 1, B) + b * w_sqrt_int(C, 1, B) +
		     tB * w_int(C, B, C - 1) + e * w_lin_int(C, B, C - 1);
	return num / w_int(C, 1, C - 1);
}

/* One pass over boundaries on a log grid from 2 to bmax: for each, b from
 * the mean condition (the mean is affine in b), keeping the one whose
 * slopes agree best; a may be negative when amin < 0 (the sqrt piece then
 * starts below 0 at d = 0 but meets single track at d = 1). Returns 1 when
 * a curve was found. */
static int derive_pass(struct seek_curve *sc, double C, double bmax, double amin,
		       double track_ms, double avg_ms, double full_ms)
{
	double best = INFINITY;
	int found = 0;

	for (int k = 0; k <= 400; k++) {
		double B = floor(2 * pow(bmax / 2, k / 400.0));
		double m0, m1, b, a, tB, e, mism;

		if (B < 2 || B > C - 3)
			continue;
		m0 = curve_mean(C, B, track_ms, full_ms, 0);
		m1 = curve_mean(C, B, track_ms, full_ms, 1) - m0;
		if (m1 <= 0)
			continue;
		b = (avg_ms - m0) / m1;
		a = track_ms - b;
		tB = a + b * sqrt(B);
		e = (full_ms - tB) / (C - 1 - B);
		if (b <= 0 || a < amin || e < 0)
			continue;
		mism = fabs(b / (2 * sqrt(B)) - e) / (b / (2 * sqrt(B)));
		if (mism < best) {
			best = mism;
			sc->a_ns = a * MS;
			sc->b_ns = b * MS;
			sc->c_ns = (tB - e * B) * MS;
			sc->e_ns = e * MS;
			sc->boundary = (uint32_t)B;
			found = 1;
		}
	}
	return found;
}

int seek_curve_derive(struct seek_curve *sc, uint32_t cylinders,
		      double track_ms, double avg_ms, double full_ms)
{
	double C = cylinders;

	memset(sc, 0, sizeof(*sc));
	sc->cylinders = cylinders;
	if (cylinders < 16 || !(track_ms > 0) || !(avg_ms > track_ms) ||
	    !(full_ms > avg_ms))
		return -1;
	/* a data sheet's disk: a >= 0, boundary below half the stroke */
	if (derive_pass(sc, C, C / 2, 0, track_ms, avg_ms, full_ms))
		return 0;
	/* a disk of few cylinders (a small `iotape disk` spreading a data
	 * sheet's figures over its size) has no such curve: let the sqrt
	 * piece be steeper (a down to -full) */
	return derive_pass(sc, C, C / 2, -full_ms, track_ms, avg_ms, full_ms) ? 0 : -1;
}

double seek_curve_ns(const struct seek_curve *sc, uint32_t d)
{
	double t;

	if (!d)
		return 0;
	if (d < sc->boundary)
		t = sc->a_ns + sc->b_ns * sqrt((double)d);
	else
		t = sc->c_ns + sc->e_ns * d;
	return t > 0 ? t : 0;     /* a fitted curve may cross 0 near d = 0 */
}

double seek_curve_avg_ns(const struct seek_curve *sc)
{
	double C = sc->cylinders, num = 0, den = 0;

	/* the sum itself, on at most 20000 points */
	for (uint32_t k = 0; k < 20000; k++) {
		uint32_t d = 1 + (uint32_t)((double)k * (C - 2) / 19999);
		double w = C - d;
		num += w * seek_curve_ns(sc, d);
		den += w;
		if (C - 2 < 19999 && d >= C - 1)
			break;
	}
	return den > 0 ? num / den : 0;
}

