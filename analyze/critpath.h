/* The workload's time, instant by instant: while its processes waited on
 * their own I/O, which I/O and what held it (the device, other processes'
 * I/O ahead of it, a far seek, swap); while they did not, what they waited
 * on instead (a CPU, dirty throttling, writeback, memory). Each instant of
 * the workload's window is shared out once: a process's part of it is
 * 1/(processes alive), split equally among its I/Os then waiting, so the
 * categories add up to the window however many I/Os were in flight
 * (DESIGN.md "What a finding is": costs on the critical path, overlap
 * counted once, never device time summed over parallel I/O). Built from a
 * trace and vmstat samples alone; the capture's per-task delay accounting
 * (rundata tasks) measures the time outside the trace when it is there. */
#ifndef IOTAPE_CRITPATH_H
#define IOTAPE_CRITPATH_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/evorder.h"
#include "analyze/family.h"
#include "analyze/rundata.h"
#include "analyze/stats.h"

/* Where an instant of the workload went. The first ones are its waits on
 * its own I/O (blocking: reads, synchronous writes, flushes), the rest the
 * time it issued none. */
enum cp_cat {
	CP_DEVICE,      /* its I/O at the device at the device's own speed,
			 * and the block layer's own time before dispatch */
	CP_SEEK,        /* a far dispatch's device time beyond a near one's
			 * of the same size (btt D2D distance over 128
			 * sectors), where the device shows one */
	CP_QUEUE,       /* waiting behind other I/O: before dispatch while
			 * other processes' I/O was queued or in flight, and at
			 * the device beyond its own speed while theirs was */
	CP_FAIRNESS,    /* a process's wait before dispatch beyond what the
			 * other processes on the device waited */
	CP_SWAP,        /* I/O on a swap device (swap-in), and memory stalls
			 * (reclaim, refaults of evicted pages) */
	CP_REFAULT,     /* reads of sectors the run had read before */
	CP_WRITEBACK,   /* waiting for writeback that could have run while
			 * the devices idled with dirty data before */
	CP_WBWAIT,      /* waiting for writeback at the device's speed
			 * (sync, fsync, a flusher's writes) */
	CP_THROTTLE,    /* blocked issuing no I/O while dirty data was over
			 * the throttling point, or I/O held above the block
			 * layer (blk-throttle, cgroup I/O limits) */
	CP_CPU,         /* runnable, waiting for a CPU */
	CP_OTHER,       /* the rest: on a CPU, think time, page cache */
	CP_NCAT
};

extern const char *const cp_cat_name[CP_NCAT];

/* Dispatch sizes by log2, 4 KiB and less up to 1 MiB and more. */
#define CP_SIZES 9

/* The workload's blocking I/O of one direction and size: counts and
 * critical seconds, for comparing two runs class by class. */
struct cp_class {
	double n;               /* bios */
	double bytes;
	double dev_s;           /* CP_DEVICE seconds of these bios */
	double seek_s;          /* CP_SEEK */
	double queue_s;         /* CP_QUEUE + CP_FAIRNESS */
	double far;             /* bios dispatched after a far seek */
	double dev_far_s, dev_near_s;   /* dev_s + seek_s of far, near bios */
	double d2c_sum_ns;      /* their D2C, for means */
	double sync_s;          /* of the whole, synchronous writes and flushes */
};

/* Free time of the workload by stretch of time (for the signals that are
 * sampled, vmstat's interval). */
struct cp_bin {
	double free_s;          /* the workload's time not waiting on its I/O */
	double busy_s;          /* some traced device had I/O dispatched */
	double wb_s;            /* asynchronous writes were in flight */
	double own_io_s;        /* the workload waited on its own I/O */
	double wb_mb;           /* asynchronous writes queued (writeback) */
	double sync_mb;         /* the workload's synchronous writes and
				 * flushes (counted as 1 MB each) queued */
	double syncw_s;         /* the workload's critical time waiting on
				 * them, by completion */
};

struct critpath {
	struct families fam;
	int64_t t0, t1;         /* the window, ns */
	double elapsed_s;
	int from_cmds;          /* the window is the timed commands' */
	double cat[CP_NCAT];    /* seconds; they add up to elapsed_s */
	double blocked_s, free_s;
	struct cp_class cls[2][CP_SIZES];   /* [read, write] */
	/* what the classes' baselines were (unloaded median D2C, ns) */
	double base_ns[2][CP_SIZES][2];     /* [dir][size][far] */
	/* the free time by bin */
	struct cp_bin *bin;
	size_t nbin;
	int64_t bin_ns;
	/* each family's part: blocked and free seconds */
	double *fam_blocked_s, *fam_free_s;
	/* the evidence of the free time's classes */
	double cpu_busy_s;      /* free time with the CPUs saturated */
	double swap_active_s;   /* free time with swapping under way */
	double swap_stall_s;    /* the part of CP_SWAP from the free time */
	double held_s;          /* free time blocked with no I/O traced */
	double wb_active_s;     /* free time with writeback under way */
	double idle_dirty_s;    /* devices idle with dirty data waiting, before
				 * the workload waited on writeback */
	double swap_out_mb, swap_in_mb;     /* vmstat so/si over the window */
	int swap_inferred;      /* swap devices told from the trace */
	uint32_t swap_dev[8];
	int nswap;
	int measured;           /* 1: the free time from delay accounting */
	/* the workload tasks' own delay accounting, summed (NAN: none) */
	double dly_cpu_s, dly_blkio_s, dly_mem_s, dly_swapin_s;
	double refault_mb;
	uint64_t refault_bios;
	char window_why[320];
};

/* Builds the accounting of run rd over its window: the commands of
 * cmd_mask (bit idx; 0: every command) from the first start to the last
 * end when they were timed, else the workload families' span (family.h);
 * ord holds rd's Q, D and C orders (evorder.h). Never fails (aborts when
 * memory runs out). */
void critpath_build(struct critpath *cp, const struct rundata *rd,
		    const struct evorder *ord, uint64_t cmd_mask);

void critpath_free(struct critpath *cp);

/* The difference of run y's accounting against run x's, on the scale of y:
 * d[k] = y's category k less scale times x's (scale: how much of x's work
 * y did, 1 for the same work; y.elapsed_s - scale x.elapsed_s is the
 * difference explained), with the device's difference (CP_DEVICE +
 * CP_SEEK) split class by class, a shift-share decomposition (Kitagawa
 * 1955, as economists split a change into rate and mix): into the device's
 * speed per request of a size (d[CP_DEVICE]), more far dispatches at x's
 * far-near difference (d[CP_SEEK]), and the requests' count and size:
 * volume_s from more bytes at x's cost per byte, mix_s the rest (more,
 * smaller requests for the bytes). d[CP_DEVICE] + d[CP_SEEK] + mix_s +
 * volume_s (both directions) is y's device time less scale x's. Returns
 * y's elapsed time less scale x's. */
struct cp_diff {
	double d[CP_NCAT];
	double speed_s;         /* requests of a size took longer (CP_DEVICE) */
	double seekmix_s;       /* more far dispatches (in CP_SEEK) */
	double mix_s[2];        /* [read, write]: count and size, beyond bytes */
	double volume_s[2];     /* more bytes at x's cost per byte */
	double mean_kb[2][2];   /* [x, y][dir]: mean bio size */
	double total_s;
};
double critpath_diff(const struct critpath *x, const struct critpath *y,
		     double scale, struct cp_diff *out);

struct emit;
/* Emits cp as JSON (an object "time": the window, the seconds by cause,
 * the families); nothing in text. */
void critpath_emit(struct emit *e, const struct critpath *cp);

#endif
