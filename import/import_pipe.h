/* Decoding and writing on two cores: a producer (decoder and stitcher) on a
 * thread of its own hands events, process names and requests rows through a
 * bounded queue to the calling thread, which writes them to the store. */
#ifndef IOTAPE_IMPORT_PIPE_H
#define IOTAPE_IMPORT_PIPE_H

#include <stdint.h>

#include "schema/store.h"
#include "schema/trace_record.h"

struct import_pipe;

/* Where the calling thread delivers what the producer queued, in the order
 * it was queued. Each callback returns 0 or a negative code, which stops
 * the producer (its next queueing call returns -ECANCELED). */
struct import_pipe_consumer {
	int (*event)(void *ctx, const struct bt_event *ev);
	int (*process)(void *ctx, uint32_t pid, const char *comm);
	int (*request)(void *ctx, int64_t id, const struct store_request *rq);
	void *ctx;
};

/* Runs produce(arg, pipe) on a new thread while the calling thread feeds
 * what it queues (import_pipe_event() and the others) to cons, then waits
 * for it. The queue holds at most a few thousand items: memory stays flat
 * however much is produced. When a consumer callback fails, the rest is
 * dropped, *cons_rc gets its code and produce sees -ECANCELED.
 * Returns produce's return value (or -errno when the thread cannot start,
 * with *cons_rc 0). */
int import_pipe_run(int (*produce)(void *arg, struct import_pipe *pipe),
		    void *arg, const struct import_pipe_consumer *cons,
		    int *cons_rc);

/* Queue one record (ev->pdu copied), one pid's name or one requests row
 * for the consumer; called from produce() only. Return 0, or -ECANCELED
 * once the consumer has failed. */
int import_pipe_event(struct import_pipe *p, const struct bt_event *ev);
int import_pipe_process(struct import_pipe *p, uint32_t pid, const char *comm);
int import_pipe_request(struct import_pipe *p, int64_t id,
			const struct store_request *rq);

#endif
