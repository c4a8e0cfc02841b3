/* The body every import-format harness shares (fuzz_fmt_NAME.c sets
 * FUZZ_FORMAT and includes this): sniff the bytes, then parse them as that
 * format into a sink that looks at every field, and call the other rows'
 * sniffers too, as import does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink_sum;

static int f_io(void *ctx, const struct fmt_io *io)
{
	(void)ctx;
	sink_sum += io->sector + io->bytes + io->cats + io->dev + io->pid +
		    (uint64_t)io->q_ns + (uint64_t)io->d_ns + (uint64_t)io->c_ns +
		    (io->stream ? strlen(io->stream) : 0) +
		    (io->device ? strlen(io->device) : 0);
	return 0;
}

static int f_sample(void *ctx, const struct fmt_sample *s)
{
	(void)ctx;
	sink_sum += s->report + (uint64_t)s->wall_ns + strlen(s->key) +
		    (uint64_t)s->value;
	return 0;
}

static int f_command(void *ctx, const struct fmt_command *c)
{
	(void)ctx;
	sink_sum += c->line + (uint64_t)c->dd_bytes + (c->argv ? strlen(c->argv) : 0);
	return 0;
}

static int f_note(void *ctx, const char *t) { (void)ctx; sink_sum += strlen(t); return 0; }
static int f_stat(void *ctx, const char *k, const char *v)
{
	(void)ctx;
	sink_sum += strlen(k) + strlen(v);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct import_format *f = import_format_find(FUZZ_FORMAT);
	struct fmt_sink sink = { f_io, f_sample, f_command, f_note, f_stat, NULL };
	struct fmt_opts o = { .split = size & 1 };
	char err[512];
	FILE *fp;

	if (!f)
		abort();
	(void)import_format_sniff(data, size < FMT_SNIFF_BYTES ? size : FMT_SNIFF_BYTES);
	if (!size || !(fp = fmemopen((void *)data, size, "r")))
		return 0;
	if (f->parse(fp, "fuzz", &o, &sink, err, sizeof(err)) && !err[0])
		abort();   /* a parse error always says what */
	fclose(fp);
	return 0;
}
