/* volume: the workload did more I/O. In one run it is the workload itself
 * (no cause); between two runs, the part of the device's difference from
 * more bytes at the better run's cost per byte, and, where readahead does
 * not claim it (reads no smaller), from more requests for the bytes
 * (critpath_diff()'s volume and mix: a shift-share split, Kitagawa 1955).
 * A writer added beside a reader, a kernel writing more metadata, a job
 * reading twice what it read before. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

struct vol_state {
	double mb[2], n[2];          /* [read, write]: MB and bios */
};

static void *vol_begin(const struct an_run *r)
{
	return r->rd.n ? xcalloc(1, sizeof(struct vol_state)) : NULL;
}

/* each bio with data once (discards apart) */
static void vol_ev(void *state, const struct fold_ev *e)
{
	struct vol_state *s = state;
	uint32_t fl = e->io->flags, b = e->io->bytes;
	int dir = (fl & AN_WRITE) != 0;

	if (!b || (fl & AN_DISCARD))
		return;
	s->mb[dir] += b / 1e6;
	s->n[dir]++;
}

static void *vol_end(const struct an_run *r, void *state)
{
	(void)r;
	return state;
}

static int vol_finding(const struct an_run *r, const void *state,
		       struct finding *f)
{
	const struct vol_state *s = state;

	snprintf(f->title, sizeof(f->title), "volume: %.1f MB read in %.0f bios, "
		 "%.1f MB written in %.0f bios", s->mb[0], s->n[0], s->mb[1],
		 s->n[1]);
	FD_CAT(f, evidence, "the run's bios with data: %.1f MB read in %.0f, "
	       "%.1f MB written in %.0f", s->mb[0], s->n[0], s->mb[1], s->n[1]);
	f->conf = FD_NONE;
	FD_CAT(f, why, "the workload's own I/O: a cause only against another "
	       "run");
	f->lo_s = 0;
	f->hi_s = r->cp.elapsed_s;
	return 1;
}

/* In compare: more bytes at the better run's cost per byte, and more
 * requests for the bytes where the reads did not get smaller (readahead's
 * part then) */
static double vol_mix(const struct cp_diff *d)
{
	/* writes the runs both made, in the window in one and not the
	 * other, are writeback's (an_writeback.c), not more work */
	double c = d->volume_s[0] +
		   (1 - d->writes_moved) * (d->volume_s[1] + d->mix_s[1]);

	if (!cp_reads_cut(d) && !cp_reads_scattered(d))
		c += d->mix_s[0];
	return c;
}

static void vol_emit(struct emit *e, const void *state)
{
	const struct vol_state *s = state;

	emit_num(e, "read_mb", s->mb[0]);
	emit_num(e, "read_bios", s->n[0]);
	emit_num(e, "write_mb", s->mb[1]);
	emit_num(e, "write_bios", s->n[1]);
}

static void vol_release(void *state)
{
	free(state);
}

const struct analyzer an_volume = {
	.name = "volume",
	.fold_begin = vol_begin,
	.fold_ev = vol_ev,
	.fold_end = vol_end,
	.fold_kinds = 1u << FOLD_ROW,
	.finding = vol_finding,
	.emit = vol_emit,
	.release = vol_release,
	.mix_cost = vol_mix,
	.mix_how = "the part of the device's difference from more bytes at "
		   "the better run's cost per byte, and from more requests for "
		   "them where the reads did not get smaller, class by class "
		   "(direction and size)",
	.compare_only = 1,
	.definitions =
"volume: the run's bios with data, MB and count by direction. In compare,\n"
"  the part of the device's difference from more bytes at the better run's\n"
"  cost per byte, and from more requests for them where the reads did not\n"
"  get smaller (readahead's part then); in one run the workload itself.\n",
};
