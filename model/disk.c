/* `iotape disk`'s lifecycle: start (the daemon, its guardian, the loop
 * device), list, stop, and the clean-up every way of ending shares. The
 * daemon runs in a mount namespace of its own, so its FUSE mount (and a
 * tracefs mount when the machine has none) go with it, whatever kills it; a
 * guardian process it forks first waits for it to end and, when it ended
 * without cleaning up (SIGKILL, a crash), detaches the loop device and
 * removes what the disk made. I/O that reaches a dead daemon's FUSE file
 * fails at once (the kernel aborts the connection when /dev/fuse closes),
 * so nothing hangs on it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/loop.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#include "capture/lab.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "model/disk_int.h"
#include "model/fuse_dl.h"
#include "replay/target.h"

#define NAME_MAX_LEN 32
#define STOP_WAIT_MS 30000

/* 1 when process pid runs (a zombie does not: a container's init may
 * reap late). */
static int proc_alive(int pid)
{
	char p[64], buf[256], *rp;
	FILE *fp;
	int alive = 0;

	if (pid <= 0 || kill(pid, 0) < 0)
		return 0;
	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	if (!(fp = fopen(p, "r")))
		return 0;
	if (fgets(buf, sizeof(buf), fp) && (rp = strrchr(buf, ')')) && rp[1] == ' ')
		alive = rp[2] != 'Z' && rp[2] != 'X';
	fclose(fp);
	return alive;
}

/* ---- the disk's folder ---- */

static void disk_path(char *out, size_t len, const char *dir, const char *name,
		      const char *file)
{
	snprintf(out, len, "%s/disk/%s%s%s", dir, name, file ? "/" : "",
		 file ? file : "");
}

static int check_name(const char *name, char *err, size_t errlen)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || strchr("._-", name[i])))
			n = 0;
	if (!n || n > NAME_MAX_LEN || name[0] == '.' || name[0] == '-') {
		snprintf(err, errlen, "invalid disk name '%s' (1 to %d letters, "
			 "digits, '.', '_' or '-', not starting with '.' or '-')",
			 name, NAME_MAX_LEN);
		return -1;
	}
	return 0;
}

/* 1 when the daemon holds the disk's lock (it serves), else 0. */
static int lock_held(const char *dir, const char *name)
{
	char p[600];
	int fd, held = 0;

	disk_path(p, sizeof(p), dir, name, "lock");
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK)
		held = 1;
	close(fd);
	return held;
}

static int state_write(const char *dir, const struct disk_info *d)
{
	char p[600], tmp[620];
	FILE *fp;
	int rc;

	disk_path(p, sizeof(p), dir, d->name, "state");
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	if (!(fp = fopen(tmp, "w")))
		return -errno;
	fprintf(fp, "name=%s\nprofile=%s\nloop=%s\nmajor=%u\nminor=%u\n"
		"size_bytes=%" PRIu64 "\nbacking=%s\nmade_backing=%d\nkeep=%d\n"
		"pid=%d\nguardian=%d\nstarted_real_ns=%" PRId64 "\nzero_time=%d\n"
		"fuse_dev=%" PRIu64 "\n", d->name, d->profile, d->loop, d->major,
		d->minor, d->size_bytes, d->backing, d->made_backing, d->keep, d->pid,
		d->guardian, d->started_real_ns, d->zero_time, d->fuse_dev);
	rc = ferror(fp) ? -EIO : 0;
	if (fclose(fp) || rc) {
		unlink(tmp);
		return -EIO;
	}
	return rename(tmp, p) < 0 ? -errno : 0;
}

int disk_info_read(const char *dir, const char *name, struct disk_info *d,
		   char *err, size_t errlen)
{
	char p[600], line[700];
	struct stat sb;
	FILE *fp;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	disk_path(p, sizeof(p), dir, name, NULL);
	if (stat(p, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "no disk '%s' (see 'iotape disk list')", name);
		return -ENOENT;
	}
	d->alive = lock_held(dir, name);
	disk_path(p, sizeof(p), dir, name, "state");
	if (!(fp = fopen(p, "r")))
		return 0;       /* starting, or it failed before the loop device */
	while (fgets(line, sizeof(line), fp)) {
		char *v = strchr(line, '='), *nl = strchr(line, '\n');
		if (!v)
			continue;
		*v++ = '\0';
		if (nl)
			*nl = '\0';
		if (!strcmp(line, "profile"))
			snprintf(d->profile, sizeof(d->profile), "%s", v);
		else if (!strcmp(line, "loop"))
			snprintf(d->loop, sizeof(d->loop), "%s", v);
		else if (!strcmp(line, "major"))
			d->major = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(line, "minor"))
			d->minor = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(line, "size_bytes"))
			d->size_bytes = strtoull(v, NULL, 10);
		else if (!strcmp(line, "backing"))
			snprintf(d->backing, sizeof(d->backing), "%s", v);
		else if (!strcmp(line, "made_backing"))
			d->made_backing = atoi(v);
		else if (!strcmp(line, "keep"))
			d->keep = atoi(v);
		else if (!strcmp(line, "pid"))
			d->pid = atoi(v);
		else if (!strcmp(line, "guardian"))
			d->guardian = atoi(v);
		else if (!strcmp(line, "started_real_ns"))
			d->started_real_ns = strtoll(v, NULL, 10);
		else if (!strcmp(line, "zero_time"))
			d->zero_time = atoi(v);
		else if (!strcmp(line, "fuse_dev"))
			d->fuse_dev = strtoull(v, NULL, 10);
	}
	fclose(fp);
	return 0;
}

/* ---- the loop device ---- */

/* 1 when loop device d->loop is still disk d's: the name the disk gave
 * it (LOOP_CONFIGURE's lo_file_name, "iotape-disk-NAME") and the device of
 * the FUSE file under it (lo_device). Its backing_file in sysfs cannot
 * tell: once the daemon's namespace is gone its path reads "/disk". */
static int loop_is_ours(const struct disk_info *d)
{
	struct loop_info64 li;
	char want[LO_NAME_SIZE];

	if (strncmp(d->loop, "/dev/loop", 9) || loop_status(d->loop, &li))
		return 0;
	snprintf(want, sizeof(want), "iotape-disk-%s", d->name);
	return !strncmp((const char *)li.lo_file_name, want, LO_NAME_SIZE) &&
	       (!d->fuse_dev || li.lo_device == d->fuse_dev);
}

/* Detaches loop (the kernel does it when its last user closes it, if it
 * is open); waits up to 10 s for it to go when nobody holds it. Returns 0
 * or -errno. */
static int loop_detach(const char *loop)
{
	char p[300], v[600];
	int fd = open(loop, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, LOOP_CLR_FD, 0) < 0 && errno != ENXIO) {
		int e = errno;
		close(fd);
		return -e;
	}
	close(fd);
	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", loop + 5);
	for (int i = 0; i < 200 && !sysfs_read(p, v, sizeof(v)); i++)
		usleep(50000);
	return 0;
}

/* Puts a loop device with direct I/O over the open file fd (partitions
 * scanned, 512-byte sectors). Writes its path into loop and its numbers.
 * Returns 0 or -1 with err. */
static int loop_attach(int fd, const char *label, char *loop, size_t len,
		       unsigned *ma, unsigned *mi, char *err, size_t errlen)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);

	if (ctl < 0) {
		snprintf(err, errlen, "cannot open /dev/loop-control: %s",
			 strerror(errno));
		return -1;
	}
	for (int tries = 0; tries < 50; tries++) {
		struct loop_config cfg;
		char p[300], v[64];
		int n = ioctl(ctl, LOOP_CTL_GET_FREE), lfd;

		if (n < 0) {
			snprintf(err, errlen, "no free loop device: %s", strerror(errno));
			break;
		}
		snprintf(loop, len, "/dev/loop%d", n);
		if ((lfd = open(loop, O_RDWR | O_CLOEXEC)) < 0)
			continue;
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)fd;
		cfg.block_size = 512;
		cfg.info.lo_flags = LO_FLAGS_DIRECT_IO | LO_FLAGS_PARTSCAN;
		snprintf((char *)cfg.info.lo_file_name, LO_NAME_SIZE, "%.63s", label);
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) < 0) {
			int e = errno;
			close(lfd);
			if (e == EBUSY)
				continue;     /* another took it first */
			snprintf(err, errlen, "cannot set up %s: %s", loop, strerror(e));
			break;
		}
		close(lfd);
		close(ctl);
		snprintf(p, sizeof(p), "/sys/block/loop%d/dev", n);
		if (sysfs_read(p, v, sizeof(v)) || sscanf(v, "%u:%u", ma, mi) != 2) {
			*ma = 7;
			*mi = (unsigned)n;
		}
		snprintf(p, sizeof(p), "/sys/block/loop%d/loop/dio", n);
		if (sysfs_read(p, v, sizeof(v)) || strcmp(v, "1")) {
			snprintf(err, errlen, "%s over the FUSE file refused direct "
				 "I/O (loop/dio %s): every read would not reach the "
				 "model", loop, v);
			loop_detach(loop);
			return -1;
		}
		return 0;
	}
	close(ctl);
	if (!err[0])
		snprintf(err, errlen, "no free loop device");
	return -1;
}

/* The queue settings of a disk of this kind on this kernel: rotational,
 * requests of at most 1 MiB (one FUSE request each: max_write), at most
 * depth requests at the device (a SATA disk's NCQ tags: the profile's
 * queue_depth; a loop device takes 128, so the rest would wait in the
 * model's queue, dispatched, instead of the scheduler's: with no scheduler,
 * nr_requests sets the driver tags in use (block/blk-mq.c,
 * blk_mq_update_nr_requests), and a scheduler attached after keeps them),
 * the scheduler asked for, readahead as this kernel gives a SATA disk
 * (128 KiB, VM_READAHEAD_PAGES), no discard (a disk of 2006 has no TRIM).
 * Returns 0 or -1 with err. */
static int loop_queue_set(const char *loop, const char *sched, unsigned depth,
			  char *err, size_t errlen)
{
	static const char *const keys[] = { "rotational", "max_sectors_kb",
					    "scheduler", "nr_requests", "scheduler",
					    "read_ahead_kb", "discard_max_bytes" };
	char d[16];
	const char *vals[] = { "1", "1024", "none", d, sched, "128", "0" };

	snprintf(d, sizeof(d), "%u", depth ? depth : 1);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		char p[300];
		int rc;
		snprintf(p, sizeof(p), "/sys/block/%s/queue/%s", loop + 5, keys[i]);
		if ((rc = sysfs_write(p, vals[i]))) {
			snprintf(err, errlen, "cannot set %s to '%s': %s", p, vals[i],
				 strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/* ---- clean-up ---- */

/* Removes what disk name left: its loop device (when it is still over the
 * disk's file), tracing instance, backing file (when the disk made it and
 * nobody asked to keep it) and folder. Returns 0, or -errno with err when
 * the loop device could not be detached. */
static int cleanup(const char *dir, const char *name, const struct disk_info *d,
		   char *err, size_t errlen)
{
	static const char *const files[] = { "state", "state.tmp", "profile",
					     "stats", "log", "keep", "lock" };
	char p[600];
	int rc = 0, keep = d->keep;

	if (d->loop[0] && loop_is_ours(d) &&
	    (rc = loop_detach(d->loop)))
		snprintf(err, errlen, "cannot detach %s: %s", d->loop, strerror(-rc));
	disk_path(p, sizeof(p), dir, name, "tracefs");
	disk_tracer_remove(name, p);
	rmdir(p);
	disk_path(p, sizeof(p), dir, name, "mnt");
	umount2(p, MNT_DETACH);      /* in our namespace only if one was left */
	rmdir(p);
	disk_path(p, sizeof(p), dir, name, "keep");
	if (!access(p, F_OK))
		keep = 1;
	if (d->made_backing && !keep && d->backing[0])
		unlink(d->backing);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		disk_path(p, sizeof(p), dir, name, files[i]);
		unlink(p);
	}
	disk_path(p, sizeof(p), dir, name, NULL);
	rmdir(p);
	return rc;
}

/* The guardian: forked by the daemon before anything else; waits until
 * the daemon's end of pipe fd closes (it ended, however), then cleans up
 * unless the daemon did. A dying process's files are released in no set
 * order, so its lock may outlive the pipe's end for a moment: the guardian
 * waits for the daemon (pid) to be gone and its lock free. */
static void guardian(const char *dir, const char *name, int fd, int pid)
{
	char c, err[256];
	struct disk_info d;

	prctl(PR_SET_NAME, "iotape-diskgd", 0, 0, 0);
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	for (int i = 0; i < 500 && (proc_alive(pid) || lock_held(dir, name)); i++)
		usleep(10000);
	if (disk_info_read(dir, name, &d, err, sizeof(err)) || d.alive ||
	    (d.pid && d.pid != pid))
		_exit(0);    /* cleaned up, or a new daemon serves the name */
	if (cleanup(dir, name, &d, err, sizeof(err)))
		fprintf(stderr, "iotape disk %s: %s\n", name, err);
	_exit(0);
}

/* ---- the daemon ---- */

struct daemon {
	const struct disk_opts *o;
	struct disk_profile prof;
	int backing_fd;
	struct disk_info info;
	struct disk_stats_file *stats;
	struct disk_answers answers;
	struct disk_srv *srv;
	struct disk_tracer *tracer;
	pthread_t th;
	int srv_rc, srv_done_fd;
};

static void *serve_main(void *arg)
{
	struct daemon *dm = arg;
	uint64_t one = 1;

	dm->srv_rc = disk_srv_run(dm->srv);
	if (write(dm->srv_done_fd, &one, sizeof(one)) < 0)
		dm->srv_rc = -errno;
	return NULL;
}

/* Tells whoever waits on status "ok LOOP" once the disk serves: the
 * start command reading the pipe status, or (status < 0: in the
 * foreground) stdout, the loop device's path alone. */
static void tell_ok(int *status, const char *loop)
{
	char line[600];
	int n;

	if (*status < 0) {
		printf("%s\n", loop);
		fflush(stdout);
		return;
	}
	n = snprintf(line, sizeof(line), "ok %s\n", loop);
	if (write(*status, line, (size_t)n) < 0)
		n = 0;
	close(*status);
	*status = -1;
}

/* The disk's lock (DIR/NAME.lock, held for the daemon's life): its
 * descriptor, or -1 with err when another daemon holds it. */
static int daemon_lock(const struct disk_opts *o, char *err, size_t errlen)
{
	char p[600];
	int lock;

	disk_path(p, sizeof(p), o->dir, o->name, "lock");
	if ((lock = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 ||
	    flock(lock, LOCK_EX | LOCK_NB) < 0) {
		snprintf(err, errlen, "cannot lock '%s': %s", p, strerror(errno));
		if (lock >= 0)
			close(lock);
		return -1;
	}
	return lock;
}

/* Forks the guardian of dm, which cleans up when the daemon ends however
 * it ends. It must hold none of the daemon's files (the lock, /dev/fuse,
 * the status pipe): the child closes them and never returns. *gpipe_w:
 * the daemon's end of the pipe the guardian waits on. Returns 0, or -1
 * with err. */
static int guardian_start(struct daemon *dm, int lock, int status,
			  int *gpipe_w, char *err, size_t errlen)
{
	const struct disk_opts *o = dm->o;
	pid_t g, self = getpid();
	int gpipe[2];

	if (pipe2(gpipe, O_CLOEXEC) < 0 || (g = fork()) < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		return -1;
	}
	if (!g) {
		close(lock);
		close(gpipe[1]);
		if (status >= 0)
			close(status);
		close(dm->backing_fd);
		setsid();
		guardian(o->dir, o->name, gpipe[0], self);
	}
	close(gpipe[0]);
	dm->info.guardian = g;
	*gpipe_w = gpipe[1];
	return 0;
}

/* The loop device over the file the server answers for (mnt/disk), its
 * name and numbers in dm->info. Returns 0, or -1 with err (the file
 * closed either way). */
static int daemon_loop(struct daemon *dm, const char *mnt, char *err,
		       size_t errlen)
{
	const struct disk_opts *o = dm->o;
	char p[600];
	int ffd;

	snprintf(p, sizeof(p), "%.590s/disk", mnt);
	if ((ffd = open(p, O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", p, strerror(errno));
		return -1;
	}
	{
		struct stat sb;
		if (!fstat(ffd, &sb))
			dm->info.fuse_dev = (uint64_t)sb.st_dev;
	}
	snprintf(p, sizeof(p), "iotape-disk-%s", o->name);
	if (loop_attach(ffd, p, dm->info.loop, sizeof(dm->info.loop), &dm->info.major,
			&dm->info.minor, err, errlen)) {
		close(ffd);
		return -1;
	}
	close(ffd);
	return 0;
}

/* Serves until a signal on sfd, or until the server ends (dm->srv_done_fd:
 * the FUSE connection ended, said on stderr). */
static void daemon_wait(struct daemon *dm, int sfd)
{
	struct pollfd pf[2] = { { sfd, POLLIN, 0 }, { dm->srv_done_fd, POLLIN, 0 } };

	for (;;) {
		struct signalfd_siginfo si;
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents & POLLIN) {
			fprintf(stderr, "iotape disk %s: the FUSE connection "
				"ended (%s)\n", dm->o->name, strerror(-dm->srv_rc));
			break;
		}
		if ((pf[0].revents & POLLIN) &&
		    read(sfd, &si, sizeof(si)) == sizeof(si))
			break;
	}
}

/* Serves disk dm until a signal (or the connection's end), then puts
 * everything back. Returns 0, or -1 with err when it could not start (or
 * 1 when it served and then stopped with trouble, said on stderr). */
static int daemon_run(struct daemon *dm, int status, char *err, size_t errlen)
{
	const struct disk_opts *o = dm->o;
	char p[600], mnt[600], scratch[600];
	struct disk_srv_conf conf;
	sigset_t mask;
	int sfd, lock, gpipe_w, rc = -1;

	if ((lock = daemon_lock(o, err, errlen)) < 0)
		return -1;
	/* the guardian first */
	if (guardian_start(dm, lock, status, &gpipe_w, err, errlen)) {
		close(lock);
		return -1;
	}
	sfd = lab_signals(&mask, 0);
	if (sfd < 0 || unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		snprintf(err, errlen, "cannot make a mount namespace: %s",
			 strerror(errno));
		goto out;
	}
	disk_path(p, sizeof(p), o->dir, o->name, "stats");
	if (!(dm->stats = disk_stats_create(p, err, errlen)))
		goto out;
	pthread_mutex_init(&dm->answers.mu, NULL);
	disk_path(mnt, sizeof(mnt), o->dir, o->name, "mnt");
	if (mkdir(mnt, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make '%s': %s", mnt, strerror(errno));
		goto out;
	}
	conf = (struct disk_srv_conf){ o->name, mnt, dm->backing_fd,
		dm->info.size_bytes, &dm->prof, o->zero_time, o->compensate,
		o->spin_us, dm->stats, &dm->answers };
	if (!(dm->srv = disk_srv_new(&conf, err, errlen)))
		goto out;
	if ((dm->srv_done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    pthread_create(&dm->th, NULL, serve_main, dm)) {
		snprintf(err, errlen, "cannot start the server thread");
		goto out_srv;
	}
	/* the loop device, over the file the server now answers for */
	if (daemon_loop(dm, mnt, err, errlen))
		goto out_thread;
	if (loop_queue_set(dm->info.loop, o->scheduler, dm->prof.queue_depth, err, errlen))
		goto out_loop;
	dm->info.pid = getpid();
	dm->info.started_real_ns = now_real_ns();
	if ((rc = state_write(o->dir, &dm->info))) {
		snprintf(err, errlen, "cannot write the disk's state: %s",
			 strerror(-rc));
		rc = -1;
		goto out_loop;
	}
	disk_path(scratch, sizeof(scratch), o->dir, o->name, "tracefs");
	dm->tracer = disk_tracer_start(o->name, dm->info.major, dm->info.minor,
				       scratch, dm->stats, &dm->answers);
	rc = 1;          /* served: trouble from here on is not a start error */
	tell_ok(&status, dm->info.loop);
	daemon_wait(dm, sfd);
out_loop:
	/* detaching waits for the requests in flight: the server still runs */
	if (loop_detach(dm->info.loop))
		fprintf(stderr, "iotape disk %s: cannot detach %s\n", o->name,
			dm->info.loop);
out_thread:
	disk_tracer_stop(dm->tracer);
	dm->tracer = NULL;
	disk_srv_stop(dm->srv);
	pthread_join(dm->th, NULL);
out_srv:
	disk_srv_free(dm->srv);
	dm->srv = NULL;
out:
	{
		char e2[256];
		if (cleanup(o->dir, o->name, &dm->info, e2, sizeof(e2)))
			fprintf(stderr, "iotape disk %s: %s\n", o->name, e2);
	}
	if (sfd >= 0)
		close(sfd);
	if (dm->srv_done_fd > 0)
		close(dm->srv_done_fd);
	close(gpipe_w);
	close(lock);
	return rc == 1 ? 0 : rc;
}

/* ---- start ---- */

/* Opens (or makes) the backing file and settles the disk's size: o->size,
 * else an existing file's size, else the profile's capacity; a file
 * shorter than the disk is extended (sparse), never cut. Fills d's backing
 * fields and size. Returns the descriptor or -1 with err. */
static int backing_open(const struct disk_opts *o, const struct disk_profile *p,
			struct disk_info *d, char *err, size_t errlen)
{
	struct stat sb;
	int fd, created = 0;

	if (o->backing) {
		char why[256];
		/* an image with a file system on it is what a disk holds:
		 * only that refusal of out_file_check()'s does not apply */
		int rc = out_file_check(o->backing);
		if (rc == OUT_FILE_SIGNATURE)
			rc = 0;
		/* the file becomes a disk anyone may write: never a database
		 * (this one's or another), a device, or a file that swap or
		 * another loop device is using (out_file_check(),
		 * target_file_busy(): replay's rules for a target) */
		if (rc) {
			snprintf(err, errlen, "refusing backing file '%s': %s",
				 o->backing, rc == OUT_FILE_SQLITE ? "it holds an "
				 "SQLite database (its file header)" :
				 rc == OUT_FILE_BLOCKDEV ? "it is a block device" :
				 out_file_error(rc));
			return -1;
		}
		if (target_file_busy(o->backing, why, sizeof(why))) {
			snprintf(err, errlen, "refusing backing file '%s': %s",
				 o->backing, why);
			return -1;
		}
		/* a file the user named stays at stop, made here or not
		 * (made: removed only if the start fails) */
		if ((fd = open(o->backing, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0)
			created = 1;
		else if (errno == EEXIST)
			fd = open(o->backing, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open backing file '%s': %s",
				 o->backing, strerror(errno));
			return -1;
		}
		if (!realpath(o->backing, d->backing))
			snprintf(d->backing, sizeof(d->backing), "%s", o->backing);
	} else {
		snprintf(d->backing, sizeof(d->backing), "%s/iotape-disk-%s.XXXXXX",
			 o->tmpdir, o->name);
		if ((fd = mkostemp(d->backing, O_CLOEXEC)) < 0) {
			snprintf(err, errlen, "cannot make a backing file in '%s': %s",
				 o->tmpdir, strerror(errno));
			return -1;
		}
		d->made_backing = 1;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "backing file '%s' is not a regular file",
			 d->backing);
		goto fail;
	}
	d->size_bytes = o->size_bytes ? o->size_bytes : !d->made_backing && !created && sb.st_size ?
		(uint64_t)sb.st_size : p->capacity_sectors * 512;
	d->size_bytes &= ~(uint64_t)511;
	if (d->size_bytes < 1024 * 512) {
		snprintf(err, errlen, "a disk of %" PRIu64 " bytes is too small (at "
			 "least 512 KiB)", d->size_bytes);
		goto fail;
	}
	if ((uint64_t)sb.st_size < d->size_bytes && ftruncate(fd, (off_t)d->size_bytes) < 0) {
		snprintf(err, errlen, "cannot size backing file '%s' to %" PRIu64
			 " bytes: %s", d->backing, d->size_bytes, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	if (d->made_backing || created)
		unlink(d->backing);
	return -1;
}

/* Makes dir/disk/NAME, first cleaning up what a dead disk of that name
 * left. Returns 0 or -1 with err. */
static int folder_make(const char *dir, const char *name, char *err, size_t errlen)
{
	char p[600];
	struct disk_info d;

	snprintf(p, sizeof(p), "%s/disk", dir);
	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(p, 0755) < 0 && errno != EEXIST)) {
		snprintf(err, errlen, "cannot make '%s': %s", p, strerror(errno));
		return -1;
	}
	disk_path(p, sizeof(p), dir, name, NULL);
	if (!mkdir(p, 0755))
		return 0;
	if (errno != EEXIST || disk_info_read(dir, name, &d, err, errlen)) {
		snprintf(err, errlen, "cannot make '%s': %s", p, strerror(errno));
		return -1;
	}
	if (d.alive) {
		snprintf(err, errlen, "disk '%s' is running (%s); stop it first "
			 "(iotape disk stop %s)", name, d.loop[0] ? d.loop : "starting",
			 name);
		return -1;
	}
	if (cleanup(dir, name, &d, err, errlen))
		return -1;
	if (mkdir(p, 0755) < 0) {
		snprintf(err, errlen, "cannot make '%s': %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

static int profile_save(const char *dir, const char *name,
			const struct disk_profile *p)
{
	char path[600], *text = xmalloc(16384);
	FILE *fp;
	int rc = -1;

	disk_path(path, sizeof(path), dir, name, "profile");
	profile_format(p, text, 16384);
	if ((fp = fopen(path, "w"))) {
		rc = fputs(text, fp) < 0 ? -1 : 0;
		if (fclose(fp))
			rc = -1;
	}
	free(text);
	return rc;
}

int disk_start(const struct disk_opts *o, char *loop, size_t len, char *err,
	       size_t errlen)
{
	struct daemon dm;
	struct disk_model *m;
	char line[700];
	int pfd[2];
	pid_t pid;
	ssize_t n;
	size_t got = 0;

	memset(&dm, 0, sizeof(dm));
	dm.o = o;
	err[0] = '\0';
	if (check_name(o->name, err, errlen))
		return -1;
	if (geteuid() != 0) {
		snprintf(err, errlen, "iotape disk needs root (a FUSE mount, a "
			 "loop device)");
		return -1;
	}
	if (access("/dev/fuse", R_OK | W_OK) < 0) {
		snprintf(err, errlen, "cannot use /dev/fuse: %s (modprobe fuse)",
			 strerror(errno));
		return -1;
	}
	if (fuse_load(err, errlen) || profile_resolve(&dm.prof, o->model, err, errlen))
		return -1;
	snprintf(dm.info.name, sizeof(dm.info.name), "%s", o->name);
	snprintf(dm.info.profile, sizeof(dm.info.profile), "%s", dm.prof.name);
	dm.info.keep = o->keep;
	dm.info.zero_time = o->zero_time;
	if (folder_make(o->dir, o->name, err, errlen))
		return -1;
	if ((dm.backing_fd = backing_open(o, &dm.prof, &dm.info, err, errlen)) < 0)
		goto fail_folder;
	/* the model's disk is the device's size: the profile's zones, rates
	 * and seek figures over it (a full stroke crosses all of it) */
	dm.prof.capacity_sectors = dm.info.size_bytes / 512;
	if (!(m = model_new(&dm.prof, 0, 1, err, errlen)))
		goto fail_backing;
	model_free(m);
	if (profile_save(o->dir, o->name, &dm.prof)) {
		snprintf(err, errlen, "cannot write the disk's profile: %s",
			 strerror(errno));
		goto fail_backing;
	}
	if (o->foreground) {
		int rc = daemon_run(&dm, -1, err, errlen);
		close(dm.backing_fd);
		return rc;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		goto fail_backing;
	}
	if (!pid) {
		/* the daemon: a session of its own, stdout to nobody (a shell's
		 * $(iotape disk start) ends), stderr to its log */
		char logp[600];
		int fd, rc;
		close(pfd[0]);
		setsid();
		disk_path(logp, sizeof(logp), o->dir, o->name, "log");
		if ((fd = open("/dev/null", O_RDWR)) >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		if ((fd = open(logp, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		prctl(PR_SET_NAME, "iotape-disk", 0, 0, 0);
		rc = daemon_run(&dm, pfd[1], err, errlen);
		if (rc < 0) {
			int k = snprintf(line, sizeof(line), "error %s\n", err);
			if (write(pfd[1], line, (size_t)k) < 0)
				rc = 1;
		}
		_exit(rc ? 1 : 0);
	}
	close(pfd[1]);
	close(dm.backing_fd);
	while (got < sizeof(line) - 1 &&
	       ((n = read(pfd[0], line + got, sizeof(line) - 1 - got)) > 0 ||
		(n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	close(pfd[0]);
	line[got] = '\0';
	if (got && line[got - 1] == '\n')
		line[got - 1] = '\0';
	if (!strncmp(line, "ok ", 3)) {
		snprintf(loop, len, "%s", line + 3);
		return 0;
	}
	if (!strncmp(line, "error ", 6))
		snprintf(err, errlen, "%s", line + 6);
	else
		snprintf(err, errlen, "the daemon of disk '%s' ended before it "
			 "served", o->name);
	waitpid(pid, NULL, 0);
	return -1;
fail_backing:
	close(dm.backing_fd);
	if (dm.info.made_backing)
		unlink(dm.info.backing);
fail_folder:
	{
		char e2[256];
		struct disk_info d = dm.info;
		d.made_backing = 0;
		d.loop[0] = '\0';
		cleanup(o->dir, o->name, &d, e2, sizeof(e2));
	}
	return -1;
}

/* ---- list, stop, resolve ---- */

static int cmp_info(const void *a, const void *b)
{
	return strcmp(((const struct disk_info *)a)->name,
		      ((const struct disk_info *)b)->name);
}

int disk_list(const char *dir, struct disk_info **out, size_t *n, char *err,
	      size_t errlen)
{
	char p[600];
	DIR *dp;
	struct dirent *de;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	snprintf(p, sizeof(p), "%s/disk", dir);
	if (!(dp = opendir(p))) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot read '%s': %s", p, strerror(errno));
		return -1;
	}
	while ((de = readdir(dp))) {
		char e2[256];
		if (de->d_name[0] == '.' || check_name(de->d_name, e2, sizeof(e2)))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		if (!disk_info_read(dir, de->d_name, &(*out)[*n], e2, sizeof(e2)))
			(*n)++;
	}
	closedir(dp);
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_info);
	return 0;
}

/* Who holds loop (or one of its partitions) open, from /proc/PID/fd: the
 * first holder's "comm (pid N)" into who. Returns how many hold it. */
static int loop_holders(const char *loop, char *who, size_t len)
{
	DIR *dp = opendir("/proc"), *fdp;
	struct dirent *de, *fe;
	int count = 0;
	size_t ll = strlen(loop);

	who[0] = '\0';
	if (!dp)
		return 0;
	while ((de = readdir(dp))) {
		char p[300], t[300];
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/fd", de->d_name);
		if (!(fdp = opendir(p)))
			continue;
		while ((fe = readdir(fdp))) {
			char l[600];
			ssize_t k;
			snprintf(l, sizeof(l), "%s/%s", p, fe->d_name);
			if ((k = readlink(l, t, sizeof(t) - 1)) <= 0)
				continue;
			t[k] = '\0';
			if (strncmp(t, loop, ll) || (t[ll] && t[ll] != 'p'))
				continue;
			if (!count++) {
				char c[64] = "?";
				snprintf(l, sizeof(l), "/proc/%s/comm", de->d_name);
				sysfs_read(l, c, sizeof(c));
				snprintf(who, len, "%.32s (pid %.16s)", c, de->d_name);
			}
			break;
		}
		closedir(fdp);
	}
	closedir(dp);
	return count;
}

int disk_stop(const char *dir, const char *name, int force, int keep,
	      char *err, size_t errlen)
{
	struct disk_info d;
	char p[600];
	int rc;

	if (check_name(name, err, errlen))
		return -EINVAL;
	if ((rc = disk_info_read(dir, name, &d, err, errlen)))
		return rc;
	if (keep) {
		int fd;
		disk_path(p, sizeof(p), dir, name, "keep");
		if ((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
			close(fd);
		d.keep = 1;
	}
	if (!d.alive)          /* crashed, its guardian gone too: clean up */
		return cleanup(dir, name, &d, err, errlen) ? -EIO : 0;
	if (!force && d.loop[0]) {
		char who[128];
		int fd = open(d.loop, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd < 0 && errno == EBUSY) {
			snprintf(err, errlen, "disk '%s' (%s) is in use (mounted, "
				 "swap, or held exclusively): unmount it first, or "
				 "--force (its users then get I/O errors)", name, d.loop);
			return -EBUSY;
		}
		if (fd >= 0)
			close(fd);
		if (loop_holders(d.loop, who, sizeof(who))) {
			snprintf(err, errlen, "disk '%s' (%s) is open in %s: end it "
				 "first, or --force (it then gets I/O errors)", name,
				 d.loop, who);
			return -EBUSY;
		}
	}
	if (kill(d.pid, SIGTERM) < 0 && errno != ESRCH) {
		snprintf(err, errlen, "cannot signal disk '%s' (pid %d): %s", name,
			 d.pid, strerror(errno));
		return -errno;
	}
	disk_path(p, sizeof(p), dir, name, NULL);
	for (int ms = 0; ms < STOP_WAIT_MS; ms += 20) {
		/* its folder gone, the daemon and its guardian ended */
		if (access(p, F_OK) < 0 && !proc_alive(d.pid) &&
		    !proc_alive(d.guardian))
			return 0;
		if (!lock_held(dir, name) && ms > 2000) {
			/* it ended without its clean-up, and so did its guardian */
			disk_info_read(dir, name, &d, err, errlen);
			return cleanup(dir, name, &d, err, errlen) ? -EIO : 0;
		}
		usleep(20000);
	}
	snprintf(err, errlen, "disk '%s' (pid %d) did not stop in %d s", name,
		 d.pid, STOP_WAIT_MS / 1000);
	return -ETIMEDOUT;
}

int disk_resolve(const char *dir, const char *spec, char *path, size_t len,
		 char *err, size_t errlen)
{
	char p[600], e2[256];
	struct disk_info d;

	if (strchr(spec, '/') || check_name(spec, e2, sizeof(e2)))
		return 0;
	disk_path(p, sizeof(p), dir, spec, NULL);
	if (access(p, F_OK) < 0 || disk_info_read(dir, spec, &d, err, errlen))
		return 0;
	if (!d.alive || !d.loop[0]) {
		snprintf(err, errlen, "disk '%s' is not serving (see 'iotape disk "
			 "list')", spec);
		return -1;
	}
	snprintf(path, len, "%s", d.loop);
	return 1;
}
