/* Lab controls with a state file: record, change, restore. */
#include "lab.h"

#include <ctype.h>
#include <dirent.h>
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
		if (!f1 || !f2 || !strcmp(f1, "pid") || !strcmp(f1, "left"))
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

/* The pid a state file names and whether a restore already ran on it
 * ("left": what could not be put back), from its header lines. */
static void state_header(const char *path, int *pid, int *left)
{
	FILE *fp = fopen(path, "r");
	char line[1024];

	*pid = 0;
	*left = 0;
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, "pid\t", 4))
			*pid = atoi(line + 4);
		else if (!strncmp(line, "left\t", 5))
			*left = 1;
	}
	fclose(fp);
}

/* The command that puts back the state file at path: "iotape capture
 * --reset", with --state-dir DIR when path is not in LAB_DIR_DEFAULT (the
 * reset looks only there otherwise). */
static void reset_cmd(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;

	if (!slash || (dl == strlen(LAB_DIR_DEFAULT) &&
		       !strncmp(path, LAB_DIR_DEFAULT, dl)))
		snprintf(out, len, "iotape capture --reset");
	else
		snprintf(out, len, "iotape capture --reset --state-dir %.*s",
			 (int)dl, path);
}

/* The message for a state file at path that no running capture or replay
 * holds (the lock is free): what it changed, and --reset (with its
 * --state-dir). Says "killed" only when its pid is gone. */
static void left_changed(const char *path, char *err, size_t errlen)
{
	char left[2048], reset[400];
	int pid, was_left;

	reset_cmd(path, reset, sizeof(reset));
	describe_state(path, left, sizeof(left));
	state_header(path, &pid, &was_left);
	if (was_left)
		snprintf(err, errlen, "a capture or replay (pid %d) could not put "
			 "back what it changed (%s: %s); put it back by hand as it "
			 "said, or run '%s'", pid, path,
			 left[0] ? left : "nothing recorded", reset);
	else if (pid > 0 && kill(pid, 0) == 0)
		snprintf(err, errlen, "a capture or replay (pid %d, running but "
			 "no longer holding the lab's lock) left the machine changed "
			 "(%s: %s); run '%s' once it ends", pid,
			 path, left[0] ? left : "nothing recorded", reset);
	else
		snprintf(err, errlen, "a capture or replay was killed and left the "
			 "machine changed (%s: %s); run '%s' to "
			 "put it back", path, left[0] ? left : "nothing recorded",
			 reset);
}

/* An fd on tracefs's current_tracer, opened through a mount of tracefs of
 * its own that is in no mount namespace (fsopen(2), fsmount(2), Linux 5.2),
 * or -1 (no tracefs in the kernel, or the calls refused). tracefs has one
 * superblock per kernel, so a flock on this file is seen by every capture
 * on the machine, in whatever container or mount namespace it runs, where
 * dir's lock file is seen only by those sharing dir; and holding it pins
 * no mount of ours, so a capture that mounted /sys/kernel/tracing can
 * unmount it while another waits. */
static int tracer_lock_open(void)
{
	int fs, mnt, fd = -1;

	if ((fs = fsopen("tracefs", FSOPEN_CLOEXEC)) < 0)
		return -1;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0 &&
	    (mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY)) >= 0) {
		fd = openat(mnt, "current_tracer", O_RDONLY | O_CLOEXEC);
		close(mnt);
	}
	close(fs);
	return fd;
}

/* 1 when a capture (any mount namespace's) holds the machine-wide tracer
 * lock now (taken and let go at once when free). */
static int tracer_lock_held(void)
{
	int fd = tracer_lock_open(), held;

	if (fd < 0)
		return 0;
	held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

/* dir/name (the lock or the state file) into buf of len bytes. */
static void lab_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* 1 when nobody holds the lock at path (taken and let go at once). */
static int lock_free(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), free_;

	if (fd < 0)
		return 1;
	free_ = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_;
}

int lab_busy(const char *dir)
{
	char lockp[300];

	lab_path(lockp, sizeof(lockp), dir, "capture.lock");
	return !lock_free(lockp);
}

int lab_check(const char *dir, char *err, size_t errlen)
{
	char path[300], lockp[300];
	struct stat sb;

	lab_path(path, sizeof(path), dir, "capture.state");
	lab_path(lockp, sizeof(lockp), dir, "capture.lock");
	if (stat(path, &sb) < 0)
		return 0;
	/* a capture or replay running now: its changes are its own, put
	 * back when it ends; what changes nothing may run beside it */
	if (!lock_free(lockp))
		return 0;
	if (stat(path, &sb) < 0)       /* it ended meanwhile */
		return 0;
	left_changed(path, err, errlen);
	return -1;
}

int lab_begin(struct lab *lab, const char *dir, char *err, size_t errlen)
{
	char lockp[300], left[2048];
	struct stat sb;

	memset(lab, 0, sizeof(*lab));
	lab->lock_fd = lab->state_fd = lab->tracer_fd = -1;
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
		if (wait_lock(lab->lock_fd, lockp, err, errlen) < 0)
			goto fail;
	}
	/* then the machine's: a capture in another container or mount
	 * namespace has a lock file of its own but the same tracer */
	lab->tracer_fd = tracer_lock_open();
	if (lab->tracer_fd >= 0 && flock(lab->tracer_fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "iotape: waiting for another capture to finish "
			"(one in another container or mount namespace holds "
			"the tracer)\n");
		if (wait_lock(lab->tracer_fd, "the tracer", err, errlen) < 0)
			goto fail;
	}
	if (stat(lab->state, &sb) == 0) {
		left_changed(lab->state, err, errlen);
		goto fail;
	}
	lab->state_fd = open(lab->state, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0644);
	if (lab->state_fd < 0) {
		snprintf(err, errlen, "cannot make '%s': %s", lab->state,
			 strerror(errno));
		goto fail;
	}
	snprintf(left, sizeof(left), "pid\t%d\n", (int)getpid());
	record(lab, left);
	return 0;
fail:
	close(lab->lock_fd);
	lab->lock_fd = -1;
	if (lab->tracer_fd >= 0)
		close(lab->tracer_fd);
	lab->tracer_fd = -1;
	return -1;
}

/* The vm sysctls the kernel keeps in pairs (Documentation/admin-guide/
 * sysctl/vm.rst): writing one zeroes the other, and 0 is refused (EINVAL)
 * for the *_bytes ones, so a pair member is put back by writing whichever
 * of the two was not 0. */
static const char *const sysctl_pairs[][2] = {
	{ "/sys/vm/dirty_bytes", "/sys/vm/dirty_ratio" },
	{ "/sys/vm/dirty_background_bytes", "/sys/vm/dirty_background_ratio" },
};

/* The other member of path's pair into out (len bytes); 0, or -1 when path
 * is in no pair. */
static int pair_of(const char *path, char *out, size_t len)
{
	size_t pl = strlen(path);

	for (size_t i = 0; i < sizeof(sysctl_pairs) / sizeof(sysctl_pairs[0]); i++)
		for (int k = 0; k < 2; k++) {
			size_t sl = strlen(sysctl_pairs[i][k]);
			if (pl >= sl && !strcmp(path + pl - sl, sysctl_pairs[i][k])) {
				snprintf(out, len, "%.*s%s", (int)(pl - sl), path,
					 sysctl_pairs[i][!k]);
				return 0;
			}
		}
	return -1;
}

/* Before a device's I/O scheduler changes (path ends in
 * "queue/scheduler"): its queue's nr_requests and the scheduler's own
 * tunables (queue/iosched/, writable files), recorded so that a restore
 * writes them back after the scheduler (in reverse order): switching the
 * scheduler away and back resets both to their defaults (block/elevator.c
 * frees the old scheduler's data; nr_requests follows the new one's
 * depth). Returns 0 or -errno. */
static int record_scheduler_state(struct lab *lab, const char *path)
{
	static const char tail[] = "/scheduler";
	size_t pl = strlen(path), tl = sizeof(tail) - 1;
	char dir[512], f[800], v[512], line[1400];
	struct dirent *de;
	DIR *d;
	int rc;

	if (pl <= tl || strcmp(path + pl - tl, tail) || pl - tl >= sizeof(dir))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(pl - tl), path);
	snprintf(f, sizeof(f), "%s/nr_requests", dir);
	if (!sysfs_read(f, v, sizeof(v))) {
		snprintf(line, sizeof(line), "set\t%s\t%s\n", f, v);
		if ((rc = record(lab, line)))
			return rc;
	}
	snprintf(f, sizeof(f), "%s/iosched", dir);
	if (!(d = opendir(f)))
		return 0;       /* "none": no tunables */
	while ((de = readdir(d))) {
		struct stat sb;
		if (de->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/iosched/%s", dir, de->d_name);
		if (stat(f, &sb) || !S_ISREG(sb.st_mode) || !(sb.st_mode & S_IWUSR) ||
		    sysfs_read(f, v, sizeof(v)))
			continue;
		snprintf(line, sizeof(line), "set\t%s\t%s\n", f, v);
		if ((rc = record(lab, line))) {
			closedir(d);
			return rc;
		}
	}
	closedir(d);
	return 0;
}

/* The folder of the disk a sysfs path is in (".../block/NAME", the text
 * up to NAME), into out; 0, or -1 for a path in no disk's folder. */
static int disk_folder(const char *path, char *out, size_t len)
{
	const char *b = strstr(path, "/block/"), *end;

	if (!b || !b[7])
		return -1;
	end = strchr(b + 7, '/');
	snprintf(out, len, "%.*s", (int)((end ? end : b + strlen(b)) - path), path);
	return 0;
}

int lab_set(struct lab *lab, const char *path, const char *value, char *err,
	    size_t errlen)
{
	char old[1024], line[2048], partner[512], pv[256], folder[512], seq[64];
	int rc = sysfs_read(path, old, sizeof(old));

	if (rc) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(-rc));
		return -1;
	}
	if (!strcmp(old, value))
		return 0;
	/* which disk it is now (diskseq, Linux 5.15: a new one each time a
	 * disk appears, a loop device attached again included): a reset
	 * after the disk was replaced leaves the new one's settings alone */
	if (!disk_folder(path, folder, sizeof(folder))) {
		char sp[600];
		snprintf(sp, sizeof(sp), "%s/diskseq", folder);
		if (!sysfs_read(sp, seq, sizeof(seq))) {
			snprintf(line, sizeof(line), "seq\t%s\t%s\n", folder, seq);
			if ((rc = record(lab, line))) {
				snprintf(err, errlen, "cannot record state in '%s': %s",
					 lab->state, strerror(-rc));
				return -1;
			}
		}
	}
	/* a pair member: its partner's value first, which the kernel is
	 * about to zero and which puts the pair back (restore_file()) */
	if (!pair_of(path, partner, sizeof(partner)) &&
	    !sysfs_read(partner, pv, sizeof(pv))) {
		snprintf(line, sizeof(line), "set\t%s\t%s\n", partner, pv);
		if ((rc = record(lab, line))) {
			snprintf(err, errlen, "cannot record state in '%s': %s",
				 lab->state, strerror(-rc));
			return -1;
		}
	}
	if ((rc = record_scheduler_state(lab, path))) {
		snprintf(err, errlen, "cannot record state in '%s': %s",
			 lab->state, strerror(-rc));
		return -1;
	}
	snprintf(line, sizeof(line), "set\t%s\t%s\n", path, old);
	if ((rc = record(lab, line))) {
		snprintf(err, errlen, "cannot record state in '%s': %s", lab->state,
			 strerror(-rc));
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

/* One entry of a state file: "KIND\tPATH[\tVALUE]". */
struct entry {
	char *line;               /* as written, with its newline */
	char *kind, *path, *value;
	int failed;               /* could not be put back */
	int skip;                 /* its disk is another now: left alone */
};

/* The command that puts e back by hand, into out (len bytes). */
static void by_hand(const struct entry *e, char *out, size_t len)
{
	const char *v = e->value ? e->value : "";
	char partner[512];

	if (!strcmp(e->kind, "set") && !strcmp(v, "0") &&
	    !pair_of(e->path, partner, sizeof(partner)) &&
	    !strncmp(partner, "/proc/sys/", 10)) {
		/* 0 is refused: its pair's value zeroes it */
		char key[512];
		snprintf(key, sizeof(key), "%s", partner + 10);
		for (char *k = key; *k; k++)
			if (*k == '/')
				*k = '.';
		snprintf(out, len, "sysctl -w %s=N (its pair: N its value before, "
			 "not 0; writing it zeroes this one)", key);
	} else if (!strcmp(e->kind, "set") && !strncmp(e->path, "/proc/sys/", 10)) {
		char key[512];
		snprintf(key, sizeof(key), "%s", e->path + 10);
		for (char *k = key; *k; k++)
			if (*k == '/')
				*k = '.';
		snprintf(out, len, "sysctl -w %s=%s", key, v);
	} else if (!strcmp(e->kind, "set")) {
		snprintf(out, len, "echo '%s' > %s", v, e->path);
	} else if (!strcmp(e->kind, "dir")) {
		snprintf(out, len, "rmdir %s", e->path);
	} else if (!strcmp(e->kind, "mount")) {
		snprintf(out, len, "umount %s", e->path);
	} else {
		snprintf(out, len, "rm %s", e->path);
	}
}

/* The tracefs root a path is under ("/sys/kernel/tracing"), into out; 0,
 * or -1 when it is under none. */
static int tracefs_root_of(const char *path, char *out, size_t len)
{
	const char *t = strstr(path, "/tracing/");

	if (!t)
		return -1;
	snprintf(out, len, "%.*s", (int)(t - path) + 8, path);
	return 0;
}

/* Mounts tracefs at the roots of e[0 .. n)'s settings under one that is
 * not mounted now (unmounted after a killed capture: the tracer's settings
 * live on in the kernel and are put back through a mount); their paths
 * into mounted[] (at most 4). Returns how many it mounted. */
static int mount_tracefs_roots(const struct entry *e, size_t n,
			       char mounted[][256])
{
	int nm = 0;

	for (size_t i = 0; i < n && nm < 4; i++) {
		char root[256], probe[300];
		struct stat sb;
		int dup = 0;
		if (strcmp(e[i].kind, "set") ||
		    tracefs_root_of(e[i].path, root, sizeof(root)))
			continue;
		for (int k = 0; k < nm; k++)
			dup |= !strcmp(mounted[k], root);
		snprintf(probe, sizeof(probe), "%s/current_tracer", root);
		if (dup || stat(probe, &sb) == 0 || stat(root, &sb) < 0)
			continue;
		if (mount("none", root, "tracefs", 0, NULL) == 0)
			snprintf(mounted[nm++], 256, "%s", root);
	}
	return nm;
}

/* Puts back one entry; 0 or -errno. verbose: a reset (says what it did,
 * removes scratch files). */
static int restore_one(struct entry *e, const struct entry *all, size_t n,
		       int verbose, char *how, size_t hlen)
{
	char partner[512], now[1024];

	how[0] = '\0';
	if (!strcmp(e->kind, "set")) {
		const char *v = e->value ? e->value : "";
		/* a pair member that was 0: put back by writing its partner
		 * (recorded with it, lab_set()), which zeroes it; writing 0
		 * itself is refused */
		if (!strcmp(v, "0") && !pair_of(e->path, partner, sizeof(partner)))
			for (size_t k = 0; k < n; k++)
				if (!strcmp(all[k].kind, "set") &&
				    !strcmp(all[k].path, partner) && all[k].value &&
				    strcmp(all[k].value, "0")) {
					snprintf(how, hlen, " (by its pair %s)", partner);
					return 0;
				}
		/* as it should be already (a reset run again, a pair member
		 * its partner put back): nothing to write */
		if (!sysfs_read(e->path, now, sizeof(now)) && !strcmp(now, v))
			return 0;
		return sysfs_write(e->path, v);
	}
	if (!strcmp(e->kind, "dir"))
		return remove_cgroup(e->path);
	if (!strcmp(e->kind, "mount"))
		/* busy: someone else opened it since (another tracer user);
		 * leaving a tracefs mounted changes nothing */
		return umount(e->path) < 0 && errno != EINVAL && errno != EBUSY &&
		       errno != ENOENT ? -errno : 0;
	if (!strcmp(e->kind, "file") && verbose)
		return unlink(e->path) < 0 && errno != ENOENT ? -errno : 0;
	return 1;   /* nothing to do here */
}

/* Rewrites the state file at path with its header and the entries not put
 * back (marked "left": a restore ran), atomically. */
static void rewrite_state(const char *path, const char *header,
			  const struct entry *e, size_t n)
{
	char tmp[400];
	FILE *fp;
	int ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(fp = fopen(tmp, "w")))
		return;
	fputs(header, fp);
	fputs("left\t1\n", fp);
	for (size_t i = 0; i < n; i++) {
		char partner[512];
		/* which disk each was on goes with them (a reset again) */
		int keep = e[i].failed || !strcmp(e[i].kind, "seq");
		/* a pair member goes with its failed partner: the pair is
		 * put back by whichever was not 0 */
		for (size_t k = 0; k < n && !keep; k++)
			keep = e[k].failed && !strcmp(e[i].kind, "set") &&
			       !strcmp(e[k].kind, "set") &&
			       !pair_of(e[k].path, partner, sizeof(partner)) &&
			       !strcmp(partner, e[i].path);
		if (keep)
			fprintf(fp, "%s\t%s%s%s\n", e[i].kind, e[i].path,
				e[i].value ? "\t" : "", e[i].value ? e[i].value : "");
	}
	ok = fflush(fp) == 0 && fsync(fileno(fp)) == 0;
	if (fclose(fp) == 0 && ok)
		rename(tmp, path);
	else
		unlink(tmp);
}

/* Restores the entries of the state file at path in reverse order of
 * change, tracefs unmounted last (a setting under it first remounted when
 * it is gone); returns the number that failed, each said on stderr with
 * the command that puts it back by hand. verbose: say each on stdout (a
 * reset). Scratch files are removed only on a reset: a finishing capture
 * still imports its trace and removes (or keeps) it itself. What failed is
 * left in the state file (the rest removed from it), so a reset can be run
 * again until it is clean; with nothing failed the file is removed. */
static int restore_file(const char *path, int verbose)
{
	FILE *fp = fopen(path, "r");
	struct entry *e = NULL;
	char buf[2048], header[64] = "", mounted[4][256];
	size_t n = 0;
	int failed = 0, nm;

	if (!fp)
		return errno == ENOENT ? 0 : 1;
	while (fgets(buf, sizeof(buf), fp)) {
		struct entry x = { .line = xstrdup(buf) };
		char *save = NULL;
		x.kind = strtok_r(x.line, "\t\n", &save);
		x.path = strtok_r(NULL, "\t\n", &save);
		x.value = strtok_r(NULL, "\n", &save);
		if (x.kind && !strcmp(x.kind, "pid") && x.path)
			snprintf(header, sizeof(header), "pid\t%s\n", x.path);
		if (!x.kind || !x.path || !strcmp(x.kind, "pid") ||
		    !strcmp(x.kind, "left")) {
			free(x.line);
			continue;
		}
		e = xrealloc(e, (n + 1) * sizeof(*e));
		e[n++] = x;
	}
	fclose(fp);
	/* a disk's settings whose disk is another now (its diskseq moved:
	 * detached, and its name given to another) or gone: not written */
	for (size_t i = 0; i < n; i++) {
		char sp[600], now[64] = "", folder[512];
		if (strcmp(e[i].kind, "seq") || !e[i].value)
			continue;
		snprintf(sp, sizeof(sp), "%s/diskseq", e[i].path);
		if (!sysfs_read(sp, now, sizeof(now)) && !strcmp(now, e[i].value))
			continue;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(e[k].kind, "set") &&
			    !disk_folder(e[k].path, folder, sizeof(folder)) &&
			    !strcmp(folder, e[i].path) && !e[k].skip) {
				e[k].skip = 1;
				if (verbose)
					printf("not restored %s %s%s%s: %s is another "
					       "disk now (diskseq %s then, %s now)\n",
					       e[k].kind, e[k].path, e[k].value ?
					       " = " : "", e[k].value ? e[k].value : "",
					       e[i].path, e[i].value, now[0] ? now :
					       "none: gone");
			}
	}
	nm = mount_tracefs_roots(e, n, mounted);
	/* in reverse order of change; mounts after everything else */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = n; i-- > 0;) {
			char how[600], hand[1200];
			int rc;
			if ((pass == 0) != (strcmp(e[i].kind, "mount") != 0) ||
			    e[i].skip || !strcmp(e[i].kind, "seq"))
				continue;
			rc = restore_one(&e[i], e, n, verbose, how, sizeof(how));
			if (rc < 0) {
				e[i].failed = 1;
				failed++;
				by_hand(&e[i], hand, sizeof(hand));
				warning("could not restore %s %s%s%s: %s; by hand: %s",
					e[i].kind, e[i].path, e[i].value ? " to " : "",
					e[i].value ? e[i].value : "", strerror(-rc), hand);
			} else if (verbose && rc == 0) {
				printf("restored %s %s%s%s%s\n", e[i].kind, e[i].path,
				       e[i].value ? " = " : "", e[i].value ? e[i].value : "",
				       how);
			}
		}
	while (nm-- > 0)
		umount(mounted[nm]);
	if (failed)
		rewrite_state(path, header, e, n);
	else
		unlink(path);
	for (size_t i = 0; i < n; i++)
		free(e[i].line);
	free(e);
	return failed;
}

int lab_signals(sigset_t *mask, int child)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	/* a pipe reader on stdout or stderr ("iotape capture ... 2>&1 | tee
	 * log") dies with us on a terminal's Ctrl-C or a systemd stop: a
	 * write to it then fails with EPIPE, not SIGPIPE's death with the
	 * tracer left on (workloads get SIGPIPE back before exec) */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGQUIT);   /* Ctrl-\: settings put back too */
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
	if (failed) {
		char reset[400];
		reset_cmd(lab->state, reset, sizeof(reset));
		warning("%d setting(s) not restored (each named above with the "
			"command that puts it back); '%s' keeps them for '%s'",
			failed, lab->state, reset);
	}
	if (lab->tracer_fd >= 0)
		close(lab->tracer_fd);
	lab->tracer_fd = -1;
	if (lab->lock_fd >= 0)
		close(lab->lock_fd);
	lab->lock_fd = -1;
	return failed;
}

int lab_reset(const char *dir)
{
	char lockp[300], state[300];
	int fd, failed, pid, left;
	struct stat sb;

	lab_path(lockp, sizeof(lockp), dir, "capture.lock");
	lab_path(state, sizeof(state), dir, "capture.state");
	fd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		state_header(state, &pid, &left);
		if (pid > 0)
			return error("a capture or replay is running (pid %d holds "
				     "'%s'); it puts back what it changed when it "
				     "ends: not resetting", pid, lockp);
		return error("a capture or replay is running (it holds '%s'); not "
			     "resetting", lockp);
	}
	if (stat(state, &sb) < 0) {
		printf("nothing to reset: no '%s'\n", state);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* the state file is this namespace's, the tracer the machine's: one
	 * running elsewhere would have its tracer switched off under it */
	if (fd >= 0 && tracer_lock_held()) {
		close(fd);
		return error("a capture or replay in another container or mount "
			     "namespace holds the tracer; not resetting until it "
			     "ends");
	}
	failed = restore_file(state, 1);
	if (fd >= 0)
		close(fd);
	return failed ? error("%d setting(s) could not be restored: put them "
			      "back by hand as said above, or run 'iotape capture "
			      "--reset' again ('%s' keeps them)", failed, state) : 0;
}
