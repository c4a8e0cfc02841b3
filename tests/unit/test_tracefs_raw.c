/* Unit tests of the raw ring-buffer page decoder and the per-CPU merge:
 * pages written by hand in the layout events/header_page and header_event
 * give (short and long events, time extends, absolute times, padding,
 * a cut page) decode into the blktrace records blkparse reads, and the
 * merge hands them on in time order up to its limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "trace/blktrace_format.h"
#include "trace/tracefs_raw.h"

#define PAGE 4096

struct pg {
	uint8_t b[PAGE];
	size_t off;
};

static void pg_init(struct pg *p, uint64_t ts)
{
	memset(p->b, 0xee, sizeof(p->b));
	memcpy(p->b, &ts, 8);
	p->off = 16;
}

static void pg_done(struct pg *p, uint64_t flags)
{
	uint64_t commit = (p->off - 16) | flags;
	memcpy(p->b + 8, &commit, 8);
}

static void put32(struct pg *p, uint32_t v)
{
	memcpy(p->b + p->off, &v, 4);
	p->off += 4;
}

/* A blk entry as the kernel's tracer writes it: trace_entry in the first
 * 8 bytes, 8 bytes not written, then struct blk_io_trace from sector on. */
static void put_blk(struct pg *p, uint32_t delta, uint64_t sector,
		    uint32_t action, uint16_t pdu, int long_form)
{
	uint8_t e[128];
	size_t len = (BT_V7_SIZE + pdu + 3) & ~(size_t)3;
	uint32_t bytes = 4096, pid = 77, dev = 7u << 20 | 5, cpu = 1;
	uint16_t err = 0;

	memset(e, 0xab, sizeof(e));
	memcpy(e + 16, &sector, 8);
	memcpy(e + 24, &bytes, 4);
	memcpy(e + 28, &action, 4);
	memcpy(e + 32, &pid, 4);
	memcpy(e + 36, &dev, 4);
	memcpy(e + 40, &cpu, 4);
	memcpy(e + 44, &err, 2);
	memcpy(e + 46, &pdu, 2);
	for (int i = 0; i < pdu; i++)
		e[48 + i] = (uint8_t)i;
	if (long_form) {
		put32(p, delta << 5);
		put32(p, (uint32_t)len + 4);
	} else {
		put32(p, delta << 5 | (uint32_t)(len / 4));
	}
	memcpy(p->b + p->off, e, len);
	p->off += len;
}

static void decode_all(const uint8_t *buf, size_t len, uint64_t *t,
		       uint64_t *sector, int max, int *n)
{
	struct bt_stream bs;
	struct bt_event ev;
	size_t off = 0, used;

	*n = 0;
	assert_int_equal(bt_stream_detect(&bs, buf, len), 0);
	assert_int_equal(bs.version, 7);
	while (off < len) {
		assert_int_equal(bt_decode(&bs, buf + off, len - off, &ev, &used), 0);
		assert_true(*n < max);
		t[*n] = ev.time_ns;
		sector[*n] = ev.sector;
		assert_int_equal(ev.bytes, 4096);
		assert_int_equal(ev.pid, 77);
		assert_int_equal(ev.dev, 7u << 20 | 5);
		(*n)++;
		off += used;
	}
}

static void test_page(void **state)
{
	struct pg p;
	struct rawcpu c = { 0 };
	struct rawstats st = { 0 };
	uint8_t out[1024];
	size_t len = 0;
	uint64_t t[8], sec[8];
	int n;

	(void)state;
	pg_init(&p, 1000000);
	put_blk(&p, 10, 100, BT_A_QUEUE | 1u << 16, 0, 0);
	put32(&p, 30 | 5u << 5);                 /* time extend: 5 + (2 << 27) */
	put32(&p, 2);
	put_blk(&p, 7, 200, BT_A_ISSUE | 1u << 16, 8, 1);   /* long form, pdu */
	put32(&p, 31 | 3u << 5);                 /* absolute: 3 | 1 << 27 */
	put32(&p, 1);
	put_blk(&p, 0, 300, BT_A_COMPLETE | 1u << 16, 0, 0);
	put32(&p, 29 | 1u << 5);                 /* padding: 16 bytes in all, */
	put32(&p, 12);                           /* its length word counted */
	p.off += 8;
	put_blk(&p, 1, 400, BT_A_COMPLETE | 1u << 16, 0, 0);
	pg_done(&p, 1ull << 31);                  /* missed events flag */
	assert_int_equal(rawpage_decode(&c, p.b, PAGE, &st), 0);
	assert_int_equal(st.records, 4);
	assert_int_equal(st.bad_entries + st.bad_pages, 0);
	assert_int_equal(rawcpu_merge(&c, 1, INT64_MAX, out, sizeof(out), &len), 4);
	decode_all(out, len, t, sec, 8, &n);
	assert_int_equal(n, 4);
	assert_int_equal(t[0], 1000010);
	assert_int_equal(t[1], 1000010 + 5 + (2ull << 27) + 7);
	assert_int_equal(t[2], 3 | 1ull << 27);
	assert_int_equal(t[3], (3 | 1ull << 27) + 1);
	assert_int_equal(sec[1], 200);
	assert_int_equal(sec[3], 400);
	/* the pdu came along (the second record is 56 bytes) */
	assert_int_equal(len, 4 * BT_V7_SIZE + 8);
	assert_int_equal(out[BT_V7_SIZE + BT_V7_SIZE + 7], 7);
	rawcpu_free(&c);
}

static void test_bad(void **state)
{
	struct pg p;
	struct rawcpu c = { 0 };
	struct rawstats st = { 0 };

	(void)state;
	pg_init(&p, 5);
	put_blk(&p, 1, 100, BT_A_QUEUE | 1u << 16, 0, 0);
	put32(&p, 1 << 5 | 3);                   /* 12 bytes: not a blk entry */
	p.off += 12;
	pg_done(&p, 0);
	assert_int_equal(rawpage_decode(&c, p.b, PAGE, &st), 0);
	assert_int_equal(st.records, 1);
	assert_int_equal(st.bad_entries, 1);
	/* a commit longer than the page, and a page cut short */
	pg_done(&p, PAGE);
	assert_int_equal(rawpage_decode(&c, p.b, PAGE, &st), -1);
	assert_int_equal(rawpage_decode(&c, p.b, 10, &st), -1);
	/* an event running past the data */
	pg_init(&p, 5);
	put_blk(&p, 1, 100, BT_A_QUEUE | 1u << 16, 0, 0);
	p.off -= 8;
	pg_done(&p, 0);
	assert_int_equal(rawpage_decode(&c, p.b, PAGE, &st), -1);
	assert_int_equal(st.bad_pages, 3);
	assert_int_equal(st.records, 1);
	rawcpu_free(&c);
}

static void test_merge(void **state)
{
	struct pg p;
	struct rawcpu c[2] = { { 0 } };
	struct rawstats st = { 0 };
	uint8_t out[1024];
	size_t len = 0;
	uint64_t t[16], sec[16];
	int n;

	(void)state;
	pg_init(&p, 100);            /* CPU 0: 110, 130, 150 */
	for (int i = 0; i < 3; i++)
		put_blk(&p, i ? 20 : 10, 10 + (uint64_t)i, BT_A_QUEUE | 1u << 16, 0, 0);
	pg_done(&p, 0);
	rawpage_decode(&c[0], p.b, PAGE, &st);
	pg_init(&p, 100);            /* CPU 1: 120, 140, 160 */
	for (int i = 0; i < 3; i++)
		put_blk(&p, 20, 20 + (uint64_t)i, BT_A_COMPLETE | 1u << 16, 0, 0);
	pg_done(&p, 0);
	rawpage_decode(&c[1], p.b, PAGE, &st);
	/* up to 140: four, in time order; the rest waits */
	assert_int_equal(rawcpu_merge(c, 2, 140, out, sizeof(out), &len), 4);
	decode_all(out, len, t, sec, 16, &n);
	assert_int_equal(n, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(t[i], 110 + 10 * (uint64_t)i);
	/* an output with room for one record takes one at a time */
	len = 0;
	assert_int_equal(rawcpu_merge(c, 2, INT64_MAX, out, BT_V7_SIZE + 4, &len), 1);
	decode_all(out, len, t, sec, 16, &n);
	assert_int_equal(t[0], 150);
	assert_int_equal(sec[0], 12);
	len = 0;
	assert_int_equal(rawcpu_merge(c, 2, INT64_MAX, out, sizeof(out), &len), 1);
	decode_all(out, len, t, sec, 16, &n);
	assert_int_equal(t[0], 160);
	assert_int_equal(c[0].len + c[1].len, 0);
	rawcpu_free(&c[0]);
	rawcpu_free(&c[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
