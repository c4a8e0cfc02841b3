/* A workload's output passed through and kept (wloutput.h): a thread per
 * command polls its two pipes and a stop pipe. */
#include "capture/wloutput.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536

int wl_output_open(struct wl_output *o)
{
	memset(o, 0, sizeof(*o));
	o->rd[0] = o->rd[1] = o->wr[0] = o->wr[1] = o->stop[0] = o->stop[1] = -1;
	o->to[0] = 1;
	o->to[1] = 2;
	for (int i = 0; i < 2; i++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0) {
			int e = errno;
			wl_output_release(o);
			return -e;
		}
		o->rd[i] = p[0];
		o->wr[i] = p[1];
	}
	if (pipe2(o->stop, O_CLOEXEC) < 0) {
		int e = errno;
		wl_output_release(o);
		return -e;
	}
	return 0;
}

void wl_output_child(struct wl_output *o)
{
	/* dup2() leaves the new descriptors open across exec */
	dup2(o->wr[0], 1);
	dup2(o->wr[1], 2);
}

static void keep(struct wl_output *o, int i, const char *b, size_t n)
{
	if (o->len[i] + n > WLO_KEEP_MAX) {
		o->truncated = 1;
		n = WLO_KEEP_MAX - o->len[i];
	}
	if (!n)
		return;
	if (o->len[i] + n + 1 > o->cap[i]) {
		size_t cap = o->cap[i] ? o->cap[i] : 65536;
		char *p;
		while (cap < o->len[i] + n + 1)
			cap *= 2;
		if (!(p = realloc(o->buf[i], cap))) {
			o->truncated = 1;
			return;
		}
		o->buf[i] = p;
		o->cap[i] = cap;
	}
	memcpy(o->buf[i] + o->len[i], b, n);
	o->len[i] += n;
	o->buf[i][o->len[i]] = '\0';
}

/* Writes all of b to fd; gives up quietly when the reader is gone. */
static void pass(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		b += w;
		n -= (size_t)w;
	}
}

static void *copy_thread(void *arg)
{
	struct wl_output *o = arg;
	char *buf = malloc(CHUNK);
	sigset_t pipe_set;

	/* a closed stdout of iotape's makes EPIPE here, not SIGPIPE */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	if (!buf) {
		__atomic_store_n(&o->eof, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	for (;;) {
		struct pollfd p[3] = {
			{ .fd = o->rd[0], .events = POLLIN },
			{ .fd = o->rd[1], .events = POLLIN },
			{ .fd = o->stop[0], .events = POLLIN },
		};
		if (o->rd[0] < 0 && o->rd[1] < 0)
			break;
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[2].revents)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			if (o->rd[i] < 0 || !p[i].revents)
				continue;
			n = read(o->rd[i], buf, CHUNK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(o->rd[i]);
				o->rd[i] = -1;
				continue;
			}
			pass(o->to[i], buf, (size_t)n);
			keep(o, i, buf, (size_t)n);
		}
	}
	free(buf);
	__atomic_store_n(&o->eof, o->rd[0] < 0 && o->rd[1] < 0, __ATOMIC_RELEASE);
	return NULL;
}

int wl_output_parent(struct wl_output *o)
{
	int rc;

	for (int i = 0; i < 2; i++) {
		close(o->wr[i]);
		o->wr[i] = -1;
	}
	if ((rc = pthread_create(&o->thread, NULL, copy_thread, o))) {
		for (int i = 0; i < 2; i++) {
			close(o->rd[i]);
			o->rd[i] = -1;
		}
		return -rc;
	}
	o->running = 1;
	return 0;
}

void wl_output_finish(struct wl_output *o, int wait_ms)
{
	if (!o->running)
		return;
	for (int t = 0; t < wait_ms && !__atomic_load_n(&o->eof, __ATOMIC_ACQUIRE);
	     t += 10) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	if (!__atomic_load_n(&o->eof, __ATOMIC_ACQUIRE) && o->stop[1] >= 0) {
		char c = 0;
		if (write(o->stop[1], &c, 1) < 0)
			(void)0;
	}
	pthread_join(o->thread, NULL);
	o->running = 0;
}

void wl_output_release(struct wl_output *o)
{
	wl_output_finish(o, 0);
	for (int i = 0; i < 2; i++) {
		if (o->rd[i] >= 0)
			close(o->rd[i]);
		if (o->wr[i] >= 0)
			close(o->wr[i]);
		if (o->stop[i] >= 0)
			close(o->stop[i]);
		o->rd[i] = o->wr[i] = o->stop[i] = -1;
		free(o->buf[i]);
		o->buf[i] = NULL;
		o->len[i] = o->cap[i] = 0;
	}
}
