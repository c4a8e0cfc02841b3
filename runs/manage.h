/* Run management behind `iotape rm` and `iotape mv`: RUN arguments (names,
 * ids, globs over names) to runs, and deleting or renaming them through the
 * store, each in one transaction. Never prints. */
#ifndef IOTAPE_MANAGE_H
#define IOTAPE_MANAGE_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"

/* One run picked by a RUN argument. */
struct run_ref {
	int64_t id;
	char name[256];
};

/* Picks the runs args[0 .. nargs) name: each a run's name, its id in
 * decimal, or a glob (fnmatch(3), with * ? or [) over the run names; the
 * runs in id order, each once, into *out (*n of them; malloc'd: free() it).
 * Returns 0, or -STORE_E_NOTFOUND with "no run named 'X'" or "no run matches
 * 'X'" in err (errlen bytes), or another negative store code (message in
 * err). */
int manage_resolve(struct store *st, char *const *args, int nargs,
		   struct run_ref **out, size_t *n, char *err, size_t errlen);

/* Deletes runs[0 .. n) with all their rows in one transaction (nothing is
 * deleted when one fails). Their replays stay with no parent: how many into
 * *kept_replays. Returns 0 or a negative store code with a message in err. */
int manage_rm(struct store *st, const struct run_ref *runs, size_t n,
	      int64_t *kept_replays, char *err, size_t errlen);

/* Renames run old (name or id) to name (checked by the caller with
 * check_run_name()). Returns 0, -STORE_E_NOTFOUND, -STORE_E_EXISTS ("a run
 * named 'NEW' exists") or another negative store code, message in err. */
int manage_mv(struct store *st, const char *old, const char *name, char *err,
	      size_t errlen);

#endif
