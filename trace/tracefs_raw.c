/* Raw tracefs ring-buffer pages to blktrace records, and the per-CPU merge
 * (see tracefs_raw.h). */
#include <stdlib.h>
#include <string.h>

#include "trace/blktrace_format.h"
#include "trace/tracefs_raw.h"
#include "lib/util.h"

#define PAGE_HDR 16               /* u64 timestamp, local_t commit */
#define COMMIT_LEN_MASK ((1ull << 30) - 1)   /* bits 30, 31: missed events */
#define TYPE_PADDING 29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP 31
#define ENT_SECTOR 16             /* struct blk_io_trace's sector in an entry */
#define ENT_PDU_LEN 46

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint8_t *room(struct rawcpu *c, size_t need)
{
	if (c->len + need > c->cap) {
		if (c->off) {                  /* drop what was handed on */
			memmove(c->buf, c->buf + c->off, c->len - c->off);
			c->len -= c->off;
			c->off = 0;
		}
		if (c->len + need > c->cap) {
			c->cap = c->cap ? 2 * c->cap : 1 << 16;
			while (c->len + need > c->cap)
				c->cap *= 2;
			c->buf = xrealloc(c->buf, c->cap);
		}
	}
	return c->buf + c->len;
}

/* One data entry of len bytes at time ts: a blk record, or counted bad. */
static void entry(struct rawcpu *c, const uint8_t *e, size_t len, uint64_t ts,
		  struct rawstats *st)
{
	uint16_t pdu;
	size_t rec;
	uint8_t *o;
	uint32_t magic = BT_MAGIC | 7;

	if (len < BT_V7_SIZE) {
		st->bad_entries++;
		return;
	}
	memcpy(&pdu, e + ENT_PDU_LEN, sizeof(pdu));
	rec = BT_V7_SIZE + pdu;
	if (rec > len || len - rec >= 8) {     /* entries are 4-byte aligned */
		st->bad_entries++;
		return;
	}
	o = room(c, rec);
	memcpy(o, &magic, 4);
	memset(o + 4, 0, 4);                   /* sequence: none in tracefs */
	memcpy(o + 8, &ts, 8);
	memcpy(o + ENT_SECTOR, e + ENT_SECTOR, rec - ENT_SECTOR);
	c->len += rec;
	if ((int64_t)ts > c->newest_ns)
		c->newest_ns = (int64_t)ts;
	st->records++;
}

int rawpage_decode(struct rawcpu *c, const uint8_t *page, size_t page_len,
		   struct rawstats *st)
{
	uint64_t ts, data;
	size_t off = PAGE_HDR, end;

	if (page_len < PAGE_HDR) {
		st->bad_pages++;
		return -1;
	}
	ts = rd64(page);
	data = rd64(page + 8) & COMMIT_LEN_MASK;
	if (data > page_len - PAGE_HDR) {
		st->bad_pages++;
		return -1;
	}
	end = PAGE_HDR + (size_t)data;
	while (off + 4 <= end) {
		uint32_t h = rd32(page + off), type = h & 31, delta = h >> 5;
		size_t len;

		if (type == TYPE_PADDING) {
			if (!delta || off + 8 > end)
				break;              /* the rest of the page is padding */
			off += 4 + rd32(page + off + 4);
			continue;
		}
		if (off + 8 > end && (type == 0 || type >= TYPE_TIME_EXTEND))
			goto bad;
		if (type == TYPE_TIME_EXTEND) {
			ts += delta + ((uint64_t)rd32(page + off + 4) << 27);
			off += 8;
			continue;
		}
		if (type == TYPE_TIME_STAMP) {
			ts = delta | ((uint64_t)rd32(page + off + 4) << 27);
			off += 8;
			continue;
		}
		ts += delta;
		if (type == 0) {
			len = rd32(page + off + 4);
			if (len < 4)
				goto bad;
			len -= 4;                   /* it counts its own word */
			off += 8;
		} else {
			len = 4 * (size_t)type;
			off += 4;
		}
		if (len > end - off)
			goto bad;
		entry(c, page + off, len, ts, st);
		off += len;
	}
	return 0;
bad:
	st->bad_pages++;
	return -1;
}

static int64_t rec_time(const struct rawcpu *c)
{
	return (int64_t)rd64(c->buf + c->off + 8);
}

static size_t rec_len(const struct rawcpu *c)
{
	uint16_t pdu;
	memcpy(&pdu, c->buf + c->off + ENT_PDU_LEN, sizeof(pdu));
	return BT_V7_SIZE + pdu;
}

uint64_t rawcpu_merge(struct rawcpu *cpus, int n, int64_t upto_ns,
		      uint8_t *out, size_t out_cap, size_t *out_len)
{
	uint64_t moved = 0;

	for (;;) {
		int best = -1;
		int64_t bt = 0;
		size_t l;

		for (int i = 0; i < n; i++) {
			int64_t t;
			if (cpus[i].off >= cpus[i].len)
				continue;
			t = rec_time(&cpus[i]);
			if (t <= upto_ns && (best < 0 || t < bt)) {
				best = i;
				bt = t;
			}
		}
		if (best < 0)
			break;
		l = rec_len(&cpus[best]);
		if (*out_len + l > out_cap)
			break;
		memcpy(out + *out_len, cpus[best].buf + cpus[best].off, l);
		*out_len += l;
		cpus[best].off += l;
		moved++;
	}
	for (int i = 0; i < n; i++)
		if (cpus[i].off == cpus[i].len)
			cpus[i].off = cpus[i].len = 0;
	return moved;
}

void rawcpu_reserve(struct rawcpu *c, size_t bytes)
{
	if (c->cap < bytes) {
		c->buf = xrealloc(c->buf, bytes);
		c->cap = bytes;
	}
}

void rawcpu_free(struct rawcpu *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}
