/* The flight recorder's ring: block-trace records (as the tracer wrote them)
 * and /proc sample rows, in segments bounded by bytes and by age; the oldest
 * segment is dropped first and what it held is counted. Thread-safe: the
 * tracer's reader thread appends records while the main thread samples and
 * saves. Segments past a memory bound can spill to files (recring_spill_to()). */
#ifndef IOTAPE_RECRING_H
#define IOTAPE_RECRING_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/samplebuf.h"

/* One segment: records in arrival order and sample rows in time order. */
struct recseg {
	uint64_t id;              /* 1, 2, ... in the order they were opened */
	int64_t t_min, t_max;     /* ns (events' clock) of what it holds;
				   * t_min > t_max while empty */
	int64_t ev_max;           /* the newest record's time (samples are
				   * taken at once, records come late) */
	uint8_t *ev;              /* records, seg_bytes of room */
	size_t evlen;
	uint64_t nev;
	struct sample_row *smp;   /* sample rows, seg_bytes / 8 of room */
	size_t nsmp, capsmp;
	struct recseg *next;      /* the next newer segment */
	int heap;                 /* malloc()ed (mmap failed) */
	char *path;               /* spilled: its file (ev and smp NULL) */
	int busy;                 /* being written by recring_spill() */
	int dead;                 /* dropped while busy: freed after */
};

struct recring {
	pthread_mutex_t mu;
	uint64_t keep_bytes;      /* bound on the bytes held (segments' room) */
	int64_t window_ns;        /* bound on age: a segment whose newest item
				   * is older than the newest by more goes */
	size_t seg_bytes;         /* room of a segment's records */
	struct recseg *oldest, *newest;
	uint64_t next_id;
	int nseg;
	struct recseg *spare;     /* freed segment structs kept for reuse (a
				   * few; so a ring at full speed allocates
				   * nothing from the heap) */
	int nspare;
	uint64_t held_bytes;      /* room of the segments held */
	int64_t newest_ns;        /* the newest time put in */
	int mlocked;              /* 1 while every segment got mlock()ed */
	int mlock_errno;          /* why the first mlock() failed */
	/* the spill (recring_spill_to()): closed segments over mem_bytes of
	 * memory go to files in spill_dir, oldest first */
	char *spill_dir;          /* NULL: memory only */
	uint64_t mem_bytes;       /* bound on the room of segments in memory */
	uint64_t mem_held;        /* room of the segments in memory */
	int nspilled;             /* segments held in files */
	uint64_t spilled_segs;    /* segments written out so far */
	uint64_t spill_failed;    /* writes that failed */
	struct samples keys;      /* the sample keys (rows not kept here) */
	/* what was dropped, oldest first */
	uint64_t dropped_events, dropped_samples, dropped_segs, dropped_bytes;
	int64_t dropped_until_ns; /* newest record time dropped; 0: none */
	uint64_t skipped_bytes;   /* input that was not blktrace records */
	uint64_t total_events;
};

/* Sets r up for keep_bytes (at least 4 segments' room: a segment takes
 * keep_bytes / 18, its records 4/5 of that, between 64 KiB and 64 MiB)
 * and window_ns. With
 * lock_mem, tries to mlock() every segment (r->mlocked says whether all
 * were). Never fails. */
void recring_init(struct recring *r, uint64_t keep_bytes, int64_t window_ns,
		  int lock_mem);

/* Lets r hold keep_bytes (as given to recring_init()) with at most
 * mem_bytes of it in memory: segments are sized for mem_bytes (as
 * recring_init() sizes them for keep) and recring_spill() writes the
 * closed ones over mem_bytes to files seg-ID.ring in dir (made if missing,
 * mode 0700), each removed when the ring drops it. Call it once after
 * recring_init(), before anything is added. Removes the seg-*.ring files a
 * killed recorder left in dir first. Returns 0, or -1 with a message in err
 * (dir cannot be made or read, a stale file cannot be removed). */
int recring_spill_to(struct recring *r, const char *dir, uint64_t mem_bytes,
		     char *err, size_t errlen);

/* Writes the oldest closed segments to files while the segments in memory
 * take more than mem_bytes (see recring_spill_to(); nothing without it).
 * Writes without holding the lock (the tracer's reader thread goes on
 * adding); call it from one thread, often (the recorder does every 100
 * ms: memory goes over mem_bytes by what arrives meanwhile). A write that
 * fails (a full disk) removes its file and drops the oldest segments,
 * files first, until memory fits (the ring keeps its memory bound and
 * drops oldest first). Returns the segments written, or -errno of the
 * first failed write (then err holds the message). */
int recring_spill(struct recring *r, char *err, size_t errlen);

/* Appends whole blktrace records (len bytes; a tracefs_sink_fn: ctx is the
 * ring), opening a new segment when the newest is full or older than a
 * sixteenth of the window, then drops the oldest segments over the
 * bounds. Returns 0. */
int recring_add_records(void *ctx, const uint8_t *buf, size_t len);

/* Appends one /proc value (a procstat_sample_fn: ctx is the ring). Returns
 * 0. */
int recring_add_sample(void *ctx, int64_t t_ns, const char *source,
		       const char *key, double value);

/* Drops segments whose newest item is older than now_ns - window (age can
 * pass with nothing added). */
void recring_expire(struct recring *r, int64_t now_ns);

/* Called by recring_extract() for the records (a run of whole records,
 * len bytes) and the sample rows (keys in r->keys) inside the window. */
struct recring_out {
	int (*records)(void *ctx, const uint8_t *buf, size_t len);
	int (*sample)(void *ctx, int64_t t_ns, const char *source,
		      const char *key, double value);
	void *ctx;
};

/* Hands out every record and sample with from_ns <= time <= to_ns, oldest
 * segment first (records in arrival order within one), copying one
 * segment at a time under the lock (a spilled one is read from its file
 * without it) and calling out without it. Sample
 * keys are read without the lock: call it from the thread that adds
 * samples. Returns 0, or the first non-zero code a callback returned;
 * *nev (may be NULL) gets the records handed out. */
int recring_extract(struct recring *r, int64_t from_ns, int64_t to_ns,
		    const struct recring_out *out, uint64_t *nev);

/* The oldest time still held (INT64_MAX when empty). */
int64_t recring_oldest_ns(struct recring *r);

/* Frees every segment and the keys, and removes the spilled files. */
void recring_free(struct recring *r);

#endif
