/* The flight recorder's latency triggers (parsed by record/rectrig.h): the
 * I/O latency of the live events (Q and D paired with C by device and
 * sector) over a sliding window, in bounded memory. Latency names as btt(1)
 * uses them: Q2C (queued to completed), D2C (issued to completed). */
#ifndef IOTAPE_RECLAT_H
#define IOTAPE_RECLAT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "record/rectrig.h"

#define RECLAT_SLOTS 10       /* a window is this many time slots */
#define RECLAT_BUCKETS 320    /* log-linear: 8 per power of two of ns */
#define RECLAT_PAIRS 65536    /* pending Q/D times kept */
#define RECLAT_WAYS 4         /* in sets of this many (the oldest goes) */
#define RECLAT_MAX_TRIG RECTRIG_MAX

/* One time slot of a latency trigger's window. */
struct reclat_slot {
	int64_t no;                 /* time / slot length; -1 unused */
	uint64_t n;
	int64_t max_ns;
	uint32_t count[RECLAT_BUCKETS];
};

struct reclat_pair {
	uint32_t dev;
	uint32_t write;
	uint64_t sector;
	int64_t q_ns, d_ns;         /* 0: not seen */
};

/* The live latency of every latency trigger. */
struct reclat {
	pthread_mutex_t mu;
	const struct rectrig *trig[RECLAT_MAX_TRIG];
	struct reclat_slot (*slots)[RECLAT_SLOTS];
	int ntrig;
	unsigned ops;               /* 1: reads, 2: writes a trigger wants */
	struct reclat_pair *pairs;  /* RECLAT_PAIRS entries */
	uint64_t completions, unpaired;
};

/* Sets l up for the latency triggers among t[0 .. n) (at most
 * RECLAT_MAX_TRIG). Never fails. */
void reclat_init(struct reclat *l, const struct rectrig *t, int n);

/* Reads whole blktrace records (len bytes) for Q, D and C: a C whose
 * device and sector match a pending Q (D) gives a Q2C (D2C) at the C's
 * time to each trigger whose op (and device, when it names one) matches. Only the ops some trigger wants
 * are kept; a Q whose set of RECLAT_WAYS entries is full replaces the one
 * queued longest ago (so memory stays fixed; an I/O lost so is counted in
 * unpaired when its C comes). */
void reclat_add_records(struct reclat *l, const uint8_t *buf, size_t len);

/* The value of latency trigger i (index among those given to init) over
 * the window ending at now_ns: the percentile (the upper edge of its
 * bucket, at most the window's max; buckets are 1/8 of a power of two
 * wide) or the max, in ns, into *value_ns, and the completions counted
 * into *n. Percentiles need 10 completions. Returns 1 when above the
 * threshold, else 0. */
int reclat_eval(struct reclat *l, int i, int64_t now_ns, int64_t *value_ns,
		uint64_t *n);

void reclat_free(struct reclat *l);

/* The histogram's bucket of v ns, and the upper edge of bucket b in ns
 * (for tests). */
int reclat_bucket(int64_t v);
int64_t reclat_bucket_top(int b);

#endif
