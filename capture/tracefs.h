/* The tracefs `blk` tracer back end: block events of chosen disks in the
 * blktrace binary format (options/bin set, options/context-info cleared),
 * read from each CPU's trace_pipe_raw by a thread (trace_pipe where those
 * cannot be read), merged in time order, into a file or a sink. Every
 * tracefs setting is changed through the lab (capture/lab.h), so it is
 * restored afterwards.
 * Source: Documentation/trace/ftrace.rst, kernel/trace/blktrace.c. */
#ifndef IOTAPE_TRACEFS_H
#define IOTAPE_TRACEFS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/blktrace_format.h"
#include "capture/lab.h"
#include "trace/tracefs_raw.h"

#define TRACEFS_MAX_DEVS 16

/* Receives whole records read from the trace (len bytes at buf, a run of
 * complete records in time order), in the reader thread. Returns 0, or
 * -errno to stop the reader. */
typedef int (*tracefs_sink_fn)(void *ctx, const uint8_t *buf, size_t len);

struct tracefs {
	char root[256];             /* /sys/kernel/tracing */
	char sysblock[256];         /* /sys/block */
	char devs[TRACEFS_MAX_DEVS][64];
	int ndev;
	int pipe_fd, out_fd;
	pthread_t thread;
	int running;
	volatile int stop;          /* set to ask the reader to drain and end */
	uint64_t bytes;             /* written to the output file */
	int thread_errno;
	tracefs_sink_fn sink;       /* instead of out_fd, when set */
	void *sink_ctx;
	/* with a sink: each CPU's trace_pipe_raw, read a page at a time */
	int *raw_fd;
	int nraw;
	size_t page_size;
	struct rawstats raw;        /* what the pages held (reader thread) */
	struct bt_stream file_bs;   /* into a file: the stream's byte order */
	int file_have_bs;
	/* pid → comm of each process seen in the stream, read from
	 * /proc/PID/comm when the pid first appears (tracefs records carry
	 * no process names) */
	uint32_t *pids;
	char (*comms)[16];
	size_t npid, cappid;
	char proc[256];
};

/* Starts tracing the whole disks named in devs (sysfs names: "loop0",
 * "vda"; ndev of them) under root (tracefs, mounted there if absent) into
 * the file out_path, with buffer_kb of ring buffer per CPU and the mono
 * trace clock (so event times are CLOCK_MONOTONIC ns, the samplers' clock).
 * The file is one blktrace stream in time order (the raw reader below);
 * each pid's name is read from /proc/PID/comm when it first appears.
 * Refuses when the tracer is in use (current_tracer not nop). Returns 0, or
 * -1 with a message in err (settings already changed stay recorded in lab
 * for lab_end to restore). */
int tracefs_start(struct tracefs *t, struct lab *lab, const char *root,
		  const char *sysblock, char devs[][64], int ndev,
		  unsigned buffer_kb, const char *out_path, char *err,
		  size_t errlen);

/* As tracefs_start(), but hands the records to sink (with ctx) instead of
 * writing a file: the flight recorder keeps them in memory. The records
 * come from each CPU's trace_pipe_raw (whole ring-buffer pages: no
 * per-event formatting in the kernel, unlike trace_pipe), decoded by
 * tracefs_raw.h, merged into time order, and handed on every 50 ms (or
 * sooner when a CPU's buffer is half full: buffer_percent) up to 2 ms
 * before the time the drain began, so records from all CPUs arrive in time
 * order. Process names are not looked up (t->pids stays empty: the
 * recorder reads saved_cmdlines when it saves). */
int tracefs_start_sink(struct tracefs *t, struct lab *lab, const char *root,
		       const char *sysblock, char devs[][64], int ndev,
		       unsigned buffer_kb, tracefs_sink_fn sink, void *ctx,
		       char *err, size_t errlen);

/* The events each CPU lost so far (per_cpu/cpuN/stats: overrun + dropped
 * events) into lost[0 .. maxcpu), the CPUs counted into *ncpu; returns
 * their sum. */
uint64_t tracefs_lost(const struct tracefs *t, uint64_t *lost, int maxcpu,
		      int *ncpu);

/* Stops tracing the disks, lets the reader drain every per-CPU buffer, and
 * ends it. Sets lost[cpu] to the events each CPU lost (tracefs per_cpu
 * stats: overrun + dropped), *ncpu to the CPUs counted (at most maxcpu).
 * Returns 0, or -1 with a message in err (the output file is complete up to
 * the error). */
int tracefs_stop(struct tracefs *t, uint64_t *lost, int maxcpu, int *ncpu,
		 char *err, size_t errlen);

/* Frees the pid → comm table (after the caller has stored it). */
void tracefs_free(struct tracefs *t);

#endif
