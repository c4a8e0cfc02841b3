/* libpq loaded on first use (pq_dl.h). */
#define PQ_DL_IMPL
#include "schema/pq_dl.h"

#include "lib/dl.h"

struct pq_api pq_api;

#define PQ_NAME(f) #f,
#define PQ_SLOT(f) (void **)&pq_api.f##_p,
static const char *const pq_names[] = { PQ_FUNCS(PQ_NAME) };
static void **const pq_slots[] = { PQ_FUNCS(PQ_SLOT) };
static struct dl_lib pq_lib = {
	"libpq.so.5", "libpq5", pq_names, pq_slots,
	sizeof(pq_names) / sizeof(pq_names[0]), 0,
};

int pq_load(char *err, size_t errlen)
{
	return dl_load(&pq_lib, "the PostgreSQL store", err, errlen);
}
