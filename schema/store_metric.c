/* The store's front for workload metrics (store.h, schema/005_metrics.sql):
 * passes writes to the back end, and reads the stored rows merged with each
 * command's real/user/sys seconds, which stay in the commands table, and
 * an imported dd's figures, which stay in run_stats. */
#include "store.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/store_driver.h"

int store_metric_set(struct store *st, int64_t run, const char *name,
		     double value, const char *unit, const char *source)
{
	if (!isfinite(value))
		return store_fail(st, STORE_E_SQLITE, "metric '%s': not a finite "
				  "number", name);
	return store_metric_row_set(st, run, name, value, unit, source);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct store_metric *)a)->name,
		      ((const struct store_metric *)b)->name);
}

static int stored(const struct store_metric *m, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return 1;
	return 0;
}

/* One read-back metric, named NAME, or cmdN_NAME (N = idx + 1) when the
 * run has several commands (nc), into l unless m's nm stored rows have
 * its name or v is not finite. */
static void derived(struct store_list *l, const struct store_metric *m,
		    size_t nm, size_t nc, int idx, const char *what, double v,
		    const char *unit, const char *source)
{
	struct store_metric *r;
	char name[64];

	if (nc == 1)
		snprintf(name, sizeof(name), "%s", what);
	else
		snprintf(name, sizeof(name), "cmd%d_%s", idx + 1, what);
	if (!isfinite(v) || stored(m, nm, name) || !(r = store_list_row(l)))
		return;
	r->name = store_list_str(l, name);
	r->value = v;
	r->unit = store_list_str(l, unit);
	r->source = store_list_str(l, source);
	r->derived = 1;
}

/* The figures of dd's output an import kept for its commands (run_stats
 * command.N.dd_bytes, dd_seconds, dd_bytes_per_s: import_fmt.c) into l,
 * under capture's names (dd_bytes, dd_s, dd_bytes_per_s). */
static void dd_figures(struct store_list *l, const struct store_metric *m,
		       size_t nm, size_t nc, const struct store_stat *s,
		       size_t ns)
{
	static const struct { const char *key, *name, *unit; } dd[] = {
		{ "dd_bytes", "dd_bytes", "bytes" },
		{ "dd_seconds", "dd_s", "s" },
		{ "dd_bytes_per_s", "dd_bytes_per_s", "bytes/s" },
	};

	for (size_t i = 0; i < ns; i++) {
		char tail[24], *end;
		double v;
		int idx;

		if (!s[i].value || sscanf(s[i].key, "command.%d.%23s", &idx,
					  tail) != 2 || idx < 0)
			continue;
		v = strtod(s[i].value, &end);
		if (end == s[i].value || *end)
			continue;
		for (size_t k = 0; k < sizeof(dd) / sizeof(dd[0]); k++)
			if (!strcmp(tail, dd[k].key))
				derived(l, m, nm, nc, idx, dd[k].name, v,
					dd[k].unit, "dd");
	}
}

int store_metrics_get(struct store *st, int64_t run, struct store_metric **out,
		      size_t *n)
{
	static const size_t str[] = { offsetof(struct store_metric, name),
				      offsetof(struct store_metric, unit),
				      offsetof(struct store_metric, source) };
	static const char *const what[] = { "real_s", "user_s", "sys_s" };
	struct store_metric *m = NULL;
	struct store_command *c = NULL;
	struct store_stat *s = NULL;
	struct store_list l;
	size_t nm = 0, nc = 0, ns = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = store_metric_rows_get(st, run, &m, &nm)) ||
	    (rc = store_commands_get(st, run, &c, &nc)) ||
	    (nc && (rc = store_stats_get(st, run, &s, &ns)))) {
		free(m);
		free(c);
		return rc;
	}
	store_list_init(&l, sizeof(*m), str, 3);
	for (size_t i = 0; i < nm; i++) {
		struct store_metric *r = store_list_row(&l);
		if (!r)
			break;
		r->name = store_list_str(&l, m[i].name);
		r->value = m[i].value;
		r->unit = store_list_str(&l, m[i].unit);
		r->source = store_list_str(&l, m[i].source);
	}
	for (size_t i = 0; i < nc; i++)
		for (int k = 0; k < 3; k++)
			derived(&l, m, nm, nc, c[i].idx, what[k],
				k == 0 ? c[i].real_s : k == 1 ? c[i].user_s
							 : c[i].sys_s, "s", "time");
	dd_figures(&l, m, nm, nc, s, ns);
	free(m);
	free(c);
	free(s);
	if ((rc = store_list_finish(st, &l, (void **)out, n)))
		return rc;
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), by_name);
	return 0;
}
