/* The flight recorder's triggers: one table of trigger kinds (capture/
 * rectrig.c, one row each: its --trigger syntax, parser and evaluator),
 * and the state that evaluates them from the /proc samples and the live
 * events. PSI triggers are polled by the recorder itself; latency triggers
 * are measured by record/reclat.h and evaluated here. */
#ifndef IOTAPE_RECTRIG_H
#define IOTAPE_RECTRIG_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/machine.h"

#define RECTRIG_MAX 8         /* --trigger options at most */
#define RECTRIG_MAX_DEVS 16   /* traced devices followed by stuck */
#define RECTRIG_HIST 512      /* pswpout samples kept (a window's worth) */

enum rectrig_kind {
	RECTRIG_LATENCY, RECTRIG_PSI, RECTRIG_SWAPOUT, RECTRIG_DIRTY,
	RECTRIG_WRITEBACK, RECTRIG_STUCK,
};
enum rectrig_op { RECTRIG_ANY, RECTRIG_READ, RECTRIG_WRITE };
enum rectrig_metric { RECTRIG_Q2C, RECTRIG_D2C };

/* One --trigger. */
struct rectrig {
	enum rectrig_kind kind;
	char text[96];              /* as given, for the run's settings */
	/* latency: [read_|write_](q2c|d2c)_STAT>DUR[/WINDOW][@DEV] */
	enum rectrig_op op;
	enum rectrig_metric metric;
	int pct;                    /* 50, 90, 95, 99, 999 (99.9) or 100 (max) */
	int64_t threshold_ns;       /* latency; stuck: nothing completed for */
	int64_t window_ns;          /* latency's sliding window (default 5 s);
				     * swapout's rate window (default 5 s) */
	/* psi: "some|full STALL_US WINDOW_US" written to
	 * /proc/pressure/RESOURCE (Documentation/accounting/psi.rst) */
	char resource[8];           /* io, memory, cpu */
	int full;
	int64_t stall_us, psi_window_us;
	/* swapout: bytes per second; dirty, writeback: bytes */
	uint64_t threshold_bytes;
	/* latency and stuck: one device (@DEV) or any traced one */
	char devspec[32];           /* as given after '@'; "" for any */
	uint32_t dev;               /* major << 20 | minor; 0 for any (set by
				     * rectrig_parse for MAJ,MIN, by
				     * rectrig_bind for a name) */
};

/* Parses a --trigger expression into *t, by the first row of the kinds
 * table whose prefix it starts with:
 *   [read_|write_](q2c|d2c)_(p50|p90|p95|p99|p999|max)>DUR[/WINDOW][@DEV]
 *     e.g. read_q2c_p99>50ms, d2c_max>1s/10s@8,0 (window default 5s)
 *   psi_(io|memory|cpu)_(some|full)>STALL/WINDOW
 *     e.g. psi_io_some>150ms/1s (the kernel takes windows of 500ms to 10s)
 *   swapout>SIZE/s[/WINDOW]  e.g. swapout>10MB/s, swapout>1M/s/2s: pages
 *     swapped out (/proc/vmstat pswpout) per second over WINDOW (5s)
 *   dirty>SIZE, writeback>SIZE  e.g. dirty>1G: /proc/meminfo Dirty or
 *     Writeback
 *   stuck>DUR[@DEV]  e.g. stuck>10s: a device with requests issued (D) and
 *     none completed (C) for DUR
 * DEV is a name ("loop0", "sda") or MAJ,MIN or MAJ:MIN ("8,0"), and must
 * be traced. Durations: a number with ns, us, ms, s or m; sizes: a number
 * with K, M or G (powers of 1024; "MB", "MiB" read as M). Returns 0, or -1
 * with a one-line message naming the expression in err. */
int rectrig_parse(const char *expr, struct rectrig *t, char *err, size_t errlen);

/* Resolves the @DEV of t[0 .. n) among the traced disks devs[0 .. ndev)
 * (by name, or checks MAJ,MIN is one of them) into t->dev. Returns 0, or
 * -1 with a message in err. */
int rectrig_bind(struct rectrig *t, int n, const struct capdev *devs, int ndev,
		 char *err, size_t errlen);

struct reclat;

/* A traced device's in-flight count from the live events (stuck). */
struct recstuck {
	uint32_t dev;
	char name[64];
	int64_t inflight;           /* D's less C's and R's, at least 0 */
	int64_t progress_ns;        /* last C, or the D that started a busy
				     * spell (events' clock) */
};

/* What evaluating the triggers needs between calls. */
struct rectrigs {
	pthread_mutex_t mu;         /* stuck's counts (the tracer's thread) */
	const struct rectrig *trig;
	int ntrig;
	struct reclat *lat;         /* the latency triggers' measurements */
	int lat_idx[RECTRIG_MAX];   /* index among reclat's triggers, or -1 */
	int armed[RECTRIG_MAX];     /* fires on a rise above only */
	int want_events;            /* a stuck trigger */
	uint64_t page_bytes;
	/* the latest /proc values (samples' time) */
	struct { int64_t t_ns; double pages; } swap[RECTRIG_HIST];
	int nswap, swap_head;       /* a ring of pswpout samples */
	int64_t mem_t_ns;           /* 0: no meminfo sample yet */
	double dirty_kb, writeback_kb;
	struct recstuck devs[RECTRIG_MAX_DEVS];
	int ndev;
};

/* Sets s up for the triggers t[0 .. n) (kept by pointer), with lat the
 * latency triggers' measurements (reclat_init() on the same t) and the
 * traced disks devs[0 .. ndev). Never fails. */
void rectrigs_init(struct rectrigs *s, const struct rectrig *t, int n,
		   struct reclat *lat, const struct capdev *devs, int ndev);

/* Reads whole blktrace records (len bytes) for stuck's counts: D adds
 * one in flight on its device, C and R take one off (never below 0); a C,
 * or the D that starts a busy spell, is progress. Does nothing without a
 * stuck trigger. Call from the tracer's thread. */
void rectrigs_add_records(struct rectrigs *s, const uint8_t *buf, size_t len);

/* Takes one /proc value (a procstat_sample_fn; ctx is s): vmstat pswpout,
 * meminfo Dirty and Writeback, and diskstats NAME:in_flight (0 there puts
 * the events' count of that device back to 0, so a lost C cannot leave a
 * device stuck). Returns 0. */
int rectrigs_sample(void *ctx, int64_t t_ns, const char *source,
		    const char *key, double value);

/* Called for a trigger that rose above its threshold at t_ns, with the
 * threshold and the value measured as text with their units. */
typedef void (*rectrig_fire_fn)(void *ctx, const struct rectrig *t,
				int64_t t_ns, const char *threshold,
				const char *value);

/* Evaluates every trigger but PSI at now_ns (monotonic, the events'
 * clock) by its kind's row, and calls fire for each one over its
 * threshold that was under it at the last evaluation (a trigger already
 * over at its first value fires only after going under). */
void rectrigs_eval(struct rectrigs *s, int64_t now_ns, rectrig_fire_fn fire,
		   void *ctx);

void rectrigs_free(struct rectrigs *s);

#endif
