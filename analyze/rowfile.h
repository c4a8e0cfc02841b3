/* A run's request rows (struct an_row) kept in an unlinked temporary file
 * instead of memory: each device's rows in chunks, in the store's order
 * (by id), written by one writer per reading thread and read back a
 * device at a time. The analyses read a run as streams (fold.h) that pass
 * over the rows in order, so the rows need not stay resident: the file
 * lives in the page cache (or on disk), the process holds a chunk per
 * device it reads. With each device's lateness (how far a row's first
 * time falls behind an earlier row's on the device) a reader can put the
 * rows' events in time order holding only the rows within that much time
 * of the latest. */
#ifndef IOTAPE_ROWFILE_H
#define IOTAPE_ROWFILE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/rundata.h"

/* Rows a chunk holds: 56 KiB. */
#define RF_CHUNK 1024

/* The most rows a stream of the file may hold at once (estimated from
 * the lateness, rundata.c): past it, rows in memory are smaller (56 bytes
 * a row against some 170 held) and a run read so, a clock stepped back
 * in it, is read into memory instead: 256 Ki rows, about 43 MiB held. */
#define RF_HOLD_MAX (256 * 1024)

/* The escape index (an_row.dg) of a row with AN_R_ESC | AN_R_PART1 counts
 * from the second part's escapes (rowfile_join() fixes nothing in the
 * file: the reader adds the first part's count). */
#define AN_R_PART1 (1u << 15)

struct rf_chunk {
	uint64_t off;              /* bytes into the file */
	uint32_t n;                /* rows in it */
};

struct rf_dev {
	struct rf_chunk *c;
	size_t nc, cap;
	uint64_t rows;
	/* the rows' first times (the least of Q, D, C): the latest, the
	 * earliest, and the lateness: the most a row's first time fell
	 * behind the latest before it (ns) */
	int64_t maxfirst, minfirst, late;
	int timed;                 /* a row with a time was seen */
};

struct rowfile {
	int fd;
	uint64_t end;              /* bytes written (atomic) */
	struct rf_dev *dev;        /* by device index */
	size_t ndev;
	size_t nesc0;              /* the first part's escapes (AN_R_PART1) */
};

/* A device's rows of one range of ids that a writer wrote: its chunks and
 * their first times (rowfile_join() puts the ranges in order). */
struct rf_seg {
	int range;
	size_t dk;
	struct rf_dev d;
};

/* One thread's writer: a chunk in the making per device, in the range of
 * ids it reads now (rf_writer_range()); the ranges it read before. */
struct rf_writer {
	struct rowfile *f;
	struct rf_wdev {
		struct an_row *buf;
		uint32_t n;
		struct rf_dev d;
	} *d;
	size_t ndev;
	int range;                 /* 0 until rf_writer_range() */
	struct rf_seg *seg;        /* the ranges ended */
	size_t nseg, segcap;
	int err;                   /* errno of a failed write, else 0 */
};

/* Opens f as an empty file (spill_tmpfile()). Returns 0 or -errno. */
int rowfile_open(struct rowfile *f);

void rf_writer_init(struct rf_writer *w, struct rowfile *f);

/* Appends row r (r->dev its device index) whose first time (the least of
 * its Q, D, C) is first (AN_NONE: none). Returns 0, or -1 once a write
 * failed (w->err). Aborts when memory runs out. */
int rf_writer_add(struct rf_writer *w, const struct an_row *r, int64_t first);

/* Writes w's partial chunks. Returns 0 or -1 (w->err). */
int rf_writer_flush(struct rf_writer *w);

/* Ends the range of ids w wrote (its partial chunks written) and begins
 * range (a number that orders the ranges of all writers: the range of
 * smaller ids first). Returns 0 or -1 (w->err). */
int rf_writer_range(struct rf_writer *w, int range);

/* Each device's rows of the writers w[0..nw) into f, their ranges in
 * order (ranges of one number: writer by writer, as in w), as the ids
 * are; frees the writers. ndev: the devices. */
void rowfile_join(struct rowfile *f, struct rf_writer *w, int nw, size_t ndev);

/* Keeps devices keep[k] (new index k, old keep[k]) of f, n of them: the
 * devices a filter left empty go. */
void rowfile_keep(struct rowfile *f, const size_t *keep, size_t n);

void rowfile_close(struct rowfile *f);

/* A reader of one device's rows, in order. */
struct rf_reader {
	const struct rowfile *f;
	size_t dk, chunk;
	uint32_t at, n;
	struct an_row *buf;        /* RF_CHUNK rows */
	int err;
};

void rf_reader_init(struct rf_reader *r, const struct rowfile *f, size_t dk);

/* The device's next row into *out (its dev set to the device's index).
 * Returns 1, 0 at the end, -1 when the file cannot be read (r->err). */
int rf_reader_next(struct rf_reader *r, struct an_row *out);

void rf_reader_free(struct rf_reader *r);

#endif
