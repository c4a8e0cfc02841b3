/* `iotape metric`: a run's workload metrics (schema/005_metrics.sql): lists
 * them, or sets some by hand (source "manual"), such as a benchmark's own
 * throughput read from its report, for compare --across to table. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/summary.h"
#include "commands.h"
#include "lib/options.h"
#include "lib/util.h"
#include "schema/store.h"

static const struct opt_def options[] = {
	{ "db", 1, 'b', "FILE", "the database (default $IOTAPE_DB or iotape.db)" },
	{ "help", 0, 'h', NULL, NULL },
};

static void metric_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape metric [--db FILE] RUN [NAME=VALUE[UNIT]...]\n"
"\n"
"Without NAME=VALUE, lists the run's workload metrics: name, value, unit and\n"
"source (time: a command's real/user/sys seconds; fio: its JSON results;\n"
"dd: its last line, captured or in an imported time paste: dd_bytes, dd_s,\n"
"dd_bytes_per_s; regex: a capture's metric regex; manual: set here).\n"
"With them, sets each (source manual), replacing one of the same name, in\n"
"one transaction. VALUE is a number with an optional unit after it\n"
"(\"41.2tps\", \"700 MB/s\" quoted); a time as 1m49s, 1h2m or 2.5s is stored\n"
"in seconds (unit s). NAME: letters, digits, _ . -; compare tables it by\n"
"settings (see compare's across option).\n");
	opt_usage(fp, options, ARRAY_SIZE(options), 15, NULL);
}

/* "1m49s", "1h2m3.5s", "2.5s", "750ms", "100us", "80ns" as seconds into
 * *out; 0 when it is one, -1 when not. */
static int parse_hms(const char *s, double *out)
{
	double total = 0;
	int parts = 0;

	while (*s) {
		const char *end;
		double v;

		if (dec_double(s, DEC_FRAC, &v, &end) || *end == '\0')
			return -1;
		if (!strncmp(end, "ms", 2)) { total += v / 1e3; end += 2; }
		else if (!strncmp(end, "us", 2)) { total += v / 1e6; end += 2; }
		else if (!strncmp(end, "\xc2\xb5s", 3)) { total += v / 1e6; end += 3; }
		else if (!strncmp(end, "ns", 2)) { total += v / 1e9; end += 2; }
		else if (*end == 'h') { total += v * 3600; end++; }
		else if (*end == 'm') { total += v * 60; end++; }
		else if (*end == 's') { total += v; end++; }
		else
			return -1;
		parts++;
		s = end;
	}
	*out = total;
	return parts ? 0 : -1;
}

/* "NAME=VALUE[UNIT]" into name, *value and unit. Returns 0, or -1 after
 * printing why. */
static int parse_pair(const char *arg, char *name, size_t nlen, double *value,
		      char *unit, size_t ulen)
{
	const char *eq = strchr(arg, '='), *v, *end;
	size_t kl = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !kl || kl >= nlen || !eq[1])
		return error("invalid metric '%s' (NAME=VALUE[UNIT], such as "
			     "tps=41.2)", arg);
	for (size_t i = 0; i < kl; i++)
		if (!isalnum((unsigned char)arg[i]) && !strchr("_.-", arg[i]))
			return error("invalid metric name '%.*s' (letters, digits, "
				     "_ . -)", (int)kl, arg);
	snprintf(name, nlen, "%.*s", (int)kl, arg);
	v = eq + 1;
	unit[0] = '\0';
	/* a time with units of its own: 1m49s, 1h2m, 2.5s, 100us */
	if (strpbrk(v, "hms") && !parse_hms(v, value)) {
		snprintf(unit, ulen, "s");
		return 0;
	}
	/* "1m49", "-1m30s": a time that is none (a sign, a last part with
	 * no unit) was stored as 1 in unit "m49" */
	if (strpbrk(v, "hms") && (isdigit((unsigned char)*v) || *v == '-' ||
				  *v == '+') && strpbrk(v, "0123456789") &&
	    strpbrk(strpbrk(v, "hms"), "0123456789"))
		return error("invalid metric '%s': '%s' is no time (1m49s, 1h2m, "
			     "2.5s, 750ms, 100us; no sign)", arg, v);
	/* a plain decimal number and its unit: "0x10" is no 0 in unit "x10",
	 * "1.5.2" no 1.5 in ".2" */
	if (dec_double(v, DEC_SIGN | DEC_FRAC | DEC_EXP, value, &end) ||
	    isdigit((unsigned char)*end) || *end == '.' || *end == ',' ||
	    (end - v == 1 + (*v == '-') && end[-1] == '0' &&
	     (*end == 'x' || *end == 'X') && (isxdigit((unsigned char)end[1]) ||
					     end[1] == '.')))
		return error("invalid metric '%s': '%s' is not a number", arg, v);
	/* 1e-400 is no 0, as 1e400 is no infinity (0e3 is: a nonzero digit
	 * before the exponent says which) */
	if (*value == 0 && strpbrk(v, "123456789") &&
	    strpbrk(v, "123456789") < v + strcspn(v, "eE") &&
	    strpbrk(v, "123456789") < end)
		return error("invalid metric '%s': '%s' is below the smallest "
			     "number stored", arg, v);
	while (*end == ' ')
		end++;
	/* a unit is a word ("tps", "MB/s", "%", "\xc2\xb5s"): "=6" of
	 * "5=6" was stored as 5 in unit "=6" */
	if (*end && (strpbrk(end, "0123456789=") ||
		     !(isalpha((unsigned char)*end) || *end == '%' ||
		       *end == '/' || (unsigned char)*end >= 0x80)))
		return error("invalid metric '%s': '%s' is no unit (a word "
			     "after the number: tps, MB/s, %%)", arg, end);
	if (strlen(end) >= ulen)
		return error("invalid metric '%s': unit '%s' too long", arg, end);
	for (const char *p = end; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return error("invalid metric '%s': control character in "
				     "its unit", arg);
	snprintf(unit, ulen, "%s", end);
	return 0;
}

static int list(struct store *st, int64_t run, const char *name)
{
	struct store_metric *m;
	size_t n;
	int w = 4;

	if (store_metrics_get(st, run, &m, &n))
		return error("%s", store_errmsg(st));
	if (!n) {
		printf("run '%s' has no metrics\n", name);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(m[i].name) > w)
			w = (int)strlen(m[i].name);
	printf("%-*s  %14s  %-8s  %s\n", w, "name", "value", "unit", "source");
	for (size_t i = 0; i < n; i++) {
		/* a whole number whole (dd's 104857600 bytes read as
		 * 1.04858e+08 at six digits), any other at six */
		char v[32];
		double x = m[i].value;
		if (x == floor(x) && fabs(x) < 1e14)
			snprintf(v, sizeof(v), "%.0f", x);
		else
			snprintf(v, sizeof(v), "%.6g", x);
		printf("%-*s  %14s  %-8s  %s\n", w, m[i].name, v,
		       m[i].unit && m[i].unit[0] ? m[i].unit : "-", m[i].source);
	}
	free(m);
	return 0;
}

int cmd_metric(int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	const char *db = NULL;
	struct store *st = NULL;
	int64_t run;
	int c, rc = 0;

	opt_longopts(options, ARRAY_SIZE(options), longopts);
	optind = 1;
	while ((c = opt_next(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'b': db = optarg; break;
		case 'h': metric_usage(stdout); return 0;
		default: return opt_bad("metric");
		}
	}
	if (optind >= argc) {
		error("metric needs a RUN; see 'iotape metric --help'");
		return 2;
	}
	/* every pair checked before the store is touched */
	for (int i = optind + 1; i < argc; i++) {
		char name[64], unit[32];
		double v;
		if (parse_pair(argv[i], name, sizeof(name), &v, unit, sizeof(unit)))
			return 2;
	}
	db = db_path_default(db);
	if (store_open_existing(&st, db) || run_summary_backfill(st)) {
		error("%s", store_errmsg(st));
		store_close(st);
		return -1;
	}
	if (store_run_find(st, argv[optind], &run)) {
		rc = error("%s: %s", store_shown(db), store_errmsg(st));
	} else if (optind + 1 == argc) {
		rc = list(st, run, argv[optind]);
	} else if (store_begin(st)) {
		rc = error("%s: %s", store_shown(db), store_errmsg(st));
	} else {
		for (int i = optind + 1; i < argc && !rc; i++) {
			char name[64], unit[32];
			double v;
			parse_pair(argv[i], name, sizeof(name), &v, unit, sizeof(unit));
			if (store_metric_set(st, run, name, v, unit[0] ? unit : NULL,
					     "manual"))
				rc = error("%s: %s", store_shown(db), store_errmsg(st));
		}
		if (rc)
			store_rollback(st);
		else if (store_commit(st))
			rc = error("%s: %s", store_shown(db), store_errmsg(st));
	}
	store_close(st);
	return rc;
}
