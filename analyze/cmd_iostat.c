/* `iotape iostat`: iostat -x's table per interval and device, computed from
 * a run's trace (analyze/iostat.c), in 80 columns or --json with every
 * column. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/iostat.h"
#include "analyze/rundata.h"
#include "analyze/runview.h"
#include "commands.h"
#include "lib/emit.h"
#include "lib/options.h"
#include "lib/util.h"

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "interval", 1, 'i', "T", "the interval (default 1s; 500ms, 10s)" },
	{ "from", 1, RV_OPT_FROM, "T", "the first interval starts at T (a "
	  "duration from the run's first event: 2.5s, 500ms, 1m; default 0)" },
	{ "to", 1, RV_OPT_TO, "T", "the last interval ends at T (default: the "
	  "last event)" },
	{ "dev", 1, RV_OPT_DEV, "M,m", "only device major,minor (8,0); repeat "
	  "for several" },
	{ "source", 1, 's', "SRC", "trace: computed from the requests; log: "
	  "an imported iostat log's reports as iostat printed them (default: "
	  "the trace when the run has requests, else the log)" },
	{ "explain", 0, 'x', NULL, "the columns' definitions under the table "
	  "(--help has them too; --json always)" },
	{ "json", 0, 'j', NULL, "every column, as one JSON object" },
	{ "help", 0, 'h', NULL, NULL },
};

static const char iostat_footer[] =
"As iostat -x names them (iostat(1)), from the trace: r/s w/s requests\n"
"completed in the interval per second (one per D with data, and an empty\n"
"flush as a write of 0 kB, as the kernel counts it; completed bios when the\n"
"trace has no D; discards apart), rkB/s wkB/s their kB (1024 bytes);\n"
"r_await w_await mean ms from each request's first Q to its C; aqu-sz\n"
"requests from Q to C, time-weighted over the interval; %util the share of\n"
"the interval with a request between D and C (Q and C with no D traced).\n"
"--json also has rrqm/s wrqm/s (bios merged, M/F), f/s (flushes: empty or\n"
"before a write) and rareq-sz wareq-sz (mean kB), left out of the text to\n"
"keep it in 80 columns (where a value of 10^7 or more is in millions:\n"
"12.35M). A last, shorter interval's rates are over its own length.\n"
"A request with no C in the trace adds no time.\n";

static void iostat_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape iostat [--db FILE] [--interval T] [--from T] [--to T]\n"
"                     [--dev M,m]... [--source trace|log] [--explain] [--json]\n"
"                     RUN\n"
"\n"
"One row per interval and device, as iostat -x prints from /proc/diskstats,\n"
"computed from RUN's requests: time (s from the run's first event), device,\n"
"r/s w/s rkB/s wkB/s r_await w_await aqu-sz %%util. A run imported from an\n"
"iostat log shows the log's reports (--source log).\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 19, NULL);
	fprintf(fp, "\n%s", iostat_footer);
}

/* A value in 7 columns: 2 decimals while they fit, fewer after, and from
 * 10^7 on in millions with an M ("12.35M": a loop device over page cache
 * reads over 10 GB/s, 8 digits of kB/s); "-" for none (NAN) */
static const char *fmt7(char *buf, double v)
{
	if (!isfinite(v))
		return "-";
	if (v >= 9999999.5e6 || v <= -999999.5)
		/* past 9999999M (a corrupt or wrapped counter in a log):
		 * the exponent, in 7 columns */
		snprintf(buf, 16, "%.1e", v);
	else if (v >= 9999999.5)
		snprintf(buf, 16, "%.*fM", v < 99.995e6 ? 2 : v < 999.95e6 ? 1 : 0,
			 v / 1e6);
	else
		snprintf(buf, 16, "%.*f", v < 999.995 ? 2 : v < 9999.95 ? 1 : 0, v);
	return buf;
}

/* One row of the table: time, device and the eight values, 80 columns. A
 * device name wider than its 8 columns is never cut (nvme0n1p1 and
 * nvme0n1p12 would read the same, nvme10n1p1 as another disk): it takes a
 * line of its own after the time, the values on the next. */
static void row_text(struct emit *e, const char *t, const char *dev,
		     const char *v0, const char *v1, const char *v2,
		     const char *v3, const char *v4, const char *v5,
		     const char *v6, const char *v7)
{
	if (strlen(dev) > 8)
		emit_text(e, "%7s %s\n%16s", t, dev, "");
	else
		emit_text(e, "%7s %-8s", t, dev);
	emit_text(e, " %7s %7s %7s %7s %7s %7s %7s %7s\n", v0, v1, v2, v3, v4,
		  v5, v6, v7);
}

struct iostat_cmd {
	const char *db, *run;
	const char *source;     /* "trace", "log" or NULL: pick */
	struct rv_filter filt;
	double interval_s;
	int interval_given;
	int explain;            /* the definitions under the table */
	int json;
};

static const char *dev_label(const struct store_device *devs, size_t ndev,
			     uint32_t dev, char *buf, size_t len)
{
	for (size_t i = 0; i < ndev; i++)
		if (devs[i].dev == dev && devs[i].name && devs[i].name[0])
			return devs[i].name;
	snprintf(buf, len, "%u,%u", BT_MAJOR(dev), BT_MINOR(dev));
	return buf;
}

/* The table's header line: iostat -x's column names (text only). */
static void emit_header(struct emit *e)
{
	emit_text(e, "%7s %-8s %7s %7s %7s %7s %7s %7s %7s %7s\n", "s",
		  "Device", "r/s", "w/s", "rkB/s", "wkB/s", "r_await", "w_await",
		  "aqu-sz", "%util");
}

static void emit_rows(struct emit *e, const struct runview *rv,
		      const struct iostat_row *rows, size_t n,
		      const struct store_device *devs, size_t ndev)
{
	char b[9][16], name[32], num[32];

	emit_arr_begin(e, "rows");
	emit_header(e);
	/* rows come by device, then interval: print by interval, then device */
	size_t nint = 0;
	while (nint < n && rows[nint].dev == rows[0].dev)
		nint++;
	for (size_t k = 0; k < nint; k++) {
		for (size_t j = k; j < n; j += nint) {
			const struct iostat_row *r = &rows[j];
			const char *label = dev_label(devs, ndev, r->dev, name,
						      sizeof(name));
			double t = (double)(r->t0_ns - rv->genesis_ns) / 1e9;
			snprintf(num, sizeof(num), "%u,%u", BT_MAJOR(r->dev),
				 BT_MINOR(r->dev));
			emit_obj_begin(e, NULL);
			emit_num(e, "t_s", t);
			emit_num(e, "length_s", (double)(r->t1_ns - r->t0_ns) / 1e9);
			emit_str(e, "dev", num);
			emit_str(e, "device", label);
			emit_num(e, "r/s", r->r_s);
			emit_num(e, "w/s", r->w_s);
			emit_num(e, "rkB/s", r->rkb_s);
			emit_num(e, "wkB/s", r->wkb_s);
			emit_num(e, "rrqm/s", r->rrqm_s);
			emit_num(e, "wrqm/s", r->wrqm_s);
			emit_num(e, "f/s", r->f_s);
			emit_num(e, "r_await", r->r_await_ms);
			emit_num(e, "w_await", r->w_await_ms);
			emit_num(e, "aqu-sz", r->aqu_sz);
			emit_num(e, "rareq-sz", r->rareq_sz);
			emit_num(e, "wareq-sz", r->wareq_sz);
			emit_num(e, "util", r->util_pct);
			emit_u64(e, "r", r->r);
			emit_u64(e, "w", r->w);
			emit_u64(e, "f", r->f);
			emit_obj_end(e);
			row_text(e, fmt7(b[8], t), label, fmt7(b[0], r->r_s), fmt7(b[1], r->w_s),
				  fmt7(b[2], r->rkb_s), fmt7(b[3], r->wkb_s),
				  fmt7(b[4], r->r_await_ms), fmt7(b[5], r->w_await_ms),
				  fmt7(b[6], r->aqu_sz), fmt7(b[7], r->util_pct));
		}
	}
	emit_arr_end(e);
}

static const char log_footer[] =
"From an imported iostat log (iostat(1), sysstat), each report as iostat\n"
"printed it: s its time from the run's first event (or the log's first\n"
"report), 'boot' the first report's averages since boot; r/s w/s rkB/s\n"
"wkB/s r_await w_await aqu-sz %util as logged, older sysstat's rMB/s (x 1024),\n"
"rsec/s (/ 2), await (both directions) and avgqu-sz in their place; '-' a\n"
"column the log does not have. --json has every column of the log.\n";

/* The columns an iostat log can hold per device: sysstat 12's -x has 21 */
#define LOG_MAXCOL 48

/* One device's values in one report of an iostat log (sysstat 12's
 * --pretty splits a report's devices into a read and a write part: their
 * columns meet in one row). */
struct log_row {
	int64_t time_ns;
	int since_boot;
	int dev;                   /* index into the device names */
	double v[LOG_MAXCOL];      /* by column index; NAN: not logged */
};

/* The names seen so far (devices or columns); the index of name[0..len),
 * added when new; -1 when out of memory or past max. */
static int intern(char ***names, size_t *n, size_t max, const char *name,
		  size_t len)
{
	char **nn;

	for (size_t i = 0; i < *n; i++)
		if (strlen((*names)[i]) == len && !strncmp((*names)[i], name, len))
			return (int)i;
	if (*n >= max || !(nn = realloc(*names, (*n + 1) * sizeof(*nn))))
		return -1;
	*names = nn;
	if (!(nn[*n] = strndup(name, len)))
		return -1;
	return (int)(*n)++;
}

/* The value of column key in row r, NAN when the log has none. */
static double log_get(char **cols, size_t ncol, const struct log_row *r,
		      const char *key)
{
	for (size_t i = 0; i < ncol; i++)
		if (!strcmp(cols[i], key))
			return r->v[i];
	return NAN;
}

/* The column of iostat -x's in row r, from the newer name or an older
 * sysstat's (iostat(1): rMB/s, rsec/s, await, avgqu-sz; -d's kB_read/s). */
static double log_col(char **cols, size_t ncol, const struct log_row *r,
		      const char *key)
{
	double v = log_get(cols, ncol, r, key);
	int w = key[0] == 'w';

	if (isfinite(v))
		return v;
	if (!strcmp(key, "rkB/s") || !strcmp(key, "wkB/s")) {
		if (isfinite(v = log_get(cols, ncol, r, w ? "wMB/s" : "rMB/s")))
			return v * 1024;
		if (isfinite(v = log_get(cols, ncol, r, w ? "wsec/s" : "rsec/s")))
			return v / 2;
		return log_get(cols, ncol, r, w ? "kB_wrtn/s" : "kB_read/s");
	}
	if (!strcmp(key, "r_await") || !strcmp(key, "w_await"))
		return log_get(cols, ncol, r, "await");
	if (!strcmp(key, "aqu-sz"))
		return log_get(cols, ncol, r, "avgqu-sz");
	return NAN;
}

/* An iostat log as read: its rows, in the log's order (a report's devices
 * together), and the device and column names the rows index. */
struct log_table {
	struct log_row *rows;
	size_t nrows, crows;
	char **devs, **cols;
	size_t ndev, ncol;
};

static void log_table_free(struct log_table *tab)
{
	for (size_t i = 0; i < tab->ndev; i++)
		free(tab->devs[i]);
	for (size_t i = 0; i < tab->ncol; i++)
		free(tab->cols[i]);
	free(tab->devs);
	free(tab->cols);
	free(tab->rows);
}

/* The row of device d in the report at time_ns, whose rows start at
 * row0; added (every column NAN, since_boot when the report is the
 * since-boot one, at t_boot) when the report has none yet. NULL when out
 * of memory. */
static struct log_row *log_row_of(struct log_table *tab, size_t row0,
				  int d, int64_t time_ns, int64_t t_boot)
{
	struct log_row *r = NULL;

	for (size_t i = row0; i < tab->nrows; i++)
		if (tab->rows[i].dev == d)
			r = &tab->rows[i];
	if (r)
		return r;
	if (tab->nrows == tab->crows) {
		size_t cap = tab->crows ? 2 * tab->crows : 64;
		struct log_row *nr = realloc(tab->rows, cap * sizeof(*nr));
		if (!nr)
			return NULL;
		tab->rows = nr;
		tab->crows = cap;
	}
	r = &tab->rows[tab->nrows++];
	r->time_ns = time_ns;
	r->dev = d;
	r->since_boot = time_ns == t_boot;
	for (int k = 0; k < LOG_MAXCOL; k++)
		r->v[k] = NAN;
	return r;
}

/* Reads run rv's iostat log samples in [from, to) of its time base into
 * tab; *base is that base (ns: the run's first event, else the log's
 * first sample). Returns 0 or -1 (printed). */
static int log_read(const struct iostat_cmd *o, struct runview *rv,
		    struct log_table *tab, int64_t *base)
{
	struct store_cursor *cur;
	struct store_sample smp;
	size_t row0 = 0;
	int64_t t_boot = INT64_MIN;
	int step, have_base = !!rv->last_event, rc = -1;

	if (store_samples_open(rv->st, rv->id, "iostat", &cur))
		return error("reading samples: %s", store_errmsg(rv->st));
	while ((step = store_samples_next(cur, &smp)) > 0) {
		const char *colon = strchr(smp.key, ':');
		struct log_row *r;
		int d, c;

		if (!have_base) {
			*base = smp.time_ns;
			have_base = 1;
		}
		if (!strcmp(smp.key, "since_boot")) {
			t_boot = smp.time_ns;
			continue;
		}
		if (!colon || !strncmp(smp.key, "cpu:", 4))
			continue;
		if (smp.time_ns - *base < o->filt.from_ns ||
		    (o->filt.to_ns != INT64_MAX &&
		     smp.time_ns - *base >= o->filt.to_ns))
			continue;
		if ((d = intern(&tab->devs, &tab->ndev, 4096, smp.key,
				(size_t)(colon - smp.key))) < 0 ||
		    (c = intern(&tab->cols, &tab->ncol, LOG_MAXCOL, colon + 1,
				strlen(colon + 1))) < 0) {
			error("run '%s': an iostat log of more than 4096 devices "
			      "or %d columns (or out of memory)", rv->name,
			      LOG_MAXCOL);
			goto out;
		}
		if (tab->nrows &&
		    tab->rows[tab->nrows - 1].time_ns != smp.time_ns)
			row0 = tab->nrows;   /* a new report */
		if (!(r = log_row_of(tab, row0, d, smp.time_ns, t_boot))) {
			error("out of memory");
			goto out;
		}
		r->v[c] = smp.value;
	}
	if (step < 0) {
		error("reading samples: %s", store_errmsg(rv->st));
		goto out;
	}
	rc = 0;
out:
	store_cursor_close(cur);
	return rc;
}

/* Prints tab's rows (of run rv, times from base, ns) as iostat -x's
 * table, or as JSON with every column the log has. */
static void log_emit(const struct iostat_cmd *o, const struct runview *rv,
		     const struct log_table *tab, int64_t base)
{
	char b[9][16], **cols = tab->cols;
	size_t ncol = tab->ncol;
	struct emit e;

	emit_init(&e, stdout, o->json);
	emit_obj_begin(&e, NULL);
	emit_str(&e, "run", rv->name);
	emit_str(&e, "source", "log");
	if (!tab->nrows)
		emit_text(&e, "run '%s': no iostat reports%s\n", rv->name,
			  o->filt.from_ns || o->filt.to_ns != INT64_MAX
			  ? " in the window asked for" : "");
	emit_arr_begin(&e, "rows");
	if (tab->nrows)
		emit_header(&e);
	for (size_t i = 0; i < tab->nrows; i++) {
		const struct log_row *r = &tab->rows[i];
		double t = (double)(r->time_ns - base) / 1e9;

		emit_obj_begin(&e, NULL);
		emit_num(&e, "t_s", t);
		emit_u64(&e, "since_boot", (uint64_t)r->since_boot);
		emit_str(&e, "device", tab->devs[r->dev]);
		for (size_t k = 0; k < ncol; k++)
			if (!isnan(r->v[k]))
				emit_num(&e, cols[k], r->v[k]);
		emit_obj_end(&e);
		row_text(&e, r->since_boot ? "boot" : fmt7(b[8], t),
			 tab->devs[r->dev],
			 fmt7(b[0], log_col(cols, ncol, r, "r/s")),
			 fmt7(b[1], log_col(cols, ncol, r, "w/s")),
			 fmt7(b[2], log_col(cols, ncol, r, "rkB/s")),
			 fmt7(b[3], log_col(cols, ncol, r, "wkB/s")),
			 fmt7(b[4], log_col(cols, ncol, r, "r_await")),
			 fmt7(b[5], log_col(cols, ncol, r, "w_await")),
			 fmt7(b[6], log_col(cols, ncol, r, "aqu-sz")),
			 fmt7(b[7], log_col(cols, ncol, r, "%util")));
	}
	emit_arr_end(&e);
	emit_str(&e, "definitions", log_footer);
	if (o->explain)
		emit_text(&e, "\n%s", log_footer);
	emit_obj_end(&e);
	emit_finish(&e);
}

/* Prints run's imported iostat log (samples of source "iostat", keys
 * "DEVICE:column" and "cpu:column", stored by import/import_fmt.c) as
 * iostat -x's table, the reports in [from, to) of the run's time base
 * (its first event, else the log's first report). Returns 0 or -1
 * (printed). */
static int log_run(const struct iostat_cmd *o, struct runview *rv)
{
	struct log_table tab = { 0 };
	int64_t base = rv->genesis_ns;
	int rc = -1;

	if (o->filt.ndev)
		return error("run '%s': an iostat log names its devices, not "
			     "major,minor: --dev is for --source trace",
			     rv->name);
	if (o->interval_given)
		return error("run '%s': an iostat log's reports keep the log's "
			     "interval: --interval is for --source trace",
			     rv->name);
	if (!log_read(o, rv, &tab, &base)) {
		log_emit(o, rv, &tab, base);
		rc = 0;
	}
	log_table_free(&tab);
	return rc;
}

static int iostat_run(const struct iostat_cmd *o)
{
	struct runview rv;
	struct rundata rd;
	struct rv_filter devonly = o->filt;
	struct iostat_opts io;
	struct iostat_row *rows;
	struct store_device *devs = NULL;
	size_t nrows, ndev = 0;
	struct emit e;
	int rc;

	if (o->filt.to_ns <= o->filt.from_ns)
		return error("--to must be after --from");
	if (runview_open(&rv, db_path_default(o->db), o->run))
		return -1;
	if (o->source ? !strcmp(o->source, "log") : !rv.last_event) {
		int has = store_run_has(rv.st, rv.id, STORE_HAS_IOSTAT_SAMPLES);
		if (has < 0)
			rc = error("reading samples: %s", store_errmsg(rv.st));
		else if (has)
			rc = log_run(o, &rv);
		else if (o->source)
			rc = error("run '%s' has no iostat log (import one: iotape "
				   "import --run %s LOG)", rv.name, rv.name);
		if (has || o->source) {
			runview_close(&rv);
			return rc;
		}
	}
	/* the window cuts intervals here (requests count by their C), so
	 * only the devices filter the requests read */
	devonly.from_ns = 0;
	devonly.to_ns = INT64_MAX;
	if (runview_set_filter(&rv, &devonly) || rundata_load(&rd, &rv)) {
		runview_close(&rv);
		return -1;
	}
	if (store_devices_get(rv.st, rv.id, &devs, &ndev)) {
		rc = error("reading devices: %s", store_errmsg(rv.st));
		goto out;
	}
	io.interval_ns = (int64_t)llround(o->interval_s * 1e9);
	io.from_ns = rv.genesis_ns + o->filt.from_ns;
	io.to_ns = o->filt.to_ns == INT64_MAX ? INT64_MAX
		   : rv.genesis_ns + o->filt.to_ns;
	if (iostat_build(&rd, &io, &rows, &nrows)) {
		rc = error("too many intervals of %g s in run '%s'",
			   o->interval_s, rv.name);
		goto out;
	}
	emit_init(&e, stdout, o->json);
	emit_obj_begin(&e, NULL);
	emit_str(&e, "run", rv.name);
	emit_num(&e, "interval_s", o->interval_s);
	if (!nrows && !rv.last_event)
		emit_text(&e, "run '%s': no block events (samples only%s)\n",
			  rv.name, store_run_has(rv.st, rv.id,
						 STORE_HAS_IOSTAT_SAMPLES) > 0
			  ? ": its iostat log is --source log" : "");
	else if (!nrows)
		emit_text(&e, "run '%s': no requests%s\n", rv.name,
			  rv.filtered || o->filt.from_ns || o->filt.to_ns != INT64_MAX
			  ? " in the window or devices asked for" : "");
	else
		emit_rows(&e, &rv, rows, nrows, devs, ndev);
	emit_str(&e, "definitions", iostat_footer);
	if (o->explain)
		emit_text(&e, "\n%s", iostat_footer);
	emit_obj_end(&e);
	emit_finish(&e);
	free(rows);
	rc = 0;
out:
	free(devs);
	rundata_free(&rd);
	runview_close(&rv);
	return rc;
}

int cmd_iostat(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	struct iostat_cmd o = { .interval_s = 1 };
	int c;

	rv_filter_init(&o.filt);
	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': o.db = optarg; break;
		case 'i':
			if (parse_duration(optarg, "--interval", &o.interval_s))
				return 2;
			o.interval_given = 1;
			if (o.interval_s < 1e-3 || o.interval_s > 1e6)
				{ error("invalid duration '%s' for --interval "
					"(1ms to 1e6 s)", optarg); return 2; }
			break;
		case RV_OPT_FROM: case RV_OPT_TO: case RV_OPT_DEV:
			if (rv_filter_opt(&o.filt, c, optarg))
				return 2;
			break;
		case 's':
			if (strcmp(optarg, "trace") && strcmp(optarg, "log")) {
				error("invalid value '%s' for --source (trace "
				      "or log)", optarg);
				return 2;
			}
			o.source = optarg;
			break;
		case 'x': o.explain = 1; break;
		case 'j': o.json = 1; break;
		case 'h': iostat_usage(stdout); return 0;
		default: return opt_bad("iostat");
		}
	}
	if (optind != argc - 1) {
		error(optind == argc ? "iostat needs a RUN" : "iostat takes one RUN");
		return opt_bad("iostat");
	}
	o.run = argv[optind];
	return iostat_run(&o);
}
