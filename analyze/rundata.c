/* Reads one run for the analyzers (see rundata.h): requests, samples,
 * commands and settings, each with one query and one error path. */
#include "rundata.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/blktrace_format.h"
#include "lib/util.h"

static int64_t col_time(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? AN_NONE
						       : sqlite3_column_int64(s, i);
}

static double col_num(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN
						       : sqlite3_column_double(s, i);
}

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

static int load_io(struct rundata *rd, sqlite3 *db)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int step;

	if (sqlite3_prepare_v2(db,
		"SELECT q_ns, g_ns, i_ns, d_ns, c_ns, m_ns, seek_sectors, sector,"
		" coalesce(d_sector, sector), bytes, coalesce(d_bytes, bytes), pid,"
		" dev, cats, d_head, seek_sectors IS NOT NULL, split,"
		" merged_into IS NOT NULL FROM requests WHERE run = ? ORDER BY id",
		-1, &s, NULL) != SQLITE_OK)
		return error("reading requests: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(s, 1, rd->rv->id);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct an_io *x;
		if (rd->n == cap) {
			cap = cap ? 2 * cap : 4096;
			rd->io = xrealloc(rd->io, cap * sizeof(*rd->io));
		}
		x = &rd->io[rd->n++];
		x->q = col_time(s, 0);
		x->g = col_time(s, 1);
		x->i = col_time(s, 2);
		x->d = col_time(s, 3);
		x->c = col_time(s, 4);
		x->m = col_time(s, 5);
		x->seek = sqlite3_column_int64(s, 6);
		x->sector = (uint64_t)sqlite3_column_int64(s, 7);
		x->dsector = (uint64_t)sqlite3_column_int64(s, 8);
		x->bytes = (uint32_t)sqlite3_column_int64(s, 9);
		x->dbytes = (uint32_t)sqlite3_column_int64(s, 10);
		x->pid = (uint32_t)sqlite3_column_int64(s, 11);
		x->dev = (uint32_t)sqlite3_column_int64(s, 12);
		x->flags = io_flags((uint64_t)sqlite3_column_int64(s, 13),
				    (int)x->bytes, sqlite3_column_int(s, 14),
				    sqlite3_column_int(s, 15),
				    sqlite3_column_int(s, 16),
				    sqlite3_column_int(s, 17));
	}
	sqlite3_finalize(s);
	if (step != SQLITE_DONE)
		return error("reading requests: %s", sqlite3_errmsg(db));
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

static int load_vm(struct rundata *rd, sqlite3 *db)
{
	sqlite3_stmt *s;
	size_t cap = 0;

	if (sqlite3_prepare_v2(db, "SELECT time_ns, si, so, bi, bo, swpd, free,"
			       " wa FROM vmstat WHERE run = ? AND"
			       " coalesce(since_boot, 0) = 0 ORDER BY time_ns",
			       -1, &s, NULL) != SQLITE_OK)
		return error("reading samples: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(s, 1, rd->rv->id);
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct an_vm *v;
		if (rd->nvm == cap) {
			cap = cap ? 2 * cap : 256;
			rd->vm = xrealloc(rd->vm, cap * sizeof(*rd->vm));
		}
		v = &rd->vm[rd->nvm++];
		v->t = sqlite3_column_int64(s, 0);
		v->si = col_num(s, 1);
		v->so = col_num(s, 2);
		v->bi = col_num(s, 3);
		v->bo = col_num(s, 4);
		v->swpd = col_num(s, 5);
		v->free = col_num(s, 6);
		v->wa = col_num(s, 7);
	}
	sqlite3_finalize(s);
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

static int load_raw(struct rundata *rd, sqlite3 *db)
{
	for (size_t k = 0; k < ARRAY_SIZE(raw); k++) {
		struct an_series *se = (struct an_series *)((char *)rd + raw[k].off);
		sqlite3_stmt *s;
		size_t cap = 0;

		if (sqlite3_prepare_v2(db, "SELECT time_ns, value FROM samples"
				       " WHERE run = ? AND source = ? AND key = ?"
				       " ORDER BY time_ns", -1, &s, NULL) != SQLITE_OK)
			return error("reading samples: %s", sqlite3_errmsg(db));
		sqlite3_bind_int64(s, 1, rd->rv->id);
		sqlite3_bind_text(s, 2, raw[k].source, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, raw[k].key, -1, SQLITE_STATIC);
		while (sqlite3_step(s) == SQLITE_ROW)
			series_push(se, &cap, sqlite3_column_int64(s, 0),
				    col_num(s, 1) * raw[k].scale);
		sqlite3_finalize(s);
	}
	return 0;
}

static int load_cmds(struct rundata *rd, sqlite3 *db)
{
	sqlite3_stmt *s;
	size_t cap = 0;

	if (sqlite3_prepare_v2(db, "SELECT idx, argv, start_ns, end_ns, real_s,"
			       " coalesce(status, -1) FROM commands WHERE run = ?"
			       " ORDER BY idx", -1, &s, NULL) != SQLITE_OK)
		return error("reading commands: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(s, 1, rd->rv->id);
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct an_cmd *c;
		const unsigned char *a = sqlite3_column_text(s, 1);
		if (rd->ncmd == cap) {
			cap = cap ? 2 * cap : 8;
			rd->cmds = xrealloc(rd->cmds, cap * sizeof(*rd->cmds));
		}
		c = &rd->cmds[rd->ncmd++];
		c->idx = sqlite3_column_int(s, 0);
		snprintf(c->argv, sizeof(c->argv), "%s", a ? (const char *)a : "");
		c->start = col_time(s, 2);
		c->end = col_time(s, 3);
		c->real_s = col_num(s, 4);
		c->status = sqlite3_column_int(s, 5);
	}
	sqlite3_finalize(s);
	return 0;
}

static int load_devices(struct rundata *rd, sqlite3 *db)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, "SELECT dev FROM devices WHERE run = ? AND"
			       " role = 'swap'", -1, &s, NULL) != SQLITE_OK)
		return error("reading devices: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(s, 1, rd->rv->id);
	while (sqlite3_step(s) == SQLITE_ROW && rd->nswap < 8)
		rd->swap_dev[rd->nswap++] = (uint32_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return 0;
}

int rundata_setting(const struct rundata *rd, const char *key, char *out,
		    size_t len)
{
	sqlite3_stmt *s;
	int rc = -1;

	if (sqlite3_prepare_v2(store_db(rd->rv->st), "SELECT value FROM settings"
			       " WHERE run = ? AND key = ? ORDER BY at DESC"
			       " LIMIT 1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, rd->rv->id);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(s, 0));
		rc = 0;
	}
	sqlite3_finalize(s);
	return rc;
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
}

int rundata_load(struct rundata *rd, const struct runview *rv)
{
	sqlite3 *db = store_db(rv->st);

	memset(rd, 0, sizeof(*rd));
	rd->rv = rv;
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
