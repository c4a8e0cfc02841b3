/* The store's front for run summaries (store.h, schema/007_summary.sql):
 * writing and reading them (whoever stores a run computes its summary:
 * analyze/summary.h) and the names of the figures `iotape fleet` ranks by. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/store_driver.h"

int store_summary_set(struct store *st, int64_t run,
		      const struct store_summary *s)
{
	return store_summary_write(st, run, s);
}

int store_summary_get(struct store *st, int64_t run, struct store_summary *out)
{
	memset(out, 0, sizeof(*out));
	return store_summary_read(st, run, out);
}

int store_fleet_worst(struct store *st, const char *metric, int64_t since_ns,
		      size_t limit, struct store_fleet_row **out, size_t *n)
{
	/* every column name comes from these tables, never from the
	 * caller's text */
	static const char *const dirs[] = { "read", "write" };
	static const char *const lats[] = { "q2c", "d2c" };
	static const char *const cols[][4] = {
		{ "q2c_mean_ns", "q2c_p50_ns", "q2c_p99_ns", "q2c_max_ns" },
		{ "d2c_mean_ns", "d2c_p50_ns", "d2c_p99_ns", "d2c_max_ns" },
	};
	static const char *const stats[] = { "mean", "p50", "p99", "max" };
	static const char *const ncols[] = { "q2c_n", "d2c_n" };

	*out = NULL;
	*n = 0;
	for (int d = 0; d < 2; d++)
		for (int l = 0; l < 2; l++)
			for (int k = 0; k < 4; k++) {
				char name[32];
				snprintf(name, sizeof(name), "%s_%s_%s", dirs[d],
					 lats[l], stats[k]);
				if (!strcmp(name, metric))
					return store_fleet_rank(st, dirs[d],
						ncols[l], cols[l][k], since_ns,
						limit, out, n);
			}
	return store_fail(st, STORE_E_NOTFOUND, "no figure '%s' to rank by "
			  "(%s)", metric, STORE_FLEET_METRICS);
}
