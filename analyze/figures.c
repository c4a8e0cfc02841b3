/* The headline figures of compared runs: each run's numbers (elapsed,
 * commands, MB/s, IOPS, latency percentiles, seeks, swap, dirty) and the
 * table of them with the % change, one emitter for text, Markdown and JSON
 * (compare.h). */
#include "compare.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/finding.h"
#include "analyze/question.h"
#include "analyze/stats.h"
#include "trace/blktrace_format.h"
#include "lib/util.h"

static int fig_index(struct figset *fs, const char *key, const char *label,
		     int lower_better, int decimals)
{
	for (int i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].key, key))
			return i;
	if (fs->n >= CMP_MAX_FIG)
		return -1;
	snprintf(fs->f[fs->n].key, sizeof(fs->f[0].key), "%s", key);
	snprintf(fs->f[fs->n].label, sizeof(fs->f[0].label), "%s", label);
	fs->f[fs->n].lower_better = lower_better;
	fs->f[fs->n].decimals = decimals;
	return fs->n++;
}

static void set(struct figset *fs, struct run_figs *r, const char *key,
		const char *label, int lower_better, int decimals, double v)
{
	int i = fig_index(fs, key, label, lower_better, decimals);

	/* a workload metric of this name stays: question_value() reads it
	 * before the figure, and the table shows what the question asks */
	if (i >= 0 && isfinite(v) && !r->wm_set[i]) {
		r->v[i] = v;
		r->has[i] = 1;
	}
}

/* The run's times (s), the question's figures first: elapsed, spans, the
 * workload's own results and each timed command's real s. */
static void fig_times(struct figset *fs, struct run_figs *r)
{
	const struct rundata *rd = &r->an.rd;

	/* the question is "why was one slower": its duration comes first,
	 * the commands' when they were timed, always the trace's span (the
	 * first to the last event, report's span) for a run with events */
	if (rd->elapsed_from_cmds)
		set(fs, r, "elapsed_s", "elapsed s (commands)", 1, 3,
		    rundata_elapsed_s(rd));
	if (r->rv.last_event)
		set(fs, r, "span_s", "trace span s", 1, 3,
		    (double)runview_span_ns(&r->rv) / 1e9);
	/* the workload's span: its processes' first Q to last C (family.h) */
	if (!rd->elapsed_from_cmds && r->an.cp.elapsed_s > 0)
		set(fs, r, "workload_span_s", "workload span s", 1, 3,
		    r->an.cp.elapsed_s);
	/* the workload's own results (fio, dd, regexes, set by hand) */
	for (size_t i = 0; i < r->nwm; i++) {
		const struct store_metric *m = &r->wm[i];
		char k[40], l[32];
		int way;
		if (m->derived)
			continue;       /* the commands' rows below (their
					 * times, dd's MB/s) */
		way = q_direction(m->name, m->unit);
		snprintf(k, sizeof(k), "%.39s", m->name);
		if (m->unit && *m->unit && strlen(m->name) + strlen(m->unit) < 31)
			snprintf(l, sizeof(l), "%.*s %.*s", (int)strlen(m->name),
				 m->name, 30 - (int)strlen(m->name), m->unit);
		else
			snprintf(l, sizeof(l), "%.31s", m->name);
		{
			/* in the first run's unit, as the question reads it
			 * (question.c term_units()): 5 GB/s against 700 MB/s
			 * is 5000 against 700, or no value in another
			 * quantity's unit */
			int fi = fig_index(fs, k, l, way != 0, 2);
			double f = 1;
			if (fi < 0)
				continue;
			if (!fs->f[fi].unit[0] && m->unit)
				snprintf(fs->f[fi].unit, sizeof(fs->f[fi].unit), "%s",
					 m->unit);
			if (unit_factor(m->unit, fs->f[fi].unit, &f))
				continue;
			set(fs, r, k, l, way != 0, 2, m->value * f);
			r->wm_set[fi] = r->has[fi];
		}
	}
	for (size_t i = 0; i < rd->ncmd; i++) {
		int idx = rd->cmds[i].idx;
		char k[40], l[32];
		/* numbered from 1, as `iotape metric` lists them */
		if (idx > 7 || !isfinite(rd->cmds[i].real_s))
			continue;
		snprintf(k, sizeof(k), "cmd%d_real_s", idx + 1);
		snprintf(l, sizeof(l), "cmd%d real s", idx + 1);
		set(fs, r, k, l, 1, 3, rd->cmds[i].real_s);
		/* dd's own MB/s (its "bytes copied, S s, R MB/s" line) */
		if (isfinite(r->rv.dd_bytes_per_s[idx])) {
			snprintf(k, sizeof(k), "cmd%d_dd_mb_s", idx + 1);
			snprintf(l, sizeof(l), "cmd%d dd MB/s", idx + 1);
			set(fs, r, k, l, 0, 1, r->rv.dd_bytes_per_s[idx] / 1e6);
		}
	}
}

/* Read and write MB/s and IOPS over span (s, the trace's) of every
 * device (completed bios for a device with no dispatches traced), then
 * each of the first four devices' MB/s. */
static void fig_rates(struct figset *fs, struct run_figs *r, double span,
		      const char *const dir[2])
{
	const struct report *rep = &r->rep;
	uint64_t ios[2] = { 0 }, bytes[2] = { 0 };

	for (size_t d = 0; d < rep->ndev; d++)
		for (int w = 0; w < 2; w++) {
			int c_only = !(rep->devs[d].dir[0].ios +
				       rep->devs[d].dir[1].ios);
			ios[w] += dir_ios(&rep->devs[d].dir[w], c_only);
			bytes[w] += dir_bytes(&rep->devs[d].dir[w], c_only);
		}
	for (int w = 0; w < 2; w++) {
		char k[40], l[32];
		snprintf(k, sizeof(k), "%s_mb_s", dir[w]);
		snprintf(l, sizeof(l), "%s MB/s", dir[w]);
		set(fs, r, k, l, 0, 2,
		    span > 0 ? (double)bytes[w] / 1e6 / span : 0);
		snprintf(k, sizeof(k), "%s_iops", dir[w]);
		snprintf(l, sizeof(l), "%s IOPS", dir[w]);
		set(fs, r, k, l, 0, 1, span > 0 ? (double)ios[w] / span : 0);
	}
	/* every run's devices (the table shows them when a run has
	 * several), so a device only one run has is "-" in the other */
	for (size_t d = 0; d < rep->ndev && d < 4; d++)
		for (int w = 0; w < 2; w++) {
			const struct dir_stats *ds = &rep->devs[d].dir[w];
			char k[40], l[32];
			snprintf(k, sizeof(k), "dev%u_%u_%s_mb_s",
				 BT_MAJOR(rep->devs[d].dev),
				 BT_MINOR(rep->devs[d].dev), dir[w]);
			snprintf(l, sizeof(l), "%u,%u %s MB/s",
				 BT_MAJOR(rep->devs[d].dev),
				 BT_MINOR(rep->devs[d].dev), dir[w]);
			/* the totals' rule (dir_bytes()): dispatches, else
			 * completions, else issued bios */
			set(fs, r, k, l, 0, 2, span > 0 ?
			    (double)dir_bytes(ds, !(rep->devs[d].dir[0].ios +
						   rep->devs[d].dir[1].ios)) / 1e6 /
			    span : 0);
		}
}

/* Q2C and D2C p50 and p99 (us) of reads and of writes, as report prints
 * them, but for Q2C a bio an X split counts once, from its Q to its last
 * piece's C (report's bio_q2c_dir: btt pairs neither half, so a run of
 * 1 MiB direct reads split by max_sectors_kb had no Q2C to ask about);
 * none for a direction with neither. */
static void fig_latency(struct figset *fs, struct run_figs *r,
			const char *const dir[2])
{
	const struct report *rep = &r->rep;

	for (int w = 0; w < 2; w++) {
		char k[40], l[32];
		if (!rep->bio_q2c_dir[w].n && !rep->d2c_dir[w].n)
			continue;
		/* Q2C p50, p99, then D2C p50, p99 */
		for (int m = 0; m < 4; m++) {
			const struct hist *h = m < 2 ? &rep->bio_q2c_dir[w] :
						       &rep->d2c_dir[w];
			const char *name = m < 2 ? "q2c" : "d2c";
			int pct = m % 2 ? 99 : 50;
			snprintf(k, sizeof(k), "%s_%s_p%d_us", dir[w], name, pct);
			snprintf(l, sizeof(l), "%s %s p%d us", dir[w],
				 m < 2 ? "Q2C" : "D2C", pct);
			if (h->n)
				set(fs, r, k, l, 1, 1, hist_pct(h, pct) / 1e3);
		}
	}
}

/* Long seeks (over 128 sectors) per s of span (s) over every device, and
 * the D2D seek mean (sectors) when anything was dispatched. */
static void fig_seeks(struct figset *fs, struct run_figs *r, double span)
{
	const struct report *rep = &r->rep;
	uint64_t n = 0, n128 = 0;
	double sum = 0;

	for (size_t d = 0; d < rep->ndev; d++) {
		n += rep->devs[d].seek.n;
		n128 += rep->devs[d].seeks_128;
		sum += rep->devs[d].seek.sum;
	}
	set(fs, r, "long_seeks_per_s", "seeks/s (>128 sectors)", 1, 1,
	    span > 0 ? (double)n128 / span : 0);
	/* no row of zeros when nothing was dispatched */
	if (n)
		set(fs, r, "seek_mean_sectors",
		    "D2D seek mean sectors", 1, 0, sum / (double)n);
}

/* Whether vm row v counts for the run's figures: its interval (the row
 * before it to it) overlaps the window the run is judged over, so that a
 * log of hours joined to a trace of seconds speaks of those seconds (a
 * run of samples alone is judged over all of them). */
static int vm_in_window(const struct rundata *rd, const struct an_vm *v)
{
	int64_t from = v->t0 != AN_NONE ? v->t0 : v->t;

	return rd->t1 <= rd->t0 || (v->t >= rd->t0 && from <= rd->t1);
}

/* From the run's vmstat rows in its window (vm_in_window()): swap out and
 * in (MB, si/so over each row's interval), peak swap used, peak dirty and
 * writeback (MB, meminfo's), minimum free (MB) and the mean CPU iowait %
 * (of the rows that give one from 0 to 100: a wrapped counter printed as
 * 3035110221 % is seen in real logs). */
static void fig_memory(struct figset *fs, struct run_figs *r)
{
	const struct rundata *rd = &r->an.rd;
	double out = 0, in = 0, peak = 0, minfree = -1, wa = 0;
	int nwa = 0;

	for (size_t i = 0; i < rd->nvm; i++) {
		const struct an_vm *v = &rd->vm[i];
		double dt = rundata_vm_dt_s(v);
		if (!vm_in_window(rd, v))
			continue;
		if (isfinite(v->so) && dt > 0) {
			out += v->so * dt * 1024 / 1e6;
			in += v->si * dt * 1024 / 1e6;
		}
		if (isfinite(v->wa) && v->wa >= 0 && v->wa <= 100) {
			wa += v->wa;
			nwa++;
		}
	}
	for (size_t i = 0; i < rd->nvm; i++) {
		if (!vm_in_window(rd, &rd->vm[i]))
			continue;
		if (isfinite(rd->vm[i].swpd) &&
		    rd->vm[i].swpd * 1024 / 1e6 > peak)
			peak = rd->vm[i].swpd * 1024 / 1e6;
		if (isfinite(rd->vm[i].free) && (minfree < 0 ||
		    rd->vm[i].free * 1024 / 1e6 < minfree))
			minfree = rd->vm[i].free * 1024 / 1e6;
	}
	set(fs, r, "swap_out_mb", "swap out MB", 1, 2, out);
	set(fs, r, "swap_in_mb", "swap in MB", 1, 2, in);
	set(fs, r, "peak_swap_mb", "peak swap used MB", 1, 2, peak);
	if (rd->dirty_kb.n) {
		double dp = 0, wp = 0;
		for (size_t i = 0; i < rd->dirty_kb.n; i++)
			dp = fmax(dp, rd->dirty_kb.v[i] * 1024 / 1e6);
		for (size_t i = 0; i < rd->writeback_kb.n; i++)
			wp = fmax(wp, rd->writeback_kb.v[i] * 1024 / 1e6);
		set(fs, r, "peak_dirty_mb", "peak dirty MB", 1, 1, dp);
		set(fs, r, "peak_writeback_mb", "peak writeback MB", 1, 1, wp);
	}
	if (minfree >= 0)
		set(fs, r, "min_free_mb", "min free MB", 0, 1, minfree);
	set(fs, r, "iowait_pct", "CPU iowait %", 1, 1, nwa ? wa / nwa : 0);
}

/* The headline figures of one run (see compare_usage for definitions),
 * each added to fs (its key, label and way) and set in r, in the table's
 * order: times, rates, latency, seeks (a run with requests), memory (a run
 * with vmstat rows). */
void figures(struct figset *fs, struct run_figs *r)
{
	const struct rundata *rd = &r->an.rd;
	double span = (double)r->rep.span_ns / 1e9;
	static const char *const dir[2] = { "read", "write" };

	fig_times(fs, r);
	if (rd->n) {
		fig_rates(fs, r, span, dir);
		fig_latency(fs, r, dir);
		fig_seeks(fs, r, span);
	}
	if (rd->nvm)
		fig_memory(fs, r);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double pct_change(double base, double v)
{
	return base != 0 ? 100.0 * (v - base) / fabs(base) : (v == 0 ? 0 : NAN);
}

static void fmt_num(char *out, size_t len, double v, int decimals)
{
	if (!isfinite(v))
		snprintf(out, len, "-");
	else if (fabs(v) >= 1e7)
		snprintf(out, len, "%.3g", v);
	else
		snprintf(out, len, "%.*f", decimals, v);
}

static void fmt_pct(char *out, size_t len, double p)
{
	if (!isfinite(p))
		snprintf(out, len, "n/a");
	else if (fabs(p) >= 1000)
		snprintf(out, len, "%+.0fx", p / 100 + 1);
	else
		snprintf(out, len, "%+.1f%%", p);
}

/* Groups: runs whose group names are equal. Returns the number of groups
 * and fills gidx[run] and names. */
int make_groups(struct run_figs *rf, int n, int *gidx,
		char names[][CMP_NAME_BYTES])
{
	int ng = 0;

	for (int i = 0; i < n; i++) {
		int g;
		for (g = 0; g < ng && strcmp(names[g], rf[i].group); g++)
			;
		if (g == ng)
			snprintf(names[ng++], CMP_NAME_BYTES, "%s",
				 rf[i].group);
		gidx[i] = g;
	}
	return ng;
}

/* Device figure f ("dev7_1_read_mb_s"): 1 and its major, minor and
 * direction (0 read, 1 write), else 0. */
static int dev_fig(const struct cmp_figure *f, unsigned *maj, unsigned *min,
		   int *w)
{
	char dir[8];

	if (sscanf(f->key, "dev%u_%u_%5[a-z]_mb_s", maj, min, dir) != 3)
		return 0;
	*w = !strcmp(dir, "write");
	return 1;
}

/* The order figures are shown in, whichever run brought them: a figure
 * only a later run has (a device, a latency of a run whose first had no
 * completions) sits where it belongs, not at the bottom. Keys no pattern
 * matches follow in the order they came. */
static const char *const fig_order[] = {
	"elapsed_s", "span_s", "cmd*_real_s", "cmd*_dd_mb_s", "read_mb_s",
	"read_iops",
	"write_mb_s", "write_iops", "dev*_mb_s", "read_q2c_p50_us",
	"read_q2c_p99_us", "read_d2c_p50_us", "read_d2c_p99_us",
	"write_q2c_p50_us", "write_q2c_p99_us", "write_d2c_p50_us",
	"write_d2c_p99_us", "long_seeks_per_s", "seek_mean_sectors",
	"swap_out_mb", "swap_in_mb", "peak_swap_mb", "peak_dirty_mb",
	"peak_writeback_mb", "min_free_mb", "iowait_pct",
};

/* Figure f's place: its pattern's index, then the device (major, minor,
 * read before write) or the key, then the order it came in. */
static int fig_before(const struct figset *fs, int a, int b)
{
	int ra = ARRAY_SIZE(fig_order), rb = ra;
	unsigned ma = 0, na = 0, mb = 0, nb = 0;
	int wa = 0, wb = 0;

	for (int k = 0; k < (int)ARRAY_SIZE(fig_order); k++) {
		if (ra == (int)ARRAY_SIZE(fig_order) &&
		    !fnmatch(fig_order[k], fs->f[a].key, 0))
			ra = k;
		if (rb == (int)ARRAY_SIZE(fig_order) &&
		    !fnmatch(fig_order[k], fs->f[b].key, 0))
			rb = k;
	}
	if (ra != rb)
		return ra < rb;
	if (ra < (int)ARRAY_SIZE(fig_order) && dev_fig(&fs->f[a], &ma, &na, &wa) &&
	    dev_fig(&fs->f[b], &mb, &nb, &wb) && (ma != mb || na != nb || wa != wb))
		return ma != mb ? ma < mb : na != nb ? na < nb : wa < wb;
	if (ra < (int)ARRAY_SIZE(fig_order) && strcmp(fs->f[a].key, fs->f[b].key))
		return strcmp(fs->f[a].key, fs->f[b].key) < 0;
	return a < b;
}

/* The figures to show, in fig_order (ord; returns how many): the device
 * rows only when a run has more than one device (else the totals say it
 * all). */
static int figure_order(const struct figset *fs, const struct run_figs *rf,
			int n, int *ord)
{
	int many = 0, nord = 0;

	for (int i = 0; i < n; i++)
		many |= rf[i].rep.ndev > 1;
	for (int f = 0; f < fs->n; f++) {
		unsigned a, b;
		int w, k;
		if (!many && dev_fig(&fs->f[f], &a, &b, &w))
			continue;
		/* insertion: a few dozen rows */
		for (k = nord; k > 0 && fig_before(fs, f, ord[k - 1]); k--)
			ord[k] = ord[k - 1];
		ord[k] = f;
		nord++;
	}
	return nord;
}

/* The table's columns and their figures: a column is a run, or a group of
 * runs (the median of its runs, their range). */
/* The most columns of runs a text table holds: 24 for the figure's name and
 * 11 a run, within 80 (with 3 or more runs no change column is beside
 * each). */
#define TABLE_COLS 5

struct ftable {
	int ng, gidx[CMP_MAX_RUNS];    /* columns; each run's column */
	char names[CMP_MAX_RUNS][CMP_NAME_BYTES];
	double med[CMP_MAX_RUNS][CMP_MAX_FIG], lo[CMP_MAX_RUNS][CMP_MAX_FIG];
	double hi[CMP_MAX_RUNS][CMP_MAX_FIG];
	int has[CMP_MAX_RUNS][CMP_MAX_FIG];
	int ord[CMP_MAX_FIG], nord;    /* the figures shown, in order */
	int num[CMP_MAX_RUNS];         /* a column's number when names are
					* cut ("[3]"); 0: its place + 1 */
};

/* The columns of the n runs rf: by group ("vm.dirty_ratio=10" shown as
 * "10": the key is in the header), else a run each, a long start the
 * names share shown once as "~" (text only, said above the table). */
static void table_columns(struct emit *e, int fmt, struct run_figs *rf,
			  int n, int grouped, struct ftable *t)
{
	size_t cp;

	if (grouped) {
		t->ng = make_groups(rf, n, t->gidx, t->names);
		for (int g = 0; g < t->ng; g++) {
			char *eq = strchr(t->names[g], '=');
			if (eq)
				memmove(t->names[g], eq + 1, strlen(eq + 1) + 1);
		}
		return;
	}
	cp = strlen(rf[0].rv.name);
	t->ng = n;
	/* columns are narrow: names sharing a long start show what differs
	 * ("lab[queue/scheduler=" + "none]", "mq-deadline]") */
	for (int i = 1; i < n; i++) {
		size_t k = 0;
		while (k < cp && rf[i].rv.name[k] == rf[0].rv.name[k])
			k++;
		cp = k;
	}
	/* cut after a separator ('-', '_', ' ', '/', '=', '[', ',', ':'),
	 * never inside a word or number ("kernel-6.1" of "kernel-6.18" and
	 * "kernel-6.1-", which would leave "~8"), and so never inside a UTF-8
	 * character; '.' is not one: it joins the parts of a version */
	while (cp && !strchr("-_ /=[,:", rf[0].rv.name[cp - 1]))
		cp--;
	for (int i = 0; i < n; i++)
		if (strlen(rf[i].rv.name) <= cp)
			cp = 0;
	if (cp < 6 || fmt != CMP_TEXT)
		cp = 0;
	for (int i = 0; i < n; i++) {
		t->gidx[i] = i;
		snprintf(t->names[i], sizeof(t->names[i]), "%s%s",
			 cp ? "~" : "", rf[i].rv.name + cp);
	}
	if (cp && fmt == CMP_TEXT) {
		/* in 80 columns, a long start of the names cut at the margin */
		char line[300], buf[400];
		snprintf(line, sizeof(line), "runs: ~ stands for '%.*s'", (int)cp,
			 rf[0].rv.name);
		wrap_indent(line, 78, 2, buf, sizeof(buf));
		emit_text(e, "%s\n", buf);
	}
}

/* Each column's median, min and max of each figure of its runs. */
static void table_values(const struct figset *fs, const struct run_figs *rf,
			 int n, struct ftable *t)
{
	for (int g = 0; g < t->ng; g++)
		for (int f = 0; f < fs->n; f++) {
			double vals[CMP_MAX_RUNS];
			int k = 0;
			for (int i = 0; i < n; i++)
				if (t->gidx[i] == g && rf[i].has[f])
					vals[k++] = rf[i].v[f];
			t->has[g][f] = k > 0;
			if (!k)
				continue;
			qsort(vals, (size_t)k, sizeof(double), cmp_double);
			t->med[g][f] = k % 2 ? vals[k / 2] :
				       (vals[k / 2 - 1] + vals[k / 2]) / 2;
			t->lo[g][f] = vals[0];
			t->hi[g][f] = vals[k - 1];
		}
}

/* The columns' figures as JSON members: per run (or group: median, min,
 * max), and the change in % against the first column. */
static void table_members(struct emit *e, const struct figset *fs,
			  int grouped, const struct ftable *t)
{
	emit_arr_begin(e, grouped ? "groups" : "runs");
	for (int g = 0; g < t->ng; g++) {
		emit_obj_begin(e, NULL);
		emit_str(e, "name", t->names[g]);
		emit_obj_begin(e, "figures");
		for (int o = 0, f; o < t->nord && (f = t->ord[o], 1); o++)
			if (t->has[g][f]) {
				if (grouped) {
					emit_obj_begin(e, fs->f[f].key);
					emit_num(e, "median", t->med[g][f]);
					emit_num(e, "min", t->lo[g][f]);
					emit_num(e, "max", t->hi[g][f]);
					emit_obj_end(e);
				} else
					emit_num(e, fs->f[f].key, t->med[g][f]);
			}
		emit_obj_end(e);
		if (g > 0) {
			emit_obj_begin(e, "change_pct");
			for (int o = 0, f; o < t->nord && (f = t->ord[o], 1); o++)
				if (t->has[g][f] && t->has[0][f])
					emit_num(e, fs->f[f].key,
						 pct_change(t->med[0][f], t->med[g][f]));
			emit_obj_end(e);
		}
		emit_obj_end(e);
	}
	emit_arr_end(e);
}

/* The header of the text or markdown table: a column of at most 10 (12
 * with a change beside it) characters per run; names too wide for it, or
 * not ASCII, numbered and given whole above. */
static void table_header(struct emit *e, int fmt, const struct run_figs *rf,
			 int grouped, const struct ftable *t)
{
	int show_change = t->ng <= 2, cw, cut = 0;

	if (fmt == CMP_MARKDOWN) {
		emit_text(e, "| figure |");
		for (int g = 0; g < t->ng; g++) {
			/* a run name's | and * would break the table */
			char esc[300];
			size_t o = 0;
			for (const char *c = t->names[g]; *c && o + 3 < sizeof(esc); c++) {
				if (strchr("|*_`\\[]", *c))
					esc[o++] = '\\';
				esc[o++] = *c;
			}
			esc[o] = '\0';
			emit_text(e, " %s |%s", esc, g ? " change |" : "");
		}
		emit_text(e, "\n|---|");
		for (int g = 0; g < t->ng; g++)
			emit_text(e, "---:|%s", g ? "---:|" : "");
		emit_text(e, "\n");
		return;
	}
	if (grouped)
		emit_text(e, "median of each group%s%.*s%s\n",
			  strchr(rf[0].group, '=') ? ", by " : "",
			  strchr(rf[0].group, '=') ?
			  (int)(strchr(rf[0].group, '=') - rf[0].group) : 0,
			  rf[0].group, strchr(rf[0].group, '=') ? "=" : "");
	/* a name wider than its column would be cut, and two cut names could
	 * read the same: then the columns are numbered and the names given
	 * whole above the table (so too a name of other than ASCII, which the
	 * padding would misalign) */
	cw = show_change ? 12 : 10;
	for (int g = 0; g < t->ng && !cut; g++)
		for (const char *c = t->names[g]; *c && !cut; c++)
			/* too wide, or not ASCII: printf pads bytes, not the
			 * columns a character takes */
			if (c - t->names[g] >= cw || (unsigned char)*c >= 0x80)
				cut = 1;
	for (int g = 0; cut && g < t->ng; g++)
		emit_text(e, "[%d] %s\n", t->num[g] ? t->num[g] : g + 1,
			  t->names[g]);
	emit_text(e, "%-24s", "");
	for (int g = 0; g < t->ng; g++) {
		char nm[16];
		if (cut)
			snprintf(nm, sizeof(nm), "[%d]", t->num[g] ? t->num[g]
							     : g + 1);
		else
			snprintf(nm, sizeof(nm), "%.15s", t->names[g]);
		emit_text(e, show_change ? " %12s" : " %10s", nm);
		if (g && show_change)
			emit_text(e, " %9s", "change");
	}
	emit_text(e, "\n");
}

/* The figures' rows of the text or markdown table; over three columns in
 * text, the changes against the first in a table of their own below. */
static void table_rows(struct emit *e, int fmt, const struct figset *fs,
		       const struct ftable *t)
{
	for (int o = 0, f; o < t->nord && (f = t->ord[o], 1); o++) {
		int show_change = t->ng <= 2 || fmt == CMP_MARKDOWN;
		if (fmt == CMP_MARKDOWN)
			emit_text(e, "| %s |", fs->f[f].label);
		else
			emit_text(e, "%-24.24s", fs->f[f].label);
		for (int g = 0; g < t->ng; g++) {
			char v[32] = "-", c[32] = "";
			if (t->has[g][f])
				fmt_num(v, sizeof(v), t->med[g][f], fs->f[f].decimals);
			if (g && t->has[g][f] && t->has[0][f])
				fmt_pct(c, sizeof(c), pct_change(t->med[0][f], t->med[g][f]));
			if (fmt == CMP_MARKDOWN)
				emit_text(e, " %s |%s%s%s", v, g ? " " : "", g ? c : "",
					  g ? " |" : "");
			else {
				emit_text(e, show_change ? " %12s" : " %10s", v);
				if (g && show_change && c[0])
					emit_text(e, " %9s", c);
			}
		}
		emit_text(e, "\n");
	}
	if (fmt != CMP_TEXT || t->ng <= 3)
		return;
	emit_text(e, "\n%-24s", "% change vs first");
	for (int g = 1; g < t->ng; g++) {
		char nm[16];
		snprintf(nm, sizeof(nm), "%.10s", t->names[g]);
		emit_text(e, " %10s", nm);
	}
	emit_text(e, "\n");
	for (int o = 0, f; o < t->nord && (f = t->ord[o], 1); o++) {
		emit_text(e, "%-24.24s", fs->f[f].label);
		for (int g = 1; g < t->ng; g++) {
			char c[32] = "-";
			if (t->has[g][f] && t->has[0][f])
				fmt_pct(c, sizeof(c), pct_change(t->med[0][f], t->med[g][f]));
			emit_text(e, " %10s", c);
		}
		emit_text(e, "\n");
	}
}

/* Below a table of groups: the figures whose spread inside a group is
 * larger than the difference between the groups' medians, and each
 * group's runs. */
static void table_groups(struct emit *e, const struct figset *fs,
			 const struct run_figs *rf, int n, const struct ftable *t)
{
	int noted = 0;

	for (int o = 0, f; o < t->nord && (f = t->ord[o], 1); o++)
		for (int g = 1; g < t->ng; g++) {
			double diff, spread = 0;
			char line[512];
			if (!t->has[g][f] || !t->has[0][f])
				continue;
			diff = fabs(t->med[g][f] - t->med[0][f]);
			for (int k = 0; k < t->ng; k++)
				if (t->has[k][f] && t->hi[k][f] - t->lo[k][f] > spread)
					spread = t->hi[k][f] - t->lo[k][f];
			if (!(spread > diff && diff > 0))
				continue;
			if (!noted++)
				emit_text(e, "\nwithin noise (spread within a group > "
					  "difference between medians):\n");
			snprintf(line, sizeof(line), "  %s: %s vs %s, difference "
				 "%.3g, spread up to %.3g", fs->f[f].label,
				 t->names[0], t->names[g], diff, spread);
			wrap_text(line, 76);
			emit_text(e, "%s\n", line);
		}
	for (int g = 0; g < t->ng; g++) {
		char line[2048];
		size_t o = (size_t)snprintf(line, sizeof(line), "%s%s:",
					    g ? "" : "groups (the explanation "
					    "compares the median run of each):\n",
					    t->names[g]);
		for (int i = 0; i < n && o < sizeof(line); i++)
			if (t->gidx[i] == g)
				o += (size_t)snprintf(line + o, sizeof(line) - o,
						      " %s", rf[i].rv.name);
		wrap_text(line, 78);
		emit_text(e, "%s%s\n", g ? "" : "\n", line);
	}
}

void print_table(struct emit *e, int fmt, struct figset *fs,
			struct run_figs *rf, int n, int grouped)
{
	struct ftable *t = xcalloc(1, sizeof(*t));

	table_columns(e, fmt, rf, n, grouped, t);
	table_values(fs, rf, n, t);
	t->nord = figure_order(fs, rf, n, t->ord);
	table_members(e, fs, grouped, t);
	if (fmt == CMP_TEXT && t->ng > TABLE_COLS) {
		/* over 80 columns: the first column and the next ones, as many
		 * as fit, a table at a time (6 runs were 90 columns, 60 were
		 * 684) */
		struct ftable *c = xcalloc(1, sizeof(*c));
		for (int g0 = 1; g0 < t->ng; g0 += TABLE_COLS - 1) {
			int k = 0;
			for (int g = 0; g < t->ng; g = g ? g + 1 : g0) {
				if (g && (g >= g0 + TABLE_COLS - 1))
					break;
				memcpy(c->names[k], t->names[g], sizeof(c->names[k]));
				memcpy(c->med[k], t->med[g], sizeof(c->med[k]));
				memcpy(c->lo[k], t->lo[g], sizeof(c->lo[k]));
				memcpy(c->hi[k], t->hi[g], sizeof(c->hi[k]));
				memcpy(c->has[k], t->has[g], sizeof(c->has[k]));
				c->num[k] = g + 1;
				c->gidx[k] = g;
				k++;
			}
			c->ng = k;
			memcpy(c->ord, t->ord, sizeof(c->ord));
			c->nord = t->nord;
			if (g0 > 1)
				emit_text(e, "\n");
			table_header(e, fmt, rf, grouped && g0 == 1, c);
			table_rows(e, fmt, fs, c);
		}
		free(c);
		if (grouped)
			table_groups(e, fs, rf, n, t);
	} else if (fmt != CMP_JSON) {
		/* text or markdown: columns of at most 10 characters each */
		table_header(e, fmt, rf, grouped, t);
		table_rows(e, fmt, fs, t);
		if (grouped)
			table_groups(e, fs, rf, n, t);
	}
	free(t);
}


