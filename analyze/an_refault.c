/* refault: data read twice. A buffered read of sectors the workload read
 * before in the run means the pages were evicted and read again (page
 * cache thrashing, readahead pages dropped before use); its cost is the
 * workload's time waiting on those reads. Direct I/O re-reads on purpose
 * and is left out; swap-ins are swap's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/family.h"
#include "lib/emit.h"
#include "lib/util.h"

/* What the page cache had to hold in run r (its critical path built):
 * the workload's buffered reads, MB; the capture's memory limit, MiB (0:
 * none); vmstat's page cache at most over the window, MB (NAN: not
 * sampled). */
struct refault_ctx {
	double read_mb, limit_mb, cache_mb;
};

static void refault_ctx(const struct an_run *r, struct refault_ctx *s)
{
	const struct rundata *rd = &r->rd;
	char v[32];

	memset(s, 0, sizeof(*s));
	s->read_mb = r->cp.buf_read_mb;
	if (!rundata_setting(rd, "capture.mem_limit_bytes", v, sizeof(v)))
		s->limit_mb = strtod(v, NULL) / 1048576;
	s->cache_mb = NAN;
	for (size_t i = 0; i < rd->nvm; i++)
		if (isfinite(rd->vm[i].cache) && rd->vm[i].t >= r->cp.t0 &&
		    rd->vm[i].t <= r->cp.t1 + 1000000000ll &&
		    !(rd->vm[i].cache * 1024 / 1e6 <= s->cache_mb))
			/* vmstat's kB are KiB; MB here is 10^6 bytes, as
			 * the read MB it is set beside (185344 kB: 189.8
			 * MB, not 185.3) */
			s->cache_mb = rd->vm[i].cache * 1024 / 1e6;
}

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
	struct refault_ctx c, *s = &c;
	double once;
	char lim[48] = "";

	(void)state;
	refault_ctx(r, &c);
	once = s->read_mb - cp->refault_mb;
	f->present = cp->refault_bios >= 16 && cp->refault_mb >= 1;
	if (s->limit_mb > 0)
		snprintf(lim, sizeof(lim), "; a memory limit of %.0f MiB",
			 s->limit_mb);
	if (once >= 1)
		snprintf(f->title, sizeof(f->title), "refault: the page cache "
			 "did not hold the %.1f MB read: %.1f MB read again after "
			 "it dropped them (%llu reads%s)", once, cp->refault_mb,
			 (unsigned long long)cp->refault_bios, lim);
	else
		snprintf(f->title, sizeof(f->title), "refault: %.1f MB read again "
			 "(%llu reads of sectors read before%s)", cp->refault_mb,
			 (unsigned long long)cp->refault_bios, lim);
	FD_CAT(f, how, "the workload's time waiting on buffered reads of "
	       "sectors it had read earlier in the run: the page cache lost "
	       "them (memory pressure, readahead beyond what was used) and the "
	       "disk read them again.");
	FD_CAT(f, evidence, "%.1f MB in %llu re-reads, %.2f s of the "
	       "workload's time; the workload's buffered reads %.1f MB, %.1f MB "
	       "of distinct sectors", cp->refault_mb,
	       (unsigned long long)cp->refault_bios, cp->cat[CP_REFAULT],
	       s->read_mb, once > 0 ? once : 0);
	if (s->limit_mb > 0)
		FD_CAT(f, evidence, "; the capture's memory limit %.0f MiB",
		       s->limit_mb);
	if (isfinite(s->cache_mb))
		FD_CAT(f, evidence, "; vmstat's page cache at most %.1f MB (the "
		       "machine's: a memory cgroup's own is not in it)",
		       s->cache_mb);
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
