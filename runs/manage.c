/* Run management: RUN arguments (names, ids, globs) to runs, and deleting
 * or renaming them in one transaction each (runs/manage.h). */
#include "runs/manage.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_ref(struct run_ref **out, size_t *n, int64_t id,
		   const char *name)
{
	struct run_ref *r;

	for (size_t i = 0; i < *n; i++)
		if ((*out)[i].id == id)
			return 0;
	if (!(r = realloc(*out, (*n + 1) * sizeof(**out))))
		return -ENOMEM;
	*out = r;
	r[*n].id = id;
	snprintf(r[*n].name, sizeof(r[*n].name), "%s", name);
	(*n)++;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct run_ref *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

int manage_resolve(struct store *st, char *const *args, int nargs,
		   struct run_ref **out, size_t *n, char *err, size_t errlen)
{
	struct store_run_listing *runs = NULL;
	size_t nruns = 0;
	int rc = 0, nomatch = 0;

	*out = NULL;
	*n = 0;
	for (int i = 0; i < nargs && !rc; i++) {
		int matched = 0;
		int64_t id;
		/* a name with glob characters that is a run's whole name is
		 * that run (replay --set names runs 'name[key=value]') */
		if (!strpbrk(args[i], "*?[") ||
		    !store_run_find(st, args[i], &id)) {
			struct store_run r;
			if ((rc = store_run_find(st, args[i], &id)) ||
			    (rc = store_run_get(st, id, &r)))
				break;
			rc = add_ref(out, n, id, r.name);
			continue;
		}
		if (!runs && (rc = store_runs_list(st, 0, &runs, &nruns)))
			break;
		for (size_t k = 0; k < nruns && !rc; k++)
			if (!fnmatch(args[i], runs[k].run.name, 0)) {
				rc = add_ref(out, n, runs[k].run.id, runs[k].run.name);
				matched = 1;
			}
		if (!rc && !matched) {
			snprintf(err, errlen, "no run matches '%s'", args[i]);
			rc = -STORE_E_NOTFOUND;
			nomatch = 1;
		}
	}
	free(runs);
	if (rc) {
		if (!nomatch)
			snprintf(err, errlen, "%s", rc == -ENOMEM ? "out of memory"
				 : store_errmsg(st));
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), by_id);
	return 0;
}

/* One try of manage_rm(): its transaction. */
static int rm_once(struct store *st, const struct run_ref *runs, size_t n,
		   int64_t *kept_replays)
{
	int rc;

	*kept_replays = 0;
	if ((rc = store_begin(st)))
		return rc;
	/* in id order (manage_resolve() sorts): two deletes of the same runs
	 * take their rows' locks in one order */
	for (size_t i = 0; i < n; i++) {
		int64_t kept = 0;
		if ((rc = store_run_delete(st, runs[i].id, &kept)))
			goto fail;
		*kept_replays += kept;
	}
	if (!(rc = store_commit(st)))
		return 0;
fail:
	{
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", store_errmsg(st));
		store_rollback(st);
		store_fail_keep(st, msg);
	}
	return rc;
}

int manage_rm(struct store *st, const struct run_ref *runs, size_t n,
	      int64_t *kept_replays, char *err, size_t errlen)
{
	int rc;

	for (int k = 0; (rc = rm_once(st, runs, n, kept_replays)) &&
			store_again(st, rc, k); k++)
		;
	if (rc)
		snprintf(err, errlen, "%s", store_errmsg(st));
	return rc;
}

/* One try of manage_mv(): its transaction. */
static int mv_once(struct store *st, const char *old, const char *name)
{
	int64_t id;
	int rc;

	int64_t same;

	if ((rc = store_run_find(st, old, &id)))
		return rc;
	/* mv(1)'s "are the same file": renaming a run to the name it has
	 * changes nothing, and saying nothing hid a mistyped OLD */
	if (!store_run_find(st, name, &same) && same == id) {
		char msg[512];
		snprintf(msg, sizeof(msg), "run '%s' is already named '%s'; "
			 "nothing changed", old, name);
		store_fail_keep(st, msg);
		return -EEXIST;
	}
	if ((rc = store_begin(st)))
		return rc;
	if (!(rc = store_run_rename(st, id, name)) && !(rc = store_commit(st)))
		return 0;
	{
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", store_errmsg(st));
		store_rollback(st);
		store_fail_keep(st, msg);
	}
	return rc;
}

int manage_mv(struct store *st, const char *old, const char *name, char *err,
	      size_t errlen)
{
	int rc;

	for (int k = 0; (rc = mv_once(st, old, name)) && store_again(st, rc, k);
	     k++)
		;
	if (rc)
		snprintf(err, errlen, "%s", store_errmsg(st));
	return rc;
}
