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
	/* the classes compare's speed is told by (critpath_diff(): each
	 * direction and size's device time per request), the two with the
	 * most of it: an overall D2C mean moves with the mix (a reader's
	 * 4 KiB reads slower beside another run's big writes read as a
	 * device 5x faster) */
	{
		int top[2][2] = { { -1, -1 }, { -1, -1 } }, nt = 0;
		double best[2] = { 0, 0 };
		for (int dir = 0; dir < 2; dir++)
			for (int sc = 0; sc < CP_SIZES; sc++) {
				const struct cp_class *c = &cp->cls[dir][sc];
				double t = c->dev_s + c->seek_s;
				if (c->nreq < 1 || t <= best[1])
					continue;
				if (t > best[0]) {
					best[1] = best[0];
					top[1][0] = top[0][0];
					top[1][1] = top[0][1];
					best[0] = t;
					top[0][0] = dir;
					top[0][1] = sc;
				} else {
					best[1] = t;
					top[1][0] = dir;
					top[1][1] = sc;
				}
			}
		for (int k = 0; k < 2; k++) {
			const struct cp_class *c;
			char size[16];
			if (top[k][0] < 0)
				continue;
			c = &cp->cls[top[k][0]][top[k][1]];
			if (top[k][1] == CP_SIZES - 1)
				snprintf(size, sizeof(size), ">%uK", 4u << (CP_SIZES - 2));
			else
				snprintf(size, sizeof(size), "<=%uK", 4u << top[k][1]);
			FD_CAT(f, evidence, "%s %s %s %.0f requests, %.1f us each", nt++ ?
			       "," : "; at the device's own speed:", top[k][0] ?
			       "writes" : "reads", size, c->nreq,
			       (c->dev_s + c->seek_s) / c->nreq * 1e6);
		}
	}
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
