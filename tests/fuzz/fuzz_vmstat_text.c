/* libFuzzer harness: the vmstat-log importer over arbitrary text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/vmstat_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_row(void *ctx, const struct vmstat_row *row)
{
	(void)ctx; (void)row;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmstat_text_opts o = { 0 };
	struct vmstat_text_info info;
	char err[512];
	FILE *fp;

	(void)vmstat_text_sniff(data, size);
	if (!size || !(fp = fmemopen((void *)data, size, "r")))
		return 0;
	(void)vmstat_text_read(fp, "fuzz", &o, on_row, NULL, &info, err, sizeof(err));
	fclose(fp);
	return 0;
}
