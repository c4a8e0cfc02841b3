/* The host's overhead per request, measured: a tracefs instance of the disk
 * (instances/iotape-disk-NAME: its own ring buffer and event switches, so
 * the top-level blk tracer that captures use is left alone) records the
 * block layer's block_rq_issue (D) and block_rq_complete (C) of the loop
 * device on CLOCK_MONOTONIC (trace_clock "mono"), and a thread pairs each
 * request's D2C with the daemon's answer for the same sectors: what D2C has
 * beyond the time the daemon held the request is the loop worker, the FUSE
 * queue both ways and the completion path. The events' text format is
 * the kernel's (events/block/block_rq_issue/format, "print fmt": "%d,%d %s
 * %u (%s) %llu + %u ..."); trace_pipe prints mono times as seconds with
 * six decimals, so each figure is good to 1-2 us. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/lab.h"
#include "lib/util.h"
#include "model/disk_int.h"

#define SYS_TRACEFS "/sys/kernel/tracing"
#define ISSUED 4096               /* requests issued and not completed */
#define RETRY 512                 /* completions waiting for their answer */
#define US 1000

struct issued {
	uint64_t sector;
	uint32_t sectors;
	int used;
	int64_t t;
};

struct done {
	uint64_t sector;
	uint32_t sectors;
	int64_t d, c;
	uint64_t answers_n;           /* answers when it was seen */
};

struct disk_tracer {
	char inst[512];
	char mnt[512];                /* a tracefs mounted for us, or "" */
	int fd, efd;
	pthread_t th;
	int started;
	uint32_t dev;                 /* major << 20 | minor, as events say */
	struct disk_stats_file *f;
	struct disk_answers *answers;
	struct disk_hist_w w[DH_N];
	struct issued iss[ISSUED];
	struct done retry[RETRY];
	unsigned nretry;
	char buf[65536];
	size_t blen;
};

static void why(struct disk_stats_file *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why(struct disk_stats_file *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->ov_why, sizeof(f->ov_why), fmt, ap);
	va_end(ap);
}

/* Where tracefs is: the usual mount, or a mount of our own at scratch (the
 * daemon runs in a mount namespace of its own: nobody else sees it). */
static int tracefs_root(char *out, size_t len, const char *scratch, int *mounted)
{
	struct stat sb;

	*mounted = 0;
	if (!stat(SYS_TRACEFS "/instances", &sb)) {
		snprintf(out, len, "%s", SYS_TRACEFS);
		return 0;
	}
	if (!scratch)
		return -1;
	if (mkdir(scratch, 0700) < 0 && errno != EEXIST)
		return -1;
	if (mount("none", scratch, "tracefs", 0, NULL) < 0)
		return -1;
	*mounted = 1;
	snprintf(out, len, "%s", scratch);
	return 0;
}

static int inst_write(const struct disk_tracer *t, const char *file,
		      const char *value)
{
	char p[700];

	snprintf(p, sizeof(p), "%s/%s", t->inst, file);
	return sysfs_write(p, value);
}

/* ---- pairing ---- */

static struct issued *iss_slot(struct disk_tracer *t, uint64_t sector,
			       uint32_t sectors, int add)
{
	unsigned h = (unsigned)((sector * 0x9e3779b97f4a7c15ull) >> 52) % ISSUED;

	for (unsigned k = 0; k < ISSUED; k++) {
		struct issued *e = &t->iss[(h + k) % ISSUED];
		if (e->used && e->sector == sector && e->sectors == sectors)
			return e;
		if (!e->used)
			return add ? e : NULL;
	}
	return NULL;
}

/* Removes e keeping the probe chains whole (linear probing's deletion). */
static void iss_del(struct disk_tracer *t, struct issued *e)
{
	unsigned i = (unsigned)(e - t->iss), j = i;

	e->used = 0;
	for (;;) {
		unsigned k;
		j = (j + 1) % ISSUED;
		if (!t->iss[j].used)
			return;
		k = (unsigned)((t->iss[j].sector * 0x9e3779b97f4a7c15ull) >> 52) % ISSUED;
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			t->iss[i] = t->iss[j];
			t->iss[j].used = 0;
			i = j;
		}
	}
}

/* Finds the daemon's answer for d; 1 when found (the overhead added). */
static int match(struct disk_tracer *t, const struct done *d)
{
	struct disk_answers *r = t->answers;
	int found = 0;
	int64_t held = 0;

	pthread_mutex_lock(&r->mu);
	for (uint64_t k = 0; k < r->n && k < DISK_ANSWERS; k++) {
		const struct disk_answer *a = &r->a[(r->n - 1 - k) % DISK_ANSWERS];
		if (a->sector != d->sector || a->sectors != d->sectors)
			continue;
		/* the daemon got it after D and answered before C (times in
		 * the trace are rounded to 1 us) */
		if (a->recv_ns + US < d->d || a->reply_ns > d->c + US)
			continue;
		held = a->reply_ns - a->recv_ns;
		found = 1;
		break;
	}
	pthread_mutex_unlock(&r->mu);
	if (found) {
		int64_t ov = d->c - d->d - held;
		disk_hist_add(&t->w[DH_OVERHEAD], (uint64_t)(ov > 0 ? ov : 0));
		/* the median so far, for a compensating server (every 32) */
		if (!(t->f->ov_matched++ % 32))
			__atomic_store_n(&t->f->comp_ns,
					 (int64_t)hist_pct(&t->w[DH_OVERHEAD].h, 50),
					 __ATOMIC_RELAXED);
	}
	return found;
}

/* "12345.678901" before the ": block_rq_" at e, in ns; -1 if none */
static int64_t line_time(const char *line, const char *e)
{
	const char *s = e;
	unsigned long long sec, usec;

	while (s > line && s[-1] != ' ')
		s--;
	if (sscanf(s, "%llu.%6llu", &sec, &usec) != 2)
		return -1;
	return (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
}

static void line(struct disk_tracer *t, const char *l)
{
	const char *e = strstr(l, ": block_rq_"), *body, *plus, *s;
	unsigned ma, mi;
	unsigned long long sector, n;
	int issue;
	int64_t tm;

	if (!e)
		return;
	body = e + 11;
	if (!strncmp(body, "issue: ", 7)) {
		issue = 1;
		body += 7;
	} else if (!strncmp(body, "complete: ", 10)) {
		issue = 0;
		body += 10;
	} else {
		return;
	}
	if (sscanf(body, "%u,%u", &ma, &mi) != 2 || ((ma << 20) | mi) != t->dev)
		return;
	if (!(plus = strstr(body, " + ")))
		return;
	for (s = plus; s > body && s[-1] != ' '; s--)
		;
	if (sscanf(s, "%llu", &sector) != 1 || sscanf(plus + 3, "%llu", &n) != 1)
		return;
	if ((tm = line_time(l, e)) < 0)
		return;
	if (issue) {
		struct issued *x = iss_slot(t, sector, (uint32_t)n, 1);
		if (x)
			*x = (struct issued){ sector, (uint32_t)n, 1, tm };
	} else {
		struct issued *x = iss_slot(t, sector, (uint32_t)n, 0);
		struct done d;
		if (!x)
			return;
		d = (struct done){ sector, (uint32_t)n, x->t, tm, t->answers->n };
		iss_del(t, x);
		if (!match(t, &d)) {
			if (t->nretry < RETRY)
				t->retry[t->nretry++] = d;
			else
				t->f->ov_unmatched++;
		}
	}
}

/* Completions seen before the daemon had recorded its answer: tried again;
 * given up once the answers ring moved on by half its size. */
static void retry(struct disk_tracer *t)
{
	unsigned k = 0;
	uint64_t now_n = t->answers->n;

	for (unsigned i = 0; i < t->nretry; i++) {
		struct done *d = &t->retry[i];
		if (match(t, d))
			continue;
		if (now_n - d->answers_n > DISK_ANSWERS / 2)
			t->f->ov_unmatched++;
		else
			t->retry[k++] = *d;
	}
	t->nretry = k;
}

static void *tracer_main(void *arg)
{
	struct disk_tracer *t = arg;
	struct pollfd pf[2] = { { t->fd, POLLIN, 0 }, { t->efd, POLLIN, 0 } };

	for (;;) {
		ssize_t n;
		char *p, *nl;
		if (poll(pf, 2, t->nretry ? 10 : -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents & POLLIN)
			break;
		n = read(t->fd, t->buf + t->blen, sizeof(t->buf) - 1 - t->blen);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (n > 0) {
			t->blen += (size_t)n;
			t->buf[t->blen] = '\0';
			for (p = t->buf; (nl = strchr(p, '\n')); p = nl + 1) {
				*nl = '\0';
				line(t, p);
			}
			t->blen -= (size_t)(p - t->buf);
			memmove(t->buf, p, t->blen);
			if (t->blen == sizeof(t->buf) - 1)
				t->blen = 0;      /* a line longer than the buffer */
		}
		retry(t);
	}
	return NULL;
}

/* ---- start, stop ---- */

struct disk_tracer *disk_tracer_start(const char *name, unsigned major,
				      unsigned minor, const char *scratch,
				      struct disk_stats_file *f,
				      struct disk_answers *answers)
{
	struct disk_tracer *t = xcalloc(1, sizeof(*t));
	char root[512], filter[64], p[700];
	int mounted;

	t->fd = t->efd = -1;
	t->f = f;
	t->answers = answers;
	t->dev = (major << 20) | minor;
	disk_stats_bind(f, t->w);
	if (tracefs_root(root, sizeof(root), scratch, &mounted)) {
		why(f, "no tracefs (%s is not mounted, and mounting it "
		    "failed)", SYS_TRACEFS);
		free(t);
		return NULL;
	}
	if (mounted)
		snprintf(t->mnt, sizeof(t->mnt), "%s", root);
	snprintf(t->inst, sizeof(t->inst), "%.400s/instances/iotape-disk-%s", root,
		 name);
	rmdir(t->inst);           /* a killed daemon's, if any */
	if (mkdir(t->inst, 0700) < 0) {
		why(f, "cannot make tracefs instance '%.80s': %s", t->inst,
		    strerror(errno));
		goto fail;
	}
	snprintf(filter, sizeof(filter), "dev == %u", t->dev);
	/* a new instance takes the top level's options: a capture running
	 * there has bin on and context-info off; this one needs text lines
	 * with their times */
	if (inst_write(t, "options/bin", "0") || inst_write(t, "options/raw", "0") ||
	    inst_write(t, "options/hex", "0") ||
	    inst_write(t, "options/context-info", "1") ||
	    inst_write(t, "trace_clock", "mono") ||
	    inst_write(t, "buffer_size_kb", "1024") ||
	    inst_write(t, "events/block/block_rq_issue/filter", filter) ||
	    inst_write(t, "events/block/block_rq_complete/filter", filter) ||
	    inst_write(t, "events/block/block_rq_issue/enable", "1") ||
	    inst_write(t, "events/block/block_rq_complete/enable", "1")) {
		why(f, "cannot set up tracefs instance '%.80s' (block events, "
		    "mono clock)", t->inst);
		goto fail;
	}
	snprintf(p, sizeof(p), "%s/trace_pipe", t->inst);
	if ((t->fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	    (t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		why(f, "cannot read '%.100s': %s", p, strerror(errno));
		goto fail;
	}
	if (pthread_create(&t->th, NULL, tracer_main, t)) {
		why(f, "cannot start the tracer thread");
		goto fail;
	}
	t->started = 1;
	return t;
fail:
	disk_tracer_stop(t);
	return NULL;
}

void disk_tracer_stop(struct disk_tracer *t)
{
	if (!t)
		return;
	if (t->started) {
		uint64_t one = 1;
		if (write(t->efd, &one, sizeof(one)) == sizeof(one))
			pthread_join(t->th, NULL);
	}
	if (t->fd >= 0)
		close(t->fd);
	if (t->efd >= 0)
		close(t->efd);
	if (t->inst[0]) {
		inst_write(t, "events/block/block_rq_issue/enable", "0");
		inst_write(t, "events/block/block_rq_complete/enable", "0");
		rmdir(t->inst);
	}
	if (t->mnt[0])
		umount2(t->mnt, MNT_DETACH);
	free(t);
}

void disk_tracer_remove(const char *name, const char *scratch)
{
	char root[512], inst[700];
	int mounted;
	pid_t pid;

	snprintf(inst, sizeof(inst), "%s/instances/iotape-disk-%s", SYS_TRACEFS, name);
	if (!access(SYS_TRACEFS "/instances", F_OK)) {
		rmdir(inst);
		return;
	}
	/* tracefs is not mounted here: look in a mount namespace of our
	 * own, so the machine's mounts stay as they are */
	if ((pid = fork()) < 0)
		return;
	if (!pid) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    tracefs_root(root, sizeof(root), scratch, &mounted))
			_exit(1);
		snprintf(inst, sizeof(inst), "%.400s/instances/iotape-disk-%s", root,
			 name);
		rmdir(inst);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}
