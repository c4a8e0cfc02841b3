/* libfuse3 loaded on first use (fuse_dl.h). */
#define FUSE_DL_IMPL
#include "model/fuse_dl.h"

#include "lib/dl.h"

struct fuse_api fuse_api;

#define FUSE_NAME(f) #f,
#define FUSE_SLOT(f) (void **)&fuse_api.f##_p,
static const char *const fuse_names[] = { FUSE_FUNCS(FUSE_NAME) };
static void **const fuse_slots[] = { FUSE_FUNCS(FUSE_SLOT) };
static struct dl_lib fuse_lib = {
	"libfuse3.so.3", "libfuse3-3", fuse_names, fuse_slots,
	sizeof(fuse_names) / sizeof(fuse_names[0]), 0,
};

int fuse_load(char *err, size_t errlen)
{
	return dl_load(&fuse_lib, "a modelled disk (iotape disk)", err, errlen);
}
