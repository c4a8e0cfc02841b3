/* A capture's per-task accounting (see taskacct.h): the taskstats sockets,
 * the walk of the workloads' live tasks, the families closed over parent
 * links at the end, and their rows. */
#include "capture/taskacct.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "lib/util.h"

#define RECV_BYTES 65536
#define WALK_MAX 4096          /* live tasks asked for at one sample */
#define KTHREADD 2             /* the kernel threads' parent */
#define KTHREAD_CPU_NS 1000000 /* a kernel thread that ran less is left out */
#define DELAY_SLACK_NS 10000000 /* a delay may pass a task's life by this
				 * (local_clock against ktime) */

/* ---- observations ---- */

static void add_obs(struct taskacct *ta, const struct task_acct *a, int64_t t,
		    int exited)
{
	if (ta->nobs == ta->capobs) {
		ta->capobs = ta->capobs ? 2 * ta->capobs : 1024;
		ta->obs = xrealloc(ta->obs, ta->capobs * sizeof(*ta->obs));
	}
	ta->obs[ta->nobs++] = (struct ta_obs){ .a = *a, .t_ns = t, .exited = exited };
}

struct obs_ctx {
	struct taskacct *ta;
	int64_t t;
	int exited;
	int got;
};

/* A taskstats_fn: keeps a task's own account (not a process's sum). */
static int on_stats(void *vctx, const struct task_acct *t, int aggr_tgid)
{
	struct obs_ctx *c = vctx;

	if (aggr_tgid)
		return 0;
	add_obs(c->ta, t, c->t, c->exited);
	c->got++;
	return 0;
}

/* ---- sockets ---- */

static int nl_socket(int rcvbuf)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	/* exits of every task on the machine come here: room for bursts */
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				 sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return fd;
}

static int nl_send(int fd, const uint8_t *msg, size_t len)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (!len) {
		errno = EMSGSIZE;
		return -1;
	}
	return sendto(fd, msg, len, 0, (struct sockaddr *)&to, sizeof(to)) ==
	       (ssize_t)len ? 0 : -1;
}

/* Sends msg on fd and reads until its acknowledgement or error (waiting
 * at most a second for each message), handing accounts to on_stats with c.
 * Returns 0, or -errno (the kernel's error, or the socket's). */
static int exchange(struct taskacct *ta, int fd, const uint8_t *msg, size_t len,
		    struct obs_ctx *c, struct taskstats_reply *out)
{
	struct taskstats_reply rep;

	if (nl_send(fd, msg, len) < 0)
		return -errno;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int rc;

		if (poll(&p, 1, 1000) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, ta->buf, RECV_BYTES, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ENOBUFS) {
				ta->lost++;
				continue;
			}
			return -errno;
		}
		rc = taskstats_parse(ta->buf, (size_t)n, ta->family, on_stats, c,
				     &rep, NULL);
		if (rc)
			return -EBADMSG;
		if (rep.family && out)
			out->family = rep.family;
		if (rep.error)
			return rep.error;
		if (rep.acked)
			return 0;
	}
}

/* Resolves the family and registers ev_fd for exits. Returns 0, or -1 with
 * ta->why set. */
static int open_netlink(struct taskacct *ta, const char *sys, int64_t now)
{
	uint8_t msg[256];
	struct taskstats_reply rep = { 0 };
	struct obs_ctx c = { ta, now, 1, 0 };
	char path[512];
	int rc;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible", sys);
	if (sysfs_read(path, ta->cpumask, sizeof(ta->cpumask)) || !ta->cpumask[0])
		snprintf(ta->cpumask, sizeof(ta->cpumask), "0-%ld",
			 sysconf(_SC_NPROCESSORS_CONF) - 1);
	if ((ta->q_fd = nl_socket(0)) < 0 || (ta->ev_fd = nl_socket(8 << 20)) < 0) {
		snprintf(ta->why, sizeof(ta->why), "no generic netlink socket: %s",
			 strerror(errno));
		return -1;
	}
	rc = exchange(ta, ta->q_fd, msg, taskstats_req_family(msg, sizeof(msg),
							      ++ta->seq), &c, &rep);
	if (rc || !rep.family) {
		snprintf(ta->why, sizeof(ta->why), "no taskstats netlink family "
			 "(CONFIG_TASKSTATS): %s", strerror(rc ? -rc : ENOENT));
		return -1;
	}
	ta->family = rep.family;
	rc = exchange(ta, ta->ev_fd, msg,
		      taskstats_req_register(msg, sizeof(msg), ta->family, ++ta->seq,
					     ta->cpumask, 0), &c, NULL);
	if (rc) {
		snprintf(ta->why, sizeof(ta->why), "cannot register for task "
			 "exits on CPUs %s: %s", ta->cpumask, strerror(-rc));
		return -1;
	}
	return 0;
}

/* ---- /proc ---- */

/* Reads a small /proc file whole into buf (len bytes). Returns 0 or -1. */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int taskacct_parse_proc(const char *stat, const char *schedstat, const char *io,
			long clk_tck, int64_t boot_ns, struct task_acct *t)
{
	const char *lp = strchr(stat, '('), *rp = strrchr(stat, ')');
	unsigned long long f[64] = { 0 }, run = 0, delay = 0, slices = 0;
	char *end;
	int nf = 0;

	memset(t, 0, sizeof(*t));
	if (!lp || !rp || rp < lp || clk_tck <= 0 ||
	    sscanf(schedstat, "%llu %llu %llu", &run, &delay, &slices) != 3)
		return -1;
	t->pid = (uint32_t)strtoul(stat, NULL, 10);
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(rp - lp - 1), lp + 1);
	/* fields from 3 (state) on: f[3] is the state's slot, numbers after */
	for (const char *p = rp + 1; *p && nf < 60;) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		if (nf == 0) {               /* the state letter */
			p++;
			nf = 1;
			continue;
		}
		f[3 + nf] = strtoull(p, &end, 10);
		if (end == p)
			break;
		p = end;
		nf++;
	}
	/* proc(5): 4 ppid, 12 majflt, 22 starttime, 42 delayacct_blkio_ticks */
	if (nf < 20)
		return -1;
	t->ppid = (uint32_t)f[4];
	t->tgid = t->pid;
	t->majflt = f[12];
	{
		int64_t start = (int64_t)(f[22] * 1000000000ull / (unsigned long long)clk_tck);
		t->etime_us = boot_ns > start ? (uint64_t)(boot_ns - start) / 1000 : 0;
	}
	if (nf >= 40)
		t->blkio_delay_ns = f[42] * (1000000000ull / (unsigned long long)clk_tck);
	t->cpu_ns = run;
	t->cpu_delay_ns = delay;
	t->cpu_count = slices;
	t->have = TA_HAVE_DELAY | TA_HAVE_BASIC;
	if (io) {
		const char *r = strstr(io, "\nread_bytes:"), *w = strstr(io, "\nwrite_bytes:");
		if (r && w) {
			t->read_bytes = strtoull(r + 12, NULL, 10);
			t->write_bytes = strtoull(w + 13, NULL, 10);
			t->have |= TA_HAVE_IO;
		}
	}
	return 0;
}

/* One live task's account: asked of taskstats, else read from /proc.
 * Returns 1 when one was taken. */
static int take_live(struct taskacct *ta, pid_t tgid, pid_t tid, int64_t now)
{
	struct obs_ctx c = { ta, now, 0, 0 };

	if (ta->mode == TASKACCT_NETLINK) {
		uint8_t msg[64];
		exchange(ta, ta->q_fd, msg, taskstats_req_pid(msg, sizeof(msg),
				ta->family, ++ta->seq, (uint32_t)tid), &c, NULL);
		if (c.got)
			return 1;
	}
	if (ta->mode == TASKACCT_PROC) {
		char p[256], st[2048], ss[256], io[1024];
		struct task_acct a;
		struct timespec ts;
		int has_io;

		snprintf(p, sizeof(p), "%s/%d/task/%d/stat", ta->proc, tgid, tid);
		if (read_small(p, st, sizeof(st)))
			return 0;
		snprintf(p, sizeof(p), "%s/%d/task/%d/schedstat", ta->proc, tgid, tid);
		if (read_small(p, ss, sizeof(ss)))
			return 0;
		snprintf(p, sizeof(p), "%s/%d/task/%d/io", ta->proc, tgid, tid);
		has_io = !read_small(p, io + 1, sizeof(io) - 1);
		io[0] = '\n';
		clock_gettime(CLOCK_BOOTTIME, &ts);
		if (taskacct_parse_proc(st, ss, has_io ? io : NULL, ta->clk_tck,
					(int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, &a))
			return 0;
		a.tgid = (uint32_t)tgid;
		add_obs(ta, &a, now, 0);
		return 1;
	}
	return 0;
}

/* The children of thread tid of process pid, appended to q (at most cap). */
static void children(const char *proc, pid_t pid, pid_t tid, pid_t *q, size_t *n,
		     size_t cap)
{
	char p[256], buf[8192], *s, *end;

	snprintf(p, sizeof(p), "%s/%d/task/%d/children", proc, pid, tid);
	if (read_small(p, buf, sizeof(buf)))
		return;
	for (s = buf; *n < cap; s = end) {
		long v = strtol(s, &end, 10);
		if (end == s)
			break;
		q[(*n)++] = (pid_t)v;
	}
}

/* Takes the account of each thread of each process in q[0..n) and of
 * every descendant (breadth first, at most WALK_MAX). */
static void walk(struct taskacct *ta, pid_t *q, size_t n, int64_t now)
{
	for (size_t i = 0; i < n; i++) {
		char p[256];
		DIR *d;
		struct dirent *de;

		snprintf(p, sizeof(p), "%s/%d/task", ta->proc, q[i]);
		if (!(d = opendir(p)))
			continue;
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);
			if (tid <= 0)
				continue;
			take_live(ta, q[i], tid, now);
			children(ta->proc, q[i], tid, q, &n, WALK_MAX);
		}
		closedir(d);
	}
}

/* The kernel threads' accounts (kthreadd's children). */
static void take_kthreads(struct taskacct *ta, int64_t now)
{
	pid_t *q = xmalloc(WALK_MAX * sizeof(*q));
	size_t n = 0;

	children(ta->proc, KTHREADD, KTHREADD, q, &n, WALK_MAX);
	for (size_t i = 0; i < n; i++)
		take_live(ta, q[i], q[i], now);
	free(q);
}

/* ---- the run ---- */

int taskacct_start(struct taskacct *ta, struct lab *lab, const char *proc,
		   const char *sys, int64_t now_ns, char *err, size_t errlen)
{
	char path[512], e2[600];

	memset(ta, 0, sizeof(*ta));
	ta->proc = proc;
	ta->ev_fd = ta->q_fd = -1;
	ta->self = getpid();
	ta->clk_tck = sysconf(_SC_CLK_TCK);
	ta->buf = xmalloc(RECV_BYTES);
	snprintf(path, sizeof(path), "%s/sys/kernel/task_delayacct", proc);
	if (access(path, F_OK) < 0) {
		snprintf(ta->why_acct, sizeof(ta->why_acct), "no %.150s "
			 "(CONFIG_TASK_DELAY_ACCT)", path);
	} else if (lab_set(lab, path, "1", e2, sizeof(e2))) {
		if (strstr(e2, "cannot record")) {
			snprintf(err, errlen, "%s", e2);
			return -1;
		}
		snprintf(ta->why_acct, sizeof(ta->why_acct), "%.180s", e2);
	} else {
		ta->delayacct = 1;
	}
	ta->mode = TASKACCT_NETLINK;
	if (open_netlink(ta, sys, now_ns)) {
		char why[200];
		snprintf(why, sizeof(why), "%.180s", ta->why);
		if (ta->ev_fd >= 0)
			close(ta->ev_fd);
		if (ta->q_fd >= 0)
			close(ta->q_fd);
		ta->ev_fd = ta->q_fd = -1;
		ta->mode = TASKACCT_PROC;
		snprintf(ta->why, sizeof(ta->why), "%s (live tasks from /proc at "
			 "each sample; tasks that end between samples are missed)",
			 why);
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
		ta->subreaper = 1;
	take_kthreads(ta, now_ns);
	return 0;
}

void taskacct_skip(struct taskacct *ta, pid_t pid)
{
	ta->skip = pid;
}

void taskacct_add_root(struct taskacct *ta, pid_t pid, int cmd)
{
	if (ta->nroots < TASKACCT_MAX_ROOTS && pid > 0) {
		ta->root_cmd[ta->nroots] = cmd;
		ta->roots[ta->nroots++] = pid;
	}
}

int taskacct_fd(const struct taskacct *ta)
{
	return ta->ev_fd;
}

void taskacct_read(struct taskacct *ta)
{
	if (ta->ev_fd < 0)
		return;
	for (;;) {
		struct taskstats_reply rep;
		struct obs_ctx c = { ta, now_mono_ns(), 1, 0 };
		ssize_t n = recv(ta->ev_fd, ta->buf, RECV_BYTES, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				ta->lost++;
				continue;
			}
			return;
		}
		if (n == 0)
			return;
		taskstats_parse(ta->buf, (size_t)n, ta->family, on_stats, &c, &rep,
				NULL);
	}
}

void taskacct_sample(struct taskacct *ta, int64_t now_ns)
{
	pid_t *q;
	size_t n = 0;

	if (ta->mode == TASKACCT_NONE || !ta->nroots)
		return;
	q = xmalloc(WALK_MAX * sizeof(*q));
	for (int i = 0; i < ta->nroots; i++)
		q[n++] = ta->roots[i];
	walk(ta, q, n, now_ns);
	free(q);
}

void taskacct_finish(struct taskacct *ta, int64_t now_ns)
{
	taskacct_read(ta);
	taskacct_sample(ta, now_ns);
	take_kthreads(ta, now_ns);
	taskacct_read(ta);
	if (ta->ev_fd >= 0 && ta->family) {
		uint8_t msg[256];
		nl_send(ta->ev_fd, msg, taskstats_req_register(msg, sizeof(msg),
			ta->family, ++ta->seq, ta->cpumask, 1));
	}
	if (ta->ev_fd >= 0)
		close(ta->ev_fd);
	if (ta->q_fd >= 0)
		close(ta->q_fd);
	ta->ev_fd = ta->q_fd = -1;
	if (ta->subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	ta->subreaper = 0;
}

void taskacct_describe(const struct taskacct *ta, char *out, size_t len)
{
	const char *m = ta->mode == TASKACCT_NETLINK ? "taskstats"
			: ta->mode == TASKACCT_PROC ? "proc" : "none";

	snprintf(out, len, "%s%s%s%s%s", m,
		 ta->mode != TASKACCT_NETLINK && ta->why[0] ? ": " : "",
		 ta->mode != TASKACCT_NETLINK ? ta->why : "",
		 ta->delayacct ? "" : "; task_delayacct off: ",
		 ta->delayacct ? "" : ta->why_acct);
}

void taskacct_free(struct taskacct *ta)
{
	if (ta->ev_fd >= 0)
		close(ta->ev_fd);
	if (ta->q_fd >= 0)
		close(ta->q_fd);
	if (ta->subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	free(ta->obs);
	free(ta->buf);
	memset(ta, 0, sizeof(*ta));
	ta->ev_fd = ta->q_fd = -1;
}

/* ---- the families and their rows ---- */

/* A set of pids: open addressing, 0 empty. */
struct pidset {
	uint32_t *v;
	size_t cap, n;
};

static size_t ps_slot(const struct pidset *s, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (s->cap - 1);
	while (s->v[i] && s->v[i] != pid)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int ps_has(const struct pidset *s, uint32_t pid)
{
	return pid && s->v[ps_slot(s, pid)] == pid;
}

/* Adds pid; returns 1 when it was new. */
static int ps_add(struct pidset *s, uint32_t pid)
{
	size_t i;

	if (!pid || ps_has(s, pid))
		return 0;
	if (2 * (s->n + 1) > s->cap) {
		struct pidset t = { xcalloc(s->cap ? 2 * s->cap : 256, sizeof(uint32_t)),
				    s->cap ? 2 * s->cap : 256, 0 };
		for (size_t k = 0; k < s->cap; k++)
			if (s->v[k])
				t.v[ps_slot(&t, s->v[k])] = s->v[k], t.n++;
		free(s->v);
		*s = t;
	}
	i = ps_slot(s, pid);
	s->v[i] = pid;
	s->n++;
	return 1;
}

/* Orders observations by pid, then time. */
static int by_pid_time(const void *a, const void *b)
{
	const struct ta_obs *x = *(const struct ta_obs *const *)a;
	const struct ta_obs *y = *(const struct ta_obs *const *)b;

	if (x->a.pid != y->a.pid)
		return x->a.pid < y->a.pid ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->exited - y->exited;
}

/* The workloads' families: the roots, and every task whose parent or
 * process is in a family (or whose parent is the capture itself, which
 * adopts orphans), to a fixed point; into fam. Kernel threads (kthreadd
 * and its children) into kt. */
static void families(const struct taskacct *ta, struct pidset *fam,
		     struct pidset *kt)
{
	int grew = 1;

	for (int i = 0; i < ta->nroots; i++)
		ps_add(fam, (uint32_t)ta->roots[i]);
	while (grew) {
		grew = 0;
		for (size_t i = 0; i < ta->nobs; i++) {
			const struct task_acct *a = &ta->obs[i].a;
			if (ps_has(fam, a->pid) || (ta->skip && a->pid == (uint32_t)ta->skip))
				continue;
			if (ps_has(fam, a->ppid) || (a->tgid != a->pid &&
			    ps_has(fam, a->tgid)) || a->ppid == (uint32_t)ta->self)
				grew |= ps_add(fam, a->pid);
		}
	}
	for (size_t i = 0; i < ta->nobs; i++) {
		const struct task_acct *a = &ta->obs[i].a;
		if (a->pid == KTHREADD || (a->ppid == KTHREADD && !ps_has(fam, a->pid)))
			ps_add(kt, a->pid);
	}
}

/* The cumulative fields of an account, with their TA_HAVE_* bit. */
#define CUM_FIELDS 15
static void cum_fields(const struct task_acct *a, const char **name,
		       uint64_t *v, unsigned *need)
{
	static const char *const names[CUM_FIELDS] = {
		"cpu_ns", "cpu_delay_ns", "blkio_delay_ns", "swapin_delay_ns",
		"freepages_delay_ns", "thrashing_delay_ns", "compact_delay_ns",
		"blkio_count", "swapin_count", "freepages_count", "thrashing_count",
		"compact_count", "read_bytes", "write_bytes", "majflt",
	};
	const uint64_t vals[CUM_FIELDS] = {
		a->cpu_ns, a->cpu_delay_ns, a->blkio_delay_ns, a->swapin_delay_ns,
		a->freepages_delay_ns, a->thrashing_delay_ns, a->compact_delay_ns,
		a->blkio_count, a->swapin_count, a->freepages_count,
		a->thrashing_count, a->compact_count, a->read_bytes, a->write_bytes,
		a->majflt,
	};
	const unsigned needs[CUM_FIELDS] = {
		TA_HAVE_DELAY, TA_HAVE_DELAY, TA_HAVE_DELAY, TA_HAVE_DELAY,
		TA_HAVE_FREEPAGES, TA_HAVE_THRASHING, TA_HAVE_COMPACT,
		TA_HAVE_DELAY, TA_HAVE_DELAY, TA_HAVE_FREEPAGES, TA_HAVE_THRASHING,
		TA_HAVE_COMPACT, TA_HAVE_IO, TA_HAVE_IO, TA_HAVE_BASIC,
	};

	for (int i = 0; i < CUM_FIELDS; i++) {
		name[i] = names[i];
		v[i] = vals[i];
		need[i] = needs[i];
	}
}

/* Whether a kernel thread's accounts moved between its first and last. */
static int moved(const struct ta_obs *const *o, size_t n)
{
	const char *nm[CUM_FIELDS];
	uint64_t v0[CUM_FIELDS], v1[CUM_FIELDS];
	unsigned need[CUM_FIELDS];

	if (n < 2 || o[n - 1]->exited)
		return 1;
	cum_fields(&o[0]->a, nm, v0, need);
	cum_fields(&o[n - 1]->a, nm, v1, need);
	if (v1[0] - v0[0] >= KTHREAD_CPU_NS)  /* it ran a while */
		return 1;
	for (int i = 2; i < 7; i++)         /* or waited */
		if (v0[i] != v1[i])
			return 1;
	return v0[12] != v1[12] || v0[13] != v1[13];   /* or did I/O */
}

static int row(procstat_sample_fn fn, void *ctx, int64_t t, uint32_t pid,
	       const char *field, double v)
{
	char key[64];

	snprintf(key, sizeof(key), "%" PRIu32 ".%s", pid, field);
	return fn(ctx, t, "task", key, v);
}

/* The rows of one task's observations o[0..n) (time order), cmd the
 * command it is the root of (or -1); *dropped counts delay fields left out
 * because a total passed the task's life. */
static int task_rows(const struct ta_obs *const *o, size_t n, int cmd,
		     procstat_sample_fn fn, void *ctx, uint64_t *dropped)
{
	const struct task_acct *f = &o[0]->a;
	int64_t t0 = o[0]->t_ns;
	uint32_t ppid = f->ppid;
	unsigned nonzero = 0, bogus = 0;
	int rc;

	/* the first known parent: an orphan's exit names its adopter */
	if ((rc = row(fn, ctx, t0, f->pid, "ppid", ppid)) ||
	    (rc = row(fn, ctx, t0, f->pid, "tgid", f->tgid)))
		return rc;
	if ((f->have & TA_HAVE_BASIC) &&
	    (rc = row(fn, ctx, t0, f->pid, "start_ns",
		      (double)(t0 - (int64_t)f->etime_us * 1000))))
		return rc;
	if (cmd >= 0 && (rc = row(fn, ctx, t0, f->pid, "cmd", cmd)))
		return rc;
	/* a field 0 in every account is left out (absent reads as 0) */
	for (size_t k = 0; k < n; k++) {
		const char *nm[CUM_FIELDS];
		uint64_t v[CUM_FIELDS];
		unsigned need[CUM_FIELDS];
		cum_fields(&o[k]->a, nm, v, need);
		for (int i = 0; i < CUM_FIELDS; i++)
			if (v[i])
				nonzero |= 1u << i;
		/* A delay longer than the task's life is the kernel's error (a
		 * wake-up ending a delay whose start was never stamped adds the
		 * clock's whole value: seen on 6.18 for 51 of 289 tasks under
		 * load, likely a start stamped on another task by EEVDF's
		 * delayed dequeue): left out, not stored as a measure. */
		for (int i = 2; i < 7; i++)
			if ((o[k]->a.have & TA_HAVE_BASIC) &&
			    v[i] > o[k]->a.etime_us * 1000 + DELAY_SLACK_NS)
				bogus |= 1u << i;
		if (o[k]->exited)
			break;
	}
	for (int i = 2; i < 7; i++)
		if (bogus & (1u << i))
			(*dropped)++;
	nonzero &= ~bogus;
	for (size_t k = 0; k < n; k++) {
		const char *nm[CUM_FIELDS];
		uint64_t v[CUM_FIELDS];
		unsigned need[CUM_FIELDS];

		/* a live account and the exit one at the same time: the exit */
		if (k + 1 < n && o[k + 1]->t_ns == o[k]->t_ns && !o[k]->exited)
			continue;
		cum_fields(&o[k]->a, nm, v, need);
		for (int i = 0; i < CUM_FIELDS; i++)
			if ((o[k]->a.have & need[i]) && (nonzero & (1u << i)) &&
			    (rc = row(fn, ctx, o[k]->t_ns, f->pid, nm[i], (double)v[i])))
				return rc;
		if (o[k]->exited &&
		    (rc = row(fn, ctx, o[k]->t_ns, f->pid, "exit_ns", (double)o[k]->t_ns)))
			return rc;
		if (o[k]->exited)
			break;       /* a pid used again after: not this task */
	}
	return 0;
}

/* Calls each(ctx2, obs, n) for each stored task's observations. */
static int each_task(const struct taskacct *ta,
		     int (*each)(void *, const struct ta_obs *const *, size_t),
		     void *ctx2)
{
	struct pidset fam = { 0 }, kt = { 0 };
	const struct ta_obs **ix;
	int rc = 0;

	if (!ta->nobs)
		return 0;
	fam.cap = kt.cap = 256;
	fam.v = xcalloc(fam.cap, sizeof(uint32_t));
	kt.v = xcalloc(kt.cap, sizeof(uint32_t));
	families(ta, &fam, &kt);
	ix = xmalloc(ta->nobs * sizeof(*ix));
	for (size_t i = 0; i < ta->nobs; i++)
		ix[i] = &ta->obs[i];
	qsort(ix, ta->nobs, sizeof(*ix), by_pid_time);
	for (size_t i = 0, j; i < ta->nobs && !rc; i = j) {
		uint32_t pid = ix[i]->a.pid;
		for (j = i; j < ta->nobs && ix[j]->a.pid == pid; j++)
			;
		if (ps_has(&fam, pid) || (ps_has(&kt, pid) && moved(ix + i, j - i)))
			rc = each(ctx2, ix + i, j - i);
	}
	free(ix);
	free(fam.v);
	free(kt.v);
	return rc;
}

struct rows_ctx {
	const struct taskacct *ta;
	procstat_sample_fn fn;
	void *ctx;
	uint64_t dropped;
};

static int rows_each(void *vctx, const struct ta_obs *const *o, size_t n)
{
	struct rows_ctx *c = vctx;
	int cmd = -1;

	for (int i = 0; i < c->ta->nroots; i++)
		if ((uint32_t)c->ta->roots[i] == o[0]->a.pid)
			cmd = c->ta->root_cmd[i];
	return task_rows(o, n, cmd, c->fn, c->ctx, &c->dropped);
}

int taskacct_rows(const struct taskacct *ta, procstat_sample_fn fn, void *ctx,
		  uint64_t *dropped)
{
	struct rows_ctx c = { ta, fn, ctx, 0 };
	int rc = each_task(ta, rows_each, &c);

	if (dropped)
		*dropped = c.dropped;
	return rc;
}

struct comms_ctx {
	int (*fn)(void *ctx, uint32_t pid, const char *comm);
	void *ctx;
};

static int comms_each(void *vctx, const struct ta_obs *const *o, size_t n)
{
	struct comms_ctx *c = vctx;
	const struct task_acct *a = &o[n - 1]->a;

	return a->comm[0] ? c->fn(c->ctx, a->pid, a->comm) : 0;
}

int taskacct_comms(const struct taskacct *ta,
		   int (*fn)(void *ctx, uint32_t pid, const char *comm), void *ctx)
{
	struct comms_ctx c = { fn, ctx };
	return each_task(ta, comms_each, &c);
}
