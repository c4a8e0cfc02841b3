/* libFuzzer harness: the blktrace decoder over arbitrary bytes (v7 and v8,
 * either byte order), and a re-encode of every record it accepts, which
 * must decode to the same fields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/blktrace_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bt_stream bs;
	size_t off = 0, used;
	struct bt_event ev, back;
	uint8_t buf[BT_V8_SIZE + 65536];

	if (bt_stream_detect(&bs, data, size))
		return 0;
	while (off < size && bt_decode(&bs, data + off, size - off, &ev, &used) == 0) {
		char rwbs[8];
		struct bt_remap r;
		uint64_t v;
		struct bt_stream bs2;
		size_t used2;
		long n;

		bt_rwbs(&ev, rwbs);
		(void)bt_action_name(&ev);
		(void)bt_pdu_remap(&ev, &r);
		(void)bt_pdu_u64(&ev, &v);
		n = bt_encode(&ev, bs.version, !!(bs.swap ^ (htobe16(1) == 1)), buf, sizeof(buf));
		if (n > 0 && bt_stream_detect(&bs2, buf, (size_t)n) == 0 &&
		    bt_decode(&bs2, buf, (size_t)n, &back, &used2) == 0) {
			if (back.time_ns != ev.time_ns || back.sector != ev.sector ||
			    back.action != ev.action || back.pdu_len != ev.pdu_len ||
			    (ev.pdu_len && memcmp(back.pdu, ev.pdu, ev.pdu_len)))
				abort();
		}
		off += used;
	}
	return 0;
}
