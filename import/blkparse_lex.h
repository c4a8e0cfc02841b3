/* The fields of blkparse(1)'s default per-event text line (blkparse 1.2,
 * blkparse_fmt.c process_default()), for the text importer
 * (blkparse_text.c). Pure functions: strings in, values out; the read_*
 * ones return where the field ended, or NULL when it is not there. */
#ifndef IOTAPE_BLKPARSE_LEX_H
#define IOTAPE_BLKPARSE_LEX_H

#include <stddef.h>
#include <stdint.h>

#include "trace/blktrace_format.h"

/* A parsed line header: "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s " (blkparse
 * 1.2 blkparse_fmt.c process_default(); messages print the sequence as "0"
 * and pid 0, blkparse.c handle_notify()). */
struct line_hdr {
	uint32_t maj, min, cpu, seq, pid;
	uint64_t time_ns;
	char act[3];
	char rwbs[8];
	const char *body; /* after the one space that follows RWBS, or "" */
};

/* 1 for a space or tab; for a decimal digit. */
int bpl_is_blank(int c);
int bpl_is_digit(int c);

/* p past any spaces and tabs. */
const char *bpl_skip_blanks(const char *p);

/* A decimal number of at most max at p into *out. */
const char *bpl_read_u64(const char *p, uint64_t max, uint64_t *out);

/* A decimal number that fits 32 bits at p into *out. */
const char *bpl_read_u32(const char *p, uint32_t *out);

/* A blank-separated token of 1..cap-1 characters, all in set (NULL: any
 * character), into out. */
const char *bpl_read_token(const char *p, char *out, size_t cap,
			   const char *set);

/* Parses the header of a per-event line (NUL-terminated s). Returns 0 and
 * fills *h, or -1 when s is not a per-event line. */
int bpl_parse_header(const char *s, struct line_hdr *h);

/* 1 when s starts like a per-event line (device, CPU, sequence, time), so
 * that a malformed one is an error, not a line of something else. */
int bpl_looks_like_event(const char *s);

/* 1 for the lines blkparse prints before events ("Input file ... added"). */
int bpl_is_preamble(const char *s);

/* 1 when s opens blkparse's closing summary ("CPU0 (8,16):", "Total"). */
int bpl_is_summary_start(const char *s);

/* The category bits (BT_C_*) of an RWBS string as blkparse's fill_rwbs()
 * writes it; returns 0, or -1 for a letter it never writes. */
int bpl_rwbs_cats(const char *s, uint64_t *cats);

/* "SECTOR + NSECTORS" at p into ev->sector and ev->bytes (512-byte
 * sectors). */
const char *bpl_read_extent(const char *p, struct bt_event *ev);

/* A "[name]" at p: its length, *name pointing into p and *tail past the
 * bracket; -1 when there is none. */
long bpl_read_name(const char *p, const char **name, const char **tail);

/* The value of a hex digit, or -1. */
int bpl_hexval(int c);

/* Big-endian stores, as the kernel writes blktrace payloads. */
void bpl_put_be64(uint8_t *p, uint64_t v);
void bpl_put_be32(uint8_t *p, uint32_t v);

/* A completion's "[ERR]" (name of len characters) into ev->error; returns
 * 0, or -1 when it is not a number. */
int bpl_read_error(const char *name, long len, struct bt_event *ev);

#endif
