/* refault: data read twice. A buffered read of sectors the workload read
 * before in the run means the pages were evicted and read again (page
 * cache thrashing, readahead pages dropped before use); its cost is the
 * workload's time waiting on those reads. Direct I/O re-reads on purpose
 * and is left out; swap-ins are swap's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

static void *refault_build(const struct an_run *r)
{
	if (!r->rd.n)
		return NULL;
	return xcalloc(1, 1);
}

static int refault_finding(const struct an_run *r, const void *state,
			   struct finding *f)
{
	const struct critpath *cp = &r->cp;

	(void)state;
	f->present = cp->refault_bios >= 16 && cp->refault_mb >= 1;
	snprintf(f->title, sizeof(f->title), "refault: %.1f MB read again "
		 "(%llu reads of sectors read before)", cp->refault_mb,
		 (unsigned long long)cp->refault_bios);
	FD_CAT(f, how, "the workload's time waiting on buffered reads of "
	       "sectors it had read earlier in the run: the page cache lost "
	       "them (memory pressure, readahead beyond what was used) and the "
	       "disk read them again.");
	FD_CAT(f, evidence, "%.1f MB in %llu re-reads, %.2f s of the "
	       "workload's time", cp->refault_mb,
	       (unsigned long long)cp->refault_bios, cp->cat[CP_REFAULT]);
	f->conf = FD_MEDIUM;
	FD_CAT(f, why, "the trace shows the same sectors read twice; a file "
	       "rewritten in between (new data at the same place) would look "
	       "the same");
	f->lo_s = 0;
	f->hi_s = cp->elapsed_s;
	return 1;
}

static void refault_emit(struct emit *e, const void *state)
{
	(void)e;
	(void)state;
}

static void refault_release(void *state)
{
	free(state);
}

const struct analyzer an_refault = {
	.name = "refault",
	.build = refault_build,
	.finding = refault_finding,
	.emit = refault_emit,
	.release = refault_release,
	.cats = 1u << CP_REFAULT,
	.definitions =
"refault: buffered reads of sectors the workload read before in the run\n"
"  (evicted pages read again). Cost: its time waiting on them.\n",
};
