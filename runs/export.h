/* Writing a stored run in the formats other tools read: fio iolog v3 (fio
 * --read_iolog), blktrace binary v7 as `blkparse -d` writes it (btt,
 * blkparse, seekwatcher, iowatcher), a CSV of requests with btt's stage
 * times, and blkparse's text. For `iotape export`; layouts in
 * docs/IMPORT.md ("Export"). */
#ifndef IOTAPE_EXPORT_H
#define IOTAPE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/runview.h"

enum export_format {
	EXPORT_FIO = 1,
	EXPORT_BLKTRACE,
	EXPORT_CSV,
	EXPORT_BLKPARSE,
};

/* What an export wrote, for the summary line. */
struct export_stats {
	uint64_t records;      /* lines or records written (header excluded) */
	uint64_t skipped;      /* events the format cannot carry */
	uint64_t reads, writes, trims, syncs;   /* fio: I/O lines by action */
	uint64_t bytes[3];     /* fio: read, write, trim bytes */
	int from_d;            /* fio: the run has no Q events; D used */
	/* fio: what the iolog cannot say (fio takes no comments): each
	 * file's device and what it holds, and whether writes overwrite
	 * what fio opens; lines for stderr */
	char note[1024];
};

/* The format named name ("fio", "blktrace", "csv", "blkparse"), or 0. */
enum export_format export_format_parse(const char *name);

/* Writes run rv in format fmt to fp:
 *  - EXPORT_FIO: "fio version 3 iolog", each device as a file
 *    (/dev/block/MAJ:MIN, or its stored name when that is a path) added and
 *    opened at 0, one line per Q event (per D when the run has none) at its
 *    time in us since the run's first event: read, write, trim (discards),
 *    sync (zero-length flushes), offset = sector x 512, length = bytes;
 *    closes at the last one; no comment lines (fio takes none): each
 *    file's device and its writes go to st->note;
 *  - EXPORT_BLKTRACE: struct blk_io_trace v7 records in this machine's
 *    byte order, as `blkparse -d` writes them: a process notify per named
 *    pid, then every event in stored order with its payload (categories
 *    above bit 15, which only v8 has, are dropped and counted; an event
 *    stored with no category, as text imports keep P and U, gets the one
 *    the kernel gives its action, else blkparse would drop it; a run whose
 *    first event is at 0 is written 1 ns later, as blkparse re-bases a
 *    trace starting at 0 in pipe mode);
 *  - EXPORT_CSV: a header line, then one line per request (ordered by its
 *    first time) with its times in ns since the run's first event and
 *    btt's stage times in us (Q2G G2I Q2M I2D M2D Q2D D2C Q2C), empty
 *    where unknown;
 *  - EXPORT_BLKPARSE: the events as `iotape dump` prints them.
 * Returns 0 and fills *st, or -1 with a message in err (a read error, or
 * a write error on fp). */
int export_run(struct runview *rv, enum export_format fmt, FILE *fp,
	       struct export_stats *st, char *err, size_t errlen);

#endif
