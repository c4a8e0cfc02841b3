/* One block-trace record as iotape keeps it (struct bt_event: every field of
 * struct blk_io_trace / blk_io_trace2 in host byte order) and the names of its
 * action codes and category bits. Shared by the decoder (capture/) and the
 * store (schema/), so the store needs nothing from capture/.
 * Source: Linux include/uapi/linux/blktrace_api.h; docs/FORMAT.md. */
#ifndef IOTAPE_TRACE_RECORD_H
#define IOTAPE_TRACE_RECORD_H

#include <stdint.h>

/* Action codes: the low 16 bits of the action field. */
enum bt_act {
	BT_A_QUEUE = 1,        /* Q */
	BT_A_BACKMERGE = 2,    /* M */
	BT_A_FRONTMERGE = 3,   /* F */
	BT_A_GETRQ = 4,        /* G */
	BT_A_SLEEPRQ = 5,      /* S */
	BT_A_REQUEUE = 6,      /* R */
	BT_A_ISSUE = 7,        /* D */
	BT_A_COMPLETE = 8,     /* C */
	BT_A_PLUG = 9,         /* P */
	BT_A_UNPLUG_IO = 10,   /* U */
	BT_A_UNPLUG_TIMER = 11,/* UT */
	BT_A_INSERT = 12,      /* I */
	BT_A_SPLIT = 13,       /* X */
	BT_A_BOUNCE = 14,      /* B */
	BT_A_REMAP = 15,       /* A */
	BT_A_ABORT = 16,
	BT_A_DRV_DATA = 17,
	BT_A_ZONE_PLUG = 18,   /* v8 */
	BT_A_ZONE_UNPLUG = 19, /* v8 */
	BT_A_MAX = 19,
};

/* Set in the action code when the first 8 PDU bytes are a cgroup id. */
#define BT_A_CGROUP 0x100u

/* Notify record kinds (action code of a record with the NOTIFY category). */
enum bt_notify {
	BT_N_PROCESS = 0,    /* pdu: process name, NUL padded */
	BT_N_TIMESTAMP = 1,  /* pdu: u32 sec, u32 nsec of wall clock at start */
	BT_N_MESSAGE = 2,    /* pdu: text, e.g. a scheduler's "cfq..." message */
};

/* Category bits, counted from bit 16 of the action field. */
enum bt_cat {
	BT_C_READ = 1u << 0,
	BT_C_WRITE = 1u << 1,
	BT_C_FLUSH = 1u << 2,
	BT_C_SYNC = 1u << 3,
	BT_C_QUEUE = 1u << 4,
	BT_C_REQUEUE = 1u << 5,
	BT_C_ISSUE = 1u << 6,
	BT_C_COMPLETE = 1u << 7,
	BT_C_FS = 1u << 8,
	BT_C_PC = 1u << 9,
	BT_C_NOTIFY = 1u << 10,
	BT_C_AHEAD = 1u << 11,
	BT_C_META = 1u << 12,
	BT_C_DISCARD = 1u << 13,
	BT_C_DRV_DATA = 1u << 14,
	BT_C_FUA = 1u << 15,
};

/* One decoded record, in host byte order, whatever the version.
 * pdu points into the buffer that was decoded (NULL when pdu_len is 0). */
struct bt_event {
	uint64_t time_ns;   /* trace clock, ns */
	uint64_t sector;    /* 512-byte sectors */
	uint64_t action;    /* bits 0-15 code (+BT_A_CGROUP), bits 16+ categories */
	uint32_t sequence;  /* per-CPU sequence; 0 for notify records */
	uint32_t bytes;     /* request size in bytes */
	uint32_t pid;
	uint32_t dev;       /* major << 20 | minor */
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;   /* bytes of payload that follow the record */
	const uint8_t *pdu;
};

#define BT_MAJOR(dev) ((unsigned)((dev) >> 20))
#define BT_MINOR(dev) ((unsigned)((dev) & ((1u << 20) - 1)))
#define BT_MKDEV(ma, mi) ((uint32_t)(((ma) << 20) | (mi)))

static inline unsigned bt_code(const struct bt_event *ev)
{
	return (unsigned)(ev->action & 0xff);
}
static inline uint64_t bt_cats(const struct bt_event *ev)
{
	return ev->action >> 16;
}
static inline int bt_is_notify(const struct bt_event *ev)
{
	return (bt_cats(ev) & BT_C_NOTIFY) != 0;
}
static inline uint32_t bt_sectors(const struct bt_event *ev)
{
	return ev->bytes >> 9;
}

#endif
