/* The flight recorder's triggers: parsing --trigger expressions, and the
 * I/O latency of the live events (Q and D paired with C by device and
 * sector) over a sliding window, in bounded memory. Latency names as btt(1)
 * uses them: Q2C (queued to completed), D2C (issued to completed). */
#ifndef IOTAPE_RECLAT_H
#define IOTAPE_RECLAT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define RECLAT_SLOTS 10       /* a window is this many time slots */
#define RECLAT_BUCKETS 320    /* log-linear: 8 per power of two of ns */
#define RECLAT_PAIRS 65536    /* pending Q/D times kept */
#define RECLAT_WAYS 4         /* in sets of this many (the oldest goes) */
#define RECLAT_MAX_TRIG 8

enum rectrig_kind { RECTRIG_LATENCY, RECTRIG_PSI };
enum rectrig_op { RECTRIG_ANY, RECTRIG_READ, RECTRIG_WRITE };
enum rectrig_metric { RECTRIG_Q2C, RECTRIG_D2C };

/* One --trigger. */
struct rectrig {
	enum rectrig_kind kind;
	char text[96];              /* as given, for the run's settings */
	/* latency */
	enum rectrig_op op;
	enum rectrig_metric metric;
	int pct;                    /* 50, 90, 95, 99, 999 (99.9) or 100 (max) */
	int64_t threshold_ns;
	int64_t window_ns;          /* sliding window (default 5 s) */
	/* psi: "some|full STALL_US WINDOW_US" written to
	 * /proc/pressure/RESOURCE (Documentation/accounting/psi.rst) */
	char resource[8];           /* io, memory, cpu */
	int full;
	int64_t stall_us, psi_window_us;
};

/* Parses a --trigger expression into *t:
 *   [read_|write_](q2c|d2c)_(p50|p90|p95|p99|p999|max)>DUR[/WINDOW]
 *     e.g. read_q2c_p99>50ms, d2c_max>1s/10s (window default 5s)
 *   psi_(io|memory|cpu)_(some|full)>STALL/WINDOW
 *     e.g. psi_io_some>150ms/1s (the kernel takes windows of 500ms to 10s)
 * Durations: a number with ns, us, ms, s or m. Returns 0, or -1 with a
 * one-line message in err. */
int rectrig_parse(const char *expr, struct rectrig *t, char *err, size_t errlen);

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
 * time to each trigger whose op matches. Only the ops some trigger wants
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
