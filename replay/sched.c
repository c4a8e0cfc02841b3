/* The replay scheduler: a min-heap of the streams whose next I/O may go
 * (keyed by that I/O's index: the plan is in time order, so the smallest
 * index is the earliest), filled up to the depth at each wake-up, waits on
 * the engine until the next scheduled time less the spin window, then a
 * busy wait that keeps reaping completions. */
#include "sched.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/spill.h"
#include "lib/util.h"

static int64_t mono_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void mono_sleep_until(void *ctx, int64_t t)
{
	struct timespec ts = { t / 1000000000, t % 1000000000 };

	(void)ctx;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* spin_until NULL: the scheduler spins on now() itself, reaping
 * completions while it waits. */
const struct sched_clock sched_clock_mono = {
	.now = mono_now,
	.sleep_until = mono_sleep_until,
	.spin_until = NULL,
	.ctx = NULL,
};

/* The end of a wait that should last until t (0: no limit): at most
 * SCHED_WAKE_NS from now when something must be asked whether to stop. */
static int64_t wake_cap(const struct sched_params *p, int64_t now, int64_t t)
{
	if (!p->interrupted)
		return t;
	if (!t || t > now + SCHED_WAKE_NS)
		return now + SCHED_WAKE_NS;
	return t;
}

int64_t sched_time(int64_t t0, int64_t t_ns, double scale)
{
	if (scale <= 0)
		return t0;
	if (scale == 1)
		return t0 + t_ns;
	return t0 + (int64_t)llround((double)t_ns / scale);
}

struct stream_st {
	uint32_t head, end;   /* its next I/O and its end, in order[] */
	uint32_t rel;         /* order[] released up to here (spill.h) */
	uint32_t inflight;
	int in_heap;
	int64_t ready_ns;     /* when its next I/O was free to go as far as the
			       * stream goes: the previous issued (order) or
			       * completed (a dependency) */
};

struct sched {
	const struct rio *io;
	uint32_t *order;      /* I/O indices grouped by stream, in plan order */
	struct spill order_mem;
	struct stream_st *s;
	uint32_t *heap;       /* stream ids; key: index of the stream's next I/O */
	uint32_t hn;
	int stop;
	int64_t t0;
	double scale;
	unsigned depth;
	int64_t slot_ns;      /* when the depth last went from full to not */
	uint8_t *done_flag;   /* sched_params.done, or NULL */
	uint32_t *log;        /* sched_params.issue_log, or NULL */
	size_t *log_n, nlog;
	/* releasing plan and results behind (sched_params.plan_mem) */
	struct spill *plan_mem, *res_mem;
	size_t rel, issued;   /* released below index rel; I/Os issued */
	size_t *progress, top;  /* sched_params.progress; highest issued */
	/* counters */
	int64_t first_issue;  /* the earliest issue time set */
	size_t done, failed, dep_waits;
	unsigned inflight;
	int64_t last_complete;
};

#define KEEP_AHEAD 65536    /* plan entries kept resident at the start */

static uint32_t key(const struct sched *q, uint32_t s)
{
	return q->order[q->s[s].head];
}

static void heap_swap(struct sched *q, uint32_t a, uint32_t b)
{
	uint32_t t = q->heap[a];
	q->heap[a] = q->heap[b];
	q->heap[b] = t;
}

static void sift_down(struct sched *q, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < q->hn && key(q, q->heap[l]) < key(q, q->heap[m]))
			m = l;
		if (r < q->hn && key(q, q->heap[r]) < key(q, q->heap[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(q, i, m);
		i = m;
	}
}

static void heap_push(struct sched *q, uint32_t s)
{
	uint32_t i = q->hn++;

	q->heap[i] = s;
	q->s[s].in_heap = 1;
	while (i && key(q, q->heap[(i - 1) / 2]) > key(q, q->heap[i])) {
		heap_swap(q, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct sched *q)
{
	q->s[q->heap[0]].in_heap = 0;
	q->heap[0] = q->heap[--q->hn];
	if (q->hn)
		sift_down(q, 0);
}

static int ready(const struct sched *q, uint32_t s)
{
	const struct stream_st *st = &q->s[s];

	return st->head < st->end &&
	       (!(q->io[q->order[st->head]].flags & RIO_DEP) || !st->inflight);
}

/* After I/O i was issued: every 64k I/Os, the plan's and the results'
 * pages more than 64k I/Os and the depth behind it leave the resident set
 * (an I/O of a stream that lags that far is read back from the file). */
static void release_behind(struct sched *q, uint32_t i)
{
	size_t margin = 65536 + (size_t)q->depth, upto;

	if (!q->plan_mem || (++q->issued & 0xffff) || i < margin)
		return;
	upto = i - margin;
	if (upto <= q->rel)
		return;
	spill_release_range(q->plan_mem, q->rel * sizeof(struct rio),
			    upto * sizeof(struct rio));
	if (q->res_mem)
		spill_release_range(q->res_mem, q->rel * sizeof(struct rio_result),
				    upto * sizeof(struct rio_result));
	q->rel = upto;
}

/* The top stream issued its head at now: move on to its next I/O. */
static void advance(struct sched *q, int64_t now)
{
	uint32_t s = q->heap[0];
	struct stream_st *st = &q->s[s];

	release_behind(q, q->order[st->head]);
	if (q->progress && q->order[st->head] > q->top) {
		q->top = q->order[st->head];
		__atomic_store_n(q->progress, q->top, __ATOMIC_RELAXED);
	}
	st->head++;
	st->ready_ns = now;
	if (st->head - st->rel >= 65536) {
		/* the stream's part of order[] behind its head */
		spill_release_range(&q->order_mem, (size_t)st->rel * 4,
				    (size_t)st->head * 4);
		st->rel = st->head;
	}
	if (st->head < st->end && ready(q, s)) {
		sift_down(q, 0);
		return;
	}
	heap_pop(q);
}

/* Sets I/O i's issue time t and logs it for a reader (sched_params). */
static void set_issue(struct sched *q, struct rio_result *res, uint32_t i,
		      int64_t t)
{
	res[i].issue_ns = t;
	if (t < q->first_issue)
		q->first_issue = t;
	if (q->log) {
		q->log[q->nlog++] = i;
		__atomic_store_n(q->log_n, q->nlog, __ATOMIC_RELEASE);
	}
}

static void complete(struct sched *q, uint32_t i, int32_t r, int64_t t,
		     struct rio_result *res)
{
	uint32_t s = q->io[i].stream;

	res[i].complete_ns = t;
	res[i].res = r;
	if (q->done_flag)
		__atomic_store_n(&q->done_flag[i], 1, __ATOMIC_RELEASE);
	if (r < 0)
		q->failed++;
	if (t > q->last_complete)
		q->last_complete = t;
	q->done++;
	if (q->inflight == q->depth)
		q->slot_ns = t;
	q->inflight--;
	q->s[s].inflight--;
	if (!q->stop && !q->s[s].in_heap && ready(q, s)) {
		/* it waited for this completion: did that make it late? */
		if (t > sched_time(q->t0, q->io[key(q, s)].t_ns, q->scale))
			q->dep_waits++;
		q->s[s].ready_ns = t;
		heap_push(q, s);
	}
}

static void reap_all(struct sched *q, struct replay_engine *e,
		     const struct sched_clock *clk, struct engine_cqe *cqe,
		     struct rio_result *res)
{
	for (;;) {
		unsigned k = e->ops->reap(e, cqe, 64);
		int64_t t;

		if (!k)
			return;
		t = clk->now(clk->ctx);
		for (unsigned j = 0; j < k; j++)
			complete(q, cqe[j].idx, cqe[j].res,
				 cqe[j].t_ns ? cqe[j].t_ns : t, res);
	}
}

/* Group the plan's I/Os by stream into q->order, each stream's in plan
 * order from its head to its end, and push every stream that has I/Os onto
 * the heap. ns: the streams. Two passes over the plan: each leaves what it
 * has read (spill.h), but for the first KEEP_AHEAD I/Os, which the schedule
 * reads first (a page read again faults, a few us, in the first I/O's
 * time). */
static void order_streams(struct sched *q, const struct plan *plan, uint32_t ns)
{
	size_t n = plan->n;

	for (size_t i = 0; i < n; i++) {
		q->s[plan->io[i].stream].end++;
		if (q->plan_mem && !(i & 0xffff))
			spill_release_range(q->plan_mem, KEEP_AHEAD * sizeof(*plan->io),
					    i * sizeof(*plan->io));
	}
	for (uint32_t s = 0, sum = 0; s < ns; s++) {
		uint32_t c = q->s[s].end;
		q->s[s].head = q->s[s].end = q->s[s].rel = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++) {
		q->order[q->s[plan->io[i].stream].end++] = (uint32_t)i;
		if (q->plan_mem && !(i & 0xffff))
			spill_release_range(q->plan_mem, KEEP_AHEAD * sizeof(*plan->io),
					    i * sizeof(*plan->io));
	}
	if (q->plan_mem)
		spill_release_range(q->plan_mem, KEEP_AHEAD * sizeof(*plan->io),
				    n * sizeof(*plan->io));
	for (uint32_t s = 0; s < ns; s++)
		if (q->s[s].head < q->s[s].end)
			heap_push(q, s);
}

/* Every 10 ms of now (*next_check), ask p->interrupted whether to stop;
 * when told to, empty the heap: nothing more is issued, what is in flight
 * completes. */
static inline void check_stop(struct sched *q, const struct sched_params *p,
			      struct sched_stats *out, int64_t now,
			      int64_t *next_check)
{
	if (p->interrupted && now >= *next_check) {
		*next_check = now + 10000000;
		if (!q->stop && p->interrupted(p->ctx)) {
			q->stop = out->interrupted = 1;
			while (q->hn)
				heap_pop(q);
		}
	}
}

/* The batch prepared since the last commit is issued now: stamp its I/Os
 * with the clock's time and empty it. */
static inline void stamp_batch(struct sched *q, const struct sched_clock *clk,
			       struct rio_result *res, const uint32_t *batch,
			       unsigned *nbatch)
{
	if (*nbatch) {
		int64_t t = clk->now(clk->ctx);
		for (unsigned b = 0; b < *nbatch; b++)
			set_issue(q, res, batch[b], t);
		*nbatch = 0;
	}
}

/* I/O i, the top stream's head, scheduled at ts: it was free to go at the
 * latest of ts, its stream's readiness and the last time a slot of the
 * depth came free. */
static inline void set_free(const struct sched *q, struct rio_result *res,
			    uint32_t i, int64_t ts)
{
	const struct stream_st *st = &q->s[q->heap[0]];

	res[i].sched_ns = ts;
	res[i].free_ns = ts;
	if (st->ready_ns > res[i].free_ns)
		res[i].free_ns = st->ready_ns;
	if (q->slot_ns > res[i].free_ns)
		res[i].free_ns = q->slot_ns;
}

/* I/O i could not even be queued (rc < 0): issued and completed at now,
 * failed with rc, and its stream moves on. */
static inline void issue_failed(struct sched *q, const struct plan *plan,
				struct rio_result *res, uint32_t i, int rc,
				int64_t now)
{
	set_issue(q, res, i, now);
	q->inflight++;
	q->s[plan->io[i].stream].inflight++;
	advance(q, now);
	complete(q, i, rc, now, res);
}

/* Nothing in flight, only time can bring work: sleep until the spin
 * window before next_ts (no later than wake_cap() allows), then spin to
 * it. */
static inline void wait_idle(const struct sched_params *p,
			     const struct sched_clock *clk, int64_t now,
			     int64_t next_ts, int64_t spin)
{
	if (next_ts - now > spin)
		clk->sleep_until(clk->ctx, wake_cap(p, now, next_ts - spin));
	else if (clk->spin_until)
		clk->spin_until(clk->ctx, next_ts);
	else
		while (clk->now(clk->ctx) < next_ts)
			;
}

/* Whether the commit waits for a completion (1, until *deadline: there
 * is no next I/O, or it is not due within the spin window before next_ts)
 * or not (0: the spin window follows). */
static inline unsigned commit_wait(const struct sched_params *p, int64_t now,
				   int64_t next_ts, int64_t spin,
				   int64_t *deadline)
{
	if (next_ts == INT64_MAX) {
		*deadline = wake_cap(p, now, 0);
		return 1;
	}
	if (next_ts - now > spin) {
		*deadline = wake_cap(p, now, next_ts - spin);
		return 1;
	}
	return 0;
}

/* The next I/O is due within the spin window (at next_ts): spin to it,
 * reaping, and stop early when a completion may have freed an earlier
 * one, to look again then. */
static inline void spin_window(struct sched *q, struct replay_engine *e,
			       const struct sched_clock *clk,
			       struct engine_cqe *cqe, struct rio_result *res,
			       int64_t next_ts)
{
	size_t done0 = q->done;

	if (clk->spin_until)
		clk->spin_until(clk->ctx, next_ts);
	else
		while (q->done == done0 && clk->now(clk->ctx) < next_ts)
			reap_all(q, e, clk, cqe, res);
}

int sched_run(const struct plan *plan, const struct sched_params *p,
	      struct replay_engine *e, const struct sched_clock *clk,
	      struct rio_result *res, struct sched_stats *out)
{
	const struct replay_engine_ops *ops = e->ops;
	size_t n = plan->n;
	unsigned depth = p->depth ? p->depth : 1, nbatch = 0;
	uint32_t ns = plan->nstreams ? plan->nstreams : 1, *batch;
	struct engine_cqe cqe[64];
	struct sched q = { .io = plan->io, .done_flag = p->done,
			   .log = p->issue_log, .log_n = p->issue_n,
			   .plan_mem = p->plan_mem, .res_mem = p->res_mem,
			   .progress = p->progress,
			   .first_issue = INT64_MAX };
	int64_t t0, next_check, spin = p->spin_ns > 0 ? p->spin_ns : 0;
	int rc = 0, busy = 0;

	memset(out, 0, sizeof(*out));
	if (!p->res_zeroed)
		memset(res, 0, n * sizeof(*res));
	if (!n)
		return 0;
	if ((rc = spill_init(&q.order_mem, n * sizeof(*q.order))))
		return rc;
	q.order = q.order_mem.p;
	q.s = xcalloc(ns + 1, sizeof(*q.s));
	q.heap = xmalloc(ns * sizeof(*q.heap));
	batch = xmalloc(depth * sizeof(*batch));
	order_streams(&q, plan, ns);

	t0 = clk->now(clk->ctx) + (p->scale > 0 ? p->lead_ns : 0);
	out->t0 = q.t0 = t0;
	q.scale = p->scale;
	q.depth = depth;
	out->first_issue = INT64_MAX;
	next_check = t0;
	while (q.done < n) {
		int64_t now = clk->now(clk->ctx), next_ts = INT64_MAX, deadline = 0;
		unsigned wait_nr = 0;

		check_stop(&q, p, out, now, &next_check);
		if (q.stop && !q.inflight)
			break;
		/* issue what is due, up to the depth */
		while (q.hn && q.inflight < depth) {
			uint32_t i = key(&q, q.heap[0]);
			int64_t ts = sched_time(t0, plan->io[i].t_ns, p->scale);
			int64_t stamp = 0;

			if (ts > now)
				break;
			if (ops->inline_io)
				stamp = clk->now(clk->ctx);
			rc = ops->prep(e, &plan->io[i], i);
			if (rc == -EBUSY) {
				/* hand over what is prepared, take completions */
				if (busy++ > 2) {
					rc = -EBUSY;
					goto out;
				}
				stamp_batch(&q, clk, res, batch, &nbatch);
				if ((rc = ops->commit(e, 0, 0)) < 0)
					goto out;
				reap_all(&q, e, clk, cqe, res);
				continue;
			}
			busy = 0;
			set_free(&q, res, i, ts);
			out->issued++;
			if (rc < 0) {
				/* could not even be queued: a failed I/O */
				issue_failed(&q, plan, res, i, rc, now);
				rc = 0;
				continue;
			}
			if (ops->inline_io)
				set_issue(&q, res, i, stamp);
			else
				batch[nbatch++] = i;
			q.inflight++;
			q.s[plan->io[i].stream].inflight++;
			if (q.inflight > out->max_inflight)
				out->max_inflight = q.inflight;
			advance(&q, now);
		}
		if (q.hn && q.inflight < depth)
			next_ts = sched_time(t0, plan->io[key(&q, q.heap[0])].t_ns,
					     p->scale);
		if (!q.inflight) {
			if (next_ts == INT64_MAX) {
				if (q.done < n && !q.stop)
					rc = -EDEADLK;   /* a bug: nothing can move */
				break;
			}
			wait_idle(p, clk, now, next_ts, spin);
			continue;
		}
		wait_nr = commit_wait(p, now, next_ts, spin, &deadline);
		stamp_batch(&q, clk, res, batch, &nbatch);
		if ((rc = ops->commit(e, wait_nr, deadline)) < 0)
			goto out;
		reap_all(&q, e, clk, cqe, res);
		if (!wait_nr && next_ts != INT64_MAX)
			spin_window(&q, e, clk, cqe, res, next_ts);
	}
out:
	out->failed = q.failed;
	out->dep_waits = q.dep_waits;
	out->last_complete = q.last_complete;
	out->first_issue = q.first_issue;
	if (out->first_issue == INT64_MAX)
		out->first_issue = t0;
	spill_free(&q.order_mem);
	free(q.s);
	free(q.heap);
	free(batch);
	return rc;
}
