/* One run as the analyzers read it: its stitched requests in one array, its
 * VM samples as time series, its commands and the settings they need. Read
 * once per run by rundata_load(); rundata.c is the only analyze/ file that
 * reads the store for them. */
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

/* One stitched bio (a row of the requests table). Times in ns on the
 * events' clock, AN_NONE when not seen; sectors are 512 bytes. */
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
	double si, so, bi, bo, swpd, free, wa;
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
	struct an_io *io;
	size_t n;
	struct an_vm *vm;            /* in time order, since-boot rows left out */
	size_t nvm;
	struct an_series dirty_kb, writeback_kb;   /* meminfo Dirty, Writeback */
	struct an_series dirty_thresh_kb;          /* vmstat nr_dirty_threshold */
	struct an_series bg_thresh_kb;   /* vmstat nr_dirty_background_threshold */
	struct an_series psi[4];     /* cumulative stall, us: RD_PSI_* below */
	struct an_cmd *cmds;
	size_t ncmd;
	uint32_t swap_dev[8];        /* devices of role swap */
	int nswap;
	double dirty_bg_ratio, dirty_ratio; /* settings, -1 when unknown */
	/* The time the run is judged over: its commands' first start to last
	 * end when it has commands, else its first to last event. */
	int64_t t0, t1;
	int elapsed_from_cmds;
};

enum { RD_PSI_MEM_SOME, RD_PSI_MEM_FULL, RD_PSI_IO_SOME, RD_PSI_IO_FULL };

/* Reads run rv's requests, samples, commands and settings into rd. Returns
 * 0, or -1 after printing one error line (also for a run of more than
 * AN_MAX_IO requests). */
int rundata_load(struct rundata *rd, const struct runview *rv);

/* One request row as the analyzers see it: x from rq (a row of the
 * requests table, as store_requests_next() reads it and store_request_add()
 * writes it), its flags from its RWBS categories and its stitching. */
void rundata_io_of(struct an_io *x, const struct store_request *rq);

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

/* The setting key of the run (the value at the end when both were read),
 * copied into out; returns 0, or -1 when the run has no such setting. */
int rundata_setting(const struct rundata *rd, const char *key, char *out,
		    size_t len);

#endif
