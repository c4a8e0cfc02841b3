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
	int64_t id;             /* the run's id in the destination */
	int64_t events, requests, samples, rows;  /* rows: every row written */
};

/* Copies run (an id of src) into dst as a run named name: its row (kind,
 * status, host, kernel, source, format, byte order, genesis; its parent
 * when dst has a run of the parent's name), settings, devices, processes,
 * commands, statistics, events (in order), requests (with their ids),
 * samples. When dst has a run of that name: refused with -STORE_E_EXISTS
 * unless replace, which deletes it in the same transaction. Counts into *c.
 * Returns 0, or a negative store code with a one-line message in err
 * (errlen bytes) naming the store it came from ("reading ...: " or
 * "writing ...: "); nothing is left in dst on failure. */
int store_copy_run(struct store *src, int64_t run, struct store *dst,
		   const char *name, int replace, struct store_copy_counts *c,
		   char *err, size_t errlen);

#endif
