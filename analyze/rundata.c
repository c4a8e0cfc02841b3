/* Reads one run for the analyzers (see rundata.h): requests, samples,
 * commands and settings, each with one query and one error path. */
#include "rundata.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "analyze/fold.h"
#include "analyze/rowfile.h"
#include "trace/blktrace_format.h"
#include "lib/util.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
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

int an_row_pack(struct an_row *r, const struct an_io *x, uint16_t dev)
{
	const int64_t tm[5] = { x->g, x->i, x->d, x->c, x->m };
	uint32_t *off[5] = { &r->dg, &r->di, &r->dd, &r->dc, &r->dg };
	int64_t t = x->q, ds = (int64_t)(x->dsector - x->sector);

	r->dev = dev;
	r->pid = x->pid;
	r->flags = (uint16_t)(x->flags & AN_FLAGS_ALL);
	r->sector = x->sector;
	r->bytes = x->bytes;
	r->dbytes = x->dbytes;
	if ((x->flags & ~AN_FLAGS_ALL) || (x->g != AN_NONE && x->m != AN_NONE) ||
	    ds < INT32_MIN || ds > INT32_MAX || x->seek < INT32_MIN ||
	    x->seek > INT32_MAX)
		return -1;
	if (t == AN_NONE) {
		/* no Q: the offsets from the earliest time seen */
		r->flags |= AN_R_NOQ;
		t = INT64_MAX;
		for (int k = 0; k < 5; k++)
			if (tm[k] != AN_NONE && tm[k] < t)
				t = tm[k];
		if (t == INT64_MAX)
			t = 0;
	}
	r->t = t;
	r->dg = AN_R_NONE;
	for (int k = 0; k < 5; k++) {
		int64_t d;
		if (tm[k] == AN_NONE) {
			if (k != 4)
				*off[k] = AN_R_NONE;
			continue;
		}
		if (__builtin_sub_overflow(tm[k], t, &d) || d < 0 ||
		    d >= (int64_t)AN_R_NONE)
			return -1;
		*off[k] = (uint32_t)d;
	}
	if (x->m != AN_NONE)
		r->flags |= AN_R_M;
	r->dsec = (int32_t)ds;
	r->seek = (int32_t)x->seek;
	return 0;
}

int rundata_dev_index(const struct rundata *rd, uint32_t dev)
{
	size_t lo = 0, hi = rd->ndevs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rd->devs[mid] < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rd->ndevs && rd->devs[lo] == dev ? (int)lo : -1;
}

/* The requests of one part of the run as they are read: rows into row[0,
 * room), the ones that do not fit a row into esc (their rows' positions
 * in escpos). */
struct rd_part {
	const struct rundata *rd;   /* the device table */
	struct store *st;
	struct store_cursor *cur;
	struct an_row *row;
	size_t n, room;
	struct an_io *esc;
	size_t nesc, esccap;
	size_t *escpos;
	int grow;                   /* row is rundata's, grown as needed */
	struct rundata *owner;      /* grow: the rundata whose array it is */
	struct rf_writer *w;        /* or the rows to a file (row unused) */
	int part1;                  /* the second part: its escapes count
				     * from the first's (AN_R_PART1) */
	struct rd_ranges *ranges;   /* or the ranges of ids the parts share
				     * (to a file), cur opened for each */
	int rc;                     /* 0; -1 the store failed (message in
				     * st); -2 more than AN_MAX_IO rows; -3 a
				     * device not in the table; -4 the file
				     * could not be written (errno in w) */
};

/* Adds the row rq to p; the device table is rd's (grown when p->grow:
 * rows come by device, ascending). Returns 0 or p->rc. */
static int part_add(struct rd_part *p, const struct store_request *rq,
		    int *last)
{
	struct rundata *own = p->owner;
	struct an_io x;
	struct an_row *r;
	const struct rundata *rd = p->rd;
	int k = *last;

	rundata_io_of(&x, rq);
	if (k < 0 || rd->devs[k] != x.dev) {
		k = rundata_dev_index(rd, x.dev);
		if (k < 0 && p->grow && (!rd->ndevs || rd->devs[rd->ndevs - 1] < x.dev)
		    && rd->ndevs < UINT16_MAX) {
			own->devs = xrealloc(own->devs, (own->ndevs + 1) *
					     sizeof(*own->devs));
			own->devs[own->ndevs] = x.dev;
			k = (int)own->ndevs++;
		}
		if (k < 0 || k > UINT16_MAX)
			return p->rc = -3;
		*last = k;
	}
	if (p->w) {
		struct an_row rr;
		if (p->n == AN_MAX_IO)
			return p->rc = -2;
		r = &rr;
		if (an_row_pack(r, &x, (uint16_t)k)) {
			if (p->nesc == p->esccap) {
				p->esccap = p->esccap ? 2 * p->esccap : 64;
				p->esc = xrealloc(p->esc, p->esccap * sizeof(*p->esc));
			}
			p->esc[p->nesc] = x;
			r->dg = (uint32_t)p->nesc++;
			r->flags |= AN_R_ESC | (p->part1 ? AN_R_PART1 : 0);
		}
		if (rf_writer_add(p->w, r, an_io_first(&x)))
			return p->rc = -4;
		p->n++;
		return 0;
	}
	if (p->n == p->room) {
		if (!p->grow || p->n == AN_MAX_IO)
			return p->rc = -2;
		p->room = p->room ? 2 * p->room : 4096;
		if (p->room > AN_MAX_IO)
			p->room = AN_MAX_IO;
		own->row = p->row = xrealloc(p->row, p->room * sizeof(*p->row));
	}
	r = &p->row[p->n];
	if (an_row_pack(r, &x, (uint16_t)k)) {
		if (p->nesc == p->esccap) {
			p->esccap = p->esccap ? 2 * p->esccap : 64;
			p->esc = xrealloc(p->esc, p->esccap * sizeof(*p->esc));
			p->escpos = xrealloc(p->escpos, p->esccap * sizeof(*p->escpos));
		}
		p->esc[p->nesc] = x;
		p->escpos[p->nesc] = p->n;
		r->dg = (uint32_t)p->nesc++;
		r->flags |= AN_R_ESC;
	}
	p->n++;
	return 0;
}

/* The ids of a run cut in n ranges that the parts take in turn, each
 * the next not taken, so that a part on a slower CPU reads fewer of them
 * rather than keep the other waiting (on a virtual machine here, one half
 * of a run's rows took 0.27 to 0.34 s of CPU and the other 0.20 s, on
 * either thread from run to run). */
struct rd_ranges {
	int64_t run, lo, span;
	const struct store_range *range;
	int n;
	int next;                   /* the next range to take (atomic) */
};

/* Ranges of ids to a file: 16, a few thousand ids each at least */
#define RD_RANGES 16

/* Reads p's cursor to its end into p, the device of its last row in
 * *last; sets p->rc when the store (-1) or part_add() fails. */
static void cursor_read(struct rd_part *p, int *last)
{
	struct store_request rq;
	int rc;

	while ((rc = store_requests_next(p->cur, &rq, NULL)) > 0)
		if (part_add(p, &rq, last))
			return;
	if (rc < 0)
		p->rc = -1;
}

/* Reads p's cursor to its end, or the ranges p takes (rf_writer_range()),
 * each through a cursor of its own; then writes the file's partial
 * chunks. */
static void *part_read(void *arg)
{
	struct rd_part *p = arg;
	struct rd_ranges *g = p->ranges;
	int r, last = -1;

	if (!g)
		cursor_read(p, &last);
	while (g && !p->rc && (r = __atomic_fetch_add(&g->next, 1,
						      __ATOMIC_RELAXED)) < g->n) {
		if (rf_writer_range(p->w, r)) {
			p->rc = -4;
			break;
		}
		if (store_requests_open_ids(p->st, g->run, g->lo + g->span * r / g->n,
					    g->lo + g->span * (r + 1) / g->n,
					    RD_COLS, g->range, &p->cur)) {
			p->rc = -1;
			break;
		}
		cursor_read(p, &last);
		store_cursor_close(p->cur);
		p->cur = NULL;
	}
	if (!p->rc && p->w && rf_writer_flush(p->w))
		p->rc = -4;
	return NULL;
}

/* The page cache a reader keeps (KiB): the requests are read once, in
 * table order, so the pages on the cursor's path are all it reuses. */
#define RD_CACHE_KIB 512

/* The message of a part that failed; -1. */
static int part_error(const struct rundata *rd, const struct rd_part *p)
{
	if (p->rc == -2)
		return error("run %s has more than %u requests: more than "
			     "iotape analyzes", rd->rv->name, AN_MAX_IO);
	if (p->rc == -3)
		return error("reading requests: a device not among the run's "
			     "(the run changed while read)");
	if (p->rc == -4) {
		/* rundata_load_to() reads the rows again into memory */
		warning("no room for run %s's requests in a temporary file "
			"($TMPDIR, else /tmp: %s): they are read into memory",
			rd->rv->name, strerror(p->w->err));
		return -4;
	}
	return error("%s: %s", store_name(rd->rv->st), store_errmsg(p->st));
}

/* Every row in the order the store gives them (by device, then id), one
 * handle: for back ends that cannot read a run in parts. */
static int load_io_cursor(struct rundata *rd)
{
	struct rd_part p = { .rd = rd, .st = rd->rv->st, .grow = 1,
			     .owner = rd };
	struct rf_writer w;

	if (rd->rows_file) {
		rf_writer_init(&w, rd->rows_file);
		p.w = &w;
	}
	if (runview_requests_open(rd->rv, STORE_RQ_ALL, RD_COLS, &p.cur))
		return -1;
	part_read(&p);
	store_cursor_close(p.cur);
	if (p.w)
		rowfile_join(rd->rows_file, &w, 1, rd->ndevs);
	rd->row = p.row;
	rd->n = p.n;
	rd->esc = p.esc;
	rd->nesc = p.nesc;
	free(p.escpos);
	if (p.rc)
		return part_error(rd, &p);
	return 0;
}

/* Puts the rows (read by id) in the order by device, then id: a stable
 * permutation in place, cycle by cycle (4 bytes a row while it runs). */
static void order_by_dev(struct rundata *rd)
{
	size_t *first = xcalloc(rd->ndevs + 1, sizeof(*first)), sorted = 1;
	uint32_t *to;

	if (rd->rows_file) {
		/* the file keeps each device's rows apart already */
		for (size_t k = 0; k < rd->ndevs; k++)
			first[k + 1] = first[k] + rd->rows_file->dev[k].rows;
		rd->dev_first = first;
		return;
	}

	for (size_t i = 0; i < rd->n; i++) {
		first[rd->row[i].dev + 1]++;
		if (i && rd->row[i].dev < rd->row[i - 1].dev)
			sorted = 0;
	}
	for (size_t k = 0; k < rd->ndevs; k++)
		first[k + 1] += first[k];
	rd->dev_first = first;
	if (sorted)
		return;
	{
		size_t *at = xmalloc(rd->ndevs * sizeof(*at));
		memcpy(at, first, rd->ndevs * sizeof(*at));
		to = xmalloc(rd->n * sizeof(*to));
		for (size_t i = 0; i < rd->n; i++)
			to[i] = (uint32_t)at[rd->row[i].dev]++;
		free(at);
	}
	for (size_t i = 0; i < rd->n; i++)
		while (to[i] != i) {
			uint32_t j = to[i];
			struct an_row t = rd->row[j];
			rd->row[j] = rd->row[i];
			rd->row[i] = t;
			to[i] = to[j];
			to[j] = j;
		}
	free(to);
}

/* Drops devices with no rows from the table (a --dev filter keeps some
 * out), renumbering the rows. */
static void drop_empty_devs(struct rundata *rd)
{
	size_t *cnt = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*cnt)), m = 0;
	uint16_t *to = xmalloc((rd->ndevs ? rd->ndevs : 1) * sizeof(*to));

	if (rd->rows_file) {
		size_t *keep = cnt;
		for (size_t k = 0; k < rd->ndevs; k++)
			if (k < rd->rows_file->ndev && rd->rows_file->dev[k].rows) {
				keep[m] = k;
				rd->devs[m++] = rd->devs[k];
			}
		rowfile_keep(rd->rows_file, keep, m);
		rd->ndevs = m;
		free(cnt);
		free(to);
		return;
	}

	for (size_t i = 0; i < rd->n; i++)
		cnt[rd->row[i].dev]++;
	for (size_t k = 0; k < rd->ndevs; k++)
		if (cnt[k]) {
			to[k] = (uint16_t)m;
			rd->devs[m++] = rd->devs[k];
		}
	if (m != rd->ndevs)
		for (size_t i = 0; i < rd->n; i++)
			rd->row[i].dev = to[rd->row[i].dev];
	rd->ndevs = m;
	free(cnt);
	free(to);
}

/* The parts' rows one after the other in rd->row, their escapes in
 * rd->esc; returns 0 or the first failed part's message (-1). */
static int join_parts(struct rundata *rd, struct rd_part *p, int np)
{
	size_t n = 0, nesc = 0;

	for (int k = 0; k < np; k++)
		if (p[k].rc)
			return part_error(rd, &p[k]);
	for (int k = 0; k < np; k++) {
		if (p[k].row != rd->row + n)
			memmove(rd->row + n, p[k].row, p[k].n * sizeof(*rd->row));
		if (p[k].nesc) {
			rd->esc = xrealloc(rd->esc, (nesc + p[k].nesc) *
					   sizeof(*rd->esc));
			memcpy(rd->esc + nesc, p[k].esc, p[k].nesc * sizeof(*rd->esc));
			for (size_t e = 0; e < p[k].nesc; e++)
				rd->row[n + p[k].escpos[e]].dg = (uint32_t)(nesc + e);
		}
		n += p[k].n;
		nesc += p[k].nesc;
	}
	rd->n = n;
	rd->nesc = nesc;
	return 0;
}

/* join_parts() for rows written to the file: each device's rows of the
 * parts in order, the escapes one after the other (the second part's
 * rows say so: AN_R_PART1). Returns 0 or the first failed part's message
 * (-1). */
static int join_file_parts(struct rundata *rd, struct rd_part *p,
			   struct rf_writer *w, int np)
{
	int rc = 0;

	for (int k = 0; k < np && !rc; k++)
		if (p[k].rc)
			rc = part_error(rd, &p[k]);
	rowfile_join(rd->rows_file, w, np, rd->ndevs);
	if (rc)
		return rc;
	rd->n = 0;
	rd->nesc = 0;
	for (int k = 0; k < np; k++) {
		if (p[k].nesc) {
			rd->esc = xrealloc(rd->esc, (rd->nesc + p[k].nesc) *
					   sizeof(*rd->esc));
			memcpy(rd->esc + rd->nesc, p[k].esc,
			       p[k].nesc * sizeof(*rd->esc));
		}
		if (!k)
			rd->rows_file->nesc0 = p[k].nesc;
		rd->n += p[k].n;
		rd->nesc += p[k].nesc;
	}
	return 0;
}

/* Asks for transparent huge pages under the whole pages of [p, p + len)
 * (madvise(2) MADV_HUGEPAGE; THP "madvise" mode, Debian's default): the
 * row array is written once from start to end, and faulting it in 4 KiB
 * at a time was 6% of report's time at 5M events. A refusal changes
 * nothing but the speed. */
static void hugepages(void *p, size_t len)
{
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t b = ((uintptr_t)p + len) & ~(uintptr_t)4095;

	if (b > a + (2u << 20))
		madvise((void *)a, b - a, MADV_HUGEPAGE);
}

/* The fewest ids worth a second thread. */
#define RD_PART_MIN 50000

/* Every row, read by id in up to nparts parts at once (each on a handle
 * of its own: the first on rd's, the others on store_open_reader()'s):
 * into memory, a half of the ids each; to a file, RD_RANGES ranges of
 * them that the parts take in turn; then put by device. Returns 0, -1
 * after an error line, or 1 when the store cannot read in parts
 * (load_io_cursor() then). */
static int load_io_parts(struct rundata *rd, int nparts)
{
	struct store *st = rd->rv->st;
	struct rd_part p[2];
	struct rf_writer w[2];
	struct rd_ranges g;
	pthread_t th[2];
	int started[2] = { 0, 0 }, rc = 0, np = 1;
	int64_t lo, hi, span, cut[3];
	uint32_t *devs;
	size_t ndev;

	if ((rc = store_requests_span(st, rd->rv->id, &devs, &ndev, &lo, &hi))) {
		if (rc == -ENOTSUP)
			return 1;
		return error("%s: %s", store_name(st), store_errmsg(st));
	}
	span = hi - lo + 1;
	if (span > AN_MAX_IO || ndev > UINT16_MAX) {
		free(devs);
		return 1;       /* load_io_cursor() says why, or reads it */
	}
	rd->devs = devs;
	rd->ndevs = ndev;
	if (span <= 0)
		return 0;
	if (nparts > 1 && span >= RD_PART_MIN)
		np = 2;
	cut[0] = lo;
	cut[np] = hi + 1;
	if (np == 2)
		cut[1] = lo + span / 2;
	if (!rd->rows_file) {
		rd->row = xmalloc((size_t)span * sizeof(*rd->row));
		hugepages(rd->row, (size_t)span * sizeof(*rd->row));
	}
	memset(p, 0, sizeof(p));
	memset(w, 0, sizeof(w));
	for (int k = 0; k < np; k++) {
		p[k].rd = rd;
		if (rd->rows_file) {
			rf_writer_init(&w[k], rd->rows_file);
			p[k].w = &w[k];
			p[k].part1 = k == 1;
		} else
			p[k].row = rd->row + (cut[k] - lo);
		p[k].room = (size_t)(cut[k + 1] - cut[k]);
		p[k].st = st;
		if (k && store_open_reader(st, &p[k].st)) {
			/* no second handle: the first reads it all */
			p[k].st = NULL;
			np = 1;
			p[0].room = (size_t)span;
			break;
		}
	}
	cut[np] = hi + 1;
	/* to a file: the ranges, in turn */
	if (rd->rows_file && np > 1) {
		g = (struct rd_ranges){ rd->rv->id, lo, span, rd->rv->filtered ?
					&rd->rv->range : NULL, RD_RANGES, 0 };
		for (int k = 0; k < np; k++)
			p[k].ranges = &g;
	}
	for (int k = 0; k < np; k++) {
		if (k)
			store_cache_limit(p[k].st, RD_CACHE_KIB);
		if (p[k].ranges)
			continue;
		if (store_requests_open_ids(p[k].st, rd->rv->id, cut[k], cut[k + 1],
					    RD_COLS, rd->rv->filtered ?
					    &rd->rv->range : NULL, &p[k].cur)) {
			rc = error("%s: %s", store_name(st), store_errmsg(p[k].st));
			break;
		}
	}
	if (!rc) {
		for (int k = 1; k < np; k++)
			started[k] = !pthread_create(&th[k], NULL, part_read, &p[k]);
		for (int k = 1; k < np; k++)
			if (!started[k])
				part_read(&p[k]);    /* no thread: in turn */
		part_read(&p[0]);
		for (int k = 1; k < np; k++)
			if (started[k])
				pthread_join(th[k], NULL);
		rc = rd->rows_file ? join_file_parts(rd, p, w, np)
				   : join_parts(rd, p, np);
	} else if (rd->rows_file)
		rowfile_join(rd->rows_file, w, np, rd->ndevs);
	for (int k = 0; k < np; k++) {
		store_cursor_close(p[k].cur);
		if (k && p[k].st)
			store_close(p[k].st);
		free(p[k].esc);
		free(p[k].escpos);
	}
	return rc;
}

/* rd's requests: in parts where the store can, else through its cursor;
 * then by device. Returns 0 or -1 after an error line. */
static int load_io(struct rundata *rd, int nparts)
{
	int rc = load_io_parts(rd, nparts);

	if (rc > 0) {
		free(rd->devs);
		free(rd->row);
		rd->devs = NULL;
		rd->row = NULL;
		rd->ndevs = rd->n = 0;
		rc = load_io_cursor(rd);
	}
	if (rc < 0)
		return rc;
	if (rc)
		return rc;
	drop_empty_devs(rd);
	order_by_dev(rd);
	/* the rows read: the room a filter or a gap in the ids left unused
	 * back to the system */
	if (rd->n && rd->row)
		rd->row = xrealloc(rd->row, rd->n * sizeof(*rd->row));
	return 0;
}

void rundata_of_ios(struct rundata *rd, const struct runview *rv,
		    const struct an_io *io, size_t n)
{
	size_t *at;

	memset(rd, 0, sizeof(*rd));
	rd->rv = rv;
	rd->devs = xmalloc((n ? n : 1) * sizeof(*rd->devs));
	for (size_t i = 0; i < n; i++)
		rd->devs[i] = io[i].dev;
	qsort(rd->devs, n, sizeof(*rd->devs), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!rd->ndevs || rd->devs[rd->ndevs - 1] != rd->devs[i])
			rd->devs[rd->ndevs++] = rd->devs[i];
	rd->dev_first = xcalloc(rd->ndevs + 1, sizeof(*rd->dev_first));
	for (size_t i = 0; i < n; i++)
		rd->dev_first[rundata_dev_index(rd, io[i].dev) + 1]++;
	for (size_t k = 0; k < rd->ndevs; k++)
		rd->dev_first[k + 1] += rd->dev_first[k];
	at = xmalloc((rd->ndevs ? rd->ndevs : 1) * sizeof(*at));
	memcpy(at, rd->dev_first, rd->ndevs * sizeof(*at));
	rd->row = xmalloc((n ? n : 1) * sizeof(*rd->row));
	rd->esc = xmalloc((n ? n : 1) * sizeof(*rd->esc));
	for (size_t i = 0; i < n; i++) {
		int k = rundata_dev_index(rd, io[i].dev);
		struct an_row *r = &rd->row[at[k]++];
		if (an_row_pack(r, &io[i], (uint16_t)k)) {
			rd->esc[rd->nesc] = io[i];
			r->dg = (uint32_t)rd->nesc++;
			r->flags |= AN_R_ESC;
		}
	}
	rd->n = n;
	free(at);
}

int rundata_of_ios_file(struct rundata *rd, const struct runview *rv,
			const struct an_io *io, size_t n)
{
	struct rf_writer w;

	rundata_of_ios(rd, rv, io, n);
	rd->rows_file = xmalloc(sizeof(*rd->rows_file));
	if (rowfile_open(rd->rows_file)) {
		free(rd->rows_file);
		rd->rows_file = NULL;
		return -1;
	}
	rf_writer_init(&w, rd->rows_file);
	for (size_t i = 0; i < rd->n; i++) {
		struct an_io xb;
		if (rf_writer_add(&w, &rd->row[i],
				  an_io_first(rundata_io(rd, i, &xb))))
			break;
	}
	rf_writer_flush(&w);
	rowfile_join(rd->rows_file, &w, 1, rd->ndevs);
	free(rd->row);
	rd->row = NULL;
	return w.err ? -1 : 0;
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
	int64_t prev = AN_NONE;
	int rc;

	if (store_vmstat_open(st, rd->rv->id, STORE_VM_ALL, &cur))
		return error("%s: %s", store_name(st), store_errmsg(st));
	while ((rc = store_vmstat_next(cur, &row)) > 0) {
		struct an_vm *v;
		int64_t t0 = prev;
		prev = row.time_ns;
		if (row.since_boot) {
			rd->nvm_boot++;
			continue;
		}
		if (rd->nvm == cap) {
			cap = cap ? 2 * cap : 256;
			rd->vm = xrealloc(rd->vm, cap * sizeof(*rd->vm));
		}
		v = &rd->vm[rd->nvm++];
		v->t = row.time_ns;
		v->t0 = t0;
		v->si = row.v[STORE_VM_SI];
		v->so = row.v[STORE_VM_SO];
		v->bi = row.v[STORE_VM_BI];
		v->bo = row.v[STORE_VM_BO];
		v->swpd = row.v[STORE_VM_SWPD];
		v->free = row.v[STORE_VM_FREE];
		v->wa = row.v[STORE_VM_WA];
		v->r = row.v[STORE_VM_R];
		v->b = row.v[STORE_VM_B];
		v->us = row.v[STORE_VM_US];
		v->sy = row.v[STORE_VM_SY];
		v->id = row.v[STORE_VM_ID];
		v->cache = row.v[STORE_VM_CACHE];
	}
	store_cursor_close(cur);
	if (rc < 0)
		return error("%s: %s", store_name(st), store_errmsg(st));
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
	{ "meminfo", "AnonPages", offsetof(struct rundata, anon_kb), 1 },
	{ "memcg", "rss_bytes", offsetof(struct rundata, cg_anon_kb), 1.0 / 1024 },
	{ "memcg", "dirty_bytes", offsetof(struct rundata, cg_dirty_kb), 1.0 / 1024 },
	{ "memcg", "writeback_bytes", offsetof(struct rundata, cg_writeback_kb),
	  1.0 / 1024 },
};

static int load_raw(struct rundata *rd, struct store *st)
{
	static const char *const sources[] = { "meminfo", "vmstat", "psi",
					       "memcg" };
	size_t cap[ARRAY_SIZE(raw)] = { 0 };

	for (size_t k = 0; k < ARRAY_SIZE(sources); k++) {
		struct store_cursor *cur;
		struct store_sample sm;
		int rc;
		if (store_samples_open(st, rd->rv->id, sources[k], &cur))
			return error("%s: %s", store_name(st), store_errmsg(st));
		while ((rc = store_samples_next(cur, &sm)) > 0)
			for (size_t i = 0; i < ARRAY_SIZE(raw); i++)
				if (!strcmp(raw[i].source, sm.source) &&
				    !strcmp(raw[i].key, sm.key))
					series_push((struct an_series *)((char *)rd +
						    raw[i].off), &cap[i], sm.time_ns,
						    sm.value * raw[i].scale);
		store_cursor_close(cur);
		if (rc < 0)
			return error("%s: %s", store_name(st), store_errmsg(st));
	}
	return 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct an_task *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct an_task *task_of(struct rundata *rd, size_t *cap, uint32_t pid)
{
	/* samples come by time, each task's fields together: the last one
	 * added is the likeliest */
	for (size_t i = rd->ntask; i-- > 0;)
		if (rd->tasks[i].pid == pid)
			return &rd->tasks[i];
	if (rd->ntask == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		rd->tasks = xrealloc(rd->tasks, *cap * sizeof(*rd->tasks));
	}
	rd->tasks[rd->ntask] = (struct an_task){ .pid = pid, .start = AN_NONE,
		.exit = AN_NONE, .t_first = AN_NONE, .t_last = AN_NONE };
	for (int k = 0; k < AT_NFIELD; k++)
		rd->tasks[rd->ntask].first[k] = rd->tasks[rd->ntask].last[k] = NAN;
	return &rd->tasks[rd->ntask++];
}

/* The "task" samples (capture's delay accounting): "PID.FIELD" = value,
 * each field's first and last sample kept (they come by time). */
static int load_tasks(struct rundata *rd, struct store *st)
{
	static const char *const ns[AT_NFIELD] = {
		"cpu_ns", "cpu_delay_ns", "blkio_delay_ns", "swapin_delay_ns",
		"freepages_delay_ns", "thrashing_delay_ns", "compact_delay_ns",
	};
	struct store_cursor *cur;
	struct store_sample sm;
	size_t cap = 0;
	int rc;

	if (store_samples_open(st, rd->rv->id, "task", &cur))
		return error("%s: %s", store_name(st), store_errmsg(st));
	while ((rc = store_samples_next(cur, &sm)) > 0) {
		char *dot;
		unsigned long pid = strtoul(sm.key, &dot, 10);
		struct an_task *t;
		if (dot == sm.key || *dot != '.' || !pid || pid > UINT32_MAX ||
		    !isfinite(sm.value))
			continue;
		t = task_of(rd, &cap, (uint32_t)pid);
		if (t->t_first == AN_NONE || sm.time_ns < t->t_first)
			t->t_first = sm.time_ns;
		if (t->t_last == AN_NONE || sm.time_ns > t->t_last)
			t->t_last = sm.time_ns;
		dot++;
		if (!strcmp(dot, "ppid"))
			t->ppid = (uint32_t)sm.value;
		else if (!strcmp(dot, "start_ns"))
			t->start = (int64_t)sm.value;
		else if (!strcmp(dot, "exit_ns"))
			t->exit = (int64_t)sm.value;
		else if (!strcmp(dot, "blkio_count"))
			t->counts[AT_BLKIO] = sm.value;
		else if (!strcmp(dot, "swapin_count"))
			t->counts[AT_SWAPIN] = sm.value;
		else if (!strcmp(dot, "freepages_count"))
			t->counts[AT_FREEPAGES] = sm.value;
		else if (!strcmp(dot, "thrashing_count"))
			t->counts[AT_THRASHING] = sm.value;
		else
			for (int k = 0; k < AT_NFIELD; k++)
				if (!strcmp(dot, ns[k])) {
					/* the first sample of the field, and the
					 * latest (a task's samples come by time) */
					if (isnan(t->first[k]))
						t->first[k] = sm.value / 1e9;
					t->last[k] = sm.value / 1e9;
				}
	}
	store_cursor_close(cur);
	if (rc < 0)
		return error("%s: %s", store_name(st), store_errmsg(st));
	/* a field never stored was 0, unless the task counted delays of its
	 * kind: then the capture dropped it (a delay longer than the task's
	 * life: task_delays_dropped) and it stays NAN, not measured */
	for (size_t i = 0; i < rd->ntask; i++)
		for (int k = 0; k < AT_NFIELD; k++)
			if (isnan(rd->tasks[i].first[k]) && !(rd->tasks[i].counts[k] > 0))
				rd->tasks[i].first[k] = rd->tasks[i].last[k] = 0;
	if (rd->ntask)
		qsort(rd->tasks, rd->ntask, sizeof(*rd->tasks), cmp_task);
	return 0;
}

double rundata_task_s(const struct an_task *t, int k, int64_t t0)
{
	/* started in the window (or its start unknown and first seen in
	 * it): its totals are the window's */
	if ((t->start != AN_NONE && t->start >= t0) ||
	    (t->start == AN_NONE && t->t_first >= t0))
		return t->last[k];
	return t->last[k] - t->first[k];
}

const struct an_task *rundata_task(const struct rundata *rd, uint32_t pid)
{
	struct an_task key = { .pid = pid };

	if (!rd->ntask)
		return NULL;
	return bsearch(&key, rd->tasks, rd->ntask, sizeof(*rd->tasks), cmp_task);
}

/* The machine's CPUs: the capture's setting, else what import saw. */
static void load_ncpu(struct rundata *rd, struct store *st)
{
	struct store_stat *s;
	size_t n;
	char v[32];

	if (!rundata_setting(rd, "cpus", v, sizeof(v)) && atoi(v) > 0) {
		rd->ncpu = atoi(v);
		return;
	}
	if (store_stats_get(st, rd->rv->id, &s, &n))
		return;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].key, "cpus_seen") && s[i].value)
			rd->ncpu = atoi(s[i].value);
	free(s);
}

static int load_cmds(struct rundata *rd, struct store *st)
{
	struct store_command *c;
	size_t n;

	if (store_commands_get(st, rd->rv->id, &c, &n))
		return error("%s: %s", store_name(st), store_errmsg(st));
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
		return error("%s: %s", store_name(st), store_errmsg(st));
	for (size_t i = 0; i < n; i++)
		if (d[i].role && !strcmp(d[i].role, "swap") && rd->nswap < 8)
			rd->swap_dev[rd->nswap++] = d[i].dev;
	free(d);
	return 0;
}

/* Swap devices a trace without the capture's list shows (DESIGN.md: a
 * trace and a vmstat log alone): a device whose I/O is page-sized (4 to 64
 * KiB, 80% of it or more) whose writes are at most three times what
 * vmstat swapped out over the run and its reads at most three times what
 * it swapped in (1 MB more each), and one of them at least half of it. */
/* infer_swap()'s pass: each device's bios with data queued in the window,
 * their MB by direction, how many and how many small */
struct swap_scan {
	const struct rundata *rd;
	struct {
		double wmb, rmb, small, n;
	} *d;
};

static void swap_scan_ev(void *ctx, const struct fold_ev *e)
{
	struct swap_scan *ss = ctx;
	const struct an_io *x = e->io;
	uint32_t b = x->bytes;

	if (x->q == AN_NONE || x->q < ss->rd->t0 || x->q > ss->rd->t1 || !b)
		return;
	ss->d[e->devk].n++;
	if (x->flags & AN_WRITE)
		ss->d[e->devk].wmb += b / 1e6;
	else
		ss->d[e->devk].rmb += b / 1e6;
	ss->d[e->devk].small += b <= 64 * 1024;
}

static void infer_swap(struct rundata *rd)
{
	double so = 0, si = 0;
	struct swap_scan ss;

	if (rd->nswap || rd->nvm < 2)
		return;
	for (size_t i = 0; i < rd->nvm; i++) {
		double dt = rundata_vm_dt_s(&rd->vm[i]);
		if (dt <= 0 || rd->vm[i].t < rd->t0 || rd->vm[i].t0 > rd->t1)
			continue;
		if (isfinite(rd->vm[i].so))
			so += rd->vm[i].so * dt * 1024 / 1e6;
		if (isfinite(rd->vm[i].si))
			si += rd->vm[i].si * dt * 1024 / 1e6;
	}
	if (so + si < 1)
		return;
	ss.rd = rd;
	ss.d = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*ss.d));
	fold_run(rd, NULL, &(struct fold_sink){ swap_scan_ev, &ss,
						1u << FOLD_ROW }, 1);
	for (size_t k = 0; k < rd->ndevs && rd->nswap < 8; k++) {
		double wmb = ss.d[k].wmb, rmb = ss.d[k].rmb, small = ss.d[k].small;
		double n = ss.d[k].n;
		/* both directions as vmstat says: a data device with 606 MB
		 * of reads is no swap device because its 4 MB of writes
		 * match so, when si was 0 */
		if (n >= 16 && small >= 0.8 * n &&
		    wmb <= 3 * so + 1 && rmb <= 3 * si + 1 &&
		    ((so >= 1 && wmb >= 0.5 * so) || (si >= 1 && rmb >= 0.5 * si))) {
			rd->swap_dev[rd->nswap++] = rd->devs[k];
			rd->swap_inferred = 1;
		}
	}
	free(ss.d);
}

/* The run's settings into rd->settings (by key, start before end).
 * Returns 0, or -1 after an error line. */
static int load_settings(struct rundata *rd, struct store *st)
{
	if (store_settings_get(st, rd->rv->id, &rd->settings, &rd->nsettings))
		return error("%s: %s", store_name(st), store_errmsg(st));
	return 0;
}

int rundata_setting(const struct rundata *rd, const char *key, char *out,
		    size_t len)
{
	/* rows made in memory (rundata_of_ios()) have none */
	const struct store_setting *s = store_setting_find(rd->settings,
							   rd->nsettings, key,
							   STORE_AT_ANY);

	if (!s || !s->value)
		return -1;
	if (len)
		snprintf(out, len, "%s", s->value);
	return 0;
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

/* The name a command's processes have (comm, 15 bytes): its first word's
 * last path part ("/usr/bin/time dd ..." was cut to "dd ..." at import),
 * "" for none (a report that names no command). */
static void cmd_comm(const struct an_cmd *c, char *out, size_t len)
{
	const char *w = c->argv, *e, *slash;
	size_t n;

	out[0] = '\0';
	if (*w == '(' || !*w)
		return;
	e = w + strcspn(w, " \t");
	for (slash = w; (slash = memchr(slash, '/', (size_t)(e - slash)));
	     w = ++slash)
		;
	n = (size_t)(e - w) < 15 ? (size_t)(e - w) : 15;
	if (n >= len)
		n = len - 1;
	memcpy(out, w, n);
	out[n] = '\0';
}

/* 1 when command k's bit (its idx) is set in mask, one of the runview's
 * masks of what the pasted command line said came before it. */
static int cmd_bit(const struct rundata *rd, size_t k, uint64_t mask)
{
	int idx = rd->cmds[k].idx;

	return idx >= 0 && idx < 64 && ((mask >> idx) & 1);
}

/* Command k came right after the one before it ("time a; time b":
 * rv->cmds_after); ran beside it, which ran in the background ("time a &
 * time b": rv->cmds_at_once); came after a `wait`, once every one before
 * it ended ("time a & time b; wait; time c": rv->cmds_wait). */
static int after(const struct rundata *rd, size_t k)
{
	return cmd_bit(rd, k, rd->rv->cmds_after);
}

static int at_once(const struct rundata *rd, size_t k)
{
	return k > 0 && cmd_bit(rd, k, rd->rv->cmds_at_once);
}

static int after_wait(const struct rundata *rd, size_t k)
{
	return k > 0 && cmd_bit(rd, k, rd->rv->cmds_wait);
}

/* Pasted commands (`time` reports: import placed them one after another
 * from the first event, rv->cmds_placed) placed by the trace instead: ones
 * the paste measured apart on its own clock (rv->cmds_offset) all moved
 * together, so the anchored one with its first Q soonest after its start
 * starts there (none anchored: the first at the trace's first event).
 * Otherwise a command whose processes (by name) queued I/O started at
 * their first Q (a program's first I/O comes with its start: dd opening
 * its file, sync writing; a name an earlier command has anchors nothing);
 * one with none, after the command before it, or when none
 * anchored comes before it, ending where the next one starts; the last
 * ones with none end at the trace's last event (the capture stopped
 * after them: a sync's journal commit, the final writeback), unless the
 * pasted command line says each came right after the one before ("time
 * a; time b", with no "sleep 2" between); one it shows beside the one
 * before ("time a & time b") starts with it, one after a `wait` once all
 * before it ended. With no command anchored, the
 * first starts at the trace's first event. Where the trace says when it
 * began (rv->traced_from_ns, before its first event) and the commands'
 * times add up to what it traced (to 2%, or 50 ms), they are placed one
 * after another to end with it, before all this. Times only: what they
 * measured (real_s) stays. */
/* place_cmds()'s pass over each request once: the first and last times
 * of the trace (a request's first and last of Q, D, C), and each
 * command's first Q by its name (a[k], AN_NONE when none) */
struct cmd_scan {
	const struct rundata *rd;
	int64_t *a;
	char (*name)[16];
	size_t nc;
	int64_t first, last;
};

static void cmd_scan_ev(void *ctx, const struct fold_ev *e)
{
	struct cmd_scan *cs = ctx;
	const struct an_io *x = e->io;
	int64_t q = x->q, d = x->d, c = x->c;
	int64_t t0 = q != AN_NONE ? q : d != AN_NONE ? d : c;
	int64_t t1 = c != AN_NONE ? c : d != AN_NONE ? d : q;
	const char *comm;

	if (t0 == AN_NONE)
		return;
	if (t0 < cs->first)
		cs->first = t0;
	if (t1 > cs->last)
		cs->last = t1;
	if (q == AN_NONE || !(comm = runview_comm(cs->rd->rv, x->pid)))
		return;
	for (size_t k = 0; k < cs->nc; k++)
		if (cs->name[k][0] && !strncmp(comm, cs->name[k], 15) &&
		    (cs->a[k] == AN_NONE || q < cs->a[k]))
			cs->a[k] = q;
}

static void place_cmds(struct rundata *rd)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	int64_t *a, *len;
	char (*name)[16];
	size_t nc = rd->ncmd;
	int anchored = 0;

	if (!rd->rv || !nc || !rd->n || (rd->rv->cmds_placed != (int)nc &&
					 rd->rv->cmds_offset != (int)nc))
		return;
	a = xcalloc(nc, sizeof(*a));
	len = xcalloc(nc, sizeof(*len));
	name = xcalloc(nc, sizeof(*name));
	for (size_t k = 0; k < nc; k++) {
		a[k] = AN_NONE;
		len[k] = isfinite(rd->cmds[k].real_s) && rd->cmds[k].real_s > 0 ?
			 (int64_t)llround(rd->cmds[k].real_s * 1e9) : 0;
		cmd_comm(&rd->cmds[k], name[k], sizeof(name[k]));
		/* a name an earlier command has ("time fio w.fio; time fio
		 * r.fio"): its processes' first Q is the earlier one's, so it
		 * is placed from the commands around it */
		for (size_t j = 0; j < k; j++)
			if (!strcmp(name[j], name[k]))
				name[k][0] = '\0';
	}
	{
		struct cmd_scan cs = { rd, a, name, nc, INT64_MAX, INT64_MIN };
		fold_run(rd, NULL, &(struct fold_sink){ cmd_scan_ev, &cs,
							1u << FOLD_ROW }, 1);
		first = cs.first;
		last = cs.last;
	}
	for (size_t k = 0; k < nc; k++)
		anchored += a[k] != AN_NONE;
	if (first == INT64_MAX)
		goto out;
	if (rd->rv->cmds_offset == (int)nc) {
		/* measured apart on the paste's clock: all moved by one shift,
		 * the largest that starts no anchored command after its first
		 * Q (a process's first I/O comes at its start or after it) */
		int64_t shift = INT64_MAX, lo = INT64_MAX;
		for (size_t k = 0; k < nc; k++) {
			if (rd->cmds[k].start == AN_NONE || rd->cmds[k].end == AN_NONE)
				goto out;
			if (rd->cmds[k].start < lo)
				lo = rd->cmds[k].start;
			if (a[k] != AN_NONE && a[k] - rd->cmds[k].start < shift)
				shift = a[k] - rd->cmds[k].start;
		}
		if (shift == INT64_MAX)
			shift = first - lo;
		for (size_t k = 0; k < nc; k++) {
			rd->cmds[k].start += shift;
			rd->cmds[k].end += shift;
		}
		goto out;
	}
	{
		/* the trace says when it began (a start-time record before its
		 * first I/O) and the commands' times fill what it traced: they
		 * ran one after another over it (tracing started, the commands
		 * run, tracing stopped), whatever their first I/O says (sync's
		 * own comes last, after it waited for the flushers): placed to
		 * end with the trace, or from its start when they take longer */
		int64_t from = rd->rv->traced_from_ns, sum = 0, span, at;
		for (size_t k = 0; k < nc; k++)
			sum += len[k];
		span = last - from;
		int beside = 0;
		for (size_t k = 0; k < nc; k++)
			beside |= at_once(rd, k);
		if (!beside && from < first && sum > 0 && llabs(span - sum) <=
		    (sum / 50 > 50000000 ? sum / 50 : 50000000)) {
			at = sum <= span ? last - sum : from;
			for (size_t k = 0; k < nc; at += len[k], k++)
				a[k] = at;
			goto set;
		}
	}
	if (!anchored)
		a[0] = first;
	/* after the one before (forwards), or before the next (backwards) */
	for (size_t k = 1; k < nc; k++)
		if (a[k] == AN_NONE && a[k - 1] != AN_NONE && at_once(rd, k))
			a[k] = a[k - 1];      /* beside the one before */
		else if (a[k] == AN_NONE && a[k - 1] != AN_NONE && after_wait(rd, k)) {
			/* once every one before it ended */
			a[k] = a[k - 1] + len[k - 1];
			for (size_t j = 0; j < k; j++)
				if (a[j] != AN_NONE && a[j] + len[j] > a[k])
					a[k] = a[j] + len[j];
		} else if (a[k] == AN_NONE && a[k - 1] != AN_NONE) {
			size_t j = k;
			int tail = 1;
			while (j < nc && a[j] == AN_NONE)
				j++;
			/* the last ones, unless the command line says each
			 * came right after the one before, or one of them
			 * ran beside another */
			tail = j == nc;
			for (size_t m = k; tail && m < nc; m++)
				if (at_once(rd, m))
					tail = 0;
			for (size_t m = k; tail && m < nc; m++)
				if (!after(rd, m))
					break;
				else if (m == nc - 1)
					tail = 0;
			if (tail) {
				/* the last ones end at the trace's end, when
				 * that is after the one before ends */
				int64_t sum = 0, at;
				for (size_t m = k; m < nc; m++)
					sum += len[m];
				at = last - sum;
				if (at < a[k - 1] + len[k - 1])
					at = a[k - 1] + len[k - 1];
				for (size_t m = k; m < nc; m++, at += len[m - 1])
					a[m] = at;
				break;
			}
			a[k] = a[k - 1] + len[k - 1];
		}
	for (size_t k = nc - 1; k > 0; k--)
		if (a[k - 1] == AN_NONE && a[k] != AN_NONE)
			a[k - 1] = at_once(rd, k) ? a[k] : a[k] - len[k - 1];
set:
	for (size_t k = 0; k < nc; k++) {
		rd->cmds[k].start = a[k];
		rd->cmds[k].end = a[k] + len[k];
	}
out:
	free(a);
	free(len);
	free(name);
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
	{
		struct cmd_scan cs = { rd, NULL, NULL, 0, INT64_MAX, INT64_MIN };
		fold_run(rd, NULL, &(struct fold_sink){ cmd_scan_ev, &cs,
							1u << FOLD_ROW }, 1);
		lo = cs.first;
		hi = cs.last;
	}
	if (hi <= lo && rd->nvm) {
		/* no I/O traced (a vmstat log alone): the time its samples
		 * cover, not an empty window at 0 on the samples' clock */
		lo = rd->vm[0].t0 != AN_NONE ? rd->vm[0].t0 : rd->vm[0].t;
		hi = rd->vm[rd->nvm - 1].t;
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

/* Big arrays (one element or more per request) come from mmap and go back
 * to the system when freed: with glibc's default, the threshold grows to
 * the size of the first such array freed, and later ones, taken from the
 * heap, stay in the process's memory after free (mallopt(3)). */
#define RD_MMAP_THRESHOLD (128 * 1024)

int rundata_load(struct rundata *rd, const struct runview *rv)
{
	return rundata_load_parts(rd, rv, 2);
}

/* The most rows a stream from the file would hold at once, estimated:
 * each device's rows within its lateness of each other, at its mean rate
 * (a clock stepped back, two traces of one device run one after the
 * other: the whole run). */
static double rows_held(const struct rundata *rd)
{
	double most = 0;

	for (size_t k = 0; k < rd->rows_file->ndev; k++) {
		const struct rf_dev *d = &rd->rows_file->dev[k];
		double span = (double)(d->maxfirst - d->minfirst), held;
		if (!d->timed || d->late <= 0)
			continue;
		held = span > 0 && d->late < span ? (double)d->rows * (double)d->late
			/ span : (double)d->rows;
		if (held > most)
			most = held;
	}
	return most;
}

/* The rows of the file into memory (rd->row, by device), the file
 * closed: for a run whose streams would hold most of it anyway
 * (rows_held()), as compact as memory holds rows. Returns 0, or -1 after
 * an error line. */
static int rows_to_memory(struct rundata *rd)
{
	struct rowfile *f = rd->rows_file;
	size_t at = 0;

	rd->row = xmalloc((rd->n ? rd->n : 1) * sizeof(*rd->row));
	for (size_t k = 0; k < rd->ndevs; k++) {
		struct rf_reader r;
		struct an_row *x;
		int got;
		rf_reader_init(&r, f, k);
		while (at < rd->n && (got = rf_reader_next(&r, x = &rd->row[at])) > 0) {
			if ((x->flags & AN_R_ESC) && (x->flags & AN_R_PART1))
				x->dg += (uint32_t)f->nesc0;
			x->flags &= (uint16_t)~AN_R_PART1;
			at++;
		}
		rf_reader_free(&r);
		if (r.err)
			return error("reading run %s's requests back from a "
				     "temporary file: %s", rd->rv->name,
				     strerror(r.err));
	}
	rowfile_close(f);
	free(f);
	rd->rows_file = NULL;
	return 0;
}

int rundata_load_parts(struct rundata *rd, const struct runview *rv,
		       int nparts)
{
	return rundata_load_to(rd, rv, nparts, 0);
}

int rundata_load_to(struct rundata *rd, const struct runview *rv, int nparts,
		    int to_file)
{
	struct store *db = rv->st;
	int rc;

	memset(rd, 0, sizeof(*rd));
	rd->rv = rv;
	if (to_file) {
		rd->rows_file = xmalloc(sizeof(*rd->rows_file));
		if (rowfile_open(rd->rows_file)) {
			/* no temporary file: the rows in memory, as before */
			free(rd->rows_file);
			rd->rows_file = NULL;
		}
	}
	mallopt(M_MMAP_THRESHOLD, RD_MMAP_THRESHOLD);
	if (store_cache_limit(db, RD_CACHE_KIB)) {
		error("%s: %s", store_name(db), store_errmsg(db));
		return -1;
	}
	rc = load_io(rd, nparts);
	if (rc == -4) {
		/* the file could not hold them: in memory, as before */
		rundata_free(rd);
		rd->rv = rv;
		rc = load_io(rd, nparts);
	}
	if (!rc && rd->rows_file && rows_held(rd) > RF_HOLD_MAX)
		rc = rows_to_memory(rd);
	if (rc || load_vm(rd, db) || load_raw(rd, db) ||
	    load_cmds(rd, db) || load_devices(rd, db) || load_tasks(rd, db) ||
	    load_settings(rd, db)) {
		rundata_free(rd);
		return -1;
	}
	load_ncpu(rd, db);
	rd->dirty_bg_ratio = setting_num(rd, "vm.dirty_background_ratio");
	rd->dirty_ratio = setting_num(rd, "vm.dirty_ratio");
	place_cmds(rd);
	set_window(rd);
	infer_swap(rd);
	return 0;
}

static void close_rows_file(struct rundata *rd)
{
	if (!rd->rows_file)
		return;
	rowfile_close(rd->rows_file);
	free(rd->rows_file);
	rd->rows_file = NULL;
}

void rundata_drop_rows(struct rundata *rd)
{
	close_rows_file(rd);
	free(rd->row);
	free(rd->esc);
	rd->row = NULL;
	rd->esc = NULL;
	rd->nesc = 0;
}

void rundata_free(struct rundata *rd)
{
	free(rd->settings);
	rd->settings = NULL;
	rd->nsettings = 0;
	struct an_series *all[] = { &rd->dirty_kb, &rd->writeback_kb,
		&rd->dirty_thresh_kb, &rd->bg_thresh_kb, &rd->psi[0], &rd->psi[1], &rd->psi[2],
		&rd->psi[3], &rd->anon_kb, &rd->cg_anon_kb, &rd->cg_dirty_kb,
		&rd->cg_writeback_kb };

	close_rows_file(rd);
	free(rd->row);
	free(rd->esc);
	free(rd->devs);
	free(rd->dev_first);
	free(rd->vm);
	free(rd->cmds);
	free(rd->tasks);
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
