/* Reads one run for the analyzers (see rundata.h): requests, samples,
 * commands and settings, each with one query and one error path. */
#include "rundata.h"

#include <malloc.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/blktrace_format.h"
#include "lib/util.h"

/* The flags of a request row from its categories, RWBS and stitching. */
static uint32_t io_flags(uint64_t cats, int bytes, int head, int has_seek,
			 int split, int merged)
{
	uint32_t f = 0;

	if (cats & (BT_C_WRITE | BT_C_DISCARD))
		f |= AN_WRITE;
	if (cats & BT_C_DISCARD)
		f |= AN_DISCARD;
	if (cats & BT_C_SYNC)
		f |= AN_SYNC;
	if (cats & BT_C_META)
		f |= AN_META;
	if (cats & BT_C_AHEAD)
		f |= AN_RA;
	if (cats & BT_C_FUA)
		f |= AN_FUA;
	if ((cats & BT_C_FLUSH) || !bytes)
		f |= AN_FLUSH;
	if (head)
		f |= AN_HEAD;
	if (has_seek)
		f |= AN_HAS_SEEK;
	if (split)
		f |= AN_SPLIT;
	if (merged)
		f |= AN_MERGED;
	return f;
}

void rundata_io_of(struct an_io *x, const struct store_request *rq)
{
	x->q = rq->q_ns;
	x->g = rq->g_ns;
	x->i = rq->i_ns;
	x->d = rq->d_ns;
	x->c = rq->c_ns;
	x->m = rq->m_ns;
	x->seek = rq->seek_sectors;
	x->sector = rq->sector;
	x->dsector = rq->has_d ? rq->d_sector : rq->sector;
	x->bytes = rq->bytes;
	x->dbytes = rq->has_d ? rq->d_bytes : rq->bytes;
	x->pid = rq->pid;
	x->dev = rq->dev;
	x->flags = io_flags(rq->cats, (int)rq->bytes, rq->d_head, rq->has_seek,
			    rq->split, rq->merged_into != 0);
	if (rq->split_from)
		x->flags |= AN_SPLIT_TAIL;
}

static int load_io(struct rundata *rd, struct store *st)
{
	struct store_cursor *cur;
	struct store_request rq;
	size_t cap = 0;
	int rc;

	if (runview_requests_open(rd->rv, STORE_RQ_ALL, STORE_RQ_COLS_ALL &
				  ~(unsigned)(STORE_RQ_RWBS | STORE_RQ_REQUEUES |
				  STORE_RQ_ERROR | STORE_RQ_ORIG), &cur))
		return -1;
	while ((rc = store_requests_next(cur, &rq, NULL)) > 0) {
		if (rd->n == AN_MAX_IO) {
			store_cursor_close(cur);
			return error("run %s has more than %u requests: more than "
				     "iotape analyzes", rd->rv->name, AN_MAX_IO);
		}
		if (rd->n == cap) {
			cap = cap ? 2 * cap : 4096;
			rd->io = xrealloc(rd->io, cap * sizeof(*rd->io));
		}
		rundata_io_of(&rd->io[rd->n++], &rq);
	}
	store_cursor_close(cur);
	if (rc < 0)
		return error("reading requests: %s", store_errmsg(st));
	return 0;
}

static void series_push(struct an_series *s, size_t *cap, int64_t t, double v)
{
	if (!isfinite(v))
		return;
	if (s->n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		s->t = xrealloc(s->t, *cap * sizeof(*s->t));
		s->v = xrealloc(s->v, *cap * sizeof(*s->v));
	}
	s->t[s->n] = t;
	s->v[s->n++] = v;
}

static int load_vm(struct rundata *rd, struct store *st)
{
	struct store_cursor *cur;
	struct store_vmstat row;
	size_t cap = 0;
	int rc;

	if (store_vmstat_open(st, rd->rv->id, STORE_VM_ALL, &cur))
		return error("reading samples: %s", store_errmsg(st));
	while ((rc = store_vmstat_next(cur, &row)) > 0) {
		struct an_vm *v;
		if (row.since_boot)
			continue;
		if (rd->nvm == cap) {
			cap = cap ? 2 * cap : 256;
			rd->vm = xrealloc(rd->vm, cap * sizeof(*rd->vm));
		}
		v = &rd->vm[rd->nvm++];
		v->t = row.time_ns;
		v->si = row.v[STORE_VM_SI];
		v->so = row.v[STORE_VM_SO];
		v->bi = row.v[STORE_VM_BI];
		v->bo = row.v[STORE_VM_BO];
		v->swpd = row.v[STORE_VM_SWPD];
		v->free = row.v[STORE_VM_FREE];
		v->wa = row.v[STORE_VM_WA];
	}
	store_cursor_close(cur);
	if (rc < 0)
		return error("reading samples: %s", store_errmsg(st));
	return 0;
}

/* The raw samples the analyzers follow over time. */
static const struct {
	const char *source, *key;
	size_t off;         /* offset of the series in struct rundata */
	double scale;       /* to the series' unit */
} raw[] = {
	{ "meminfo", "Dirty", offsetof(struct rundata, dirty_kb), 1 },
	{ "meminfo", "Writeback", offsetof(struct rundata, writeback_kb), 1 },
	{ "vmstat", "nr_dirty_threshold", offsetof(struct rundata,
						   dirty_thresh_kb), 4 },
	{ "vmstat", "nr_dirty_background_threshold", offsetof(struct rundata,
							      bg_thresh_kb), 4 },
	{ "psi", "memory_some_total", offsetof(struct rundata,
					       psi[RD_PSI_MEM_SOME]), 1 },
	{ "psi", "memory_full_total", offsetof(struct rundata,
					       psi[RD_PSI_MEM_FULL]), 1 },
	{ "psi", "io_some_total", offsetof(struct rundata, psi[RD_PSI_IO_SOME]), 1 },
	{ "psi", "io_full_total", offsetof(struct rundata, psi[RD_PSI_IO_FULL]), 1 },
};

static int load_raw(struct rundata *rd, struct store *st)
{
	static const char *const sources[] = { "meminfo", "vmstat", "psi" };
	size_t cap[ARRAY_SIZE(raw)] = { 0 };

	for (size_t k = 0; k < ARRAY_SIZE(sources); k++) {
		struct store_cursor *cur;
		struct store_sample sm;
		int rc;
		if (store_samples_open(st, rd->rv->id, sources[k], &cur))
			return error("reading samples: %s", store_errmsg(st));
		while ((rc = store_samples_next(cur, &sm)) > 0)
			for (size_t i = 0; i < ARRAY_SIZE(raw); i++)
				if (!strcmp(raw[i].source, sm.source) &&
				    !strcmp(raw[i].key, sm.key))
					series_push((struct an_series *)((char *)rd +
						    raw[i].off), &cap[i], sm.time_ns,
						    sm.value * raw[i].scale);
		store_cursor_close(cur);
		if (rc < 0)
			return error("reading samples: %s", store_errmsg(st));
	}
	return 0;
}

static int load_cmds(struct rundata *rd, struct store *st)
{
	struct store_command *c;
	size_t n;

	if (store_commands_get(st, rd->rv->id, &c, &n))
		return error("reading commands: %s", store_errmsg(st));
	rd->cmds = n ? xcalloc(n, sizeof(*rd->cmds)) : NULL;
	for (size_t i = 0; i < n; i++) {
		struct an_cmd *a = &rd->cmds[rd->ncmd++];
		a->idx = c[i].idx;
		snprintf(a->argv, sizeof(a->argv), "%s", c[i].argv ? c[i].argv : "");
		a->start = c[i].start_ns;
		a->end = c[i].end_ns;
		a->real_s = c[i].real_s;
		a->status = c[i].status;
	}
	free(c);
	return 0;
}

static int load_devices(struct rundata *rd, struct store *st)
{
	struct store_device *d;
	size_t n;

	if (store_devices_get(st, rd->rv->id, &d, &n))
		return error("reading devices: %s", store_errmsg(st));
	for (size_t i = 0; i < n; i++)
		if (d[i].role && !strcmp(d[i].role, "swap") && rd->nswap < 8)
			rd->swap_dev[rd->nswap++] = d[i].dev;
	free(d);
	return 0;
}

int rundata_setting(const struct rundata *rd, const char *key, char *out,
		    size_t len)
{
	return store_setting_get(rd->rv->st, rd->rv->id, key, STORE_AT_ANY, out,
				 len) == 1 ? 0 : -1;
}

static double setting_num(const struct rundata *rd, const char *key)
{
	char v[64];
	char *end;
	double x;

	if (rundata_setting(rd, key, v, sizeof(v)))
		return -1;
	x = strtod(v, &end);
	return end != v ? x : -1;
}

/* A --from/--to window cuts the time the run is judged over. */
static void clip_window(struct rundata *rd)
{
	const struct runview *rv = rd->rv;

	if (!rv->filtered)
		return;
	if (rd->t0 < rv->from_abs)
		rd->t0 = rv->from_abs;
	if (rd->t1 > rv->to_abs)
		rd->t1 = rv->to_abs;
	if (rd->t1 < rd->t0)
		rd->t1 = rd->t0;
}

/* The window the run is judged over (rundata.h). */
static void set_window(struct rundata *rd)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (size_t i = 0; i < rd->ncmd; i++) {
		if (rd->cmds[i].start == AN_NONE || rd->cmds[i].end == AN_NONE)
			continue;
		if (rd->cmds[i].start < lo)
			lo = rd->cmds[i].start;
		if (rd->cmds[i].end > hi)
			hi = rd->cmds[i].end;
	}
	if (hi > lo) {
		rd->t0 = lo;
		rd->t1 = hi;
		rd->elapsed_from_cmds = 1;
		clip_window(rd);
		return;
	}
	for (size_t i = 0; i < rd->n; i++) {
		const struct an_io *x = &rd->io[i];
		int64_t a = x->q != AN_NONE ? x->q : x->d != AN_NONE ? x->d : x->c;
		int64_t b = x->c != AN_NONE ? x->c : x->d != AN_NONE ? x->d : x->q;
		if (a != AN_NONE && a < lo)
			lo = a;
		if (b != AN_NONE && b > hi)
			hi = b;
	}
	rd->t0 = hi > lo ? lo : 0;
	rd->t1 = hi > lo ? hi : 0;
	if (rd->rv->filtered) {
		clip_window(rd);
		return;
	}
	/* a clock that stepped: the span over the time that had I/O (import
	 * counts it) from the first event */
	if (rd->rv->active_ns > 0 && rd->t1 - rd->t0 != rd->rv->active_ns) {
		rd->t0 = rd->rv->genesis_ns;
		rd->t1 = rd->rv->genesis_ns + rd->rv->active_ns;
	}
}

/* The page cache a reader keeps (KiB): the requests are read once, in
 * index order, so a few MiB serve as well as the writers' 32 MiB. */
#define RD_CACHE_KIB 2048

/* Big arrays (one element or more per request) come from mmap and go back
 * to the system when freed: with glibc's default, the threshold grows to
 * the size of the first such array freed, and later ones, taken from the
 * heap, stay in the process's memory after free (mallopt(3)). */
#define RD_MMAP_THRESHOLD (128 * 1024)

int rundata_load(struct rundata *rd, const struct runview *rv)
{
	struct store *db = rv->st;

	memset(rd, 0, sizeof(*rd));
	rd->rv = rv;
	mallopt(M_MMAP_THRESHOLD, RD_MMAP_THRESHOLD);
	if (store_cache_limit(db, RD_CACHE_KIB)) {
		error("reading requests: %s", store_errmsg(db));
		return -1;
	}
	if (load_io(rd, db) || load_vm(rd, db) || load_raw(rd, db) ||
	    load_cmds(rd, db) || load_devices(rd, db)) {
		rundata_free(rd);
		return -1;
	}
	rd->dirty_bg_ratio = setting_num(rd, "vm.dirty_background_ratio");
	rd->dirty_ratio = setting_num(rd, "vm.dirty_ratio");
	set_window(rd);
	return 0;
}

void rundata_free(struct rundata *rd)
{
	struct an_series *all[] = { &rd->dirty_kb, &rd->writeback_kb,
		&rd->dirty_thresh_kb, &rd->bg_thresh_kb, &rd->psi[0], &rd->psi[1], &rd->psi[2],
		&rd->psi[3] };

	free(rd->io);
	free(rd->vm);
	free(rd->cmds);
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		free(all[i]->t);
		free(all[i]->v);
	}
	memset(rd, 0, sizeof(*rd));
}

double rundata_elapsed_s(const struct rundata *rd)
{
	return rd->t1 > rd->t0 ? (double)(rd->t1 - rd->t0) / 1e9 : 0;
}

double rundata_at_s(const struct rundata *rd, int64_t t)
{
	return (double)(t - rd->rv->genesis_ns) / 1e9;
}

int rundata_is_swap(const struct rundata *rd, uint32_t dev)
{
	for (int i = 0; i < rd->nswap; i++)
		if (rd->swap_dev[i] == dev)
			return 1;
	return 0;
}

double series_at(const struct an_series *s, int64_t t)
{
	size_t lo = 0, hi;

	if (!s->n)
		return NAN;
	if (t <= s->t[0])
		return s->v[0];
	if (t >= s->t[s->n - 1])
		return s->v[s->n - 1];
	hi = s->n - 1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	if (s->t[hi] == s->t[lo])
		return s->v[hi];
	return s->v[lo] + (s->v[hi] - s->v[lo]) * (double)(t - s->t[lo]) /
			  (double)(s->t[hi] - s->t[lo]);
}

double series_delta(const struct an_series *s, int64_t t0, int64_t t1)
{
	if (s->n < 2)
		return 0;
	return series_at(s, t1) - series_at(s, t0);
}
