/* Reading trace inputs: a blktrace single stream, a per-CPU set merged by
 * time, or blkparse text, all delivered as bt_event records in time order to
 * one sink. The sink decides what to do with them (store, count, print). */
#ifndef IOTAPE_TRACE_INPUT_H
#define IOTAPE_TRACE_INPUT_H

#include <stdint.h>
#include <stdio.h>

#include "blktrace_format.h"

/* Where records go. Each callback returns 0 to go on or a negative -errno
 * (or other negative code) to stop the read, which is then returned. */
struct event_sink {
	/* One record; ev and its pdu are valid only during the call. */
	int (*event)(void *ctx, const struct bt_event *ev);
	/* A process name learnt from the input (notify record, text line). */
	int (*process)(void *ctx, uint32_t pid, const char *comm);
	void *ctx;
};

/* What a read saw, for the run's notes and the user's warnings. */
struct input_stats {
	uint64_t records;        /* records delivered to the sink */
	uint64_t notify;         /* of which notify records */
	uint64_t skipped;        /* records not delivered (unknown action...) */
	uint64_t unknown_action; /* of which with an action code we do not know */
	uint64_t unknown_off;    /* the first such record's offset in its file
				  * (binary input; its line for text) */
	uint64_t far_sector;     /* records kept with a sector past any device's
				  * end (2^55 sectors: 2^64 bytes) */
	uint64_t far_off;        /* the first such record's offset (its line for
				  * text) */
	uint64_t truncated_bytes;/* bytes of a cut-short record at a file's end */
	uint64_t cpu_mismatch;   /* per-CPU set: records naming another CPU than
				  * their file's */
	uint64_t clock_steps;    /* times the clock went back by over 1 s */
	uint64_t lost_events;    /* events tracefs said it lost ("[LOST N EVENTS]") */
	uint64_t lost_markers;   /* such markers skipped in the stream */
	int version;             /* blktrace version seen (7 or 8), 0 for text */
	int big_endian;          /* byte order of the trace */
	int ncpu_files;          /* per-CPU files read */
	char missing_cpus[256];  /* "1-28" style list of absent members, or "" */
	char format[32];         /* "blktrace-v7", "blktrace-v8", "blkparse-text" */
	char sha256[65];         /* SHA-256 (FIPS 180-4, nettle) of the bytes
				  * read, hex; a per-CPU set's members one
				  * after another in CPU order */
};

/* Kinds of input that trace_input_read() recognises. */
enum input_kind {
	INPUT_BINARY_STREAM = 1, /* one file holding records of any CPUs */
	INPUT_PERCPU_SET = 2,    /* NAME.blktrace.N files found by glob */
	INPUT_BLKPARSE_TEXT = 3, /* blkparse's default text output */
};

/* Options of a read. */
struct input_opts {
	int strict; /* 1: a cut-short record at a file's end is an error */
	const char *label; /* a single file's name in messages (NULL: its
			    * path), for inputs read from a spool file */
};

/* Reads INPUT (path as the user gave it: a file, a per-CPU set's base name
 * NAME for NAME.blktrace.*, or any member's path) and delivers its records to
 * sink in time order (a per-CPU set is merged by time as blkparse does: by
 * time, then device, then sequence). Sets *st. On error returns a negative
 * code and writes a one-line message naming the file and byte offset (or
 * line) into err (errlen bytes); records already delivered stay delivered, so
 * callers run it inside a transaction. Warnings (cut-short tail, CPU
 * mismatch, missing CPUs) go to warn (may be NULL) as one line each. */
int trace_input_read(const char *input, const struct input_opts *opts,
		     const struct event_sink *sink, struct input_stats *st,
		     FILE *warn, char *err, size_t errlen);

/* Reads blkparse's default text output from fp (named path in messages) and
 * delivers records to sink in file order: one bt_event per per-event line
 * (time relative to the trace start as blkparse printed it, categories from
 * RWBS, remap payload rebuilt big-endian, messages as notify records) and one
 * process() call per new pid→name. Skips the closing summary. Returns 0 or a
 * negative code with a message naming path and line in err. Source of the
 * line format: blkparse(1), blkparse_fmt.c process_default(). */
int blkparse_text_read(FILE *fp, const char *path,
		       const struct event_sink *sink, struct input_stats *st,
		       FILE *warn, char *err, size_t errlen);

/* Returns 1 when the first bytes of a file (buf, len) look like blkparse text
 * output (a per-event line "maj,min cpu seq sec.nsec pid act rwbs ..."). */
int blkparse_text_sniff(const uint8_t *buf, size_t len);

#endif
