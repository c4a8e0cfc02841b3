/* `iotape mail`: one plain-text file, no line over 80 columns, ready to
 * paste into a mailing-list post: what was run, the headline figures with
 * % change, the analyzers' explanation, vmstat excerpts and text plots;
 * the PNGs written beside it for attaching. */
#include <ctype.h>
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
	const char *const *runs;  /* at least 2, globs expanded */
	size_t nrun;
	const char *const *args;  /* the RUN arguments as given (for the
				     commands that reproduce the mail) */
	int nargs;
	const char *dir;
	const char *group_by, *metric;   /* as compare's; NULL: none */
	int full;                 /* 1: the long form is the mail */
	struct plot_made *made;   /* the files and folders made, taken away
				     when the mail fails */
};

#define SHORT_LINES 40       /* the short body's most lines */
#define SHORT_PLOT_MIN 8     /* a text plot shorter than this is left out */
#define SHORT_PLOT_GOOD 14   /* the causes take one line each to leave the
				text plot this many */

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
			/* a time the report had not (a paste's cut line)
			 * is "-", not "nan s" */
			if (!isnan(cmd[k].real_s)) {
				char u[32] = "-", y[32] = "-";
				if (!isnan(cmd[k].user_s))
					snprintf(u, sizeof(u), "%.2f s", cmd[k].user_s);
				if (!isnan(cmd[k].sys_s))
					snprintf(y, sizeof(y), "%.2f s", cmd[k].sys_s);
				fprintf(fp, "      real %.2f s, user %s, sys %s, exit "
					"%d\n", cmd[k].real_s, u, y, cmd[k].status);
			}
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
	/* A, then up to 3 later runs per block: 24 + 3 * (10 + 8) = 78 */
	for (size_t b = 1; b < n; b += 3) {
		size_t e = b + 3 < n ? b + 3 : n;
		int len = snprintf(line, sizeof(line), "  %-12s %9s", "", "A");
		for (size_t i = b; i < e; i++)
			len += snprintf(line + len, sizeof(line) - len, " %9c %7s",
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
				else   /* 7 columns: whole % from +1000% */
					snprintf(pc, sizeof(pc), "%+.*f%%", fabs(p) <
						 999.95 ? 1 : 0, p);
				len += snprintf(line + len, sizeof(line) - len, " %9s %7s",
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
		" busiest interval (swap, else block I/O).\nThe whole machine's,"
		" not the traced disk's: bi and bo count every device (the\n"
		"disk's own figures are the trace's, above).\n");
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


/* ---- the short body: what a person pastes ---- */

/* Lines of text in buf (each ends in '\n'). */
static int count_lines(const char *buf)
{
	int n = 0;

	for (; *buf; buf++)
		n += *buf == '\n';
	return n;
}

/* text cut to one line of at most w columns ("..." where cut). */
static void put_cut(FILE *fp, const char *text, int w)
{
	int n = (int)strcspn(text, "\n");

	if (n <= w)
		fprintf(fp, "%.*s\n", n, text);
	else
		fprintf(fp, "%.*s...\n", w - 3, text);
}

/* prefix, then text wrapped as put_wrapped() does (the first line after
 * the prefix, the others indented by indent), at most max lines: the last
 * one shown ends in "..." when some were left out. */
static void put_wrapped_max(FILE *fp, const char *prefix, const char *text,
			    int indent, int max)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int n = 0, first = (int)strlen(prefix);

	put_wrapped(m, text, first, indent);
	fclose(m);
	if ((int)len >= first)
		memcpy(buf, prefix, (size_t)first);
	for (p = buf; *p && n < max; n++) {
		size_t l = strcspn(p, "\n");
		if (n == max - 1 && p[l] && p[l + 1]) {
			/* the last line shown: room for "..." */
			fprintf(fp, "%.*s...\n", (int)(l > WIDTH - 5 ? WIDTH - 5 : l), p);
			break;
		}
		fprintf(fp, "%.*s\n", (int)l, p);
		p += l + (p[l] != 0);
	}
	free(buf);
}

/* The plot kind that shows finding f's cause best (the analyzer's name),
 * for the one text plot of the short body. */
static enum plot_kind kind_for_cause(const char *analyzer)
{
	static const struct { const char *an; enum plot_kind k; } map[] = {
		{ "seek", PLOT_SEEK }, { "writeback", PLOT_TPUT },
		{ "throttle", PLOT_TPUT }, { "swap", PLOT_VM },
		{ "refault", PLOT_VM }, { "queue", PLOT_QD },
		{ "fairness", PLOT_QD }, { "device", PLOT_LAT },
		{ "readahead", PLOT_LAT }, { "cpu", PLOT_TPUT },
	};

	for (size_t i = 0; analyzer && i < ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].an, analyzer))
			return map[i].k;
	return PLOT_TPUT;
}

/* What was compared: a line per side (run, or group of runs) with its
 * kind, kernel and first command, then the settings at start whose
 * values differ (at most 3, machine sizes and iotape's own left out). */
static int short_runs(FILE *fp, struct store *st, struct compare *c)
{
	struct store_setting *sets = NULL;
	size_t nsets = 0;
	int shown = 0;

	fprintf(fp, "What was compared:\n");
	for (int g = 0; g < c->ng && g < 4; g++) {
		char line[512];
		int first = -1, n = 0, len;
		for (int i = 0; i < c->n; i++)
			if (c->gidx[i] == g) {
				if (first < 0)
					first = i;
				n++;
			}
		if (first < 0)
			continue;
		{
			const struct run_figs *r = &c->rf[first];
			struct store_run sr;
			if (store_run_get(st, r->rv.id, &sr))
				return error("%s", store_errmsg(st));
			if (c->grouped)
				len = snprintf(line, sizeof(line), "  %c %s: %d run%s (%s%s)",
					       'A' + g, c->gname[g], n, n == 1 ? "" : "s",
					       r->rv.name, n > 1 ? ", ..." : "");
			else
				len = snprintf(line, sizeof(line), "  %c %s: %s", 'A' + g,
					       r->rv.name, r->rv.kind);
			if (sr.kernel[0])
				len += snprintf(line + len, sizeof(line) - len,
						", Linux %s", sr.kernel);
			if (r->ncmds && r->cmds[0].argv && r->cmds[0].argv[0])
				snprintf(line + len, sizeof(line) - len, ", `%s`%s",
					 r->cmds[0].argv, r->ncmds > 1 ? " ..." : "");
			else if (r->rv.source[0])
				snprintf(line + len, sizeof(line) - len, ", from %s",
					 r->rv.source);
			put_cut(fp, line, WIDTH - 2);
		}
	}
	if (c->ng > 4)
		fprintf(fp, "  and %d more\n", c->ng - 4);
	/* the settings that differ between the sides' first runs */
	if (store_settings_get(st, c->rf[0].rv.id, &sets, &nsets))
		return error("%s", store_errmsg(st));
	for (size_t k = 0; k < nsets && shown < 3; k++) {
		char line[512], v[4][64];
		int differ = 0, len, all = 1;
		if (sets[k].at != STORE_AT_START || plot_setting_volatile(sets[k].key))
			continue;
		for (int g = 0; g < c->ng && g < 4 && all; g++) {
			int i = 0;
			while (i < c->n && c->gidx[i] != g)
				i++;
			if (i == c->n || store_setting_get(st, c->rf[i].rv.id, sets[k].key,
							   STORE_AT_START, v[g],
							   sizeof(v[g])) <= 0)
				all = 0;
			else if (g && strcmp(v[g], v[0]))
				differ = 1;
		}
		if (!all || !differ)
			continue;
		len = snprintf(line, sizeof(line), "  %s:", sets[k].key);
		for (int g = 0; g < c->ng && g < 4; g++)
			len += snprintf(line + len, sizeof(line) - len, "%s %c %s",
					g ? "," : "", 'A' + g, v[g]);
		put_cut(fp, line, WIDTH - 2);
		shown++;
	}
	free(sets);
	return 0;
}

/* The question's figure per side, with its range when a side has repeats,
 * and the verdict of comparison p. */
static void short_question(FILE *fp, struct compare *c, const struct cmp_pair *p,
			   int wrap)
{
	const struct question *q = &c->q;
	char line[1024];
	/* one number of decimals for every side: 72.192 over 3096.6 read
	 * as if measured differently */
	double big = fmax(fabs(p->s0.med), fabs(p->s1.med));

	snprintf(line, sizeof(line), "The question: %s (%s is better)", q->label,
		 q->lower_better ? "lower" : "higher");
	put_cut(fp, line, WIDTH - 2);
	for (int g = 0; g < c->ng && g < 4; g++) {
		double lo = INFINITY, hi = -INFINITY, med = NAN;
		int n = 0, len;
		struct cmp_pair pg;
		for (int i = 0; i < c->n; i++) {
			double v = compare_value(c, i);
			if (c->gidx[i] != g || isnan(v))
				continue;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
			n++;
		}
		if (g == p->g)
			med = p->s1.med;
		else if (g == 0)
			med = p->s0.med;
		else {
			if (!compare_pair(c, g, &pg))
				med = pg.s1.med;
			compare_pair_free(&pg);
		}
		len = snprintf(line, sizeof(line), "  %c %-28.28s %12.*f%s%s", 'A' + g,
			       c->gname[g], big >= 100 ? 1 : 3, med,
			       q->unit[0] ? " " : "", q->unit);
		if (n > 1)
			len += snprintf(line + len, sizeof(line) - len, " [%.*f-%.*f, %d"
					" runs]", fabs(hi) >= 100 ? 0 : 2, lo,
					fabs(hi) >= 100 ? 0 : 2, hi, n);
		if (g && p->s0.med != 0 && !isnan(med))
			snprintf(line + len, sizeof(line) - len, " %+.1f%%",
				 100 * (med - p->s0.med) / fabs(p->s0.med));
		put_cut(fp, line, WIDTH - 2);
	}
	if (p->same_run || p->tie) {
		fprintf(fp, "Verdict: no side is worse.\n");
		return;
	}
	snprintf(line, sizeof(line), "Verdict: %s is worse by %.3f s of its time:"
		 " %s", c->gname[p->worse ? p->g : 0], p->dtime, p->verdict);
	put_cut(fp, line, WIDTH - 2);
	/* one run a side: different by what its causes measured, not by a
	 * test against run-to-run noise */
	if (p->sig < 0 && !strcmp(p->verdict, "different"))
		snprintf(line, sizeof(line), "(by its causes; one run a side: no "
			 "test against noise; --repeat N for one)");
	else
		snprintf(line, sizeof(line), "(%s)", p->test);
	put_wrapped_max(fp, "  ", line, 3, wrap);
	/* a latency percentile: what its slowest requests met */
	if (compare_tail_sentence(c, p, 1, line, sizeof(line))) {
		line[0] = (char)toupper((unsigned char)line[0]);
		put_wrapped_max(fp, "", line, 2, wrap + 1);
	}
}

/* The waterfall of comparison p in one line a row: the causes and the
 * offsets (at most 5), what is not explained and the difference. */
static void short_causes(FILE *fp, struct compare *c, const struct cmp_pair *p,
			 int wrap)
{
	char line[512];
	int rows = 0;
	double total = p->dtime;

	if (p->same_run || p->tie || total == 0) {
		fprintf(fp, "Causes: none to explain (no difference).\n");
		return;
	}
	snprintf(line, sizeof(line), "Why %s is worse (s of its time; they add "
		 "up to the difference):", c->gname[p->worse ? p->g : 0]);
	put_cut(fp, line, WIDTH - 2);
	for (int i = 0; i < p->nf && rows < 5; i++) {
		const struct finding *f = &p->f[i];
		if (!p->in_waterfall[i])
			continue;
		char cost[32];
		snprintf(cost, sizeof(cost), "  %+7.2f %4.0f%%  ", f->cost_s,
			 100 * f->cost_s / total);
		/* an offset's title starts with the better run's name,
		 * which "(for the other)" already says (a long name left
		 * no room for the cause) */
		snprintf(line, sizeof(line), "%s%s", f->cost_s < 0 ?
			 "(for the other) " : "", f->cost_s < 0 && f->x_title[0] ?
			 f->x_title : f->title);
		put_wrapped_max(fp, cost, line, 17, wrap);
		rows++;
	}
	if (!rows)
		fprintf(fp, "  (no cause the trace and samples show)\n");
	if (fabs(p->rest) >= 0.0005) {
		snprintf(line, sizeof(line), "  %+7.2f %4.0f%%  not explained (the "
			 "workload's own CPU and think time, noise)", p->rest,
			 100 * p->rest / total);
		put_cut(fp, line, WIDTH - 2);
	}
	fprintf(fp, "  %+7.2f %4.0f%%  the difference\n", total, 100.0);
}

/* The first cause's analyzer of p, NULL when it has none. */
static const char *first_cause(const struct cmp_pair *p)
{
	for (int i = 0; i < p->nf; i++)
		if (p->in_waterfall[i] && p->f[i].cost_s > 0)
			return p->f[i].analyzer;
	return NULL;
}

/* Draws kind k of o's runs on gnuplot's dumb terminal, lines lines a page,
 * into dir/short; appends its first page from the frame's top (the titles
 * above it left out) to fp, at most lines lines. Returns the lines written, 0 when the runs have
 * nothing of that kind, or -1 after an error line. */
static int short_plot(FILE *fp, const struct mail_opts *o,
		      const struct rundata **rds, double (*head)[PLOT_NHEAD],
		      enum plot_kind k, int lines)
{
	struct plot_opts po;
	unsigned drawn = 0;
	char dir[PATH_MAX], stem[128], path[PATH_MAX + 256], buf[512];
	FILE *in;
	int n = 0, blank = 0;

	snprintf(dir, sizeof(dir), "%s/short", o->dir);
	memset(&po, 0, sizeof(po));
	po.db = o->db;
	po.runs = o->runs;
	po.nrun = o->nrun;
	po.kinds = 1u << k;
	po.dir = dir;
	po.format = PLOT_TXT;
	po.align_cmd = -1;
	po.width = PLOT_WIDTH;
	po.none_ok = 1;
	po.txt_lines = lines + 3;   /* the titles above the frame, cut below */
	po.made = o->made;
	po.drawn = &drawn;
	po.rundata = rds;
	po.head = &head[0][0];
	if (plot_run(&po))
		return -1;
	if (!(drawn & (1u << k)))
		return 0;
	plot_stem(o->runs, o->nrun, stem, sizeof(stem));
	snprintf(path, sizeof(path), "%s/%s.%s.txt", dir, stem, plot_kind_name(k));
	if (!(in = fopen(path, "r")))
		return error("cannot read '%s': %s", path, strerror(errno));
	while (n < lines && fgets(buf, sizeof(buf), in)) {
		size_t len = strcspn(buf, "\n\f");
		while (len && buf[len - 1] == ' ')
			len--;
		if (!n && !strstr(buf, "+--"))
			continue;          /* the titles above the frame: the
					    * body's own line names the picture */
		if (!len) {
			blank++;
			if (blank > 1)
				break;     /* the end of the first page */
			continue;
		}
		for (; blank; blank--, n++)
			fputc('\n', fp);
		fprintf(fp, "%.*s\n", len > WIDTH ? WIDTH : (int)len, buf);
		n++;
	}
	fclose(in);
	return n;
}

/* The text of the short body but its picture into m: the comparison p
 * (have: 0 when no comparison has a value), its causes and test in at most
 * wrap lines each, the command that reproduces it and the files beside it.
 * Returns 0, or -1 after an error line. */
static int short_text(FILE *m, struct store *st, struct compare *c,
		      const struct mail_opts *o, const struct cmp_pair *p,
		      int have, const char *stem, unsigned drawn_png, int wrap)
{
	char line[1024];
	int len;

	len = snprintf(line, sizeof(line), "iotape %s mail: %s", IOTAPE_VERSION,
		       c->gname[0]);
	for (int g = 1; g < c->ng && g < 4; g++)
		len += snprintf(line + len, sizeof(line) - len, " vs %s",
				c->gname[g]);
	if (c->ng > 4)
		snprintf(line + len, sizeof(line) - len, " and %d more", c->ng - 4);
	put_wrapped(m, line, 0, 2);
	fputc('\n', m);
	if (short_runs(m, st, c))
		return -1;
	fputc('\n', m);
	if (!have) {
		fprintf(m, "The question: %s: a side has no value of it.\n",
			c->q.label);
	} else {
		short_question(m, c, p, wrap);
		fputc('\n', m);
		short_causes(m, c, p, wrap);
	}
	fputc('\n', m);
	/* the command that makes this again */
	len = snprintf(line, sizeof(line), "Reproduce: iotape compare");
	if (o->group_by)
		len += snprintf(line + len, sizeof(line) - len, " --group-by %s",
				o->group_by);
	if (o->metric)
		len += snprintf(line + len, sizeof(line) - len, " --metric %s",
				o->metric);
	for (int i = 0; i < o->nargs; i++)
		len += snprintf(line + len, sizeof(line) - len, strpbrk(o->args[i],
				"*?[ ") ? " '%s'" : " %s", o->args[i]);
	put_wrapped(m, line, 0, 4);
	/* the files beside it, wrapped */
	len = snprintf(line, sizeof(line), "Beside it: %s.full.txt (all of it)",
		       stem);
	{
		int any = 0;
		for (int i = 0; i < PLOT_NKINDS; i++)
			if (drawn_png & (1u << i))
				len += snprintf(line + len, sizeof(line) - len, "%s%s",
						any++ ? "," : ", PNGs of that stem {",
						plot_kind_name((enum plot_kind)i));
		if (any)
			snprintf(line + len, sizeof(line) - len, "}.png");
	}
	put_wrapped(m, line, 0, 2);
	return 0;
}

/* The short body into fp (at most SHORT_LINES lines of WIDTH columns):
 * what was compared, the question per side and the verdict, the causes
 * with their costs, one text plot for the first cause, the command that
 * makes it again and the files beside it. The causes take two lines each
 * unless that leaves the picture fewer than SHORT_PLOT_GOOD lines. */
static int write_short(FILE *fp, struct store *st, struct compare *c,
		       const struct mail_opts *o, const struct rundata **rds,
		       double (*head)[PLOT_NHEAD], const char *stem,
		       unsigned drawn_png)
{
	struct cmp_pair p, best;
	char *text = NULL;
	size_t len = 0;
	int have = 0, rc = 0, used = 0, want_pic;
	const char *cause;
	enum plot_kind k;

	/* the comparison with the largest difference (the first of two) */
	for (int g = 1; g < c->ng; g++) {
		if (compare_pair(c, g, &p)) {
			compare_pair_free(&p);   /* a side without a value */
			continue;
		}
		if (!have || fabs(p.dtime) > fabs(best.dtime)) {
			if (have)
				compare_pair_free(&best);
			best = p;
			have = 1;
		} else {
			compare_pair_free(&p);
		}
	}
	cause = have ? first_cause(&best) : NULL;
	/* no cause and no trace: no picture says more than the figures */
	want_pic = cause || c->rf[0].rep.ndev;
	for (int wrap = 2; wrap >= 1; wrap--) {
		FILE *m;
		free(text);
		text = NULL;
		m = open_memstream(&text, &len);
		rc = short_text(m, st, c, o, &best, have, stem, drawn_png, wrap);
		fclose(m);
		if (rc)
			goto out;
		used = count_lines(text);
		if (!want_pic || SHORT_LINES - used - 3 >= SHORT_PLOT_GOOD)
			break;
	}
	/* the picture of the first cause, in the lines left */
	k = cause ? kind_for_cause(cause) : PLOT_TPUT;
	if (want_pic && SHORT_LINES - used - 3 >= SHORT_PLOT_MIN) {
		char *pic = NULL;
		size_t plen = 0;
		FILE *pm = open_memstream(&pic, &plen);
		int n = short_plot(pm, o, rds, head, k, SHORT_LINES - used - 3);
		if (n == 0 && k != PLOT_TPUT)
			n = short_plot(pm, o, rds, head, k = PLOT_TPUT,
				       SHORT_LINES - used - 3);
		fclose(pm);
		if (n < 0) {
			free(pic);
			rc = -1;
			goto out;
		}
		if (n > 0) {
			/* before the command: the body reads top down */
			char *at = strstr(text, "\nReproduce: ");
			size_t head_len = at ? (size_t)(at - text) + 1 : len;
			fwrite(text, 1, head_len, fp);
			fprintf(fp, "Picture (%s%s%s):\n%s\n", plot_kind_name(k),
				cause ? ", for the first cause: " : "", cause ? cause :
				"", pic);
			fputs(text + head_len, fp);
			free(pic);
			goto out;
		}
		free(pic);
	}
	fputs(text, fp);
out:
	free(text);
	if (have)
		compare_pair_free(&best);
	return rc;
}

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "output", 1, 'o', "DIR", "where the files go (made if missing, "
	  "but not its parent; required)" },
	{ "group-by", 1, 'g', "SETTING", "repeats: runs grouped by a setting's "
	  "value or by run-name globs ('one*,two*'), as compare's" },
	{ "metric", 1, 'M', "EXPR", "the question's figure, as compare's "
	  "(default: the workload's result, else its commands' total real time, "
	  "else its span)" },
	{ "full", 0, 'f', NULL, "the mail is the long form (NAME.mail.txt, its "
	  "path printed), no short body" },
	{ "help", 0, 'h', NULL, NULL },
};

static void usage_mail(FILE *fp)
{
	fprintf(fp,
"usage: iotape mail [--db FILE] [--full] [--group-by SETTING] [--metric EXPR]\n"
"                   -o DIR RUN_A RUN_B [RUN...]\n"
"\n"
"Prints the body of a mailing-list reply, at most 40 lines of 80 columns, and\n"
"writes it to DIR/NAME.mail.txt (NAME: the runs' names joined by -vs-): what\n"
"was compared (each side's runs, kernel, first command; the settings at start\n"
"that differ), the question's figure per side with its range over repeats and\n"
"the verdict, the causes with their costs in seconds, which add up to the\n"
"difference (compare's waterfall; with more than two sides, the comparison\n"
"with the largest difference), one text plot for the first cause (seek,\n"
"tput, lat, qd or vm), and the command that reproduces it. Everything else\n"
"is beside it: DIR/NAME.full.txt (each run's commands, host and machine, the\n"
"headline figures with %% change against RUN_A, the whole explanation, vmstat\n"
"excerpts of the whole machine, every text plot), the PNGs of iotape plot\n"
"(DIR/NAME.KIND.png with their data and scripts), the text plots under\n"
"DIR/txt and the body's plot under DIR/short. RUNs may be globs, as\n"
"compare's.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 22, "o");
}

/* Draw every picture of o's runs from rds and head, once: the PNGs into
 * o->dir and the text plots (but seek) into txtdir; *drawn_png and
 * *drawn_txt get a bit per kind drawn. Returns 0 or -1 (said). */
static int mail_plots(const struct mail_opts *o, const struct rundata **rds,
		      double (*head)[PLOT_NHEAD], const char *txtdir,
		      unsigned *drawn_png, unsigned *drawn_txt)
{
	struct plot_opts po;

	memset(&po, 0, sizeof(po));
	po.db = o->db;
	po.runs = o->runs;
	po.nrun = o->nrun;
	po.kinds = PLOT_ALL;
	po.dir = o->dir;
	po.format = PLOT_PNG;
	po.align_cmd = -1;
	po.width = PLOT_WIDTH;
	po.height = 0;   /* taller for many panels */
	po.drawn = drawn_png;
	po.rundata = rds;
	po.head = &head[0][0];
	po.also_dir = txtdir;
	po.also_format = PLOT_TXT;
	/* the text plots leave out the seek scatter (below): not drawing it
	 * saves the slowest picture of a large run */
	po.also_kinds = po.kinds & ~(1u << PLOT_SEEK);
	po.also_drawn = drawn_txt;
	po.made = o->made;
	return plot_run(&po) ? -1 : 0;
}

/* The long form's first line: the version and the runs compared, A
 * first, wrapped to WIDTH. */
static void write_first_line(FILE *fp, const struct runview *rv, size_t n)
{
	char line[1024];
	int len = snprintf(line, sizeof(line), "iotape %s: ", IOTAPE_VERSION);

	for (size_t i = 0; i < n; i++)
		len += snprintf(line + len, sizeof(line) - len, "%s%c '%s'",
				i ? (i + 1 == n ? " and " : ", ") : "",
				(int)('A' + i % 26), rv[i].name);
	snprintf(line + len, sizeof(line) - len, " compared (run %s is the"
		 " base of every %% change).", "A");
	put_wrapped(fp, line, 0, 0);
}

/* The long form's text plots: each kind drawn in drawn_txt (but seek),
 * copied from txtdir/stem.KIND.txt under its name. Returns 0 or -1
 * (said). */
static int write_text_plots(FILE *fp, const char *txtdir, const char *stem,
			    unsigned drawn_txt)
{
	char path[PATH_MAX + 256];
	int rc = 0;

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
	return rc;
}

/* The long form's end: the PNGs beside it (a bit per kind in drawn_png)
 * and the signature. */
static void write_attached(FILE *fp, const char *stem, unsigned drawn_png)
{
	heading(fp, "attached");
	for (int k = 0; k < PLOT_NKINDS; k++)
		if (drawn_png & (1u << k))
			fprintf(fp, "  %s.%s.png\n", stem, plot_kind_name((enum plot_kind)k));
	fprintf(fp, "\n-- \nmade by iotape %s mail; every number above is in the"
		" runs' database.\n", IOTAPE_VERSION);
}

/* The short body: written to o->dir/stem.mail.txt (write_short()), then
 * that file copied to stdout. Returns 0 or -1 (said). */
static int mail_short(const struct mail_opts *o, struct store *st,
		      struct compare *cmp, const struct rundata **rds,
		      double (*head)[PLOT_NHEAD], const char *stem,
		      unsigned drawn_png)
{
	char path[PATH_MAX + 256];
	struct out_file of;
	struct stat sb;
	int rc, is_new;

	snprintf(path, sizeof(path), "%s/%s.mail.txt", o->dir, stem);
	is_new = lstat(path, &sb) != 0;
	if ((rc = out_file_open(&of, path))) {
		rc = error("cannot create '%s': %s", path, out_file_error(rc));
	} else if ((rc = write_short(of.fp, st, cmp, o, rds, head, stem,
				     drawn_png))) {
		out_file_discard(&of);
	} else if ((rc = out_file_commit(&of))) {
		rc = error("cannot write '%s': %s", path, out_file_error(rc));
	} else {
		if (is_new)
			plot_made_add(o->made, path, PLOT_MADE_FILE);
		FILE *in = fopen(path, "r");
		char buf[512];
		while (in && fgets(buf, sizeof(buf), in))
			fputs(buf, stdout);
		if (in)
			fclose(in);
		else
			rc = error("cannot read '%s': %s", path, strerror(errno));
	}
	return rc;
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
	unsigned drawn_png = 0, drawn_txt = 0;
	char stem[128], path[PATH_MAX + 256], txtdir[PATH_MAX];
	size_t nloaded = 0;
	struct out_file of;
	struct stat sb;
	FILE *fp = NULL;
	int rc = 0, loaded = 0, is_new = 0;

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
	/* the rows kept: the plots read them */
	if (compare_load(&cmp, st, (char **)o->runs, (int)o->nrun, o->group_by,
			 o->metric, NULL, 1)) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < o->nrun; i++) {
		rds[i] = &cmp.rf[i].an.rd;
		plot_headline_of(&cmp.rf[i].rv, rds[i], &cmp.rf[i].rep, head[i]);
	}
	snprintf(txtdir, sizeof(txtdir), "%s/txt", o->dir);
	if (mail_plots(o, rds, head, txtdir, &drawn_png, &drawn_txt)) {
		rc = -1;
		goto out;
	}
	plot_stem(o->runs, o->nrun, stem, sizeof(stem));
	snprintf(path, sizeof(path), "%s/%s.%s.txt", o->dir, stem, o->full ?
		 "mail" : "full");
	is_new = lstat(path, &sb) != 0;
	if ((rc = out_file_open(&of, path))) {
		rc = error("cannot create '%s': %s", path, out_file_error(rc));
		goto out;
	}
	fp = of.fp;

	write_first_line(fp, rv, o->nrun);
	if ((rc = write_runs(fp, st, rv, o->nrun)) ||
	    (rc = write_settings(fp, st, rv, o->nrun)))
		goto out;
	write_compare(fp, (const double (*)[PLOT_NHEAD])head, o->nrun);
	write_explanation(fp, &cmp);
	if ((rc = write_vmstat(fp, st, rv, o->nrun)))
		goto out;
	if ((rc = write_text_plots(fp, txtdir, stem, drawn_txt)))
		goto out;
	write_attached(fp, stem, drawn_png);
out:
	if (fp && rc) {
		out_file_discard(&of);
	} else if (fp) {
		if ((rc = out_file_commit(&of)))
			rc = error("cannot write '%s': %s", path,
				   out_file_error(rc));
		else if (is_new)
			plot_made_add(o->made, path, PLOT_MADE_FILE);
		if (!rc && o->full)
			printf("%s/%s.mail.txt\n", o->dir, stem);
	}
	/* the short body: the mail, and on stdout */
	if (!rc && !o->full)
		rc = mail_short(o, st, &cmp, rds, head, stem, drawn_png);
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
	while ((c = opt_next(argc, argv, "ho:", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'g': o.group_by = optarg; break;
		case 'M': o.metric = optarg; break;
		case 'f': o.full = 1; break;
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
	if (argc - optind < 1) {
		error("mail needs two or more RUNs (names, ids or globs such as "
		      "'sweep*') to compare");
		return opt_bad("mail");
	}
	o.db = db_path_default(db);
	o.args = (const char *const *)argv + optind;
	o.nargs = argc - optind;
	/* RUN arguments may be globs over the run names, as compare's */
	{
		char **names = NULL;
		int n = 0, rc;
		rc = compare_expand_runs_db(o.db, argv + optind, argc - optind,
					    &names, &n);
		if (!rc && n < 2) {
			error("mail needs two or more runs; %d given", n);
			rc = 2;
		}
		if (!rc) {
			struct plot_made made = { 0 };
			o.runs = (const char *const *)names;
			o.nrun = (size_t)n;
			o.made = &made;
			rc = mail_run(&o);
			/* a failed mail leaves nothing it made behind */
			if (rc)
				plot_made_undo(&made);
			else
				plot_made_free(&made);
		}
		compare_runs_free(names, n);
		return rc;
	}
}
