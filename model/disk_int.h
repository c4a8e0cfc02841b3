/* Inside `iotape disk`: the statistics file the daemon writes and `disk
 * stats` reads, the real-time server (disk_fuse.c), the host-overhead
 * tracer (disk_trace.c) and the clean-up every way of stopping shares
 * (disk.c). */
#ifndef IOTAPE_MODEL_DISK_INT_H
#define IOTAPE_MODEL_DISK_INT_H

#include <pthread.h>
#include <stdint.h>

#include "analyze/stats.h"
#include "model/disk.h"
#include "model/model.h"

#define DISK_LATE_NS 1000000     /* an answer over 1 ms after the model's
				  * completion is late (replay's LATE_NS) */

/* ---- the statistics file (DIR/disk/NAME/stats, mapped shared) ---- */

#define DISK_STATS_MAGIC 0x6b736964u   /* "disk" */
#define DISK_STATS_VERSION 3u

struct disk_hist_hdr {
	uint64_t n;
	double sum;
	uint64_t min, max;
};

struct disk_stats_file {
	uint32_t magic;
	uint32_t version;
	int64_t started_mono_ns;
	uint64_t ops[4];               /* enum model_op */
	uint64_t bytes[4];
	uint64_t late;
	uint64_t errors;
	uint64_t ov_matched, ov_unmatched;
	char ov_why[160];
	int32_t realtime;              /* the server runs at SCHED_FIFO */
	int32_t compensate;            /* arrivals stamped comp_ns earlier */
	int64_t comp_ns;               /* the host overhead's median so far
					* (the tracer sets it) */
	uint64_t held_max;             /* requests held at once, at most */
	struct disk_hist_hdr h[DH_N];
	uint64_t counts[DH_N][HIST_BUCKETS];
};

/* The writer's side of one histogram: struct hist over the file's counts,
 * its scalars copied into the file after each value. */
struct disk_hist_w {
	struct hist h;
	struct disk_hist_hdr *hdr;
};

/* Maps (creating, zeroed) the statistics file at path. Returns it or NULL
 * with err. */
struct disk_stats_file *disk_stats_create(const char *path, char *err,
					  size_t errlen);

/* Binds w[i] to f's histogram i, for i < DH_N. */
void disk_stats_bind(struct disk_stats_file *f, struct disk_hist_w *w);

/* Adds v (ns) to a bound histogram. */
void disk_hist_add(struct disk_hist_w *w, uint64_t v);

/* ---- answered requests, for the overhead tracer ---- */

/* One answered request: where, and when the daemon got and answered it
 * (CLOCK_MONOTONIC ns). */
struct disk_answer {
	uint64_t sector;
	uint32_t sectors;
	uint8_t op;
	int64_t recv_ns, reply_ns;
};

#define DISK_ANSWERS 8192        /* the last answers kept for matching */

/* A ring of the last answers, written by the server, read by the tracer. */
struct disk_answers {
	pthread_mutex_t mu;
	struct disk_answer a[DISK_ANSWERS];
	uint64_t n;                    /* answers ever added */
};

void disk_answers_add(struct disk_answers *r, const struct disk_answer *a);

/* ---- the server (disk_fuse.c) ---- */

struct disk_srv_conf {
	const char *name;
	const char *mnt;               /* the FUSE mount point */
	int backing_fd;
	uint64_t size_bytes;
	const struct disk_profile *prof;   /* NULL with zero_time */
	int zero_time;
	int compensate;
	unsigned spin_us;
	struct disk_stats_file *stats;
	struct disk_answers *answers;
};

struct disk_srv;

/* Loads libfuse3, mounts the file system at c->mnt (file "disk") and sets
 * the model up. Returns the server or NULL with err. */
struct disk_srv *disk_srv_new(const struct disk_srv_conf *c, char *err,
			      size_t errlen);

/* Serves requests until disk_srv_stop() (from another thread) or until
 * the kernel ends the connection. Returns 0, or -errno when reading the
 * FUSE device failed. */
int disk_srv_run(struct disk_srv *s);

/* Makes disk_srv_run() return once it has answered what it holds. */
void disk_srv_stop(struct disk_srv *s);

/* Unmounts and frees (after disk_srv_run() returned). */
void disk_srv_free(struct disk_srv *s);

/* ---- the overhead tracer (disk_trace.c) ---- */

struct disk_tracer;

/* Starts measuring the host's overhead on device dev (major, minor): a
 * tracefs instance named after the disk with the block_rq_issue and
 * block_rq_complete events of dev on CLOCK_MONOTONIC, and a thread that
 * matches each completed request with the daemon's answer (answers) and
 * adds D2C minus the answer time to f's DH_OVERHEAD. When tracefs is not
 * mounted it is mounted at the folder scratch (call it in a mount
 * namespace of the caller's own). Returns the tracer, or NULL with the
 * reason in f->ov_why (not an error: the disk serves without it). */
struct disk_tracer *disk_tracer_start(const char *name, unsigned major,
				      unsigned minor, const char *scratch,
				      struct disk_stats_file *f,
				      struct disk_answers *answers);

/* Stops the thread and removes the instance. */
void disk_tracer_stop(struct disk_tracer *t);

/* Removes the tracefs instance of disk name if one is left (a killed
 * daemon's); when tracefs is not mounted, looks in a mount namespace of
 * its own (a child process) with tracefs mounted at scratch. */
void disk_tracer_remove(const char *name, const char *scratch);

#endif
