/* Writing an untraced replay's rows behind its I/O: a second thread stores
 * the replays row of each I/O once it completed (schedule order) and its
 * requests row (issue order) while the scheduler still issues the rest, so
 * little is left to store when the last I/O completes. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/blktrace_format.h"
#include "lib/util.h"
#include "replay/replay_int.h"

#define WR_BATCH 4096            /* replays rows per store call */
#define WR_IDLE_NS 2000000       /* sleep when nothing is ready: 2 ms */

void replay_row(const struct ctx *c, const struct rio_result *res, size_t i,
		struct store_replay *r)
{
	const struct rio *io = &c->plan.io[i];

	memset(r, 0, sizeof(*r));
	r->idx = (int64_t)i;
	r->stream = io->stream;
	r->pid = io->pid;
	r->dev = c->tg[io->target].dev;
	r->has_sector = io->op != RIO_FLUSH;
	r->sector = io->off / 512;
	r->bytes = io->len;
	r->op = rio_op_name(io->op);
	r->fua = !!(io->flags & RIO_FUA);
	r->as_read = !!(io->flags & RIO_AS_READ);
	r->src_request = io->src_id;
	r->sched_ns = res[i].sched_ns;
	r->ready_ns = res[i].free_ns;
	r->issue_ns = res[i].issue_ns;
	r->complete_ns = res[i].complete_ns ? res[i].complete_ns : STORE_NO_TIME;
	r->result = res[i].res;
}

void replay_rwbs(const struct rio *io, char *rwbs, uint64_t *cats)
{
	switch (io->op) {
	case RIO_WRITE:
		snprintf(rwbs, 8, "W%sS", io->flags & RIO_FUA ? "F" : "");
		*cats = BT_C_WRITE | BT_C_SYNC | (io->flags & RIO_FUA ? BT_C_FUA : 0);
		break;
	case RIO_FLUSH:
		snprintf(rwbs, 8, "FWS");
		*cats = BT_C_WRITE | BT_C_FLUSH | BT_C_SYNC;
		break;
	case RIO_DISCARD:
		snprintf(rwbs, 8, "DS");
		*cats = BT_C_DISCARD | BT_C_SYNC;
		break;
	default:
		snprintf(rwbs, 8, "R");
		*cats = BT_C_READ;
	}
}

static int is_done(const struct replay_writer *w, size_t i)
{
	return __atomic_load_n(&w->done[i], __ATOMIC_ACQUIRE) != 0;
}

static int flush_replays(struct replay_writer *w)
{
	int rc = 0;

	if (w->nbuf)
		rc = store_replays_add(w->c->st, w->run, w->buf, w->nbuf);
	w->nbuf = 0;
	return rc;
}

/* The requests row of I/O i, the next in issue order: queued and
 * dispatched when it was issued, btt's D2D seek distance per target; its
 * Q2C and D2C into w->lat as replay_lat_load() would pair them. */
static int request_row(struct replay_writer *w, uint32_t i)
{
	const struct ctx *c = w->c;
	const struct rio *io = &c->plan.io[i];
	const struct rio_result *r = &w->res[i];
	struct store_request rq = { 0 };

	rq.dev = c->tg[io->target].dev;
	rq.sector = io->off / 512;
	rq.bytes = io->len;
	replay_rwbs(io, rq.rwbs, &rq.cats);
	rq.pid = io->pid;
	rq.q_ns = rq.d_ns = r->issue_ns;
	rq.g_ns = rq.m_ns = rq.i_ns = STORE_NO_TIME;
	rq.c_ns = r->complete_ns ? r->complete_ns : STORE_NO_TIME;
	rq.has_d = 1;
	rq.d_sector = rq.sector;
	rq.d_bytes = rq.bytes;
	rq.d_head = 1;
	rq.error = r->res < 0 ? -r->res : 0;
	if (io->len && io->op != RIO_DISCARD) {
		uint64_t s = rq.sector, e = s + io->len / 512;
		if (w->have_prev[io->target]) {
			uint64_t pe = w->prev_end[io->target];
			rq.has_seek = 1;
			rq.seek_sectors = s >= pe ? (int64_t)(s - pe) :
					  e <= pe ? (int64_t)(pe - s) : 0;
		}
		w->have_prev[io->target] = 1;
		w->prev_end[io->target] = e;
	}
	if (rq.c_ns != STORE_NO_TIME && rq.bytes > 0 && rq.c_ns >= rq.q_ns) {
		hist_add(&w->lat.q2c, (uint64_t)(rq.c_ns - rq.q_ns));
		hist_add(&w->lat.d2c, (uint64_t)(rq.c_ns - rq.d_ns));
	}
	{
		int rc = store_request_add(c->st, w->run, w->next_id++, &rq);
		if (!rc)
			run_summaries_add(&c->sums, w->run, &rq);
		return rc;
	}
}

/* Releases the plan's and the results' pages that both of the writer's
 * passes are done with (spill.h): behind the replays rows written and the
 * requests row to write next, less a margin (issue order strays a little
 * from plan order; a page read again after is only slower). */
static void release_behind(struct replay_writer *w, size_t ln)
{
	size_t upto = w->rp_next;

	if (w->rq_next < ln && w->log[w->rq_next] < upto)
		upto = w->log[w->rq_next];
	if (upto < 65536)
		return;
	upto -= 65536;
	spill_release(&w->c->plan.io_mem, upto * sizeof(struct rio));
	spill_release(w->res_mem, upto * sizeof(struct rio_result));
	spill_release(&w->done_mem, upto);
	spill_release(&w->log_mem, w->rq_next * sizeof(*w->log));
}

/* One slice of step(): replays rows up to plan index upto, then the
 * requests rows of what has been issued. */
static long step_slice(struct replay_writer *w, int fin, size_t upto)
{
	const struct rio_result *res = w->res;
	size_t n = w->c->plan.n, ln;
	long rows = 0;
	int rc;

	if (upto > n)
		upto = n;
	while (w->rp_next < upto && (fin || is_done(w, w->rp_next))) {
		size_t i = w->rp_next++;
		if (!res[i].sched_ns)
			continue;
		replay_row(w->c, res, i, &w->buf[w->nbuf++]);
		rows++;
		if (w->nbuf == WR_BATCH && (rc = flush_replays(w)))
			return rc;
	}
	if (fin && (rc = flush_replays(w)))
		return rc;
	/* requests: in issue order; I/Os issued at the same time (one
	 * submission) in plan order, as a sort on (issue_ns, index) has them */
	ln = __atomic_load_n(&w->log_n, __ATOMIC_ACQUIRE);
	while (w->rq_next < ln) {
		size_t a = w->rq_next, b = a;
		int64_t t;

		if (w->log[a] >= upto && upto < n)
			break;   /* the next slice's */
		t = res[w->log[a]].issue_ns;
		while (b < ln && res[w->log[b]].issue_ns == t)
			b++;
		if (!fin) {
			size_t k = a;
			if (b == ln)
				break;   /* more of that submission may follow */
			while (k < b && is_done(w, w->log[k]))
				k++;
			if (k < b)
				break;
		}
		for (size_t x = a + 1; x < b; x++) {   /* a few: insertion sort */
			uint32_t v = w->log[x];
			size_t y = x;
			for (; y > a && w->log[y - 1] > v; y--)
				w->log[y] = w->log[y - 1];
			w->log[y] = v;
		}
		for (size_t x = a; x < b; x++) {
			if ((rc = request_row(w, w->log[x])))
				return rc;
			rows++;
		}
		w->rq_next = b;
	}
	return rows;
}

/* Stores what is final; with fin, everything. The two passes go in
 * slices of 64k I/Os, side by side, so that what is released behind them
 * is not read again. Returns rows written, or a negative code. */
static long step(struct replay_writer *w, int fin)
{
	long rows = 0, r;

	do {
		size_t n0 = w->rp_next + 65536, ln0 = w->rq_next;
		r = step_slice(w, fin, n0);
		if (r < 0)
			return r;
		rows += r;
		release_behind(w, __atomic_load_n(&w->log_n, __ATOMIC_ACQUIRE));
		if (w->rp_next < n0 && w->rq_next == ln0)
			break;   /* nothing more is ready */
	} while (w->rp_next < w->c->plan.n ||
		 w->rq_next < __atomic_load_n(&w->log_n, __ATOMIC_ACQUIRE));
	return rows;
}

static void *writer_main(void *arg)
{
	struct replay_writer *w = arg;
	struct sched_param prio = { .sched_priority = 0 };

	/* (glibc's thread attributes take no SCHED_IDLE; the call does) */
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &prio);

	for (;;) {
		int fin = __atomic_load_n(&w->finished, __ATOMIC_ACQUIRE);
		long r = step(w, fin);
		if (r < 0) {
			w->rc = (int)r;
			break;
		}
		if (fin)
			break;
		if (!r || w->nbuf) {
			struct timespec ts = { 0, WR_IDLE_NS };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int replay_writer_start(struct replay_writer *w, struct ctx *c, int64_t run,
			struct spill *res, struct sched_params *sp)
{
	size_t n = c->plan.n ? c->plan.n : 1;
	pthread_attr_t attr;
	int rc;

	memset(w, 0, sizeof(*w));
	w->c = c;
	w->run = run;
	w->res = res->p;
	w->res_mem = res;
	w->done_mem.fd = w->log_mem.fd = -1;
	if ((rc = spill_init(&w->done_mem, n * sizeof(*w->done))) ||
	    (rc = spill_init(&w->log_mem, n * sizeof(*w->log))))
		return rc;
	w->done = w->done_mem.p;
	w->log = w->log_mem.p;
	w->buf = xmalloc(WR_BATCH * sizeof(*w->buf));
	/* each pass of the writer over the plan and the results starts
	 * here */
	spill_rewind(&c->plan.io_mem);
	spill_rewind(res);
	if ((rc = store_next_request_id(c->st, &w->next_id)))
		return rc;
	/* Never the scheduler's SCHED_FIFO: the writer runs at SCHED_IDLE,
	 * only on CPU time nothing else wants, so it never delays the
	 * submitter or the workers that complete the I/O (at normal priority,
	 * on the replay's CPU, it cost an as-fast-as-possible replay a third
	 * of its IOPS); what it did not write by the end it writes after, at
	 * normal priority. */
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	rc = pthread_create(&w->th, &attr, writer_main, w);
	pthread_attr_destroy(&attr);
	if (rc)
		return -rc;
	w->started = 1;
	sp->done = w->done;
	sp->issue_log = w->log;
	sp->issue_n = &w->log_n;
	return 0;
}

int replay_writer_finish(struct replay_writer *w, struct lat *lat)
{
	int rc;

	if (w->started) {
		struct sched_param prio = { .sched_priority = 0 };
		pthread_setschedparam(w->th, SCHED_OTHER, &prio);
		__atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
		pthread_join(w->th, NULL);
		w->started = 0;
	}
	rc = w->rc;
	if (lat) {
		*lat = w->lat;
		memset(&w->lat, 0, sizeof(w->lat));
	}
	replay_lat_free(&w->lat);
	spill_free(&w->done_mem);
	spill_free(&w->log_mem);
	free(w->buf);
	w->done = NULL;
	w->log = NULL;
	w->buf = NULL;
	return rc;
}
