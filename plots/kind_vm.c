/* The vm kind: memory (free, cache, dirty, writeback, swap used), swap in
 * and out, and block in and out over time from a run's samples (the vmstat
 * view, plus raw meminfo Dirty and Writeback), each command's start and end
 * marked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "plots/plot_int.h"

enum { V_FREE, V_CACHE, V_DIRTY, V_WB, V_SWAP, V_SI, V_SO, V_BI, V_BO, NV };

static const char *const vname[NV] = {
	"free", "cache", "dirty", "writeback", "swap used",
	"swap in", "swap out", "block in", "block out",
};

/* Panel of each series: 0 free memory MB (alone: on a big machine it
 * dwarfs the rest), 1 cache and swap used MB, 2 dirty and writeback MB,
 * 3 swap MB/s, 4 block MB/s. */
#define NPANEL 5
#define RATES 3             /* panels from here on are MB/s */
static const int vpanel[NV] = { 0, 1, 2, 2, 1, 3, 3, 4, 4 };

/* A series whose peak is under a tenth of its panel's peak is drawn on
 * the right-hand axis (y2), scaled to its own peak, so it does not lie
 * flat along the bottom (swap used under cache, writeback under dirty,
 * swap in under swap out). */
#define Y2_RATIO 10

/* proc when the run has /proc samples, else vmstat-log (as iotape vmstat) */
static int pick_source(struct plot_ctx *c, int64_t run, const char **src)
{
	int n = store_run_has(c->st, run, STORE_HAS_PROC_SAMPLES);

	if (n < 0)
		return error("%s", store_errmsg(c->st));
	*src = n ? "proc" : "vmstat-log";
	return 0;
}

/* A command's start or end as the picture marks it. */
struct vm_mark {
	double t;            /* s on the time axis */
	char text[96];       /* "start 1", with the run's label past one run */
};

static int cmp_mark(const void *a, const void *b)
{
	double x = ((const struct vm_mark *)a)->t, y = ((const struct vm_mark *)b)->t;

	return (x > y) - (x < y);
}

/* What vm_draw gathers from the samples and the commands before it draws:
 * the data blocks, which series each run has, the panels' ranges and the
 * commands' marks. */
struct vm_fig {
	int *idx;                /* each run's data block, -1 without samples */
	int (*have)[NV];         /* run i has a value of series v */
	double ymax[NPANEL];     /* each panel's peak (MB or MB/s) */
	double vmax[NV];         /* each series' peak (MB or MB/s) */
	double xlo, xhi;         /* the time axis (s): samples and commands */
	double free_lo;          /* free memory's low (MB) */
	int pan_has[NPANEL];     /* the panel has a series to draw */
	int npan;                /* panels drawn */
	struct vm_mark *marks;   /* the commands' starts and ends */
	size_t nmark;
};

/* Write run i's samples as one block of d, a row per sample in MB and MB/s
 * ('?' where not known), and widen f's ranges. f->idx[i] is the block, -1
 * without samples. Returns 0, 1 with why filled (a lone run without
 * samples) or -1 on an error (said). */
static int vm_write_run(struct plot_ctx *c, struct plot_dat *d, size_t i,
			struct vm_fig *f, char *why, size_t whylen)
{
	struct plot_run *r = &c->runs[i];
	const char *src = "proc";
	struct store_cursor *cur;
	struct store_vmstat vm;
	char buf[1024];
	int step, rc = 0;

	f->idx[i] = -1;
	if (pick_source(c, r->rv.id, &src))
		return -1;
	if (store_vmstat_open(c->st, r->rv.id, !strcmp(src, "proc")
			      ? STORE_VM_PROC : STORE_VM_LOG, &cur))
		return error("%s", store_errmsg(c->st));
	snprintf(buf, sizeof(buf), "run %s (samples: %s)", r->rv.name,
		 !strcmp(src, "proc") ? "/proc" : "vmstat log");
	plot_dat_block(d, buf);
	while ((step = store_vmstat_next(cur, &vm)) > 0) {
		/* in the order of enum V_* */
		const double col[NV] = {
			vm.v[STORE_VM_FREE], vm.v[STORE_VM_CACHE], vm.dirty_kb,
			vm.writeback_kb, vm.v[STORE_VM_SWPD], vm.v[STORE_VM_SI],
			vm.v[STORE_VM_SO], vm.v[STORE_VM_BI], vm.v[STORE_VM_BO],
		};
		int boot = vm.since_boot;
		char row[512];
		double t = plot_t(r, vm.time_ns);
		int len = snprintf(row, sizeof(row), "%.9g", t);
		f->xlo = fmin(f->xlo, t);
		f->xhi = fmax(f->xhi, t);
		for (int v = 0; v < NV; v++) {
			double x;
			if (isnan(col[v]) || (boot && vpanel[v] >= RATES)) {
				len += snprintf(row + len, sizeof(row) - len, " ?");
				continue;
			}
			/* kB and kB/s (1024 bytes) to MB and MB/s */
			x = col[v] * 1024 / 1e6;
			len += snprintf(row + len, sizeof(row) - len, " %.6g", x);
			f->have[i][v] = 1;
			f->ymax[vpanel[v]] = fmax(f->ymax[vpanel[v]], x);
			f->vmax[v] = fmax(f->vmax[v], x);
			if (v == V_FREE)
				f->free_lo = fmin(f->free_lo, x);
		}
		plot_dat_row(d, "%s", row);
	}
	store_cursor_close(cur);
	f->idx[i] = plot_dat_end(d);
	if (step < 0)
		rc = error("%s", store_errmsg(c->st));
	else if (f->idx[i] < 0 && c->nrun == 1) {
		snprintf(why, whylen, "run '%s' has no samples", r->rv.name);
		rc = 1;
	}   /* else said by the caller, once the others are known */
	return rc;
}

/* Mark each run's commands' starts and ends: a comment in d, a dashed line
 * in g, and (but in text) a mark in f->marks for its label; the marks widen
 * f's time axis. Returns 0 or -1 on an error (said). */
static int vm_mark_commands(struct plot_ctx *c, struct plot_dat *d,
			    struct plot_gp *g, struct vm_fig *f)
{
	for (size_t i = 0; i < c->nrun; i++) {
		struct plot_run *r = &c->runs[i];
		struct store_command *cmd;
		size_t ncmd;

		if (store_commands_get(c->st, r->rv.id, &cmd, &ncmd))
			return error("%s", store_errmsg(c->st));
		for (size_t k = 0; k < ncmd; k++) {
			int cmdi = cmd[k].idx;
			const char *argv = cmd[k].argv;
			const int64_t at[2] = { cmd[k].start_ns, cmd[k].end_ns };
			for (int e = 0; e < 2; e++) {
				double t;
				if (at[e] == STORE_NO_TIME)
					continue;
				t = plot_t(r, at[e]);
				f->xlo = fmin(f->xlo, t);
				f->xhi = fmax(f->xhi, t);
				plot_dat_comment(d, "run %s command %d %s at %.9g s: %.200s",
					r->rv.name, cmdi, e ? "end" : "start", t,
					argv ? argv : "");
				plot_gp(g, "set arrow from %.9g, graph 0 to %.9g, graph 1"
					" nohead dt 2 lc rgb '%s'\n", t, t,
					c->nrun > 1 ? plot_colours[i % PLOT_NCOLOURS]
						    : "#555555");
				if (g->format == PLOT_TXT)
					continue;   /* no room in 80 columns: lines only */
				f->marks = xrealloc(f->marks, (f->nmark + 1) *
						    sizeof(*f->marks));
				f->marks[f->nmark].t = t;
				snprintf(f->marks[f->nmark++].text, sizeof(f->marks->text),
					 "%s%s%s %d", c->nrun > 1 ? r->label : "",
					 c->nrun > 1 ? " " : "", e ? "end" : "start", cmdi);
			}
		}
		free(cmd);
	}
	return 0;
}

/* Label f's marks at the top of the picture, sorted by time: marks closer
 * than 2% of the time axis (one command's end, the next one's start) share
 * one label, which otherwise printed over each other. */
static void vm_label_marks(struct plot_gp *g, struct vm_fig *f)
{
	if (f->nmark)
		qsort(f->marks, f->nmark, sizeof(*f->marks), cmp_mark);
	for (size_t m = 0; m < f->nmark; m++) {
		size_t e = m;
		char text[200];
		snprintf(text, sizeof(text), "%s", f->marks[m].text);
		while (e + 1 < f->nmark && fabs(f->marks[e + 1].t - f->marks[m].t) <
		       0.02 * (f->xhi > f->xlo ? f->xhi - f->xlo : 1)) {
			e++;
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
				 ", %s", f->marks[e].text);
		}
		plot_gp(g, "set label ");
		plot_gp_str(g, text);
		plot_gp(g, " at %.9g, graph 0.97 rotate by 90 right"
			" offset -0.5,0 font ',7' tc rgb '#555555'\n", f->marks[m].t);
		m = e;
	}
}

/* Draw panel p (its title, y range and ticks, a right-hand axis for
 * series under a tenth of its peak, and a line per run and series). */
static void vm_draw_panel(struct plot_ctx *c, struct plot_gp *g,
			  const struct vm_fig *f, int p)
{
	static const char *const ptitle[NPANEL] = {
		"free memory (MB)", "cache and swap used (MB)",
		"dirty and writeback (MB)", "swap in and out (MB/s)",
		"block in and out (MB/s)"
	};
	const char *unit = p >= RATES ? "MB/s" : "MB";
	double y1max = 0, y2max = 0;
	int first = 1;

	for (int v = 0; v < NV; v++)
		if (vpanel[v] == p && f->vmax[v] > 0 &&
		    f->vmax[v] * Y2_RATIO < f->ymax[p])
			y2max = fmax(y2max, f->vmax[v]);
		else if (vpanel[v] == p)
			y1max = fmax(y1max, f->vmax[v]);
	plot_gp_panel(g, ptitle[p]);
	/* free memory alone: its own range, so its changes show; the
	 * others from 0; an all-zero panel gets a range of its own
	 * (gnuplot warns); about 4 ticks, short panels crowd */
	if (p == vpanel[V_FREE] && f->vmax[V_FREE] > f->free_lo)
		plot_gp(g, "set ylabel '%s'\nset yrange [*:*]\n"
			"set ytics autofreq\n", unit);
	else if (p == vpanel[V_FREE])   /* flat: gnuplot would warn */
		plot_gp(g, "set ylabel '%s'\nset yrange [%.10g:%.10g]\n"
			"set ytics autofreq\n", unit, f->free_lo - 1,
			f->vmax[V_FREE] + 1);
	else
		plot_gp(g, "set ylabel '%s'\nset yrange [0:%s]\n"
			"set ytics %.10g\n", unit, f->ymax[p] > 0 ? "*" : "1",
			plot_tick_step(y1max > 0 ? y1max : 1));
	if (y2max > 0) {
		plot_gp(g, "set ytics nomirror\nset y2tics %.10g\n"
			"set y2range [0:*]\n", plot_tick_step(y2max));
		/* dumb writes a y2 label over the border: the key's
		 * "(right)" says it there */
		if (g->format != PLOT_TXT)
			plot_gp(g, "set y2label '%s (right axis)'\n", unit);
	}
	else
		plot_gp(g, "set ytics mirror\nunset y2tics\n"
			"unset y2label\n");
	plot_gp(g, "plot ");
	for (size_t i = 0; i < c->nrun; i++) {
		if (f->idx[i] < 0)
			continue;
		for (int v = 0; v < NV; v++) {
			char t[128];
			if (vpanel[v] != p || !f->have[i][v])
				continue;
			int right = f->vmax[v] > 0 &&
				    f->vmax[v] * Y2_RATIO < f->ymax[p];
			snprintf(t, sizeof(t), "%s%s%s%s", c->nrun > 1 ?
				 c->runs[i].label : "", c->nrun > 1 ? " " : "",
				 vname[v], right ? " (right)" : "");
			plot_gp(g, "%sdat index %d using 1:%d axes x1%s with %s"
				" lw 1.5 dt %zu lc rgb '%s' title ",
				first ? "" : ", \\\n     ", f->idx[i], 2 + v,
				right ? "y2" : "y1",
				g->format == PLOT_TXT ? "lines"
				: "linespoints pt 7 ps 0.3",
				i % 5 + 1, plot_colours[v % PLOT_NCOLOURS]);
			plot_gp_str(g, t);
			first = 0;
		}
	}
	/* the marks' labels once, on the top panel */
	plot_gp(g, "\nunset label\n");
}

static int vm_draw(void *state, struct plot_ctx *c, char *why, size_t whylen)
{
	struct plot_dat d;
	struct plot_gp g;
	struct vm_fig f = {
		.idx = xcalloc(c->nrun, sizeof(*f.idx)),
		.have = xcalloc(c->nrun, sizeof(*f.have)),
		.xlo = INFINITY, .xhi = -INFINITY, .free_lo = INFINITY,
	};
	size_t with = 0;
	char buf[1024], title[256];
	int rc = 0, opened = 0;

	(void)state;
	snprintf(title, sizeof(title), "memory, swap and block I/O from the"
		 " samples; commands marked");
	snprintf(buf, sizeof(buf),
		 "vmstat(8) columns per sample (the store's vmstat view: /proc\n"
		 "samples of a capture, else an imported vmstat log's rows), and\n"
		 "/proc/meminfo Dirty and Writeback where sampled. MB = 10^6 bytes.\n"
		 "'?' = not known (a first sample's rates, a since-boot row's rates)\n"
		 "columns: time_s free_MB cache_MB dirty_MB writeback_MB"
		 " swap_used_MB\n"
		 "         si_MB/s so_MB/s bi_MB/s bo_MB/s\n"
		 "blocks: one per run");
	if (plot_dat_open(&d, c, PLOT_VM, buf)) {
		rc = -1;
		goto out;
	}
	opened = 1;
	for (size_t i = 0; i < c->nrun && !rc; i++) {
		rc = vm_write_run(c, &d, i, &f, why, whylen);
		if (!rc && f.idx[i] >= 0)
			with++;
	}
	if (!rc && !with) {
		snprintf(why, whylen, "none of the runs has samples");
		rc = 1;
	}
	for (size_t i = 0; i < c->nrun && !rc; i++)
		if (f.idx[i] < 0)
			fprintf(stderr, "iotape: vm: run '%s' has no samples; drawn"
				" without it\n", c->runs[i].rv.name);
	if (rc)
		goto out;

	for (size_t i = 0; i < c->nrun; i++)
		for (int v = 0; v < NV; v++)
			if (f.idx[i] >= 0 && f.have[i][v] && !f.pan_has[vpanel[v]]) {
				f.pan_has[vpanel[v]] = 1;
				f.npan++;
			}
	/* the commands, as comments in the data and marks in the picture;
	 * a panel's key beside it, an entry ~16 px */
	if (plot_gp_open(&g, c, PLOT_VM, title, f.npan, (int)(48 * c->nrun) + 130
			 > 240 ? (int)(48 * c->nrun) + 130 : 240, 0)) {
		rc = -1;
		goto out;
	}
	plot_gp(&g, "set datafile missing '?'\n");
	rc = vm_mark_commands(c, &d, &g, &f);
	vm_label_marks(&g, &f);
	free(f.marks);
	if (!rc)
		rc = plot_dat_close(&d);
	opened = 0;
	plot_gp_panels(&g, f.npan, 1, title);
	plot_gp_margins(&g, plot_label_chars(c) + 19);
	if (!(f.xhi > f.xlo))
		f.xhi = f.xlo + 1;
	/* one time axis for every panel, the commands' marks inside it */
	plot_gp(&g, "set xlabel 'time (s)'\nset xrange [%.9g:%.9g]\n",
		f.xlo - (f.xhi - f.xlo) * 0.01, f.xhi + (f.xhi - f.xlo) * 0.01);
	for (int p = 0; p < NPANEL; p++)
		if (f.pan_has[p])   /* else not sampled (Dirty: captures only) */
			vm_draw_panel(c, &g, &f, p);
	if (plot_gp_close(&g))
		rc = -1;
out:
	if (opened && plot_dat_close(&d) && !rc)
		rc = -1;
	free(f.idx);
	free(f.have);
	return rc;
}

const struct plot_kind_ops plot_kind_vm = {
	"vm", NULL, NULL, vm_draw, NULL,
};
