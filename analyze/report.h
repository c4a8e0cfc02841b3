/* One run's per-device and per-process figures, built from its stitched
 * requests, for `iotape report`, compare and plots. */
#ifndef IOTAPE_REPORT_H
#define IOTAPE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/rundata.h"
#include "analyze/runview.h"
#include "analyze/splitjoin.h"
#include "analyze/stats.h"
#include "lib/emit.h"

struct dir_stats {
	uint64_t ios, bytes;               /* dispatches (D) and their bytes */
	uint64_t c_only_ios, c_only_bytes; /* completed bios with no D */
	uint64_t q_only_ios, q_only_bytes; /* bios issued (Q) with no D or C */
};

/* A direction's requests and bytes as the device's rates count them: its
 * dispatches; with none traced on the device (c_only), its completed bios;
 * with none completed either (a trace of issue times alone: fio's iolog,
 * blkreplay's loads, CloudPhysics), its issued bios, where 0 read as a
 * measurement. */
static inline uint64_t dir_ios(const struct dir_stats *d, int c_only)
{
	return !c_only ? d->ios : d->c_only_ios ? d->c_only_ios : d->q_only_ios;
}

static inline uint64_t dir_bytes(const struct dir_stats *d, int c_only)
{
	return !c_only ? d->bytes : d->c_only_ios ? d->c_only_bytes
						  : d->q_only_bytes;
}

/* btt's stage latencies of bios with data (split halves apart, as Q2C):
 * Q2G Q to G, G2I G to I, Q2M Q to its merge (M/F), I2D I to D, M2D the
 * merge to D (btt(1) "All Devices" rows). */
enum { RP_Q2G, RP_G2I, RP_Q2M, RP_I2D, RP_M2D, RP_NSTAGE };

struct dev_stats {
	uint32_t dev;
	struct dir_stats dir[2];           /* [0] read, [1] write/discard */
	uint64_t bios;                     /* Q rows */
	uint64_t btt_q;                    /* btt's #Q: Q events with data,
					    * a split bio once (btt adds its R
					    * events; shown at least #D) */
	uint64_t x_splits;                 /* X events: the halves split off */
	uint64_t flushes;                  /* dispatches with no data */
	uint64_t busy_ns;                  /* sum of D2C of dispatches */
	uint64_t qc_ns;                    /* sum of Q2C of completed bios
					    * with no D (Q and C only) */
	uint64_t q2c_no_d;                 /* completed bios with no D seen */
	uint64_t completions;              /* rows with a C */
	uint64_t negative;                 /* latencies < 0 (clock steps) */
	uint64_t seeks_128;                /* D2D distances over 128 sectors */
	struct hist q2c, d2c, q2d, seek;   /* ns, ns, ns, sectors */
	struct hist stage[RP_NSTAGE];      /* btt's Q2G G2I Q2M I2D M2D, ns */
	uint64_t split_bios;               /* halves of bios an X split */
	struct hist q2c_split;             /* their Q2C, ns */
	struct hist q2c_whole;             /* Q2C of those bios whole (Q to
					    * the last piece's C), ns */
};

struct proc_stats {
	uint32_t pid;
	uint64_t bios, bytes;
	struct hist q2c;
};

struct report {
	const struct runview *rv;
	int64_t span_ns;
	struct dev_stats *devs;
	size_t ndev;
	struct proc_stats *procs;
	size_t nproc, pcap;
	size_t *pidx;                      /* pid hash → procs index + 1 */
	uint64_t total_bytes;
	struct hist all_q2c, all_d2c, all_q2d;
	struct hist all_stage[RP_NSTAGE];
	struct hist q2c_dir[2], d2c_dir[2];  /* all devices, [0] read [1] write */
	/* Q2C of bios as their issuers see them (the question's Q2C
	 * figures): q2c_dir's, and each bio an X split once, from its Q to
	 * its last piece's C (btt pairs neither half: q2c_dir leaves them
	 * out) */
	struct hist bio_q2c_dir[2];
	struct splitjoin sj;
};

/* Fills r from rd's requests (rundata_load()). Returns 0. */
int report_build(struct report *r, const struct rundata *rd);

struct an_side;
/* report_build() as a fold beside an_run_load_with()'s analyzers, into
 * r: *out becomes an an_side (analyzer.h) that takes each request once. */
void report_side(struct report *r, struct an_side *out);

/* report_build() a request at a time, for a caller that sees the rows as
 * they are written (analyze/summary.c): report_begin() clears r for run rv
 * (its span; rv NULL: none yet, the caller sets rv and span_ns), report_add() counts one request x (in any order: every
 * figure is a count, a sum of integers or a histogram), report_end() adds
 * the devices up. report_free() frees r after. */
void report_begin(struct report *r, const struct runview *rv);
void report_add(struct report *r, const struct an_io *x);
void report_end(struct report *r);

struct finding;
struct an_run;

/* Emits r as text (80 columns) or JSON; at most max_procs processes in text;
 * then, when an is given, where the time went (timeacct), the analyzers'
 * numbers and the findings f[0..nf). */
void report_emit(struct report *r, struct emit *e, size_t max_procs,
		 const struct an_run *an, const struct finding *f, int nf);

void report_free(struct report *r);

/* Writes into buf (len bytes) why a run has no completions, from what
 * import recorded (run_stats via rv): "no completions in this trace: 2661
 * requests pending at its end; CPUs 1-28 missing", without the parts not
 * recorded. Returns buf. */
const char *report_no_completions(const struct runview *rv, char *buf,
				  size_t len);

/* The definitions printed under a report and in --help. */
extern const char report_footer[];

#endif
