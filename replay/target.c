/* Replay targets: open with O_DIRECT, size and unit, and the checks before
 * a device is written (mounts, swap, holders, O_EXCL, libblkid). */
#include "target.h"

#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/util.h"
#include "trace/blktrace_format.h"

/* libblkid knows no SQLite database (out_file_sqlite()): 1 with what and
 * type ("sqlite") when path starts with its file header, 0 when not,
 * -errno. */
static int sqlite_signature(const char *path, char *what, size_t len,
			    char *type, size_t tlen)
{
	int rc = out_file_sqlite(path);

	if (rc <= 0)
		return rc;
	snprintf(what, len, "an SQLite database (its file header)");
	snprintf(type, tlen, "sqlite");
	return 1;
}

int target_signature(const char *path, char *what, size_t len, char *type,
		     size_t tlen)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *ty = NULL, *usage = NULL, *pt = NULL;
	int rc;

	if (!pr)
		return errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, 0);
	rc = blkid_do_safeprobe(pr);
	if (rc == 1) {
		blkid_free_probe(pr);
		return sqlite_signature(path, what, len, type, tlen);
	}
	if (rc == -2) {
		snprintf(what, len, "several signatures (ambiguous probe)");
		snprintf(type, tlen, "ambiguous");
		blkid_free_probe(pr);
		return 1;
	}
	if (rc < 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_lookup_value(pr, "TYPE", &ty, NULL);
	blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
	blkid_probe_lookup_value(pr, "PTTYPE", &pt, NULL);
	if (ty) {
		int vowel = strchr("aeiouAEIOU", ty[0]) != NULL;
		snprintf(what, len, "a%s %s signature (%s)", vowel ? "n" : "", ty,
			 usage ? usage : "unknown use");
		snprintf(type, tlen, "%s", ty);
	} else if (pt) {
		snprintf(what, len, "a %s partition table", pt);
		snprintf(type, tlen, "%s", pt);
	} else {
		snprintf(what, len, "an unnamed signature");
		snprintf(type, tlen, "unnamed");
	}
	blkid_free_probe(pr);
	return 1;
}

/* Whether /dev/NAME, a loop device, is backed by the file is(stat, ctx)
 * says is the target, told by the device and inode the kernel holds
 * (LOOP_GET_STATUS64's lo_device and lo_inode, linux/loop.h): the path in
 * backing_file no longer names it once the file is unlinked or renamed, or
 * names another file made there since. 1 or 0. */
static int loop_inode(const char *name,
		      int (*is)(const struct stat *o, const void *ctx),
		      const void *ctx)
{
	struct stat o;
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "/dev/%.200s", name);
	return !loop_file_stat(p, &o) && is(&o, ctx);
}

/* Whether a loop device is backed by a file that is(stat, ctx) says is
 * the target: 1 with "it backs /dev/loopN" in why, else 0
 * (sys/block/loopN/loop/backing_file, the path the loop device was set up
 * with, " (deleted)" when unlinked). */
static int loop_backed(const char *sys,
		       int (*is)(const struct stat *o, const void *ctx),
		       const void *ctx, char *why, size_t len)
{
	char p[PATH_MAX], line[4096];
	struct stat o;
	struct dirent *de;
	FILE *fp;
	DIR *d;

	snprintf(p, sizeof(p), "%s/block", sys);
	if (!(d = opendir(p)))
		return 0;
	while ((de = readdir(d))) {
		char *nl, *del;
		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "%s/block/%.200s/loop/backing_file", sys,
			 de->d_name);
		if (!(fp = fopen(p, "r")))
			continue;
		if (!fgets(line, sizeof(line), fp))
			line[0] = '\0';
		fclose(fp);
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if ((del = strstr(line, " (deleted)")))
			*del = '\0';
		if ((line[0] && !stat(line, &o) && is(&o, ctx)) ||
		    loop_inode(de->d_name, is, ctx)) {
			snprintf(why, len, "it backs /dev/%.100s", de->d_name);
			closedir(d);
			return 1;
		}
	}
	closedir(d);
	return 0;
}

/* loop_backed()'s test for a regular file: the same inode as ctx's */
static int same_file(const struct stat *o, const void *ctx)
{
	const struct stat *sb = ctx;
	return o->st_dev == sb->st_dev && o->st_ino == sb->st_ino;
}

/* Whether the regular file sb (at path) is in use so that writing it
 * would destroy what uses it: active swap (proc/swaps), or the backing
 * file of a loop device (sys/block/loopN/loop/backing_file). Returns 1
 * with a reason in why. */
static int file_in_use(const char *sys, const char *proc, const struct stat *sb,
		       char *why, size_t len)
{
	char p[PATH_MAX], line[4096];
	struct stat o;
	FILE *fp;

	snprintf(p, sizeof(p), "%s/swaps", proc);
	if ((fp = fopen(p, "r"))) {
		while (fgets(line, sizeof(line), fp)) {
			char f[2048];
			if (sscanf(line, "%2047s", f) == 1 && f[0] == '/' &&
			    !stat(f, &o) && o.st_dev == sb->st_dev &&
			    o.st_ino == sb->st_ino) {
				snprintf(why, len, "it is active swap");
				fclose(fp);
				return 1;
			}
		}
		fclose(fp);
	}
	return loop_backed(sys, same_file, sb, why, len);
}

int target_file_busy(const char *path, char *why, size_t len)
{
	struct stat sb;

	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	return file_in_use("/sys", "/proc", &sb, why, len);
}

/* Whether the regular file sb (open as fd) is one a replay made and
 * nothing has written since: TARGET_XATTR holds its mtime and size. */
static int replay_made(int fd, const struct stat *sb)
{
	char v[64], want[64];
	ssize_t n = fgetxattr(fd, TARGET_XATTR, v, sizeof(v) - 1);

	if (n <= 0)
		return 0;
	v[n] = '\0';
	snprintf(want, sizeof(want), "%lld.%09ld %lld", (long long)sb->st_mtim.tv_sec,
		 sb->st_mtim.tv_nsec, (long long)sb->st_size);
	return !strcmp(v, want);
}

/* Whether a partition of path's partition table holds a signature of its
 * own (a file system, swap, RAID member): 1 with the partition's number, its
 * first sector and what it holds in what, else 0 (no table, nothing inside,
 * or a probe that failed: the table's own check stands then). libblkid's
 * partition list (blkid_probe_get_partitions) gives where each is, 512-byte
 * sectors, and a probe limited to that range (blkid_probe_set_device) what
 * it holds. */
static int partition_contents(const char *path, char *what, size_t len)
{
	blkid_probe pr = blkid_new_probe_from_filename(path), in;
	blkid_partlist pl;
	int fd, found = 0;

	if (!pr)
		return 0;
	blkid_probe_enable_partitions(pr, 1);
	if (blkid_do_fullprobe(pr) < 0 || !(pl = blkid_probe_get_partitions(pr)) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		blkid_free_probe(pr);
		return 0;
	}
	for (int i = 0; !found && i < blkid_partlist_numof_partitions(pl); i++) {
		blkid_partition par = blkid_partlist_get_partition(pl, i);
		blkid_loff_t start = blkid_partition_get_start(par);
		blkid_loff_t size = blkid_partition_get_size(par);
		const char *ty = NULL, *usage = NULL;

		if (!(in = blkid_new_probe()))
			break;
		if (!blkid_probe_set_device(in, fd, start * 512, size * 512)) {
			blkid_probe_enable_superblocks(in, 1);
			blkid_probe_set_superblocks_flags(in, BLKID_SUBLKS_TYPE |
							  BLKID_SUBLKS_USAGE);
			if (blkid_do_safeprobe(in) == 0 &&
			    !blkid_probe_lookup_value(in, "TYPE", &ty, NULL)) {
				blkid_probe_lookup_value(in, "USAGE", &usage, NULL);
				snprintf(what, len, "its partition %d (from sector "
					 "%lld) holds a%s %s signature (%s)",
					 blkid_partition_get_partno(par),
					 (long long)start,
					 strchr("aeiouAEIOU", ty[0]) ? "n" : "", ty,
					 usage ? usage : "unknown use");
				found = 1;
			}
		}
		blkid_free_probe(in);
	}
	close(fd);
	blkid_free_probe(pr);
	return found;
}

/* Refuses writing over a signature on path unless sig_ok names its type;
 * the message names how to. A partition table named by sig_ok is written
 * over only when none of its partitions holds a signature of its own
 * (partition_contents()): naming the table names nothing inside it.
 * Returns 0, or -1 with err. */
static int check_signature(const char *path, const char *sig_ok, char *err,
			   size_t errlen)
{
	char what[256], type[64];
	int rc = target_signature(path, what, sizeof(what), type, sizeof(type));

	if (rc < 0) {
		snprintf(err, errlen, "refusing to write to '%s': cannot probe it "
			 "for signatures: %s", path, strerror(-rc));
		return -1;
	}
	if (rc && !(sig_ok && !strcmp(sig_ok, type))) {
		snprintf(err, errlen, "refusing to write to '%s': it holds %s; "
			 "--overwrite-signature %s writes over it%s", path, what, type,
			 sig_ok ? " (not the one named)" : "");
		return -1;
	}
	if (rc && partition_contents(path, what, sizeof(what))) {
		snprintf(err, errlen, "refusing to write to '%s': %s; "
			 "--overwrite-signature %s names the partition table only: "
			 "wipe the partition first (wipefs -a) or replay onto it",
			 path, what, type);
		return -1;
	}
	return 0;
}

/* The sysfs folder of block device maj:min (resolved), in out. */
static int sysfs_dir(const char *sys, unsigned maj, unsigned min, char *out)
{
	char link[512];

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys, maj, min);
	return realpath(link, out) ? 0 : -errno;
}

/* Is the device whose sysfs folder is dir, or one of its partitions (their
 * folders are inside the disk's), the device maj:min? */
static int same_disk(const char *sys, const char *dir, unsigned maj,
		     unsigned min)
{
	char other[PATH_MAX];
	size_t l = strlen(dir);

	if (sysfs_dir(sys, maj, min, other))
		return 0;
	return !strcmp(other, dir) || (!strncmp(other, dir, l) && other[l] == '/');
}

/* loop_backed()'s test for a block device: ctx's disk folder (struct
 * disk_ctx) is the device o is, holds it (a partition) or is inside its
 * folder (o is the disk of the partition dir). */
struct disk_ctx {
	const char *sys, *dir;
};

static int on_disk(const struct stat *o, const void *ctx)
{
	const struct disk_ctx *dc = ctx;
	char other[PATH_MAX];
	size_t l;

	if (!S_ISBLK(o->st_mode))
		return 0;
	if (same_disk(dc->sys, dc->dir, major(o->st_rdev), minor(o->st_rdev)))
		return 1;
	if (sysfs_dir(dc->sys, major(o->st_rdev), minor(o->st_rdev), other))
		return 0;
	l = strlen(other);
	return !strncmp(dc->dir, other, l) && dc->dir[l] == '/';
}

/* Why the block device (sysfs folder dir) must not be written: mounted,
 * active swap, backing a loop device, or held by another device. Returns 1
 * with a reason. */
static int in_use(const char *sys, const char *proc, const char *dir,
		  char *why, size_t len)
{
	char path[PATH_MAX], line[4096];
	FILE *fp;
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/self/mountinfo", proc);
	if ((fp = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), fp)) {
			unsigned ma, mi;
			char mnt[2048];
			if (sscanf(line, "%*u %*u %u:%u %*s %2047s", &ma, &mi, mnt) != 3)
				continue;
			if (ma && same_disk(sys, dir, ma, mi)) {
				snprintf(why, len, "it is mounted (device %u:%u on "
					 "%.160s)", ma, mi, mnt);
				fclose(fp);
				return 1;
			}
		}
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/swaps", proc);
	if ((fp = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), fp)) {
			char f[2048];
			struct stat sb;
			if (sscanf(line, "%2047s", f) != 1 || f[0] != '/' ||
			    stat(f, &sb) < 0)
				continue;
			if (S_ISBLK(sb.st_mode) &&
			    same_disk(sys, dir, major(sb.st_rdev), minor(sb.st_rdev))) {
				snprintf(why, len, "it holds active swap (%.160s)", f);
				fclose(fp);
				return 1;
			}
		}
		fclose(fp);
	}
	{
		struct disk_ctx dc = { sys, dir };
		/* a loop device over this disk, a partition of it or the
		 * disk it is a partition of (no holders link for a loop) */
		if (loop_backed(sys, on_disk, &dc, why, len))
			return 1;
	}
	snprintf(path, sizeof(path), "%.4000s/holders", dir);
	if ((d = opendir(path))) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(why, len, "it is held by %.100s (device mapper, RAID "
				 "or another stacked device)", de->d_name);
			closedir(d);
			return 1;
		}
		closedir(d);
	}
	return 0;
}

/* Fills t->disk from device maj:min (a partition maps to its disk). */
static void disk_name(const char *sys, struct replay_target *t, unsigned maj,
		      unsigned min)
{
	char dir[PATH_MAX], part[PATH_MAX + 16];
	struct stat sb;

	t->disk[0] = '\0';
	if (!maj || sysfs_dir(sys, maj, min, dir))
		return;
	snprintf(part, sizeof(part), "%s/partition", dir);
	if (stat(part, &sb) == 0) {
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
	}
	snprintf(t->disk, sizeof(t->disk), "%s", basename(dir));
}

/* 1 when the directory path would be made in is /dev or below it (after
 * symlinks: /dev/disk/by-id/..., a relative path from /dev). */
static int under_dev(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (!realpath(dir, real))
		return 0;
	return !strcmp(real, "/dev") || !strncmp(real, "/dev/", 5);
}

/* A missing target path made as a new file (O_EXCL, O_DIRECT), *sb its
 * stat; refused under /dev (a mistyped device name). Returns 0, or -1
 * with a message in err. */
static int target_create(struct replay_target *t, const char *path,
			 struct stat *sb, char *err, size_t errlen)
{
	if (under_dev(path)) {
		/* a mistyped device name, not a file to make in RAM */
		snprintf(err, errlen, "target '%s': no such device (a "
			 "missing target is made as a file only outside "
			 "/dev)", path);
		return -1;
	}
	t->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC,
		     0644);
	if (t->fd < 0) {
		int e = errno;
		if (e == EINVAL) {
			/* made, but O_DIRECT refused: say so, leave nothing */
			unlink(path);
			snprintf(err, errlen, "target '%s' does not support "
				 "O_DIRECT (the file system refuses it)", path);
		} else {
			snprintf(err, errlen, "cannot create target '%s': %s",
				 path, strerror(e));
		}
		return -1;
	}
	t->created = 1;
	if (fstat(t->fd, sb) < 0) {
		snprintf(err, errlen, "cannot stat '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* Block device target path (sb its stat): opened read-only, or for
 * writing (exclusively) when want_write and allow_write and it is not in
 * use and holds no signature but sig_ok; its size and logical block size.
 * Returns 0, or -1 with a message in err. */
static int target_open_blk(struct replay_target *t, const char *path,
			   const struct stat *sb, int want_write,
			   int allow_write, const char *sig_ok, const char *sys,
			   const char *proc, char *err, size_t errlen)
{
	char dir[PATH_MAX], what[256];
	uint64_t size = 0;
	int lbs = 0;

	t->blkdev = 1;
	t->dev = BT_MKDEV(major(sb->st_rdev), minor(sb->st_rdev));
	disk_name(sys, t, major(sb->st_rdev), minor(sb->st_rdev));
	if (want_write && allow_write) {
		if (!sysfs_dir(sys, major(sb->st_rdev), minor(sb->st_rdev), dir) &&
		    in_use(sys, proc, dir, what, sizeof(what))) {
			snprintf(err, errlen, "refusing to write to '%s': %s",
				 path, what);
			return -1;
		}
		t->fd = open(path, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
		if (t->fd < 0 && errno == EBUSY) {
			snprintf(err, errlen, "refusing to write to '%s': it "
				 "is in use (open exclusively elsewhere)", path);
			return -1;
		}
	} else {
		t->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	}
	if (t->fd < 0) {
		snprintf(err, errlen, errno == EINVAL ?
			 "target '%s' does not support O_DIRECT" :
			 "cannot open target '%s': %s", path, strerror(errno));
		return -1;
	}
	if (want_write && allow_write) {
		if (check_signature(path, sig_ok, err, errlen))
			return -1;
		t->writable = 1;
	}
	if (ioctl(t->fd, BLKGETSIZE64, &size) < 0 ||
	    ioctl(t->fd, BLKSSZGET, &lbs) < 0 || lbs < 512) {
		snprintf(err, errlen, "cannot read the size of '%s': %s",
			 path, strerror(errno));
		return -1;
	}
	t->size = size;
	t->lbs = (unsigned)lbs;
	t->mem_align = (unsigned)lbs;
	return 0;
}

/* A file target's direct I/O alignment: statx's when it says (a file
 * system with no direct I/O refused), else 4096. Returns 0, or -1 with a
 * message in err. */
static int file_dio_align(struct replay_target *t, const char *path,
			  char *err, size_t errlen)
{
	struct statx sx;

	t->lbs = t->mem_align = 4096;
	if (statx(t->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN)) {
		if (!sx.stx_dio_offset_align) {
			snprintf(err, errlen, "target '%s' does not support "
				 "O_DIRECT (statx: no direct I/O)", path);
			return -1;
		}
		t->lbs = sx.stx_dio_offset_align < 512 ? 512
			 : sx.stx_dio_offset_align;
		t->mem_align = sx.stx_dio_mem_align ? sx.stx_dio_mem_align : 512;
	}
	return 0;
}

/* Regular file target path (sb its stat; t->fd open when target_create()
 * made it): writable when iotape made it or may overwrite it (owned), or
 * on request (want_write and allow_write) when not in use and holding no
 * signature but sig_ok; an owned file marked as being written. Returns 0,
 * or -1 with a message in err. */
static int target_open_file(struct replay_target *t, const char *path,
			    const struct stat *sb, int want_write,
			    int allow_write, const char *sig_ok, const char *sys,
			    const char *proc, char *err, size_t errlen)
{
	char what[256];

	if (out_file_guarded(sb)) {
		snprintf(err, errlen, "refusing to replay on '%s': it is the "
			 "database this replay is stored in", path);
		return -1;
	}
	t->dev = BT_MKDEV(major(sb->st_dev), minor(sb->st_dev));
	disk_name(sys, t, major(sb->st_dev), minor(sb->st_dev));
	if (t->fd < 0) {
		/* an existing file: read-only until it is known to be ours */
		t->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (t->fd < 0) {
			snprintf(err, errlen, errno == EINVAL ?
				 "target '%s' does not support O_DIRECT (the file "
				 "system refuses it)" : "cannot open target '%s': %s",
				 path, strerror(errno));
			return -1;
		}
		t->owned = sb->st_size == 0 || replay_made(t->fd, sb);
	} else {
		t->owned = 1;
	}
	if (want_write && !t->owned && allow_write) {
		/* a file holding data, written on request: as a device is */
		if (file_in_use(sys, proc, sb, what, sizeof(what))) {
			snprintf(err, errlen, "refusing to write to '%s': %s", path,
				 what);
			return -1;
		}
		if (check_signature(path, sig_ok, err, errlen))
			return -1;
	}
	t->writable = t->owned || (want_write && allow_write);
	t->may_extend = t->writable;
	if (t->writable && !t->created) {
		int fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open target '%s' for writing: "
				 "%s", path, strerror(errno));
			return -1;
		}
		close(t->fd);
		t->fd = fd;
	}
	/* marked as being written until target_close() marks it done: a
	 * replay killed half way leaves a file that reads as holding data */
	if (t->owned && fsetxattr(t->fd, TARGET_XATTR, "", 0, 0) < 0)
		t->owned = t->created;   /* no xattrs there: not marked */
	t->size = (uint64_t)sb->st_size;
	return file_dio_align(t, path, err, errlen);
}

/* 1 when block device path is a loop device whose file is a guarded one
 * (out_file_guard(): the database this process has open), told by the
 * device and inode the kernel holds (LOOP_GET_STATUS64, linux/loop.h);
 * else 0. */
static int loop_of_guarded(const char *path)
{
	struct stat o;

	return !loop_file_stat(path, &o) && out_file_guarded(&o);
}

int target_open(struct replay_target *t, const char *path, int want_write,
		int allow_write, const char *sig_ok, const char *sys,
		const char *proc, char *err, size_t errlen)
{
	struct stat sb;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	snprintf(t->path, sizeof(t->path), "%s", path);
	/* the database, and the names of its journals whether or not one
	 * exists now (out_file_guard(); SQLite makes and removes them) */
	if (out_file_check(path) == OUT_FILE_GUARDED) {
		snprintf(err, errlen, "refusing to replay on '%s': it is the "
			 "database this replay is stored in, or its journal", path);
		return -1;
	}
	if (stat(path, &sb) < 0) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "cannot use target '%s': %s", path,
				 strerror(errno));
			return -1;
		}
		if (target_create(t, path, &sb, err, errlen))
			return -1;
	}
	if (S_ISBLK(sb.st_mode) && loop_of_guarded(path)) {
		/* whatever --overwrite-signature says: the file behind it is
		 * the store this replay writes its rows to */
		snprintf(err, errlen, "refusing to replay on '%s': it is a loop "
			 "device over the database this replay is stored in", path);
		return -1;
	}
	if (S_ISBLK(sb.st_mode))
		return target_open_blk(t, path, &sb, want_write, allow_write,
				       sig_ok, sys, proc, err, errlen);
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "target '%s' is neither a block device nor a "
			 "regular file", path);
		return -1;
	}
	return target_open_file(t, path, &sb, want_write, allow_write, sig_ok,
				sys, proc, err, errlen);
}

int target_extend(struct replay_target *t, uint64_t size, char *err,
		  size_t errlen)
{
	if (t->blkdev || !t->may_extend || size <= t->size)
		return 0;
	if (ftruncate(t->fd, (off_t)size) < 0) {
		snprintf(err, errlen, "cannot extend '%s' to %llu bytes: %s",
			 t->path, (unsigned long long)size, strerror(errno));
		return -1;
	}
	t->size = size;
	return 0;
}

int target_check_direct(struct replay_target *t, char *err, size_t errlen)
{
	size_t align = t->mem_align > 4096 ? t->mem_align : 4096;
	void *buf;
	ssize_t n;

	if (t->size < t->lbs)
		return 0;
	if (posix_memalign(&buf, align, t->lbs)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = pread(t->fd, buf, t->lbs, 0);
	free(buf);
	if (n < 0) {
		snprintf(err, errlen, "O_DIRECT reads fail on '%s': %s", t->path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

void target_close(struct replay_target *t)
{
	struct stat sb;

	if (t->fd < 0)
		return;
	if (!t->blkdev && t->owned && fsync(t->fd) == 0 && fstat(t->fd, &sb) == 0) {
		/* what this replay left: a later one may write it again while
		 * nothing else has (replay_made()) */
		char v[64];
		snprintf(v, sizeof(v), "%lld.%09ld %lld", (long long)sb.st_mtim.tv_sec,
			 sb.st_mtim.tv_nsec, (long long)sb.st_size);
		fsetxattr(t->fd, TARGET_XATTR, v, strlen(v), 0);
	}
	close(t->fd);
	t->fd = -1;
}
