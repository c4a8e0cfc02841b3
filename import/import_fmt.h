/* The store side of the format table (import/formats.h): a parser's
 * records into runs of an open store, for `iotape import`. */
#ifndef IOTAPE_IMPORT_FMT_H
#define IOTAPE_IMPORT_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "import/formats.h"
#include "import/import.h"
#include "schema/store.h"

/* Reads path with format f (a row with a parse) inside the caller's
 * transaction:
 *  - FMT_TRACE: one new run per stream of the trace (one per host, or per
 *    disk with o->split; named name or after the file, "-STREAM" appended
 *    when there are several): per I/O its Q, D and C events (whichever the
 *    trace gives) in time order, and one request row with those times
 *    (no stitching: the trace says which events are one I/O); devices;
 *    the parser's notes in runs.notes and counts in run_stats;
 *  - FMT_SAMPLES: samples (source "iostat", key "DEVICE:COLUMN") of the
 *    existing run named name, else of a new run; reports at their printed
 *    times when all have one (relative to the first, added to the run's
 *    genesis), else every o->interval_s (default 1 s);
 *  - FMT_COMMANDS: commands of the existing run named name, else of a new
 *    run, one after another from the run's start (times estimated from
 *    their real seconds); dd's figures in run_stats "command.N.dd_*".
 * Returns 0 and *run_out (the last run made or joined; may be NULL), or a
 * negative code with a one-line message naming the file and line in err;
 * the caller then rolls back. Writes a one-line summary into o->summary. */
/* The default run name of an input: the file name of path without, at
 * most one of each and outermost first, a compression extension (.gz .xz
 * .zst .bz2 .lz4 .lzma .Z), a text or log extension (.txt .log .csv .iolog
 * .load .out) and a blktrace one (.blktrace.N, .blktrace, .bin):
 * "sdb.blktrace.0" and "sdb" give "sdb", "t.bin.gz" gives "t",
 * "nvme0n1.blktrace.txt" "nvme0n1", "vmstat.log" "vmstat". An extension
 * that is the whole name stays; "/" gives fallback; a name of digits only
 * gets fallback before it ("7.bin": "run-7"), as "7" would read as run id
 * 7. Control characters, which --run refuses, become '_' ("new\nline.bin":
 * "new_line"). Written into out (len bytes). The one rule of every importer
 * (docs/iotape.md, import). */
void import_run_name(const char *path, const char *fallback, char *out,
		     size_t len);

int import_format_one(struct store *st, const struct import_opts *o,
		      const struct import_format *f, const char *path,
		      const char *name, int64_t *run_out, char *err,
		      size_t errlen);

#endif
