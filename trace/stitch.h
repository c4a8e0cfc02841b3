/* Request stitching: turns time-ordered block events into one record per I/O
 * (Q → G or M/F → I → D → C), the way btt(1) pairs them, plus what btt leaves
 * out (splits followed, zero-length flushes, D-only and Q-only traces). */
#ifndef IOTAPE_STITCH_H
#define IOTAPE_STITCH_H

#include <stdint.h>

#include "trace/blktrace_format.h"
#include "schema/store.h"

/* Receives each finished I/O (completed, or still pending when the trace
 * ended: c_ns 0) with the id it was given. Returns 0 or a negative code. */
typedef int (*stitch_emit_fn)(void *ctx, int64_t id,
			      const struct store_request *rq);

struct stitch_stats {
	uint64_t bios;          /* Q records taken */
	uint64_t dispatches;    /* D records */
	uint64_t completions;   /* C records */
	uint64_t orphan_d;      /* D with no Q in the trace: a row of its own */
	uint64_t unmatched_c;   /* C matching nothing in flight (request began
				 * before the trace, or a duplicate) */
	uint64_t dup_q;         /* Q at a start sector already in flight on the
				 * device: the older I/O is ended there, never
				 * completed (its completion was lost), and the
				 * new one waits (btt's "Replace overlapping IO") */
	uint64_t unmatched_gim; /* G, I or M matching no bio waiting */
	uint64_t c_only;        /* C with data matching nothing: a row of its
				 * own (a trace of completions only, or I/O
				 * issued before the trace) */
	uint64_t requeued_seeks;/* D2D seeks of dispatches later requeued, kept
				 * in rows of their own */
	uint64_t splits;        /* X records followed */
	uint64_t requeues;      /* R records */
	uint64_t remaps;        /* A records */
	uint64_t pending_end;   /* I/Os still in flight when the trace ended */
	uint64_t time_backwards;/* events earlier than the one before */
	uint64_t clock_jumps;   /* clock steps: back over 1 s, ahead over 10 min,
				 * or ahead onto time seen (timeline_step()) */
	uint64_t jump_abandoned;/* I/Os in flight at a clock step, ended there */
	/* The time that had I/O (ns): the events' times, in whatever order
	 * they come, as pieces split where no event falls for over 10
	 * minutes (a clock step either way, or a long idle gap), each piece's
	 * last minus first time added up; complete after stitch_finish.
	 * Earliest and latest event times (ns). */
	uint64_t active_ns, min_ns, max_ns;
};

struct stitch;

/* Makes a stitcher that hands rows to emit(ctx, ...) and numbers them from
 * first_id up. Never fails (aborts when out of memory). */
struct stitch *stitch_new(stitch_emit_fn emit, void *ctx, int64_t first_id);

/* Feeds one event (any action; notify records are ignored). Events must come
 * in time order per device. Returns 0 or the emit callback's error. */
int stitch_event(struct stitch *s, const struct bt_event *ev);

/* Emits every I/O still in flight (c_ns 0). Returns 0 or emit's error. */
int stitch_finish(struct stitch *s);

/* Counts so far. */
const struct stitch_stats *stitch_stats(const struct stitch *s);

/* Frees the stitcher; NULL is fine. */
void stitch_free(struct stitch *s);

/* btt's D2D seek distance of a dispatch of sectors [start, end) after the
 * device's previous one [*last_start, *last_end) (btt/seek.c seek_dist):
 * 0 when either end falls inside the previous dispatch, else from the
 * previous end forwards or from its start backwards (negative), in 512-byte
 * sectors; then makes this dispatch the previous one. */
int64_t stitch_seek_dist(int64_t *last_start, int64_t *last_end, int64_t start,
			 int64_t end);

#endif
