/* Lab controls with a state file: record, change, restore. */
#include "lab.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

int sysfs_read(const char *path, char *out, size_t outlen)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *nl, *lb, *rb;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if ((nl = strchr(buf, '\n')))
		*nl = '\0';
	/* "mq-deadline [none]" → "none"; "7 (expanded: 1408)" → "1408" */
	if ((lb = strchr(buf, '[')) && (rb = strchr(lb, ']'))) {
		*rb = '\0';
		memmove(buf, lb + 1, strlen(lb + 1) + 1);
	} else if ((lb = strstr(buf, "(expanded: "))) {
		char *e;
		memmove(buf, lb + 11, strlen(lb + 11) + 1);
		if ((e = strchr(buf, ')')))
			*e = '\0';
	}
	snprintf(out, outlen, "%s", buf);
	return 0;
}

int sysfs_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);
	char buf[512];
	ssize_t n;

	if (fd < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%s\n", value);
	n = write(fd, buf, len + 1 < sizeof(buf) ? len + 1 : sizeof(buf) - 1);
	if (n < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (close(fd) < 0)
		return -errno;
	return 0;
}

static int record(struct lab *lab, const char *line)
{
	size_t len = strlen(line);

	if (write(lab->state_fd, line, len) != (ssize_t)len || fsync(lab->state_fd))
		return -errno;
	return 0;
}

/* Describes what a state file holds, one "KEY (was VALUE)" per change. */
static void describe_state(const char *path, char *out, size_t outlen)
{
	FILE *fp = fopen(path, "r");
	char line[1024];
	size_t o = 0;
	int n = 0;

	out[0] = '\0';
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp) && o + 80 < outlen) {
		char *f1 = strtok(line, "\t\n"), *f2 = strtok(NULL, "\t\n");
		char *f3 = strtok(NULL, "\n");
		if (!f1 || !f2 || !strcmp(f1, "pid"))
			continue;
		o += (size_t)snprintf(out + o, outlen - o, "%s%s %s%s%s%s",
				      n++ ? ", " : "", f1, f2, f3 ? " (was '" : "",
				      f3 ? f3 : "", f3 ? "')" : "");
	}
	fclose(fp);
}

/* Waits for the lock on fd, checking every 50 ms for SIGINT, SIGTERM or
 * SIGHUP: the caller blocks them (lab_signals(), before lab_begin()) and a
 * blocking flock would sleep through them. Returns 0, or -1 with err set
 * when the lock failed or such a signal came first (then taken). */
static int wait_lock(int fd, const char *path, char *err, size_t errlen)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };

	for (;;) {
		sigset_t pend;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			snprintf(err, errlen, "cannot lock '%s': %s", path,
				 strerror(errno));
			return -1;
		}
		if (sigpending(&pend) == 0)
			for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
				if (sigismember(&pend, stops[i])) {
					/* taken here: it was answered */
					sigset_t one;
					struct timespec now = { 0, 0 };
					sigemptyset(&one);
					sigaddset(&one, stops[i]);
					sigtimedwait(&one, NULL, &now);
					snprintf(err, errlen, "stopped by %s while waiting "
						 "for '%s'", strsignal(stops[i]), path);
					return -1;
				}
		usleep(50000);
	}
}

/* The message for a state file at path, left by a killed capture or
 * replay: what it changed, and --reset. */
static void left_changed(const char *path, char *err, size_t errlen)
{
	char left[2048];

	describe_state(path, left, sizeof(left));
	snprintf(err, errlen, "a capture or replay was killed and left the "
		 "machine changed (%s: %s); run 'iotape capture --reset' to put "
		 "it back", path, left[0] ? left : "nothing recorded");
}

/* dir/name (the lock or the state file) into buf of len bytes. */
static void lab_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

int lab_busy(const char *dir)
{
	char lockp[300];
	int fd, busy = 0;

	lab_path(lockp, sizeof(lockp), dir, "capture.lock");
	if ((fd = open(lockp, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK)
		busy = 1;
	close(fd);
	return busy;
}

int lab_check(const char *dir, char *err, size_t errlen)
{
	char path[300];
	struct stat sb;

	lab_path(path, sizeof(path), dir, "capture.state");
	if (stat(path, &sb) < 0)
		return 0;
	left_changed(path, err, errlen);
	return -1;
}

int lab_begin(struct lab *lab, const char *dir, char *err, size_t errlen)
{
	char lockp[300], left[2048];
	struct stat sb;

	memset(lab, 0, sizeof(*lab));
	lab->lock_fd = lab->state_fd = -1;
	snprintf(lab->dir, sizeof(lab->dir), "%s", dir);
	lab_path(lab->state, sizeof(lab->state), dir, "capture.state");
	lab_path(lockp, sizeof(lockp), dir, "capture.lock");
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make '%s': %s", dir, strerror(errno));
		return -1;
	}
	lab->lock_fd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lab->lock_fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", lockp, strerror(errno));
		return -1;
	}
	if (flock(lab->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		/* The block tracer is one per machine: wait for the other. */
		fprintf(stderr, "iotape: waiting for another capture to finish "
			"(it holds '%s')\n", lockp);
		if (wait_lock(lab->lock_fd, lockp, err, errlen) < 0) {
			close(lab->lock_fd);
			lab->lock_fd = -1;
			return -1;
		}
	}
	if (stat(lab->state, &sb) == 0) {
		left_changed(lab->state, err, errlen);
		close(lab->lock_fd);
		lab->lock_fd = -1;
		return -1;
	}
	lab->state_fd = open(lab->state, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0644);
	if (lab->state_fd < 0) {
		snprintf(err, errlen, "cannot make '%s': %s", lab->state,
			 strerror(errno));
		close(lab->lock_fd);
		lab->lock_fd = -1;
		return -1;
	}
	snprintf(left, sizeof(left), "pid\t%d\n", (int)getpid());
	record(lab, left);
	return 0;
}

/* The sysctl that shares a threshold with path's: vm.dirty_bytes and
 * vm.dirty_ratio, vm.dirty_background_bytes and _ratio (writing either of
 * a pair zeroes the other, even writing 0: mm/page-writeback.c's
 * handlers). Writes it into out (len bytes); returns 0, or -1 for a file
 * of no pair. */
static int partner(const char *path, char *out, size_t len)
{
	static const char *const pairs[][2] = {
		{ "/vm/dirty_bytes", "/vm/dirty_ratio" },
		{ "/vm/dirty_ratio", "/vm/dirty_bytes" },
		{ "/vm/dirty_background_bytes", "/vm/dirty_background_ratio" },
		{ "/vm/dirty_background_ratio", "/vm/dirty_background_bytes" },
	};
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		size_t k = strlen(pairs[i][0]);
		if (n > k && !strcmp(path + n - k, pairs[i][0])) {
			snprintf(out, len, "%.*s%s", (int)(n - k), path, pairs[i][1]);
			return 0;
		}
	}
	return -1;
}

/* Records "set PATH OLD" in the state file. Returns 0 or -1 with err. */
static int record_set(struct lab *lab, const char *path, const char *old,
		      char *err, size_t errlen)
{
	char line[2048];
	int rc;

	snprintf(line, sizeof(line), "set\t%s\t%s\n", path, old);
	if ((rc = record(lab, line))) {
		snprintf(err, errlen, "cannot record state in '%s': %s", lab->state,
			 strerror(-rc));
		return -1;
	}
	return 0;
}

int lab_set(struct lab *lab, const char *path, const char *value, char *err,
	    size_t errlen)
{
	char old[1024], ppath[600], pold[1024];
	int rc = sysfs_read(path, old, sizeof(old)), pair;

	if (rc) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(-rc));
		return -1;
	}
	if (!strcmp(old, value))
		return 0;
	/* Of a pair of thresholds only the one in force (non-zero) goes back:
	 * writing it zeroes the other, and the bytes ones refuse 0. */
	pair = !partner(path, ppath, sizeof(ppath)) &&
	       !sysfs_read(ppath, pold, sizeof(pold));
	if (pair && !strcmp(old, "0") && strcmp(pold, "0")) {
		if (record_set(lab, ppath, pold, err, errlen))
			return -1;
	} else if (pair && !strcmp(old, "0") && strstr(path, "_bytes")) {
		/* neither in force: the ratio's 0 is writable */
		if (record_set(lab, ppath, pold, err, errlen))
			return -1;
	} else if (record_set(lab, path, old, err, errlen)) {
		return -1;
	}
	if ((rc = sysfs_write(path, value))) {
		snprintf(err, errlen, "cannot set '%s' to '%s': %s", path, value,
			 strerror(-rc));
		return -1;
	}
	return 0;
}

int lab_note_dir(struct lab *lab, const char *path)
{
	char line[1024];

	snprintf(line, sizeof(line), "dir\t%s\n", path);
	return record(lab, line);
}

int lab_note_file(struct lab *lab, const char *path)
{
	char line[1024];

	snprintf(line, sizeof(line), "file\t%s\n", path);
	return record(lab, line);
}

int lab_scratch_file(struct lab *lab, const char *prefix, char *path,
		     size_t len, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	const char *dir = tmp && *tmp ? tmp : "/var/tmp";
	int fd;

	snprintf(path, len, "%s/%s.XXXXXX", dir, prefix);
	if ((fd = mkstemp(path)) < 0) {
		snprintf(err, errlen, "cannot make a file in '%s': %s", dir,
			 strerror(errno));
		path[0] = '\0';
		return -1;
	}
	close(fd);
	lab_note_file(lab, path);
	return 0;
}

int lab_note_mount(struct lab *lab, const char *path)
{
	char line[1024];

	snprintf(line, sizeof(line), "mount\t%s\n", path);
	return record(lab, line);
}

/* Removes a cgroup folder, ending any task still in it first. */
static int remove_cgroup(const char *path)
{
	char procs[1100];
	FILE *fp;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	for (int tries = 0; tries < 50; tries++) {
		int pid, any = 0;
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		if ((fp = fopen(procs, "r"))) {
			while (fscanf(fp, "%d", &pid) == 1) {
				kill(pid, SIGKILL);
				any = 1;
			}
			fclose(fp);
		}
		usleep(any ? 20000 : 5000);
	}
	return -EBUSY;
}

/* Restores the entries of the state file at path in reverse order; returns
 * the number that failed. verbose: say each on stdout (a reset). Scratch
 * files are removed only on a reset: a finishing capture still imports its
 * trace and removes it itself. */
static int restore_file(const char *path, int verbose)
{
	FILE *fp = fopen(path, "r");
	char **lines = NULL, buf[2048];
	size_t n = 0;
	int failed = 0;

	if (!fp)
		return errno == ENOENT ? 0 : 1;
	while (fgets(buf, sizeof(buf), fp)) {
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = xstrdup(buf);
	}
	fclose(fp);
	while (n--) {
		char *kind = strtok(lines[n], "\t\n"), *p = strtok(NULL, "\t\n");
		char *v = strtok(NULL, "\n");
		int rc = 0;

		if (!kind || !p)
			goto next;
		if (!strcmp(kind, "set"))
			rc = sysfs_write(p, v ? v : "");
		else if (!strcmp(kind, "dir"))
			rc = remove_cgroup(p);
		else if (!strcmp(kind, "mount"))
			/* busy: someone else opened it since (another tracer
			 * user); leaving a tracefs mounted changes nothing */
			rc = umount(p) < 0 && errno != EINVAL && errno != EBUSY
			     ? -errno : 0;
		else if (!strcmp(kind, "file") && verbose)
			rc = unlink(p) < 0 && errno != ENOENT ? -errno : 0;
		else
			goto next;
		if (rc) {
			warning("could not restore %s %s%s%s: %s", kind, p,
				v ? " to " : "", v ? v : "", strerror(-rc));
			failed++;
		} else if (verbose) {
			printf("restored %s %s%s%s\n", kind, p, v ? " = " : "", v ? v : "");
		}
next:
		free(lines[n]);
	}
	free(lines);
	return failed;
}

int lab_signals(sigset_t *mask, int child)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	/* a pipe reader on stdout or stderr ("iotape capture ... 2>&1 | tee
	 * log") dies with us on a terminal's Ctrl-C or a systemd stop: a
	 * write to it then fails with EPIPE, not SIGPIPE's death with the
	 * tracer left on (workloads get SIGPIPE back before exec) */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	if (child)
		sigaddset(mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, mask, NULL);
	return signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

int lab_end(struct lab *lab)
{
	int failed;

	if (lab->state_fd < 0)
		return 0;
	close(lab->state_fd);
	lab->state_fd = -1;
	failed = restore_file(lab->state, 0);
	if (!failed)
		unlink(lab->state);
	else
		warning("%d setting(s) not restored; '%s' keeps them for "
			"'iotape capture --reset'", failed, lab->state);
	if (lab->lock_fd >= 0)
		close(lab->lock_fd);
	lab->lock_fd = -1;
	return failed;
}

int lab_reset(const char *dir)
{
	char lockp[300], state[300];
	int fd, failed;
	struct stat sb;

	lab_path(lockp, sizeof(lockp), dir, "capture.lock");
	lab_path(state, sizeof(state), dir, "capture.state");
	fd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return error("a capture is running (it holds '%s'); not resetting",
			     lockp);
	}
	if (stat(state, &sb) < 0) {
		printf("nothing to reset: no '%s'\n", state);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	failed = restore_file(state, 1);
	if (!failed)
		unlink(state);
	if (fd >= 0)
		close(fd);
	return failed ? error("%d setting(s) could not be restored", failed) : 0;
}
