/* libFuzzer harness: the blkparse-text importer over arbitrary text, into
 * the request stitcher. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

static int on_process(void *ctx, uint32_t pid, const char *comm)
{
	(void)ctx; (void)pid; (void)comm;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_stats st = { 0 };
	struct stitch *s;
	struct event_sink sink;
	char err[512];
	FILE *fp;

	(void)blkparse_text_sniff(data, size);
	if (!size || !(fp = fmemopen((void *)data, size, "r")))
		return 0;
	s = stitch_new(on_row, NULL, 1);
	sink = (struct event_sink){ on_event, on_process, s };
	if (blkparse_text_read(fp, "fuzz", &sink, &st, NULL, err, sizeof(err)) == 0)
		stitch_finish(s);
	stitch_free(s);
	fclose(fp);
	return 0;
}
