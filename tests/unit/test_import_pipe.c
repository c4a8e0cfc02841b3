/* Unit tests of import/import_pipe.c: everything a producer thread queues
 * (events with and without payload, names, requests rows) arrives in order
 * and intact across many chunks; a consumer failure stops the producer with
 * -ECANCELED and nothing after it is delivered; an empty producer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "import/import_pipe.h"

/* Items the producer queues: several ring's worth (the ring is 4 chunks of
 * 1,024), so the producer waits on the consumer many times. */
#define N_ITEMS 20011

struct prod {
	int n;            /* items to queue */
	int rc_seen;      /* first non-zero queueing result */
	int queued;       /* items queued before it */
};

/* Item i: every 7th a request, every 101st a name, else an event whose
 * payload (every 3rd) is i's bytes. */
static int produce(void *arg, struct import_pipe *p)
{
	struct prod *pr = arg;

	for (int i = 0; i < pr->n; i++) {
		int rc;
		if (i % 7 == 0) {
			struct store_request rq = { .dev = 8, .sector = (uint64_t)i };
			snprintf(rq.rwbs, sizeof(rq.rwbs), "R");
			rc = import_pipe_request(p, 1000 + i, &rq);
		} else if (i % 101 == 0) {
			char comm[32];
			snprintf(comm, sizeof(comm), "proc-%d", i);
			rc = import_pipe_process(p, (uint32_t)i, comm);
		} else {
			uint8_t pdu[sizeof(int)];
			struct bt_event ev = { .time_ns = (uint64_t)i * 10,
					       .sector = (uint64_t)i };
			memcpy(pdu, &i, sizeof(i));
			if (i % 3 == 0) {
				ev.pdu = pdu;
				ev.pdu_len = sizeof(pdu);
			}
			rc = import_pipe_event(p, &ev);
			memset(pdu, 0xff, sizeof(pdu));   /* copied, not kept */
		}
		if (rc) {
			pr->rc_seen = rc;
			return rc;
		}
		pr->queued++;
	}
	return 0;
}

struct cons {
	int next;         /* the item expected next */
	int fail_at;      /* item whose delivery fails (-1: none) */
};

static int check(struct cons *c)
{
	if (c->next == c->fail_at)
		return -EIO;
	c->next++;
	return 0;
}

static int on_event(void *ctx, const struct bt_event *ev)
{
	struct cons *c = ctx;
	int i = c->next, v;

	assert_int_not_equal(i % 7, 0);
	assert_true(i % 101 != 0);
	assert_int_equal(ev->time_ns, (uint64_t)i * 10);
	assert_int_equal(ev->sector, (uint64_t)i);
	if (i % 3 == 0) {
		assert_int_equal(ev->pdu_len, sizeof(int));
		memcpy(&v, ev->pdu, sizeof(v));
		assert_int_equal(v, i);
	} else {
		assert_int_equal(ev->pdu_len, 0);
		assert_null(ev->pdu);
	}
	return check(c);
}

static int on_process(void *ctx, uint32_t pid, const char *comm)
{
	struct cons *c = ctx;
	char want[32];

	snprintf(want, sizeof(want), "proc-%d", c->next);
	assert_int_equal(pid, (uint32_t)c->next);
	assert_string_equal(comm, want);
	return check(c);
}

static int on_request(void *ctx, int64_t id, const struct store_request *rq)
{
	struct cons *c = ctx;

	assert_int_equal(c->next % 7, 0);
	assert_int_equal(id, 1000 + c->next);
	assert_int_equal(rq->sector, (uint64_t)c->next);
	assert_string_equal(rq->rwbs, "R");
	return check(c);
}

static void test_all_in_order(void **state)
{
	struct prod pr = { .n = N_ITEMS };
	struct cons c = { .fail_at = -1 };
	struct import_pipe_consumer cons = { on_event, on_process, on_request, &c };
	int wrc = 1;

	(void)state;
	assert_int_equal(import_pipe_run(produce, &pr, &cons, &wrc), 0);
	assert_int_equal(wrc, 0);
	assert_int_equal(c.next, N_ITEMS);
	assert_int_equal(pr.queued, N_ITEMS);
}

static void test_consumer_failure_stops_producer(void **state)
{
	struct prod pr = { .n = N_ITEMS };
	struct cons c = { .fail_at = 2500 };
	struct import_pipe_consumer cons = { on_event, on_process, on_request, &c };
	int wrc = 0;

	(void)state;
	assert_int_equal(import_pipe_run(produce, &pr, &cons, &wrc), -ECANCELED);
	assert_int_equal(wrc, -EIO);
	assert_int_equal(pr.rc_seen, -ECANCELED);
	/* nothing after the failing item was delivered, and the producer
	 * stopped within the ring's bound of it */
	assert_int_equal(c.next, 2500);
	assert_true(pr.queued < 2500 + 5 * 1024);
}

static void test_empty(void **state)
{
	struct prod pr = { .n = 0 };
	struct cons c = { .fail_at = -1 };
	struct import_pipe_consumer cons = { on_event, on_process, on_request, &c };
	int wrc = 1;

	(void)state;
	assert_int_equal(import_pipe_run(produce, &pr, &cons, &wrc), 0);
	assert_int_equal(wrc, 0);
	assert_int_equal(c.next, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_in_order),
		cmocka_unit_test(test_consumer_failure_stops_producer),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
