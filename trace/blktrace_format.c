/* The blktrace binary format: decode and encode struct blk_io_trace (v7) and
 * struct blk_io_trace2 (v8) records in either byte order. Pure functions over
 * byte buffers; see blktrace_format.h and docs/FORMAT.md. */
#include "blktrace_format.h"

#include <string.h>

static uint16_t rd16(const uint8_t *p, int be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t rd32(const uint8_t *p, int be)
{
	if (be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		       (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

static uint64_t rd64(const uint8_t *p, int be)
{
	uint64_t hi = rd32(p + (be ? 0 : 4), be), lo = rd32(p + (be ? 4 : 0), be);
	return hi << 32 | lo;
}

static void wr16(uint8_t *p, uint16_t v, int be)
{
	p[be ? 0 : 1] = (uint8_t)(v >> 8);
	p[be ? 1 : 0] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v, int be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

static void wr64(uint8_t *p, uint64_t v, int be)
{
	wr32(p + (be ? 0 : 4), (uint32_t)(v >> 32), be);
	wr32(p + (be ? 4 : 0), (uint32_t)v, be);
}

static int host_is_be(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 0;
}

/* Reads the magic at p in both orders; returns the version byte and sets
 * *be, or -1 when neither order shows the magic. */
static int magic_version(const uint8_t *p, int *be)
{
	uint32_t b = rd32(p, 1), l = rd32(p, 0);

	if ((l & BT_MAGIC_MASK) == BT_MAGIC) {
		*be = 0;
		return (int)(l & 0xff);
	}
	if ((b & BT_MAGIC_MASK) == BT_MAGIC) {
		*be = 1;
		return (int)(b & 0xff);
	}
	return -1;
}

int bt_stream_detect(struct bt_stream *s, const uint8_t *buf, size_t len)
{
	int be, v;

	if (len < 4)
		return -BT_E_SHORT;
	v = magic_version(buf, &be);
	if (v < 0)
		return -BT_E_MAGIC;
	if (v != 7 && v != 8)
		return -BT_E_VERSION;
	s->version = v;
	s->swap = be != host_is_be();
	s->rec_size = v == 7 ? BT_V7_SIZE : BT_V8_SIZE;
	return 0;
}

int bt_decode(const struct bt_stream *s, const uint8_t *buf, size_t len,
	      struct bt_event *ev, size_t *used)
{
	int be = s->swap ? !host_is_be() : host_is_be();
	int rbe, v;

	if (len < 4)
		return -BT_E_SHORT;
	v = magic_version(buf, &rbe);
	if (v < 0)
		return -BT_E_MAGIC;
	if (v != s->version || rbe != be)
		return -BT_E_MIXED;
	if (len < s->rec_size)
		return -BT_E_SHORT;

	ev->sequence = rd32(buf + 4, be);
	ev->time_ns = rd64(buf + 8, be);
	ev->sector = rd64(buf + 16, be);
	ev->bytes = rd32(buf + 24, be);
	if (v == 7) {
		ev->action = rd32(buf + 28, be);
		ev->pid = rd32(buf + 32, be);
		ev->dev = rd32(buf + 36, be);
		ev->cpu = rd32(buf + 40, be);
		ev->error = rd16(buf + 44, be);
		ev->pdu_len = rd16(buf + 46, be);
	} else {
		ev->pid = rd32(buf + 28, be);
		ev->action = rd64(buf + 32, be);
		ev->dev = rd32(buf + 40, be);
		ev->cpu = rd32(buf + 44, be);
		ev->error = rd16(buf + 48, be);
		ev->pdu_len = rd16(buf + 50, be);
	}
	if (ev->pdu_len > BT_PDU_PLAUSIBLE) {
		/* no kernel writes such a payload: the length is bad unless
		 * the stream's next record starts right after it */
		size_t end = s->rec_size + ev->pdu_len;
		if (len < end || (len - end >= 4 &&
				  (magic_version(buf + end, &rbe) != v || rbe != be)))
			return -BT_E_PDU_LEN;
	}
	if (len - s->rec_size < ev->pdu_len)
		return -BT_E_SHORT;
	ev->pdu = ev->pdu_len ? buf + s->rec_size : NULL;
	*used = s->rec_size + ev->pdu_len;
	return 0;
}

long bt_encode(const struct bt_event *ev, int version, int big_endian,
	       uint8_t *buf, size_t cap)
{
	size_t rs = version == 7 ? BT_V7_SIZE : BT_V8_SIZE;
	int be = big_endian;

	if (version != 7 && version != 8)
		return -BT_E_VERSION;
	if (cap < rs + ev->pdu_len)
		return -BT_E_SHORT;
	memset(buf, 0, rs);
	wr32(buf, BT_MAGIC | (uint32_t)version, be);
	wr32(buf + 4, ev->sequence, be);
	wr64(buf + 8, ev->time_ns, be);
	wr64(buf + 16, ev->sector, be);
	wr32(buf + 24, ev->bytes, be);
	if (version == 7) {
		wr32(buf + 28, (uint32_t)ev->action, be);
		wr32(buf + 32, ev->pid, be);
		wr32(buf + 36, ev->dev, be);
		wr32(buf + 40, ev->cpu, be);
		wr16(buf + 44, ev->error, be);
		wr16(buf + 46, ev->pdu_len, be);
	} else {
		wr32(buf + 28, ev->pid, be);
		wr64(buf + 32, ev->action, be);
		wr32(buf + 40, ev->dev, be);
		wr32(buf + 44, ev->cpu, be);
		wr16(buf + 48, ev->error, be);
		wr16(buf + 50, ev->pdu_len, be);
	}
	if (ev->pdu_len)
		memcpy(buf + rs, ev->pdu, ev->pdu_len);
	return (long)(rs + ev->pdu_len);
}

const char *bt_strerror(int err)
{
	switch (-err) {
	case BT_OK: return "no error";
	case BT_E_SHORT: return "record cut short";
	case BT_E_MAGIC: return "bad magic (not a blktrace record)";
	case BT_E_VERSION: return "unsupported blktrace version (want 7 or 8)";
	case BT_E_MIXED: return "record version or byte order differs from the stream's";
	case BT_E_PDU_LEN: return "pdu_len runs past the end or to bytes that are no record";
	}
	return "unknown error";
}

const char *bt_action_name(const struct bt_event *ev)
{
	static const char *const names[] = {
		[BT_A_QUEUE] = "Q", [BT_A_BACKMERGE] = "M",
		[BT_A_FRONTMERGE] = "F", [BT_A_GETRQ] = "G",
		[BT_A_SLEEPRQ] = "S", [BT_A_REQUEUE] = "R",
		[BT_A_ISSUE] = "D", [BT_A_COMPLETE] = "C",
		[BT_A_PLUG] = "P", [BT_A_UNPLUG_IO] = "U",
		[BT_A_UNPLUG_TIMER] = "UT", [BT_A_INSERT] = "I",
		[BT_A_SPLIT] = "X", [BT_A_BOUNCE] = "B",
		[BT_A_REMAP] = "A", [BT_A_ABORT] = "K",
		[BT_A_DRV_DATA] = "V", [BT_A_ZONE_PLUG] = "ZP",
		[BT_A_ZONE_UNPLUG] = "ZU",
	};
	unsigned c = bt_code(ev);

	if (bt_is_notify(ev))
		return c == BT_N_MESSAGE ? "m" : "N";
	if (c >= 1 && c <= BT_A_MAX && names[c])
		return names[c];
	return "?";
}

void bt_rwbs(const struct bt_event *ev, char *out)
{
	uint64_t c = bt_cats(ev);
	int i = 0;

	if (c & BT_C_FLUSH)
		out[i++] = 'F';
	if (c & BT_C_DISCARD)
		out[i++] = 'D';
	else if (c & BT_C_WRITE)
		out[i++] = 'W';
	else if (ev->bytes)
		out[i++] = 'R';
	else
		out[i++] = 'N';
	if (c & BT_C_FUA)
		out[i++] = 'F';
	if (c & BT_C_AHEAD)
		out[i++] = 'A';
	if (c & BT_C_SYNC)
		out[i++] = 'S';
	if (c & BT_C_META)
		out[i++] = 'M';
	out[i] = '\0';
}

const uint8_t *bt_pdu_body(const struct bt_event *ev, uint16_t *len)
{
	if (!ev->pdu) {
		*len = 0;
		return NULL;
	}
	if (!(ev->action & BT_A_CGROUP)) {
		*len = ev->pdu_len;
		return ev->pdu;
	}
	*len = ev->pdu_len >= 8 ? (uint16_t)(ev->pdu_len - 8) : 0;
	return ev->pdu_len >= 8 ? ev->pdu + 8 : ev->pdu;
}

int bt_pdu_timestamp(const struct bt_event *ev, int64_t *wall_ns)
{
	uint16_t len;
	const uint8_t *p = bt_pdu_body(ev, &len);

	if (len < 8 || !p)
		return -BT_E_SHORT;
	for (int be = 0; be < 2; be++) {
		uint32_t sec = rd32(p, be), nsec = rd32(p + 4, be);
		if (nsec < 1000000000u && sec >= 946684800u && sec < 0x80000000u) {
			*wall_ns = (int64_t)sec * 1000000000 + nsec;
			return 0;
		}
	}
	return -BT_E_MAGIC;
}

int bt_pdu_remap(const struct bt_event *ev, struct bt_remap *r)
{
	uint16_t len;
	const uint8_t *p = bt_pdu_body(ev, &len);

	if (len < 16 || !p)
		return -BT_E_SHORT;
	r->dev_from = rd32(p, 1);
	r->dev_to = rd32(p + 4, 1);
	r->sector_from = rd64(p + 8, 1);
	return 0;
}

int bt_pdu_u64(const struct bt_event *ev, uint64_t *out)
{
	uint16_t len;
	const uint8_t *p = bt_pdu_body(ev, &len);

	if (len < 8 || !p)
		return -BT_E_SHORT;
	*out = rd64(p, 1);
	return 0;
}
