/* `iotape model list [PROFILE]` and `iotape model fit RUN ...`: the disk
 * profiles a replay on a modelled disk can use, and a profile fitted to a
 * trace of a real rotating disk. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/runview.h"
#include "trace/blktrace_format.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "model/model.h"
#include "model/model_fit.h"

static const struct opt_def options[] = {
	{ "dev", 1, 'd', "MAJ,MIN", "fit: the device (default: the one with the "
	  "most requests)" },
	{ "base", 1, 'B', "PROFILE", "fit: geometry, rates and buffer from this "
	  "profile (default desktop-2006)" },
	{ "capacity", 1, 'c', "SECTORS", "fit: the disk's size (default: the "
	  "highest sector the trace reaches)" },
	{ "holdout", 0, 'H', NULL, "fit: fit on the first half of the requests "
	  "and predict the second: D2C mean, median and p95 errors" },
	{ "output", 1, 'o', "FILE", "fit: write the profile to FILE (default: "
	  "print it)" },
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape model list [PROFILE]\n"
"       iotape model fit [--db FILE] RUN [--dev MAJ,MIN] [--base PROFILE]\n"
"                        [--capacity SECTORS] [--holdout] [-o FILE]\n"
"\n"
"list: the built-in disk profiles, or PROFILE's parameters (a built-in's\n"
"name or a profile file) with their sources and the disk they make.\n"
"fit: a profile from a trace of a real rotating disk (D2C of requests that\n"
"were alone on the device against seek distance), or why the trace cannot\n"
"support one. Use a profile with: iotape replay RUN --target model:PROFILE\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 22, "o");
}

/* ---- list ---- */

static int list_all(void)
{
	size_t n;
	const struct disk_profile *b = profile_builtins(&n);

	printf("%-18s %-16s %6s %8s %6s %12s %6s\n", "profile", "alias", "rpm",
	       "GB", "seek", "MB/s", "cache");
	printf("%-18s %-16s %6s %8s %6s %12s %6s\n", "", "", "", "", "ms",
	       "outer-inner", "MB");
	for (size_t i = 0; i < n; i++) {
		char alias[64] = "", rates[32];
		size_t k;
		/* the alias: the other name profile_builtin() knows it by */
		{
			static const char *const al[] = { "desktop-2006", "desktop-current",
							  "laptop-5400", "sas-15k" };
			for (k = 0; k < ARRAY_SIZE(al); k++)
				if (profile_builtin(al[k]) == &b[i])
					snprintf(alias, sizeof(alias), "%s", al[k]);
		}
		snprintf(rates, sizeof(rates), "%.0f-%.0f", b[i].rate_outer_mbs,
			 b[i].rate_inner_mbs);
		printf("%-18s %-16s %6.0f %8.0f %6.1f %12s %6u\n", b[i].name, alias,
		       b[i].rpm, (double)b[i].capacity_sectors * 512 / 1e9,
		       b[i].seek_avg_ms, rates, b[i].cache_kb / 1024);
	}
	printf("\n'iotape model list PROFILE' shows one with its sources; a profile "
	       "file\n(docs/iotape.md) can start from one with 'base = NAME'.\n");
	return 0;
}

static int list_one(const char *spec)
{
	struct disk_profile p;
	struct disk_model *m;
	struct model_layout l;
	char err[512];

	if (profile_resolve(&p, spec, err, sizeof(err)))
		return error("%s", err);
	if (!(m = model_new(&p, 0, 1, err, sizeof(err))))
		return error("%s", err);
	model_layout(m, &l);
	printf("%s\n%s%s\n", p.name, p.desc[0] ? p.desc : "", p.desc[0] ? "\n" : "");
	printf("%-18s %12s %-9s %s\n", "key", "value", "unit", "source");
	for (int k = 0; k < PK_N; k++) {
		char v[64];
		if (k >= PK_SEEK_A && k <= PK_SEEK_BOUNDARY &&
		    !(p.seek_b_ms > 0 || p.seek_e_ms > 0))
			continue;
		if (k == PK_HIT_RATE && !(p.hit_rate > 0))
			continue;
		const char *h;
		int first = 1;
		profile_value_text(&p, (enum profile_key)k, v, sizeof(v));
		/* the source wrapped in the columns left of 80 */
		for (h = p.src[k][0] ? p.src[k] : "-"; *h; first = 0) {
			int w = (int)strlen(h);
			if (w > 80 - 43) {
				w = 80 - 43;
				while (w > 0 && h[w] != ' ')
					w--;
				if (!w)
					w = 80 - 43;
			}
			if (first)
				printf("%-18s %12s %-9s %.*s\n", profile_key_name(k), v,
				       profile_key_unit(k), w, h);
			else
				printf("%42s %.*s\n", "", w, h);
			h += w;
			while (*h == ' ')
				h++;
		}
	}
	printf("\nthe disk it makes: %u cylinders, %u to %u sectors a track,\n"
	       "%.2f ms a turn; seek (R&W) %.3f + %.4f sqrt(d) ms below %u\n"
	       "cylinders, %.3f + %.6f d ms from there; weighted average seek\n"
	       "%.2f ms; a random 4 KiB read about %.2f ms (overhead + average "
	       "seek +\nhalf a turn + transfer)\n", l.cylinders, l.spt_outer,
	       l.spt_inner, l.rev_ns / 1e6, l.seek.a_ns / 1e6, l.seek.b_ns / 1e6,
	       l.seek.boundary, l.seek.c_ns / 1e6, l.seek.e_ns / 1e6,
	       seek_curve_avg_ns(&l.seek) / 1e6, p.overhead_ms +
	       seek_curve_avg_ns(&l.seek) / 1e6 + l.rev_ns / 2e6 +
	       8.0 / ((l.spt_outer + l.spt_inner) / 2.0) * l.rev_ns / 1e6);
	model_free(m);
	return 0;
}

/* ---- fit ---- */

/* The one read from the store: run's dispatched requests (D rows with
 * data or flushes, with a completion) of device dev (0: the device with
 * the most), in D order, into *out. Returns 0, or -1 after an error line. */
static int fit_rows_load(const char *db, const char *run, uint32_t *dev,
			 struct fit_req **out, size_t *n)
{
	struct runview rv;
	struct store_cursor *cur;
	struct store_request rq;
	struct fit_req *all = NULL;
	uint32_t *devs = NULL, devn[64], devid[64];
	size_t nr = 0, cap = 0, k = 0;
	int nd = 0, rc;

	*out = NULL;
	*n = 0;
	if (runview_open(&rv, db, run))
		return -1;
	if (store_requests_open(rv.st, rv.id, STORE_RQ_DISPATCHED,
				STORE_RQ_DEV | STORE_RQ_D | STORE_RQ_C |
				STORE_RQ_DISPATCH | STORE_RQ_CATS | STORE_RQ_SECTOR |
				STORE_RQ_BYTES, &cur)) {
		error("reading requests: %s", store_errmsg(rv.st));
		runview_close(&rv);
		return -1;
	}
	while ((rc = store_requests_next(cur, &rq, NULL)) > 0) {
		int d;
		if (nr == cap) {
			cap = cap ? 2 * cap : 4096;
			all = xrealloc(all, cap * sizeof(*all));
			devs = xrealloc(devs, cap * sizeof(*devs));
		}
		for (d = 0; d < nd && devid[d] != rq.dev; d++)
			;
		if (d == nd && nd < 64) {
			devid[nd] = rq.dev;
			devn[nd++] = 0;
		}
		if (d < 64)
			devn[d]++;
		devs[nr] = rq.dev;
		all[nr++] = (struct fit_req){ rq.d_ns, rq.c_ns,
			rq.has_d ? rq.d_sector : rq.sector,
			(rq.has_d ? rq.d_bytes : rq.bytes) / 512,
			(rq.cats & (BT_C_WRITE | BT_C_DISCARD)) != 0 };
	}
	store_cursor_close(cur);
	if (rc < 0) {
		free(all);
		free(devs);
		error("reading requests: %s", store_errmsg(rv.st));
		runview_close(&rv);
		return -1;
	}
	if (!*dev) {
		/* the busiest device */
		uint32_t bestn = 0;
		for (int d = 0; d < nd; d++)
			if (devn[d] > bestn) {
				bestn = devn[d];
				*dev = devid[d];
			}
	}
	for (size_t i = 0; i < nr; i++)
		if (devs[i] == *dev && all[i].c_ns != STORE_NO_TIME &&
		    all[i].d_ns != STORE_NO_TIME)
			all[k++] = all[i];
	free(devs);
	runview_close(&rv);
	*out = all;
	*n = k;
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	const struct fit_req *x = a, *y = b;

	return (x->d_ns > y->d_ns) - (x->d_ns < y->d_ns);
}

static void print_check(const char *what, const struct fit_check *c)
{
	printf("  %-28s %7zu %9.2f %9.2f %9.2f\n", what, c->n, c->real_mean_ms,
	       c->real_p50_ms, c->real_p95_ms);
	printf("  %-28s %7s %9.2f %9.2f %9.2f\n", "  modelled", "",
	       c->model_mean_ms, c->model_p50_ms, c->model_p95_ms);
	printf("  %-28s %7s %+8.1f%% %+8.1f%% %+8.1f%%\n", "  error", "",
	       100 * c->err_mean, 100 * c->err_p50, 100 * c->err_p95);
}

static int fit(const char *db, const char *run, uint32_t dev, const char *base_name,
	       uint64_t capacity, int holdout, const char *outpath)
{
	struct disk_profile base, p;
	struct fit_report rep;
	struct fit_req *reqs;
	size_t n, nfit, maxs = 0;
	char err[512], *text;
	int rc = -1;

	if (profile_resolve(&base, base_name, err, sizeof(err)))
		return error("%s", err);
	if (fit_rows_load(db, run, &dev, &reqs, &n))
		return -1;
	if (!n) {
		/* nothing to fit, and no device to name ("device 0,0") */
		free(reqs);
		return error("run '%s' has no dispatched requests (D and C "
			     "traced) to fit a model to", run);
	}
	qsort(reqs, n, sizeof(*reqs), cmp_d);
	for (size_t i = 0; i < n; i++)
		if (reqs[i].sector + reqs[i].sectors > maxs)
			maxs = reqs[i].sector + reqs[i].sectors;
	if (!capacity)
		capacity = maxs;
	if (capacity < 1024)
		capacity = 1024;
	nfit = holdout ? n / 2 : n;
	printf("model fit of run '%s', device %u,%u: %zu dispatched requests%s\n",
	       run, BT_MAJOR(dev), BT_MINOR(dev), n, holdout ?
	       ", the first half fitted" : "");
	if (model_fit(reqs, nfit, &base, capacity, &p, &rep)) {
		free(reqs);
		return error("cannot fit a disk to run '%s' (device %u,%u): %s", run,
			     BT_MAJOR(dev), BT_MINOR(dev), rep.refused);
	}
	snprintf(p.name, sizeof(p.name), "fit-%.50s", run);
	snprintf(p.desc, sizeof(p.desc), "fitted by iotape model fit to run '%.60s' "
		 "device %u,%u (base %s)", run, BT_MAJOR(dev), BT_MINOR(dev),
		 base.name);
	printf("  alone on the device %zu, used %zu (buffer hits %zu, sequential "
	       "%zu)\n", rep.alone, rep.used, rep.hits, rep.sequential);
	printf("  revolution %.2f ms (%.0f rpm: the standard speed whose turn the "
	       "rest of D2C\n  spreads most evenly over)\n", rep.rev_ms, p.rpm);
	printf("  D2C median, shortest quarter of seeks %.2f ms, longest %.2f ms\n",
	       rep.short_ms, rep.long_ms);
	printf("  seek curve: %.3f + %.4f sqrt(d) ms below %u cylinders, %.3f + "
	       "%.6f d beyond\n  (single track %.2f, average %.2f, full stroke "
	       "%.2f ms); overhead %.2f ms; hit rate %.1f%%\n", p.seek_a_ms,
	       p.seek_b_ms, p.seek_boundary_cyl, p.seek_c_ms, p.seek_e_ms,
	       p.seek_track_ms, p.seek_avg_ms, p.seek_full_ms, p.overhead_ms,
	       100 * p.hit_rate);
	printf("  residuals (prediction - D2C): mean %+.2f ms, median |r| %.2f ms\n",
	       rep.resid_mean_ms, rep.resid_mad_ms);
	printf("\n  %-28s %7s %9s %9s %9s\n", "D2C ms", "n", "mean", "median", "p95");
	{
		struct fit_check c;
		if (model_check(reqs, nfit, &p, &c, err, sizeof(err))) {
			error("%s", err);
			goto out;
		}
		print_check(holdout ? "fitted half, real" : "the run, real", &c);
		if (holdout) {
			if (model_check(reqs + nfit, n - nfit, &p, &c, err, sizeof(err))) {
				error("%s", err);
				goto out;
			}
			print_check("second half (predicted)", &c);
		}
	}
	text = xmalloc(16384);
	profile_format(&p, text, 16384);
	if (outpath) {
		struct out_file of;
		int wrc = out_file_open(&of, outpath);
		if (!wrc && fputs(text, of.fp) < 0) {
			wrc = errno ? -errno : -EIO;
			out_file_discard(&of);
		} else if (!wrc) {
			wrc = out_file_commit(&of);
		}
		if (wrc) {
			free(text);
			error("cannot write '%s': %s", outpath, out_file_error(wrc));
			goto out;
		}
		printf("\nwrote profile '%s' to %s; replay on it with --target "
		       "model:%s\n", p.name, outpath, outpath);
	} else {
		printf("\n%s", text);
	}
	free(text);
	rc = 0;
out:
	free(reqs);
	return rc;
}

int cmd_model(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL, *base = "desktop-2006", *outpath = NULL, *verb;
	uint32_t dev = 0;
	uint64_t capacity = 0;
	int c, holdout = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "ho:", longopts)) != -1) {
		switch (c) {
		case 'd': {
			unsigned ma, mi;
			if (dec_devnum(optarg, &ma, &mi)) {
				error("invalid --dev '%s' (MAJOR,MINOR)", optarg);
				return 2;
			}
			dev = BT_MKDEV(ma, mi);
			break;
		}
		case 'B': base = optarg; break;
		case 'c':
			if (parse_u64(optarg, "--capacity", &capacity))
				return 2;
			break;
		case 'H': holdout = 1; break;
		case 'o': outpath = optarg; break;
		case 'b': db = optarg; break;
		case 'h': usage(stdout); return 0;
		default: return opt_bad("model");
		}
	}
	if (optind >= argc) {
		error("no verb: list or fit");
		return opt_bad("model");
	}
	verb = argv[optind++];
	if (!strcmp(verb, "list")) {
		if (argc - optind > 1) {
			error("list takes at most one PROFILE");
			return 2;
		}
		return optind < argc ? list_one(argv[optind]) : list_all();
	}
	if (!strcmp(verb, "fit")) {
		if (argc - optind != 1) {
			error(optind < argc ? "one RUN only" : "no RUN to fit");
			return 2;
		}
		return fit(db_path_default(db), argv[optind], dev, base, capacity,
			   holdout, outpath);
	}
	error("unknown verb '%s' (list or fit)", verb);
	return 2;
}
