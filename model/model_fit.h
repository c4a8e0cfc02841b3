/* Calibrating a disk profile from a trace of a real rotating disk: D2C of
 * the requests that were alone on the device against seek distance, size
 * and direction; and checking a profile against a trace (predict D2C).
 * Pure: arrays in, a profile and figures out. */
#ifndef IOTAPE_MODEL_MODEL_FIT_H
#define IOTAPE_MODEL_MODEL_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* One dispatched request of the device, in D order. */
struct fit_req {
	int64_t d_ns, c_ns;      /* dispatch and completion */
	uint64_t sector;         /* 512-byte sectors */
	uint32_t sectors;        /* 0: a flush */
	uint8_t write;
};

#define FIT_MIN_ALONE 200        /* alone requests a fit needs */

struct fit_report {
	size_t n;                /* requests given */
	size_t alone;            /* with data, alone on the device */
	size_t used;             /* alone, not a buffer hit, not sequential */
	size_t hits;             /* alone reads under the hit threshold */
	size_t sequential;       /* alone, starting where the previous ended */
	double hit_rate;         /* hits / alone reads */
	double rev_ms;           /* fitted revolution; rpm 60000 / rev_ms */
	double rpm_raw;          /* before rounding to a standard speed */
	double short_ms, long_ms;/* median D2C, shortest and longest quarter of
				  * seek distances (the flatness test) */
	double resid_mean_ms;    /* prediction minus D2C over the used ones */
	double resid_mad_ms;     /* median absolute residual */
	int nbins;
	struct { double d_cyl, seek_ms; size_t n; } bin[32];
	char refused[512];       /* why no fit, "" when fitted */
};

/* Fits profile out from reqs[0 .. n) of one device: geometry (zones,
 * heads, rates, capacity) from base with capacity_sectors replaced when
 * capacity is not 0; the revolution from the spread of D2C at like
 * distances (a uniform rotational delay over one turn: p90 - p10 = 0.8
 * revolution), rounded to a standard speed within 8%; the seek curve
 * (R&W: a + b sqrt(d), then c + e d) by least squares on the per-distance
 * medians less half a turn, the overhead and the transfer; the command
 * overhead from same-cylinder requests when there are 30; the hit rate
 * from alone reads faster than 1 ms. Returns 0 with *out and rep, or -1
 * with rep->refused saying why the trace cannot support a fit: fewer than
 * FIT_MIN_ALONE requests alone on the device, or D2C flat in distance (the
 * longest quarter of seeks not 25% slower than the shortest, or under
 * 1 ms: an SSD, loop or virtual device). */
int model_fit(const struct fit_req *reqs, size_t n, const struct disk_profile *base,
	      uint64_t capacity, struct disk_profile *out, struct fit_report *rep);

struct fit_check {
	size_t n;
	double real_mean_ms, real_p50_ms, real_p95_ms;
	double model_mean_ms, model_p50_ms, model_p95_ms;
	double err_mean, err_p50, err_p95;    /* model / real - 1 */
};

/* Predicts D2C of reqs[0 .. n) (data requests, at their D times, open
 * loop) on profile p and compares mean, median and p95 with the real D2C.
 * Returns 0 or -1 with err. */
int model_check(const struct fit_req *reqs, size_t n, const struct disk_profile *p,
		struct fit_check *out, char *err, size_t errlen);

#endif
