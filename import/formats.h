/* The input formats `iotape import` reads: one table of rows (name, sniff,
 * parse), each format told from a file's first bytes, never from its name.
 * Parsers are pure (a stream in, records out through a sink); the store
 * side is import/import_fmt.c. Column mappings: docs/IMPORT.md.
 *
 * Adding a format:
 *  1. write import/fmt_NAME.c with fmt_NAME_sniff() and fmt_NAME_parse()
 *     (declared below) producing the records of this header;
 *  2. add one row to import_formats[] in import/formats.c (the Makefile
 *     builds every .c of import/, and its FUZZ_LIB each fmt_ file);
 *  3. tests: fixtures written from the format's documented layout by
 *     tests/fixtures/make-import-fixtures.py (never a copy of a real file:
 *     cite real ones in tests/fixtures/README.md, which describes each
 *     fixture, and read them from ../shared/corpus or $IOTAPE_INTEROP_DIR),
 *     a good one and a bad one; a case of each in tests/unit/test_formats.c
 *     and tests/cli/t_import_formats.sh; a libFuzzer harness
 *     tests/fuzz/fuzz_NAME.c, its name in the Makefile's FUZZERS and its
 *     seeds in tests/fuzz/run.sh;
 *  4. docs: its mapping in docs/IMPORT.md, a row in docs/GUIDE.md's format
 *     table and in docs/iotape.md's import table (the man page); `iotape
 *     import --help` lists the rows itself. */
#ifndef IOTAPE_FORMATS_H
#define IOTAPE_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/blktrace_format.h"

/* How many leading bytes of a file the sniffers see. */
#define FMT_SNIFF_BYTES 16384

/* A time a format does not give. */
#define FMT_NO_TIME INT64_MIN

/* Device numbers of traces that name no major,minor: major 0 (the kernel's
 * "unnamed" major), minor as the parser numbers the trace's disks. */
#define FMT_DEV(minor) BT_MKDEV(0u, (uint32_t)(minor))

/* What an input's records become. */
enum fmt_kind {
	FMT_NATIVE = 0, /* read by import_one()'s own path (blktrace, blkparse
			 * text, vmstat logs): the row only sniffs */
	FMT_TRACE,      /* per-I/O records: events and requests of a run */
	FMT_SAMPLES,    /* samples of a run */
	FMT_COMMANDS,   /* timed commands of a run */
};

/* One I/O as a trace describes it. Times are ns on the trace's clock,
 * FMT_NO_TIME when the trace does not give them; at least one of q, d, c is
 * known. */
struct fmt_io {
	const char *stream;  /* the run it belongs to (a host, a host's disk
			      * with --split); NULL: the input's only run */
	const char *device;  /* the device's name in the trace ("disk 0", a
			      * file name), NULL when it has none */
	uint32_t dev;        /* major << 20 | minor (FMT_DEV() or real) */
	uint64_t sector;     /* 512-byte sectors */
	uint32_t bytes;
	uint32_t cats;       /* BT_C_READ, BT_C_WRITE, BT_C_DISCARD,
			      * BT_C_FLUSH, BT_C_SYNC, BT_C_FUA */
	uint32_t pid;        /* 0 when the trace has none */
	int64_t q_ns;        /* queued (issued by the application or host) */
	int64_t d_ns;        /* issued to the device */
	int64_t c_ns;        /* completed */
};

/* One value of a sample log (iostat): the report it belongs to, and the
 * report's wall-clock time when the log prints one. */
struct fmt_sample {
	uint64_t report;     /* 0-based report number in the log */
	int64_t wall_ns;     /* printed local time read as UTC, ns; or -1 */
	int since_boot;      /* the report averages since boot, not an interval */
	const char *key;     /* "sda:r/s", "cpu:%iowait" (column as printed) */
	double value;
};

/* One timed command of a pasted `time`/`dd` output. Unknown numbers NAN,
 * unknown counts -1. */
struct fmt_command {
	uint64_t line;       /* line of the report's first line */
	const char *argv;    /* the command line when the paste shows it, or NULL */
	double real_s, user_s, sys_s;
	int status;          /* exit status when shown, else 0 */
	int64_t dd_bytes;    /* dd's "N bytes ... copied": bytes */
	double dd_s;         /* dd's own seconds */
	double dd_rate;      /* dd's rate in bytes/s (its unit converted) */
	int64_t dd_in_full, dd_in_partial, dd_out_full, dd_out_partial;
	/* what the command line shown says came between it and the timed
	 * command before it: FMT_NEXT_UNKNOWN (no line shows both),
	 * FMT_NEXT_AFTER (nothing: "time a; time b"), FMT_NEXT_PAUSE (an
	 * untimed command: "time a; sleep 2; time b"), FMT_NEXT_AT_ONCE (the
	 * one before ran in the background: "time a & time b"),
	 * FMT_NEXT_WAIT (after every one before it ended: "time a & time b;
	 * wait; time c") */
	int follows;
	/* when the paste measured them ("start_s=1.017", "end_s=4.095" lines
	 * before the report): its start and end, seconds from the paste's
	 * own zero (one clock for all its commands, not the trace's); NAN
	 * when not given */
	double start_s, end_s;
};

enum { FMT_NEXT_UNKNOWN, FMT_NEXT_AFTER, FMT_NEXT_PAUSE, FMT_NEXT_AT_ONCE,
       FMT_NEXT_WAIT };

/* Where a parser's records go. Each callback returns 0, or a negative code
 * that stops the parse and is returned by it. Callbacks a kind does not use
 * may be NULL. */
struct fmt_sink {
	int (*io)(void *ctx, const struct fmt_io *io);
	int (*sample)(void *ctx, const struct fmt_sample *s);
	int (*command)(void *ctx, const struct fmt_command *c);
	/* a line for the run's notes: what the trace says that is no block
	 * event, and how its fields were mapped */
	int (*note)(void *ctx, const char *text);
	/* one key=value of the run's import statistics (run_stats) */
	int (*stat)(void *ctx, const char *key, const char *value);
	void *ctx;
};

/* Options of a parse; all-zero is the default. */
struct fmt_opts {
	int split;           /* one run per disk, not per host (MSR, SYSTOR) */
	int quiet;           /* no warnings on stderr (--quiet, or a second
			      * pass over the same file) */
};

/* A format's parse: reads fp (named path in messages) to its end and hands
 * records to sink in file order. Returns 0, or a negative code with one
 * line "PATH: line N: what" (or "offset N") in err (errlen bytes); a sink's
 * error is returned as it is, err untouched. */
typedef int (*fmt_parse_fn)(FILE *fp, const char *path,
			    const struct fmt_opts *o, const struct fmt_sink *sink,
			    char *err, size_t errlen);

/* A format's sniff: how sure (0 no .. 100 certain) that buf (the first len
 * bytes of a file, len <= FMT_SNIFF_BYTES) is this format. */
typedef int (*fmt_sniff_fn)(const uint8_t *buf, size_t len);

struct import_format {
	const char *name;    /* stored as the run's format */
	const char *what;    /* one line for --help and the README */
	const char *source;  /* where the layout is documented */
	enum fmt_kind kind;
	fmt_sniff_fn sniff;
	fmt_parse_fn parse;  /* NULL for FMT_NATIVE rows */
};

extern const struct import_format import_formats[];
extern const size_t import_nformats;

/* The row whose sniff is surest about buf (ties: the earlier row), or NULL
 * when none claims it (every sniff 0). */
const struct import_format *import_format_sniff(const uint8_t *buf, size_t len);

/* import_format_sniff() on the first FMT_SNIFF_BYTES of the regular file
 * path; NULL when it is not one, is empty or cannot be read. */
const struct import_format *import_format_sniff_file(const char *path);

/* Whether some reader of `iotape import` takes an input whose first bytes
 * are buf (len bytes: its first FMT_SNIFF_BYTES, or all of a shorter
 * input): a row's sniff on them, or on their first 4 KiB as the native
 * readers (blktrace, blkparse text, vmstat) sniff. 0 means the import
 * would fail with FMT_UNKNOWN, so a stream need not be read further. */
int import_format_known(const uint8_t *buf, size_t len);

/* What an input no reader takes is, after "LABEL: offset 0: ". */
#define FMT_UNKNOWN "neither a blktrace trace (no magic) nor blkparse text, nor another format iotape imports (iotape import --help lists them)"

/* Why no reader takes an input whose first n bytes are head, into err:
 * "LABEL: offset 0: " FMT_UNKNOWN; or, when head reads as text up to a NUL
 * byte at offset K (16 bytes or more of it), "LABEL: offset K: a NUL byte
 * in a text file: no text format has one (a block a crash left zeroed, or
 * binary data)", as the text formats' readers say of one in a line. */
void fmt_unknown(const uint8_t *head, size_t n, const char *label, char *err,
		 size_t errlen);

/* The row named name, or NULL. */
const struct import_format *import_format_find(const char *name);

/* Helpers the parsers share (import/formats.c). */

/* Splits line (modified) at sep into at most max fields, trimming blanks
 * around each; returns the count. */
int fmt_split(char *line, char sep, char **f, int max);

/* Parses a whole unsigned decimal (dec_u64(): digits only; or 0x hex when
 * hex is set and the text starts with 0x) into *v; 0 or -1. */
int fmt_u64(const char *s, int hex, uint64_t *v);

/* Parses a plain decimal number (dec_double(): sign, fraction, exponent;
 * no hex, inf or nan) into *v; 0 or -1. */
int fmt_double(const char *s, double *v);

/* Parses "SEC.FRACTION" (up to 9 fraction digits) exactly into ns; 0, or -1
 * when it is no such number or past 2^63 - 1 ns. */
int fmt_seconds_ns(const char *s, int64_t *ns);

/* Reads the next line of fp into *buf (grown as needed), without its
 * newline (and CR); returns its length, -1 at the end. *cut is set when the
 * last line had no newline. */
long fmt_getline(FILE *fp, char **buf, size_t *cap, int *cut);

/* A line of len bytes (fmt_getline()'s) that holds a NUL byte: no text
 * format has one, and the parsers read a line as a C string, so a number
 * "40<NUL>96" (a block a crash left zeroed, a binary file) was read as 40.
 * Returns 0 when there is none, else -EINVAL with "PATH: line N: a NUL
 * byte (byte B of the line): not a text line" in err. */
int fmt_line_nul(const char *buf, long len, const char *path, uint64_t line,
		 char *err, size_t errlen);

/* A data line that fmt_getline() found cut (the file's last, with no
 * newline: a copy taken while the trace was written, "4096" read as "40"):
 * warns "PATH: line N: the last line is cut short (no newline); left out"
 * unless o->quiet (o may be NULL) and says so in the run's notes through
 * sink->note when it is set. The caller stores nothing of the line.
 * Returns 0 or the note callback's negative code. */
int fmt_cut_line(const char *path, uint64_t line, const struct fmt_opts *o,
		 const struct fmt_sink *sink);

/* The formats' own sniffers and parsers (import/fmt_*.c). */
int fmt_fio_sniff(const uint8_t *buf, size_t len);
int fmt_fio_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		  const struct fmt_sink *sink, char *err, size_t errlen);
int fmt_msr_sniff(const uint8_t *buf, size_t len);
int fmt_msr_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		  const struct fmt_sink *sink, char *err, size_t errlen);
int fmt_systor_sniff(const uint8_t *buf, size_t len);
int fmt_systor_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		     const struct fmt_sink *sink, char *err, size_t errlen);
int fmt_cloudphysics_sniff(const uint8_t *buf, size_t len);
int fmt_cloudphysics_parse(FILE *fp, const char *path, const struct fmt_opts *o,
			   const struct fmt_sink *sink, char *err, size_t errlen);
int fmt_blkreplay_sniff(const uint8_t *buf, size_t len);
int fmt_blkreplay_parse(FILE *fp, const char *path, const struct fmt_opts *o,
			const struct fmt_sink *sink, char *err, size_t errlen);
int fmt_time_sniff(const uint8_t *buf, size_t len);
int fmt_time_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		   const struct fmt_sink *sink, char *err, size_t errlen);
int fmt_iostat_sniff(const uint8_t *buf, size_t len);
int fmt_iostat_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		     const struct fmt_sink *sink, char *err, size_t errlen);

#endif
