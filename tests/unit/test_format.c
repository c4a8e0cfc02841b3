/* Unit tests of the blktrace decoder: round trips through the encoder in
 * both versions and byte orders (buffers prefilled with 0xff, compared field
 * by field, as perf's sample-parsing test does), and every decode error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "trace/blktrace_format.h"

static struct bt_event sample_event(void)
{
	static const uint8_t pdu[16] = { 0x00, 0x80, 0x00, 0x02, 0x00, 0x80,
					 0x00, 0x00, 0, 0, 0, 0, 0x01, 0x02,
					 0x03, 0x04 };
	struct bt_event ev = {
		.time_ns = 0x0102030405060708ull,
		.sector = 0x1112131415161718ull,
		.action = BT_A_REMAP | ((uint64_t)(BT_C_WRITE | BT_C_SYNC) << 16),
		.sequence = 0xa1a2a3a4u,
		.bytes = 4096,
		.pid = 4242,
		.dev = BT_MKDEV(8, 2),
		.cpu = 29,
		.error = 5,
		.pdu_len = sizeof(pdu),
		.pdu = pdu,
	};
	return ev;
}

static void assert_same(const struct bt_event *a, const struct bt_event *b)
{
	assert_int_equal(a->time_ns, b->time_ns);
	assert_int_equal(a->sector, b->sector);
	assert_int_equal(a->action, b->action);
	assert_int_equal(a->sequence, b->sequence);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->dev, b->dev);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->error, b->error);
	assert_int_equal(a->pdu_len, b->pdu_len);
	assert_memory_equal(a->pdu, b->pdu, a->pdu_len);
}

static void round_trip(int version, int be)
{
	struct bt_event ev = sample_event(), out;
	struct bt_stream bs;
	uint8_t buf[256];
	size_t used;
	long n;

	if (version == 8)
		ev.action |= (uint64_t)1 << 40;   /* a v8-only category bit */
	memset(buf, 0xff, sizeof(buf));
	n = bt_encode(&ev, version, be, buf, sizeof(buf));
	assert_int_equal(n, (version == 7 ? BT_V7_SIZE : BT_V8_SIZE) + 16);
	assert_int_equal(bt_stream_detect(&bs, buf, (size_t)n), 0);
	assert_int_equal(bs.version, version);
	assert_int_equal(bt_decode(&bs, buf, (size_t)n, &out, &used), 0);
	assert_int_equal(used, (size_t)n);
	assert_same(&ev, &out);
}

static void test_v7_le(void **state) { (void)state; round_trip(7, 0); }
static void test_v7_be(void **state) { (void)state; round_trip(7, 1); }
static void test_v8_le(void **state) { (void)state; round_trip(8, 0); }
static void test_v8_be(void **state) { (void)state; round_trip(8, 1); }

/* The v7 layout from blktrace_api.h: action at byte 28, pid at 32. */
static void test_v7_layout(void **state)
{
	struct bt_event ev = sample_event();
	uint8_t buf[128];

	(void)state;
	ev.pdu_len = 0;
	ev.pdu = NULL;
	assert_int_equal(bt_encode(&ev, 7, 0, buf, sizeof(buf)), BT_V7_SIZE);
	assert_int_equal(buf[0], 0x07);
	assert_int_equal(buf[3], 0x65);
	assert_int_equal(buf[28], BT_A_REMAP);
	assert_int_equal(buf[32], 4242 & 0xff);
	/* v8: pid at 28, 64-bit action at 32 */
	assert_int_equal(bt_encode(&ev, 8, 0, buf, sizeof(buf)), BT_V8_SIZE);
	assert_int_equal(buf[28], 4242 & 0xff);
	assert_int_equal(buf[32], BT_A_REMAP);
}

static void test_errors(void **state)
{
	struct bt_event ev = sample_event(), out;
	struct bt_stream bs;
	uint8_t buf[256] = { 0 };
	size_t used;
	long n;

	(void)state;
	assert_int_equal(bt_stream_detect(&bs, buf, 3), -BT_E_SHORT);
	memcpy(buf, "hello world", 11);
	assert_int_equal(bt_stream_detect(&bs, buf, 11), -BT_E_MAGIC);

	n = bt_encode(&ev, 7, 0, buf, sizeof(buf));
	assert_int_equal(bt_stream_detect(&bs, buf, (size_t)n), 0);
	/* cut inside the header, then inside the payload */
	assert_int_equal(bt_decode(&bs, buf, 20, &out, &used), -BT_E_SHORT);
	assert_int_equal(bt_decode(&bs, buf, BT_V7_SIZE + 3, &out, &used),
			 -BT_E_SHORT);
	/* a version 6 magic */
	buf[0] = 0x06;
	assert_int_equal(bt_stream_detect(&bs, buf, (size_t)n), -BT_E_VERSION);
	/* a record of the other byte order in a little-endian stream */
	buf[0] = 0x07;
	assert_int_equal(bt_stream_detect(&bs, buf, (size_t)n), 0);
	n = bt_encode(&ev, 7, 1, buf, sizeof(buf));
	assert_int_equal(bt_decode(&bs, buf, (size_t)n, &out, &used), -BT_E_MIXED);
	assert_int_equal(bt_encode(&ev, 9, 0, buf, sizeof(buf)), -BT_E_VERSION);
	assert_int_equal(bt_encode(&ev, 7, 0, buf, 50), -BT_E_SHORT);
	assert_non_null(strstr(bt_strerror(-BT_E_MAGIC), "magic"));
}

/* A pdu_len no kernel writes (over BT_PDU_PLAUSIBLE) is the record's own
 * error when it runs past the buffer or to bytes that are no record, so
 * the record is named, not the garbage after it; followed by a record, it
 * is read. */
static void test_pdu_len(void **state)
{
	struct bt_event ev = sample_event(), out;
	struct bt_stream bs;
	uint8_t pdu[300], buf[1024];
	size_t used;
	long n, m;

	(void)state;
	memset(pdu, 'x', sizeof(pdu));
	memset(buf, 0xff, sizeof(buf));
	ev.pdu = pdu;
	ev.pdu_len = sizeof(pdu);
	n = bt_encode(&ev, 7, 0, buf, sizeof(buf));
	assert_int_equal(bt_stream_detect(&bs, buf, (size_t)n), 0);
	/* at the buffer's end: read; cut: past the end */
	assert_int_equal(bt_decode(&bs, buf, (size_t)n, &out, &used), 0);
	assert_int_equal(bt_decode(&bs, buf, (size_t)n - 1, &out, &used),
			 -BT_E_PDU_LEN);
	assert_int_equal(out.pdu_len, sizeof(pdu));
	/* followed by 0xff bytes: to garbage */
	assert_int_equal(bt_decode(&bs, buf, sizeof(buf), &out, &used),
			 -BT_E_PDU_LEN);
	/* followed by a record of the stream: read */
	ev.pdu_len = 0;
	m = bt_encode(&ev, 7, 0, buf + n, sizeof(buf) - (size_t)n);
	assert_true(m > 0);
	assert_int_equal(bt_decode(&bs, buf, sizeof(buf), &out, &used), 0);
	assert_int_equal(used, (size_t)n);
	/* followed by a big-endian record: no record of this stream */
	assert_true(bt_encode(&ev, 7, 1, buf + n, sizeof(buf) - (size_t)n) > 0);
	assert_int_equal(bt_decode(&bs, buf, sizeof(buf), &out, &used),
			 -BT_E_PDU_LEN);
	/* a plausible pdu_len cut short stays a cut */
	ev.pdu_len = 16;
	n = bt_encode(&ev, 7, 0, buf, sizeof(buf));
	assert_int_equal(bt_decode(&bs, buf, (size_t)n - 1, &out, &used),
			 -BT_E_SHORT);
	assert_non_null(strstr(bt_strerror(-BT_E_PDU_LEN), "pdu_len"));
}

/* RWBS as blkparse 1.2 prints it (checked against the corpus). */
static void test_rwbs(void **state)
{
	static const struct { uint32_t cats; uint32_t bytes; const char *want; } t[] = {
		{ BT_C_WRITE, 4096, "W" },
		{ BT_C_READ, 4096, "R" },
		{ 0, 0, "N" },
		{ BT_C_READ | BT_C_AHEAD, 4096, "RA" },
		{ BT_C_WRITE | BT_C_SYNC | BT_C_META, 512, "WSM" },
		{ BT_C_FLUSH | BT_C_WRITE | BT_C_FUA | BT_C_SYNC, 4096, "FWFS" },
		{ BT_C_FLUSH, 0, "FN" },
		{ BT_C_DISCARD | BT_C_WRITE, 4096, "D" },
	};
	char out[8];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bt_event ev = { .action = BT_A_QUEUE | ((uint64_t)t[i].cats << 16),
				       .bytes = t[i].bytes };
		bt_rwbs(&ev, out);
		assert_string_equal(out, t[i].want);
	}
}

static void test_pdus(void **state)
{
	struct bt_event ev = sample_event();
	struct bt_remap r;
	uint64_t v;
	static const uint8_t depth[8] = { 0, 0, 0, 0, 0, 0, 0x01, 0x02 };

	(void)state;
	assert_int_equal(bt_pdu_remap(&ev, &r), 0);
	assert_int_equal(r.dev_from, BT_MKDEV(8, 2));
	assert_int_equal(r.dev_to, BT_MKDEV(8, 0));
	assert_int_equal(r.sector_from, 0x01020304u);
	ev.pdu = depth;
	ev.pdu_len = 8;
	assert_int_equal(bt_pdu_u64(&ev, &v), 0);
	assert_int_equal(v, 0x0102);
	ev.pdu_len = 4;
	assert_int_equal(bt_pdu_u64(&ev, &v), -BT_E_SHORT);
	assert_int_equal(bt_pdu_remap(&ev, &r), -BT_E_SHORT);
}

static void test_names(void **state)
{
	struct bt_event ev = { .action = BT_A_UNPLUG_TIMER };

	(void)state;
	assert_string_equal(bt_action_name(&ev), "UT");
	ev.action = BT_N_MESSAGE | ((uint64_t)BT_C_NOTIFY << 16);
	assert_string_equal(bt_action_name(&ev), "m");
	ev.action = 77;
	assert_string_equal(bt_action_name(&ev), "?");
}

/* A cgroup id (action flag 0x100) comes before the record's own payload. */
static void test_cgroup_pdu(void **state)
{
	uint8_t pdu[24] = { 1, 2, 3, 4, 5, 6, 7, 8,   /* cgroup id */
			    0x0f, 0xd0, 0, 2, 0, 0x80, 0, 0,
			    0, 0, 0, 0, 0, 0, 0x03, 0xe8 };
	struct bt_event ev = { .action = BT_A_REMAP | BT_A_CGROUP, .pdu = pdu,
			       .pdu_len = 24 };
	struct bt_remap r;
	uint16_t len;
	uint64_t v;

	(void)state;
	assert_int_equal(bt_pdu_remap(&ev, &r), 0);
	assert_int_equal(r.dev_from, BT_MKDEV(253, 2));
	assert_int_equal(r.sector_from, 1000);
	assert_ptr_equal(bt_pdu_body(&ev, &len), pdu + 8);
	assert_int_equal(len, 16);
	ev.pdu_len = 8;                     /* the id only */
	assert_int_equal(bt_pdu_remap(&ev, &r), -BT_E_SHORT);
	ev.pdu_len = 16;                    /* id, then a u64 */
	ev.action = BT_A_UNPLUG_IO | BT_A_CGROUP;
	assert_int_equal(bt_pdu_u64(&ev, &v), 0);
	assert_int_equal(v, 0x0fd0000200800000ull);
	ev.action = BT_A_UNPLUG_IO;         /* no flag: the whole payload */
	assert_int_equal(bt_pdu_u64(&ev, &v), 0);
	assert_int_equal(v, 0x0102030405060708ull);
}

/* The start-time notify: u32 seconds, u32 ns in either byte order. */
static void test_timestamp_pdu(void **state)
{
	uint8_t le[8] = { 0xf2, 0x50, 0x16, 0x6b, 0x00, 0x46, 0xc3, 0x23 };
	uint8_t be[8] = { 0x6b, 0x16, 0x50, 0xf2, 0x23, 0xc3, 0x46, 0x00 };
	struct bt_event ev = { .action = BT_N_TIMESTAMP | ((uint64_t)BT_C_NOTIFY << 16),
			       .pdu = le, .pdu_len = 8 };
	int64_t w;

	(void)state;
	assert_int_equal(bt_pdu_timestamp(&ev, &w), 0);
	assert_int_equal(w, 1796624626ll * 1000000000 + 600000000);
	ev.pdu = be;
	assert_int_equal(bt_pdu_timestamp(&ev, &w), 0);
	assert_int_equal(w, 1796624626ll * 1000000000 + 600000000);
	ev.pdu_len = 4;
	assert_int_equal(bt_pdu_timestamp(&ev, &w), -BT_E_SHORT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v7_le),
		cmocka_unit_test(test_v7_be),
		cmocka_unit_test(test_v8_le),
		cmocka_unit_test(test_v8_be),
		cmocka_unit_test(test_v7_layout),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pdu_len),
		cmocka_unit_test(test_rwbs),
		cmocka_unit_test(test_pdus),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cgroup_pdu),
		cmocka_unit_test(test_timestamp_pdu),
	};
	return cmocka_run_group_tests_name("blktrace_format", tests, NULL, NULL);
}
