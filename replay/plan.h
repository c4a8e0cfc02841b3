/* The replay plan: a source run's I/Os at one level (Q or D rows of its
 * stitched requests), grouped into streams, mapped onto the targets, with
 * the dependencies the scheduler keeps. Pure data and arithmetic; loading
 * from the store is source_load(). */
#ifndef IOTAPE_REPLAY_PLAN_H
#define IOTAPE_REPLAY_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "lib/spill.h"
#include "schema/store.h"

enum rio_op {
	RIO_READ = 0,
	RIO_WRITE = 1,
	RIO_FLUSH = 2,     /* fdatasync: a flush request on a device */
	RIO_DISCARD = 3,   /* BLKDISCARD on devices, punched hole in files */
};

#define RIO_FUA      0x01  /* write with RWF_DSYNC (REQ_FUA on a device) */
#define RIO_AS_READ  0x02  /* a write replayed as a read of the same range */
#define RIO_DEP      0x04  /* issue only when its stream has nothing in flight */
#define RIO_ALIGNED  0x08  /* offset or length rounded out to the block size */
#define RIO_WRAPPED  0x10  /* offset taken modulo the target's size */
#define RIO_PREFLUSH 0x20  /* the flush half of a flush+write request */

/* One I/O to issue. */
struct rio {
	int64_t t_ns;        /* original start (Q or D time) minus the first
			      * I/O's, ns */
	uint64_t off;        /* byte offset on the target (0 for flushes) */
	uint32_t len;        /* bytes on the target (0 for flushes) */
	uint32_t stream;     /* 0 .. nstreams - 1 */
	uint16_t target;     /* index into the targets */
	uint8_t op;          /* enum rio_op */
	uint8_t flags;       /* RIO_* */
	uint32_t pid;        /* the original process */
	int64_t src_id;      /* requests.id of the source row */
};

/* What became of one I/O; times are CLOCK_MONOTONIC ns. */
struct rio_result {
	int64_t sched_ns;    /* when the schedule wanted it; 0: never issued */
	int64_t free_ns;     /* when it was free to go: sched_ns, or later when
			      * its stream's previous I/O was issued (order) or
			      * completed (a dependency), or a slot (--depth)
			      * was free */
	int64_t issue_ns;    /* when it was handed to the kernel */
	int64_t complete_ns; /* when its completion was seen */
	int32_t res;         /* bytes done (0 for flushes and discards), or
			      * -errno */
};

enum replay_level { REPLAY_QUEUE = 0, REPLAY_DISPATCH = 1 };

/* One row of the source run at the chosen level. */
struct src_io {
	int64_t id;          /* requests.id (of the first half of a split bio) */
	uint32_t dev;        /* major << 20 | minor */
	uint32_t pid;
	uint64_t sector;     /* 512-byte sectors */
	uint32_t bytes;      /* whole bio: split halves added back */
	uint64_t cats;       /* BT_C_* of the row */
	int64_t start_ns;    /* q_ns (queue) or d_ns (dispatch) */
	int64_t end_ns;      /* c_ns, or start_ns when no completion was seen */
	int has_end;
	int split;           /* loading only: the row is half of a split bio */
	int64_t split_from;  /* loading only: the requests.id it was cut from */
};

/* The source run's I/Os in start order (start_ns, then id). */
struct source {
	struct src_io *io;   /* io_mem's array */
	struct spill io_mem; /* out of the resident set behind each pass */
	size_t n;
	uint32_t *devs;      /* distinct devices, in first-seen order */
	size_t ndev;
	size_t skipped;      /* zero-length rows that are not flushes */
};

/* Reads run's requests at level into src: queue: rows with a Q time (split
 * halves folded back into their bio); dispatch: the rows standing for a D
 * (d_head = 1), with the dispatched request's sector and size. Returns 0
 * (src->n may be 0), or -1 with a message in err. */
int source_load(struct store *st, int64_t run, enum replay_level level,
		struct source *src, char *err, size_t errlen);

/* Puts src's rows in source order (start_ns, then id). With its rows in a
 * spill file (spill.h), in bounded memory: runs of run rows (0: 65536)
 * sorted in place and released, then merged into a new array through a
 * heap of the runs' heads, what the merge has read and written released
 * as it goes; else one qsort. Returns 0 or -errno (src unchanged). */
int source_sort(struct source *src, size_t run);

/* Frees what source_load() allocated; src is emptied. */
void source_free(struct source *src);

/* What plan_build needs to know of a target. */
struct plan_target {
	const char *name;    /* its path, for messages */
	uint64_t size;       /* bytes; with extend, the size it has now */
	unsigned lbs;        /* O_DIRECT offset and length unit, bytes */
	int writable;        /* writes are issued as writes */
	int extend;          /* a regular file: grown to what the plan needs */
	int wrap;            /* --wrap */
};

/* The plan and what building it counted. */
struct plan {
	struct rio *io;            /* io_mem's array */
	struct spill io_mem;       /* released behind its readers (spill.h):
				    * the resident set stays bounded */
	size_t n;
	uint32_t nstreams;
	uint32_t serial_streams;   /* streams that never had two I/Os in flight */
	unsigned depth_orig;       /* most I/Os in flight at once in the source */
	uint64_t as_read;          /* writes replayed as reads */
	uint64_t aligned;          /* I/Os rounded out to the block size */
	uint64_t wrapped;          /* I/Os wrapped modulo the target's size */
	uint64_t discards_skipped; /* discards on targets not writable */
	uint64_t flush_writes;     /* flush+write requests split in two */
	uint64_t skipped;          /* zero-length rows that are not flushes */
	uint32_t max_len;          /* largest read or write, bytes */
	uint64_t *need;            /* per target: bytes the plan reaches */
	int *has_writes;           /* per target: writes or discards issued */
	/* the source at this level, for the fidelity figures */
	size_t src_n;
	uint64_t src_bytes;        /* bytes of reads, writes and discards */
	int64_t src_span_ns;       /* first start to last completion */
};

/* Maps the byte range [off, off + len) onto a target of size bytes whose
 * O_DIRECT unit is lbs (a power of two): rounds the range out to lbs
 * (RIO_ALIGNED in *flags when that moved it); with wrap, takes the offset
 * modulo size and moves a range that would then cross the end back so that
 * it ends there (RIO_WRAPPED). size 0 means unbounded. Returns 0 with
 * *out_off and *out_len, or -ERANGE when it does not fit: without wrap, it
 * ends beyond size; with wrap, it is larger than size. */
int plan_map_range(uint64_t off, uint64_t len, unsigned lbs, uint64_t size,
		   int wrap, uint64_t *out_off, uint64_t *out_len,
		   uint8_t *flags);

/* Most intervals [start[i], end[i]) open at once (an interval that ends
 * when another starts does not overlap it); n intervals, times in ns. */
unsigned plan_max_overlap(const int64_t *start, const int64_t *end, size_t n);

/* Builds the plan from src: dev_target[k] is the target index of
 * src->devs[k]; tg[ntg] describe the targets; single: one stream in source
 * order instead of one per pid; offset: sectors added to every position.
 * Streams whose I/Os never overlapped in the source get RIO_DEP on every
 * I/O (the next waits for the previous); a flush+write row becomes a flush
 * and then the write, which waits for it. Returns 0, or -1 with a message
 * in err (a target too small without wrap, an I/O larger than a wrapped
 * target). plan->need[] is filled either way. */
int plan_build(const struct source *src, const int *dev_target,
	       const struct plan_target *tg, int ntg, int single,
	       uint64_t offset, struct plan *plan, char *err, size_t errlen);

/* Shortens every gap between consecutive I/Os' start times (t_ns, in plan
 * order) longer than max_gap_ns to max_gap_ns, moving all later I/Os
 * earlier; max_gap_ns <= 0 keeps every gap. Returns how many gaps were
 * shortened and puts the time taken out (ns) in *removed_ns. */
size_t plan_cap_gaps(struct plan *plan, int64_t max_gap_ns, int64_t *removed_ns);

/* Frees what plan_build() allocated (also after it failed). */
void plan_free(struct plan *plan);

/* "read", "write", "flush", "discard". */
const char *rio_op_name(unsigned op);

#endif
