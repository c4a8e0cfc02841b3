/* The real-time server of `iotape disk`: a FUSE file system of one file,
 * "disk", whose reads, writes, fsyncs and hole punches are handed to the
 * disk model (model.c) as commands arriving when the daemon received them,
 * and answered when the model says the disk finished them (or at once with
 * zero_time). Data lives in the backing file, read and written on arrival.
 * One thread: poll(2) on the FUSE device and a timerfd armed for the
 * model's next completion; FUSE's low-level API lets a request be answered
 * after its handler returned (fuse_lowlevel.h, "reply" functions). */
#include "model/fuse_dl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "lib/util.h"
#include "model/disk_int.h"

#define FILE_INO 2
#define FILE_NAME "disk"
#define SLOTS 1024               /* requests held at once, at most; FUSE
				  * sends at most max_background (128)
				  * asynchronous ones */
#define MAX_IO (1u << 20)        /* max_write: a loop request of up to
				  * 1 MiB is one FUSE request */
#define ATTR_TIMEOUT 86400.0
#define SPIN_BUDGET_NS 250000000 /* of spinning in each second, at most */

/* A request between its arrival and its answer. */
struct pend {
	fuse_req_t req;
	uint8_t op;                  /* enum model_op */
	uint32_t sectors;
	uint64_t sector;
	char *buf;                   /* a read's data */
	size_t len;                  /* bytes read or written */
	int err;                     /* errno to answer with, 0: none */
	int64_t recv_ns;
	int next_free;
};

struct disk_srv {
	struct disk_srv_conf c;
	struct fuse_session *se;
	struct disk_model *m;
	int fd, tfd, efd;
	struct pend p[SLOTS];
	int free_head;
	unsigned inflight;
	int64_t last_stamp;          /* arrivals are stamped strictly later */
	int64_t last_arrive;         /* the model's arrivals, non-decreasing */
	int64_t armed;               /* the timerfd's expiry, 0: disarmed */
	struct disk_hist_w w[DH_N];
	struct fuse_buf fbuf;
	int stopping;
	int mounted;
};

/* ---- requests ---- */

static int64_t stamp(struct disk_srv *s)
{
	int64_t t = now_mono_ns();

	if (t <= s->last_stamp)
		t = s->last_stamp + 1;
	s->last_stamp = t;
	return t;
}

static struct pend *pend_get(struct disk_srv *s)
{
	struct pend *p;

	if (s->free_head < 0)
		return NULL;
	p = &s->p[s->free_head];
	s->free_head = p->next_free;
	if (++s->inflight > s->c.stats->held_max)
		s->c.stats->held_max = s->inflight;
	return p;
}

static void pend_put(struct disk_srv *s, struct pend *p)
{
	free(p->buf);
	p->buf = NULL;
	p->next_free = s->free_head;
	s->free_head = (int)(p - s->p);
	s->inflight--;
}

/* Answers p now; done_ns: when the model finished it, response_ns and
 * service_ns its modelled times (-1: none). */
static void answer(struct disk_srv *s, struct pend *p, int64_t done_ns,
		   int64_t response_ns, int64_t service_ns)
{
	struct disk_stats_file *f = s->c.stats;
	int64_t t = now_mono_ns();
	struct disk_answer a = { p->sector, p->sectors, p->op, p->recv_ns, t };

	if (p->err)
		fuse_reply_err(p->req, p->err);
	else if (p->op == MOP_READ)
		fuse_reply_buf(p->req, p->buf, p->len);
	else if (p->op == MOP_WRITE)
		fuse_reply_write(p->req, p->len);
	else
		fuse_reply_err(p->req, 0);
	f->ops[p->op]++;
	f->bytes[p->op] += p->len;
	if (p->err)
		f->errors++;
	disk_hist_add(&s->w[DH_LATE], (uint64_t)(t > done_ns ? t - done_ns : 0));
	if (t - done_ns > DISK_LATE_NS)
		f->late++;
	disk_hist_add(&s->w[DH_ANSWER], (uint64_t)(t - p->recv_ns));
	if (response_ns >= 0)
		disk_hist_add(&s->w[DH_RESPONSE], (uint64_t)response_ns);
	if (service_ns >= 0)
		disk_hist_add(&s->w[DH_SERVICE], (uint64_t)service_ns);
	disk_answers_add(s->c.answers, &a);
	pend_put(s, p);
}

/* Hands p, received at t, to the model (or answers it at once). With
 * compensation its arrival at the disk is put when the block layer
 * dispatched it, by the host's overhead measured so far (the daemon gets
 * a request that long after D, less the way back): the model may then
 * have started a command at a time it did not know this one by, by at
 * most that much. */
static void submit(struct disk_srv *s, struct pend *p, int64_t t)
{
	struct model_req r = {
		.lba = p->sector, .sectors = p->sectors, .op = p->op,
		.tag = (uint32_t)(p - s->p), .arrive_ns = t,
	};

	p->recv_ns = t;
	if (s->c.zero_time) {
		answer(s, p, t, 0, 0);
		return;
	}
	if (s->c.compensate)
		r.arrive_ns = t - __atomic_load_n(&s->c.stats->comp_ns, __ATOMIC_RELAXED);
	if (r.arrive_ns <= s->last_arrive)
		r.arrive_ns = s->last_arrive + 1;
	s->last_arrive = r.arrive_ns;
	model_run(s->m, r.arrive_ns, 0);
	if (model_submit(s->m, &r)) {
		p->err = EIO;         /* cannot happen: SLOTS bounds both */
		answer(s, p, t, -1, -1);
	}
}

/* A new request of op at [off, off + len), or NULL (answered EIO). */
static struct pend *arrive(struct disk_srv *s, fuse_req_t req, uint8_t op,
			   uint64_t off, size_t len)
{
	struct pend *p = pend_get(s);

	if (!p) {
		s->c.stats->errors++;
		fuse_reply_err(req, EIO);
		return NULL;
	}
	p->req = req;
	p->op = op;
	p->sector = off / 512;
	p->sectors = (uint32_t)((len + 511) / 512);
	p->len = len;
	p->err = 0;
	p->buf = NULL;
	return p;
}

/* ---- the file system ---- */

static void file_stat(const struct disk_srv *s, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == FILE_INO) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = (off_t)s->c.size_bytes;
		st->st_blksize = 4096;
		st->st_blocks = (blkcnt_t)(s->c.size_bytes / 512);
	} else {
		st->st_mode = S_IFDIR | 0700;
		st->st_nlink = 2;
	}
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	conn->max_write = MAX_IO;
	conn->max_background = 128;
	conn->congestion_threshold = 96;
	conn->want &= ~(unsigned)(FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE |
				  FUSE_CAP_SPLICE_MOVE | FUSE_CAP_WRITEBACK_CACHE);
	if (conn->capable & FUSE_CAP_ASYNC_DIO)
		conn->want |= FUSE_CAP_ASYNC_DIO;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct disk_srv *s = fuse_req_userdata(req);
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, FILE_NAME)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = FILE_INO;
	e.generation = 1;
	e.attr_timeout = ATTR_TIMEOUT;
	e.entry_timeout = ATTR_TIMEOUT;
	file_stat(s, FILE_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct disk_srv *s = fuse_req_userdata(req);
	struct stat st;

	file_stat(s, ino, &st);
	fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct disk_srv *s = fuse_req_userdata(req);
	struct stat st;

	if ((to_set & FUSE_SET_ATTR_SIZE) && (uint64_t)attr->st_size != s->c.size_bytes) {
		fuse_reply_err(req, EPERM);    /* a disk keeps its size */
		return;
	}
	file_stat(s, ino, &st);
	fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != FILE_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	fi->keep_cache = 0;
	fi->direct_io = 1;     /* no page cache: every read reaches the model */
	fuse_reply_open(req, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct disk_srv *s = fuse_req_userdata(req);
	int64_t t = stamp(s);
	struct pend *p;
	size_t got = 0;

	if (off < 0 || (uint64_t)off >= s->c.size_bytes) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if ((uint64_t)off + size > s->c.size_bytes)
		size = (size_t)(s->c.size_bytes - (uint64_t)off);
	if (!(p = arrive(s, req, MOP_READ, (uint64_t)off, size)))
		return;
	p->buf = xmalloc(size ? size : 1);
	while (got < size) {
		ssize_t n = pread(s->c.backing_fd, p->buf + got, size - got,
				  off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			p->err = errno;
			break;
		}
		if (!n) {      /* past the file's end: the disk reads zeros */
			memset(p->buf + got, 0, size - got);
			break;
		}
		got += (size_t)n;
	}
	submit(s, p, t);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		     off_t off, struct fuse_file_info *fi)
{
	struct disk_srv *s = fuse_req_userdata(req);
	int64_t t = stamp(s);
	struct pend *p;
	size_t put = 0;

	if (off < 0 || (uint64_t)off + size > s->c.size_bytes) {
		fuse_reply_err(req, ENOSPC);
		return;
	}
	if (!(p = arrive(s, req, MOP_WRITE, (uint64_t)off, size)))
		return;
	while (put < size) {
		ssize_t n = pwrite(s->c.backing_fd, buf + put, size - put,
				   off + (off_t)put);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			p->err = n < 0 ? errno : EIO;
			break;
		}
		put += (size_t)n;
	}
	submit(s, p, t);
}

/* fsync(2) of the file: the loop device's flush (REQ_OP_FLUSH, and the
 * flush that stands for FUA: a loop device offers no FUA) */
static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi)
{
	struct disk_srv *s = fuse_req_userdata(req);
	int64_t t = stamp(s);
	struct pend *p = arrive(s, req, MOP_FLUSH, 0, 0);

	if (p)
		submit(s, p, t);
}

/* close(2): nothing for a disk */
static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

/* A hole punched (a discard on the loop device): a discard command, the
 * hole punched in the backing file too; no other fallocate */
static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			 off_t len, struct fuse_file_info *fi)
{
	struct disk_srv *s = fuse_req_userdata(req);
	int64_t t = stamp(s);
	struct pend *p;

	if (!(mode & FALLOC_FL_PUNCH_HOLE)) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	if (!(p = arrive(s, req, MOP_DISCARD, (uint64_t)off, 0)))
		return;
	p->sectors = (uint32_t)((uint64_t)len / 512);
	if (fallocate(s->c.backing_fd, mode, off, len) < 0)
		p->err = errno;
	submit(s, p, t);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct disk_srv *s = fuse_req_userdata(req);
	struct statvfs sv;

	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = sv.f_frsize = 512;
	sv.f_blocks = s->c.size_bytes / 512;
	sv.f_files = 1;
	sv.f_namemax = 255;
	fuse_reply_statfs(req, &sv);
}

static const struct fuse_lowlevel_ops ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.release = op_release,
	.fsync = op_fsync,
	.fallocate = op_fallocate,
	.statfs = op_statfs,
};

/* libfuse's messages go to the daemon's log (its stderr) */
static void fuse_log_to_stderr(enum fuse_log_level level, const char *fmt,
			       va_list ap)
{
	if (level <= FUSE_LOG_ERR)
		vfprintf(stderr, fmt, ap);
}

/* ---- the server ---- */

struct disk_srv *disk_srv_new(const struct disk_srv_conf *c, char *err,
			      size_t errlen)
{
	struct disk_srv *s;
	char fsname[96];
	char *argv[] = { "iotape-disk", "-o", fsname, NULL };
	struct fuse_args args = { 3, argv, 0 };

	if (fuse_load(err, errlen))
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->c = *c;
	s->fd = s->tfd = s->efd = -1;
	for (int i = 0; i < SLOTS; i++)
		s->p[i].next_free = i + 1 < SLOTS ? i + 1 : -1;
	s->free_head = 0;
	disk_stats_bind(c->stats, s->w);
	if (!c->zero_time) {
		if (!(s->m = model_new(c->prof, now_mono_ns(), SLOTS, err, errlen)))
			goto fail;
	}
	fuse_set_log_func(fuse_log_to_stderr);
	snprintf(fsname, sizeof(fsname), "fsname=iotape-disk-%s,subtype=iotape",
		 c->name);
	s->se = fuse_session_new(&args, &ops, sizeof(ops), s);
	fuse_opt_free_args(&args);     /* the parser may have copied them */
	if (!s->se) {
		snprintf(err, errlen, "cannot start a FUSE session (libfuse3)");
		goto fail;
	}
	if (fuse_session_mount(s->se, c->mnt)) {
		snprintf(err, errlen, "cannot mount FUSE at '%s' (is /dev/fuse "
			 "there? modprobe fuse)", c->mnt);
		goto fail;
	}
	s->mounted = 1;
	s->fd = fuse_session_fd(s->se);
	if ((s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0 ||
	    (s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, errlen, "timerfd, eventfd: %s", strerror(errno));
		goto fail;
	}
	return s;
fail:
	disk_srv_free(s);
	return NULL;
}

/* Arms the timer for t (0: disarms) unless it is armed so already. */
static void arm(struct disk_srv *s, int64_t t)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (t == s->armed)
		return;
	if (t) {
		its.it_value.tv_sec = t / 1000000000;
		its.it_value.tv_nsec = t % 1000000000;
	}
	timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL);
	s->armed = t;
}

/* Answers every command the model has finished by now; returns when the
 * model next does something (INT64_MAX: nothing waits). */
static int64_t complete_due(struct disk_srv *s, int64_t now)
{
	struct model_done d;

	if (s->c.zero_time)
		return INT64_MAX;
	/* arrivals after this are stamped after now: the model may start
	 * a command at now */
	if (s->last_stamp < now)
		s->last_stamp = now;
	model_run(s->m, now, 1);
	while (model_pop(s->m, &d))
		answer(s, &s->p[d.tag], d.done_ns, d.done_ns - d.arrive_ns,
		       d.service_ns);
	return model_busy_until(s->m);
}

int disk_srv_run(struct disk_srv *s)
{
	struct pollfd pf[3] = {
		{ s->fd, POLLIN, 0 }, { s->tfd, POLLIN, 0 }, { s->efd, POLLIN, 0 },
	};
	int64_t spin = (int64_t)s->c.spin_us * 1000, spun = 0, window = 0;
	struct sched_param prio = { .sched_priority = 1 };

	/* SCHED_FIFO where allowed, as a timed replay runs: on a busy machine a
	 * normal thread wakes milliseconds after its timer */
	s->c.stats->realtime = pthread_setschedparam(pthread_self(), SCHED_FIFO,
						     &prio) == 0;
	s->c.stats->compensate = s->c.compensate;
	for (;;) {
		int64_t now = now_mono_ns(), next = complete_due(s, now);
		int timeout = -1;

		if (s->stopping && !s->inflight)
			return 0;
		/* spinning takes at most a quarter of each second of this CPU
		 * (a SCHED_FIFO thread that never sleeps starves the rest) */
		if (now - window > 1000000000) {
			window = now;
			spun = 0;
		}
		if (next == INT64_MAX) {
			arm(s, 0);
		} else if (next - now <= spin && spun < SPIN_BUDGET_NS) {
			timeout = 0;
			arm(s, 0);
		} else {
			arm(s, next - (spun < SPIN_BUDGET_NS ? spin : 0));
		}
		if (poll(pf, 3, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!timeout)
			spun += now_mono_ns() - now;
		if (pf[2].revents & POLLIN) {
			uint64_t v;
			if (read(s->efd, &v, sizeof(v)) == sizeof(v))
				s->stopping = 1;
		}
		if (pf[1].revents & POLLIN) {
			uint64_t v;
			if (read(s->tfd, &v, sizeof(v)) == sizeof(v))
				s->armed = 0;
		}
		if (pf[0].revents & POLLIN) {
			int n = fuse_session_receive_buf(s->se, &s->fbuf);
			if (n == -EINTR || n == -EAGAIN)
				continue;
			if (n <= 0 || fuse_session_exited(s->se))
				return n < 0 ? n : 0;
			fuse_session_process_buf(s->se, &s->fbuf);
		} else if (pf[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			return -ENODEV;   /* the connection was aborted */
		}
	}
}

void disk_srv_stop(struct disk_srv *s)
{
	uint64_t one = 1;

	if (write(s->efd, &one, sizeof(one)) < 0)
		abort();          /* an eventfd takes a write of 1 */
}

void disk_srv_free(struct disk_srv *s)
{
	if (!s)
		return;
	for (int i = 0; i < SLOTS; i++)
		free(s->p[i].buf);
	if (s->se) {
		if (s->mounted)
			fuse_session_unmount(s->se);
		fuse_session_destroy(s->se);
	}
	if (s->tfd >= 0)
		close(s->tfd);
	if (s->efd >= 0)
		close(s->efd);
	free(s->fbuf.mem);
	model_free(s->m);
	free(s);
}
