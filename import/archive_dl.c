/* libarchive loaded on first use (archive_dl.h). */
#define ARCHIVE_DL_IMPL
#include "import/archive_dl.h"

#include "lib/dl.h"

struct archive_api archive_api;

#define ARCHIVE_NAME(f) #f,
#define ARCHIVE_SLOT(f) (void **)&archive_api.f##_p,
static const char *const archive_names[] = { ARCHIVE_FUNCS(ARCHIVE_NAME) };
static void **const archive_slots[] = { ARCHIVE_FUNCS(ARCHIVE_SLOT) };
static struct dl_lib archive_lib = {
	"libarchive.so.13", "libarchive13", archive_names, archive_slots,
	sizeof(archive_names) / sizeof(archive_names[0]), 0,
};

int archive_load(char *err, size_t errlen)
{
	return dl_load(&archive_lib, "reading a compressed or piped input",
		       err, errlen);
}
