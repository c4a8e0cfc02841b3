/* `iotape vmstat`: a run's samples as vmstat(8)'s classic table (from the
 * vmstat view: /proc samples or an imported vmstat log), 80 columns, with
 * the time since the run's start first; --json carries the same numbers. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/procstat.h"
#include "commands.h"
#include "lib/emit.h"
#include "lib/options.h"
#include "lib/util.h"
#include "schema/store.h"

#define WIDTH 80

/* The table's columns after the time, in the view's order (as
 * store_vmstat.v[], enum store_vm_col). */
enum { C_R, C_B, C_SWPD, C_FREE, C_BUFF, C_CACHE, C_SI, C_SO, C_BI, C_BO,
       C_IN, C_CS, C_US, C_SY, C_ID, C_WA, C_ST, NCOL };
_Static_assert((int)NCOL == (int)STORE_VM_NCOLS && (int)C_ST == (int)STORE_VM_ST,
	       "the table's columns are the store's vmstat columns");

static const struct {
	const char *name;
	const char *json;   /* key in --json, with its unit */
	int group;
} cols[NCOL] = {
	{ "r", "r", 1 }, { "b", "b", 1 },
	{ "swpd", "swpd_kb", 2 }, { "free", "free_kb", 2 },
	{ "buff", "buff_kb", 2 }, { "cache", "cache_kb", 2 },
	{ "si", "si_kbps", 3 }, { "so", "so_kbps", 3 },
	{ "bi", "bi_kbps", 4 }, { "bo", "bo_kbps", 4 },
	{ "in", "in_per_s", 5 }, { "cs", "cs_per_s", 5 },
	{ "us", "us_pct", 6 }, { "sy", "sy_pct", 6 }, { "id", "id_pct", 6 },
	{ "wa", "wa_pct", 6 }, { "st", "st_pct", 6 },
};

struct vmstat_opts {
	const char *db;
	const char *run;
	const char *source;  /* "proc", "vmstat-log" or NULL: proc if any */
	int json;
	int disk;            /* --disk: the diskstats table instead */
};

struct vrow {
	double t_s;
	int since_boot;
	double v[NCOL];      /* NAN where the view has NULL */
};

/* Units of the memory and rate groups, chosen so the table fits. */
struct units {
	int mem;   /* 0 kB, 1 MiB, 2 GiB */
	int rate;  /* 0 kB/s, 1 MiB/s */
	int time_decimals;
};

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "source", 1, 's', "SRC", "proc: from /proc samples; log: from an "
	  "imported vmstat log (default: proc when the run has /proc samples)" },
	{ "disk", 0, 'd', NULL, "per disk, what /proc/diskstats counted in each "
	  "interval (as vmstat -d, which prints it since boot)" },
	{ "json", 0, 'j', NULL, "the same numbers as JSON (units in the key "
	  "names)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void vmstat_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape vmstat [--db FILE] [--source proc|log] [--disk] [--json] RUN\n"
"\n"
"Prints vmstat(8)'s classic columns for RUN, one row per sample, with the\n"
"time since the run's start (s) first: r b (processes), swpd free buff\n"
"cache (memory), si so (swap in/out per s), bi bo (read/written per s),\n"
"in cs (interrupts, context switches per s), us sy id wa st (CPU %%).\n"
"Memory and rates are in kB, or in MiB/GiB when kB would not fit 80\n"
"columns (the group line says which). '*' marks rows vmstat printed as\n"
"averages since boot; '-' a value not known (rates of a first sample);\n"
"'?' a CPU percentage out of range (below 0 or above 100) in the source.\n"
"With --disk: per disk (samples of /proc/diskstats, as iotape record\n"
"takes them) reads and writes (total, merged, 512-byte sectors, ms) and\n"
"I/O (in flight at the sample, ms busy) in each interval.\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 17, NULL);
}

static const char *pick_source(struct store *st, int64_t run, const char *want)
{
	if (want)
		return !strcmp(want, "log") ? "vmstat-log" : want;
	return store_run_has(st, run, STORE_HAS_PROC_SAMPLES) > 0 ? "proc"
								    : "vmstat-log";
}

/* Where the table's time 0 is: the run's genesis, else its first sample. */
static int time_base(struct store *st, int64_t run, int64_t *base)
{
	struct store_cursor *cur;
	struct store_sample smp;
	struct store_run r;
	int step;

	*base = 0;
	if (store_run_get(st, run, &r))
		return -1;
	if (r.genesis_ns != STORE_NO_TIME) {
		*base = r.genesis_ns;
		return 0;
	}
	if (store_samples_open(st, run, NULL, &cur))
		return -1;
	if ((step = store_samples_next(cur, &smp)) > 0)
		*base = smp.time_ns;
	store_cursor_close(cur);
	return step < 0 ? -1 : 0;
}

/* Reads the run's vmstat rows. Returns 0 or -1 (printed). */
static int load_rows(struct store *st, int64_t run, const char *source,
		     struct vrow **out, size_t *nout)
{
	struct store_cursor *cur;
	struct store_vmstat vm;
	struct vrow *rows = NULL;
	size_t n = 0, cap = 0;
	int64_t base;
	int rc;

	if (time_base(st, run, &base) ||
	    store_vmstat_open(st, run, !strcmp(source, "proc") ? STORE_VM_PROC
			      : STORE_VM_LOG, &cur))
		return error("%s", store_errmsg(st));
	while ((rc = store_vmstat_next(cur, &vm)) > 0) {
		struct vrow *r;
		if (n == cap)
			rows = xrealloc(rows, (cap = cap ? 2 * cap : 256) * sizeof(*rows));
		r = &rows[n++];
		r->t_s = (double)(vm.time_ns - base) / 1e9;
		r->since_boot = vm.since_boot;
		for (int i = 0; i < NCOL; i++)
			r->v[i] = vm.v[i];
	}
	store_cursor_close(cur);
	if (rc < 0) {
		free(rows);
		return error("%s", store_errmsg(st));
	}
	*out = rows;
	*nout = n;
	return 0;
}

/* Whether v, a CPU %, is outside 0..100: shown as '?' (--json has the
 * number). Seen in real logs: a wrapped iowait counter printed as
 * 3035110221 %. */
static int cpu_out_of_range(double v)
{
	return v < 0 || v > 100;
}

/* Formats column c of row r in the units u into buf. */
static void format_cell(const struct vrow *r, int c, const struct units *u,
			char *buf, size_t len)
{
	double v = r->v[c];
	int g = cols[c].group;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (g == 6 && cpu_out_of_range(v)) {
		snprintf(buf, len, "?");
		return;
	}
	if (g == 2 && u->mem == 2) {
		snprintf(buf, len, "%.1f", v / 1048576);
		return;
	}
	if (g == 2 && u->mem == 1)
		v /= 1024;
	if ((g == 3 || g == 4) && u->rate == 1)
		v /= 1024;
	snprintf(buf, len, "%.0f", v);
}

static void format_time(const struct vrow *r, const struct units *u, char *buf,
			size_t len)
{
	snprintf(buf, len, "%.*f%s", u->time_decimals, r->t_s,
		 r->since_boot ? "*" : "");
}

/* Widths of the time column and each column; returns the line's length. */
static int widths(const struct vrow *rows, size_t n, const struct units *u,
		  int *wt, int *w)
{
	char buf[64];
	int total;

	*wt = 1;   /* "s" */
	for (int c = 0; c < NCOL; c++)
		w[c] = (int)strlen(cols[c].name);
	for (size_t i = 0; i < n; i++) {
		int k;
		format_time(&rows[i], u, buf, sizeof(buf));
		if ((k = (int)strlen(buf)) > *wt)
			*wt = k;
		for (int c = 0; c < NCOL; c++) {
			format_cell(&rows[i], c, u, buf, sizeof(buf));
			if ((k = (int)strlen(buf)) > w[c])
				w[c] = k;
		}
	}
	if (*wt < 4)
		*wt = 4;   /* room for "time" over it */
	total = *wt;
	for (int c = 0; c < NCOL; c++)
		total += 1 + w[c];
	return total;
}

/* "----label----" centred in width; tries the labels in order until one
 * fits, else dashes (text only). */
static void group_label(struct emit *e, int width, const char *const *labels)
{
	const char *l = "";
	int n, left;

	for (; *labels; labels++)
		if ((int)strlen(*labels) <= width) {
			l = *labels;
			break;
		}
	n = (int)strlen(l);
	left = (width - n) / 2;
	for (int i = 0; i < left; i++)
		emit_text(e, "-");
	emit_text(e, "%s", l);
	for (int i = left + n; i < width; i++)
		emit_text(e, "-");
}

/* The samples of run (from source) as a table in 80 columns, in the
 * smallest units that fit, or as JSON (each row's values in their JSON
 * keys, times to the microsecond): one call per value for both. */
static void print_rows(struct emit *e, const char *run, const char *source,
		       const struct vrow *rows, size_t n)
{
	static const char *const mem_units[] = { "kB", "MiB", "GiB" };
	static const char *const rate_units[] = { "kB/s", "MiB/s" };
	char mem[32], mem2[32], swap[32], swap2[32], io[32], io2[32];
	const char *const l_time[] = { "time", NULL };
	const char *const l_procs[] = { "procs", "proc", "pr", NULL };
	const char *const l_sys[] = { "system /s", "system", "sys", NULL };
	const char *const l_cpu[] = { "cpu %", "cpu", NULL };
	struct units u = { 0, 0, 0 };
	int wt, w[NCOL];
	char buf[64];
	int any_boot = 0, any_bad = 0;

	for (size_t i = 0; i < n; i++)
		if (fabs(rows[i].t_s - round(rows[i].t_s)) > 1e-6)
			u.time_decimals = 1;
	/* the smallest units that fit: memory first, then rates */
	while (widths(rows, n, &u, &wt, w) > WIDTH) {
		if (u.mem < 2)
			u.mem++;
		else if (u.rate < 1)
			u.rate++;
		else
			break;
	}
	snprintf(mem, sizeof(mem), "memory %s", mem_units[u.mem]);
	snprintf(mem2, sizeof(mem2), "mem %s", mem_units[u.mem]);
	snprintf(swap, sizeof(swap), "swap %s", rate_units[u.rate]);
	snprintf(swap2, sizeof(swap2), "sw %s", rate_units[u.rate]);
	snprintf(io, sizeof(io), "io %s", rate_units[u.rate]);
	snprintf(io2, sizeof(io2), "io %s", rate_units[u.rate]);
	{
		const char *const l_mem[] = { mem, mem2, mem_units[u.mem], NULL };
		const char *const l_swap[] = { swap, swap2, rate_units[u.rate],
					       "swap", NULL };
		const char *const l_io[] = { io, io2, rate_units[u.rate], "io",
					     NULL };
		const char *const *labels[] = { l_time, l_procs, l_mem, l_swap,
						l_io, l_sys, l_cpu };
		/* group line */
		group_label(e, wt, labels[0]);
		for (int g = 1, c = 0; g <= 6; g++) {
			int span = -1;
			for (; c < NCOL && cols[c].group == g; c++)
				span += 1 + w[c];
			emit_text(e, " ");
			group_label(e, span, labels[g]);
		}
		emit_text(e, "\n");
	}
	/* column names */
	emit_text(e, "%*s", wt, "s");
	for (int c = 0; c < NCOL; c++)
		emit_text(e, " %*s", w[c], cols[c].name);
	emit_text(e, "\n");
	emit_obj_begin(e, NULL);
	emit_str(e, "run", run);
	emit_str(e, "source", source);
	emit_arr_begin(e, "rows");
	for (size_t i = 0; i < n; i++) {
		emit_obj_begin(e, NULL);
		/* to the µs: a row moved 1 ns to keep times distinct shows
		 * as its log time */
		emit_num(e, "t_s", round(rows[i].t_s * 1e6) / 1e6);
		emit_u64(e, "since_boot", (uint64_t)rows[i].since_boot);
		format_time(&rows[i], &u, buf, sizeof(buf));
		emit_text(e, "%*s", wt, buf);
		for (int c = 0; c < NCOL; c++) {
			emit_num(e, cols[c].json, rows[i].v[c]);
			format_cell(&rows[i], c, &u, buf, sizeof(buf));
			emit_text(e, " %*s", w[c], buf);
		}
		emit_text(e, "\n");
		emit_obj_end(e);
		any_boot |= rows[i].since_boot;
		for (int c = C_US; c <= C_ST; c++)
			any_bad |= cpu_out_of_range(rows[i].v[c]);
	}
	emit_arr_end(e);
	emit_obj_end(e);
	if (any_boot)
		emit_text(e, "* averages since boot (vmstat's first row), not of "
			  "an interval\n");
	if (any_bad)
		emit_text(e, "? a CPU percentage out of range in the source (a "
			  "counter wrapped)\n");
	emit_finish(e);
}

/* ---- --disk: the diskstats samples, per disk ---- */

/* One disk's samples, one row per sample time, fields in
 * procstat_disk_fields[] order (NAN: not sampled). */
struct dsamples {
	char name[64];
	struct { int64_t t_ns; double v[PROCSTAT_DISK_FIELDS]; } *row;
	size_t n, cap;
};

/* The field index of "MAJOR,MINOR:FIELD" and its disk ("7,0"), or -1. */
static int disk_key(const char *key, char *name, size_t len)
{
	const char *colon = strrchr(key, ':');

	if (!colon || (size_t)(colon - key) >= len)
		return -1;
	for (int f = 0; f < PROCSTAT_DISK_FIELDS; f++)
		if (!strcmp(colon + 1, procstat_disk_fields[f])) {
			memcpy(name, key, (size_t)(colon - key));
			name[colon - key] = '\0';
			return f;
		}
	return -1;
}

/* Reads run's diskstats samples into disks (*ndisk of them). Returns 0 or
 * -1 (printed). */
static int disk_load(struct store *st, int64_t run, struct dsamples **out,
		     int *ndisk)
{
	struct store_cursor *cur;
	struct store_sample smp;
	struct dsamples *d = NULL;
	int n = 0, rc;

	if (store_samples_open(st, run, "diskstats", &cur))
		return error("%s", store_errmsg(st));
	while ((rc = store_samples_next(cur, &smp)) > 0) {
		char name[64];
		int f = disk_key(smp.key, name, sizeof(name)), k;
		struct dsamples *ds;

		if (f < 0)
			continue;
		for (k = 0; k < n && strcmp(d[k].name, name); k++)
			;
		if (k == n) {
			d = xrealloc(d, (size_t)(n + 1) * sizeof(*d));
			memset(&d[n], 0, sizeof(d[n]));
			snprintf(d[n++].name, sizeof(d[k].name), "%s", name);
		}
		ds = &d[k];
		if (!ds->n || ds->row[ds->n - 1].t_ns != smp.time_ns) {
			if (ds->n == ds->cap)
				ds->row = xrealloc(ds->row, (ds->cap = ds->cap ?
					2 * ds->cap : 64) * sizeof(*ds->row));
			ds->row[ds->n].t_ns = smp.time_ns;
			for (int i = 0; i < PROCSTAT_DISK_FIELDS; i++)
				ds->row[ds->n].v[i] = NAN;
			ds->n++;
		}
		ds->row[ds->n - 1].v[f] = smp.value;
	}
	store_cursor_close(cur);
	*out = d;
	*ndisk = n;
	return rc < 0 ? error("%s", store_errmsg(st)) : 0;
}

/* Prints, per disk, the counts between consecutive samples (in_flight as
 * sampled), as a table or JSON. Returns 0 or -1 (printed). */
static int disk_print(struct store *st, int64_t run, const char *name, int json)
{
	/* the first 10 fields: reads, merged, sectors, ms; the same of
	 * writes; in flight, io ms (JSON keys: their field names) */
	static const char *const hdr[] = { "total", "merged", "sectors", "ms",
		"total", "merged", "sectors", "ms", "cur", "ms" };
	static const int w[] = { 7, 6, 8, 6, 7, 6, 8, 6, 3, 6 };
	struct dsamples *d = NULL;
	struct store_device *dv = NULL;
	size_t ndv = 0;
	struct emit e;
	int64_t base;
	int n = 0;

	if (time_base(st, run, &base))
		return error("%s", store_errmsg(st));
	if (disk_load(st, run, &d, &n))
		return -1;
	if (!n) {
		free(d);
		return error("run '%s' has no /proc/diskstats samples", name);
	}
	if (store_devices_get(st, run, &dv, &ndv))
		ndv = 0;        /* names are a courtesy: print major,minor only */
	emit_init(&e, stdout, json);
	emit_obj_begin(&e, NULL);
	emit_str(&e, "run", name);
	emit_arr_begin(&e, "disks");
	for (int k = 0; k < n; k++) {
		const char *dn = NULL;
		unsigned ma, mi;

		if (sscanf(d[k].name, "%u,%u", &ma, &mi) == 2)
			for (size_t j = 0; j < ndv; j++)
				if (dv[j].dev == (ma << 20 | mi) && dv[j].name)
					dn = dv[j].name;
		emit_obj_begin(&e, NULL);
		emit_str(&e, "disk", d[k].name);
		if (dn)
			emit_str(&e, "name", dn);
		emit_text(&e, "%sdisk %s%s%s%s: counts in each interval\n",
			  k ? "\n" : "", dn ? dn : "", dn ? " (" : "", d[k].name,
			  dn ? ")" : "");
		emit_text(&e, "  time ------------reads------------- "
			  "------------writes------------ ----IO----\n");
		emit_text(&e, "%6s", "s");
		for (size_t c = 0; c < ARRAY_SIZE(hdr); c++)
			emit_text(&e, " %*s", w[c], hdr[c]);
		emit_text(&e, "\n");
		emit_arr_begin(&e, "rows");
		for (size_t i = 1; i < d[k].n; i++) {
			double t = (double)(d[k].row[i].t_ns - base) / 1e9;
			emit_obj_begin(&e, NULL);
			emit_num(&e, "t_s", round(t * 1e6) / 1e6);
			emit_text(&e, "%6.1f", t);
			for (size_t f = 0; f < ARRAY_SIZE(hdr); f++) {
				double v = d[k].row[i].v[f];
				if (f != 8)   /* in_flight is a level, not a count */
					v -= d[k].row[i - 1].v[f];
				emit_num(&e, procstat_disk_fields[f], v);
				if (isnan(v))
					emit_text(&e, " %*s", w[f], "-");
				else
					emit_text(&e, " %*.0f", w[f], v);
			}
			emit_text(&e, "\n");
			emit_obj_end(&e);
		}
		emit_arr_end(&e);
		emit_obj_end(&e);
		free(d[k].row);
	}
	emit_arr_end(&e);
	emit_obj_end(&e);
	emit_finish(&e);
	free(d);
	free(dv);
	return 0;
}

/* Prints the table (or JSON) of o->run. Returns 0 or -1 after one error. */
static int vmstat_print(const struct vmstat_opts *o)
{
	struct store *st = NULL;
	struct vrow *rows = NULL;
	const char *source;
	size_t n = 0;
	int64_t run;
	int rc = -1;

	if (store_open_existing(&st, o->db)) {
		error("%s", store_errmsg(st));
		goto out;
	}
	if (store_run_find(st, o->run, &run)) {
		error("%s: %s", store_shown(o->db), store_errmsg(st));
		goto out;
	}
	if (o->disk) {
		rc = disk_print(st, run, o->run, o->json);
		goto out;
	}
	source = pick_source(st, run, o->source);
	if (load_rows(st, run, source, &rows, &n))
		goto out;
	if (!n) {
		error("run '%s' has no %s samples", o->run,
		      !strcmp(source, "proc") ? "/proc" : "vmstat log");
		goto out;
	}
	{
		struct emit e;
		emit_init(&e, stdout, o->json);
		print_rows(&e, o->run, source, rows, n);
	}
	rc = 0;
out:
	free(rows);
	store_close(st);
	return rc;
}

int cmd_vmstat(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct vmstat_opts o = { 0 };
	int c;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': o.db = optarg; break;
		case 's':
			if (strcmp(optarg, "proc") && strcmp(optarg, "log")) {
				error("invalid value '%s' for --source (proc or log)",
				      optarg);
				return 2;
			}
			o.source = optarg;
			break;
		case 'j': o.json = 1; break;
		case 'd': o.disk = 1; break;
		case 'h': vmstat_usage(stdout); return 0;
		default: return opt_bad("vmstat");
		}
	}
	if (optind != argc - 1) {
		error(optind == argc ? "vmstat needs a RUN" : "vmstat takes one RUN");
		return opt_bad("vmstat");
	}
	o.run = argv[optind];
	o.db = db_path_default(o.db);
	return vmstat_print(&o);
}
