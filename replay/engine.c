/* Engine lookup, the synchronous I/O every engine can fall back on, and two
 * engines: sync (each I/O done in prep, in the caller's thread) and null (no
 * I/O; completes after a fixed latency on real or simulated time). */
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

static const struct replay_engine_ops *const all[] = {
	&engine_uring_ops, &engine_sync_ops, &engine_null_ops,
	&engine_model_ops,
};

const struct replay_engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	if (!strcmp(name, "uring"))
		return &engine_uring_ops;
	return NULL;
}

const char *engine_names(char *buf, size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(all) && o < len; i++) {
		int k = snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
				 all[i]->name);
		if (k < 0)
			break;
		o += (size_t)k;
	}
	return buf;
}

const struct replay_engine_ops *engine_serving(const char *path)
{
	for (size_t i = 0; path && i < ARRAY_SIZE(all); i++)
		if (all[i]->serves && all[i]->serves(path))
			return all[i];
	return NULL;
}

void *engine_buffer(size_t len, size_t align)
{
	void *p;

	if (align < 4096)
		align = 4096;
	len = (len + 4095) & ~(size_t)4095;
	if (!len)
		len = 4096;
	if (posix_memalign(&p, align, len))
		return NULL;
	/* a pattern, not zeros: devices that compress or dedupe zeros would
	 * make writes cheaper than the original's */
	for (size_t i = 0; i < len; i++)
		((unsigned char *)p)[i] = (unsigned char)(i * 131 + (i >> 12) * 7 + 1);
	return p;
}

int rio_do_sync(const struct engine_target *t, const struct rio *io,
		void *rbuf, const void *wbuf)
{
	ssize_t n;

	switch (io->op) {
	case RIO_READ:
		n = pread(t->fd, rbuf, io->len, (off_t)io->off);
		break;
	case RIO_WRITE: {
		struct iovec iov = { (void *)wbuf, io->len };
		n = pwritev2(t->fd, &iov, 1, (off_t)io->off,
			     io->flags & RIO_FUA ? RWF_DSYNC : 0);
		break;
	}
	case RIO_FLUSH:
		n = fdatasync(t->fd);
		break;
	case RIO_DISCARD:
		if (t->blkdev) {
			uint64_t range[2] = { io->off, io->len };
			n = ioctl(t->fd, BLKDISCARD, range);
		} else {
			n = fallocate(t->fd, FALLOC_FL_PUNCH_HOLE |
				      FALLOC_FL_KEEP_SIZE, (off_t)io->off,
				      (off_t)io->len);
		}
		break;
	default:
		return -EINVAL;
	}
	return n < 0 ? -errno : (int)n;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- sync ---- */

struct sync_priv {
	const struct engine_target *targets;
	void *rbuf, *wbuf;
	struct engine_cqe *done;   /* completions not yet reaped */
	unsigned n, cap;
};

static int sync_init(struct replay_engine *e, const struct engine_setup *s)
{
	struct sync_priv *p = xcalloc(1, sizeof(*p));

	e->priv = p;
	p->targets = s->targets;
	p->cap = s->depth ? s->depth : 1;
	p->done = xcalloc(p->cap, sizeof(*p->done));
	p->rbuf = engine_buffer(s->max_len, s->align);
	p->wbuf = engine_buffer(s->max_len, s->align);
	return p->rbuf && p->wbuf ? 0 : -ENOMEM;
}

static int sync_prep(struct replay_engine *e, const struct rio *io, uint32_t idx)
{
	struct sync_priv *p = e->priv;
	struct engine_cqe *c;

	if (p->n == p->cap)
		return -EBUSY;
	c = &p->done[p->n++];
	c->idx = idx;
	c->res = rio_do_sync(&p->targets[io->target], io, p->rbuf, p->wbuf);
	c->t_ns = mono_ns();
	return 0;
}

static int sync_commit(struct replay_engine *e, unsigned wait_nr,
		       int64_t deadline_ns)
{
	struct sync_priv *p = e->priv;

	/* nothing is ever in flight: a wait can only be for time */
	if (wait_nr && !p->n && deadline_ns) {
		struct timespec ts = { deadline_ns / 1000000000,
				       deadline_ns % 1000000000 };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return 0;
}

static unsigned sync_reap(struct replay_engine *e, struct engine_cqe *out,
			  unsigned max)
{
	struct sync_priv *p = e->priv;
	unsigned n = p->n < max ? p->n : max;

	memcpy(out, p->done, n * sizeof(*out));
	memmove(p->done, p->done + n, (p->n - n) * sizeof(*out));
	p->n -= n;
	return n;
}

static void sync_exit(struct replay_engine *e)
{
	struct sync_priv *p = e->priv;

	if (!p)
		return;
	free(p->rbuf);
	free(p->wbuf);
	free(p->done);
	free(p);
	e->priv = NULL;
}

const struct replay_engine_ops engine_sync_ops = {
	.name = "sync",
	.inline_io = 1,
	.init = sync_init,
	.prep = sync_prep,
	.commit = sync_commit,
	.reap = sync_reap,
	.exit = sync_exit,
};

/* ---- null ---- */

struct null_io {
	uint32_t idx;
	int32_t res;
	int64_t done_ns;
};

/* A FIFO of I/Os in flight: with one latency for all, they complete in
 * the order they were issued. Prepared I/Os start at commit. */
struct null_priv {
	struct null_conf conf;
	struct null_io *q;
	unsigned cap, head, n, nprep;
};

static int64_t null_now(const struct null_priv *p)
{
	return p->conf.vclock ? *p->conf.vclock : mono_ns();
}

static int null_init(struct replay_engine *e, const struct engine_setup *s)
{
	struct null_priv *p = xcalloc(1, sizeof(*p));

	e->priv = p;
	if (s->conf)
		p->conf = *(const struct null_conf *)s->conf;
	p->cap = s->depth ? s->depth : 1;
	p->q = xcalloc(p->cap, sizeof(*p->q));
	return 0;
}

static int null_prep(struct replay_engine *e, const struct rio *io, uint32_t idx)
{
	struct null_priv *p = e->priv;
	struct null_io *q;

	if (p->n == p->cap)
		return -EBUSY;
	q = &p->q[(p->head + p->n++) % p->cap];
	q->idx = idx;
	q->res = (int32_t)io->len;
	q->done_ns = INT64_MAX;      /* starts at commit */
	p->nprep++;
	return 0;
}

static int null_commit(struct replay_engine *e, unsigned wait_nr,
		       int64_t deadline_ns)
{
	struct null_priv *p = e->priv;
	int64_t now = null_now(p), until;

	for (unsigned k = p->n - p->nprep; k < p->n; k++)
		p->q[(p->head + k) % p->cap].done_ns = now + p->conf.latency_ns;
	p->nprep = 0;
	if (!wait_nr)
		return 0;
	/* the time the wait_nr-th completion is ready, or the deadline */
	until = wait_nr <= p->n ? p->q[(p->head + wait_nr - 1) % p->cap].done_ns
				: INT64_MAX;
	if (deadline_ns && deadline_ns < until)
		until = deadline_ns;
	if (until == INT64_MAX || until <= now)
		return 0;
	if (p->conf.vclock) {
		*p->conf.vclock = until;
	} else {
		struct timespec ts = { until / 1000000000, until % 1000000000 };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return 0;
}

static unsigned null_reap(struct replay_engine *e, struct engine_cqe *out,
			  unsigned max)
{
	struct null_priv *p = e->priv;
	int64_t now = null_now(p);
	unsigned n = 0;

	while (n < max && p->n > p->nprep && p->q[p->head].done_ns <= now) {
		struct null_io *q = &p->q[p->head];
		out[n++] = (struct engine_cqe){ q->idx, q->res, q->done_ns };
		p->head = (p->head + 1) % p->cap;
		p->n--;
	}
	return n;
}

static void null_exit(struct replay_engine *e)
{
	struct null_priv *p = e->priv;

	if (!p)
		return;
	free(p->q);
	free(p);
	e->priv = NULL;
}

const struct replay_engine_ops engine_null_ops = {
	.name = "null",
	.inline_io = 0,
	.init = null_init,
	.prep = null_prep,
	.commit = null_commit,
	.reap = null_reap,
	.exit = null_exit,
};
