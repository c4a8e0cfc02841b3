/* The import's bounded queue between the decoding thread and the store
 * writer: a ring of PIPE_NCHUNK chunks of items, one lock round per chunk,
 * payload bytes copied into the chunk's own buffer. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_pipe.h"
#include "lib/util.h"

/* Items per chunk and chunks in the ring: a chunk is about 190 KiB, the
 * ring under 1 MiB; big enough that the lock is taken rarely, small enough
 * that the two threads run side by side from the start. */
#define PIPE_CHUNK 1024
#define PIPE_NCHUNK 4

enum item_kind { IT_EVENT, IT_PROCESS, IT_REQUEST };

struct item {
	enum item_kind kind;
	size_t off, len;    /* payload or name bytes in the chunk's buffer */
	union {
		struct bt_event ev;   /* pdu rebuilt from off, len */
		uint32_t pid;
		struct {
			int64_t id;
			struct store_request rq;
		} r;
	} u;
};

struct chunk {
	struct item it[PIPE_CHUNK];
	size_t n;
	uint8_t *bytes;
	size_t blen, bcap;
};

struct import_pipe {
	pthread_mutex_t mu;
	pthread_cond_t ready;   /* a chunk is queued or the producer is done */
	pthread_cond_t freed;   /* a chunk is free again or the consumer failed */
	struct chunk *ch;       /* PIPE_NCHUNK */
	int head, count;        /* queued chunks: ch[head .. head + count) */
	int fill;               /* the chunk the producer fills (not queued) */
	int done, failed;
	int (*produce)(void *arg, struct import_pipe *p);
	void *arg;
	int prod_rc;
};

/* Queues the producer's chunk and waits for a free one. Returns 0 or
 * -ECANCELED when the consumer failed. */
static int publish(struct import_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	if (!p->failed) {
		p->count++;
		pthread_cond_signal(&p->ready);
		while (p->count == PIPE_NCHUNK && !p->failed)
			pthread_cond_wait(&p->freed, &p->mu);
	}
	/* once failed, p->fill stays full: every later call comes here */
	if (p->failed) {
		pthread_mutex_unlock(&p->mu);
		return -ECANCELED;
	}
	p->fill = (p->head + p->count) % PIPE_NCHUNK;
	pthread_mutex_unlock(&p->mu);
	p->ch[p->fill].n = 0;
	p->ch[p->fill].blen = 0;
	return 0;
}

/* The next free item of the producer's chunk, with len bytes of room from
 * src copied in (src may be NULL when len is 0); NULL once the consumer has
 * failed. */
static struct item *next_item(struct import_pipe *p, const void *src, size_t len)
{
	struct chunk *c = &p->ch[p->fill];
	struct item *it;

	if (c->n == PIPE_CHUNK && publish(p))
		return NULL;
	c = &p->ch[p->fill];
	if (c->blen + len > c->bcap) {
		size_t cap = c->bcap ? c->bcap : 16384;
		while (cap < c->blen + len)
			cap *= 2;
		c->bytes = xrealloc(c->bytes, cap);
		c->bcap = cap;
	}
	it = &c->it[c->n++];
	it->off = c->blen;
	it->len = len;
	if (len)
		memcpy(c->bytes + c->blen, src, len);
	c->blen += len;
	return it;
}

int import_pipe_event(struct import_pipe *p, const struct bt_event *ev)
{
	struct item *it = next_item(p, ev->pdu, ev->pdu_len);

	if (!it)
		return -ECANCELED;
	it->kind = IT_EVENT;
	it->u.ev = *ev;
	return 0;
}

int import_pipe_process(struct import_pipe *p, uint32_t pid, const char *comm)
{
	struct item *it = next_item(p, comm, strlen(comm) + 1);

	if (!it)
		return -ECANCELED;
	it->kind = IT_PROCESS;
	it->u.pid = pid;
	return 0;
}

int import_pipe_request(struct import_pipe *p, int64_t id,
			const struct store_request *rq)
{
	struct item *it = next_item(p, NULL, 0);

	if (!it)
		return -ECANCELED;
	it->kind = IT_REQUEST;
	it->u.r.id = id;
	it->u.r.rq = *rq;
	return 0;
}

static void *producer_main(void *vp)
{
	struct import_pipe *p = vp;
	int rc = p->produce(p->arg, p);

	pthread_mutex_lock(&p->mu);
	/* the last, partly filled chunk */
	if (p->ch[p->fill].n && !p->failed)
		p->count++;
	p->prod_rc = rc;
	p->done = 1;
	pthread_cond_signal(&p->ready);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Feeds one chunk's items to cons; returns the first failure. */
static int consume(const struct chunk *c, const struct import_pipe_consumer *cons)
{
	int rc = 0;

	for (size_t i = 0; i < c->n && !rc; i++) {
		const struct item *it = &c->it[i];
		struct bt_event ev;

		switch (it->kind) {
		case IT_EVENT:
			ev = it->u.ev;
			ev.pdu = it->len ? c->bytes + it->off : NULL;
			rc = cons->event(cons->ctx, &ev);
			break;
		case IT_PROCESS:
			rc = cons->process(cons->ctx, it->u.pid,
					   (const char *)c->bytes + it->off);
			break;
		case IT_REQUEST:
			rc = cons->request(cons->ctx, it->u.r.id, &it->u.r.rq);
			break;
		}
	}
	return rc;
}

int import_pipe_run(int (*produce)(void *arg, struct import_pipe *pipe),
		    void *arg, const struct import_pipe_consumer *cons,
		    int *cons_rc)
{
	struct import_pipe p = { .produce = produce, .arg = arg };
	pthread_t th;
	int rc;

	*cons_rc = 0;
	p.ch = xcalloc(PIPE_NCHUNK, sizeof(*p.ch));
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.ready, NULL);
	pthread_cond_init(&p.freed, NULL);
	if ((rc = pthread_create(&th, NULL, producer_main, &p))) {
		rc = -rc;
		goto out;
	}
	pthread_mutex_lock(&p.mu);
	for (;;) {
		struct chunk *c;

		while (!p.count && !p.done)
			pthread_cond_wait(&p.ready, &p.mu);
		if (!p.count)
			break;
		c = &p.ch[p.head];
		pthread_mutex_unlock(&p.mu);
		/* after a failure the rest is only drained, so the producer
		 * is never left waiting */
		if (!*cons_rc)
			*cons_rc = consume(c, cons);
		pthread_mutex_lock(&p.mu);
		if (*cons_rc)
			p.failed = 1;
		p.head = (p.head + 1) % PIPE_NCHUNK;
		p.count--;
		pthread_cond_signal(&p.freed);
	}
	pthread_mutex_unlock(&p.mu);
	pthread_join(th, NULL);
	rc = p.prod_rc;
out:
	for (int i = 0; i < PIPE_NCHUNK; i++)
		free(p.ch[i].bytes);
	free(p.ch);
	pthread_cond_destroy(&p.freed);
	pthread_cond_destroy(&p.ready);
	pthread_mutex_destroy(&p.mu);
	return rc;
}
