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
	CP_SEEK,        /* a dispatch's device time beyond a near one's of
			 * the same size, by how far it sought (btt D2D
			 * distance bands), where the device shows it */
	CP_QUEUE,       /* waiting behind other I/O: before dispatch while
			 * other processes' I/O was queued or in flight, and at
			 * the device before its own service began, the other
			 * processes' share of the I/O then ahead of it */
	CP_FAIRNESS,    /* a user process's wait before dispatch beyond
			 * what the other user processes on the device
			 * waited (kernel threads left out) */
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
	CP_JOURNAL,     /* waiting for the journal's commits: free of I/O of
			 * its own while a journal thread's I/O (jbd2,
			 * xfsaild: its writes, cache flushes, FUA writes) was
			 * in flight, the workload having issued synchronous
			 * writes (fsync, O_SYNC, O_DSYNC); and its own I/O
			 * queued behind the journal's (data=journal writing
			 * the data a second time) */
	CP_CPU,         /* runnable, waiting for a CPU */
	CP_OTHER,       /* the rest: on a CPU, think time, page cache */
	CP_NCAT
};

extern const char *const cp_cat_name[CP_NCAT];
/* What the workload did in each: "waited behind other I/O". */
extern const char *const cp_cat_desc[CP_NCAT];

/* Dispatch sizes by log2, 4 KiB and less up to 1 MiB and more. */
#define CP_SIZES 9

/* Seek distance bands (btt D2D, sectors): <= 128 (near: seekwatcher's and
 * btt's long seek starts above), <= 16 Ki, <= 1 Mi, beyond. */
#define CP_BANDS 4

/* The workload's blocking I/O of one direction and size: counts and
 * critical seconds, for comparing two runs class by class. */
struct cp_class {
	double n;               /* bios */
	double nreq;            /* requests: each bio its share of its
				 * dispatch's bytes (merged bios make one) */
	double bytes;
	double dev_s;           /* CP_DEVICE seconds of these bios */
	double seek_s;          /* CP_SEEK */
	double queue_s;         /* CP_QUEUE + CP_FAIRNESS */
	double nb[CP_BANDS];    /* bios by the seek before their dispatch */
	double devb_s[CP_BANDS];        /* dev_s + seek_s of them */
	double d2c_sum_ns;      /* their D2C, for means */
	double svc_sum_ns;      /* their service time (from the device's
				 * previous completion or their D) */
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
	double jfree_s;         /* of free_s, the time a journal thread's I/O
				 * was in flight, the workload syncing */
};

struct critpath {
	struct families fam;
	int64_t t0, t1;         /* the window, ns */
	double elapsed_s;
	int from_cmds;          /* the window is the timed commands' */
	int dirtying_first;     /* the window starts where a buffered writer
				 * dirtied pages before any write went out
				 * (vmstat, a trace alone) */
	int workload_wrote;     /* the workload's I/O (its families', or the
				 * flushers' for it) holds writes with data */
	double cat[CP_NCAT];    /* seconds; they add up to elapsed_s */
	double blocked_s, free_s;
	double run_write_bytes; /* the whole run's writes with data (discards
				 * apart), in the window or not; 0 unless
				 * from_cmds */
	double win_write_bytes; /* of them, those queued in the window */
	struct cp_class cls[2][CP_SIZES];   /* [read, write] */
	/* what the classes' baselines were (unloaded median D2C, ns) */
	/* the classes' median service times, ns: [dir][size][band] */
	double base_ns[2][CP_SIZES][CP_BANDS];
	/* the free time by bin */
	struct cp_bin *bin;
	size_t nbin;
	int64_t bin_ns;
	/* each family's part: blocked and free seconds */
	double *fam_blocked_s, *fam_free_s;
	/* the evidence of the free time's classes */
	double cpu_busy_s;      /* free time with runnable tasks waiting (the
				 * CPUs saturated, or pinned tasks queued) */
	double cpu_pinned_s;    /* of CP_CPU, the part told while vmstat's id
				 * showed a CPU idle (10% or more): tasks
				 * taken as pinned to the busy CPUs */
	double swap_active_s;   /* free time with swapping under way */
	double swap_stall_s;    /* the part of CP_SWAP from the free time */
	double held_s;          /* free time blocked with no I/O traced */
	/* the journal threads' I/O queued in the window (CP_JOURNAL): bios,
	 * of them cache flushes and FUA writes, MB; the first such pid */
	double journal_bios, journal_flushes, journal_fua, journal_mb;
	uint32_t journal_pid;
	int journal_named;      /* journal_pid is a journal thread's */
	double journal_queue_s; /* of CP_JOURNAL, the workload's I/O queued
				 * behind the journal's (the rest: waiting idle
				 * while it committed) */
	double queue_tag_s;     /* of CP_QUEUE, the waits for a request (a
				 * tag: Q2G beyond the device's usual) while
				 * other processes' I/O was queued or in flight:
				 * their requests held the tags (nr_requests,
				 * wbt's limits), a wait the device's speed
				 * does not make; a process queued behind its
				 * own requests alone is the device's */
	double wb_active_s;     /* free time with writeback under way */
	double proxy_throttle_s;/* a flusher's writes a blocked writer the
				 * trace does not show waited for */
	double idle_dirty_s;    /* devices idle with dirty data waiting, before
				 * the workload waited on writeback */
	double wb_sync_s;       /* of the workload's own synchronous writes'
				 * device time, what the idle time before
				 * could have written (in CP_WRITEBACK) */
	int dirty_limited;      /* the dirty limit (vm.dirty_bytes, else the
				 * kernel's threshold) was under half of what
				 * the flushers wrote: writers were held to the
				 * disk's speed */
	double swap_out_mb, swap_in_mb;     /* vmstat so/si over the window */
	int swap_inferred;      /* swap devices told from the trace */
	uint32_t swap_dev[8];
	int nswap;
	int measured;           /* 1: the free time from delay accounting */
	double sharers;         /* the workload's processes with blocking I/O
				 * on a device, a mean over its bios */
	int modelled;           /* 1: the device time is a modelled disk's
				 * (critpath_model()) */
	/* the workload tasks' own delay accounting, summed (NAN: none) */
	double dly_cpu_s, dly_blkio_s, dly_mem_s, dly_swapin_s;
	double refault_mb;
	uint64_t refault_bios;
	double buf_read_mb;     /* the workload's buffered reads (no direct
				 * I/O, swap-ins included), MB: what the page
				 * cache had to hold */
	/* the workload's read requests (dispatches with data, swap apart),
	 * and of them those that start where another ends on the device:
	 * contiguous, the file read in pieces */
	double read_reqs, read_contig;
	char window_why[320];
};

/* Builds the accounting of run rd over its window: the commands of
 * cmd_mask (bit idx; 0: every command) from the first start to the last
 * end when they were timed, else the workload families' span (family.h;
 * focus FAM_*: the workload the question's figure is of); ord holds rd's
 * Q, D and C orders (evorder.h). Never fails (aborts when memory runs
 * out). */
void critpath_build(struct critpath *cp, const struct rundata *rd,
		    const struct evorder *ord, uint64_t cmd_mask, int focus);

void critpath_free(struct critpath *cp);

/* Puts the workload's I/O on a modelled disk (--model): the run's dispatches
 * took svc_s of mechanism time there (seq_s of it overhead and transfer,
 * the rest seek and rotation) and d2c_s from arrival to completion (not
 * used: an open loop's queueing is no slower disk's, whose workload would
 * have waited and issued later). Their critical time, at the ratio the
 * trace shows between critical seconds at the device and D2C summed
 * (overlapping I/O once), replaces the device's and seeks' (queueing behind
 * other I/O is left out with the measured device); the window grows or
 * shrinks by the difference.
 * model names the disk in the window's description. */
void critpath_model(struct critpath *cp, double svc_s, double seq_s,
		    double d2c_s, const char *model);

/* The difference of run y's accounting against run x's, on the scale of y:
 * d[k] = y's category k less scale times x's (scale: how much of x's work
 * y did, 1 for the same work; y.elapsed_s - scale x.elapsed_s is the
 * difference explained), with the device's difference (CP_DEVICE +
 * CP_SEEK) split class by class, a shift-share decomposition (Kitagawa
 * 1955, as economists split a change into rate and mix): into the device's
 * speed per request of a size (d[CP_DEVICE]), dispatches seeking farther
 * at x's cost per distance band (d[CP_SEEK]), and the requests' count and
 * size:
 * volume_s from more bytes at x's cost per byte, mix_s the rest (more,
 * smaller requests for the bytes). d[CP_DEVICE] + d[CP_SEEK] + mix_s +
 * volume_s (both directions) is y's device time less scale x's. Waiting
 * for a CPU splits the same way: d[CP_CPU] is the contention's change (the
 * wait per second on a CPU), the more time on a CPU (at x's contention)
 * goes to d[CP_OTHER], or to d[CP_SWAP] when the worse run swapped or
 * stalled on memory more (reclaim and faults are work). Queueing behind
 * other processes' I/O: its growth with the service time (the same
 * sharing at y's slower service) is the device's; with as many processes
 * sharing each device as in x, its growth is what more time at the device
 * brought (they overlap more) and goes to the device's parts that grew
 * (speed, seeks, count and size), except the growth of the waits for a
 * request (tag) other processes' requests held (queue_tag_s): that wait is
 * the queue's, whatever the device did. Returns y's elapsed time less
 * scale x's. */
struct cp_diff {
	double d[CP_NCAT];
	double speed_s;         /* requests of a size took longer (CP_DEVICE) */
	double speed_w_s;       /* of it, the writes' */
	double flush_speed_s;   /* of the writes' speed, the part y's journal's
				 * cache flushes brought (moved from
				 * d[CP_DEVICE] to d[CP_JOURNAL]: write
				 * barriers) */
	double flushes[2];      /* [x (scaled), y]: the journal's cache
				 * flushes in the window */
	double seekmix_s;       /* farther dispatches (in CP_SEEK) */
	double mix_s[2];        /* [read, write]: count and size, beyond bytes */
	double volume_s[2];     /* more bytes at x's cost per byte */
	double mean_kb[2][2];   /* [x, y][dir]: mean request size */
	double contig[2];       /* [x, y]: the share of the workload's read
				 * requests contiguous with another (struct
				 * critpath read_contig) */
	double more_work_s;     /* the workload's more time on a CPU (and the
				 * wait for it at the better run's contention) */
	double work_to_swap_s;  /* of it, given to swap (memory pressure) */
	double queue_moved_s;   /* more queueing at the same sharing, given to
				 * the device's parts that grew (never the
				 * growth of queue_tag_s) */
	double writes_moved;    /* the share of the writes' volume_s and
				 * mix_s that is no difference in what the
				 * runs wrote in all, only in what they wrote
				 * in the timed commands' windows: data
				 * written back at another time (writeback's),
				 * not more work; 0 outside such windows */
	double total_s;
};
double critpath_diff(const struct critpath *x, const struct critpath *y,
		     double scale, struct cp_diff *out);

/* 1 when y's read requests got smaller than x's (mean request under 0.8
 * of x's). */
static inline int cp_reads_smaller(const struct cp_diff *d)
{
	return d->mean_kb[1][0] < 0.8 * d->mean_kb[0][0];
}

/* 1 when y read the same kind of stream in smaller pieces laid end to end:
 * its read requests got smaller and most of them start where another ends
 * (a readahead window, a request size: readahead's part of the reads'
 * count and size, mix_s[0]). */
static inline int cp_reads_cut(const struct cp_diff *d)
{
	return cp_reads_smaller(d) && d->contig[1] >= 0.5;
}

/* 1 when y's smaller read requests are scattered (under half contiguous)
 * where x's were laid end to end more (by a quarter of them at least): the
 * bytes' place on the device cut them (a fragmented file, its extents each
 * a request): the layout's part (seek's), not readahead's. Both scattered
 * alike (random reads of a smaller size) is neither: volume's. */
static inline int cp_reads_scattered(const struct cp_diff *d)
{
	return cp_reads_smaller(d) && d->contig[1] < 0.5 &&
	       d->contig[0] - d->contig[1] >= 0.25;
}

/* The read requests cp's workload waited on, its classes' (struct
 * cp_class, merged bios one request): count into *n and MB into *mb. */
static inline void cp_read_reqs(const struct critpath *cp, double *n,
				double *mb)
{
	*n = *mb = 0;
	for (int sc = 0; sc < CP_SIZES; sc++) {
		*n += cp->cls[0][sc].nreq;
		*mb += cp->cls[0][sc].bytes / 1e6;
	}
}

struct emit;
/* Emits cp as JSON (an object "time": the window, the seconds by cause,
 * the families); nothing in text. */
void critpath_emit(struct emit *e, const struct critpath *cp);

#endif
