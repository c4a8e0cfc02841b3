/* `iotape mail`: one plain-text file, no line over 80 columns, ready to
 * paste into a mailing-list post: what was run, the headline figures with
 * % change, the analyzers' explanation, vmstat excerpts and text plots;
 * the PNGs written beside it for attaching. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/compare.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "plots/plot.h"
#include "plots/plot_int.h"

#define WIDTH 80
#define MAX_VM_ROWS 12       /* vmstat rows per run in the excerpt */

struct mail_opts {
	const char *db;
	const char *const *runs;  /* at least 2 */
	size_t nrun;
	const char *dir;
};

/* ---- writing lines of at most WIDTH columns ---- */

/* Writes text wrapped at WIDTH - 2 columns, the first line indented by
 * first blanks, continuation lines by indent; words longer than a line are
 * cut. */
static void put_wrapped(FILE *fp, const char *text, int first, int indent)
{
	int col = first, room = WIDTH - 2, empty = 1;   /* empty: no word yet */
	const char *p = text;

	fprintf(fp, "%*s", first, "");
	while (*p) {
		size_t w = strcspn(p, " \n");
		if (!empty && col + 1 + (int)w > room) {
			fprintf(fp, "\n%*s", indent, "");
			col = indent;
		} else if (!empty) {
			fputc(' ', fp);
			col++;
		}
		while ((int)w > room - col) {   /* a very long word */
			int n = room - col;
			fprintf(fp, "%.*s\n%*s", n, p, indent, "");
			p += n;
			w -= (size_t)n;
			col = indent;
		}
		fprintf(fp, "%.*s", (int)w, p);
		col += (int)w;
		empty = 0;
		p += w;
		if (*p == '\n') {
			fputc('\n', fp);
			col = 0;
			empty = 1;
		}
		while (*p == ' ' || *p == '\n')
			p++;
	}
	if (!empty)
		fputc('\n', fp);
}

static void heading(FILE *fp, const char *title)
{
	int n = (int)strlen(title);

	fprintf(fp, "\n== %s %.*s\n\n", title, n < WIDTH - 4 ? WIDTH - 4 - n : 0,
		"=============================================================="
		"==================");
}

/* v in at most w characters: as is, or in k / M / G (10^3 steps). */
static void fit(char *out, size_t len, double v, int w, int decimals)
{
	static const char suffix[] = " kMG";

	if (isnan(v)) {
		snprintf(out, len, "-");
		return;
	}
	for (int i = 0; i < 4; i++, v /= 1000) {
		int n = i ? snprintf(out, len, "%.0f%c", v, suffix[i])
			  : snprintf(out, len, "%.*f", decimals, v);
		if (n <= w)
			return;
		if (!i && decimals) {
			n = snprintf(out, len, "%.0f", v);
			if (n <= w)
				return;
		}
	}
}

/* ---- what was run ---- */

static int setting(struct store *st, int64_t run, const char *key, char *out,
		   size_t len)
{
	return store_setting_get(st, run, key, STORE_AT_ANY, out, len) > 0;
}

static int write_runs(FILE *fp, struct store *st, struct runview *rv, size_t n)
{
	char line[1536], host[128], kernel[128], value[128];
	int len;

	heading(fp, "what was run");
	for (size_t i = 0; i < n; i++) {
		struct store_command *cmd;
		struct store_device *devs;
		struct store_run r;
		size_t ndev, ncmd;
		int64_t created;
		char when[64] = "-";

		if (store_run_get(st, rv[i].id, &r) ||
		    store_devices_get(st, rv[i].id, &devs, &ndev))
			return error("%s", store_errmsg(st));
		free(devs);
		snprintf(host, sizeof(host), "%s", r.host[0] ? r.host : "-");
		snprintf(kernel, sizeof(kernel), "%s", r.kernel[0] ? r.kernel : "-");
		created = r.created_ns;
		if (created) {
			time_t t = (time_t)(created / 1000000000);
			struct tm tm;
			gmtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
		}
		len = snprintf(line, sizeof(line), "%c. '%s': %s, %s, %s; %.3f s of"
			       " events, %lld device%s", (int)('A' + i % 26),
			       rv[i].name, rv[i].kind, rv[i].status,
			       rv[i].format[0] ? rv[i].format : "no trace",
			       (double)runview_span_ns(&rv[i]) / 1e9,
			       (long long)ndev, ndev == 1 ? "" : "s");
		/* the machine, as far as the run knows it */
		if (strcmp(host, "-"))
			len += snprintf(line + len, sizeof(line) - len, "; host %s", host);
		if (strcmp(kernel, "-"))
			len += snprintf(line + len, sizeof(line) - len, "; Linux %s",
					kernel);
		if (setting(st, rv[i].id, "kernel.machine", value, sizeof(value)))
			len += snprintf(line + len, sizeof(line) - len, " %s", value);
		if (setting(st, rv[i].id, "cpus", value, sizeof(value)))
			len += snprintf(line + len, sizeof(line) - len, ", %s CPUs", value);
		if (setting(st, rv[i].id, "mem.total_kb", value, sizeof(value)))
			len += snprintf(line + len, sizeof(line) - len, ", %.1f GiB"
					" memory", atof(value) / 1048576);
		len += snprintf(line + len, sizeof(line) - len, "; made %s", when);
		if (rv[i].source[0])
			snprintf(line + len, sizeof(line) - len, "; from %s", rv[i].source);
		put_wrapped(fp, line, 0, 3);

		/* its commands */
		if (store_commands_get(st, rv[i].id, &cmd, &ncmd))
			return error("%s", store_errmsg(st));
		for (size_t k = 0; k < ncmd; k++) {
			char argv[600];
			snprintf(argv, sizeof(argv), "%s", cmd[k].argv && cmd[k].argv[0]
				 ? cmd[k].argv : "-");
			snprintf(line, sizeof(line), "command %d: %s", cmd[k].idx, argv);
			put_wrapped(fp, line, 3, 6);
			if (!isnan(cmd[k].real_s))
				fprintf(fp, "      real %.2f s, user %.2f s, sys %.2f s,"
					" exit %d\n", cmd[k].real_s, cmd[k].user_s,
					cmd[k].sys_s, cmd[k].status);
		}
		free(cmd);
	}
	return 0;
}

/* The settings (at start) whose values differ between the runs that
 * recorded settings (captures; imports have none). */
/* One setting at start of one run, for write_settings(). */
struct run_setting {
	const char *key, *value;
	int64_t run;
};

static int cmp_run_setting(const void *a, const void *b)
{
	return strcmp(((const struct run_setting *)a)->key,
		      ((const struct run_setting *)b)->key);
}

static int write_settings(FILE *fp, struct store *st, struct runview *rv,
			  size_t n)
{
	struct store_setting **sets = xcalloc(n, sizeof(*sets));
	size_t *nsets = xcalloc(n, sizeof(*nsets)), nrows = 0, r = 0;
	struct run_setting *rows = NULL;
	char **vals = xcalloc(n, sizeof(*vals)), *has = xcalloc(n, 1);
	char key[256] = "", line[512];
	int ndiff = 0, nsame = 0, kw = 30, vw, ncol = 0, len, rc = 0;

	heading(fp, "settings that differ");
	for (size_t i = 0; i < n && !rc; i++) {
		if (store_settings_get(st, rv[i].id, &sets[i], &nsets[i])) {
			rc = error("%s", store_errmsg(st));
			break;
		}
		has[i] = nsets[i] > 0;
		ncol += has[i];
	}
	if (rc || ncol < 2) {
		for (size_t i = 0; i < n && !rc; i++)
			if (has[i])
				fprintf(fp, "  only %c has settings recorded;", (int)('A' + i % 26));
		if (!rc)
			fprintf(fp, "%s runs imported from traces have none.\n",
				ncol ? "" : "  none of the runs has settings recorded:");
		goto out;
	}
	vw = (WIDTH - 3 - kw) / ncol - 1;
	if (vw > 24)
		vw = 24;
	/* the start values of the runs (each run once), by key */
	for (size_t i = 0; i < n; i++) {
		int dup = 0;
		for (size_t j = 0; j < i; j++)
			dup |= rv[j].id == rv[i].id;
		for (size_t k = 0; k < nsets[i] && !dup; k++)
			if (sets[i][k].at == STORE_AT_START) {
				rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
				rows[nrows++] = (struct run_setting){ sets[i][k].key,
					sets[i][k].value, rv[i].id };
			}
	}
	qsort(rows, nrows, sizeof(*rows), cmp_run_setting);
	for (;; r++) {
		const char *k = r < nrows ? rows[r].key : NULL;
		if (key[0] && (!k || strcmp(k, key))) {
			/* the previous key is complete: a row if it differs */
			const char *first = NULL;
			int differ = 0;
			for (size_t i = 0; i < n; i++) {
				const char *v = vals[i] ? vals[i] : "-";
				if (!has[i])
					continue;
				if (!first)
					first = v;
				else if (strcmp(first, v))
					differ = 1;
			}
			if (differ && !ndiff++) {
				len = snprintf(line, sizeof(line), "  %-*s", kw, "setting");
				for (size_t i = 0; i < n; i++)
					if (has[i])
						len += snprintf(line + len, sizeof(line) - len,
								" %-*c", vw, (int)('A' + i % 26));
				while (len > 0 && line[len - 1] == ' ')
					line[--len] = 0;
				fprintf(fp, "%s\n", line);
			}
			if (differ) {
				len = snprintf(line, sizeof(line), "  %-*.*s", kw, kw, key);
				for (size_t i = 0; i < n; i++)
					if (has[i])
						len += snprintf(line + len, sizeof(line) - len,
								" %-*.*s", vw, vw,
								vals[i] ? vals[i] : "-");
				while (len > 0 && line[len - 1] == ' ')
					line[--len] = 0;
				fprintf(fp, "%s\n", line);
			} else {
				nsame++;
			}
			for (size_t i = 0; i < n; i++) {
				free(vals[i]);
				vals[i] = NULL;
			}
		}
		if (!k)
			break;
		snprintf(key, sizeof(key), "%s", k);
		for (size_t i = 0; i < n; i++)
			if (rv[i].id == rows[r].run && !vals[i])
				vals[i] = xstrdup(rows[r].value ? rows[r].value : "-");
	}
	fprintf(fp, "%s  %d other setting%s the same in", ndiff ? "\n" :
		"  none differ;", nsame, nsame == 1 ? " is" : "s are");
	for (size_t i = 0, k = 0; i < n; i++)
		if (has[i])
			fprintf(fp, "%s%c", k++ ? (k == (size_t)ncol ? " and " : ", ") : " ",
				(int)('A' + i % 26));
	fprintf(fp, "%s.\n", ncol < (int)n ? " (the others have none recorded)" : "");
out:
	for (size_t i = 0; i < n; i++)
		free(sets[i]);
	free(sets);
	free(nsets);
	free(rows);
	free(vals);
	free(has);
	return rc;
}

/* ---- the compare table ---- */

/* The table of headline figures v (n runs x PLOT_NHEAD, from
 * plot_headline_of()). */
static void write_compare(FILE *fp, const double (*v)[PLOT_NHEAD], size_t n)
{
	char cell[32], line[256];

	heading(fp, "headline figures, % change against A");
	/* A, then up to 3 later runs per block: 14 + 10 + 3 * (10 + 9) = 81 */
	for (size_t b = 1; b < n; b += 3) {
		size_t e = b + 3 < n ? b + 3 : n;
		int len = snprintf(line, sizeof(line), "  %-12s %9s", "", "A");
		for (size_t i = b; i < e; i++)
			len += snprintf(line + len, sizeof(line) - len, " %9c %8s",
					(int)('A' + i % 26), "change");
		fprintf(fp, "%s\n", line);
		for (int h = 0; h < PLOT_NHEAD; h++) {
			int any = 0;
			for (size_t i = 0; i < n; i++)
				any |= !isnan(v[i][h]);
			if (!any)
				continue;   /* elapsed when no run timed a command */
			fit(cell, sizeof(cell), v[0][h], 9, 2);
			len = snprintf(line, sizeof(line), "  %-12s %9s",
				       plot_headline_names[h], cell);
			for (size_t i = b; i < e; i++) {
				double p = plot_pct_change(v[0][h], v[i][h]);
				char pc[16];
				fit(cell, sizeof(cell), v[i][h], 9, 2);
				if (isnan(p))
					snprintf(pc, sizeof(pc), "-");
				else
					snprintf(pc, sizeof(pc), "%+.1f%%", p);
				len += snprintf(line + len, sizeof(line) - len, " %9s %8s",
						cell, pc);
			}
			fprintf(fp, "%s\n", line);
		}
		if (e < n)
			fputc('\n', fp);
	}
	fprintf(fp, "\n");
	put_wrapped(fp, "elapsed: the commands' first start to last end (runs"
		    " that timed commands); trace span: the first to the last"
		    " event, as iotape report's span. MB/s and IOPS: dispatched requests (completed bios when"
		    " a trace has no D) over the run's span, MB = 10^6 bytes, as"
		    " iotape report counts them; Q2C and D2C in us over all"
		    " devices, paired as btt pairs them. For latency lower is"
		    " better.", 0, 0);
}

/* Which took longer, where the time went and why, as compare prints it
 * (c: the runs as compare_load() read them), under compare's own headings
 * ("the question" first): a heading of the mail's own here stood empty
 * above them. */
static void write_explanation(FILE *fp, struct compare *c)
{
	struct emit e;

	emit_init(&e, fp, 0);
	/* the figures the table shows as "-" for want of completions */
	compare_emit_missing(c, &e);
	compare_emit_why(c, &e);
}

/* ---- vmstat excerpts ---- */

/* Run i's excerpt heading, "A. 'NAME': WHAT", with WHAT on a line of its
 * own when the name would take the line past 80 columns. */
static void vm_heading(FILE *fp, size_t i, const char *name, const char *what)
{
	size_t w = 7 + strlen(name) + strlen(what);

	fprintf(fp, "\n%c. '%s':%s%s\n", (int)('A' + i % 26), name,
		w > 80 ? "\n   " : " ", what);
}

static int write_vmstat(FILE *fp, struct store *st, struct runview *rv, size_t n)
{
	heading(fp, "vmstat excerpts");
	fprintf(fp, "memory in MB (10^6 bytes), si so bi bo in kB/s as vmstat"
		" prints them, cpu in %%;\nk = thousand. Rows around each run's"
		" busiest interval (swap, else block I/O).\n");
	for (size_t i = 0; i < n; i++) {
		/* row[][2..15]: r b swpd free buff cache si so bi bo us sy id wa */
		static const int col[14] = {
			STORE_VM_R, STORE_VM_B, STORE_VM_SWPD, STORE_VM_FREE,
			STORE_VM_BUFF, STORE_VM_CACHE, STORE_VM_SI, STORE_VM_SO,
			STORE_VM_BI, STORE_VM_BO, STORE_VM_US, STORE_VM_SY,
			STORE_VM_ID, STORE_VM_WA,
		};
		struct store_cursor *cur;
		struct store_vmstat vm;
		double (*row)[16] = NULL;
		size_t nr = 0, cap = 0, peak = 0, lo, hi;
		double best = -1;
		int swap = 0, step, proc;
		int64_t base = rv[i].genesis_ns;
		char what[96];

		/* /proc samples when the run has them, else a vmstat log's */
		if ((proc = store_run_has(st, rv[i].id, STORE_HAS_PROC_SAMPLES)) < 0 ||
		    store_vmstat_open(st, rv[i].id, proc ? STORE_VM_PROC : STORE_VM_LOG,
				      &cur))
			return error("%s", store_errmsg(st));
		while ((step = store_vmstat_next(cur, &vm)) > 0) {
			if (nr == cap)
				row = xrealloc(row, (cap = cap ? 2 * cap : 64) * sizeof(*row));
			row[nr][0] = (double)vm.time_ns;
			row[nr][1] = vm.since_boot;
			for (int k = 0; k < 14; k++)
				row[nr][2 + k] = vm.v[col[k]];
			if (!rv[i].first_event && !nr)
				base = vm.time_ns;
			nr++;
		}
		store_cursor_close(cur);
		if (step < 0) {
			free(row);
			return error("%s", store_errmsg(st));
		}
		if (!nr) {
			vm_heading(fp, i, rv[i].name, "no samples");
			continue;
		}
		for (size_t k = 0; k < nr; k++) {
			double sw = row[k][8] + row[k][9], io = row[k][10] + row[k][11];
			if (row[k][1] > 0)
				continue;   /* since-boot averages are not the run's */
			if (sw > 0 && (!swap || sw > best)) {
				swap = 1;
				best = sw;
				peak = k;
			} else if (!swap && io > best) {
				best = io;
				peak = k;
			}
		}
		lo = nr <= MAX_VM_ROWS ? 0 : peak > MAX_VM_ROWS / 2 ? peak - MAX_VM_ROWS / 2 : 0;
		hi = lo + MAX_VM_ROWS < nr ? lo + MAX_VM_ROWS : nr;
		if (hi - lo < MAX_VM_ROWS && nr >= MAX_VM_ROWS)
			lo = hi - MAX_VM_ROWS;
		if (nr > MAX_VM_ROWS)
			snprintf(what, sizeof(what), "rows %zu-%zu of %zu, around "
				 "the peak of %s", lo + 1, hi, nr, swap ? "si+so" :
				 "bi+bo");
		else
			snprintf(what, sizeof(what), "all %zu rows", nr);
		vm_heading(fp, i, rv[i].name, what);
		fprintf(fp, "  %6s %2s %2s %5s %6s %5s %6s %4s %4s %5s %5s %3s %3s %3s %3s\n",
			"t_s", "r", "b", "swpd", "free", "buff", "cache", "si", "so",
			"bi", "bo", "us", "sy", "id", "wa");
		for (size_t k = lo; k < hi; k++) {
			char c[16][16];
			static const int w[16] = { 0, 0, 2, 2, 5, 6, 5, 6, 4, 4, 5, 5, 3, 3, 3, 3 };
			for (int j = 2; j < 16; j++) {
				double x = row[k][j];
				if (j >= 4 && j <= 7)
					x = x * 1024 / 1e6;     /* kB to MB */
				if (row[k][1] > 0 && j >= 8)
					x = NAN;                /* since-boot average */
				fit(c[j], sizeof(c[j]), x, w[j], 0);
			}
			fprintf(fp, "  %6.1f %2s %2s %5s %6s %5s %6s %4s %4s %5s %5s %3s"
				" %3s %3s %3s\n", (row[k][0] - (double)base) / 1e9, c[2],
				c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11],
				c[12], c[13], c[14], c[15]);
		}
		free(row);
	}
	return 0;
}

/* ---- text plots ---- */

static int append_file(FILE *fp, const char *path)
{
	char buf[512];
	FILE *in = fopen(path, "r");

	if (!in)
		return error("cannot read '%s': %s", path, strerror(errno));
	while (fgets(buf, sizeof(buf), in)) {
		size_t n = strlen(buf);
		/* tidy_txt made them 80 columns; cut anything else */
		if (n > WIDTH + 1 || (n == WIDTH + 1 && buf[WIDTH] != '\n'))
			buf[WIDTH] = '\n', buf[WIDTH + 1] = 0;
		fputs(buf, fp);
	}
	fclose(in);
	return 0;
}

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "output", 1, 'o', "DIR", "where the files go (made if missing; "
	  "required)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void usage_mail(FILE *fp)
{
	fprintf(fp,
"usage: iotape mail [--db FILE] -o DIR RUN_A RUN_B [RUN...]\n"
"\n"
"Writes DIR/NAME.mail.txt (NAME: the runs' names joined by -vs-), one\n"
"plain-text file ready to paste into a mailing-list post, no line over 80\n"
"columns and no colour: what was run (each run's commands, host, kernel,\n"
"machine; the settings that differ), the headline figures with %% change\n"
"against RUN_A (elapsed or trace span s, read and write MB/s, IOPS, Q2C\n"
"and D2C mean and p99 in us, as iotape report counts them), the analyzers'\n"
"explanation (as iotape compare's), vmstat excerpts around each run's\n"
"busiest interval, and text plots (gnuplot's dumb terminal). The PNGs of\n"
"iotape plot are written beside it (DIR/NAME.KIND.png, with their data and\n"
"scripts), and the text plots' files under DIR/txt.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 22, "o");
}

/* Writes the mail for o's runs. Returns 0 or -1 after one error line.
 * Each run is read once (compare_load(): its requests, report and the
 * analyzers); the headline table, the explanation and every picture are
 * made from that. The pictures' data files are written once, into o->dir;
 * the PNGs and (under o->dir/txt) the text plots are drawn from them, by
 * gnuplots running side by side. */
static int mail_run(const struct mail_opts *o)
{
	struct store *st = NULL;
	struct runview *rv = xcalloc(o->nrun, sizeof(*rv));
	const struct rundata **rds = xcalloc(o->nrun, sizeof(*rds));
	double (*head)[PLOT_NHEAD] = xcalloc(o->nrun, sizeof(*head));
	struct compare cmp;
	struct plot_opts po;
	unsigned drawn_png = 0, drawn_txt = 0;
	char stem[128], path[PATH_MAX + 256], txtdir[PATH_MAX];
	size_t nloaded = 0;
	struct out_file of;
	FILE *fp = NULL;
	int rc = 0, loaded = 0;

	stem[0] = 0;
	/* the runs first, so that a bad name is said once */
	if (store_open_existing(&st, o->db)) {
		rc = error("%s", store_errmsg(st));
		goto out;
	}
	for (; nloaded < o->nrun; nloaded++)
		if (runview_load(&rv[nloaded], st, o->runs[nloaded])) {
			runview_close(&rv[nloaded]);
			rc = -1;
			goto out;
		}
	loaded = 1;
	if (compare_load(&cmp, st, (char **)o->runs, (int)o->nrun, NULL, NULL,
			 NULL)) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < o->nrun; i++) {
		rds[i] = &cmp.rf[i].an.rd;
		plot_headline_of(&cmp.rf[i].rv, rds[i], &cmp.rf[i].rep, head[i]);
	}
	memset(&po, 0, sizeof(po));
	po.db = o->db;
	po.runs = o->runs;
	po.nrun = o->nrun;
	po.kinds = (1u << PLOT_NKINDS) - 1;
	po.dir = o->dir;
	po.format = PLOT_PNG;
	po.align_cmd = -1;
	po.width = PLOT_WIDTH;
	po.height = 0;   /* taller for many panels */
	po.drawn = &drawn_png;
	po.rundata = rds;
	po.head = &head[0][0];
	snprintf(txtdir, sizeof(txtdir), "%s/txt", o->dir);
	po.also_dir = txtdir;
	po.also_format = PLOT_TXT;
	/* the text plots leave out the seek scatter (below): not drawing it
	 * saves the slowest picture of a large run */
	po.also_kinds = po.kinds & ~(1u << PLOT_SEEK);
	po.also_drawn = &drawn_txt;
	if (plot_run(&po)) {
		rc = -1;
		goto out;
	}
	plot_stem(o->runs, o->nrun, stem, sizeof(stem));
	snprintf(path, sizeof(path), "%s/%s.mail.txt", o->dir, stem);
	if ((rc = out_file_open(&of, path))) {
		rc = error("cannot create '%s': %s", path, strerror(-rc));
		goto out;
	}
	fp = of.fp;

	{
		char line[1024];
		int len = snprintf(line, sizeof(line), "iotape %s: ", IOTAPE_VERSION);
		for (size_t i = 0; i < o->nrun; i++)
			len += snprintf(line + len, sizeof(line) - len, "%s%c '%s'",
					i ? (i + 1 == o->nrun ? " and " : ", ") : "",
					(int)('A' + i % 26), rv[i].name);
		snprintf(line + len, sizeof(line) - len, " compared (run %s is the"
			 " base of every %% change).", "A");
		put_wrapped(fp, line, 0, 0);
	}
	if ((rc = write_runs(fp, st, rv, o->nrun)) ||
	    (rc = write_settings(fp, st, rv, o->nrun)))
		goto out;
	write_compare(fp, (const double (*)[PLOT_NHEAD])head, o->nrun);
	write_explanation(fp, &cmp);
	if ((rc = write_vmstat(fp, st, rv, o->nrun)))
		goto out;

	heading(fp, "text plots");
	fprintf(fp, "gnuplot's dumb terminal; time 0 is each run's first event."
		" Skipped: seek\n(a scatter needs the PNG)%s.\n",
		drawn_txt & (1u << PLOT_VM) ? "" : ", vm (no samples)");
	for (int k = 0; k < PLOT_NKINDS && !rc; k++) {
		if (k == PLOT_SEEK || !(drawn_txt & (1u << k)))
			continue;
		snprintf(path, sizeof(path), "%s/%s.%s.txt", txtdir, stem,
			 plot_kind_name((enum plot_kind)k));
		fprintf(fp, "\n--- %s ---\n", plot_kind_name((enum plot_kind)k));
		rc = append_file(fp, path);
	}
	if (rc)
		goto out;

	heading(fp, "attached");
	for (int k = 0; k < PLOT_NKINDS; k++)
		if (drawn_png & (1u << k))
			fprintf(fp, "  %s.%s.png\n", stem, plot_kind_name((enum plot_kind)k));
	fprintf(fp, "\n-- \nmade by iotape %s mail; every number above is in the"
		" runs' database.\n", IOTAPE_VERSION);
out:
	if (fp && rc) {
		out_file_discard(&of);
	} else if (fp) {
		if ((rc = out_file_commit(&of)))
			rc = error("cannot write '%s/%s.mail.txt': %s", o->dir, stem,
				   strerror(-rc));
		else
			printf("%s/%s.mail.txt\n", o->dir, stem);
	}
	if (loaded)
		compare_free(&cmp);
	for (size_t i = 0; i < nloaded; i++)
		runview_close(&rv[i]);
	free(rv);
	free(rds);
	free(head);
	store_close(st);
	return rc;
}

int cmd_mail(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct mail_opts o = { 0 };
	const char *db = NULL;
	int c;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'o':
			/* "mail/" as "mail": paths printed without a "//" */
			for (size_t n = strlen(optarg); n > 1 && optarg[n - 1] == '/'; n--)
				optarg[n - 1] = '\0';
			o.dir = optarg;
			break;
		case 'h': usage_mail(stdout); return 0;
		default: return opt_bad("mail");
		}
	}
	if (!o.dir) {
		error("mail needs -o DIR, where its files go");
		return opt_bad("mail");
	}
	if (argc - optind < 2) {
		error("mail needs two or more RUNs to compare");
		return opt_bad("mail");
	}
	o.db = db_path_default(db);
	o.runs = (const char *const *)argv + optind;
	o.nrun = (size_t)(argc - optind);
	return mail_run(&o);
}
