/* The modelled disk as a real block device in real time (`iotape disk`):
 * a daemon serves one FUSE file whose every read, write and flush is
 * answered when the disk model (model.h) says the disk would have finished
 * it, keeps the data in a sparse backing file, and puts a loop device with
 * direct I/O over that file, so each request the block layer sends reaches
 * the model. Each disk has a folder DIR/disk/NAME (DIR: /run/iotape) with
 * its state, its profile and its statistics. */
#ifndef IOTAPE_MODEL_DISK_H
#define IOTAPE_MODEL_DISK_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* The lab folder disks live under (DIR/disk/NAME) unless told. */
#define DISK_DIR_DEFAULT "/run/iotape"

/* What `iotape disk start` asks for. */
struct disk_opts {
	const char *dir;           /* lab folder: DIR/disk/NAME */
	const char *name;          /* [A-Za-z0-9._-], 1 to 32 bytes */
	const char *model;         /* a built-in profile or a profile file */
	uint64_t size_bytes;       /* 0: the profile's capacity, or an
				    * existing backing file's size */
	const char *backing;       /* NULL: a new sparse file in tmpdir */
	const char *tmpdir;        /* where a new backing file goes */
	const char *scheduler;     /* the loop device's I/O scheduler */
	int keep;                  /* keep a backing file the disk made */
	int zero_time;             /* answer at once (the host's ceiling) */
	int compensate;            /* arrivals put at D: the host overhead's
				    * median taken off */
	int foreground;            /* serve in this process until a signal */
	unsigned spin_us;          /* busy-wait this long before an answer */
};

/* Starts disk o->name: checks the name, the profile and the backing file,
 * then forks the daemon and waits until its loop device serves. Writes the
 * loop device's path ("/dev/loop3") into loop (len bytes). With
 * o->foreground the daemon is this process: it returns after a signal
 * stopped it (loop is then written before). Returns 0, or -1 with a
 * one-line message in err. */
int disk_start(const struct disk_opts *o, char *loop, size_t len, char *err,
	       size_t errlen);

/* One disk's state, as its folder says. */
struct disk_info {
	char name[40];
	char profile[64];          /* the profile's name */
	char loop[32];             /* "/dev/loop3" */
	unsigned major, minor;
	uint64_t size_bytes;
	char backing[512];
	int made_backing;          /* the disk made its backing file */
	int keep;
	int pid;                   /* the daemon */
	int guardian;              /* its guardian (cleans up after a crash) */
	int alive;                 /* it holds its lock */
	int64_t started_real_ns;   /* CLOCK_REALTIME */
	int zero_time;
	uint64_t fuse_dev;         /* st_dev of its FUSE file (the loop
				    * device's lo_device) */
};

/* The disks under dir (sorted by name) into *out (malloc'd, *n of them).
 * Returns 0, or -1 with err. */
int disk_list(const char *dir, struct disk_info **out, size_t *n, char *err,
	      size_t errlen);

/* Reads disk name's state. Returns 0, -ENOENT when there is no such disk,
 * or another -errno with err. */
int disk_info_read(const char *dir, const char *name, struct disk_info *d,
		   char *err, size_t errlen);

/* Stops disk name: refuses (-EBUSY) when its loop device is open (mounted,
 * swapped on, held by a process) unless force; then ends the daemon
 * (SIGTERM, waiting up to 30 s) or, when it is dead, cleans up what it
 * left (loop device, tracing instance, backing file, folder). keep: leave
 * the backing file. Returns 0, or a negative errno with a message in err. */
int disk_stop(const char *dir, const char *name, int force, int keep,
	      char *err, size_t errlen);

/* The loop device of disk spec, when spec names a disk under dir (no '/'
 * in it): its path into path (len bytes). Returns 1 when it does, 0 when
 * it does not (spec is then something else: a path, MAJ:MIN), -1 with err
 * when the disk exists but is not serving. For capture -d and replay
 * --target. */
int disk_resolve(const char *dir, const char *spec, char *path, size_t len,
		 char *err, size_t errlen);

/* ---- statistics (disk_stats.c) ---- */

/* The histograms a disk keeps, each in ns. */
enum disk_hist {
	DH_LATE,       /* answered - the model's completion time */
	DH_OVERHEAD,   /* trace D2C - the daemon's answer time: FUSE + loop */
	DH_SERVICE,    /* the model's mechanism time (start to done) */
	DH_RESPONSE,   /* the model's completion - arrival (queue included) */
	DH_ANSWER,     /* the daemon's answer - arrival, measured */
	DH_N
};

/* A summary of one histogram. */
struct disk_hsum {
	uint64_t n;
	double mean, p50, p99, max;    /* ns */
};

/* What `iotape disk stats` shows. */
struct disk_stats {
	uint64_t ops[4], bytes[4];     /* read, write, flush, discard */
	uint64_t late;                 /* answered over 1 ms after the model */
	uint64_t errors;               /* backing file errors */
	uint64_t ov_unmatched;         /* traced requests with no answer */
	int64_t up_ns;                 /* since the daemon started */
	int realtime;                  /* its server runs at SCHED_FIFO */
	int compensate;                /* arrivals stamped earlier by comp_ns */
	uint64_t held_max;             /* requests the daemon held at once */
	int64_t comp_ns;
	char ov_why[160];              /* why overhead is not measured */
	struct disk_hsum h[DH_N];
};

/* Reads disk name's statistics. Returns 0, or -1 with err. */
int disk_stats_read(const char *dir, const char *name, struct disk_stats *s,
		    char *err, size_t errlen);

#endif
