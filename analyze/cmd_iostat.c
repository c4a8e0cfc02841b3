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
	{ "json", 0, 'j', NULL, "every column, as one JSON object" },
	{ "help", 0, 'h', NULL, NULL },
};

static const char iostat_footer[] =
"As iostat -x names them (iostat(1)), from the trace: r/s w/s requests\n"
"completed in the interval per second (one per D with data; completed bios\n"
"when the trace has no D; flushes and discards apart), rkB/s wkB/s their kB\n"
"(1024 bytes); r_await w_await mean ms from each request's first Q to its C;\n"
"aqu-sz requests from Q to C, time-weighted over the interval; %util the\n"
"share of the interval with a request between D and C. --json also has\n"
"rrqm/s wrqm/s (bios merged, M/F) and rareq-sz wareq-sz (mean kB), left out\n"
"of the text to keep it in 80 columns (where a value of 10^7 or more is in\n"
"millions: 12.35M). A last, shorter interval's rates are over its own\n"
"length. A request with no C in the trace adds no time.\n";

static void iostat_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape iostat [--db FILE] [--interval T] [--from T] [--to T]\n"
"                     [--dev M,m]... [--json] RUN\n"
"\n"
"One row per interval and device, as iostat -x prints from /proc/diskstats,\n"
"computed from RUN's requests: time (s from the run's first event), device,\n"
"r/s w/s rkB/s wkB/s r_await w_await aqu-sz %%util.\n");
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
	if (v >= 9999999.5)
		snprintf(buf, 16, "%.*fM", v < 99.995e6 ? 2 : v < 999.95e6 ? 1 : 0,
			 v / 1e6);
	else
		snprintf(buf, 16, "%.*f", v < 999.995 ? 2 : v < 9999.95 ? 1 : 0, v);
	return buf;
}

struct iostat_cmd {
	const char *db, *run;
	struct rv_filter filt;
	double interval_s;
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

static void emit_rows(struct emit *e, const struct runview *rv,
		      const struct iostat_row *rows, size_t n,
		      const struct store_device *devs, size_t ndev)
{
	char b[9][16], name[32], num[32];

	emit_arr_begin(e, "rows");
	emit_text(e, "%7s %-8s %7s %7s %7s %7s %7s %7s %7s %7s\n", "s",
		  "Device", "r/s", "w/s", "rkB/s", "wkB/s", "r_await", "w_await",
		  "aqu-sz", "%util");
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
			emit_num(e, "r_await", r->r_await_ms);
			emit_num(e, "w_await", r->w_await_ms);
			emit_num(e, "aqu-sz", r->aqu_sz);
			emit_num(e, "rareq-sz", r->rareq_sz);
			emit_num(e, "wareq-sz", r->wareq_sz);
			emit_num(e, "util", r->util_pct);
			emit_u64(e, "r", r->r);
			emit_u64(e, "w", r->w);
			emit_obj_end(e);
			emit_text(e, "%7s %-8.8s %7s %7s %7s %7s %7s %7s %7s %7s\n",
				  fmt7(b[8], t), label, fmt7(b[0], r->r_s), fmt7(b[1], r->w_s),
				  fmt7(b[2], r->rkb_s), fmt7(b[3], r->wkb_s),
				  fmt7(b[4], r->r_await_ms), fmt7(b[5], r->w_await_ms),
				  fmt7(b[6], r->aqu_sz), fmt7(b[7], r->util_pct));
		}
	}
	emit_arr_end(e);
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
	if (!nrows)
		emit_text(&e, "run '%s': no requests%s\n", rv.name,
			  rv.filtered || o->filt.from_ns || o->filt.to_ns != INT64_MAX
			  ? " in the window or devices asked for" : "");
	else
		emit_rows(&e, &rv, rows, nrows, devs, ndev);
	emit_str(&e, "definitions", iostat_footer);
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
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.db = optarg; break;
		case 'i':
			if (parse_duration(optarg, "--interval", &o.interval_s))
				return -1;
			if (o.interval_s < 1e-3 || o.interval_s > 1e6)
				return error("invalid duration '%s' for --interval "
					     "(1ms to 1e6 s)", optarg);
			break;
		case RV_OPT_FROM: case RV_OPT_TO: case RV_OPT_DEV:
			if (rv_filter_opt(&o.filt, c, optarg))
				return -1;
			break;
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
