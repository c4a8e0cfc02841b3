/* device: the workload's I/O at the device's own speed. In one run it is
 * the workload itself (no cause: a run alone cannot say the device was
 * slow); between two runs, the part of the difference from requests of one
 * direction and size taking longer at the device (critpath_diff()'s
 * speed: the worse run's requests at its cost per request less at the
 * better's), a slower device or one doing other work. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

static void *dev_build(const struct an_run *r)
{
	if (!r->rd.n)
		return NULL;
	return xcalloc(1, 1);
}

/* The evidence of the classes compare's speed is told by (critpath_diff():
 * each direction and size's device time per request), the two with the
 * most of it: an overall D2C mean moves with the mix (a reader's 4 KiB
 * reads slower beside another run's big writes read as a device 5x
 * faster). Size classes as critpath's: up to 4 KiB, 8, ..., 512, over. */
static void class_evidence(struct finding *f, const struct critpath *cp)
{
	int pick[2] = { -1, -1 };

	for (int k = 0; k < 2; k++) {
		double best = 0;
		for (int c = 0; c < 2 * CP_SIZES; c++) {
			const struct cp_class *x = &cp->cls[c / CP_SIZES][c % CP_SIZES];
			if (x->nreq >= 1 && c != pick[0] &&
			    x->dev_s + x->seek_s > best) {
				best = x->dev_s + x->seek_s;
				pick[k] = c;
			}
		}
		if (pick[k] < 0)
			return;
		{
			int dir = pick[k] / CP_SIZES, sc = pick[k] % CP_SIZES;
			const struct cp_class *x = &cp->cls[dir][sc];
			char size[16];
			if (sc == CP_SIZES - 1)
				snprintf(size, sizeof(size), ">%uK", 4u << (CP_SIZES - 2));
			else
				snprintf(size, sizeof(size), "<=%uK", 4u << sc);
			FD_CAT(f, evidence, "%s %s %s %.0f requests, %.1f us each",
			       k ? "," : "; at the device's own speed:",
			       dir ? "writes" : "reads", size, x->nreq,
			       (x->dev_s + x->seek_s) / x->nreq * 1e6);
		}
	}
}

static int dev_finding(const struct an_run *r, const void *state,
		       struct finding *f)
{
	const struct critpath *cp = &r->cp;
	double n = 0, d2c = 0;

	(void)state;
	for (int dir = 0; dir < 2; dir++)
		for (int sc = 0; sc < CP_SIZES; sc++) {
			n += cp->cls[dir][sc].n;
			d2c += cp->cls[dir][sc].d2c_sum_ns;
		}
	f->present = cp->cat[CP_DEVICE] >= FD_MIN_S;
	snprintf(f->title, sizeof(f->title), "device: the workload waited "
		 "%.2f s on its I/O at the device's own speed", cp->cat[CP_DEVICE]);
	FD_CAT(f, how, "the workload's time waiting on its own I/O at the "
	       "device, at the D2C it took unloaded (a run alone cannot say "
	       "whether that is slow: compare it with a run on another device "
	       "or setting).");
	FD_CAT(f, evidence, "%.0f I/Os, D2C mean %.1f us", n,
	       n > 0 ? d2c / n / 1e3 : 0);
	class_evidence(f, cp);
	f->conf = FD_NONE;
	FD_CAT(f, why, "the workload's own I/O time: a cause only against "
	       "another run");
	f->lo_s = 0;
	f->hi_s = cp->elapsed_s;
	return 1;
}

static void dev_emit(struct emit *e, const void *state)
{
	(void)e;
	(void)state;
}

static void dev_release(void *state)
{
	free(state);
}

const struct analyzer an_device = {
	.name = "device",
	.build = dev_build,
	.finding = dev_finding,
	.emit = dev_emit,
	.release = dev_release,
	.cats = 1u << CP_DEVICE,
	.compare_only = 1,
	.definitions =
"device: the workload's I/O at the device's own speed (D2C unloaded). In\n"
"  compare, the part of the difference from requests of one direction and\n"
"  size taking longer at the device (a slower device).\n",
};
