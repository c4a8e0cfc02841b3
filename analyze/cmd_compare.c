/* `iotape compare`: headline figures of two or more runs side by side with
 * the % change against the first (or between groups of a sweep), then the
 * analyzers' explanation of the difference, ranked; text for a mailing list
 * (80 columns), --markdown for web trackers, --json for scripts. */
#include <fnmatch.h>
#include <getopt.h>
#include <unistd.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/report.h"
#include "analyze/runview.h"
#include "commands.h"
#include "lib/emit.h"
#include "lib/util.h"

#define MAX_RUNS 64
#define MAX_FIG 48

enum { FMT_TEXT, FMT_MARKDOWN, FMT_JSON };

struct figure {
	char key[40];       /* JSON key */
	char label[32];     /* text label, with unit */
	int lower_better;   /* for the reader: a rise is worse */
	int decimals;
};

struct run_figs {
	struct runview rv;
	struct report rep;
	struct analysis an;
	double v[MAX_FIG];
	int has[MAX_FIG];
	char group[128];
};

struct figset {
	struct figure f[MAX_FIG];
	int n;
};

static int fig_index(struct figset *fs, const char *key, const char *label,
		     int lower_better, int decimals)
{
	for (int i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].key, key))
			return i;
	if (fs->n >= MAX_FIG)
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

	if (i >= 0 && isfinite(v)) {
		r->v[i] = v;
		r->has[i] = 1;
	}
}

/* The headline figures of one run (see compare_usage for definitions). */
static void figures(struct figset *fs, struct run_figs *r)
{
	struct store_command *cmd;
	size_t ncmd;
	struct report *rep = &r->rep;
	struct analysis *an = &r->an;
	double span = (double)rep->span_ns / 1e9;
	uint64_t ios[2] = { 0 }, bytes[2] = { 0 };
	static const char *const dir[2] = { "read", "write" };

	if (!store_commands_get(r->rv.st, r->rv.id, &cmd, &ncmd)) {
		for (size_t i = 0; i < ncmd; i++) {
			int idx = cmd[i].idx;
			char k[40], l[32];
			if (idx > 7 || isnan(cmd[i].real_s))
				continue;
			snprintf(k, sizeof(k), "cmd%d_real_s", idx);
			snprintf(l, sizeof(l), "cmd %d real s", idx);
			set(fs, r, k, l, 1, 2, cmd[i].real_s);
			snprintf(k, sizeof(k), "cmd%d_user_s", idx);
			snprintf(l, sizeof(l), "cmd %d user s", idx);
			set(fs, r, k, l, 1, 2, cmd[i].user_s);
			snprintf(k, sizeof(k), "cmd%d_sys_s", idx);
			snprintf(l, sizeof(l), "cmd %d sys s", idx);
			set(fs, r, k, l, 1, 2, cmd[i].sys_s);
		}
		free(cmd);
	}
	if (an->has_trace) {
		for (size_t d = 0; d < rep->ndev; d++)
			for (int w = 0; w < 2; w++) {
				int c_only = !(rep->devs[d].dir[0].ios + rep->devs[d].dir[1].ios);
				ios[w] += c_only ? rep->devs[d].dir[w].c_only_ios
						 : rep->devs[d].dir[w].ios;
				bytes[w] += c_only ? rep->devs[d].dir[w].c_only_bytes
						   : rep->devs[d].dir[w].bytes;
			}
		for (int w = 0; w < 2; w++) {
			char k[40], l[32];
			snprintf(k, sizeof(k), "%s_mb_s", dir[w]);
			snprintf(l, sizeof(l), "%s MB/s", dir[w]);
			set(fs, r, k, l, 0, 2, span > 0 ? (double)bytes[w] / 1e6 / span : 0);
			snprintf(k, sizeof(k), "%s_iops", dir[w]);
			snprintf(l, sizeof(l), "%s IOPS", dir[w]);
			set(fs, r, k, l, 0, 1, span > 0 ? (double)ios[w] / span : 0);
		}
		if (rep->ndev > 1)
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
					set(fs, r, k, l, 0, 2, span > 0 ?
					    (double)(ds->bytes + ds->c_only_bytes) / 1e6 / span : 0);
				}
		for (int w = 0; w < 2; w++) {
			char k[40], l[32];
			if (!rep->q2c_dir[w].n && !rep->d2c_dir[w].n)
				continue;
			snprintf(k, sizeof(k), "%s_q2c_p50_ms", dir[w]);
			snprintf(l, sizeof(l), "%s Q2C p50 ms", dir[w]);
			set(fs, r, k, l, 1, 3, hist_pct(&rep->q2c_dir[w], 50) / 1e6);
			snprintf(k, sizeof(k), "%s_q2c_p99_ms", dir[w]);
			snprintf(l, sizeof(l), "%s Q2C p99 ms", dir[w]);
			set(fs, r, k, l, 1, 3, hist_pct(&rep->q2c_dir[w], 99) / 1e6);
			snprintf(k, sizeof(k), "%s_d2c_p50_ms", dir[w]);
			snprintf(l, sizeof(l), "%s D2C p50 ms", dir[w]);
			set(fs, r, k, l, 1, 3, hist_pct(&rep->d2c_dir[w], 50) / 1e6);
			snprintf(k, sizeof(k), "%s_d2c_p99_ms", dir[w]);
			snprintf(l, sizeof(l), "%s D2C p99 ms", dir[w]);
			set(fs, r, k, l, 1, 3, hist_pct(&rep->d2c_dir[w], 99) / 1e6);
		}
		set(fs, r, "long_seeks_per_s", "seeks/s (>128 sectors)", 1, 1,
		    an->seeks_per_s);
		set(fs, r, "seek_mean_sectors", "D2D seek mean sectors", 1, 0,
		    an->seek_mean);
	}
	if (an->has_samples) {
		set(fs, r, "swap_out_mb", "swap out MB", 1, 2, an->swap_out_mb);
		set(fs, r, "swap_in_mb", "swap in MB", 1, 2, an->swap_in_mb);
		set(fs, r, "peak_swap_mb", "peak swap used MB", 1, 2, an->peak_swap_mb);
		if (an->has_meminfo) {
			set(fs, r, "peak_dirty_mb", "peak dirty MB", 1, 1, an->dirty_peak_mb);
			set(fs, r, "peak_writeback_mb", "peak writeback MB", 1, 1,
			    an->wb_peak_mb);
		}
		if (an->min_free_mb >= 0)
			set(fs, r, "min_free_mb", "min free MB", 0, 1, an->min_free_mb);
		set(fs, r, "iowait_pct", "CPU iowait %", 1, 1, an->iowait_pct);
	}
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
static int make_groups(struct run_figs *rf, int n, int *gidx, char names[][128])
{
	int ng = 0;

	for (int i = 0; i < n; i++) {
		int g;
		for (g = 0; g < ng && strcmp(names[g], rf[i].group); g++)
			;
		if (g == ng)
			snprintf(names[ng++], 128, "%s", rf[i].group);
		gidx[i] = g;
	}
	return ng;
}

static void print_table(struct emit *e, int fmt, struct figset *fs,
			struct run_figs *rf, int n, int grouped)
{
	int gidx[MAX_RUNS], ng;
	char names[MAX_RUNS][128];
	double med[MAX_RUNS][MAX_FIG], lo[MAX_RUNS][MAX_FIG], hi[MAX_RUNS][MAX_FIG];
	int has[MAX_RUNS][MAX_FIG];

	if (grouped) {
		ng = make_groups(rf, n, gidx, names);
		/* "vm.dirty_ratio=10" → "10" for the columns: the key is in the
		 * header */
		for (int g = 0; g < ng; g++) {
			char *eq = strchr(names[g], '=');
			if (eq)
				memmove(names[g], eq + 1, strlen(eq + 1) + 1);
		}
	}
	else {
		size_t cp = strlen(rf[0].rv.name);
		ng = n;
		/* columns are narrow: names sharing a long start show what
		 * differs ("lab[queue/scheduler=" + "none]", "mq-deadline]") */
		for (int i = 1; i < n; i++) {
			size_t k = 0;
			while (k < cp && rf[i].rv.name[k] == rf[0].rv.name[k])
				k++;
			cp = k;
		}
		for (int i = 0; i < n; i++)
			if (strlen(rf[i].rv.name) <= cp)
				cp = 0;
		if (cp < 6 || fmt != FMT_TEXT)
			cp = 0;
		for (int i = 0; i < n; i++) {
			gidx[i] = i;
			snprintf(names[i], 128, "%s%s", cp ? "~" : "", rf[i].rv.name + cp);
		}
		if (cp && fmt == FMT_TEXT)
			emit_text(e, "runs: ~ stands for '%.*s'\n", (int)cp, rf[0].rv.name);
	}
	for (int g = 0; g < ng; g++)
		for (int f = 0; f < fs->n; f++) {
			double vals[MAX_RUNS];
			int k = 0;
			for (int i = 0; i < n; i++)
				if (gidx[i] == g && rf[i].has[f])
					vals[k++] = rf[i].v[f];
			has[g][f] = k > 0;
			if (!k)
				continue;
			qsort(vals, (size_t)k, sizeof(double), cmp_double);
			med[g][f] = k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2;
			lo[g][f] = vals[0];
			hi[g][f] = vals[k - 1];
		}

	emit_arr_begin(e, grouped ? "groups" : "runs");
	for (int g = 0; g < ng; g++) {
		emit_obj_begin(e, NULL);
		emit_str(e, "name", names[g]);
		emit_obj_begin(e, "figures");
		for (int f = 0; f < fs->n; f++)
			if (has[g][f]) {
				if (grouped) {
					emit_obj_begin(e, fs->f[f].key);
					emit_num(e, "median", med[g][f]);
					emit_num(e, "min", lo[g][f]);
					emit_num(e, "max", hi[g][f]);
					emit_obj_end(e);
				} else
					emit_num(e, fs->f[f].key, med[g][f]);
			}
		emit_obj_end(e);
		if (g > 0) {
			emit_obj_begin(e, "change_pct");
			for (int f = 0; f < fs->n; f++)
				if (has[g][f] && has[0][f])
					emit_num(e, fs->f[f].key, pct_change(med[0][f], med[g][f]));
			emit_obj_end(e);
		}
		emit_obj_end(e);
	}
	emit_arr_end(e);
	if (fmt == FMT_JSON)
		return;

	/* text or markdown: columns of at most 10 characters each */
	if (fmt == FMT_MARKDOWN) {
		emit_text(e, "| figure |");
		for (int g = 0; g < ng; g++) {
			/* a run name's | and * would break the table */
			char esc[300];
			size_t o = 0;
			for (const char *c = names[g]; *c && o + 3 < sizeof(esc); c++) {
				if (strchr("|*_`\\[]", *c))
					esc[o++] = '\\';
				esc[o++] = *c;
			}
			esc[o] = '\0';
			emit_text(e, " %s |%s", esc, g ? " change |" : "");
		}
		emit_text(e, "\n|---|");
		for (int g = 0; g < ng; g++)
			emit_text(e, "---:|%s", g ? "---:|" : "");
		emit_text(e, "\n");
	} else {
		int show_change = ng <= 3;
		if (grouped)
			emit_text(e, "median of each group%s%.*s%s\n",
				  strchr(rf[0].group, '=') ? ", by " : "",
				  strchr(rf[0].group, '=') ?
				  (int)(strchr(rf[0].group, '=') - rf[0].group) : 0,
				  rf[0].group, strchr(rf[0].group, '=') ? "=" : "");
		emit_text(e, "%-24s", "");
		for (int g = 0; g < ng; g++) {
			char nm[16];
			snprintf(nm, sizeof(nm), "%.*s", show_change ? 12 : 10, names[g]);
			emit_text(e, show_change ? " %12s" : " %10s", nm);
			if (g && show_change)
				emit_text(e, " %9s", "change");
		}
		emit_text(e, "\n");
	}
	for (int f = 0; f < fs->n; f++) {
		int show_change = ng <= 3 || fmt == FMT_MARKDOWN;
		if (fmt == FMT_MARKDOWN)
			emit_text(e, "| %s |", fs->f[f].label);
		else
			emit_text(e, "%-24.24s", fs->f[f].label);
		for (int g = 0; g < ng; g++) {
			char v[32] = "-", c[32] = "";
			if (has[g][f])
				fmt_num(v, sizeof(v), med[g][f], fs->f[f].decimals);
			if (g && has[g][f] && has[0][f])
				fmt_pct(c, sizeof(c), pct_change(med[0][f], med[g][f]));
			if (fmt == FMT_MARKDOWN)
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
	if (fmt == FMT_TEXT && ng > 3) {
		emit_text(e, "\n%-24s", "% change vs first");
		for (int g = 1; g < ng; g++) {
			char nm[16];
			snprintf(nm, sizeof(nm), "%.10s", names[g]);
			emit_text(e, " %10s", nm);
		}
		emit_text(e, "\n");
		for (int f = 0; f < fs->n; f++) {
			emit_text(e, "%-24.24s", fs->f[f].label);
			for (int g = 1; g < ng; g++) {
				char c[32] = "-";
				if (has[g][f] && has[0][f])
					fmt_pct(c, sizeof(c), pct_change(med[0][f], med[g][f]));
				emit_text(e, " %10s", c);
			}
			emit_text(e, "\n");
		}
	}
	if (grouped) {
		/* where the spread inside a group is larger than the difference
		 * between the groups' medians, say so */
		int noted = 0;
		for (int f = 0; f < fs->n; f++)
			for (int g = 1; g < ng; g++) {
				double diff, spread = 0;
				if (!has[g][f] || !has[0][f])
					continue;
				diff = fabs(med[g][f] - med[0][f]);
				for (int k = 0; k < ng; k++)
					if (has[k][f] && hi[k][f] - lo[k][f] > spread)
						spread = hi[k][f] - lo[k][f];
				if (spread > diff && diff > 0) {
					if (!noted++)
						emit_text(e, "\nwithin noise (spread within a "
							  "group > difference between medians):\n");
					char line[512];
					snprintf(line, sizeof(line), "  %s: %s vs %s, "
						 "difference %.3g, spread up to %.3g",
						 fs->f[f].label, names[0], names[g], diff,
						 spread);
					wrap_text(line, 76);
					emit_text(e, "%s\n", line);
				}
			}
		for (int g = 0; g < ng; g++) {
			char line[2048];
			size_t o = (size_t)snprintf(line, sizeof(line), "%s%s:",
						    g ? "" : "groups (the explanation "
						    "compares the first run of each):\n", names[g]);
			for (int i = 0; i < n && o < sizeof(line); i++)
				if (gidx[i] == g)
					o += (size_t)snprintf(line + o, sizeof(line) - o,
							      " %s", rf[i].rv.name);
			wrap_text(line, 78);
			emit_text(e, "%s%s\n", g ? "" : "\n", line);
		}
	}
}

static void compare_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape compare [--db FILE] [--json | --markdown]\n"
"                      [--group-by SETTING|GLOB,GLOB...] RUN RUN [RUN...]\n"
"\n"
"Headline figures of each run with the %% change against the first: each\n"
"command's real/user/sys s; read and write MB/s and IOPS (per device too);\n"
"Q2C and D2C p50/p99 for reads and writes; long seeks (>128 sectors) per s\n"
"and the D2D seek mean; swap out/in MB, peak swap used, peak dirty and\n"
"writeback MB, minimum free MB, CPU iowait %%. Then the explanation: the\n"
"swap, seek, fairness and writeback analyzers, ranked by how much of the\n"
"difference each accounts for, with their numbers.\n"
"  --db FILE        the database (default $IOTAPE_DB or iotape.db)\n"
"  --group-by KEY   group runs of a sweep with repeats by a setting's value\n"
"                   (vm.dirty_ratio, loop0:queue/scheduler) or by run-name\n"
"                   globs ('one*,two*'): median and min-max per group, %%\n"
"                   change between group medians, and a note where the\n"
"                   spread within a group exceeds the difference\n"
"  --json           the same numbers and findings as JSON\n"
"  --markdown       tables in Markdown, for web trackers\n"
"\n%s", analysis_definitions);
}

static void group_of(struct run_figs *r, const char *by)
{
	char value[sizeof(r->group)];

	snprintf(r->group, sizeof(r->group), "%s", "(none)");
	if (strchr(by, '*') || strchr(by, '?') || strchr(by, '[') || strchr(by, ',')) {
		char *pats = xstrdup(by), *save, *tok;
		for (tok = strtok_r(pats, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!fnmatch(tok, r->rv.name, 0)) {
				snprintf(r->group, sizeof(r->group), "%s", tok);
				break;
			}
		free(pats);
		return;
	}
	if (store_setting_get(r->rv.st, r->rv.id, by, STORE_AT_START, value,
			      sizeof(value)) > 0) {
		size_t len = (size_t)snprintf(r->group, sizeof(r->group), "%s=", by);
		if (len < sizeof(r->group))
			snprintf(r->group + len, sizeof(r->group) - len, "%s", value);
	}
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "group-by", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = NULL, *group_by = NULL;
	struct run_figs *rf;
	struct figset fs = { .n = 0 };
	struct store *st = NULL;
	struct analysis *an;
	struct finding fnd[64];
	struct emit e;
	char **names;
	int c, fmt = FMT_TEXT, n, rc = 0, nf;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'j': fmt = FMT_JSON; break;
		case 'm': fmt = FMT_MARKDOWN; break;
		case 'g': group_by = optarg; break;
		case 'h': compare_usage(stdout); return 0;
		default: compare_usage(stderr); return 2;
		}
	}
	db = db_path_default(db);
	if (argc - optind < 1) {
		error("compare needs two or more RUNs (names, ids or globs such "
		      "as 'sweep*')");
		return 2;
	}
	if (store_open_existing(&st, db)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	/* RUN arguments may be globs over the run names, in run order */
	{
		struct store_run_listing *runs = NULL;
		size_t nruns = 0;
		names = xcalloc(MAX_RUNS, sizeof(*names));
		n = 0;
		for (int i = optind; i < argc; i++) {
			int matched = 0;
			if (!strpbrk(argv[i], "*?[")) {
				if (n < MAX_RUNS)
					names[n++] = xstrdup(argv[i]);
				continue;
			}
			if (!runs && store_runs_list(st, 0, &runs, &nruns))
				break;
			for (size_t k = 0; k < nruns; k++) {
				const char *nm = runs[k].run.name;
				if (!fnmatch(argv[i], nm, 0) && n < MAX_RUNS) {
					names[n++] = xstrdup(nm);
					matched = 1;
				}
			}
			if (!matched) {
				error("no run matches '%s'", argv[i]);
				rc = -1;
			}
		}
		if (!rc && n < 2) {
			error("compare needs two or more runs; %d given", n);
			rc = 2;
		}
		free(runs);
		if (rc) {
			for (int i = 0; i < n; i++)
				free(names[i]);
			free(names);
			store_close(st);
			return rc;
		}
	}
	rf = xcalloc((size_t)n, sizeof(*rf));
	an = xcalloc((size_t)n, sizeof(*an));
	for (int i = 0; i < n && !rc; i++) {
		struct io_row *rows = NULL;
		size_t nrows;
		if (runview_load(&rf[i].rv, st, names[i]) ||
		    io_rows_load(&rf[i].rv, &rows, &nrows) ||
		    report_build_rows(&rf[i].rep, &rf[i].rv, rows, nrows) ||
		    analysis_build_rows(&rf[i].an, &rf[i].rv, rows, nrows)) {
			free(rows);
			rc = -1;
			n = i + 1;
			break;
		}
		free(rows);
		if (group_by) {
			group_of(&rf[i], group_by);
			if (!strcmp(rf[i].group, "(none)") &&
			    !strpbrk(group_by, "*?[,")) {
				error("run '%s' has no setting '%s' to group by",
				      rf[i].rv.name, group_by);
				rc = -1;
				n = i + 1;
				break;
			}
		}
		figures(&fs, &rf[i]);
		an[i] = rf[i].an;
	}
	if (!rc) {
		emit_init(&e, stdout, fmt == FMT_JSON);
		emit_obj_begin(&e, NULL);
		if (group_by)
			emit_str(&e, "group_by", group_by);
		if (fmt == FMT_MARKDOWN)
			emit_text(&e, "### iotape compare\n\n");
		print_table(&e, fmt, &fs, rf, n, group_by != NULL);
		emit_arr_begin(&e, "analyses");
		for (int i = 0; i < n; i++) {
			emit_obj_begin(&e, NULL);
			emit_str(&e, "run", rf[i].rv.name);
			analysis_emit(&e, &an[i]);
			emit_obj_end(&e);
		}
		emit_arr_end(&e);
		if (!group_by)
			nf = analysis_compare(an, n, fnd, 64);
		else {
			/* the explanation compares the first run of each group */
			int gidx[MAX_RUNS], ng, k = 0;
			char gnames[MAX_RUNS][128];
			struct analysis pick[MAX_RUNS];
			ng = make_groups(rf, n, gidx, gnames);
			for (int g = 0; g < ng; g++)
				for (int i = 0; i < n; i++)
					if (gidx[i] == g) {
						pick[k++] = an[i];
						break;
					}
			nf = analysis_compare(pick, k, fnd, 64);
		}
		emit_arr_begin(&e, "findings");
		if (nf)
			emit_text(&e, fmt == FMT_MARKDOWN ? "\n### explanation\n"
				  : "\nexplanation, most of the difference first:\n");
		for (int i = 0; i < nf; i++) {
			emit_obj_begin(&e, NULL);
			emit_str(&e, "analyzer", fnd[i].analyzer);
			emit_num(&e, "score", fnd[i].score);
			emit_str(&e, "title", fnd[i].title);
			emit_str(&e, "text", fnd[i].text);
			emit_obj_end(&e);
			{
				char head[256];
				snprintf(head, sizeof(head), "%d. [%.2f] %s", i + 1,
					 fnd[i].score, fnd[i].title);
				wrap_text(head, 78);
				emit_text(&e, "\n%s\n%s\n", head, fnd[i].text);
			}
		}
		emit_arr_end(&e);
		emit_text(&e, "\nscore: 0..1, how much of the difference the analyzer "
			  "accounts for;\ndefinitions: iotape compare --help\n");
		emit_obj_end(&e);
		emit_finish(&e);
	}
	for (int i = 0; i < n; i++) {
		report_free(&rf[i].rep);
		runview_close(&rf[i].rv);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(rf);
	free(an);
	store_close(st);
	return rc;
}
