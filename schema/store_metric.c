/* The store's front for workload metrics (store.h, schema/005_metrics.sql):
 * passes writes to the back end, and reads the stored rows merged with each
 * command's real/user/sys seconds, which stay in the commands table. */
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

int store_metrics_get(struct store *st, int64_t run, struct store_metric **out,
		      size_t *n)
{
	static const size_t str[] = { offsetof(struct store_metric, name),
				      offsetof(struct store_metric, unit),
				      offsetof(struct store_metric, source) };
	static const char *const what[] = { "real_s", "user_s", "sys_s" };
	struct store_metric *m = NULL;
	struct store_command *c = NULL;
	struct store_list l;
	size_t nm = 0, nc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = store_metric_rows_get(st, run, &m, &nm)) ||
	    (rc = store_commands_get(st, run, &c, &nc))) {
		free(m);
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
		for (int k = 0; k < 3; k++) {
			double v = k == 0 ? c[i].real_s : k == 1 ? c[i].user_s
								 : c[i].sys_s;
			char name[48];
			struct store_metric *r;

			if (nc == 1)
				snprintf(name, sizeof(name), "%s", what[k]);
			else
				snprintf(name, sizeof(name), "cmd%d_%s", c[i].idx + 1,
					 what[k]);
			if (!isfinite(v) || stored(m, nm, name) ||
			    !(r = store_list_row(&l)))
				continue;
			r->name = store_list_str(&l, name);
			r->value = v;
			r->unit = store_list_str(&l, "s");
			r->source = store_list_str(&l, "time");
		}
	free(m);
	free(c);
	if ((rc = store_list_finish(st, &l, (void **)out, n)))
		return rc;
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), by_name);
	return 0;
}
