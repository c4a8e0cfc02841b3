/* Copying a run from one store to another through the store API only (so
 * any back end to any other: SQLite to PostgreSQL for `iotape push`, back
 * for `iotape pull`), in one transaction of the destination: the run lands
 * whole or not at all. Never prints. */
#ifndef IOTAPE_STORE_COPY_H
#define IOTAPE_STORE_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"

/* What a copy moved. */
struct store_copy_counts {
	char name[300];         /* the run's name in the destination */
	int64_t id;             /* and its id there */
	int64_t events, requests, samples, replays;
	int64_t rows;           /* every row written */
	int retries;            /* transactions tried again (store_again()) */
};

/* The name run r gets in a shared store: HOST:NAME, HOST its recorded host
 * (this machine's when it has none), or its own name when that has a ':'
 * already. Into out (len bytes). */
void store_copy_fleet_name(const struct store_run *r, char *out, size_t len);

/* Copies run (an id of src) into dst, named as in src, or, with fleet, as
 * store_copy_fleet_name() names it (its parent looked up so too): its row (kind,
 * status, created, host (with fleet, this machine's when not recorded),
 * kernel, source, format, byte order, genesis, notes, input checksum; its
 * parent when dst has a run of the parent's name), settings, devices,
 * processes, commands, statistics, events (in order), requests (with their
 * ids, or, where those are taken in dst, ids from its first free one, the
 * ids rows name moved the same), samples, replayed I/Os. When dst has a run
 * of that name: refused with -STORE_E_EXISTS unless replace, which deletes
 * it in the same transaction. A transaction that failed for a reason worth
 * another try (store_again(): a deadlock, a lost connection, a push of the
 * same name that landed first) is tried again. The name and counts into *c.
 * Returns 0, or a negative store code with a one-line message in err
 * (errlen bytes) naming the store it came from ("reading ...: " or
 * "writing ...: "); nothing is left in dst on failure. */
int store_copy_run(struct store *src, int64_t run, struct store *dst,
		   int fleet, int replace, struct store_copy_counts *c,
		   char *err, size_t errlen);

#endif
