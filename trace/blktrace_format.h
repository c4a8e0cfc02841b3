/* The blktrace binary format: a pure decoder and encoder over byte buffers.
 * Format source: Linux include/uapi/linux/blktrace_api.h (struct blk_io_trace,
 * version 7, and struct blk_io_trace2, version 8) and blkparse(1); written down
 * in docs/FORMAT.md. No I/O, no globals, no printing. */
#ifndef IOTAPE_BLKTRACE_FORMAT_H
#define IOTAPE_BLKTRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "schema/trace_record.h"

#define BT_MAGIC 0x65617400u      /* "eat" + version byte */
#define BT_MAGIC_MASK 0xffffff00u
#define BT_V7_SIZE 48             /* sizeof(struct blk_io_trace) */
#define BT_V8_SIZE 64             /* sizeof(struct blk_io_trace2) */
/* The largest payload a kernel writes: process names (16), remaps (16),
 * messages (BLK_TN_MAX_MSG 128 + cgroup id 8), PC command blocks. A larger
 * pdu_len that runs past the end of a file, or to bytes that are no record,
 * is corruption, not a cut (-BT_E_PDU_LEN). */
#define BT_PDU_PLAUSIBLE 256

/* Errors: returned negated. */
enum bt_err {
	BT_OK = 0,
	BT_E_SHORT = 1,    /* buffer ends inside the record or its payload */
	BT_E_MAGIC = 2,    /* no blktrace magic at this offset */
	BT_E_VERSION = 3,  /* magic right but version not 7 or 8 */
	BT_E_MIXED = 4,    /* version or byte order differs from the stream's */
	BT_E_PDU_LEN = 5,  /* pdu_len over BT_PDU_PLAUSIBLE runs past the buffer
			    * or to bytes without the stream's magic */
};

/* Byte order and version of a stream, decided once from its first record. */
struct bt_stream {
	int version;     /* 7 or 8 */
	int swap;        /* 1 when the trace's byte order differs from the host's */
	size_t rec_size; /* BT_V7_SIZE or BT_V8_SIZE */
};

/* Decides byte order and version from the first 4 bytes of buf (len bytes).
 * Returns 0, -BT_E_SHORT (len < 4), -BT_E_MAGIC or -BT_E_VERSION. */
int bt_stream_detect(struct bt_stream *s, const uint8_t *buf, size_t len);

/* Decodes one record at buf (len bytes available) with the stream's layout.
 * On success fills *ev (ev->pdu points into buf) and sets *used to the bytes
 * consumed (record + payload). Returns 0, -BT_E_SHORT when buf holds less than
 * a whole record and payload, -BT_E_PDU_LEN when pdu_len is over
 * BT_PDU_PLAUSIBLE and the payload runs past len or is followed by 4 bytes
 * that are not the stream's magic (so the record with the bad length is
 * named, not the garbage after it), -BT_E_MAGIC, or -BT_E_MIXED when the
 * record's magic names another version or byte order than the stream's.
 * With -BT_E_SHORT (the fixed part whole) and -BT_E_PDU_LEN, *ev holds the
 * fixed part's fields. */
int bt_decode(const struct bt_stream *s, const uint8_t *buf, size_t len,
	      struct bt_event *ev, size_t *used);

/* Encodes ev as a version 7 or 8 record in big- (big_endian=1) or little-
 * endian order, payload ev->pdu[0..pdu_len) appended. Returns the bytes
 * written, or -BT_E_SHORT when cap is too small, -BT_E_VERSION for another
 * version. Used by tests (round trips) and fixture makers. */
long bt_encode(const struct bt_event *ev, int version, int big_endian,
	       uint8_t *buf, size_t cap);

/* A one-line description of a negated bt_err code. */
const char *bt_strerror(int err);

/* blkparse's action name for ev: "Q", "UT", "m" (message) ... or "?" for a
 * code it does not know. Source: blkparse.c (dump_trace / process names). */
const char *bt_action_name(const struct bt_event *ev);

/* blkparse 1.2's RWBS string for ev into out (at least 8 bytes): F (flush),
 * then D (discard) or W or R, or N when no data, then F (FUA), A, S, M.
 * Source: blkparse_fmt.c fill_rwbs(). */
void bt_rwbs(const struct bt_event *ev, char *out);

/* Big-endian payload fields (always big-endian, whatever the record order). */
struct bt_remap {
	uint32_t dev_from;   /* the device the I/O came from (major<<20|minor) */
	uint32_t dev_to;
	uint64_t sector_from;
};
/* The record's own payload: after the 8-byte cgroup id when the action
 * carries BT_A_CGROUP (kernel 4.14+, tracefs option blk_cgroup; Linux
 * kernel/trace/blktrace.c __blk_add_trace), else the whole payload. Sets
 * *len to its length (0 when the id is cut short). */
const uint8_t *bt_pdu_body(const struct bt_event *ev, uint16_t *len);

/* Reads a start-time notify (BT_N_TIMESTAMP) payload: the wall clock (UTC,
 * ns since the epoch) when the trace started, the record's time_ns being
 * the trace clock then (Linux kernel/trace/blktrace.c trace_note_time: u32
 * seconds, u32 nanoseconds in the tracing machine's byte order; the order
 * whose nanoseconds are under 10^9 and seconds a date from 2000 to 2038
 * wins). Returns 0, -BT_E_SHORT (pdu under 8 bytes) or -BT_E_MAGIC (no
 * plausible time in either order). */
int bt_pdu_timestamp(const struct bt_event *ev, int64_t *wall_ns);

/* Reads a remap (A) payload; returns 0 or -BT_E_SHORT when pdu_len < 16. */
int bt_pdu_remap(const struct bt_event *ev, struct bt_remap *r);
/* Reads the big-endian u64 of an unplug (depth) or split (sector) payload;
 * returns 0 or -BT_E_SHORT when pdu_len < 8. */
int bt_pdu_u64(const struct bt_event *ev, uint64_t *out);

#endif
