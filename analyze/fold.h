/* A run's requests as one stream of events in time order: each request's
 * Q, D and C (when seen), every device's merged, by (time, request,
 * kind), and each request once (FOLD_ROW). Every analysis of a run reads
 * it, in one pass or a few (the accounting, the families, the critical
 * path's passes and walk, the analyzers that fold each request as it
 * passes: analyzer.fold_*), keeping state per process, device and request
 * in flight, not per request, so that a run's size is no matter. The
 * stream is read from the run's rows in a temporary file (rowfile.h:
 * report and compare) or in memory with their orders (evorder.h: the
 * plots, tests); the two give the same events in the same order.
 * "Request" in a tie is its index in the run: by device, then id. */
#ifndef IOTAPE_FOLD_H
#define IOTAPE_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/evorder.h"
#include "analyze/rowfile.h"
#include "analyze/rundata.h"

/* The kinds of event: EV_Q, EV_D, EV_C (evorder.h), and FOLD_ROW, each
 * request once whether it has times or not (a requeued dispatch's row
 * may have none), before its own events. FOLD_ROW events are not in time
 * order with the others: a consumer of them must not depend on their
 * order (sums, counts, unions it sorts). */
enum { FOLD_ROW = EV_NKIND, FOLD_NKIND };

struct fold_ev {
	int kind;                  /* EV_Q, EV_D, EV_C or FOLD_ROW */
	int64_t t;                 /* the event's time, ns on the events'
				    * clock (FOLD_ROW: the request's Q, or
				    * AN_NONE) */
	uint32_t row;              /* the request's index in the run: a key
				    * for state kept while it is in flight */
	uint16_t devk;             /* its device's index in the run's table */
	const struct an_io *io;    /* the request, whole; valid until the
				    * next event */
};

struct fold_hnode {
	int64_t t;
	uint32_t row;
	int kind, it;
};

struct fold_fdev;

struct fold_slot;

/* A walk of the stream (fold_open(), fold_next(), fold_close()). From the
 * rows in memory: each device's walks of each time (evorder) merged. From
 * the rows in a file (rd->rows_file, rowfile.h): each device's rows read
 * in order, each held (a slot) with its events sorted while any is to
 * come, the row's next event in a heap per device, until no row still to
 * come can have an earlier one (its time is under the latest first time
 * read less the device's lateness), the devices merged. */
struct fold {
	const struct rundata *rd;
	unsigned kinds;
	size_t next_row;           /* FOLD_ROW: the next row to give */
	struct ev_it *its;         /* each device's walk of each time */
	struct fold_hnode *h;      /* their next events, a binary heap */
	int nh;
	struct an_io buf;
	/* from the file: FOLD_ROW's reader (device row_dev), the devices'
	 * streams, and the requests whose events are held (slots) */
	size_t row_dev;
	struct rf_reader *row_rd;
	struct fold_fdev *fd;
	struct fold_slot **slot;   /* chunks of FOLD_SLOTS_CHUNK: a slot
				    * stays where it is while held */
	uint32_t *slot_free;
	size_t nslot, nfree;
	int64_t done_slot;         /* the slot of the row whose last event
				    * was given last (-1: none): freed at
				    * the next, its request still read */
};

/* Opens a walk of rd's events of the kinds in kinds (1 << EV_Q, ...,
 * 1 << FOLD_ROW) from rd's rows and ord (built for those of EV_Q, EV_D,
 * EV_C asked for; NULL when kinds is FOLD_ROW alone). Aborts when memory
 * runs out. */
void fold_open(struct fold *f, const struct rundata *rd,
	       const struct evorder *ord, unsigned kinds);

/* The time of f's next event (its FOLD_ROW events first), INT64_MAX at
 * the end: a caller that merges other things into the stream (the
 * critical path's units' lives) compares with it. */
int64_t fold_peek(const struct fold *f);

/* The next event into *e. Returns 1, or 0 at the end. */
int fold_next(struct fold *f, struct fold_ev *e);

void fold_close(struct fold *f);

/* State kept per request while it is in flight (from one of its events
 * to a later one), keyed by the request's row: an open-addressing table
 * (linear probing, deletion by backward shift: Knuth, TAOCP vol. 3, 6.4
 * Algorithm R) that grows with the requests in it, not with the run.
 * Values are vsize bytes, zeroed when added. */
struct fold_map {
	uint32_t *key;             /* row + 1; 0: a free slot */
	unsigned char *val;
	size_t vsize, cap, n;      /* cap a power of two */
};

/* Starts m empty, for values of vsize bytes. */
void fold_map_init(struct fold_map *m, size_t vsize);

/* The value of row, or NULL when it has none (add 0); added (zeroed) when
 * add is 1. Valid until the next add or delete. Aborts when memory runs
 * out. */
void *fold_map_get(struct fold_map *m, uint32_t row, int add);

/* Removes row's value (nothing when it has none). */
void fold_map_del(struct fold_map *m, uint32_t row);

void fold_map_free(struct fold_map *m);

/* A consumer of the stream: ev(ctx, e) for each event of the kinds in
 * kinds. */
struct fold_sink {
	void (*ev)(void *ctx, const struct fold_ev *e);
	void *ctx;
	unsigned kinds;
};

/* Gives every event of rd (the kinds the sinks ask for) to each of the n
 * sinks s that asks for its kind, in s's order: one pass for all. */
void fold_run(const struct rundata *rd, const struct evorder *ord,
	      const struct fold_sink *s, int n);

#endif
