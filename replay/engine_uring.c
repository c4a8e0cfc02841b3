/* The io_uring engine (liburing): reads and writes from two registered
 * buffers on registered files, fdatasync as IORING_OP_FSYNC, punched holes
 * as IORING_OP_FALLOCATE; device discards, which io_uring cannot queue on
 * every kernel, are done synchronously (BLKDISCARD) and completed at once.
 * Sources: liburing(7), io_uring_enter(2). */
#include <errno.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "lib/util.h"
#include "replay/engine.h"

struct uring_priv {
	struct io_uring ring;
	int ring_ok;
	int fixed_files, fixed_bufs;
	const struct engine_target *targets;
	int ntargets;
	void *rbuf, *wbuf;
	uint32_t buflen;
	struct engine_cqe *side;   /* completions of synchronous discards */
	unsigned nside, capside;
	struct io_uring_cqe **cqes;
	unsigned depth;
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int uring_init(struct replay_engine *e, const struct engine_setup *s)
{
	struct uring_priv *p = xcalloc(1, sizeof(*p));
	struct io_uring_params prm;
	unsigned entries = 8;
	int *fds, rc;

	e->priv = p;
	p->targets = s->targets;
	p->ntargets = s->ntargets;
	p->depth = s->depth ? s->depth : 1;
	while (entries < p->depth)
		entries <<= 1;
	/* completions are only ever reaped by this thread: no IPIs; the
	 * TASKRUN flag tells peeking (liburing) when to enter the kernel for
	 * them */
	memset(&prm, 0, sizeof(prm));
	prm.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG |
		    IORING_SETUP_SINGLE_ISSUER;
	prm.flags |= IORING_SETUP_CQSIZE;
	prm.cq_entries = 2 * entries;
	rc = io_uring_queue_init_params(entries, &p->ring, &prm);
	if (rc == -EINVAL) {
		memset(&prm, 0, sizeof(prm));
		prm.flags = IORING_SETUP_CQSIZE;
		prm.cq_entries = 2 * entries;
		rc = io_uring_queue_init_params(entries, &p->ring, &prm);
	}
	if (rc < 0)
		return rc;
	p->ring_ok = 1;
	p->buflen = s->max_len ? s->max_len : 4096;
	p->rbuf = engine_buffer(p->buflen, s->align);
	p->wbuf = engine_buffer(p->buflen, s->align);
	if (!p->rbuf || !p->wbuf)
		return -ENOMEM;
	{
		struct iovec iov[2] = { { p->rbuf, p->buflen }, { p->wbuf, p->buflen } };
		p->fixed_bufs = io_uring_register_buffers(&p->ring, iov, 2) == 0;
	}
	fds = xcalloc((size_t)s->ntargets, sizeof(*fds));
	for (int i = 0; i < s->ntargets; i++)
		fds[i] = s->targets[i].fd;
	p->fixed_files = io_uring_register_files(&p->ring, fds,
						 (unsigned)s->ntargets) == 0;
	free(fds);
	p->capside = p->depth;
	p->side = xcalloc(p->capside, sizeof(*p->side));
	p->cqes = xcalloc(64, sizeof(*p->cqes));
	return 0;
}

static int uring_prep(struct replay_engine *e, const struct rio *io, uint32_t idx)
{
	struct uring_priv *p = e->priv;
	const struct engine_target *t = &p->targets[io->target];
	int fd = p->fixed_files ? io->target : t->fd;
	struct io_uring_sqe *sqe;

	if (io->op == RIO_DISCARD && t->blkdev) {
		if (p->nside == p->capside)
			return -EBUSY;
		p->side[p->nside].idx = idx;
		p->side[p->nside].res = rio_do_sync(t, io, p->rbuf, p->wbuf);
		p->side[p->nside++].t_ns = mono_ns();
		return 0;
	}
	sqe = io_uring_get_sqe(&p->ring);
	if (!sqe)
		return -EBUSY;
	switch (io->op) {
	case RIO_READ:
		if (p->fixed_bufs)
			io_uring_prep_read_fixed(sqe, fd, p->rbuf, io->len, io->off, 0);
		else
			io_uring_prep_read(sqe, fd, p->rbuf, io->len, io->off);
		break;
	case RIO_WRITE:
		if (p->fixed_bufs)
			io_uring_prep_write_fixed(sqe, fd, p->wbuf, io->len, io->off, 1);
		else
			io_uring_prep_write(sqe, fd, p->wbuf, io->len, io->off);
		if (io->flags & RIO_FUA)
			sqe->rw_flags = RWF_DSYNC;
		break;
	case RIO_FLUSH:
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		break;
	case RIO_DISCARD:
		io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE |
					FALLOC_FL_KEEP_SIZE, io->off, io->len);
		break;
	default:
		return -EINVAL;
	}
	if (p->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, idx);
	return 0;
}

static int uring_commit(struct replay_engine *e, unsigned wait_nr,
			int64_t deadline_ns)
{
	struct uring_priv *p = e->priv;
	struct io_uring_cqe *cqe;
	int rc;

	if (p->nside)
		wait_nr = 0;       /* completions are ready already */
	if (wait_nr && deadline_ns) {
		int64_t left = deadline_ns - mono_ns();
		struct __kernel_timespec ts;
		if (left <= 0)
			return io_uring_submit(&p->ring) < 0 ? -errno : 0;
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		rc = io_uring_submit_and_wait_timeout(&p->ring, &cqe, wait_nr, &ts,
						      NULL);
	} else if (wait_nr) {
		rc = io_uring_submit_and_wait(&p->ring, wait_nr);
	} else {
		rc = io_uring_submit(&p->ring);
	}
	if (rc == -ETIME || rc == -EINTR || rc == -EAGAIN || rc == -EBUSY)
		return 0;
	return rc < 0 ? rc : 0;
}

static unsigned uring_reap(struct replay_engine *e, struct engine_cqe *out,
			   unsigned max)
{
	struct uring_priv *p = e->priv;
	unsigned n = 0, got;

	while (p->nside && n < max) {
		out[n++] = p->side[--p->nside];
	}
	while (n < max) {
		unsigned want = max - n < 64 ? max - n : 64;
		got = io_uring_peek_batch_cqe(&p->ring, p->cqes, want);
		for (unsigned i = 0; i < got; i++) {
			out[n].idx = (uint32_t)io_uring_cqe_get_data64(p->cqes[i]);
			out[n].res = p->cqes[i]->res;
			out[n++].t_ns = 0;
		}
		io_uring_cq_advance(&p->ring, got);
		if (got < want)
			break;
	}
	return n;
}

static void uring_exit(struct replay_engine *e)
{
	struct uring_priv *p = e->priv;

	if (!p)
		return;
	/* the targets unregistered first, which the kernel does at once:
	 * the ring's own teardown runs later, in a kernel worker, and would
	 * hold them open past iotape's exit (a device still open
	 * exclusively, a file system that will not unmount) */
	if (p->ring_ok && p->fixed_files)
		io_uring_unregister_files(&p->ring);
	if (p->ring_ok)
		io_uring_queue_exit(&p->ring);
	free(p->rbuf);
	free(p->wbuf);
	free(p->side);
	free(p->cqes);
	free(p);
	e->priv = NULL;
}

const struct replay_engine_ops engine_uring_ops = {
	.name = "io_uring",
	.inline_io = 0,
	.init = uring_init,
	.prep = uring_prep,
	.commit = uring_commit,
	.reap = uring_reap,
	.exit = uring_exit,
};
