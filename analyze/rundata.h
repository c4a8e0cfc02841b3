/* One run as the analyzers read it: its stitched requests (in one array,
 * or in a temporary file the folds stream: fold.h), its VM samples as time
 * series, its commands and the settings they need. Read once per run by
 * rundata_load(); rundata.c is the only analyze/ file that reads the store
 * for them. */
#ifndef IOTAPE_RUNDATA_H
#define IOTAPE_RUNDATA_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/runview.h"

/* The most requests one run may have: the analyzers index them in 32 bits
 * with two to spare (96 GiB of struct an_io; rundata_load() refuses more). */
#define AN_MAX_IO (1u << 30)

/* A time not seen (the action was not traced). */
#define AN_NONE INT64_MIN

/* Flags of one I/O, from its RWBS categories and its stitching. */
enum {
	AN_WRITE = 1 << 0,    /* write or discard */
	AN_SYNC = 1 << 1,     /* S: synchronous (direct I/O, fsync writeback) */
	AN_META = 1 << 2,     /* M: metadata */
	AN_RA = 1 << 3,       /* A: readahead */
	AN_FUA = 1 << 4,      /* F after the op: forced unit access */
	AN_FLUSH = 1 << 5,    /* a cache flush: preflush (F before) or empty */
	AN_HEAD = 1 << 6,     /* this row stands for its dispatch (one per D) */
	AN_HAS_SEEK = 1 << 7, /* seek holds btt's D2D distance of the dispatch */
	AN_SPLIT = 1 << 8,    /* one half of a bio an X split */
	AN_MERGED = 1 << 9,   /* merged (M/F) into another request */
	AN_DISCARD = 1 << 10,
	AN_SPLIT_TAIL = 1 << 11, /* the half an X split off (split_from set):
				  * the bio's Q counted once, on the other */
};

/* Every AN_* flag: they fit in 12 bits (struct an_row keeps them in 16). */
#define AN_FLAGS_ALL ((1u << 12) - 1)

/* One stitched bio (a row of the requests table). Times in ns on the
 * events' clock, AN_NONE when not seen; sectors are 512 bytes. What a
 * reader of a run sees of a row: rundata keeps rows as struct an_row and
 * gives them out as this (rundata_io()). */
struct an_io {
	int64_t q, g, i, d, c;   /* queue, get request, insert, issue, complete */
	int64_t m;               /* merge (M or F), when merged */
	int64_t seek;            /* btt D2D distance in sectors, AN_HAS_SEEK */
	uint64_t sector;         /* the bio's first sector */
	uint64_t dsector;        /* its dispatch's first sector (or the bio's) */
	uint32_t bytes;          /* the bio's size */
	uint32_t dbytes;         /* its dispatch's size (merged bios included) */
	uint32_t pid, dev;       /* dev as major << 20 | minor */
	uint32_t flags;          /* AN_* */
};

/* One row as rundata keeps it, 56 bytes for struct an_io's 96: times as
 * 32-bit offsets from a base, the dispatch's sector from the bio's, seek
 * in 32 bits, the device as an index into rundata's device table. A row
 * that does not fit so (an offset of 4.3 s or more or below 0, both a G
 * and a merge, a far sector) is kept whole in rundata's escape table and
 * its row says where (AN_R_ESC). an_row_pack() and an_row_unpack() are
 * the two directions; rundata_io() reads a row of a run. */
struct an_row {
	int64_t t;            /* base: q, or (no Q) the earliest time seen,
			       * or 0 when none is */
	uint32_t dg;          /* g - t, or m - t (AN_R_M); AN_R_NONE: not seen;
			       * the escape table's index with AN_R_ESC */
	uint32_t di, dd, dc;  /* i - t, d - t, c - t, or AN_R_NONE */
	uint64_t sector;
	int32_t dsec;         /* dsector - sector */
	int32_t seek;
	uint32_t bytes, dbytes, pid;
	uint16_t dev;         /* index into the run's device table */
	uint16_t flags;       /* AN_* and AN_R_* */
};

/* An offset that stands for a time not seen. */
#define AN_R_NONE UINT32_MAX

/* struct an_row's own flags, above the AN_* ones. */
enum {
	AN_R_NOQ = 1 << 12,   /* no Q: t is not q */
	AN_R_M = 1 << 13,     /* dg is the merge's offset (no G) */
	AN_R_ESC = 1 << 14,   /* kept whole in the escape table (index dg);
			       * dev, pid, flags, sector, bytes and dbytes
			       * are valid in the row */
};

/* Packs x into r with device index dev: 0, or -1 when x does not fit in a
 * row (r then holds x's dev, pid, flags, sector, bytes and dbytes only:
 * the caller keeps x whole, sets AN_R_ESC and the index). */
int an_row_pack(struct an_row *r, const struct an_io *x, uint16_t dev);

/* The request row r stands for (r not AN_R_ESC), dev its device number,
 * into *x. */
static inline void an_row_unpack(const struct an_row *r, uint32_t dev,
				 struct an_io *x)
{
	int64_t t = r->t;

	x->q = (r->flags & AN_R_NOQ) ? AN_NONE : t;
	x->g = (r->flags & AN_R_M) || r->dg == AN_R_NONE ? AN_NONE : t + r->dg;
	x->m = (r->flags & AN_R_M) ? t + r->dg : AN_NONE;
	x->i = r->di == AN_R_NONE ? AN_NONE : t + r->di;
	x->d = r->dd == AN_R_NONE ? AN_NONE : t + r->dd;
	x->c = r->dc == AN_R_NONE ? AN_NONE : t + r->dc;
	x->seek = r->seek;
	x->sector = r->sector;
	x->dsector = r->sector + (uint64_t)(int64_t)r->dsec;
	x->bytes = r->bytes;
	x->dbytes = r->dbytes;
	x->pid = r->pid;
	x->dev = dev;
	x->flags = r->flags & AN_FLAGS_ALL;
}

/* The earliest of x's Q, D and C (the first event a stream gives of it),
 * AN_NONE when it has none. */
static inline int64_t an_io_first(const struct an_io *x)
{
	int64_t t = x->q;

	if (x->d != AN_NONE && (t == AN_NONE || x->d < t))
		t = x->d;
	if (x->c != AN_NONE && (t == AN_NONE || x->c < t))
		t = x->c;
	return t;
}

/* A time series of one sampled value: t[i] ns on the events' clock. */
struct an_series {
	int64_t *t;
	double *v;
	size_t n;
};

/* One sample row of vmstat(8)'s columns (the vmstat view of schema 002):
 * si, so, bi, bo are rates per second over the interval before t; swpd,
 * free in kB; wa in % of CPU time. NAN when not sampled. */
struct an_vm {
	int64_t t;
	int64_t t0;                /* the start of the interval the row's rates
				    * cover: the row before it, a since-boot
				    * row (one vmstat run's start) included;
				    * AN_NONE for a first row */
	double si, so, bi, bo, swpd, free, wa;
	double r, b;               /* runnable and blocked (D state) tasks */
	double us, sy, id;         /* % of CPU time */
	double cache;              /* kB */
};

/* The seconds vm row v's rates cover (v->t0 to v->t), 0 for a first row:
 * a row's rate times this is what it counted (vmstat(8): rates are per
 * second over the interval since the row before). */
static inline double rundata_vm_dt_s(const struct an_vm *v)
{
	return v->t0 == AN_NONE ? 0 : (double)(v->t - v->t0) / 1e9;
}

/* One task's own account of its time, from the kernel's per-task delay
 * accounting (taskstats, Documentation/accounting/delay-accounting.rst;
 * capture's samples of source "task", keys "PID.FIELD"): each field's
 * cumulative seconds since the task started, at its first and its last
 * sample (a field never stored was 0). rundata_task_s() gives a field over
 * a window. */
enum {
	AT_CPU,                    /* on a CPU */
	AT_CPU_DELAY,              /* runnable, waiting for a CPU */
	AT_BLKIO,                  /* waiting for block I/O (io_schedule: also
				    * dirty throttling's sleeps) */
	AT_SWAPIN,                 /* waiting for swap-in */
	AT_FREEPAGES,              /* direct reclaim */
	AT_THRASHING,              /* refaulting recently evicted pages */
	AT_COMPACT,                /* memory compaction */
	AT_NFIELD
};

struct an_task {
	uint32_t pid, ppid;
	int64_t start, exit;       /* ns on the events' clock, AN_NONE unknown */
	int64_t t_first, t_last;   /* its first and last sample */
	double first[AT_NFIELD], last[AT_NFIELD];   /* NAN: not measured (the
						     * capture dropped it) */
	double counts[AT_NFIELD];  /* how many delays of the kind it counted */
};

/* One workload of the run: start and end ns on the events' clock
 * (AN_NONE when unknown), real seconds (NAN when unknown). */
struct an_cmd {
	int idx;
	char argv[200];
	int64_t start, end;
	double real_s;
	int status;
};

struct rundata {
	const struct runview *rv;
	/* the requests, n rows by device (ascending), then by id: read them
	 * with rundata_io(), or through a fold (fold.h); NULL when they are
	 * in rows_file (folds only) */
	struct an_row *row;
	size_t n;
	struct an_io *esc;           /* the rows kept whole (AN_R_ESC) */
	size_t nesc;
	/* or, row NULL, the rows in a temporary file (rowfile.h), read
	 * through folds (fold.h) only */
	struct rowfile *rows_file;
	uint32_t *devs;              /* the device table: numbers, ascending */
	size_t ndevs;
	/* device k's rows are row[dev_first[k] .. dev_first[k + 1]) */
	size_t *dev_first;
	struct an_vm *vm;            /* in time order, since-boot rows left out */
	size_t nvm;
	size_t nvm_boot;             /* the since-boot rows left out of vm */
	struct store_setting *settings; /* the run's settings, read once at
					 * load: the analyzers' builds run in
					 * threads and a store connection
					 * (libpq's) serves one at a time */
	size_t nsettings;
	struct an_series dirty_kb, writeback_kb;   /* meminfo Dirty, Writeback */
	struct an_series dirty_thresh_kb;          /* vmstat nr_dirty_threshold */
	struct an_series bg_thresh_kb;   /* vmstat nr_dirty_background_threshold */
	struct an_series psi[4];     /* cumulative stall, us: RD_PSI_* below */
	struct an_series anon_kb;    /* meminfo AnonPages */
	/* the memory cgroup of --mem-limit (memory.stat, capture's "memcg"
	 * samples): anonymous (rss), dirty and writeback pages, kB */
	struct an_series cg_anon_kb, cg_dirty_kb, cg_writeback_kb;
	struct an_cmd *cmds;
	size_t ncmd;
	uint32_t swap_dev[8];        /* devices of role swap (the capture's
				      * list, else told from the trace) */
	int nswap;
	int swap_inferred;           /* swap_dev told from the trace */
	struct an_task *tasks;       /* by pid; none for a run without delay
				      * accounting (every import) */
	size_t ntask;
	int ncpu;                    /* the machine's CPUs (setting "cpus", or
				      * the CPUs its trace records name); 0
				      * when unknown */
	double dirty_bg_ratio, dirty_ratio; /* settings, -1 when unknown */
	/* The time the run is judged over: its commands' first start to last
	 * end when it has commands, else its first to last event, else (no
	 * I/O traced) its vmstat samples' first to last. */
	int64_t t0, t1;
	int elapsed_from_cmds;
};

enum { RD_PSI_MEM_SOME, RD_PSI_MEM_FULL, RD_PSI_IO_SOME, RD_PSI_IO_FULL };

/* Row i of rd as struct an_io: in *buf (the returned pointer), or in the
 * escape table (the returned pointer; buf untouched). Valid until rd is
 * freed or buf reused. */
static inline const struct an_io *rundata_io(const struct rundata *rd,
					     size_t i, struct an_io *buf)
{
	const struct an_row *r = &rd->row[i];

	if (r->flags & AN_R_ESC)
		return &rd->esc[r->dg];
	an_row_unpack(r, rd->devs[r->dev], buf);
	return buf;
}

/* The device, process and AN_* flags of row i, without the rest (and
 * below, more of its fields one at a time). */
static inline uint32_t rundata_dev(const struct rundata *rd, size_t i)
{
	return rd->devs[rd->row[i].dev];
}

static inline uint32_t rundata_pid(const struct rundata *rd, size_t i)
{
	return rd->row[i].pid;
}

static inline uint32_t rundata_flags(const struct rundata *rd, size_t i)
{
	return rd->row[i].flags & AN_FLAGS_ALL;
}

/* The bio's size and first sector, and its dispatch's size, of row i. */
static inline uint32_t rundata_bytes(const struct rundata *rd, size_t i)
{
	return rd->row[i].bytes;
}

static inline uint64_t rundata_sector(const struct rundata *rd, size_t i)
{
	return rd->row[i].sector;
}

static inline uint32_t rundata_dbytes(const struct rundata *rd, size_t i)
{
	return rd->row[i].dbytes;
}

/* The Q, D and C times of row i (AN_NONE when not seen). */
static inline int64_t rundata_q(const struct rundata *rd, size_t i)
{
	const struct an_row *r = &rd->row[i];

	if (r->flags & AN_R_ESC)
		return rd->esc[r->dg].q;
	return (r->flags & AN_R_NOQ) ? AN_NONE : r->t;
}

static inline int64_t rundata_d(const struct rundata *rd, size_t i)
{
	const struct an_row *r = &rd->row[i];

	if (r->flags & AN_R_ESC)
		return rd->esc[r->dg].d;
	return r->dd == AN_R_NONE ? AN_NONE : r->t + r->dd;
}

static inline int64_t rundata_c(const struct rundata *rd, size_t i)
{
	const struct an_row *r = &rd->row[i];

	if (r->flags & AN_R_ESC)
		return rd->esc[r->dg].c;
	return r->dc == AN_R_NONE ? AN_NONE : r->t + r->dc;
}

/* The index of device dev in rd's device table, or -1. */
int rundata_dev_index(const struct rundata *rd, uint32_t dev);

/* Frees rd's request rows (row, esc); rd->n stays their count and
 * everything else stays as it is. A reader that has built what it needs of
 * them calls it to give the memory back while it holds rd (compare holds
 * several runs); rundata_io() and the row readers must not be called on rd
 * after. */
void rundata_drop_rows(struct rundata *rd);

/* The columns of a request row rundata_io_of() reads (enum store_rq_col
 * bits): a cursor opened with them fills an an_io whole. */
#define RD_COLS (STORE_RQ_COLS_ALL & ~(unsigned)(STORE_RQ_RWBS | \
	STORE_RQ_REQUEUES | STORE_RQ_ERROR | STORE_RQ_ORIG))

/* Makes rd a run of the n requests io (in that order within each device,
 * the devices' rows put in ascending order) with no samples, commands or
 * settings, for tests and for readers of requests that are not a stored
 * run; rd->rv is rv (NULL: none, for readers of the requests alone, as
 * iostat_build()). Aborts when memory runs out. */
void rundata_of_ios(struct rundata *rd, const struct runview *rv,
		    const struct an_io *io, size_t n);

/* rundata_of_ios() with the rows then moved to a temporary file
 * (rd->rows_file), as rundata_load_to() keeps them: for tests of the
 * folds' reading of it. Returns 0, or -1 when no file could be written
 * (rd then holds nothing to fold). */
int rundata_of_ios_file(struct rundata *rd, const struct runview *rv,
			const struct an_io *io, size_t n);

/* Reads run rv's requests, samples, commands and settings into rd, the
 * requests on two threads (two handles on the store) where the store can.
 * Returns 0, or -1 after printing one error line (also for a run of more
 * than AN_MAX_IO requests). */
int rundata_load(struct rundata *rd, const struct runview *rv);

/* rundata_load() reading the requests in at most nparts parts at once
 * (1: on this thread, through the one handle; the result is the same). */
int rundata_load_parts(struct rundata *rd, const struct runview *rv,
		       int nparts);

/* rundata_load_parts() with the rows, to_file 1, written to a temporary
 * file (rd->rows_file, rowfile.h) instead of kept in memory: a reader of
 * them through folds (fold.h) alone, whose memory then does not grow
 * with the run's requests. Where no temporary file can be made, the rows
 * stay in memory (rows_file NULL). */
int rundata_load_to(struct rundata *rd, const struct runview *rv, int nparts,
		    int to_file);

/* One request row as the analyzers see it: x from rq (a row of the
 * requests table, as store_requests_next() reads it and store_request_add()
 * writes it), its flags from its RWBS categories and its stitching. */
void rundata_io_of(struct an_io *x, const struct store_request *rq);

/* The task pid of rd (delay accounting), or NULL. */
const struct an_task *rundata_task(const struct rundata *rd, uint32_t pid);

/* Task t's field k (AT_*) over the window from t0 on, seconds: all of it
 * when the task started then or later (its totals count from its start),
 * else its last sample's less its first's (a task older than the window,
 * a kernel thread, counts only what it did in it, as far as the samples
 * tell); NAN when the capture dropped the field (not measured). */
double rundata_task_s(const struct an_task *t, int k, int64_t t0);

/* Frees what rundata_load took. */
void rundata_free(struct rundata *rd);

/* The run's elapsed time in seconds (t1 - t0), 0 when it has none. */
double rundata_elapsed_s(const struct rundata *rd);

/* Seconds from the run's start (the first event, genesis) to t. */
double rundata_at_s(const struct rundata *rd, int64_t t);

/* 1 when dev is one of the run's swap devices. */
int rundata_is_swap(const struct rundata *rd, uint32_t dev);

/* The value of series s at time t: linear between samples, the first or
 * last value outside them; NAN when s is empty. */
double series_at(const struct an_series *s, int64_t t);

/* The increase of a cumulative series s between t0 and t1 (values at the
 * two times by series_at()); 0 when s has fewer than two samples. */
double series_delta(const struct an_series *s, int64_t t0, int64_t t1);

/* The setting key of the run (the value at the start when both were read,
 * as store_setting_get() gives it), copied into out (len bytes); from the
 * settings rundata_load() read, so it never touches the store (the
 * analyzers' builds call it from threads). Returns 0, or -1 when the run
 * has no such setting or none with a value. */
int rundata_setting(const struct rundata *rd, const char *key, char *out,
		    size_t len);

#endif
