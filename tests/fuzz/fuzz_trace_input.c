/* libFuzzer harness: trace inputs end to end. The bytes become a per-CPU
 * set of two files (split at a point the first byte picks) in /dev/shm, read
 * through trace_input_read (sniffing, merge by time, cut-short handling)
 * into the request stitcher. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/stitch.h"
#include "trace/trace_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_row(void *ctx, int64_t id, const struct store_request *rq)
{
	(void)ctx; (void)id; (void)rq;
	return 0;
}

static int on_event(void *ctx, const struct bt_event *ev)
{
	return stitch_event(ctx, ev);
}

static void put(const char *path, const uint8_t *p, size_t n)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		abort();
	if (n && fwrite(p, 1, n, fp) != n)
		abort();
	fclose(fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char base[64], p0[96], p1[96], err[512];
	struct input_opts io = { 0 };
	struct input_stats st;
	struct stitch *s;
	struct event_sink sink;
	size_t cut;

	if (size < 1)
		return 0;
	cut = size > 1 ? (size_t)data[0] * (size - 1) / 255 : 0;
	snprintf(base, sizeof(base), "/dev/shm/iotape-fuzz-%d", (int)getpid());
	snprintf(p0, sizeof(p0), "%s.blktrace.0", base);
	snprintf(p1, sizeof(p1), "%s.blktrace.2", base);
	put(p0, data + 1, cut);
	put(p1, data + 1 + cut, size - 1 - cut);
	s = stitch_new(on_row, NULL, 1);
	sink = (struct event_sink){ on_event, NULL, s };
	if (trace_input_read(base, &io, &sink, &st, NULL, err, sizeof(err)) == 0)
		stitch_finish(s);
	stitch_free(s);
	/* the same bytes as one stream */
	put(p0, data, size);
	s = stitch_new(on_row, NULL, 1);
	sink.ctx = s;
	if (trace_input_read(p0, &io, &sink, &st, NULL, err, sizeof(err)) == 0)
		stitch_finish(s);
	stitch_free(s);
	unlink(p0);
	unlink(p1);
	return 0;
}
